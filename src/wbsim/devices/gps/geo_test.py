"""The GPS frame from WorldInfo and the UTM projection, against geodesy computed independently here."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbsim.devices.gps.geo import LOCAL, WGS84, GpsFrame, UtmProjection

A = 6378137.0
F = 1.0 / 298.2572236  # Webots' flattening
E2 = F * (2.0 - F)
K0 = 0.9996


def meridian_radius(phi: float) -> float:
    """The meridional radius of curvature M(phi) (m)."""
    return A * (1.0 - E2) / (1.0 - E2 * math.sin(phi) ** 2) ** 1.5


def normal_radius(phi: float) -> float:
    """The prime-vertical radius of curvature N(phi) (m)."""
    return A / math.sqrt(1.0 - E2 * math.sin(phi) ** 2)


def meridian_arc(phi: float, intervals: int = 20000) -> float:
    """The meridian arc from the equator to ``phi`` by Simpson's rule on M (m; error far below 1 um)."""
    x = np.linspace(0.0, phi, intervals + 1)
    m = A * (1.0 - E2) / (1.0 - E2 * np.sin(x) ** 2) ** 1.5
    return float((x[1] - x[0]) / 3.0 * (m[0] + m[-1] + 4.0 * m[1:-1:2].sum() + 2.0 * m[2:-1:2].sum()))


def test_zones_and_central_meridians_follow_the_reference_longitude():
    assert UtmProjection(46.5, 6.6).zone == 32 and math.degrees(UtmProjection(46.5, 6.6).central_meridian) == \
        pytest.approx(9.0)
    assert UtmProjection(0.0, -180.0).zone == 1 and UtmProjection(0.0, 179.9).zone == 60
    assert UtmProjection(-33.9, 18.4).zone == 34
    assert math.degrees(UtmProjection(-33.9, 18.4).central_meridian) == pytest.approx(21.0)
    assert UtmProjection(-33.9, 18.4).false_northing == 1e7 and UtmProjection(33.9, 18.4).false_northing == 0.0


@pytest.mark.parametrize("latitude", [0.0, 12.5, 46.5, 71.0, -35.25])
def test_northing_on_the_central_meridian_is_the_scaled_meridian_arc(latitude):
    projection = UtmProjection(latitude, 9.0)  # zone 32: central meridian 9 deg
    north, east = projection.north_east(latitude, 9.0)
    expected = K0 * math.copysign(meridian_arc(abs(math.radians(latitude))), latitude) + projection.false_northing
    assert float(north) == pytest.approx(expected, abs=1e-3)  # Webots' series is good to well under 1 mm
    assert float(east) == 500000.0


@pytest.mark.parametrize("latitude", [5.0, 46.5, -60.0])
def test_small_grid_offsets_on_the_central_meridian_move_by_the_radii_of_curvature(latitude):
    projection = UtmProjection(latitude, 9.0)
    north, east = projection.north_east(latitude, 9.0)
    phi = math.radians(latitude)
    lat, lon = projection.latitude_longitude(north + 200.0, east)
    assert float(lat) - latitude == pytest.approx(math.degrees(200.0 / (K0 * meridian_radius(phi))), rel=1e-5)
    assert float(lon) == pytest.approx(9.0, abs=1e-12)
    lat, lon = projection.latitude_longitude(north, east + 100.0)
    assert float(lon) - 9.0 == pytest.approx(math.degrees(100.0 / (K0 * normal_radius(phi) * math.cos(phi))),
                                            rel=1e-6)
    # The grid line bends off the parallel by x^2 tan(phi) / (2 k0^2 M N) < 1e-8 deg here; the series of the
    # projection and its inverse agree to about 2e-9 deg (0.2 mm).
    assert float(lat) == pytest.approx(latitude, abs=3e-8)


@settings(max_examples=40, deadline=None)
@given(st.floats(-79.0, 83.0), st.floats(-179.0, 179.0), st.floats(-2.9, 2.9), st.floats(-1.0, 1.0))
def test_projection_and_its_inverse_round_trip_within_the_zone(ref_lat, ref_lon, dlon, dlat):
    projection = UtmProjection(ref_lat, ref_lon)
    centre = math.degrees(projection.central_meridian)
    latitude = np.array([ref_lat, min(max(ref_lat + dlat, -80.0), 84.0)])
    longitude = np.array([ref_lon, centre + dlon])
    north, east = projection.north_east(latitude, longitude)
    back_lat, back_lon = projection.latitude_longitude(north, east)
    # Webots' series (forward and inverse truncated at different orders) agree to 1.1e-8 deg (about 1 mm) over a
    # whole zone from 80 S to 84 N.
    assert np.allclose(back_lat, latitude, atol=1.5e-8) and np.allclose(back_lon, longitude, atol=1.5e-8)


@pytest.mark.parametrize(("system", "up", "north", "east"), [("ENU", 2, 1, 0), ("NUE", 1, 0, 2), ("EUN", 1, 2, 0)])
def test_the_frame_lays_the_reference_on_the_world_axes(system, up, north, east):
    local = GpsFrame(system, LOCAL, (1.0, 2.0, 3.0))
    assert (local.up, local.north, local.east) == (up, north, east)
    assert local.metric_reference().tolist() == [1.0, 2.0, 3.0]
    assert local.altitude_reference() == (1.0, 2.0, 3.0)[up]
    geo = GpsFrame(system, WGS84, (46.5, 9.0, 400.0))
    reference = geo.metric_reference()
    north_m, east_m = geo.projection.north_east(46.5, 9.0)
    assert (reference[north], reference[east], reference[up]) == (float(north_m), float(east_m), 400.0)
    assert geo.altitude_reference() == 400.0
    assert geo.geodetic(reference[None, :]) == pytest.approx(np.array([[46.5, 9.0, 400.0]]), abs=1e-8)
