"""Cylinder-plane contact points against a dense sampling of the rims (the oracle)."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from wbsim.plugins.cylinder_plane import cylinder_plane_points


def _rims(center, rot, radius, half_height, count=7200):
    angles = np.linspace(0.0, 2 * math.pi, count, endpoint=False)
    ring = radius * (np.outer(np.cos(angles), rot[:, 0]) + np.outer(np.sin(angles), rot[:, 1]))
    return np.vstack([center + half_height * rot[:, 2] + ring, center - half_height * rot[:, 2] + ring])


def _rotation(quat):
    mat = np.zeros(9)
    mujoco.mju_quat2Mat(mat, np.asarray(quat, dtype=float) / np.linalg.norm(quat))
    return mat.reshape(3, 3)


unit = st.floats(-1.0, 1.0, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(quat=st.tuples(unit, unit, unit, unit).filter(lambda q: sum(v * v for v in q) > 0.01),
       radius=st.floats(0.01, 0.5), half_height=st.floats(0.005, 0.5), height=st.floats(-0.3, 0.8))
# Tilts of a few 1e-9 rad, just above the fallback threshold once, found by CI: the rounding of the rim
# direction put the points 1e-9 off the caps.
@example(quat=(0.0, 0.0, 0.1328125, 1e-9), radius=0.5, half_height=0.5, height=0.0)
@example(quat=(0.0, 0.0, 1.0, 1e-9), radius=0.5, half_height=0.5, height=0.0)
def test_the_deepest_point_and_the_rims(quat, radius, half_height, height):
    rot = _rotation(quat)
    center = np.array([0.3, -0.2, height])
    points, dist = cylinder_plane_points(center, rot, radius, half_height, np.zeros(3), np.array([0.0, 0.0, 1.0]))
    assert points.shape == (4, 3) and dist.shape == (4,)
    np.testing.assert_allclose(dist, points[:, 2], atol=1e-12)
    # Every point is on a rim: at the radius from the axis, at a cap.
    local = (points - center) @ rot
    np.testing.assert_allclose(np.hypot(local[:, 0], local[:, 1]), radius, rtol=1e-9)
    np.testing.assert_allclose(np.abs(local[:, 2]), half_height, rtol=1e-9)
    # The first point is the lowest point of the cylinder (to the sampling's resolution).
    sampled = _rims(center, rot, radius, half_height)[:, 2].min()
    assert sampled - radius * (1 - math.cos(math.pi / 7200)) - 1e-10 <= dist[0] <= sampled + 1e-10


def test_an_upright_cylinder_with_a_rounding_level_tilt_gives_the_true_distance():
    # The pose of the flying robot's body at rest (MuJoCo's collider reported 1.10 mm instead of 2.42 mm).
    quat = [0.7104581331916175, -9.012619234001416e-15, -2.0770860216600144e-14, -0.7037394695353397]
    rot = _rotation(quat)
    center = np.array([-0.0005070871403120453, 0.0020148544065597606, 0.0004780442306091444 + 0.0415])
    _, dist = cylinder_plane_points(center, rot, 0.045, 0.04, np.zeros(3), np.array([0.0, 0.0, 1.0]))
    np.testing.assert_allclose(dist[:3], center[2] - 0.04, atol=1e-12)
    np.testing.assert_allclose(dist[3], center[2] + 0.04, atol=1e-12)


@pytest.mark.parametrize("tilt", [0.0, 1e-16, 1e-14, 3e-13, 1e-12, 3e-12, 1e-10, 1e-9, 2e-9, 1e-7, 1e-5])
def test_points_stay_on_the_rims_and_deepest_at_every_small_tilt(tilt):
    quat = [0.0, math.sin(tilt / 2), 0.0, math.cos(tilt / 2)]  # a half-turn about an axis tilt/2 from z: the axis tilts by `tilt`
    rot = _rotation(quat)
    center = np.array([0.3, -0.2, 0.0])
    radius, half_height = 0.5, 0.5
    points, dist = cylinder_plane_points(center, rot, radius, half_height, np.zeros(3), np.array([0.0, 0.0, 1.0]))
    local = (points - center) @ rot
    np.testing.assert_allclose(np.hypot(local[:, 0], local[:, 1]), radius, rtol=1e-14)
    np.testing.assert_allclose(np.abs(local[:, 2]), half_height, rtol=1e-14)
    lowest = center[2] - half_height * math.cos(tilt) - radius * math.sin(tilt)
    assert abs(dist[0] - lowest) <= radius * 1e-12 + 1e-15
