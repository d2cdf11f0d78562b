"""ODE-like constraint rows for very light parts, inside MuJoCo's step (docs/motors.md, "Very light joints").

MuJoCo's constraint softness is relative to the bodies' inertia: a row's regularisation is
``R = (1 - d) / d x diagApprox`` (``diagApprox``: the row's approximate inverse inertia, from the bodies'
``body_invweight0``), and its reference acceleration ``aref = -B v - K I x`` is an acceleration. So the force a
row puts out for a given error scales with the masses. On parts of a gram (the fingers of Webots' coupled-motors
gripper) contacts are 400 to 1,200 N/m where ODE's contact is a spring of ``k = softERP / (softCFM basicTimeStep)``
N/m (ODE steps once per basic step) and a damper of ``c = (1 - softERP) / softCFM`` N s/m whatever the masses; a
blocked motor pushes a fraction of a N m where ODE's pushes its ``maxTorque``; a closed loop's weld lets the part
turn.

This edit runs in every physics step after collision detection and before the solver, on the rows of very light
bodies (translational ``body_invweight0`` above :data:`LIGHT_INVERSE_MASS`: a free body under 5 g):

- **contacts** of such a body get ODE's force law. ODE's row at MuJoCo's step ``h`` is
  ``CFM' f = ERP' depth / h - v+`` with ``ERP' = h k / (h k + c)``, ``CFM' = 1 / (h k + c)``; with MuJoCo's
  semi-implicit step (``v+ = v + h a``) it is MuJoCo's soft row ``R f = aref - J qacc`` with ``R = 1 / (h (h k +
  c))`` on the normal row, its friction rows keeping MuJoCo's proportions (``R / impratio``, so the cone's ``mu``
  stays valid), and ``aref = k R depth - v / h``: ``K = k R / I`` (``I``: the row's impedance,
  ``efc_KBIP[:, 2]``), ``B = 1 / h`` on every row of the contact. At rest the contact pushes ``k x depth`` N,
  exactly ODE's spring. ODE's bounce is not applied to them;
- **motor rows** (friction-loss tendons and DOFs) of joints carrying such a body get ``R`` at most
  :data:`LIGHT_FRICTION_R`, and **welds and connects** (closed loops) linking one at most
  :data:`LIGHT_EQUALITY_R`; their reference accelerations stay MuJoCo's. ODE's own values (``CFM / h``) make
  MuJoCo's Newton solver stop early or diverge; the caps are the measured middle of what lifts the gripper's box.

While the edit is installed the simulation also sets MuJoCo's solver tolerance to :data:`LIGHT_SOLVER_TOLERANCE`:
the default one, relative to an island's inertia that the motors' reference DOFs dominate, stopped solves with
residual forces that ``implicitfast`` turned into large accelerations of the lightest links.

``R`` and ``D = 1 / R`` are written into ``efc_R``/``efc_D`` and into the island copies the solver reads
(``iefc_R``/``iefc_D``, via ``map_efc2iefc``, made in ``mj_step1``); the caller recomputes ``efc_aref``
(``mj_referenceConstraint``). Other rows are not touched, and a world without such light parts runs
bit-identically (the edit is not even installed: :meth:`LightContacts.needed`).

The edit is a few numpy operations over the light rows of a step (no per-row Python); it is stateless, so runs
stay deterministic.
"""

from __future__ import annotations

import mujoco
import numpy as np

from wbsim.compile.contacts import SurfaceTable, find_pairs

__all__ = ["LIGHT_INVERSE_MASS", "LIGHT_SOLVER_TOLERANCE", "LightContacts"]

LIGHT_INVERSE_MASS = 200.0
"""A contact is very light, and gets ODE's force-space spring, when one of its two bodies has a translational
``body_invweight0`` (its share of MuJoCo's ``diagApprox``) above this (1/kg): a free body under 5 g, a 1 g link
hinged 2 cm from its centre of mass (249), the 1 g pads of Webots' coupled-motors gripper (592). The 8 g boxes of
Webots' track sample (125) keep MuJoCo's contacts: with ODE's spring between them (sums of 250) the last box
drifted 3 mm off the belt's centre line."""


LIGHT_FRICTION_R = 1.0
"""Largest regularisation ``R`` (m/s^2/N, or rad/s^2/(N m)) of a motor's row (a friction-loss tendon or DOF) whose
joint carries a very light part: blocked, the motor then pushes at least ``v_err / (R h)`` (250 N m per rad/s of
velocity error at 4 ms, where MuJoCo's own ``R = 1e-4 / inertia`` gave the gripper's fingers 3.4). Empirical, found
at MuJoCo's default solver tolerance: with 0.3 and 1 the gripper lifted its box; 0.1 (without
:data:`LIGHT_EQUALITY_R`) and 3 diverged. With :data:`LIGHT_SOLVER_TOLERANCE` every cap from 0.1 to 10 lifts it at
basicTimeStep 8 and 16; uncapped rows lift it at 8 but not at 16 (docs/motors.md)."""

LIGHT_EQUALITY_R = 0.1
"""Largest ``R`` of an equality row (a closed loop's weld) linking a very light body: the loop must hold the part
against the harder motor (with MuJoCo's ``R`` of 27 to 100 the gripper's pads turned by 4 to 7 degrees). Empirical,
like :data:`LIGHT_FRICTION_R`, at MuJoCo's default solver tolerance: 0.1 and 0.25 lifted the gripper's box; 1 did
not; ODE's own ``CFM / h`` (0.0025) diverged. With :data:`LIGHT_SOLVER_TOLERANCE` every cap from 0.0025 to 10, and
no cap, lifts it: kept, as measured with it throughout."""


LIGHT_SOLVER_TOLERANCE = 1e-12
"""MuJoCo's solver ``tolerance`` (``opt.tolerance``, 1e-8 by default) in a world with very light parts (set by the
simulation while :class:`LightContacts` is installed). The Newton solver stops once its cost improvement or its
gradient (the residual force ``M (qacc - qacc_smooth) - J' f``), divided by the island's summed inertia (the
diagonal of ``qM``), is below the tolerance; MuJoCo's ``implicitfast`` step then integrates ``M^-1 (qfrc_smooth +
qfrc_constraint)``, not the solver's ``qacc``, so the residual force left comes back as an acceleration of
``residual / inertia`` on each DOF. The motors' reference DOFs put ``1e4 x`` their joints' inertia into the island
(``REFERENCE_ARMATURE_RATIO``: 125 kg m^2 for the slider of Webots' coupled-motors gripper), and its loop links have
2e-9 kg m^2: a stop at the default tolerance left the left pad's hinge at -5.8 rad/s where the converged step gives
0.12 (at 2.476 s at basicTimeStep 16), and the gripper then diverged. Dividing the default by the reference
armature ratio gives the solver MuJoCo's own resolution relative to the robot's physical inertia; measured on the
gripper (15 runs, box start shifted by -1.4 to 1.4 mm): 1e-8 diverged 3 times at basicTimeStep 16 and once at 8,
1e-9 to 1e-14 never, and lifted the box every time (0.1486 to 0.1489 m), with fewer solver iterations per step
(4.4 to 4.9 on average, 6 at 1e-8, which hits its 100-iteration cap in some steps)."""


def _light_parts(model: mujoco.MjModel) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(geoms, friction rows, equalities) that involve very light bodies: geoms of a body whose translational
    ``body_invweight0`` exceeds :data:`LIGHT_INVERSE_MASS`; friction rows (``nv`` DOFs then ``ntendon`` tendons)
    of joints with such a body in their subtree; weld and connect equalities of such a body."""
    light_body = np.asarray(model.body_invweight0[:, 0] > LIGHT_INVERSE_MASS)
    subtree = light_body.copy()
    for body in range(model.nbody - 1, 0, -1):  # MuJoCo numbers children after their parents
        if subtree[body]:
            subtree[model.body_parentid[body]] = True
    light_dof = subtree[model.dof_bodyid]
    light_tendon = np.zeros(model.ntendon, dtype=bool)
    for t in range(model.ntendon):
        for w in range(model.tendon_adr[t], model.tendon_adr[t] + model.tendon_num[t]):
            if int(model.wrap_type[w]) == int(mujoco.mjtWrap.mjWRAP_JOINT):
                light_tendon[t] |= bool(subtree[model.jnt_bodyid[model.wrap_objid[w]]])
    light_eq = np.zeros(model.neq, dtype=bool)
    for e in range(model.neq):
        if int(model.eq_type[e]) not in (int(mujoco.mjtEq.mjEQ_WELD), int(mujoco.mjtEq.mjEQ_CONNECT)):
            continue
        ids = [int(model.eq_obj1id[e]), int(model.eq_obj2id[e])]
        if int(model.eq_objtype[e]) == int(mujoco.mjtObj.mjOBJ_SITE):
            ids = [int(model.site_bodyid[i]) for i in ids]
        light_eq[e] = any(light_body[i] for i in ids if i >= 0)
    return light_body[model.geom_bodyid], np.concatenate([light_dof, light_tendon]), light_eq


def _write_regularisation(data: mujoco.MjData, rows: np.ndarray, r: np.ndarray) -> None:
    """Set the constraint rows ``rows`` to regularisation ``r`` (and ``D = 1 / r``), in ``efc_R``/``efc_D`` and in the
    per-island copies the solver works on (``iefc_R``/``iefc_D``, made in ``mj_step1``); rows outside every island
    have no copy."""
    data.efc_R[rows] = r
    data.efc_D[rows] = 1.0 / r
    if data.nisland:
        island_rows = data.map_efc2iefc[rows]
        if island_rows.min() < 0:
            kept = island_rows >= 0
            island_rows, r = island_rows[kept], r[kept]
        data.iefc_R[island_rows] = r
        data.iefc_D[island_rows] = 1.0 / r


class LightContacts:
    """The per-step edit of the constraint rows of a model with very light parts (see the module docstring).

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
        self._light, self._light_friction, self._light_eq = _light_parts(model)
        self._nv = int(model.nv)
        self._rows_of_parts = bool(self._light_friction.any() or self._light_eq.any())
        # The last step's equality and friction rows (ne, their efc_id and efc_type, rows to cap, caps): they
        # rarely change from one step to the next.
        self._part_key: tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
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
        light_geom, light_friction, light_eq = _light_parts(model)
        return bool((colliding & light_geom).any() or light_friction.any() or light_eq.any())

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
            at, hit = find_pairs(t.pair_keys, self._ngeom, g1, g2)
            erp[hit], cfm[hit] = t.pair_erp[at[hit]], t.pair_cfm[at[hit]]
        return erp, cfm

    def edit_contacts(self, model: mujoco.MjModel, data: mujoco.MjData) -> bool:
        """After collision detection in a physics step: give the very light parts' contacts ODE's spring-damper
        (their rows' ``efc_R``, ``efc_D``, their island copies, and ``efc_KBIP``) and cap ``R`` of their motors' and
        loops' rows.

        Returns:
            True if a row changed (the caller must then call ``mj_referenceConstraint``).
        """
        if data.nefc == 0:
            return False
        edited = self._edit_part_rows(data) if self._rows_of_parts else False
        return self._edit_contact_rows(data) or edited

    def _edit_part_rows(self, data: mujoco.MjData) -> bool:
        """Cap ``R`` of the motors' and the loops' rows of very light parts (:data:`LIGHT_FRICTION_R`,
        :data:`LIGHT_EQUALITY_R`); their reference accelerations stay MuJoCo's."""
        ne, nf = data.ne, data.nf
        if ne + nf == 0:
            return False
        ids = data.efc_id[:ne + nf]
        types = data.efc_type[:ne + nf]
        key = self._part_key
        if key is not None and key[0] == ne and np.array_equal(key[1], ids) and np.array_equal(key[2], types):
            all_rows, caps = key[3], key[4]  # the same equality and friction rows as last step (the usual case)
        else:
            all_rows, caps = self._part_rows(data, ne, nf, ids)
            self._part_key = (ne, ids.copy(), types.copy(), all_rows, caps)
        if len(all_rows) == 0:
            return False
        _write_regularisation(data, all_rows, np.minimum(data.efc_R[all_rows], caps))
        return True

    def _part_rows(self, data: mujoco.MjData, ne: int, nf: int, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rows, their R caps) among the equality rows ``[0, ne)`` and friction rows ``[ne, ne + nf)``."""
        rows, caps = [], []
        if ne:
            eq_rows = np.flatnonzero(self._light_eq[ids[:ne]])
            rows.append(eq_rows)
            caps.append(np.full(len(eq_rows), LIGHT_EQUALITY_R))
        if nf:
            # Friction rows: DOFs (efc_id a DOF) then tendons (efc_id a tendon) in one lookup table.
            tendon = data.efc_type[ne:ne + nf] == mujoco.mjtConstraint.mjCNSTR_FRICTION_TENDON
            fr_rows = ne + np.flatnonzero(self._light_friction[ids[ne:] + tendon * self._nv])
            rows.append(fr_rows)
            caps.append(np.full(len(fr_rows), LIGHT_FRICTION_R))
        return np.concatenate(rows).astype(np.intp), np.concatenate(caps)

    def _edit_contact_rows(self, data: mujoco.MjData) -> bool:
        """ODE's spring-damper on the contacts of very light bodies (see the module docstring)."""
        n = data.ncon
        if n == 0:
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
        _write_regularisation(data, rows, r[rows])
        kbip[address, 0] = spring * normal_r / kbip[address, 2]
        kbip[rows, 1] = 1.0 / self._step
        return True
