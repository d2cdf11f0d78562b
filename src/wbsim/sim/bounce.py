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
(``mj_referenceConstraint``). Friction rows are left as they were (ODE's bounce acts on the normal row only):
the contact's ``solref`` becomes the resting one and its ``solreffriction`` the bouncy one, which is what
MuJoCo would compute for such a contact.
"""

from __future__ import annotations

import mujoco
import numpy as np

from wbsim.compile.contacts import BounceTable

__all__ = ["BounceThreshold"]


class BounceThreshold:
    """The per-step contact edit of a model whose surfaces bounce (see the module docstring).

    Args:
        table: the compiled world's :class:`~wbsim.compile.contacts.BounceTable` (``table.active``).
        model: the compiled model (geom priorities, time step, cone and flags are read once).
    """

    def __init__(self, table: BounceTable, model: mujoco.MjModel) -> None:
        if model.opt.cone != mujoco.mjtCone.mjCONE_ELLIPTIC:
            raise ValueError("the bounce threshold needs elliptic friction cones (one normal row per contact)")
        self.table = table
        self._ngeom = int(model.ngeom)
        self._priority = np.asarray(model.geom_priority, dtype=np.int64).copy()
        refsafe = not (int(model.opt.disableflags) & int(mujoco.mjtDisableBit.mjDSBL_REFSAFE))
        self._min_timeconst = 2.0 * float(model.opt.timestep) if refsafe else 0.0
        self._has_pairs = len(table.pair_keys) > 0
        self._uniform = self._uniform_rows(table, model)

    def _uniform_rows(self, table: BounceTable, model: mujoco.MjModel) -> tuple | None:
        """(threshold, resting solref, K, B, bouncy solref) if every colliding geom switches alike (one surface, no pairs:
        the usual world), so that a step's edit needs no per-contact lookup; else None."""
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
        timeconst = max(float(rest[0, 0]), self._min_timeconst)
        stiffness = 1.0 / (float(dmax[0]) * timeconst * float(rest[0, 1])) ** 2
        return float(velocity[0]), rest[0].copy(), stiffness, 2.0 / (float(dmax[0]) * timeconst), bouncy[0].copy()

    def edit(self, model: mujoco.MjModel, data: mujoco.MjData) -> bool:
        """After collision detection in a physics step: give the slow contacts their resting solref (in
        ``data.contact.solref`` and the stiffness and damping of their constraint rows).

        Returns:
            True if a constraint row changed (the caller must then call ``mj_referenceConstraint``).
        """
        n = data.ncon
        if n == 0:
            return False
        contact = data.contact
        if self._uniform is not None:
            return self._edit_uniform(contact, data, n)
        table = self.table
        geom = contact.geom[:n]
        g0, g1 = geom[:, 0], geom[:, 1]
        p0, p1 = self._priority[g0], self._priority[g1]
        # MuJoCo's per-geom rule: the higher priority's parameters, else the two mixed (mean solref).
        first = p0 > p1
        second = p1 > p0
        switches = np.where(first, table.geom_switches[g0],
                            np.where(second, table.geom_switches[g1],
                                     table.geom_switches[g0] | table.geom_switches[g1]))
        velocity = np.where(first, table.geom_velocity[g0],
                            np.where(second, table.geom_velocity[g1],
                                     np.maximum(table.geom_velocity[g0], table.geom_velocity[g1])))
        pair = None
        if self._has_pairs:
            keys = np.minimum(g0, g1) * self._ngeom + np.maximum(g0, g1)
            at = np.searchsorted(table.pair_keys, keys)
            at[at >= len(table.pair_keys)] = 0
            pair = np.flatnonzero(table.pair_keys[at] == keys)
            if len(pair):
                switches[pair] = table.pair_switches[at[pair]]
                velocity[pair] = table.pair_velocity[at[pair]]
        if not switches.any():
            return False
        address = contact.efc_address[:n]
        candidates = np.flatnonzero(switches & (address >= 0))
        if len(candidates) == 0:
            return False
        rows = address[candidates]
        slow = np.abs(data.efc_vel[rows]) <= velocity[candidates]
        chosen = candidates[slow]
        if len(chosen) == 0:
            return False
        rows = rows[slow]
        c0, c1 = g0[chosen], g1[chosen]
        rest0, rest1 = table.geom_rest[c0], table.geom_rest[c1]
        rest = np.where(first[chosen, None], rest0,
                        np.where(second[chosen, None], rest1, 0.5 * (rest0 + rest1)))
        if pair is not None and len(pair):
            in_pair = np.zeros(n, dtype=bool)
            in_pair[pair] = True
            from_pair = np.flatnonzero(in_pair[chosen])
            if len(from_pair):
                rest[from_pair] = table.pair_rest[at[chosen[from_pair]]]
        # The friction rows keep the bouncy solref (as solreffriction: what MuJoCo would then compute).
        contact.solreffriction[chosen] = contact.solref[chosen]
        contact.solref[chosen] = rest
        timeconst = np.maximum(rest[:, 0], self._min_timeconst)
        dmax = contact.solimp[chosen, 1]
        kbip = data.efc_KBIP
        kbip[rows, 0] = 1.0 / (dmax * timeconst * rest[:, 1]) ** 2
        kbip[rows, 1] = 2.0 / (dmax * timeconst)
        return True

    def _edit_uniform(self, contact: mujoco._structs._MjContactList, data: mujoco.MjData, n: int) -> bool:
        """:meth:`edit` for a world of one bouncy surface: the same threshold and rows for every contact."""
        velocity, rest, stiffness, damping, bouncy = self._uniform  # type: ignore[misc]
        address = contact.efc_address[:n]
        if data.nefc == 0:
            return False
        slow = np.flatnonzero((np.abs(data.efc_vel[address]) <= velocity) & (address >= 0))
        if len(slow) == 0:
            return False
        rows = address[slow]
        contact.solreffriction[slow] = bouncy
        contact.solref[slow] = rest
        kbip = data.efc_KBIP
        kbip[rows, 0] = stiffness
        kbip[rows, 1] = damping
        return True
