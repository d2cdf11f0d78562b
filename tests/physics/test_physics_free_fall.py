"""Free fall: the position after 1 s against MuJoCo's semi-implicit Euler recurrence and against 0.5 g t^2.

Semi-implicit Euler from rest: ``v[n+1] = v[n] + g dt`` then ``x[n+1] = x[n] + v[n+1] dt``, so after N steps
``x = x0 - g dt^2 N (N + 1) / 2``: the continuous drop ``g t^2 / 2`` plus exactly ``g t dt / 2``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

G = 9.81


@pytest.mark.parametrize(("system", "up", "translation"), [
    ("ENU", 2, "0.5 -1 100"),
    ("NUE", 1, "0.5 100 -1"),
    ("EUN", 1, "0.5 100 -1"),
])
@pytest.mark.parametrize("basic_ms", [8, 20])
def test_free_fall_after_one_second(make_sim, solid_of, system: str, up: int, translation: str,  # noqa: ANN001
                                    basic_ms: int) -> None:
    sim = make_sim(f"DEF BALL Solid {{ translation {translation} rotation 1 1 0 0.4 physics Physics {{ }}"
                   " boundingObject Sphere { radius 0.1 } }",
                   f'WorldInfo {{ coordinateSystem "{system}" basicTimeStep {basic_ms} }}')
    ball = solid_of(sim, "BALL")
    # The free joint's qpos, not xpos: after mj_step, xpos still holds the pose the step started from.
    adr = sim.model.jnt_qposadr[ball.free_joint_id]
    dof = sim.model.jnt_dofadr[ball.free_joint_id]
    start = sim.data.qpos[adr : adr + 3].copy()
    sim.run(1.0)
    dt = sim.compiled.physics_step_s
    n = round(1.0 / dt)
    assert sim.time_s == pytest.approx(1.0) and sim.data.time == pytest.approx(1.0)
    drop = start[up] - sim.data.qpos[adr + up]
    exact_discrete = G * dt * dt * n * (n + 1) / 2
    continuous = 0.5 * G * 1.0**2
    assert drop == pytest.approx(exact_discrete, rel=1e-12)
    # The discretisation error of semi-implicit Euler is g t dt / 2 (0.4 % of the drop at dt = 4 ms).
    assert abs(drop - continuous) <= 0.5 * G * 1.0 * dt * (1 + 1e-9)
    assert drop == pytest.approx(continuous, rel=0.005)
    # Velocity is exact for constant acceleration; no sideways drift.
    assert sim.data.qvel[dof + up] == pytest.approx(-G * n * dt, rel=1e-12)
    sideways = np.delete(sim.data.qpos[adr : adr + 3] - start, up)
    np.testing.assert_allclose(sideways, 0.0, atol=1e-12)


def test_free_fall_with_custom_gravity_and_initial_velocity(make_sim, solid_of) -> None:  # noqa: ANN001
    """A projectile: the hidden linearVelocity field starts it; horizontal motion is uniform."""
    sim = make_sim("DEF P Solid { translation 0 0 10 linearVelocity 2 0 3 physics Physics { }"
                   " boundingObject Sphere { radius 0.1 } }", "WorldInfo { basicTimeStep 4 gravity 3.71 }")
    p = solid_of(sim, "P")
    sim.run(1.0)
    n, dt = 250, 0.004
    adr = sim.model.jnt_qposadr[p.free_joint_id]
    position = sim.data.qpos[adr : adr + 3]
    assert position[0] == pytest.approx(2.0, rel=1e-12)
    assert position[2] == pytest.approx(10 + 3 * n * dt - 3.71 * dt * dt * n * (n + 1) / 2, rel=1e-12)
    assert math.isclose(position[1], 0.0, abs_tol=1e-12)
