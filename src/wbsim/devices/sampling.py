"""Webots' sensor sampling schedule (``WbSensor``), in whole basic time steps, vectorised over a bank.

``enable(period_ms)`` at time T records ``lastUpdate = T``; after each basic step a value is computed
when ``time - lastUpdate >= period`` and then ``lastUpdate = time``. So the first value arrives one
period after enabling and the effective period is ``ceil(period / basicTimeStep)`` basic steps.

:class:`SampleSchedule` keeps that schedule for every device of a bank. Devices enabled at the same
step with the same period are sampled together, so a bank does one gather per group and step, and a
step where nothing is due costs one integer comparison.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from typing import Any

from wbsim.devices.kind import BankContext, BankDevice, DeviceBank

__all__ = ["NEVER", "steps_for_period", "SampleSchedule", "SampleGroup", "SampledBank", "SampledDevice"]

NEVER = 1 << 62
"""A basic-step index that never comes: the next sample of a disabled device."""


def steps_for_period(period_ms: float, basic_ms: float) -> int:
    """The number of basic steps between two samples for a period in ms (>= 1)."""
    return max(1, math.ceil(period_ms / basic_ms - 1e-9))


@dataclass(eq=False)
class SampleGroup:
    """Devices sampled on the same steps.

    Attributes:
        next_step: the basic step after which the group samples next.
        every: basic steps between two samples.
        rows: the bank rows of the devices (int64, sorted).
        cache: free slot for the bank's per-group precomputation (reset when groups change).
    """

    next_step: int
    every: int
    rows: np.ndarray
    cache: object = field(default=None)


class SampleSchedule:
    """When each of ``n`` devices takes its next sample.

    Args:
        n: the number of devices.
        basic_ms: WorldInfo.basicTimeStep in ms.

    Attributes:
        period_ms: the requested sampling period of each device (0 = disabled), int64 (n,).
        every: the effective period in basic steps (0 = disabled), int64 (n,).
        next_any: the first basic step after which some device samples (``NEVER`` if none is enabled).
    """

    def __init__(self, n: int, basic_ms: float) -> None:
        self.n = n
        self.basic_ms = basic_ms
        # Updated in place (never replaced), so API objects may keep a reference to `period_ms`.
        self.period_ms = np.zeros(n, dtype=np.int64)
        self.every = np.zeros(n, dtype=np.int64)
        self._next = np.full(n, NEVER, dtype=np.int64)
        self._groups: list[SampleGroup] = []
        self.next_any = NEVER

    def reset(self) -> None:
        """Every device disabled."""
        self.period_ms[:] = 0
        self.every[:] = 0
        self._next[:] = NEVER
        self._groups = []
        self.next_any = NEVER

    def restart(self) -> None:
        """After a world reset (Webots' ``WbSensor::reset``, ``lastUpdate = -inf``): enabled devices stay
        enabled and sample at the end of the first step."""
        self._sync()
        self._next[:] = np.where(self.every > 0, 1, NEVER)
        self._regroup()

    def enable(self, row: int, period_ms: int, now_step: int) -> None:
        """Enable device ``row`` with ``period_ms`` (> 0) at basic step ``now_step``, or disable it (0)."""
        self._sync()
        self.period_ms[row] = period_ms
        if period_ms <= 0:
            self.every[row], self._next[row] = 0, NEVER
        else:
            self.every[row] = steps_for_period(period_ms, self.basic_ms)
            self._next[row] = now_step + self.every[row]
        self._regroup()

    def due(self, step: int) -> list[SampleGroup]:
        """The groups that sample after basic step ``step`` (advanced to their next sample).

        Call it once per step: groups due are moved on by their period.
        """
        if step < self.next_any:
            return []
        due = []
        next_any = NEVER
        for group in self._groups:
            if group.next_step <= step:
                due.append(group)
                group.next_step = step + group.every
            next_any = min(next_any, group.next_step)
        self.next_any = next_any
        return due

    @property
    def groups(self) -> tuple[SampleGroup, ...]:
        """The current groups of enabled devices."""
        return tuple(self._groups)

    def _sync(self) -> None:
        for group in self._groups:
            self._next[group.rows] = group.next_step

    def _regroup(self) -> None:
        enabled = np.flatnonzero(self.every > 0)
        keys = sorted(set(zip(self._next[enabled].tolist(), self.every[enabled].tolist())))
        groups = []
        for next_step, every in keys:
            rows = enabled[(self._next[enabled] == next_step) & (self.every[enabled] == every)]
            groups.append(SampleGroup(next_step, every, rows))
        self._groups = groups
        self.next_any = min((g.next_step for g in groups), default=NEVER)


class SampledBank(DeviceBank):
    """Base of banks whose devices are sampled on Webots' schedule (``schedule``, one row per device).

    Args:
        bindings: the compiled bindings of the devices, in scene order.
        context: what the bank may use from the simulation.
    """

    samples = True

    def __init__(self, bindings: tuple[Any, ...], context: BankContext) -> None:
        super().__init__(bindings, context)
        self.schedule = SampleSchedule(self.n, context.basic_time_step_ms)

    def enable(self, row: int, period_ms: int, now_step: int) -> None:
        """Enable (period > 0) or disable (0) device ``row`` at basic step ``now_step``."""
        self.schedule.enable(row, period_ms, now_step)

    @property
    def period_ms(self) -> np.ndarray:
        """The requested sampling period of each device (0 = disabled), (n,), updated in place."""
        return self.schedule.period_ms


@dataclass
class SampledDevice(BankDevice):
    """Base of core devices sampled on a :class:`SampleSchedule` (the bank has ``enable`` and ``period_ms``)."""

    def enable(self, period_ms: int) -> None:
        """Sample every ``period_ms`` (rounded up to whole basic steps); 0 disables."""
        self.bank.enable(self.index, period_ms, self.now_step())

    @property
    def period_ms(self) -> int:
        """The sampling period as requested (0 = disabled)."""
        return int(self.bank.period_ms[self.index])
