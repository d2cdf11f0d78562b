"""Rigid transforms between Webots frames: translation plus rotation, as numpy arrays.

Quaternions are MuJoCo's (w, x, y, z). Webots rotations are axis-angle ``(x, y, z, angle_rad)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = ["Frame", "quat_from_axis_angle", "quat_to_matrix", "matrix_to_quat", "axis_angle_from_quat"]

Vec = NDArray[np.float64]


def quat_from_axis_angle(rotation: tuple[float, ...] | Vec) -> Vec:
    """Unit quaternion (w, x, y, z) of a Webots axis-angle rotation ``(x, y, z, angle_rad)``."""
    # Python floats: the same IEEE operations as numpy scalars (sqrt is correctly rounded in both), at a
    # fraction of the cost; sine and cosine stay numpy's (their results may differ from the math module's).
    x, y, z, angle = (float(v) for v in rotation)
    norm = math.sqrt(x * x + y * y + z * z)
    if norm == 0.0 or angle == 0.0:
        return np.array([1.0, 0.0, 0.0, 0.0])
    s = float(np.sin(angle / 2.0)) / norm
    return np.array([float(np.cos(angle / 2.0)), x * s, y * s, z * s])


def quat_to_matrix(q: Vec) -> Vec:
    """3x3 rotation matrix of a unit quaternion (w, x, y, z); columns are the rotated frame's axes."""
    w, x, y, z = (q / np.linalg.norm(q)).tolist()  # Python floats: the same operations, cheaper than numpy scalars
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def matrix_to_quat(r: Vec) -> Vec:
    """Unit quaternion (w, x, y, z) of a 3x3 rotation matrix, with w >= 0."""
    # Python floats: the same IEEE operations as numpy scalars (sqrt correctly rounded in both), cheaper.
    (m00, m01, m02), (m10, m11, m12), (m20, m21, m22) = np.asarray(r, dtype=float).tolist()
    trace = m00 + m11 + m22
    if trace > 0:
        s = 2.0 * math.sqrt(trace + 1.0)
        q = np.array([0.25 * s, (m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s])
    elif m00 > m11 and m00 > m22:
        s = 2.0 * math.sqrt(1.0 + m00 - m11 - m22)
        q = np.array([(m21 - m12) / s, 0.25 * s, (m01 + m10) / s, (m02 + m20) / s])
    elif m11 > m22:
        s = 2.0 * math.sqrt(1.0 + m11 - m00 - m22)
        q = np.array([(m02 - m20) / s, (m01 + m10) / s, 0.25 * s, (m12 + m21) / s])
    else:
        s = 2.0 * math.sqrt(1.0 + m22 - m00 - m11)
        q = np.array([(m10 - m01) / s, (m02 + m20) / s, (m12 + m21) / s, 0.25 * s])
    q /= np.linalg.norm(q)
    return q if q[0] >= 0 else -q


def axis_angle_from_quat(q: Vec) -> tuple[float, float, float, float]:
    """Webots axis-angle ``(x, y, z, angle_rad)`` of a quaternion; angle in [0, pi], axis (0, 0, 1) for identity."""
    q = np.asarray(q, dtype=float)
    q = q / np.linalg.norm(q)
    if q[0] < 0:
        q = -q
    s = float(np.linalg.norm(q[1:]))  # not sqrt(1 - w^2), which cancels catastrophically for small angles
    if s < 1e-12:
        return (0.0, 0.0, 1.0, 0.0)
    angle = 2.0 * np.arctan2(s, q[0])
    return (float(q[1] / s), float(q[2] / s), float(q[3] / s), float(angle))


@dataclass(frozen=True)
class Frame:
    """A rigid transform: a point ``p`` in this frame maps to ``pos + rot @ p`` in the parent frame.

    Attributes:
        pos: translation, shape (3,), metres.
        rot: rotation matrix, shape (3, 3).
    """

    pos: Vec
    rot: Vec

    @staticmethod
    def identity() -> Frame:
        """The identity transform."""
        return Frame(np.zeros(3), np.eye(3))

    @staticmethod
    def from_webots(translation: tuple[float, ...], rotation: tuple[float, ...]) -> Frame:
        """The transform of a Webots ``translation`` and axis-angle ``rotation`` field pair."""
        return Frame(np.asarray(translation, dtype=float), quat_to_matrix(quat_from_axis_angle(rotation)))

    def __matmul__(self, other: Frame) -> Frame:
        """Compose: ``(self @ other)`` maps ``other``'s frame into ``self``'s parent frame."""
        return Frame(self.pos + self.rot @ other.pos, self.rot @ other.rot)

    def inverse(self) -> Frame:
        """The inverse transform."""
        return Frame(-self.rot.T @ self.pos, self.rot.T)

    def apply(self, point: Vec) -> Vec:
        """Map a point (3,) from this frame to the parent frame."""
        return self.pos + self.rot @ np.asarray(point, dtype=float)

    @property
    def quat(self) -> Vec:
        """The rotation as a unit quaternion (w, x, y, z)."""
        return matrix_to_quat(self.rot)
