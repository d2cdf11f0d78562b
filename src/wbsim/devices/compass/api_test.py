"""The Webots Compass API: names, properties, error texts and return values of compass.c and compass.py."""

from __future__ import annotations

import math

import pytest

WORLD = """
WorldInfo { basicTimeStep 16 }
Robot { name "r" controller "<extern>" children [ Compass { lookupTable [ -1 -1 0, 1 1 0 ] } ] }
"""


@pytest.fixture
def robot(project, load):
    return load(project(WORLD)).robot("r")


def test_controller_exports_compass_and_get_device_returns_it(robot, capfd):
    import controller
    from controller import Compass, Node

    assert "Compass" in controller.__all__
    compass = robot.getDevice("compass")
    assert isinstance(compass, Compass) and robot.getDeviceByIndex(0) is compass
    assert compass.getNodeType() == Node.COMPASS and compass.name == "compass"
    assert robot.getCompass("compass") is compass
    assert "DEPRECATION: Robot.getCompass is deprecated, please use Robot.getDevice instead." in capfd.readouterr().err


def test_methods_and_properties(robot, capfd):
    compass = robot.getDevice("compass")
    assert compass.getLookupTable() == compass.lookup_table == [-1.0, -1.0, 0.0, 1.0, 1.0, 0.0]
    compass.sampling_period = 16
    assert all(math.isnan(v) for v in compass.value)
    robot.step(16)
    assert compass.getValues() == compass.value == pytest.approx([0.0, 1.0, 0.0])  # Webots' property is `value`
    assert isinstance(compass.getValues(), list)
    assert capfd.readouterr().err == ""


def test_disabled_and_negative_period_errors(robot, capfd):
    compass = robot.getDevice("compass")
    compass.enable(-3)
    compass.getValues()
    assert capfd.readouterr().err.splitlines() == [
        "Error: wb_compass_enable() called with negative sampling period.",
        "Error: wb_compass_get_values() called for a disabled device! Please use: wb_compass_enable().",
    ]
