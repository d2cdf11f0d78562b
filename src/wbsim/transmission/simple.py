"""One actuator driving one joint through a gear or belt with reduction n and a joint position offset.

Formulas (n = reduction, off = joint offset; arrays of shape (..., 1)):

=================  ===================  ======================
interface          actuator -> joint    joint -> actuator
=================  ===================  ======================
position           j = a / n + off      a = (j - off) * n
velocity           j = a / n            a = j * n
effort/torque/
force              j = a * n            a = j / n
absolute_position  j = a / n + off      (not mapped)
=================  ===================  ======================
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import partial

import numpy as np

from wbsim.errors import TransmissionError
from wbsim.transmission.base import Formula, Transmission, _check_duplicates, _order_names, _real
from wbsim.transmission.handle import ActuatorHandle, JointHandle, get_names
from wbsim.transmission.interfaces import (
    ABSOLUTE_POSITION,
    ALL_INTERFACES,
    EFFORT,
    FORCE,
    POSITION,
    TORQUE,
    VELOCITY,
)

__all__ = ["SimpleTransmission"]


# --- the formulas: one implementation each, shared by the handle and functional APIs -----------------------


def _velocity_a2j(a: np.ndarray, n: float) -> np.ndarray:
    return a / n


def _position_a2j(a: np.ndarray, n: float, off: float) -> np.ndarray:
    return _velocity_a2j(a, n) + off


def _effort_a2j(a: np.ndarray, n: float) -> np.ndarray:
    return a * n


def _velocity_j2a(j: np.ndarray, n: float) -> np.ndarray:
    return j * n


def _position_j2a(j: np.ndarray, n: float, off: float) -> np.ndarray:
    return _velocity_j2a(j - off, n)


def _effort_j2a(j: np.ndarray, n: float) -> np.ndarray:
    return j / n


class SimpleTransmission(Transmission):
    """A one-actuator, one-joint transmission (upstream ``transmission_interface::SimpleTransmission``).

    Args:
        reduction: joint-to-actuator reduction n (dimensionless): the actuator turns n times per joint turn.
            Must be non-zero and finite.
        joint_offset: joint position offset (rad or m), added to the joint position; must be finite.
        joint_names: optional ``(name,)``: configure then requires the joint handles to carry this name.
        actuator_names: optional ``(name,)``, the same for actuator handles.

    Raises:
        TransmissionError: ``Transmission reduction ratio cannot be zero.`` (upstream), or for a non-finite or
            non-numeric reduction or offset (ours).

    Supported interfaces: position, velocity, effort, torque, force, absolute_position (actuator -> joint
    only). Arrays for the functional API have shape (..., 1).
    """

    _NUM_ACTUATORS = 1
    _NUM_JOINTS = 1

    def __init__(
        self,
        reduction: float,
        joint_offset: float = 0.0,
        *,
        joint_names: Sequence[str] | None = None,
        actuator_names: Sequence[str] | None = None,
    ) -> None:
        n = _real(reduction, "Transmission reduction ratio")
        off = _real(joint_offset, "Transmission joint offset")
        if n == 0.0:
            raise TransmissionError("Transmission reduction ratio cannot be zero.")
        if not math.isfinite(n):
            raise TransmissionError(f"Transmission reduction ratio must be finite, got {n!r}.")
        if not math.isfinite(off):
            raise TransmissionError(f"Transmission joint offset must be finite, got {off!r}.")
        self._reduction = n
        self._joint_offset = off
        super().__init__(joint_names=joint_names, actuator_names=actuator_names)

    def _build_formulas(self) -> tuple[Mapping[str, Formula], Mapping[str, Formula]]:
        n, off = self._reduction, self._joint_offset
        effort_a2j = partial(_effort_a2j, n=n)
        velocity_a2j = partial(_velocity_a2j, n=n)
        position_a2j = partial(_position_a2j, n=n, off=off)
        effort_j2a = partial(_effort_j2a, n=n)
        # Upstream evaluation order: effort, velocity, position, torque, force, absolute_position.
        a2j = {
            EFFORT: effort_a2j,
            VELOCITY: velocity_a2j,
            POSITION: position_a2j,
            TORQUE: effort_a2j,
            FORCE: effort_a2j,
            ABSOLUTE_POSITION: position_a2j,
        }
        j2a = {
            EFFORT: effort_j2a,
            VELOCITY: partial(_velocity_j2a, n=n),
            POSITION: partial(_position_j2a, n=n, off=off),
            TORQUE: effort_j2a,
            FORCE: effort_j2a,
        }
        return a2j, j2a

    def get_actuator_reduction(self) -> float:
        """Return the reduction n."""
        return self._reduction

    def get_joint_offset(self) -> float:
        """Return the joint position offset (rad or m)."""
        return self._joint_offset

    def configure(
        self, joint_handles: Sequence[JointHandle], actuator_handles: Sequence[ActuatorHandle]
    ) -> None:
        """Bind the joint's and the actuator's handles (see :meth:`Transmission.configure`).

        Rules, in order (upstream messages verbatim):

        1. empty lists: ``No joint handles were passed in`` / ``No actuator handles were passed in``;
        2. all joint handles share one name: ``Joint names given to transmissions should be identical``, then
           the same for actuators (``Actuator names given ...``);
        3. (ours) if ``joint_names`` / ``actuator_names`` were given, the handle names must be those;
        4. at least one valid joint handle of a supported interface:
           ``None of the provided joint handles are valid or from the required interfaces``, then the same for
           actuators;
        5. (ours) no two valid handles for one interface (upstream silently takes the first).

        Per interface the valid handle is used (upstream would take the first handle even if invalid). An
        interface is mapped only if both sides have a valid handle for it; unmatched interfaces are ignored.
        """
        super().configure(joint_handles, actuator_handles)

    def _pair_handles(
        self, joints: list[JointHandle], actuators: list[ActuatorHandle]
    ) -> dict[str, tuple[tuple[JointHandle, ...], tuple[ActuatorHandle, ...]]]:
        joint_names = get_names(joints)
        if len(joint_names) != 1:
            raise TransmissionError("Joint names given to transmissions should be identical")
        actuator_names = get_names(actuators)
        if len(actuator_names) != 1:
            raise TransmissionError("Actuator names given to transmissions should be identical")
        _order_names(joint_names, self._joint_names, "joint")
        _order_names(actuator_names, self._actuator_names, "actuator")
        joint_picks = {
            h.get_interface_name(): h for h in joints if h and h.get_interface_name() in ALL_INTERFACES
        }
        if not joint_picks:
            raise TransmissionError(
                "None of the provided joint handles are valid or from the required interfaces"
            )
        actuator_picks = {
            h.get_interface_name(): h for h in actuators if h and h.get_interface_name() in ALL_INTERFACES
        }
        if not actuator_picks:
            raise TransmissionError(
                "None of the provided actuator handles are valid or from the required interfaces"
            )
        # Ours, after upstream's checks so that configurations upstream refuses keep upstream's message.
        _check_duplicates(joints, ALL_INTERFACES, "joint")
        _check_duplicates(actuators, ALL_INTERFACES, "actuator")
        return {
            i: ((joint_picks[i],), (actuator_picks[i],))
            for i in ALL_INTERFACES
            if i in joint_picks and i in actuator_picks
        }

    def __repr__(self) -> str:
        names = ""
        if self._joint_names is not None:
            names += f", joint_names={list(self._joint_names)}"
        if self._actuator_names is not None:
            names += f", actuator_names={list(self._actuator_names)}"
        return (
            f"SimpleTransmission(reduction={self._reduction!r}, joint_offset={self._joint_offset!r}{names})"
        )
