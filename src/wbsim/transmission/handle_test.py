"""Tests for wbsim.transmission.handle (handles and upstream's accessor helpers)."""

from __future__ import annotations

import math

import pytest

from wbsim.errors import TransmissionError, WbsimError
from wbsim.transmission.handle import (
    ActuatorHandle,
    Handle,
    JointHandle,
    get_names,
    get_ordered_handles,
    to_string,
)


def test_names_and_value() -> None:
    h = JointHandle("joint1", "position", 1.5)
    assert h.get_name() == "joint1/position"
    assert h.get_prefix_name() == "joint1"
    assert h.get_interface_name() == "position"
    assert h.get_value() == 1.5
    h.set_value(-2)
    assert h.get_value() == -2.0 and isinstance(h.get_value(), float)
    assert bool(h)
    assert repr(h) == "JointHandle('joint1', 'position', -2.0)"


def test_default_value_is_zero() -> None:
    assert ActuatorHandle("act1", "velocity").get_value() == 0.0


def test_invalid_handle() -> None:
    h = ActuatorHandle("act1", "effort", None)
    assert not h
    assert h.get_name() == "act1/effort"
    with pytest.raises(TransmissionError, match="get_value\\(\\) failed: handle 'act1/effort' is invalid"):
        h.get_value()
    with pytest.raises(TransmissionError, match="set_value\\(\\) failed"):
        h.set_value(1.0)
    assert repr(h) == "ActuatorHandle('act1', 'effort', None)"


def test_errors_are_wbsim_errors() -> None:
    assert issubclass(TransmissionError, WbsimError)


@pytest.mark.parametrize("bad", ["1.0", b"1", object(), [1.0]])
def test_non_numeric_values_are_refused(bad: object) -> None:
    with pytest.raises(TransmissionError, match="must be a real number"):
        JointHandle("joint1", "position", bad)  # type: ignore[arg-type]
    h = JointHandle("joint1", "position")
    with pytest.raises(TransmissionError, match="must be a real number"):
        h.set_value(bad)  # type: ignore[arg-type]


def test_nan_and_inf_values_are_stored() -> None:
    h = JointHandle("joint1", "position", math.nan)
    assert math.isnan(h.get_value())
    h.set_value(math.inf)
    assert h.get_value() == math.inf


def test_names_must_be_strings() -> None:
    with pytest.raises(TransmissionError, match="Handle names must be strings"):
        Handle(1, "position")  # type: ignore[arg-type]


def test_handle_kinds_are_distinct_types() -> None:
    assert not isinstance(JointHandle("j", "position"), ActuatorHandle)
    assert isinstance(ActuatorHandle("a", "position"), Handle)


# Upstream utils_test.cpp


def test_get_names_single() -> None:
    handles = [JointHandle("joint", "position", 0.0)]
    assert get_names(handles) == ["joint"]
    assert get_ordered_handles(handles, ["joint"], "position") == handles


def test_get_names_sorted_bytewise_and_counts_invalid() -> None:
    handles = [
        JointHandle("joint2", "position"),
        JointHandle("joint10", "position", None),
        JointHandle("joint2", "velocity"),
    ]
    assert get_names(handles) == ["joint10", "joint2"]


def test_get_ordered_handles_groups_by_name_order_and_drops_invalid() -> None:
    a = JointHandle("b", "position")
    b = JointHandle("a", "position")
    c = JointHandle("a", "position", None)
    d = JointHandle("a", "velocity")
    e = JointHandle("a", "position")
    assert get_ordered_handles([a, b, c, d, e], ["a", "b"], "position") == [b, e, a]


def test_to_string_keeps_trailing_space() -> None:
    assert to_string([]) == "[]"
    assert to_string(["joint1"]) == "[joint1] "
    assert to_string(["joint1", "joint2", "joint3"]) == "[joint1, joint2, joint3] "
