"""ODE's bounce threshold inside MuJoCo's step: slow contacts get their surface's resting (no-bounce) solref.

ODE applies a contact's ``bounce`` only when the contact approaches faster than ``bounce_vel`` (Webots'
``bounceVelocity``, 0.01 m/s by default); slower contacts are its plain ERP/CFM spring-damper. wbsim maps a
bounce to the damping ratio of MuJoCo's contact spring (compile/contacts.py), which acts over the few steps
a contact lasts rather than as ODE's one-step impulse. So, in every physics step, after MuJoCo's collision
detection and before its solver, each contact whose normal velocity is at most the threshold *in either
direction* gets the resting solref: an impact keeps its bouncy spring while it compresses and while it
rebounds, and a resting contact (a stack, a box on the floor) is the critically damped spring ODE has there.

The edit works on all contacts at once: the normal velocity is the contact's first constraint row
(``efc_vel``, elliptic cones), and the resting stiffness and damping of that row are written into
``efc_KBIP`` with MuJoCo's own formulas (``k = 1 / (dmax^2 tc^2 zeta^2)``, ``b = 2 / (dmax tc)``,
``tc >= 2 h`` with ``refsafe``); the caller then recomputes the reference accelerations
(``mj_referenceConstraint``). The contact's ``solref`` becomes the resting one and its ``solreffriction``
the bouncy one. MuJoCo derives the friction rows' damping from the same time constant, which the bouncy
mapping inflates (``2 dt / zeta``) for the normal row's sake; a slow contact that also sticks (slides at most
the threshold) gets the resting damping on its friction rows too, so that a resting pile holds (the ten-log
cylinder pyramid crept 4.5 mm in 10 s and fell without it), while sliding contacts keep theirs (changing
them for every slow contact changed how wheels and tracks grip, docs/differences.md).

Cost: the edit runs once per MuJoCo step. As numpy operations (``edit`` on small arrays) it costs about as
much as the physics step of a small world (8 to 14 us for the demo world's four contacts, its ``mj_step`` 18
us; best of repeated calls on a loaded machine, ``benchmarks/bounce_bench.py``), so a long run switches to the
same edit compiled as one loop (:mod:`wbsim.sim.bounce_kernel`, numba, reading MuJoCo's structs in place
(:mod:`wbsim.sim.mjlayout`): 1.1 us with its call, 11.5 us for 200 contacts where numpy takes 72 us; with the
binding's views as arguments it took 5 and 17.5 us). In the physics loop, the split step (``mj_step1``, the
edit bound once per basic step by :meth:`BounceThreshold.step_edit`, ``mj_step2``) costs about 3 us per basic
step (four MuJoCo steps) more than ``mj_step`` with ``nstep`` on the 1-robot benchmark world; once the
compiled edit is loaded, :meth:`BounceThreshold.one_call_steps` runs the basic step as one ``mj_step`` call
with the edit as MuJoCo's control callback (:mod:`wbsim.sim.c_steps`), about 1 us more than ``mj_step``
without the edit (2026-11-27, paired blocks on a shared machine). The compiled edit starts at once
when numba is already imported in the process, else after :data:`NUMPY_EDITS` edits (importing numba and
loading its compiled code take 0.5 to 0.9 s, which the numpy path's overhead reaches after about that many
steps). Loading the compiled code stays costly even when numba's on-disk cache holds it: on 2026-11-27 (loaded
2-core machine) importing numba took 0.6-0.8 s and the first call of the cached loop 1.0 s more (numba sets up
its typing and target tables at its first compilation or cache load), so a warm cache does not justify an
earlier switch. Until the switch, a world without explicit pairs and with at most
:data:`PLAIN_PYTHON_CONTACTS` contacts is edited in plain Python, element by element (about 1.4x faster whole
steps than the numpy edit on the 1-robot benchmark world). The paths give bit-identical results (tested), so
the switch leaves runs deterministic.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from collections.abc import Callable

import mujoco
import numpy as np

from wbsim.compile.contacts import BounceTable, find_pairs
from wbsim.sim import c_steps

__all__ = ["BounceThreshold", "NUMPY_EDITS", "PLAIN_PYTHON_CONTACTS"]

NUMPY_EDITS = 50_000
"""Edits done with numpy before switching to the compiled loop, when numba is installed but not yet imported;
each contact of an edit counts as another 1/32 edit (the numpy path's cost grows by about that per contact).
A rent-or-buy bound: by then the numpy path's extra cost (about 15 us per edit of a few contacts) is near the
second that importing numba and loading the loop take, so a run never pays much more than twice the cheaper
choice."""


PLAIN_PYTHON_CONTACTS = 8
"""Up to this many contacts, the numpy path's edit of a world without explicit pairs is plain Python, element
by element (numpy's dispatch on arrays of a few contacts costs more than the work); the same doubles are
written."""

_DECIDED = 1e-9
"""Relative margin of the squared sliding speed from the squared threshold beyond which the sum of squares
decides a contact's ``hypot(u, v) <= threshold`` as C's ``hypot`` does (its error and the sum's are below
1e-15)."""


def _slides_at_most(u: float, v: float, threshold: float) -> bool:
    """``hypot(u, v) <= threshold`` decided as numpy's (the C library's) ``hypot`` decides it: from the sum of
    squares when it is clearly on one side, else by calling it (near the threshold, NaN, underflow)."""
    square, limit = u * u + v * v, threshold * threshold
    if limit > 1e-280:  # a normal number: the squares' rounding is relative
        if square < limit * (1.0 - _DECIDED):
            return True
        if square > limit * (1.0 + _DECIDED):
            return False
    return bool(np.hypot(u, v) <= threshold)


def _numba_imported() -> bool:
    """numba is already imported in this process (then loading the compiled loop costs little)."""
    return "numba" in sys.modules


class BounceThreshold:
    """The per-step contact edit of a model whose surfaces bounce (see the module docstring).

    Args:
        table: the compiled world's :class:`~wbsim.compile.contacts.BounceTable` (``table.active``).
        model: the compiled model (geom priorities, time step, cone and flags are read once).
        compiled: True: edit with the compiled loop (:mod:`wbsim.sim.bounce_kernel`) from the first step;
            False: always with numpy; None (default): numpy, then the compiled loop once numba is imported in
            the process or after :data:`NUMPY_EDITS` edits, if numba is installed. Same results either way.
    """

    def __init__(self, table: BounceTable, model: mujoco.MjModel, compiled: bool | None = None) -> None:
        if model.opt.cone != mujoco.mjtCone.mjCONE_ELLIPTIC:
            raise ValueError("the bounce threshold needs elliptic friction cones (one normal row per contact)")
        self.table = table
        self._kernel: Callable[..., bool] | None = None
        # The compiled loop on the mjData struct (bounce_kernel.rest_slow_contacts_at) and its arguments after
        # the data's address; tables None until a first compiled edit with contact rows checked the layout.
        self._raw: Callable[..., bool] | None = None
        self._raw_tables: tuple | None = None
        # The control callback of one_call_steps (sim/c_steps.py); (): cannot be had; None: not tried yet.
        self._control: c_steps.ControlCallback | tuple | None = None
        # The last data (and model) step_edit and one_call_steps bound their compiled calls to, the structs'
        # addresses the calls hold, and the calls.
        self._bound: tuple | None = None
        self._bound_steps: tuple | None = None
        # Edits left before trying the compiled loop (negative: never); counted only on the numpy path.
        self._numpy_left = 0.0 if compiled else (-1.0 if compiled is False else float(NUMPY_EDITS))
        self._ngeom = int(model.ngeom)
        refsafe = not (int(model.opt.disableflags) & int(mujoco.mjtDisableBit.mjDSBL_REFSAFE))
        self._min_timeconst = 2.0 * float(model.opt.timestep) if refsafe else 0.0
        self._has_pairs = len(table.pair_keys) > 0
        self._uniform = self._uniform_rows(table, model)
        self._entries(table, model)
        self._few = self._plain_tables()

    def _uniform_rows(self, table: BounceTable, model: mujoco.MjModel) -> tuple | None:
        """(threshold, resting solref, K, B, bouncy solref) if every colliding geom switches alike (one surface,
        no pairs: the usual world), so that a step's edit needs no per-contact lookup; else None."""
        colliding = np.flatnonzero((model.geom_contype != 0) | (model.geom_conaffinity != 0))
        if self._has_pairs or len(colliding) == 0 or not table.geom_switches[colliding].all():
            return None
        rest = table.geom_rest[colliding]
        velocity = table.geom_velocity[colliding]
        dmax = model.geom_solimp[colliding, 1]
        bouncy = model.geom_solref[colliding]
        if not ((rest == rest[0]).all() and (velocity == velocity[0]).all() and (dmax == dmax[0]).all()
                and (bouncy == bouncy[0]).all()):
            return None
        condim = model.geom_condim[colliding]
        if not (condim == condim[0]).all():
            return None
        self._friction_dims = int(condim[0])
        timeconst = max(float(rest[0, 0]), self._min_timeconst)
        stiffness = 1.0 / (float(dmax[0]) * timeconst * float(rest[0, 1])) ** 2
        return float(velocity[0]), rest[0].copy(), stiffness, 2.0 / (float(dmax[0]) * timeconst), bouncy[0].copy()

    def edit(self, model: mujoco.MjModel, data: mujoco.MjData) -> bool:
        """After collision detection in a physics step: give the slow contacts their resting solref (in
        ``data.contact.solref`` and the stiffness and damping of their normal constraint rows).

        Returns:
            True if a constraint row changed (the caller must then call ``mj_referenceConstraint``).
        """
        raw = self._raw
        if raw is not None:  # the compiled loop reading the mjData struct in place: no views, few arguments
            return raw(data._address, *self._raw_tables)  # noqa: SLF001
        n = data.ncon
        if n == 0 or data.nefc == 0:
            return False
        contact = data.contact
        kernel = self._kernel
        if kernel is not None:
            if self._raw_tables is None:  # the first edit with contact rows: find and check the struct offsets
                self._load_raw(data)
                if self._raw is not None:
                    return self._raw(data._address, *self._raw_tables)  # noqa: SLF001
            return kernel(contact.geom, contact.efc_address, contact.solref, contact.solreffriction,
                          data.efc_vel, data.efc_KBIP, *self._kernel_tables)
        if self._numpy_left >= 0:
            self._numpy_left -= 1.0 + n / 32.0
            if (self._numpy_left < 0 or _numba_imported()) and self._load_kernel():
                return self.edit(model, data)
        if n <= PLAIN_PYTHON_CONTACTS and not self._has_pairs:
            return self._edit_few(contact, data, n)
        if self._uniform is not None:
            return self._edit_uniform(contact, data, n)
        # Contact fields are strided views into MuJoCo's contact structs, slow to index: copied once each.
        geom = np.array(contact.geom[:n], dtype=np.intp)
        entry = self._class[geom[:, 0]] * self._nclass + self._class[geom[:, 1]]
        if self._has_pairs:
            at, hit = find_pairs(self.table.pair_keys, self._ngeom, geom[:, 0], geom[:, 1])
            entry[hit] = self._nclass * self._nclass + at[hit]
        switching = self._switches[entry]
        if not switching.any():  # e.g. only wheels of a bounce-0 material touch the floor
            return False
        address = np.array(contact.efc_address[:n], dtype=np.intp)
        slow = np.flatnonzero(switching & (address >= 0) & (np.abs(data.efc_vel[address]) <= self._velocity[entry]))
        if len(slow) == 0:
            return False
        entry, rows = entry[slow], address[slow]
        # The friction rows keep the bouncy solref (as solreffriction: what MuJoCo would then compute).
        contact.solreffriction[slow] = self._bouncy[entry]
        contact.solref[slow] = self._rest[entry]
        kbip = data.efc_KBIP
        damping = self._damping[entry]
        kbip[rows, 0] = self._stiffness[entry]
        kbip[rows, 1] = damping
        dims = self._dims[entry]
        if dims.max() > 1:
            self._stick(data, rows, dims, damping, self._velocity[entry])
        return True

    def step_edit(self, model: mujoco.MjModel, data: mujoco.MjData) -> Callable[[], bool]:
        """:meth:`edit` on ``model`` and ``data`` as a call without arguments, for the physics steps of one
        basic step (the physics loop calls it once per MuJoCo step): the compiled loop bound to ``data``'s
        struct once it is loaded and checked, else :meth:`edit` itself (which may load it)."""
        raw = self._raw
        if raw is None:
            return functools.partial(self.edit, model, data)
        cached = self._bound
        address = data._address  # noqa: SLF001
        # Bound once per data object (its struct never moves); the address is compared too, as a deep copy of
        # this threshold holds a copy of the data with the original's address in its bound call.
        if cached is None or cached[0] is not data or cached[1] != address:
            bound = functools.partial(raw, address, *self._raw_tables)  # type: ignore[misc]
            cached = self._bound = (data, address, bound)
        return cached[2]

    def one_call_steps(self, model: mujoco.MjModel, data: mujoco.MjData) -> Callable[[int], bool] | None:
        """``steps(count)``: ``count`` MuJoCo steps of ``model`` and ``data`` with this edit in one
        ``mj_step`` call, the edit as MuJoCo's control callback (:mod:`wbsim.sim.c_steps`; False, stepping
        nothing, while another control callback is set). None until the struct-reading edit is loaded and
        checked (see :meth:`step_edit`), or if the callback cannot be had (too few ``userdata`` words in the
        model, offsets not verified, libmujoco's entry points not found): the caller then runs the split
        loop."""
        cached = self._bound_steps
        # Bound once per data and model (called every basic step: identity tests only). Tested against the call's
        # own model and data (c_steps' ``bound_to``), not the cache's: a deep copy of this threshold holds copies
        # of the data and model in its cache with the original's call, which steps the original's.
        if cached is not None:
            bound_to = cached[3].bound_to
            if bound_to[1] is data and bound_to[0] is model:
                return cached[3]
        if self._raw is None:
            return None
        if self._control is None:  # made once, when the compiled edit has loaded (numba is imported by then)
            self._control = c_steps.control_callback(model, data) or ()
        control = self._control
        if not isinstance(control, c_steps.ControlCallback) or model.nuserdata < c_steps.BOUNCE_USERDATA_WORDS:
            return None
        from wbsim.sim.bounce_kernel import control_block

        tables, entries = self._raw_tables  # type: ignore[misc]
        block = control_block(tables, entries, control.reference)
        steps = c_steps.one_call_steps(model, data, control, block, (tables, entries))
        self._bound_steps = (data, model, data._address, steps)  # noqa: SLF001
        return steps

    def _entries(self, table: BounceTable, model: mujoco.MjModel) -> None:
        """Per geom class pair (then per explicit pair): whether contacts switch, the threshold, the bouncy
        and resting solref and the resting rows' K and B, resolved once with MuJoCo's mixing rules (the
        higher priority's parameters, else solref and solimp averaged, solmix 1)."""
        dmax_of = model.geom_solimp[:, 1]
        keys = [(int(model.geom_priority[g]), bool(table.geom_switches[g]), float(table.geom_velocity[g]),
                 *map(float, table.geom_rest[g]), *map(float, model.geom_solref[g, :2]), float(dmax_of[g]),
                 int(model.geom_condim[g]))
                for g in range(model.ngeom)]
        classes = sorted(set(keys))
        index = {key: i for i, key in enumerate(classes)}
        self._class = np.array([index[key] for key in keys], dtype=np.intp)
        self._nclass = c = max(len(classes), 1)
        rows: list[tuple[bool, float, tuple[float, float], tuple[float, float], float, int]] = []
        for a in classes:
            for b in classes:
                if a[0] != b[0]:
                    # MuJoCo takes everything from the higher priority, condim too (a smaller one would make
                    # the sticking test read and write the next contact's rows).
                    w = a if a[0] > b[0] else b
                    rows.append((w[1], w[2], (w[3], w[4]), (w[5], w[6]), w[7], w[8]))
                else:
                    rows.append((a[1] or b[1], max(a[2], b[2]), (0.5 * (a[3] + b[3]), 0.5 * (a[4] + b[4])),
                                 (0.5 * (a[5] + b[5]), 0.5 * (a[6] + b[6])), 0.5 * (a[7] + b[7]),
                                 max(a[8], b[8])))  # equal priorities: the larger condim
        if not classes:
            rows.append((False, 0.0, (0.02, 1.0), (0.02, 1.0), 0.95, 1))
        pair_of_key = {}
        for p in range(model.npair):
            g1, g2 = int(model.pair_geom1[p]), int(model.pair_geom2[p])
            pair_of_key[min(g1, g2) * model.ngeom + max(g1, g2)] = p
        for k, key in enumerate(table.pair_keys.tolist()):
            p = pair_of_key[key]
            rows.append((bool(table.pair_switches[k]), float(table.pair_velocity[k]), tuple(table.pair_rest[k]),
                         tuple(float(v) for v in model.pair_solref[p, :2]), float(model.pair_solimp[p, 1]),
                         int(model.pair_dim[p])))
        self._switches = np.array([r[0] for r in rows], dtype=bool)
        self._velocity = np.array([r[1] for r in rows])
        self._rest = np.array([r[2] for r in rows], dtype=float).reshape(-1, 2)
        self._bouncy = np.array([r[3] for r in rows], dtype=float).reshape(-1, 2)
        dmax = np.array([r[4] for r in rows])
        self._dims = np.array([r[5] for r in rows], dtype=np.intp)
        timeconst = np.maximum(self._rest[:, 0], self._min_timeconst)
        self._stiffness = 1.0 / (dmax * timeconst * self._rest[:, 1]) ** 2
        self._damping = 2.0 / (dmax * timeconst)

    def _load_kernel(self) -> bool:
        """Switch :meth:`edit` to the compiled loop (imports numba); False, staying with numpy, if numba is
        not installed."""
        self._numpy_left = -1.0
        if importlib.util.find_spec("numba") is None:
            return False
        from wbsim.sim import bounce_kernel as k

        entries = np.empty((len(self._switches), 7))
        entries[:, k.THRESHOLD] = np.where(self._switches, self._velocity, -np.inf)  # -inf: never slow
        entries[:, k.REST:k.REST + 2] = self._rest
        entries[:, k.BOUNCY:k.BOUNCY + 2] = self._bouncy
        entries[:, k.STIFFNESS] = self._stiffness
        entries[:, k.DAMPING] = self._damping
        pair_keys = np.ascontiguousarray(self.table.pair_keys, dtype=np.int64)
        self._kernel_tables = (self._class, pair_keys, entries, self._dims, self._nclass, self._ngeom)
        self._kernel = k.rest_slow_contacts
        return True

    def _load_raw(self, data: mujoco.MjData) -> None:
        """Switch the compiled path to reading ``data``'s struct in place if its layout checks out
        (:func:`wbsim.sim.mjlayout.data_layout`; ``data`` holds contact rows); else keep the views, for good."""
        from wbsim.sim import bounce_kernel as k
        from wbsim.sim.mjlayout import data_layout

        layout = data_layout(data)
        geom_class, pair_keys, entries, dims, nclass, ngeom = self._kernel_tables
        self._raw_tables = () if layout is None else (
            k.pack_tables(layout.as_array(), geom_class, pair_keys, dims, nclass, ngeom), entries)
        self._raw = None if layout is None else k.rest_slow_contacts_at

    def _edit_uniform(self, contact: mujoco._structs._MjContactList, data: mujoco.MjData, n: int) -> bool:
        """:meth:`edit` for a world of one bouncy surface: the same threshold and rows for every contact."""
        velocity, rest, stiffness, damping, bouncy = self._uniform  # type: ignore[misc]
        # Contact fields are strided views into MuJoCo's contact structs, slow to index: copied once.
        address = np.array(contact.efc_address[:n], dtype=np.intp)
        slow = np.flatnonzero((np.abs(data.efc_vel[address]) <= velocity) & (address >= 0))
        if len(slow) == 0:
            return False
        rows = address[slow]
        contact.solreffriction[slow] = bouncy
        contact.solref[slow] = rest
        kbip = data.efc_KBIP
        kbip[rows, 0] = stiffness
        kbip[rows, 1] = damping
        if self._friction_dims > 1:
            self._stick(data, rows, np.full(len(rows), self._friction_dims), damping, velocity)
        return True

    def _plain_tables(self) -> tuple:
        """The per-entry values of :meth:`_edit_few` as Python objects: each geom's class, the number of
        classes, and per class pair None where contacts never switch, else one tuple of its threshold,
        resting and bouncy solref (time constant, damping ratio), K, B and contact dimension; for a world of
        one bouncy surface, one entry of the values :meth:`_edit_uniform` writes."""
        if self._uniform is not None:
            velocity, rest, stiffness, damping, bouncy = self._uniform
            rest_time, rest_ratio = rest.tolist()
            bouncy_time, bouncy_ratio = bouncy.tolist()
            entry = (velocity, rest_time, rest_ratio, bouncy_time, bouncy_ratio, stiffness, damping,
                     self._friction_dims)
            return [0] * self._ngeom, 1, [entry]
        columns = zip(self._switches.tolist(), self._velocity.tolist(), self._rest.tolist(),
                      self._bouncy.tolist(), self._stiffness.tolist(), self._damping.tolist(),
                      self._dims.tolist())
        entries = [(threshold, rest_time, rest_ratio, bouncy_time, bouncy_ratio, stiffness, damping, dims)
                   if switches else None
                   for switches, threshold, (rest_time, rest_ratio), (bouncy_time, bouncy_ratio), stiffness,
                   damping, dims in columns]
        return self._class.tolist(), self._nclass, entries

    def _edit_few(self, contact: mujoco._structs._MjContactList, data: mujoco.MjData, n: int) -> bool:
        """:meth:`edit`'s numpy path (without explicit pairs) for a few contacts, element by element in plain
        Python: the same tests (``abs`` and ``<=`` on the same doubles; the sticking test as C's ``hypot``
        decides it, :func:`_slides_at_most`) and the same values written, in the same places (one double at a
        time: numpy's assignment of a row from a list costs three times two scalar writes)."""
        geom_class, nclass, entries = self._few
        efc_vel = data.efc_vel
        slow = []
        # The contact list's fields have its ncon = n rows.
        for i, (g1, g2), address in zip(range(n), contact.geom.tolist(), contact.efc_address.tolist()):
            entry = entries[geom_class[g1] * nclass + geom_class[g2]]
            if entry is not None and address >= 0 and abs(efc_vel.item(address)) <= entry[0]:
                slow.append((i, address, entry))
        if not slow:
            return False
        solref, solreffriction, kbip = contact.solref, contact.solreffriction, data.efc_KBIP
        for i, row, entry in slow:
            threshold, rest_time, rest_ratio, bouncy_time, bouncy_ratio, stiffness, damping, dim = entry
            # The friction rows keep the bouncy solref (as solreffriction: what MuJoCo would then compute).
            solreffriction[i, 0] = bouncy_time
            solreffriction[i, 1] = bouncy_ratio
            solref[i, 0] = rest_time
            solref[i, 1] = rest_ratio
            kbip[row, 0] = stiffness
            kbip[row, 1] = damping
            if dim >= 3 and _slides_at_most(efc_vel.item(row + 1), efc_vel.item(row + 2), threshold):
                for k in range(1, dim):
                    kbip[row + k, 1] = damping
        return True

    def _stick(self, data: mujoco.MjData, rows: np.ndarray, dims: np.ndarray, damping: np.ndarray | float,
               velocity: np.ndarray | float) -> None:
        """Friction rows of the slow contacts that also stick (sliding at most ``velocity``): the resting
        damping too, so that a resting pile holds as ODE's hard friction does (see the module docstring)."""
        with_friction = dims >= 3
        rows = rows[with_friction]
        slide = np.hypot(data.efc_vel[rows + 1], data.efc_vel[rows + 2])
        sticking = slide <= (velocity if np.isscalar(velocity) else velocity[with_friction])
        if not sticking.any():
            return
        rows, dims = rows[sticking], dims[with_friction][sticking]
        value = damping if np.isscalar(damping) else damping[with_friction][sticking]
        kbip = data.efc_KBIP
        for k in range(1, int(dims.max())):
            has = dims > k
            kbip[rows[has] + k, 1] = value if np.isscalar(value) else value[has]
