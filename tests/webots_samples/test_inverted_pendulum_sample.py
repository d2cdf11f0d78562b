"""Webots' inverted pendulum sample (projects/samples/howto/inverted_pendulum), as a local world.

The world is wbsim's own, built like the sample (which is written in NUE) in ENU: a 30 kg rail Robot lying on
the floor, a 1 kg cart on a SliderJoint along x (damping 1.5 N s/m, LinearMotor of 40 N), and a 0.05 kg pole
on a HingeJoint about y whose centre of mass is only 3 cm above the hinge (the sample's ``centerOfMass``).
The controller is a Python port of the sample's C PID (gains 50 / 4 / 2 on the hip angle, its per-step
difference and its running sum; +-4 N towards the rail's centre while the pole is within 0.7 rad; 40 N
limit; ``setForce`` every 32 ms step). Like the C controller it reads the hip once before the first step,
where Webots returns NaN, so its first command is the +40 N that a NaN comparison chain gives.

With these gains the pole is not stable in continuous time (hip loop ``s^3 + 0.12 s^2 + 36.5 s + 57.5``: the
integral gain beats the product of the others); the sample balances because ODE integrates each 32 ms step
in one semi-implicit Euler step, where a force acts as an impulse at the start of the step. wbsim applies a
torque-controlled motor's impulse in the first of its MuJoCo steps for that reason (docs/differences.md);
held over the 8 MuJoCo steps the pole swings up to +-1 rad and falls within 20 s. The cart drifts along the
rail at about 0.9 m/s in both (the sample's floor is 10 km long and its rail 200 m).
"""

from __future__ import annotations

import numpy as np
import pytest

WORLD = """
WorldInfo {
  info [ "The inverted pendulum sample: a PID keeps a pole upright on a cart." ]
  contactProperties [ ContactProperties { material1 "robot_basis" material2 "floor" coulombFriction [ 0.2 ] } ]
}
Solid { name "floor" boundingObject Plane { size 10000 2 } }
Robot {
  children [
    SliderJoint {
      jointParameters JointParameters { axis 1 0 0 dampingConstant 1.5 }
      device [
        LinearMotor { name "horizontal_motor" maxForce 40 }
        PositionSensor { name "horizontal position sensor" }
      ]
      endPoint DEF CART Solid {
        translation 2.69072e-06 0 0.06
        children [
          HingeJoint {
            jointParameters HingeJointParameters { axis 0 1 0 position 0.000161402 anchor 0 0 0.03 }
            device [ PositionSensor { name "hip" } ]
            endPoint DEF POLE Solid {
              translation 0 0.061 0.33
              boundingObject Box { size 0.05 0.02 0.6 }
              physics Physics { density -1 mass 0.05 centerOfMass [ 0 -0.061 -0.27 ] }
            }
          }
        ]
        name "cart"
        contactMaterial "robot_basis"
        boundingObject Box { size 0.3 0.1 0.1 }
        physics Physics { density -1 mass 1 }
      }
    }
  ]
  name "robot"
  boundingObject Box { size 200 0.1 0.01 }
  physics Physics { density -1 mass 30 }
  controller "inverted_pendulum"
}
"""

CONTROLLER = """
from controller import Robot

MAX_FORCE = 40.0
CENTERING_ANGLE = 0.7
CENTERING_FORCE = 4.0
TIME_STEP = 32

robot = Robot()
motor = robot.getDevice("horizontal_motor")
cart = robot.getDevice("horizontal position sensor")
hip = robot.getDevice("hip")
cart.enable(TIME_STEP)
hip.enable(TIME_STEP)
previous = hip.getValue()  # NaN before the first step, as in Webots
integral = 0.0

while robot.step(TIME_STEP) != -1:
    angle = hip.getValue()
    difference = angle - previous
    integral += angle
    force = 50 * angle + 4 * difference + 2 * integral  # the sample's hand-tuned gains
    if abs(angle) < CENTERING_ANGLE:  # lean back towards the middle of the rail
        force += -CENTERING_FORCE if cart.getValue() > 0 else CENTERING_FORCE
    # The C sample's two conditional expressions; a NaN force becomes +MAX_FORCE, as in C.
    force = force if force < MAX_FORCE else MAX_FORCE
    force = force if force > -MAX_FORCE else -MAX_FORCE
    motor.setForce(force)
    previous = angle
"""


def run_pendulum(project, load, seconds: float, held: bool = False,  # noqa: ANN001
                 **options: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(times, hip angles, cart positions) after every basic step of the sample run for ``seconds``.

    ``held``: the motor force held over the MuJoCo steps of each basic step (what wbsim did before), by making
    the motor bank believe there is one MuJoCo step per basic step.
    """
    sim = load(project(WORLD, controllers={"inverted_pendulum": CONTROLLER}), **options)
    if held:
        sim.banks["motor"].substeps = 1
    hip = next(j for j in sim.bindings.joints if j.kind == "hinge").qpos_adr
    slider = next(j for j in sim.bindings.joints if j.kind == "slider").qpos_adr
    times, angles, carts = [], [], []

    def record(s) -> None:  # noqa: ANN001
        times.append(s.time_s)
        angles.append(float(s.data.qpos[hip]))
        carts.append(float(s.data.qpos[slider]))

    sim.run(seconds, on_step=record)
    return np.asarray(times), np.asarray(angles), np.asarray(carts)


def envelope(times: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """The largest |hip angle| in each whole second."""
    return np.array([np.abs(angles[(times > k) & (times <= k + 1)]).max() for k in range(int(times[-1] + 1e-9))])


@pytest.mark.slow
def test_the_sample_balances_the_pole_for_60_s_with_its_own_gains(project, load):
    times, angles, carts = run_pendulum(project, load, 60.0)
    late = times > 50.0
    print(f"largest hip angle {np.abs(angles).max():.3f} rad; over the last 10 s {np.abs(angles[late]).max():.2e} rad; "
          f"cart at {carts[-1]:.1f} m after 60 s")
    assert times[-1] == pytest.approx(60.0, abs=0.032)
    assert np.abs(angles).max() < 0.2  # the first +40 N kick, then it settles
    assert np.abs(angles[late]).max() < 1e-3


def test_the_pole_is_caught_after_the_first_kick_and_settles(project, load):
    """The NaN kick tilts the pole by about 0.13 rad; the PID's swings then shrink every second."""
    times, angles, _ = run_pendulum(project, load, 20.0)
    swings = envelope(times, angles)
    print("largest |hip angle| per second:", " ".join(f"{v:.3f}" for v in swings))
    assert 0.05 < swings[0] < 0.2
    assert np.all(np.diff(swings) <= 1e-4)
    assert swings[-1] < 0.01


def test_the_pole_falls_with_the_force_held_over_the_mujoco_steps(project, load):
    """The cause: the same gains cannot hold the pole when the force acts as a force held over the basic step
    (finer integration of the same command), the timing a Webots controller was not tuned for."""
    times, angles, _ = run_pendulum(project, load, 20.0, held=True)
    swings = envelope(times, angles)
    print("held force, largest |hip angle| per second:", " ".join(f"{v:.3f}" for v in swings))
    assert swings.max() > 0.5


def test_one_mujoco_step_per_basic_step_balances_alike(project, load):
    """ODE's own discretisation (one 32 ms semi-implicit step) gives the same settling, within 50 %."""
    times, fine, _ = run_pendulum(project, load, 10.0)
    _, coarse, _ = run_pendulum(project, load, 10.0, max_physics_step_ms=32.0)
    ratio = envelope(times, coarse) / envelope(times, fine)
    print("per-second swing ratio, 32 ms / 4 ms MuJoCo steps:", " ".join(f"{v:.2f}" for v in ratio))
    assert np.all((ratio > 0.67) & (ratio < 1.5))
