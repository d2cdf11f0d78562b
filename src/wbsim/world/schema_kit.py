"""Building blocks for node schemas: common bounds, field constructors, and the fields Webots nodes share.

Used by the built-in table (:mod:`wbsim.world.builtin_nodes`) and by device kinds, which declare the
schemas of their own node types (see :mod:`wbsim.devices.kind`).
"""

from __future__ import annotations

import functools
import math

from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.schema import Bounds, FieldSpec, NodeSchema

__all__ = [
    "INF",
    "POSITIVE",
    "NON_NEGATIVE",
    "UNIT",
    "MINUS_ONE_OR_NON_NEGATIVE",
    "MINUS_ONE_OR_POSITIVE",
    "CHILD_KINDS",
    "TOP_LEVEL_KINDS",
    "BOUNDING_KINDS",
    "SOUNDS_URL",
    "simulated_field",
    "resolution_field",
    "visual_field",
    "ignored_field",
    "node_schema",
    "pose_fields",
    "solid_fields",
]

INF = math.inf
POSITIVE = Bounds(0.0, INF, lo_open=True)
NON_NEGATIVE = Bounds(0.0, INF)
UNIT = Bounds(0.0, 1.0)
MINUS_ONE_OR_NON_NEGATIVE = Bounds(0.0, INF, also=(-1.0,))
MINUS_ONE_OR_POSITIVE = Bounds(0.0, INF, lo_open=True, also=(-1.0,))

CHILD_KINDS = frozenset({"solid", "group", "shape", "joint", "light", "propeller", "skin"})
"""Node kinds accepted in the ``children`` field of grouping nodes and solids."""
TOP_LEVEL_KINDS = CHILD_KINDS | {"world"}
"""Node kinds accepted at the top level of a world file."""
BOUNDING_KINDS = frozenset({"geometry", "shape", "group"})
"""Node kinds accepted in a ``boundingObject`` field."""
SOUNDS_URL = "webots://projects/default/worlds/sounds/"
"""Where Webots' default device sounds live (sound fields are accepted and ignored)."""


def simulated_field(name: str, type_: T, default: object, **kw: object) -> FieldSpec:
    """A field wbsim uses (see :class:`FieldSpec` for the keywords)."""
    return FieldSpec(name, type_, default, **kw)  # type: ignore[arg-type]


@functools.cache
def resolution_field(name: str = "resolution", unit: str = "") -> FieldSpec:
    """A sensor's resolution field (default -1: infinite) with Webots' repair, also applied to supervisor writes:
    0 or a negative value other than -1 becomes -1 (``WbFieldChecker::resetDoubleIfNonPositiveAndNotDisabled``)."""
    return simulated_field(name, T.SFFloat, -1.0, bounds=MINUS_ONE_OR_POSITIVE, on_violation="replace",
                           replacement=-1.0, unit=unit,
                           violation_message=f"Invalid '{name}' changed to -1. The value should be either -1 or "
                                             "positive.")


def visual_field(name: str, type_: T, default: object, **kw: object) -> FieldSpec:
    """A field accepted for its visual meaning only."""
    return simulated_field(name, type_, default, effect="visual", **kw)


def ignored_field(name: str, type_: T, default: object, **kw: object) -> FieldSpec:
    """A field accepted and ignored (no physical or visual effect in wbsim)."""
    return simulated_field(name, type_, default, effect="ignored", **kw)


def node_schema(name: str, kinds: str, fields: list[FieldSpec], support: str = "simulated") -> NodeSchema:
    """A node schema with space-separated ``kinds`` and fields in declaration order."""
    return NodeSchema(name, {f.name: f for f in fields}, frozenset(kinds.split()), support)  # type: ignore[arg-type]


def pose_fields() -> list[FieldSpec]:
    """The fields of Pose (translation, rotation, children)."""
    return [
        simulated_field("translation", T.SFVec3f, (0.0, 0.0, 0.0), unit="m"),
        simulated_field("rotation", T.SFRotation, (0.0, 0.0, 1.0, 0.0), unit="rad"),
        simulated_field("children", T.MFNode, (), node_kinds=CHILD_KINDS),
        ignored_field("translationStep", T.SFFloat, 0.01),
        ignored_field("rotationStep", T.SFFloat, 0.261799387),
    ]


def solid_fields(name: str) -> list[FieldSpec]:
    """The fields of Solid, with ``name`` as the default of the ``name`` field (devices derive from Solid)."""
    return pose_fields() + [
        simulated_field("name", T.SFString, name),
        simulated_field("model", T.SFString, ""),
        ignored_field("description", T.SFString, ""),
        simulated_field("contactMaterial", T.SFString, "default"),
        ignored_field("immersionProperties", T.MFNode, (), node_kinds=frozenset({"immersion"})),
        simulated_field("boundingObject", T.SFNode, None, node_kinds=BOUNDING_KINDS),
        simulated_field("physics", T.SFNode, None, node_kinds=frozenset({"physics"})),
        ignored_field("locked", T.SFBool, False),
        ignored_field("radarCrossSection", T.SFFloat, 0.0),
        ignored_field("recognitionColors", T.MFColor, ()),
        # Hidden fields that Webots writes when saving a running world: the initial body velocity.
        simulated_field("linearVelocity", T.SFVec3f, (0.0, 0.0, 0.0), unit="m/s"),
        simulated_field("angularVelocity", T.SFVec3f, (0.0, 0.0, 0.0), unit="rad/s"),
    ]
