"""The world's GPS frame (WorldInfo ``coordinateSystem``, ``gpsCoordinateSystem``, ``gpsReference``) and the
Universal Transverse Mercator projection Webots uses for ``"WGS84"`` GPS values.

**Local.** A GPS reads its world position plus ``gpsReference`` (both in the world's x, y, z); an altimeter
reads the world coordinate along the up axis (``coordinateSystem``: z in ``"ENU"``, y in ``"NUE"`` and
``"EUN"``) plus the same coordinate of ``gpsReference``.

**WGS84** (``WbGps``). ``gpsReference`` is (latitude deg, longitude deg, altitude m). The reference is projected
once to UTM (east, north) in the zone of its longitude; a GPS adds its world position to the reference laid
out on the world's axes (east on the ``E`` axis, north on ``N``, altitude on ``U``), adds its noise and
resolution in metres there, and projects (north, east) back to latitude and longitude with the same zone;
the third value is the up coordinate. An altimeter reads the reference altitude plus its up coordinate.

:class:`UtmProjection` uses the WGS84 ellipsoid with Webots' constants (a = 6378137 m, f = 1 / 298.2572236,
k0 = 0.9996, false easting 500 km, false northing 10 000 km south of the equator) and the classic series
of the transverse Mercator projection (Snyder, *Map Projections: A Working Manual*, USGS 1987, pp. 61-64),
to the order Webots keeps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from wbsim.world.model import WbNode

__all__ = ["UtmProjection", "GpsFrame", "LOCAL", "WGS84"]

LOCAL, WGS84 = 0, 1
"""Webots' ``GPS.LOCAL`` and ``GPS.WGS84`` (``WB_GPS_LOCAL_COORDINATE``, ``WB_GPS_WGS84_COORDINATE``)."""

_A = 6378137.0  # semi-major axis (m)
_F = 1.0 / 298.2572236  # flattening, as Webots writes it
_K0 = 0.9996  # scale on the central meridian
_FALSE_EASTING = 500000.0  # m
_FALSE_NORTHING_SOUTH = 10000000.0  # m, for a reference in the southern hemisphere


@dataclass(frozen=True)
class UtmProjection:
    """The UTM projection of one zone, chosen by a reference longitude (Webots' ``WbUTMConverter``).

    Args:
        latitude: the reference latitude (deg): south of the equator, northings get the 10 000 km offset.
        longitude: the reference longitude (deg): the zone is ``1 + floor((longitude + 180) / 6)``.
    """

    latitude: float
    longitude: float

    @property
    def zone(self) -> int:
        """The UTM zone of the reference longitude."""
        return 1 + math.floor((self.longitude + 180.0) / 6.0)

    @property
    def central_meridian(self) -> float:
        """The longitude of the zone's central meridian (rad)."""
        return math.radians(3.0 + 6.0 * (self.zone - 1) - 180.0)

    @property
    def false_northing(self) -> float:
        """The northing offset (m): 10 000 km for a southern reference, else 0."""
        return _FALSE_NORTHING_SOUTH if self.latitude < 0.0 else 0.0

    def north_east(self, latitude: np.ndarray | float, longitude: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
        """Project geodetic coordinates (deg, any shape) to UTM (northing, easting) in metres (same shape)."""
        e2 = _e2()
        ep2 = e2 / (1.0 - e2)
        phi = np.radians(np.asarray(latitude, dtype=float))
        lam = np.radians(np.asarray(longitude, dtype=float))
        sin, cos, tan = np.sin(phi), np.cos(phi), np.tan(phi)
        n = _A / np.sqrt(1.0 - e2 * sin**2)
        t = tan**2
        c = ep2 * cos**2
        a = (lam - self.central_meridian) * cos
        m = _A * _meridian_arc(phi, e2)
        easting = _K0 * n * a * (1.0 + a**2 * ((1.0 - t + c) / 6.0
                                               + a**2 * (5.0 - 18.0 * t + t**2 + 72.0 * c - 58.0 * ep2) / 120.0))
        northing = _K0 * (m + n * tan * a**2 * (0.5 + a**2 * ((5.0 - t + 9.0 * c + 4.0 * c**2) / 24.0
                                                              + a**2 * (61.0 - 58.0 * t + t**2 + 600.0 * c
                                                                        - 330.0 * ep2) / 720.0)))
        return northing + self.false_northing, easting + _FALSE_EASTING

    def latitude_longitude(self, north: np.ndarray | float, east: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
        """Invert the projection: UTM (northing, easting) in metres (any shape) to (latitude, longitude) in deg."""
        e2 = _e2()
        ep2 = e2 / (1.0 - e2)
        root = math.sqrt(1.0 - e2)
        e1 = (1.0 - root) / (1.0 + root)
        m = (np.asarray(north, dtype=float) - self.false_northing) / _K0
        mu = m / (_A * (1.0 - e2 * (1.0 / 4.0 + e2 * (3.0 / 64.0 + 5.0 * e2 / 256.0))))
        # The footpoint latitude.
        phi1 = (mu + e1 * (1.5 - 27.0 * e1**2 / 32.0) * np.sin(2.0 * mu)
                + e1**2 * (21.0 / 16.0 - 55.0 * e1**2 / 32.0) * np.sin(4.0 * mu)
                + e1**3 * (151.0 / 96.0 * np.sin(6.0 * mu) + e1 * 1097.0 / 512.0 * np.sin(8.0 * mu)))
        sin1, cos1, tan1 = np.sin(phi1), np.cos(phi1), np.tan(phi1)
        c1 = ep2 * cos1**2
        t1 = tan1**2
        w = 1.0 - e2 * sin1**2
        n1 = _A / np.sqrt(w)
        r1 = n1 * (1.0 - e2) / w
        d = (np.asarray(east, dtype=float) - _FALSE_EASTING) / (n1 * _K0)
        series = (d**2 * (0.5 - d**2 * (5.0 + 3.0 * t1 + 10.0 * c1 - 4.0 * c1**2 - 9.0 * ep2) / 24.0)
                  + d**6 * (61.0 + 90.0 * t1 + 298.0 * c1 + 45.0 * t1**2 - 252.0 * ep2 - 3.0 * c1**2) / 720.0)
        phi = phi1 - n1 * tan1 / r1 * series
        lam = d * (1.0 + d**2 * ((-1.0 - 2.0 * t1 - c1) / 6.0
                                 + d**2 * (5.0 - 2.0 * c1 + 28.0 * t1 - 3.0 * c1**2 + 8.0 * ep2 + 24.0 * t1**2)
                                 / 120.0)) / cos1
        return np.degrees(phi), np.degrees(lam + self.central_meridian)


def _e2() -> float:
    """The squared first eccentricity of Webots' ellipsoid."""
    b = _A * (1.0 - _F)
    return 1.0 - (b / _A) ** 2


def _meridian_arc(phi: np.ndarray, e2: float) -> np.ndarray:
    """The meridian arc from the equator to latitude ``phi`` (rad), in units of the semi-major axis."""
    return (phi * (1.0 - e2 * (1.0 / 4.0 + e2 * (3.0 / 64.0 + 5.0 * e2 / 256.0)))
            - np.sin(2.0 * phi) * e2 * (3.0 / 8.0 + e2 * (3.0 / 32.0 + 45.0 * e2 / 1024.0))
            + np.sin(4.0 * phi) * e2**2 * (15.0 / 256.0 + e2 * 45.0 / 1024.0)
            - np.sin(6.0 * phi) * e2**3 * 35.0 / 3072.0)


@dataclass(frozen=True)
class GpsFrame:
    """How the world's GPS devices express positions (read once from WorldInfo at load).

    Attributes:
        coordinate_system: WorldInfo ``coordinateSystem`` (``"ENU"``, ``"NUE"`` or ``"EUN"``).
        system: ``LOCAL`` or ``WGS84`` (WorldInfo ``gpsCoordinateSystem``).
        reference: WorldInfo ``gpsReference``: (x, y, z) m for ``LOCAL``; (latitude deg, longitude deg,
            altitude m) for ``WGS84``.
    """

    coordinate_system: str = "ENU"
    system: int = LOCAL
    reference: tuple[float, float, float] = (0.0, 0.0, 0.0)

    @classmethod
    def of(cls, world_info: WbNode) -> GpsFrame:
        """The frame a WorldInfo node defines."""
        system = WGS84 if str(world_info["gpsCoordinateSystem"]) == "WGS84" else LOCAL
        reference = tuple(float(v) for v in world_info["gpsReference"])  # type: ignore[union-attr]
        return cls(str(world_info["coordinateSystem"]), system, reference)  # type: ignore[arg-type]

    @property
    def up(self) -> int:
        """The world axis pointing up (0, 1 or 2)."""
        return self.coordinate_system.index("U")

    @property
    def north(self) -> int:
        """The world axis pointing north."""
        return self.coordinate_system.index("N")

    @property
    def east(self) -> int:
        """The world axis pointing east."""
        return self.coordinate_system.index("E")

    @property
    def projection(self) -> UtmProjection:
        """The UTM projection of the reference (meaningful for ``WGS84``)."""
        return UtmProjection(self.reference[0], self.reference[1])

    def metric_reference(self) -> np.ndarray:
        """What a GPS adds to its world position before noise, (3,) m in world axes: ``gpsReference`` itself for
        ``LOCAL``; for ``WGS84`` the reference's UTM east, north and altitude on the world's E, N, U axes."""
        if self.system == LOCAL:
            return np.array(self.reference, dtype=float)
        north, east = self.projection.north_east(self.reference[0], self.reference[1])
        offset = np.zeros(3)
        offset[self.east] = float(east)
        offset[self.north] = float(north)
        offset[self.up] = self.reference[2]
        return offset

    def altitude_reference(self) -> float:
        """What an altimeter adds to its up coordinate (m): the altitude of the reference for ``WGS84``, else
        the reference's coordinate on the up axis."""
        return self.reference[2] if self.system == WGS84 else self.reference[self.up]

    def geodetic(self, metric: np.ndarray) -> np.ndarray:
        """Turn measured positions in metres on world axes, (k, 3), into (latitude deg, longitude deg,
        altitude m), (k, 3) (``WGS84``)."""
        latitude, longitude = self.projection.latitude_longitude(metric[:, self.north], metric[:, self.east])
        return np.stack([latitude, longitude, metric[:, self.up]], axis=1)
