"""Webots' sensor sampling schedule (``WbSensor``), in whole basic time steps, vectorised over a bank.

``enable(period_ms)`` at time T records ``lastUpdate = T``; after each basic step a value is computed
when ``time - lastUpdate >= period`` and then ``lastUpdate = time``. So the first value arrives one
period after enabling and the effective period is ``ceil(period / basicTimeStep)`` basic steps.

:class:`SampleSchedule` keeps that schedule for every device of a bank. Devices enabled at the same
step with the same period are sampled together, so a bank does one gather per group and step, and a
step where nothing is due costs one integer comparison.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field

import numpy as np

from collections.abc import Callable
from typing import Any

from wbsim.devices.kind import BankContext, BankDevice, DeviceBank

__all__ = ["NEVER", "steps_for_period", "rows_of", "SampleSchedule", "SampleGroup", "SampledBank", "SampledDevice"]

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
        members: the bank rows of the devices.
        cache: free slot for the bank's per-group precomputation; cleared whenever the members change.
    """

    next_step: int
    every: int
    members: set[int] = field(default_factory=set)
    cache: object = field(default=None)
    _rows: np.ndarray | None = field(default=None, repr=False)

    @property
    def rows(self) -> np.ndarray:
        """The members as a sorted int64 array (built once per membership change)."""
        if self._rows is None:
            self._rows = np.array(sorted(self.members), dtype=np.int64)
        return self._rows

    def changed(self) -> None:
        """The members changed: drop what was derived from them."""
        self._rows = None
        self.cache = None


def rows_of(groups: list[SampleGroup]) -> np.ndarray:
    """The rows of ``groups`` (at least one), int64 (k,): the group's own array when there is one."""
    return groups[0].rows if len(groups) == 1 else np.concatenate([group.rows for group in groups])


class SampleSchedule:
    """When each of ``n`` devices takes its next sample.

    Groups are updated incrementally: enabling a device touches only its old and new groups (and a
    re-enable that changes nothing, e.g. ``enable(step)`` called every step, touches none); the next
    sampling step comes from a heap of group keys. So ``enable`` costs O(log groups), not O(devices),
    and controllers may call it in their loop.

    Args:
        n: the number of devices.
        basic_ms: WorldInfo.basicTimeStep in ms.
        joined: called whenever a device joins a group (enabled, restarted, adopted): the only way
            :attr:`next_any` comes sooner (a bank passes ``BankContext.sampling_changed``).

    Attributes:
        period_ms: the requested sampling period of each device (0 = disabled), int64 (n,); also as
            :attr:`period_list` (Python ints, which the API's reads check).
        every: the effective period in basic steps (0 = disabled), int64 (n,).
        next_any: the first basic step after which some device samples (``NEVER`` if none is enabled).
    """

    def __init__(self, n: int, basic_ms: float, joined: Callable[[], None] | None = None) -> None:
        self.n = n
        self.basic_ms = basic_ms
        self._joined = joined
        # Updated in place (never replaced), so API objects may keep a reference to `period_ms`.
        self.period_ms = np.zeros(n, dtype=np.int64)
        self.period_list: list[int] = [0] * n  # the same as Python ints, for the API's reads (in place too)
        self.every = np.zeros(n, dtype=np.int64)
        self._group_of: list[SampleGroup | None] = [None] * n
        self._groups: dict[tuple[int, int], SampleGroup] = {}
        self._keys: list[tuple[int, int]] = []  # heap of group keys (stale ones skipped lazily)
        # The sole group moving on from sample to sample is not keyed again each time (a dict removal and insertion
        # of a new tuple key, the most of a due step's cost): (its key in _groups, the group) once it has moved
        # since it was keyed, until _settle keys it again; every other use of _groups or _keys settles first.
        self._moved: tuple[tuple[int, int], SampleGroup] | None = None
        self.next_any = NEVER
        # Bumped by every change of the groups other than a group moving on to its next sample: who checked
        # a group (alone, due) can trust it while the version stays (motion_batch's steady fused call).
        self.version = 0

    def reset(self) -> None:
        """Every device disabled."""
        self.version += 1
        self.period_ms[:] = 0
        self.period_list[:] = [0] * self.n
        self.every[:] = 0
        self._group_of = [None] * self.n
        self._groups = {}
        self._keys = []
        self._moved = None
        self.next_any = NEVER

    def restart(self, first_step: int | np.ndarray = 1) -> None:
        """After a world reset (Webots' ``WbSensor::reset``, ``lastUpdate = -inf``): enabled devices stay
        enabled and sample next after basic step ``first_step`` (one for all, or one per device, (n,)). The
        simulation ends the reset step at step 1 and samples it (Webots refreshes sensors in that step's
        answer, from the initial state)."""
        self.version += 1
        enabled = np.flatnonzero(self.every > 0).tolist()
        firsts = np.broadcast_to(np.asarray(first_step, dtype=np.int64), (self.n,))
        self._group_of = [None] * self.n
        self._groups = {}
        self._keys = []
        self._moved = None
        self.next_any = NEVER
        for row in enabled:
            self._join(row, int(firsts[row]), int(self.every[row]))

    def adopt(self, old: SampleSchedule, old_rows: np.ndarray, new_rows: np.ndarray) -> None:
        """Take over the schedule of devices ``old_rows`` of ``old`` as rows ``new_rows`` (a recompiled world,
        :mod:`wbsim.sim.rebuild`): the same periods and the same next sampling steps."""
        for o, n in zip(old_rows.tolist(), new_rows.tolist()):
            self.period_ms[n] = old.period_ms[o]
            self.period_list[n] = int(old.period_ms[o])
            group = old._group_of[o]
            if group is not None:
                self.every[n] = group.every
                self._join(n, group.next_step, group.every)

    def enable(self, row: int, period_ms: int, now_step: int) -> None:
        """Enable device ``row`` with ``period_ms`` (> 0) at basic step ``now_step``, or disable it (0).

        As Webots (``WbSensor::setRefreshRate``), enabling restarts the device's timer: its next sample
        comes one period later.
        """
        self.period_ms[row] = period_ms
        self.period_list[row] = int(period_ms)
        every = steps_for_period(period_ms, self.basic_ms) if period_ms > 0 else 0
        current = self._group_of[row]
        if every and current is not None and current.every == every and current.next_step == now_step + every:
            return  # already there (a controller re-enabling every step)
        if current is not None:
            self._leave(row, current)
        self.every[row] = every
        if every:
            self._join(row, now_step + every, every)

    def due(self, step: int) -> list[SampleGroup]:
        """The groups that sample after basic step ``step`` (advanced to their next sample).

        Call it once per step: groups due are moved on by their period.
        """
        if step < self.next_any:
            return []
        moved = self._moved
        if moved is not None:  # the sole group, moved on since it was keyed (due: next_any is its next step)
            group = moved[1]
            group.next_step = self.next_any = step + group.every
            return [group]
        groups = self._groups
        if len(groups) == 1:  # the common case (every device on one schedule): no scan, no heap
            (key, group), = groups.items()
            if group.next_step > step:
                return []
            self.advance_sole(group, step)
            return [group]
        self.version += 1  # (groups may merge below)
        due = [group for group in self._groups.values() if group.next_step <= step]
        for group in due:
            del self._groups[(group.next_step, group.every)]
        for group in due:
            group.next_step = step + group.every
            key = (group.next_step, group.every)
            other = self._groups.get(key)
            if other is None:
                self._groups[key] = group
                heapq.heappush(self._keys, key)
            else:
                # The same schedule from now on: the other group absorbs this one, which stays intact for the
                # sample the caller takes now (rare: devices enabled on the step another group samples).
                other.members |= group.members
                for row in group.members:
                    self._group_of[row] = other
                other.changed()
        self._update_next_any()
        return due

    def advance_sole(self, group: SampleGroup, step: int) -> None:
        """Move ``group``, the only group, due after basic step ``step``, on to its next sample (what
        :meth:`due` does for it)."""
        if self._moved is None:  # keyed again only when something else needs the keys (_settle)
            self._moved = ((group.next_step, group.every), group)
        group.next_step = self.next_any = step + group.every

    def _settle(self) -> None:
        """Key the sole group again under its current next step, if it moved on since it was keyed."""
        moved = self._moved
        if moved is None:
            return
        self._moved = None
        key, group = moved
        del self._groups[key]
        key = (group.next_step, group.every)
        self._groups[key] = group
        self._keys = [key]  # any other key was stale

    def due_rows(self, step: int) -> np.ndarray | None:
        """The rows of every group due after basic step ``step`` (see :meth:`due`), int64 (k,), or None."""
        due = self.due(step)
        if not due:
            return None
        return rows_of(due)

    @property
    def groups(self) -> tuple[SampleGroup, ...]:
        """The current groups of enabled devices."""
        return tuple(self._groups.values())

    def is_sole(self, group: SampleGroup) -> bool:
        """``group`` is the only current group (not emptied, absorbed or dropped by a reset, and alone)."""
        self._settle()
        groups = self._groups
        return len(groups) == 1 and groups.get((group.next_step, group.every)) is group

    def group_of(self, row: int) -> SampleGroup | None:
        """The group of device ``row`` (None if it is disabled)."""
        return self._group_of[row]

    def _join(self, row: int, next_step: int, every: int) -> None:
        self._settle()
        self.version += 1
        key = (next_step, every)
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = SampleGroup(next_step, every)
            heapq.heappush(self._keys, key)
        group.members.add(row)
        group.changed()
        self._group_of[row] = group
        self.next_any = min(self.next_any, next_step)
        if self._joined is not None:
            self._joined()

    def _leave(self, row: int, group: SampleGroup) -> None:
        self._settle()
        self.version += 1
        group.members.discard(row)
        group.changed()
        self._group_of[row] = None
        if not group.members:
            del self._groups[(group.next_step, group.every)]
            if group.next_step == self.next_any:
                self._update_next_any()

    def _update_next_any(self) -> None:
        self._settle()
        keys, groups = self._keys, self._groups
        while keys and keys[0] not in groups:  # keys of groups emptied or moved on
            heapq.heappop(keys)
        self.next_any = keys[0][0] if keys else NEVER


class SampledBank(DeviceBank):
    """Base of banks whose devices are sampled on Webots' schedule (``schedule``, one row per device).

    Args:
        bindings: the compiled bindings of the devices, in scene order.
        context: what the bank may use from the simulation.
    """

    samples = True

    def __init__(self, bindings: tuple[Any, ...], context: BankContext) -> None:
        super().__init__(bindings, context)
        self.schedule = SampleSchedule(self.n, context.basic_time_step_ms, context.sampling_changed)

    def enable(self, row: int, period_ms: int, now_step: int) -> None:
        """Enable (period > 0) or disable (0) device ``row`` at basic step ``now_step``."""
        self.schedule.enable(row, period_ms, now_step)

    @property
    def period_ms(self) -> np.ndarray:
        """The requested sampling period of each device (0 = disabled), (n,), updated in place."""
        return self.schedule.period_ms

    def transfer_from(self, old: DeviceBank, rows: tuple[np.ndarray, np.ndarray], state: Any) -> None:
        """The :attr:`carried` state and the sampling schedule of the devices that stay (see
        :meth:`DeviceBank.transfer_from`), then the API's lists from the arrays (:meth:`_refresh_lists`)."""
        super().transfer_from(old, rows, state)
        assert isinstance(old, SampledBank)
        self.schedule.adopt(old.schedule, *rows)
        self._refresh_lists()

    def _refresh_lists(self) -> None:
        """Rebuild the Python lists the API reads from the carried arrays (banks that keep such lists)."""


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
