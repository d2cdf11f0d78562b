"""Webots' sensor lookup tables (``WbLookupTable``), vectorised over many tables and values at once.

Each row of a table is (input, output, noise). For a value ``v``:

- an empty table returns ``v`` unchanged, without noise;
- ``v <= input[0]`` gives ``output[0]`` and ``noise[0]``; ``v >= input[last]`` gives ``output[last]``
  and ``noise[last]``: the table clamps, it never extrapolates;
- otherwise Webots' bisection finds the rows ``mini, maxi = mini + 1`` with
  ``input[mini] <= v < input[maxi]`` and interpolates output and noise linearly (also for unsorted
  inputs, which Webots warns about but accepts; decreasing outputs are normal);
- a non-zero noise ``s`` gives ``output * (1 + s * N(0, 1))``: a relative Gaussian noise.

Gaussian draws come from the caller's generator, one per noisy value, in value order, so the same
seed gives the same sequence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["LookupTables", "LookupPlan", "lookup_reference", "lookup_warnings"]


class LookupTables:
    """A set of lookup tables (one per device), padded into arrays for vectorised lookups.

    Args:
        tables: one table per device: a sequence of (input, output, noise) rows (possibly empty).

    Attributes:
        sizes: rows of each table, int64 (k,).
        inputs, outputs, noises: (k, max rows) padded arrays.
    """

    def __init__(self, tables: Sequence[Sequence[Sequence[float]]]) -> None:
        k = len(tables)
        width = max((len(t) for t in tables), default=0)
        self.sizes = np.array([len(t) for t in tables], dtype=np.int64)
        self.inputs = np.zeros((k, max(width, 1)))
        self.outputs = np.zeros((k, max(width, 1)))
        self.noises = np.zeros((k, max(width, 1)))
        for i, table in enumerate(tables):
            if len(table):
                rows = np.asarray(table, dtype=float).reshape(len(table), 3)
                self.inputs[i, : len(table)], self.outputs[i, : len(table)], self.noises[i, : len(table)] = rows.T
        self.empty = self.sizes == 0
        self.noisy = np.array([bool(np.any(self.noises[i, : self.sizes[i]] != 0.0)) for i in range(k)], dtype=bool)
        with np.errstate(invalid="ignore", over="ignore"):  # infinite inputs: inf - inf is not increasing
            self.increasing = np.array([bool(np.all(np.diff(self.inputs[i, : self.sizes[i]]) > 0))
                                        for i in range(k)], dtype=bool)
        self._steps = int(np.ceil(np.log2(max(width, 2)))) + 1

    def set_table(self, index: int, table: Sequence[Sequence[float]]) -> None:
        """Replace table ``index`` (in place; the padded arrays grow if the new table is wider)."""
        rows = len(table)
        if rows > self.inputs.shape[1]:
            extra = rows - self.inputs.shape[1]
            self.inputs, self.outputs, self.noises = (np.pad(a, ((0, 0), (0, extra))) for a in
                                                      (self.inputs, self.outputs, self.noises))
            self._steps = int(np.ceil(np.log2(max(rows, 2)))) + 1
        self.inputs[index], self.outputs[index], self.noises[index] = 0.0, 0.0, 0.0
        if rows:
            values = np.asarray(table, dtype=float).reshape(rows, 3)
            self.inputs[index, :rows], self.outputs[index, :rows], self.noises[index, :rows] = values.T
        self.sizes[index] = rows
        self.empty[index] = rows == 0
        self.noisy[index] = bool(np.any(self.noises[index, :rows] != 0.0))
        with np.errstate(invalid="ignore", over="ignore"):
            self.increasing[index] = bool(np.all(np.diff(self.inputs[index, :rows]) > 0))

    def min_outputs(self) -> np.ndarray:
        """Each table's smallest output (0 for an empty table), (k,)."""
        padded = np.where(np.arange(self.outputs.shape[1]) < self.sizes[:, None], self.outputs, np.inf)
        return np.where(self.empty, 0.0, padded.min(axis=1))

    def prepare(self, tables: np.ndarray) -> LookupPlan:
        """Precompute the lookups of values in tables ``tables[j]`` (int (m,)), for :meth:`lookup_prepared`."""
        tables = np.asarray(tables, dtype=np.int64)
        sizes = self.sizes[tables]
        last = np.maximum(sizes - 1, 0)
        inputs = self.inputs[tables]
        rows = np.arange(len(tables))
        valid = np.arange(inputs.shape[1]) < sizes[:, None]
        increasing = bool(self.increasing[tables].all())
        # For strictly increasing inputs, Webots' bracket [mini, mini + 1] has mini = the number of inputs
        # 1..last-1 not above the value: the other entries are NaN, which compares false with anything.
        counted = np.where(valid & (np.arange(inputs.shape[1]) < last[:, None]), inputs, np.nan)
        counted[:, 0] = np.nan
        # Tables of at most 2 rows (the usual linear map with clamping) take a shorter path, with Webots' formula.
        linear = bool(np.all(sizes <= 2))
        with np.errstate(invalid="ignore", over="ignore"):  # as Webots: an overflowing span is inf
            span = inputs[rows, last] - inputs[:, 0]
        return LookupPlan(
            linear=linear, span=span,
            tables=tables, last=last, rows=rows, inputs=inputs, outputs=self.outputs[tables],
            noises=self.noises[tables], first_input=inputs[:, 0].copy(), last_input=inputs[rows, last],
            first_output=self.outputs[tables, 0].copy(), last_output=self.outputs[tables][rows, last],
            empty=sizes == 0, increasing=increasing, counted=counted,
            noisy=bool(self.noisy[tables].any()) if len(tables) else False,
            steps=self._steps,
        )

    def lookup(self, tables: np.ndarray, values: np.ndarray, rng: np.random.Generator | None) -> np.ndarray:
        """Look ``values[j]`` up in table ``tables[j]``, with noise drawn from ``rng``.

        Args:
            tables: table index of each value, int (m,).
            values: the values, (m,).
            rng: the generator for the noise (None: no noise).

        Returns:
            The outputs, (m,).
        """
        return self.prepare(tables).lookup(values, rng)


@dataclass(frozen=True, eq=False)
class LookupPlan:
    """Lookups of values in a fixed sequence of tables, with the table data gathered once.

    Made by :meth:`LookupTables.prepare`; a device bank keeps one per sample group.
    """

    linear: bool
    span: np.ndarray  # in_last - in0 (for 0/1-row tables and unsorted pairs only NaN inputs reach the division)
    tables: np.ndarray
    last: np.ndarray
    rows: np.ndarray
    inputs: np.ndarray
    outputs: np.ndarray
    noises: np.ndarray
    first_input: np.ndarray
    last_input: np.ndarray
    first_output: np.ndarray
    last_output: np.ndarray
    empty: np.ndarray
    increasing: bool
    counted: np.ndarray
    noisy: bool
    steps: int

    def lookup(self, values: np.ndarray, rng: np.random.Generator | None) -> np.ndarray:
        """The outputs of ``values`` ((m,), one per table of the plan), with noise from ``rng`` (None: none)."""
        values = np.asarray(values, dtype=float)
        if self.linear:
            return self._lookup_linear(values, rng)
        rows, inputs = self.rows, self.inputs
        if self.increasing:
            mini = (values[:, None] >= self.counted).sum(axis=1)
            maxi = np.minimum(mini + 1, self.last)
        else:
            # Webots' bisection, one step for all values at a time (exact also for unsorted inputs).
            mini = np.zeros(len(values), dtype=np.int64)
            maxi = self.last.copy()
            i = maxi // 2
            for _ in range(self.steps):
                active = mini + 1 < maxi
                if not active.any():
                    break
                below = values < inputs[rows, i]
                maxi = np.where(active & below, i, maxi)
                mini = np.where(active & ~below, i, mini)
                i = (mini + maxi) // 2
        low = values <= self.first_input
        high = values >= self.last_input
        low_input = inputs[rows, mini]
        # Clamped values (possibly infinite, or against infinite table entries) are interpolated at the bracket
        # start, then replaced by the end outputs, which are taken as they are.
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):  # IEEE results, as Webots' C code
            span = inputs[rows, maxi] - low_input
            inner = np.where(low | high, low_input, values)
            u = (inner - low_input) / span
            out = (1 - u) * self.outputs[rows, mini] + u * self.outputs[rows, maxi]
        out = np.where(low, self.first_output, np.where(high, self.last_output, out))
        out = np.where(self.empty, values, out)
        if rng is not None and self.noisy:
            with np.errstate(invalid="ignore", over="ignore"):
                noise = (1 - u) * self.noises[rows, mini] + u * self.noises[rows, maxi]
            noise = np.where(low, self.noises[:, 0], np.where(high, self.noises[rows, self.last], noise))
            noisy = ~self.empty & (noise != 0.0)
            if noisy.any():
                out[noisy] *= 1.0 + noise[noisy] * rng.standard_normal(int(noisy.sum()))
        return out

    def _lookup_linear(self, values: np.ndarray, rng: np.random.Generator | None) -> np.ndarray:
        # Tables of 0, 1 or 2 rows. As Webots: v <= in0 gives out0, else v >= in_last gives out_last, else
        # (only inside a 2-row increasing table, or NaN) u = (v - in0) / (in1 - in0) and Webots' formula.
        low = values <= self.first_input
        high = values >= self.last_input
        inner = np.where(low | high, self.first_input, values)  # clamped values: replaced by the ends below
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):  # IEEE results, as Webots' C code
            u = np.where(low, 0.0, np.where(high, 1.0, (inner - self.first_input) / self.span))
            out = (1.0 - u) * self.first_output + u * self.last_output
        out = np.where(low, self.first_output, np.where(high, self.last_output, out))
        if self.empty.any():
            out = np.where(self.empty, values, out)
        if rng is not None and self.noisy:
            with np.errstate(invalid="ignore", over="ignore"):
                noise = (1.0 - u) * self.noises[:, 0] + u * self.noises[self.rows, self.last]
            noise = np.where(low, self.noises[:, 0], np.where(high, self.noises[self.rows, self.last], noise))
            noisy = ~self.empty & (noise != 0.0)
            if noisy.any():
                out[noisy] *= 1.0 + noise[noisy] * rng.standard_normal(int(noisy.sum()))
        return out

def lookup_reference(table: Sequence[Sequence[float]], value: float, gaussian: float = 0.0) -> float:
    """Webots' ``WbLookupTable::lookup`` transcribed for one value (the oracle of :class:`LookupTables`).

    Args:
        table: (input, output, noise) rows.
        value: the value to look up.
        gaussian: the N(0, 1) draw used if the interpolated noise is non-zero.
    """
    if not table:
        return value
    inputs = [row[0] for row in table]
    outputs = [row[1] for row in table]
    noises = [row[2] for row in table]
    last = len(table) - 1
    if value <= inputs[0]:
        noise, result = noises[0], outputs[0]
    elif value >= inputs[last]:
        noise, result = noises[last], outputs[last]
    else:
        mini, maxi = 0, last
        i = maxi // 2
        while mini + 1 < maxi:
            if value < inputs[i]:
                maxi = i
            else:
                mini = i
            i = (mini + maxi) // 2
        u = (value - inputs[mini]) / (inputs[maxi] - inputs[mini])
        noise = (1 - u) * noises[mini] + u * noises[maxi]
        result = (1 - u) * outputs[mini] + u * outputs[maxi]
    if noise != 0.0:
        return result * (1.0 + noise * gaussian)
    return result


def lookup_warnings(table: Sequence[Sequence[float]]) -> list[str]:
    """Webots' load-time warnings about a lookup table (unsorted inputs)."""
    inputs = [row[0] for row in table]
    if any(b <= a for a, b in zip(inputs, inputs[1:])):
        return ["The input values of a lookup table must be sorted in increasing order."]
    return []

