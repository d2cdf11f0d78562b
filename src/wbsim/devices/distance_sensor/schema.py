"""Node schema of DistanceSensor (Webots' ``DistanceSensor.wrl``: every Solid field plus the sensor's own).

The numeric fields carry Webots' repairs (``WbDistanceSensor::updateRaySetup`` through ``WbFieldChecker``)
with Webots' warning texts, so the world checker and supervisor writes at run time
(:meth:`FieldSpec.repaired`) apply the same rules: a negative ``aperture`` or ``redColorSensitivity``
becomes its opposite, ``numberOfRays`` below 1 becomes 1, a non-positive ``gaussianWidth`` becomes 1, an
invalid ``resolution`` becomes -1. ``type`` accepts any string, as Webots does: it compares it without
case to "generic", "infra-red" (or "infrared") and "laser", and simulates anything else as a sonar
(:func:`type_code`). A laser with several rays is repaired by the compiler (it depends on two fields).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType

from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.schema import Bounds, FieldSpec, NodeSchema
from wbsim.world.schema_kit import NON_NEGATIVE, POSITIVE, node_schema, resolution_field, simulated_field, solid_fields

__all__ = ["schemas", "GENERIC", "INFRA_RED", "SONAR", "LASER", "TYPE_NAMES", "DEFAULT_LOOKUP_TABLE", "type_code",
           "repaired_fields"]

GENERIC, INFRA_RED, SONAR, LASER = 0, 1, 2, 3
"""Type codes, Webots' ``WB_DISTANCE_SENSOR_*`` (what ``getType`` returns)."""

TYPE_NAMES = ("generic", "infra-red", "sonar", "laser")
"""The documented ``type`` values, in type-code order."""

DEFAULT_LOOKUP_TABLE = ((0.0, 0.0, 0.0), (0.1, 1000.0, 0.0))
"""Webots' default table: 0 to 0.1 m read as 0 to 1000."""

_AT_LEAST_ONE = Bounds(1.0)


def type_code(value: str) -> int:
    """The type code of a ``type`` field value, as ``WbDistanceSensor::updateRaySetup`` decides it."""
    folded = value.casefold()
    if folded == "generic":
        return GENERIC
    if folded in ("infra-red", "infrared"):
        return INFRA_RED
    if folded == "laser":
        return LASER
    return SONAR  # "sonar" and every unknown string


def _repaired_fields() -> list[FieldSpec]:
    return [
        simulated_field("numberOfRays", T.SFInt32, 1, bounds=_AT_LEAST_ONE, on_violation="replace", replacement=1,
                        violation_message="Invalid 'numberOfRays' changed to 1. The value should be 1 or greater."),
        simulated_field("aperture", T.SFFloat, 1.5708, bounds=NON_NEGATIVE, on_violation="negate",
                        violation_message="Invalid 'aperture' changed to {replacement:g}. The value should be "
                                          "non-negative.", unit="rad"),
        simulated_field("gaussianWidth", T.SFFloat, 1.0, bounds=POSITIVE, on_violation="replace", replacement=1.0,
                        violation_message="Invalid 'gaussianWidth' changed to 1. The value should be positive."),
        resolution_field(),
        simulated_field("redColorSensitivity", T.SFFloat, 1.0, bounds=NON_NEGATIVE, on_violation="negate",
                        violation_message="Invalid 'redColorSensitivity' changed to {replacement:g}. The value "
                                          "should be non-negative."),
    ]


@functools.cache
def repaired_fields() -> Mapping[str, FieldSpec]:
    """The numeric fields Webots repairs, by name (read only; used for supervisor writes at run time)."""
    return MappingProxyType({spec.name: spec for spec in _repaired_fields()})


def schemas() -> list[NodeSchema]:
    """The DistanceSensor schema."""
    by_name = repaired_fields()
    return [
        node_schema("DistanceSensor", "solid", solid_fields("distance sensor") + [
            simulated_field("lookupTable", T.MFVec3f, DEFAULT_LOOKUP_TABLE, unit="m -> output, noise"),
            simulated_field("type", T.SFString, "generic"),
            by_name["numberOfRays"],
            by_name["aperture"],
            by_name["gaussianWidth"],
            by_name["resolution"],
            by_name["redColorSensitivity"],
        ]),
    ]
