"""One compiled call per step for the plain samples of the motion kinds (Gyro, Accelerometer, InertialUnit, Compass,
GPS).

Each of these kinds has a compiled loop (:mod:`wbsim.devices.motion_kernel`) that costs 1-4 us per sample; the
Python around five separate calls (argument unboxing, the checks of the prepared calls) cost several times that.
So a simulation's banks of these kinds share one :class:`MotionBatch` (in ``BankContext.shared``): a bank whose
sample group takes its plain compiled path (no noise, no lookup table, every axis, no resolution for the
three-axis kinds and the Compass, ``LOCAL`` coordinates for the GPS) *joins* it with a :class:`BatchPart` (the
group, its index arrays, the bank's arrays the loop writes, and a check that its conditions still hold). The first
bank of a step whose part is due calls :meth:`MotionBatch.take`: the batch runs
:func:`~wbsim.devices.motion_kernel.fused_values` once for every joined part due in that step (arguments prepared
once per set of due parts and reused), and the later banks find their part done. Everything else (noise and its
draws in the numpy path's order, lookup tables, disabled axes, sensors without a body, WGS84, several groups,
the first sample of a group, resets) keeps the kind's own path; a part whose group or conditions changed is
simply not taken (its bank samples it itself and joins again).

The loop and the robot runtime know nothing of it: each kind's bank decides whether its part joins, and the batch
only knows the kernel's argument slots of the five kinds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from wbsim.devices.compiled import StateViews, motion_kernels
from wbsim.devices.kind import BankContext
from wbsim.devices.sampling import SampleGroup, SampleSchedule

__all__ = ["SLOTS", "BatchPart", "MotionBatch"]

SLOTS = ("gyro", "accelerometer", "inertial_unit", "compass", "gps")
"""The kinds' slots in :func:`~wbsim.devices.motion_kernel.fused_values`, in its argument order."""


def _placeholders() -> dict[str, tuple[Any, ...]]:
    """Arrays of the right shapes and types for the slots of kinds that never joined (their loops run on no
    sensor)."""
    def rows3() -> np.ndarray:
        return np.empty((0, 3))

    def rows1() -> np.ndarray:
        return np.empty(0)

    return {
        "gyro": (rows3(),),
        "accelerometer": (rows3(), rows1(), 1.0, np.zeros(3), rows3()),
        "inertial_unit": (rows1(), False, np.empty((0, 4)), rows3()),
        "compass": (0, rows3()),
        "gps": (np.zeros(3), rows3(), rows1(), rows1(), rows1(), rows3(), rows1(), 1.0, rows3(), rows3(), rows1()),
    }


@dataclass(eq=False)
class BatchPart:
    """One bank's sample group in the batch.

    Attributes:
        slot: the kind's slot (one of :data:`SLOTS`).
        schedule: the bank's schedule; group: the sample group (it must stay one of the schedule's groups).
        data: the MjData the arrays were gathered for.
        pieces: the kind's int64 index arrays (``motion_kernel.FUSED_PIECES``).
        arrays: the kind's other arguments of ``fused_values``, in order (the bank's arrays, written in place).
        valid: the bank's conditions for its plain compiled path still hold for this group (called only at steps
            where the group is due).
    """

    slot: str
    schedule: SampleSchedule
    group: SampleGroup
    data: Any
    pieces: tuple[np.ndarray, ...]
    arrays: tuple[Any, ...]
    valid: Callable[[], bool]

    def pending(self, step: int) -> bool:
        """The group samples after basic step ``step`` (not advanced yet) and its bank would take its plain
        compiled path."""
        group = self.group
        return group.next_step <= step and self.schedule.is_live(group) and self.valid()


class MotionBatch:
    """The joined parts of one simulation and the prepared fused calls (module docstring).

    Get it with :meth:`of`; banks call :meth:`join` and :meth:`take`. A kind leaves by not calling
    :meth:`take` (its part's ``valid`` fails or its group changed); its part stays until it joins again.
    """

    def __init__(self, context: BankContext) -> None:
        self._refresh = context.refresh_kinematics
        self._parts: dict[str, BatchPart] = {}
        self._calls: dict[tuple[str, ...], tuple[Any, tuple[Any, ...], tuple[Any, ...]]] = {}
        # The step of the last take and the parts computed in it (the objects: a part that joins later in the
        # step, or after a world reset that repeats step numbers, is another object, and samples on its own).
        self._step = -1
        self._done: tuple[BatchPart, ...] = ()

    @staticmethod
    def of(context: BankContext) -> MotionBatch:
        """The batch of the simulation of ``context`` (made at the first call)."""
        batch = context.shared.get("motion_batch")
        if batch is None:
            batch = context.shared["motion_batch"] = MotionBatch(context)
        return batch

    @property
    def parts(self) -> dict[str, BatchPart]:
        """The joined parts by slot (read-only use)."""
        return self._parts

    def join(self, part: BatchPart) -> None:
        """``part`` replaces its kind's part (the prepared calls are dropped)."""
        self._parts[part.slot] = part
        self._calls = {}

    def take(self, part: BatchPart, step: int) -> bool:
        """Sample ``part`` (its bank found its group due after basic step ``step`` and its conditions hold).

        The first call of a step computes every joined part due in it in one compiled call (when there are at
        least two; else False: the bank's own prepared call is cheaper); the next ones find theirs done.

        Returns:
            True if ``part``'s values are computed; False: the bank samples it itself.
        """
        if self._step == step:
            return part in self._done
        self._step = step
        if self._parts.get(part.slot) is not part:
            self._done = ()
            return False
        data = part.data
        # `part`'s group was advanced by its bank's schedule already; the others are peeked (not advanced).
        done = tuple(other for other in self._parts.values()
                     if other is part or (other.data is data and other.pending(step)))
        if len(done) < 2:
            self._done = ()
            return False
        due = tuple(other.slot for other in done)
        call = self._calls.get(due)
        if call is None:
            call = self._calls[due] = self._prepare(due, data)
        self._done = done
        self._refresh()
        loop, before, after = call
        loop(*before, step, *after)
        return True

    def _prepare(self, due: tuple[str, ...], data: Any) -> tuple[Any, tuple[Any, ...], tuple[Any, ...]]:
        kernels = motion_kernels()
        placeholders = _placeholders()
        pieces: list[np.ndarray] = []
        arrays: list[Any] = []
        for slot, count in zip(SLOTS, kernels.FUSED_PIECES):
            part = self._parts.get(slot)
            if slot in due:
                assert part is not None
                pieces += part.pieces
            else:
                pieces += [np.empty(0, dtype=np.int64)] * count
            arrays += part.arrays if part is not None else placeholders[slot]
        bounds = np.zeros(len(pieces) + 1, dtype=np.int64)
        bounds[1:] = np.cumsum([len(p) for p in pieces])
        index = np.concatenate([np.asarray(p, dtype=np.int64) for p in pieces])
        views = StateViews(data)
        before = (views.site_xmat, views.site_xpos, views.cvel, views.subtree_com, index, bounds)
        return kernels.fused_values, before, tuple(arrays)
