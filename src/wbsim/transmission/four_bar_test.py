"""Tests for FourBarLinkageTransmission: upstream's four_bar_linkage_transmission_test.cpp, legacy map.

Constructor preconditions, accessors, every configure failure case and the black-box identity map are shared
with the differential and live in ``differential_test.py`` (parametrised over both classes).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings

from wbsim.errors import TransmissionError
from wbsim.transmission.conftest import TINY, four_bar_transmissions, legacy_four_bar_transmissions, vectors
from wbsim.transmission.four_bar import EFFORT_MAPS, FourBarLinkageTransmission
from wbsim.transmission.handle import ActuatorHandle, JointHandle

EPS = 1e-5


def a2j_via_handles(
    trans: FourBarLinkageTransmission, interface: str, a_values: Sequence[float]
) -> list[float]:
    a = [ActuatorHandle("act1", interface, a_values[0]), ActuatorHandle("act2", interface, a_values[1])]
    j = [JointHandle("joint1", interface), JointHandle("joint2", interface)]
    trans.configure(j, a)
    trans.actuator_to_joint()
    return [j[0].get_value(), j[1].get_value()]


# --- WhiteBoxTest -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("interface", "expected"),
    [
        ("effort", [0.0, 0.0]),
        ("velocity", [0.0, 0.0]),
        ("position", [1.0, 1.0]),
        ("torque", [0.0, 0.0]),
        ("force", [0.0, 0.0]),
        ("absolute_position", [1.0, 1.0]),
    ],
)
@pytest.mark.parametrize("effort_map", EFFORT_MAPS)
def test_dont_move_joints(interface: str, expected: list[float], effort_map: str) -> None:
    trans = FourBarLinkageTransmission([10.0, 10.0], [2.0, 2.0], [1.0, 1.0], effort_map=effort_map)  # type: ignore[arg-type]
    assert a2j_via_handles(trans, interface, [0.0, 0.0]) == pytest.approx(expected, abs=EPS)


@pytest.mark.parametrize(
    ("interface", "a_values", "expected"),
    [
        # MoveFirstJointOnly
        ("effort", [5.0, 10.0], [200.0, 200.0]),
        ("torque", [5.0, 10.0], [200.0, 200.0]),
        ("force", [5.0, 10.0], [200.0, 200.0]),
        ("velocity", [10.0, 5.0], [0.5, 0.0]),
        ("position", [10.0, 5.0], [0.5, 0.0]),
        ("absolute_position", [10.0, 5.0], [0.5, 0.0]),
        # MoveSecondJointOnly
        ("effort", [0.0, 10.0], [100.0, 200.0]),
        ("velocity", [0.0, 10.0], [0.0, 0.5]),
        ("position", [0.0, 10.0], [0.0, 0.5]),
    ],
)
def test_move_joints_power_conserving(interface: str, a_values: list[float], expected: list[float]) -> None:
    trans = FourBarLinkageTransmission([10.0, 10.0], [2.0, 2.0])
    assert a2j_via_handles(trans, interface, a_values) == pytest.approx(expected, abs=EPS)


@pytest.mark.parametrize(
    ("a_values", "expected"),
    [([5.0, 10.0], [100.0, 0.0]), ([0.0, 10.0], [0.0, 200.0])],  # upstream's expectations before PR #1837
)
def test_move_joints_legacy_effort(a_values: list[float], expected: list[float]) -> None:
    trans = FourBarLinkageTransmission([10.0, 10.0], [2.0, 2.0], effort_map="legacy")
    assert a2j_via_handles(trans, "effort", a_values) == pytest.approx(expected, abs=EPS)
    assert a2j_via_handles(trans, "torque", a_values) == pytest.approx(expected, abs=EPS)


def test_unit_ratio_effort_map_matches_issue_1746() -> None:
    # Issue #1746: for unit ratios the correct map is tau_j1 = tau_a1 + tau_a2, tau_j2 = tau_a2.
    trans = FourBarLinkageTransmission([1.0, 1.0], [1.0, 1.0])
    assert trans.actuator_to_joint_values("effort", [3.0, 4.0]).tolist() == [7.0, 4.0]


# --- Formulas -----------------------------------------------------------------------------------------------

AR, JR, OFF = (3.0, -5.0), (7.0, 0.5), (0.25, -2.0)


def test_formulas_match_upstream_code() -> None:
    trans = FourBarLinkageTransmission(AR, JR, OFF)
    a0, a1 = 1.5, -4.0
    assert trans.actuator_to_joint_values("position", [a0, a1]) == pytest.approx(
        [a0 / (JR[0] * AR[0]) + OFF[0], (a1 / AR[1] - a0 / (JR[0] * AR[0])) / JR[1] + OFF[1]]
    )
    assert trans.actuator_to_joint_values("effort", [a0, a1]) == pytest.approx(
        [JR[0] * a0 * AR[0] + a1 * AR[1], JR[1] * a1 * AR[1]]
    )
    j0, j1 = 0.75, 3.0
    d0, d1 = j0 - OFF[0], j1 - OFF[1]
    assert trans.joint_to_actuator_values("position", [j0, j1]) == pytest.approx(
        [d0 * JR[0] * AR[0], (d0 + d1 * JR[1]) * AR[1]]
    )
    assert trans.joint_to_actuator_values("velocity", [j0, j1]) == pytest.approx(
        [j0 * JR[0] * AR[0], (j0 + j1 * JR[1]) * AR[1]]
    )
    assert trans.joint_to_actuator_values("effort", [j0, j1]) == pytest.approx(
        [(j0 - j1 / JR[1]) / (JR[0] * AR[0]), j1 / (AR[1] * JR[1])]
    )


def test_legacy_formulas() -> None:
    trans = FourBarLinkageTransmission(AR, JR, OFF, effort_map="legacy")
    assert trans.effort_map == "legacy"
    a0, a1 = 1.5, -4.0
    assert trans.actuator_to_joint_values("effort", [a0, a1]) == pytest.approx(
        [JR[0] * a0 * AR[0], JR[1] * (a1 * AR[1] - JR[0] * a0 * AR[0])]
    )
    j0, j1 = 0.75, 3.0
    assert trans.joint_to_actuator_values("force", [j0, j1]) == pytest.approx(
        [j0 / (AR[0] * JR[0]), (j0 + j1 / JR[1]) / AR[1]]
    )
    # Position and velocity maps do not depend on the effort map.
    default = FourBarLinkageTransmission(AR, JR, OFF)
    for interface in ("position", "velocity", "absolute_position"):
        assert np.array_equal(
            trans.actuator_to_joint_values(interface, [a0, a1]),
            default.actuator_to_joint_values(interface, [a0, a1]),
        )


def test_unknown_effort_map() -> None:
    with pytest.raises(TransmissionError) as info:
        FourBarLinkageTransmission([1.0, 1.0], [1.0, 1.0], effort_map="old")  # type: ignore[arg-type]
    assert str(info.value) == "Unknown effort_map 'old'; valid values are 'power_conserving', 'legacy'."


def test_repr_and_linear_maps() -> None:
    trans = FourBarLinkageTransmission(AR, JR, OFF, effort_map="legacy")
    assert repr(trans) == (
        "FourBarLinkageTransmission(actuator_reduction=[3.0, -5.0], joint_reduction=[7.0, 0.5], "
        "joint_offset=[0.25, -2.0], effort_map='legacy')"
    )
    jac = trans.actuator_from_joint_velocity_matrix()
    np.testing.assert_allclose(jac, [[JR[0] * AR[0], 0.0], [AR[1], JR[1] * AR[1]]])
    assert trans.is_power_conserving() is False
    assert FourBarLinkageTransmission(AR, JR, OFF).is_power_conserving() is True


# --- Power: the default conserves it; the legacy map's documented exception ---------------------------------


@settings(max_examples=60, deadline=None)
@given(trans=legacy_four_bar_transmissions)
def test_legacy_map_is_never_power_conserving(trans: FourBarLinkageTransmission) -> None:
    assert not trans.is_power_conserving()


@settings(max_examples=60, deadline=None)
@given(trans=four_bar_transmissions)
def test_default_map_is_power_conserving(trans: FourBarLinkageTransmission) -> None:
    assert trans.is_power_conserving()


@settings(max_examples=80, deadline=None)
@given(trans=legacy_four_bar_transmissions, v_a=vectors(2), tau_a=vectors(2))
def test_legacy_power_mismatch_is_the_documented_formula(
    trans: FourBarLinkageTransmission, v_a: np.ndarray, tau_a: np.ndarray
) -> None:
    """P_joint - P_actuator = tau_a0 (v_a0 - c v_a1) - v_a0 tau_a1 / c, c = jr0 ar0 / ar1 (docstring)."""
    ar, jr = trans.get_actuator_reduction(), trans.get_joint_reduction()
    c = jr[0] * ar[0] / ar[1]
    v_j = trans.actuator_to_joint_values("velocity", v_a)
    tau_j = trans.actuator_to_joint_values("effort", tau_a)
    mismatch = float(v_j @ tau_j - v_a @ tau_a)
    predicted = tau_a[0] * (v_a[0] - c * v_a[1]) - v_a[0] * tau_a[1] / c
    # Rounding scale: the magnitudes of every product that appears on either side.
    scale = (
        float(np.abs(v_j) @ np.abs(tau_j))
        + float(np.abs(v_a) @ np.abs(tau_a))
        + abs(tau_a[0] * v_a[0])
        + abs(tau_a[0] * c * v_a[1])
        + abs(v_a[0] * tau_a[1] / c)
    )
    assert abs(mismatch - predicted) <= 1e-12 * scale + TINY


@settings(max_examples=40, deadline=None)
@given(trans=legacy_four_bar_transmissions, v1=vectors(1), tau1=vectors(1))
def test_legacy_power_balances_when_actuator_1_is_idle(
    trans: FourBarLinkageTransmission, v1: np.ndarray, tau1: np.ndarray
) -> None:
    """The exception's exception: with actuator 1 idle (no motion, no effort) the powers are equal."""
    v_a = np.array([0.0, v1[0]])
    tau_a = np.array([0.0, tau1[0]])
    v_j = trans.actuator_to_joint_values("velocity", v_a)
    tau_j = trans.actuator_to_joint_values("effort", tau_a)
    p_a = float(v_a @ tau_a)
    assert float(v_j @ tau_j) == pytest.approx(p_a, rel=1e-12, abs=TINY)
