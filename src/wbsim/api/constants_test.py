"""Node type constants have Webots' numbers (the order of WbNodeType in Webots' nodes.h)."""

from __future__ import annotations

from wbsim.api.constants import NODE_TYPE_NAMES, node_type_of


def test_webots_numbers():
    assert len(NODE_TYPE_NAMES) == 88  # WB_NODE_NO_NODE .. WB_NODE_RADIO
    assert [node_type_of(t) for t in ("Pose", "Robot", "Propeller", "Radar", "Hinge2Joint", "Solid", "Radio")] == [
        26, 34, 53, 54, 71, 80, 87]


def test_names_without_a_number_of_their_own():
    assert node_type_of("Hinge2JointParameters") == node_type_of("HingeJointParameters") == 70
    assert node_type_of("NotANode") == 0
    assert node_type_of("PBRAppearance") == 22 and node_type_of("GPS") == 44 and node_type_of("LED") == 47
