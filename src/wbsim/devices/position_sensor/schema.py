"""Node schema of PositionSensor (Webots' ``PositionSensor.wrl``)."""

from __future__ import annotations

from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.schema import NodeSchema
from wbsim.world.schema_kit import MINUS_ONE_OR_POSITIVE, NON_NEGATIVE, node_schema, simulated_field

__all__ = ["schemas"]


def schemas() -> list[NodeSchema]:
    """The PositionSensor schema (in hinge and slider joints)."""
    return [
        node_schema("PositionSensor", "rotational_device linear_device", [
            simulated_field("name", T.SFString, "position sensor"),
            simulated_field("noise", T.SFFloat, 0.0, bounds=NON_NEGATIVE),
            simulated_field("resolution", T.SFFloat, -1.0, bounds=MINUS_ONE_OR_POSITIVE),
        ]),
    ]
