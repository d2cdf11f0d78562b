"""The Webots API of a Track's devices: its ``LinearMotor`` and its ``PositionSensor``.

They are Webots' ``LinearMotor`` and ``PositionSensor`` classes (subclasses, so ``isinstance`` checks hold)
whose sibling lookups search the Track's ``device`` field, and whose force feedback only warns, as in
Webots (``WbLinearMotor::computeFeedback``: the value is 0).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wbsim.api.device import Device, print_error
from wbsim.devices.motor.api import LinearMotor
from wbsim.devices.position_sensor.api import PositionSensor
from wbsim.devices.track.bank import TrackMotor

if TYPE_CHECKING:
    from wbsim.api.robot import Robot

__all__ = ["TrackLinearMotor", "TrackPositionSensor", "make_api", "api_classes"]


class TrackLinearMotor(LinearMotor):
    """The LinearMotor of a Track: positions in m of belt run, velocities in m/s of the belt surface."""

    def enableForceFeedback(self, sampling_period: int) -> None:
        """Accepted as in Webots, but every sample warns that a Track has no force feedback and reads 0."""
        if sampling_period < 0:
            print_error("wb_motor_enable_force_feedback() called with negative sampling period.")
            return
        self._core.enable_force_feedback(sampling_period)

    enableTorqueFeedback = enableForceFeedback

    def getPositionSensor(self) -> PositionSensor | None:
        """The PositionSensor of the same Track, or None."""
        return _sibling(self, PositionSensor)  # type: ignore[return-value]

    position_sensor = property(getPositionSensor)


class TrackPositionSensor(PositionSensor):
    """The PositionSensor of a Track: the distance run by the belt (m)."""

    def getMotor(self) -> LinearMotor | None:
        """The LinearMotor of the same Track, or None."""
        return _sibling(self, LinearMotor)  # type: ignore[return-value]

    motor = property(getMotor)


def _sibling(device: Device, cls: type) -> Device | None:
    """The robot's device of class ``cls`` in the same Track's ``device`` field as ``device``, or None."""
    track = device._core.binding.track.node  # type: ignore[attr-defined]
    for other in device._robot._ordered:  # type: ignore[attr-defined]
        if other._node.parent is track and isinstance(other, cls):
            return other
    return None


def make_api(core: object, robot: Robot) -> Device:
    """The Webots API object of a Track device."""
    if isinstance(core, TrackMotor):
        return TrackLinearMotor(core, robot)
    return TrackPositionSensor(core, robot)  # type: ignore[arg-type]


def api_classes() -> dict[str, type]:
    """No class of its own for ``controller``: a Track's devices are LinearMotor and PositionSensor."""
    return {}
