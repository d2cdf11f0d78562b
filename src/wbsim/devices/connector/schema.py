"""Node schema of Connector (Webots' ``Connector.wrl``: every Solid field plus the connector's own).

The numeric fields carry Webots' repairs (``WbConnector::update*``) with Webots' warning texts, so the
world checker and supervisor writes at run time (:meth:`FieldSpec.repaired`) apply the same rules.
``type`` accepts any string: Webots keeps an unknown type and disables locking (``UNKNOWN``), which the
compiler reports; ``isLocked`` on a passive connector is repaired by the compiler (it depends on ``type``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from types import MappingProxyType

from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.schema import Bounds, FieldSpec, NodeSchema
from wbsim.world.schema_kit import MINUS_ONE_OR_NON_NEGATIVE, NON_NEGATIVE, node_schema, simulated_field, solid_fields

__all__ = ["schemas", "TYPES", "SYMMETRIC", "ACTIVE", "PASSIVE", "UNKNOWN", "type_code", "repaired_fields"]

TYPES = ("symmetric", "active", "passive")
"""The valid values of the ``type`` field."""

SYMMETRIC, ACTIVE, PASSIVE, UNKNOWN = 0, 1, 2, 3
"""Face type codes (Webots' ``mFaceType``); ``UNKNOWN`` is compatible with nothing."""

_ANGLE = Bounds(0.0, math.pi)


def type_code(value: str) -> int:
    """The face type code of a ``type`` field value (``UNKNOWN`` for anything but the three names)."""
    return TYPES.index(value) if value in TYPES else UNKNOWN


def _repaired_fields() -> list[FieldSpec]:
    return [
        simulated_field("distanceTolerance", T.SFFloat, 0.01, bounds=NON_NEGATIVE, on_violation="replace",
                        replacement=0.0, violation_message="'distanceTolerance' must be positive or zero.", unit="m"),
        simulated_field("axisTolerance", T.SFFloat, 0.2, bounds=_ANGLE, on_violation="clamp",
                        violation_message="'axisTolerance' must be between 0 and pi.", unit="rad"),
        # Webots' text has no "be" in it.
        simulated_field("rotationTolerance", T.SFFloat, 0.2, bounds=_ANGLE, on_violation="clamp",
                        violation_message="'rotationTolerance' must between 0 and pi.", unit="rad"),
        simulated_field("numberOfRotations", T.SFInt32, 4, bounds=NON_NEGATIVE, on_violation="replace",
                        replacement=0, violation_message="'numberOfRotations' must be positive or zero."),
        simulated_field("tensileStrength", T.SFFloat, -1.0, bounds=MINUS_ONE_OR_NON_NEGATIVE, on_violation="replace",
                        replacement=-1.0, violation_message="'tensileStrength' must be positive or -1 (infinite).",
                        unit="N"),
        simulated_field("shearStrength", T.SFFloat, -1.0, bounds=MINUS_ONE_OR_NON_NEGATIVE, on_violation="replace",
                        replacement=-1.0, violation_message="'shearStrength' must be positive or -1 (infinite).",
                        unit="N"),
    ]


def _fields() -> list[FieldSpec]:
    repaired = _repaired_fields()
    by_name = {spec.name: spec for spec in repaired}
    return [
        simulated_field("type", T.SFString, "symmetric"),
        simulated_field("isLocked", T.SFBool, False),
        simulated_field("autoLock", T.SFBool, False),
        simulated_field("unilateralLock", T.SFBool, True),
        simulated_field("unilateralUnlock", T.SFBool, True),
        by_name["distanceTolerance"],
        by_name["axisTolerance"],
        by_name["rotationTolerance"],
        by_name["numberOfRotations"],
        simulated_field("snap", T.SFBool, True),
        by_name["tensileStrength"],
        by_name["shearStrength"],
    ]


@functools.cache
def repaired_fields() -> Mapping[str, FieldSpec]:
    """The numeric fields Webots repairs, by name (read only; used for supervisor writes at run time)."""
    return MappingProxyType({spec.name: spec for spec in _repaired_fields()})


def schemas() -> list[NodeSchema]:
    """The Connector schema."""
    return [node_schema("Connector", "solid", solid_fields("connector") + _fields())]
