"""Webots' ``Compass`` API over the core compass (texts and return values of ``compass.c`` and the Python
``compass.py``)."""

from __future__ import annotations

from wbsim.api.device import Sensor
from wbsim.devices.compass.bank import Compass as CoreCompass

__all__ = ["Compass", "api_classes"]


class Compass(Sensor):
    """A 1-, 2- or 3-axis compass (Webots ``controller.Compass``).

    ``getValues`` returns the north direction in the compass frame [x, y, z] through the lookup table (an
    empty table, the default, returns the unit vector itself); NaN before the first sample and for disabled
    axes.
    """

    _C_NAME = "wb_compass"
    _core: CoreCompass

    def _bind(self) -> None:
        super()._bind()
        self._values = self._core.bank.value_list  # read directly (updated in place)
        self._period_list = self._core.bank.schedule.period_list
        self._start, self._stop = 3 * self._row, 3 * self._row + 3  # its values in the bank's flat list

    def getValues(self) -> list[float]:
        """[x, y, z] of the last sample. Reading a disabled compass prints Webots' error and returns the last
        values."""
        if self._period_list[self._row] <= 0:
            self._disabled_error("get_values")
        return self._values[self._start : self._stop]

    def getLookupTable(self) -> list[float]:
        """The lookup table as a flat list [input, output, noise, input, ...] ([] when empty)."""
        return [value for row in self._core.lookup_table for value in row]

    value = property(getValues)  # Webots' Python property is ``value``
    lookup_table = property(getLookupTable)


def api_classes() -> dict[str, type]:
    """The classes the ``controller`` module exports for compasses."""
    return {"Compass": Compass}
