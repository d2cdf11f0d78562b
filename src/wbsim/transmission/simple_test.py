"""Tests for SimpleTransmission: upstream's simple_transmission_test.cpp scenarios and our stricter checks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wbsim.errors import TransmissionError
from wbsim.transmission.handle import ActuatorHandle, JointHandle
from wbsim.transmission.interfaces import ALL_INTERFACES
from wbsim.transmission.simple import SimpleTransmission

EPS = 1e-5  # upstream's absolute tolerance for its hand-picked vectors

# --- PreconditionsTest --------------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [(0.0,), (0.0, 1.0), (0.0, -1.0), (-0.0,)])
def test_exception_thrown_with_invalid_parameters(args: tuple[float, ...]) -> None:
    with pytest.raises(TransmissionError) as info:
        SimpleTransmission(*args)
    assert str(info.value) == "Transmission reduction ratio cannot be zero."


@pytest.mark.parametrize("args", [(1.0,), (1.0, 1.0), (-1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)])
def test_no_exceptions_with_valid_parameters(args: tuple[float, ...]) -> None:
    SimpleTransmission(*args)


def test_accessor_validation() -> None:
    trans = SimpleTransmission(2.0, -1.0)
    assert trans.num_actuators() == 1
    assert trans.num_joints() == 1
    assert trans.get_actuator_reduction() == 2.0
    assert trans.get_joint_offset() == -1.0
    expected = ["position", "velocity", "effort", "torque", "force", "absolute_position"]
    assert trans.get_supported_joint_interfaces() == expected
    assert trans.get_supported_actuator_interfaces() == expected


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((math.nan,), "Transmission reduction ratio must be finite, got nan."),
        ((math.inf,), "Transmission reduction ratio must be finite, got inf."),
        ((-math.inf, 0.0), "Transmission reduction ratio must be finite, got -inf."),
        ((1.0, math.nan), "Transmission joint offset must be finite, got nan."),
        ((1.0, math.inf), "Transmission joint offset must be finite, got inf."),
        (("2",), "Transmission reduction ratio must be a real number, got '2'."),
        ((None,), "Transmission reduction ratio must be a real number, got None."),
    ],
)
def test_nonsense_parameters_are_refused(args: tuple[object, ...], message: str) -> None:
    with pytest.raises(TransmissionError) as info:
        SimpleTransmission(*args)  # type: ignore[arg-type]
    assert str(info.value) == message


def _j(name: str, iface: str, valid: bool = True) -> JointHandle:
    return JointHandle(name, iface, 0.0 if valid else None)


def _a(name: str, iface: str, valid: bool = True) -> ActuatorHandle:
    return ActuatorHandle(name, iface, 0.0 if valid else None)


NO_JOINTS = "No joint handles were passed in"
NO_ACTUATORS = "No actuator handles were passed in"
NONE_VALID_JOINT = "None of the provided joint handles are valid or from the required interfaces"


@pytest.mark.parametrize(
    ("joints", "actuators", "message"),
    [
        ([], [], NO_JOINTS),
        ([_j("joint1", "position")], [], NO_ACTUATORS),
        ([], [_a("act1", "position")], NO_JOINTS),
        (
            [_j("joint1", "position")],
            [_a("act1", "position"), _a("act2", "position")],
            "Actuator names given to transmissions should be identical",
        ),
        (
            [_j("joint1", "position"), _j("joint2", "position")],
            [_a("act1", "position")],
            "Joint names given to transmissions should be identical",
        ),
        ([_j("joint1", "velocity", False)], [_a("act1", "velocity", False)], NONE_VALID_JOINT),
        ([], [_a("act1", "position"), _a("act1", "velocity", False)], NO_JOINTS),
        ([_j("joint1", "velocity", False)], [_a("act1", "position")], NONE_VALID_JOINT),
        # Not in upstream's list, but upstream's rule: no valid actuator handle of a known interface.
        (
            [_j("joint1", "position")],
            [_a("act1", "position", False), _a("act1", "current")],
            "None of the provided actuator handles are valid or from the required interfaces",
        ),
    ],
    ids=[f"case{i}" for i in range(1, 10)],
)
def test_configure_fails_with_invalid_handles(
    joints: list[JointHandle], actuators: list[ActuatorHandle], message: str
) -> None:
    trans = SimpleTransmission(2.0, -1.0)
    with pytest.raises(TransmissionError) as info:
        trans.configure(joints, actuators)
    assert str(info.value) == message
    assert not trans.is_configured


# --- BlackBoxTest.IdentityMap -------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [(10.0,), (-10.0,), (10.0, 1.0), (10.0, -1.0), (-10.0, 1.0), (-10.0, -1.0)])
@pytest.mark.parametrize("interface", ALL_INTERFACES)
@pytest.mark.parametrize("ref", [1.0, 0.0, -1.0])
def test_identity_map(args: tuple[float, ...], interface: str, ref: float) -> None:
    trans = SimpleTransmission(*args)
    a = ActuatorHandle("act1", interface, ref)
    j = JointHandle("joint1", interface, 0.0)
    trans.configure([j], [a])
    trans.actuator_to_joint()
    if interface != "absolute_position":
        a.set_value(1337.1337)  # stronger than upstream, which leaves the actuator value in place
    trans.joint_to_actuator()
    # absolute_position is never written back, so (as upstream) the actuator simply keeps ref.
    assert a.get_value() == pytest.approx(ref, abs=EPS)


# --- WhiteBoxTest.MoveJoint ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("interface", "expected"),
    [
        ("effort", 10.0),
        ("velocity", 0.1),
        ("position", 1.1),
        ("torque", 10.0),
        ("force", 10.0),
        ("absolute_position", 1.1),
    ],
)
def test_move_joint(interface: str, expected: float) -> None:
    trans = SimpleTransmission(10.0, 1.0)
    a = ActuatorHandle("act1", interface, 1.0)
    j = JointHandle("joint1", interface, 0.0)
    trans.configure([j], [a])
    trans.actuator_to_joint()
    assert j.get_value() == pytest.approx(expected, abs=EPS)


def test_mismatched_interface_is_ignored() -> None:
    trans = SimpleTransmission(10.0, 1.0)
    unique = JointHandle("joint1", "velocity", 13.37)
    trans.configure([JointHandle("joint1", "position"), unique], [ActuatorHandle("act1", "position", 1.0)])
    trans.actuator_to_joint()
    assert unique.get_value() == 13.37

    unique_act = ActuatorHandle("act1", "velocity", 13.37)
    trans.configure(
        [JointHandle("joint1", "position")], [ActuatorHandle("act1", "position", 1.0), unique_act]
    )
    trans.actuator_to_joint()
    assert unique_act.get_value() == 13.37


def test_unknown_interfaces_are_ignored_and_absolute_position_is_not_written() -> None:
    trans = SimpleTransmission(10.0, 1.0)
    joint_current = JointHandle("joint1", "current", 5.0)
    j_abs = JointHandle("joint1", "absolute_position", 7.0)
    a_abs = ActuatorHandle("act1", "absolute_position", 3.0)
    trans.configure([joint_current, j_abs], [ActuatorHandle("act1", "current", 9.0), a_abs])
    trans.joint_to_actuator()
    assert a_abs.get_value() == 3.0 and joint_current.get_value() == 5.0
    trans.actuator_to_joint()
    assert j_abs.get_value() == pytest.approx(1.3)
    assert joint_current.get_value() == 5.0


# --- Our additions ------------------------------------------------------------------------------------------


def test_duplicate_valid_handles_are_refused() -> None:
    trans = SimpleTransmission(10.0)
    with pytest.raises(TransmissionError) as info:
        trans.configure(
            [JointHandle("joint1", "position"), JointHandle("joint1", "position")],
            [ActuatorHandle("act1", "position")],
        )
    assert str(info.value) == (
        "Duplicate joint handle 'joint1/position': more than one valid handle was given for one joint name "
        "and interface."
    )
    with pytest.raises(TransmissionError, match="Duplicate actuator handle 'act1/effort'"):
        trans.configure(
            [JointHandle("joint1", "effort")],
            [ActuatorHandle("act1", "effort"), ActuatorHandle("act1", "effort")],
        )


def test_duplicates_do_not_hide_upstream_errors() -> None:
    # Upstream refuses this for its actuators (it ignores the duplicate); keep its message.
    trans = SimpleTransmission(10.0)
    with pytest.raises(TransmissionError) as info:
        trans.configure(
            [JointHandle("joint1", "position"), JointHandle("joint1", "position")],
            [ActuatorHandle("act1", "position", None)],
        )
    assert str(info.value) == (
        "None of the provided actuator handles are valid or from the required interfaces"
    )


def test_invalid_duplicate_is_skipped_in_favour_of_the_valid_handle() -> None:
    # Upstream would pick the first (invalid) handle and then refuse; we use the valid one.
    trans = SimpleTransmission(10.0)
    j = JointHandle("joint1", "position")
    trans.configure([JointHandle("joint1", "position", None), j], [ActuatorHandle("act1", "position", 20.0)])
    trans.actuator_to_joint()
    assert j.get_value() == 2.0


def test_bound_names() -> None:
    trans = SimpleTransmission(10.0, joint_names=["wrist"], actuator_names=("motor",))
    assert trans.joint_names == ("wrist",) and trans.actuator_names == ("motor",)
    with pytest.raises(TransmissionError) as info:
        trans.configure([JointHandle("joint1", "position")], [ActuatorHandle("motor", "position")])
    assert (
        str(info.value)
        == "The joint handles are named ['joint1'] but this transmission's joint names are ['wrist']."
    )
    with pytest.raises(TransmissionError, match="actuator handles are named \\['act1'\\]"):
        trans.configure([JointHandle("wrist", "position")], [ActuatorHandle("act1", "position")])
    trans.configure([JointHandle("wrist", "position")], [ActuatorHandle("motor", "position")])
    assert trans.is_configured


@pytest.mark.parametrize("names", ["joint1", ["a", "b"], [1], []])
def test_bound_names_must_have_one_entry(names: object) -> None:
    with pytest.raises(TransmissionError, match="joint_names must be a sequence of 1 distinct names"):
        SimpleTransmission(1.0, joint_names=names)  # type: ignore[arg-type]


def test_handle_types_are_checked() -> None:
    trans = SimpleTransmission(1.0)
    with pytest.raises(TransmissionError) as info:
        trans.configure([ActuatorHandle("joint1", "position")], [ActuatorHandle("act1", "position")])  # type: ignore[list-item]
    assert str(info.value) == (
        "joint_handles[0] must be a JointHandle, "
        "got ActuatorHandle ActuatorHandle('joint1', 'position', 0.0)."
    )
    with pytest.raises(TransmissionError, match="actuator_handles must be a sequence of ActuatorHandle"):
        trans.configure([JointHandle("joint1", "position")], ActuatorHandle("act1", "position"))  # type: ignore[arg-type]


def test_failed_reconfigure_keeps_previous_configuration() -> None:
    trans = SimpleTransmission(10.0)
    j = JointHandle("joint1", "position")
    a = ActuatorHandle("act1", "position", 10.0)
    trans.configure([j], [a])
    with pytest.raises(TransmissionError):
        trans.configure([], [a])
    trans.actuator_to_joint()
    assert j.get_value() == 1.0


def test_offsets_and_repr() -> None:
    trans = SimpleTransmission(10.0, 1.0)
    assert trans.get_joint_position_offset() == 1.0
    assert trans.get_actuator_position_offset() == -10.0
    np.testing.assert_array_equal(trans.actuator_from_joint_velocity_matrix(), [[10.0]])
    assert repr(trans) == "SimpleTransmission(reduction=10.0, joint_offset=1.0)"
    assert (
        repr(SimpleTransmission(2.0, joint_names=["j"]))
        == "SimpleTransmission(reduction=2.0, joint_offset=0.0, joint_names=['j'])"
    )


def test_functional_api_shape_is_n_equals_one() -> None:
    trans = SimpleTransmission(10.0, 1.0)
    out = trans.actuator_to_joint_values("position", [[1.0], [2.0]])
    np.testing.assert_allclose(out, [[1.1], [1.2]])
    with pytest.raises(TransmissionError, match=r"shape \(\.\.\., 1\)"):
        trans.actuator_to_joint_values("position", [1.0, 2.0])
