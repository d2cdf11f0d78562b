"""Node schema of GPS (Webots' ``GPS.wrl``: every Solid field plus the sensor's own).

The numeric fields carry Webots' repairs (``WbGps::updateCorrelation``, ``updateResolution``,
``updateSpeedNoise``, ``updateSpeedResolution`` through ``WbFieldChecker``) with Webots' warning texts, for
the world file and supervisor writes alike (:meth:`FieldSpec.repaired`). Webots runs them only when a field
changes, so it keeps an invalid value read from the file (and then computes NaN); wbsim repairs it at load
too. ``accuracy`` must be non-negative (Webots documents the range and does not repair it).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType

from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.schema import FieldSpec, NodeSchema
from wbsim.world.schema_kit import NON_NEGATIVE, UNIT, ignored_field, node_schema, resolution_field, simulated_field, \
    solid_fields

__all__ = ["schemas", "repaired_fields", "TYPES"]

TYPES = ("satellite", "laser")
"""The values of ``type`` (Webots ignores the field)."""


def _repaired_fields() -> list[FieldSpec]:
    return [
        simulated_field("noiseCorrelation", T.SFFloat, 0.0, bounds=UNIT, on_violation="replace", replacement=0.0,
                        violation_message="Invalid 'noiseCorrelation' changed to 0. The value should be in range "
                                          "[0, 1]."),
        resolution_field(unit="m"),
        simulated_field("speedNoise", T.SFFloat, 0.0, bounds=NON_NEGATIVE, on_violation="replace", replacement=0.0,
                        violation_message="Invalid 'speedNoise' changed to 0. The value should be non-negative."),
        resolution_field("speedResolution", "m/s"),
    ]


@functools.cache
def repaired_fields() -> Mapping[str, FieldSpec]:
    """The numeric fields Webots repairs, by name (read only; used for supervisor writes at run time)."""
    return MappingProxyType({spec.name: spec for spec in _repaired_fields()})


def schemas() -> list[NodeSchema]:
    """The GPS schema."""
    by_name = repaired_fields()
    return [
        node_schema("GPS", "solid", solid_fields("gps") + [
            ignored_field("type", T.SFString, "satellite", choices=TYPES),
            simulated_field("accuracy", T.SFFloat, 0.0, bounds=NON_NEGATIVE, unit="m"),
            by_name["noiseCorrelation"],
            by_name["resolution"],
            by_name["speedNoise"],
            by_name["speedResolution"],
        ]),
    ]
