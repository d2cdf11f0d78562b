"""Webots' coupled-motors sample (projects/samples/devices/worlds/coupled_motors.wbt), as a local world.

A gripper on a vertical slider (LinearMotor, 15 N) above a table: each finger is a parallelogram of an
actuated link (``motor::left finger``, and ``motor::right finger`` with multiplier -1) and a passive link,
both pivoting on the finger, closed by a ``SolidReference`` onto the finger. The controller (the sample's
Python controller, ported) commands only the left motor: it closes the gripper (0.42 rad) around a 1 kg
box, then raises the slider to 0.14 m at 0.1 m/s. The world is wbsim's own: no meshes, gears or visuals (the
gears have no bounding object and zero density), the Table PROTO replaced by a static slab whose top is
at z = 0, the sample's physics kept (densities 500, the slider body 10 g, finger boxes 40 x 5 x 10 mm).

Coupling closes both fingers symmetrically, and the ``SolidReference`` loops (``docs/closed_loops.md``) keep
each finger parallel. The box is not lifted (expected failure below). At 0.42 rad the pads' inner faces are
23.5 mm apart, the box is 25 mm wide: in Webots each pad presses 0.75 mm into it with ODE's contact spring
(``softERP / (softCFM * basicTimeStep)`` = 25,000 N/m per contact point) and the finger motors' hard velocity rows
push up to their 10 N m. The box starts 10 mm towards the left finger, which must first push it 9 mm sideways
against the table's friction (9.8 N). The finger parts are light (0.12 g links, 1 g pads, 2.7e-6 kg m^2 about the
finger axis), and MuJoCo's softness scales with the inverse inertia (``docs/motors.md#very-light-joints``):

- the pads' contacts were about 400 N/m per point (``R`` = 31); wbsim now gives contacts of such light parts
  ODE's spring itself (``wbsim.sim.light_rows``: 25,000 N/m here);
- the finger motors still push 0.2 to 0.9 N m, not up to 10 N m: their velocity-motor tendon row has ``R`` = 70
  (its softness scales with the finger's inverse inertia) and its reference DOF (armature 1e4 x the finger's
  inertia, 0.027 kg m^2) gives way to the reaction.

Measured at the default 4 ms physics step with ODE's contacts: the finger motors stall short of 0.42 rad (0.41 and
-0.39 rad at 1.58 s) pushing 0.15 to 0.45 N m, so the pads, parallel to the centred box and touching it at 2 to 4
points each along 33 mm, press only 0.01 to 0.16 mm into it (Webots: 0.75 mm); the slider raises the box 1 to
1.6 cm, it pitches about the grip, stands up on its end and falls out at 2.1 s. Tried before (MuJoCo's contacts): giving the reference DOF
back, every basic step, the velocity the reaction took centred the box (within 1 mm) but gave no grip and blew up
at 3.06 s; harder motor rows (``tendon_invweight0`` capped at 1e3) diverged at 0.97 s, with the pads' contact
``R`` lowered too it ran without a grip; capped at 10 it diverged at 0.82 s; at 1 ms with all three the box rose
0.6 mm and slipped out. Tried with ODE's contacts (scratch patches, not in wbsim): the tendon row's ``R`` capped
per physics step at 1 lifted nothing, at 0.1 it diverged at 1.37 s (MuJoCo's Newton solver
stops early on a friction-loss row much harder than its inverse inertia); reference armatures 10 and 100 times
larger: the fingers close to 0.42 rad, no lift; 1e-3 kg m^2 of armature on each finger joint: the fingers reach
0.42 rad and hold with 0.3 to 0.4 N m, but the pads turn by 4 to 7 degrees (the loops' welds, MuJoCo soft
equalities whose softness also scales with the light parts' inverse inertia, yield to the stronger finger), touch
the box (yawed 5 degrees by the first push) at one or two points near its end, and it pitches out when lifted; ODE's spring taken at the 4 ms MuJoCo step (50,000 N/m, twice Webots'): the box was
lifted to 0.128 m, so the outcome hinges on the squeeze that the soft finger motors set. The loops hold (0.03 mm
gap) while the soft motors push; with the armature they yield. The same motor softness, isolated on one link pushed into a wall:
``tests/physics/test_motor_light_joints.py``.
"""

from __future__ import annotations

import pytest

WORLD = """WorldInfo { basicTimeStep 8 }
Solid { name "table" translation 0 0 -0.01 boundingObject Box { size 2 2 0.02 } }
Robot {
  translation 0.2 0.5 0
  children [
    SliderJoint {
      jointParameters JointParameters { axis 0 0 1 }
      device [ LinearMotor { name "linear motor" maxForce 15 } ]
      endPoint Solid {
        translation 0 0 0.01
        children [
          HingeJoint {
            jointParameters HingeJointParameters { axis 0 0 1 anchor 0 -0.008 0 }
            device [ RotationalMotor { name "motor::left finger" } ]
            endPoint Solid {
              translation 0 -0.008 0
              children [
                HingeJoint {
                  jointParameters HingeJointParameters { axis 0 0 1 anchor 0.02869 -0.02787 0 }
                  endPoint Solid {
                    translation 0.02869 -0.02787 0
                    rotation 0 0 1 1.5708
                    name "left_gripper"
                    boundingObject Pose { translation 0.0075 -0.0175 -0.001 rotation 0 0 1 -1.570795 children [ Box { size 0.04 0.005 0.01 } ] }
                    physics Physics { density 500 }
                  }
                }
              ]
              name "left link"
              boundingObject Cylinder { height 0.0125 radius 0.0025 }
              physics Physics { density 500 }
            }
          }
          HingeJoint {
            jointParameters HingeJointParameters { axis 0 0 1 anchor 0 -0.023 0 }
            endPoint Solid {
              translation 0 -0.023 0
              children [
                HingeJoint {
                  jointParameters HingeJointParameters { axis 0 0 1 anchor 0.02869 -0.02787 0 }
                  endPoint SolidReference { solidName "left_gripper" }
                }
              ]
              name "left tip"
              boundingObject Cylinder { height 0.0125 radius 0.0025 }
              physics Physics { density 500 }
            }
          }
          HingeJoint {
            jointParameters HingeJointParameters { axis 0 0 1 anchor 0 0.008 0 }
            device [ RotationalMotor { name "motor::right finger" multiplier -1 } ]
            endPoint Solid {
              translation 0 0.008 0
              children [
                HingeJoint {
                  jointParameters HingeJointParameters { axis 0 0 1 anchor 0.02869 0.02787 0 }
                  endPoint Solid {
                    translation 0.02869 0.02787 0
                    name "right_gripper"
                    boundingObject Pose { translation 0.0175 -0.0075 -0.001 children [ Box { size 0.04 0.005 0.01 } ] }
                    physics Physics { density 500 }
                  }
                }
              ]
              name "right tip"
              boundingObject Cylinder { height 0.0125 radius 0.0025 }
              physics Physics { density 500 }
            }
          }
          HingeJoint {
            jointParameters HingeJointParameters { axis 0 0 1 anchor 0 0.023 0 }
            endPoint Solid {
              translation 0 0.023 0
              children [
                HingeJoint {
                  jointParameters HingeJointParameters { axis 0 0 1 anchor 0.02869 0.02787 0 }
                  endPoint SolidReference { solidName "right_gripper" }
                }
              ]
              name "right pivot"
              boundingObject Cylinder { height 0.0125 radius 0.0025 }
              physics Physics { density 500 }
            }
          }
        ]
        boundingObject Box { size 0.02 0.08 0.012 }
        physics Physics { density -1 mass 0.01 }
      }
    }
  ]
  controller "coupled_motors"
}
DEF OBJECT Solid {
  translation 0.255 0.49 0.01
  name "object"
  boundingObject Box { size 0.04 0.025 0.02 }
  physics Physics { density -1 mass 1 }
}
"""

CONTROLLER = """
from controller import Robot

TIME_STEP = 16
robot = Robot()
slider = robot.getDevice("linear motor")
finger = robot.getDevice("motor::left finger")


def wait(steps):
    for _ in range(steps):
        robot.step(TIME_STEP)


wait(50)
finger.setPosition(0.42)  # both fingers: the right motor is coupled (multiplier -1)
wait(50)
slider.setPosition(0.14)
slider.setVelocity(0.1)
wait(100)
finger.setPosition(0.0)
wait(50)
slider.setPosition(0.0)
wait(100)
"""


def joint_position(sim, name):
    for motor in sim.bindings.devices["motor"]:
        if motor.node["name"] == name:
            return float(sim.data.qpos[motor.joint.qpos_adr])
    raise KeyError(name)


def box_height(sim):
    body = next(b.body_id for b in sim.bindings.solids if b.node["name"] == "object")
    return float(sim.data.xpos[body][2])


@pytest.fixture
def gripper(project, load):
    return load(project(WORLD, controllers={"coupled_motors": CONTROLLER}))


def test_one_command_closes_both_fingers_symmetrically(gripper):
    sim = gripper
    sim.run(0.8)
    assert joint_position(sim, "motor::left finger") == pytest.approx(0.0, abs=1e-6)
    assert joint_position(sim, "motor::right finger") == pytest.approx(0.0, abs=1e-6)
    sim.run(1.6)  # 0.8 s after the close command, 0.8 s into the climb
    left, right = joint_position(sim, "motor::left finger"), joint_position(sim, "motor::right finger")
    assert left == pytest.approx(0.42, abs=5e-3) and right == pytest.approx(-0.42, abs=5e-3)
    # 0.1 m/s for 0.8 s; 4 mm: the box, weakly gripped and pitching (docstring), loads the 15 N slider at times
    # (0.0769 m measured), where Webots' slider carries it at the commanded speed.
    assert joint_position(sim, "linear motor") == pytest.approx(0.08, abs=4e-3)


@pytest.mark.xfail(strict=True, reason="on 1 g finger parts MuJoCo's inertia-scaled motor rows push 0.2-0.9 N m of "
                   "their 10 N m: the box, squeezed 0.01-0.16 mm, pitches out of the pads when lifted (docstring)")
def test_gripper_lifts_the_box(gripper):
    sim = gripper
    sim.run(3.2)  # closed at 0.8 s, the slider at 0.14 m by 3.2 s
    print(f"box centre {box_height(sim):.4f} m above the table's top (0.01 m: resting)")
    assert box_height(sim) > 0.1
