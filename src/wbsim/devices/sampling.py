"""Webots' sensor sampling schedule, in whole basic time steps.

``enable(period_ms)`` at time T records ``lastUpdate = T``; after each basic step a value is computed
when ``time - lastUpdate >= period`` and then ``lastUpdate = time``. So the first value arrives one
period after enabling and the effective period is ``ceil(period / basicTimeStep)`` basic steps.
"""

from __future__ import annotations

import math

__all__ = ["SamplingSchedule", "steps_for_period"]

NEVER = 1 << 62


def steps_for_period(period_ms: float, basic_ms: float) -> int:
    """The number of basic steps between two samples for a period in ms (>= 1)."""
    return max(1, math.ceil(period_ms / basic_ms - 1e-9))


class SamplingSchedule:
    """When one sampled device next produces a value.

    Attributes:
        period_ms: the requested period (0 = disabled), as returned by ``getSamplingPeriod``.
        next_step: the basic-step index at which the next sample is due (``NEVER`` when disabled).
    """

    __slots__ = ("period_ms", "every", "next_step")

    def __init__(self) -> None:
        self.period_ms = 0
        self.every = 0
        self.next_step = NEVER

    def enable(self, period_ms: int, now_step: int, basic_ms: float) -> None:
        """Enable (``period_ms > 0``) or disable (0) sampling at basic step ``now_step``."""
        self.period_ms = int(period_ms)
        if period_ms <= 0:
            self.every, self.next_step = 0, NEVER
        else:
            self.every = steps_for_period(period_ms, basic_ms)
            self.next_step = now_step + self.every

    def due(self, step: int) -> bool:
        """True if a sample is due after basic step ``step`` completed; advances the schedule."""
        if step >= self.next_step:
            self.next_step = step + self.every
            return True
        return False

    def reset(self) -> None:
        """Back to disabled, as after a world load."""
        self.period_ms, self.every, self.next_step = 0, 0, NEVER
