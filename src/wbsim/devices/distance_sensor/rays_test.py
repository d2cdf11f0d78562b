"""Webots' ray layout and weights, against a line-by-line transcription of WbDistanceSensor's C++ loops."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbsim.devices.distance_sensor.rays import POLAR, effective_ray_count, ray_directions, ray_weights


def _webots_rays(n: int, aperture: float, gaussian_width: float) -> tuple[list[tuple[float, float, float]], list[float]]:
    """``setupRayDirs`` + ``polarTo3d`` + ``setupRayWeights``, one scalar at a time (the slow reference)."""

    def polar_to_3d(alpha: float, theta: float) -> tuple[float, float, float]:
        alpha += math.pi / 2
        theta *= aperture / 2
        x = math.cos(theta)
        y = -math.sin(theta)
        z = -y * math.sin(alpha)
        y *= math.cos(alpha)
        return x, y, z

    if n == 1:
        dirs = [(1.0, 0.0, 0.0)]
    elif n > 10:
        alphas, thetas = [0.0] * n, [0.0] * n
        left, s, ncone = n, 0, 0
        while left > 0:
            capacity = 3 * ncone + 1
            m = capacity if left > capacity else left
            for _ in range(m):
                alphas[s] = s * (2.0 * math.pi / m)
                thetas[s] = ncone
                s += 1
            left -= capacity
            ncone += 1
        dirs = [polar_to_3d(alphas[i], thetas[i] / (ncone - 1)) for i in range(n)]
    else:
        dirs = [polar_to_3d(*POLAR[n - 1][i]) for i in range(n)]
    if n == 1:
        return dirs, [1.0]
    weights = []
    for x, y, z in dirs:
        theta = math.acos(x / math.sqrt(x * x + y * y + z * z))
        temp = theta / (aperture * gaussian_width)
        weights.append(math.exp(-(temp * temp)))
    total = sum(weights)
    return dirs, [w / total for w in weights]


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40), st.floats(0.01, 2 * math.pi), st.floats(0.05, 10.0))
def test_directions_and_weights_match_webots(n, aperture, gaussian_width):
    dirs, weights = _webots_rays(n, aperture, gaussian_width)
    mine = ray_directions(n, aperture)
    assert mine.shape == (n, 3)
    np.testing.assert_allclose(mine, dirs, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ray_weights(mine, aperture, gaussian_width), weights, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(np.linalg.norm(mine, axis=1), 1.0, atol=1e-12)
    assert ray_weights(mine, aperture, gaussian_width).sum() == pytest.approx(1.0)


def test_a_zero_aperture_casts_one_ray():
    assert effective_ray_count(5, 0.0) == 1
    assert effective_ray_count(5, 0.1) == 5
    assert effective_ray_count(1, 0.0) == 1


def test_predefined_layouts_are_left_right_symmetric_and_within_the_aperture():
    aperture = 1.0
    for n in range(2, 11):
        rays = ray_directions(n, aperture)
        angles = np.arccos(rays[:, 0])
        assert angles.max() == pytest.approx(aperture / 2)
        mirrored = rays * np.array([1.0, -1.0, 1.0])  # left <-> right
        for ray in mirrored:
            assert np.min(np.linalg.norm(rays - ray, axis=1)) < 1e-12


def test_two_rays_lie_left_and_right_and_share_the_weight():
    rays = ray_directions(2, 1.0)  # left (+y) first
    np.testing.assert_allclose(rays, [[math.cos(0.5), math.sin(0.5), 0.0], [math.cos(0.5), -math.sin(0.5), 0.0]],
                               atol=1e-12)
    assert ray_directions(4, 1.0)[1] == pytest.approx([math.cos(0.5), 0.0, math.sin(0.5)])  # the first rim ray is up
    np.testing.assert_allclose(ray_weights(rays, 1.0, 1.0), [0.5, 0.5])


def test_a_narrow_gaussian_favours_the_central_ray():
    rays = ray_directions(4, 1.0)  # a central ray and three on the rim
    weights = ray_weights(rays, 1.0, 0.5)
    assert weights[0] == pytest.approx(1.0 / (1.0 + 3.0 * math.exp(-1.0)))
    assert weights[0] > 2.5 * weights[1]
