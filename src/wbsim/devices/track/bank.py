"""Tracks with Webots semantics, vectorised over every Track of a world (one row per Track device).

Per basic time step (Webots' ``WbTrack::prePhysicsStep``), for each Track with a LinearMotor:

1. the belt velocity ``V`` (m/s): in position or velocity control, the motor's law (the same
   :func:`~wbsim.devices.motor.bank.control_law` as joint motors, on the belt position); in force control
   ``V = F * ts / m`` with ``m`` the mass of the Track's rigid body (as Webots: no accumulation);
2. the belt position ``p += V * ts`` (what the Track's PositionSensor reads, m).

In every physics step the contacts of the Track's geoms get a surface velocity (MuJoCo's
``contact.surfacevel``, set after collision detection and before the solver; see ``docs/track.md``).
Webots' rule (``WbSimulationCluster::fillSurfaceParameters``), with ``n`` the Track's outward contact normal,
``x``/``z`` the Track's axes and ``u`` the world's up direction: the belt surface moves along ``x`` at
``V * sign(n . u) * |asin(n . z)| / (pi / 2)`` relative to the Track: forward on its upper side, backward
underneath (so the vehicle advances at ``V``), and not at all on its flanks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from wbsim.devices.kind import BankContext, DeviceBank
from wbsim.devices.motor.bank import Motor, control_law
from wbsim.devices.position_sensor.bank import PositionSensor
from wbsim.devices.resolution import quantize
from wbsim.devices.sampling import SampledBank, SampleSchedule
from wbsim.devices.track.compile import TrackBinding, TrackDeviceBinding

__all__ = ["TrackBank", "TrackMotor", "TrackPositionSensor", "belt_surface_velocity"]

_CONTROL, _TORQUE = 0, 1
_WAKE = 1e-300
"""A generalised force too small to change any result, applied for one basic step to wake the sleeping tree of
a Track whose belt starts moving (MuJoCo wakes a tree with a nonzero applied force)."""
_FEEDBACK_WARNING = "Force feedback is not available for a LinearMotor node inside a Track node."


def belt_surface_velocity(speed: np.ndarray, normal: np.ndarray, x_axis: np.ndarray, z_axis: np.ndarray,
                          up_axis: int) -> np.ndarray:
    """What a belt adds to MuJoCo's contact surface velocity (that of ``geom[1]`` minus that of ``geom[0]``).

    Webots' rule gives the belt surface, relative to its Track, the velocity
    ``V * sign(n . u) * |asin(n . z)| / (pi / 2) * x`` at a contact of outward normal ``n``. The Track's geom
    is ``geom[0]`` (``n`` = the contact normal, its velocity counts negatively) or ``geom[1]`` (``n`` = minus
    the contact normal, counted positively): both give ``-V * sign(c . u) * |asin(c . z)| / (pi / 2) * x``
    with ``c`` the contact normal, so the side does not matter.

    Args:
        speed: the belt velocity ``V`` of each contact's Track (k,), m/s.
        normal: the contact normals ``c`` (k, 3), from ``geom[0]`` to ``geom[1]``, world frame.
        x_axis, z_axis: the Track's x and z axes (k, 3), world frame.
        up_axis: the index of the world's up axis (0, 1 or 2; Webots' gravity axis).

    Returns:
        (k, 3) m/s, world frame (the solver uses its tangential part).
    """
    # |asin(a)| = asin(|a|); the minimum guards against rounding just above 1 (np.clip costs more).
    angle = np.arcsin(np.minimum(np.abs(np.einsum("ij,ij->i", normal, z_axis)), 1.0))
    coefficient = speed * np.sign(normal[:, up_axis]) * angle * (-2.0 / math.pi)
    return coefficient[:, None] * x_axis


class TrackBank(SampledBank):
    """State and per-step work of every Track with a device (rows: the devices; per-Track arrays: the belts).

    The motor arrays are named as :class:`~wbsim.devices.motor.bank.MotorBank`'s, one entry per Track, so
    the core :class:`TrackMotor` (a :class:`~wbsim.devices.motor.bank.Motor`) works on them unchanged.

    Args:
        bindings: the Track devices (row ``i`` is ``bindings[i]``).
        context: the simulation's model, time step, generator, warning printer and clock.
    """

    actuates = True
    carried = ("value",)
    _per_track = ("belt_position", "belt_velocity", "target_position", "target_velocity", "available", "acceleration",
                  "pid", "integral", "previous_error", "current_velocity", "mode", "torque", "feedback_value")

    def __init__(self, bindings: tuple[TrackDeviceBinding, ...], context: BankContext) -> None:
        super().__init__(bindings, context)
        self.bindings: tuple[TrackDeviceBinding, ...] = bindings
        model = context.model
        self.model = model
        self.basic_ms = context.basic_time_step_ms
        self.ts = self.basic_ms / 1000.0
        self.warn = context.warn
        tracks: dict[int, TrackBinding] = {}
        for b in bindings:
            tracks.setdefault(b.track_index, b.track)
        self.tracks: tuple[TrackBinding, ...] = tuple(tracks[i] for i in range(len(tracks)))
        k = len(self.tracks)
        f = np.array
        self.row_track = f([b.track_index for b in bindings], dtype=np.int64)
        self.body = f([t.body_id for t in self.tracks], dtype=np.int64)
        # Webots tests the sign against the world's gravity axis, the same for every Track.
        self.up_axis = int(np.argmax(np.abs(self.tracks[0].up))) if k else 2
        self.mass = f([t.mass for t in self.tracks], dtype=float)
        self.has_motor = f([t.motor is not None for t in self.tracks], dtype=bool)

        def motor_field(name: str, default: object) -> list[object]:
            return [t.motor[name] if t.motor is not None else default for t in self.tracks]

        self.max_force = f(motor_field("maxForce", 0.0), dtype=float)
        self.max_velocity = f(motor_field("maxVelocity", 0.0), dtype=float)
        self.min_position = f(motor_field("minPosition", 0.0), dtype=float)
        self.max_position = f(motor_field("maxPosition", 0.0), dtype=float)
        self.multiplier = f(motor_field("multiplier", 1.0), dtype=float)
        self.field_acceleration = f(motor_field("acceleration", -1.0), dtype=float)
        self.field_pid = f(motor_field("controlPID", (10.0, 0.0, 0.0)), dtype=float).reshape(k, 3)
        # The belt moves the contacts of its Track's geoms: geom -> Track (-1: not a belt).
        self.track_of_geom = np.full(model.ngeom, -1, dtype=np.int64)
        for i, t in enumerate(self.tracks):
            if t.motor is not None:
                self.track_of_geom[list(t.geom_ids)] = i
        # Where a wake-up force goes for a moving Track's tree (-1: static Track).
        self._wake_dof = np.full(k, -1, dtype=np.int64)
        for i, t in enumerate(self.tracks):
            tree = int(model.body_treeid[t.body_id])
            if t.dynamic and tree >= 0:
                self._wake_dof[i] = model.tree_dofadr[tree]
        self._woken = np.zeros(0, dtype=np.int64)
        self._sleep = bool(model.opt.enableflags & mujoco.mjtEnableBit.mjENBL_SLEEP)
        sensor_nodes = [b.node if b.role == "position_sensor" else None for b in bindings]
        self.noise = f([float(n["noise"]) if n is not None else 0.0 for n in sensor_nodes], dtype=float)
        self.resolution = f([float(n["resolution"]) if n is not None else -1.0 for n in sensor_nodes],
                            dtype=float)
        self.value = np.full(self.n, np.nan)  # sensor rows; updated in place (API objects keep a reference)
        self.feedback_value = np.full(k, np.nan)
        self.feedback = SampleSchedule(k, self.basic_ms)
        # Updated in place by every reset, never replaced: the Motor API objects a controller keeps across resets
        # write their velocities into this array directly (Motor._bind).
        self.target_velocity = self.max_velocity.copy()
        self.reset()

    def core(self, row: int) -> TrackMotor | TrackPositionSensor:
        """The core device of row ``row``: the Track's motor or its position sensor."""
        binding = self.bindings[row]
        name = str(binding.node["name"])
        if binding.role == "motor":
            return TrackMotor(self, binding.track_index, name, self.context.now_step, True, row=row)
        return TrackPositionSensor(self, row, name, self.context.now_step, True)

    # -- resets -----------------------------------------------------------------------------------------
    def transfer_from(self, old: DeviceBank, rows: tuple[np.ndarray, np.ndarray], state: object) -> None:
        """Sensor values and schedules of the rows that stay, and the belt and motor state of their Tracks."""
        super().transfer_from(old, rows, state)
        assert isinstance(old, TrackBank)
        pairs = sorted({(int(old.row_track[o]), int(self.row_track[n])) for o, n in zip(*rows)})
        old_tracks = np.array([o for o, _ in pairs], dtype=np.int64)
        new_tracks = np.array([n for _, n in pairs], dtype=np.int64)
        for name in self._per_track:
            getattr(self, name)[new_tracks] = getattr(old, name)[old_tracks]
        self.feedback.adopt(old.feedback, old_tracks, new_tracks)
        self._dirty = True

    def reset(self) -> None:
        """As after loading: belts at rest at position 0, motors at target 0 with speed maxVelocity, sensors
        and feedback disabled (Webots' ``WbTrack::reset`` zeroes the belt position and velocity)."""
        self._reset(keep_sampling=False)

    def restart(self) -> None:
        """Webots' world reset with controllers running: enabled sensors stay enabled and sample again after
        the first step."""
        self._reset(keep_sampling=True)

    def _reset(self, keep_sampling: bool) -> None:
        k = len(self.tracks)
        self.belt_position = np.zeros(k)
        self.belt_velocity = np.zeros(k)
        self.target_position = np.zeros(k)
        self.target_velocity[...] = self.max_velocity
        self.available = self.max_force.copy()
        self.acceleration = self.field_acceleration.copy()
        self.pid = self.field_pid.copy()
        self.integral = np.zeros(k)
        self.previous_error = np.zeros(k)
        self.current_velocity = np.zeros(k)
        self.mode = np.full(k, _CONTROL, dtype=np.int64)
        self.torque = np.zeros(k)
        self.edits_contacts = False
        self._woken = self._woken[:0]
        self._dirty = True
        if keep_sampling:
            self.schedule.restart()
            self.feedback.restart()
        else:
            self.value[:] = np.nan
            self.feedback_value[:] = np.nan
            self.schedule.reset()
            self.feedback.reset()

    def mark_dirty(self) -> None:
        """A motor command changed (mode, target, acceleration, available force): reclassify the belts."""
        self._dirty = True

    def _reclassify(self) -> None:
        control = self.has_motor & (self.mode == _CONTROL)
        # Plain velocity control (Webots' usual track use) skips the PID: V is the target velocity.
        simple = (control & np.isinf(self.target_position) & (self.acceleration == -1.0)
                  & (self.available != 0.0))
        self._simple = np.flatnonzero(simple)
        self._general = np.flatnonzero(control & ~simple)
        self._forced = np.flatnonzero(self.has_motor & (self.mode == _TORQUE))
        self._dirty = False

    def enable_feedback(self, i: int, period_ms: int, now_step: int) -> None:
        """Enable (period > 0) or disable (0) the force feedback of Track ``i`` (it only warns, as Webots)."""
        self.feedback.enable(i, period_ms, now_step)

    # -- per step ---------------------------------------------------------------------------------------
    def actuate(self, data: mujoco.MjData) -> None:
        """The belt velocities and positions of this basic step; wake the trees of belts that start moving."""
        if self._dirty:
            self._reclassify()
        velocity = np.zeros(len(self.tracks))
        if len(self._simple):
            simple = self._simple
            velocity[simple] = self.target_velocity[simple]
            self.current_velocity[simple] = velocity[simple]
        general = self._general
        if len(general):
            v, integral, previous, current = control_law(
                self.belt_position[general], self.target_position[general], self.target_velocity[general],
                self.pid[general], self.integral[general], self.previous_error[general],
                self.current_velocity[general], self.acceleration[general], self.available[general], self.ts)
            self.integral[general] = integral
            self.previous_error[general] = previous
            self.current_velocity[general] = current
            velocity[general] = v
        forced = self._forced
        if len(forced):
            velocity[forced] = self.torque[forced] * self.ts / self.mass[forced]
        self.belt_velocity = velocity
        self.belt_position += velocity * self.ts
        moving = velocity != 0.0
        self.edits_contacts = bool(moving.any())
        if self.edits_contacts and self._sleep:
            wakeable = np.flatnonzero(moving & (self._wake_dof >= 0))
            asleep = self._wake_dof[wakeable[data.body_awake[self.body[wakeable]] == 0]]
            if len(asleep):
                self._woken = asleep
                data.qfrc_applied[asleep] += _WAKE

    def edit_contacts(self, model: mujoco.MjModel, data: mujoco.MjData) -> bool:
        """Give the contacts of moving belts their surface velocity (``contact.surfacevel``, contact axes)."""
        n = data.ncon
        if n == 0:
            return False
        contact = data.contact
        owner = self.track_of_geom[contact.geom[:n]]  # (n, 2): the Track of each side's geom, -1 if none
        belts = owner >= 0
        rows, sides = np.nonzero(belts)
        if len(rows) == 0:
            return False
        t = owner[rows, sides]
        # Rows of a contact frame: the normal (geom[0] -> geom[1]), tangent 1, tangent 2.
        frame = contact.frame[:n].reshape(n, 3, 3)[rows]
        rot = data.xmat[self.body[t]].reshape(-1, 3, 3)
        relative = belt_surface_velocity(self.belt_velocity[t], frame[:, 0], rot[:, :, 0], rot[:, :, 2],
                                         self.up_axis)
        tangential = np.einsum("kij,kj->ki", frame[:, 1:3], relative)
        surfacevel = contact.surfacevel
        if (belts[:, 0] & belts[:, 1]).any():  # a belt touching another belt: both add up
            total = np.zeros((n, 2))
            np.add.at(total, rows, tangential)
            tangential = total[rows]
        surfacevel[rows, :2] = tangential
        return True

    def sample(self, data: mujoco.MjData, step: int) -> None:
        """Belt positions of the position sensors due after ``step``; feedback requests only warn (Webots)."""
        if len(self._woken):
            data.qfrc_applied[self._woken] -= _WAKE
            self._woken = self._woken[:0]
        for group in self.schedule.due(step):
            rows = group.rows
            raw = self.belt_position[self.row_track[rows]]
            noise = self.noise[rows]
            if (noise > 0).any():
                raw = raw + noise * self.context.rng().standard_normal(len(rows))
            self.value[rows] = quantize(raw, self.resolution[rows])
        for group in self.feedback.due(step):
            for _ in group.rows.tolist():
                self.warn(_FEEDBACK_WARNING)
            self.feedback_value[group.rows] = 0.0


@dataclass
class TrackMotor(Motor):
    """The LinearMotor of a Track: the joint motor's core over the Track's row of :class:`TrackBank`.

    ``index`` is the Track's index (the motor arrays are per Track); ``row`` is the device's bank row.
    """

    row: int = -1
    kind: str = "track"

    @property
    def binding(self) -> TrackDeviceBinding:  # type: ignore[override]
        """The compiled binding of the motor."""
        return self.bank.bindings[self.row]  # type: ignore[no-any-return]

    @property
    def node(self) -> object:  # type: ignore[override]
        """The LinearMotor node."""
        return self.bank.bindings[self.row].node

    @property
    def belt_position(self) -> float:
        """The belt position (m): the distance the belt has run since the start."""
        return float(self.bank.belt_position[self.index])

    @property
    def belt_velocity(self) -> float:
        """The belt velocity of the last basic step (m/s)."""
        return float(self.bank.belt_velocity[self.index])


@dataclass
class TrackPositionSensor(PositionSensor):
    """The PositionSensor of a Track: the joint sensor's core over a :class:`TrackBank` row (belt run, m)."""

    kind: str = "track"
