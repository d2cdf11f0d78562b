"""Shared test helpers for wbsim.transmission: hypothesis strategies and scaled tolerances.

Imported by the sibling ``*_test.py`` files as ``wbsim.transmission.conftest``.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from wbsim.transmission.base import Transmission
from wbsim.transmission.differential import DifferentialTransmission
from wbsim.transmission.four_bar import FourBarLinkageTransmission
from wbsim.transmission.simple import SimpleTransmission

# Reductions in ±[1e-3, 1e3]; values and offsets in ±1e3 (see the brief: keeps float error bounded).
reductions = st.one_of(st.floats(1e-3, 1e3), st.floats(-1e3, -1e-3))
offsets = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False, allow_subnormal=False)
values = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False, allow_subnormal=False)

#: Absolute error floor: intermediate products of tiny values can underflow into subnormals, where relative
#: precision is lost; anything below this is numerically zero for a transmission.
TINY = 1e-290

simple_transmissions = st.builds(SimpleTransmission, reductions, offsets)
differential_transmissions = st.builds(
    DifferentialTransmission,
    st.tuples(reductions, reductions),
    st.tuples(reductions, reductions),
    st.tuples(offsets, offsets),
)
four_bar_transmissions = st.builds(
    FourBarLinkageTransmission,
    st.tuples(reductions, reductions),
    st.tuples(reductions, reductions),
    st.tuples(offsets, offsets),
)
legacy_four_bar_transmissions = st.builds(
    FourBarLinkageTransmission,
    st.tuples(reductions, reductions),
    st.tuples(reductions, reductions),
    st.tuples(offsets, offsets),
    effort_map=st.just("legacy"),
)
#: Every transmission kind, the legacy four-bar map included.
transmissions = st.one_of(
    simple_transmissions, differential_transmissions, four_bar_transmissions, legacy_four_bar_transmissions
)


def vectors(n: int) -> st.SearchStrategy[np.ndarray]:
    """Strategy for a float64 vector of length n with entries in ±1e3."""
    return st.lists(values, min_size=n, max_size=n).map(lambda v: np.array(v, dtype=np.float64))


def round_trip_bound(
    first: tuple[np.ndarray, np.ndarray], second: tuple[np.ndarray, np.ndarray], x: np.ndarray
) -> np.ndarray:
    """Forward-error scale of ``second(first(x))`` for affine maps given as (M, b); x has shape (..., n).

    The rounding error of each output is a few ulps of ``|M2| (|M1| |x| + |b1|) + |b2|``: intermediate
    values may be far larger than the result when reductions differ by orders of magnitude.
    """
    m1, b1 = first
    m2, b2 = second
    return (np.abs(x) @ np.abs(m1).T + np.abs(b1)) @ np.abs(m2).T + np.abs(b2)


def assert_close_scaled(
    actual: np.ndarray, expected: np.ndarray, scale: np.ndarray, rtol: float = 1e-12
) -> None:
    """Assert ``|actual - expected| <= rtol * scale + TINY`` elementwise (see :func:`round_trip_bound`)."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    error = np.abs(actual - expected)
    assert np.all(error <= rtol * np.asarray(scale) + TINY), (actual, expected, error, scale)


def all_kinds() -> list[Transmission]:
    """One instance of each transmission kind with distinct, non-trivial parameters."""
    return [
        SimpleTransmission(-3.5, 0.25),
        DifferentialTransmission((50.0, -50.0), (2.0, -2.0), (0.5, -0.5)),
        FourBarLinkageTransmission((50.0, -50.0), (2.0, -2.0), (0.5, -0.5)),
        FourBarLinkageTransmission((50.0, -50.0), (2.0, -2.0), (0.5, -0.5), effort_map="legacy"),
    ]
