"""The Webots API base of Accelerometer and Gyro (texts and return values of ``accelerometer.c``/``gyro.c``
and the Python ``accelerometer.py``/``gyro.py``)."""

from __future__ import annotations

from wbsim.api.device import Sensor
from wbsim.devices.three_axis.bank import ThreeAxisDevice

__all__ = ["ThreeAxisSensor"]


class ThreeAxisSensor(Sensor):
    """A sensor returning a 3-vector in its own frame (Webots' ``Accelerometer`` and ``Gyro`` share this API).

    Subclasses set ``_C_NAME`` (the C prefix of error messages).
    """

    _core: ThreeAxisDevice

    def _bind(self) -> None:
        super()._bind()
        self._values = self._core.bank.value_list  # read directly (updated in place): read every step
        self._period_list = self._core.bank.schedule.period_list
        self._start, self._stop = 3 * self._row, 3 * self._row + 3  # its values in the bank's flat list

    def getValues(self) -> list[float]:
        """The last measurement [x, y, z] in the sensor frame, through the lookup table and resolution.

        NaN before the first sample (one period after ``enable``) and for an axis whose ``xAxis``/``yAxis``/
        ``zAxis`` is FALSE. Reading a disabled sensor prints Webots' error and returns the last values.
        """
        if self._period_list[self._row] <= 0:
            self._disabled_error("get_values")
        return self._values[self._start : self._stop]

    def getLookupTable(self) -> list[float]:
        """The lookup table as a flat list [input, output, noise, input, ...] ([] when empty, the default)."""
        return [value for row in self._core.lookup_table for value in row]

    value = property(getValues)
    lookup_table = property(getLookupTable)
