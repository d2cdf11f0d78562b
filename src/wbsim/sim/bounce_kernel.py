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
unboxing of a dozen arguments cost more than the work on a few contacts. :func:`bounce_steps` (experimental,
off by default, :mod:`wbsim.sim.c_steps`) runs a basic step's MuJoCo steps with it in one call.

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
from numba.extending import intrinsic

from wbsim.devices.packed_kernel import pointer, word

__all__ = ["rest_slow_contacts", "rest_slow_contacts_at", "pack_tables", "bounce_steps", "THRESHOLD", "REST",
           "BOUNCY", "STIFFNESS", "DAMPING"]


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
        if row >= 0 and _rest_contact(geom[i, 0], geom[i, 1], row, solref[i], solreffriction[i], efc_vel, kbip,
                                      geom_class, pair_keys, entries, dims, nclass, ngeom):
            changed = True
    return changed


@numba.njit(cache=True, error_model="numpy", nogil=True, inline="always")
def _rest_contact(g0: int, g1: int, row: int, solref: np.ndarray, solreffriction: np.ndarray, efc_vel: np.ndarray,
                  kbip: np.ndarray, geom_class: np.ndarray, pair_keys: np.ndarray, entries: np.ndarray,
                  dims: np.ndarray, nclass: int, ngeom: int) -> bool:
    """One contact of :func:`rest_slow_contacts` (``solref``, ``solreffriction``: its two (2,) fields); True if
    it is slow (its rows changed)."""
    entry = geom_class[g0] * nclass + geom_class[g1]
    npair = pair_keys.shape[0]
    if npair > 0:
        key = min(g0, g1) * ngeom + max(g0, g1)
        at = min(np.searchsorted(pair_keys, key), npair - 1)
        if pair_keys[at] == key:
            entry = nclass * nclass + at
    threshold = entries[entry, THRESHOLD]
    if not abs(efc_vel[row]) <= threshold:
        return False
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
    return True


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
        solref = numba.carray(pointer(base + at_solref), 2, np.float64)
        solreffriction = numba.carray(pointer(base + at_friction), 2, np.float64)
        if _rest_contact(geom[0], geom[1], row, solref, solreffriction, efc_vel, kbip, geom_class, pair_keys,
                         entries, dims, nclass, ngeom):
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


@numba.njit(cache=True, error_model="numpy")
def bounce_steps(functions: np.ndarray, tables: np.ndarray, entries: np.ndarray, model: int, data: int,
                 count: int) -> None:
    """EXPERIMENTAL (:mod:`wbsim.sim.c_steps`): ``count`` MuJoCo steps with the bounce edit, in one call:
    ``mj_step1``, :func:`rest_slow_contacts_at`, ``mj_referenceConstraint`` if a row changed, ``mj_step2``,
    called through libmujoco's C entry points (the GIL stays held: MuJoCo's warning handler, a Python
    callback, runs from C as from the binding's calls).

    Args:
        functions: (3,) int64 addresses of ``mj_step1``, ``mj_step2``, ``mj_referenceConstraint``.
        tables, entries: as :func:`rest_slow_contacts_at`.
        model, data: the ``mjModel`` and ``mjData`` structs' addresses.
        count: MuJoCo steps.
    """
    step1, step2, reference = functions[0], functions[1], functions[2]
    for _ in range(count):
        _call(step1, model, data)
        if rest_slow_contacts_at(data, tables, entries):
            _call(reference, model, data)
        _call(step2, model, data)
