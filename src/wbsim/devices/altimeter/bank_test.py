"""Altimeter values in worlds: the up axis of ENU/NUE, the reference, noise, resolution, timing and resets."""

from __future__ import annotations

import math

import numpy as np
import pytest


def _world(devices: str, info: str = "", robot: str = "translation 1 2 3") -> str:
    return f"""
WorldInfo {{ basicTimeStep 16 {info} }}
Robot {{ {robot} name "r" controller "<extern>" supervisor TRUE children [ {devices} ] }}
"""


def _read(sim, *names: str, period: int = 16) -> list[float]:
    robot = sim.robot("r")
    devices = [robot.getDevice(n) for n in names]
    for device in devices:
        device.enable(period)
    robot.step(period)
    return [d.getValue() for d in devices]


@pytest.mark.parametrize(("system", "info", "expected"), [
    ("ENU", "", 3.0 + 0.5),
    ("NUE", "", 2.0 + 0.25),
    ("EUN", "", 2.0 + 0.25),
    ("ENU", "gpsReference 10 20 30", 3.0 + 0.5 + 30.0),
    ("NUE", "gpsReference 10 20 30", 2.0 + 0.25 + 20.0),  # local: the reference's up coordinate
    ("NUE", 'gpsCoordinateSystem "WGS84" gpsReference 46.5 6.6 400', 2.0 + 0.25 + 400.0),  # WGS84: its altitude
])
def test_altitude_is_the_up_coordinate_plus_the_reference(project, load, system, info, expected):
    devices = "Pose { translation 0.125 0.25 0.5 children [ Altimeter { } ] }"
    sim = load(project(_world(devices, f'coordinateSystem "{system}" {info}')))
    assert _read(sim, "altimeter") == [pytest.approx(expected, abs=1e-12)]


def test_a_rotated_robot_reads_its_device_origin(project, load):
    devices = "Altimeter { translation 0 0 1 }"
    sim = load(project(_world(devices, robot=f"translation 0 0 2 rotation 1 0 0 {math.pi / 3}")))
    assert _read(sim, "altimeter") == [pytest.approx(2.0 + math.cos(math.pi / 3), abs=1e-12)]


def test_accuracy_noise_statistics_seed_and_resolution(project, load):
    devices = " ".join(f'Altimeter {{ name "a{i}" accuracy 0.5 }}' for i in range(30)) + \
        ' Altimeter { name "coarse" resolution 0.25 translation 0 0 0.1 }'
    path = project(_world(devices, robot="translation 0 0 7"))

    def run(seed: int) -> np.ndarray:
        sim = load(path, seed=seed)
        robot = sim.robot("r")
        devices = [robot.getDevice(f"a{i}") for i in range(30)]
        for d in devices:
            d.enable(16)
        coarse = robot.getDevice("coarse")
        coarse.enable(16)
        out = []
        for _ in range(100):
            robot.step(16)
            out.append([d.getValue() for d in devices])
            assert coarse.getValue() == 7.0  # (int)(7.1 / 0.25 + 0.5) * 0.25
        return np.array(out)

    values = run(1)
    assert values.std() == pytest.approx(0.5, rel=0.1) and values.mean() == pytest.approx(7.0, abs=0.02)
    assert abs(np.mean((values[1:] - 7) * (values[:-1] - 7))) / values.var() < 0.05  # fresh draws
    assert np.array_equal(values, run(1)) and not np.array_equal(values, run(2))


def test_timing_errors_supervisor_writes_and_resets(project, load, capfd):
    sim = load(project(_world("Altimeter { }", robot="translation 0 0 1.3")))
    robot = sim.robot("r")
    altimeter = robot.getDevice("altimeter")
    assert math.isnan(altimeter.getValue())
    assert "Error: wb_altimeter_get_value() called for a disabled device! Please use: wb_altimeter_enable()." in \
        capfd.readouterr().err
    altimeter.enable(40)
    robot.step(16)
    robot.step(16)
    assert math.isnan(altimeter.value)
    robot.step(16)
    assert altimeter.value == pytest.approx(1.3)
    node = robot.getFromDevice(altimeter)
    node.getField("resolution").setSFFloat(0.0)
    assert node.getField("resolution").getSFFloat() == -1.0
    assert "Invalid 'resolution' changed to -1. The value should be either -1 or positive." in capfd.readouterr().err
    node.getField("resolution").setSFFloat(1.0)
    for _ in range(3):
        robot.step(16)
    assert altimeter.value == 1.0
    robot.simulationReset()
    robot.step(16)
    assert altimeter.getSamplingPeriod() == 40 and altimeter.value == pytest.approx(1.3)  # the file's resolution
    sim.reset()
    bank = sim.banks["altimeter"]
    assert math.isnan(bank.values[0]) and bank.period_ms[0] == 0 and bank.resolution[0] == -1.0
