"""The bounce threshold's per-step contact edit as one compiled loop (numba), the same arithmetic as the numpy
path of :mod:`wbsim.sim.bounce`.

:meth:`~wbsim.sim.bounce.BounceThreshold.edit` runs once per MuJoCo step; its numpy form is about twenty
operations on arrays of a few contacts, each costing a microsecond of call overhead, as much as the physics
step of a small world. :func:`rest_slow_contacts` does the same work in one call: for each contact, its
geom-class pair (or explicit pair) entry, the threshold test on the normal row's velocity, the resting solref,
the normal row's K and B, and the resting damping of a sticking contact's friction rows. Only copies,
comparisons and ``hypot`` (the C library's, as numpy's), so the result is bit-identical to the numpy path (the
tests compare the two).

:func:`rest_slow_contacts_at` is the same loop reading the ``mjData`` struct in place (the counts and the
arrays' current addresses, at offsets :mod:`wbsim.sim.mjlayout` found and checked): the views and the
unboxing of a dozen arguments cost more than the work on a few contacts. :func:`control_edit` makes it
MuJoCo's control callback, so that a basic step's MuJoCo steps run in one ``mj_step`` call
(:mod:`wbsim.sim.c_steps`).

Compiled with ``cache=True`` (the machine code is stored in ``__pycache__`` next to this file, or numba's user
cache). This module imports numba (about half a second): :mod:`wbsim.sim.bounce` imports it only once a
simulation has run enough steps for the compiled loop to pay for it, never at ``import wbsim``.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import types
from numba.core import cgutils
from numba.core.ccallback import CFunc
from numba.extending import intrinsic

from wbsim.devices.packed_kernel import pointer, word

__all__ = ["rest_slow_contacts", "rest_slow_contacts_at", "pack_tables", "control_edit", "control_block",
           "CONTROL_MARK", "THRESHOLD", "REST", "BOUNCY", "STIFFNESS", "DAMPING"]


THRESHOLD, REST, BOUNCY, STIFFNESS, DAMPING = 0, 1, 3, 5, 6
"""Columns of the ``entries`` table (REST and BOUNCY span two columns: timeconst, dampratio)."""


@numba.njit(cache=True, error_model="numpy", nogil=True)
def rest_slow_contacts(geom: np.ndarray, address: np.ndarray, solref: np.ndarray, solreffriction: np.ndarray,
                       efc_vel: np.ndarray, kbip: np.ndarray, geom_class: np.ndarray, pair_keys: np.ndarray,
                       entries: np.ndarray, dims: np.ndarray, nclass: int, ngeom: int) -> bool:
    """Give the slow contacts their resting solref and constraint rows, in place.

    Args:
        geom: (ncon, 2) the contacts' geom ids (``data.contact.geom``).
        address: (ncon,) the contacts' first constraint row, -1 for none (``data.contact.efc_address``).
        solref, solreffriction: (ncon, 2) the contacts' solref fields, written for the slow contacts.
        efc_vel: (nefc,) the constraint rows' velocities (after ``mj_step1``).
        kbip: (nefc, 4) the rows' stiffness, damping, impedance and its derivative, written.
        geom_class: (ngeom,) each geom's parameter class, ``nclass`` classes.
        pair_keys: (npair,) sorted ``min(g1, g2) * ngeom + max(g1, g2)`` of the explicit pairs with entries.
        entries: (nentry, 7) per entry (class pairs ``a * nclass + b``, then the explicit pairs): the
            threshold (m/s; -inf where contacts never switch), the resting and the bouncy (timeconst s,
            dampratio), the resting normal row's K and B (columns :data:`THRESHOLD` ... :data:`DAMPING`).
        dims: (nentry,) the entries' contact dimension.

    Returns:
        True if a row changed (the caller recomputes the reference accelerations).
    """
    changed = False
    for i in range(address.shape[0]):
        row = address[i]
        if row < 0:
            continue
        entry = _entry(geom[i, 0], geom[i, 1], geom_class, pair_keys, nclass, ngeom)
        if abs(efc_vel[row]) <= entries[entry, THRESHOLD]:
            _rest(entry, row, solref[i], solreffriction[i], efc_vel, kbip, entries, dims)
            changed = True
    return changed


@numba.njit(cache=True, error_model="numpy", nogil=True)
def _entry(g0: int, g1: int, geom_class: np.ndarray, pair_keys: np.ndarray, nclass: int, ngeom: int) -> int:
    """The ``entries`` row of a contact between geoms ``g0`` and ``g1``: its explicit pair's if it has one, else
    its geom classes' pair (written out in :func:`rest_slow_contacts_at`, the loop of every long run)."""
    entry = geom_class[g0] * nclass + geom_class[g1]
    npair = pair_keys.shape[0]
    if npair > 0:
        key = min(g0, g1) * ngeom + max(g0, g1)
        at = min(np.searchsorted(pair_keys, key), npair - 1)
        if pair_keys[at] == key:
            entry = nclass * nclass + at
    return entry


@numba.njit(cache=True, error_model="numpy", nogil=True)
def _rest(entry: int, row: int, solref: np.ndarray, solreffriction: np.ndarray, efc_vel: np.ndarray,
          kbip: np.ndarray, entries: np.ndarray, dims: np.ndarray) -> None:
    """A slow contact (its normal row's velocity within its entry's threshold) gets its resting solref and rows
    (``solref``, ``solreffriction``: its two (2,) fields).

    Called only for the slow ones: the loops test every contact inline first (a call per contact with a dozen
    array arguments made the struct-reading loop 12.6 us instead of 1.0 for 400 contacts, none slow)."""
    threshold = entries[entry, THRESHOLD]
    solreffriction[0] = entries[entry, BOUNCY]
    solreffriction[1] = entries[entry, BOUNCY + 1]
    solref[0] = entries[entry, REST]
    solref[1] = entries[entry, REST + 1]
    damping = entries[entry, DAMPING]
    kbip[row, 0] = entries[entry, STIFFNESS]
    kbip[row, 1] = damping
    dim = dims[entry]
    # A slow contact that also sticks: its friction rows get the resting damping too. Its rows never end past
    # the constraint arrays (the compiled loops do not check bounds): a model changed after the tables were
    # built (a smaller condim) must not make them read or write the arena beyond.
    if (dim >= 3 and row + dim <= efc_vel.shape[0]
            and math.hypot(efc_vel[row + 1], efc_vel[row + 2]) <= threshold):
        for k in range(1, dim):
            kbip[row + k, 1] = damping


def pack_tables(layout: np.ndarray, geom_class: np.ndarray, pair_keys: np.ndarray, dims: np.ndarray, nclass: int,
                ngeom: int) -> np.ndarray:
    """The integer arguments of :func:`rest_slow_contacts_at` in one int64 array (numba unboxes each array
    argument at every call, about 0.2 us each): ``[nclass, ngeom, len(geom_class), len(pair_keys), len(dims),
    layout (10), geom_class, pair_keys, dims]``."""
    head = np.array([nclass, ngeom, len(geom_class), len(pair_keys), len(dims)], dtype=np.int64)
    return np.concatenate([head, np.asarray(layout, dtype=np.int64), np.asarray(geom_class, dtype=np.int64),
                           np.asarray(pair_keys, dtype=np.int64), np.asarray(dims, dtype=np.int64)])


@numba.njit(cache=True, error_model="numpy", nogil=True)
def rest_slow_contacts_at(data: int, tables: np.ndarray, entries: np.ndarray) -> bool:
    """:func:`rest_slow_contacts` on an ``mjData`` struct read in place: the counts and the contact and
    constraint arrays' current addresses from the struct, so the caller creates no view per step.

    Args:
        data: the ``mjData`` struct's address (``MjData._address``).
        tables: :func:`pack_tables` of the layout (10 int64 byte offsets,
            :meth:`wbsim.sim.mjlayout.DataLayout.as_array`, verified on the running MuJoCo: ``ncon``, ``nefc``,
            ``contact``, ``efc_vel``, ``efc_KBIP`` in ``mjData``, then ``sizeof(mjContact)`` and ``geom``,
            ``efc_address``, ``solref``, ``solreffriction`` in it) and of :func:`rest_slow_contacts`'s
            ``geom_class``, ``pair_keys``, ``dims``, ``nclass`` and ``ngeom``.
        entries: as :func:`rest_slow_contacts`.

    Returns:
        True if a row changed (the caller recomputes the reference accelerations).
    """
    nclass, ngeom, nclassed, npair, ndims = tables[0], tables[1], tables[2], tables[3], tables[4]
    layout = tables[5:15]
    geom_class = tables[15:15 + nclassed]
    pair_keys = tables[15 + nclassed:15 + nclassed + npair]
    dims = tables[15 + nclassed + npair:15 + nclassed + npair + ndims]
    ncon = numba.carray(pointer(data + layout[0]), 1, np.int32)[0]
    nefc = numba.carray(pointer(data + layout[1]), 1, np.int32)[0]
    if ncon == 0 or nefc == 0:
        return False
    contact = word(data + layout[2])
    efc_vel = numba.carray(pointer(word(data + layout[3])), nefc, np.float64)
    kbip = numba.carray(pointer(word(data + layout[4])), (nefc, 4), np.float64)
    size, at_geom, at_address, at_solref, at_friction = layout[5], layout[6], layout[7], layout[8], layout[9]
    changed = False
    for i in range(ncon):
        base = contact + i * size
        row = numba.carray(pointer(base + at_address), 1, np.int32)[0]
        if row < 0:
            continue
        geom = numba.carray(pointer(base + at_geom), 2, np.int32)
        # _entry written out: as a call (numba's inline="always" too) it made this loop 4.7 us instead of 1.0
        # for 400 contacts, none slow (the 100-robot benchmark world).
        g0, g1 = geom[0], geom[1]
        entry = geom_class[g0] * nclass + geom_class[g1]
        if npair > 0:
            key = min(g0, g1) * ngeom + max(g0, g1)
            at = min(np.searchsorted(pair_keys, key), npair - 1)
            if pair_keys[at] == key:
                entry = nclass * nclass + at
        if abs(efc_vel[row]) <= entries[entry, THRESHOLD]:
            solref = numba.carray(pointer(base + at_solref), 2, np.float64)
            solreffriction = numba.carray(pointer(base + at_friction), 2, np.float64)
            _rest(entry, row, solref, solreffriction, efc_vel, kbip, entries, dims)
            changed = True
    return changed


@intrinsic
def _call(typingctx, function, model, data):  # noqa: ANN001, ANN202, ARG001
    """Call the C function at address ``function`` as ``void f(const mjModel*, mjData*)``."""

    def codegen(context, builder, signature, args):  # noqa: ANN001, ANN202, ARG001
        from llvmlite import ir

        kind = ir.FunctionType(ir.VoidType(), [cgutils.voidptr_t, cgutils.voidptr_t])
        target = builder.inttoptr(args[0], kind.as_pointer())
        builder.call(target, [builder.inttoptr(args[1], cgutils.voidptr_t),
                              builder.inttoptr(args[2], cgutils.voidptr_t)])
        return context.get_dummy_value()

    return types.void(types.int64, types.int64, types.int64), codegen


@intrinsic
def _address(typingctx, pointer_):  # noqa: ANN001, ANN202, ARG001
    """The ``void*`` ``pointer_`` as an int64 address."""

    def codegen(context, builder, signature, args):  # noqa: ANN001, ANN202, ARG001
        return builder.ptrtoint(args[0], cgutils.intp_t)

    return types.int64(types.voidptr), codegen


CONTROL_MARK = 0x7762_7369_6D62_6F75
"""The first ``userdata`` word (as int64 bits) of an ``mjData`` whose second word is a :func:`control_block`
address: the control callback edits only data that carries it. The third word is the ``time`` of the data's
last edit (a double; NaN before the first), the fourth the number of edits (int64)."""

BLOCK_TABLES, BLOCK_NTABLES, BLOCK_ENTRIES, BLOCK_NENTRIES, BLOCK_REFERENCE = range(5)
"""Slots of a :func:`control_block`."""


def control_block(tables: np.ndarray, entries: np.ndarray, reference: int) -> np.ndarray:
    """What the control callback of :func:`control_edit` needs besides the structs, as one int64 array (its
    address goes into the data's ``userdata``): the addresses and sizes of :func:`rest_slow_contacts_at`'s
    ``tables`` and ``entries`` (C-contiguous, kept alive by the caller as long as the block is used) and the
    address of libmujoco's ``mj_referenceConstraint``."""
    if not (tables.flags.c_contiguous and entries.flags.c_contiguous and tables.dtype == np.int64
            and entries.dtype == np.float64 and entries.ndim == 2 and entries.shape[1] == 7):
        raise ValueError("the control block needs C-contiguous int64 tables and (n, 7) float64 entries")
    return np.array([tables.ctypes.data, tables.shape[0], entries.ctypes.data, entries.shape[0], reference],
                    dtype=np.int64)


def control_edit(userdata_offset: int, time_offset: int) -> CFunc:
    """The bounce edit as MuJoCo's control callback (``mjcb_control``, ``void(const mjModel*, mjData*)``,
    installed by :mod:`wbsim.sim.c_steps`): MuJoCo calls it after the velocity stage of each step, where the
    split loop runs the edit, and it calls ``mj_referenceConstraint`` if a row changed.

    The callback has no user pointer: it finds its tables through the data's ``userdata`` (its pointer at byte
    ``userdata_offset`` in ``mjData``, :func:`wbsim.sim.mjlayout.control_offsets`): word 0
    :data:`CONTROL_MARK` (any other data, e.g. another program's model stepped while the callback is set, is
    left alone), word 1 a :func:`control_block`'s address, word 2 the ``time`` (at byte ``time_offset``) of
    the last edit, word 3 the number of edits (the caller checks that every MuJoCo step had its edit). A
    second call at the same time is MuJoCo's recomputation after putting trees to sleep (``mj_advance`` runs
    the velocity and acceleration stages again, with the control callback, before the time advances), where
    the split loop's edit does not run: it returns without editing.

    The offsets are closure variables, not globals: numba keys its disk cache on the closure's values (a
    global would stay frozen in the cached code if another MuJoCo moved the fields), so each pair of offsets
    gets its own cached machine code (loaded in about 3 ms once numba has loaded the struct-reading edit).
    """
    at_userdata, at_time = int(userdata_offset), int(time_offset)

    @numba.cfunc(types.void(types.voidptr, types.voidptr), cache=True, error_model="numpy", nogil=True)
    def edit(model, data):  # noqa: ANN001, ANN202
        at = _address(data)
        userdata = word(at + at_userdata)
        if word(userdata) != CONTROL_MARK:
            return
        now = numba.carray(pointer(at + at_time), 1, np.float64)[0]
        last = numba.carray(pointer(userdata + 16), 1, np.float64)
        if last[0] == now:  # the recomputation after trees fell asleep, within the same step
            return
        last[0] = now
        edits = numba.carray(pointer(userdata + 24), 1, np.int64)
        edits[0] += 1
        block = numba.carray(pointer(word(userdata + 8)), 5, np.int64)
        tables = numba.carray(pointer(block[BLOCK_TABLES]), block[BLOCK_NTABLES], np.int64)
        entries = numba.carray(pointer(block[BLOCK_ENTRIES]), (block[BLOCK_NENTRIES], 7), np.float64)
        if rest_slow_contacts_at(at, tables, entries):
            _call(block[BLOCK_REFERENCE], _address(model), at)

    return edit
