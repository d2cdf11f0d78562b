"""Node schemas as data: the fields of each node type with their types, defaults and accepted values.

A :class:`NodeSchema` says which fields a node has; a :class:`FieldSpec` gives the type, the default,
the accepted values (a choice list or numeric :class:`Bounds`), what happens to a value outside them
(an error, or Webots' own sanitising with a warning) and, for node fields, which node kinds fit.
The built-in tables live in :mod:`wbsim.world.builtin_nodes`; PROTO interfaces become schemas too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from wbsim.world.fieldtypes import FieldType

__all__ = ["Bounds", "FieldSpec", "NodeSchema", "Support", "Violation"]

Support = Literal["simulated", "visual", "unsupported"]
"""How wbsim treats a node type: simulated, accepted with no effect (visual), or skipped with a warning."""

Violation = Literal["error", "replace", "clamp", "negate"]
"""What to do with a numeric value outside its bounds: report an error, replace it by a fixed value, clamp it,
or take its opposite (Webots' ``resetDoubleIfNegative(field, -value)``, e.g. a DistanceSensor's aperture)."""


@dataclass(frozen=True, slots=True)
class Bounds:
    """A numeric interval with optional extra allowed values, e.g. ``{-1, [0, inf)}``.

    Attributes:
        lo: lower end (``-inf`` for none).
        hi: upper end (``inf`` for none).
        lo_open: True if ``lo`` itself is excluded.
        hi_open: True if ``hi`` itself is excluded.
        also: isolated values that are accepted outside the interval (e.g. -1 meaning "infinite").
    """

    lo: float = -math.inf
    hi: float = math.inf
    lo_open: bool = False
    hi_open: bool = False
    also: tuple[float, ...] = ()

    def contains(self, value: float) -> bool:
        """True if ``value`` is accepted."""
        if value in self.also:
            return True
        if math.isnan(value):
            return False
        above = value > self.lo if self.lo_open else value >= self.lo
        below = value < self.hi if self.hi_open else value <= self.hi
        return above and below

    def clamp(self, value: float) -> float:
        """The closest accepted value of the closed interval."""
        return min(max(value, self.lo), self.hi)

    def __str__(self) -> str:
        def end(v: float) -> str:
            if math.isinf(v):
                return "inf" if v > 0 else "-inf"
            return f"{v:g}"

        opening = "(" if self.lo_open or math.isinf(self.lo) else "["
        closing = ")" if self.hi_open or math.isinf(self.hi) else "]"
        interval = f"{opening}{end(self.lo)}, {end(self.hi)}{closing}"
        if self.also:
            return "{" + ", ".join(f"{v:g}" for v in self.also) + ", " + interval + "}"
        return interval


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """The schema of one field.

    Attributes:
        name: the field name.
        type: the field type.
        default: the default value in the Python representation of :mod:`wbsim.world.fieldtypes`.
        choices: accepted values of a string (or number) field; None for any.
        bounds: accepted numeric range, applied to every number of the value; None for any.
        on_violation: ``"error"`` (default), ``"replace"`` (by ``replacement``, with a warning, as Webots
            does for some fields; for numbers outside ``bounds`` and strings outside ``choices``) or
            ``"clamp"`` (numbers to the bounds, with a warning) or ``"negate"`` (a scalar by its opposite, with
            a warning; for fields whose bounds are ``[0, inf)``).
        replacement: the value used when ``on_violation == "replace"``.
        violation_message: Webots' own warning text for a replaced value, with ``{value}`` (the value
            found) and ``{replacement}``; None for wbsim's generic text.
        node_kinds: for SFNode/MFNode fields, the node kinds accepted (see ``NodeSchema.kinds``).
        unit: the unit of numeric values, for documentation (e.g. ``"m"``, ``"rad"``, ``"ms"``, ``"kg/m^3"``).
        effect: ``"simulated"`` if wbsim uses the value, ``"visual"``/``"ignored"`` if it is accepted only.
        deprecated: True for fields Webots keeps only for compatibility.
    """

    name: str
    type: FieldType
    default: object
    choices: tuple[object, ...] | None = None
    bounds: Bounds | None = None
    on_violation: Violation = "error"
    replacement: object = None
    violation_message: str | None = None
    node_kinds: frozenset[str] = frozenset()
    unit: str = ""
    effect: Literal["simulated", "visual", "ignored"] = "simulated"
    deprecated: bool = False

    def repaired(self, value: float) -> tuple[float, str | None]:
        """A number written to this (scalar numeric) field at run time, repaired as Webots repairs it.

        Devices apply supervisor writes with the same rules as the world file (``on_violation``
        ``"replace"`` or ``"clamp"``; ``"error"`` fields are not repaired).

        Returns:
            The value the field takes and Webots' warning text (``violation_message``), or None if the
            value was accepted.
        """
        bounds = self.bounds
        if bounds is None or bounds.contains(value) or self.on_violation == "error":
            return value, None
        if self.on_violation == "negate":
            fixed = -value
        else:
            fixed = bounds.clamp(value) if self.on_violation == "clamp" else self.replacement
        if self.violation_message is not None:
            message = self.violation_message.format(value=f"{value:g}", replacement=fixed)
        else:
            message = f"Invalid value {value:g} for field '{self.name}': must be in {bounds}; using {fixed!r}."
        return fixed, message  # type: ignore[return-value]


@dataclass(frozen=True)
class NodeSchema:
    """The schema of one node type.

    Attributes:
        name: the node type name, e.g. ``"HingeJoint"``.
        fields: field specs by name, in declaration order.
        kinds: the roles this node can play, used to check where it may be placed, e.g.
            ``{"solid"}``, ``{"geometry"}``, ``{"joint"}``.
        support: ``"simulated"``, ``"visual"`` (accepted, no physical effect; unknown fields only warn)
            or ``"unsupported"`` (known Webots node that wbsim skips with a warning).
        base: the Webots base type (for PROTOs: the type of the body's root node; else the name itself).
        proto: True if the schema is a PROTO interface.
    """

    name: str
    fields: Mapping[str, FieldSpec]
    kinds: frozenset[str]
    support: Support = "simulated"
    base: str = ""
    proto: bool = False
    _field_names: tuple[str, ...] = field(default=(), repr=False)
    _node_fields: tuple[tuple[str, bool], ...] = field(default=(), repr=False, compare=False)
    _defaults: dict[str, object] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fields", MappingProxyType(dict(self.fields)))
        object.__setattr__(self, "_field_names", tuple(self.fields))
        object.__setattr__(self, "_defaults", {name: spec.default for name, spec in self.fields.items()})
        object.__setattr__(self, "_node_fields", tuple((name, spec.type.is_multiple) for name, spec in self.fields.items()
                                                       if spec.type.is_node))
        if not self.base:
            object.__setattr__(self, "base", self.name)

    @property
    def field_names(self) -> tuple[str, ...]:
        """Field names in declaration order."""
        return self._field_names

    def with_defaults(self, given: dict[str, object]) -> dict[str, object]:
        """A node's field values: ``given`` (in its order), then every other field's default, in declaration
        order.

        Three dict copies and updates in C: a Python loop over the fields cost a large world's check a tenth.
        """
        values = dict(given)
        values.update(self._defaults)  # the given fields keep their place; the others follow in order
        values.update(given)
        return values

    @property
    def node_fields(self) -> tuple[tuple[str, bool], ...]:
        """The SFNode and MFNode fields in declaration order, as (name, True for MFNode)."""
        return self._node_fields

    def is_a(self, kind: str) -> bool:
        """True if the node has role ``kind`` (e.g. ``"solid"``)."""
        return kind in self.kinds
