"""ODE bodies (``dBodyID``) over MuJoCo: one per Webots body merger, i.e. per rigid group of MuJoCo bodies.

Webots gives a plugin the ODE body of a Solid's *body merger*: Solids with Physics joined rigidly share
one ODE body. In wbsim every Solid has its own MuJoCo body (or none, for frame-only devices) and a rigid
group is the set of MuJoCo bodies with the same ``body_weldid`` (the body whose joint moves them). A
:class:`Body` stands for such a group:

- like an ODE body, its origin is the group's centre of mass and its axes are those of the merger
  Solid (the group's root body): ``dBodyGetPosition`` is the centre of mass, ``dBodyGetRotation`` the
  root's orientation, ``dBodyGetRelPointPos`` maps from that frame;
- forces and torques added during a callback accumulate (world frame, torque about the centre of mass)
  and act during the next physics step, as ODE's force accumulators do (see :class:`ForceBuffer`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import mujoco
import numpy as np

from wbsim.plugins.ode_types import dMass

if TYPE_CHECKING:
    from wbsim.plugins.scene import PluginScene

__all__ = ["Body", "ForceBuffer", "cross"]


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The cross product of two 3-vectors (``np.cross`` costs tens of microseconds on single vectors)."""
    return np.array((a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]))


class Body:
    """An ODE body: a rigid group of MuJoCo bodies (``root`` is the group's ``body_weldid``).

    Args:
        scene: the plugin's view of the simulation.
        root: the MuJoCo body whose joint moves the group.
    """

    def __init__(self, scene: PluginScene, root: int) -> None:
        self.scene = scene
        self.root = root
        model = scene.model
        self.members = np.flatnonzero(model.body_weldid == root)
        self.mass = float(model.body_mass[self.members].sum())
        self._single = len(self.members) == 1  # one MuJoCo body: its centre of mass is the group's
        self._weights = model.body_mass[self.members] / self.mass if self.mass > 0 else None
        self.force_offset = 6 * root  # the group's row in ForceBuffer's flattened (nbody, 6) wrench array
        joint = int(model.body_jntadr[root]) if model.body_jntnum[root] else -1
        free = joint >= 0 and int(model.jnt_type[joint]) == int(mujoco.mjtJoint.mjJNT_FREE)
        self.free_dof = int(model.jnt_dofadr[joint]) if free else -1
        self.free_qpos = int(model.jnt_qposadr[joint]) if free else -1

    def __repr__(self) -> str:
        return f"<dBodyID {self.scene.body_name(self.root)}>"

    # -- state --------------------------------------------------------------------------------------
    def com(self) -> np.ndarray:
        """The group's centre of mass, world frame, m, (3,)."""
        data = self.scene.data
        if self._single:
            return data.xipos[self.root].copy()
        if self.mass <= 0.0:
            return data.xpos[self.root].copy()
        return self._weights @ data.xipos[self.members]

    def rotation(self) -> np.ndarray:
        """The body's axes in the world frame (the merger Solid's), (3, 3)."""
        return self.scene.data.xmat[self.root].reshape(3, 3).copy()

    def velocity(self) -> tuple[np.ndarray, np.ndarray]:
        """(linear velocity of the centre of mass, angular velocity), world frame, m/s and rad/s."""
        scene = self.scene
        result = np.zeros(6)
        mujoco.mj_objectVelocity(scene.model, scene.data, mujoco.mjtObj.mjOBJ_BODY, self.root, result, 0)
        angular, at_root_com = result[:3], result[3:]
        offset = self.com() - scene.data.xipos[self.root]
        return at_root_com + cross(angular, offset), angular.copy()

    def inertia(self) -> np.ndarray:
        """The inertia about the centre of mass in the body frame, kg m^2, (3, 3)."""
        model, data = self.scene.model, self.scene.data
        com = self.com()
        total = np.zeros((3, 3))
        for body in self.members.tolist():
            rot = data.ximat[body].reshape(3, 3)
            total += rot @ np.diag(model.body_inertia[body]) @ rot.T
            d = data.xipos[body] - com
            total += model.body_mass[body] * (d @ d * np.eye(3) - np.outer(d, d))
        rot = self.rotation()
        return rot.T @ total @ rot

    def mass_properties(self) -> dMass:
        """ODE's ``dMass`` of the body (centre of mass at its origin, inertia in its frame)."""
        inertia = self.inertia()
        matrix = [0.0] * 12
        for row in range(3):
            matrix[4 * row : 4 * row + 3] = inertia[row].tolist()
        return dMass(self.mass, [0.0, 0.0, 0.0], matrix)

    def set_velocity(self, linear: np.ndarray | None, angular: np.ndarray | None) -> bool:
        """Set the centre-of-mass velocity and/or the angular velocity (world frame) of a free body.

        Returns:
            False if the body is not free (ODE would let its joints correct the change; MuJoCo's joint
            coordinates cannot express it).
        """
        if self.free_dof < 0:
            return False
        scene = self.scene
        data = scene.data
        current_linear, current_angular = self.velocity()
        linear = current_linear if linear is None else np.asarray(linear, dtype=float)
        angular = current_angular if angular is None else np.asarray(angular, dtype=float)
        # MuJoCo's free joint: the velocity of the body origin (world frame), angular velocity in body axes.
        origin = data.xpos[self.root]
        dof = self.free_dof
        data.qvel[dof : dof + 3] = linear - cross(angular, self.com() - origin)
        data.qvel[dof + 3 : dof + 6] = data.xmat[self.root].reshape(3, 3).T @ angular
        scene.changed()
        return True

    def set_pose(self, position: np.ndarray | None, rotation: np.ndarray | None) -> bool:
        """Move a free body: its centre of mass to ``position`` and/or its axes to ``rotation`` (world).

        Returns:
            False if the body is not free.
        """
        if self.free_qpos < 0:
            return False
        scene = self.scene
        data = scene.data
        com_in_root = data.xmat[self.root].reshape(3, 3).T @ (self.com() - data.xpos[self.root])
        rot = self.rotation() if rotation is None else np.asarray(rotation, dtype=float)
        com = self.com() if position is None else np.asarray(position, dtype=float)
        adr = self.free_qpos
        data.qpos[adr : adr + 3] = com - rot @ com_in_root
        quat = np.zeros(4)
        mujoco.mju_mat2Quat(quat, rot.ravel())
        data.qpos[adr + 3 : adr + 7] = quat
        scene.changed()
        return True


class ForceBuffer:
    """Forces and torques plugins add to bodies during a basic step, applied for its physics.

    ODE clears a body's force accumulator after each world step, and Webots runs one world step per
    basic step; wbsim runs several MuJoCo steps per basic step, so what a plugin adds acts for all of
    them, through ``xfrc_applied`` (which acts at each MuJoCo body's centre of mass). Forces and torques
    on a group of rigidly joined MuJoCo bodies accumulate in the row of its root body; when applied, a
    group's force is shared among its members in proportion to their masses: the same total force and no
    torque about the group's centre of mass, i.e. a force at that centre of mass; torques stay at the
    root.

    The accumulator is an ``(nbody, 6)`` array written through a memoryview (a plugin adds forces one
    call at a time, and element access through a memoryview is several times cheaper than through
    numpy); applying (with the sharing) and removing it are a few whole-array operations.

    Args:
        model: the compiled model (its ``body_weldid`` groups and masses).
    """

    def __init__(self, model: mujoco.MjModel) -> None:
        nbody = model.nbody
        self._wrench = np.zeros((nbody, 6))
        self._flat = memoryview(self._wrench.reshape(-1))
        self._dirty = False
        self._saved: np.ndarray | None = None
        # Members of groups of several bodies with a mass, their roots and their shares of the group's force.
        weld, mass = model.body_weldid, model.body_mass
        group_mass = np.bincount(weld, weights=mass, minlength=nbody)
        size = np.bincount(weld, minlength=nbody)
        shared = (size[weld] > 1) & (group_mass[weld] > 0)
        shared &= weld != 0  # the world and the static bodies welded to it take no force
        members = np.flatnonzero(shared)
        roots = weld[members]
        xyz = np.arange(3)
        # As flat indices of the force components (one fancy-indexed read and write: several times cheaper
        # than 2-D indexing).
        self._to = (6 * members[:, None] + xyz).ravel()
        self._from = (6 * roots[:, None] + xyz).ravel()
        self._shares = np.repeat(mass[members] / group_mass[roots], 3)

    def add_force(self, body: Body, fx: float, fy: float, fz: float) -> None:
        """Accumulate a world-frame force (N) at the body's centre of mass."""
        flat, k = self._flat, body.force_offset
        flat[k] += fx
        flat[k + 1] += fy
        flat[k + 2] += fz
        self._dirty = True

    def add(self, body: Body, force: np.ndarray | None, torque_about_com: np.ndarray | None) -> None:
        """Accumulate a world-frame force (N) at the body's centre of mass and a torque about it (N m);
        None: zero."""
        if force is not None:
            self.add_force(body, float(force[0]), float(force[1]), float(force[2]))
        if torque_about_com is not None:
            flat, k = self._flat, 6 * body.root
            flat[k + 3] += float(torque_about_com[0])
            flat[k + 4] += float(torque_about_com[1])
            flat[k + 5] += float(torque_about_com[2])
            self._dirty = True

    def __bool__(self) -> bool:
        return self._dirty

    def apply(self, data: mujoco.MjData) -> None:
        """Before the physics of a basic step: add the accumulated wrenches to ``xfrc_applied``."""
        if len(self._to):  # each group's force, from its root's row, shared among its members
            flat = self._wrench.reshape(-1)
            flat[self._to] = flat[self._from] * self._shares
        saved = data.xfrc_applied.copy()
        self._saved = saved
        np.add(saved, self._wrench, out=data.xfrc_applied)

    def restore(self, data: mujoco.MjData) -> None:
        """After the physics: put ``xfrc_applied`` back exactly as before :meth:`apply`, clear the buffer."""
        if self._saved is not None:
            data.xfrc_applied[:] = self._saved
            self._saved = None
        if self._dirty:
            self._wrench.fill(0.0)
            self._dirty = False

    def clear(self) -> None:
        """Drop what was accumulated (a reset)."""
        self._wrench.fill(0.0)
        self._dirty = False
        self._saved = None
