"""Connectors with Webots semantics (``WbConnector``), for every connector of a world at once.

State per connector (bank row, scene order): the ``isLocked`` field (the latch, :attr:`locked`), the
peer it is linked to (:attr:`peer`), the presence value last sampled, and its (writable) fields.

**Controller requests.** ``lock()``/``unlock()`` from a controller are sent with its next step, one per
connector (the last call wins, as Webots' ``connector.c`` sends only its final ``is_locked``), and
applied before that step's physics, in scene order.

**Before each physics step** (``DEVICES_ACTUATE``; Webots' ``prePhysicsStep`` of every connector, in
three vectorised passes instead of one connector after the other):

1. links whose connectors set a finite strength break if the force they carried in the previous step
   exceeds it (``detachIfForceExceedStrength``, see :meth:`ConnectorBank._check_strengths`);
2. at the first step after loading or a reset, every connector with ``isLocked TRUE`` locks
   (``lock()``), so a world saved with locked, aligned connectors starts linked;
3. every connector with ``autoLock`` and ``isLocked``, not linked and not linked when its turn would
   have come, links to the connector it detects (``attachTo``). A link broken in pass 1 frees its peer
   for this pass only if the peer comes after the owner in scene order, as in Webots' sequence.

**Links.** ``attachTo(O)`` gives up if O is linked, if neither C's ``unilateralLock`` nor O's
``isLocked`` is set, or if neither upper body moves (with Webots' warning, once per pair); otherwise it
rewires a pooled MuJoCo weld between the two upper bodies (:mod:`.links`) holding the current pose, or
with ``snap`` the docked pose reached along a ramp (:mod:`.weld`); contacts between the two sides are
ignored while linked (Webots skips collisions of jointed bodies). Breaking or unlocking deactivates
the weld and wakes both sides (Webots' ``awake()``).

**After each physics step** (``DEVICES_SAMPLE``): presence is sampled on Webots' sensor schedule: -1
for a passive connector, 1 if linked, else 1 if a peer is detected (:mod:`.presence`), 0 if not.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from wbsim.compile.frames import Frame
from wbsim.devices.connector.compile import ConnectorBinding
from wbsim.devices.connector.links import Links
from wbsim.devices.connector.presence import ConnectorFrames, PresenceRules, PresenceSearch
from wbsim.devices.connector.schema import PASSIVE, UNKNOWN, repaired_fields, type_code
from wbsim.devices.connector.weld import Ramp, current_pose, docked_pose
from wbsim.devices.kind import BankContext, DeviceBank
from wbsim.devices.sampling import SampledBank, SampledDevice

__all__ = ["ConnectorBank", "Connector", "MAX_STRENGTH"]

MAX_STRENGTH = np.finfo(float).max / 2.0
"""Webots' ``MAX_STRENGTH``: the effective strength of a locked side with strength -1."""
_WAKE = 1e-300
"""A generalised force too small to change any result, applied for one step to wake a sleeping tree
(MuJoCo wakes a tree with a nonzero applied force; deactivating a weld does not). It goes to
``qfrc_applied``, which nothing else changes during a step."""
_LIST_FIELDS = frozenset({"distanceTolerance", "axisTolerance", "rotationTolerance", "numberOfRotations", "type",
                          "model"})
"""The fields presence depends on: the neighbour list and its last answer are dropped when a supervisor
writes one."""


class ConnectorBank(SampledBank):
    """State, locking and presence of all Connectors of one simulation (row ``i`` is ``bindings[i]``).

    Args:
        bindings: the connectors, in scene order.
        context: the simulation's model, data, clock, warnings and kinematics refresh.

    Attributes:
        locked: each connector's ``isLocked`` field, as the simulator holds it, (n,).
        peer: the row each connector is linked to, -1 if none, (n,).
        presence: the last sampled presence (0 before the first sample), int64 (n,).
        rules: types, models and tolerances (presence), updated in place by field writes.
        auto_lock, unilateral_lock, unilateral_unlock, snap: the boolean fields, (n,).
        tensile_strength, shear_strength: N (-1: infinite), (n,).
        reported_locked: ``locked`` as controllers last received it (at the end of a step), (n,).
        reported_changes: how many ``isLocked`` changes controllers have been told about, (n,).
        links: the links (pool slots in use).
    """

    actuates = True
    carried = ("locked", "presence", "_lock_changes", "reported_locked", "reported_changes")

    def __init__(self, bindings: tuple[ConnectorBinding, ...], context: BankContext) -> None:
        super().__init__(bindings, context)
        self.bindings: tuple[ConnectorBinding, ...] = bindings
        n = self.n
        model = context.model
        self._model = model
        self._sites = np.array([b.site_id for b in bindings], dtype=np.int64)
        # Connector sites are usually numbered in a row (MuJoCo numbers sites by body, in scene order): a slice
        # then reads their poses without copying.
        contiguous = n > 0 and bool((np.diff(self._sites) == 1).all())
        self._site_rows: slice | np.ndarray = slice(int(self._sites[0]), int(self._sites[-1]) + 1) if contiguous \
            else self._sites
        self._body = np.array([b.body_id for b in bindings], dtype=np.int64)
        self._dynamic = np.array([b.dynamic for b in bindings], dtype=bool)
        # The first degree of freedom of each connector's tree: where a wake-up force goes (-1: static).
        self._wake_dof = np.full(n, -1, dtype=np.int64)
        for row in np.flatnonzero(self._dynamic).tolist():
            tree = int(model.body_treeid[self._body[row]])
            if tree >= 0:
                self._wake_dof[row] = model.tree_dofadr[tree]
        self._models: dict[str, int] = {}
        self._search = PresenceSearch()
        self.rules = PresenceRules(
            type=np.zeros(n, dtype=np.int64), model=np.zeros(n, dtype=np.int64),
            distance_tolerance=np.zeros(n), distance2=np.zeros(n), axis_tolerance=np.zeros(n),
            rotation_tolerance=np.zeros(n), rotations=np.zeros(n, dtype=np.int64))
        self.auto_lock = np.zeros(n, dtype=bool)
        self.unilateral_lock = np.zeros(n, dtype=bool)
        self.unilateral_unlock = np.zeros(n, dtype=bool)
        self.snap = np.zeros(n, dtype=bool)
        self.tensile_strength = np.zeros(n)
        self.shear_strength = np.zeros(n)
        self.locked = np.array([b.initially_locked for b in bindings], dtype=bool)
        self.peer = np.full(n, -1, dtype=np.int64)
        self._link_of = np.full(n, -1, dtype=np.int64)
        self.presence = np.zeros(n, dtype=np.int64)
        # isLocked as controllers see it: Webots sends it (C_CONFIGURE) after a step in which it changed,
        # and once after the first step (the change made when the world loaded).
        self._lock_changes = np.ones(n, dtype=np.int64)
        self.reported_locked = np.zeros(n, dtype=bool)
        self.reported_changes = np.zeros(n, dtype=np.int64)
        self._lock_news = True
        self.links = Links(model, bindings[0].pool if bindings else None)
        self._requests: dict[int, bool] = {}  # controller lock (True) / unlock (False), applied before physics
        self._pool_full_warned = False
        self._exclusions_full_warned = False
        self._static_pairs_warned: set[tuple[int, int]] = set()
        self._wake: set[int] = set()  # dofs to wake at the next physics step
        self._woken = np.zeros(0, dtype=np.int64)
        self._startup = True
        self.watches_substeps = False
        self._restore_fields()

    # -- fields -----------------------------------------------------------------------------------
    def transfer_refusal(self) -> str | None:
        """Links (welds from the model's pool) and pending lock requests are not carried over a recompilation."""
        if (self.peer >= 0).any() or self._requests:
            return "a locked Connector (or a lock request pending)"
        return None

    def transfer_from(self, old: DeviceBank, rows: tuple[np.ndarray, np.ndarray], state: object) -> None:
        """Lock state, presence and what controllers were told, of the connectors that stay (none is linked:
        :meth:`transfer_refusal`); connectors imported with ``isLocked`` lock at the next step."""
        super().transfer_from(old, rows, state)
        assert isinstance(old, ConnectorBank)
        self._lock_news = old._lock_news or len(rows[1]) < self.n
        self._startup = old._startup or len(rows[1]) < self.n

    def _model_code(self, model: str) -> int:
        return self._models.setdefault(model, len(self._models))

    def _restore_fields(self) -> None:
        """Every field back to the world file's values (a world reset restores what supervisors wrote)."""
        fields = repaired_fields()
        for row, binding in enumerate(self.bindings):
            node = binding.node
            self.rules.type[row] = binding.type
            self.rules.model[row] = self._model_code(str(node["model"]))
            for name in ("distanceTolerance", "axisTolerance", "rotationTolerance", "numberOfRotations",
                         "tensileStrength", "shearStrength"):
                self._set_number(row, name, fields[name].repaired(float(node[name]))[0])  # type: ignore[arg-type]
            self.auto_lock[row] = bool(node["autoLock"])
            self.unilateral_lock[row] = bool(node["unilateralLock"])
            self.unilateral_unlock[row] = bool(node["unilateralUnlock"])
            self.snap[row] = bool(node["snap"])
        self.rules.derive()
        self._search.invalidate()

    def _set_number(self, row: int, name: str, value: float) -> None:
        rules = self.rules
        if name == "distanceTolerance":
            rules.distance_tolerance[row] = value
            rules.distance2[row] = value * value
        elif name == "axisTolerance":
            rules.axis_tolerance[row] = value
        elif name == "rotationTolerance":
            rules.rotation_tolerance[row] = value
        elif name == "numberOfRotations":
            rules.rotations[row] = int(value)
        elif name == "tensileStrength":
            self.tensile_strength[row] = value
        else:
            self.shear_strength[row] = value

    def _name(self, row: int) -> str:
        return str(self.bindings[row].node["name"])

    def _warn(self, row: int, text: str) -> None:
        self.context.warn(f"{self._name(row)}: {text}")

    def field_changed(self, row: int, name: str, value: object) -> object | None:
        """A supervisor wrote a field: applied at once, with Webots' repairs and warnings.

        Writing ``isLocked`` locks or unlocks (``updateIsLocked``; a passive connector refuses and keeps
        FALSE); the other connector fields take effect from the next use.

        Returns:
            The value the field now holds, or None for fields the connector does not use.
        """
        fields = repaired_fields()
        if name == "isLocked":
            if bool(value) == bool(self.locked[row]):
                return bool(value)  # no change: Webots emits no change signal, so nothing happens
            if self.rules.type[row] == PASSIVE:
                self._warn(row, "Passive connectors cannot be locked.")
                return False
            if bool(value):
                self.lock(row)
            else:
                self.unlock(row)
            return bool(self.locked[row])
        if name in fields:
            repaired, message = fields[name].repaired(float(value))  # type: ignore[arg-type]
            if message is not None:
                self._warn(row, message)
            self._set_number(row, name, repaired)
            if name == "numberOfRotations":
                self.rules.derive()  # its docking rotations
            if name in _LIST_FIELDS:
                self._search.invalidate()
            return int(repaired) if name == "numberOfRotations" else float(repaired)
        if name == "type":
            code = type_code(str(value))
            if code == UNKNOWN:
                self._warn(row, f"Unknown 'type' \"{value}\": locking disabled.")
            self.rules.type[row] = code
            self.rules.derive()
            self._search.invalidate()
            return str(value)
        if name == "model":
            self.rules.model[row] = self._model_code(str(value))
            self.rules.derive()
            self._search.invalidate()
            return str(value)
        flags = {"autoLock": self.auto_lock, "unilateralLock": self.unilateral_lock,
                 "unilateralUnlock": self.unilateral_unlock, "snap": self.snap}
        if name in flags:
            flags[name][row] = bool(value)
            return bool(value)
        return None

    def field_value(self, row: int, name: str) -> object | None:
        """``isLocked`` as the simulator holds it now (``lock()``/``unlock()`` change it)."""
        return bool(self.locked[row]) if name == "isLocked" else None

    def _set_locked(self, row: int, value: bool) -> None:
        if self.locked[row] != value:
            self.locked[row] = value
            self._lock_changes[row] += 1
            self._lock_news = True

    # -- geometry ---------------------------------------------------------------------------------
    def _frames(self) -> ConnectorFrames:
        """Every connector's world frame, from fresh kinematics."""
        self.context.refresh_kinematics()
        data = self._data
        matrices = data.site_xmat[self._site_rows]
        return ConnectorFrames(data.site_xpos[self._site_rows], matrices[:, 0::3], matrices[:, 2::3])

    def _site_frame(self, row: int) -> Frame:
        site = self._sites[row]
        return Frame(self._data.site_xpos[site].copy(), self._data.site_xmat[site].reshape(3, 3).copy())

    def _body_frame(self, body: int) -> Frame:
        return Frame(self._data.xpos[body].copy(), self._data.xmat[body].reshape(3, 3).copy())

    def detect(self, rows: np.ndarray) -> np.ndarray:
        """The connector each of ``rows`` detects now, -1 for none (``detectPresence``)."""
        return self._search.find(self._frames(), self.rules, rows)

    @property
    def _data(self) -> mujoco.MjData:
        data = self.context.data
        if data is None:
            raise RuntimeError("a connector bank needs the simulation's MjData (BankContext.data)")
        return data

    # -- lock state machine -------------------------------------------------------------------------
    def request(self, row: int, locked: bool) -> None:
        """A controller's ``lock()`` (True) or ``unlock()`` (False), applied before the next physics step;
        a later call in the same step replaces it."""
        self._requests[row] = locked

    def lock(self, row: int) -> None:
        """Webots' ``lock()``: set ``isLocked`` and, if not linked, link to the connector detected."""
        if self.rules.type[row] == PASSIVE:
            self._warn(row, "Passive connectors cannot lock.")
            return
        self._set_locked(row, True)
        if self.peer[row] < 0:
            found = int(self.detect(np.array([row]))[0])
            if found >= 0:
                self.attach(row, found)

    def unlock(self, row: int) -> None:
        """Webots' ``unlock()``: clear ``isLocked``; the link breaks if ``unilateralUnlock`` or the peer is
        unlocked too (Webots prints the same text as for lock on a passive connector)."""
        if self.rules.type[row] == PASSIVE:
            self._warn(row, "Passive connectors cannot lock.")
            return
        self._set_locked(row, False)
        peer = int(self.peer[row])
        if peer >= 0 and (self.unilateral_unlock[row] or not self.locked[peer]):
            self.detach(row)

    def attach(self, row: int, other: int) -> bool:
        """Webots' ``attachTo``: link ``row`` (the owner) to ``other`` if the rules allow; True if linked."""
        if self.peer[other] >= 0 or self.peer[row] >= 0:
            return False
        if not (self.unilateral_lock[row] or self.locked[other]):
            return False
        if not (self._dynamic[row] or self._dynamic[other]):
            if (row, other) not in self._static_pairs_warned:  # once per pair, not at every auto-lock attempt
                self._static_pairs_warned.add((row, other))
                self._warn(row, "Connectors could not be attached because none of their parent nodes have Physics "
                                "nodes.")
            return False
        self._frames()  # fresh poses
        body1, body2 = int(self._body[row]), int(self._body[other])
        frame1, frame2 = self._body_frame(body1), self._body_frame(body2)
        own, peer_frame = self._site_frame(row), self._site_frame(other)
        start = current_pose(frame1, frame2, peer_frame)
        target, duration = start, 0.0
        if self.snap[row]:
            target = docked_pose(frame1, frame2, own, peer_frame, int(self.rules.rotations[row]),
                                 float(self.rules.rotation_tolerance[row]), self.rules.docking)
            duration = Ramp.duration(start, target)
            if duration <= self._model.opt.timestep:
                duration = 0.0  # already docked to within one physics step of motion: hold it at once
        strengths = (self.tensile_strength[row], self.shear_strength[row], self.tensile_strength[other],
                     self.shear_strength[other])
        # Two connectors of one rigid body: there is nothing to hold (the weld is made but stays off).
        same_body = self._model.body_weldid[body1] == self._model.body_weldid[body2] and self._dynamic[row]
        slot = self.links.make(row, other, body1, body2, start, target, float(self._data.time), duration,
                               any(s != -1.0 for s in strengths), self.context.now_step(), self._data,
                               self._exclusions(row, other), active=not same_body)
        if slot < 0:
            if not self._pool_full_warned:
                self._pool_full_warned = True
                self._warn(row, f"no room for more links (the world has {self.links.capacity}): not attached.")
            return False
        self._link_of[row] = self._link_of[other] = slot
        self.peer[row], self.peer[other] = other, row
        self.watches_substeps = bool(len(self.links.ramp))
        return True

    def detach(self, row: int) -> None:
        """Webots' ``detachFromPeer``: remove the link of ``row`` and wake both sides."""
        record = self.links.remove(int(self._link_of[row]), self._data)
        self.watches_substeps = bool(len(self.links.ramp))
        for side in (record.owner, record.peer):
            self._link_of[side] = -1
            self.peer[side] = -1
            if self._wake_dof[side] >= 0:
                self._wake.add(int(self._wake_dof[side]))

    def _exclusions(self, row: int, other: int) -> np.ndarray:
        """The body-pair exclusions a link between ``row`` and ``other`` needs (Webots skips collisions of
        bodies joined by a joint); none if the pool has no room left (with a warning, once)."""
        pairs = sorted({(min(a, b) << 16) + max(a, b) for a in self.bindings[row].contact_bodies
                        for b in self.bindings[other].contact_bodies if a != b})
        if not self.links.exclusions_room(len(pairs)):
            if not self._exclusions_full_warned:
                self._exclusions_full_warned = True
                self._warn(row, "too many bodies touch across connector links: some contacts between linked "
                                "bodies are kept.")
            pairs = []
        return np.array(pairs, dtype=self._model.exclude_signature.dtype)

    # -- per step -------------------------------------------------------------------------------------
    def actuate(self, data: mujoco.MjData) -> None:
        """Webots' request handling, then ``prePhysicsStep`` of every connector: breaks, startup locks,
        auto-locks; then the snap targets and the wake-ups for the coming physics step."""
        if self._requests:
            requests, self._requests = self._requests, {}
            for row in sorted(requests):
                if requests[row]:
                    self.lock(row)
                else:
                    self.unlock(row)
        linked_before = self.peer >= 0
        if self.links.monitored.any():
            for owner, peer in self._check_strengths(data):
                if owner < peer:  # the owner's turn came first: the peer sees no link at its own turn
                    linked_before[peer] = False
        if self._startup:
            self._startup = False
            for row in np.flatnonzero(self.locked).tolist():
                self.lock(row)
        waiting = ~linked_before & (self.peer < 0) & self.auto_lock & self.locked
        if waiting.any():
            rows = np.flatnonzero(waiting)
            for row, found in zip(rows.tolist(), self.detect(rows).tolist()):
                if found >= 0 and self.peer[row] < 0:
                    self.attach(row, found)
        if len(self.links.ramp):
            self._advance_ramps(data)
        if self._wake:
            self._woken = np.array(sorted(self._wake), dtype=np.int64)
            self._wake.clear()
            data.qfrc_applied[self._woken] += _WAKE

    def substep(self, data: mujoco.MjData) -> None:
        """Move the snap targets for the next physics step."""
        if len(self.links.ramp):
            self._advance_ramps(data)

    def _advance_ramps(self, data: mujoco.MjData) -> None:
        self.links.advance_ramps(float(data.time) + float(self._model.opt.timestep))
        self.watches_substeps = bool(len(self.links.ramp))

    def _effective(self, strengths: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Webots' ``getEffective*Strength``: 0 if unlocked, ``MAX_STRENGTH`` for -1, else the strength."""
        values = strengths[rows]
        return np.where(self.locked[rows], np.where(values == -1.0, MAX_STRENGTH, values), 0.0)

    def _check_strengths(self, data: mujoco.MjData) -> list[tuple[int, int]]:
        """Break the links whose force in the last physics step exceeds their strength; the (owner, peer)
        rows of the links broken.

        The force is the one the weld applied to body 1 (the owner's upper body) in the last MuJoCo step:
        tension is its component along the owner's x-axis (positive when the bodies are pulled apart),
        shear the rest. The strengths of the two sides add up; an unlocked side (any passive one) adds
        0, a locked side with -1 adds ``MAX_STRENGTH``; shear is checked only if that sum is finite.
        Links made since the last physics step carry no force yet.
        """
        links = self.links
        slots = np.flatnonzero(links.monitored & (links.made_at < self.context.now_step()))
        slots, force = links.forces_on_owner(data, slots)  # a weld between sleeping trees carries none
        if not len(slots):
            return []
        owner, peer = links.owner[slots], links.peer[slots]
        x_axis = self._frames().x_axis[owner]
        along = x_axis[:, 0] * force[:, 0] + x_axis[:, 1] * force[:, 1] + x_axis[:, 2] * force[:, 2]
        max_tension = self._effective(self.tensile_strength, owner) + self._effective(self.tensile_strength, peer)
        max_shear = self._effective(self.shear_strength, owner) + self._effective(self.shear_strength, peer)
        shear = np.sqrt(np.maximum((force * force).sum(axis=1) - along * along, 0.0))
        breaks = (np.maximum(along, 0.0) > max_tension) | ((max_shear < MAX_STRENGTH) & (shear > max_shear))
        broken = [(int(o), int(p)) for o, p in zip(owner[breaks], peer[breaks])]
        for owner_row, _ in broken:
            self.detach(owner_row)
        return broken

    def sample(self, data: mujoco.MjData, step: int) -> None:
        """After the physics step: end the wake-up forces, sample presence, report ``isLocked`` changes."""
        if len(self._woken):
            data.qfrc_applied[self._woken] -= _WAKE
            self._woken = self._woken[:0]
        rows = self.schedule.due_rows(step)
        if rows is not None:
            peer, kind = self.peer[rows], self.rules.type[rows]
            values = (peer >= 0).astype(np.int64)
            ask = (peer < 0) & (kind != PASSIVE)
            if ask.any():
                values[ask] = self.detect(rows[ask]) >= 0
            values[kind == PASSIVE] = -1
            self.presence[rows] = values
        if self._lock_news:
            self._lock_news = False
            np.copyto(self.reported_locked, self.locked)
            np.copyto(self.reported_changes, self._lock_changes)

    # -- resets -------------------------------------------------------------------------------------------
    def _unlink_all(self) -> None:
        self.links.clear(self._data)
        self.peer[:] = -1
        self._link_of[:] = -1
        self.watches_substeps = False
        self._requests.clear()
        self._wake.clear()
        self._woken = self._woken[:0]
        self._static_pairs_warned.clear()

    def reset(self) -> None:
        """As after loading: no link, ``isLocked`` from the file, presence 0, sensors disabled."""
        self._unlink_all()
        self._restore_fields()
        self.locked[:] = [b.initially_locked for b in self.bindings]
        self.presence[:] = 0
        self._lock_changes[:] = 1
        self.reported_locked[:] = False
        self.reported_changes[:] = 0
        self._lock_news = True
        self._startup = True
        self.schedule.reset()

    def restart(self) -> None:
        """Webots' world reset with controllers running: links removed, ``isLocked`` back to the file's value
        (controllers are told if it changed), startup locking again; enabled presence stays enabled."""
        self._unlink_all()
        self._restore_fields()
        for row, binding in enumerate(self.bindings):
            self._set_locked(row, binding.initially_locked)
        self._startup = True
        self.schedule.restart()

    def core(self, row: int) -> Connector:
        """The core Connector of row ``row``."""
        return Connector(self, row, self._name(row), self.context.now_step)


@dataclass
class Connector(SampledDevice):
    """One connector (snake_case core of Webots' ``Connector``): presence sampling, lock and unlock."""

    bank: ConnectorBank
    kind: str = "connector"

    @property
    def type(self) -> int:
        """The face type code (``SYMMETRIC`` 0, ``ACTIVE`` 1, ``PASSIVE`` 2, ``UNKNOWN`` 3)."""
        return int(self.bank.rules.type[self.index])

    @property
    def presence(self) -> int:
        """The last sampled presence: 1 peer detected or linked, 0 none, -1 passive (0 before the first sample)."""
        return int(self.bank.presence[self.index])

    @property
    def is_locked(self) -> bool:
        """The ``isLocked`` field now (the simulator's value, not the controller library's copy)."""
        return bool(self.bank.locked[self.index])

    @property
    def peer(self) -> int:
        """The bank row of the connector this one is linked to, -1 if none."""
        return int(self.bank.peer[self.index])

    def lock(self) -> None:
        """Ask to lock the latch (and link to the connector detected): applied before the next physics step."""
        self.bank.request(self.index, True)

    def unlock(self) -> None:
        """Ask to unlock the latch (the link breaks if the rules allow): applied before the next physics step."""
        self.bank.request(self.index, False)
