"""Webots lookup tables (``WbLookupTable::lookup``): the vectorised :class:`LookupTables` against the scalar
transcription :func:`lookup_reference`, the noise draws, the load-time warnings and ``min_outputs``."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbsim.devices.lookup_table import LookupTables, lookup_reference, lookup_warnings

Table = list[tuple[float, float, float]]
Batch = tuple[list[Table], np.ndarray, np.ndarray]

_FINITE = st.floats(-100.0, 100.0, allow_nan=False, allow_infinity=False)
# A small pool makes repeated inputs (and values exactly at inputs) frequent.
_POOL = st.sampled_from([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 7.0])
_NOISE = st.just(0.0) | st.floats(0.01, 0.5)


@st.composite
def tables(draw: st.DrawFn, noisy: bool = False, max_rows: int = 6, increasing: bool = False) -> Table:
    """A table of 0..max_rows rows: inputs sorted or not (with repeats), any outputs, noise 0 or not.

    ``increasing``: strictly increasing inputs only (the common, well-formed case).
    """
    n = draw(st.integers(0, max_rows))
    if increasing:
        inputs = sorted(draw(st.sets(_POOL | _FINITE, min_size=n, max_size=n)))
    else:
        inputs = draw(st.lists(_POOL | _FINITE, min_size=n, max_size=n))
        if draw(st.booleans()):
            inputs.sort()
    outputs = draw(st.lists(_POOL | _FINITE, min_size=n, max_size=n))
    noises = draw(st.lists(_NOISE, min_size=n, max_size=n)) if noisy else [0.0] * n
    return list(zip(inputs, outputs, noises))


@st.composite
def probes(draw: st.DrawFn, table: Table) -> list[float]:
    """Values to look up in ``table``: at inputs, next to them, between them, below, above, anywhere."""
    candidates = _FINITE | _POOL
    inputs = sorted({row[0] for row in table})
    if inputs:
        special = list(inputs)
        special += [inputs[0] - 1.0, inputs[-1] + 1.0]
        special += [(a + b) / 2 for a, b in zip(inputs, inputs[1:])]
        special += [math.nextafter(x, math.inf) for x in inputs]
        special += [math.nextafter(x, -math.inf) for x in inputs]
        candidates = candidates | st.sampled_from(special)
    return draw(st.lists(candidates, min_size=1, max_size=8))


@st.composite
def batches(draw: st.DrawFn, noisy: bool = False) -> tuple[list[Table], np.ndarray, np.ndarray]:
    """Several tables and a shuffled batch of (table index, value) lookups into them.

    The batch is drawn in one of three shapes, since a vectorised implementation may specialise on them:
    only tables of at most 2 rows, only strictly increasing tables, or anything.
    """
    shape = draw(st.sampled_from(["small", "increasing", "any"]))
    strategy = tables(noisy=noisy, max_rows=2 if shape == "small" else 6, increasing=shape == "increasing")
    many = draw(st.lists(strategy, min_size=1, max_size=5))
    pairs = [(i, v) for i, table in enumerate(many) for v in draw(probes(table))]
    pairs = draw(st.permutations(pairs))
    idx = np.array([i for i, _ in pairs], dtype=np.int64)
    values = np.array([v for _, v in pairs], dtype=float)
    return many, idx, values


def _close(actual: float, expected: float) -> bool:
    """Equal, or within 1e-12 relative (NaN never expected here)."""
    return actual == expected or math.isclose(actual, expected, rel_tol=1e-12, abs_tol=1e-300)


def _noise_at(table: Table, value: float) -> float:
    """The interpolated noise of ``value``: the same lookup with the noise column as outputs (0 if empty)."""
    if not table:
        return 0.0
    return lookup_reference([(x, n, 0.0) for x, _, n in table], value, 0.0)


# -- (a) the vectorised lookup is Webots' scalar lookup ------------------------------------------------------
@settings(max_examples=120, deadline=None)
@given(batches(noisy=True))
def test_batched_lookup_without_rng_matches_reference(batch: Batch) -> None:
    """Any tables (unsorted, repeated inputs, decreasing outputs), any values: no rng means no noise."""
    many, idx, values = batch
    out = LookupTables(many).lookup(idx, values, rng=None)
    assert out.shape == values.shape
    for j, (i, v) in enumerate(zip(idx.tolist(), values.tolist())):
        expected = lookup_reference(many[i], v, 0.0)
        assert _close(float(out[j]), expected), (many[i], v, out[j], expected)


def test_reference_itself_on_hand_computed_cases() -> None:
    """The oracle's own anchors: clamping, interpolation, empty tables, unsorted bisection."""
    table = [(0.0, 1000.0, 0.0), (0.1, 1000.0, 0.0), (0.2, 400.0, 0.0), (0.3, 0.0, 0.0)]
    assert lookup_reference(table, -5.0) == 1000.0
    assert lookup_reference(table, 0.15) == pytest.approx(700.0)
    assert lookup_reference(table, 0.25) == pytest.approx(200.0)
    assert lookup_reference(table, 9.0) == 0.0
    assert lookup_reference([], 3.25) == 3.25
    # Unsorted: inputs (0, 5, 1, 10); v = 3: i = 1 (5): 3 < 5 -> maxi = 1; bracket rows 0, 1 -> u = 0.6.
    unsorted = [(0.0, 0.0, 0.0), (5.0, 10.0, 0.0), (1.0, 100.0, 0.0), (10.0, 20.0, 0.0)]
    assert lookup_reference(unsorted, 3.0) == pytest.approx(6.0)
    # v = 7: 7 >= 5 -> mini = 1, i = 2 (1): 7 >= 1 -> mini = 2; bracket rows 2, 3 -> u = 6 / 9.
    assert lookup_reference(unsorted, 7.0) == pytest.approx(100.0 + (20.0 - 100.0) * 6.0 / 9.0)


def test_hand_computed_batch_including_unsorted_and_empty_tables() -> None:
    """One batch mixing an empty table, a decreasing table and an unsorted one, in an interleaved order."""
    decreasing = [(0.0, 1000.0, 0.0), (0.1, 1000.0, 0.0), (0.2, 400.0, 0.0), (0.3, 0.0, 0.0)]
    unsorted = [(0.0, 0.0, 0.0), (5.0, 10.0, 0.0), (1.0, 100.0, 0.0), (10.0, 20.0, 0.0)]
    lut = LookupTables([[], decreasing, unsorted])
    idx = np.array([1, 0, 2, 1, 2, 0, 1])
    values = np.array([0.15, -4.5, 3.0, 0.3, 7.0, 1e9, -1.0])
    expected = [700.0, -4.5, 6.0, 0.0, 100.0 - 80.0 * 6.0 / 9.0, 1e9, 1000.0]
    np.testing.assert_allclose(lut.lookup(idx, values, None), expected, rtol=1e-12)


def test_single_row_table_is_constant() -> None:
    """One row: every value gives its output (below, at and above its input)."""
    lut = LookupTables([[(2.0, -3.5, 0.0)]])
    out = lut.lookup(np.zeros(3, dtype=np.int64), np.array([-10.0, 2.0, 10.0]), None)
    assert out.tolist() == [-3.5, -3.5, -3.5]


def test_infinite_values_do_not_raise_runtime_warnings() -> None:
    """+-inf clamp to output[last] / output[0], and without arithmetic on inf (no inf * 0 RuntimeWarning)."""
    table = [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (2.0, 5.0, 0.0)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        out = LookupTables([table]).lookup(np.zeros(2, dtype=np.int64), np.array([math.inf, -math.inf]), None)
    assert out.tolist() == [5.0, 0.0]


def _small_tables() -> list[Table]:
    """Every table of 0..4 rows with inputs from {0, 1, 2} (any order, repeats) and distinct outputs."""
    result: list[Table] = [[]]
    for n in (1, 2, 3, 4):
        for inputs in itertools.product([0.0, 1.0, 2.0], repeat=n):
            result.append([(x, 10.0 * (r + 1) * (-1) ** r, 0.0) for r, x in enumerate(inputs)])
    return result


_SMALL_VALUES = [-0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5]


@pytest.mark.parametrize("grouping", ["one table per LookupTables", "all 2-row tables", "increasing tables",
                                      "all tables"])
def test_every_small_table_matches_reference(grouping: str) -> None:
    """Exhaustive over small tables (unsorted, equal inputs) and values at, between and outside the inputs."""
    everything = _small_tables()
    if grouping == "one table per LookupTables":
        groups = [[t] for t in everything]
    elif grouping == "all 2-row tables":
        groups = [[t for t in everything if len(t) <= 2]]
    elif grouping == "increasing tables":
        groups = [[t for t in everything if all(a[0] < b[0] for a, b in zip(t, t[1:]))]]
    else:
        groups = [everything]
    mismatches = []
    for group in groups:
        lut = LookupTables(group)
        idx = np.repeat(np.arange(len(group)), len(_SMALL_VALUES))
        values = np.tile(_SMALL_VALUES, len(group))
        out = lut.lookup(idx, values, None)
        for i, v, o in zip(idx.tolist(), values.tolist(), out.tolist()):
            expected = lookup_reference(group[i], v, 0.0)
            if not _close(o, expected):
                mismatches.append((group[i], v, o, expected))
    assert mismatches == []


def test_two_row_tables_test_the_low_end_first() -> None:
    """Webots tests ``v <= input[0]`` before ``v >= input[last]``: that decides for equal or decreasing
    inputs."""
    equal = [(-2.0, -2.0, 0.0), (-2.0, -1.0, 0.0)]
    decreasing = [(0.0, -2.0, 0.0), (-2.0, -1.0, 0.0)]
    lut = LookupTables([equal, decreasing])
    out = lut.lookup(np.array([0, 0, 0, 1, 1, 1]), np.array([-3.0, -2.0, 5.0, -1.0, 0.0, 5.0]), None)
    # equal: v <= -2 -> -2, else -1. decreasing: v <= 0 -> -2 (also where v >= -2 holds), else -1.
    assert out.tolist() == [-2.0, -2.0, -1.0, -2.0, -2.0, -1.0]


@settings(max_examples=40, deadline=None)
@given(batches(noisy=True), st.data())
def test_prepared_plan_is_reusable(batch: Batch, data: st.DataObject) -> None:
    """``prepare`` once (as a bank does per sample group), look up several value arrays with it."""
    many, idx, values = batch
    plan = LookupTables(many).prepare(idx)
    others = np.array(data.draw(st.lists(_FINITE, min_size=len(values), max_size=len(values))))
    for vals in (values, others, values):
        out = plan.lookup(vals, None)
        expected = [lookup_reference(many[i], v, 0.0) for i, v in zip(idx.tolist(), vals.tolist())]
        assert all(_close(o, e) for o, e in zip(out.tolist(), expected)), (many, vals, out, expected)


# -- (b) noise: one standard_normal call per lookup, for the noisy values in value order ---------------------
@settings(max_examples=80, deadline=None)
@given(batches(noisy=True), st.integers(0, 2**32 - 1))
def test_noise_draws_follow_value_order(batch: Batch, seed: int) -> None:
    """The draws are ``rng.standard_normal(k)`` for the k values with a non-zero interpolated noise, in
    order."""
    many, idx, values = batch
    rng = np.random.default_rng(seed)
    out = LookupTables(many).lookup(idx, values, rng)
    mirror = np.random.default_rng(seed)
    noisy = [_noise_at(many[i], v) != 0.0 for i, v in zip(idx.tolist(), values.tolist())]
    draws = iter(mirror.standard_normal(sum(noisy)).tolist()) if any(noisy) else iter(())
    for j, (i, v) in enumerate(zip(idx.tolist(), values.tolist())):
        g = next(draws) if noisy[j] else 0.0
        expected = lookup_reference(many[i], v, g)
        assert _close(float(out[j]), expected), (many[i], v, g, out[j], expected)
    # Exactly that many draws were taken (none at all without noisy values).
    assert rng.standard_normal() == mirror.standard_normal()


def test_noise_free_lookups_leave_the_generator_untouched() -> None:
    """Tables without noise (and the noiseless parts of noisy tables) draw nothing."""
    lut = LookupTables([[(0.0, 0.0, 0.0), (1.0, 10.0, 0.0)],
                        [(0.0, 0.0, 0.0), (1.0, 10.0, 0.0), (2.0, 20.0, 0.3)]])
    rng, mirror = np.random.default_rng(5), np.random.default_rng(5)
    out = lut.lookup(np.array([0, 1, 1]), np.array([0.5, 0.25, -1.0]), rng)
    assert out.tolist() == [5.0, 2.5, 0.0]
    assert rng.random() == mirror.random()


def test_noise_is_relative_to_the_output() -> None:
    """out * (1 + noise * g), with the noise interpolated like the output."""
    table = [(0.0, 0.0, 0.0), (10.0, 100.0, 0.2)]
    rng, mirror = np.random.default_rng(11), np.random.default_rng(11)
    out = LookupTables([table]).lookup(np.array([0, 0, 0]), np.array([5.0, 0.0, 20.0]), rng)
    g = mirror.standard_normal(2)  # v = 0 has noise 0: only 5 (noise 0.1) and 20 (noise 0.2) draw
    np.testing.assert_allclose(out, [50.0 * (1 + 0.1 * g[0]), 0.0, 100.0 * (1 + 0.2 * g[1])], rtol=1e-12)


def test_rng_none_gives_the_noiseless_output_of_noisy_tables() -> None:
    """Without a generator the interpolated output is returned as is."""
    table = [(0.0, 0.0, 0.5), (10.0, 100.0, 0.5)]
    out = LookupTables([table]).lookup(np.array([0, 0]), np.array([2.5, 30.0]), None)
    assert out.tolist() == [25.0, 100.0]


# -- (c) the noise has the requested relative standard deviation ---------------------------------------------
@pytest.mark.parametrize(("table", "value", "expected_out"), [
    ([(0.0, 0.0, 0.1), (10.0, 50.0, 0.1)], 4.0, 20.0),
    ([(-1.0, -40.0, 0.05), (1.0, 40.0, 0.15)], -0.5, -20.0),  # u = 0.25: interpolated noise 0.075
])
def test_relative_noise_statistics(table: Table, value: float, expected_out: float) -> None:
    """20000 draws at one value: mean ~ out, std / |out| within 3 % of the interpolated noise."""
    noise = _noise_at(table, value)
    rng = np.random.default_rng(1234)
    out = LookupTables([table]).lookup(np.zeros(20000, dtype=np.int64), np.full(20000, value), rng)
    assert np.mean(out) == pytest.approx(expected_out, rel=0.01)
    assert np.std(out) / abs(expected_out) == pytest.approx(noise, rel=0.03)


def test_relative_noise_of_ten_percent() -> None:
    """The statement of the brief: a constant value with noise 0.1 gives a relative std of 0.1 (+-3 %)."""
    rng = np.random.default_rng(2024)
    lut = LookupTables([[(0.0, 8.0, 0.1), (1.0, 8.0, 0.1)]])
    out = lut.lookup(np.zeros(20000, dtype=np.int64), np.full(20000, 0.5), rng)
    assert abs(np.std(out) / 8.0 - 0.1) <= 0.03 * 0.1


# -- (d) load-time warnings ----------------------------------------------------------------------------------
_UNSORTED = ["The input values of a lookup table must be sorted in increasing order."]


@pytest.mark.parametrize(("table", "expected"), [
    ([], []),
    ([(1.0, 2.0, 0.0)], []),
    ([(0.0, 0.0, 0.0), (1.0, 5.0, 0.1), (2.0, 3.0, 0.0)], []),
    ([(-3.0, 0.0, 0.0), (-2.5, 0.0, 0.0)], []),
    ([(0.0, 0.0, 0.0), (2.0, 5.0, 0.0), (1.0, 3.0, 0.0)], _UNSORTED),
    ([(1.0, 0.0, 0.0), (1.0, 5.0, 0.0)], _UNSORTED),  # equal inputs are not increasing
    ([(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (1.0, 1.0, 0.0), (2.0, 0.0, 0.0)], _UNSORTED),
])
def test_lookup_warnings(table: Table, expected: list[str]) -> None:
    """Webots warns once when the inputs are not strictly increasing."""
    assert lookup_warnings(table) == expected


@settings(max_examples=50, deadline=None)
@given(tables())
def test_lookup_warnings_iff_not_strictly_increasing(table: Table) -> None:
    """The warning appears exactly when some input is <= the one before it."""
    inputs = [row[0] for row in table]
    strictly = all(a < b for a, b in zip(inputs, inputs[1:]))
    assert lookup_warnings(table) == ([] if strictly else _UNSORTED)


# -- (e) min_outputs and the padded layout -------------------------------------------------------------------
def test_min_outputs_ignores_padding() -> None:
    """Padding rows (zeros) must not count: a short table of positive outputs keeps its own minimum."""
    lut = LookupTables([
        [(0.0, 5.0, 0.0)],
        [(0.0, 3.0, 0.0), (1.0, -2.0, 0.0), (2.0, 7.0, 0.0), (3.0, 1.0, 0.0)],
        [],
        [(0.0, 9.0, 0.0), (1.0, 4.0, 0.0)],
    ])
    assert lut.min_outputs().tolist() == [5.0, -2.0, 0.0, 4.0]
    assert lut.sizes.tolist() == [1, 4, 0, 2]
    assert lut.empty.tolist() == [False, False, True, False]


@settings(max_examples=50, deadline=None)
@given(st.lists(tables(noisy=True), min_size=1, max_size=5))
def test_min_outputs_and_flags_match_the_tables(many: list[Table]) -> None:
    """min_outputs, sizes, empty and noisy agree with the rows given."""
    lut = LookupTables(many)
    assert lut.min_outputs().tolist() == [min((r[1] for r in t), default=0.0) for t in many]
    assert lut.sizes.tolist() == [len(t) for t in many]
    assert lut.empty.tolist() == [not t for t in many]
    assert lut.noisy.tolist() == [any(r[2] != 0.0 for r in t) for t in many]


def test_no_tables_at_all() -> None:
    """An empty set of tables looks nothing up and has no minimum."""
    lut = LookupTables([])
    assert lut.min_outputs().shape == (0,)
    assert lut.lookup(np.zeros(0, dtype=np.int64), np.zeros(0), np.random.default_rng(0)).shape == (0,)



@pytest.mark.parametrize("table", [
    [(0.0, 0.0, 0.0), (1.0, math.inf, 0.0)],
    [(0.0, -math.inf, 0.0), (1.0, 3.0, 0.0)],
    [(-math.inf, 0.0, 0.0), (0.0, 1.0, 0.0)],
    [(0.0, 1.0, 0.0), (math.inf, 2.0, 0.0)],
    [(-1e308, 0.0, 0.0), (1e308, 1.0, 0.0)],
    [(0.0, 0.0, 0.0), (1.0, math.inf, 0.0), (2.0, 5.0, 0.0)],
    [(-math.inf, 0.0, 0.0), (0.0, 1.0, 0.0), (math.inf, 2.0, 0.0)],
])
def test_infinite_and_huge_table_entries_match_webots_without_warnings(table) -> None:
    """Ends are returned as they are (no 0 * inf), interior values interpolate; no RuntimeWarning."""
    values = np.array([-math.inf, -2.0, -1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, math.inf])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tables = LookupTables([table])
        got = tables.lookup(np.zeros(len(values), dtype=np.int64), values, None)
    for value, result in zip(values, got):
        expected = lookup_reference(table, float(value))
        assert result == expected or (math.isnan(result) and math.isnan(expected)), (value, result, expected)


def test_set_table_replaces_one_table_in_place_and_grows_the_padding() -> None:
    tables = LookupTables([[(0.0, 0.0, 0.0), (10.0, 10.0, 0.0)], []])
    tables.set_table(1, [(0.0, 5.0, 0.1), (1.0, 6.0, 0.0), (2.0, 9.0, 0.0)])
    assert tables.sizes.tolist() == [2, 3] and tables.inputs.shape == (2, 3)
    assert bool(tables.noisy[1]) and bool(tables.increasing[1]) and not bool(tables.empty[1])
    got = tables.lookup(np.array([0, 1]), np.array([5.0, 1.5]), None)
    assert got.tolist() == [lookup_reference([(0.0, 0.0, 0.0), (10.0, 10.0, 0.0)], 5.0), 7.5]
    tables.set_table(0, [])
    assert tables.lookup(np.array([0]), np.array([3.25]), None).tolist() == [3.25]
