"""Tests of the schema data classes: Bounds, FieldSpec, NodeSchema."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wbsim.world.fieldtypes import FieldType
from wbsim.world.schema import Bounds, FieldSpec, NodeSchema

INF = math.inf


@pytest.mark.parametrize(
    ("bounds", "inside", "outside"),
    [
        (Bounds(), [-1e300, 0.0, 1e300, -INF, INF], [math.nan]),
        (Bounds(0.0, INF, lo_open=True), [1e-300, 1.0, INF], [0.0, -1.0, -INF, math.nan]),
        (Bounds(0.0, INF), [0.0, 5.0], [-1e-300, -1.0]),
        (Bounds(0.0, 1.0), [0.0, 0.5, 1.0], [-0.1, 1.1]),
        (Bounds(0.0, 1.0, lo_open=True, hi_open=True), [0.5], [0.0, 1.0]),
        (Bounds(0.0, INF, also=(-1.0,)), [-1.0, 0.0, 3.0], [-0.5, -2.0]),
        (Bounds(0.0, INF, lo_open=True, also=(-1.0,)), [-1.0, 0.1], [0.0, -0.9]),
    ],
)
def test_bounds_contains(bounds: Bounds, inside: list[float], outside: list[float]) -> None:
    assert all(bounds.contains(v) for v in inside)
    assert not any(bounds.contains(v) for v in outside)


@pytest.mark.parametrize(
    ("bounds", "text"),
    [
        (Bounds(), "(-inf, inf)"),
        (Bounds(0.0, INF, lo_open=True), "(0, inf)"),
        (Bounds(0.0, INF), "[0, inf)"),
        (Bounds(0.0, 1.0), "[0, 1]"),
        (Bounds(0.0, 1.0, hi_open=True), "[0, 1)"),
        (Bounds(0.0, INF, also=(-1.0,)), "{-1, [0, inf)}"),
        (Bounds(1e-5, 2.5), "[1e-05, 2.5]"),
    ],
)
def test_bounds_str(bounds: Bounds, text: str) -> None:
    assert str(bounds) == text


@given(st.floats(allow_nan=False), st.floats(-10, 0), st.floats(0, 10))
def test_bounds_clamp_is_within_the_closed_interval(value: float, lo: float, hi: float) -> None:
    clamped = Bounds(lo, hi).clamp(value)
    assert lo <= clamped <= hi
    if lo <= value <= hi:
        assert clamped == value


def test_field_spec_defaults_and_immutability() -> None:
    spec = FieldSpec("size", FieldType.SFVec3f, (1.0, 1.0, 1.0))
    assert spec.choices is None and spec.bounds is None
    assert spec.on_violation == "error" and spec.replacement is None
    assert spec.node_kinds == frozenset() and spec.unit == "" and spec.effect == "simulated"
    assert spec.deprecated is False
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.name = "x"  # type: ignore[misc]


def test_node_schema() -> None:
    fields = {
        "b": FieldSpec("b", FieldType.SFFloat, 1.0),
        "a": FieldSpec("a", FieldType.SFBool, True),
    }
    schema = NodeSchema("Thing", fields, frozenset({"geometry"}))
    assert schema.base == "Thing"
    assert schema.support == "simulated" and schema.proto is False
    assert schema.field_names == ("b", "a")
    assert schema.is_a("geometry") and not schema.is_a("solid")
    # the fields mapping is a read-only copy
    fields["c"] = FieldSpec("c", FieldType.SFFloat, 0.0)
    assert "c" not in schema.fields
    with pytest.raises(TypeError):
        schema.fields["d"] = fields["a"]  # type: ignore[index]


def test_node_schema_lists_its_node_fields_in_order() -> None:
    fields = [FieldSpec("children", FieldType.MFNode, ()), FieldSpec("mass", FieldType.SFFloat, 1.0),
              FieldSpec("physics", FieldType.SFNode, None), FieldSpec("names", FieldType.MFString, ())]
    schema = NodeSchema("Thing", {f.name: f for f in fields}, frozenset({"solid"}))
    assert schema.node_fields == (("children", True), ("physics", False))


def test_with_defaults_keeps_the_given_fields_first_then_the_defaults_in_declaration_order() -> None:
    fields = [FieldSpec("a", FieldType.SFFloat, 1.0), FieldSpec("b", FieldType.SFString, "x"),
              FieldSpec("c", FieldType.MFFloat, ()), FieldSpec("d", FieldType.SFBool, False)]
    schema = NodeSchema("Thing", {f.name: f for f in fields}, frozenset({"solid"}))
    given: dict[str, object] = {"c": (2.0,), "a": 3.0}
    values = schema.with_defaults(given)
    assert list(values.items()) == [("c", (2.0,)), ("a", 3.0), ("b", "x"), ("d", False)]
    assert given == {"c": (2.0,), "a": 3.0}  # not changed
    assert list(schema.with_defaults({}).items()) == [("a", 1.0), ("b", "x"), ("c", ()), ("d", False)]


def test_node_schema_with_base() -> None:
    schema = NodeSchema("MyRobot", {}, frozenset({"solid"}), base="Robot", proto=True)
    assert schema.base == "Robot" and schema.proto and schema.field_names == ()


def test_negate_repair_takes_the_opposite_of_a_negative_number() -> None:
    spec = FieldSpec("aperture", FieldType.SFFloat, 1.0, bounds=Bounds(0.0, INF), on_violation="negate")
    assert spec.repaired(0.25) == (0.25, None)
    value, message = spec.repaired(-0.25)
    assert value == 0.25 and message == "Invalid value -0.25 for field 'aperture': must be in [0, inf); using 0.25."
    texted = dataclasses.replace(spec, violation_message="Invalid 'aperture' changed to {replacement:g}.")
    assert texted.repaired(-2.0) == (2.0, "Invalid 'aperture' changed to 2.")
