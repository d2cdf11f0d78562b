"""Webots' ``Altimeter`` API over the core altimeter (texts and return values of ``altimeter.c`` and the
Python ``altimeter.py``)."""

from __future__ import annotations

from wbsim.api.device import Sensor
from wbsim.devices.altimeter.bank import Altimeter as CoreAltimeter

__all__ = ["Altimeter", "api_classes"]


class Altimeter(Sensor):
    """An altimeter (Webots ``controller.Altimeter``): the altitude of its origin (m)."""

    _C_NAME = "wb_altimeter"
    _core: CoreAltimeter

    def _bind(self) -> None:
        super()._bind()
        self._values = self._core.bank.value_list  # read directly (updated in place)

    def getValue(self) -> float:
        """The last altitude (m); NaN before the first sample, which comes one period after ``enable``. Reading a
        disabled altimeter prints Webots' error and returns the last value."""
        if self._periods.item(self._row) <= 0:
            self._disabled_error("get_value")
        return self._values[self._row]

    value = property(getValue)


def api_classes() -> dict[str, type]:
    """The classes the ``controller`` module exports for altimeters."""
    return {"Altimeter": Altimeter}
