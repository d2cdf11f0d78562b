"""Node schema of Altimeter (Webots' ``Altimeter.wrl``: every Solid field plus the sensor's own).

``resolution`` carries Webots' repair (``WbAltimeter::updateResolution`` through ``WbFieldChecker``) with its
warning text, for the world file and supervisor writes alike; Webots runs it only when the field changes,
wbsim at load too. ``accuracy`` must be non-negative (Webots documents the range and does not repair it).
"""

from __future__ import annotations

from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.schema import FieldSpec, NodeSchema
from wbsim.world.schema_kit import MINUS_ONE_OR_POSITIVE, NON_NEGATIVE, node_schema, simulated_field, solid_fields

__all__ = ["schemas", "RESOLUTION"]

RESOLUTION: FieldSpec = simulated_field(
    "resolution", T.SFFloat, -1.0, bounds=MINUS_ONE_OR_POSITIVE, on_violation="replace", replacement=-1.0, unit="m",
    violation_message="Invalid 'resolution' changed to -1. The value should be either -1 or positive.")
"""The ``resolution`` field, with Webots' repair (also used for supervisor writes)."""


def schemas() -> list[NodeSchema]:
    """The Altimeter schema."""
    return [
        node_schema("Altimeter", "solid", solid_fields("altimeter") + [
            simulated_field("accuracy", T.SFFloat, 0.0, bounds=NON_NEGATIVE, unit="m"),
            RESOLUTION,
        ]),
    ]
