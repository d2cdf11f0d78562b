"""Node schema of Altimeter (Webots' ``Altimeter.wrl``: every Solid field plus the sensor's own).

``resolution`` carries Webots' repair (``WbAltimeter::updateResolution`` through ``WbFieldChecker``) with its
warning text, for the world file and supervisor writes alike; Webots runs it only when the field changes,
wbsim at load too. ``accuracy`` must be non-negative (Webots documents the range and does not repair it).
"""

from __future__ import annotations

from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.schema import FieldSpec, NodeSchema
from wbsim.world.schema_kit import NON_NEGATIVE, node_schema, resolution_field, simulated_field, solid_fields

__all__ = ["schemas", "RESOLUTION"]

RESOLUTION: FieldSpec = resolution_field(unit="m")
"""The ``resolution`` field, with Webots' repair (also used for supervisor writes)."""


def schemas() -> list[NodeSchema]:
    """The Altimeter schema."""
    return [
        node_schema("Altimeter", "solid", solid_fields("altimeter") + [
            simulated_field("accuracy", T.SFFloat, 0.0, bounds=NON_NEGATIVE, unit="m"),
            RESOLUTION,
        ]),
    ]
