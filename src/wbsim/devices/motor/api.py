"""Webots' ``Motor`` API (also as ``RotationalMotor`` and ``LinearMotor``), over the core motor.

Argument checks and error texts are the controller library's: bad arguments print ``Error: ...`` on
stderr and the call is ignored. Limits enforced by the simulator (position limits, maxVelocity,
maxTorque) print a ``WARNING`` and clamp.

As in Webots' controller library, ``getTargetPosition``, ``getVelocity`` and ``getAvailableForce``
return the values the controller last requested (before the ``multiplier`` and the simulator's clamping);
until then, the simulator's values when the Robot object was made (Webots' configure message). A
position or velocity given to a coupled motor (``<group>::<member>``) is stored for each sibling times the
sibling's multiplier (unclamped; an infinite position as given), as the library's relay does.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from wbsim.api.arguments import as_c_double, c_arguments
from wbsim.api.device import Device, print_error
from wbsim.devices.motor.bank import Motor as CoreMotor

if TYPE_CHECKING:
    from wbsim.api.robot import Robot
    from wbsim.devices.position_sensor.api import PositionSensor

__all__ = ["Motor", "RotationalMotor", "LinearMotor", "make_api", "api_classes"]


# setVelocity converts its own argument (as_c_double, as the table would): it runs for every motor every step.
@c_arguments(2, setPosition="double", setAcceleration="double", setAvailableForce="double",
             setAvailableTorque="double", setControlPID=("double", "double", "double"), setForce="double",
             setTorque="double", enableForceFeedback="int", enableTorqueFeedback="int")
class Motor(Device):
    """A RotationalMotor or LinearMotor (Webots ``controller.Motor``)."""

    ROTATIONAL = 0
    LINEAR = 1

    _core: CoreMotor

    def __init__(self, core: CoreMotor, robot: Robot) -> None:
        super().__init__(core, robot)
        self._configure()

    def _bind(self) -> None:
        super()._bind()
        self.__dict__.pop("_sibling_apis", None)  # coupled siblings are looked up again (the devices may change)
        # What setVelocity's usual write needs, read once per bank (multiplier and maxVelocity are fixed at
        # load: wbsim applies no supervisor write of them; a recompiled world binds again; resets update the
        # target array in place, motor_test pins it): the target array (a memoryview: an element write costs a
        # third of numpy's), the row, the two as Python floats.
        core = self._core
        bank = core.bank
        self._velocity_write = None if core.coupled_rows is not None else (
            memoryview(bank.target_velocity), core.index, bank.multiplier.item(core.index),
            bank.max_velocity.item(core.index))

    def _configure(self) -> None:
        # The controller library's cache, filled from the simulator as by Webots' configure message.
        self._sim_ref = self._robot._runtime._sim_ref  # read on every command (_cache): no property call
        self._restarts = self._robot._runtime.sim.restarts
        self._position = self._core.target_position
        self._velocity = self._core.velocity
        self._available = float(self._core.bank.available[self._core.index])

    def _cache(self) -> Motor:
        sim = self._sim_ref()
        if sim is None or self._restarts != sim.restarts:  # sim.reset(): configured again (a typed error if gone)
            self._configure()
        return self

    def _coupled(self) -> list[Motor]:
        """This robot's API objects of the coupled siblings of this motor (empty if it is not coupled)."""
        siblings = getattr(self, "_sibling_apis", None)
        if siblings is None:
            bank, rows = self._core.bank, self._core._group()
            wanted = set() if rows is None else {int(r) for r in rows[1:]}
            siblings = [d for d in self._robot._ordered
                        if isinstance(d, Motor) and d._core.bank is bank and d._core.index in wanted]
            self._sibling_apis = siblings
        return siblings

    # -- commands ---------------------------------------------------------------------------------
    def setPosition(self, position: float) -> None:
        """Target position (rad or m); ``float('inf')`` selects velocity control."""
        if math.isnan(position):
            print_error("wb_motor_set_position() called with an invalid 'position' argument (NaN).")
            return
        self._cache()._position = float(position)
        self._core.set_position(float(position))
        for sibling in self._coupled():  # the library's relay: siblings hold the scaled, unclamped value
            sibling._cache()._position = float(position) if math.isinf(position) else position * sibling.getMultiplier()

    def setVelocity(self, velocity: float) -> None:
        """Velocity (rad/s or m/s): the speed limit in position control, the set speed in velocity control."""
        # A controller sets velocities every step: the argument's conversion (the binding's c_double, what the
        # c_arguments table does for the other commands), the cache check (_cache) and the core motor's usual
        # write are inline.
        if type(velocity) is not float:
            velocity = as_c_double(velocity, 2)
        if velocity != velocity:  # NaN: the value unequal to itself
            print_error("wb_motor_set_velocity() called with an invalid 'velocity' argument (NaN).")
            return
        sim = self._sim_ref()
        if sim is None or self._restarts != sim.restarts:
            self._configure()
        if velocity < 0 and math.isfinite(self._position):
            print_error("wb_motor_set_velocity() called with negative 'velocity' argument in position control "
                        f"mode ({velocity:g}).")
            return
        self._velocity = velocity
        write = self._velocity_write
        if write is not None:
            # CoreMotor.set_velocity's own computation for a motor that is not coupled, when the velocity
            # is within maxVelocity (motor_test pins the two to the same doubles); else its full path (warns).
            targets, row, multiplier, limit = write
            v = velocity * multiplier
            if abs(v) <= limit:
                targets[row] = v
                return
            self._core.set_velocity(velocity)
            return
        core = self._core
        core.set_velocity(velocity)
        for sibling in self._coupled():
            sibling._cache()._velocity = velocity * sibling.getMultiplier()

    def setAcceleration(self, acceleration: float) -> None:
        """Acceleration limit (rad/s^2 or m/s^2), -1 for none."""
        if acceleration < 0 and acceleration != -1:
            print_error("wb_motor_set_acceleration() called with negative 'acceleration' argument.")
            return
        if math.isnan(acceleration):
            print_error("wb_motor_set_acceleration() called with an invalid 'acceleration' argument (NaN).")
            return
        self._core.set_acceleration(float(acceleration))

    def setAvailableForce(self, force: float) -> None:
        """Largest force/torque the motor may use (clamped to maxForce/maxTorque)."""
        if math.isnan(force):
            print_error("wb_motor_set_available_force() called with an invalid 'force' argument (NaN).")
            return
        if force < 0:
            print_error("wb_motor_set_available_force() called with negative 'force' argument.")
            return
        self._cache()._available = float(force)
        self._core.set_available_force(float(force))

    setAvailableTorque = setAvailableForce

    def setControlPID(self, p: float, i: float, d: float) -> None:
        """Gains of the position controller (resets its integral)."""
        if p <= 0:
            print_error("wb_motor_set_control_pid() called with negative or zero 'p' argument.")
            return
        if i < 0:
            print_error("wb_motor_set_control_pid() called with negative 'i' argument.")
            return
        if d < 0:
            print_error("wb_motor_set_control_pid() called with negative 'd' argument.")
            return
        self._core.set_control_pid(float(p), float(i), float(d))

    def setForce(self, force: float) -> None:
        """Torque/force control: apply ``force`` (clamped to the available force) until the next setPosition."""
        if math.isnan(force):
            print_error("wb_motor_set_force() called with an invalid 'force' argument (NaN).")
            return
        self._core.set_torque(float(force))

    setTorque = setForce

    def enableForceFeedback(self, sampling_period: int) -> None:
        """Sample the motor force/torque every ``sampling_period`` ms (0 disables)."""
        if sampling_period < 0:
            print_error("wb_motor_enable_force_feedback() called with negative sampling period.")
            return
        joint = self._core.binding.joint
        fn = "wb_motor_enable_force_feedback()" if self._core.linear else "wb_motor_enable_torque_feedback()"
        sim = self._robot._runtime.sim
        if sampling_period > 0:
            if joint.end_point is None:
                sim.messages.warning(f"{fn}: cannot be invoked for a Joint with no end point.")
                return
            if joint.kinematic:
                sim.messages.warning(f"{fn}: cannot be invoked for a Joint whose end point has no Physics node.")
                return
            parent = joint.node.parent
            while parent is not None and not parent.is_a("solid"):
                parent = parent.parent
            if parent is None or parent["physics"] is None:
                sim.messages.warning(f"{fn}: cannot be invoked because the parent Solid has no Physics node.")
                return
        self._core.enable_force_feedback(int(sampling_period))

    enableTorqueFeedback = enableForceFeedback

    def disableForceFeedback(self) -> None:
        """Stop sampling the force feedback."""
        self._core.enable_force_feedback(0)

    disableTorqueFeedback = disableForceFeedback

    # -- queries ------------------------------------------------------------------------------------
    def getForceFeedback(self) -> float:
        """The last sampled motor force/torque (N or N*m); NaN before the first sample."""
        return self._core.feedback

    getTorqueFeedback = getForceFeedback

    def getForceFeedbackSamplingPeriod(self) -> int:
        """The feedback sampling period in ms (0 = disabled)."""
        return self._core.feedback_period_ms

    getTorqueFeedbackSamplingPeriod = getForceFeedbackSamplingPeriod

    def getTargetPosition(self) -> float:
        """The position last requested with setPosition (as given); the joint's initial position before."""
        return self._cache()._position

    def getMinPosition(self) -> float:
        """The ``minPosition`` field (0 with maxPosition 0 means unlimited)."""
        return float(self._core.bank.min_position[self._core.index])

    def getMaxPosition(self) -> float:
        """The ``maxPosition`` field."""
        return float(self._core.bank.max_position[self._core.index])

    def getVelocity(self) -> float:
        """The velocity last requested with setVelocity (as given); maxVelocity before."""
        return self._cache()._velocity

    def getMaxVelocity(self) -> float:
        """The ``maxVelocity`` field."""
        return float(self._core.bank.max_velocity[self._core.index])

    def getAcceleration(self) -> float:
        """The acceleration limit (-1 for none)."""
        return float(self._core.bank.acceleration[self._core.index])

    def getAvailableForce(self) -> float:
        """The available force/torque last requested (as given); maxForce/maxTorque before."""
        return self._cache()._available

    getAvailableTorque = getAvailableForce

    def getMaxForce(self) -> float:
        """The ``maxForce``/``maxTorque`` field."""
        return float(self._core.bank.max_force[self._core.index])

    getMaxTorque = getMaxForce

    def getMultiplier(self) -> float:
        """The ``multiplier`` field."""
        return float(self._core.bank.multiplier[self._core.index])

    def getType(self) -> int:
        """``Motor.ROTATIONAL`` or ``Motor.LINEAR``."""
        return Motor.LINEAR if self._core.linear else Motor.ROTATIONAL

    def getPositionSensor(self) -> PositionSensor | None:
        """The PositionSensor in the same joint, or None."""
        return self._robot._device_in_joint(self._core.binding.node, "position_sensor")  # type: ignore[return-value]

    def getBrake(self) -> Device | None:
        """The brake in the same joint, or None (a propeller's motor has no joint)."""
        return self._robot._device_in_joint(self._node, "brake")

    # -- properties (Webots' Python API also offers these) -----------------------------------------------
    target_position = property(getTargetPosition, setPosition)
    target_velocity = property(getVelocity, setVelocity)
    target_acceleration = property(getAcceleration, setAcceleration)
    available_force = property(getAvailableForce, setAvailableForce)
    available_torque = property(getAvailableTorque, setAvailableTorque)
    max_position = property(getMaxPosition)
    min_position = property(getMinPosition)
    max_velocity = property(getMaxVelocity)
    max_force = property(getMaxForce)
    max_torque = property(getMaxTorque)
    multiplier = property(getMultiplier)
    force_feedback = property(getForceFeedback)
    torque_feedback = property(getTorqueFeedback)
    type = property(getType)
    position_sensor = property(getPositionSensor)
    brake = property(getBrake)
    force = property(fset=setForce, doc="Write-only: ``setForce``.")
    torque = property(fset=setTorque, doc="Write-only: ``setTorque``.")
    force_feedback_sampling_period = property(getForceFeedbackSamplingPeriod, enableForceFeedback)
    torque_feedback_sampling_period = property(getTorqueFeedbackSamplingPeriod, enableForceFeedback)


class RotationalMotor(Motor):
    """A RotationalMotor (rad, rad/s, N*m)."""


class LinearMotor(Motor):
    """A LinearMotor (m, m/s, N)."""


def make_api(core: CoreMotor, robot: Robot) -> Motor:
    """The Webots API object of a core motor: a ``RotationalMotor`` or a ``LinearMotor``."""
    return (LinearMotor if core.linear else RotationalMotor)(core, robot)


def api_classes() -> dict[str, type]:
    """The classes the ``controller`` module exports for motors."""
    return {"Motor": Motor, "RotationalMotor": RotationalMotor, "LinearMotor": LinearMotor}
