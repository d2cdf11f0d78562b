"""The Robot API: devices, order, names, custom data, time."""

from __future__ import annotations

import ctypes
import math

import pytest

from wbsim.api.robot import Robot

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


def test_paths_synchronization_and_modes(robot, project, capfd):
    from pathlib import Path

    world = Path(robot.getWorldPath())
    assert world.is_absolute() and world.name == "test.wbt" and world.exists()
    assert robot.getProjectPath() == str(world.parent.parent) == robot.project_path
    assert robot.getSynchronization() is True and robot.synchronization is True
    assert robot.getNumberOfDevices() == robot.number_of_devices == 4
    robot.setMode(Robot.MODE_REMOTE_CONTROL, "")
    assert robot.getMode() == robot.mode == Robot.MODE_SIMULATION
    assert "not available in wbsim" in capfd.readouterr().err
    robot.wwiSendText("hello")
    assert robot.wwiReceiveText() is None


def test_keyboard_headless_and_typed_keys(robot, capfd):
    from controller import Keyboard

    keyboard = robot.getKeyboard()
    assert keyboard is robot.keyboard and keyboard.getSamplingPeriod() == 0
    assert keyboard.getKey() == -1
    assert "wb_keyboard_get_key() called for a disabled device" in capfd.readouterr().err
    keyboard.enable(8)
    assert keyboard.getKey() == -1 and keyboard.sampling_period == 8  # headless: nobody types
    assert robot.waitForUserInputEvent(Robot.EVENT_KEYBOARD, 100) == Robot.EVENT_NO_EVENT
    robot._runtime.press_keys(ord("A"), Keyboard.SHIFT + Keyboard.UP)
    assert robot.waitForUserInputEvent(Robot.EVENT_KEYBOARD | Robot.EVENT_MOUSE_CLICK, 100) == Robot.EVENT_KEYBOARD
    assert keyboard.getKey() == ord("A")
    assert keyboard.get_key() == "shift-up"
    assert keyboard.getKey() == -1
    keyboard.disable()
    assert keyboard.getSamplingPeriod() == 0


def test_mouse_and_joystick_are_absent(robot):
    import math

    mouse, joystick = robot.getMouse(), robot.getJoystick()
    mouse.enable(8)
    state = mouse.getState()
    assert math.isnan(state.u) and math.isnan(state.x) and not (state.left or state.middle or state.right)
    mouse.enable3dPosition()
    assert mouse.is3dPositionEnabled() and mouse.getSamplingPeriod() == 8
    assert (joystick.isConnected(), joystick.getNumberOfAxes(), joystick.getPressedButton(), joystick.model) == (
        False, 0, -1, "")


def test_step_begin_and_end(robot, capfd):
    assert robot.stepBegin(16) == 0
    assert robot.getTime() == 0.0  # the step runs in stepEnd
    assert robot.stepEnd() == 0
    assert robot.getTime() == pytest.approx(0.016)
    assert robot.stepEnd() == -1
    assert "without a previous call to wb_robot_step_begin" in capfd.readouterr().err


BATTERY_WORLD = """
WorldInfo { basicTimeStep 10 }
Robot {
  name "b"
  controller "<extern>"
  battery [ 100, 100, 0 ]
  cpuConsumption 2
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 1 0 }
      device [ RotationalMotor { name "m" consumptionFactor 3 maxTorque 100 } ]
      endPoint Solid {
        translation 0.5 0 0
        physics Physics { density -1 mass 2 centerOfMass [ 0 0 0 ] inertiaMatrix [ 1e-4 1e-4 1e-4, 0 0 0 ] }
      }
    }
  ]
}
"""


def test_battery_drains_by_cpu_and_motor_output_as_webots(project, load, capfd):
    sim = load(project(BATTERY_WORLD))
    robot = sim.robot("b")
    assert math.isnan(robot.batterySensorGetValue())
    robot.batterySensorEnable(20)
    assert robot.batterySensorGetSamplingPeriod() == 20
    robot.step(10)
    assert math.isnan(robot.batterySensorGetValue())  # first value one period after enable
    robot.step(10)
    # The motor holds the 2 kg arm level at 0.5 m: torque m g L = 9.81 N m, times consumptionFactor 3,
    # plus cpuConsumption 2 W, for 20 ms.
    held = 2 * 9.81 * 0.5 * 3 + 2
    assert robot.batterySensorGetValue() == pytest.approx(100 - held * 0.02, abs=0.05)
    robot.step(2000)
    assert robot.batterySensorGetValue() == pytest.approx(100 - held * 2.02, abs=0.5)
    robot.step(3000)
    assert robot.batterySensorGetValue() == 0.0
    assert 'Robot "b": Battery is empty.' in capfd.readouterr().err
    sim.reset()
    robot = sim.robot("b")
    assert robot.batterySensorGetSamplingPeriod() == 0 and math.isnan(robot.batterySensorGetValue())
    assert sim.batteries.energy[0] == 100.0


def test_battery_without_battery_field(robot, capfd):
    robot.batterySensorEnable(8)
    assert "has no battery" in capfd.readouterr().err
    assert math.isnan(robot.batterySensorGetValue()) and robot.batterySensorGetSamplingPeriod() == 0
