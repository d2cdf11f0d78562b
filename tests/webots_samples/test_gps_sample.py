"""Webots' GPS sample (projects/samples/devices: gps), as a local world.

The world and controllers here are wbsim's own, built like the sample without Webots' PROTOs: a 1 m arena with
four boxes, the two-wheeled "MyBot" (DEF GPS_ROBOT) with two 2-ray distance sensors in front, a GPS at its origin
and a Receiver, and a supervisor robot "gps_supervisor" with an Emitter. As in the sample's controllers (64 ms
steps): the supervisor sends the robot's ``translation`` field through its emitter every step; the robot avoids
obstacles with its distance sensors and prints its GPS position, the supervisor's position it received and its GPS
speed vector. Webots' robot controller prints them when the G, S and V keys are pressed; wbsim has no keyboard,
so the ported controller prints all three every step.

What the sample's documentation says, checked here: the GPS device and the supervisor give the same position
(the supervisor's packet arrives one step later, as emitter packets do), and the speed vector is the robot's
velocity (its full-speed value is 6 rad/s times the 2.5 cm wheel radius).
"""

from __future__ import annotations

import re

import numpy as np

WORLD = """
WorldInfo { info [ "Example use of GPSs, both using the device and using a Supervisor." ] title "GPS" }
Solid { name "floor" boundingObject Plane { size 1 1 } }
Solid { translation 0.505 0 0.05 name "east wall" boundingObject DEF WALL_X Box { size 0.01 1.02 0.1 } }
Solid { translation -0.505 0 0.05 name "west wall" boundingObject USE WALL_X }
Solid { translation 0 0.505 0.05 name "north wall" boundingObject DEF WALL_Y Box { size 1.02 0.01 0.1 } }
Solid { translation 0 -0.505 0.05 name "south wall" boundingObject USE WALL_Y }
DEF GREEN_BOX Solid {
  translation 0.25 0.05 0.05
  children [ Shape { appearance PBRAppearance { baseColor 0 1 0 } geometry DEF BOX0 Box { size 0.1 0.23 0.1 } } ]
  name "green box" boundingObject Shape { geometry USE BOX0 }
}
DEF BLUE_BOX Solid { translation -0.27 -0.2 0.05 rotation 0 0 1 0.31 name "blue box"
                     boundingObject Box { size 0.1 0.1 0.1 } }
DEF YELLOW_BOX Solid { translation -0.15 0.2 0.05 rotation 0 0 1 0.4 name "yellow box"
                       boundingObject Box { size 0.3 0.05 0.1 } }
DEF PINK_BOX Solid { translation 0.1 -0.42 0.05 name "red box" boundingObject Box { size 0.08 0.15 0.1 } }
DEF GPS_ROBOT Robot {
  translation 0 -0.15 0
  rotation 0 0 1 1
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 1 0 anchor 0 0 0.025 }
      device [ RotationalMotor { name "left wheel motor" consumptionFactor 70 } PositionSensor { name "left wheel sensor" } ]
      endPoint Solid {
        translation 0 0.045 0.025 rotation 1 0 0 1.5707963267948966 name "left wheel"
        boundingObject DEF WHEEL Cylinder { height 0.01 radius 0.025 }
        physics DEF PHYSICS_WHEEL Physics { density -1 mass 0.05 }
      }
    }
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 1 0 anchor 0 0 0.025 }
      device [ RotationalMotor { name "right wheel motor" consumptionFactor 70 } PositionSensor { name "right wheel sensor" } ]
      endPoint Solid {
        translation 0 -0.045 0.025 rotation 1 0 0 1.5707963267948966 name "right wheel"
        boundingObject USE WHEEL physics USE PHYSICS_WHEEL
      }
    }
    DistanceSensor {
      translation 0.042 0.02 0.063 rotation 0.940734994155684 0.2398099985101804 0.2398099985101804 1.631852
      name "ds0" lookupTable [ 0 1024 0, 0.05 1024 0, 0.15 0 0 ] numberOfRays 2 aperture 1
    }
    DistanceSensor {
      translation 0.042 -0.02 0.063 rotation 0.9403743985363968 -0.2405161019321887 -0.2405161019321887 1.632235
      name "ds1" lookupTable [ 0 1024 0, 0.05 1024 0, 0.15 0 0 ] numberOfRays 2 aperture 1
    }
    Receiver { translation 0 0.5 0 }
    GPS { }
  ]
  name "MyBot"
  boundingObject Transform { translation 0 0 0.0415 rotation 0 0 1 -1.570796 children [ Cylinder { height 0.08 radius 0.045 } ] }
  physics Physics { density -1 mass 0.5 }
  controller "gps"
}
Robot { children [ Emitter { } ] name "gps_supervisor" controller "gps_supervisor" supervisor TRUE }
"""

# Webots' Python gps controller, with the G, S and V key actions done every step.
GPS_CONTROLLER = """
from controller import Robot


class Controller(Robot):
    SPEED = 6
    timeStep = 64

    def __init__(self):
        super(Controller, self).__init__()
        self.ds0 = self.getDevice('ds0')
        self.ds1 = self.getDevice('ds1')
        self.ds0.enable(self.timeStep)
        self.ds1.enable(self.timeStep)
        self.gps = self.getDevice('gps')
        self.gps.enable(self.timeStep)
        self.receiver = self.getDevice('receiver')
        self.receiver.enable(self.timeStep)
        self.left_motor = self.getDevice('left wheel motor')
        self.right_motor = self.getDevice('right wheel motor')
        self.left_motor.setPosition(float('inf'))
        self.right_motor.setPosition(float('inf'))
        self.left_motor.setVelocity(0.0)
        self.right_motor.setVelocity(0.0)

    def run(self):
        while self.step(self.timeStep) != -1:
            gps_values = self.gps.getValues()
            print(f'GPS position: {gps_values[0]} {gps_values[1]} {gps_values[2]}')
            if self.receiver.getQueueLength() != 0:
                while self.receiver.getQueueLength() > 1:
                    self.receiver.nextPacket()
                coordinates = self.receiver.getFloats()
                print(f'Supervisor position: {coordinates}')
            speed_vector_values = self.gps.getSpeedVector()
            print(f'GPS speed vector: {speed_vector_values[0]} {speed_vector_values[1]} {speed_vector_values[2]}')

            ds0_value = self.ds0.getValue()
            ds1_value = self.ds1.getValue()
            if ds1_value > 500:
                if ds0_value > 200:
                    left_speed = -self.SPEED / 2
                    right_speed = -self.SPEED
                else:
                    left_speed = -ds1_value / 100
                    right_speed = (ds0_value / 100) + 0.5
            elif ds0_value > 500:
                left_speed = (ds1_value / 100) + 0.5
                right_speed = -ds0_value / 100
            else:
                left_speed = self.SPEED
                right_speed = self.SPEED
            self.left_motor.setVelocity(left_speed)
            self.right_motor.setVelocity(right_speed)


controller = Controller()
controller.run()
"""

# Webots' Python gps_supervisor controller.
SUPERVISOR_CONTROLLER = """
from controller import Supervisor


class Controller(Supervisor):
    timeStep = 64

    def __init__(self):
        super(Controller, self).__init__()
        self.emitter = self.getDevice('emitter')
        self.robot_translation = self.getFromDef('GPS_ROBOT').getField('translation')

    def run(self):
        while self.step(self.timeStep) != -1:
            self.emitter.send(self.robot_translation.getSFVec3f())


controller = Controller()
controller.run()
"""

NUMBER = r"(-?[\d.]+(?:e-?\d+)?)"


def test_gps_sample_device_and_supervisor_agree_and_speed_is_the_velocity(project, load, capfd):
    sim = load(project(WORLD, controllers={"gps": GPS_CONTROLLER, "gps_supervisor": SUPERVISOR_CONTROLLER}))
    body = sim.bindings.robots[0].solid.body_id
    truth = []

    def record(s) -> None:
        if s.step_count % 2 == 0:  # the controllers' 64 ms steps
            s.supervision.refresh()
            truth.append(s.data.xpos[body].copy())

    sim.run(25.6, on_step=record)
    out = capfd.readouterr().out
    gps = np.array([[float(v) for v in m] for m in re.findall(rf"GPS position: {NUMBER} {NUMBER} {NUMBER}", out)])
    supervisor = np.array([[float(v) for v in m]
                           for m in re.findall(rf"Supervisor position: \({NUMBER}, {NUMBER}, {NUMBER}\)", out)])
    speed = np.array([[float(v) for v in m]
                      for m in re.findall(rf"GPS speed vector: {NUMBER} {NUMBER} {NUMBER}", out)])
    truth = np.array(truth)
    steps = len(truth)
    # A controller prints what step k gave it when it runs again, at the start of step k + 1: the run's last
    # step is not printed yet.
    assert steps == 400 and len(gps) == len(speed) == steps - 1
    # The GPS is at the robot's origin: it reads the robot's position after each step.
    np.testing.assert_allclose(gps, truth[:-1], atol=1e-12)
    # The supervisor's packet of step k is read at step k + 1: the same position, one step late.
    assert len(supervisor) == len(gps) - 1
    np.testing.assert_allclose(supervisor, gps[:-1], atol=1e-12)
    # The speed vector is the robot's velocity: it matches the displacement per step (the mean velocity over
    # the step), and its largest value is the full-speed 6 rad/s * 0.025 m; the robot stays on the floor.
    displacement = np.diff(gps, axis=0) / 0.064
    mismatch = np.linalg.norm(0.5 * (speed[1:] + speed[:-1]) - displacement, axis=1)
    assert np.median(mismatch) < 0.005
    full = np.linalg.norm(speed[:, :2], axis=1)
    assert 0.14 < np.percentile(full, 90) < 0.16
    assert np.abs(gps[:, 2]).max() < 0.01 and np.median(np.abs(speed[:, 2])) < 0.002
    # The sample's robot wanders the arena and avoids the boxes and the walls.
    assert np.abs(gps[:, :2]).max() < 0.5
    assert np.linalg.norm(np.diff(gps[:, :2], axis=0), axis=1).sum() > 1.0
