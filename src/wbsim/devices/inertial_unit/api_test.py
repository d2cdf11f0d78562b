"""The Webots InertialUnit API: names, properties, error texts and return values of inertial_unit.c."""

from __future__ import annotations

import math

import pytest

WORLD = """
WorldInfo { basicTimeStep 16 }
Robot { name "r" controller "<extern>" children [ InertialUnit { rotation 0 0 1 0.5 noise 0.25 } ] }
"""


@pytest.fixture
def robot(project, load):
    return load(project(WORLD)).robot("r")


def test_controller_exports_inertial_unit_and_get_device_returns_it(robot, capfd):
    import controller
    from controller import InertialUnit, Node

    assert "InertialUnit" in controller.__all__
    unit = robot.getDevice("inertial unit")
    assert isinstance(unit, InertialUnit) and robot.getDeviceByIndex(0) is unit
    assert unit.getNodeType() == Node.INERTIAL_UNIT and unit.name == "inertial unit"
    assert robot.getInertialUnit("inertial unit") is unit
    assert ("DEPRECATION: Robot.getInertialUnit is deprecated, please use Robot.getDevice instead."
            in capfd.readouterr().err)


def test_methods_and_properties(robot, capfd):
    unit = robot.getDevice("inertial unit")
    assert unit.getNoise() == unit.noise == 0.25
    unit.sampling_period = 32
    assert unit.getSamplingPeriod() == 32
    assert all(math.isnan(v) for v in unit.roll_pitch_yaw) and len(unit.quaternion) == 4
    robot.step(32)
    rpy, q = unit.getRollPitchYaw(), unit.getQuaternion()
    assert isinstance(rpy, list) and len(rpy) == 3 and rpy == unit.roll_pitch_yaw
    assert isinstance(q, list) and len(q) == 4 and q == unit.quaternion
    assert sum(v * v for v in q) == pytest.approx(1.0)
    assert capfd.readouterr().err == ""


def test_disabled_and_negative_period_errors(robot, capfd):
    unit = robot.getDevice("inertial unit")
    unit.enable(-1)
    unit.getRollPitchYaw()
    unit.getQuaternion()
    assert capfd.readouterr().err.splitlines() == [
        "Error: wb_inertial_unit_enable() called with negative sampling period.",
        "Error: wb_inertial_unit_get_roll_pitch_yaw() called for a disabled device! Please use: "
        "wb_inertial_unit_enable().",
        "Error: wb_inertial_unit_get_quaternion() called for a disabled device! Please use: wb_inertial_unit_enable().",
    ]


def test_a_controller_file_reads_the_yaw(project, load, capfd):
    source = """
    from controller import Robot
    robot = Robot()
    unit = robot.getDevice("inertial unit")
    unit.enable(16)
    robot.step(16)
    print("yaw %.6f" % unit.getRollPitchYaw()[2])
    """
    sim = load(project(WORLD.replace('"<extern>"', '"imu"'), controllers={"imu": source}))
    sim.run(0.1)
    assert "yaw " in capfd.readouterr().out  # noise 0.25 * pi: the value itself is random
