"""Rotational and linear motors with Webots semantics, vectorised over every motor of a world.

Per basic time step (Webots' ``prePhysicsStep``), for motors not in torque mode:

1. no available torque: commanded velocity 0;
2. velocity control (infinite target): ``v = target velocity``;
3. position control: ``err = target - position``; ``integral += err * ts``;
   ``out = P*err + I*integral + D*(err - previous err)/ts``; ``v = out`` limited in magnitude to
   ``|target velocity|``;
4. acceleration limit: the commanded velocity moves from the previous *commanded* velocity by at most
   ``acceleration * ts``;
5. the joint is driven by an ODE-style velocity motor: it reaches ``v`` with a force no larger than
   ``max(staticFriction, available torque)``.

In torque mode (``set_torque``) the given torque is applied and the velocity motor only keeps the
joint's static friction. The part of the torque that accelerates the joint (beyond what balances its bias
force, gravity and Coriolis) has its impulse over the basic step applied in the first MuJoCo step
(``substeps`` times, then none); the balancing part is held. This is ODE's one semi-implicit Euler step per
basic step (where a load held by ``setForce(m g)`` stays still and a net force acts at once): there the
torque's velocity change moves the joint during the whole step, so a controller tuned in Webots sees its
command act half a basic step earlier than under a torque held over finer steps (the inverted pendulum
sample balances only with ODE's timing, see docs/differences.md). Kinematic joints (endPoint without Physics) are moved directly as Webots does.
Units: rad, rad/s, N*m for rotational motors; m, m/s, N for linear ones; ``ts`` in s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from wbsim.devices.kind import BankContext, BankDevice, DeviceBank
from wbsim.devices.motor.compile import MotorBinding
from wbsim.devices.motor.kinematic import kinematic_control
from wbsim.devices.sampling import SampleSchedule

__all__ = ["MotorBank", "Motor", "control_law", "PLAIN_PYTHON_ROWS"]

_CONTROL, _TORQUE = 0, 1

PLAIN_PYTHON_ROWS = 8
"""Up to this many motors in a per-step write, plain Python element writes replace numpy's fancy indexing
(whose dispatch costs more than the work on a few elements); the values written are the same doubles."""


def control_law(
    q: np.ndarray,
    target: np.ndarray,
    target_velocity: np.ndarray,
    pid: np.ndarray,
    integral: np.ndarray,
    previous_error: np.ndarray,
    current_velocity: np.ndarray,
    acceleration: np.ndarray,
    available: np.ndarray,
    ts: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Webots' per-step motor law for motors in position or velocity control, vectorised.

    Args:
        q: joint positions (k,), rad or m.
        target: target positions (k,); infinite for velocity control.
        target_velocity: target velocities (k,).
        pid: (k, 3) P, I, D gains.
        integral, previous_error: PID state (k,).
        current_velocity: the velocity commanded at the previous step (k,).
        acceleration: acceleration limits (k,), -1 for none.
        available: available torques/forces (k,); 0 means no control.
        ts: the basic time step in s.

    Returns:
        (commanded velocity, new integral, new previous error, new current velocity), each (k,).
    """
    # Without available torque Webots returns before the PID: integral and previous error stay as they are.
    position_control = np.isfinite(target) & (available != 0.0)
    err = np.where(position_control, target - q, 0.0)
    integral = np.where(position_control, integral + err * ts, integral)
    out = pid[:, 0] * err + pid[:, 1] * integral + pid[:, 2] * ((err - previous_error) / ts)
    previous_error = np.where(position_control, err, previous_error)
    limit = np.abs(target_velocity)
    clamped = np.where(np.abs(out) < limit, out, np.where(out > 0, 1.0, -1.0) * limit)
    v = np.where(np.isfinite(target), clamped, target_velocity)
    limited = acceleration != -1.0
    if limited.any():
        gap = v - current_velocity
        step = np.minimum(np.where(limited, acceleration, np.inf), np.abs(gap) / ts) * ts
        v = np.where(limited, current_velocity + np.sign(gap) * step, v)
    v = np.where(available == 0.0, 0.0, v)
    return v, integral, previous_error, v


class MotorBank(DeviceBank):
    """State and per-step update of all motors of one simulation (one row per motor).

    The model's tendon friction losses (available torques) are written at run time and restored by the
    simulation on reset.

    Args:
        bindings: the motors, in a fixed order (row ``i`` is ``bindings[i]``).
        context: the simulation's model, time step, warning printer and clock.
    """

    actuates = True
    samples = True
    carried = ("target_position", "target_velocity", "available", "acceleration", "pid", "integral",
               "previous_error", "current_velocity", "mode", "torque", "feedback_value")

    def __init__(self, bindings: tuple[MotorBinding, ...], context: BankContext) -> None:
        super().__init__(bindings, context)
        # (data, qpos, qvel, ctrl): MjData's array attributes make a new numpy view at each access.
        self._views: tuple[mujoco.MjData, np.ndarray, np.ndarray, np.ndarray] | None = None
        # actuate's plain path prepared for one data (see _plain_plan_for); None after any reclassification.
        self._plain_plan: tuple | None = None
        self.bindings: tuple[MotorBinding, ...] = bindings
        self.model = context.model
        self.basic_ms = context.basic_time_step_ms
        self.ts = self.basic_ms / 1000.0
        self.warn = context.warn
        n = self.n
        f = np.array
        self.qpos_adr = f([b.joint.qpos_adr for b in bindings], dtype=np.int64)
        self.dof_adr = f([b.joint.dof_adr for b in bindings], dtype=np.int64)
        self.ref_dof = f([b.reference_dof_adr for b in bindings], dtype=np.int64)
        self.tendon = f([b.tendon_id for b in bindings], dtype=np.int64)
        self.actuator = f([b.actuator_id for b in bindings], dtype=np.int64)
        self.active = self.qpos_adr >= 0
        self.kinematic = f([b.joint.kinematic for b in bindings], dtype=bool) & self.active
        self.dynamic = self.active & ~self.kinematic
        self.static_friction = f([b.static_friction for b in bindings], dtype=float)
        self.initial_position = f([b.joint.initial_position for b in bindings], dtype=float)
        force_field = ["maxForce" if b.linear else "maxTorque" for b in bindings]
        self.max_force = f([float(b.node[k]) for b, k in zip(bindings, force_field)], dtype=float)
        # Limits and multipliers as Webots' load checks leave them (coupled motors made consistent).
        self.max_velocity = f([b.max_velocity for b in bindings], dtype=float)
        self.min_position = f([b.min_position for b in bindings], dtype=float)
        self.max_position = f([b.max_position for b in bindings], dtype=float)
        # A BallJoint's second (Euler) axis is singular at +-pi/2: Webots keeps its motor inside (the builder warns).
        middle = f([b.joint.node.type_name == "BallJoint" and b.joint.axis_index == 2 for b in bindings], dtype=bool)
        unset = middle & (self.min_position == 0.0) & (self.max_position == 0.0)
        self.min_position[middle] = np.where(unset[middle], -np.pi / 2, np.maximum(self.min_position[middle], -np.pi / 2))
        self.max_position[middle] = np.where(unset[middle], np.pi / 2, np.minimum(self.max_position[middle], np.pi / 2))
        self.multiplier = f([b.multiplier for b in bindings], dtype=float)
        self.names = [str(b.node["name"]) for b in bindings]
        # Coupled motors: the group of each motor (-1 if none) and, per coupled motor, the rows a command to it
        # reaches (itself first, then its siblings in scene order, as Webots relays); built once at load.
        self.coupling = f([b.coupling for b in bindings], dtype=np.int64)
        self.coupled_rows: list[np.ndarray | None] = [None] * n
        coupled = np.flatnonzero(self.coupling >= 0)
        order = coupled[np.argsort(self.coupling[coupled], kind="stable")]  # grouped, scene order inside
        starts = np.flatnonzero(np.diff(self.coupling[order], prepend=-2))
        for rows in np.split(order, starts[1:]):
            for r in rows:
                self.coupled_rows[r] = np.concatenate(([r], rows[rows != r]))
        self.field_acceleration = f([float(b.node["acceleration"]) for b in bindings], dtype=float)
        self.field_pid = f([b.node["controlPID"] for b in bindings], dtype=float).reshape(n, 3)
        # Force feedback is a sensor of the motor, sampled on Webots' sensor schedule.
        self.feedback_value = np.full(n, np.nan)
        self.feedback = SampleSchedule(n, self.basic_ms, context.sampling_changed)
        self.substeps = context.substeps
        self.watches_substeps = False  # while torque-mode motors have a torque to front-load (see substep)
        self._first_substep = False
        self._held = np.zeros(0)  # the held part of front-loaded torques (actuate)
        self._kept_forces: np.ndarray | None = None  # the last physics step's, through a world reset
        # Updated in place by every reset, never replaced: the Motor API objects a controller keeps across resets
        # write their velocities into this array directly (Motor._bind).
        self.target_velocity = self.max_velocity.copy()
        self.reset()

    def core(self, row: int) -> Motor:
        """The core motor of row ``row``."""
        binding = self.bindings[row]
        return Motor(self, row, str(binding.node["name"]), self.context.now_step, binding.linear)

    def reset(self) -> None:
        """Back to the state after loading: targets at the initial joint positions, velocity maxVelocity,
        force feedback disabled."""
        self._reset(keep_feedback_sampling=False)

    def restart(self) -> None:
        """Webots' world reset with controllers running: the motor state as after loading, but enabled force
        feedback stays enabled and samples again in the reset step, from the constraint forces of the last
        physics step before the reset (:meth:`before_world_reset`)."""
        self._reset(keep_feedback_sampling=True)

    def transfer_from(self, old: DeviceBank, rows: tuple[np.ndarray, np.ndarray], state: object) -> None:
        """Commands, control state and force feedback (values and schedule) of the motors that stay; MuJoCo's
        motor inputs are written afresh before the next physics step."""
        super().transfer_from(old, rows, state)
        assert isinstance(old, MotorBank)
        self.feedback.adopt(old.feedback, *rows)
        self._dirty = True

    def reset_physics(self, dofs: np.ndarray | None) -> None:
        """Webots' resetPhysics for motors: the commanded velocities of motors on ``dofs`` (all if None) become 0."""
        if self.n:
            self.reset_velocities(slice(None) if dofs is None else np.isin(self.dof_adr, dofs))

    def _reset(self, keep_feedback_sampling: bool) -> None:
        n = self.n
        if not keep_feedback_sampling:
            self._kept_forces = None
        self.target_position = self.initial_position.copy()
        self.target_velocity[...] = self.max_velocity
        self.available = self.max_force.copy()
        self.acceleration = self.field_acceleration.copy()
        self.pid = self.field_pid.copy()
        self.integral = np.zeros(n)
        self.previous_error = np.zeros(n)
        self.current_velocity = np.zeros(n)
        self.mode = np.full(n, _CONTROL, dtype=np.int64)
        self.torque = np.zeros(n)
        if keep_feedback_sampling:
            self.feedback.restart()
        else:
            self.feedback_value[:] = np.nan
            self.feedback.reset()
        self._dirty = True

    # -- per step ---------------------------------------------------------------------------------------
    def reset_velocities(self, rows: np.ndarray | slice = slice(None)) -> None:
        """Webots' resetPhysics for motors: the previously commanded velocities become 0.

        Args:
            rows: the motors concerned (a boolean mask or indices); all by default.
        """
        self.current_velocity[rows] = 0.0
        self._dirty = True

    def mark_dirty(self) -> None:
        """A command changed: reclassify the motors and rewrite MuJoCo's motor inputs before the next step."""
        self._dirty = True

    def _reclassify(self) -> None:
        dynamic = self.dynamic
        control = dynamic & (self.mode == _CONTROL)
        torque = dynamic & (self.mode == _TORQUE)
        simple = control & ~np.isfinite(self.target_position) & (self.acceleration == -1.0) & (self.available != 0.0)
        self._simple = np.flatnonzero(simple)
        self._simple_ref = self.ref_dof[self._simple]
        # (row, reference dof) of each simple motor when there are few: written element by element.
        self._simple_pairs = (list(zip(self._simple.tolist(), self._simple_ref.tolist()))
                              if len(self._simple) <= PLAIN_PYTHON_ROWS else None)
        self._general = np.flatnonzero(control & ~simple)
        self._torque = np.flatnonzero(torque)
        self._torque_ref = self.ref_dof[self._torque]
        idx = np.flatnonzero(dynamic)
        self.model.tendon_frictionloss[self.tendon[idx]] = np.where(
            torque[idx], self.static_friction[idx], np.maximum(self.static_friction[idx], self.available[idx])
        )
        self._ctrl_idx = self.actuator[idx]
        self._ctrl_dof = self.dof_adr[idx]
        self._ctrl_values = np.where(torque[idx], self.torque[idx], 0.0)
        self._ctrl_pairs = (list(zip(self._ctrl_idx.tolist(), self._ctrl_values.tolist()))
                            if len(idx) <= PLAIN_PYTHON_ROWS else None)
        # ODE's timing: the whole basic step's torque impulse in the first MuJoCo step (module docstring).
        self.watches_substeps = self.substeps > 1 and bool(np.any(self._ctrl_values != 0.0))
        self._kinematic_idx = np.flatnonzero(self.kinematic)
        # Only a few velocity-controlled motors and zero torques to write (the usual controller): actuate's
        # plain-Python path, without the checks of the other groups.
        self._plain = (self._simple_pairs is not None and self._ctrl_pairs is not None
                       and not len(self._general) and not len(self._torque) and not self.watches_substeps
                       and not len(self._kinematic_idx))
        self._plain_plan = None
        self._dirty = False

    def _plain_plan_for(self, data: mujoco.MjData) -> tuple:
        """actuate's plain path for ``data`` in one tuple: (data, qvel, ctrl, target velocity, current velocity,
        simple pairs, ctrl pairs), the arrays as memoryviews of doubles (an element read or write costs a third of
        numpy's, the same doubles); valid until the next reclassification (every reset replaces
        ``current_velocity`` and marks the bank dirty; ``target_velocity`` is updated in place)."""
        return (data, memoryview(data.qvel), memoryview(data.ctrl), memoryview(self.target_velocity),
                memoryview(self.current_velocity), tuple(self._simple_pairs or ()), tuple(self._ctrl_pairs or ()))

    def actuate(self, data: mujoco.MjData) -> None:
        """Compute the commanded velocities and write the motor inputs into MuJoCo (one basic step)."""
        plan = self._plain_plan
        if plan is None or plan[0] is not data or self._dirty:
            if self.n == 0:
                return
            if self._dirty:
                self._reclassify()
            plan = self._plain_plan = self._plain_plan_for(data) if self._plain else None
        if plan is not None:  # few velocity-controlled motors, zero torques: the same writes as below
            _, qvel, ctrl, target, current, pairs, ctrl_pairs = plan
            for row, ref in pairs:
                commanded = target[row]
                qvel[ref] = commanded
                current[row] = commanded
            for index, value in ctrl_pairs:
                ctrl[index] = value
            return
        views = self._views
        if views is None or views[0] is not data:  # MjData's array attributes make a new view per access
            views = self._views = (data, data.qpos, data.qvel, data.ctrl)
        _, qpos, qvel, ctrl = views
        pairs = self._simple_pairs
        if pairs is not None:
            target, current = self.target_velocity, self.current_velocity
            for row, ref in pairs:
                commanded = target.item(row)
                qvel[ref] = commanded
                current[row] = commanded
        elif len(self._simple):
            commanded = self.target_velocity[self._simple]
            qvel[self._simple_ref] = commanded
            # Webots' "previous velocity" for the acceleration limit is the velocity commanded at this step,
            # not a target set later (a setVelocity in the same step as setAcceleration must still ramp).
            self.current_velocity[self._simple] = commanded
        general = self._general
        if len(general):
            q = qpos[self.qpos_adr[general]]
            v, integral, previous, current = control_law(
                q, self.target_position[general], self.target_velocity[general], self.pid[general],
                self.integral[general], self.previous_error[general], self.current_velocity[general],
                self.acceleration[general], self.available[general], self.ts,
            )
            self.integral[general] = integral
            self.previous_error[general] = previous
            self.current_velocity[general] = current
            qvel[self.ref_dof[general]] = v
        if len(self._torque):
            qvel[self._torque_ref] = 0.0  # the velocity motor only keeps static friction
        if self.watches_substeps:
            # The part of a torque that balances the joint's bias force (gravity, Coriolis: qfrc_bias of the
            # last physics step) is held over the basic step, as ODE's net-zero acceleration keeps a balanced
            # load still; only the rest, which accelerates, is front-loaded.
            force = self._ctrl_values
            bias = data.qfrc_bias[self._ctrl_dof]
            self._held = np.where(force * bias > 0.0, np.sign(force) * np.minimum(np.abs(force), np.abs(bias)), 0.0)
            ctrl[self._ctrl_idx] = self._held + (force - self._held) * self.substeps
            self._first_substep = True
        elif self._ctrl_pairs is not None:
            for index, value in self._ctrl_pairs:
                ctrl[index] = value
        elif len(self._ctrl_idx):
            ctrl[self._ctrl_idx] = self._ctrl_values
        if len(self._kinematic_idx):
            self._kinematic(data)

    def substep(self, data: mujoco.MjData) -> None:
        """After the first MuJoCo step of a basic step with front-loaded torques: no torque for the others."""
        if self._first_substep:
            data.ctrl[self._ctrl_idx] = self._held
            self._first_substep = False

    def _kinematic(self, data: mujoco.MjData) -> None:
        """Webots' runKinematicControl for every kinematic joint: move it toward its target, ramping the
        velocity (the joint's velocity for this step carries it there)."""
        idx = self._kinematic_idx
        position = data.qpos[self.qpos_adr[idx]]
        _, current, new_position = kinematic_control(
            position, self.target_position[idx], self.target_velocity[idx], self.current_velocity[idx],
            self.acceleration[idx], self.available[idx], self.min_position[idx], self.max_position[idx], self.ts)
        self.current_velocity[idx] = current
        data.qvel[self.dof_adr[idx]] = (new_position - position) / self.ts

    def before_world_reset(self, data: mujoco.MjData) -> None:
        """Keep the constraint forces of the last physics step: Webots' feedback sampled in the reset step reads
        the ODE joint feedback of that step (``WbRotationalMotor::computeFeedback``; the joints survive)."""
        self._kept_forces = data.qfrc_constraint.copy()
        self.context.sampling_changed()  # sampled in the reset step, feedback enabled or not

    def next_sample_step(self) -> int:
        """The feedback schedule's next sampling step (it tells ``context.sampling_changed`` when a motor joins),
        or 0 while forces kept through a world reset wait for their sample."""
        return self.feedback.next_any if self._kept_forces is None else 0

    def sample(self, data: mujoco.MjData, step: int) -> None:
        """Refresh the force/torque feedback of motors whose sampling period elapsed at ``step``."""
        # Nothing due (the schedule's own first test) and no kept forces: no call.
        if step < self.feedback.next_any and self._kept_forces is None:
            return
        kept, self._kept_forces = self._kept_forces, None
        due = self.feedback.due(step)
        if not due:  # the usual case: no feedback enabled (reading MjData.qfrc_constraint makes a new view)
            return
        forces = data.qfrc_constraint if kept is None else kept
        for group in due:
            rows = group.rows
            moving = self.dynamic[rows]
            # The velocity motor's force on the joint is the reaction on the reference DOF, negated.
            self.feedback_value[rows[moving]] = -forces[self.ref_dof[rows[moving]]]
            self.feedback_value[rows[~moving]] = 0.0

    def set_positions(self, rows: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """:meth:`Motor.set_position` for many motors at once, where it needs no per-motor work.

        Sets the motors of ``rows`` (int array) that are uncoupled and whose finite ``positions`` (times their
        multipliers) lie within their limits; returns the boolean mask of those set. The caller gives the
        others to :meth:`Motor.set_position` one by one (coupled relays, clamping with its warning, infinite
        positions).
        """
        target = positions * self.multiplier[rows]
        lo, hi = self.min_position[rows], self.max_position[rows]
        done = (self.coupling[rows] < 0) & np.isfinite(positions) & ((lo == hi) | ((target >= lo) & (target <= hi)))
        chosen = rows[done]
        self.target_position[chosen] = target[done]
        self.mode[chosen] = _CONTROL
        self._dirty = True
        return done

    def enable_feedback(self, i: int, period_ms: int, now_step: int) -> None:
        """Enable (period > 0) or disable (0) force feedback sampling of motor ``i``."""
        self.feedback.enable(i, period_ms, now_step)


@dataclass
class Motor(BankDevice):
    """One motor (snake_case core API; the Webots ``Motor`` class wraps it).

    Attributes:
        linear: True for a LinearMotor.
    """

    linear: bool = False
    kind: str = "motor"
    bank: MotorBank  # type: ignore[assignment]  # narrowed from BankDevice

    def __post_init__(self) -> None:
        # The bank's coupling is fixed at load: looked up once, not at every command.
        self.coupled_rows = self._group()

    def _warn(self, text: str) -> None:
        self.bank.warn(f"{self.name}: {text}")

    def _group(self) -> np.ndarray | None:
        """The rows a command to this motor reaches (itself first) if it is coupled, else None. Banks of other
        kinds reusing this class (Track, Propeller motors) have no coupling."""
        rows = getattr(self.bank, "coupled_rows", None)
        return None if rows is None else rows[self.index]

    def set_position(self, position: float) -> None:
        """Target position (rad or m), or +/-inf for velocity control; leaves torque mode.

        A coupled motor relays ``position`` to its siblings: each member's target is ``position`` times its
        own multiplier (an infinite position stays as given), clamped to its own limits with its own warning.
        """
        self.bank.mark_dirty()
        b, i = self.bank, self.index
        rows = self._group()
        if rows is not None:
            self._set_coupled_positions(rows, position)
            return
        velocity_control = math.isinf(position)
        target = position if velocity_control else position * b.multiplier[i]
        lo, hi = b.min_position[i], b.max_position[i]
        if lo != hi and not velocity_control:
            if target > hi:
                self._warn(f"too big requested position: {position:g} > {hi:g}")
                target = hi
            elif target < lo:
                self._warn(f"too low requested position: {position:g} < {lo:g}")
                target = lo
        b.target_position[i] = target
        b.mode[i] = _CONTROL

    def _set_coupled_positions(self, rows: np.ndarray, position: float) -> None:
        b = self.bank
        b.mode[rows] = _CONTROL
        if math.isinf(position):
            b.target_position[rows] = position
            return
        target = position * b.multiplier[rows]
        lo, hi = b.min_position[rows], b.max_position[rows]
        over, under = target > hi, target < lo
        outside = (over | under) & (lo != hi)
        if outside.any():  # rare: clamp, warning in relay order with each motor's own name
            for k in np.flatnonzero(outside):
                if over[k]:
                    b.warn(f"{b.names[rows[k]]}: too big requested position: {position:g} > {hi[k]:g}")
                else:
                    b.warn(f"{b.names[rows[k]]}: too low requested position: {position:g} < {lo[k]:g}")
            target = np.where(outside, np.where(over, hi, lo), target)
        b.target_position[rows] = target

    def set_velocity(self, velocity: float) -> None:
        """Target velocity magnitude in position control, signed velocity in velocity control.

        A coupled motor relays ``velocity`` to its siblings, each scaling it by its own multiplier and
        clamping it to its own maxVelocity (with its own warning).
        """
        b, i = self.bank, self.index
        rows = self.coupled_rows
        if rows is not None:
            v = velocity * b.multiplier[rows]
            limit = b.max_velocity[rows]
            too_fast = np.abs(v) > limit
            if too_fast.any():  # rare: clamp, each motor warning with its own name
                unit = "m/s" if self.linear else "rad/s"
                for k in np.flatnonzero(too_fast):
                    b.warn(f"{b.names[rows[k]]}: The requested velocity {v[k]:g} exceeds 'maxVelocity' = "
                           f"{limit[k]:g} ({unit}).")
                v = np.where(too_fast, np.copysign(limit, v), v)
            b.target_velocity[rows] = v
            return
        # Python floats (.item), not numpy scalars: this runs for every motor command.
        v = velocity * b.multiplier.item(i)
        limit = b.max_velocity.item(i)
        if abs(v) > limit:
            unit = "m/s" if self.linear else "rad/s"
            self._warn(f"The requested velocity {v:g} exceeds 'maxVelocity' = {limit:g} ({unit}).")
            v = math.copysign(limit, v)
        b.target_velocity[i] = v

    def set_acceleration(self, acceleration: float) -> None:
        """Acceleration limit (rad/s^2 or m/s^2); -1 for none (this motor only: Webots relays none)."""
        self.bank.mark_dirty()
        self.bank.acceleration[self.index] = acceleration

    def set_available_force(self, force: float) -> None:
        """Largest torque/force the velocity motor may use, clamped to maxTorque/maxForce (this motor only,
        also when coupled: Webots relays no available force)."""
        self.bank.mark_dirty()
        b, i = self.bank, self.index
        if force > b.max_force[i]:
            if self._group() is None:  # Webots silences the warning for coupled motors
                what = "force" if self.linear else "torque"
                field = "maxForce" if self.linear else "maxTorque"
                self._warn(f"The requested available motor {what} {force:g} exceeds '{field}' = {b.max_force[i]:g}")
            force = b.max_force[i]
        b.available[i] = force

    def set_control_pid(self, p: float, i: float, d: float) -> None:
        """PID gains of position control (this motor only); resets the integral and previous error as Webots does."""
        self.bank.mark_dirty()
        b, k = self.bank, self.index
        b.pid[k] = (p, i, d)
        b.integral[k] = 0.0
        b.previous_error[k] = 0.0

    def set_torque(self, torque: float) -> None:
        """Switch to torque (force) control and apply ``torque`` (N*m or N), clamped to the available one.

        A coupled motor relays ``torque`` to its siblings (each scaled by its multiplier and clamped to its
        own available torque); Webots warns about the clamping only for uncoupled motors.
        """
        self.bank.mark_dirty()
        b, i = self.bank, self.index
        rows = self._group()
        if rows is not None:
            raw = torque * b.multiplier[rows]
            available = b.available[rows]
            b.torque[rows] = np.where(np.abs(raw) > available, np.copysign(available, raw), raw)
            b.mode[rows] = _TORQUE
            return
        raw = torque * b.multiplier[i]
        if abs(raw) > b.available[i]:
            what, field = ("force", "maxForce") if self.linear else ("torque", "maxTorque")
            self._warn(f"The requested motor {what} {raw:g} exceeds '{field}' = {b.available[i]:g}")
            raw = math.copysign(b.available[i], raw)
        b.torque[i] = raw
        b.mode[i] = _TORQUE

    def enable_force_feedback(self, period_ms: int) -> None:
        """Sample the motor force/torque every ``period_ms`` (0 disables)."""
        self.bank.enable_feedback(self.index, period_ms, self.now_step())

    # -- getters ------------------------------------------------------------------------------------
    @property
    def target_position(self) -> float:
        """The target position (rad or m; inf in velocity control)."""
        return float(self.bank.target_position[self.index])

    @property
    def velocity(self) -> float:
        """The target velocity as set (rad/s or m/s)."""
        return float(self.bank.target_velocity[self.index])

    @property
    def feedback(self) -> float:
        """The last sampled motor torque/force; NaN before the first sample."""
        return float(self.bank.feedback_value[self.index])

    @property
    def feedback_period_ms(self) -> int:
        """The feedback sampling period in ms (0 = disabled)."""
        return int(self.bank.feedback.period_ms[self.index])
