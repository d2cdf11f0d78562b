"""Webots' ``Damping`` (Physics.damping, WorldInfo.defaultDamping) as MuJoCo velocity actuators at the centre of mass.

ODE damps a body by scaling its linear velocity (that of its centre of mass, ODE's body origin) and its
angular velocity; Webots gives the fractions lost per second. As forces: ``F = -k m v_com`` at the centre of
mass and ``T = -k_a I w`` about it, with ``k = -ln(1 - d)`` so that a free body keeps ``(1 - d)`` of its
velocity after one second. MuJoCo's joint damping cannot express this: it is diagonal in joint velocities,
and a free joint's linear velocity is that of the body origin, so damping it pushes at the origin and spins
a body whose origin is off its centre of mass (0.135 rad/s after 1 s in the repro of issue 14).

So each damped body gets a site at its centre of mass, along its principal axes of inertia, and up to six
``velocity`` actuators on that site (site transmission, control 0, so the force is ``-kv`` times the
site's velocity along the gear axis): three along the site's axes with ``kv = k m`` and three about them
with ``kv = k_a I_i``. ``implicitfast`` integrates them implicitly, stable for any fraction. A tree whose
only actuators are these may still sleep (MuJoCo keeps trees with actuators awake by default).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import mujoco
import numpy as np

__all__ = ["DampedBody", "add_damping_actuators", "allow_sleep_of_damped_trees"]

_MAX_FRACTION = 0.999999  # a fraction of 1 (stop at once) would be an infinite rate


@dataclass(frozen=True)
class DampedBody:
    """A body with Webots damping.

    Attributes:
        body: the MuJoCo body's name.
        linear: fraction of the centre of mass's velocity lost per second, in [0, 1].
        angular: fraction of the angular velocity lost per second, in [0, 1].
    """

    body: str
    linear: float
    angular: float


def _rate(fraction: float) -> float:
    """The exponential decay rate (1/s) that keeps ``1 - fraction`` of a velocity after one second."""
    return -math.log(1.0 - min(fraction, _MAX_FRACTION))


def _principal_frame(full_inertia: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(principal moments (3,), quaternion w x y z of the principal axes in the body frame) of
    ``full_inertia`` = (Ixx, Iyy, Izz, Ixy, Ixz, Iyz)."""
    ixx, iyy, izz, ixy, ixz, iyz = full_inertia
    tensor = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    moments, axes = np.linalg.eigh(tensor)
    if np.linalg.det(axes) < 0:
        axes[:, 2] = -axes[:, 2]
    quat = np.zeros(4)
    mujoco.mju_mat2Quat(quat, axes.flatten())
    return moments, quat


def add_damping_actuators(spec: mujoco.MjSpec, bodies: list[DampedBody],
                          body_of: Callable[[str], mujoco.MjsBody] | None = None) -> list[str]:
    """Add the site and velocity actuators of every damped body (before compilation).

    The bodies' mass, centre of mass (``ipos``) and ``fullinertia`` must be final. ``body_of`` finds a body
    by name (default: ``spec.body``; the builder's bodies may sit in specs not attached yet).

    Returns:
        The names of the actuators added.
    """
    names: list[str] = []
    for damped in bodies:
        k_linear, k_angular = _rate(damped.linear), _rate(damped.angular)
        if k_linear == 0.0 and k_angular == 0.0:
            continue
        body = (body_of or spec.body)(damped.body)
        moments, quat = _principal_frame(np.asarray(body.fullinertia, dtype=float))
        site = f"{damped.body}__damping"
        body.add_site(name=site, pos=list(body.ipos), quat=quat.tolist())
        gains = [(axis, k_linear * body.mass) for axis in range(3)] + \
                [(3 + axis, k_angular * float(moments[axis])) for axis in range(3)]
        for index, gain in gains:
            if gain <= 0.0:
                continue
            gear = [0.0] * 6
            gear[index] = 1.0
            name = f"{site}{index}"
            actuator = spec.add_actuator(name=name, target=site, trntype=mujoco.mjtTrn.mjTRN_SITE, gear=gear)
            actuator.set_to_velocity(kv=gain)
            names.append(name)
    return names


def allow_sleep_of_damped_trees(model: mujoco.MjModel, damping_actuators: list[str]) -> None:
    """Let trees sleep whose only actuators are damping ones (a damper at rest applies no force)."""
    if not damping_actuators:
        return
    ours = {mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_ACTUATOR, name) for name in damping_actuators}
    damped_trees, other_trees = set(), set()
    for actuator in range(model.nu):
        kind, target = int(model.actuator_trntype[actuator]), int(model.actuator_trnid[actuator, 0])
        if kind == mujoco.mjtTrn.mjTRN_SITE:
            tree = int(model.body_treeid[model.site_bodyid[target]])
        elif kind in (mujoco.mjtTrn.mjTRN_JOINT, mujoco.mjtTrn.mjTRN_JOINTINPARENT):
            tree = int(model.body_treeid[model.jnt_bodyid[target]])
        else:
            return  # a transmission we cannot place in one tree: keep MuJoCo's policy everywhere
        (damped_trees if actuator in ours else other_trees).add(tree)
    for tree in damped_trees - other_trees:
        # The compiler's automatic "never" (because of the actuators), not a policy someone asked for.
        if tree >= 0 and model.tree_sleep_policy[tree] == mujoco.mjtSleepPolicy.mjSLEEP_AUTO_NEVER:
            model.tree_sleep_policy[tree] = mujoco.mjtSleepPolicy.mjSLEEP_AUTO_ALLOWED
