"""The Webots GPS API: names, constants, getters, properties, error texts of gps.c, the static DMS formatter."""

from __future__ import annotations

import pytest

WORLD = """
WorldInfo { basicTimeStep 16 gravity 0 {info} }
Robot {
  translation 1 2 3
  name "r"
  controller "<extern>"
  children [ GPS { } GPS { name "second" translation 0 0 1 } ]
  linearVelocity 0.5 0 0
  physics Physics { } boundingObject Box { size 0.1 0.1 0.1 }
}
"""


@pytest.fixture
def robot(project, load):
    return load(project(WORLD.replace("{info}", ""))).robot("r")


def test_controller_module_exports_gps_with_webots_constants():
    import controller
    from controller import GPS, Node

    assert "GPS" in controller.__all__ and "GPS" in dir(controller)
    assert (GPS.LOCAL, GPS.WGS84) == (0, 1)
    assert Node.GPS != Node.SOLID


def test_getters_and_properties(robot, capfd):
    from controller import GPS, Node

    gps = robot.getDevice("gps")
    assert isinstance(gps, GPS) and gps.getNodeType() == Node.GPS and gps.getName() == "gps"
    assert robot.getGPS("second") is robot.getDevice("second")
    assert "DEPRECATION: Robot.getGPS is deprecated, please use Robot.getDevice instead." in capfd.readouterr().err
    gps.sampling_period = 32
    assert gps.getSamplingPeriod() == gps.sampling_period == 32
    assert gps.getCoordinateSystem() == gps.coordinate_system == GPS.LOCAL
    robot.step(32)
    assert gps.getValues() == gps.value == pytest.approx([1.0 + 0.5 * 0.032, 2.0, 3.0], abs=1e-12)
    assert gps.getSpeed() == gps.speed == pytest.approx(0.5, abs=1e-12)
    assert gps.getSpeedVector() == gps.speed_vector == pytest.approx([0.5, 0.0, 0.0], abs=1e-12)
    assert isinstance(gps.getValues(), list) and isinstance(gps.getSpeedVector(), list)
    gps.disable()
    assert gps.getSamplingPeriod() == 0
    assert capfd.readouterr().err == ""
    gps.getValues()
    gps.getSpeed()
    gps.getSpeedVector()
    err = capfd.readouterr().err
    for function in ("get_values", "get_speed", "get_speed_vector"):
        assert f"Error: wb_gps_{function}() called for a disabled device! Please use: wb_gps_enable()." in err
    gps.enable(-1)
    assert "Error: wb_gps_enable() called with negative sampling period." in capfd.readouterr().err


def test_coordinate_system_wgs84(project, load):
    from controller import GPS

    gps = load(project(WORLD.replace("{info}", 'gpsCoordinateSystem "WGS84"'))).robot("r").getDevice("gps")
    assert gps.getCoordinateSystem() == GPS.WGS84


@pytest.mark.parametrize(("degrees", "text"), [
    (46.5, "46° 0′ 1800″"),  # Webots' Python binding: minutes always 0, seconds = whole minutes * 60
    (6.566, "6° 0′ 1980″"),
    (-33.75, "-33° 0′ -2700″"),
    (-33.9, "-33° 0′ -3180″"),  # -0.8999999999999986 * 60 truncates to -53
    (12.0, "12° 0′ 0″"),
])
def test_convert_to_degrees_minutes_seconds_is_webots_python_formatter(degrees, text):
    from controller import GPS

    assert GPS.convertToDegreesMinutesSeconds(degrees) == text
