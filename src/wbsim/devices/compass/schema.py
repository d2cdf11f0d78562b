"""Node schema of Compass (Webots' ``Compass.wrl``: every Solid field plus the sensor's own).

``lookupTable`` is empty by default (values pass unchanged); ``resolution`` carries Webots' repair
(``WbFieldChecker::resetDoubleIfNonPositiveAndNotDisabled``): a value that is neither -1 nor positive
becomes -1 with Webots' warning.
"""

from __future__ import annotations

import functools

from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.schema import FieldSpec, NodeSchema
from wbsim.world.schema_kit import MINUS_ONE_OR_POSITIVE, node_schema, simulated_field, solid_fields

__all__ = ["schemas", "resolution_field"]


@functools.cache
def resolution_field() -> FieldSpec:
    """The ``resolution`` field with Webots' repair (also applied to supervisor writes)."""
    return simulated_field("resolution", T.SFFloat, -1.0, bounds=MINUS_ONE_OR_POSITIVE, on_violation="replace",
                           replacement=-1.0,
                           violation_message="Invalid 'resolution' changed to -1. The value should be either -1 or "
                                             "positive.")


def schemas() -> list[NodeSchema]:
    """The Compass schema."""
    return [
        node_schema("Compass", "solid", solid_fields("compass") + [
            simulated_field("lookupTable", T.MFVec3f, (), unit="north component -> output, noise"),
            simulated_field("xAxis", T.SFBool, True),
            simulated_field("yAxis", T.SFBool, True),
            simulated_field("zAxis", T.SFBool, True),
            resolution_field(),
        ]),
    ]
