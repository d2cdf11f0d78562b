"""Tests for wbsim.transmission.interfaces."""

from __future__ import annotations

import pytest

from wbsim.transmission import interfaces as ifc


def test_names_are_ros2_control_names() -> None:
    assert ifc.ALL_INTERFACES == ("position", "velocity", "effort", "torque", "force", "absolute_position")


@pytest.mark.parametrize(
    ("interface", "kind"),
    [
        ("position", "position"),
        ("absolute_position", "position"),
        ("velocity", "velocity"),
        ("effort", "effort"),
        ("torque", "effort"),
        ("force", "effort"),
    ],
)
def test_map_kind(interface: str, kind: str) -> None:
    assert ifc.map_kind(interface) == kind


def test_map_kind_unknown() -> None:
    with pytest.raises(KeyError):
        ifc.map_kind("current")


def test_labels_and_groups() -> None:
    assert ifc.interface_label("absolute_position") == "absolute position"
    assert ifc.interface_label("effort") == "effort"
    assert set(ifc.POSITION_LIKE) | {ifc.VELOCITY} | set(ifc.EFFORT_LIKE) == set(ifc.ALL_INTERFACES)
    assert ifc.ACTUATOR_TO_JOINT_ONLY == ("absolute_position",)
