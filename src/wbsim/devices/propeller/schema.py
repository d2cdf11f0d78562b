"""Node schema of Propeller (Webots' ``Propeller.wrl``)."""

from __future__ import annotations

from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.schema import NodeSchema
from wbsim.world.schema_kit import NON_NEGATIVE, node_schema, simulated_field, visual_field

__all__ = ["schemas"]


def schemas() -> list[NodeSchema]:
    """The Propeller schema: a non-Solid node of a ``children`` field (node kind ``propeller``)."""
    return [
        node_schema("Propeller", "propeller", [
            simulated_field("shaftAxis", T.SFVec3f, (1.0, 0.0, 0.0), unit="direction"),
            simulated_field("centerOfThrust", T.SFVec3f, (0.0, 0.0, 0.0), unit="m"),
            simulated_field("thrustConstants", T.SFVec2f, (1.0, 0.0), unit="N/(rad/s)^2, N/(rad/s * m/s)"),
            simulated_field("torqueConstants", T.SFVec2f, (1.0, 0.0), unit="N*m/(rad/s)^2, N*m/(rad/s * m/s)"),
            visual_field("fastHelixThreshold", T.SFFloat, 75.4, bounds=NON_NEGATIVE, unit="rad/s"),
            simulated_field("device", T.SFNode, None, node_kinds=frozenset({"rotational_device"})),
            visual_field("fastHelix", T.SFNode, None, node_kinds=frozenset({"solid"})),
            visual_field("slowHelix", T.SFNode, None, node_kinds=frozenset({"solid"})),
        ]),
    ]
