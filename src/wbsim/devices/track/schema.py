"""Node schemas of Track and TrackWheel (Webots' ``Track.wrl`` / ``TrackWheel.wrl``)."""

from __future__ import annotations

from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.schema import NodeSchema
from wbsim.world.schema_kit import (
    CHILD_KINDS,
    NON_NEGATIVE,
    node_schema,
    simulated_field,
    solid_fields,
    visual_field,
)

__all__ = ["schemas"]


def schemas() -> list[NodeSchema]:
    """The Track schema (a Solid) and the TrackWheel schema (graphics only, in a Track's children)."""
    # A Track's children may hold TrackWheels (only there: Webots accepts them nowhere else).
    fields = [simulated_field("children", T.MFNode, (), node_kinds=CHILD_KINDS | {"track_wheel"})
              if spec.name == "children" else spec for spec in solid_fields("track")]
    return [
        node_schema("Track", "solid", fields + [
            simulated_field("device", T.MFNode, (), node_kinds=frozenset({"linear_device"})),
            visual_field("textureAnimation", T.SFVec2f, (0.0, 0.0)),
            visual_field("animatedGeometry", T.SFNode, None, node_kinds=frozenset({"shape", "group"})),
            visual_field("geometriesCount", T.SFInt32, 10, bounds=NON_NEGATIVE),
        ]),
        node_schema("TrackWheel", "track_wheel", [
            visual_field("position", T.SFVec2f, (0.0, 0.0), unit="m"),
            visual_field("radius", T.SFFloat, 0.1, bounds=NON_NEGATIVE, unit="m"),
            visual_field("inner", T.SFBool, True),
            visual_field("children", T.MFNode, (), node_kinds=frozenset({"group", "shape"})),
        ]),
    ]
