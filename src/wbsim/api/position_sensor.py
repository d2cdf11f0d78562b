"""Webots' ``PositionSensor`` API over the core position sensor."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wbsim.api.device import Device, print_error
from wbsim.devices.position_sensor import PositionSensor as CorePositionSensor

if TYPE_CHECKING:
    from wbsim.api.motor import Motor
    from wbsim.api.robot import Robot

__all__ = ["PositionSensor"]


class PositionSensor(Device):
    """A PositionSensor (Webots ``controller.PositionSensor``): joint position in rad or m."""

    ROTATIONAL = 0
    LINEAR = 1

    def __init__(self, core: CorePositionSensor, robot: Robot) -> None:
        super().__init__(core.binding.node, core.name)
        self._core = core
        self._robot = robot

    def enable(self, sampling_period: int) -> None:
        """Sample every ``sampling_period`` ms (rounded up to basic steps); the first value comes one period later."""
        if sampling_period < 0:
            print_error("wb_position_sensor_enable() called with negative sampling period.")
            return
        self._core.enable(int(sampling_period))

    def disable(self) -> None:
        """Stop sampling."""
        self._core.enable(0)

    def getSamplingPeriod(self) -> int:
        """The sampling period in ms (0 = disabled)."""
        return self._core.period_ms

    def getValue(self) -> float:
        """The last sampled position (rad or m); NaN before the first sample."""
        if self._core.period_ms <= 0:
            print_error("wb_position_sensor_get_value() called for a disabled device! Please use: "
                        "wb_position_sensor_enable().")
        return self._core.value

    def getType(self) -> int:
        """``PositionSensor.ROTATIONAL`` or ``PositionSensor.LINEAR``."""
        return PositionSensor.LINEAR if self._core.linear else PositionSensor.ROTATIONAL

    def getMotor(self) -> Motor | None:
        """The motor in the same joint, or None (Webots' own Python binding always returns None here)."""
        return self._robot._sibling(self._core.binding.joint.node, "Motor")

    def getBrake(self) -> None:
        """Brakes are not simulated by wbsim: always None."""
        return None

    value = property(getValue)
    type = property(getType)
    motor = property(getMotor)
    sampling_period = property(getSamplingPeriod, enable)
