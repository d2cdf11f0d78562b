"""The Webots DistanceSensor API: names, constants, getters, properties, error texts of distance_sensor.c."""

from __future__ import annotations

import math

import pytest

WORLD = """
WorldInfo { basicTimeStep 16 }
Solid { translation 1.05 0 0.1 name "wall" boundingObject Box { size 0.1 2 1 } }
Robot {
  translation 0 0 0.1
  name "r"
  controller "<extern>"
  children [
    DistanceSensor { name "generic" lookupTable [ 0 1000 0, 0.5 500 0.1, 2 0 0.2 ] aperture 0.3 }
    DistanceSensor { name "ir" type "infra-red" }
    DistanceSensor { name "sonar" type "sonar" lookupTable [] }
    DistanceSensor { name "laser" type "Laser" }
    DistanceSensor { name "odd" type "ultrasound" }
  ]
}
"""


@pytest.fixture
def robot(project, load):
    return load(project(WORLD)).robot("r")


def test_controller_module_exports_distance_sensor_with_webots_constants():
    import controller
    from controller import DistanceSensor, Node

    assert "DistanceSensor" in controller.__all__ and "DistanceSensor" in dir(controller)
    assert (DistanceSensor.GENERIC, DistanceSensor.INFRA_RED, DistanceSensor.SONAR, DistanceSensor.LASER) == (0, 1, 2, 3)
    assert Node.DISTANCE_SENSOR != Node.SOLID


def test_get_device_gives_typed_sensors_with_their_configuration(robot, capfd):
    from controller import DistanceSensor, Node

    sensors = [robot.getDevice(n) for n in ("generic", "ir", "sonar", "laser", "odd")]
    assert all(isinstance(s, DistanceSensor) for s in sensors)
    assert [s.getType() for s in sensors] == [0, 1, 2, 3, 2]  # an unknown type is a sonar, as in Webots
    assert [s.type for s in sensors] == [0, 1, 2, 3, 2]
    generic = sensors[0]
    assert generic.getNodeType() == Node.DISTANCE_SENSOR
    assert (generic.getMinValue(), generic.getMaxValue(), generic.getAperture()) == (0.0, 1000.0, 0.3)
    assert (generic.min_value, generic.max_value, generic.aperture) == (0.0, 1000.0, 0.3)
    assert generic.getLookupTable() == [0.0, 1000.0, 0.0, 0.5, 500.0, 0.1, 2.0, 0.0, 0.2]
    assert generic.lookup_table == generic.getLookupTable()
    assert sensors[1].getLookupTable() == [0.0, 0.0, 0.0, 0.1, 1000.0, 0.0]  # Webots' default table
    assert sensors[1].getAperture() == 1.5708
    assert (sensors[2].getLookupTable(), sensors[2].getMinValue(), sensors[2].getMaxValue()) == ([], 0.0, 0.0)
    assert robot.getDistanceSensor("laser") is sensors[3]
    assert "DEPRECATION: Robot.getDistanceSensor is deprecated, please use Robot.getDevice instead." in \
        capfd.readouterr().err


def test_values_are_nan_before_the_first_sample_then_follow_the_table(robot):
    generic, sonar, laser = (robot.getDevice(n) for n in ("generic", "sonar", "laser"))
    for sensor in (generic, sonar, laser):
        sensor.enable(16)
    assert math.isnan(generic.getValue()) and math.isnan(generic.value)
    robot.step(16)
    assert sonar.getValue() == 0.0  # no table: 0
    assert laser.getValue() == 1000.0  # nothing within the 0.1 m of the default table: its last output
    assert 0.0 < generic.getValue() < 500.0  # 1 m: between 500 and 0, with noise
    assert generic.value == generic.getValue()


def test_sampling_period_methods_and_property(robot, capfd):
    sensor = robot.getDevice("ir")
    assert sensor.getSamplingPeriod() == 0 and sensor.sampling_period == 0
    sensor.sampling_period = 32
    assert sensor.getSamplingPeriod() == 32
    sensor.enable(-1)
    assert capfd.readouterr().err == "Error: wb_distance_sensor_enable() called with negative sampling period.\n"
    sensor.sampling_period = None
    assert sensor.getSamplingPeriod() == 0


def test_reading_a_disabled_sensor_prints_webots_error_and_returns_the_last_value(robot, capfd):
    sensor = robot.getDevice("laser")
    assert math.isnan(sensor.getValue())
    sensor.enable(16)
    robot.step(16)
    sensor.disable()
    assert sensor.getValue() == 1000.0
    assert capfd.readouterr().err.splitlines() == [
        "Error: wb_distance_sensor_get_value() called for a disabled device! Please use: wb_distance_sensor_enable().",
        "Error: wb_distance_sensor_get_value() called for a disabled device! Please use: wb_distance_sensor_enable().",
    ]


def test_a_controller_file_avoids_a_wall(project, load, capfd):
    controller = """
    from controller import Robot, DistanceSensor
    robot = Robot()
    front = robot.getDevice("front")
    front.enable(32)
    while robot.step(32) != -1:
        if front.getValue() > 100:
            print("wall at", round(front.getValue(), 6), "time", robot.getTime())
            break
    """
    world = """
    WorldInfo { basicTimeStep 16 }
    Solid { translation 0.55 0 0.1 boundingObject Box { size 0.1 2 1 } }
    Robot { translation 0 0 0.1 controller "seer"
            children [ DistanceSensor { name "front" lookupTable [ 0 1000 0, 1 0 0 ] } ] }
    """
    sim = load(project(world, controllers={"seer": controller}))
    sim.run(0.2)
    assert "wall at 500.0 time 0.032" in capfd.readouterr().out
