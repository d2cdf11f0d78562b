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

__all__ = ["Body", "ForceBuffer"]


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
        if self.mass <= 0.0:
            return data.xpos[self.root].copy()
        masses = self.scene.model.body_mass[self.members]
        return (masses[:, None] * data.xipos[self.members]).sum(axis=0) / self.mass

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
        return at_root_com + np.cross(angular, offset), angular.copy()

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
        data.qvel[dof : dof + 3] = linear - np.cross(angular, self.com() - origin)
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
    them. Each entry is applied to the group's root body through ``xfrc_applied`` (which acts at the
    root's centre of mass: the torque is corrected for the offset to the group's).
    """

    def __init__(self, nbody: int) -> None:
        self._wrench = np.zeros((nbody, 6))
        self._touched: set[int] = set()
        self._saved: tuple[np.ndarray, np.ndarray] | None = None

    def add(self, body: Body, force: np.ndarray, torque_about_com: np.ndarray) -> None:
        """Accumulate a world-frame force (N) and torque about the body's centre of mass (N m)."""
        offset = body.com() - body.scene.data.xipos[body.root]
        row = self._wrench[body.root]
        row[:3] += force
        row[3:] += torque_about_com + np.cross(offset, force)
        self._touched.add(body.root)

    def __bool__(self) -> bool:
        return bool(self._touched)

    def apply(self, data: mujoco.MjData) -> None:
        """Before the physics of a basic step: add the accumulated wrenches to ``xfrc_applied``."""
        rows = np.array(sorted(self._touched), dtype=np.int64)
        self._saved = (rows, data.xfrc_applied[rows].copy())
        data.xfrc_applied[rows] += self._wrench[rows]

    def restore(self, data: mujoco.MjData) -> None:
        """After the physics: put ``xfrc_applied`` back exactly as before :meth:`apply`, clear the buffer."""
        if self._saved is not None:
            rows, values = self._saved
            data.xfrc_applied[rows] = values
            self._wrench[rows] = 0.0
            self._saved = None
        self._touched.clear()

    def clear(self) -> None:
        """Drop what was accumulated (a reset)."""
        self._wrench[:] = 0.0
        self._touched.clear()
        self._saved = None
