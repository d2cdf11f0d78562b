"""Webots' ``TouchSensor`` API over the core touch sensor (texts and return values of ``touch_sensor.c``)."""

from __future__ import annotations

import math

from wbsim.api.device import Sensor, print_error
from wbsim.devices.touch_sensor.bank import TouchSensor as CoreTouchSensor

__all__ = ["TouchSensor", "api_classes"]


class TouchSensor(Sensor):
    """A bumper, force or force-3d sensor (Webots ``controller.TouchSensor``).

    Bumpers read 0.0 or 1.0; force sensors the push along their x-axis through the lookup table
    (default: 0.1 N units); force-3d sensors the force vector in their own frame.
    """

    BUMPER = 0
    FORCE = 1
    FORCE3D = 2
    _C_NAME = "wb_touch_sensor"
    _core: CoreTouchSensor

    def __init__(self, core: CoreTouchSensor, robot: object) -> None:
        super().__init__(core, robot)  # type: ignore[arg-type]
        self._type = core.type  # fixed for the run, like the controller library's configured type

    def _bind(self) -> None:
        super()._bind()
        # Read directly, through a flat memoryview of the bank's (n, 3) values (updated in place, never replaced;
        # an element read costs a quarter of numpy's): controllers read touch sensors every step.
        self._values = memoryview(self._core.bank.values.reshape(-1))
        self._period_list = self._core.bank.schedule.period_list  # the periods as Python ints (in place too)
        self._at = 3 * self._row  # its first value in the flat view

    def getValue(self) -> float:
        """The last bumper (0.0/1.0) or force value; NaN before the first sample or for a force-3d sensor."""
        if self._type == TouchSensor.FORCE3D:
            print_error('wb_touch_sensor_get_value() must be used with a TouchSensor of type "bumper" or "force"')
            print_error("you should use wb_touch_sensor_get_values() instead.")
            return math.nan
        if self._period_list[self._row] <= 0:
            self._disabled_error("get_value")
        return self._values[self._at]

    def getValues(self) -> list[float] | None:
        """The last force-3d vector [x, y, z] in the sensor frame; None (Webots' NULL) for other types."""
        if self._type != TouchSensor.FORCE3D:
            print_error('wb_touch_sensor_get_values() must be used with a TouchSensor of type "force-3d"')
            print_error("you should use wb_touch_sensor_get_value() instead.")
            return None
        if self._period_list[self._row] <= 0:
            self._disabled_error("get_values")
        values, at = self._values, self._at
        return [values[at], values[at + 1], values[at + 2]]

    def getLookupTable(self) -> list[float]:
        """The lookup table as a flat list [input, output, noise, input, ...] ([] when empty)."""
        return [value for row in self._core.lookup_table for value in row]

    def getType(self) -> int:
        """``TouchSensor.BUMPER``, ``TouchSensor.FORCE`` or ``TouchSensor.FORCE3D``."""
        return self._type

    value = property(getValue)
    values = property(getValues)
    lookup_table = property(getLookupTable)
    type = property(getType)


def api_classes() -> dict[str, type]:
    """The classes the ``controller`` module exports for touch sensors."""
    return {"TouchSensor": TouchSensor}
