"""The Track's devices in a controller: LinearMotor and PositionSensor objects, siblings, force feedback."""

from __future__ import annotations

import math

import pytest

from controller import LinearMotor, Motor, PositionSensor

from wbsim.devices.position_sensor.position_sensor_test import reset_then_sample

WORLD = """
WorldInfo { basicTimeStep 16 }
Robot {
  name "r"
  controller "<extern>"
  children [
    Track { name "t" boundingObject Box { size 0.3 0.05 0.1 } physics Physics { }
      device [ LinearMotor { name "belt" maxForce 20 } PositionSensor { name "belt sensor" resolution 0.01 } ] }
    Track { name "u" boundingObject Box { size 0.3 0.05 0.1 } physics Physics { }
      device [ LinearMotor { name "lone" } ] }
  ]
}
"""


@pytest.fixture
def robot(project, load):
    sim = load(project(WORLD))
    return sim, sim.robot("r")


def test_devices_are_linear_motor_and_position_sensor(robot):
    sim, r = robot
    motor, sensor = r.getDevice("belt"), r.getDevice("belt sensor")
    assert isinstance(motor, LinearMotor) and isinstance(sensor, PositionSensor)
    assert motor.getType() == Motor.LINEAR and sensor.getType() == PositionSensor.LINEAR
    assert motor.getMaxForce() == 20.0 and motor.getNodeType() == r.getDevice("lone").getNodeType()
    assert motor.getPositionSensor() is sensor and sensor.getMotor() is motor
    assert motor.position_sensor is sensor and sensor.motor is motor
    assert r.getDevice("lone").getPositionSensor() is None
    assert motor.getBrake() is None
    names = [r.getDeviceByIndex(i).getName() for i in range(r.getNumberOfDevices())]
    assert names == ["belt", "belt sensor", "lone"]


def test_sensor_resolution_and_sampling(robot):
    sim, r = robot
    motor, sensor = r.getDevice("belt"), r.getDevice("belt sensor")
    sensor.enable(32)
    motor.setPosition(math.inf)
    motor.setVelocity(0.3)
    r.step(16)
    assert math.isnan(sensor.getValue())  # first sample one period after enable
    r.step(16)
    assert sensor.getValue() == pytest.approx(0.01)  # 2 steps * 16 ms * 0.3 m/s = 0.0096, resolution 0.01


def test_force_feedback_warns_and_reads_zero_as_webots(robot):
    sim, r = robot
    motor = r.getDevice("belt")
    motor.enableForceFeedback(16)
    assert motor.getForceFeedbackSamplingPeriod() == 16
    r.step(16)
    assert motor.getForceFeedback() == 0.0
    assert any("Force feedback is not available for a LinearMotor node inside a Track node." in m
               for m in sim.messages.recent)


def test_position_limits_clamp_the_belt_target_as_for_joint_motors(project, load, capfd):
    sim = load(project(WORLD.replace('LinearMotor { name "lone" }',
                                     'LinearMotor { name "lone" minPosition -1 maxPosition 2 }')))
    motor = sim.robot("r").getDevice("lone")
    motor.setPosition(3.0)
    assert sim.banks["track"].target_position[1] == 2.0
    assert any("too big requested position: 3 > 2" in m for m in sim.messages.recent)


@pytest.mark.parametrize("reset", ["world reset", "reset"])
def test_the_belt_motor_object_drives_its_track_after_a_reset(robot, reset):
    """A LinearMotor object kept across a world reset or ``sim.reset()`` still drives its Track (its velocities
    land in the bank's target array, which resets update in place)."""
    sim, r = robot
    motor = r.getDevice("belt")
    motor.setPosition(math.inf)
    motor.setVelocity(0.3)
    r.step(16)
    if reset == "reset":
        sim.reset()
    else:
        sim.request_world_reset()
        r.step(16)
    motor.setPosition(math.inf)
    motor.setVelocity(0.2)
    assert motor._core.bank.target_velocity[motor._core.index] == 0.2
    r.step(16)
    assert motor._core.belt_velocity == pytest.approx(0.2)


@pytest.mark.parametrize("reset", ["world reset", "reset"])
def test_the_belt_sensor_object_reads_its_track_after_a_reset(robot, reset, capfd):
    """A PositionSensor object of a Track kept across a world reset or ``sim.reset()`` reads the belt run
    sampled after it, as Python floats (the bank's value array, which resets update in place)."""
    sim, r = robot
    motor, sensor = r.getDevice("belt"), r.getDevice("belt sensor")
    sensor.enable(16)
    motor.setPosition(math.inf)
    motor.setVelocity(0.3)
    r.step(160)
    moved = sensor.getValue()
    assert type(moved) is float and moved == pytest.approx(0.05, abs=0.011)
    reset_then_sample(sim, r, sensor, reset, capfd)
    value = sensor.getValue()
    assert type(value) is float and value == sensor._core.value == 0.0  # the belt at rest at 0 after a reset
