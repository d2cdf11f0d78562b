"""The vectorised propeller arithmetic against scalar transcriptions of Webots' rules."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from wbsim.devices.propeller.physics import point_velocity, thrust_and_torque, wrench_about


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(-500, 500), st.floats(-20, 20), st.floats(-1, 1), st.floats(-1, 1),
                          st.floats(-1e-3, 1e-3), st.floats(-1e-3, 1e-3), st.floats(0, 10)), min_size=1, max_size=6))
def test_thrust_and_torque_formulas(rows) -> None:
    w, v, t1, t2, q1, q2, mt = (np.array(c, dtype=float) for c in zip(*rows))
    thrust, torque = thrust_and_torque(w, v, np.stack([t1, t2], 1), np.stack([q1, q2], 1), mt)
    for k in range(len(rows)):
        assert thrust[k] == t1[k] * w[k] * abs(w[k]) - t2[k] * abs(w[k]) * v[k]
        q = q1[k] * w[k] * abs(w[k]) - q2[k] * abs(w[k]) * v[k]
        assert torque[k] == (q if abs(q) <= mt[k] else math.copysign(mt[k], q))


def test_torque_clamped_to_max_torque_thrust_not() -> None:
    thrust, torque = thrust_and_torque(np.array([100.0, -100.0]), np.zeros(2), np.array([[1.0, 0.0]] * 2),
                                       np.array([[1.0, 0.0]] * 2), np.array([10.0, 10.0]))
    assert thrust.tolist() == [1e4, -1e4] and torque.tolist() == [10.0, -10.0]


def test_point_velocity_of_a_spinning_and_moving_body() -> None:
    # Spinning at 2 rad/s about z, the tree's centre of mass moving at (1, 0, 0): a point 0.5 m along x from it
    # moves at (1, 0, 0) + (0, 0, 2) x (0.5, 0, 0) = (1, 1, 0).
    twist = np.array([[0.0, 0.0, 2.0, 1.0, 0.0, 0.0]])
    np.testing.assert_allclose(point_velocity(twist, np.zeros((1, 3)), np.array([[0.5, 0.0, 0.0]])), [[1.0, 1.0, 0.0]])


def test_wrench_of_a_force_at_a_point() -> None:
    # 3 N along z at 0.2 m along x of the centre of mass: torque (0.2, 0, 0) x (0, 0, 3) = (0, -0.6, 0), plus the
    # pure torque.
    wrench = wrench_about(np.array([[0.0, 0.0, 3.0]]), np.array([[1.2, 0.0, 0.0]]), np.array([[0.0, 0.0, -0.1]]),
                          np.array([[1.0, 0.0, 0.0]]))
    np.testing.assert_allclose(wrench, [[0.0, 0.0, 3.0, 0.0, -0.6, -0.1]], atol=1e-15)
