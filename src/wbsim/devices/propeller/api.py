"""The Propeller's motor as controllers see it: Webots' ``RotationalMotor`` (a Propeller is no device itself).

Everything is the motor kind's API; what differs for a motor outside a joint is Webots' answer to force
feedback (``WbMotor::enableMotorFeedback``: "Feedback is available for motorized joints only", nothing
enabled) and the absence of sibling devices (``getPositionSensor``/``getBrake`` return None).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wbsim.api.device import print_error
from wbsim.devices.motor.api import RotationalMotor
from wbsim.devices.propeller.bank import PropellerMotor as CorePropellerMotor

if TYPE_CHECKING:
    from wbsim.api.robot import Robot
    from wbsim.devices.position_sensor.api import PositionSensor

__all__ = ["PropellerMotor", "make_api", "api_classes"]


class PropellerMotor(RotationalMotor):
    """The RotationalMotor in a Propeller's ``device`` field (a ``controller.RotationalMotor``)."""

    _core: CorePropellerMotor  # type: ignore[assignment]

    def enableForceFeedback(self, sampling_period: int) -> None:
        """Not available outside a joint: Webots' warning, nothing enabled."""
        if sampling_period < 0:
            print_error("wb_motor_enable_force_feedback() called with negative sampling period.")
            return
        self._robot._runtime.sim.messages.warning(f"{self._name}: Feedback is available for motorized joints only")

    enableTorqueFeedback = enableForceFeedback

    def disableForceFeedback(self) -> None:
        """Webots' library sends a zero period, which gets the same warning."""
        self.enableForceFeedback(0)

    disableTorqueFeedback = disableForceFeedback

    def getPositionSensor(self) -> PositionSensor | None:
        """A Propeller holds no PositionSensor: None."""
        return None

    position_sensor = property(getPositionSensor)


def make_api(core: CorePropellerMotor, robot: Robot) -> PropellerMotor:
    """The Webots API object of a Propeller's motor."""
    return PropellerMotor(core, robot)


def api_classes() -> dict[str, type]:
    """Nothing new for ``controller``: the motor is a ``RotationalMotor`` (exported by the motor kind)."""
    return {}
