"""The bounce threshold's per-step contact edit as one compiled loop (numba), the same arithmetic as the numpy
path of :mod:`wbsim.sim.bounce`.

:meth:`~wbsim.sim.bounce.BounceThreshold.edit` runs once per MuJoCo step; its numpy form is about twenty
operations on arrays of a few contacts, each costing a microsecond of call overhead, as much as the physics
step of a small world. :func:`rest_slow_contacts` does the same work in one call: for each contact, its
geom-class pair (or explicit pair) entry, the threshold test on the normal row's velocity, the resting solref,
the normal row's K and B, and the resting damping of a sticking contact's friction rows. Only copies,
comparisons and ``hypot`` (the C library's, as numpy's), so the result is bit-identical to the numpy path (the
tests compare the two).

Compiled with ``cache=True`` (the machine code is stored in ``__pycache__`` next to this file, or numba's user
cache). This module imports numba (about half a second): :mod:`wbsim.sim.bounce` imports it only once a
simulation has run enough steps for the compiled loop to pay for it, never at ``import wbsim``.
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = ["rest_slow_contacts", "THRESHOLD", "REST", "BOUNCY", "STIFFNESS", "DAMPING"]


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
    npair = pair_keys.shape[0]
    changed = False
    for i in range(address.shape[0]):
        row = address[i]
        if row < 0:
            continue
        g0, g1 = geom[i, 0], geom[i, 1]
        entry = geom_class[g0] * nclass + geom_class[g1]
        if npair > 0:
            key = min(g0, g1) * ngeom + max(g0, g1)
            at = min(np.searchsorted(pair_keys, key), npair - 1)
            if pair_keys[at] == key:
                entry = nclass * nclass + at
        threshold = entries[entry, THRESHOLD]
        if not abs(efc_vel[row]) <= threshold:
            continue
        changed = True
        solreffriction[i, 0] = entries[entry, BOUNCY]
        solreffriction[i, 1] = entries[entry, BOUNCY + 1]
        solref[i, 0] = entries[entry, REST]
        solref[i, 1] = entries[entry, REST + 1]
        damping = entries[entry, DAMPING]
        kbip[row, 0] = entries[entry, STIFFNESS]
        kbip[row, 1] = damping
        dim = dims[entry]
        # A slow contact that also sticks: its friction rows get the resting damping too.
        if dim >= 3 and math.hypot(efc_vel[row + 1], efc_vel[row + 2]) <= threshold:
            for k in range(1, dim):
                kbip[row + k, 1] = damping
    return changed
