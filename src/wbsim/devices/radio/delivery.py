"""The geometry of a transmission, vectorised over (emitter, receiver) pairs: range, aperture cones, signal
strength and emitter direction (``WbReceiver::checkApertureAndRange`` and ``postPhysicsStep``), and the
infra-red line of sight (Webots' ray geom, here MuJoCo ray casts).

Poses are world positions (k, 3) and rotation matrices (k, 3, 3) whose column 0 is the device's +x axis.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from wbsim.devices.radio.compile import RadioWorld

__all__ = ["in_range", "in_cone", "webots_angle", "reception", "LineOfSight"]

_MARCH_STEP = 1e-7
"""How far (m) a ray restarts past a surface it may cross (the exact line-of-sight fallback)."""
_MAX_MARCH = 10_000
"""Surfaces the exact fallback may cross on one segment before it gives up (a safeguard; it counts as blocked)."""


def in_range(emitter_pos: np.ndarray, receiver_pos: np.ndarray, emitter_range: np.ndarray) -> np.ndarray:
    """Webots' range test: the receiver is within the emitter's ``range`` (inclusive), any distance for -1.

    A negative range other than -1 (a world file value Webots does not repair) acts as its absolute value,
    as in Webots, which compares squares.
    """
    d = receiver_pos - emitter_pos
    distance2 = d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1] + d[:, 2] * d[:, 2]
    return (emitter_range == -1.0) | ~(distance2 > emitter_range * emitter_range)


def webots_angle(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The angle between rows of ``u`` and ``v`` as ``WbVector3::angle`` computes it: pi/2 when either is zero,
    the cosine clamped to [-1, 1]."""
    lu = (u * u).sum(axis=1)
    lv = (v * v).sum(axis=1)
    both = (lu != 0.0) & (lv != 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.where(both, (u * v).sum(axis=1) / np.sqrt(lu * lv), 0.0)
    return np.arccos(np.clip(s, -1.0, 1.0))


def in_cone(axis: np.ndarray, towards: np.ndarray, aperture: np.ndarray) -> np.ndarray:
    """Webots' aperture test: ``towards`` is within the cone of half-angle ``aperture / 2`` (inclusive) around
    ``axis``; an aperture <= 0 (-1, or 0) is no cone at all."""
    return ~(aperture > 0.0) | ~(webots_angle(axis, towards) > aperture / 2.0)


def reception(emitter_pos: np.ndarray, receiver_pos: np.ndarray, receiver_rot: np.ndarray,
              direction_noise: np.ndarray, strength_noise: np.ndarray,
              rng: np.random.Generator | None) -> tuple[np.ndarray, np.ndarray]:
    """Emitter directions (unit vectors in the receiver's frame) and signal strengths, as Webots'
    ``WbReceiver::postPhysicsStep`` computes them.

    With ``r`` the emitter's position in the receiver's frame and ``d = |r|``: the direction is ``r / d``
    and the strength ``1 / d^2``. With noise, each component of ``r`` gets ``d * directionNoise * N(0, 1)``
    before normalising, and the strength is multiplied by ``1 + signalStrengthNoise * N(0, 1)`` and
    clipped at 0. Gaussians come from ``rng`` (the simulation's generator), one (k, 4) draw for the pairs
    with noise (three for the direction, one for the strength, as Webots draws them per packet).

    Returns:
        Directions (k, 3) and strengths (k,); a receiver at the emitter's position gets NaN and inf.
    """
    world = emitter_pos - receiver_pos
    local = np.einsum("kji,kj->ki", receiver_rot, world)  # R^T (p_e - p_r)
    distance = np.sqrt((local * local).sum(axis=1))
    noisy = (direction_noise != 0.0) | (strength_noise != 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        strength = 1.0 / (distance * distance)
        if rng is not None and noisy.any():
            rows = np.flatnonzero(noisy)
            gauss = rng.standard_normal((len(rows), 4))
            shift = (distance[rows] * direction_noise[rows])[:, None] * gauss[:, :3]
            local[rows] += np.where(direction_noise[rows, None] != 0.0, shift, 0.0)
            scaled = strength[rows] * (1.0 + strength_noise[rows] * gauss[:, 3])
            strength[rows] = np.where(strength_noise[rows] != 0.0, np.maximum(scaled, 0.0), strength[rows])
        direction = local / np.sqrt((local * local).sum(axis=1))[:, None]
    return direction, strength


class LineOfSight:
    """Whether infra-red segments are blocked, with batched MuJoCo ray casts (``mj_multiRay``).

    A segment from an emitter to a receiver is blocked by any geom on it (the receiver's origin excluded)
    except those of the emitting robot and, unless it has ``selfCollision``, those of the receiving robot:
    the excluded set X.

    - **Planes** are tested analytically, as ODE's ray does: infinite, crossed from either side (MuJoCo's
      rays see a plane only from its front and within its rendered size), so they are hidden from the casts.
    - **Other geoms** (closed: a ray starting inside one meets its exit): each emitter casts one batch of
      rays towards its receivers with its own robot's geoms hidden (a spare MuJoCo geom group, restored
      after the call), each receiver one batch back towards its emitters with its robot's geoms hidden. A
      segment is blocked if either first hit is outside X. If both first hits are in X (the receiving robot
      seen from the emitter, the emitting robot seen from the receiver) and they interleave (the receiving
      robot's first surface comes before the emitting robot's last one), an obstacle could hide between
      them: that rare segment is marched exactly with ``mj_ray``, surface after surface.

    Args:
        model: the compiled model (its ``geom_group`` is changed during a cast and restored).
        world: the robots and geoms of the world.
    """

    def __init__(self, model: mujoco.MjModel, world: RadioWorld) -> None:
        self._model = model
        self._world = world
        used = set(np.unique(model.geom_group).tolist()) if model.ngeom else set()
        spare = next((g for g in (5, 4, 3, 2, 1) if g not in used), -1)
        self._spare = spare  # -1: every group is used; then every segment is marched (planes as MuJoCo sees them)
        self._mask = np.ones(6, dtype=np.uint8)
        if spare >= 0:
            self._mask[spare] = 0
        self._planes = np.flatnonzero(model.geom_type == mujoco.mjtGeom.mjGEOM_PLANE)
        self._plane_robot = world.geom_robot[self._planes]

    def blocked(self, data: mujoco.MjData, start: np.ndarray, end: np.ndarray, emitter: np.ndarray,
                receiver: np.ndarray, emitter_robot: np.ndarray, receiver_robot: np.ndarray) -> np.ndarray:
        """Whether each segment ``start[i] -> end[i]`` is blocked (poses in ``data`` must be current).

        Args:
            data: the MuJoCo data (``geom_xpos``/``geom_xmat`` of the current state).
            start: emitter positions (k, 3); end: receiver positions (k, 3).
            emitter, receiver: bank rows of the two devices (segments of one device share a batch).
            emitter_robot, receiver_robot: their robots (indices in the world, -1 for none).
        """
        k = len(start)
        result = np.zeros(k, dtype=bool)
        if not k:
            return result
        vector = end - start
        length = np.sqrt((vector * vector).sum(axis=1))
        if self._spare < 0:
            for i in range(k):
                result[i] = self._march(data, start[i], end[i], int(emitter_robot[i]), int(receiver_robot[i]), None)
            return result
        geom_robot = self._world.geom_robot
        self_collision = self._world.self_collision
        # X: the emitting robot's geoms, and the receiving robot's unless it has selfCollision.
        receiver_hidden = np.where(receiver_robot >= 0, ~self_collision[np.maximum(receiver_robot, 0)], False)

        def excluded(robots: np.ndarray) -> np.ndarray:
            return (robots >= 0) & ((robots == emitter_robot) | (receiver_hidden & (robots == receiver_robot)))

        if len(self._planes):
            result |= self._crosses_plane(data, start, vector, length, emitter_robot, receiver_robot,
                                          receiver_hidden)
        groups = self._model.geom_group
        planes = groups[self._planes].copy()
        groups[self._planes] = self._spare
        try:
            forward_geom, forward_dist = self._cast(data, start, vector, length, emitter, emitter_robot, None)
            backward_geom, backward_dist = self._cast(data, end, -vector, length, receiver, receiver_robot,
                                                      receiver_hidden)
            forward_hit = (forward_geom >= 0) & (forward_dist < length)
            backward_hit = (backward_geom >= 0) & (backward_dist < length)
            result |= forward_hit & ~excluded(np.where(forward_geom >= 0, geom_robot[forward_geom], -1))
            result |= backward_hit & ~excluded(np.where(backward_geom >= 0, geom_robot[backward_geom], -1))
            unsure = ~result & forward_hit & backward_hit & (forward_dist < length - backward_dist)
            for i in np.flatnonzero(unsure).tolist():
                result[i] = self._march(data, start[i], end[i], int(emitter_robot[i]), int(receiver_robot[i]),
                                        self._mask)
        finally:
            groups[self._planes] = planes
        return result

    def _crosses_plane(self, data: mujoco.MjData, start: np.ndarray, vector: np.ndarray, length: np.ndarray,
                       emitter_robot: np.ndarray, receiver_robot: np.ndarray,
                       receiver_hidden: np.ndarray) -> np.ndarray:
        """Segments crossing a plane outside X (ODE's ``dCollideRayPlane``: the intersection of the line with the
        infinite plane lies on the segment, either side facing)."""
        planes = self._planes
        normal = data.geom_xmat[planes].reshape(-1, 3, 3)[:, :, 2]  # (p, 3): the plane's local z
        offset = (normal * data.geom_xpos[planes]).sum(axis=1)  # n . c
        with np.errstate(invalid="ignore", divide="ignore"):
            along = (vector @ normal.T) / length[:, None]  # (k, p): n . direction
            t = (offset[None, :] - start @ normal.T) / along
        crossing = (along != 0.0) & (t >= 0.0) & (t <= length[:, None])
        owner = self._plane_robot[None, :]
        excluded = (owner >= 0) & ((owner == emitter_robot[:, None])
                                   | (receiver_hidden[:, None] & (owner == receiver_robot[:, None])))
        return (crossing & ~excluded).any(axis=1)

    def _cast(self, data: mujoco.MjData, origin: np.ndarray, vector: np.ndarray, length: np.ndarray,
              source: np.ndarray, robot: np.ndarray, hide: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """First hits (geom, distance in m; -1, -1 for none) of rays from ``origin`` along ``vector``, one
        ``mj_multiRay`` per source device, with the source's robot hidden (where ``hide`` allows)."""
        model, world = self._model, self._world
        k = len(origin)
        geoms = np.full(k, -1, dtype=np.int32)
        dist = np.full(k, -1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            unit = vector / length[:, None]
        groups, first, inverse = np.unique(source, return_index=True, return_inverse=True)
        saved = model.geom_group
        for g in range(len(groups)):
            rows = np.flatnonzero(inverse == g)
            rows = rows[length[rows] > 0.0]  # a zero-length segment crosses nothing
            if not len(rows):
                continue
            owner = int(robot[first[g]])
            hidden = world.robot_geoms[owner] if owner >= 0 and (hide is None or hide[first[g]]) else None
            out_geom = np.empty(len(rows), dtype=np.int32)
            out_dist = np.empty(len(rows))
            if hidden is not None and len(hidden):
                original = saved[hidden].copy()
                saved[hidden] = self._spare
            try:
                mujoco.mj_multiRay(model, data, np.ascontiguousarray(origin[first[g]], dtype=float),
                                   np.ascontiguousarray(unit[rows], dtype=float).ravel(), self._mask, 1, -1,
                                   out_geom, out_dist, None, len(rows), float(length[rows].max()) * (1 + 1e-9) + 1e-9)
            finally:
                if hidden is not None and len(hidden):
                    saved[hidden] = original
            geoms[rows] = out_geom
            dist[rows] = out_dist
        return geoms, dist

    def _march(self, data: mujoco.MjData, start: np.ndarray, end: np.ndarray, emitter_robot: int,
               receiver_robot: int, mask: np.ndarray | None) -> bool:
        """Exact test of one segment against the geoms ``mask`` lets rays see: cross the excluded surfaces
        one after the other (``mj_ray``)."""
        world = self._world
        hidden_receiver = receiver_robot >= 0 and not bool(world.self_collision[receiver_robot])
        vector = end - start
        remaining = float(math.sqrt(float(vector @ vector)))
        if remaining == 0.0:
            return False
        unit = vector / remaining
        point = start.astype(float).copy()
        geom = np.zeros(1, dtype=np.int32)
        for _ in range(_MAX_MARCH):
            distance = mujoco.mj_ray(self._model, data, point, unit, mask, 1, -1, geom)
            if distance < 0.0 or distance >= remaining:
                return False
            robot = int(world.geom_robot[geom[0]]) if geom[0] >= 0 else -1
            if robot < 0 or not (robot == emitter_robot or (hidden_receiver and robot == receiver_robot)):
                return True
            advance = distance + _MARCH_STEP
            point += advance * unit
            remaining -= advance
            if remaining <= 0.0:
                return False
        return True
