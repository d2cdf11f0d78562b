"""Webots' ``GPS`` API over the core GPS (texts and return values of ``gps.c`` and the Python ``gps.py``)."""

from __future__ import annotations

from wbsim.api.device import Sensor
from wbsim.devices.gps.bank import GPS as CoreGPS
from wbsim.devices.gps.geo import LOCAL, WGS84

__all__ = ["GPS", "api_classes"]


class GPS(Sensor):
    """A GPS (Webots ``controller.GPS``): the absolute position of its origin, its speed and velocity.

    Positions are world coordinates plus WorldInfo ``gpsReference`` (``LOCAL``), or latitude, longitude and
    altitude (``WGS84``), as WorldInfo ``gpsCoordinateSystem`` says.
    """

    LOCAL = LOCAL
    WGS84 = WGS84
    _C_NAME = "wb_gps"
    _core: CoreGPS

    def _bind(self) -> None:
        super()._bind()
        bank = self._core.bank
        # Read directly (arrays updated in place): controllers read their GPS every step.
        self._values, self._speed = bank.value_list, bank.speed_list
        self._speed_vectors = bank.fresh_speed_vectors
        self._period_list = bank.schedule.period_list
        self._start, self._stop = 3 * self._row, 3 * self._row + 3  # its vectors in the bank's flat lists

    def getValues(self) -> list[float]:
        """The last position [x, y, z] (m) or [latitude, longitude, altitude] (deg, deg, m); NaN before the first
        sample, which comes one period after ``enable``. Reading a disabled GPS prints Webots' error."""
        if self._period_list[self._row] <= 0:
            self._disabled_error("get_values")
        return self._values[self._start : self._stop]

    def getSpeed(self) -> float:
        """The last speed (m/s), with ``speedNoise`` and ``speedResolution``."""
        if self._period_list[self._row] <= 0:
            self._disabled_error("get_speed")
        return self._speed[self._row]

    def getSpeedVector(self) -> list[float]:
        """The last velocity [vx, vy, vz] of the GPS origin in world axes (m/s)."""
        if self._period_list[self._row] <= 0:
            self._disabled_error("get_speed_vector")
        return self._speed_vectors()[self._start : self._stop]

    def getCoordinateSystem(self) -> int:
        """``GPS.LOCAL`` or ``GPS.WGS84`` (WorldInfo ``gpsCoordinateSystem``)."""
        return self._core.coordinate_system

    @staticmethod
    def convertToDegreesMinutesSeconds(decimalDegrees: float) -> str:
        """Format decimal degrees as Webots' Python ``GPS.convertToDegreesMinutesSeconds`` does.

        Webots' Python binding truncates the fraction before scaling it (``int(frac) * 60``), so its minutes are
        always 0 and its "seconds" are the whole minutes times 60 (46.5 gives ``46° 0′ 1800″``); the C function
        gives ``46° 30′ 0″``. A controller ported unchanged sees the Python result, so wbsim returns it.
        """
        degrees = int(decimalDegrees)
        minutes = int(decimalDegrees - degrees) * 60
        seconds = int(((decimalDegrees - degrees) * 60) - minutes) * 60
        return f"{degrees}° {minutes}′ {seconds}″"

    value = property(getValues)
    speed = property(getSpeed)
    speed_vector = property(getSpeedVector)
    coordinate_system = property(getCoordinateSystem)


def api_classes() -> dict[str, type]:
    """The classes the ``controller`` module exports for GPS devices."""
    return {"GPS": GPS}
