"""The node schema shared by Accelerometer and Gyro (Webots' ``Accelerometer.wrl`` / ``Gyro.wrl``)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType

from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.schema import FieldSpec, NodeSchema
from wbsim.world.schema_kit import node_schema, resolution_field, simulated_field, solid_fields

__all__ = ["three_axis_schema", "repaired_fields", "AXIS_FIELDS"]

AXIS_FIELDS = ("xAxis", "yAxis", "zAxis")
"""The fields enabling each axis, in axis order."""


@functools.cache
def repaired_fields() -> Mapping[str, FieldSpec]:
    """The numeric fields Webots repairs, by name: ``resolution`` (0 or negative other than -1 becomes -1,
    ``WbFieldChecker::resetDoubleIfNonPositiveAndNotDisabled``), for supervisor writes at run time."""
    return MappingProxyType({"resolution": resolution_field()})


def three_axis_schema(type_name: str, default_name: str, unit: str) -> NodeSchema:
    """The schema of a three-axis sensor node: every Solid field plus ``lookupTable`` (default empty: the raw
    value), ``xAxis``/``yAxis``/``zAxis`` (TRUE) and ``resolution`` (-1: infinite).

    Args:
        type_name: the Webots node type ("Accelerometer", "Gyro").
        default_name: the default ``name`` ("accelerometer", "gyro").
        unit: the unit of the measured value, for the node reference (e.g. "m/s^2").
    """
    return node_schema(type_name, "solid", solid_fields(default_name) + [
        simulated_field("lookupTable", T.MFVec3f, (), unit=f"{unit} -> output, noise"),
        *(simulated_field(name, T.SFBool, True) for name in AXIS_FIELDS),
        repaired_fields()["resolution"],
    ])
