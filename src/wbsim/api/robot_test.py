"""The Robot API: devices, order, names, custom data, time."""

from __future__ import annotations

import ctypes

import pytest

WORLD = """
WorldInfo { basicTimeStep 8 }
Robot {
  name "arm robot"
  model "demo arm"
  controller "<extern>"
  customData "initial"
  children [
    HingeJoint {
      device [ PositionSensor { name "s1" } RotationalMotor { name "m1" } ]
      endPoint Solid {
        physics Physics {}
        boundingObject Box { size 0.1 0.1 0.1 }
        children [
          SliderJoint {
            device [ LinearMotor { name "m2" } ]
            endPoint Solid { translation 0 0 0.2 physics Physics {} boundingObject Box { size 0.1 0.1 0.1 } }
          }
        ]
      }
    }
    Robot { name "nested" controller "<extern>" children [ HingeJoint { device [ RotationalMotor { name "hidden" } ] } ] }
    HingeJoint { jointParameters HingeJointParameters { position 0.3 } device [ PositionSensor { name "s3" } ] }
  ]
}
"""


@pytest.fixture
def robot(project, load):
    return load(project(WORLD)).robot("arm robot")


def test_identity_and_time(robot):
    assert robot.getName() == "arm robot" and robot.name == "arm robot"
    assert robot.getModel() == "demo arm"
    assert robot.getBasicTimeStep() == 8.0
    assert robot.getTime() == 0.0
    robot.step(16)
    assert robot.getTime() == pytest.approx(0.016)
    assert robot.getMode() == robot.MODE_SIMULATION


def test_devices_in_webots_order_without_nested_robot_devices(robot):
    names = [robot.getDeviceByIndex(i).getName() for i in range(robot.getNumberOfDevices())]
    # Depth first: a joint's device list, then its endPoint's subtree; nested robots keep their own devices.
    assert names == ["s1", "m1", "m2", "s3"]


def test_get_device_returns_typed_objects_and_none_for_unknown_names(robot, capfd):
    from controller import LinearMotor, Motor, PositionSensor, RotationalMotor

    assert isinstance(robot.getDevice("m1"), RotationalMotor) and isinstance(robot.getDevice("m1"), Motor)
    assert isinstance(robot.getDevice("m2"), LinearMotor)
    assert isinstance(robot.getDevice("s1"), PositionSensor)
    assert robot.getDevice("m1") is robot.getDevice("m1")
    assert robot.getDevice("nope") is None
    assert 'Device "nope" was not found on robot "arm robot"' in capfd.readouterr().err


def test_device_by_index_out_of_range(robot, capfd):
    with pytest.raises(IndexError):
        robot.getDeviceByIndex(4)
    assert "out of the bounds" in capfd.readouterr().err


def test_custom_data_round_trip(robot):
    assert robot.getCustomData() == "initial"
    robot.setCustomData("next")
    assert robot.getCustomData() == "next" and robot.custom_data == "next"


def test_device_node_type_and_model(robot):
    from controller import Node

    assert robot.getDevice("m1").getNodeType() == Node.ROTATIONAL_MOTOR
    assert robot.getDevice("m2").getNodeType() == Node.LINEAR_MOTOR
    assert robot.getDevice("s1").getNodeType() == Node.POSITION_SENSOR


def test_sensor_on_joint_without_end_point_reads_its_initial_position(robot):
    sensor = robot.getDevice("s3")
    sensor.enable(8)
    robot.step(8)
    assert sensor.getValue() == 0.3


def test_bad_argument_types_raise_what_webots_binding_raises(robot, capfd):
    # Webots' binding passes int arguments to C through ctypes without argtypes (issue 15).
    with pytest.raises(ctypes.ArgumentError, match="argument 1: TypeError: Don't know how to convert parameter 1"):
        robot.getDeviceByIndex(1.0)
    assert robot.getDeviceByIndex(True) is robot.getDeviceByIndex(1)  # a bool is an int to ctypes
    sensor = robot.getDevice("s1")
    for bad in (2.5, [32], object()):
        with pytest.raises(ctypes.ArgumentError, match="argument 2: TypeError: Don't know how to convert parameter 2"):
            sensor.enable(bad)
    with pytest.raises(ctypes.ArgumentError, match="argument 2: TypeError: wbsim cannot pass a str as a C int"):
        sensor.enable("16")
    assert sensor.getSamplingPeriod() == 0
    sensor.enable(16)
    sensor.enable(None)  # ctypes passes None as NULL, i.e. 0: disabled, no error
    assert sensor.getSamplingPeriod() == 0
    sensor.enable(-5)
    assert "wb_position_sensor_enable() called with negative sampling period." in capfd.readouterr().err
    sensor.enable(2**32 + 16)  # the C int keeps the low 32 bits
    assert sensor.getSamplingPeriod() == 16
