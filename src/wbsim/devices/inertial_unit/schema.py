"""Node schema of InertialUnit (Webots' ``InertialUnit.wrl``: every Solid field plus the sensor's own).

``resolution`` carries Webots' repair (``WbFieldChecker::resetDoubleIfNonPositiveAndNotDisabled``): a value
that is neither -1 nor positive becomes -1 with Webots' warning. ``noise`` is the standard deviation of the
rotation noise in units of pi rad (Webots draws ``noise * pi * N(0, 1)`` per axis); Webots does not check it.
The deprecated ``lookupTable`` is accepted and ignored, as in Webots.
"""

from __future__ import annotations

from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.schema import NodeSchema
from wbsim.world.schema_kit import ignored_field, node_schema, resolution_field, simulated_field, solid_fields

__all__ = ["schemas"]


def schemas() -> list[NodeSchema]:
    """The InertialUnit schema."""
    return [
        node_schema("InertialUnit", "solid", solid_fields("inertial unit") + [
            simulated_field("noise", T.SFFloat, 0.0, unit="pi rad"),
            simulated_field("xAxis", T.SFBool, True),
            simulated_field("yAxis", T.SFBool, True),
            simulated_field("zAxis", T.SFBool, True),
            resolution_field(),
            ignored_field("lookupTable", T.MFVec3f, (), deprecated=True),
        ]),
    ]
