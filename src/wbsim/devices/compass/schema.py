"""Node schema of Compass (Webots' ``Compass.wrl``: every Solid field plus the sensor's own).

``lookupTable`` is empty by default (values pass unchanged); ``resolution`` carries Webots' repair
(``WbFieldChecker::resetDoubleIfNonPositiveAndNotDisabled``): a value that is neither -1 nor positive
becomes -1 with Webots' warning.
"""

from __future__ import annotations

from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.schema import NodeSchema
from wbsim.world.schema_kit import node_schema, resolution_field, simulated_field, solid_fields

__all__ = ["schemas"]


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
