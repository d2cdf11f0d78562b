"""The plugin's collision pass, its contact joints, and the MuJoCo steps that honour both.

**Collision pass** (Webots' ``dSpaceCollide`` after each world step, and once after ``init``): MuJoCo's
collision detection runs on a probe copy of the state (so the simulation's own contact and constraint
arrays stay those of its last step), and the plugin's ``webots_physics_collide(g1, g2)`` is called once
per pair of top-level geoms in contact (a Solid's boundingObject: a primitive, transform or space), in
a fixed order (the geom with a body first, then scene order). Webots calls it for every pair its broad
phase reports (bounding boxes overlapping); wbsim for the pairs MuJoCo finds in contact or within
margin. Return values as Webots: 0 lets the default contacts be (for a space, the pairs of its
children are then offered in turn), 1 or 2 suppresses them (no contact, no bumper touch). Rays the
plugin created are offered against every geom they cross.

**Contact joints** (``dJointCreateContact`` + ``dJointAttach``) become MuJoCo contacts: body 1 is
pushed along the contact normal, body 2 against it, as ODE's contact joint does, with the surface
mapped like ContactProperties (friction, ``mu2``/``fdir1``, bounce, soft ERP/CFM).

**Physics of a basic step** with suppressed pairs or contact joints: each MuJoCo step is split
(``mj_step1``, then the contact list is edited, the constraints rebuilt, then ``mj_step2``), which is
bit-identical to ``mj_step`` when nothing is edited. Suppressed pairs are removed in every MuJoCo step
of the basic step; contact joints are added to every one, their depth following the two bodies' motion
along the normal since the pass (ODE uses them for its single world step).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import mujoco
import numpy as np

from wbsim.compile.contacts import ode_surface_params
from wbsim.plugins.cylinder_plane import cylinder_plane_points
from wbsim.plugins.geoms import Geom, Primitive, Ray
from wbsim.plugins.ode_types import (
    dContact,
    dContactBounce,
    dContactFDir1,
    dContactGeom,
    dContactMu2,
    dContactSoftCFM,
    dContactSoftERP,
)

if TYPE_CHECKING:
    from wbsim.plugins.bodies import Body
    from wbsim.sim.bounce import BounceThreshold
    from wbsim.plugins.scene import PluginScene

__all__ = ["ContactJoint", "JointGroup", "World", "Collisions", "HANDLED"]

HANDLED = (1, 2)
"""Collide return values that suppress Webots' default contacts."""
PROBE_MARGIN = 0.005
"""Pairs closer than this (m; or a tenth of the larger geom's bounding radius) are offered to the plugin."""
_NOT_ATTACHED = object()
_PLANE, _CYLINDER = int(mujoco.mjtGeom.mjGEOM_PLANE), int(mujoco.mjtGeom.mjGEOM_CYLINDER)
_PLANE_CYLINDER = ((_PLANE, _CYLINDER), (_CYLINDER, _PLANE))


class World:
    """ODE's ``dWorldID``: the one world of a simulation (what ``dBodyGetWorld`` returns)."""

    def __repr__(self) -> str:
        return "<dWorldID>"


class JointGroup:
    """ODE's ``dJointGroupID`` for contact joints (``dWebotsGetContactJointGroup``).

    Attributes:
        joints: the contact joints created in it.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.joints: list[ContactJoint] = []

    def __repr__(self) -> str:
        return f"<dJointGroupID {self.name}>"


@dataclass
class ContactJoint:
    """ODE's contact joint: a copy of the ``dContact`` and the two bodies it is attached to.

    Attributes:
        contact: the contact (copied when the joint is made, as ODE does).
        body1: pushed along the contact normal (None: the static environment).
        body2: pushed against it.
        steps: how many more basic steps it acts (ODE empties the group after the step that uses it).
    """

    contact: dContact
    body1: object = _NOT_ATTACHED
    body2: object = None
    steps: float = 1.0

    @property
    def attached(self) -> bool:
        """True once ``dJointAttach`` gave it bodies."""
        return self.body1 is not _NOT_ATTACHED


@dataclass
class _Injected:
    """The MuJoCo contacts standing for the contact joints of the current basic step (arrays, one row each)."""

    contacts: list[mujoco.MjContact] = field(default_factory=list)
    body1: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # MuJoCo body, -1 static
    body2: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    local1: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))  # contact point in body1's frame
    local2: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    start1: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))  # the point in the world at the pass
    start2: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    normal: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    dist0: np.ndarray = field(default_factory=lambda: np.zeros(0))


def _contact_fields() -> tuple[str, ...]:
    return tuple(name for name in dir(mujoco.MjContact()) if not name.startswith("_"))


class Collisions:
    """Collision pass, contact joints and split MuJoCo steps for one plugin.

    Args:
        scene: the plugin's view of the simulation.
        world_erp, world_cfm: WorldInfo ERP and CFM (ODE's defaults for surfaces without soft ERP/CFM).
    """

    def __init__(self, scene: PluginScene, world_erp: float, world_cfm: float) -> None:
        self.scene = scene
        self.world = World()
        self._erp, self._cfm = world_erp, world_cfm
        model = scene.model
        self._probe = mujoco.MjData(model)
        self._probe_margin = np.maximum(PROBE_MARGIN, 0.1 * model.geom_rbound)
        self._geom_body = model.geom_bodyid.copy()
        self._geom_root = model.body_rootid[model.geom_bodyid]
        self._basic_s = scene.sim.basic_time_step_ms / 1000.0
        self._probe_at: tuple[int, int] | None = None  # (step count, kinematics version) of the probe
        self._probe_keys = np.zeros(0, dtype=np.int64)  # the pair key of each contact of the probe
        self._pass_contacts: dict[int, list[int]] | None = None  # pair key -> contact indices, built on demand
        self._handled = np.zeros(0, dtype=np.int64)  # pair keys suppressed during the coming basic step
        # Webots double-buffers its contact groups; what matters is how long a joint acts, which the runtime
        # gives each joint (``steps``), so one group object stands for both buffers.
        self.group = JointGroup("contacts")
        self.persistent = JointGroup("no group")  # joints made without a group (ODE never empties them)
        self.rays: list[Ray] = []
        self._empty = _Injected()
        self._injected = self._empty
        self._fields = _contact_fields()
        self._wake: list[int] = []
        self.in_pass = False

    # -- groups ----------------------------------------------------------------------------------------
    def create_contact(self, group: JointGroup | None, contact: dContact, steps: float) -> ContactJoint:
        """``dJointCreateContact``: a joint holding a copy of ``contact``, in ``group`` (None: never emptied),
        acting in the next ``steps`` basic steps."""
        joint = ContactJoint(_copy_contact(contact), steps=math.inf if group is None else steps)
        (group or self.persistent).joints.append(joint)
        return joint

    # -- the probe: MuJoCo's collision detection at the current state ----------------------------------------
    def probe(self) -> mujoco.MjData:
        """MuJoCo data with the current poses and contacts (computed once per state)."""
        sim = self.scene.sim
        key = (sim.step_count, sim.supervision.version)
        if self._probe_at != key:
            data, probe, model = self.scene.data, self._probe, self.scene.model
            probe.qpos[:] = data.qpos
            probe.mocap_pos[:] = data.mocap_pos
            probe.mocap_quat[:] = data.mocap_quat
            mujoco.mj_kinematics(model, probe)
            # ODE's broad phase offers pairs whose bounding boxes overlap, touching or not: with wider margins
            # MuJoCo reports the pairs near contact too (with a positive distance), so a pair resting just
            # out of contact at the pass is still offered to the plugin.
            margins, body_margins = model.geom_margin.copy(), model.body_margin.copy()
            wide = np.maximum(margins, np.maximum(self._probe_margin, self._reach(data, probe)))
            model.geom_margin[:] = wide
            # The midphase of a body with several geoms culls with the body's compiled margin: widen it too.
            np.maximum.at(model.body_margin, self._geom_body, wide)
            try:
                mujoco.mj_collision(model, probe)
            finally:
                model.geom_margin[:] = margins
                model.body_margin[:] = body_margins
            geoms = probe.contact.geom[: probe.ncon]
            self._probe_keys = self._keys(geoms[:, 0], geoms[:, 1])
            self._pass_contacts = None  # only dCollide needs it: built at its first call
            self._probe_at = key
        return self._probe

    def _contacts_of_pair(self) -> dict[int, list[int]]:
        """Pair key -> the indices of its contacts in the probe's contact list."""
        if self._pass_contacts is None:
            self._pass_contacts = {}
            for index, k in enumerate(self._probe_keys.tolist()):
                self._pass_contacts.setdefault(k, []).append(index)
        return self._pass_contacts

    def _reach(self, data: mujoco.MjData, probe: mujoco.MjData) -> np.ndarray:
        """How far each geom can move during the coming basic step at its current speed, doubled (two geoms
        may close in on each other; MuJoCo takes the larger margin of a pair), m, (ngeom,).

        A pair that comes into contact during the basic step is then already offered at the pass: if the
        plugin handles it, no default contact appears in the middle of the step (Webots, which collides
        once per step, never makes one there either).
        """
        body = self._geom_body
        velocity = data.cvel[body]  # (angular, linear at the tree's centre of mass), world frame
        lever = np.linalg.norm(probe.geom_xpos - data.subtree_com[self._geom_root], axis=1) + self.scene.model.geom_rbound
        speed = np.linalg.norm(velocity[:, 3:], axis=1) + np.linalg.norm(velocity[:, :3], axis=1) * lever
        return 2.0 * self._basic_s * speed

    def _keys(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        ngeom = self.scene.model.ngeom
        return np.minimum(a, b).astype(np.int64) * ngeom + np.maximum(a, b)

    # -- the collision pass ----------------------------------------------------------------------------------
    def collision_pass(self, collide: Callable[[Geom, Geom], int] | None) -> None:
        """Webots' collision pass: offer every pair in contact to ``collide`` (if the plugin has it) and
        record the suppressed pairs for the next basic step."""
        if collide is None:
            if len(self._handled):
                self._handled = self._handled[:0]
            return
        handled: list[int] = []
        if collide is not None:
            self.in_pass = True
            try:
                probe = self.probe()
                self._offer_pairs(probe, collide, handled)
                if self.rays:
                    self._offer_rays(collide)
            finally:
                self.in_pass = False
        self._handled = np.unique(np.array(handled, dtype=np.int64))

    def _pair_order(self, a: Primitive, b: Primitive) -> tuple[Primitive, Primitive]:
        # A geom with a body first (ODE's world space offers a moving geom before a static one), else scene order.
        if (a.body is None) != (b.body is None):
            return (a, b) if a.body is not None else (b, a)
        return (a, b) if a.geom_id < b.geom_id else (b, a)

    def _offer_pairs(self, probe: mujoco.MjData, collide: Callable[[Geom, Geom], int], handled: list[int]) -> None:
        geom_of = self.scene.geom_of
        geoms = probe.contact.geom[: probe.ncon]
        _, first = np.unique(self._probe_keys, return_index=True)
        tops: dict[tuple[int, int], tuple[Geom, Geom, list[tuple[Primitive, Primitive]]]] = {}
        pairs = geoms[np.sort(first)]  # each geom pair once, in MuJoCo's order
        for g1, g2 in zip(pairs[:, 0].tolist(), pairs[:, 1].tolist()):
            a, b = geom_of[g1], geom_of[g2]
            if a is None or b is None:
                continue
            a, b = self._pair_order(a, b)
            top_a, top_b = a.top, b.top
            entry = tops.get((id(top_a), id(top_b)))
            if entry is None:
                entry = tops[(id(top_a), id(top_b))] = (top_a, top_b, [])
            entry[2].append((a, b))
        for top_a, top_b, leaves in tops.values():
            self._dispatch(top_a, top_b, leaves, collide, handled)

    def _key(self, a: int, b: int) -> int:
        return min(a, b) * self.scene.model.ngeom + max(a, b)

    def _dispatch(self, a: Geom, b: Geom, leaves: list[tuple[Primitive, Primitive]],
                  collide: Callable[[Geom, Geom], int], handled: list[int]) -> None:
        result = collide(a, b)
        spaces = a.is_space() or b.is_space()
        if result in HANDLED or (result != 0 and spaces):
            # Any other non-zero value neither recurses into a space nor makes contacts for it (Webots'
            # odeNearCallback returns for spaces after the plugin); for two plain geoms it means default.
            handled.extend(self._key(x.geom_id, y.geom_id) for x, y in leaves)
            return
        if result != 0 or not spaces:
            return  # default contacts
        inner: dict[tuple[int, int], tuple[Geom, Geom, list[tuple[Primitive, Primitive]]]] = {}
        for x, y in leaves:
            child_a = _child_holding(a, x) if a.is_space() else a
            child_b = _child_holding(b, y) if b.is_space() else b
            entry = inner.setdefault((id(child_a), id(child_b)), (child_a, child_b, []))
            entry[2].append((x, y))
        for child_a, child_b, pairs in inner.values():
            self._dispatch(child_a, child_b, pairs, collide, handled)

    def _offer_rays(self, collide: Callable[[Geom, Geom], int]) -> None:
        scene = self.scene
        model, data = scene.model, self._probe
        centres = data.geom_xpos
        radius = model.geom_rbound
        for ray in list(self.rays):
            if ray.space is None:
                continue
            # Geoms whose bounding sphere meets the segment (planes: rbound 0, always tried).
            offset = centres - ray.start
            along = np.clip(offset @ ray.direction, 0.0, ray.length)
            gap = np.linalg.norm(offset - along[:, None] * ray.direction, axis=1)
            candidates = np.flatnonzero((gap <= radius) | (radius == 0))
            hits: dict[int, tuple[Geom, list[Primitive]]] = {}
            for g in candidates.tolist():
                leaf = scene.geom_of[g]
                if leaf is None or ray.hit(leaf) is None:
                    continue
                hits.setdefault(id(leaf.top), (leaf.top, []))[1].append(leaf)
            for top, leaves in hits.values():
                self._dispatch_ray(ray, top, leaves, collide)

    def _dispatch_ray(self, ray: Ray, target: Geom, leaves: list[Primitive],
                      collide: Callable[[Geom, Geom], int]) -> None:
        if collide(ray, target) == 0 and target.is_space():
            by_child: dict[int, tuple[Geom, list[Primitive]]] = {}
            for leaf in leaves:
                child = _child_holding(target, leaf)
                by_child.setdefault(id(child), (child, []))[1].append(leaf)
            for child, inner in by_child.values():
                self._dispatch_ray(ray, child, inner, collide)

    # -- dCollide ----------------------------------------------------------------------------------------------
    def dcollide(self, o1: Geom, o2: Geom, max_contacts: int) -> list[dContactGeom]:
        """ODE's ``dCollide``: up to ``max_contacts`` contact points between ``o1`` and ``o2``, the normal
        pointing from ``o2`` towards ``o1`` (moving ``o1`` along it by ``depth`` separates them)."""
        if max_contacts <= 0:
            return []
        if isinstance(o1, Ray) or isinstance(o2, Ray):
            return self._ray_contacts(o1, o2)[:max_contacts]
        probe = self.probe()
        model = self.scene.model
        found: list[dContactGeom] = []
        for la in o1.leaves():
            for lb in o2.leaves():
                types = (int(model.geom_type[la.geom_id]), int(model.geom_type[lb.geom_id]))
                if types in _PLANE_CYLINDER:
                    found.extend(self._cylinder_plane(probe, la, lb, o1, o2))
                elif (indices := self._contacts_of_pair().get(self._key(la.geom_id, lb.geom_id))) is not None:
                    for i in indices:
                        contact = probe.contact[i]
                        if contact.dist > 0.0:  # near, not touching: ODE's dCollide reports no point
                            continue
                        normal = np.asarray(contact.frame[:3])
                        # MuJoCo's normal points from geom[0] to geom[1]; ODE's from o2 to o1.
                        if int(contact.geom[0]) == la.geom_id:
                            normal = -normal
                        found.append(dContactGeom(list(map(float, contact.pos)), list(map(float, normal)),
                                                  -float(contact.dist), o1, o2))
                else:
                    fromto = np.zeros(6)
                    # distmax > 0: mj_geomDistance returns distmax itself for pairs further apart than it.
                    distance = mujoco.mj_geomDistance(model, probe, la.geom_id, lb.geom_id, 1.0, fromto)
                    if distance <= 0.0:
                        span = fromto[3:] - fromto[:3]
                        length = float(np.linalg.norm(span))
                        # For an overlap the segment runs from o1's surface into o2's: o1 separates against it.
                        normal = -span / length if length > 0 else np.array([0.0, 0.0, 1.0])
                        pos = 0.5 * (fromto[:3] + fromto[3:])
                        found.append(dContactGeom(list(map(float, pos)), list(map(float, normal)), -distance, o1, o2))
                if len(found) >= max_contacts:
                    return found[:max_contacts]
        return found

    def _cylinder_plane(self, probe: mujoco.MjData, la: Primitive, lb: Primitive, o1: Geom,
                        o2: Geom) -> list[dContactGeom]:
        """The touching points of a cylinder and a plane (see :mod:`wbsim.plugins.cylinder_plane`)."""
        model = self.scene.model
        plane, cylinder = (la, lb) if int(model.geom_type[la.geom_id]) == _PLANE else (lb, la)
        up = probe.geom_xmat[plane.geom_id].reshape(3, 3)[:, 2].copy()
        radius, half_height = (float(v) for v in model.geom_size[cylinder.geom_id][:2])
        points, dist = cylinder_plane_points(probe.geom_xpos[cylinder.geom_id],
                                             probe.geom_xmat[cylinder.geom_id].reshape(3, 3), radius, half_height,
                                             probe.geom_xpos[plane.geom_id], up)
        # ODE's normal points from o2 to o1: up if the cylinder is o1's, down if the plane is.
        normal = up if cylinder is la else -up
        return [dContactGeom(list(map(float, point - 0.5 * d * up)), list(map(float, normal)), -float(d), o1, o2)
                for point, d in zip(points, dist.tolist()) if d <= 0.0]

    def _ray_contacts(self, o1: Geom, o2: Geom) -> list[dContactGeom]:
        ray, other, ray_first = (o1, o2, True) if isinstance(o1, Ray) else (o2, o1, False)
        assert isinstance(ray, Ray)
        self.probe()
        best: tuple[float, np.ndarray] | None = None
        for leaf in other.leaves():
            hit = ray.hit(leaf)
            if hit is not None and (best is None or hit[0] < best[0]):
                best = hit
        if best is None:
            return []
        distance, normal = best
        pos = ray.start + distance * ray.direction
        # ODE: the surface normal of the geom hit, oriented to separate o1 from o2.
        oriented = normal if not ray_first else -normal
        return [dContactGeom(list(map(float, pos)), list(map(float, oriented)), distance, o1, o2)]

    # -- the physics of a basic step ----------------------------------------------------------------------------
    def active_joints(self) -> list[ContactJoint]:
        """The attached contact joints that act in the coming basic step."""
        joints = [j for j in (*self.group.joints, *self.persistent.joints)
                  if j.attached and j.steps > 0 and (j.body1 is not None or j.body2 is not None)]
        return joints

    def prepare_step(self) -> bool:
        """Before the physics of a basic step: turn the active contact joints into MuJoCo contacts.

        Returns:
            True if the MuJoCo steps must be split (suppressed pairs or contact joints).
        """
        if not (self.group.joints or self.persistent.joints):  # the usual case: nothing to inject
            self._injected = self._empty
            return bool(len(self._handled))
        joints = self.active_joints()
        self._injected = self._build_injected(joints) if joints else self._empty
        for joint in joints:
            joint.steps -= 1
        return bool(len(self._handled) or self._injected.contacts)

    def _build_injected(self, joints: list[ContactJoint]) -> _Injected:
        scene = self.scene
        model, data = scene.model, scene.data
        scene.refresh()
        rows: dict[str, list] = {k: [] for k in ("contacts", "body1", "body2", "local1", "local2", "start1",
                                                 "start2", "normal", "dist0")}
        for joint in joints:
            body1, body2 = joint.body1, joint.body2
            geom1 = self._geom_for(body1, joint.contact.geom.g1, joint.contact.geom.g2)  # type: ignore[arg-type]
            geom2 = self._geom_for(body2, joint.contact.geom.g2, joint.contact.geom.g1)  # type: ignore[arg-type]
            if geom1 < 0 or geom2 < 0 or geom1 == geom2:
                continue
            contact = joint.contact
            normal = np.asarray(contact.geom.normal, dtype=float)
            norm = float(np.linalg.norm(normal))
            if norm == 0.0:
                continue
            normal = normal / norm
            pos = np.asarray(contact.geom.pos, dtype=float)
            for name, body in (("1", body1), ("2", body2)):
                mj_body = body.root if body is not None else -1  # type: ignore[union-attr]
                rows["body" + name].append(mj_body)
                if mj_body >= 0:
                    rot = data.xmat[mj_body].reshape(3, 3)
                    rows["local" + name].append(rot.T @ (pos - data.xpos[mj_body]))
                else:
                    rows["local" + name].append(pos.copy())
                rows["start" + name].append(pos.copy())
            rows["normal"].append(normal)
            rows["dist0"].append(-float(contact.geom.depth))
            rows["contacts"].append(self._mujoco_contact(contact, geom1, geom2, normal))
        if not rows["contacts"]:
            return _Injected()
        return _Injected(rows["contacts"], np.array(rows["body1"], dtype=np.int64),
                         np.array(rows["body2"], dtype=np.int64), np.array(rows["local1"]),
                         np.array(rows["local2"]), np.array(rows["start1"]), np.array(rows["start2"]),
                         np.array(rows["normal"]), np.array(rows["dist0"]))

    def _geom_for(self, body: Body | None, own: object, other: object) -> int:
        """A MuJoCo geom on ``body`` for an injected contact: the contact's own geom if it is on that body."""
        for candidate in (own, other):
            if isinstance(candidate, Geom):
                for leaf in candidate.leaves():
                    if leaf.body is body:
                        return leaf.geom_id
        return self.scene.representative_geom(body)

    def _mujoco_contact(self, contact: dContact, geom1: int, geom2: int, normal: np.ndarray) -> mujoco.MjContact:
        """A MuJoCo contact pushing geom1's body along ``normal`` (it is MuJoCo's geom[1]) and geom2's against."""
        surface = contact.surface
        mode = surface.mode
        mu = surface.mu
        mu2 = surface.mu2 if mode & dContactMu2 else mu
        params = ode_surface_params(mu, mu2, surface.bounce if mode & dContactBounce else 0.0,
                                    surface.soft_erp if mode & dContactSoftERP else self._erp,
                                    surface.soft_cfm if mode & dContactSoftCFM else self._cfm,
                                    float(self.scene.model.opt.timestep))
        tangent = np.asarray(contact.fdir1, dtype=float) if mode & dContactFDir1 else np.zeros(3)
        tangent = tangent - (tangent @ normal) * normal
        if float(np.linalg.norm(tangent)) < 1e-9:
            helper = np.array([1.0, 0.0, 0.0]) if abs(normal[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
            tangent = np.cross(normal, helper)
        tangent /= np.linalg.norm(tangent)
        c = mujoco.MjContact()
        c.geom = [geom2, geom1]
        c.geom1, c.geom2 = geom2, geom1
        c.flex = [-1, -1]
        c.elem = [-1, -1]
        c.vert = [-1, -1]
        c.frame = [*normal, *tangent, *np.cross(normal, tangent)]
        frictionless = params.friction[0] == 0.0 and params.friction[1] == 0.0
        c.dim = 1 if frictionless else 3
        c.friction = list(params.friction)
        c.solref = list(params.solref)
        c.solreffriction = [0.0, 0.0]
        c.solimp = list(params.solimp)
        c.includemargin = 0.0
        c.exclude = 0
        c.pos = list(contact.geom.pos)
        c.dist = -float(contact.geom.depth)
        return c

    def split_step(self, model: mujoco.MjModel, data: mujoco.MjData,
                   edit: Callable[[mujoco.MjModel, mujoco.MjData], None] | None = None,
                   bounce: BounceThreshold | None = None) -> None:
        """One MuJoCo step with the suppressed pairs removed and the contact joints added; ``bounce`` first
        gives MuJoCo's own slow contacts their resting solref (the contact joints keep their own surfaces),
        ``edit`` then sees the final contacts and constraints (before the solver)."""
        mujoco.mj_step1(model, data)
        # It edits the contacts' solref and their constraint rows: rebuilding the constraints below keeps it.
        rested = bounce.edit(model, data) if bounce is not None else False
        edited = False
        if len(self._handled) and data.ncon:
            geoms = data.contact.geom[: data.ncon]
            keep = np.flatnonzero(~np.isin(self._keys(geoms[:, 0], geoms[:, 1]), self._handled))
            if len(keep) != data.ncon:
                for name in self._fields:
                    values = getattr(data.contact, name)
                    values[: len(keep)] = values[keep]
                data.ncon = len(keep)
                edited = True
        own = data.ncon  # MuJoCo's kept contacts come first, the contact joints after them
        injected = self._injected
        if injected.contacts:
            edited = self._inject(model, data) or edited
        if edited:
            mujoco.mj_makeConstraint(model, data)
            mujoco.mj_island(model, data)
            mujoco.mj_projectConstraint(model, data)
            mujoco.mj_referenceConstraint(model, data)  # also recomputes efc_vel for the new rows
            if rested and bounce is not None:
                # The rebuilt rows took their K and B from the contacts' solref, which keeps the resting
                # normal rows but not a sticking contact's resting friction damping: edit MuJoCo's own
                # contacts again (same velocities, same choices), never the contact joints.
                total, data.ncon = data.ncon, own
                try:
                    bounce.edit(model, data)
                finally:
                    data.ncon = total
                mujoco.mj_referenceConstraint(model, data)
        elif rested:
            mujoco.mj_referenceConstraint(model, data)
        if edit is not None:
            edit(model, data)
        mujoco.mj_step2(model, data)
        if self._wake:
            data.qfrc_applied[self._wake] -= _WAKE
            self._wake = []

    def _inject(self, model: mujoco.MjModel, data: mujoco.MjData) -> bool:
        injected = self._injected
        p1 = self._points(data, injected.body1, injected.local1)
        p2 = self._points(data, injected.body2, injected.local2)
        moved = (p1 - injected.start1) - (p2 - injected.start2)
        dist = injected.dist0 + (injected.normal * moved).sum(axis=1)
        middle = 0.5 * (p1 + p2)
        awake = data.body_awake
        added = False
        wake: set[int] = set()
        for i, contact in enumerate(injected.contacts):
            asleep = [b for b in (int(model.geom_bodyid[contact.geom[0]]), int(model.geom_bodyid[contact.geom[1]]))
                      if awake[b] == 0]
            if asleep:
                # MuJoCo refuses contacts with sleeping geoms: wake them for the next MuJoCo step.
                wake.update(int(model.tree_dofadr[model.body_treeid[b]]) for b in asleep)
                continue
            contact.dist = float(dist[i])
            contact.pos = middle[i].tolist()
            if mujoco.mj_addContact(model, data, contact) == 0:
                added = True
        if wake:
            self._wake = sorted(wake)
            data.qfrc_applied[self._wake] += _WAKE
        return added

    @staticmethod
    def _points(data: mujoco.MjData, bodies: np.ndarray, local: np.ndarray) -> np.ndarray:
        points = local.copy()
        moving = np.flatnonzero(bodies >= 0)
        if len(moving):
            b = bodies[moving]
            points[moving] = data.xpos[b] + np.einsum("nij,nj->ni", data.xmat[b].reshape(-1, 3, 3), local[moving])
        return points

    def end_step(self) -> None:
        """After the physics of a basic step: drop the injected contacts and expired joints."""
        self._injected = self._empty
        for group in (self.group, self.persistent):
            if group.joints:
                group.joints[:] = [j for j in group.joints if j.steps > 0]

    def clear(self) -> None:
        """Forget every contact joint, suppressed pair and ray collision state (a reset)."""
        for group in (self.group, self.persistent):
            group.joints.clear()
        self._handled = np.zeros(0, dtype=np.int64)
        self._injected = _Injected()
        self._probe_at = None
        self._wake = []


_WAKE = 1e-300
"""A generalised force too small to change any result, applied for one MuJoCo step to wake a tree that an
injected contact needs (MuJoCo refuses contacts with sleeping geoms)."""


def _child_holding(space: Geom, leaf: Primitive) -> Geom:
    """The direct child of ``space`` that holds ``leaf``."""
    node: Geom = leaf
    while node.parent is not None and node.parent is not space:
        node = node.parent
    return node


def _copy_contact(contact: dContact) -> dContact:
    surface = contact.surface
    geom = contact.geom
    copy = dContact()
    copy.surface = type(surface)(**vars(surface))
    copy.geom = dContactGeom(list(geom.pos), list(geom.normal), float(geom.depth), geom.g1, geom.g2, geom.side1,
                             geom.side2)
    copy.fdir1 = list(contact.fdir1)
    return copy
