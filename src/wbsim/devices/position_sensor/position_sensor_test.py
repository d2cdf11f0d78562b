"""Position sensors: sampling, value, noise and resolution with Webots semantics."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pytest

from wbsim.devices.resolution import quantize

if TYPE_CHECKING:
    from wbsim.api.robot import Robot
    from wbsim.devices.position_sensor.api import PositionSensor
    from wbsim.sim.simulation import Simulation

WORLD = """
WorldInfo { basicTimeStep 16 randomSeed 7 }
Robot {
  name "r"
  controller "<extern>"
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 0 1 position 0.25 }
      device [
        RotationalMotor { name "m" maxTorque 100 }
        PositionSensor { name "exact" }
      ]
      endPoint Solid { rotation 0 0 1 0.25 physics Physics {} boundingObject Box { size 0.1 0.1 0.1 } }
    }
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 0 1 }
      device [ PositionSensor { name "noisy" noise 0.01 } ]
      endPoint Solid { translation 0 1 0 physics Physics {} boundingObject Box { size 0.1 0.1 0.1 } }
    }
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 0 1 position -0.15 }
      device [ PositionSensor { name "coarse" resolution 0.2 } ]
      endPoint Solid { translation 0 2 0 rotation 0 0 1 -0.15 physics Physics {} boundingObject Box { size 0.1 0.1 0.1 } }
    }
    SliderJoint {
      jointParameters JointParameters { axis 1 0 0 position 0.1 }
      device [ PositionSensor { name "linear" } ]
      endPoint Solid { translation 0.1 3 0 physics Physics {} boundingObject Box { size 0.1 0.1 0.1 } }
    }
  ]
}
"""


@pytest.fixture
def rig(project, load):
    sim = load(project(WORLD))
    return sim, sim.robot("r")


def test_value_is_nan_until_first_sample_one_period_after_enable(rig, capfd):
    sim, robot = rig
    sensor = robot.getDevice("exact")
    assert math.isnan(sensor.getValue())
    assert "called for a disabled device! Please use: wb_position_sensor_enable()." in capfd.readouterr().err
    sensor.enable(40)  # rounded up to 48 ms = 3 basic steps
    assert sensor.getSamplingPeriod() == 40
    robot.step(32)
    assert math.isnan(sensor.getValue())
    robot.step(16)
    assert sensor.getValue() == pytest.approx(0.25)  # includes the joint's initial position


def test_value_holds_between_samples(rig):
    sim, robot = rig
    sensor = robot.getDevice("exact")
    motor = robot.getDevice("m")
    sensor.enable(64)
    motor.setPosition(float("inf"))
    motor.setVelocity(2.0)
    robot.step(64)
    first = sensor.getValue()
    robot.step(16)
    assert sensor.getValue() == first  # not due yet
    robot.step(48)
    assert sensor.getValue() > first


def test_disabled_sensor_returns_last_value(rig, capfd):
    sim, robot = rig
    sensor = robot.getDevice("exact")
    sensor.enable(16)
    robot.step(16)
    sensor.disable()
    capfd.readouterr()
    assert sensor.getValue() == pytest.approx(0.25)
    assert "disabled device" in capfd.readouterr().err


def test_noise_is_additive_gaussian_with_std_noise(rig):
    sim, robot = rig
    sensor = robot.getDevice("noisy")
    sensor.enable(16)
    values = []
    for _ in range(400):
        robot.step(16)
        values.append(sensor.getValue())
    values = np.asarray(values)
    assert abs(values.mean()) < 0.003
    assert values.std() == pytest.approx(0.01, rel=0.15)


def test_resolution_quantises_like_webots(rig):
    sim, robot = rig
    sensor = robot.getDevice("coarse")
    sensor.enable(16)
    robot.step(16)
    # (int)(-0.15 / 0.2 + 0.5) * 0.2 = (int)(-0.25) * 0.2 = 0: Webots truncates toward zero, a dead band
    # where rounding (half up or to nearest) would give -0.2.
    assert sensor.getValue() == 0.0


def test_quantize_truncates_toward_zero():
    values = np.array([0.29, 0.31, -1.2, -1.6, -0.2, 2.5])
    out = quantize(values, np.array([1.0, 0.2, 1.0, 1.0, 1.0, -1.0]))
    np.testing.assert_allclose(out, [0.0, 0.4, 0.0, -1.0, 0.0, 2.5])


def test_linear_sensor_reads_slider_position(rig):
    sim, robot = rig
    sensor = robot.getDevice("linear")
    assert sensor.getType() == sensor.LINEAR
    assert robot.getDevice("exact").getType() == sensor.ROTATIONAL
    sensor.enable(16)
    robot.step(16)
    assert sensor.getValue() == pytest.approx(0.1, abs=1e-6)


def test_same_seed_same_noise_different_seed_different_noise(project, load):
    path = project(WORLD)

    def trace(seed):
        sim = load(path, seed=seed)
        robot = sim.robot("r")
        sensor = robot.getDevice("noisy")
        sensor.enable(16)
        out = []
        for _ in range(20):
            robot.step(16)
            out.append(sensor.getValue())
        return out

    assert trace(3) == trace(3)
    assert trace(3) != trace(4)


def test_get_value_refuses_exactly_the_disabled_sensors_on_every_path(project, load, capfd):
    """getValue's enabled check (the schedule's period list) agrees with getSamplingPeriod after enable,
    disable, a reset of the simulation and a rebuild that moves every sensor to another row (a supervisor
    importing a joint with its own sensor in front of them)."""
    path = project(WORLD.replace('name "r"', 'name "r" supervisor TRUE'))
    sim = load(path)
    robot = sim.robot("r")
    names = ["exact", "noisy", "coarse", "linear"]

    def check(label: str) -> None:
        for name in names:
            sensor = robot.getDevice(name)
            capfd.readouterr()
            sensor.getValue()
            refused = "disabled device" in capfd.readouterr().err
            assert refused == (sensor.getSamplingPeriod() == 0), (label, name)

    check("loaded")
    robot.getDevice("exact").enable(16)
    robot.getDevice("coarse").enable(32)
    robot.step(16)
    check("enabled")
    robot.getDevice("coarse").disable()
    robot.getDevice("linear").enable(16)
    check("disabled")
    rows = robot.getDevice("exact")._row
    robot.getSelf().getField("children").importMFNodeFromString(
        0, 'HingeJoint { device [ PositionSensor { name "new" } ] endPoint Solid { translation 0 5 0 } }')
    robot.step(16)
    names.append("new")
    assert robot.getDevice("exact")._row == rows + 1  # the rows moved
    check("rebuilt")
    robot.getDevice("new").enable(16)
    robot.getDevice("exact").disable()
    robot.step(16)
    check("rebuilt, then enabled and disabled")
    sim.reset()
    robot.step(16)
    check("reset")


def reset_then_sample(sim: Simulation, robot: Robot, sensor: PositionSensor, reset: str,
                      capfd: pytest.CaptureFixture[str]) -> None:
    """Reset with a kept, enabled PositionSensor object (``reset``: "reset" for ``sim.reset()``, an ``<extern>``
    script's objects; else a world reset, controllers running), then step once more so it has sampled since.
    After ``sim.reset()`` the sensor reads NaN, disabled (an error printed), and is enabled again at 16 ms."""
    if reset == "reset":
        sim.reset()
        value = sensor.getValue()  # disabled by the reset (an error printed), and NaN as after loading
        assert type(value) is float and math.isnan(value) and "disabled device" in capfd.readouterr().err
        sensor.enable(16)
    else:
        sim.request_world_reset()
        robot.step(16)  # reset at the end of this step; the last value stays readable until the next sample
    robot.step(16)


@pytest.mark.parametrize("reset", ["world reset", "reset"])
def test_a_kept_sensor_object_reads_its_sensor_after_a_reset(rig, reset, capfd):
    """A PositionSensor object a controller keeps across a world reset (``simulationReset``, controllers
    running) or ``sim.reset()`` (an ``<extern>`` script's objects) reads the values sampled after it, as Python
    floats: resets update the bank's value array in place (getValue reads a memoryview of it, taken once)."""
    sim, robot = rig
    sensor, motor = robot.getDevice("exact"), robot.getDevice("m")
    sensor.enable(16)
    motor.setPosition(1.0)
    robot.step(480)
    moved = sensor.getValue()
    assert type(moved) is float and moved == pytest.approx(1.0, abs=0.01)
    reset_then_sample(sim, robot, sensor, reset, capfd)
    value = sensor.getValue()
    assert type(value) is float and value == sensor._core.value == pytest.approx(0.25, abs=1e-3)
