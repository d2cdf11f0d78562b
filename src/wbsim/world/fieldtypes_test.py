"""Tests of field types and literal conversion."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wbsim.world.fieldtypes import FieldType, LiteralError, convert_literals, literal_arity

T = FieldType


def conv(t: FieldType, *vals: object, bracketed: bool = False) -> object:
    kinds = ["bool" if isinstance(v, bool) else "string" if isinstance(v, str) else "number" for v in vals]
    return convert_literals(t, kinds, [float(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in vals],
                            bracketed)


def conv_error(t: FieldType, *vals: object, bracketed: bool = False) -> LiteralError:
    with pytest.raises(LiteralError) as info:
        conv(t, *vals, bracketed=bracketed)
    return info.value


def test_all_webots_field_types_exist() -> None:
    bases = ["Bool", "Int32", "Float", "String", "Vec2f", "Vec3f", "Color", "Rotation", "Node"]
    assert {t.value for t in FieldType} == {p + b for p in ("SF", "MF") for b in bases}


@pytest.mark.parametrize("t", list(FieldType))
def test_type_properties(t: FieldType) -> None:
    assert t.is_multiple == t.value.startswith("MF")
    assert t.is_node == (t.value[2:] == "Node")
    assert t.single.value == "SF" + t.value[2:]
    assert not t.single.is_multiple
    assert t.description
    if t.is_multiple:
        assert "or a single one" in t.description


@pytest.mark.parametrize(
    ("t", "n"),
    [(T.SFBool, 1), (T.SFInt32, 1), (T.SFFloat, 1), (T.SFString, 1), (T.SFVec2f, 2), (T.SFVec3f, 3), (T.SFColor, 3),
     (T.SFRotation, 4), (T.MFVec3f, 3), (T.MFRotation, 4), (T.MFString, 1)],
)
def test_literal_arity(t: FieldType, n: int) -> None:
    assert literal_arity(t) == n


@pytest.mark.parametrize(
    ("t", "vals", "expected"),
    [
        (T.SFBool, (True,), True),
        (T.SFBool, (False,), False),
        (T.SFInt32, (7,), 7),
        (T.SFInt32, (-3,), -3),
        (T.SFInt32, (2**31 - 1,), 2**31 - 1),
        (T.SFInt32, (-(2**31),), -(2**31)),
        (T.SFFloat, (1.5,), 1.5),
        (T.SFString, ("a b",), "a b"),
        (T.SFVec2f, (1, 2), (1.0, 2.0)),
        (T.SFVec3f, (1, 2, 3), (1.0, 2.0, 3.0)),
        (T.SFColor, (0.1, 0.2, 0.3), (0.1, 0.2, 0.3)),
        (T.SFRotation, (0, 0, 1, 1.5), (0.0, 0.0, 1.0, 1.5)),
        (T.SFRotation, (0, -1, 0, 1.5708), (0.0, -1.0, 0.0, 1.5708)),
    ],
)
def test_sf_values(t: FieldType, vals: tuple[object, ...], expected: object) -> None:
    value = conv(t, *vals)
    assert value == expected
    assert type(value) is type(expected)
    if isinstance(value, tuple):
        assert all(type(v) is float for v in value)


def test_sfint32_value_is_an_int() -> None:
    assert type(conv(T.SFInt32, 3.0)) is int


@pytest.mark.parametrize("v", [1.5, -0.25, 1e-9 + 1])
def test_sfint32_rejects_fractions(v: float) -> None:
    error = conv_error(T.SFInt32, v)
    assert error.message == f"expected an integer, found {v!r}"
    assert error.index == 0


@pytest.mark.parametrize("v", [2.0**31, -(2.0**31) - 1, 1e10])
def test_sfint32_rejects_values_outside_32_bits(v: float) -> None:
    error = conv_error(T.SFInt32, v)
    assert error.message.startswith("expected a 32-bit integer")
    assert error.index == 0


def test_mfint32_locates_the_bad_element() -> None:
    error = conv_error(T.MFInt32, 1, 2, 3.5, bracketed=True)
    assert error.index == 2


@pytest.mark.parametrize(
    ("vals", "expected"),
    [((0, 0, 2, 1.0), (0.0, 0.0, 1.0, 1.0)), ((3, 4, 0, -2.0), (0.6, 0.8, 0.0, -2.0)),
     ((1, 1, 1, 0.5), (1 / math.sqrt(3), 1 / math.sqrt(3), 1 / math.sqrt(3), 0.5))],
)
def test_sfrotation_axis_is_normalised(vals: tuple[float, ...], expected: tuple[float, ...]) -> None:
    value = conv(T.SFRotation, *vals)
    assert value == pytest.approx(expected, abs=1e-15)


def test_sfrotation_zero_axis() -> None:
    assert conv(T.SFRotation, 0, 0, 0, 0) == (0.0, 0.0, 1.0, 0.0)
    error = conv_error(T.SFRotation, 0, 0, 0, 1)
    assert error.message == "rotation axis is zero but the angle is not"
    assert error.index == 0


def test_mfrotation_elements_are_normalised() -> None:
    value = conv(T.MFRotation, 0, 0, 2, 1, 0, 3, 0, 2, bracketed=True)
    assert value == ((0.0, 0.0, 1.0, 1.0), (0.0, 1.0, 0.0, 2.0))


@given(st.tuples(*[st.floats(-1e6, 1e6) for _ in range(3)]), st.floats(-10, 10))
def test_sfrotation_axis_is_unit_after_conversion(axis: tuple[float, float, float], angle: float) -> None:
    norm = math.sqrt(sum(c * c for c in axis))
    if norm == 0.0 or norm < 1e-100:
        return
    value = conv(T.SFRotation, *axis, angle)
    assert isinstance(value, tuple)
    assert math.sqrt(sum(c * c for c in value[:3])) == pytest.approx(1.0, rel=1e-12)
    assert value[3] == angle


@pytest.mark.parametrize(
    ("t", "vals", "expected"),
    [
        (T.MFBool, (True, False), (True, False)),
        (T.MFInt32, (1, -1, 3), (1, -1, 3)),
        (T.MFFloat, (0.5, 2), (0.5, 2.0)),
        (T.MFString, ("a", "b"), ("a", "b")),
        (T.MFVec2f, (1, 2, 3, 4), ((1.0, 2.0), (3.0, 4.0))),
        (T.MFVec3f, (1, 2, 3, 4, 5, 6), ((1.0, 2.0, 3.0), (4.0, 5.0, 6.0))),
        (T.MFColor, (1, 0, 0), ((1.0, 0.0, 0.0),)),
        (T.MFFloat, (), ()),
    ],
)
def test_mf_values(t: FieldType, vals: tuple[object, ...], expected: object) -> None:
    assert conv(t, *vals, bracketed=True) == expected


@pytest.mark.parametrize(
    ("t", "vals", "expected"),
    [
        (T.MFBool, (True,), (True,)),
        (T.MFInt32, (4,), (4,)),
        (T.MFFloat, (0.5,), (0.5,)),
        (T.MFString, ("only",), ("only",)),
        (T.MFVec2f, (1, 2), ((1.0, 2.0),)),
        (T.MFVec3f, (1, 2, 3), ((1.0, 2.0, 3.0),)),
        (T.MFColor, (0, 1, 0), ((0.0, 1.0, 0.0),)),
        (T.MFRotation, (0, 0, 1, 0), ((0.0, 0.0, 1.0, 0.0),)),
    ],
)
def test_mf_accepts_a_bare_single_value(t: FieldType, vals: tuple[object, ...], expected: object) -> None:
    assert conv(t, *vals) == expected


def test_mf_several_bare_values_are_an_error() -> None:
    error = conv_error(T.MFFloat, 1, 2)
    assert error.message == "several values of an MF field must be written inside [ ]"
    assert error.index == -1


def test_mf_wrong_group_size() -> None:
    error = conv_error(T.MFVec3f, 1, 2, 3, 4, bracketed=True)
    assert error.message == "expected groups of 3 value(s) (3 numbers), found 4 value(s)"
    assert error.index == -1


@pytest.mark.parametrize(
    ("t", "vals", "message"),
    [
        (T.SFFloat, (1, 2), "expected a number, found 2 value(s)"),
        (T.SFVec3f, (1, 2), "expected 3 numbers, found 2 value(s)"),
        (T.SFVec2f, (1, 2, 3), "expected 2 numbers, found 3 value(s)"),
        (T.SFRotation, (0, 0, 1), "expected 4 numbers (axis x y z, angle in rad), found 3 value(s)"),
        (T.SFColor, (1, 1, 1, 1), "expected 3 numbers (red green blue), found 4 value(s)"),
    ],
)
def test_sf_wrong_count(t: FieldType, vals: tuple[object, ...], message: str) -> None:
    error = conv_error(t, *vals)
    assert error.message == message
    assert error.index == -1


@pytest.mark.parametrize(
    ("t", "vals", "index", "message"),
    [
        (T.SFBool, (1,), 0, "expected TRUE or FALSE"),
        (T.SFBool, ("TRUE",), 0, "expected TRUE or FALSE"),
        (T.SFFloat, ("1.5",), 0, "expected a number"),
        (T.SFFloat, (True,), 0, "expected a number"),
        (T.SFInt32, ("1",), 0, "expected an integer"),
        (T.SFString, (1,), 0, "expected a string in double quotes"),
        (T.SFVec3f, (1, "2", 3), 1, "expected 3 numbers"),
        (T.MFString, ("a", 2), 1, "expected a string in double quotes"),
    ],
)
def test_wrong_literal_kind_is_located(t: FieldType, vals: tuple[object, ...], index: int, message: str) -> None:
    error = conv_error(t, *vals, bracketed=t.is_multiple)
    assert error.message == message
    assert error.index == index


def test_sf_in_brackets_is_an_error() -> None:
    error = conv_error(T.SFFloat, 1, bracketed=True)
    assert error.message == "'[ ]' is only for MF fields; expected a number"
    assert error.index == -1


def test_literal_error_is_an_exception() -> None:
    assert isinstance(LiteralError("x", 0), Exception)


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=30).filter(lambda v: len(v) % 3 == 0))
def test_mfvec3f_groups_in_order(numbers: list[float]) -> None:
    value = conv(T.MFVec3f, *numbers, bracketed=True)
    assert isinstance(value, tuple)
    assert [c for v in value for c in v] == numbers
