"""Node schemas of the inert devices: every Solid field plus the node's own fields (accepted, ignored)."""

from __future__ import annotations

from wbsim.devices.inert.spec import INERT_DEVICES
from wbsim.world.schema import NodeSchema
from wbsim.world.schema_kit import node_schema, solid_fields

__all__ = ["schemas"]


def schemas() -> list[NodeSchema]:
    """One schema per inert node type (Webots' ``resources/nodes/<Type>.wrl`` field lists)."""
    return [node_schema(spec.node_type, "solid", solid_fields(spec.default_name) + list(spec.fields))
            for spec in INERT_DEVICES.values()]
