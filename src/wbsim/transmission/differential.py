"""Two actuators driving two joints through a differential (e.g. a bevel-gear wrist: pitch and roll).

Notation: a0, a1 actuator values; j0, j1 joint values; ar = (ar0, ar1) actuator reductions, jr = (jr0, jr1)
joint reductions, off = (off0, off1) joint offsets; d_k = j_k - off_k. Index 0/1 is the configured order
(byte-wise sorted names, or the names bound at construction). Arrays have shape (..., 2).

actuator -> joint
    velocity:            j0 = (a0/ar0 + a1/ar1) / (2 jr0);        j1 = (a0/ar0 - a1/ar1) / (2 jr1)
    position, absolute:  the velocity map + off
    effort/torque/force: j0 = jr0 (a0 ar0 + a1 ar1);               j1 = jr1 (a0 ar0 - a1 ar1)

joint -> actuator
    velocity:            a0 = (j0 jr0 + j1 jr1) ar0;               a1 = (j0 jr0 - j1 jr1) ar1
    position:            the velocity map applied to d = j - off
    effort/torque/force: a0 = (j0/jr0 + j1/jr1) / (2 ar0);         a1 = (j0/jr0 - j1/jr1) / (2 ar1)

These are upstream's coded formulas (the Doxygen table in upstream's header has typos in two denominators).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import numpy as np

from wbsim.transmission.base import Formula, _PairTransmission, _stack2
from wbsim.transmission.interfaces import (
    ABSOLUTE_POSITION,
    EFFORT,
    FORCE,
    POSITION,
    TORQUE,
    VELOCITY,
)

__all__ = ["DifferentialTransmission"]

Pair = tuple[float, float]


# --- the formulas: one implementation each, shared by the handle and functional APIs -----------------------


def _velocity_a2j(a: np.ndarray, ar: Pair, jr: Pair) -> np.ndarray:
    s0 = a[..., 0] / ar[0]
    s1 = a[..., 1] / ar[1]
    return _stack2((s0 + s1) / (2.0 * jr[0]), (s0 - s1) / (2.0 * jr[1]), a)


def _position_a2j(a: np.ndarray, ar: Pair, jr: Pair, off: np.ndarray) -> np.ndarray:
    return _velocity_a2j(a, ar, jr) + off


def _effort_a2j(a: np.ndarray, ar: Pair, jr: Pair) -> np.ndarray:
    t0 = a[..., 0] * ar[0]
    t1 = a[..., 1] * ar[1]
    return _stack2(jr[0] * (t0 + t1), jr[1] * (t0 - t1), a)


def _velocity_j2a(j: np.ndarray, ar: Pair, jr: Pair) -> np.ndarray:
    u0 = j[..., 0] * jr[0]
    u1 = j[..., 1] * jr[1]
    return _stack2((u0 + u1) * ar[0], (u0 - u1) * ar[1], j)


def _position_j2a(j: np.ndarray, ar: Pair, jr: Pair, off: np.ndarray) -> np.ndarray:
    return _velocity_j2a(j - off, ar, jr)


def _effort_j2a(j: np.ndarray, ar: Pair, jr: Pair) -> np.ndarray:
    w0 = j[..., 0] / jr[0]
    w1 = j[..., 1] / jr[1]
    return _stack2((w0 + w1) / (2.0 * ar[0]), (w0 - w1) / (2.0 * ar[1]), j)


class DifferentialTransmission(_PairTransmission):
    """A two-actuator, two-joint differential (upstream ``transmission_interface::DifferentialTransmission``).

    Args:
        actuator_reduction: (n_a1, n_a2), dimensionless, non-zero and finite.
        joint_reduction: (n_j1, n_j2), dimensionless, non-zero and finite.
        joint_offset: (off_j1, off_j2) joint position offsets (rad or m), finite.
        joint_names: optional (first, second) joint names: configure orders joints by them (index 0 = first)
            instead of byte-wise sorted names, and requires the handle names to be exactly these.
        actuator_names: the same for actuators.

    Raises:
        TransmissionError: ``Reduction and offset vectors must have size 2.`` or
            ``Transmission reduction ratios cannot be zero.`` (upstream, checked in that order), or for
            non-finite or non-numeric values (ours).

    Supported interfaces: position, velocity, effort, torque, force, absolute_position (actuator -> joint
    only). The map conserves power. The module docstring has the formulas, :meth:`configure` the rules.
    """

    def _build_formulas(self) -> tuple[Mapping[str, Formula], Mapping[str, Formula]]:
        ar, jr, off = self._ar, self._jr, self._off_array
        position_a2j = partial(_position_a2j, ar=ar, jr=jr, off=off)
        effort_a2j = partial(_effort_a2j, ar=ar, jr=jr)
        effort_j2a = partial(_effort_j2a, ar=ar, jr=jr)
        # Upstream evaluation order: position, velocity, effort, torque, force, absolute_position.
        a2j = {
            POSITION: position_a2j,
            VELOCITY: partial(_velocity_a2j, ar=ar, jr=jr),
            EFFORT: effort_a2j,
            TORQUE: effort_a2j,
            FORCE: effort_a2j,
            ABSOLUTE_POSITION: position_a2j,
        }
        j2a = {
            POSITION: partial(_position_j2a, ar=ar, jr=jr, off=off),
            VELOCITY: partial(_velocity_j2a, ar=ar, jr=jr),
            EFFORT: effort_j2a,
            TORQUE: effort_j2a,
            FORCE: effort_j2a,
        }
        return a2j, j2a
