"""ODE's contact spring for very light parts, inside MuJoCo's step (docs/motors.md, "Very light joints").

MuJoCo's constraint softness is relative to the bodies' inertia: a row's regularisation is
``R = (1 - d) / d x diagApprox`` (``diagApprox``: the row's approximate inverse inertia, from the bodies'
``body_invweight0``), and its reference acceleration ``aref = -B v - K I x`` is an acceleration. So the force a
contact puts out for a given penetration scales with the masses: 1,200 N/m for a 1 g link on a wall, about 400 N/m
for the 1 g pads of Webots' coupled-motors gripper, where ODE's contact is a spring of
``k = softERP / (softCFM basicTimeStep)`` N/m (ODE steps once per basic step) and a damper of
``c = (1 - softERP) / softCFM`` N s/m whatever the masses.

This edit gives every contact of a very light body (translational ``body_invweight0`` above
:data:`LIGHT_INVERSE_MASS`: a free body under 5 g) ODE's force law instead, in every physics step after collision
detection and before the solver. ODE's row at MuJoCo's step ``h`` is ``CFM' f = ERP' depth / h - v+`` with
``ERP' = h k / (h k + c)``, ``CFM' = 1 / (h k + c)`` (the same spring and damper); with MuJoCo's semi-implicit step
(``v+ = v + h a``) it is MuJoCo's soft row ``R f = aref - J qacc`` with

- ``R = 1 / (h (h k + c))`` on the normal row (``k``, ``c``: ODE's spring and damper of the contact's surface);
  its friction rows keep MuJoCo's proportions (``R / impratio``, so the cone's ``mu`` stays valid);
- ``aref = k R depth - v / h``: ``K = k R / I`` (``I``: the row's impedance, ``efc_KBIP[:, 2]``) and ``B = 1 / h``
  on every row of the contact (friction rows have ``K = 0``).

At rest (``J qacc = 0``) the contact then pushes ``k x depth`` N, exactly ODE's spring. ``R``, ``D = 1 / R`` are
written into ``efc_R``/``efc_D`` and into the island copies the solver reads (``iefc_R``/``iefc_D``, via
``map_efc2iefc``); the caller recomputes ``efc_aref`` (``mj_referenceConstraint``). Heavier contacts are not
touched, so a world without such light parts runs bit-identically (the edit is not even installed:
:meth:`LightContacts.needed`). Not mapped: ODE's bounce on light contacts (they are its plain spring-damper).

The edit is one numpy pass over the light contacts of a step (no per-contact Python); it is stateless, so runs
stay deterministic.
"""

from __future__ import annotations

import mujoco
import numpy as np

from wbsim.compile.contacts import SurfaceTable

__all__ = ["LIGHT_INVERSE_MASS", "LightContacts"]

LIGHT_INVERSE_MASS = 200.0
"""A contact is very light, and gets ODE's force-space spring, when one of its two bodies has a translational
``body_invweight0`` (its share of MuJoCo's ``diagApprox``) above this (1/kg): a free body under 5 g, a 1 g link
hinged 2 cm from its centre of mass (249), the 1 g pads of Webots' coupled-motors gripper (592). The 8 g boxes of
Webots' track sample (125) keep MuJoCo's contacts: with ODE's spring between them (sums of 250) the last box
drifted 3 mm off the belt's centre line."""


class LightContacts:
    """The per-step contact edit of a model with very light parts (see the module docstring).

    It plugs into the physics loop as a contact-editing bank does (:attr:`edits_contacts`): the simulation calls
    :meth:`edit_contacts` after MuJoCo's collision detection in every physics step, then recomputes the
    reference accelerations if it returns True.

    Args:
        table: the compiled world's ODE surfaces (:class:`~wbsim.compile.contacts.SurfaceTable`).
        model: the compiled model (geom bodies, priorities, inverse weights and the time step are read once).
        basic_step_s: Webots' ``basicTimeStep`` in seconds: ODE's step, which sets its spring ``softERP /
            (softCFM basicTimeStep)``.
    """

    watches_substeps = False
    edits_contacts = True

    def __init__(self, table: SurfaceTable, model: mujoco.MjModel, basic_step_s: float) -> None:
        self.table = table
        self._ngeom = int(model.ngeom)
        # Geoms of very light bodies (MuJoCo's diagApprox of a contact row: its two bodies' translational
        # invweight0).
        self._light = np.asarray(model.body_invweight0[model.geom_bodyid, 0] > LIGHT_INVERSE_MASS)
        self._priority = np.array(model.geom_priority, dtype=np.int64)
        self._step = float(model.opt.timestep)
        self._basic_step = float(basic_step_s)
        # One surface for every contact (the usual world: no explicit pair, one softERP/softCFM): its constants
        # once, so that a step's edit needs no per-contact lookup.
        self._uniform: tuple[float, float] | None = None
        if (len(table.pair_keys) == 0 and len(table.geom_erp) and (table.geom_erp == table.geom_erp[0]).all()
                and (table.geom_cfm == table.geom_cfm[0]).all()):
            spring, normal_r = self._rows(table.geom_erp[:1], table.geom_cfm[:1])
            self._uniform = float(spring[0]), float(normal_r[0])

    def _rows(self, erp: np.ndarray, cfm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """ODE's spring ``k`` (N/m) and the normal row's ``R = 1 / (h (h k + c))`` for surfaces (softERP, softCFM)."""
        cfm = np.maximum(cfm, 1e-12)
        spring = erp / (cfm * self._basic_step)
        damper = (1.0 - erp) / cfm
        h = self._step
        return spring, 1.0 / (h * (h * spring + damper))

    @staticmethod
    def needed(model: mujoco.MjModel) -> bool:
        """True if some contact of ``model`` can be very light: a colliding geom whose body's inverse weight is
        over :data:`LIGHT_INVERSE_MASS`, with the (primal) solver and elliptic cones the edit is for."""
        if model.ngeom == 0 or model.opt.cone != mujoco.mjtCone.mjCONE_ELLIPTIC:
            return False
        if model.opt.solver == mujoco.mjtSolver.mjSOL_PGS or model.opt.noslip_iterations > 0:
            return False  # the dual solvers read efc_AR, built before the edit
        if model.opt.disableflags & (mujoco.mjtDisableBit.mjDSBL_CONTACT | mujoco.mjtDisableBit.mjDSBL_CONSTRAINT):
            return False
        colliding = (model.geom_contype != 0) | (model.geom_conaffinity != 0)
        weight = model.body_invweight0[model.geom_bodyid, 0]
        return bool((colliding & (weight > LIGHT_INVERSE_MASS)).any())

    def _surfaces(self, geom: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(softERP, softCFM) of contacts between geoms ``geom`` (n, 2): the pair's, else the higher-priority
        geom's, else the two geoms' mean."""
        t = self.table
        g1, g2 = geom[:, 0], geom[:, 1]
        p1, p2 = self._priority[g1], self._priority[g2]
        erp = np.where(p1 > p2, t.geom_erp[g1], np.where(p2 > p1, t.geom_erp[g2],
                                                         0.5 * (t.geom_erp[g1] + t.geom_erp[g2])))
        cfm = np.where(p1 > p2, t.geom_cfm[g1], np.where(p2 > p1, t.geom_cfm[g2],
                                                         0.5 * (t.geom_cfm[g1] + t.geom_cfm[g2])))
        if len(t.pair_keys):
            keys = np.minimum(g1, g2) * self._ngeom + np.maximum(g1, g2)
            at = np.minimum(np.searchsorted(t.pair_keys, keys), len(t.pair_keys) - 1)
            hit = t.pair_keys[at] == keys
            erp[hit], cfm[hit] = t.pair_erp[at[hit]], t.pair_cfm[at[hit]]
        return erp, cfm

    def edit_contacts(self, model: mujoco.MjModel, data: mujoco.MjData) -> bool:
        """After collision detection in a physics step: give the very light contacts ODE's spring-damper (their
        rows' ``efc_R``, ``efc_D``, their island copies, and ``efc_KBIP``).

        Returns:
            True if a row changed (the caller must then call ``mj_referenceConstraint``).
        """
        n = data.ncon
        if n == 0 or data.nefc == 0:
            return False
        contact = data.contact
        # Contact fields are strided views into MuJoCo's contact structs, slow to index: copied once each.
        geom = np.array(contact.geom[:n], dtype=np.intp)
        light_geom = self._light[geom]
        light = np.flatnonzero(light_geom[:, 0] | light_geom[:, 1])
        if len(light) == 0:
            return False
        address = np.array(contact.efc_address[:n], dtype=np.intp)[light]
        active = address >= 0  # excluded contacts have no rows
        if not active.all():
            light, address = light[active], address[active]
            if len(light) == 0:
                return False
        dim = np.array(contact.dim[:n], dtype=np.intp)[light]
        if self._uniform is not None:
            spring, normal_r = self._uniform
        else:
            spring, normal_r = self._rows(*self._surfaces(geom[light]))
        # Every row of a contact, normal first: address + 0 .. dim - 1.
        if (dim == dim[0]).all():
            rows = (address[:, None] + np.arange(dim[0])).ravel()
            scale = np.repeat(normal_r / data.efc_R[address], dim[0]) if dim[0] > 1 else normal_r
        else:
            starts = np.repeat(address, dim)
            rows = starts + (np.arange(len(starts)) - np.repeat(np.cumsum(dim) - dim, dim))
            scale = np.repeat(normal_r / data.efc_R[address], dim)
        r, kbip = data.efc_R, data.efc_KBIP
        r[rows] *= scale  # friction rows keep their ratio to the normal row
        r[address] = normal_r
        edited = r[rows]
        data.efc_D[rows] = 1.0 / edited
        kbip[address, 0] = spring * normal_r / kbip[address, 2]
        kbip[rows, 1] = 1.0 / self._step
        if data.nisland:  # the solver works on per-island copies made in mj_step1
            island_rows = data.map_efc2iefc[rows]
            if island_rows.min() < 0:  # rows outside every island (none expected for contacts): left alone
                kept = island_rows >= 0
                island_rows, edited = island_rows[kept], edited[kept]
            data.iefc_R[island_rows] = edited
            data.iefc_D[island_rows] = 1.0 / edited
        return True
