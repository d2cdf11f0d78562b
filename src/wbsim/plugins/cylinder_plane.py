"""Contact points between a cylinder and a plane, computed so that they stay exact when the cylinder's
axis is (nearly) parallel to the plane's normal.

MuJoCo's own plane-cylinder collider finds the rim direction towards the plane by normalising
``normal - axis (axis . normal)``. For a cylinder standing almost exactly upright (tilts of 1e-16 to
1e-13 rad, which a body at rest on a floor reaches), that vector is rounding noise and its
normalisation can point partly along the axis: the "deepest" rim point then moves off the rim by up to
a few percent of the radius, and a cylinder 2 mm above a floor can be reported 1 mm inside it (measured
with MuJoCo 4.0 on the flying-robot demo). ``dCollide`` uses this module for plane-cylinder pairs: the
rim direction is projected once more onto the cap's plane (so the points are on the rims to rounding),
and below a tilt of 1e-12 rad, where the direction itself is noise, it is taken along the cylinder's
own x-axis (every rim direction is then as deep to within radius x 1e-12).

The candidate points are MuJoCo's layout: on the cap nearer the plane, the deepest rim point and the
two rim points 120 degrees either side of it; on the other cap, its deepest rim point.
"""

from __future__ import annotations

import numpy as np

__all__ = ["cylinder_plane_points"]

_FLAT = 1e-12  # below this tilt (rad) the caps count as parallel to the plane
_COS120, _SIN120 = -0.5, float(np.sqrt(3.0) / 2.0)


def cylinder_plane_points(center: np.ndarray, rotation: np.ndarray, radius: float, half_height: float,
                          plane_point: np.ndarray, plane_normal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The four candidate contact points of a cylinder against a plane (a half-space).

    Args:
        center: the cylinder's centre, world frame, m, (3,).
        rotation: the cylinder's axes in the world (columns; its axis is the z column), (3, 3).
        radius, half_height: m.
        plane_point: a point of the plane, world frame, m, (3,).
        plane_normal: the plane's unit normal (out of the half-space), (3,).

    Returns:
        (points on the cylinder's rims, world frame, m, (4, 3); their signed distances to the plane, m,
        (4,), negative inside the half-space).
    """
    normal = np.asarray(plane_normal, dtype=float)
    rot = np.asarray(rotation, dtype=float)
    axis = rot[:, 2] / np.linalg.norm(rot[:, 2])
    s = float(axis @ normal)
    # The cap nearer the plane: its centre is the one further along -normal.
    sign = 1.0 if s <= 0.0 else -1.0
    near_cap = center + sign * half_height * axis
    far_cap = center - sign * half_height * axis
    # The rim direction pointing most into the plane: -normal without its component along the axis.
    down = -(normal - s * axis)
    length = float(np.linalg.norm(down))
    if length < _FLAT:
        x_axis = rot[:, 0] - (rot[:, 0] @ axis) * axis
        down = x_axis / np.linalg.norm(x_axis)
    else:
        down /= length
        # Rounding leaves ``normal - s axis`` a component along the axis (1e-16 / tilt of it): project
        # it out so that the points lie on the rims.
        down -= (down @ axis) * axis
        down /= np.linalg.norm(down)
    side = np.cross(axis, down)
    points = np.array([
        near_cap + radius * down,
        near_cap + radius * (_COS120 * down + _SIN120 * side),
        near_cap + radius * (_COS120 * down - _SIN120 * side),
        far_cap + radius * down,
    ])
    return points, (points - plane_point) @ normal
