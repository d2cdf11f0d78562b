"""The rays of a DistanceSensor as Webots lays them out (``WbDistanceSensor::setupRayDirs/setupRayWeights``).

Directions are unit vectors in the sensor frame (the central ray is its +x axis); weights sum to 1.

- One ray (or several with ``aperture`` 0: Webots then casts a single ray) points along +x with weight 1.
- Up to 10 rays use Webots' predefined polar layouts (``POLAR``: an angle around the axis and a fraction of
  the half-aperture); more rays fill rings of 1, 4, 7, ... rays (``3 k + 1`` on ring ``k``), spread evenly
  out to the half-aperture. A polar pair (alpha, theta) becomes, with ``alpha += pi/2`` and
  ``theta *= aperture / 2``: ``(cos theta, -sin theta cos alpha, sin theta sin alpha)``.
- Weights are Gaussian in the angle ``t`` between a ray and the axis: ``exp(-(t / (aperture * g))^2)``
  with ``g`` = ``gaussianWidth``, normalised to sum 1.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["POLAR", "effective_ray_count", "ray_directions", "ray_weights"]

_HALF = math.pi
_THIRD = 2 * math.pi / 3
_QUARTER = math.pi / 2
_FIFTH = 2 * math.pi / 5
_SIXTH = math.pi / 3
_SEVENTH = 2 * math.pi / 7

POLAR: tuple[tuple[tuple[float, float], ...], ...] = (
    ((0, 0),),
    ((_QUARTER, 1), (-_QUARTER, 1)),
    ((0, 1), (_THIRD, 1), (-_THIRD, 1)),
    ((0, 0), (0, 1), (_THIRD, 1), (-_THIRD, 1)),
    ((0, 0), (0, 1), (_QUARTER, 1), (_HALF, 1), (-_QUARTER, 1)),
    ((0, 0), (0, 1), (_FIFTH, 1), (2 * _FIFTH, 1), (3 * _FIFTH, 1), (4 * _FIFTH, 1)),
    ((0, 0), (0, 1), (_SIXTH, 1), (2 * _SIXTH, 1), (3 * _SIXTH, 1), (4 * _SIXTH, 1), (5 * _SIXTH, 1)),
    ((0, 0), (0, 1), (_SEVENTH, 1), (2 * _SEVENTH, 1), (3 * _SEVENTH, 1), (4 * _SEVENTH, 1), (5 * _SEVENTH, 1),
     (6 * _SEVENTH, 1)),
    ((0, 0.3), (_THIRD, 0.3), (-_THIRD, 0.3), (0, 1), (_SIXTH, 1), (2 * _SIXTH, 1), (3 * _SIXTH, 1),
     (4 * _SIXTH, 1), (5 * _SIXTH, 1)),
    ((0, 0), (0, 0.5), (_THIRD, 0.5), (-_THIRD, 0.5), (0, 1), (_SIXTH, 1), (2 * _SIXTH, 1), (3 * _SIXTH, 1),
     (4 * _SIXTH, 1), (5 * _SIXTH, 1)),
)
"""Webots' predefined (alpha, theta fraction) layouts for 1 to 10 rays."""


def effective_ray_count(number_of_rays: int, aperture: float) -> int:
    """The rays Webots casts: ``numberOfRays``, or 1 when several rays have a zero aperture."""
    return 1 if number_of_rays > 1 and aperture == 0.0 else number_of_rays


def _polar(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(alpha, theta fraction) of each of ``n`` rays (``n`` >= 2)."""
    if n <= len(POLAR):
        table = np.array(POLAR[n - 1], dtype=float)
        return table[:, 0], table[:, 1]
    alphas = np.zeros(n)
    thetas = np.zeros(n)
    left, cone, s = n, 0, 0
    while left > 0:
        capacity = 3 * cone + 1
        m = min(left, capacity)
        two_pi_over_m = 2.0 * math.pi / m
        for _ in range(m):
            alphas[s] = s * two_pi_over_m  # Webots multiplies the running index, not the index on the ring
            thetas[s] = cone
            s += 1
        left -= capacity
        cone += 1
    return alphas, thetas / (cone - 1)


def ray_directions(count: int, aperture: float) -> np.ndarray:
    """The unit direction of each of ``count`` rays in the sensor frame, (count, 3).

    Args:
        count: the rays cast (see :func:`effective_ray_count`), >= 1.
        aperture: the ``aperture`` field (rad).
    """
    if count == 1:
        return np.array([[1.0, 0.0, 0.0]])
    alpha, fraction = _polar(count)
    alpha = alpha + _QUARTER  # the first ray looks up: left/right symmetry
    theta = fraction * (aperture / 2.0)
    y = -np.sin(theta)
    return np.stack([np.cos(theta), y * np.cos(alpha), -y * np.sin(alpha)], axis=1)


def ray_weights(directions: np.ndarray, aperture: float, gaussian_width: float) -> np.ndarray:
    """Webots' normalised Gaussian weight of each ray, (count,).

    Args:
        directions: the rays' unit directions in the sensor frame, (count, 3).
        aperture: the ``aperture`` field (rad).
        gaussian_width: the ``gaussianWidth`` field (> 0).
    """
    if len(directions) == 1:
        return np.ones(1)
    theta = np.arccos(directions[:, 0] / np.linalg.norm(directions, axis=1))
    weights = np.exp(-((theta / (aperture * gaussian_width)) ** 2))
    return weights / weights.sum()
