"""Webots' InertialUnit sample (projects/samples/devices/worlds/inertial_unit.wbt), as a local world.

The world here is wbsim's own, built like the sample without Webots' PROTOs (a floor Plane instead of the
RectangleArena): a static base carrying a yaw, a pitch and a roll hinge in series, with the inertial unit on
the last link, with the sample's frames (including its rounded angles such as 1.570785 and 3.14159). The
controller is the sample's Python controller: it picks random roll/pitch/yaw targets (seeded here), sends them
to the three motors and waits until ``getRollPitchYaw`` reads each target within 0.01 rad, printing
"reached target after N simulation steps".

The links have no Physics, as in the sample: Webots moves such chained joint endPoints kinematically
(each motor sets its joint's position, at its velocity and acceleration limits), and so does wbsim.

What the sample's documentation says, checked: the inertial unit reports the attitude the arm is driven to,
as roll, pitch and yaw about the world's x, y and z axes (ENU), so every target is reached; and at each
moment the reading is Webots' ZYX decomposition of the sensor's pose.
"""

from __future__ import annotations

import math
import re

import numpy as np

WORLD = """
WorldInfo { info [ "Example world for demonstrating the InertialUnit." ] title "Inertial Unit" basicTimeStep 16 }
Solid { name "floor" boundingObject Plane { size 1 1 } }
DEF ROBOT Robot {
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 0 1 }
      device [ RotationalMotor { name "yaw motor" } ]
      endPoint Solid {
        children [
          HingeJoint {
            jointParameters HingeJointParameters { axis 0 1 0 anchor 0 0 0.33 }
            device [ RotationalMotor { name "pitch motor" minPosition -2.3 maxPosition 1.5 } ]
            endPoint Solid {
              translation 0 0 0.33
              rotation 0 0 1 1.570785
              children [
                HingeJoint {
                  jointParameters HingeJointParameters { axis 0 -1 0 anchor 0 -0.3 0 }
                  device [ RotationalMotor { name "roll motor" } ]
                  endPoint Solid {
                    translation 0 -0.3 0
                    rotation 0 0.7071067811865476 0.7071067811865476 3.14159
                    children [
                      InertialUnit {
                        translation 0 0 -0.08
                        rotation 0.577349935856137 -0.5773509358560258 -0.577349935856137 -2.094395
                        children [ Shape { geometry Box { size 0.04 0.04 0.04 } } ]
                      }
                    ]
                    name "roll link"
                    boundingObject Pose { translation 0 0 -0.06 children [ Box { size 0.02 0.06 0.02 } ] }
                  }
                }
              ]
              name "pitch link"
              boundingObject Pose { translation 0 -0.15 0 children [ Box { size 0.03 0.3 0.04 } ] }
            }
          }
        ]
        name "yaw link"
        boundingObject Pose { translation 0 0 0.18 children [ Cylinder { height 0.3 radius 0.04 } ] }
      }
    }
  ]
  boundingObject Pose { translation 0 0 0.02 children [ Cylinder { height 0.04 radius 0.1 } ] }
  controller "inertial_unit"
}
"""

# The sample's controller (projects/samples/devices/controllers/inertial_unit/inertial_unit.py), seeded.
CONTROLLER = """
from controller import Robot
import math
import random

random.seed(11)


class Controller(Robot):
    def __init__(self):
        super(Controller, self).__init__()
        self.timeStep = int(self.getBasicTimeStep())
        self.inertial_unit = self.getDevice('inertial unit')
        self.inertial_unit.enable(self.timeStep)
        self.yaw_motor = self.getDevice('yaw motor')
        self.pitch_motor = self.getDevice('pitch motor')
        self.roll_motor = self.getDevice('roll motor')

    def run(self):
        i = 0
        while True:
            i += 1
            random.uniform(10.5, 75.5)
            yaw = random.uniform(-math.pi, math.pi)
            pitch = random.uniform(-1.5, 0.8)
            roll = random.uniform(-math.pi, math.pi)
            print(f'new target #{i}: roll/pitch/yaw={roll} {pitch} {yaw}')
            self.yaw_motor.setPosition(yaw)
            self.pitch_motor.setPosition(pitch)
            self.roll_motor.setPosition(roll)
            j = 0
            while True:
                if self.step(self.timeStep) == -1:
                    return
                j += 1
                rpy = self.inertial_unit.getRollPitchYaw()
                if math.fabs(rpy[0] - roll) < 0.01 and math.fabs(rpy[1] - pitch) < 0.01 and math.fabs(rpy[2] - yaw) < 0.01:
                    print(f'reached target after {j} simulation steps')
                    break


controller = Controller()
controller.run()
"""


def _zyx(m: np.ndarray) -> tuple[float, float, float]:
    """Roll, pitch, yaw of a rotation matrix with ``m = Rz(yaw) Ry(pitch) Rx(roll)`` (|pitch| < pi/2)."""
    return math.atan2(m[2, 1], m[2, 2]), math.asin(-m[2, 0]), math.atan2(m[1, 0], m[0, 0])


def test_inertial_unit_sample_reaches_every_target_and_reads_the_arm_attitude(project, load, capfd):
    sim = load(project(WORLD, controllers={"inertial_unit": CONTROLLER}))
    bank = sim.banks["inertial_unit"]
    site = bank.bindings[0].site_id
    worst = [0.0]

    def check(s) -> None:
        # Between samples the reading is the attitude at the last sample, i.e. after this step's physics.
        rpy = bank.roll_pitch_yaw[0]
        if np.isnan(rpy).any():
            return
        m = s.data.site_xmat[site].reshape(3, 3)  # refreshed by the sample taken after this step's physics
        expected = np.array(_zyx(m))
        error = np.abs((rpy - expected + math.pi) % (2 * math.pi) - math.pi)
        worst[0] = max(worst[0], float(error.max()))

    sim.run(6.0, on_step=check)
    out = capfd.readouterr().out
    targets = re.findall(r"new target #(\d+): roll/pitch/yaw=(\S+) (\S+) (\S+)", out)
    reached = [int(n) for n in re.findall(r"reached target after (\d+) simulation steps", out)]
    assert len(reached) >= 5, out
    assert len(targets) == len(reached) + 1  # the last target is still being approached when the run stops
    # Each move takes at most a half turn at the motors' 10 rad/s plus settling: about 20 steps per rad.
    assert all(n < 150 for n in reached), reached
    assert worst[0] < 1e-9  # Webots' quaternion route and the direct ZYX formulas agree to rounding
