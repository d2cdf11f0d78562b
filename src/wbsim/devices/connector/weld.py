"""The pose a connector link holds, and the gentle ramp that snaps two connectors together.

A link is a MuJoCo weld between body 1 (the initiating connector C's upper body) and body 2 (the peer
O's). Its ``eq_data`` holds (``mj_equalityAnchors`` / ``mjEQ_WELD`` in MuJoCo 4):

- ``[0:3]`` an anchor point in body 2's frame: O's origin;
- ``[3:6]`` where that point must be in body 1's frame;
- ``[6:10]`` body 2's orientation relative to body 1 (``q1^-1 q2``); ``[10]`` torque scale 1.

**Without snap** the link keeps the current relative pose. **With snap** it holds the pose where the
two connectors are docked exactly, as Webots' ``snapNow`` intends: the faces superimposed (origins
coincide), the x-axes opposite, and the z-axes at the docking rotation Webots picks
(``findClosestRotationalAlignment``: the first of ``0, 2pi/n, ...``, summed as its loop sums them
(:func:`~wbsim.devices.connector.presence.docking_rotations`), within ``rotationTolerance`` of their angle;
``n = 0`` keeps the twist). Webots rotates each body about its own origin and does not
compensate the lever arm, so its origins coincide only without angular error; wbsim computes the exact
docked pose. Webots sets the target and lets ODE's ERP pull the bodies together over the next steps;
wbsim moves the target from the current pose to the docked one along a smooth ramp (at most
:data:`SNAP_SPEED` and :data:`SNAP_TURN_RATE` on average, eased in and out), which a stiff weld follows
without the force spike of a sudden target change (mujoco-notes §1.3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from wbsim.compile.frames import Frame, matrix_to_quat, quat_from_axis_angle, quat_to_matrix
from wbsim.devices.connector.presence import DockingRotations, first_rotation_match

__all__ = ["WeldPose", "current_pose", "docked_pose", "Ramp", "SNAP_SPEED", "SNAP_TURN_RATE"]

SNAP_SPEED = 0.05
"""Average speed (m/s) at which a snap closes the distance between the two connectors."""
SNAP_TURN_RATE = 0.5
"""Average rate (rad/s) at which a snap closes the angle between the two connectors."""


@dataclass(frozen=True)
class WeldPose:
    """What a weld holds (see the module docstring).

    Attributes:
        anchor_in_body2: O's origin in body 2's frame, m, (3,).
        anchor_in_body1: where that point is held in body 1's frame, m, (3,).
        quat: body 2's orientation relative to body 1, (w, x, y, z), (4,).
    """

    anchor_in_body2: np.ndarray
    anchor_in_body1: np.ndarray
    quat: np.ndarray

    def data(self) -> np.ndarray:
        """The weld's ``eq_data`` row (11 used values, then 0: relpose given, not computed by MuJoCo)."""
        return np.concatenate([self.anchor_in_body2, self.anchor_in_body1, self.quat, [1.0, 0.0]])


def current_pose(body1: Frame, body2: Frame, peer: Frame) -> WeldPose:
    """The weld pose that holds the bodies where they are now (frames in world coordinates)."""
    return WeldPose(body2.inverse().apply(peer.pos), body1.inverse().apply(peer.pos),
                    matrix_to_quat(body1.rot.T @ body2.rot))


def _rotation_between(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The smallest rotation taking unit vector ``u`` to ``v`` (identity if they are collinear, as Webots:
    ``snapXAxes`` does nothing when the cross product is null)."""
    w = np.cross(u, v)
    norm = float(np.linalg.norm(w))
    if norm == 0.0:
        return np.eye(3)
    angle = math.atan2(norm, float(np.dot(u, v)))
    return quat_to_matrix(quat_from_axis_angle((*(w / norm), angle)))


def docked_pose(body1: Frame, body2: Frame, own: Frame, peer: Frame, rotations: int,
                rotation_tolerance: float, docking: DockingRotations | None = None) -> WeldPose:
    """The weld pose with the two connectors docked exactly (frames in world coordinates).

    Args:
        body1: C's upper body. body2: O's upper body.
        own: C's frame (the initiating connector, whose ``numberOfRotations`` and tolerance apply).
        peer: O's frame.
        rotations: C's ``numberOfRotations`` (0: keep the twist).
        rotation_tolerance: C's ``rotationTolerance``, rad.
        docking: Webots' docking rotations, including ``rotations``' (the bank's ``rules.docking``); made
            here if not given.
    """
    x_own = own.rot[:, 0]
    # 1. O turns so that its x-axis points against C's.
    aligned = _rotation_between(-peer.rot[:, 0], x_own) @ peer.rot
    # 2. O turns about the common x-axis to the docking rotation.
    if rotations > 0:
        # Both z-axes are normal to x_own: the twist from z_own to z_peer is an angle about x_own (atan2
        # keeps it exact near 0, where acos loses half the digits).
        z_own, z_peer = own.rot[:, 2], aligned[:, 2]
        twist = math.atan2(float(np.dot(np.cross(z_own, z_peer), x_own)), float(np.dot(z_own, z_peer)))
        if twist:
            docking = docking if docking is not None else DockingRotations.of([rotations])
            beta = first_rotation_match(abs(twist), rotations, rotation_tolerance, docking)
            if beta < 0.0:
                # No allowed rotation within tolerance of the twist once the x-axes are aligned (possible with
                # a wide axisTolerance; Webots asserts): the nearest allowed one, as Webots' loop reaches it.
                nearest = min(round(abs(twist) / (2.0 * math.pi / rotations)), rotations // 2)
                table = docking.table(rotations)
                beta = float(table[nearest]) if table is not None else nearest * (2.0 * math.pi / rotations)
            aligned = quat_to_matrix(quat_from_axis_angle((*x_own, math.copysign(beta, twist) - twist))) @ aligned
    # 3. O's origin on C's; body 2 keeps its pose relative to O.
    peer_target = Frame(own.pos, aligned)
    body2_target = peer_target @ (peer.inverse() @ body2)
    return WeldPose(body2.inverse().apply(peer.pos), body1.inverse().apply(own.pos),
                    matrix_to_quat(body1.rot.T @ body2_target.rot))


def _quat_multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise Hamilton product of quaternions (w, x, y, z), (k, 4)."""
    aw, ax, ay, az = a.T
    bw, bx, by, bz = b.T
    return np.stack([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw], axis=1)


def _rotation_vector(q: np.ndarray) -> np.ndarray:
    """The rotation vector (axis * angle, shortest way) of a unit quaternion, (3,)."""
    q = q if q[0] >= 0.0 else -q
    s = float(np.linalg.norm(q[1:]))
    if s < 1e-15:
        return np.zeros(3)
    return q[1:] / s * (2.0 * math.atan2(s, float(q[0])))


class Ramp:
    """The snaps in progress: each moves a weld's target from a start pose to the docked pose.

    The target follows ``start + e(u) * (end - start)`` (the rotation along the shortest arc) with
    ``u = (t - t0) / duration`` and the smoothstep ``e(u) = 3u^2 - 2u^3``, which starts and ends at rest.
    """

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        """Forget every snap."""
        self.slots: list[int] = []
        self._start_time: list[float] = []
        self._duration: list[float] = []
        self._start_pos: list[np.ndarray] = []
        self._delta_pos: list[np.ndarray] = []
        self._start_quat: list[np.ndarray] = []
        self._delta_rot: list[np.ndarray] = []
        self._arrays: tuple[np.ndarray, ...] | None = None

    def __len__(self) -> int:
        return len(self.slots)

    @staticmethod
    def duration(start: WeldPose, end: WeldPose) -> float:
        """How long a snap from ``start`` to ``end`` lasts, s (0 for no motion)."""
        distance = float(np.linalg.norm(end.anchor_in_body1 - start.anchor_in_body1))
        relative = _quat_multiply(np.array([start.quat * [1, -1, -1, -1]]), np.array([end.quat]))[0]
        angle = float(np.linalg.norm(_rotation_vector(relative)))
        return max(distance / SNAP_SPEED, angle / SNAP_TURN_RATE)

    def add(self, slot: int, start: WeldPose, end: WeldPose, start_time: float, duration: float) -> None:
        """Start moving the target of pool slot ``slot`` at time ``start_time`` (s) for ``duration`` s."""
        relative = _quat_multiply(np.array([start.quat * [1, -1, -1, -1]]), np.array([end.quat]))[0]
        self.slots.append(slot)
        self._start_time.append(start_time)
        self._duration.append(duration)
        self._start_pos.append(start.anchor_in_body1)
        self._delta_pos.append(end.anchor_in_body1 - start.anchor_in_body1)
        self._start_quat.append(start.quat)
        self._delta_rot.append(_rotation_vector(relative))
        self._arrays = None

    def remove(self, slot: int) -> None:
        """Stop the snap of ``slot`` (if any), leaving its target where it is."""
        if slot in self.slots:
            i = self.slots.index(slot)
            for items in (self.slots, self._start_time, self._duration, self._start_pos, self._delta_pos,
                          self._start_quat, self._delta_rot):
                del items[i]
            self._arrays = None

    def targets(self, time: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The targets at ``time`` (s): slots (k,), ``anchor_in_body1`` (k, 3), quats (k, 4), and done (k,)
        (the snaps that reached the docked pose)."""
        if self._arrays is None:
            self._arrays = (np.array(self._start_time), np.array(self._duration), np.array(self._start_pos),
                            np.array(self._delta_pos), np.array(self._start_quat), np.array(self._delta_rot))
        t0, duration, start_pos, delta_pos, start_quat, delta_rot = self._arrays
        u = np.clip((time - t0) / duration, 0.0, 1.0)
        eased = u * u * (3.0 - 2.0 * u)
        position = start_pos + eased[:, None] * delta_pos
        rotation = eased[:, None] * delta_rot
        angle = np.linalg.norm(rotation, axis=1)
        axis = np.divide(rotation, angle[:, None], out=np.zeros_like(rotation), where=angle[:, None] > 0)
        step = np.concatenate([np.cos(angle / 2)[:, None], axis * np.sin(angle / 2)[:, None]], axis=1)
        return np.array(self.slots), position, _quat_multiply(start_quat, step), u >= 1.0
