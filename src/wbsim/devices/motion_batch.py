"""One compiled call per step for the plain samples of the motion kinds (Gyro, Accelerometer, InertialUnit, Compass,
GPS).

Each of these kinds has a compiled loop (:mod:`wbsim.devices.motion_kernel`) that costs 1-4 us per sample; the
Python around five separate calls (argument unboxing, the checks of the prepared calls) cost several times that.
So a simulation's banks of these kinds share one :class:`MotionBatch` (in ``BankContext.shared``): a bank whose
sample group takes its plain compiled path (no noise, no lookup table, every axis, no resolution for the
three-axis kinds and the Compass, ``LOCAL`` coordinates for the GPS) *joins* it with a :class:`BatchPart` (the
group, its index arrays, the bank's arrays the loop writes, and a check that its conditions still hold). The first
bank of a step whose part is due calls :meth:`MotionBatch.run`: the batch runs
:func:`~wbsim.devices.motion_kernel.fused_values` once for every joined part due in that step (arguments prepared
once per set of due parts, packed in one table: :mod:`wbsim.devices.packed`), advances the other parts' groups and
marks them done for this step and refreshes every part's API lists, so the later banks do nothing more (and the
next step may run the same call again unchecked: :meth:`MotionBatch.steady`). Everything else (noise and its draws in
the numpy path's order, lookup tables, disabled axes, sensors without a body, WGS84, a kind with several groups, the
first sample of a group, resets) keeps the kind's own path; a part whose group or conditions changed is simply not
computed (its bank samples it itself and joins again), nor are parts whose arrays do not pack.

The loop and the robot runtime know nothing of it: each kind's bank decides whether its part joins, and the batch
only knows the kernel's argument slots of the five kinds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from wbsim.bound import BoundToSimulation
from wbsim.devices.compiled import StateViews, motion_kernels
from wbsim.devices.kind import BankContext
from wbsim.devices.packed import Packed, pack
from wbsim.devices.sampling import SampleGroup, SampleSchedule

__all__ = ["SLOTS", "BatchPart", "MotionBatch", "BatchMember"]

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
        publish: refreshes the bank's API lists from its value arrays.
    """

    slot: str
    schedule: SampleSchedule
    group: SampleGroup
    data: Any
    pieces: tuple[np.ndarray, ...]
    arrays: tuple[Any, ...]
    valid: Callable[[], bool]
    publish: Callable[[], None]
    done_step: int = -1
    """The basic step whose fused call computed this part, its group advanced and its lists published: the
    bank's ``sample`` of that step does nothing more (a step number, not a flag: a step interrupted after the
    fused call leaves nothing that would make the next step skip its sample)."""


class MotionBatch(BoundToSimulation):
    """The joined parts of one simulation and the prepared fused calls (module docstring).

    Get it with :meth:`of`; banks call :meth:`join`, :meth:`steady`, :meth:`run`, :meth:`changed` and
    :meth:`leave`. A part whose ``valid`` fails or whose group changed is not computed (its bank samples on its
    own, then joins again).

    The steady fused call: after a fused call, the batch keeps its parts and the versions of their schedules
    (dropped by :meth:`changed`). While no schedule changed its groups (:attr:`SampleSchedule.version`) and no
    member bank reported a change (:meth:`changed`: a field written, ``compiled`` switched, a sample on its own
    path, a part joining or leaving), the parts' checks of :meth:`run` (alone in their schedule, ``valid``)
    still hold, so :meth:`steady` only checks that every part is due and runs the call (the checks' Python
    cost more than the five kinds' loops right after the physics step).

    Its prepared calls pack the views of one MjData and it refreshes its simulation's kinematics: copies and pickles
    raise :class:`~wbsim.errors.NotCopyableError` (:mod:`wbsim.bound`).
    """

    def __init__(self, context: BankContext) -> None:
        self._refresh = context.refresh_kinematics
        self._parts: dict[str, BatchPart] = {}
        # The prepared calls by due kinds: (loop, its packed arguments), None if they do not pack.
        self._calls: dict[tuple[str, ...], tuple[Any, Packed] | None] = {}
        # The last fused call (None after a change): (calling part, MjData, parts, their schedules' versions, the
        # call).
        self._steady: tuple[BatchPart, Any, tuple[BatchPart, ...], tuple[int, ...], tuple[Any, Packed]] | None
        self._steady = None

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
        self.changed()

    def leave(self, part: BatchPart) -> None:
        """``part`` is no longer computed (its bank was reset or restarted)."""
        if self._parts.get(part.slot) is part:
            del self._parts[part.slot]
            self._calls = {}
        part.done_step = -1
        self.changed()

    def changed(self) -> None:
        """A member bank changed something its part's ``valid`` reads: the next fused call checks every part."""
        self._steady = None

    def steady(self, part: BatchPart, step: int, data: Any) -> bool:
        """The fused call of basic step ``step`` if it is the last one again (class docstring): the same calling
        ``part``, MjData and parts, nothing changed since, every part due. Advances the parts' groups, computes and
        publishes them, marks them done.

        Returns:
            False, with nothing done, otherwise (the caller takes the checked path: its schedule, :meth:`run`).
        """
        memo = self._steady
        if memo is None or memo[0] is not part or memo[1] is not data:
            return False
        parts = memo[2]
        for other, version in zip(parts, memo[3]):
            if other.schedule.version != version or other.group.next_step > step:
                return False
        self._fire(parts, step, memo[4], None)
        return True

    def run(self, part: BatchPart, step: int) -> bool:
        """Sample ``part`` and every other joined part due after basic step ``step`` in one compiled call.

        Called by ``part``'s bank, the first of the step with its part due (its group, its only due one, was
        advanced by its schedule) and valid. The other parts due are peeked (due now, their kind's only group,
        valid); their groups are advanced here and they are marked ``done`` for their banks, which sample later
        in the step.

        Returns:
            True if the values are computed; False (no other part due, or ``part`` not joined): the bank samples
            on its own (its prepared call is cheaper than the fused one).
        """
        if self._parts.get(part.slot) is not part:
            return False
        data = part.data
        # The other parts due: their group samples now (not advanced yet), is their kind's only one, and their
        # bank would take its plain compiled path.
        parts = [other for other in self._parts.values()
                 if other is part or (other.group.next_step <= step and other.data is data
                                      and other.schedule.is_sole(other.group) and other.valid())]
        if len(parts) < 2:
            return False
        due = tuple([other.slot for other in parts])
        if due in self._calls:
            call = self._calls[due]
        else:
            call = self._calls[due] = self._prepare(due, data)
        if call is None:  # arrays that do not pack (wbsim.devices.packed): each bank samples on its own
            return False
        self._fire(parts, step, call, part)  # the caller's schedule has advanced its group already
        # Kept for the steady call only if the caller's group is its kind's only one too (the others were checked
        # above): the steady call moves every group on as its schedule's only one and answers for the whole bank.
        if part.schedule.is_sole(part.group):
            self._steady = (part, data, tuple(parts),
                            tuple([other.schedule.version for other in parts]), call)
        else:
            self._steady = None
        return True

    def _fire(self, parts: tuple[BatchPart, ...] | list[BatchPart], step: int, call: tuple[Any, Packed],
              advanced: BatchPart | None) -> None:
        """Run the fused ``call`` for ``parts`` after basic step ``step``: each part's only group moves on (but
        ``advanced``'s, already moved by its schedule), is marked done, computed and its lists published."""
        for other in parts:
            if other is not advanced:
                other.schedule.advance_sole(other.group, step)  # its only group, due: as its bank's `due` would
            other.done_step = step
        self._refresh()
        loop, packed = call
        loop(packed.table, step, *packed.scalars)
        for other in parts:
            other.publish()

    def _prepare(self, due: tuple[str, ...], data: Any) -> tuple[Any, Packed] | None:
        """The fused call of the parts ``due`` (its loop and packed arguments), or None if an array does not
        pack."""
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
        packed = pack((views.site_xmat, views.site_xpos, views.cvel, views.subtree_com, index, bounds, *arrays),
                      kernels.FUSED_CODES)
        return (kernels.fused_values, packed) if packed is not None else None


class BatchMember:
    """What a motion kind's bank does with the fused call (mixed into the five kinds' banks, before
    ``SampledBank``): its joined part, joining, leaving, the start of its ``sample``, and the changes it reports
    to the batch (:meth:`_batch_changed` from its ``field_changed``; ``compiled`` is a property here that
    reports its writes).

    The bank has ``schedule``, ``context`` and ``_refresh_lists`` (its API lists from its value arrays).
    """

    _part: BatchPart | None = None  # this kind's part, once a plain group joined
    _batch: MotionBatch | None = None
    _compiled: bool = False

    @property
    def compiled(self) -> bool:
        """The bank samples with its compiled loops (numba) rather than numpy."""
        return self._compiled

    @compiled.setter
    def compiled(self, value: bool) -> None:
        self._compiled = value
        self._batch_changed()

    def _batch_changed(self) -> None:
        """Something the part's ``valid`` reads may have changed (a field written, ``compiled`` switched, a
        sample on the bank's own path): the batch checks every part again at its next call."""
        if self._batch is not None:
            self._batch.changed()

    def _join_batch_part(self, slot: str, group: SampleGroup, data: Any, pieces: tuple[np.ndarray, ...],
                         arrays: tuple[Any, ...], valid: Callable[[], bool]) -> None:
        """The fused call samples ``group`` from its next sample on, while ``valid()`` holds; only when the kind
        has one group (the common case: with several, the parts would alternate)."""
        schedule: SampleSchedule = self.schedule  # type: ignore[attr-defined]
        if len(schedule.groups) != 1:
            return
        self._batch = MotionBatch.of(self.context)  # type: ignore[attr-defined]
        self._part = BatchPart(slot, schedule, group, data, pieces, arrays, valid,
                               self._refresh_lists)  # type: ignore[attr-defined]
        self._batch.join(self._part)

    def _leave_batch(self) -> None:
        """The part is no longer computed by the fused call (the bank is reset or restarted)."""
        if self._part is not None:
            self._batch.leave(self._part)  # type: ignore[union-attr]
            self._part = None

    def _due_own(self, data: Any, step: int) -> list[SampleGroup]:
        """The groups the bank must sample itself after basic step ``step`` (advanced by its schedule): none if
        none is due, or if a fused call computed and published them (this bank's, steady or checked, or one
        another bank ran in this step)."""
        part = self._part
        if part is not None:
            if part.done_step == step:  # computed by a fused call another bank ran
                return []
            if self._batch.steady(part, step, data):  # type: ignore[union-attr]
                return []
        due = self.schedule.due(step)  # type: ignore[attr-defined]
        if (due and part is not None and len(due) == 1 and due[0] is part.group and part.valid()
                and self._batch.run(part, step)):  # type: ignore[union-attr]
            return []
        if due:  # sampled on its own path, which may prepare its plain call again
            self._batch_changed()
        return due
