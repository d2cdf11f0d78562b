"""Node schema of LED (Webots' ``LED.wrl``: every Solid field plus ``color`` and ``gradual``)."""

from __future__ import annotations

from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.schema import NodeSchema
from wbsim.world.schema_kit import node_schema, simulated_field, solid_fields

__all__ = ["schemas"]


def schemas() -> list[NodeSchema]:
    """The LED schema."""
    return [
        node_schema("LED", "solid", solid_fields("led") + [
            simulated_field("color", T.MFColor, ((1.0, 0.0, 0.0),)),
            simulated_field("gradual", T.SFBool, False),
        ]),
    ]
