"""Tests for wbsim.compile.frames: axis-angle, quaternion and matrix conversions, Frame algebra.

MuJoCo's own conversions (``mju_axisAngle2Quat``, ``mju_quat2Mat``, ``mju_mat2Quat``) are the oracle.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbsim.compile.frames import (
    Frame,
    axis_angle_from_quat,
    matrix_to_quat,
    quat_from_axis_angle,
    quat_to_matrix,
)

finite = st.floats(-10.0, 10.0, allow_nan=False, allow_infinity=False)
axes = st.tuples(finite, finite, finite).filter(lambda v: np.linalg.norm(v) > 1e-3)
angles = st.floats(-2 * math.pi, 2 * math.pi, allow_nan=False)
unit_quats = st.tuples(finite, finite, finite, finite).filter(lambda v: np.linalg.norm(v) > 1e-3).map(
    lambda v: np.asarray(v) / np.linalg.norm(v))
rotations = st.tuples(axes, angles).map(lambda a: (*a[0], a[1]))
translations = st.tuples(finite, finite, finite).map(np.asarray)
frames = st.builds(lambda t, r: Frame.from_webots(tuple(t), r), translations, rotations)


def same_rotation(q1: np.ndarray, q2: np.ndarray, tol: float = 1e-9) -> bool:
    """True if two unit quaternions stand for one rotation (q and -q are the same rotation)."""
    return min(np.linalg.norm(q1 - q2), np.linalg.norm(q1 + q2)) < tol


def mj_quat(axis: tuple[float, float, float], angle: float) -> np.ndarray:
    q = np.zeros(4)
    mujoco.mju_axisAngle2Quat(q, np.asarray(axis, dtype=float) / np.linalg.norm(axis), angle)
    return q


# --- quaternions and matrices -------------------------------------------------------------------------------


@given(axes, angles)
def test_quat_from_axis_angle_matches_mujoco(axis: tuple[float, float, float], angle: float) -> None:
    q = quat_from_axis_angle((*axis, angle))
    assert np.linalg.norm(q) == pytest.approx(1.0)
    assert same_rotation(q, mj_quat(axis, angle))


def test_quat_from_axis_angle_degenerate() -> None:
    np.testing.assert_array_equal(quat_from_axis_angle((0, 0, 0, 1.0)), [1, 0, 0, 0])
    np.testing.assert_array_equal(quat_from_axis_angle((0, 0, 1, 0.0)), [1, 0, 0, 0])


def test_quarter_turns_by_hand() -> None:
    # 90 degrees about z maps x to y: the matrix's first column is the rotated x axis.
    r = quat_to_matrix(quat_from_axis_angle((0, 0, 1, math.pi / 2)))
    np.testing.assert_allclose(r @ [1, 0, 0], [0, 1, 0], atol=1e-12)
    np.testing.assert_allclose(r[:, 0], [0, 1, 0], atol=1e-12)
    # Webots' doc example: 0 1 0 -1.5708 and 0 -1 0 1.5708 are the same rotation.
    assert same_rotation(quat_from_axis_angle((0, 1, 0, -1.5708)), quat_from_axis_angle((0, -1, 0, 1.5708)))


@given(unit_quats)
def test_quat_to_matrix_matches_mujoco(q: np.ndarray) -> None:
    expected = np.zeros(9)
    mujoco.mju_quat2Mat(expected, q)
    r = quat_to_matrix(q)
    np.testing.assert_allclose(r, expected.reshape(3, 3), atol=1e-12)
    np.testing.assert_allclose(r @ r.T, np.eye(3), atol=1e-12)
    assert np.linalg.det(r) == pytest.approx(1.0)


def test_quat_to_matrix_normalises() -> None:
    np.testing.assert_allclose(quat_to_matrix(np.array([2.0, 0, 0, 0])), np.eye(3))


@given(unit_quats)
def test_matrix_quat_round_trip(q: np.ndarray) -> None:
    back = matrix_to_quat(quat_to_matrix(q))
    assert back[0] >= 0
    assert np.linalg.norm(back) == pytest.approx(1.0)
    assert same_rotation(back, q)


@pytest.mark.parametrize("angle", [math.pi, math.pi - 1e-9, 1e-12, 0.0])
@pytest.mark.parametrize("axis", [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0), (1, -1, 1), (0, -1, -1)])
def test_matrix_to_quat_near_singular_angles(axis: tuple[float, float, float], angle: float) -> None:
    # Half-turns exercise the trace <= 0 branches of matrix_to_quat.
    q = quat_from_axis_angle((*axis, angle))
    assert same_rotation(matrix_to_quat(quat_to_matrix(q)), q, tol=1e-7)


@given(rotations)
def test_axis_angle_round_trip(rotation: tuple[float, float, float, float]) -> None:
    q = quat_from_axis_angle(rotation)
    x, y, z, angle = axis_angle_from_quat(q)
    assert 0.0 <= angle <= math.pi + 1e-12
    assert math.hypot(x, y, z) == pytest.approx(1.0)
    assert same_rotation(quat_from_axis_angle((x, y, z, angle)), q, tol=1e-7)


@pytest.mark.parametrize("angle", [1e-6, 1e-9, 3e-11])
def test_axis_angle_of_tiny_rotations_keeps_a_unit_axis(angle: float) -> None:
    x, y, z, back = axis_angle_from_quat(quat_from_axis_angle((0, 0.6, 0.8, angle)))
    assert (x, y, z) == pytest.approx((0, 0.6, 0.8), abs=1e-12)
    assert back == pytest.approx(angle, rel=1e-9)


def test_axis_angle_of_identity() -> None:
    assert axis_angle_from_quat(np.array([1.0, 0, 0, 0])) == (0.0, 0.0, 1.0, 0.0)
    assert axis_angle_from_quat(np.array([-1.0, 0, 0, 0])) == (0.0, 0.0, 1.0, 0.0)


def test_axis_angle_from_negative_w_quaternion() -> None:
    # -q is the same rotation; the result keeps the angle in [0, pi].
    q = quat_from_axis_angle((0, 0, 1, 2.0))
    x, y, z, angle = axis_angle_from_quat(-q)
    assert (x, y, z) == pytest.approx((0, 0, 1))
    assert angle == pytest.approx(2.0)


# --- frames -------------------------------------------------------------------------------------------------


def test_identity_frame() -> None:
    f = Frame.identity()
    np.testing.assert_array_equal(f.apply([1, 2, 3]), [1, 2, 3])
    np.testing.assert_array_equal(f.quat, [1, 0, 0, 0])


def test_from_webots_by_hand() -> None:
    f = Frame.from_webots((1, 2, 3), (0, 0, 1, math.pi / 2))
    np.testing.assert_allclose(f.apply([1, 0, 0]), [1, 3, 3], atol=1e-12)
    assert same_rotation(f.quat, quat_from_axis_angle((0, 0, 1, math.pi / 2)))


@given(frames, frames, translations)
def test_composition_applies_inner_first(a: Frame, b: Frame, p: np.ndarray) -> None:
    np.testing.assert_allclose((a @ b).apply(p), a.apply(b.apply(p)), atol=1e-9)


@given(frames, frames, frames)
@settings(max_examples=50)
def test_composition_is_associative(a: Frame, b: Frame, c: Frame) -> None:
    left, right = (a @ b) @ c, a @ (b @ c)
    np.testing.assert_allclose(left.pos, right.pos, atol=1e-9)
    np.testing.assert_allclose(left.rot, right.rot, atol=1e-12)


@given(frames, translations)
def test_inverse(f: Frame, p: np.ndarray) -> None:
    np.testing.assert_allclose(f.inverse().apply(f.apply(p)), p, atol=1e-9)
    for ident in (f @ f.inverse(), f.inverse() @ f):
        np.testing.assert_allclose(ident.pos, 0.0, atol=1e-9)
        np.testing.assert_allclose(ident.rot, np.eye(3), atol=1e-12)


@given(frames, frames)
def test_quaternion_of_composition_is_the_product(a: Frame, b: Frame) -> None:
    product = np.zeros(4)
    mujoco.mju_mulQuat(product, a.quat, b.quat)
    assert same_rotation((a @ b).quat, product, tol=1e-8)


# --- same bits as numpy scalar arithmetic ------------------------------------------------------------------------
# The conversions compute with Python floats for speed (they run per body and geom at load); the compiled model
# must not change by a bit. References: the same formulas on numpy scalars.


def _numpy_quat_from_axis_angle(rotation: tuple[float, ...]) -> np.ndarray:
    x, y, z, angle = (float(v) for v in rotation)
    norm = np.sqrt(x * x + y * y + z * z)
    if norm == 0.0 or angle == 0.0:
        return np.array([1.0, 0.0, 0.0, 0.0])
    s = np.sin(angle / 2.0) / norm
    return np.array([np.cos(angle / 2.0), x * s, y * s, z * s])


def _numpy_quat_to_matrix(q: np.ndarray) -> np.ndarray:
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def _numpy_matrix_to_quat(r: np.ndarray) -> np.ndarray:
    m = np.asarray(r, dtype=float)
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    if trace > 0:
        s = 2.0 * np.sqrt(trace + 1.0)
        q = np.array([0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s])
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = 2.0 * np.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2])
        q = np.array([(m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s])
    elif m[1, 1] > m[2, 2]:
        s = 2.0 * np.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2])
        q = np.array([(m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s])
    else:
        s = 2.0 * np.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1])
        q = np.array([(m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s])
    q /= np.linalg.norm(q)
    return q if q[0] >= 0 else -q


@given(rotations)
@settings(max_examples=300)
def test_conversions_give_the_bits_of_numpy_scalar_arithmetic(rotation: tuple[float, float, float, float]) -> None:
    q = quat_from_axis_angle(rotation)
    assert q.tobytes() == _numpy_quat_from_axis_angle(rotation).tobytes()
    r = quat_to_matrix(q * 1.5)  # not unit: the normalisation too
    assert r.tobytes() == _numpy_quat_to_matrix(q * 1.5).tobytes()
    for m in (r, r[[1, 2, 0]], -r, r[::-1]):  # every branch of the conversion (trace > 0, each largest diagonal)
        assert matrix_to_quat(m).tobytes() == _numpy_matrix_to_quat(m).tobytes()
