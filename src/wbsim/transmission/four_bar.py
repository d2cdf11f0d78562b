"""Two actuators driving two serial joints, the second through a four-bar linkage.

Actuator 1 moves joint 1; actuator 2 moves joint 2 *relative to joint 1* (so joint 2 sees the difference of
the two actuator motions). Notation as in :mod:`wbsim.transmission.differential`; arrays have shape (..., 2).

actuator -> joint
    velocity:            j0 = a0 / (jr0 ar0);                   j1 = (a1/ar1 - a0/(jr0 ar0)) / jr1
    position, absolute:  the velocity map + off
    effort (default):    j0 = jr0 ar0 a0 + ar1 a1;              j1 = jr1 ar1 a1
    effort (legacy):     j0 = jr0 ar0 a0;                       j1 = jr1 (ar1 a1 - jr0 ar0 a0)

joint -> actuator
    velocity:            a0 = j0 jr0 ar0;                       a1 = (j0 + j1 jr1) ar1
    position:            the velocity map applied to d = j - off
    effort (default):    a0 = (j0 - j1/jr1) / (jr0 ar0);        a1 = j1 / (ar1 jr1)
    effort (legacy):     a0 = j0 / (ar0 jr0);                   a1 = (j0 + j1/jr1) / ar1

torque and force use the effort map. The default effort map is current ros2_control's (PR #1837), which
conserves power. The legacy map is the one before that fix, still printed in the ros2_control iron docs; with
c = jr0 ar0 / ar1 its power balance is ``P_joint - P_actuator = tau_a0 (v_a0 - c v_a1) - v_a0 tau_a1 / c``,
which no choice of reductions makes vanish for all motions (issue #1746).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Final, Literal

import numpy as np

from wbsim.errors import TransmissionError
from wbsim.transmission.base import Formula, _PairTransmission, _stack2
from wbsim.transmission.interfaces import (
    ABSOLUTE_POSITION,
    EFFORT,
    FORCE,
    POSITION,
    TORQUE,
    VELOCITY,
)

__all__ = ["FourBarLinkageTransmission", "EffortMap", "EFFORT_MAPS"]

EffortMap = Literal["power_conserving", "legacy"]

#: Valid values of the ``effort_map`` constructor keyword; the first is the default.
EFFORT_MAPS: Final[tuple[str, ...]] = ("power_conserving", "legacy")

Pair = tuple[float, float]


# --- the formulas: one implementation each, shared by the handle and functional APIs -----------------------


def _velocity_a2j(a: np.ndarray, ar: Pair, jr: Pair) -> np.ndarray:
    q0 = a[..., 0] / (jr[0] * ar[0])
    return _stack2(q0, (a[..., 1] / ar[1] - q0) / jr[1], a)


def _position_a2j(a: np.ndarray, ar: Pair, jr: Pair, off: np.ndarray) -> np.ndarray:
    return _velocity_a2j(a, ar, jr) + off


def _effort_a2j(a: np.ndarray, ar: Pair, jr: Pair) -> np.ndarray:
    t1 = a[..., 1] * ar[1]
    return _stack2(jr[0] * a[..., 0] * ar[0] + t1, jr[1] * t1, a)


def _legacy_effort_a2j(a: np.ndarray, ar: Pair, jr: Pair) -> np.ndarray:
    t0 = jr[0] * a[..., 0] * ar[0]
    return _stack2(t0, jr[1] * (a[..., 1] * ar[1] - t0), a)


def _velocity_j2a(j: np.ndarray, ar: Pair, jr: Pair) -> np.ndarray:
    j0 = j[..., 0]
    return _stack2(j0 * jr[0] * ar[0], (j0 + j[..., 1] * jr[1]) * ar[1], j)


def _position_j2a(j: np.ndarray, ar: Pair, jr: Pair, off: np.ndarray) -> np.ndarray:
    return _velocity_j2a(j - off, ar, jr)


def _effort_j2a(j: np.ndarray, ar: Pair, jr: Pair) -> np.ndarray:
    j1 = j[..., 1]
    return _stack2((j[..., 0] - j1 / jr[1]) / (jr[0] * ar[0]), j1 / (ar[1] * jr[1]), j)


def _legacy_effort_j2a(j: np.ndarray, ar: Pair, jr: Pair) -> np.ndarray:
    j0 = j[..., 0]
    return _stack2(j0 / (ar[0] * jr[0]), (j0 + j[..., 1] / jr[1]) / ar[1], j)


class FourBarLinkageTransmission(_PairTransmission):
    """A two-actuator, two-joint four-bar linkage (upstream ``FourBarLinkageTransmission``).

    Args:
        actuator_reduction: (n_a1, n_a2), dimensionless, non-zero and finite.
        joint_reduction: (n_j1, n_j2), dimensionless, non-zero and finite.
        joint_offset: (off_j1, off_j2) joint position offsets (rad or m), finite.
        effort_map: ``"power_conserving"`` (default) or ``"legacy"``.
        joint_names: optional (first, second) joint names binding index order (see
            :class:`~wbsim.transmission.DifferentialTransmission`).
        actuator_names: the same for actuators.

    Raises:
        TransmissionError: the differential's constructor messages, or an unknown ``effort_map``.

    **Effort map.** The default is current ros2_control's power-conserving map (PR #1837, fixing issue #1746):
    tau_j1 = n_j1 n_a1 tau_a1 + n_a2 tau_a2, tau_j2 = n_j2 n_a2 tau_a2. ``effort_map="legacy"`` selects the
    map ros2_control used before that fix and which its iron documentation still prints: tau_j1 = n_j1 n_a1
    tau_a1, tau_j2 = n_j2 (n_a2 tau_a2 - n_j1 n_a1 tau_a1), with its inverse. It is *not* the default because
    it does not conserve power: the joint-side power differs from the actuator-side power by
    ``tau_a1 (v_a1 - c v_a2) - v_a1 tau_a2 / c`` with c = n_j1 n_a1 / n_a2, so simulated joints would gain or
    lose energy. Use it only to reproduce results of older ros2_control releases.

    **Beyond upstream.** Upstream maps only position, velocity and effort; this class also maps torque and
    force (with the effort map) and absolute_position (actuator -> joint, with the position map). Its
    :meth:`configure` uses the differential's per-interface checks and messages, and raises when no interface
    pair matches (upstream's looser four-bar rules silently accept such configurations).
    """

    def __init__(
        self,
        actuator_reduction: Sequence[float],
        joint_reduction: Sequence[float],
        joint_offset: Sequence[float] = (0.0, 0.0),
        *,
        effort_map: EffortMap = "power_conserving",
        joint_names: Sequence[str] | None = None,
        actuator_names: Sequence[str] | None = None,
    ) -> None:
        if effort_map not in EFFORT_MAPS:
            raise TransmissionError(
                f"Unknown effort_map {effort_map!r}; valid values are {', '.join(map(repr, EFFORT_MAPS))}."
            )
        self._effort_map: EffortMap = effort_map
        super().__init__(
            actuator_reduction,
            joint_reduction,
            joint_offset,
            joint_names=joint_names,
            actuator_names=actuator_names,
        )

    @property
    def effort_map(self) -> EffortMap:
        """The effort map in use: ``"power_conserving"`` or ``"legacy"``."""
        return self._effort_map

    def _build_formulas(self) -> tuple[Mapping[str, Formula], Mapping[str, Formula]]:
        ar, jr, off = self._ar, self._jr, self._off_array
        legacy = self._effort_map == "legacy"
        position_a2j = partial(_position_a2j, ar=ar, jr=jr, off=off)
        effort_a2j = partial(_legacy_effort_a2j if legacy else _effort_a2j, ar=ar, jr=jr)
        effort_j2a = partial(_legacy_effort_j2a if legacy else _effort_j2a, ar=ar, jr=jr)
        # Upstream evaluation order: position, velocity, effort; our extra interfaces follow.
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

    def _repr_extra(self) -> str:
        return ", effort_map='legacy'" if self._effort_map == "legacy" else ""
