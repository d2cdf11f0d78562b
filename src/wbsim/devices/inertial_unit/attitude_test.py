"""Webots' rotation arithmetic, vectorised, against a scalar transcription of ``WbMatrix3`` and the controller
library's roll/pitch/yaw, and against rotation identities.

Branches and arithmetic are Webots': results built from +, -, *, / and sqrt (correctly rounded everywhere) are
compared bit for bit; numpy's cos, sin, arccos, arcsin and arctan2 may differ from C's libm (Python's ``math``)
by an ulp, so results through them are compared within 2e-15 (a few ulps of numbers of at most pi).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbsim.devices.inertial_unit.attitude import (axis_angle_matrices, axis_angles, drop_axes, euler_matrices, product,
                                                  quaternions, roll_pitch_yaw)


ULPS = 2e-15  # numpy's transcendental functions against C's libm (module docstring)


# -- scalar transcriptions of Webots (the oracle) ----------------------------------------------------------------
def ref_from_axis_angle(rx: float, ry: float, rz: float, angle: float) -> list[float]:
    c, s = math.cos(angle), math.sin(angle)
    t1 = 1.0 - c
    t2, t3, t4 = rx * rz * t1, rx * ry * t1, ry * rz * t1
    return [rx * rx * t1 + c, t3 - rz * s, t2 + ry * s, t3 + rz * s, ry * ry * t1 + c, t4 - rx * s, t2 - ry * s,
            t4 + rx * s, rz * rz * t1 + c]


def ref_to_quaternion(m: list[float]) -> tuple[float, float, float, float]:
    """``WbMatrix3::toQuaternion`` as [x, y, z, w]."""
    if m[0] == m[4] and m[0] == m[8] and m[0] == 1.0:
        return 0.0, 0.0, 0.0, 1.0
    trace = m[0] + m[4] + m[8]
    if trace >= 0.0:
        s = 2.0 * math.sqrt(trace + 1)
        inv = 1.0 / s
        return (m[7] - m[5]) * inv, (m[2] - m[6]) * inv, (m[3] - m[1]) * inv, 0.25 * s
    if m[0] > m[4] and m[0] > m[8]:
        s = 2.0 * math.sqrt(1.0 + m[0] - m[4] - m[8])
        inv = 1.0 / s
        return 0.25 * s, (m[1] + m[3]) * inv, (m[6] + m[2]) * inv, (m[7] - m[5]) * inv
    if m[4] > m[8]:
        s = 2.0 * math.sqrt(1.0 + m[4] - m[8] - m[0])
        inv = 1.0 / s
        return (m[1] + m[3]) * inv, 0.25 * s, (m[5] + m[7]) * inv, (m[2] - m[6]) * inv
    s = 2.0 * math.sqrt(1.0 + m[8] - m[0] - m[4])
    inv = 1.0 / s
    return (m[6] + m[2]) * inv, (m[5] + m[7]) * inv, 0.25 * s, (m[3] - m[1]) * inv


def ref_to_axis_angle(m: list[float]) -> tuple[float, float, float, float]:
    """``WbMatrix3::toAxisAngle`` as (x, y, z, angle)."""
    eps, eps2, h = 0.01, 0.1, math.sqrt(2) / 2
    if abs(m[1] - m[3]) < eps and abs(m[2] - m[6]) < eps and abs(m[5] - m[7]) < eps:
        if (abs(m[1] + m[3]) < eps2 and abs(m[2] + m[6]) < eps2 and abs(m[5] + m[7]) < eps2
                and abs(m[0] + m[4] + m[8] - 3) < eps2):
            return 1.0, 0.0, 0.0, 0.0
        xx, yy, zz = (m[0] + 1) / 2, (m[4] + 1) / 2, (m[8] + 1) / 2
        xy, xz, yz = (m[1] + m[3]) / 4, (m[2] + m[6]) / 4, (m[5] + m[7]) / 4
        if xx > yy and xx > zz:
            if xx < eps:
                return 0.0, h, h, math.pi
            x = math.sqrt(xx)
            return x, xy / x, xz / x, math.pi
        if yy > zz:
            if yy < eps:
                return h, 0.0, h, math.pi
            y = math.sqrt(yy)
            return xy / y, y, yz / y, math.pi
        if zz < eps:
            return h, h, 0.0, math.pi
        z = math.sqrt(zz)
        return xz / z, yz / z, z, math.pi
    s = math.sqrt((m[7] - m[5]) * (m[7] - m[5]) + (m[2] - m[6]) * (m[2] - m[6]) + (m[3] - m[1]) * (m[3] - m[1]))
    if abs(s) < 0.001:
        s = 1
    angle = math.acos(max(-1.0, min(1.0, (m[0] + m[4] + m[8] - 1) / 2)))
    return (m[7] - m[5]) / s, (m[2] - m[6]) / s, (m[3] - m[1]) / s, angle


def ref_drop_axes(m: list[float], x: bool, y: bool, z: bool) -> list[float]:
    """The disabled-axes step of ``WbInertialUnit::computeValue``."""
    ax, ay, az, angle = ref_to_axis_angle(m)
    if not x:
        ax = 0.0
    if not y:
        az = 0.0
    if not z:
        ay = 0.0
    length = math.sqrt(ax * ax + ay * ay + az * az)
    if length:
        inv = 1.0 / length
        ax, ay, az = ax * inv, ay * inv, az * inv
    return ref_from_axis_angle(ax, ay, az, angle)


def ref_rpy(q: tuple[float, ...], nue: bool) -> tuple[float, float, float]:
    """``wb_inertial_unit_get_roll_pitch_yaw``."""
    if nue:
        yaw = math.atan2(2 * q[1] * q[3] - 2 * q[0] * q[2], 1 - 2 * q[1] * q[1] - 2 * q[2] * q[2])
        roll = math.atan2(2 * q[0] * q[3] - 2 * q[1] * q[2], 1 - 2 * q[0] * q[0] - 2 * q[2] * q[2])
        arg = 2 * q[0] * q[1] + 2 * q[2] * q[3]
        return roll, (math.asin(arg) if -1 <= arg <= 1 else math.nan), yaw
    t2 = 2.0 * (q[3] * q[1] - q[2] * q[0])
    t2 = 1.0 if t2 > 1.0 else t2  # C's comparisons: NaN passes through
    t2 = -1.0 if t2 < -1.0 else t2
    return (math.atan2(2.0 * (q[3] * q[0] + q[1] * q[2]), 1.0 - 2.0 * (q[0] * q[0] + q[1] * q[1])), math.asin(t2),
            math.atan2(2.0 * (q[3] * q[2] + q[0] * q[1]), 1.0 - 2.0 * (q[1] * q[1] + q[2] * q[2])))


# -- strategies ----------------------------------------------------------------------------------------------
def _rotation(axis: tuple[float, float, float], angle: float) -> np.ndarray:
    a = np.asarray(axis) / np.linalg.norm(axis)
    return np.array(ref_from_axis_angle(*a, angle)).reshape(3, 3)


_component = st.floats(-1.0, 1.0)
_axis = st.tuples(_component, _component, _component).filter(lambda a: 0.1 < math.sqrt(sum(v * v for v in a)))
_angle = st.one_of(st.floats(0.0, math.pi), st.sampled_from([0.0, 1e-9, 0.004, 0.006, math.pi - 1e-9, math.pi]))
_rotations = st.lists(st.tuples(_axis, _angle), min_size=1, max_size=8).map(
    lambda rs: np.stack([_rotation(a, t) for a, t in rs]))
_special = np.stack([np.eye(3), np.diag([1.0, -1.0, -1.0]), np.diag([-1.0, 1.0, -1.0]), np.diag([-1.0, -1.0, 1.0]),
                     _rotation((1, 1, 0), math.pi), _rotation((0, 1, 1), math.pi), _rotation((1, 0, 1), math.pi)])


@settings(max_examples=80, deadline=None)
@given(_rotations)
def test_quaternions_axis_angles_and_rebuilds_match_webots(m):
    m = np.concatenate([m, _special])
    q = quaternions(m)
    axes, angles = axis_angles(m)
    for i, matrix in enumerate(m):
        flat = matrix.ravel().tolist()
        assert tuple(q[i]) == ref_to_quaternion(flat)
        *axis, angle = ref_to_axis_angle(flat)
        assert tuple(axes[i]) == tuple(axis)
        assert angles[i] == pytest.approx(angle, rel=0, abs=ULPS)
    rebuilt = axis_angle_matrices(axes, angles)
    for i in range(len(m)):
        np.testing.assert_allclose(rebuilt[i].ravel(), ref_from_axis_angle(*axes[i], angles[i]), rtol=0, atol=ULPS)


@settings(max_examples=60, deadline=None)
@given(_rotations, st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), min_size=8, max_size=8))
def test_dropped_axes_match_webots(m, flags):
    enabled = np.array(flags[: len(m)], dtype=bool)
    out = drop_axes(m, enabled)
    for i in range(len(m)):
        np.testing.assert_allclose(out[i].ravel(), ref_drop_axes(m[i].ravel().tolist(), *flags[i]), rtol=0,
                                   atol=ULPS)


@settings(max_examples=60, deadline=None)
@given(_rotations, st.booleans())
def test_roll_pitch_yaw_match_the_controller_library(m, nue):
    q = np.concatenate([quaternions(m), [[0.0, 0.0, 0.0, 1.0], [0.5, 0.5, 0.5, 0.5], [math.nan] * 4]])
    rpy = roll_pitch_yaw(q, nue)
    for i in range(len(q)):
        np.testing.assert_allclose(rpy[i], ref_rpy(tuple(q[i]), nue), rtol=0, atol=ULPS)


def test_quaternions_are_unit_and_rotate_like_their_matrix():
    m = np.stack([_rotation(a, t) for a, t in [((0.3, -0.2, 0.9), 0.4), ((1, 2, 3), 2.0), ((0.6, 0, -0.8), 2.5),
                                                ((0, 1, 0), math.pi), ((1, 1, 1), 3.0)]])
    q = quaternions(m)
    assert np.allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-15, rtol=0)
    for (x, y, z, w), matrix in zip(q, m):
        # The matrix of quaternion (x, y, z, w): R = (w^2 - |v|^2) I + 2 v v^T + 2 w [v]x.
        v = np.array([x, y, z])
        cross = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
        assert np.allclose((w * w - v @ v) * np.eye(3) + 2 * np.outer(v, v) + 2 * w * cross, matrix, atol=1e-14)
    # Webots' sign: w >= 0 while the trace is non-negative (angles up to 2 pi / 3), else the largest diagonal
    # term's component is positive: a 2.5 rad turn about (0.6, 0, -0.8) comes out as the opposite quaternion.
    s, c = math.sin(1.25), math.cos(1.25)
    assert q[2] == pytest.approx([-0.6 * s, 0.0, 0.8 * s, -c], abs=1e-15)
    assert q[0, 3] > 0


def test_euler_matrices_and_product_compose_x_then_y_then_z():
    angles = np.array([[0.3, -0.5, 1.1], [0.0, 0.0, 0.0]])
    m = euler_matrices(angles)
    expected = _rotation((1, 0, 0), 0.3) @ _rotation((0, 1, 0), -0.5) @ _rotation((0, 0, 1), 1.1)
    assert np.allclose(m[0], expected, atol=1e-15)
    assert np.array_equal(m[1], np.eye(3))
    a, b = euler_matrices(np.array([[0.1, 0.2, 0.3]])), euler_matrices(np.array([[-1.0, 0.5, 2.0]]))
    assert np.allclose(product(a, b), a @ b, atol=1e-15)
