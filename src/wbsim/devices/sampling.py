"""Webots' sensor sampling schedule, in whole basic time steps.

``enable(period_ms)`` at time T records ``lastUpdate = T``; after each basic step a value is computed
when ``time - lastUpdate >= period`` and then ``lastUpdate = time``. So the first value arrives one
period after enabling and the effective period is ``ceil(period / basicTimeStep)`` basic steps.
"""

from __future__ import annotations

import math

__all__ = ["NEVER", "steps_for_period"]

NEVER = 1 << 62
"""A basic-step index that never comes: the next sample of a disabled device."""


def steps_for_period(period_ms: float, basic_ms: float) -> int:
    """The number of basic steps between two samples for a period in ms (>= 1)."""
    return max(1, math.ceil(period_ms / basic_ms - 1e-9))
