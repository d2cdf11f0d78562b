"""Node schema of TouchSensor (Webots' ``TouchSensor.wrl``: every Solid field plus the sensor's own)."""

from __future__ import annotations

from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.schema import NodeSchema
from wbsim.world.schema_kit import node_schema, resolution_field, simulated_field, solid_fields

__all__ = ["schemas", "TYPES", "DEFAULT_LOOKUP_TABLE"]

TYPES = ("bumper", "force", "force-3d")
"""The values of the ``type`` field, in the order of ``TouchSensor.BUMPER/FORCE/FORCE3D``."""

DEFAULT_LOOKUP_TABLE = ((0.0, 0.0, 0.0), (5000.0, 50000.0, 0.0))
"""Webots' default table: 0 to 5000 N read as 0 to 50000 (units of 0.1 N)."""


def schemas() -> list[NodeSchema]:
    """The TouchSensor schema."""
    return [
        node_schema("TouchSensor", "solid", solid_fields("touch sensor") + [
            # Webots (WbTouchSensor::updateType) warns and falls back to a bumper for any other type.
            simulated_field("type", T.SFString, "bumper", choices=TYPES, on_violation="replace",
                            replacement="bumper", violation_message='Unknown \'type\': "{value}". Set to "bumper"'),
            simulated_field("lookupTable", T.MFVec3f, DEFAULT_LOOKUP_TABLE, unit="N -> output, noise"),
            # WbFieldChecker::resetDoubleIfNonPositiveAndNotDisabled.
            resolution_field(),
        ]),
    ]
