"""Webots field types and the conversion of written literals to Python values.

Python representation of each type (immutable, so checked values can be shared safely):

========== ===============================================
SFBool     ``bool``
SFInt32    ``int``
SFFloat    ``float``
SFString   ``str``
SFVec2f    ``tuple[float, float]``
SFVec3f    ``tuple[float, float, float]``
SFColor    ``tuple[float, float, float]`` (RGB in [0, 1])
SFRotation ``tuple[float, float, float, float]``: unit axis x, y, z and angle in rad
SFNode     a checked node or ``None``
MFxxx      ``tuple`` of the SF values
========== ===============================================
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

__all__ = ["FieldType", "literal_arity", "convert_literals", "LiteralError"]


class FieldType(enum.Enum):
    """The field types of the Webots scene description language."""

    SFBool = "SFBool"
    SFInt32 = "SFInt32"
    SFFloat = "SFFloat"
    SFString = "SFString"
    SFVec2f = "SFVec2f"
    SFVec3f = "SFVec3f"
    SFColor = "SFColor"
    SFRotation = "SFRotation"
    SFNode = "SFNode"
    MFBool = "MFBool"
    MFInt32 = "MFInt32"
    MFFloat = "MFFloat"
    MFString = "MFString"
    MFVec2f = "MFVec2f"
    MFVec3f = "MFVec3f"
    MFColor = "MFColor"
    MFRotation = "MFRotation"
    MFNode = "MFNode"

    # Read per field value while loading, so plain attributes of each member (set once, when the enum is made)
    # rather than properties (a call each time).
    is_multiple: bool
    """True for MF types."""
    is_node: bool
    """True for SFNode and MFNode."""
    single: FieldType
    """The SF type of one element (the type itself for SF types)."""

    def __init__(self, value: str) -> None:
        self.is_multiple = value.startswith("MF")
        self.is_node = value.endswith("Node")

    @property
    def description(self) -> str:
        """What a value of this type looks like, for error messages."""
        return _DESCRIPTIONS[self.single.value] if not self.is_multiple else (
            f"a list [ ... ] of {_DESCRIPTIONS[self.single.value]} values, or a single one"
        )


def _link_single_types() -> None:
    """Give each member its SF type (possible only once every member exists)."""
    for member in FieldType:
        member.single = FieldType["SF" + member.value[2:]]


_link_single_types()

_DESCRIPTIONS = {
    "SFBool": "TRUE or FALSE",
    "SFInt32": "an integer",
    "SFFloat": "a number",
    "SFString": 'a string in double quotes',
    "SFVec2f": "2 numbers",
    "SFVec3f": "3 numbers",
    "SFColor": "3 numbers (red green blue)",
    "SFRotation": "4 numbers (axis x y z, angle in rad)",
    "SFNode": "a node, USE or NULL",
}
_ARITY = {"SFBool": 1, "SFInt32": 1, "SFFloat": 1, "SFString": 1, "SFVec2f": 2, "SFVec3f": 3, "SFColor": 3,
          "SFRotation": 4}
_KIND = {"SFBool": "bool", "SFString": "string"}
_INT32_MIN = -(2**31)
_INT32_MAX = 2**31 - 1


def literal_arity(field_type: FieldType) -> int:
    """Number of literals that make one element of a non-node type."""
    return _ARITY[field_type.single.value]


@dataclass(frozen=True, slots=True)
class LiteralError(Exception):
    """A literal run does not match the field type; ``index`` is the offending literal (or -1 for the count)."""

    message: str
    index: int


def _element(single: FieldType, kinds: list[str], values: list[object], start: int) -> object:
    name = single._value_  # the plain attribute behind ``value`` (a descriptor call)
    arity = _ARITY[name]
    want = _KIND.get(name, "number")
    for i in range(start, start + arity):
        if kinds[i] != want:
            raise LiteralError(f"expected {_DESCRIPTIONS[name]}", i)
    chunk = values[start : start + arity]
    if name == "SFInt32":
        number = chunk[0]
        assert isinstance(number, float)
        if not number.is_integer():
            raise LiteralError(f"expected an integer, found {number!r}", start)
        if not _INT32_MIN <= number <= _INT32_MAX:
            raise LiteralError(f"expected a 32-bit integer, found {number:.0f}", start)
        return int(number)
    if arity == 1:
        return chunk[0]
    numbers = tuple(float(v) for v in chunk)  # type: ignore[arg-type]
    if name == "SFRotation":
        x, y, z, angle = numbers
        norm = math.sqrt(x * x + y * y + z * z)
        if norm == 0.0:
            if angle != 0.0:
                raise LiteralError("rotation axis is zero but the angle is not", start)
            return (0.0, 0.0, 1.0, 0.0)
        if abs(norm - 1.0) > 1e-12:
            # Webots normalises non-unit axes; keep the same behaviour so files written by hand work.
            return (x / norm, y / norm, z / norm, angle)
    return numbers


def convert_literals(field_type: FieldType, kinds: list[str], values: list[object], bracketed: bool) -> object:
    """Convert a run of literals (no nodes) to the Python value of ``field_type``.

    Args:
        field_type: the target type (not SFNode/MFNode).
        kinds: per literal, ``"number"``, ``"string"`` or ``"bool"``.
        values: per literal, the decoded value (float, str, bool).
        bracketed: True if the literals were written inside ``[ ]``.

    Raises:
        LiteralError: with the index of the offending literal.
    """
    single = field_type.single
    arity = _ARITY[single._value_]
    if not field_type.is_multiple:
        if bracketed:
            raise LiteralError(f"'[ ]' is only for MF fields; expected {_DESCRIPTIONS[single.value]}", -1)
        if len(kinds) != arity:
            raise LiteralError(f"expected {_DESCRIPTIONS[single.value]}, found {len(kinds)} value(s)", -1)
        return _element(single, kinds, values, 0)
    if len(kinds) % arity != 0:
        raise LiteralError(
            f"expected groups of {arity} value(s) ({_DESCRIPTIONS[single.value]}), found {len(kinds)} value(s)", -1
        )
    if not bracketed and len(kinds) != arity:
        raise LiteralError(f"several values of an MF field must be written inside [ ]", -1)
    return tuple(_element(single, kinds, values, i) for i in range(0, len(kinds), arity))
