"""Paired, alternating timing of two workloads on a shared, noisy machine.

Both sides run in the same process, in short alternating blocks (A, B, B, A, A, B, ...: the order flips
every pair so neither side always runs first); each pair gives one ratio ``time_B / time_A``. Load
spikes hit both sides of a pair alike, so the median of the paired ratios is far steadier than a
ratio of two separately measured rates. Reported: the median and the 10th-90th percentile range.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["PairedResult", "block_seconds", "paired_ratios"]


@dataclass(frozen=True)
class PairedResult:
    """The outcome of :func:`paired_ratios`.

    Attributes:
        ratios: ``time_B / time_A`` of every pair of blocks.
        seconds_a: the block times of side A (s).
        seconds_b: the block times of side B (s).
    """

    ratios: tuple[float, ...]
    seconds_a: tuple[float, ...]
    seconds_b: tuple[float, ...]

    @property
    def median(self) -> float:
        """The median paired ratio."""
        return statistics.median(self.ratios)

    def percentile(self, q: float) -> float:
        """The ``q``-th percentile (0-100) of the paired ratios."""
        data = sorted(self.ratios)
        position = (len(data) - 1) * q / 100.0
        low = int(position)
        high = min(low + 1, len(data) - 1)
        return data[low] + (data[high] - data[low]) * (position - low)

    def describe(self, label: str = "B/A") -> str:
        """``median (p10-p90)`` of the ratios."""
        return f"{label} = {self.median:.3f} (p10-p90 {self.percentile(10):.3f}-{self.percentile(90):.3f}, {len(self.ratios)} pairs)"


def block_seconds(run: Callable[[], None]) -> float:
    """The wall time of one call of ``run`` (one block), in s."""
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def paired_ratios(run_a: Callable[[], None], run_b: Callable[[], None], pairs: int) -> PairedResult:
    """Time ``pairs`` alternating blocks of ``run_a`` and ``run_b`` (each call is one block).

    Args:
        run_a: runs one block of side A (e.g. a fixed number of simulation steps).
        run_b: runs one block of side B.
        pairs: the number of (A, B) pairs.
    """

    ratios, times_a, times_b = [], [], []
    for i in range(pairs):
        if i % 2 == 0:
            a = block_seconds(run_a)
            b = block_seconds(run_b)
        else:
            b = block_seconds(run_b)
            a = block_seconds(run_a)
        times_a.append(a)
        times_b.append(b)
        ratios.append(b / a)
    return PairedResult(tuple(ratios), tuple(times_a), tuple(times_b))
