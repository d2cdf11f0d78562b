"""The Webots Accelerometer and Gyro APIs: names, properties, error texts and return values of
``accelerometer.c``/``gyro.c`` and the Python ``accelerometer.py``/``gyro.py``."""

from __future__ import annotations

import math

import pytest

WORLD = """
WorldInfo { basicTimeStep 16 }
Robot {
  translation 0 0 10
  name "r"
  controller "<extern>"
  supervisor TRUE
  children [
    Accelerometer { }
    Accelerometer { name "mapped" lookupTable [ 0 0 0, 10 100 0.01 ] }
    Gyro { }
    Gyro { name "mapped gyro" lookupTable [ -1 -10 0, 1 10 0 ] }
  ]
  boundingObject Box { size 0.1 0.1 0.1 }
  physics Physics { }
}
"""

# The robot falls freely: an accelerometer reads 0, and so does a gyro (no rotation).
KINDS = [("Accelerometer", "accelerometer", "wb_accelerometer", [0.0, 0.0, 0.0]),
         ("Gyro", "gyro", "wb_gyro", [0.0, 0.0, 0.0])]


@pytest.fixture
def robot(project, load):
    return load(project(WORLD)).robot("r")


def test_controller_module_exports_both_classes():
    import controller
    from controller import Accelerometer, Gyro, Node, Sensor

    assert {"Accelerometer", "Gyro"} <= set(controller.__all__)
    assert issubclass(Accelerometer, Sensor) and issubclass(Gyro, Sensor)
    assert Node.ACCELEROMETER != Node.GYRO
    # Webots' Python classes have `value` and `lookup_table`, not `values`.
    assert not hasattr(Accelerometer, "values") and not hasattr(Gyro, "values")


@pytest.mark.parametrize(("cls", "name", "prefix", "at_rest"), KINDS)
def test_get_device_types_and_deprecated_getter(robot, capfd, cls, name, prefix, at_rest):
    import controller

    device = robot.getDevice(name)
    assert isinstance(device, getattr(controller, cls))
    assert device.getNodeType() == getattr(controller.Node, name.upper())
    assert device.getName() == name and device.name == name
    assert getattr(robot, f"get{cls}")(name) is device
    assert f"DEPRECATION: Robot.get{cls} is deprecated, please use Robot.getDevice instead." in capfd.readouterr().err
    assert robot.getFromDevice(device).getTypeName() == cls


@pytest.mark.parametrize(("cls", "name", "prefix", "at_rest"), KINDS)
def test_values_nan_before_the_first_sample_one_period_after_enable(robot, capfd, cls, name, prefix, at_rest):
    device = robot.getDevice(name)
    device.enable(32)
    assert all(math.isnan(v) for v in device.getValues())
    robot.step(16)
    assert all(math.isnan(v) for v in device.value)
    robot.step(16)
    values = device.getValues()
    assert isinstance(values, list) and len(values) == 3 and all(isinstance(v, float) for v in values)
    assert values == pytest.approx(at_rest, abs=1e-9)
    assert device.value == values
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize(("cls", "name", "prefix", "at_rest"), KINDS)
def test_sampling_period_and_disabled_reads(robot, capfd, cls, name, prefix, at_rest):
    device = robot.getDevice(name)
    assert device.getSamplingPeriod() == 0 and device.sampling_period == 0
    device.sampling_period = 64
    assert device.getSamplingPeriod() == 64
    device.enable(-1)
    assert capfd.readouterr().err == f"Error: {prefix}_enable() called with negative sampling period.\n"
    assert device.sampling_period == 64
    device.enable(16)
    robot.step(16)
    last = device.getValues()
    device.disable()
    robot.step(16)
    assert device.getValues() == last  # the last values stay readable
    assert capfd.readouterr().err == (f"Error: {prefix}_get_values() called for a disabled device! Please use: "
                                      f"{prefix}_enable().\n")
    device.sampling_period = None
    assert device.getSamplingPeriod() == 0


@pytest.mark.parametrize(("name", "table"), [("accelerometer", []), ("mapped", [0.0, 0.0, 0.0, 10.0, 100.0, 0.01]),
                                             ("gyro", []), ("mapped gyro", [-1.0, -10.0, 0.0, 1.0, 10.0, 0.0])])
def test_lookup_table_is_a_flat_list(robot, name, table):
    device = robot.getDevice(name)
    assert device.getLookupTable() == table and device.lookup_table == table


def test_controller_files_use_the_sensors(project, load, capfd):
    controller = """
    from controller import Robot
    robot = Robot()
    acc = robot.getDevice("accelerometer")
    gyro = robot.getDevice("gyro")
    acc.enable(16)
    gyro.enable(16)
    robot.step(16)
    print("acc", [abs(round(v, 6)) for v in acc.getValues()])
    print("gyro", [abs(round(v, 6)) for v in gyro.value])
    """
    world = WORLD.replace('controller "<extern>"', 'controller "imu"')
    sim = load(project(world, controllers={"imu": controller}))
    sim.run(0.1)
    out = capfd.readouterr().out
    assert "acc [0.0, 0.0, 0.0]" in out and "gyro [0.0, 0.0, 0.0]" in out
