"""Node schema of Skin (Webots' ``Skin.wrl``): an AbstractTransform with a name, a model and bones."""

from __future__ import annotations

from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.schema import NodeSchema
from wbsim.world.schema_kit import ignored_field, node_schema, simulated_field, visual_field

__all__ = ["schemas"]


def schemas() -> list[NodeSchema]:
    """The Skin schema: a non-Solid node of a ``children`` field (node kind ``skin``)."""
    return [
        node_schema("Skin", "skin", [
            visual_field("translation", T.SFVec3f, (0.0, 0.0, 0.0), unit="m"),
            visual_field("rotation", T.SFRotation, (0.0, 1.0, 0.0, 0.0), unit="rad"),
            visual_field("scale", T.SFVec3f, (1.0, 1.0, 1.0)),
            simulated_field("name", T.SFString, "skin"),
            visual_field("modelUrl", T.SFString, ""),
            visual_field("appearance", T.MFNode, (), node_kinds=frozenset({"appearance"})),
            visual_field("bones", T.MFNode, (), node_kinds=frozenset({"solid"})),
            visual_field("castShadows", T.SFBool, True),
            ignored_field("translationStep", T.SFFloat, 0.01),
            ignored_field("rotationStep", T.SFFloat, 0.261799387),
        ]),
    ]
