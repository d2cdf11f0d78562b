"""Tests of the behaviour every transmission shares (wbsim.transmission.base): the functional API, the handle
plumbing, linear maps, the power check, and hypothesis properties over all transmission kinds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from wbsim.errors import TransmissionError
from wbsim.transmission.base import Transmission
from wbsim.transmission.conftest import (
    TINY,
    all_kinds,
    assert_close_scaled,
    differential_transmissions,
    four_bar_transmissions,
    round_trip_bound,
    simple_transmissions,
    transmissions,
    values,
)
from wbsim.transmission.differential import DifferentialTransmission
from wbsim.transmission.four_bar import FourBarLinkageTransmission
from wbsim.transmission.handle import ActuatorHandle, JointHandle
from wbsim.transmission.interfaces import ALL_INTERFACES, EFFORT_LIKE
from wbsim.transmission.simple import SimpleTransmission

INVERTIBLE = [i for i in ALL_INTERFACES if i != "absolute_position"]
KIND_IDS = ["simple", "differential", "four_bar", "four_bar_legacy"]
PROPERTY_SETTINGS = settings(max_examples=60, deadline=None)


def batch(data: st.DataObject, n: int, max_rows: int = 5) -> np.ndarray:
    rows = data.draw(st.integers(1, max_rows))
    return data.draw(hnp.arrays(np.float64, (rows, n), elements=values))


def handles(
    trans: Transmission, interfaces: list[str], a_values: np.ndarray | None = None
) -> tuple[list, list]:
    """One handle per joint/actuator and interface, named joint1.. / act1.. (sorted order = index order)."""
    joints = [JointHandle(f"joint{k + 1}", i) for i in interfaces for k in range(trans.num_joints())]
    actuators = [
        ActuatorHandle(f"act{k + 1}", i, 0.0 if a_values is None else a_values[n][k])
        for n, i in enumerate(interfaces)
        for k in range(trans.num_actuators())
    ]
    return joints, actuators


# --- Functional API errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize("trans", all_kinds(), ids=KIND_IDS)
def test_unknown_interface(trans: Transmission) -> None:
    with pytest.raises(TransmissionError) as info:
        trans.actuator_to_joint_values("current", np.zeros(trans.num_actuators()))
    assert str(info.value) == (
        f"Unknown interface 'current' for actuator_to_joint_values() of {type(trans).__name__}; supported "
        "interfaces are position, velocity, effort, torque, force, absolute_position."
    )
    with pytest.raises(
        TransmissionError, match=r"supported interfaces are position, velocity, effort, torque, force\.$"
    ):
        trans.joint_to_actuator_values("current", np.zeros(trans.num_joints()))
    with pytest.raises(TransmissionError, match="Unknown interface None"):
        trans.joint_to_actuator_values(None, np.zeros(trans.num_joints()))  # type: ignore[arg-type]


@pytest.mark.parametrize("trans", all_kinds(), ids=KIND_IDS)
def test_absolute_position_is_actuator_to_joint_only(trans: Transmission) -> None:
    with pytest.raises(TransmissionError) as info:
        trans.joint_to_actuator_values("absolute_position", np.zeros(trans.num_joints()))
    assert str(info.value) == (
        "'absolute_position' maps actuator to joint only; joint_to_actuator_values() does not accept it."
    )
    with pytest.raises(TransmissionError, match="maps actuator to joint only"):
        trans.joint_to_actuator_linear_map("absolute_position")


@pytest.mark.parametrize("trans", all_kinds(), ids=KIND_IDS)
@pytest.mark.parametrize("bad", [3.0, np.zeros((4, 3)), np.zeros((2, 0)), [[1.0, 2.0, 3.0]]])
def test_wrong_last_axis(trans: Transmission, bad: object) -> None:
    with pytest.raises(
        TransmissionError, match=rf"actuator values must have shape \(\.\.\., {trans.num_actuators()}\)"
    ):
        trans.actuator_to_joint_values("position", bad)  # type: ignore[arg-type]
    with pytest.raises(
        TransmissionError, match=rf"joint values must have shape \(\.\.\., {trans.num_joints()}\)"
    ):
        trans.joint_to_actuator_values("velocity", bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [["1", "2"], [1 + 2j, 0], [object(), None], [[1.0, 2.0], [3.0]]])
def test_non_numeric_values(bad: object) -> None:
    with pytest.raises(TransmissionError, match="values must"):
        DifferentialTransmission([1.0, 1.0], [1.0, 1.0]).actuator_to_joint_values("effort", bad)  # type: ignore[arg-type]


def test_integer_and_float32_inputs_are_accepted() -> None:
    trans = DifferentialTransmission([1.0, 1.0], [1.0, 1.0])
    out = trans.actuator_to_joint_values("velocity", np.array([[2, 0]], dtype=np.int32))
    assert out.dtype == np.float64 and out.tolist() == [[1.0, 1.0]]
    out = trans.joint_to_actuator_values("velocity", np.array([1, 1], dtype=np.float32))
    assert out.tolist() == [2.0, 0.0]


def test_functional_api_returns_new_arrays() -> None:
    trans = SimpleTransmission(1.0)
    x = np.array([[1.0]])
    out = trans.actuator_to_joint_values("velocity", x)
    assert out is not x and not np.shares_memory(out, x)


# --- Handle API plumbing ------------------------------------------------------------------------------------


@pytest.mark.parametrize("trans", all_kinds(), ids=KIND_IDS)
def test_handle_api_needs_configure(trans: Transmission) -> None:
    name = type(trans).__name__
    with pytest.raises(TransmissionError) as info:
        trans.actuator_to_joint()
    assert str(info.value) == f"{name}.actuator_to_joint() called before configure()."
    with pytest.raises(
        TransmissionError, match=rf"{name}\.joint_to_actuator\(\) called before configure\(\)"
    ):
        trans.joint_to_actuator()


class _Recording(JointHandle):
    """A joint handle that logs writes, to observe the evaluation order."""

    __slots__ = ("log",)

    def __init__(self, name: str, interface: str, log: list[str]) -> None:
        super().__init__(name, interface)
        self.log = log

    def set_value(self, value: float) -> None:
        self.log.append(self.get_interface_name())
        super().set_value(value)


@pytest.mark.parametrize(
    ("trans", "order"),
    [
        (SimpleTransmission(2.0), ["effort", "velocity", "position", "torque", "force", "absolute_position"]),
        (DifferentialTransmission([1.0, 1.0], [1.0, 1.0]), list(ALL_INTERFACES)),
        (FourBarLinkageTransmission([1.0, 1.0], [1.0, 1.0]), list(ALL_INTERFACES)),
    ],
    ids=["simple", "differential", "four_bar"],
)
def test_upstream_evaluation_order(trans: Transmission, order: list[str]) -> None:
    log: list[str] = []
    joints = [
        _Recording(f"joint{k + 1}", i, log)
        for i in reversed(ALL_INTERFACES)
        for k in range(trans.num_joints())
    ]
    _, actuators = handles(trans, list(ALL_INTERFACES))
    trans.configure(joints, actuators)
    trans.actuator_to_joint()
    assert log[:: trans.num_joints()] == order


def test_handles_with_float_subclass_values_work() -> None:
    trans = SimpleTransmission(4.0)
    j = JointHandle("j", "velocity")
    trans.configure([j], [ActuatorHandle("a", "velocity", np.float32(2.0))])
    trans.actuator_to_joint()
    assert j.get_value() == 0.5 and type(j.get_value()) is float


# --- Linear maps and the power check ------------------------------------------------------------------------


@pytest.mark.parametrize("trans", all_kinds(), ids=KIND_IDS)
def test_linear_map_shapes(trans: Transmission) -> None:
    na, nj = trans.num_actuators(), trans.num_joints()
    assert trans.actuator_from_joint_velocity_matrix().shape == (na, nj)
    assert trans.joint_from_actuator_velocity_matrix().shape == (nj, na)
    assert trans.joint_from_actuator_effort_matrix("torque").shape == (nj, na)
    assert trans.actuator_from_joint_effort_matrix("force").shape == (na, nj)
    assert trans.joint_position_offset().shape == (nj,)
    assert trans.actuator_position_offset().shape == (na,)
    # The offsets mean what their docstrings say: actuators at 0 -> joints at the joint offset, and the
    # actuator offset puts every joint at 0 (checked through the opposite direction's formula).
    np.testing.assert_allclose(
        trans.actuator_to_joint_values("position", np.zeros(na)), trans.joint_position_offset()
    )
    np.testing.assert_allclose(
        trans.actuator_to_joint_values("position", trans.actuator_position_offset()), np.zeros(nj), atol=1e-12
    )
    assert np.any(trans.joint_position_offset() != 0.0)  # all_kinds() has non-zero offsets


@pytest.mark.parametrize("trans", all_kinds(), ids=KIND_IDS)
@pytest.mark.parametrize("interface", ["position", "velocity", "absolute_position", "current"])
def test_effort_matrices_need_an_effort_like_interface(trans: Transmission, interface: str) -> None:
    with pytest.raises(TransmissionError) as info:
        trans.joint_from_actuator_effort_matrix(interface)
    assert str(info.value) == (
        "joint_from_actuator_effort_matrix() takes an effort-like interface (effort, torque, force), "
        f"got {interface!r}."
    )
    with pytest.raises(
        TransmissionError, match="actuator_from_joint_effort_matrix\\(\\) takes an effort-like"
    ):
        trans.actuator_from_joint_effort_matrix(interface)


@pytest.mark.parametrize("rtol", [-1.0, float("nan"), float("inf"), "1e-9", None])
def test_is_power_conserving_rtol_validation(rtol: float) -> None:
    with pytest.raises(TransmissionError, match="rtol must be a finite non-negative number"):
        SimpleTransmission(1.0).is_power_conserving(rtol)


def test_power_check_expectations() -> None:
    assert [t.is_power_conserving() for t in all_kinds()] == [True, True, True, False]


@pytest.mark.parametrize("direction", ["a2j", "j2a"])
def test_power_check_inspects_both_directions(direction: str) -> None:
    # A joint->actuator (or actuator->joint) torque map that is not the other one's inverse must be caught
    # even when the opposite direction is right.
    trans = DifferentialTransmission([2.0, 3.0], [5.0, 7.0])
    table = trans._a2j if direction == "a2j" else trans._j2a  # white-box: swap in a wrong formula
    correct = table["torque"]
    table["torque"] = lambda x: 2.0 * correct(x)
    assert trans.is_power_conserving() is False


# --- Hypothesis properties over every transmission kind -----------------------------------------------------


@PROPERTY_SETTINGS
@given(trans=transmissions, data=st.data())
def test_actuator_joint_actuator_is_identity(trans: Transmission, data: st.DataObject) -> None:
    for interface in INVERTIBLE:
        a = batch(data, trans.num_actuators())
        back = trans.joint_to_actuator_values(interface, trans.actuator_to_joint_values(interface, a))
        bound = round_trip_bound(
            trans.actuator_to_joint_linear_map(interface), trans.joint_to_actuator_linear_map(interface), a
        )
        assert_close_scaled(back, a, bound)


@PROPERTY_SETTINGS
@given(trans=transmissions, data=st.data())
def test_joint_actuator_joint_is_identity(trans: Transmission, data: st.DataObject) -> None:
    for interface in INVERTIBLE:
        j = batch(data, trans.num_joints())
        back = trans.actuator_to_joint_values(interface, trans.joint_to_actuator_values(interface, j))
        bound = round_trip_bound(
            trans.joint_to_actuator_linear_map(interface), trans.actuator_to_joint_linear_map(interface), j
        )
        assert_close_scaled(back, j, bound)


@PROPERTY_SETTINGS
@given(trans=transmissions, data=st.data())
def test_absolute_position_uses_the_position_map(trans: Transmission, data: st.DataObject) -> None:
    a = batch(data, trans.num_actuators())
    expected = trans.actuator_to_joint_values("position", a)
    assert np.array_equal(trans.actuator_to_joint_values("absolute_position", a), expected)
    j_pos, j_abs = JointHandle("joint1", "position"), JointHandle("joint1", "absolute_position")
    if trans.num_joints() == 1:
        trans.configure(
            [j_pos, j_abs],
            [
                ActuatorHandle("act1", "position", a[0, 0]),
                ActuatorHandle("act1", "absolute_position", a[0, 0]),
            ],
        )
        trans.actuator_to_joint()
        assert j_abs.get_value() == j_pos.get_value() == expected[0, 0]


@PROPERTY_SETTINGS
@given(
    trans=st.one_of(simple_transmissions, differential_transmissions, four_bar_transmissions), data=st.data()
)
def test_power_is_conserved(trans: Transmission, data: st.DataObject) -> None:
    assert trans.is_power_conserving()
    na, nj = trans.num_actuators(), trans.num_joints()
    k_mat = np.abs(trans.joint_from_actuator_velocity_matrix())
    j_mat = np.abs(trans.actuator_from_joint_velocity_matrix())
    for interface in EFFORT_LIKE:
        # actuator side given
        v_a, tau_a = batch(data, na), batch(data, na)[:1]
        v_j = trans.actuator_to_joint_values("velocity", v_a)
        tau_j = trans.actuator_to_joint_values(interface, tau_a)
        p_a, p_j = (v_a * tau_a).sum(-1), (v_j * tau_j).sum(-1)
        e_mat = np.abs(trans.joint_from_actuator_effort_matrix(interface))
        scale = (np.abs(v_a) @ k_mat.T * (np.abs(tau_a) @ e_mat.T)).sum(-1) + (
            np.abs(v_a) * np.abs(tau_a)
        ).sum(-1)
        assert np.all(np.abs(p_j - p_a) <= 1e-12 * scale + TINY)
        # joint side given
        v_j, tau_j = batch(data, nj), batch(data, nj)[:1]
        v_a = trans.joint_to_actuator_values("velocity", v_j)
        tau_a = trans.joint_to_actuator_values(interface, tau_j)
        p_a, p_j = (v_a * tau_a).sum(-1), (v_j * tau_j).sum(-1)
        f_mat = np.abs(trans.actuator_from_joint_effort_matrix(interface))
        scale = (np.abs(v_j) @ j_mat.T * (np.abs(tau_j) @ f_mat.T)).sum(-1) + (
            np.abs(v_j) * np.abs(tau_j)
        ).sum(-1)
        assert np.all(np.abs(p_j - p_a) <= 1e-12 * scale + TINY)


@PROPERTY_SETTINGS
@given(trans=transmissions, data=st.data())
def test_functional_and_handle_apis_agree(trans: Transmission, data: st.DataObject) -> None:
    interfaces = list(ALL_INTERFACES)
    a_values = batch(data, trans.num_actuators(), max_rows=len(interfaces))
    a_values = np.resize(a_values, (len(interfaces), trans.num_actuators()))
    joints, actuators = handles(trans, interfaces, a_values)
    trans.configure(joints, actuators)
    trans.actuator_to_joint()
    got = np.array([h.get_value() for h in joints]).reshape(len(interfaces), trans.num_joints())
    for row, interface in enumerate(interfaces):
        assert np.array_equal(got[row], trans.actuator_to_joint_values(interface, a_values[row]))
    # and back, with fresh joint values (absolute_position actuators are never written)
    j_values = np.resize(batch(data, trans.num_joints(), max_rows=6), (len(interfaces), trans.num_joints()))
    for h, v in zip(joints, j_values.ravel(), strict=True):
        h.set_value(v)
    trans.joint_to_actuator()
    got = np.array([h.get_value() for h in actuators]).reshape(len(interfaces), trans.num_actuators())
    for row, interface in enumerate(interfaces):
        if interface == "absolute_position":
            assert np.array_equal(got[row], a_values[row])
        else:
            assert np.array_equal(got[row], trans.joint_to_actuator_values(interface, j_values[row]))


@PROPERTY_SETTINGS
@given(trans=transmissions, data=st.data())
def test_batches_equal_per_row_results(trans: Transmission, data: st.DataObject) -> None:
    shape = tuple(data.draw(st.lists(st.integers(1, 3), min_size=0, max_size=2)))
    interface = data.draw(st.sampled_from(INVERTIBLE))
    a = data.draw(hnp.arrays(np.float64, (*shape, trans.num_actuators()), elements=values))
    out = trans.actuator_to_joint_values(interface, a)
    assert out.shape == (*shape, trans.num_joints())
    for index in np.ndindex(*shape):
        assert np.array_equal(out[index], trans.actuator_to_joint_values(interface, a[index]))
    j = data.draw(hnp.arrays(np.float64, (*shape, trans.num_joints()), elements=values))
    back = trans.joint_to_actuator_values(interface, j)
    assert back.shape == (*shape, trans.num_actuators())
    for index in np.ndindex(*shape):
        assert np.array_equal(back[index], trans.joint_to_actuator_values(interface, j[index].tolist()))


@PROPERTY_SETTINGS
@given(trans=transmissions, data=st.data())
def test_linear_map_reproduces_the_formulas(trans: Transmission, data: st.DataObject) -> None:
    for interface in ALL_INTERFACES:
        a = batch(data, trans.num_actuators())
        m, b = trans.actuator_to_joint_linear_map(interface)
        scale = np.abs(a) @ np.abs(m).T + np.abs(b)
        assert_close_scaled(a @ m.T + b, trans.actuator_to_joint_values(interface, a), scale)
