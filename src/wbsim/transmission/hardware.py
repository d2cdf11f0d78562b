"""ros2_control transmissions driving a simulated robot: :func:`attach_transmissions`.

``hw = attach_transmissions(robot, urdf)`` binds every ``<transmission>`` of the URDF's ``<ros2_control>``
blocks to a robot of a running simulation, the way a ros2_control hardware component wires transmissions
between its joint interfaces and its actuators:

- actuator names are the robot's motor names (RotationalMotor or LinearMotor in a joint); the actuator
  state is read from the motor's PositionSensor (position; velocity from differences of positions) and its
  force feedback (effort), which attach enables;
- joint names are what controllers command; each must be a joint of the robot as Webots names it in the
  robot's URDF (its motor's name, else its position sensor's name);
- ``hw.read()`` after ``robot.step`` maps the actuator state to joint space, ``hw.state(joint, interface)``
  returns it; ``hw.command(joint, interface, value)`` stores joint-space commands and ``hw.write()`` before
  ``robot.step`` maps them to actuator space and sends them to the motors (position: ``setPosition``;
  velocity: ``setVelocity``, after ``setPosition(inf)`` unless a position was sent too; effort:
  ``setTorque``/``setForce``).

Every map is affine. At attach, each transmission's linear maps (extracted by the library from the same
formulas its functional API runs) are assembled into one block-diagonal matrix per direction and interface,
so a read or a write is one matrix product for all transmissions of the robot, whatever their number and
kind. Names are resolved once, at attach; nothing is looked up per step.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np

from wbsim.errors import TransmissionError
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


@dataclass(frozen=True)
class _Maps:
    """Block-diagonal affine maps of all transmissions of one robot (joint order x actuator order)."""

    a2j_position: np.ndarray  # (n_joints, n_actuators)
    a2j_offset: np.ndarray  # (n_joints,)
    a2j_velocity: np.ndarray
    a2j_effort: np.ndarray
    j2a_position: np.ndarray  # (n_actuators, n_joints)
    j2a_offset: np.ndarray  # (n_actuators,)
    j2a_velocity: np.ndarray
    j2a_effort: np.ndarray
    # incidence[a, j]: actuator a depends on joint j (same transmission).
    incidence: np.ndarray


def _block_maps(loaded: Sequence[LoadedTransmission]) -> _Maps:
    """Assemble the per-transmission affine maps into block-diagonal matrices."""
    nj = sum(len(t.joints) for t in loaded)
    na = sum(len(t.actuators) for t in loaded)
    mats = {key: np.zeros((nj, na)) for key in ("a2j_p", "a2j_v", "a2j_e")}
    mats.update({key: np.zeros((na, nj)) for key in ("j2a_p", "j2a_v", "j2a_e")})
    a2j_offset = np.zeros(nj)
    j2a_offset = np.zeros(na)
    incidence = np.zeros((na, nj), dtype=bool)
    j0 = a0 = 0
    for item in loaded:
        trans = item.transmission
        assert trans is not None  # strict loading always constructs
        j1, a1 = j0 + trans.num_joints(), a0 + trans.num_actuators()
        m, b = trans.actuator_to_joint_linear_map(POSITION)
        mats["a2j_p"][j0:j1, a0:a1] = m
        a2j_offset[j0:j1] = b
        mats["a2j_v"][j0:j1, a0:a1] = trans.actuator_to_joint_linear_map(VELOCITY)[0]
        mats["a2j_e"][j0:j1, a0:a1] = trans.actuator_to_joint_linear_map(EFFORT)[0]
        m, b = trans.joint_to_actuator_linear_map(POSITION)
        mats["j2a_p"][a0:a1, j0:j1] = m
        j2a_offset[a0:a1] = b
        mats["j2a_v"][a0:a1, j0:j1] = trans.joint_to_actuator_linear_map(VELOCITY)[0]
        mats["j2a_e"][a0:a1, j0:j1] = trans.joint_to_actuator_linear_map(EFFORT)[0]
        incidence[a0:a1, j0:j1] = True
        j0, a0 = j1, a1
    return _Maps(
        mats["a2j_p"], a2j_offset, mats["a2j_v"], mats["a2j_e"],
        mats["j2a_p"], j2a_offset, mats["j2a_v"], mats["j2a_e"], incidence,
    )


def _unconverted(motor: Motor, name: str) -> Callable[[float], object]:
    """The bound API method ``name`` of ``motor`` without the C-argument conversion wrapper, if it has one."""
    method = getattr(type(motor), name)
    return getattr(method, "__wrapped__", method).__get__(motor)


def _quoted(names: Sequence[str]) -> str:
    return ", ".join(repr(n) for n in names) if names else "none"


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
        self._runtime = robot._runtime
        self._index = {name: k for k, name in enumerate(self.joint_names)}
        self._state_interfaces = state_interfaces
        self._command_interfaces = command_interfaces
        self._maps = _block_maps(loaded)
        self._motors = list(motors)
        nj, na = len(self.joint_names), len(self.actuator_names)
        self._sim = robot._runtime.sim
        self._step_s = self._sim.basic_time_step_ms / 1000.0
        maps = self._maps
        # Actuator -> joint maps with the offsets as a last column (actuator snapshots end with a constant 1).
        self._a2j_position = np.hstack([maps.a2j_position, maps.a2j_offset[:, None]])
        self._a2j_velocity = np.hstack([maps.a2j_velocity, np.zeros((nj, 1))])
        self._a2j_effort = np.hstack([maps.a2j_effort, np.zeros((nj, 1))])
        # Sensor and feedback arrays are updated in place by their banks: keep the arrays and the rows.
        sensors = [m.getPositionSensor() for m in motors]
        if sensors and all(s is not None for s in sensors):
            self._sensor_values = sensors[0]._core.bank.value  # type: ignore[union-attr]  # one bank per simulation
            self._sensor_rows = np.array([s._core.index for s in sensors], dtype=np.int64)  # type: ignore[union-attr]
        else:  # effort-only transmissions may have motors without sensors: positions stay NaN
            self._sensor_values = np.full(1, np.nan)
            self._sensor_rows = np.zeros(na, dtype=np.int64)
        self._feedback_values = motors[0]._core.bank.feedback_value if motors else np.zeros(0)
        self._motor_rows = np.array([m._core.index for m in motors], dtype=np.int64)
        self._wants_effort = any(_CHANNEL[i] == EFFORT for i in (x for t in state_interfaces.values() for x in t))
        # Actuator snapshots (with a trailing constant 1): the current read, and the previous read at an
        # earlier step for velocities; they swap when time has advanced.
        self._current = np.full(na + 1, np.nan)
        self._previous = np.full(na + 1, np.nan)
        self._current[na] = self._previous[na] = 1.0
        self._current_view, self._previous_view = self._current[:na], self._previous[:na]
        self._effort = np.full(na + 1, np.nan)
        self._effort[na] = 0.0
        self._effort_view = self._effort[:na]
        self._elapsed = math.nan  # s between the previous and the current snapshot
        self._read_step = -1
        self._read_restarts = -1
        self._joint_position: np.ndarray | None = None
        self._joint_velocity: np.ndarray | None = None
        self._joint_effort: np.ndarray | None = None
        # Joint-space commands (NaN: never commanded) and which joints got a command since the last write.
        # The last element of each command vector is a constant 1, so that one product adds the offsets.
        self._commands = {channel: np.zeros(nj + 1) for channel in _CHANNELS}
        for vector in self._commands.values():
            vector[nj] = 1.0
        self._given = {channel: [False] * nj for channel in _CHANNELS}  # joints commanded at least once
        self._pending: dict[str, set[int]] = {channel: set() for channel in _CHANNELS}  # transmissions to send
        maps = self._maps
        self._j2a = {
            POSITION: np.hstack([maps.j2a_position, maps.j2a_offset[:, None]]),
            VELOCITY: np.hstack([maps.j2a_velocity, np.zeros((na, 1))]),
            EFFORT: np.hstack([maps.j2a_effort, np.zeros((na, 1))]),
        }
        # Per transmission: its joint and actuator indices; per joint: its transmission.
        self._t_joints: list[range] = []
        self._t_actuators: list[range] = []
        j0 = a0 = 0
        for item in loaded:
            self._t_joints.append(range(j0, j0 + len(item.joints)))
            self._t_actuators.append(range(a0, a0 + len(item.actuators)))
            j0, a0 = j0 + len(item.joints), a0 + len(item.actuators)
        self._owner = [t for t, joints in enumerate(self._t_joints) for _ in joints]
        # The API methods without their argument conversion (the values here are already Python floats): the
        # Webots semantics stay (NaN refused with the library's error, caches, coupled siblings, limits).
        self._set_position = [_unconverted(m, "setPosition") for m in motors]
        self._set_velocity = [_unconverted(m, "setVelocity") for m in motors]
        self._set_torque = [_unconverted(m, "setTorque") for m in motors]

    # -- reading ---------------------------------------------------------------------------------------
    def read(self) -> None:
        """Read the actuator state (after ``robot.step``) and map it to joint space.

        Position: the motors' position sensors; velocity: the difference of the positions read now and at
        the previous read at an earlier time, divided by the elapsed time (NaN until two such reads, and
        again after a simulation reset); effort: the motors' force feedback. Values are NaN until the
        sensors' first sample (one sampling period after attach).
        """
        sim = self._sim
        step, restarts = sim.step_count, sim.restarts
        if restarts != self._read_restarts or step < self._read_step:  # first read, or after a reset
            self._elapsed = math.nan
            self._read_restarts = restarts
        elif step > self._read_step:  # time advanced: the current snapshot becomes the previous one
            self._elapsed = (step - self._read_step) * self._step_s
            self._current, self._previous = self._previous, self._current
            self._current_view, self._previous_view = self._previous_view, self._current_view
        self._read_step = step
        np.take(self._sensor_values, self._sensor_rows, out=self._current_view, mode="clip")  # clip: unbuffered
        if self._wants_effort:
            np.take(self._feedback_values, self._motor_rows, out=self._effort_view, mode="clip")
        self._joint_position = self._joint_velocity = self._joint_effort = None  # mapped lazily

    def _channel_state(self, channel: str) -> np.ndarray:
        """The joint-space vector of a channel for the last read (one product, cached until the next read)."""
        if channel == POSITION:
            state = self._joint_position
            if state is None:
                state = self._joint_position = self._a2j_position.dot(self._current)
        elif channel == VELOCITY:
            state = self._joint_velocity
            if state is None:
                state = self._joint_velocity = self._a2j_velocity.dot(self._current - self._previous) / self._elapsed
        else:
            state = self._joint_effort
            if state is None:
                state = self._joint_effort = self._a2j_effort.dot(self._effort)
        return state

    def state(self, joint: str, interface: str) -> float:
        """The joint-space state of ``joint`` for ``interface`` as of the last :meth:`read`.

        Args:
            joint: a name of :attr:`joint_names`.
            interface: a state interface the URDF declares for that joint (``position``, ``velocity``,
                ``effort``, ``torque``, ``force`` or ``absolute_position``).

        Raises:
            TransmissionError: unknown joint, or an interface the joint does not declare.
        """
        index = self._index.get(joint)
        if index is None or interface not in self._state_interfaces[joint]:
            self._joint_index(joint)
            raise TransmissionError(
                f"Joint '{joint}' has no state interface {interface!r}; its state interfaces are "
                f"{_quoted(self._state_interfaces[joint])}."
            )
        return self._channel_state(_CHANNEL[interface]).item(index)

    def states(self, interface: str) -> np.ndarray:
        """The joint-space states of every joint for ``interface`` (shape (n_joints,), joint_names order).

        Unlike :meth:`state`, no check that each joint declares the interface.
        """
        channel = _CHANNEL.get(interface)
        if channel is None:
            raise TransmissionError(
                f"Unknown state interface {interface!r}; valid interfaces are {_quoted(STATE_INTERFACES)}."
            )
        return self._channel_state(channel).copy()

    def actuator_states(self, interface: str) -> np.ndarray:
        """The actuator-space values of the last read (shape (n_actuators,)): ``position``, ``velocity`` or
        ``effort``, in the motors' units."""
        channel = _CHANNEL.get(interface)
        if channel is None:
            raise TransmissionError(
                f"Unknown state interface {interface!r}; valid interfaces are {_quoted(STATE_INTERFACES)}."
            )
        if channel == POSITION:
            return self._current_view.copy()
        if channel == VELOCITY:
            return (self._current_view - self._previous_view) / self._elapsed
        return self._effort_view.copy()

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
        index = self._index.get(joint)
        if index is None or interface not in self._command_interfaces[joint]:
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
        channel = _CHANNEL[interface]
        self._commands[channel][index] = number
        self._given[channel][index] = True
        self._pending[channel].add(self._owner[index])

    def write(self) -> None:
        """Map the joint commands given since the last write to actuator space and send them to the motors.

        Per interface, the actuators of every transmission with a new joint command get a command: positions
        first (``setPosition``), then velocities (``setVelocity``; an actuator without a position in this
        write is first put in velocity control with ``setPosition(inf)``, one with a position gets the
        velocity's magnitude as its speed limit), then efforts (``setTorque``/``setForce``, torque control).
        A transmission with a joint never commanded in that interface sends nothing for it (its actuator
        values would be NaN).
        """
        pending = self._pending
        positioned: frozenset[int] = frozenset()
        for channel in _CHANNELS:
            owners = pending[channel]
            if not owners:
                continue
            given = self._given[channel]
            rows = [k for t in sorted(owners) if all(given[j] for j in self._t_joints[t])
                    for k in self._t_actuators[t]]
            owners.clear()
            if not rows:
                continue
            values = self._j2a[channel].dot(self._commands[channel]).tolist()  # all transmissions at once
            if channel == POSITION:
                setter = self._set_position
                for k in rows:
                    setter[k](values[k])
                positioned = frozenset(rows)
            elif channel == VELOCITY:
                set_position, set_velocity = self._set_position, self._set_velocity
                for k in rows:
                    if k in positioned:
                        set_velocity[k](abs(values[k]))  # a speed limit in position control
                    else:
                        set_position[k](math.inf)
                        set_velocity[k](values[k])
            else:
                setter = self._set_torque
                for k in rows:
                    setter[k](values[k])

    def commands(self, interface: str) -> np.ndarray:
        """The joint-space commands last given for ``interface`` (NaN where never given), joint_names order."""
        channel = _CHANNEL.get(interface)
        if channel is None or interface == ABSOLUTE_POSITION:
            raise TransmissionError(
                f"Unknown command interface {interface!r}; valid interfaces are {_quoted(COMMAND_INTERFACES)}."
            )
        values = self._commands[channel][:-1].copy()
        values[~np.array(self._given[channel], dtype=bool)] = np.nan
        return values

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
    """The robot's joint names as Webots' URDF export names them: the joint's motor, else its position sensor."""
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
            (ms); default the robot's basic time step. Sensors needed by the declared state interfaces are
            enabled now (position sensors for ``position``/``velocity``/``absolute_position``, force
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
                    f"{where}: joint '{joint.name}' is not a joint of robot '{robot_name}'; its joints (named "
                    f"after their motor, else their position sensor) are {_quoted(sorted(known_joints))}."
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
                            f"{where}: joint '{joint.name}' declares the {kind} interface '{interface}', which "
                            f"a motor cannot serve through a transmission; valid {kind} interfaces are "
                            f"{_quoted(valid)}."
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
        for motor in item_motors:
            if (POSITION in declared_states or VELOCITY in declared_states) and motor.getPositionSensor() is None:
                with_sensor = sorted(n for n, m in motor_devices.items() if m.getPositionSensor() is not None)
                raise TransmissionError(
                    f"{where}: actuator '{motor.getName()}' has no PositionSensor in its joint, needed for the "
                    f"joints' position or velocity state; motors with a position sensor are "
                    f"{_quoted(with_sensor)}."
                )
            if EFFORT in declared_states:
                problem = _feedback_problem(motor)
                if problem:
                    raise TransmissionError(
                        f"{where}: actuator '{motor.getName()}' cannot give the force feedback needed for the "
                        f"joints' effort state: {problem}."
                    )
    period = int(robot.getBasicTimeStep()) if sampling_period_ms is None else sampling_period_ms
    if isinstance(period, bool) or not isinstance(period, int) or period <= 0:
        raise TransmissionError(f"sampling_period_ms must be a positive integer (ms), got {sampling_period_ms!r}.")
    for motor in motors:
        sensor = motor.getPositionSensor()
        if sensor is not None:
            sensor.enable(period)
        if not _feedback_problem(motor):
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
