"""Webots' ``PositionSensor`` API over the core position sensor."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wbsim.api.device import Device, Sensor
from wbsim.devices.position_sensor.bank import PositionSensor as CorePositionSensor

if TYPE_CHECKING:
    from wbsim.devices.motor.api import Motor

__all__ = ["PositionSensor", "api_classes"]


class PositionSensor(Sensor):
    """A PositionSensor (Webots ``controller.PositionSensor``): joint position in rad or m."""

    ROTATIONAL = 0
    LINEAR = 1
    _C_NAME = "wb_position_sensor"
    _core: CorePositionSensor

    def _bind(self) -> None:
        super()._bind()
        # Read directly, through a memoryview of the bank's values (updated in place; an element read costs a
        # third of numpy's): controllers read encoders every step.
        self._values = memoryview(self._core.bank.value)
        self._period_list = self._core.bank.schedule.period_list  # the periods as Python ints (in place too)

    def getValue(self) -> float:
        """The last sampled position (rad or m); NaN before the first sample."""
        if self._period_list[self._row] <= 0:
            self._disabled_error("get_value")
        return self._values[self._row]

    def getType(self) -> int:
        """``PositionSensor.ROTATIONAL`` or ``PositionSensor.LINEAR``."""
        return PositionSensor.LINEAR if self._core.linear else PositionSensor.ROTATIONAL

    def getMotor(self) -> Motor | None:
        """The motor in the same joint, or None (Webots' own Python binding always returns None here)."""
        return self._robot._device_in_joint(self._core.binding.node, "motor")  # type: ignore[return-value]

    def getBrake(self) -> Device | None:
        """The brake in the same joint, or None."""
        return self._robot._device_in_joint(self._node, "brake")

    value = property(getValue)
    type = property(getType)
    motor = property(getMotor)
    brake = property(getBrake)


def api_classes() -> dict[str, type]:
    """The classes the ``controller`` module exports for position sensors."""
    return {"PositionSensor": PositionSensor}
