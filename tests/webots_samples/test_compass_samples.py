"""Webots' Compass sample (projects/samples/devices/worlds/compass.wbt), as a local world.

The world here is wbsim's own, built like the sample without Webots' PROTOs (a 1 m arena of four walls
instead of the RectangleArena): the green and blue boxes, and the sample's two-wheeled robot (turned a
quarter turn) with two 15-ray sonars in front, a Compass (turned back by a quarter turn inside the robot) and
a needle on a hinge above its body. The controller is the sample's Python controller: it drives straight,
turns left when a sonar sees something within 10 cm, and sets the needle's motor to
``atan2(north[1], north[0])`` of the compass reading.

The needle has no Physics nor boundingObject, as in the sample: Webots and wbsim move such a joint endPoint
kinematically (its motor sets the joint's position).

What the sample's documentation says ("a robot is equipped with a needle that constantly points towards the
north while it moves around"), checked: the robot turns through many headings, the compass reads the world's
north (+y in this ENU world) in its own frame at every step, and the needle holds one world direction while the
robot turns under it (up to the lag of the arrow motor's position control). That direction is +x: the sample's
frames were drawn for Webots' former NUE worlds, where north was +x, and rotated into ENU, where current Webots'
north (``WorldInfo.coordinateSystem``) is +y (by the sample's frames, Webots' needle holds +x too).
"""

from __future__ import annotations

import math

import numpy as np

WORLD = """
WorldInfo { info [ "Example use of the Compass device." ] title "Compass" basicTimeStep 8 }
Solid { name "floor" boundingObject Plane { size 1 1 } }
Solid { translation 0.505 0 0.05 name "east wall" boundingObject DEF WALL_X Box { size 0.01 1.02 0.1 } }
Solid { translation -0.505 0 0.05 name "west wall" boundingObject USE WALL_X }
Solid { translation 0 0.505 0.05 name "north wall" boundingObject DEF WALL_Y Box { size 1.02 0.01 0.1 } }
Solid { translation 0 -0.505 0.05 name "south wall" boundingObject USE WALL_Y }
DEF GREEN_BOX Solid { translation 0.023478 0.438565 0.05 rotation 0 0 1 1.5708 name "green box"
                      boundingObject Box { size 0.1 0.23 0.1 } }
DEF BLUE_BOX Solid { translation 0.438027 -0.148478 0.05 name "blue box" boundingObject Box { size 0.1 0.1 0.1 } }
DEF COMPASS_ROBOT Robot {
  rotation 0 0 1 1.5708
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 1 0 anchor 0 0 0.025 }
      device [ RotationalMotor { name "left wheel motor" consumptionFactor 70 } PositionSensor { name "left wheel sensor" } ]
      endPoint Solid {
        translation 0 0.045 0.025
        rotation 0.13448695438559669 -0.13448695438559669 -0.9817466670176033 1.589217
        children [ DEF WHEEL Pose { rotation 0.577656895078166 0.5771968951617173 -0.5771968951617173 -2.093935
                                    children [ Shape { geometry Cylinder { height 0.01 radius 0.025 } } ] } ]
        name "left wheel"
        boundingObject USE WHEEL
        physics DEF PHYSICS_WHEEL Physics { density -1 mass 0.05 }
      }
    }
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 1 0 anchor 0 0 0.025 }
      device [ RotationalMotor { name "right wheel motor" consumptionFactor 70 } PositionSensor { name "right wheel sensor" } ]
      endPoint Solid {
        translation 0 -0.045 0.025
        rotation -0.06235700094427207 0.06235700094427207 -0.9961040150840031 1.5747
        children [ USE WHEEL ]
        name "right wheel"
        boundingObject USE WHEEL
        physics USE PHYSICS_WHEEL
      }
    }
    DistanceSensor { translation 0.042 0.02 0.063 rotation 0 0 -1 -0.6545053071795861 name "us0"
                     lookupTable [ 0 0 0, 0.2 200 0 ] type "sonar" numberOfRays 15 }
    DistanceSensor { translation 0.042 -0.02 0.063 rotation 0 0 1 -0.6544953071795865 name "us1"
                     lookupTable [ 0 0 0, 0.2 200 0 ] type "sonar" numberOfRays 15 }
    Compass { translation 0 0 0.05 rotation 0 0 1 -1.5708 }
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 0 1 anchor 0 0 0.1 }
      device [ RotationalMotor { name "arrow" } ]
      endPoint Solid {
        translation 0 0 0.1
        rotation 0.5773502691896257 -0.5773502691896257 -0.5773502691896257 2.094395
        children [ DEF NEEDLE_HEAD Pose { translation 0 0 0.05 rotation 0 0 -1 -1.570795
                                          children [ Shape { geometry Cone { bottomRadius 0.01 height 0.02 } } ] } ]
        name "needle"
      }
    }
  ]
  name "MyBot"
  boundingObject Pose { translation 0 0 0.0415 rotation 0 0 1 -1.570796 children [ Cylinder { height 0.08 radius 0.045 } ] }
  physics Physics { density -1 mass 0.5 }
  controller "compass"
}
"""

# The sample's controller (projects/samples/devices/controllers/compass/compass.py).
CONTROLLER = """
from controller import Robot
from math import atan2


class Controller(Robot):
    def __init__(self):
        super(Controller, self).__init__()
        self.timeStep = 8
        self.compass = self.getDevice('compass')
        self.compass.enable(self.timeStep)
        self.arrow = self.getDevice('arrow')
        self.us0 = self.getDevice('us0')
        self.us0.enable(self.timeStep)
        self.us1 = self.getDevice('us1')
        self.us1.enable(self.timeStep)
        self.left_motor = self.getDevice('left wheel motor')
        self.right_motor = self.getDevice('right wheel motor')
        self.left_motor.setPosition(float('inf'))
        self.right_motor.setPosition(float('inf'))

    def run(self):
        while self.step(self.timeStep) != -1:
            d0 = self.us0.getValue()
            d1 = self.us1.getValue()
            if d0 < 100 or d1 < 100:
                self.left_motor.setVelocity(-5)
                self.right_motor.setVelocity(5)
            else:
                self.left_motor.setVelocity(5)
                self.right_motor.setVelocity(5)
            north = self.compass.getValues()
            angle = atan2(north[1], north[0])
            self.arrow.setPosition(angle)


controller = Controller()
controller.run()
"""


def _wrap(angle: np.ndarray) -> np.ndarray:
    return (np.asarray(angle) + math.pi) % (2 * math.pi) - math.pi


def test_compass_sample_needle_holds_one_direction_while_the_robot_turns(project, load):
    sim = load(project(WORLD, controllers={"compass": CONTROLLER}))
    robot_body = sim.bindings.robots[0].solid.body_id
    needle = next(s for s in sim.bindings.solids if s.node["name"] == "needle").body_id
    compass = sim.banks["compass"]
    headings, needles, commands, readings, expected = [], [], [], [], []
    turn = np.array([[math.cos(-1.5708), -math.sin(-1.5708), 0.0], [math.sin(-1.5708), math.cos(-1.5708), 0.0],
                     [0.0, 0.0, 1.0]])  # the compass in the robot: rotation 0 0 1 -1.5708

    def record(s) -> None:
        rot = s.data.xmat[robot_body].reshape(3, 3)
        headings.append(math.atan2(rot[1, 0], rot[0, 0]))  # the robot's x axis, from east
        expected.append((rot @ turn).T @ [0.0, 1.0, 0.0])  # north (+y in ENU) in the compass frame
        tip = s.data.xmat[needle].reshape(3, 3) @ np.array([0.0, 0.0, 1.0])  # toward the needle's head
        needles.append(math.atan2(tip[1], tip[0]))
        values = compass.values[0]
        readings.append(values.copy())
        commands.append(math.atan2(values[1], values[0]))  # what the controller sends to the needle

    sim.run(10.0, on_step=record)
    headings, needles, commands, readings, expected = (np.array(a) for a in
                                                       (headings, needles, commands, readings, expected))
    assert np.ptp(np.unwrap(headings)) > 2.5  # it turned at walls and boxes (half a turn in all)
    # The compass reads north in its frame (the robot's, turned back by a quarter turn), also as the robot rocks
    # on its two wheels and its body.
    assert np.allclose(readings, expected, rtol=0, atol=1e-12)
    assert np.abs(readings[:, 2]).max() > 1e-3
    # The needle holds the world's +x direction: the north of the NUE world the sample was drawn for (its frames
    # were rotated into ENU, where Webots' north is +y). The arrow motor's position control (P = 10, Webots'
    # default) lags a turning robot by about its yaw rate / 10 (2.8 rad/s when it turns on the spot: 0.28 rad),
    # and when the command wraps at +-pi the motor swings the needle a full turn the other way round.
    rate = np.abs(np.diff(np.unwrap(headings), prepend=headings[0])) / 0.008
    wraps = np.abs(np.diff(commands, prepend=commands[0])) > math.pi
    needle = np.abs(_wrap(needles))
    settle = 80  # steps (0.64 s: the lag decays by 8 % a step)
    swing = 80 + settle  # a full turn at 10 rad/s, then settling

    def after(events: np.ndarray, steps: int) -> np.ndarray:
        window = np.zeros(len(events), dtype=bool)
        for start in np.flatnonzero(events):
            window[start : start + steps] = True
        return window

    steady = ~after(rate > 0.1, settle) & ~after(wraps, swing)
    steady[:settle] = False  # the first swing, from the needle's initial position
    assert steady.mean() > 0.4  # enough steady samples (its path varies: 0.48 with ODE's bounce threshold)
    assert needle[steady].max() < 0.01
    turning = ~after(wraps, swing)
    turning[:settle] = False
    assert needle[turning].max() < 0.35
