"""Core supervisor operations on nodes: poses, velocities and field values backed by the live state.

Conventions follow Webots: positions and orientations are of the node's own frame in world coordinates
(orientation as a row-major 3x3 matrix); velocities are ``[vx, vy, vz, wx, wy, wz]`` in the world frame,
of the centre of mass of the rigid body the Solid belongs to. A Solid's ``translation`` and
``rotation`` fields read the current pose relative to its parent frame; writing them moves the body
(velocities are kept, as Webots does for supervisor moves). A frame-only Solid (no body of its own, see
``BodyPlan.frame_only``) is a site on its enclosing body: moving it moves the site and its boundingObject
geoms within that body.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

import mujoco
import numpy as np

from wbsim.compile.bindings import JointBinding, SolidBinding
from wbsim.compile.frames import Frame, axis_angle_from_quat, matrix_to_quat, quat_from_axis_angle, quat_to_matrix
from wbsim.compile.loops import closing_joint_ids
from wbsim.world.model import WbNode

if TYPE_CHECKING:
    from wbsim.sim.simulation import Simulation

__all__ = ["Supervision", "find_def_supervisor"]


def find_def_supervisor(roots: tuple[WbNode, ...], dotted: str) -> WbNode | None:
    """Webots' ``wb_supervisor_node_get_from_def``: the first segment anywhere, each next one a direct sub-node.

    The first DEF name is searched depth first through every node field; each following segment must be
    the DEF name of a node held directly in a field of the previous one. PROTO-internal nodes are hidden.
    """
    segments = dotted.split(".")
    if not dotted or any(not s for s in segments):
        return None
    found: WbNode | None = None
    for root in roots:
        for node in root.walk():
            if node.def_name == segments[0] and not node.inside_proto:
                found = node
                break
        if found is not None:
            break
    for segment in segments[1:]:
        if found is None:
            return None
        found = next((child for _, _, child in found.child_nodes()
                      if child.def_name == segment and not child.inside_proto), None)
    return found


class Supervision:
    """Pose, velocity and field access for one simulation.

    Args:
        sim: the simulation.
    """

    def __init__(self, sim: Simulation) -> None:
        self._sim_ref = weakref.ref(sim)
        model = sim.model
        # Frame between a Solid's parent body and the Solid's own (translation, rotation) frame: the
        # intermediate Pose nodes, or the joint frame for endPoints. Fixed for the whole run.
        self.offsets: dict[WbNode, Frame] = {}
        self.parent_body: dict[WbNode, int] = {}
        # Frame-only Solids: each boundingObject geom's pose in the Solid's frame (fixed), so its geoms follow
        # when a supervisor moves the Solid.
        self._frame_geoms: dict[WbNode, list[tuple[int, Frame]]] = {}
        for binding in sim.bindings.solids:
            node = binding.node
            own = Frame.from_webots(node["translation"], node["rotation"])  # type: ignore[arg-type]
            if binding.site_id >= 0:  # its frame is a site on the enclosing body, which is its parent body
                local = self._site_local(binding.site_id)
                self.offsets[node] = local @ own.inverse()
                self.parent_body[node] = binding.body_id
                self._frame_geoms[node] = [(g, local.inverse() @ self._geom_local(g)) for g in binding.geom_ids]
                continue
            body = binding.body_id
            local = Frame(model.body_pos[body].copy(), quat_to_matrix(model.body_quat[body].copy()))
            self.offsets[node] = local @ own.inverse()
            self.parent_body[node] = int(model.body_parentid[body])
        self._frame_only_initial = self._frame_only_model_rows()
        # A static device may be a mocap body hung from the world (e.g. a TouchSensor on a static parent):
        # its translation/rotation stay relative to its Webots parent, and it follows that parent's moves.
        self._mocaps: list[tuple[WbNode, int, int]] = []  # (node, body, mocap id)
        for binding in sim.bindings.solids:
            mocap = int(model.body_mocapid[binding.body_id])
            if mocap < 0 or binding.site_id >= 0:  # a frame-only Solid on a mocap body is not that body
                continue
            node = binding.node
            ancestor = node.parent
            while ancestor is not None and sim.bindings.solid(ancestor) is None:
                ancestor = ancestor.parent
            parent_body = sim.bindings.solid(ancestor).body_id if ancestor is not None else 0  # type: ignore[union-attr]
            parent_frame = self._static_world_frame(parent_body)
            placed = Frame(model.body_pos[binding.body_id].copy(), quat_to_matrix(model.body_quat[binding.body_id].copy()))
            own = Frame.from_webots(node["translation"], node["rotation"])  # type: ignore[arg-type]
            self.offsets[node] = parent_frame.inverse() @ placed @ own.inverse()
            self.parent_body[node] = parent_body
            self._mocaps.append((node, binding.body_id, mocap))
        self._mocap_rows = {body: i for i, (_, body, _) in enumerate(self._mocaps)}
        self.overrides: dict[tuple[WbNode, str], object] = {}
        self.saved_states: dict[tuple[WbNode, str], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        self.masses_changed = False  # a supervisor wrote a Physics mass (the reset recomputes MuJoCo's constants)
        self.node_ids: dict[WbNode, int] = {}
        self.last_node_id = 0  # the last id handed out (ids of removed nodes are never handed out again)
        self.wrenches: dict[int, np.ndarray] = {}
        self._fresh_at: int | None = None
        self.version = 0  # counts edits of the state between steps (caches keyed on it refresh)
        # Moves of static bodies (model poses) and mocap bodies are applied together by `flush_static`,
        # before the next read or physics step: one kinematics pass however many writes.
        self.static_dirty = False
        self._pending_locals: list[Frame] | None = None  # mocap poses relative to their parents, before the moves

    def _site_local(self, site: int) -> Frame:
        """A site's pose in its body, from the model."""
        model = self.sim.model
        return Frame(model.site_pos[site].copy(), quat_to_matrix(model.site_quat[site].copy()))

    def _geom_local(self, geom: int) -> Frame:
        """A geom's pose in its body, from the model."""
        model = self.sim.model
        return Frame(model.geom_pos[geom].copy(), quat_to_matrix(model.geom_quat[geom].copy()))

    def _frame_only_model_rows(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """The model rows that moving frame-only Solids edits (their sites, geoms and the bounding volume
        hierarchies of their bodies), with their values after loading: ``reset`` restores them."""
        model = self.sim.model
        frame_only = [b for b in self.sim.bindings.solids if b.site_id >= 0]
        sites = np.array([b.site_id for b in frame_only], dtype=np.int64)
        geoms = np.array([g for b in frame_only for g in b.geom_ids], dtype=np.int64)
        bodies = sorted({b.body_id for b in frame_only if b.geom_ids})
        nodes = [np.arange(model.body_bvhadr[b], model.body_bvhadr[b] + model.body_bvhnum[b]) for b in bodies]
        bvh = np.concatenate(nodes).astype(np.int64) if nodes else np.zeros(0, dtype=np.int64)
        rows = {"site_pos": sites, "site_quat": sites, "site_sameframe": sites, "geom_pos": geoms, "geom_quat": geoms,
                "geom_sameframe": geoms, "bvh_aabb": bvh}
        return {name: (index, getattr(model, name)[index].copy()) for name, index in rows.items()}

    def _static_world_frame(self, body: int, mocap_frames: dict[int, Frame] | None = None) -> Frame:
        """The world frame of a static body composed from the model's body poses up to the world, or up to a
        mocap body whose frame is given in ``mocap_frames``."""
        model = self.sim.model
        frame = Frame.identity()
        while body > 0:
            if mocap_frames is not None and body in mocap_frames:
                return mocap_frames[body] @ frame
            frame = Frame(model.body_pos[body].copy(), quat_to_matrix(model.body_quat[body].copy())) @ frame
            body = int(model.body_parentid[body])
        return frame

    @property
    def sim(self) -> Simulation:
        """The simulation (held weakly: it owns this object)."""
        sim = self._sim_ref()
        assert sim is not None, "supervision used after its simulation was freed"
        return sim

    def refresh(self) -> None:
        """Recompute poses and velocities from ``qpos``/``qvel`` if the state changed since the last refresh.

        After ``mj_step`` MuJoCo's derived quantities describe the state before the last integration;
        these three functions depend only on ``qpos``/``qvel``, so they cannot change the trajectory.
        """
        if self.static_dirty:
            self.flush_static()
        if self._fresh_at == self.sim.step_count:
            return
        model, data = self.sim.model, self.sim.data
        mujoco.mj_kinematics(model, data)
        mujoco.mj_comPos(model, data)
        mujoco.mj_comVel(model, data)
        self._fresh_at = self.sim.step_count

    def invalidate(self) -> None:
        """Mark derived quantities stale (after ``qpos``/``qvel``/model pose edits)."""
        self._fresh_at = None
        self.version += 1

    def reset(self) -> None:
        """Forget field values, pending forces and pending moves written by supervisors; frame-only Solids
        go back to their loaded poses (the simulation restores the body poses)."""
        model = self.sim.model
        for name, (index, values) in self._frame_only_initial.items():
            getattr(model, name)[index] = values
        self.overrides.clear()
        self.wrenches.clear()
        self.masses_changed = False
        self.static_dirty = False
        self._pending_locals = None
        self.invalidate()

    # -- one-step forces -----------------------------------------------------------------------------
    def add_wrench(self, binding: SolidBinding, vector: np.ndarray, torque: bool) -> None:
        """Queue a world-frame force (at the Solid's centre of mass) or torque for the next step only."""
        body = binding.body_id
        wrench = self.wrenches.setdefault(body, np.zeros(6))
        if torque:
            wrench[3:] += vector
        else:
            wrench[:3] += vector
            # xfrc_applied acts at the body's centre of mass, which is where Webots applies addForce.

    def apply_wrenches(self) -> None:
        """Write queued forces into ``xfrc_applied`` before the physics step."""
        for body, wrench in self.wrenches.items():
            self.sim.data.xfrc_applied[body] += wrench

    def clear_wrenches(self) -> None:
        """Remove the queued forces after the physics step (they last one basic step, as in Webots)."""
        for body, wrench in self.wrenches.items():
            self.sim.data.xfrc_applied[body] -= wrench
        self.wrenches.clear()

    # -- poses -------------------------------------------------------------------------------------------
    def _body_frame(self, body: int) -> Frame:
        self.refresh()
        data = self.sim.data
        return Frame(data.xpos[body].copy(), data.xmat[body].reshape(3, 3).copy())

    def _solid_frame(self, binding: SolidBinding) -> Frame:
        """The world frame of a Solid: its body's, or its site's for a frame-only Solid."""
        if binding.site_id < 0:
            return self._body_frame(binding.body_id)
        self.refresh()
        data = self.sim.data
        return Frame(data.site_xpos[binding.site_id].copy(), data.site_xmat[binding.site_id].reshape(3, 3).copy())

    def world_frame(self, node: WbNode) -> Frame | None:
        """The world frame of a Pose-derived node (Solid, Pose, Transform), or None for other nodes."""
        binding = self.sim.bindings.solid(node)
        if binding is not None:
            return self._solid_frame(binding)
        if node.type_name not in ("Pose", "Transform") or node.parent is None:
            return None
        chain: list[WbNode] = []
        current: WbNode | None = node
        while current is not None and self.sim.bindings.solid(current) is None:
            if not current.is_a("group") and not current.is_a("joint"):
                return None
            chain.append(current)
            current = current.parent
        base = self._solid_frame(self.sim.bindings.solid(current)) if current is not None else Frame.identity()  # type: ignore[arg-type]
        for item in reversed(chain):
            if item.type_name in ("Pose", "Transform"):
                base = base @ Frame.from_webots(item["translation"], item["rotation"])  # type: ignore[arg-type]
        return base

    def local_pose(self, binding: SolidBinding) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]:
        """The current ``translation`` and axis-angle ``rotation`` of a Solid relative to its parent frame."""
        local = self._local_frame(binding)
        return tuple(float(v) for v in local.pos), axis_angle_from_quat(matrix_to_quat(local.rot))  # type: ignore[return-value]

    def _local_frame(self, binding: SolidBinding) -> Frame:
        node = binding.node
        model = self.sim.model
        if binding.site_id >= 0:
            # The site is fixed on the body of the Solid's Webots parent (no Solid sits between them), so its
            # model pose gives the local pose exactly, without kinematics, whether that body moves or not.
            return self.offsets[node].inverse() @ self._site_local(binding.site_id)
        body = binding.body_id
        mocap = int(model.body_mocapid[body])
        if mocap >= 0:  # from the mocap pose (or the pending move), without kinematics
            if self._pending_locals is not None:
                return self._pending_locals[self._mocap_rows[body]]
            frames = self._mocap_frames()
            parent = self._static_world_frame(self.parent_body[node], frames) @ self.offsets[node]
            return parent.inverse() @ frames[body]
        if not binding.dynamic:  # a static body: its model pose (kept up to date by supervisor moves)
            placed = Frame(model.body_pos[body].copy(), quat_to_matrix(model.body_quat[body].copy()))
            return self.offsets[node].inverse() @ placed
        parent = self._body_frame(self.parent_body[node]) @ self.offsets[node]
        return parent.inverse() @ self._body_frame(body)

    def set_local_pose(self, binding: SolidBinding, translation: tuple[float, ...] | None,
                       rotation: tuple[float, ...] | None) -> None:
        """Move a Solid to a new ``translation`` and/or ``rotation`` relative to its parent frame."""
        current_t, current_r = self.local_pose(binding)
        t = np.asarray(translation if translation is not None else current_t, dtype=float)
        r = rotation if rotation is not None else current_r
        node = binding.node
        model, data = self.sim.model, self.sim.data
        new_local = Frame(t, quat_to_matrix(quat_from_axis_angle(r)))
        mocap = int(model.body_mocapid[binding.body_id])
        if binding.site_id >= 0:
            self._move_frame_only(binding, self.offsets[node] @ new_local)
        elif binding.free_joint_id >= 0:
            world = self._body_frame(self.parent_body[node]) @ self.offsets[node] @ new_local
            adr = model.jnt_qposadr[binding.free_joint_id]
            data.qpos[adr : adr + 3] = world.pos
            data.qpos[adr + 3 : adr + 7] = world.quat
        elif mocap >= 0:  # a static device hung from the world (e.g. a TouchSensor): posed at the next flush
            self._begin_static_change()[self._mocap_rows[binding.body_id]] = new_local
        else:
            self._begin_static_change()
            body_local = self.offsets[node] @ new_local
            model.body_pos[binding.body_id] = body_local.pos
            model.body_quat[binding.body_id] = body_local.quat
        self.invalidate()

    def _move_frame_only(self, binding: SolidBinding, placed: Frame) -> None:
        """Place a frame-only Solid at ``placed`` in its enclosing body: its site and its geoms.

        These are model poses, so the move is applied like a static body's (``flush_static``: kinematics with
        sleeping off, which also places them on a static or sleeping body). MuJoCo copies the body's pose to
        a site or geom compiled at the body's origin (``*_sameframe``), and culls contacts with bounding
        boxes of each body's geoms computed at compilation: both are updated.
        """
        self._begin_static_change()
        model = self.sim.model
        model.site_pos[binding.site_id] = placed.pos
        model.site_quat[binding.site_id] = placed.quat
        model.site_sameframe[binding.site_id] = mujoco.mjtSameFrame.mjSAMEFRAME_NONE
        geoms = self._frame_geoms[binding.node]
        for geom, relative in geoms:
            pose = placed @ relative
            model.geom_pos[geom] = pose.pos
            model.geom_quat[geom] = pose.quat
            model.geom_sameframe[geom] = mujoco.mjtSameFrame.mjSAMEFRAME_NONE
        if geoms:
            _refit_bvh(model, binding.body_id, {geom for geom, _ in geoms})

    def _mocap_frames(self) -> dict[int, Frame]:
        """The current world frame of every mocap body, by body id (from ``mocap_pos``/``mocap_quat``)."""
        data = self.sim.data
        return {body: Frame(data.mocap_pos[m].copy(), quat_to_matrix(data.mocap_quat[m].copy()))
                for _, body, m in self._mocaps}

    def _begin_static_change(self) -> list[Frame]:
        """Record, before the first of a series of static moves, where each mocap body sits relative to its
        Webots parent (they keep those poses as their parents move); returns that record."""
        if self._pending_locals is None:
            frames = self._mocap_frames()
            self._pending_locals = [
                (self._static_world_frame(self.parent_body[node], frames) @ self.offsets[node]).inverse() @ frames[body]
                for node, body, _ in self._mocaps
            ]
        self.static_dirty = True
        return self._pending_locals

    def flush_static(self) -> None:
        """Apply the pending moves of static and mocap bodies: place every mocap body at its parent frame @
        offset @ its recorded pose (parents first, in scene order), then recompute the body poses.

        With sleeping enabled, MuJoCo computes the poses of static bodies once and never again; one pass of
        kinematics with sleeping off places them (it also wakes the sleeping trees, as Webots wakes the
        world when a static Solid moves). Called before the next read of poses and before the next physics
        step.
        """
        if not self.static_dirty:
            return
        model, data = self.sim.model, self.sim.data
        placed: dict[int, Frame] = {}
        for (node, body, mocap), local in zip(self._mocaps, self._pending_locals or ()):
            world = self._static_world_frame(self.parent_body[node], placed) @ self.offsets[node] @ local
            data.mocap_pos[mocap] = world.pos
            data.mocap_quat[mocap] = world.quat
            placed[body] = world
        self.static_dirty = False
        self._pending_locals = None
        flags = model.opt.enableflags
        model.opt.enableflags = flags & ~int(mujoco.mjtEnableBit.mjENBL_SLEEP)
        try:
            mujoco.mj_kinematics(model, data)
        finally:
            model.opt.enableflags = flags
        self.invalidate()

    # -- velocities ------------------------------------------------------------------------------------
    def velocity(self, binding: SolidBinding) -> list[float]:
        """``[vx, vy, vz, wx, wy, wz]`` of the centre of mass of the Solid's rigid body, world frame."""
        if not binding.dynamic or binding.owner_body_id <= 0:
            return [0.0] * 6
        self.refresh()
        result = np.zeros(6)
        mujoco.mj_objectVelocity(self.sim.model, self.sim.data, mujoco.mjtObj.mjOBJ_BODY, binding.owner_body_id,
                                 result, 0)
        return [*map(float, result[3:]), *map(float, result[:3])]

    def set_velocity(self, binding: SolidBinding, velocity: list[float]) -> bool:
        """Set the COM linear and angular velocity (world frame) of a free Solid; False if it has no free body."""
        if binding.free_joint_id < 0:
            return False
        self.refresh()
        model, data = self.sim.model, self.sim.data
        body = binding.body_id
        linear, angular = np.asarray(velocity[:3], float), np.asarray(velocity[3:6], float)
        offset = data.xipos[body] - data.xpos[body]
        dof = model.jnt_dofadr[binding.free_joint_id]
        # MuJoCo's free joint velocity is that of the body origin (world frame) and angular in body axes.
        data.qvel[dof : dof + 3] = linear - np.cross(angular, offset)
        data.qvel[dof + 3 : dof + 6] = data.xmat[body].reshape(3, 3).T @ angular
        self.invalidate()
        return True

    def reset_node_physics(self, binding: SolidBinding) -> None:
        """Webots' ``Node.resetPhysics``: zero the velocities of the Solid's body and of every body below it
        (joint endPoints included) and the commanded velocities of their motors; poses are kept."""
        model, data = self.sim.model, self.sim.data
        root = binding.body_id
        if root <= 0 or binding.site_id >= 0:  # a frame-only Solid has no body and no Solid below: nothing to do
            return
        # A Hinge2Joint's endPoint hangs from the joint's intermediate body (no Solid's): it stops with the
        # endPoint, so that both axes (and the suspension) stop, as the endPoint's own joint does for a HingeJoint.
        solid_bodies = {b.body_id for b in self.sim.bindings.solids}
        while int(model.body_parentid[root]) > 0 and int(model.body_parentid[root]) not in solid_bodies:
            root = int(model.body_parentid[root])
        below = np.zeros(model.nbody, dtype=bool)
        below[root] = True
        parents = model.body_parentid
        for body in range(root + 1, model.nbody):  # MuJoCo numbers children after their parents
            below[body] = below[parents[body]]
        dofs = np.flatnonzero(below[model.dof_bodyid])
        data.qvel[dofs] = 0.0
        data.qacc_warmstart[dofs] = 0.0
        for bank in self.sim.banks.values():
            bank.reset_physics(dofs)
        self.invalidate()

    def _subtree_dofs(self, binding: SolidBinding) -> tuple[np.ndarray, np.ndarray]:
        """The ``qpos`` and ``qvel`` indices of the joints of the Solid's body and of every body below it."""
        model = self.sim.model
        root = binding.body_id
        if root <= 0 or binding.site_id >= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        below = np.zeros(model.nbody, dtype=bool)
        below[root] = True
        parents = model.body_parentid
        for body in range(root + 1, model.nbody):  # MuJoCo numbers children after their parents
            below[body] = below[parents[body]]
        joints = np.flatnonzero(below[model.jnt_bodyid])
        sizes = {int(mujoco.mjtJoint.mjJNT_FREE): 7, int(mujoco.mjtJoint.mjJNT_BALL): 4}
        qpos = [np.arange(model.jnt_qposadr[j], model.jnt_qposadr[j] + sizes.get(int(model.jnt_type[j]), 1))
                for j in joints]
        qpos_rows = np.concatenate(qpos) if qpos else np.zeros(0, dtype=np.int64)
        return qpos_rows, np.flatnonzero(below[model.dof_bodyid])

    def save_state(self, binding: SolidBinding, name: str) -> None:
        """Webots' ``Node.saveState``: remember the positions and velocities of the Solid and everything below it
        under ``name`` (kept across world resets, as Webots keeps them while the world is loaded)."""
        qpos_rows, dofs = self._subtree_dofs(binding)
        data = self.sim.data
        self.saved_states[(binding.node, name)] = (qpos_rows, data.qpos[qpos_rows].copy(), dofs,
                                                   data.qvel[dofs].copy())

    def load_state(self, binding: SolidBinding, name: str) -> bool:
        """Webots' ``Node.loadState``: put back what :meth:`save_state` saved under ``name``; False if nothing."""
        saved = self.saved_states.get((binding.node, name))
        if saved is None:
            return False
        qpos_rows, qpos, dofs, qvel = saved
        data = self.sim.data
        data.qpos[qpos_rows] = qpos
        data.qvel[dofs] = qvel
        data.qacc_warmstart[dofs] = 0.0
        self.invalidate()
        return True

    def reset_physics(self) -> None:
        """Webots' simulationResetPhysics: all velocities and applied forces to zero, poses kept."""
        data = self.sim.data
        data.qvel[:] = 0.0
        data.qacc_warmstart[:] = 0.0
        data.qfrc_applied[:] = 0.0
        data.xfrc_applied[:] = 0.0
        for bank in self.sim.banks.values():
            bank.reset_physics(None)
        self.invalidate()

    # -- fields --------------------------------------------------------------------------------------------
    def field_value(self, node: WbNode, name: str) -> object:
        """The current value of a field (live pose for Solid translation/rotation, live joint position)."""
        binding = self.sim.bindings.solid(node)
        if binding is not None and name in ("translation", "rotation"):
            translation, rotation = self.local_pose(binding)
            return translation if name == "translation" else rotation
        device = self.sim.device_rows.get(node)
        if device is not None:
            live = device[0].field_value(device[1], name)
            if live is not None:
                return live
        if (node, name) in self.overrides:
            return self.overrides[(node, name)]
        if name in ("position", "position2"):
            live = self._joint_position(node, name)
            if live is not None:
                return live
        if node.proto_name is not None and name in node.proto_fields:
            return node.proto_fields[name]
        return node.fields[name]

    def _joint_position(self, node: WbNode, name: str) -> float | None:
        # Webots writes the joint position into JointParameters.position (or the joint's hidden position field
        # when it has no jointParameters) after every physics step.
        binding = self._position_field_joint(node, name)
        return float(self.sim.data.qpos[binding.qpos_adr]) if binding is not None else None

    def _position_field_joint(self, node: WbNode, name: str) -> JointBinding | None:
        """The (moving, non-ball) joint whose position the field ``name`` of ``node`` holds: ``position`` of a
        joint's JointParameters, or the joint's hidden ``position`` when it has none; a Hinge2Joint's second
        axis uses ``jointParameters2`` and the hidden ``position2``."""
        joint = node if node.is_a("joint") else node.parent
        if joint is None or not joint.is_a("joint"):
            return None
        if joint is node:
            axis_index = 2 if name == "position2" else 1
        elif name != "position":
            return None
        else:
            axis_index = 2 if node.parent_field == "jointParameters2" else 1
        params_field = "jointParameters2" if axis_index == 2 else "jointParameters"
        if params_field not in joint.fields or joint[params_field] is not (None if joint is node else node):
            return None
        binding = self.sim.bindings.joint(joint, axis_index)
        if binding is None or binding.qpos_adr < 0 or binding.kind == "ball":
            return None
        return binding

    def _set_mass(self, physics: WbNode, value: object) -> None:
        """A write of a Physics node's ``mass`` (> 0, with ``density -1`` as Webots requires for a given mass):
        the body's mass becomes ``value`` and its inertia scales with it (same shape, so the same mass
        distribution, as Webots recomputes it); MuJoCo's derived constants are recomputed."""
        solid = physics.parent
        binding = self.sim.bindings.solid(solid) if solid is not None else None
        mass = float(value)  # type: ignore[arg-type]
        if binding is None or binding.site_id >= 0 or binding.body_id <= 0 or not mass > 0.0:
            return
        if float(physics["density"]) != -1.0:  # type: ignore[arg-type]
            return
        model = self.sim.model
        body = binding.body_id
        old = float(model.body_mass[body])
        if old > 0.0:
            model.body_inertia[body] *= mass / old
        model.body_mass[body] = mass
        self.sim._recompute_mass_constants()  # noqa: SLF001  (a part may also have become very light, or stopped)
        self.masses_changed = True
        self.invalidate()

    def set_field_value(self, node: WbNode, name: str, value: object) -> None:
        """Write a field: Solid translation/rotation move the body, a joint's ``position`` moves the joint; a
        device's bank applies the fields it supports (``DeviceBank.field_changed``); other fields only store the
        value."""
        binding = self.sim.bindings.solid(node)
        if binding is not None and name == "translation":
            self.set_local_pose(binding, value, None)  # type: ignore[arg-type]
            return
        if (name in ("position", "position2") and (joint := self._position_field_joint(node, name)) is not None
                and joint.joint_id not in closing_joint_ids(self.sim.model)):  # Webots moves no loop-closing joint
            # Webots moves the endPoint to the new joint position and resets its physics; the motor keeps its
            # target (WbJoint::updatePosition).
            self.sim.data.qpos[joint.qpos_adr] = float(value)  # type: ignore[arg-type]
            if joint.end_point is not None:
                self.reset_node_physics(joint.end_point)
            self.invalidate()
            return
        if binding is not None and name == "rotation":
            self.set_local_pose(binding, None, value)  # type: ignore[arg-type]
            return
        if name == "mass" and node.type_name == "Physics":
            self._set_mass(node, value)
        solid = bounding_owner(node)
        if solid is not None and self.sim.bindings.solid(solid) is not None:
            # A boundingObject's geometry (a Box size, a Sphere radius, a Pose inside it): Webots resizes the
            # collision shape and recomputes the Solid's mass from it; wbsim compiles the world again with the
            # state kept (Simulation.replace_bounds_field).
            stored = tuple(value) if isinstance(value, list) else value
            self.sim.replace_bounds_field(node, name, stored, solid)
            return
        device = self.sim.device_rows.get(node)
        if device is not None:
            applied = device[0].field_changed(device[1], name, value)
            if applied is not None:
                value = applied  # the value the device took (Webots writes a repaired value back)
        self.overrides[(node, name)] = value
        for robot in self.sim.robots:
            if robot.node is node and name == "customData":
                robot.custom_data = str(value)


def bounding_owner(node: WbNode) -> WbNode | None:
    """The Solid whose ``boundingObject`` holds ``node`` (the geometry itself or a node above it), or None."""
    above: WbNode | None = node
    while isinstance(above, WbNode):
        if above.parent_field == "boundingObject":
            return above.parent
        above = above.parent
    return None


def _refit_bvh(model: mujoco.MjModel, body: int, moved: set[int]) -> None:
    """Recompute the bounding boxes of ``body``'s bounding volume hierarchy after its geoms ``moved`` moved.

    MuJoCo's midphase culls geom pairs of two multi-geom bodies with these boxes (centre and half sizes in
    the body's inertial frame), computed at compilation: a geom moved out of them would stop colliding.
    The tree is kept; the leaves of the moved geoms get the box of their oriented bounding box, and every
    inner node the box around its children, as MuJoCo computes them.
    """
    start, count = int(model.body_bvhadr[body]), int(model.body_bvhnum[body])
    if start < 0:
        return
    inertial = Frame(model.body_ipos[body].copy(), quat_to_matrix(model.body_iquat[body].copy())).inverse()
    boxes = model.bvh_aabb[start : start + count].copy()
    children = model.bvh_child[start : start + count]  # indices relative to the body's first node

    def fit(node: int) -> None:
        left, right = (int(c) for c in children[node])
        if left < 0 and right < 0:
            geom = int(model.bvh_nodeid[start + node])
            if geom in moved:
                pose = inertial @ Frame(model.geom_pos[geom].copy(), quat_to_matrix(model.geom_quat[geom].copy()))
                aabb = model.geom_aabb[geom]
                boxes[node, :3] = pose.apply(aabb[:3])
                boxes[node, 3:] = np.abs(pose.rot) @ aabb[3:]
            return
        low, high = np.full(3, np.inf), np.full(3, -np.inf)
        for child in (left, right):
            if child >= 0:
                fit(child)
                low = np.minimum(low, boxes[child, :3] - boxes[child, 3:])
                high = np.maximum(high, boxes[child, :3] + boxes[child, 3:])
        boxes[node, :3] = (low + high) / 2.0
        boxes[node, 3:] = (high - low) / 2.0

    fit(0)
    model.bvh_aabb[start : start + count] = boxes
