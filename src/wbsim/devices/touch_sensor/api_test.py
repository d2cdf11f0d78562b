"""The Webots TouchSensor API: names, constants, properties, error texts and return values of touch_sensor.c."""

from __future__ import annotations

import math
import struct

import pytest

WORLD = """
WorldInfo { basicTimeStep 16 }
Solid { name "floor" boundingObject Plane { size 10 10 } }
Robot {
  translation 0 0 0.11
  name "r"
  controller "<extern>"
  children [
    TouchSensor { translation 0 0 -0.1 name "bumper" boundingObject Box { size 0.1 0.1 0.02 } }
    TouchSensor {
      translation 0.2 0 0 name "force" type "force" lookupTable [ 0 0 0, 100 1000 0 ]
      boundingObject Box { size 0.02 0.02 0.02 } physics Physics { }
    }
    TouchSensor {
      translation -0.2 0 0 name "force3d" type "force-3d" lookupTable []
      boundingObject Box { size 0.02 0.02 0.02 } physics Physics { }
    }
  ]
  boundingObject Box { size 0.1 0.1 0.1 }
  physics Physics { }
}
"""


@pytest.fixture
def robot(project, load):
    return load(project(WORLD)).robot("r")


def test_controller_module_exports_touch_sensor_with_webots_constants():
    from controller import Node, TouchSensor

    import controller

    assert "TouchSensor" in controller.__all__ and "TouchSensor" in dir(controller)
    assert (TouchSensor.BUMPER, TouchSensor.FORCE, TouchSensor.FORCE3D) == (0, 1, 2)
    assert Node.TOUCH_SENSOR != Node.SOLID
    with pytest.raises(AttributeError):
        controller.NotAWebotsClass  # noqa: B018


def test_get_device_gives_typed_touch_sensors_in_device_order(robot, capfd):
    from controller import Node, TouchSensor

    sensors = [robot.getDevice(name) for name in ("bumper", "force", "force3d")]
    assert all(isinstance(s, TouchSensor) for s in sensors)
    assert [s.getType() for s in sensors] == [0, 1, 2]
    assert [s.type for s in sensors] == [TouchSensor.BUMPER, TouchSensor.FORCE, TouchSensor.FORCE3D]
    assert [robot.getDeviceByIndex(i) for i in range(3)] == sensors
    assert sensors[0].getNodeType() == Node.TOUCH_SENSOR and sensors[0].node_type == Node.TOUCH_SENSOR
    assert sensors[1].getName() == sensors[1].name == "force"
    assert robot.getTouchSensor("bumper") is sensors[0]
    assert "DEPRECATION: Robot.getTouchSensor is deprecated, please use Robot.getDevice instead." in capfd.readouterr().err


def test_lookup_table_is_a_flat_list_and_empty_without_rows(robot):
    assert robot.getDevice("force").getLookupTable() == [0.0, 0.0, 0.0, 100.0, 1000.0, 0.0]
    assert robot.getDevice("force").lookup_table == [0.0, 0.0, 0.0, 100.0, 1000.0, 0.0]
    assert robot.getDevice("force3d").getLookupTable() == []
    assert robot.getDevice("bumper").getLookupTable() == [0.0, 0.0, 0.0, 5000.0, 50000.0, 0.0]  # the default table


def test_values_are_nan_before_the_first_sample_which_comes_one_period_after_enable(robot, capfd):
    bumper, force3d = robot.getDevice("bumper"), robot.getDevice("force3d")
    bumper.enable(32)
    force3d.enable(32)
    assert math.isnan(bumper.getValue()) and all(math.isnan(v) for v in force3d.getValues())
    robot.step(16)
    assert math.isnan(bumper.getValue())
    robot.step(16)
    assert bumper.getValue() == 1.0  # resting on the floor on its bumper
    assert all(math.isfinite(v) for v in force3d.getValues())
    while robot.getTime() < 1.0:
        robot.step(16)
    # A sensor hanging on the robot's side pulls it down with its own weight (a 2 cm cube of density 1000).
    assert force3d.getValues() == pytest.approx([0.0, 0.0, -0.02**3 * 1000 * 9.81], abs=1e-6)
    assert capfd.readouterr().err == ""


def test_sampling_period_methods_and_property(robot, capfd):
    sensor = robot.getDevice("force")
    assert sensor.getSamplingPeriod() == 0 and sensor.sampling_period == 0
    sensor.sampling_period = 64
    assert sensor.getSamplingPeriod() == 64
    sensor.enable(-5)
    assert capfd.readouterr().err == "Error: wb_touch_sensor_enable() called with negative sampling period.\n"
    assert sensor.getSamplingPeriod() == 64
    sensor.sampling_period = None  # Webots' property setter disables on None
    assert sensor.getSamplingPeriod() == 0
    sensor.enable(16)
    sensor.disable()
    assert sensor.sampling_period == 0


def test_reading_a_disabled_sensor_prints_webots_error_and_returns_the_last_value(robot, capfd):
    bumper, force3d = robot.getDevice("bumper"), robot.getDevice("force3d")
    bumper.enable(16)
    force3d.enable(16)
    robot.step(16)
    bumper.disable()
    force3d.disable()
    robot.step(16)
    assert bumper.getValue() == 1.0
    assert force3d.getValues() is not None
    err = capfd.readouterr().err.splitlines()
    assert err == [
        "Error: wb_touch_sensor_get_value() called for a disabled device! Please use: wb_touch_sensor_enable().",
        "Error: wb_touch_sensor_get_values() called for a disabled device! Please use: wb_touch_sensor_enable().",
    ]


def test_wrong_getter_for_the_type_prints_both_lines_and_returns_nan_or_none(robot, capfd):
    force, force3d = robot.getDevice("force"), robot.getDevice("force3d")
    force.enable(16)
    force3d.enable(16)
    robot.step(16)
    assert math.isnan(force3d.getValue())
    assert math.isnan(force3d.value)
    assert force.getValues() is None
    assert robot.getDevice("bumper").values is None
    err = capfd.readouterr().err.splitlines()
    assert err[:2] == [
        'Error: wb_touch_sensor_get_value() must be used with a TouchSensor of type "bumper" or "force"',
        "Error: you should use wb_touch_sensor_get_values() instead.",
    ]
    assert err[4:6] == [
        'Error: wb_touch_sensor_get_values() must be used with a TouchSensor of type "force-3d"',
        "Error: you should use wb_touch_sensor_get_value() instead.",
    ]
    assert len(err) == 8


def test_supervisor_gets_the_node_of_a_touch_sensor(project, load):
    sim = load(project(WORLD.replace('controller "<extern>"', 'controller "<extern>" supervisor TRUE')))
    robot = sim.robot("r")
    node = robot.getFromDevice(robot.getDevice("force"))
    assert node.getTypeName() == "TouchSensor"
    assert node.getField("type").getSFString() == "force"


def test_a_controller_file_uses_touch_sensors(project, load, capfd):
    controller = """
    from controller import Robot, TouchSensor
    robot = Robot()
    bumper = robot.getDevice("bumper")
    assert isinstance(bumper, TouchSensor)
    bumper.enable(16)
    while robot.step(16) != -1:
        if bumper.getValue() == 1.0:
            print("touched at", robot.getTime())
            break
    """
    path = project(WORLD.replace('controller "<extern>"', 'controller "feel"'), controllers={"feel": controller})
    sim = load(path)
    sim.run()
    assert "touched at 0.016" in capfd.readouterr().out


def test_reads_are_the_banks_values_bit_for_bit_through_steps_a_reset_and_a_rebuild(project, load, capfd):
    """getValue and getValues read the bank's values in place (a flat view made at binding, the periods as Python
    ints): the same doubles as the bank's array (NaN included), Python floats and lists, and the disabled error
    exactly when the sensor is disabled, after steps, a reset of the simulation and a rebuild that moves every
    sensor to another row (a supervisor importing a touch sensor in front of them)."""
    sim = load(project(WORLD.replace('name "r"', 'name "r" supervisor TRUE')))
    robot = sim.robot("r")
    names = ["bumper", "force", "force3d"]

    def check(label: str) -> None:
        bank = sim.banks["touch_sensor"]
        for name in names:
            sensor = robot.getDevice(name)
            row = sensor._core.index
            capfd.readouterr()
            if sensor.getType() == sensor.FORCE3D:
                read = sensor.getValues()
                assert type(read) is list and all(type(v) is float for v in read), (label, name)
                expected = bank.values[row].tolist()
            else:
                read = [sensor.getValue()]
                assert type(read[0]) is float, (label, name)
                expected = [bank.values.item(row, 0)]
            assert struct.pack(f"{len(read)}d", *read) == struct.pack(f"{len(expected)}d", *expected), (label, name)
            refused = "disabled device" in capfd.readouterr().err
            assert refused == (sensor.getSamplingPeriod() == 0), (label, name)

    check("loaded")  # NaN, all disabled
    robot.getDevice("bumper").enable(16)
    robot.getDevice("force3d").enable(16)
    for _ in range(5):
        robot.step(16)
        check("enabled")
    robot.getDevice("force").enable(32)
    robot.getDevice("bumper").disable()
    for _ in range(3):
        robot.step(16)
        check("force enabled, bumper disabled")
    row = robot.getDevice("force3d")._row
    robot.getSelf().getField("children").importMFNodeFromString(
        0, 'TouchSensor { translation 0 0.2 0 name "new" type "force-3d" boundingObject Box { size 0.02 0.02 0.02 } '
           'physics Physics { } }')
    robot.step(16)
    names.append("new")
    assert robot.getDevice("force3d")._row == row + 1  # the rows moved
    robot.getDevice("new").enable(16)
    for _ in range(3):
        robot.step(16)
        check("rebuilt")
    sim.reset()
    check("reset")
    robot.getDevice("force3d").enable(16)
    robot.step(16)
    check("reset, then enabled")
