"""ros2_control transmissions driving a simulated robot: :func:`attach_transmissions`.

``hw = attach_transmissions(robot, urdf)`` binds every ``<transmission>`` of the URDF's ``<ros2_control>``
blocks to a robot of a running simulation, the way a ros2_control hardware component wires transmissions
between its joint interfaces and its actuators:

- actuator names are the robot's motor names (RotationalMotor or LinearMotor in a joint); the actuator
  state is read from the motor's PositionSensor (position; velocity from differences of positions) and its
  force feedback (effort), which attach enables;
- joint names are what controllers command; each must be a joint of the robot as Webots names it in the
  robot's URDF (its motor's name, else its position sensor's name);
- ``hw.read()`` after ``robot.step`` takes the joint-space state, ``hw.state(joint, interface)`` returns it;
  ``hw.command(joint, interface, value)`` stores joint-space commands and ``hw.write()`` before
  ``robot.step`` sends them: at the step (as Webots' controller library sends motor commands at
  ``wb_robot_step``) they are mapped to actuator space and given to the motors (position: ``setPosition``;
  velocity: ``setVelocity``, after ``setPosition(inf)`` unless a position was sent too; effort:
  ``setTorque``/``setForce``).

Vectorised over every robot of a simulation: the attached transmissions of a simulation share one
:class:`_Pool`, which maps the actuator state of all of them to joint space with a few numpy operations per
step (a ``DEVICES_SAMPLE`` hook) and all written commands to actuator space likewise (a ``CONTROLLERS`` hook,
after the controllers ran). Each map is affine; its coefficients are each transmission's linear maps, which
the library extracts from the same formulas its functional API runs. Per robot and step, Python does only
the calls the controller makes (a dictionary lookup and an array access each) and one motor command per
actuator written. Names are resolved once, at attach; nothing is looked up per step.
"""

from __future__ import annotations

import math
import os
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np

from wbsim.errors import TransmissionError
from wbsim.sim.phases import Phase
from wbsim.transmission.interfaces import (
    ABSOLUTE_POSITION,
    EFFORT,
    FORCE,
    POSITION,
    TORQUE,
    VELOCITY,
)
from wbsim.transmission.urdf import LoadedTransmission, load_transmissions

if TYPE_CHECKING:
    from wbsim.api.robot import Robot
    from wbsim.devices.motor.api import Motor
    from wbsim.sim.simulation import Simulation

__all__ = [
    "COMMAND_INTERFACES",
    "STATE_INTERFACES",
    "TransmissionHardware",
    "attach_transmissions",
]

#: Joint command interfaces a motor can serve (``torque`` / ``force`` are ``effort`` for a rotational /
#: linear motor).
COMMAND_INTERFACES: Final[tuple[str, ...]] = (POSITION, VELOCITY, EFFORT, TORQUE, FORCE)

#: Joint state interfaces the sensors of a motor can serve (``absolute_position`` reads like ``position``).
STATE_INTERFACES: Final[tuple[str, ...]] = (POSITION, VELOCITY, EFFORT, TORQUE, FORCE, ABSOLUTE_POSITION)

_CHANNELS: Final[tuple[str, ...]] = (POSITION, VELOCITY, EFFORT)

# Interface name -> the channel that carries it (position-like, velocity or effort-like).
_CHANNEL: Final[dict[str, str]] = {
    POSITION: POSITION,
    ABSOLUTE_POSITION: POSITION,
    VELOCITY: VELOCITY,
    EFFORT: EFFORT,
    TORQUE: EFFORT,
    FORCE: EFFORT,
}



def _unconverted(motor: Motor, name: str) -> Callable[[float], object]:
    """The bound API method ``name`` of ``motor`` without the C-argument conversion wrapper, if it has one."""
    method = getattr(type(motor), name)
    return getattr(method, "__wrapped__", method).__get__(motor)


def _quoted(names: Sequence[str]) -> str:
    return ", ".join(repr(n) for n in names) if names else "none"


_WIDTH: Final = 2  # a transmission couples at most two joints and two actuators


@dataclass(frozen=True)
class _Sparse:
    """An affine map ``y[i] = sum_k coef[i, k] * x[cols[i, k]] + offset[i]``, each output depending on at most
    :data:`_WIDTH` inputs; padding has coefficient 0 and the column of an input of the same transmission, so
    that a NaN input (a joint never commanded, an actuator without sensor) spoils its own transmission
    only."""

    cols: np.ndarray  # (n_out, width) int64
    coef: np.ndarray  # (n_out, width)
    offset: np.ndarray  # (n_out,)

    def apply(self, x: np.ndarray) -> np.ndarray:
        """The map applied to ``x`` (a new array)."""
        return np.einsum("ij,ij->i", self.coef, x[self.cols]) + self.offset


def _sparse(blocks: Sequence[tuple[np.ndarray, np.ndarray, int]], n_out: int) -> _Sparse:
    """Assemble per-transmission blocks (matrix (n_o, n_i), offset (n_o,), index of the first input) into one
    map; outputs are numbered in block order."""
    cols = np.zeros((n_out, _WIDTH), dtype=np.int64)
    coef = np.zeros((n_out, _WIDTH))
    offset = np.zeros(n_out)
    row = 0
    for matrix, b, first in blocks:
        n_o, n_i = matrix.shape
        cols[row:row + n_o, :] = first
        cols[row:row + n_o, :n_i] = np.arange(first, first + n_i)
        coef[row:row + n_o, :n_i] = matrix
        offset[row:row + n_o] = b
        row += n_o
    return _Sparse(cols, coef, offset)


class _Pool:
    """The attached transmissions of one simulation, mapped together (see the module docstring).

    Global numbering: joints, actuators and transmissions of every live :class:`TransmissionHardware`, in
    attach order. Rebuilt (linear in the total size) when a hardware is attached or garbage-collected (its
    controller ended), never per step.
    """

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.members: list[weakref.ref[TransmissionHardware]] = []
        self.stale = False  # a member was garbage-collected: compact at the next hook
        self.dirty = False  # members were added: rebuild the maps at the next hook
        sensor_bank = sim.banks.get("position_sensor")
        has_sensors = sensor_bank is not None and sensor_bank.n
        self.sensor_values = sensor_bank.value if has_sensors else np.full(1, np.nan)
        self.motor_bank = sim.banks["motor"]
        self.feedback_values = self.motor_bank.feedback_value
        self.step = -1  # the step whose state joint_position / joint_effort hold
        self._rebuild([])
        sim.add_hook(Phase.CONTROLLERS, self.flush)
        sim.add_hook(Phase.DEVICES_SAMPLE, self.sample)

    # -- membership --------------------------------------------------------------------------------------
    def add(self, hw: TransmissionHardware) -> None:
        """Give ``hw`` slots at the end (its state NaN until the next sample, the maps rebuilt at the next
        hook): attaching many robots in one step costs one rebuild, linear in the total size."""
        hw._j0, hw._a0, hw._t0 = self.n_joints, self.n_actuators, self.n_transmissions
        self.n_joints += hw._nj
        self.n_actuators += hw._na
        self.n_transmissions += len(hw.transmissions)
        self.members.append(weakref.ref(hw, self._forget))
        for commands in self.commands:
            commands.extend([math.nan] * hw._nj)
        self.joint_position.extend([math.nan] * hw._nj)
        self.joint_effort.extend([math.nan] * hw._nj)
        self.dirty = True
        hw._pool = self

    def _live(self) -> list[TransmissionHardware]:
        return [h for h in (ref() for ref in self.members) if h is not None]

    def _forget(self, _ref: object) -> None:
        self.stale = True

    def ensure(self) -> None:
        """Rebuild the maps if members came or went (then sample again, so the state matches the slots)."""
        if self.dirty or self.stale:
            self._rebuild(self._live())
            self.sample(self.sim)

    def _rebuild(self, live: list[TransmissionHardware]) -> None:
        """Number the live members' joints, actuators and transmissions afresh and assemble the maps from
        their blocks (linear in the total size)."""
        self.members = [weakref.ref(h, self._forget) for h in live]
        self.stale = self.dirty = False
        a2j_p: list[tuple[np.ndarray, np.ndarray, int]] = []
        a2j_e: list[tuple[np.ndarray, np.ndarray, int]] = []
        j2a: list[list[tuple[np.ndarray, np.ndarray, int]]] = [[] for _ in _CHANNELS]
        sensor_rows: list[int] = []
        motor_rows: list[int] = []
        self.t_actuators: list[range] = []
        self.setters: dict[str, list[Callable[[float], object]]] = {c: [] for c in _CHANNELS}
        self.apis: list[Motor] = []
        old = getattr(self, "commands", None)
        j0 = a0 = 0
        for hw in live:
            hw._old_j0 = hw._j0
            hw._j0, hw._a0, hw._t0 = j0, a0, len(self.t_actuators)
            for nj, na, position, effort, to_actuators in hw._blocks:
                a2j_p.append((*position, a0))
                a2j_e.append((*effort, a0))
                for channel_blocks, block in zip(j2a, to_actuators):
                    channel_blocks.append((*block, j0))
                self.t_actuators.append(range(a0, a0 + na))
                j0, a0 = j0 + nj, a0 + na
            sensor_rows.extend(hw._sensor_rows)
            motor_rows.extend(hw._motor_rows)
            self.setters[POSITION].extend(hw._set_position)
            self.setters[VELOCITY].extend(hw._set_velocity)
            self.setters[EFFORT].extend(hw._set_torque)
            self.apis.extend(hw._motors)
        self.n_joints, self.n_actuators, self.n_transmissions = j0, a0, len(self.t_actuators)
        self.a2j_position = _sparse(a2j_p, j0)
        self.a2j_effort = _sparse(a2j_e, j0)
        self.j2a = {c: _sparse(blocks, a0) for c, blocks in zip(_CHANNELS, j2a)}
        rows = np.array(sensor_rows, dtype=np.int64)
        self.sensor_missing = rows < 0 if (rows < 0).any() else None
        self.sensor_rows = np.maximum(rows, 0)
        self.motor_rows = np.array(motor_rows, dtype=np.int64)
        self.wants_effort = any(h._wants_effort for h in live)
        # Joint commands of every robot, NaN where never given (those given so far are kept); the
        # hardwares that wrote keep their written transmissions (local numbers) until the flush, so a
        # rebuild loses none.
        # Python lists: a command is one list store; the flush makes one array per channel.
        commands = tuple([math.nan] * j0 for _ in _CHANNELS)
        for hw in live:
            if old is not None and hw._old_j0 >= 0:  # slotted before: keep its commands
                for new, previous in zip(commands, old):
                    new[hw._j0:hw._j0 + hw._nj] = previous[hw._old_j0:hw._old_j0 + hw._nj]
        self.commands = commands
        self.writers: list[TransmissionHardware] = [h for h in live if h._queued]
        self.actuator_position = np.full(a0, np.nan)
        self.actuator_effort = np.full(a0, np.nan)
        self.joint_position: list[float] = [math.nan] * j0
        self.joint_effort: list[float] = [math.nan] * j0

    # -- per step ----------------------------------------------------------------------------------------
    def sample(self, sim: Simulation) -> None:
        """DEVICES_SAMPLE hook: the joint-space state of every attached transmission (all robots at once)."""
        if self.dirty or self.stale:
            self._rebuild(self._live())
        actuators = self.sensor_values[self.sensor_rows]
        if self.sensor_missing is not None:
            actuators[self.sensor_missing] = np.nan
        # New lists each step (never written in place): a hardware's read() keeps the one of its step. Lists,
        # because a controller reads single values (a list index is cheaper than an array access).
        self.actuator_position = actuators
        self.joint_position = self.a2j_position.apply(actuators).tolist()
        if self.wants_effort:
            self.actuator_effort = self.feedback_values[self.motor_rows]
            self.joint_effort = self.a2j_effort.apply(self.actuator_effort).tolist()
        self.step = sim.step_count

    def flush(self, sim: Simulation) -> None:
        """CONTROLLERS hook (after the controllers ran): send the commands written for this step."""
        writers = self.writers
        if not writers:
            return
        if self.dirty or self.stale:
            self.ensure()
            writers = self.writers
        self.writers = []
        rows: tuple[list[int], ...] = ([], [], [])  # actuators to command, per channel
        t_actuators = self.t_actuators
        for hw in writers:
            written, t0 = hw._written, hw._t0
            for ch, t in sorted(written) if len(written) > 1 else written:  # channel order, then URDF order
                rows[ch].extend(t_actuators[t0 + t])
            written.clear()
        positioned: frozenset[int] = frozenset()
        for ch, channel in enumerate(_CHANNELS):
            if not rows[ch]:
                continue
            values = self.j2a[channel].apply(np.array(self.commands[ch])).tolist()  # every robot at once
            setters = self.setters[channel]
            # A NaN value: a joint of the transmission was never commanded in this interface; nothing is sent.
            if channel == POSITION:
                self._set_positions(rows[ch], values)
                positioned = frozenset(rows[ch])
            elif channel == VELOCITY:
                set_position = self.setters[POSITION]
                for k in rows[ch]:
                    value = values[k]
                    if value != value:
                        continue
                    if k in positioned:
                        setters[k](abs(value))  # the speed limit of the position control
                    else:
                        set_position[k](math.inf)
                        setters[k](value)
            else:
                for k in rows[ch]:
                    value = values[k]
                    if value == value:
                        setters[k](value)
        for hw in writers:
            hw._queued = False


    def _set_positions(self, rows: list[int], values: list[float]) -> None:
        """Position commands: one vectorised write into the motor bank for the motors that need nothing else,
        then the API's ``setPosition`` for the others (coupled, clamped with a warning, NaN or infinite)."""
        index = np.array(rows, dtype=np.int64)
        wanted = np.array(values)[index]
        done = self.motor_bank.set_positions(self.motor_rows[index], wanted)
        apis = self.apis
        for k in index[done].tolist():
            apis[k]._cache()._position = values[k]  # what getTargetPosition returns, as setPosition stores it
        if not done.all():
            setters = self.setters[POSITION]
            for k in index[~done].tolist():
                value = values[k]
                if value == value:  # NaN: a joint never commanded; nothing sent
                    setters[k](value)


def _pool_of(sim: Simulation) -> _Pool:
    """The simulation's pool, made (with its hooks) at the first attach, and again after a world load."""
    pool = getattr(sim, "_transmission_pool", None)
    if pool is None or pool.flush not in sim._hooks[Phase.CONTROLLERS]:
        pool = _Pool(sim)
        sim._transmission_pool = pool  # type: ignore[attr-defined]
    return pool


class TransmissionHardware:
    """The transmissions of one robot, bound to its motors: a ros2_control hardware component in miniature.

    Made by :func:`attach_transmissions`. Joint-space values are in the units of the joint interface (rad
    or m, rad/s or m/s, N*m or N); actuator-space values are the motors' own units.

    Attributes:
        joint_names: the joints, transmission by transmission in URDF order, each transmission's joints in
            its index order (``role`` order: ``joint1``, ``joint2``).
        actuator_names: the motors, in the same order.
        transmissions: the loaded transmissions, in URDF order.
    """

    def __init__(
        self,
        robot: Robot,
        loaded: Sequence[LoadedTransmission],
        motors: Sequence[Motor],
        state_interfaces: dict[str, tuple[str, ...]],
        command_interfaces: dict[str, tuple[str, ...]],
    ) -> None:
        self.transmissions: tuple[LoadedTransmission, ...] = tuple(loaded)
        self.joint_names: list[str] = [n for t in loaded for n in t.joint_names]
        self.actuator_names: list[str] = [n for t in loaded for n in t.actuator_names]
        self._robot = robot
        self._sim = robot._runtime.sim
        self._step_s = self._sim.basic_time_step_ms / 1000.0
        self._index = {name: k for k, name in enumerate(self.joint_names)}
        self._owner = [t for t, item in enumerate(loaded) for _ in item.joints]
        self._state_interfaces = state_interfaces
        self._command_interfaces = command_interfaces
        self._nj, self._na = len(self.joint_names), len(self.actuator_names)
        sensors = [m.getPositionSensor() for m in motors]
        self._sensor_rows = [-1 if s is None else s._core.index for s in sensors]  # type: ignore[union-attr]
        self._motor_rows = [m._core.index for m in motors]
        self._wants_effort = any(_CHANNEL[i] == EFFORT for t in state_interfaces.values() for i in t)
        # Per transmission: (joints, actuators, actuator->joint position (M, b), effort (M, b),
        # joint->actuator (M, b) per channel), extracted once from the transmission's own formulas.
        self._blocks = []
        for item in loaded:
            trans = item.transmission
            assert trans is not None  # strict loading always constructs
            self._blocks.append((
                trans.num_joints(), trans.num_actuators(),
                trans.actuator_to_joint_linear_map(POSITION), trans.actuator_to_joint_linear_map(EFFORT),
                tuple(trans.joint_to_actuator_linear_map(c) for c in _CHANNELS),
            ))
        # The API methods without their argument conversion (the values here are already Python floats): the
        # Webots semantics stay (NaN refused with the library's error, caches, coupled siblings, limits).
        self._motors = list(motors)
        self._set_position = [_unconverted(m, "setPosition") for m in motors]
        self._set_velocity = [_unconverted(m, "setVelocity") for m in motors]
        self._set_torque = [_unconverted(m, "setTorque") for m in motors]
        # (joint, interface) -> (joint index, channel number, (channel number, transmission number)).
        self._command_slot = {
            (joint, interface): (
                k, _CHANNELS.index(_CHANNEL[interface]),
                (_CHANNELS.index(_CHANNEL[interface]), self._owner[k]),
            )
            for k, joint in enumerate(self.joint_names) for interface in command_interfaces[joint]
        }
        self._state_slot = {
            (joint, interface): (k, _CHANNEL[interface])
            for k, joint in enumerate(self.joint_names) for interface in state_interfaces[joint]
        }
        # (channel number, transmission number) of the commands given since the last flush.
        self._written: set[tuple[int, int]] = set()
        self._queued = False
        # Slots in the pool (set by the pool), and the state of the last reads.
        self._j0 = self._old_j0 = -1  # no slot yet
        self._a0 = self._t0 = 0
        self._position: list[float] = [math.nan] * self._nj  # the pool's list of the last read, at _base
        self._previous = self._effort = self._position
        self._base = self._previous_base = 0
        self._elapsed = math.nan
        self._read_step = -1
        self._read_restarts = -1
        self._pool: _Pool = _pool_of(self._sim)
        self._pool.add(self)

    # -- reading ---------------------------------------------------------------------------------------
    def read(self) -> None:
        """Take the joint-space state (after ``robot.step``).

        Position: the motors' position sensors through the position maps; velocity: the difference of the
        joint positions taken now and at the previous read at an earlier step, divided by the elapsed time
        (NaN until two such reads, and again after a simulation reset); effort: the motors' force feedback
        through the effort maps. Values are NaN until the sensors' first sample (one sampling period after
        attach).
        """
        pool = self._pool
        step, restarts = pool.step, self._sim.restarts
        position, base = pool.joint_position, self._j0  # this step's list, never rewritten
        if restarts != self._read_restarts or step < self._read_step:  # first read, or after a reset
            self._elapsed = math.nan
            self._read_restarts = restarts
            self._previous, self._previous_base = position, base
        elif step > self._read_step:
            self._elapsed = (step - self._read_step) * self._step_s
            self._previous, self._previous_base = self._position, self._base
        self._read_step = step
        self._position, self._base = position, base
        if self._wants_effort:
            self._effort = pool.joint_effort

    def state(self, joint: str, interface: str) -> float:
        """The joint-space state of ``joint`` for ``interface`` as of the last :meth:`read`.

        Args:
            joint: a name of :attr:`joint_names`.
            interface: a state interface the URDF declares for that joint (``position``, ``velocity``,
                ``effort``, ``torque``, ``force`` or ``absolute_position``).

        Raises:
            TransmissionError: unknown joint, or an interface the joint does not declare.
        """
        slot = self._state_slot.get((joint, interface))
        if slot is None:
            self._joint_index(joint)
            raise TransmissionError(
                f"Joint '{joint}' has no state interface {interface!r}; its state interfaces are "
                f"{_quoted(self._state_interfaces[joint])}."
            )
        index, channel = slot
        if channel == POSITION:
            return self._position[self._base + index]
        if channel == VELOCITY:
            now = self._position[self._base + index]
            return (now - self._previous[self._previous_base + index]) / self._elapsed
        return self._effort[self._base + index]

    def states(self, interface: str) -> np.ndarray:
        """The joint-space states of every joint for ``interface`` (shape (n_joints,), joint_names order).

        Unlike :meth:`state`, no check that each joint declares the interface.
        """
        channel = _CHANNEL.get(interface)
        if channel is None:
            raise TransmissionError(
                f"Unknown state interface {interface!r}; valid interfaces are {_quoted(STATE_INTERFACES)}."
            )
        b, n = self._base, self._nj
        if channel == POSITION:
            return np.array(self._position[b:b + n])
        if channel == VELOCITY:
            previous = np.array(self._previous[self._previous_base:self._previous_base + n])
            return (np.array(self._position[b:b + n]) - previous) / self._elapsed
        return np.array(self._effort[b:b + n])

    def actuator_states(self, interface: str) -> np.ndarray:
        """The actuator-space ``position`` or ``effort`` of the last step sampled, shape (n_actuators,), in
        the motors' units (efforts are NaN unless a joint declares an effort-like state interface)."""
        pool = self._pool
        pool.ensure()
        a0 = self._a0
        if interface == POSITION:
            return pool.actuator_position[a0:a0 + self._na].copy()
        if interface == EFFORT:
            return pool.actuator_effort[a0:a0 + self._na].copy()
        raise TransmissionError(f"actuator_states() takes 'position' or 'effort', got {interface!r}.")

    # -- commanding ------------------------------------------------------------------------------------
    def command(self, joint: str, interface: str, value: float) -> None:
        """Set the joint-space command of ``joint`` for ``interface``; :meth:`write` sends it.

        Args:
            joint: a name of :attr:`joint_names`.
            interface: a command interface the URDF declares for that joint.
            value: rad or m (position), rad/s or m/s (velocity), N*m or N (effort, torque, force).

        Raises:
            TransmissionError: unknown joint, undeclared interface or a value that is not a real number.
        """
        slot = self._command_slot.get((joint, interface))
        if slot is None:
            self._joint_index(joint)
            raise TransmissionError(
                f"Joint '{joint}' has no command interface {interface!r}; its command interfaces are "
                f"{_quoted(self._command_interfaces[joint])}."
            )
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise TransmissionError(
                f"Command of joint '{joint}' ({interface}) must be a real number, got {value!r}."
            ) from None
        index, ch, key = slot
        self._pool.commands[ch][self._j0 + index] = number
        self._written.add(key)

    def write(self) -> None:
        """Send the joint commands given since the last write; the motors get them at the next step.

        At the step, per interface, the actuators of every transmission with a new joint command get a
        command: positions first (``setPosition``), then velocities (``setVelocity``; an actuator without
        a position in this write is first put in velocity control with ``setPosition(inf)``, one with a
        position gets the velocity's magnitude as its speed limit), then efforts (``setTorque`` /
        ``setForce``, torque control). A transmission with a joint never commanded in that interface sends
        nothing for it. The motors' getters (``getTargetPosition``...) show the commands from that step on.
        """
        if not self._queued:
            self._queued = True
            self._pool.writers.append(self)

    def commands(self, interface: str) -> np.ndarray:
        """The joint-space commands last given for ``interface`` (NaN where never given), in joint_names
        order."""
        channel = _CHANNEL.get(interface)
        if channel is None or interface == ABSOLUTE_POSITION:
            raise TransmissionError(
                f"Unknown command interface {interface!r}; valid interfaces are "
                f"{_quoted(COMMAND_INTERFACES)}."
            )
        j0 = self._j0
        return np.array(self._pool.commands[_CHANNELS.index(channel)][j0:j0 + self._nj])

    def _joint_index(self, joint: str) -> int:
        index = self._index.get(joint)
        if index is None:
            raise TransmissionError(
                f"Unknown joint {joint!r}; the joints of these transmissions are {_quoted(self.joint_names)}."
            )
        return index

    def __repr__(self) -> str:
        return (
            f"TransmissionHardware(robot={self._robot.getName()!r}, joints={self.joint_names}, "
            f"actuators={self.actuator_names})"
        )


def _robot_joint_names(robot: Robot) -> list[str]:
    """The robot's joint names as Webots' URDF export names them: the joint's motor, else its position
    sensor."""
    from wbsim.devices.motor.api import Motor
    from wbsim.devices.position_sensor.api import PositionSensor

    names: list[str] = []
    with_motor: set[int] = set()
    for device in robot._ordered:
        if isinstance(device, Motor) and device._core.kind == "motor":
            names.append(device.getName())
            with_motor.add(id(device._core.binding.joint.node))
    for device in robot._ordered:
        if isinstance(device, PositionSensor) and id(device._core.binding.joint.node) not in with_motor:
            names.append(device.getName())
    return names


def attach_transmissions(
    robot: Robot,
    urdf: str | bytes | os.PathLike[str],
    *,
    sampling_period_ms: int | None = None,
) -> TransmissionHardware:
    """Bind the ``<transmission>`` elements of a URDF's ``<ros2_control>`` blocks to a simulated robot.

    Args:
        robot: the Webots ``Robot`` (or ``Supervisor``) object of a controller, or ``sim.robot(name)`` in a
            script.
        urdf: a URDF file path or its XML text, read with :func:`~wbsim.transmission.load_transmissions`
            (strict mode: joints and actuators bound by ``role``).
        sampling_period_ms: the period at which the actuators' position sensors and force feedback sample
            (ms); default the robot's basic time step. Only the sensors the declared state interfaces need
            are enabled, now (position sensors for ``position``/``velocity``/``absolute_position``, force
            feedback for ``effort``/``torque``/``force``).

    Returns:
        The :class:`TransmissionHardware` of the robot.

    Raises:
        TransmissionError: for a URDF the loader refuses, and for bad bindings, each naming the
            transmission, the element and the valid names: an actuator that is not a joint motor of the
            robot; a joint the robot lacks; a joint or actuator used by two transmissions; an interface the
            transmission or the motor cannot serve (a command or state interface outside
            :data:`COMMAND_INTERFACES` / :data:`STATE_INTERFACES`, ``torque`` on a linear motor or ``force``
            on a rotational one, a position or velocity state without a PositionSensor in the motor's
            joint, an effort state of a motor whose joint cannot give force feedback).
    """
    from wbsim.api.robot import Robot
    from wbsim.devices.motor.api import Motor

    if not isinstance(robot, Robot):
        raise TransmissionError(
            f"attach_transmissions() needs a Webots Robot or Supervisor object (a controller's Robot(), or "
            f"sim.robot(name) in a script), got {type(robot).__name__}."
        )
    loaded = load_transmissions(urdf)
    robot_name = robot.getName()
    motor_devices = {
        d.getName(): d for d in robot._ordered if isinstance(d, Motor) and d._core.kind == "motor"
    }
    joint_names = _robot_joint_names(robot)
    known_joints = set(joint_names)
    used_joints: dict[str, str] = {}
    used_actuators: dict[str, str] = {}
    motors: list[Motor] = []
    states: dict[str, tuple[str, ...]] = {}
    commands: dict[str, tuple[str, ...]] = {}
    with_sensors: list[Motor] = []
    with_feedback: list[Motor] = []
    for item in loaded:
        where = f"{item.source}:{item.line}: transmission '{item.name}'"
        for actuator in item.actuators:
            motor = motor_devices.get(actuator.name)
            if motor is None:
                raise TransmissionError(
                    f"{where}: actuator '{actuator.name}' is not a motor of robot '{robot_name}'; its joint "
                    f"motors are {_quoted(sorted(motor_devices))}."
                )
            if actuator.name in used_actuators:
                raise TransmissionError(
                    f"{where}: actuator '{actuator.name}' is already driven by transmission "
                    f"'{used_actuators[actuator.name]}'; each motor may belong to one transmission."
                )
            used_actuators[actuator.name] = item.name
            motors.append(motor)
        item_motors = motors[len(motors) - len(item.actuators):]
        linear = [m._core.linear for m in item_motors]
        for joint in item.joints:
            if joint.name not in known_joints:
                raise TransmissionError(
                    f"{where}: joint '{joint.name}' is not a joint of robot '{robot_name}'; its joints "
                    f"(named after their motor, else their position sensor) are "
                    f"{_quoted(sorted(known_joints))}."
                )
            if joint.name in used_joints:
                raise TransmissionError(
                    f"{where}: joint '{joint.name}' is already driven by transmission "
                    f"'{used_joints[joint.name]}'; each joint may belong to one transmission."
                )
            used_joints[joint.name] = item.name
            for kind, declared, valid in (
                ("command", joint.command_interfaces, COMMAND_INTERFACES),
                ("state", joint.state_interfaces, STATE_INTERFACES),
            ):
                for interface in declared:
                    if interface not in valid:
                        raise TransmissionError(
                            f"{where}: joint '{joint.name}' declares the {kind} interface '{interface}', "
                            f"which a motor cannot serve through a transmission; valid {kind} interfaces "
                            f"are {_quoted(valid)}."
                        )
                    if interface == TORQUE and any(linear) or interface == FORCE and not all(linear):
                        wrong = [m.getName() for m, lin in zip(item_motors, linear)
                                 if lin == (interface == TORQUE)]
                        raise TransmissionError(
                            f"{where}: joint '{joint.name}' declares the {kind} interface '{interface}', but "
                            f"motor {_quoted(wrong)} is {'linear' if interface == TORQUE else 'rotational'} "
                            f"(a rotational motor serves 'torque', a linear one 'force', both 'effort')."
                        )
            states[joint.name] = joint.state_interfaces
            commands[joint.name] = joint.command_interfaces
        declared_states = {_CHANNEL[i] for j in item.joints for i in j.state_interfaces}
        if POSITION in declared_states or VELOCITY in declared_states:
            with_sensors.extend(item_motors)
        if EFFORT in declared_states:
            with_feedback.extend(item_motors)
        for motor in item_motors:
            needs_sensor = POSITION in declared_states or VELOCITY in declared_states
            if needs_sensor and motor.getPositionSensor() is None:
                with_sensor = sorted(n for n, m in motor_devices.items() if m.getPositionSensor() is not None)
                raise TransmissionError(
                    f"{where}: actuator '{motor.getName()}' has no PositionSensor in its joint, needed for "
                    f"the joints' position or velocity state; motors with a position sensor are "
                    f"{_quoted(with_sensor)}."
                )
            if EFFORT in declared_states:
                problem = _feedback_problem(motor)
                if problem:
                    raise TransmissionError(
                        f"{where}: actuator '{motor.getName()}' cannot give the force feedback needed for "
                        f"the joints' effort state: {problem}."
                    )
    period = int(robot.getBasicTimeStep()) if sampling_period_ms is None else sampling_period_ms
    if isinstance(period, bool) or not isinstance(period, int) or period <= 0:
        raise TransmissionError(
            f"sampling_period_ms must be a positive integer (ms), got {sampling_period_ms!r}."
        )
    for motor in with_sensors:  # only what the declared state interfaces need: sampling costs every step
        motor.getPositionSensor().enable(period)  # type: ignore[union-attr]  # checked above
    for motor in with_feedback:
        motor.enableForceFeedback(period)
    return TransmissionHardware(robot, loaded, motors, states, commands)


def _feedback_problem(motor: Motor) -> str:
    """Why Webots would refuse force feedback for ``motor`` (empty if it gives it)."""
    joint = motor._core.binding.joint
    if joint.end_point is None:
        return "its joint has no endPoint"
    if joint.kinematic:
        return "its joint's endPoint has no Physics node"
    parent = joint.node.parent
    while parent is not None and not parent.is_a("solid"):
        parent = parent.parent
    if parent is None or parent["physics"] is None:
        return "the Solid holding its joint has no Physics node"
    return ""
