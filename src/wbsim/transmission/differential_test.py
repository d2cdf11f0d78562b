"""Tests for DifferentialTransmission: upstream's differential_transmission_test.cpp plus our additions."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest

from wbsim.errors import TransmissionError
from wbsim.transmission.conftest import assert_close_scaled, round_trip_bound
from wbsim.transmission.differential import DifferentialTransmission
from wbsim.transmission.four_bar import FourBarLinkageTransmission
from wbsim.transmission.handle import ActuatorHandle, JointHandle
from wbsim.transmission.interfaces import ALL_INTERFACES, interface_label

EPS = 1e-5  # upstream's absolute tolerance for its hand-picked vectors
PAIR_CLASSES = [DifferentialTransmission, FourBarLinkageTransmission]

# --- PreconditionsTest (shared by the four-bar, whose upstream test uses the same vectors) ------------------

GOOD = [1.0, 1.0]
BAD = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
OFFSET_GOOD = [1.0, 1.0]
ZERO_CASES = [
    args
    for bad in BAD
    for args in ((bad, GOOD), (GOOD, bad), (bad, GOOD, OFFSET_GOOD), (GOOD, bad, OFFSET_GOOD))
]


@pytest.mark.parametrize("cls", PAIR_CLASSES)
@pytest.mark.parametrize("args", ZERO_CASES)
def test_zero_reductions_throw(cls: type, args: tuple[list[float], ...]) -> None:
    with pytest.raises(TransmissionError) as info:
        cls(*args)
    assert str(info.value) == "Transmission reduction ratios cannot be zero."


@pytest.mark.parametrize("cls", PAIR_CLASSES)
@pytest.mark.parametrize(
    "args", [([1.0], GOOD), (GOOD, [1.0]), (GOOD, GOOD, [1.0]), ([1.0, 1.0, 1.0], GOOD), (5.0, GOOD)]
)
def test_size_errors_throw(cls: type, args: tuple[object, ...]) -> None:
    with pytest.raises(TransmissionError) as info:
        cls(*args)
    assert str(info.value) == "Reduction and offset vectors must have size 2."


@pytest.mark.parametrize("cls", PAIR_CLASSES)
def test_sizes_are_checked_before_zeros(cls: type) -> None:
    with pytest.raises(TransmissionError, match="must have size 2"):
        cls([0.0, 0.0], GOOD, [1.0])


@pytest.mark.parametrize("cls", PAIR_CLASSES)
def test_valid_parameters_do_not_throw(cls: type) -> None:
    cls(GOOD, GOOD)
    cls(GOOD, GOOD, OFFSET_GOOD)
    cls(np.array(GOOD), (1, 1), np.zeros(2))


@pytest.mark.parametrize("cls", PAIR_CLASSES)
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ([math.nan, 1.0], GOOD),
            "Transmission reduction ratios must be finite, got actuator_reduction=[nan, 1.0], "
            "joint_reduction=[1.0, 1.0].",
        ),
        (
            (GOOD, [1.0, -math.inf]),
            "Transmission reduction ratios must be finite, got actuator_reduction=[1.0, 1.0], "
            "joint_reduction=[1.0, -inf].",
        ),
        (
            (GOOD, GOOD, [math.inf, 0.0]),
            "Transmission joint offsets must be finite, got joint_offset=[inf, 0.0].",
        ),
        ((["a", 1.0], GOOD), "Each element of actuator_reduction must be a real number, got 'a'."),
        (("ab", GOOD), "Reduction and offset vectors must have size 2."),
    ],
)
def test_nonsense_parameters_are_refused(cls: type, args: tuple[object, ...], message: str) -> None:
    with pytest.raises(TransmissionError) as info:
        cls(*args)
    assert str(info.value) == message


@pytest.mark.parametrize("cls", PAIR_CLASSES)
def test_accessor_validation(cls: type) -> None:
    trans = cls([2.0, -2.0], [4.0, -4.0], [1.0, -1.0])
    assert trans.num_actuators() == 2
    assert trans.num_joints() == 2
    assert trans.get_actuator_reduction() == [2.0, -2.0]
    assert trans.get_joint_reduction() == [4.0, -4.0]
    assert trans.get_joint_offset() == [1.0, -1.0]
    # Upstream's four-bar lists only position, velocity, effort; ours maps all six.
    assert trans.get_supported_joint_interfaces() == list(ALL_INTERFACES)
    assert trans.get_supported_actuator_interfaces() == list(ALL_INTERFACES)


# --- ConfigureTest.FailsWithBadHandles ----------------------------------------------------------------------


def expected_info(interface: str, joints: Sequence[str], actuators: Sequence[str]) -> str:
    """Upstream's get_handles_info() text with only ``interface`` populated (written out independently)."""

    def fmt(names: Sequence[str]) -> str:
        return "[" + ", ".join(names) + "] " if names else "[]"

    lines = ["Got the following handles:"]
    for i in ALL_INTERFACES:
        label = i.replace("_", " ")
        j, a = (joints, actuators) if i == interface else ((), ())
        lines.append(f"Joint {label}: {fmt(j)}, Actuator {label}: {fmt(a)}")
    return "\n".join(lines)


def bad_handle_cases(interface: str) -> list[tuple[list[JointHandle], list[ActuatorHandle], str]]:
    j1, j2, j3 = (JointHandle(f"joint{i}", interface, 0.0) for i in (1, 2, 3))
    a1, a2, a3 = (ActuatorHandle(f"act{i}", interface, 0.0) for i in (1, 2, 3))
    invalid_j1 = JointHandle("joint1", interface, None)
    invalid_a1 = ActuatorHandle("act1", interface, None)
    label = interface_label(interface)
    joint_names = "There should be exactly two unique joint names but was given '{}'."
    actuator_names = "There should be exactly two unique actuator names but was given '{}'."
    not_enough_actuator = f"Not enough valid or required actuator {label} handles were present. \n"
    not_enough_joint = f"Not enough valid or required joint {label} handles were present. \n"
    return [
        ([], [], "No joint handles were passed in"),
        ([j1], [], "No actuator handles were passed in"),
        ([j1], [a1], joint_names.format("[joint1] ")),
        ([], [a1], "No joint handles were passed in"),
        ([j1, j2], [a1], actuator_names.format("[act1] ")),
        ([j1], [a1, a2], joint_names.format("[joint1] ")),
        ([j1, j2, j3], [a1, a2], joint_names.format("[joint1, joint2, joint3] ")),
        ([j1, j2], [a1, a2, a3], actuator_names.format("[act1, act2, act3] ")),
        ([j1, j2, j3], [a1, a2, a3], joint_names.format("[joint1, joint2, joint3] ")),
        (
            [j1, j2],
            [invalid_a1, a2],
            not_enough_actuator + expected_info(interface, ["joint1", "joint2"], ["act2"]),
        ),
        # Decision: joint errors show the *current* actuator groups (upstream shows the previous call's ones).
        (
            [invalid_j1, j2],
            [a1, a2],
            not_enough_joint + expected_info(interface, ["joint2"], ["act1", "act2"]),
        ),
        (
            [invalid_j1, j2],
            [invalid_a1, a2],
            not_enough_joint + expected_info(interface, ["joint2"], ["act2"]),
        ),
    ]


@pytest.mark.parametrize("cls", PAIR_CLASSES)
@pytest.mark.parametrize("interface", ALL_INTERFACES)
@pytest.mark.parametrize("case", range(12), ids=[f"case{i}" for i in range(1, 13)])
def test_configure_fails_with_bad_handles(cls: type, interface: str, case: int) -> None:
    trans = cls([1.0, 1.0], [1.0, 1.0])
    joints, actuators, message = bad_handle_cases(interface)[case]
    with pytest.raises(TransmissionError) as info:
        trans.configure(joints, actuators)
    assert str(info.value) == message
    assert not trans.is_configured


def test_case10_message_matches_upstream_example_verbatim() -> None:
    trans = DifferentialTransmission([1.0, 1.0], [1.0, 1.0])
    joints, actuators, _ = bad_handle_cases("position")[9]
    with pytest.raises(TransmissionError) as info:
        trans.configure(joints, actuators)
    assert str(info.value) == (
        "Not enough valid or required actuator position handles were present. \n"
        "Got the following handles:\n"
        "Joint position: [joint1, joint2] , Actuator position: [act2] \n"
        "Joint velocity: [], Actuator velocity: []\n"
        "Joint effort: [], Actuator effort: []\n"
        "Joint torque: [], Actuator torque: []\n"
        "Joint force: [], Actuator force: []\n"
        "Joint absolute position: [], Actuator absolute position: []"
    )


@pytest.mark.parametrize("cls", PAIR_CLASSES)
def test_success_with_one_good_handle(cls: type) -> None:
    trans = cls([1.0, 1.0], [1.0, 1.0])
    joints = [JointHandle("joint1", "position"), JointHandle("joint2", "position")]
    actuators = [
        ActuatorHandle("act1", "position"),
        ActuatorHandle("act2", "position"),
        ActuatorHandle("act1", "force"),
        ActuatorHandle("act2", "force"),
    ]
    trans.configure(joints, actuators)
    assert trans.is_configured


@pytest.mark.parametrize("cls", PAIR_CLASSES)
def test_fail_when_no_pair(cls: type) -> None:
    trans = cls([1.0, 1.0], [1.0, 1.0])
    joints = [JointHandle("joint1", "position"), JointHandle("joint2", "position")]
    actuators = [ActuatorHandle("act1", "force"), ActuatorHandle("act2", "force")]
    with pytest.raises(TransmissionError) as info:
        trans.configure(joints, actuators)
    info_text = expected_info("position", ["joint1", "joint2"], []).replace(
        "Actuator force: []", "Actuator force: [act1, act2] "
    )
    assert str(info.value) == "No pair-wise interface available between joints and actuators. \n" + info_text


@pytest.mark.parametrize("cls", PAIR_CLASSES)
def test_duplicates_are_refused(cls: type) -> None:
    trans = cls([1.0, 1.0], [1.0, 1.0])
    # Upstream accepts this: the velocity group is [joint2, joint2], "complete", and maps joint2 twice.
    joints = [
        JointHandle("joint1", "velocity", None),
        JointHandle("joint2", "velocity"),
        JointHandle("joint2", "velocity"),
    ]
    actuators = [ActuatorHandle("act1", "velocity"), ActuatorHandle("act2", "velocity")]
    with pytest.raises(TransmissionError) as info:
        trans.configure(joints, actuators)
    assert str(info.value) == (
        "Duplicate joint handle 'joint2/velocity': more than one valid handle was given for one joint name "
        "and interface."
    )
    assert not trans.is_configured
    with pytest.raises(TransmissionError, match="^Duplicate actuator handle 'act2/velocity'"):
        trans.configure(
            [JointHandle("joint1", "velocity"), JointHandle("joint2", "velocity")],
            [ActuatorHandle("act1", "velocity", None), actuators[1], ActuatorHandle("act2", "velocity")],
        )
    # An invalid duplicate is not a duplicate: it is dropped like any invalid handle.
    joints[0] = JointHandle("joint1", "velocity")
    joints[2] = JointHandle("joint2", "velocity", None)
    trans.configure(joints, actuators)
    assert trans.is_configured


@pytest.mark.parametrize("cls", PAIR_CLASSES)
def test_duplicates_upstream_refuses_keep_upstream_message(cls: type) -> None:
    # Three valid position handles for two names: upstream's group has size 3 -> its "not enough" message.
    trans = cls([1.0, 1.0], [1.0, 1.0])
    joints = [
        JointHandle("joint1", "position"),
        JointHandle("joint2", "position"),
        JointHandle("joint2", "position"),
    ]
    actuators = [ActuatorHandle("act1", "position"), ActuatorHandle("act2", "position")]
    with pytest.raises(TransmissionError) as info:
        trans.configure(joints, actuators)
    assert str(info.value) == (
        "Not enough valid or required joint position handles were present. \n"
        + expected_info("position", ["joint1", "joint2"], ["act1", "act2"])
    )
    # A duplicate on a joint-only interface does not hide upstream's "no pair-wise interface" error.
    with pytest.raises(TransmissionError, match="^No pair-wise interface available"):
        trans.configure(
            [
                JointHandle("joint1", "effort", None),
                JointHandle("joint2", "effort"),
                JointHandle("joint2", "effort"),
            ],
            [ActuatorHandle("act1", "force"), ActuatorHandle("act2", "force")],
        )


@pytest.mark.parametrize("cls", PAIR_CLASSES)
def test_handles_info_describes_last_successful_configure(cls: type) -> None:
    trans = cls([1.0, 1.0], [1.0, 1.0])
    assert trans.get_handles_info() == expected_info("position", [], [])
    joints = [JointHandle("joint1", "position"), JointHandle("joint2", "position")]
    actuators = [ActuatorHandle("act1", "position"), ActuatorHandle("act2", "position")]
    trans.configure(joints, actuators)
    good = expected_info("position", ["joint1", "joint2"], ["act1", "act2"])
    assert trans.get_handles_info() == good
    with pytest.raises(TransmissionError):
        trans.configure(joints[:1] + [JointHandle("joint2", "position", None)], actuators)
    assert trans.get_handles_info() == good  # failed configure changes nothing


# --- BlackBoxTest.IdentityMap (seeded numpy Generator instead of glibc rand) --------------------------------


def random_instances(cls: type, count: int = 100) -> list:
    rng = np.random.default_rng(1234)
    out = []
    for _ in range(count):
        ar, jr, off = (rng.uniform(-1000.0, 1000.0, 2) for _ in range(3))
        out.append(cls(ar, jr, off))
    return out


@pytest.mark.parametrize("cls", PAIR_CLASSES)
@pytest.mark.parametrize("interface", ["position", "velocity", "effort", "torque", "force"])
def test_black_box_identity_map(cls: type, interface: str) -> None:
    refs = np.random.default_rng(1234).uniform(-1000.0, 1000.0, (100, 2))
    for trans in random_instances(cls):
        a = [ActuatorHandle("act1", interface), ActuatorHandle("act2", interface)]
        j = [JointHandle("joint1", interface), JointHandle("joint2", interface)]
        trans.configure(j, a)
        bound = trans.actuator_to_joint_linear_map(interface), trans.joint_to_actuator_linear_map(interface)
        got = np.empty_like(refs)
        for k, ref in enumerate(refs):
            a[0].set_value(ref[0])
            a[1].set_value(ref[1])
            trans.actuator_to_joint()
            a[0].set_value(1337.1337)
            a[1].set_value(1337.1337)
            trans.joint_to_actuator()
            got[k] = a[0].get_value(), a[1].get_value()
        assert_close_scaled(got, refs, round_trip_bound(*bound, refs))
        assert np.all(np.abs(got - refs) <= EPS)


# --- WhiteBoxTest -------------------------------------------------------------------------------------------


def a2j_via_handles(
    trans: DifferentialTransmission, interface: str, a_values: Sequence[float]
) -> list[float]:
    a = [ActuatorHandle("act1", interface, a_values[0]), ActuatorHandle("act2", interface, a_values[1])]
    j = [JointHandle("joint1", interface), JointHandle("joint2", interface)]
    trans.configure(j, a)
    trans.actuator_to_joint()
    return [j[0].get_value(), j[1].get_value()]


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
def test_dont_move_joints(interface: str, expected: list[float]) -> None:
    trans = DifferentialTransmission([10.0, 10.0], [2.0, 2.0], [1.0, 1.0])
    assert a2j_via_handles(trans, interface, [0.0, 0.0]) == pytest.approx(expected, abs=EPS)


MOVE_FIRST = {"effort": [400.0, 0.0], "velocity": [0.5, 0.0], "position": [0.5, 0.0]}
MOVE_SECOND = {"effort": [0.0, 400.0], "velocity": [0.0, 0.5], "position": [0.0, 0.5]}


@pytest.mark.parametrize("interface", ALL_INTERFACES)
def test_move_first_joint_only(interface: str) -> None:
    trans = DifferentialTransmission([10.0, 10.0], [2.0, 2.0])
    kind = {"torque": "effort", "force": "effort", "absolute_position": "position"}.get(interface, interface)
    assert a2j_via_handles(trans, interface, [10.0, 10.0]) == pytest.approx(MOVE_FIRST[kind], abs=EPS)


@pytest.mark.parametrize("interface", ALL_INTERFACES)
def test_move_second_joint_only(interface: str) -> None:
    trans = DifferentialTransmission([10.0, 10.0], [2.0, 2.0])
    kind = {"torque": "effort", "force": "effort", "absolute_position": "position"}.get(interface, interface)
    assert a2j_via_handles(trans, interface, [10.0, -10.0]) == pytest.approx(MOVE_SECOND[kind], abs=EPS)


# --- Ordering -----------------------------------------------------------------------------------------------


def test_ordering_is_bytewise_sorted_names_by_default() -> None:
    trans = DifferentialTransmission([1.0, 1.0], [1.0, 1.0])
    # "joint10" < "joint2" byte-wise: joint10 is joint index 0.
    j10, j2 = JointHandle("joint10", "velocity"), JointHandle("joint2", "velocity")
    trans.configure(
        [j2, j10], [ActuatorHandle("m_b", "velocity", 0.0), ActuatorHandle("m_a", "velocity", 2.0)]
    )
    trans.actuator_to_joint()
    # a0 = m_a = 2, a1 = m_b = 0 -> j0 = (2 + 0)/2 = 1, j1 = (2 - 0)/2 = 1
    assert (j10.get_value(), j2.get_value()) == (1.0, 1.0)
    trans.configure(
        [j2, j10], [ActuatorHandle("m_b", "velocity", 2.0), ActuatorHandle("m_a", "velocity", 0.0)]
    )
    trans.actuator_to_joint()
    assert (j10.get_value(), j2.get_value()) == (1.0, -1.0)


def test_bound_names_order_the_groups() -> None:
    trans = DifferentialTransmission(
        [1.0, 1.0], [1.0, 1.0], joint_names=("joint2", "joint10"), actuator_names=["m_b", "m_a"]
    )
    j10, j2 = JointHandle("joint10", "velocity"), JointHandle("joint2", "velocity")
    trans.configure(
        [j10, j2], [ActuatorHandle("m_a", "velocity", 0.0), ActuatorHandle("m_b", "velocity", 2.0)]
    )
    trans.actuator_to_joint()
    # a0 = m_b = 2, a1 = m_a = 0 -> joint index 0 (joint2) = 1, index 1 (joint10) = 1
    assert (j2.get_value(), j10.get_value()) == (1.0, 1.0)
    trans.configure(
        [j10, j2], [ActuatorHandle("m_a", "velocity", 2.0), ActuatorHandle("m_b", "velocity", 0.0)]
    )
    trans.actuator_to_joint()
    assert (j2.get_value(), j10.get_value()) == (1.0, -1.0)
    assert "joint_names=['joint2', 'joint10'], actuator_names=['m_b', 'm_a']" in repr(trans)


def test_bound_names_must_match_handles() -> None:
    trans = DifferentialTransmission([1.0, 1.0], [1.0, 1.0], joint_names=("a", "b"))
    with pytest.raises(TransmissionError) as info:
        trans.configure(
            [JointHandle("a", "position"), JointHandle("c", "position")],
            [ActuatorHandle("m1", "position"), ActuatorHandle("m2", "position")],
        )
    assert (
        str(info.value)
        == "The joint handles are named ['a', 'c'] but this transmission's joint names are ['a', 'b']."
    )


@pytest.mark.parametrize("names", [("a",), ("a", "a"), "ab", ("a", 2), 5])
def test_bound_names_validation(names: object) -> None:
    with pytest.raises(TransmissionError, match="actuator_names must be a sequence of 2 distinct names"):
        DifferentialTransmission([1.0, 1.0], [1.0, 1.0], actuator_names=names)  # type: ignore[arg-type]


# --- Formulas, maps and power -------------------------------------------------------------------------------


def test_formulas_match_upstream_code_on_asymmetric_parameters() -> None:
    ar, jr, off = (3.0, -5.0), (7.0, 0.5), (0.25, -2.0)
    trans = DifferentialTransmission(ar, jr, off)
    a0, a1 = 1.5, -4.0
    pos = trans.actuator_to_joint_values("position", [a0, a1])
    assert pos == pytest.approx(
        [(a0 / ar[0] + a1 / ar[1]) / (2 * jr[0]) + off[0], (a0 / ar[0] - a1 / ar[1]) / (2 * jr[1]) + off[1]]
    )
    eff = trans.actuator_to_joint_values("effort", [a0, a1])
    assert eff == pytest.approx([jr[0] * (a0 * ar[0] + a1 * ar[1]), jr[1] * (a0 * ar[0] - a1 * ar[1])])
    j0, j1 = 0.75, 3.0
    d0, d1 = j0 - off[0], j1 - off[1]
    apos = trans.joint_to_actuator_values("position", [j0, j1])
    assert apos == pytest.approx([(d0 * jr[0] + d1 * jr[1]) * ar[0], (d0 * jr[0] - d1 * jr[1]) * ar[1]])
    aeff = trans.joint_to_actuator_values("force", [j0, j1])
    assert aeff == pytest.approx(
        [(j0 / jr[0] + j1 / jr[1]) / (2 * ar[0]), (j0 / jr[0] - j1 / jr[1]) / (2 * ar[1])]
    )


def test_linear_map_and_offsets() -> None:
    trans = DifferentialTransmission((3.0, -5.0), (7.0, 0.5), (0.25, -2.0))
    jac = trans.actuator_from_joint_velocity_matrix()
    np.testing.assert_allclose(jac, [[7.0 * 3.0, 0.5 * 3.0], [7.0 * -5.0, -0.5 * -5.0]])
    np.testing.assert_allclose(trans.joint_from_actuator_velocity_matrix() @ jac, np.eye(2), atol=1e-15)
    np.testing.assert_allclose(trans.joint_from_actuator_effort_matrix(), jac.T)
    np.testing.assert_array_equal(trans.joint_position_offset(), [0.25, -2.0])
    assert trans.get_joint_position_offset() == [0.25, -2.0]
    np.testing.assert_allclose(trans.get_actuator_position_offset(), -jac @ [0.25, -2.0])
    assert trans.is_power_conserving()
