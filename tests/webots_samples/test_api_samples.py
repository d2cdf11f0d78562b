"""Webots' motor, position_sensor and sample_supervisor samples (projects/samples/devices), as local worlds.

Worlds and controllers are wbsim's own, built like the samples:

- **motor**: a 1 kg arm on a vertical hinge (damping 1) of a 10 kg base robot with a battery
  (3600 J, cpuConsumption 5 W, the motor's consumptionFactor 100); the controller steps the target by
  pi/4 every 50 steps of 8 ms, reads the torque feedback and the battery sensor each step.
- **position_sensor**: an inverted pendulum (1 kg pole on a hinge with stops) on a two-wheeled robot,
  balanced by a PID on the pole's PositionSensor driving the wheels; it stops when the pole passes 0.7 rad.
- **sample_supervisor**: lists the top-level nodes, reads WorldInfo.gravity, moves a PointLight after 2 s,
  imports a Pose with a Sphere shape at the end of the root after 2 more s, and moves it on a 0.3 m circle.
"""

from __future__ import annotations

import math
import re

MOTOR_WORLD = """
WorldInfo { basicTimeStep 8 }
Solid { name "floor" boundingObject Plane { size 2 2 } }
DEF ROBOT Robot {
  children [
    HingeJoint {
      jointParameters HingeJointParameters { position 1.5708 axis 0 0 1 dampingConstant 1 }
      device [ RotationalMotor { name "motor" consumptionFactor 100 maxVelocity 2 maxTorque 20 } ]
      endPoint Solid {
        boundingObject Pose { translation 0.05 0 0.063 rotation 0 1 0 1.5708 children [ Cylinder { height 0.02 radius 0.001 } ] }
        physics Physics { density -1 mass 1 }
      }
    }
  ]
  boundingObject Pose { translation 0 0 0.019 children [ Cylinder { height 0.04 radius 0.1 } ] }
  physics Physics { density -1 mass 10 }
  controller "motor"
  battery [ 3600, 36000, 5 ]
  cpuConsumption 5
}
"""

MOTOR = """
import math
from controller import AnsiCodes, Robot


class Stepper(Robot):
    def __init__(self):
        super().__init__()
        self.ms = int(self.getBasicTimeStep())
        self.motor = self.getDevice("motor")
        self.motor.enableTorqueFeedback(self.ms)
        self.batterySensorEnable(self.ms)

    def run(self):
        target, count = 0.0, 0
        while self.step(self.ms) != -1:
            self.motor.setPosition(target)
            if count == 50:
                target += math.pi / 4
                count = 0
            count += 1
            print(AnsiCodes.CLEAR_SCREEN)
            print(f"torque {self.motor.getTorqueFeedback()} battery {self.batterySensorGetValue()}")


Stepper().run()
"""


def test_motor_sample_steps_and_drains_its_battery(project, load, capfd):
    sim = load(project(MOTOR_WORLD, controllers={"motor": MOTOR}))
    sim.run(1.2)
    assert not sim.failed
    lines = re.findall(r"torque (\S+) battery (\S+)", capfd.readouterr().out)
    assert len(lines) == 149  # 150 steps; the controller prints after each of its steps returns
    assert float(lines[0][1]) == 3600 - 5 * 0.008  # first sample: one step of cpuConsumption, the arm at rest
    torques = [float(t) for t, _ in lines]
    batteries = [float(b) for _, b in lines]
    assert all(math.isfinite(t) for t in torques) and max(abs(t) for t in torques) > 0.01
    # cpuConsumption alone drains 5 W; the motor's |torque| * 100 comes on top, bounded by maxTorque.
    elapsed = 1.2
    assert 3600 - elapsed * (5 + 100 * 20) < batteries[-1] < 3600 - elapsed * 5 + 1e-9
    assert batteries == sorted(batteries, reverse=True)
    # From 1.5708 toward 0, then pi/4 at 0.4 s, then pi/2 at 0.8 s, at most 2 rad/s: at 1.2 s the arm is
    # within the last 0.1 rad before pi/2.
    joint = sim.bindings.joints[0]
    assert math.pi / 2 - 0.1 < float(sim.data.qpos[joint.qpos_adr]) <= math.pi / 2 + 1e-3


PENDULUM_WORLD = """
WorldInfo { basicTimeStep 16 coordinateSystem "NUE" }
Solid { name "floor" rotation 1 0 0 -1.5708 boundingObject Plane { size 4 4 } }
Robot {
  translation 0 0.003 0
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis -1 0 0 anchor 0 0.025 0 }
      device [ RotationalMotor { name "left wheel motor" consumptionFactor 70 maxVelocity 100 } ]
      endPoint Solid {
        translation -0.045 0.025 0 name "left wheel"
        boundingObject DEF WHEEL Pose { rotation 0 0 1 1.57 children [ Cylinder { height 0.01 radius 0.028 } ] }
        physics DEF WHEEL_PHYSICS Physics { density -1 mass 0.05 }
      }
    }
    HingeJoint {
      jointParameters HingeJointParameters { axis -1 0 0 anchor 0 0.025 0 }
      device [ RotationalMotor { name "right wheel motor" consumptionFactor 70 maxVelocity 100 } ]
      endPoint Solid { translation 0.045 0.025 0 name "right wheel" boundingObject USE WHEEL physics USE WHEEL_PHYSICS }
    }
    HingeJoint {
      jointParameters HingeJointParameters { anchor 0 0.085 0 minStop -1.5708 maxStop 1.5708 }
      device [ PositionSensor { } ]
      endPoint Solid {
        translation 0 0.1625 0 rotation 0 1 0 1.5708
        boundingObject Capsule { height 0.15 radius 0.005 }
        physics Physics { density -1 mass 1 }
      }
    }
  ]
  name "MyBot"
  boundingObject Pose { translation 0 0.0415 0 children [ Cylinder { height 0.08 radius 0.045 } ] }
  physics Physics { density -1 mass 5 centerOfMass [ 0 0 0 ] }
  controller "balancer"
}
"""

BALANCER = """
import math
from controller import AnsiCodes, Robot

robot = Robot()
ms = int(robot.getBasicTimeStep())
pole = robot.getDevice("position sensor")
pole.enable(ms)
wheels = [robot.getDevice("left wheel motor"), robot.getDevice("right wheel motor")]
for wheel in wheels:
    wheel.setPosition(float("inf"))
    wheel.setVelocity(0.0)
previous, integral = 0.0, 0.0
while robot.step(ms) != -1:
    angle = pole.getValue()
    if abs(angle) > 0.7:
        break
    integral += 0.5 * (angle + previous)
    command = max(-100.0, min(100.0, 35 * angle + 5 * integral + 28.9 * (angle - previous)))
    for wheel in wheels:
        wheel.setVelocity(-command)
    print(AnsiCodes.CLEAR_SCREEN)
    print(f"angle {angle:+.4f} command {command:+.4f}")
    previous = angle
print("Pole has fallen.")
for wheel in wheels:
    wheel.setVelocity(0)
robot.step(ms)
"""


def test_position_sensor_sample_runs_its_balance_loop(project, load, capfd):
    sim = load(project(PENDULUM_WORLD, controllers={"balancer": BALANCER}))
    sim.run(3.0)
    assert not sim.failed
    out = capfd.readouterr().out
    angles = [float(a) for a in re.findall(r"angle (\S+) command", out)]
    assert angles and all(abs(a) <= 0.7 for a in angles)
    assert angles[0] == 0.0  # the pole starts upright
    # Either the PID holds the pole for the whole run, or the controller reports its fall, as the sample does.
    assert len(angles) == 187 or "Pole has fallen." in out


SUPERVISOR_WORLD = """
WorldInfo { gravity 9.5 }
Viewpoint { }
Background { }
PointLight { location 0 0 0.3 }
Solid { name "floor" boundingObject Plane { size 2 2 } }
Robot { name "supervisor" supervisor TRUE controller "overseer" }
"""

OVERSEER = """
import math
from controller import Supervisor

supervisor = Supervisor()
children = supervisor.getRoot().getField("children")
print(f"{children.getCount()} nodes:", ", ".join(children.getMFNode(i).getTypeName() for i in range(children.getCount())))
print("gravity", children.getMFNode(0).getField("gravity").getSFFloat())
supervisor.setLabel(0, "moving the light in 2 s", 0.0, 0.0, 0.1, 0x00FF00, 0.1, "Georgia")
supervisor.step(2000)
children.getMFNode(3).getField("location").setSFVec3f([0.5, 0.5, 0.3])
supervisor.step(2000)
children.importMFNodeFromString(-1, "Pose { children [ Shape { appearance PBRAppearance { } "
                                    "geometry Sphere { radius 0.1 subdivision 3 } } ] }")
supervisor.step(2000)
supervisor.setLabel(0, "", 0.0, 0.0, 0.0, 0x00FF00, 0.0, "Georgia")
sphere = children.getMFNode(-1)
translation = sphere.getField("translation")
print("imported", sphere.getTypeName(), children.getCount())
while supervisor.step(32) != -1:
    t = supervisor.getTime()
    translation.setSFVec3f([0.3 * math.cos(t), 0.3 * math.sin(t), 0.0])
"""


def test_sample_supervisor_lists_moves_and_imports_nodes(project, load, capfd):
    sim = load(project(SUPERVISOR_WORLD, controllers={"overseer": OVERSEER}))
    sim.run(7.0)
    assert not sim.failed
    out = capfd.readouterr().out
    assert "6 nodes: WorldInfo, Viewpoint, Background, PointLight, Solid, Robot" in out
    assert "gravity 9.5" in out
    assert "imported Pose 7" in out
    light = sim.world.nodes[3]
    assert sim.supervision.field_value(light, "location") == (0.5, 0.5, 0.3)
    sphere = sim.supervision.overrides[(None, "children")][-1]
    x, y, z = sim.supervision.field_value(sphere, "translation")
    assert abs(math.hypot(x, y) - 0.3) < 1e-9
    assert z == 0.0
