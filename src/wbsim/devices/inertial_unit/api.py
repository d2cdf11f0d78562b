"""Webots' ``InertialUnit`` API over the core inertial unit (texts and return values of ``inertial_unit.c`` and
the Python ``inertial_unit.py``)."""

from __future__ import annotations

from wbsim.api.device import Sensor
from wbsim.devices.inertial_unit.bank import InertialUnit as CoreInertialUnit

__all__ = ["InertialUnit", "api_classes"]


class InertialUnit(Sensor):
    """An inertial unit (Webots ``controller.InertialUnit``): its attitude in the world frame.

    ``getRollPitchYaw`` returns [roll, pitch, yaw] (rad) in the convention of ``WorldInfo.coordinateSystem``,
    ``getQuaternion`` [x, y, z, w]. Both are NaN before the first sample, which comes one period after
    ``enable``.
    """

    _C_NAME = "wb_inertial_unit"
    _core: CoreInertialUnit

    def _bind(self) -> None:
        super()._bind()
        self._rpy = self._core.bank.roll_pitch_yaw_list  # read directly (updated in place)
        self._quaternions = self._core.bank.fresh_quaternions
        self._period_list = self._core.bank.schedule.period_list
        self._start, self._stop = 3 * self._row, 3 * self._row + 3  # its angles in the bank's flat list
        self._q_start, self._q_stop = 4 * self._row, 4 * self._row + 4  # its quaternion

    def getRollPitchYaw(self) -> list[float]:
        """[roll, pitch, yaw] (rad) of the last sample. Reading a disabled sensor prints Webots' error and
        returns the last values."""
        if self._period_list[self._row] <= 0:
            self._disabled_error("get_roll_pitch_yaw")
        return self._rpy[self._start : self._stop]

    def getQuaternion(self) -> list[float]:
        """[x, y, z, w] of the last sample (the sensor's orientation in the world frame)."""
        if self._period_list[self._row] <= 0:
            self._disabled_error("get_quaternion")
        return self._quaternions()[self._q_start : self._q_stop]

    def getNoise(self) -> float:
        """The ``noise`` field (the noise's standard deviation, in units of pi rad)."""
        return self._core.noise

    roll_pitch_yaw = property(getRollPitchYaw)
    quaternion = property(getQuaternion)
    noise = property(getNoise)


def api_classes() -> dict[str, type]:
    """The classes the ``controller`` module exports for inertial units."""
    return {"InertialUnit": InertialUnit}
