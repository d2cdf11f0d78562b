"""Propellers at run time: their motors' ramp and the thrust and torque they apply, for all at once.

In ``DEVICES_ACTUATE`` (Webots' ``prePhysicsStep``), the bank runs the motors' kinematic control
(:func:`wbsim.devices.motor.kinematic.kinematic_control`), then, for the spinning propellers whose Solid has Physics, reads the
current poses and velocities (one refresh of MuJoCo's kinematics, shared with the sensors), computes thrust
and torque (:func:`physics.thrust_and_torque`) and adds the equivalent wrenches to ``xfrc_applied`` of their
bodies. They act for the whole basic step, i.e. for every MuJoCo step of it, as Webots applies them once per
ODE step (one per basic step); ``V`` is not recomputed between MuJoCo steps. In ``DEVICES_SAMPLE`` the bank
puts the rows of ``xfrc_applied`` it touched back as it found them, so supervisor forces and physics plugins
(which add theirs after it and remove them before it) are never disturbed.

The motor of each Propeller is a row of this bank: the core :class:`PropellerMotor` is the motor kind's
core ``Motor`` over this bank's arrays (same names), so ``setPosition``/``setVelocity``/``setAcceleration``/
``setAvailableTorque`` keep Webots' checks and warnings.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from wbsim.devices.kind import BankContext, DeviceBank
from wbsim.devices.motor.bank import Motor
from wbsim.devices.propeller.compile import PropellerBinding, normalized_axis
from wbsim.devices.motor.kinematic import kinematic_control
from wbsim.devices.propeller.physics import point_velocity, thrust_and_torque, wrench_about
from wbsim.devices.sampling import SampleSchedule
from wbsim.world.model import WbNode

__all__ = ["PropellerBank", "PropellerMotor"]

_CONTROL = 0
_NO_BODY = "Adds a Physics node to Solid ancestors to enable thrust and torque effect."
"""Webots' warning when a spinning propeller's Solid has no Physics (Webots repeats it every step; wbsim prints
it once per propeller)."""


class PropellerBank(DeviceBank):
    """Motor state, thrust and torque of every Propeller of a simulation (one row per Propeller with a motor).

    Attributes (each (k,) unless stated; the motor arrays carry the motor kind's names):
        current_velocity: the motors' current velocities ``w`` (rad/s), Webots' ``currentVelocity()``.
        position: the propellers' angles (rad), integrated by the motor control (Webots' helix angle).
        thrust, shaft_torque: ``T`` (N) and ``Q`` (N*m) of the last step (0 when idle).
        torque: the motors' ``setTorque`` inputs (no effect on a propeller, as in Webots).
        axial_velocity: ``V`` (m/s) of the last step (0 when idle).
        thrust_constants, torque_constants: (k, 2) ``(t1, t2)``, ``(q1, q2)``.
    """

    actuates = True
    samples = True
    carried = ("target_position", "target_velocity", "available", "acceleration", "pid", "integral",
               "previous_error", "current_velocity", "position", "mode", "torque", "thrust", "shaft_torque",
               "axial_velocity", "_warned")

    def __init__(self, bindings: tuple[PropellerBinding, ...], context: BankContext) -> None:
        super().__init__(bindings, context)
        self.bindings: tuple[PropellerBinding, ...] = bindings
        self.model = context.model
        self.ts = context.basic_time_step_ms / 1000.0
        self.warn = context.warn
        n = self.n
        f = np.array
        motors = [b.motor for b in bindings]
        self.max_force = f([float(m["maxTorque"]) for m in motors], dtype=float)
        self.max_velocity = f([float(m["maxVelocity"]) for m in motors], dtype=float)
        self.min_position = f([float(m["minPosition"]) for m in motors], dtype=float)
        self.max_position = f([float(m["maxPosition"]) for m in motors], dtype=float)
        self.multiplier = f([float(m["multiplier"]) for m in motors], dtype=float)
        self.field_acceleration = f([float(m["acceleration"]) for m in motors], dtype=float)
        self.field_pid = f([m["controlPID"] for m in motors], dtype=float).reshape(n, 3)
        # Motor force feedback does not exist for propeller motors (Webots warns); kept for the core's getters.
        self.feedback_value = np.full(n, np.nan)
        self.feedback = SampleSchedule(n, context.basic_time_step_ms)
        self.body = f([b.body_id for b in bindings], dtype=np.int64)
        self.root = self.model.body_rootid[self.body].astype(np.int64) if n else np.zeros(0, dtype=np.int64)
        self.thrusting = f([b.thrusting for b in bindings], dtype=bool)
        self.frame_pos = f([b.frame_pos for b in bindings], dtype=float).reshape(n, 3)
        self.frame_rot = f([b.frame_rot for b in bindings], dtype=float).reshape(n, 3, 3)
        self.axis = np.zeros((n, 3))
        self.center = np.zeros((n, 3))
        self.thrust_constants = np.zeros((n, 2))
        self.torque_constants = np.zeros((n, 2))
        for row, binding in enumerate(bindings):
            self.axis[row] = binding.axis
            self._set_propeller_field(row, "centerOfThrust", binding.node["centerOfThrust"])
            self._set_propeller_field(row, "thrustConstants", binding.node["thrustConstants"])
            self._set_propeller_field(row, "torqueConstants", binding.node["torqueConstants"])
        self._update_frames()
        self.thrust = np.zeros(n)
        self.shaft_torque = np.zeros(n)
        self.axial_velocity = np.zeros(n)
        self._warned = np.zeros(n, dtype=bool)
        self._touched: np.ndarray | None = None  # bodies whose xfrc_applied rows this step changed
        self._saved = np.zeros((0, 6))
        # Updated in place by every reset, never replaced: the Motor API objects a controller keeps across resets
        # write their velocities into this array directly (Motor._bind).
        self.target_velocity = self.max_velocity.copy()
        self.reset()

    def core(self, row: int) -> PropellerMotor:
        """The core motor of Propeller ``row``."""
        return PropellerMotor(self, row, str(self.bindings[row].motor["name"]), self.context.now_step, False)

    # -- state ------------------------------------------------------------------------------------------
    def transfer_from(self, old: DeviceBank, rows: tuple[np.ndarray, np.ndarray], state: object) -> None:
        """Motor state and last thrust of the propellers that stay (between steps no wrench of theirs is left
        in MuJoCo's applied forces)."""
        super().transfer_from(old, rows, state)
        assert isinstance(old, PropellerBank)
        self.feedback.adopt(old.feedback, *rows)

    def reset(self) -> None:
        """The state after loading (Webots' motor without joint: target position 0, velocity maxVelocity)."""
        n = self.n
        self.target_position = np.zeros(n)
        self.target_velocity[...] = self.max_velocity
        self.available = self.max_force.copy()
        self.acceleration = self.field_acceleration.copy()
        self.pid = self.field_pid.copy()
        self.integral = np.zeros(n)
        self.previous_error = np.zeros(n)
        self.current_velocity = np.zeros(n)
        self.position = np.zeros(n)
        self.mode = np.full(n, _CONTROL, dtype=np.int64)
        self.torque = np.zeros(n)  # setTorque's raw input: no effect on a propeller, as in Webots
        self.thrust[:] = 0.0
        self.shaft_torque[:] = 0.0
        self.axial_velocity[:] = 0.0
        self._touched = None  # a reset restores the whole MjData: nothing of ours is left in it
        self._warned[:] = False  # the missing-Physics warning may be printed again

    def mark_dirty(self) -> None:
        """A motor command changed (the motor core calls this); propellers read their commands every step."""

    def enable_feedback(self, i: int, period_ms: int, now_step: int) -> None:
        """Force feedback of a propeller motor: never enabled (the API warns as Webots does)."""

    # -- per step ---------------------------------------------------------------------------------------
    def actuate(self, data: mujoco.MjData) -> None:
        """Run the motors' control and apply the thrust and torque of the spinning propellers (one basic step)."""
        ran, current, position = kinematic_control(
            self.position, self.target_position, self.target_velocity, self.current_velocity, self.acceleration,
            self.available, self.min_position, self.max_position, self.ts)
        self.current_velocity[:] = current
        self.position[:] = position
        self.thrust[:] = 0.0
        self.shaft_torque[:] = 0.0
        self.axial_velocity[:] = 0.0
        spinning = ran & (current != 0.0)
        if not spinning.any():
            return
        silent = spinning & ~self.thrusting
        if silent.any():
            for row in np.flatnonzero(silent & ~self._warned):
                self.warn(f"{self.bindings[row].node.path}: {_NO_BODY}")
            self._warned |= silent
        rows = np.flatnonzero(spinning & self.thrusting)
        if not len(rows):
            return
        self.context.refresh_kinematics()  # poses and velocities of the state the step starts from
        bodies = self.body[rows]
        xmat = data.xmat[bodies].reshape(-1, 3, 3)
        centre = data.xpos[bodies] + np.einsum("kij,kj->ki", xmat, self.center_in_body[rows])
        axis = np.einsum("kij,kj->ki", xmat, self.axis_in_body[rows])
        velocity = point_velocity(data.cvel[bodies], data.subtree_com[self.root[rows]], centre)
        # Webots dots the world velocity with the shaft axis of the Propeller's own frame (not rotated).
        axial = np.einsum("ki,ki->k", velocity, self.axis[rows])
        w = current[rows]
        thrust, torque = thrust_and_torque(w, axial, self.thrust_constants[rows], self.torque_constants[rows],
                                           self.max_force[rows])
        self.thrust[rows] = thrust
        self.shaft_torque[rows] = torque
        self.axial_velocity[rows] = axial
        wrench = wrench_about(thrust[:, None] * axis, centre, -torque[:, None] * axis, data.xipos[bodies])
        touched = np.unique(bodies)
        self._saved = data.xfrc_applied[touched].copy()
        self._touched = touched
        np.add.at(data.xfrc_applied, bodies, wrench)

    def sample(self, data: mujoco.MjData, step: int) -> None:
        """After the physics: put back the ``xfrc_applied`` rows :meth:`actuate` changed."""
        if self._touched is not None:
            data.xfrc_applied[self._touched] = self._saved
            self._touched = None

    # -- supervisor field writes --------------------------------------------------------------------------
    def field_changed(self, row: int, name: str, value: object) -> object | None:
        """Webots reads ``shaftAxis``, ``centerOfThrust``, ``thrustConstants`` and ``torqueConstants`` at every
        step: a supervisor's write applies from the next step (a zero axis is repaired with Webots' warning)."""
        if name == "shaftAxis":
            axis, message = normalized_axis(tuple(value))  # type: ignore[arg-type]
            if message is not None:
                self.warn(f"{self.bindings[row].node.path}: {message}")
                value = axis
            self.axis[row] = axis
            self._update_frames()
            return value
        if name in ("centerOfThrust", "thrustConstants", "torqueConstants"):
            self._set_propeller_field(row, name, value)
            self._update_frames()
            return value
        return None

    def _set_propeller_field(self, row: int, name: str, value: object) -> None:
        target = {"centerOfThrust": self.center, "thrustConstants": self.thrust_constants,
                  "torqueConstants": self.torque_constants}[name]
        target[row] = np.asarray(value, dtype=float)

    def _update_frames(self) -> None:
        """Centres of thrust and shaft axes in the body frames (the Poses above each Propeller composed in)."""
        self.center_in_body = self.frame_pos + np.einsum("kij,kj->ki", self.frame_rot, self.center)
        self.axis_in_body = np.einsum("kij,kj->ki", self.frame_rot, self.axis)


@dataclass
class PropellerMotor(Motor):
    """The RotationalMotor of a Propeller (snake_case core; the motor kind's ``Motor`` over a propeller row).

    Its ``node`` is the RotationalMotor node (what Webots' ``getFromDevice`` returns); the Propeller node is
    ``propeller``.
    """

    kind: str = "propeller"
    bank: PropellerBank  # type: ignore[assignment]  # narrowed from Motor

    @property
    def node(self) -> WbNode:  # type: ignore[override]
        """The RotationalMotor node."""
        return self.bank.bindings[self.index].motor

    @property
    def propeller(self) -> WbNode:
        """The Propeller node."""
        return self.bank.bindings[self.index].node

    @property
    def current_velocity(self) -> float:
        """The motor's current velocity ``w`` (rad/s) after the last step's ramp."""
        return float(self.bank.current_velocity[self.index])

    @property
    def thrust(self) -> float:
        """The thrust ``T`` of the last step (N)."""
        return float(self.bank.thrust[self.index])

    @property
    def shaft_torque(self) -> float:
        """The torque ``Q`` of the last step (N*m), after the maxTorque clamp."""
        return float(self.bank.shaft_torque[self.index])
