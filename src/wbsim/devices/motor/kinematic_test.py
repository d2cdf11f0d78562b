"""Webots' kinematic motor control, vectorised, against a scalar transcription of ``runKinematicControl``."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from wbsim.devices.motor.kinematic import kinematic_control


def _reference_control(position, target, target_velocity, current, acceleration, available, lo, hi, ts):
    """``WbMotor::runKinematicControl``, one motor, written as Webots' code reads."""
    if math.isinf(target):
        idle = lo != hi and ((position >= hi and target_velocity >= 0.0) or (position <= lo and target_velocity <= 0.0))
    else:
        idle = abs(target - position) < 1e-6
    if idle:
        return False, 0.0, position
    acc = available if acceleration == -1.0 or acceleration > available else acceleration
    if abs(target_velocity - current) > 1e-6:
        if target_velocity > current:
            current = min(current + acc * ts, target_velocity)
        else:
            current = max(current - acc * ts, target_velocity)
    if target > position:
        position = min(position + current * ts, target)
    else:
        position = max(position - current * ts, target)
    return True, current, position


finite = st.floats(-50.0, 50.0, allow_nan=False)
motor = st.tuples(
    finite,  # position
    st.one_of(st.sampled_from([math.inf, -math.inf]), finite),  # target
    st.floats(-400.0, 400.0),  # target velocity
    st.floats(-400.0, 400.0),  # current velocity
    st.one_of(st.just(-1.0), st.floats(0.0, 100.0)),  # acceleration
    st.floats(0.0, 50.0),  # available torque
    st.sampled_from([(0.0, 0.0), (-1.0, 1.0), (-10.0, 5.0)]),  # limits
)


@settings(max_examples=200, deadline=None)
@given(st.lists(motor, min_size=1, max_size=8), st.sampled_from([0.001, 0.008, 0.032]))
def test_kinematic_control_matches_webots_rule_per_motor(motors, ts) -> None:
    cols = list(zip(*motors))
    limits = np.array(cols[6])
    ran, current, position = kinematic_control(*(np.array(c, dtype=float) for c in cols[:6]), limits[:, 0],
                                               limits[:, 1], ts)
    for k, m in enumerate(motors):
        expected = _reference_control(*m[:6], m[6][0], m[6][1], ts)
        assert (bool(ran[k]), current[k], position[k]) == expected


def test_ramp_uses_the_available_torque_as_acceleration_cap() -> None:
    # Webots: acceleration 50 with maxTorque 15 ramps at 15 rad/s^2; acceleration -1 ramps at the torque.
    one = np.ones(2)
    _, current, _ = kinematic_control(np.zeros(2), np.full(2, np.inf), 100.0 * one, np.zeros(2),
                                      np.array([50.0, -1.0]), np.array([15.0, 30.0]), np.zeros(2), np.zeros(2), 0.032)
    np.testing.assert_allclose(current, [15.0 * 0.032, 30.0 * 0.032], rtol=0, atol=1e-15)
