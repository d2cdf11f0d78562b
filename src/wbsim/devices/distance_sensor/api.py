"""Webots' ``DistanceSensor`` API over the core distance sensor (texts and return values of
``distance_sensor.c`` and the Python ``distance_sensor.py``)."""

from __future__ import annotations

from wbsim.api.device import Sensor
from wbsim.devices.distance_sensor.bank import DistanceSensor as CoreDistanceSensor

__all__ = ["DistanceSensor", "api_classes"]


class DistanceSensor(Sensor):
    """A generic, infra-red, sonar or laser distance sensor (Webots ``controller.DistanceSensor``).

    ``getValue`` returns the measured distance (m) mapped through the lookup table (default: 0 to 0.1 m
    read as 0 to 1000).
    """

    GENERIC = 0
    INFRA_RED = 1
    SONAR = 2
    LASER = 3
    _C_NAME = "wb_distance_sensor"
    _core: CoreDistanceSensor

    def _bind(self) -> None:
        super()._bind()
        # Read directly (Python lists, updated in place): controllers read distance sensors every step.
        self._values = self._core.bank.value_list
        self._period_list = self._core.bank.period_list

    def getValue(self) -> float:
        """The last value (lookup table applied); NaN before the first sample, which comes one period after
        ``enable``. Reading a disabled sensor prints Webots' error and returns the last value."""
        if self._period_list[self._row] <= 0:
            self._disabled_error("get_value")
        return self._values[self._row]

    def getMaxValue(self) -> float:
        """The largest output of the lookup table (0 for an empty table)."""
        return self._core.max_value

    def getMinValue(self) -> float:
        """The smallest output of the lookup table (0 for an empty table)."""
        return self._core.min_value

    def getAperture(self) -> float:
        """The ``aperture`` field (rad; for a laser, the radius of its spot in m)."""
        return self._core.aperture

    def getLookupTable(self) -> list[float]:
        """The lookup table as a flat list [input, output, noise, input, ...] ([] when empty)."""
        return [value for row in self._core.lookup_table for value in row]

    def getType(self) -> int:
        """``GENERIC``, ``INFRA_RED``, ``SONAR`` or ``LASER`` (any unknown ``type`` string is a sonar)."""
        return self._core.type

    value = property(getValue)
    max_value = property(getMaxValue)
    min_value = property(getMinValue)
    aperture = property(getAperture)
    lookup_table = property(getLookupTable)
    type = property(getType)


def api_classes() -> dict[str, type]:
    """The classes the ``controller`` module exports for distance sensors."""
    return {"DistanceSensor": DistanceSensor}
