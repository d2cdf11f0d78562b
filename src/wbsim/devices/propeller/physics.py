"""The arithmetic of Webots' Propeller, vectorised over propellers: the motor ramp and thrust/torque.

Per basic step (``WbPropeller::prePhysicsStep``), for each propeller with a motor:

1. ``WbMotor::runKinematicControl`` (:func:`wbsim.devices.motor.kinematic.kinematic_control`) moves the motor's *current velocity* ``w`` toward its target velocity
   by at most ``acc * ts`` (``acc`` = the ``acceleration`` field or the available torque, whichever is
   smaller, the available torque when the acceleration is -1: Webots uses the torque as rad/s^2 here) and
   moves the propeller's angle by ``w * ts`` toward the target position (``+inf``/``-inf`` in velocity
   control). With the target reached (position control, within 1e-6 rad) or a position limit met in
   velocity control, ``w`` becomes 0 and nothing else happens this step.
2. With ``|w| > 0``: ``V = v(c) . a`` (``v(c)`` the world velocity of the centre of thrust ``c``, ``a`` the
   normalised ``shaftAxis`` *as written in the Propeller's frame*, not rotated into the world: Webots' code),
   ``T = t1 |w| w - t2 |w| V``, ``Q = q1 |w| w - q2 |w| V`` clamped to ``[-maxTorque, maxTorque]``.
3. The force ``T A`` acts at ``c`` and the torque ``-Q A`` on the body (``A``: the shaft axis in world).

Units: rad, rad/s, s, m, m/s, N, N*m. Arrays are (k,) over propellers, vectors (k, 3), in the world frame.
"""

from __future__ import annotations

import numpy as np

__all__ = ["thrust_and_torque", "point_velocity", "wrench_about"]


def thrust_and_torque(
    w: np.ndarray, axial_velocity: np.ndarray, thrust_constants: np.ndarray, torque_constants: np.ndarray,
    max_torque: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Webots' thrust ``T = t1 |w| w - t2 |w| V`` and torque ``Q = q1 |w| w - q2 |w| V`` (clamped to maxTorque).

    Args:
        w: the motors' current velocities (k,), rad/s.
        axial_velocity: ``V`` (k,), m/s.
        thrust_constants, torque_constants: (k, 2) ``(t1, t2)`` and ``(q1, q2)``.
        max_torque: the motors' ``maxTorque`` fields (k,), N*m.

    Returns:
        (T in N, Q in N*m), each (k,).
    """
    speed = np.abs(w)
    thrust = thrust_constants[:, 0] * w * speed - thrust_constants[:, 1] * speed * axial_velocity
    torque = torque_constants[:, 0] * w * speed - torque_constants[:, 1] * speed * axial_velocity
    torque = np.where(np.abs(torque) > max_torque, np.where(torque > 0.0, max_torque, -max_torque), torque)
    return thrust, torque


def point_velocity(twist: np.ndarray, reference: np.ndarray, points: np.ndarray) -> np.ndarray:
    """World velocities (k, 3) of body-fixed ``points`` (k, 3) from MuJoCo twists ``cvel`` (k, 6) = [angular;
    linear at ``reference``] (the subtree centre of mass of each body's tree)."""
    return twist[:, 3:] + np.cross(twist[:, :3], points - reference)


def wrench_about(
    force: np.ndarray, at: np.ndarray, torque: np.ndarray, centre: np.ndarray
) -> np.ndarray:
    """The (k, 6) ``xfrc_applied`` rows equal to ``force`` (k, 3) applied at ``at`` (k, 3) plus a pure ``torque``
    (k, 3): the force at the body's centre of mass ``centre`` (k, 3) and the torque about it (ODE's
    ``dBodyAddForceAtPos`` + ``dBodyAddTorque``)."""
    return np.concatenate([force, torque + np.cross(at - centre, force)], axis=1)
