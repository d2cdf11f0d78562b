"""When a ``setForce`` command acts within a basic step (docs/differences.md, "When a setForce/setTorque
command acts"): wbsim front-loads a torque-mode motor's impulse so that it moves a body as ODE's one
semi-implicit Euler step per basic step does, holding the part that balances gravity. Both checks use a
1 kg load on a SliderJoint of a static Robot, 32 ms basic steps and wbsim's default 4 ms MuJoCo steps (8 per basic step)."""

from __future__ import annotations

import numpy as np
import pytest

H = 0.032  # s, basicTimeStep


def _slider_world(axis: str) -> str:
    return f"""
WorldInfo {{ basicTimeStep 32 }}
Robot {{
  children [
    SliderJoint {{
      jointParameters JointParameters {{ axis {axis} }}
      device [ LinearMotor {{ name "lift" maxForce 100 }} ]
      endPoint Solid {{ translation 0 0 1 boundingObject Box {{ size 0.1 0.1 0.1 }}
                        physics Physics {{ density -1 mass 1 }} }}
    }}
  ]
  controller "<extern>"
}}
"""


def _run(project, load, axis: str, force: float, steps: int) -> tuple[np.ndarray, float]:  # noqa: ANN001
    """(slider positions after each basic step, gravity's magnitude) with ``setForce(force)`` every step."""
    sim = load(project(_slider_world(axis)))
    assert sim.substeps == 8
    robot = sim.robot("robot")
    motor = robot.getDevice("lift")
    slider = next(j for j in sim.bindings.joints if j.kind == "slider").qpos_adr
    positions = []
    for _ in range(steps):
        motor.setForce(force)
        robot.step(32)
        positions.append(float(sim.data.qpos[slider]))
    return np.array(positions), float(-sim.model.opt.gravity[2])


def test_a_force_moves_a_free_load_as_odes_semi_implicit_step(project, load):
    # ODE: v_{k+1} = v_k + H F / m, x_{k+1} = x_k + H v_{k+1}, so x_k = H^2 F / m * k (k + 1) / 2 (a force
    # held over finer steps gives k^2 / 2 instead).
    positions, _ = _run(project, load, "1 0 0", 2.0, 10)
    k = np.arange(1, 11)
    np.testing.assert_allclose(positions, H * H * 2.0 * k * (k + 1) / 2, rtol=1e-9, atol=1e-12)


def test_a_force_equal_to_the_weight_holds_a_load_still(project, load):
    # ODE: v_{k+1} = v_k + H (F / m - g) = 0 at every step: the load does not move (it does not with one
    # 32 ms MuJoCo step either).
    positions, g = _run(project, load, "0 0 1", 9.81, 31)
    print(f"load held by m g: {positions[-1]:.4f} m after 1 s (g = {g})")
    assert abs(positions[-1]) < 1e-3
