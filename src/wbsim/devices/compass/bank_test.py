"""Compass values in worlds: known headings in ENU, NUE and EUN worlds, tilts, lookup tables with noise,
disabled axes, resolution, sampling times, supervisor writes and resets.

From ``WbCompass::computeValue``: the value is ``R^T north`` (the world's north axis in the compass frame),
each enabled component through the lookup table, then the resolution. North is +y in ENU, +x in NUE, +z in EUN.
"""

from __future__ import annotations

import math

import numpy as np
import pytest


def _world(compasses: str, system: str = "ENU", seed: int = 1) -> str:
    return f"""
WorldInfo {{ basicTimeStep 16 coordinateSystem "{system}" randomSeed {seed} }}
Robot {{ name "r" controller "<extern>" children [ {compasses} ] }}
"""


def _read(sim, count: int, steps: int = 1) -> np.ndarray:
    robot = sim.robot("r")
    compasses = [robot.getDeviceByIndex(i) for i in range(count)]
    for compass in compasses:
        compass.enable(16)
    samples = []
    for _ in range(steps):
        robot.step(16)
        samples.append([c.getValues() for c in compasses])
    return np.array(samples[0] if steps == 1 else samples)


HEADINGS = [0.0, 0.7, math.pi / 2, 2.5, -1.9, math.pi]


def test_enu_north_is_plus_y_in_the_compass_frame(project, load):
    # A compass turned by h about the up axis has its x axis h from east: north reads (sin h, cos h, 0).
    compasses = " ".join(f'Compass {{ name "c{i}" rotation 0 0 1 {h!r} }}' for i, h in enumerate(HEADINGS))
    compasses += ' Compass { name "tilted" rotation 1 0 0 0.4 }'  # pitched up by 0.4 about x: (0, cos, -sin)
    sim = load(project(_world(compasses)))
    values = _read(sim, len(HEADINGS) + 1)
    expected = [[math.sin(h), math.cos(h), 0.0] for h in HEADINGS] + [[0.0, math.cos(0.4), -math.sin(0.4)]]
    assert values == pytest.approx(np.array(expected), abs=1e-12)
    assert np.linalg.norm(values, axis=1) == pytest.approx(1.0, abs=1e-15)


def test_nue_north_is_plus_x_and_eun_plus_z(project, load):
    # NUE: turned by h about the up axis (+y): R = Ry(h), north (+x) reads (cos h, 0, sin h).
    compasses = " ".join(f'Compass {{ name "c{i}" rotation 0 1 0 {h!r} }}' for i, h in enumerate(HEADINGS))
    sim = load(project(_world(compasses, "NUE")))
    assert _read(sim, len(HEADINGS)) == pytest.approx(
        np.array([[math.cos(h), 0.0, math.sin(h)] for h in HEADINGS]), abs=1e-12)
    # EUN: up is +y, north +z: turned by h about +y, north reads (-sin h, 0, cos h).
    sim = load(project(_world(compasses, "EUN"), world_name="eun.wbt"))
    assert _read(sim, len(HEADINGS)) == pytest.approx(
        np.array([[-math.sin(h), 0.0, math.cos(h)] for h in HEADINGS]), abs=1e-12)


def test_lookup_table_disabled_axes_and_resolution(project, load):
    compasses = " ".join([
        'Compass { name "scaled" rotation 0 0 1 0.7 lookupTable [ -1 -100 0, 1 100 0 ] }',
        'Compass { name "clamped" rotation 0 0 1 0.7 lookupTable [ 0 0 0, 0.7 70 0 ] }',
        'Compass { name "2-axis" rotation 0 0 1 0.7 zAxis FALSE yAxis FALSE }',
        'Compass { name "coarse" rotation 0 0 1 0.7 resolution 0.1 }',
    ])
    sim = load(project(_world(compasses)))
    values = _read(sim, 4)
    s, c = math.sin(0.7), math.cos(0.7)
    assert values[0] == pytest.approx([100 * s, 100 * c, 0.0], abs=1e-10)
    assert values[1] == pytest.approx([100 * s, 70.0, 0.0], abs=1e-10)  # cos 0.7 > 0.7: clamped to the last row
    assert values[2][0] == pytest.approx(s) and math.isnan(values[2][1]) and math.isnan(values[2][2])
    assert values[3].tolist() == [0.6000000000000001, 0.8, 0.0]  # Webots' (int)(v / r + 0.5) * r


def _noisy_values(project, load, seed: int, world_name: str, steps: int = 100) -> np.ndarray:
    compasses = " ".join(f'Compass {{ name "c{i}" lookupTable [ -1 -1 0.05, 1 1 0.05 ] }}' for i in range(20))
    return _read(load(project(_world(compasses, seed=seed), world_name=world_name)), 20, steps)


def test_table_noise_is_relative_gaussian_seeded_and_replayed(project, load):
    values = _noisy_values(project, load, 3, "a.wbt")  # (100, 20, 3): north (0, 1, 0) read 2000 times
    # Relative noise: 1 * (1 + 0.05 N(0, 1)) on y; x and z are 0 and stay 0 (0 times anything).
    y = values[:, :, 1].ravel()
    assert np.std(y) == pytest.approx(0.05, rel=0.065)  # standard error sqrt(1 / 2N) = 1.6 %, bound at 4
    assert abs(np.mean(y) - 1.0) < 4 * 0.05 / math.sqrt(len(y))
    assert np.abs(values[:, :, [0, 2]]).max() < 1e-15
    assert np.array_equal(_noisy_values(project, load, 3, "b.wbt", 5), values[:5])
    assert not np.array_equal(_noisy_values(project, load, 4, "c.wbt", 5), values[:5])


def test_sampling_supervisor_writes_and_resets(project, load, capfd):
    world = _world('Compass { rotation 0 0 1 0.7 }').replace('controller "<extern>"',
                                                            'controller "<extern>" supervisor TRUE')
    sim = load(project(world))
    robot = sim.robot("r")
    compass = robot.getDevice("compass")
    compass.enable(32)
    robot.step(16)
    assert all(math.isnan(v) for v in compass.getValues())  # one period after enable
    robot.step(16)
    assert compass.getValues() == pytest.approx([math.sin(0.7), math.cos(0.7), 0.0])
    node = sim.banks["compass"].bindings[0].node
    sim.supervision.set_field_value(node, "lookupTable", ((-1.0, 10.0, 0.0), (1.0, -10.0, 0.0)))
    sim.supervision.set_field_value(node, "xAxis", False)
    sim.supervision.set_field_value(node, "resolution", 0.0)
    assert "Invalid 'resolution' changed to -1. The value should be either -1 or positive." in capfd.readouterr().err
    robot.step(32)
    values = compass.getValues()
    assert math.isnan(values[0]) and values[1:] == pytest.approx([-10 * math.cos(0.7), 0.0])
    assert compass.getLookupTable() == [-1.0, 10.0, 0.0, 1.0, -10.0, 0.0]
    robot.simulationReset()
    robot.step(16)
    assert compass.getSamplingPeriod() == 32 and compass.getLookupTable() == []
    assert compass.getValues() == pytest.approx([math.sin(0.7), math.cos(0.7), 0.0])
    sim.reset()
    assert np.isnan(sim.banks["compass"].values).all() and sim.banks["compass"].period_ms[0] == 0
