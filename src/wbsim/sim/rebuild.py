"""Carrying a running simulation's state over to a recompiled model (Solids added or removed at run time).

When a supervisor imports or removes a Solid, the world is compiled again and MuJoCo's generated names and
ids shift. The state is carried over by node identity: each Solid that owns a body in both models maps its
body, and through it its joints (in order), degrees of freedom, geoms, sites and mocap row; a device that
makes bodies of its own (a motor's reference body, ``helper_bodies`` of its binding) maps them the same way.
Everything kept is copied bit for bit, so bodies not involved continue exactly as if nothing had happened.

The simulation then builds every device bank for the new model: the fields supervisors wrote on the devices
that stay are applied again (``DeviceBank.field_changed``), each bank takes over its devices' run-time state
(``DeviceBank.transfer_from``, by node identity), the core device objects are moved to their new bank and
row, and API objects re-read their caches, so that controllers keep their objects, enabled sensors and
motor commands.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from wbsim.compile.bindings import Bindings
from wbsim.errors import SimulationError

__all__ = ["StateMap", "map_state", "device_body_pairs", "copy_state", "copy_model_rows", "copy_options"]


@dataclass(frozen=True)
class StateMap:
    """Index maps from an old model into a new one (numpy int arrays; old and new rows in the same order).

    Attributes:
        bodies: (old body ids, new body ids), the world body included.
        qpos: (old, new) ``qpos`` addresses.
        dofs: (old, new) degrees of freedom.
        geoms: (old, new) geom ids.
        sites: (old, new) site ids.
        mocaps: (old, new) mocap rows.
        new_bodies: new body ids that no old body maps to (the imported ones).
    """

    bodies: tuple[np.ndarray, np.ndarray]
    qpos: tuple[np.ndarray, np.ndarray]
    dofs: tuple[np.ndarray, np.ndarray]
    geoms: tuple[np.ndarray, np.ndarray]
    sites: tuple[np.ndarray, np.ndarray]
    mocaps: tuple[np.ndarray, np.ndarray]
    new_bodies: np.ndarray


def _pairs(pairs: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    array = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    return array[:, 0].copy(), array[:, 1].copy()


def _sites_by_body(model: mujoco.MjModel) -> dict[int, list[int]]:
    sites: dict[int, list[int]] = {}
    for site in range(model.nsite):
        sites.setdefault(int(model.site_bodyid[site]), []).append(site)
    return sites


def _helper_bodies(binding: object, model: mujoco.MjModel) -> tuple[int, ...]:
    helper = getattr(binding, "helper_bodies", None)
    return tuple(helper(model)) if helper is not None else ()


def device_body_pairs(old_model: mujoco.MjModel, old: Bindings, new_model: mujoco.MjModel,
                      new: Bindings) -> tuple[list[tuple[int, int]], set[int]]:
    """The bodies devices make for themselves (``helper_bodies`` of their bindings), matched by device node.

    Returns:
        (old body, new body) pairs of the devices in both models, and every such body of the old model.
    """
    pairs: list[tuple[int, int]] = []
    every: set[int] = set()
    for kind, group in old.devices.items():
        after = {b.node: b for b in new.devices.get(kind, ())}
        for binding in group:
            bodies = _helper_bodies(binding, old_model)
            every.update(bodies)
            other = after.get(binding.node)  # type: ignore[attr-defined]
            if other is not None:
                pairs += zip(bodies, _helper_bodies(other, new_model))
    return pairs, every


def map_state(old_model: mujoco.MjModel, old: Bindings, new_model: mujoco.MjModel, new: Bindings,
              kept: set[object]) -> StateMap:
    """Match the bodies of ``old_model`` with those of ``new_model`` by the Solid and device nodes that own them.

    Args:
        old_model, old: the running model and its bindings.
        new_model, new: the recompiled model and its bindings.
        kept: the Solid nodes expected in both (every old Solid not removed).

    Raises:
        SimulationError: a body of a kept Solid has a different structure in the new model (joints, geoms,
            sites), or an old body has no owner Solid in the new model.
    """
    new_by_node = {b.node: b for b in new.solids if b.owns_body}
    body_pairs = [(0, 0)]
    for binding in old.solids:
        if not binding.owns_body or binding.node not in kept:
            continue
        other = new_by_node.get(binding.node)
        if other is None:
            raise SimulationError(f"the recompiled world lost the body of {binding.node!r}.")
        body_pairs.append((binding.body_id, other.body_id))
    helper_pairs, helpers = device_body_pairs(old_model, old, new_model, new)
    body_pairs += helper_pairs
    old_sites, new_sites = _sites_by_body(old_model), _sites_by_body(new_model)
    qpos, dofs, geoms, sites, mocaps = [], [], [], [], []
    for o, n in body_pairs:
        if (old_model.body_jntnum[o] != new_model.body_jntnum[n] or old_model.body_geomnum[o] != new_model.body_geomnum[n]
                or len(old_sites.get(o, ())) != len(new_sites.get(n, ()))):
            owner = next((b.node.path for b in old.solids if b.owns_body and b.body_id == o), f"body {o}")
            raise SimulationError(
                f"the MuJoCo body of {owner} would change (joints, geoms or sites): adding or removing nodes merged "
                "into an existing body (a Solid without Physics under a Solid with Physics, a device without a "
                "body of its own) is not supported yet.")
        for k in range(old_model.body_jntnum[o]):
            jo, jn = old_model.body_jntadr[o] + k, new_model.body_jntadr[n] + k
            if old_model.jnt_type[jo] != new_model.jnt_type[jn]:
                raise SimulationError(f"joint {jo} changed type when the world was recompiled.")
            width = {0: 7, 1: 4}.get(int(old_model.jnt_type[jo]), 1)  # free, ball, hinge/slide
            qpos += [(old_model.jnt_qposadr[jo] + i, new_model.jnt_qposadr[jn] + i) for i in range(width)]
            ndof = {0: 6, 1: 3}.get(int(old_model.jnt_type[jo]), 1)
            dofs += [(old_model.jnt_dofadr[jo] + i, new_model.jnt_dofadr[jn] + i) for i in range(ndof)]
        geoms += [(old_model.body_geomadr[o] + k, new_model.body_geomadr[n] + k) for k in range(old_model.body_geomnum[o])]
        sites += list(zip(old_sites.get(o, ()), new_sites.get(n, ())))
        if old_model.body_mocapid[o] >= 0:
            mocaps.append((int(old_model.body_mocapid[o]), int(new_model.body_mocapid[n])))
    if old_model.nq != len(qpos) or old_model.nv != len(dofs):
        # Every joint belongs to a kept body or to a removed Solid's body; the rest must be accounted for.
        owned = {int(o) for o, _ in body_pairs}
        lost = [j for j in range(old_model.njnt) if int(old_model.jnt_bodyid[j]) not in owned
                and int(old_model.jnt_bodyid[j]) not in helpers
                and not _removed_body(int(old_model.jnt_bodyid[j]), old, kept)]
        if lost:
            raise SimulationError("joints of bodies without an owner Solid cannot be carried over a recompilation.")
    mapped = {n for _, n in body_pairs}
    new_bodies = np.array([b for b in range(new_model.nbody) if b not in mapped], dtype=np.int64)
    return StateMap(_pairs(body_pairs), _pairs(qpos), _pairs(dofs), _pairs(geoms), _pairs(sites), _pairs(mocaps),
                    new_bodies)


def _removed_body(body: int, old: Bindings, kept: set[object]) -> bool:
    return any(b.body_id == body and b.node not in kept for b in old.solids)


def copy_state(mapping: StateMap, old: mujoco.MjData, new: mujoco.MjData) -> None:
    """Copy the time and the kept rows of the state (positions, velocities, warm start, accelerations, mocap
    poses, applied forces) from ``old`` into ``new``; the imported bodies keep ``new``'s values."""
    new.time = old.time
    qo, qn = mapping.qpos
    new.qpos[qn] = old.qpos[qo]
    do, dn = mapping.dofs
    for name in ("qvel", "qacc_warmstart", "qacc", "qfrc_applied"):
        getattr(new, name)[dn] = getattr(old, name)[do]
    mo, mn = mapping.mocaps
    new.mocap_pos[mn] = old.mocap_pos[mo]
    new.mocap_quat[mn] = old.mocap_quat[mo]
    bo, bn = mapping.bodies
    new.xfrc_applied[bn] = old.xfrc_applied[bo]


def copy_model_rows(mapping: StateMap, old: mujoco.MjModel, new: mujoco.MjModel,
                    skip_mass: set[int] | frozenset[int] = frozenset(),
                    skip_geoms: set[int] | frozenset[int] = frozenset()) -> None:
    """Copy the model rows that wbsim edits at run time (body poses and masses, geom and site poses) of the
    kept bodies, so that supervisor edits made before the recompilation stay in effect; the bodies of
    ``skip_mass`` and the geoms of ``skip_geoms`` (old ids: a Solid whose boundingObject changed) keep their
    newly compiled masses and poses."""
    bo, bn = mapping.bodies
    for name in ("body_pos", "body_quat"):
        getattr(new, name)[bn] = getattr(old, name)[bo]
    keep = ~np.isin(bo, list(skip_mass))
    for name in ("body_mass", "body_inertia"):
        getattr(new, name)[bn[keep]] = getattr(old, name)[bo[keep]]
    go, gn = mapping.geoms
    keep = ~np.isin(go, list(skip_geoms))
    for name in ("geom_pos", "geom_quat", "geom_sameframe"):
        getattr(new, name)[gn[keep]] = getattr(old, name)[go[keep]]
    so, sn = mapping.sites
    for name in ("site_pos", "site_quat", "site_sameframe"):
        getattr(new, name)[sn] = getattr(old, name)[so]


def copy_options(old: mujoco.MjModel, new: mujoco.MjModel) -> None:
    """Give ``new`` the physics options of ``old`` (``MjModel.opt``: time step, solver, flags, ...), which the
    simulation or its user may have changed after compilation."""
    for name in dir(old.opt):
        if name.startswith("_"):
            continue
        value = getattr(old.opt, name)
        if isinstance(value, np.ndarray):
            getattr(new.opt, name)[...] = value
        elif isinstance(value, int | float):
            setattr(new.opt, name, value)
