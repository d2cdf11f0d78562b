"""The abstract transmission: handle plumbing, the functional API, linear maps and the power check.

Every concrete transmission provides, for each interface and each direction, one *formula*: a pure vectorised
function from an array of shape ``(..., n_in)`` to a new array of shape ``(..., n_out)`` (the last axis
indexes actuators or joints). Everything else is derived from these formulas, so nothing can drift from them:

- the functional API (:meth:`Transmission.actuator_to_joint_values` and
  :meth:`Transmission.joint_to_actuator_values`) calls them on whole batches;
- the handle API (:meth:`Transmission.actuator_to_joint`, :meth:`Transmission.joint_to_actuator`) gathers the
  configured handles' values into a small array, calls the same formula and writes the result back;
- :meth:`Transmission.actuator_to_joint_linear_map` and friends apply them to basis vectors;
- :meth:`Transmission.is_power_conserving` compares the matrices so obtained.
"""

from __future__ import annotations

import math
import numbers
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import ClassVar, TypeVar

import numpy as np
import numpy.typing as npt

from wbsim.errors import TransmissionError
from wbsim.transmission.handle import (
    ActuatorHandle,
    Handle,
    JointHandle,
    get_names,
    get_ordered_handles,
    to_string,
)
from wbsim.transmission.interfaces import (
    ACTUATOR_TO_JOINT_ONLY,
    ALL_INTERFACES,
    EFFORT,
    EFFORT_LIKE,
    POSITION,
    VELOCITY,
    interface_label,
)

__all__ = ["Formula", "Transmission"]

#: A map of one interface in one direction: array (..., n_in) -> new array (..., n_out), float64.
Formula = Callable[[np.ndarray], np.ndarray]

H = TypeVar("H", bound=Handle)

# (formula, handles read, handles written) for one interface, fixed at configure() time.
_Step = tuple[Formula, tuple[Handle, ...], tuple[Handle, ...]]


def _stack2(first: np.ndarray, second: np.ndarray, template: np.ndarray) -> np.ndarray:
    """Return a new array of shape ``template.shape[:-1] + (2,)`` with ``first``, ``second`` on the last axis.

    Cheaper than ``np.stack`` for both single robots (about half the overhead) and large batches (one pass).
    """
    out = np.empty(template.shape[:-1] + (2,), dtype=np.float64)
    out[..., 0] = first
    out[..., 1] = second
    return out


def _real(value: object, what: str) -> float:
    """Convert a parameter to float; TransmissionError for anything that is not a real number."""
    if isinstance(value, (str, bytes)):
        raise TransmissionError(f"{what} must be a real number, got {value!r}.")
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise TransmissionError(f"{what} must be a real number, got {value!r}.") from None


def _bound_names(names: Sequence[str] | None, count: int, kind: str) -> tuple[str, ...] | None:
    """Validate the optional ``joint_names`` / ``actuator_names`` constructor keyword."""
    if names is None:
        return None
    if isinstance(names, str) or not isinstance(names, Iterable):
        raise TransmissionError(f"{kind}_names must be a sequence of {count} distinct names, got {names!r}.")
    result = tuple(names)
    if len(result) != count or len(set(result)) != count or not all(isinstance(n, str) for n in result):
        raise TransmissionError(f"{kind}_names must be a sequence of {count} distinct names, got {names!r}.")
    return result


def _handle_list(handles: Iterable[Handle], cls: type[H], kind: str) -> list[H]:
    """Return ``handles`` as a list, checking that each one is a ``cls``."""
    if isinstance(handles, (str, bytes, Handle)) or not isinstance(handles, Iterable):
        raise TransmissionError(f"{kind}_handles must be a sequence of {cls.__name__}, got {handles!r}.")
    result = list(handles)
    for index, handle in enumerate(result):
        if not isinstance(handle, cls):
            raise TransmissionError(
                f"{kind}_handles[{index}] must be a {cls.__name__}, got {type(handle).__name__} {handle!r}."
            )
    return result


def _check_duplicates(handles: Sequence[Handle], interfaces: Iterable[str], kind: str) -> None:
    """Raise if two valid handles share a name and a supported interface (upstream keeps both silently)."""
    wanted = set(interfaces)
    seen: set[tuple[str, str]] = set()
    for handle in handles:
        if not handle or handle.get_interface_name() not in wanted:
            continue
        key = (handle.get_prefix_name(), handle.get_interface_name())
        if key in seen:
            raise TransmissionError(
                f"Duplicate {kind} handle '{handle.get_name()}': more than one valid handle was given for "
                f"one {kind} name and interface."
            )
        seen.add(key)


def _order_names(found: list[str], bound: tuple[str, ...] | None, kind: str) -> list[str]:
    """Return the name order of a group: sorted names (upstream) or the names bound at construction."""
    if bound is None:
        return found
    if set(found) != set(bound):
        raise TransmissionError(
            f"The {kind} handles are named {found} but this transmission's {kind} names are {list(bound)}."
        )
    return list(bound)


def _as_batch(values: npt.ArrayLike, count: int, kind: str) -> np.ndarray:
    """Return ``values`` as a float64 array of shape (..., count), or raise TransmissionError."""
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise TransmissionError(f"{kind} values must be an array of real numbers: {exc}") from None
    if array.dtype.kind not in "biuf":
        raise TransmissionError(f"{kind} values must be real numbers, got an array of dtype {array.dtype}.")
    if array.ndim == 0 or array.shape[-1] != count:
        raise TransmissionError(
            f"{kind} values must have shape (..., {count}) (last axis = {kind} index), "
            f"got shape {array.shape}."
        )
    return array.astype(np.float64, copy=False)


def _run(plan: tuple[_Step, ...]) -> None:
    """Execute a handle plan: for each interface in order, read, map with the shared formula, write back."""
    for formula, sources, targets in plan:
        result = formula(np.array([h.get_value() for h in sources], dtype=np.float64))
        for handle, value in zip(targets, result.tolist(), strict=True):
            handle.set_value(value)


def _affine(formula: Formula, n_in: int) -> tuple[np.ndarray, np.ndarray]:
    """Extract (M, b) with ``formula(x) == M @ x + b`` by evaluating the formula at 0 and at basis vectors."""
    b = formula(np.zeros(n_in))
    m = (formula(np.eye(n_in)) - b).T
    return m, b


def _close(x: np.ndarray, y: np.ndarray, rtol: float) -> bool:
    """Elementwise relative comparison; exact zeros must match exactly (no absolute tolerance on purpose)."""
    return bool(np.all(np.abs(x - y) <= rtol * np.maximum(np.abs(x), np.abs(y))))


def _check_effort_like(interface: object, caller: str) -> None:
    """Raise unless ``interface`` is mapped with the effort formula (effort, torque, force)."""
    if not (isinstance(interface, str) and interface in EFFORT_LIKE):
        raise TransmissionError(
            f"{caller}() takes an effort-like interface ({', '.join(EFFORT_LIKE)}), got {interface!r}."
        )


def _upstream_vector(values: np.ndarray) -> float | list[float]:
    """Shape a vector like upstream getters: a float for one element, a list of floats otherwise."""
    items = [float(v) for v in values]
    return items[0] if len(items) == 1 else items


class Transmission(ABC):
    """Abstract map between actuator space (motors, encoders) and joint space (what controllers command).

    Two APIs share one set of formulas:

    - the handle API of ros2_control: :meth:`configure` with lists of :class:`JointHandle` and
      :class:`ActuatorHandle`, then :meth:`actuator_to_joint` / :meth:`joint_to_actuator` read and write them;
    - the functional API: :meth:`actuator_to_joint_values` / :meth:`joint_to_actuator_values` map arrays of
      shape ``(..., n)`` (any number of robots at once) and need no :meth:`configure`.

    Units are those of the interface (rad or m, rad/s or m/s, N m or N); reductions are dimensionless ratios.

    Args:
        joint_names: optional names binding joint index 0, 1, ... to handle prefix names. When given,
            :meth:`configure` orders joints by these names instead of byte-wise sorted names, and requires the
            handle names to be exactly these names.
        actuator_names: the same for actuators.

    Subclasses set their parameters, then call ``super().__init__`` which calls :meth:`_build_formulas`.
    """

    _NUM_ACTUATORS: ClassVar[int]
    _NUM_JOINTS: ClassVar[int]

    def __init__(
        self,
        *,
        joint_names: Sequence[str] | None = None,
        actuator_names: Sequence[str] | None = None,
    ) -> None:
        self._joint_names = _bound_names(joint_names, self._NUM_JOINTS, "joint")
        self._actuator_names = _bound_names(actuator_names, self._NUM_ACTUATORS, "actuator")
        a2j, j2a = self._build_formulas()
        self._a2j: dict[str, Formula] = dict(a2j)
        self._j2a: dict[str, Formula] = dict(j2a)
        self._a2j_plan: tuple[_Step, ...] | None = None
        self._j2a_plan: tuple[_Step, ...] | None = None

    # ----------------------------------------------------------------------------------- subclass hooks

    @abstractmethod
    def _build_formulas(self) -> tuple[Mapping[str, Formula], Mapping[str, Formula]]:
        """Return the (actuator_to_joint, joint_to_actuator) formulas, in upstream's evaluation order."""

    @abstractmethod
    def _pair_handles(
        self, joints: list[JointHandle], actuators: list[ActuatorHandle]
    ) -> dict[str, tuple[tuple[JointHandle, ...], tuple[ActuatorHandle, ...]]]:
        """Apply the configure rules; return {interface: (joint group, actuator group)} for complete pairs."""

    # ----------------------------------------------------------------------------------- upstream API

    def num_actuators(self) -> int:
        """Return the number of actuators."""
        return self._NUM_ACTUATORS

    def num_joints(self) -> int:
        """Return the number of joints."""
        return self._NUM_JOINTS

    def get_supported_joint_interfaces(self) -> list[str]:
        """Return the joint interfaces this transmission maps, in canonical order."""
        return [i for i in ALL_INTERFACES if i in self._a2j]

    def get_supported_actuator_interfaces(self) -> list[str]:
        """Return the actuator interfaces this transmission maps, in canonical order."""
        return [i for i in ALL_INTERFACES if i in self._a2j]

    def configure(
        self, joint_handles: Sequence[JointHandle], actuator_handles: Sequence[ActuatorHandle]
    ) -> None:
        """Bind handles for the handle API; may be called again to rebind.

        Handles whose interface is not supported are ignored. On error nothing changes: a previous successful
        configuration stays in effect.

        Raises:
            TransmissionError: with upstream's message for upstream's failure cases, and for our stricter
                checks (wrong handle types, duplicate valid handles, names not matching ``joint_names`` /
                ``actuator_names``).
        """
        joints = _handle_list(joint_handles, JointHandle, "joint")
        actuators = _handle_list(actuator_handles, ActuatorHandle, "actuator")
        if not joints:
            raise TransmissionError("No joint handles were passed in")
        if not actuators:
            raise TransmissionError("No actuator handles were passed in")
        pairs = self._pair_handles(joints, actuators)
        self._a2j_plan = tuple((f, pairs[i][1], pairs[i][0]) for i, f in self._a2j.items() if i in pairs)
        self._j2a_plan = tuple((f, pairs[i][0], pairs[i][1]) for i, f in self._j2a.items() if i in pairs)

    def actuator_to_joint(self) -> None:
        """Map the configured actuator handles' values to the joint handles, interface by interface.

        Only interfaces with a complete joint group and a complete actuator group are mapped.

        Raises:
            TransmissionError: if :meth:`configure` has not succeeded yet (upstream silently does nothing).
        """
        if self._a2j_plan is None:
            raise TransmissionError(f"{type(self).__name__}.actuator_to_joint() called before configure().")
        _run(self._a2j_plan)

    def joint_to_actuator(self) -> None:
        """Map the configured joint handles' values to the actuator handles (``absolute_position`` excepted).

        Raises:
            TransmissionError: if :meth:`configure` has not succeeded yet.
        """
        if self._j2a_plan is None:
            raise TransmissionError(f"{type(self).__name__}.joint_to_actuator() called before configure().")
        _run(self._j2a_plan)

    def get_joint_position_offset(self) -> float | list[float]:
        """Return the joint positions when every actuator position is 0 (i.e. the joint offsets).

        Upstream declares this virtual (default 0.0) but never overrides it; here it is derived from the
        position formula. A float for a one-joint transmission, a list of floats otherwise.
        """
        return _upstream_vector(self.joint_position_offset())

    def get_actuator_position_offset(self) -> float | list[float]:
        """Return the actuator positions that put every joint at position 0 (float or list, as above)."""
        return _upstream_vector(self.actuator_position_offset())

    # ----------------------------------------------------------------------------------- our additions

    @property
    def joint_names(self) -> tuple[str, ...] | None:
        """The joint names bound at construction (index order), or None for upstream's sorted-name order."""
        return self._joint_names

    @property
    def actuator_names(self) -> tuple[str, ...] | None:
        """The actuator names bound at construction (index order), or None for upstream's sorted order."""
        return self._actuator_names

    @property
    def is_configured(self) -> bool:
        """True once :meth:`configure` has succeeded."""
        return self._a2j_plan is not None

    def _formula(self, table: Mapping[str, Formula], interface: str, caller: str) -> Formula:
        """Look up a formula, with a clear error for unknown or one-way interfaces."""
        formula = table.get(interface) if isinstance(interface, str) else None
        if formula is not None:
            return formula
        if interface in ACTUATOR_TO_JOINT_ONLY and interface in self._a2j:
            raise TransmissionError(
                f"'{interface}' maps actuator to joint only; {caller}() does not accept it."
            )
        raise TransmissionError(
            f"Unknown interface {interface!r} for {caller}() of {type(self).__name__}; "
            f"supported interfaces are {', '.join(i for i in ALL_INTERFACES if i in table)}."
        )

    def actuator_to_joint_values(self, interface: str, values: npt.ArrayLike) -> np.ndarray:
        """Map actuator values to joint values for any number of robots at once.

        Args:
            interface: one of :meth:`get_supported_joint_interfaces`.
            values: array-like of shape ``(..., num_actuators())``, the last axis indexing actuators.

        Returns:
            A new float64 array of shape ``(..., num_joints())``.

        Raises:
            TransmissionError: for an unknown interface or a wrong last-axis length.
        """
        formula = self._formula(self._a2j, interface, "actuator_to_joint_values")
        return formula(_as_batch(values, self._NUM_ACTUATORS, "actuator"))

    def joint_to_actuator_values(self, interface: str, values: npt.ArrayLike) -> np.ndarray:
        """Map joint values to actuator values for any number of robots at once.

        Args:
            interface: a supported interface other than ``absolute_position``.
            values: array-like of shape ``(..., num_joints())``, the last axis indexing joints.

        Returns:
            A new float64 array of shape ``(..., num_actuators())``.

        Raises:
            TransmissionError: for an unknown interface, ``absolute_position`` or a wrong last-axis length.
        """
        formula = self._formula(self._j2a, interface, "joint_to_actuator_values")
        return formula(_as_batch(values, self._NUM_JOINTS, "joint"))

    def actuator_to_joint_linear_map(self, interface: str) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(M, b)`` such that ``joint = M @ actuator + b`` for ``interface``.

        ``M`` has shape (num_joints, num_actuators) and ``b`` shape (num_joints,); ``b`` is zero except for
        position-like interfaces, where it holds the joint offsets.
        """
        return _affine(
            self._formula(self._a2j, interface, "actuator_to_joint_linear_map"), self._NUM_ACTUATORS
        )

    def joint_to_actuator_linear_map(self, interface: str) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(M, b)`` such that ``actuator = M @ joint + b``; M (num_actuators, num_joints)."""
        return _affine(self._formula(self._j2a, interface, "joint_to_actuator_linear_map"), self._NUM_JOINTS)

    def actuator_from_joint_velocity_matrix(self) -> np.ndarray:
        """Return J, shape (num_actuators, num_joints), with ``v_actuator = J @ v_joint``."""
        return self.joint_to_actuator_linear_map(VELOCITY)[0]

    def joint_from_actuator_velocity_matrix(self) -> np.ndarray:
        """Return K, shape (num_joints, num_actuators), with ``v_joint = K @ v_actuator`` (K = J^-1)."""
        return self.actuator_to_joint_linear_map(VELOCITY)[0]

    def joint_from_actuator_effort_matrix(self, interface: str = EFFORT) -> np.ndarray:
        """Return E, shape (num_joints, num_actuators), with ``tau_joint = E @ tau_actuator``.

        Args:
            interface: an effort-like interface: ``effort``, ``torque`` or ``force``.

        Raises:
            TransmissionError: for any other interface.
        """
        _check_effort_like(interface, "joint_from_actuator_effort_matrix")
        return self.actuator_to_joint_linear_map(interface)[0]

    def actuator_from_joint_effort_matrix(self, interface: str = EFFORT) -> np.ndarray:
        """Return F, shape (num_actuators, num_joints), with ``tau_actuator = F @ tau_joint``.

        Args:
            interface: ``effort``, ``torque`` or ``force``.

        Raises:
            TransmissionError: for any other interface.
        """
        _check_effort_like(interface, "actuator_from_joint_effort_matrix")
        return self.joint_to_actuator_linear_map(interface)[0]

    def joint_position_offset(self) -> np.ndarray:
        """Return the joint positions (shape (num_joints,)) when all actuator positions are 0."""
        return self.actuator_to_joint_linear_map(POSITION)[1]

    def actuator_position_offset(self) -> np.ndarray:
        """Return the actuator positions (shape (num_actuators,)) that put all joints at position 0."""
        return self.joint_to_actuator_linear_map(POSITION)[1]

    def is_power_conserving(self, rtol: float = 1e-9) -> bool:
        """Return True iff both directions of every effort-like map conserve power.

        With ``v_a = J v_j`` (J from the joint->actuator velocity formula) and ``v_j = K v_a`` (K from the
        actuator->joint one), power ``v·tau`` is the same on both sides iff ``tau_j = J^T tau_a`` and
        ``tau_a = K^T tau_j``. The matrices are extracted from the formulas and compared elementwise with
        relative tolerance ``rtol`` (exact zeros must match exactly).
        """
        if isinstance(rtol, bool) or not isinstance(rtol, numbers.Real) or not (
            rtol >= 0.0 and math.isfinite(rtol)
        ):
            raise TransmissionError(f"rtol must be a finite non-negative number, got {rtol!r}.")
        j_mat = self.actuator_from_joint_velocity_matrix()
        k_mat = self.joint_from_actuator_velocity_matrix()
        for interface in EFFORT_LIKE:
            if interface not in self._a2j:
                continue
            e_mat = self.joint_from_actuator_effort_matrix(interface)
            f_mat = self.actuator_from_joint_effort_matrix(interface)
            if not (_close(e_mat, j_mat.T, rtol) and _close(f_mat, k_mat.T, rtol)):
                return False
        return True


def _format_handles_info(
    interfaces: Sequence[str], groups: Mapping[str, tuple[Sequence[Handle], Sequence[Handle]]]
) -> str:
    """Format upstream's ``get_handles_info()`` text (no trailing newline) from per-interface groups."""
    lines = ["Got the following handles:"]
    for interface in interfaces:
        joint_group, actuator_group = groups.get(interface, ((), ()))
        label = interface_label(interface)
        lines.append(
            f"Joint {label}: {to_string(get_names(joint_group))}, "
            f"Actuator {label}: {to_string(get_names(actuator_group))}"
        )
    return "\n".join(lines)


def _pair_vector(values: Sequence[float], what: str) -> tuple[float, float]:
    """Convert a 2-element parameter vector (size already checked) to floats."""
    first, second = (_real(v, f"Each element of {what}") for v in values)
    return first, second


class _PairTransmission(Transmission):
    """Shared parameters, getters and configure rules of the two-actuator, two-joint transmissions.

    Configure follows upstream's :class:`DifferentialTransmission` (master, after PRs #2682 and #2812); see
    :meth:`configure`.
    """

    _NUM_ACTUATORS = 2
    _NUM_JOINTS = 2

    def __init__(
        self,
        actuator_reduction: Sequence[float],
        joint_reduction: Sequence[float],
        joint_offset: Sequence[float] = (0.0, 0.0),
        *,
        joint_names: Sequence[str] | None = None,
        actuator_names: Sequence[str] | None = None,
    ) -> None:
        for vector in (actuator_reduction, joint_reduction, joint_offset):
            try:
                size = len(vector)
            except TypeError:
                size = -1
            if size != 2 or isinstance(vector, (str, bytes)):
                raise TransmissionError("Reduction and offset vectors must have size 2.")
        ar = _pair_vector(actuator_reduction, "actuator_reduction")
        jr = _pair_vector(joint_reduction, "joint_reduction")
        off = _pair_vector(joint_offset, "joint_offset")
        if 0.0 in ar or 0.0 in jr:
            raise TransmissionError("Transmission reduction ratios cannot be zero.")
        if not all(math.isfinite(v) for v in (*ar, *jr)):
            raise TransmissionError(
                f"Transmission reduction ratios must be finite, got actuator_reduction={list(ar)}, "
                f"joint_reduction={list(jr)}."
            )
        if not all(math.isfinite(v) for v in off):
            raise TransmissionError(
                f"Transmission joint offsets must be finite, got joint_offset={list(off)}."
            )
        self._ar = ar
        self._jr = jr
        self._off = off
        self._off_array = np.array(off, dtype=np.float64)
        self._info_groups: dict[str, tuple[tuple[Handle, ...], tuple[Handle, ...]]] = {}
        super().__init__(joint_names=joint_names, actuator_names=actuator_names)

    def get_actuator_reduction(self) -> list[float]:
        """Return the actuator reductions [n_a1, n_a2] (index order = configured actuator order)."""
        return list(self._ar)

    def get_joint_reduction(self) -> list[float]:
        """Return the joint reductions [n_j1, n_j2]."""
        return list(self._jr)

    def get_joint_offset(self) -> list[float]:
        """Return the joint position offsets [off_j1, off_j2] (rad or m)."""
        return list(self._off)

    def get_handles_info(self) -> str:
        """Return upstream's multi-line summary of the handle names per interface.

        It describes the groups of the last successful :meth:`configure` (all empty before one). Unlike
        upstream, configure error messages embed the info of the *current* call for both joints and
        actuators (upstream shows the previous call's actuator groups in joint errors).
        """
        return _format_handles_info(self.get_supported_joint_interfaces(), self._info_groups)

    def _pair_handles(
        self, joints: list[JointHandle], actuators: list[ActuatorHandle]
    ) -> dict[str, tuple[tuple[JointHandle, ...], tuple[ActuatorHandle, ...]]]:
        """Upstream differential rules, plus duplicate and bound-name checks; see :meth:`configure`."""
        joint_names = get_names(joints)
        if len(joint_names) != 2:
            raise TransmissionError(
                f"There should be exactly two unique joint names but was given '{to_string(joint_names)}'."
            )
        actuator_names = get_names(actuators)
        if len(actuator_names) != 2:
            raise TransmissionError(
                "There should be exactly two unique actuator names but was given "
                f"'{to_string(actuator_names)}'."
            )
        joint_order = _order_names(joint_names, self._joint_names, "joint")
        actuator_order = _order_names(actuator_names, self._actuator_names, "actuator")
        interfaces = self.get_supported_joint_interfaces()
        groups = {
            i: (
                tuple(get_ordered_handles(joints, joint_order, i)),
                tuple(get_ordered_handles(actuators, actuator_order, i)),
            )
            for i in interfaces
        }
        # Current info for both sides (upstream prints stale actuator groups in joint errors).
        info = _format_handles_info(interfaces, groups)
        for side, kind in ((0, "joint"), (1, "actuator")):
            for interface in interfaces:
                group = groups[interface][side]
                if group and len(group) != 2:
                    raise TransmissionError(
                        f"Not enough valid or required {kind} {interface_label(interface)} handles were "
                        f"present. \n{info}"
                    )
        # Upstream's "Pair-wise mismatch" check cannot fire once every non-empty group has size 2; omitted.
        pairs = {i: g for i, g in groups.items() if len(g[0]) == 2 and len(g[1]) == 2}
        if not pairs:
            raise TransmissionError(
                f"No pair-wise interface available between joints and actuators. \n{info}"
            )
        # Ours, after upstream's checks so that every configuration upstream's differential refuses keeps
        # upstream's message: duplicates upstream accepts (e.g. two valid joint1 handles and an invalid
        # joint2 handle form a "complete" group that maps joint1 twice) are refused here.
        _check_duplicates(joints, interfaces, "joint")
        _check_duplicates(actuators, interfaces, "actuator")
        self._info_groups = groups
        return pairs

    def configure(
        self, joint_handles: Sequence[JointHandle], actuator_handles: Sequence[ActuatorHandle]
    ) -> None:
        """Bind two joints and two actuators (see :meth:`Transmission.configure`).

        Rules, in order (upstream messages verbatim):

        1. empty lists: ``No joint handles were passed in`` / ``No actuator handles were passed in``;
        2. exactly two distinct joint names, then actuator names (invalid handles and unsupported interfaces
           count): ``There should be exactly two unique joint names but was given '[joint1] '.``;
        3. (ours) if ``joint_names`` / ``actuator_names`` were given, the handle names must be exactly those;
        4. per interface, a non-empty group of valid handles must have exactly 2 handles, joints first:
           ``Not enough valid or required joint position handles were present. \\n<handles info>``;
        5. at least one interface must have both groups complete:
           ``No pair-wise interface available between joints and actuators. \\n<handles info>``;
        6. (ours) no two valid handles with one name and one supported interface (checked last, so that
           configurations upstream's differential refuses keep upstream's message).

        Index 0 of each group is the byte-wise smaller name, or the first bound name.
        """
        super().configure(joint_handles, actuator_handles)

    def __repr__(self) -> str:
        names = ""
        if self._joint_names is not None:
            names += f", joint_names={list(self._joint_names)}"
        if self._actuator_names is not None:
            names += f", actuator_names={list(self._actuator_names)}"
        return (
            f"{type(self).__name__}(actuator_reduction={list(self._ar)}, joint_reduction={list(self._jr)}, "
            f"joint_offset={list(self._off)}{self._repr_extra()}{names})"
        )

    def _repr_extra(self) -> str:
        """Extra constructor arguments for ``repr`` (subclass hook)."""
        return ""
