"""Webots' rotation arithmetic for the InertialUnit, vectorised over many sensors (``WbMatrix3``).

Matrices are (k, 3, 3) arrays of row-major rotation matrices (``m[:, r, c]``), quaternions (k, 4) arrays
ordered ``[x, y, z, w]`` as ``wb_inertial_unit_get_quaternion`` returns them, angles in radians. Each
function follows the C++ of ``WbMatrix3`` (branches, thresholds and the order of floating-point operations),
so wbsim's quaternion is the one Webots would compute from the same sensor rotation:

- :func:`euler_matrices`: ``WbMatrix3(rx, ry, rz)`` (``fromEulerAngles``): ``Rx(rx) Ry(ry) Rz(rz)``;
- :func:`product`: ``WbMatrix3::operator*``;
- :func:`axis_angles`: ``toAxisAngle`` with its coarse tests (``epsilon = 0.01``): a rotation whose
  off-diagonal terms are all symmetric within 0.01 is taken as the identity or as a half turn;
- :func:`axis_angle_matrices`: ``fromAxisAngle`` (the axis is used as given, also when it is not unit);
- :func:`quaternions`: ``toQuaternion`` (the exact identity gives (0, 0, 0, 1); otherwise Webots' four
  branches: ``w > 0`` when the trace is non-negative, else the largest diagonal term's component is positive);
- :func:`roll_pitch_yaw`: the angles ``wb_inertial_unit_get_roll_pitch_yaw`` derives from the quaternion in
  the controller library: in a NUE world the extrinsic x-z-y sequence (``e = Y(yaw) Z(pitch) X(roll)``, pitch
  by an unclamped ``asin``), otherwise (ENU, and EUN) the x-y-z sequence (``e = Z(yaw) Y(pitch) X(roll)``,
  the ``asin`` argument clamped to [-1, 1]).
"""

from __future__ import annotations

import numpy as np

__all__ = ["euler_matrices", "product", "axis_angles", "axis_angle_matrices", "drop_axes", "quaternions",
           "roll_pitch_yaw"]

_SQRT2_HALF = np.sqrt(2.0) / 2.0
_EPSILON = 0.01
_EPSILON2 = 0.1


def euler_matrices(angles: np.ndarray) -> np.ndarray:
    """``Rx(a) Ry(b) Rz(c)`` for each row ``(a, b, c)`` of ``angles`` (k, 3) (rad), as (k, 3, 3)."""
    cx, cy, cz = np.cos(angles).T
    sx, sy, sz = np.sin(angles).T
    m = np.empty((len(angles), 3, 3))
    m[:, 0, 0] = cy * cz
    m[:, 0, 1] = -cy * sz
    m[:, 0, 2] = sy
    m[:, 1, 0] = cz * sx * sy + cx * sz
    m[:, 1, 1] = cx * cz - sx * sy * sz
    m[:, 1, 2] = -cy * sx
    m[:, 2, 0] = -cx * cz * sy + sx * sz
    m[:, 2, 1] = cz * sx + cx * sy * sz
    m[:, 2, 2] = cx * cy
    return m


def product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for (k, 3, 3) stacks, each term summed left to right as ``WbMatrix3::operator*`` does."""
    first = a[:, :, 0, None] * b[:, None, 0, :] + a[:, :, 1, None] * b[:, None, 1, :]
    return first + a[:, :, 2, None] * b[:, None, 2, :]


def axis_angles(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Webots' ``WbMatrix3::toAxisAngle`` of each matrix of ``m`` (k, 3, 3).

    Returns:
        (axes (k, 3), angles (k,) in [0, pi]); the identity (within Webots' tolerances) gives ((1, 0, 0), 0).
    """
    f = m.reshape(len(m), 9)
    m0, m1, m2, m3, m4, m5, m6, m7, m8 = f.T
    symmetric = (np.abs(m1 - m3) < _EPSILON) & (np.abs(m2 - m6) < _EPSILON) & (np.abs(m5 - m7) < _EPSILON)
    identity = symmetric & (np.abs(m1 + m3) < _EPSILON2) & (np.abs(m2 + m6) < _EPSILON2) & \
        (np.abs(m5 + m7) < _EPSILON2) & (np.abs(m0 + m4 + m8 - 3) < _EPSILON2)
    with np.errstate(invalid="ignore", divide="ignore"):
        # Half turn: the axis from the diagonal (the largest term first).
        xx, yy, zz = (m0 + 1) / 2, (m4 + 1) / 2, (m8 + 1) / 2
        xy, xz, yz = (m1 + m3) / 4, (m2 + m6) / 4, (m5 + m7) / 4
        by_x = (xx > yy) & (xx > zz)
        by_y = ~by_x & (yy > zz)
        rx, ry, rz = np.sqrt(xx), np.sqrt(yy), np.sqrt(zz)
        half = np.where(by_x[:, None],
                        np.where((xx < _EPSILON)[:, None], [0.0, _SQRT2_HALF, _SQRT2_HALF],
                                 np.stack([rx, xy / rx, xz / rx], axis=1)),
                        np.where(by_y[:, None],
                                 np.where((yy < _EPSILON)[:, None], [_SQRT2_HALF, 0.0, _SQRT2_HALF],
                                          np.stack([xy / ry, ry, yz / ry], axis=1)),
                                 np.where((zz < _EPSILON)[:, None], [_SQRT2_HALF, _SQRT2_HALF, 0.0],
                                          np.stack([xz / rz, yz / rz, rz], axis=1))))
        # General case.
        s = np.sqrt((m7 - m5) * (m7 - m5) + (m2 - m6) * (m2 - m6) + (m3 - m1) * (m3 - m1))
        s = np.where(np.abs(s) < 0.001, 1.0, s)
        general = np.stack([(m7 - m5) / s, (m2 - m6) / s, (m3 - m1) / s], axis=1)
        angle = np.arccos(np.clip((m0 + m4 + m8 - 1) / 2, -1.0, 1.0))  # WbMathsUtilities::clampedAcos
    axes = np.where(identity[:, None], [1.0, 0.0, 0.0], np.where(symmetric[:, None], half, general))
    angles = np.where(identity, 0.0, np.where(symmetric, np.pi, angle))
    return axes, angles


def axis_angle_matrices(axes: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Webots' ``WbMatrix3::fromAxisAngle`` for axes (k, 3) and angles (k,): the axis is not normalised, so a
    zero axis gives ``cos(angle) * I``."""
    rx, ry, rz = axes.T
    c, s = np.cos(angles), np.sin(angles)
    t1 = 1.0 - c
    t2, t3, t4 = rx * rz * t1, rx * ry * t1, ry * rz * t1
    m = np.empty((len(angles), 3, 3))
    m[:, 0, 0] = rx * rx * t1 + c
    m[:, 0, 1] = t3 - rz * s
    m[:, 0, 2] = t2 + ry * s
    m[:, 1, 0] = t3 + rz * s
    m[:, 1, 1] = ry * ry * t1 + c
    m[:, 1, 2] = t4 - rx * s
    m[:, 2, 0] = t2 - ry * s
    m[:, 2, 1] = t4 + rx * s
    m[:, 2, 2] = rz * rz * t1 + c
    return m


def drop_axes(m: np.ndarray, enabled: np.ndarray) -> np.ndarray:
    """``WbInertialUnit::computeValue`` for sensors with a disabled axis: the rotations ``m`` (k, 3, 3) rebuilt
    from their axis-angle with axis components zeroed, for ``enabled`` (k, 3) = (xAxis, yAxis, zAxis).

    As Webots: ``xAxis`` FALSE zeroes the axis' x, ``yAxis`` FALSE its z (the yaw axis in ENU, as Webots'
    documentation says ``yAxis`` switches yaw) and ``zAxis`` FALSE its y; the axis is then normalised (left as
    is when zero) and the matrix rebuilt with the same angle.
    """
    axes, angles = axis_angles(m)
    axes = axes * np.stack([enabled[:, 0], enabled[:, 2], enabled[:, 1]], axis=1)
    length = np.sqrt(axes[:, 0] * axes[:, 0] + axes[:, 1] * axes[:, 1] + axes[:, 2] * axes[:, 2])
    with np.errstate(divide="ignore"):
        inverse = np.where(length != 0.0, 1.0 / length, 1.0)  # WbVector3::normalize keeps a zero vector
    return axis_angle_matrices(axes * inverse[:, None], angles)


def quaternions(m: np.ndarray) -> np.ndarray:
    """Webots' ``WbMatrix3::toQuaternion`` of each matrix of ``m`` (k, 3, 3), as (k, 4) ``[x, y, z, w]``."""
    f = m.reshape(len(m), 9)
    m0, m1, m2, m3, m4, m5, m6, m7, m8 = f.T
    exact_identity = (m0 == m4) & (m0 == m8) & (m0 == 1.0)
    trace = m0 + m4 + m8
    by_trace = trace >= 0.0
    by_x = ~by_trace & (m0 > m4) & (m0 > m8)
    by_y = ~by_trace & ~by_x & (m4 > m8)
    by_z = ~by_trace & ~by_x & ~by_y
    q = np.empty((len(m), 4))
    with np.errstate(invalid="ignore", divide="ignore"):
        for mask, root, parts in (  # (x, y, z, w) from 1 / s and s = 2 sqrt(root), per branch
            (by_trace, trace + 1, lambda i, s: ((m7 - m5) * i, (m2 - m6) * i, (m3 - m1) * i, 0.25 * s)),
            (by_x, 1.0 + m0 - m4 - m8, lambda i, s: (0.25 * s, (m1 + m3) * i, (m6 + m2) * i, (m7 - m5) * i)),
            (by_y, 1.0 + m4 - m8 - m0, lambda i, s: ((m1 + m3) * i, 0.25 * s, (m5 + m7) * i, (m2 - m6) * i)),
            (by_z, 1.0 + m8 - m0 - m4, lambda i, s: ((m6 + m2) * i, (m5 + m7) * i, 0.25 * s, (m3 - m1) * i)),
        ):
            if mask.any():
                s = 2.0 * np.sqrt(root)
                values = np.stack(parts(1.0 / s, s), axis=1)
                q[mask] = values[mask]
    q[exact_identity] = (0.0, 0.0, 0.0, 1.0)
    return q


def roll_pitch_yaw(q: np.ndarray, nue: bool) -> np.ndarray:
    """Roll, pitch and yaw (k, 3) of quaternions ``q`` (k, 4) ``[x, y, z, w]`` as the controller library
    computes them (``wb_inertial_unit_get_roll_pitch_yaw``): NUE worlds (``nue``) or ENU (and any other)."""
    q0, q1, q2, q3 = q.T
    out = np.empty((len(q), 3))
    with np.errstate(invalid="ignore"):
        if nue:
            out[:, 2] = np.arctan2(2 * q1 * q3 - 2 * q0 * q2, 1 - 2 * q1 * q1 - 2 * q2 * q2)
            out[:, 0] = np.arctan2(2 * q0 * q3 - 2 * q1 * q2, 1 - 2 * q0 * q0 - 2 * q2 * q2)
            out[:, 1] = np.arcsin(2 * q0 * q1 + 2 * q2 * q3)  # unclamped, as Webots: NaN if rounding passes 1
        else:
            out[:, 0] = np.arctan2(2.0 * (q3 * q0 + q1 * q2), 1.0 - 2.0 * (q0 * q0 + q1 * q1))
            t2 = 2.0 * (q3 * q1 - q2 * q0)
            t2 = np.where(t2 > 1.0, 1.0, t2)
            t2 = np.where(t2 < -1.0, -1.0, t2)
            out[:, 1] = np.arcsin(t2)
            out[:, 2] = np.arctan2(2.0 * (q3 * q2 + q0 * q1), 1.0 - 2.0 * (q1 * q1 + q2 * q2))
    return out
