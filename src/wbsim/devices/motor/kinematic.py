"""Webots' kinematic motor control (``WbMotor::runKinematicControl``), vectorised over motors.

A motor without physics to drive (a joint whose endPoint has no Physics, a propeller) moves its current
velocity toward the target velocity by at most ``acc * ts`` per basic step (``acc``: the ``acceleration``
field or the available torque, whichever is smaller; the torque when the acceleration is -1) and its position
by ``velocity * ts`` toward the target position (``+inf``/``-inf`` in velocity control). With the target reached
(within 1e-6) or a position limit met in velocity control, the velocity becomes 0 and nothing moves.
"""

from __future__ import annotations

import numpy as np

__all__ = ["kinematic_control"]

_TARGET_POSITION_THRESHOLD = 1e-6
_TARGET_VELOCITY_THRESHOLD = 1e-6


def kinematic_control(
    position: np.ndarray,
    target_position: np.ndarray,
    target_velocity: np.ndarray,
    current_velocity: np.ndarray,
    acceleration: np.ndarray,
    available: np.ndarray,
    min_position: np.ndarray,
    max_position: np.ndarray,
    ts: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Webots' ``WbMotor::runKinematicControl``, vectorised over motors (kinematic joints, propellers).

    Args:
        position: the motors' positions (k,), rad or m.
        target_position: the motors' target positions (k,), +-inf for velocity control.
        target_velocity: the motors' target velocities (k,), rad/s or m/s (signed).
        current_velocity: the motors' current velocities (k,), rad/s or m/s.
        acceleration: the ``acceleration`` values (k,), -1 for none, rad/s^2 or m/s^2.
        available: the available torques (k,), N*m or N (also the acceleration cap, as in Webots).
        min_position, max_position: the position limits (k,) (equal: no limit).
        ts: the basic time step, s.

    Returns:
        (ran, new current velocity, new position), each (k,): ``ran`` is False where Webots' control did
        nothing this step (its current velocity is then 0 and the position unchanged).
    """
    velocity_control = np.isinf(target_position)
    limited = min_position != max_position
    at_limit = limited & (((position >= max_position) & (target_velocity >= 0.0))
                          | ((position <= min_position) & (target_velocity <= 0.0)))
    with np.errstate(invalid="ignore"):  # inf - inf where velocity control (not used there)
        reached = np.abs(target_position - position) < _TARGET_POSITION_THRESHOLD
    idle = np.where(velocity_control, at_limit, reached)
    acc = np.where((acceleration == -1.0) | (acceleration > available), available, acceleration)
    gap = target_velocity - current_velocity
    up = np.minimum(current_velocity + acc * ts, target_velocity)
    down = np.maximum(current_velocity - acc * ts, target_velocity)
    ramped = np.where(np.abs(gap) > _TARGET_VELOCITY_THRESHOLD, np.where(gap > 0.0, up, down), current_velocity)
    forward = target_position > position
    moved = np.where(forward, np.minimum(position + ramped * ts, target_position),
                     np.maximum(position - ramped * ts, target_position))
    current = np.where(idle, 0.0, ramped)
    new_position = np.where(idle, position, moved)
    return ~idle, current, new_position
