"""Webots' position sensor sample (projects/samples/devices/worlds/position_sensor.wbt), as a local world.

The world is wbsim's own (no visuals, no distance sensors: the controller reads neither), with the
sample's physics turned from its NUE frame (R2021 geometry: cylinders along y) into ENU: a 5 kg
two-wheeled robot (wheels of 28 mm radius and 0.05 kg on velocity-controlled RotationalMotors with Webots'
default 10 N*m limit and a 100 rad/s speed limit) carrying a 1 kg, 0.16 m pole on a free HingeJoint about
the robot's y axis (the wheels' axle; stops at +-pi/2) whose PositionSensor the controller reads. The
controller is a Python port of the sample's C PID (gains 35 / 5 / 28.9 on the pole angle, its trapezoidal
sum and its per-step difference, 16 ms steps): the wheels turn at minus that speed (clamped to 100 rad/s)
to drive under the pole; it gives up when the pole is beyond 0.78 rad. The sample's description: the
robot keeps the pole "in balance".
"""

from __future__ import annotations

import numpy as np
import pytest

WORLD = """
WorldInfo { basicTimeStep 16 }
Solid { name "floor" boundingObject Plane { size 10 10 } }
Robot {
  translation 0 0 0.003
  rotation 0 0 1 4.00425
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 -1 0 anchor 0 0 0.025 }
      device [ RotationalMotor { name "left wheel motor" maxVelocity 100 } ]
      endPoint Solid {
        translation 0 -0.045 0.025
        name "left wheel"
        boundingObject DEF WHEEL Transform {
          rotation 1 0 0 1.5708 children [ Cylinder { height 0.01 radius 0.028 } ]
        }
        physics DEF WHEEL_PHYSICS Physics { density -1 mass 0.05 }
      }
    }
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 -1 0 anchor 0 0 0.025 }
      device [ RotationalMotor { name "right wheel motor" maxVelocity 100 } ]
      endPoint Solid {
        translation 0 0.045 0.025
        name "right wheel"
        boundingObject USE WHEEL
        physics USE WHEEL_PHYSICS
      }
    }
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 1 0 anchor 0 0 0.085 minStop -1.5708 maxStop 1.5708 }
      device [ PositionSensor { } ]
      endPoint DEF POLE Solid {
        translation 0 0 0.1625
        boundingObject Capsule { height 0.15 radius 0.005 }
        physics Physics { density -1 mass 1 }
      }
    }
  ]
  name "MyBot"
  boundingObject Transform { translation 0 0 0.0415 children [ Cylinder { height 0.08 radius 0.045 } ] }
  physics Physics { density -1 mass 5 centerOfMass [ 0 0 0 ] }
  controller "position_sensor"
}
"""

CONTROLLER = """
from controller import Robot

KP, KI, KD = 35.0, 5.0, 28.9

robot = Robot()
time_step = int(robot.getBasicTimeStep())
pole = robot.getDevice("position sensor")
pole.enable(time_step)
wheels = [robot.getDevice("left wheel motor"), robot.getDevice("right wheel motor")]
for wheel in wheels:
    wheel.setPosition(float("inf"))
    wheel.setVelocity(0.0)
previous = 0.0
integral = 0.0
while robot.step(time_step) != -1:
    angle = pole.getValue()
    if abs(angle) > 0.78:  # fallen: give up, as the sample does
        break
    integral += (angle + previous) * 0.5
    speed = KP * angle + KI * integral + KD * (angle - previous)
    speed = max(-100.0, min(100.0, speed))
    for wheel in wheels:
        wheel.setVelocity(-speed)
    previous = angle
for wheel in wheels:
    wheel.setVelocity(0.0)
"""


def run_sample(project, load, seconds: float) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001
    """(times, pole angles) after every basic step."""
    sim = load(project(WORLD, controllers={"position_sensor": CONTROLLER}))
    pole = sim.bindings.joints[-1].qpos_adr  # the third HingeJoint: the pole's
    times, angles = [], []

    def record(s) -> None:  # noqa: ANN001
        times.append(s.time_s)
        angles.append(float(s.data.qpos[pole]))

    sim.run(seconds, on_step=record)
    return np.asarray(times), np.asarray(angles)


@pytest.mark.xfail(strict=True, reason="not balanced in wbsim (issue 14's second PID robot; review 4): "
                   "the pole leaves upright at about 2.3 s (rounding with the sample's heading) and falls at "
                   "about 4.7 s; the closed loop is unstable in wbsim (a 0.001 rad tilt falls in 3 s), not "
                   "from the step timing, friction, bounce or bounce threshold (docs/differences.md); cause "
                   "not found yet")
def test_the_robot_keeps_the_pole_in_balance(project, load):
    times, angles = run_sample(project, load, 20.0)
    fallen = np.flatnonzero(np.abs(angles) > 0.78)
    tipping = np.flatnonzero(np.abs(angles) > 0.01)
    left = times[tipping[0]] if len(tipping) else None
    fell = times[fallen[0]] if len(fallen) else None
    print(f"pole leaves upright at {left} s, falls at {fell} s; largest angle {np.abs(angles).max():.3f} rad")
    assert not len(fallen)
