"""The links between connectors: pooled MuJoCo welds and contact exclusions, rewired at run time.

A link uses one weld of the pool the compiler declared (:class:`~wbsim.devices.connector.compile.LinkPool`):
``eq_obj1id``/``eq_obj2id`` become the two upper bodies, ``eq_data`` the held pose (:mod:`.weld`), and
``eq_active`` turns it on. While the link exists, contacts between the two sides' bodies are ignored
through pooled body-pair exclusions (MuJoCo's ``exclude_signature``, kept sorted because MuJoCo
searches it). A snap moves the weld's target along a :class:`~wbsim.devices.connector.weld.Ramp`.

Welds, exclusions and solver parameters are model fields, not state: :meth:`Links.clear` puts them
back (``mj_copyData`` on a reset restores ``eq_active`` only).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import mujoco
import numpy as np

from wbsim.devices.connector.compile import LinkPool
from wbsim.devices.connector.weld import Ramp, WeldPose

__all__ = ["Links", "LinkRecord"]


@dataclass
class LinkRecord:
    """One link (a pool slot in use).

    Attributes:
        owner: the bank row of the connector that made it (its x-axis, its weld body 1).
        peer: the bank row of the other connector.
        target: the pose the weld holds once any snap is over.
        signatures: the body-pair exclusions it uses.
    """

    owner: int
    peer: int
    target: WeldPose
    signatures: np.ndarray


class Links:
    """Every link of a world, over the pool of welds and exclusions.

    Args:
        model: the compiled model (its welds and exclusions are rewired).
        pool: the pool the compiler declared (None if the world has no room for links).

    Attributes:
        owner, peer: per pool slot, the two connectors' rows (-1 if the slot is free), int64 (L,).
        eq: per pool slot, the MuJoCo weld, int64 (L,).
        monitored: per pool slot, whether the link's strengths are checked, (L,).
        made_at: per pool slot, the basic step count when the link was made, int64 (L,).
    """

    def __init__(self, model: mujoco.MjModel, pool: LinkPool | None) -> None:
        self._model = model
        weld_ids = pool.weld_ids if pool is not None else ()
        size = len(weld_ids)
        self.eq = np.array(weld_ids, dtype=np.int64)
        self.owner = np.full(size, -1, dtype=np.int64)
        self.peer = np.full(size, -1, dtype=np.int64)
        self.monitored = np.zeros(size, dtype=bool)
        self.made_at = np.zeros(size, dtype=np.int64)
        self._records: list[LinkRecord | None] = [None] * size
        self._free = list(range(size))  # a heap: the lowest free slot first (deterministic)
        self._solref = pool.weld_solref if pool is not None else (0.0, 1.0)
        self.ramp = Ramp()
        # The builder's own exclusions (the pool's placeholders removed), merged with the links' on every write.
        signatures = model.exclude_signature.copy()
        room = pool.exclude_count if pool is not None else 0
        if room:
            dummy = np.flatnonzero(signatures == pool.exclude_dummy)  # type: ignore[union-attr]
            signatures = np.delete(signatures, dummy[:room])
        self._fixed = np.sort(signatures)
        self._room = room
        self._used = 0
        self.write_exclusions()  # the placeholders must never be live

    def __len__(self) -> int:
        return len(self._records) - len(self._free)

    @property
    def capacity(self) -> int:
        """The number of welds in the pool."""
        return len(self._records)

    def record(self, slot: int) -> LinkRecord:
        """The link in ``slot``."""
        record = self._records[slot]
        if record is None:
            raise KeyError(slot)
        return record

    def exclusions_room(self, count: int) -> bool:
        """True if ``count`` more exclusions fit in the pool."""
        return self._used + count <= self._room

    def make(self, owner: int, peer: int, body1: int, body2: int, start: WeldPose, target: WeldPose,
             snap_time: float, duration_s: float, monitored: bool, now_step: int, data: mujoco.MjData,
             signatures: np.ndarray, active: bool = True) -> int:
        """Rewire a free weld between ``body1`` (owner's side) and ``body2``, holding ``start`` and moving to
        ``target`` over ``duration_s`` from physics time ``snap_time`` (at once if 0). Returns the slot,
        or -1 if the pool is full."""
        if not self._free:
            return -1
        slot = heapq.heappop(self._free)
        eq = int(self.eq[slot])
        model = self._model
        model.eq_obj1id[eq], model.eq_obj2id[eq] = body1, body2
        model.eq_solref[eq] = self._solref
        if duration_s > 0.0:
            model.eq_data[eq, :12] = start.data()
            self.ramp.add(slot, start, target, snap_time, duration_s)
        else:
            model.eq_data[eq, :12] = target.data()
        data.eq_active[eq] = 1 if active else 0
        self.owner[slot], self.peer[slot] = owner, peer
        self.monitored[slot] = monitored
        self.made_at[slot] = now_step
        self._records[slot] = LinkRecord(owner, peer, target, signatures)
        if len(signatures):
            self._used += len(signatures)
            self.write_exclusions()
        return slot

    def remove(self, slot: int, data: mujoco.MjData) -> LinkRecord:
        """Deactivate the weld of ``slot`` and free its exclusions; returns the removed link."""
        record = self.record(slot)
        data.eq_active[int(self.eq[slot])] = 0
        self.ramp.remove(slot)
        self._records[slot] = None
        heapq.heappush(self._free, slot)
        self.owner[slot] = self.peer[slot] = -1
        self.monitored[slot] = False
        if len(record.signatures):
            self._used -= len(record.signatures)
            self.write_exclusions()
        return record

    def clear(self, data: mujoco.MjData) -> None:
        """Remove every link (resets)."""
        for slot, record in enumerate(self._records):
            if record is not None:
                self.remove(slot, data)
        self.ramp.clear()

    def write_exclusions(self) -> None:
        """The model's exclusions: the builder's and the links', sorted, padded with the never-tested
        signature 0 (the world with itself)."""
        active = [record.signatures for record in self._records if record is not None and len(record.signatures)]
        merged = np.concatenate([self._fixed, *active, np.zeros(self._room - self._used, dtype=self._fixed.dtype)])
        self._model.exclude_signature[:] = np.sort(merged)

    def advance_ramps(self, time_s: float) -> None:
        """Set the snap targets for the physics step ending at ``time_s``; finished snaps hold their target."""
        slots, position, quat, done = self.ramp.targets(time_s)
        eqs = self.eq[slots]
        self._model.eq_data[eqs, 3:6] = position
        self._model.eq_data[eqs, 6:10] = quat
        for slot in slots[done].tolist():
            self._model.eq_data[int(self.eq[slot]), :12] = self.record(slot).target.data()
            self.ramp.remove(slot)

    def forces_on_owner(self, data: mujoco.MjData, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The force (N, world frame) each weld applied to its body 1 (the owner's side) in the last MuJoCo
        step: its first three constraint rows.

        Returns:
            The slots whose weld has constraint rows (a weld between sleeping trees has none), (k,), and
            their forces, (k, 3).
        """
        ne = data.ne
        if not ne:
            return slots[:0], np.zeros((0, 3))
        ids = data.efc_id[:ne]
        starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
        first_row = np.full(self._model.neq, -1, dtype=np.int64)
        first_row[ids[starts]] = starts
        rows = first_row[self.eq[slots]]
        present = rows >= 0
        slots, rows = slots[present], rows[present]
        return slots, data.efc_force[rows[:, None] + np.arange(3)]
