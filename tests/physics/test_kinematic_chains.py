"""Chained joint endPoints without Physics under a Robot without Physics (Webots' inertial_unit.wbt sample).

Webots moves such endPoints kinematically: each motor runs ``WbMotor::runKinematicControl`` (its velocity ramps
toward the target velocity at ``acceleration``, or at ``maxTorque`` rad/s^2 when the acceleration is -1, and the
position advances by ``velocity * ts`` until the target), and each joint moves its endPoint relative to the
previous link. The expected positions below come from a scalar transcription of that function, and the expected
link poses from the file's frames composed with numpy rotation matrices (not wbsim's Frame nor MuJoCo).
"""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

REPRODUCER = """#VRML_SIM R2023b utf8
Robot { children [ HingeJoint { jointParameters HingeJointParameters { axis 0 0 1 }
  device [ RotationalMotor { name "m1" } PositionSensor { name "s1" } ]
  endPoint Solid { children [ HingeJoint { jointParameters HingeJointParameters { axis 0 1 0 }
    device [ RotationalMotor { name "m2" } ]
    endPoint DEF B Solid { name "b" } } ] name "a" } } ] controller "<extern>" }
"""

# The sample's arm (projects/samples/devices/worlds/inertial_unit.wbt) without its Shapes, with a position sensor
# on each joint and a static floor, raised to 0.25 m, which the arm sweeps through.
SAMPLE_ARM = """#VRML_SIM R2023b utf8
WorldInfo { basicTimeStep 16 }
Solid { name "floor" translation 0 0 0.25 boundingObject Plane { size 1 1 } }
Robot {
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 0 1 }
      device [ RotationalMotor { name "yaw motor" } PositionSensor { name "yaw sensor" } ]
      endPoint Solid {
        children [
          HingeJoint {
            jointParameters HingeJointParameters { axis 0 1 0 anchor 0 0 0.33 }
            device [ RotationalMotor { name "pitch motor" minPosition -2.3 maxPosition 1.5 }
                     PositionSensor { name "pitch sensor" } ]
            endPoint Solid {
              translation 0 0 0.33
              rotation 0 0 1 1.570785
              children [
                HingeJoint {
                  jointParameters HingeJointParameters { axis 0 -1 0 anchor 0 -0.3 0 }
                  device [ RotationalMotor { name "roll motor" } PositionSensor { name "roll sensor" } ]
                  endPoint DEF ROLL Solid {
                    translation 0 -0.3 0
                    rotation 0 0.7071067811865476 0.7071067811865476 3.14159
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
  boundingObject Cylinder { height 0.04 radius 0.1 }
  controller "<extern>"
}
"""


class WebotsKinematicMotor:
    """WbMotor::runKinematicControl for one motor (position control), transcribed."""

    def __init__(self, max_velocity: float, max_torque: float, acceleration: float = -1.0) -> None:
        self.target_velocity = max_velocity
        self.available = max_torque
        self.acceleration = acceleration
        self.target = 0.0
        self.current = 0.0
        self.position = 0.0

    def step(self, ts: float) -> float:
        if abs(self.target - self.position) < 1e-6:
            self.current = 0.0
            return self.position
        acc = self.acceleration
        if acc == -1.0 or acc > self.available:
            acc = self.available
        if abs(self.target_velocity - self.current) > 1e-6:
            if self.target_velocity > self.current:
                self.current = min(self.current + acc * ts, self.target_velocity)
            else:
                self.current = max(self.current - acc * ts, self.target_velocity)
        if self.target > self.position:
            self.position = min(self.position + self.current * ts, self.target)
        else:
            self.position = max(self.position - self.current * ts, self.target)
        return self.position


def rot(axis, angle: float) -> np.ndarray:
    """Rotation matrix of ``angle`` about ``axis`` (Rodrigues)."""
    u = np.asarray(axis, dtype=float)
    u = u / np.linalg.norm(u)
    k = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)


def hinge(anchor, axis, q: float, translation, rotation) -> tuple[np.ndarray, np.ndarray]:
    """Pose (R, p) of a hinge's endPoint in the joint's frame: the file pose turned by ``q`` about the axis
    through the anchor."""
    turn = rot(axis, q)
    anchor = np.asarray(anchor, dtype=float)
    return turn @ rot(rotation[:3], rotation[3]), turn @ (np.asarray(translation, dtype=float) - anchor) + anchor


def compose(*poses: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    r, p = np.eye(3), np.zeros(3)
    for ri, pi in poses:
        r, p = r @ ri, r @ pi + p
    return r, p


def body_pose(sim, def_name: str) -> tuple[np.ndarray, np.ndarray]:
    """World pose of a Solid's body at the current joint positions (MuJoCo's stored poses are those at the start
    of the last physics step: computed here on a copy, leaving the simulation untouched)."""
    body = sim.bindings.solid(sim.node(def_name)).body_id
    data = mujoco.MjData(sim.model)
    data.qpos[:] = sim.data.qpos
    mujoco.mj_kinematics(sim.model, data)
    return data.xmat[body].reshape(3, 3).copy(), data.xpos[body].copy()


def joint_positions(sim) -> list[float]:
    return [float(sim.data.qpos[m.joint.qpos_adr]) for m in sim.bindings.devices["motor"]]


def test_reproducer_loads_and_both_motors_reach_their_targets_at_the_speed_limits(project, load):
    sim = load(project(REPRODUCER))
    robot = sim.robot("robot")
    ts = robot.getBasicTimeStep() / 1000.0
    m1, m2, s1 = robot.getDevice("m1"), robot.getDevice("m2"), robot.getDevice("s1")
    s1.enable(int(robot.getBasicTimeStep()))
    # Default RotationalMotor: maxVelocity 10 rad/s, maxTorque 10, acceleration -1 (ramps at 10 rad/s^2).
    ref1, ref2 = WebotsKinematicMotor(10.0, 10.0), WebotsKinematicMotor(10.0, 10.0)
    m1.setPosition(1.0)
    m1.setVelocity(1.5)
    m2.setPosition(-0.5)
    ref1.target, ref1.target_velocity, ref2.target = 1.0, 1.5, -0.5
    expected, measured, sensed, poses = [], [], [], []
    for step in range(60):
        if step == 40:  # a new target once the first is reached: the move ramps up from rest again
            m2.setPosition(0.25)
            ref2.target = 0.25
        robot.step(int(robot.getBasicTimeStep()))
        expected.append((ref1.step(ts), ref2.step(ts)))
        measured.append(joint_positions(sim))
        sensed.append(s1.getValue())
        poses.append(body_pose(sim, "B"))
    expected, measured = np.array(expected), np.array(measured)
    np.testing.assert_allclose(measured, expected, atol=1e-5)
    np.testing.assert_allclose(sensed, measured[:, 0], atol=1e-12)  # the sensor reads the joint position
    # The ramps: m1 at its 1.5 rad/s velocity (reached after 5 steps at 10 rad/s^2), m2 at 10 rad/s^2 toward 10.
    assert measured[14, 0] - measured[13, 0] == pytest.approx(1.5 * ts, abs=1e-6)
    assert measured[1, 1] - measured[0, 1] == pytest.approx(-2 * 10.0 * ts * ts, abs=1e-6)  # v = 2 a ts at step 2
    assert measured[39] == pytest.approx([1.0, -0.5], abs=1e-6)
    assert measured[-1] == pytest.approx([1.0, 0.25], abs=1e-6)
    # The end link's world pose is the composition of the two rotations (both joints at the origin).
    for (q1, q2), (r, p) in zip(measured, poses):
        np.testing.assert_allclose(r, rot((0, 0, 1), q1) @ rot((0, 1, 0), q2), atol=1e-9)
        np.testing.assert_allclose(p, 0.0, atol=1e-12)


def test_three_link_arm_of_the_inertial_unit_sample(project, load):
    sim = load(project(SAMPLE_ARM))
    robot = sim.robot("robot")
    targets = {"yaw": 2.0, "pitch": 1.5, "roll": 1.0}  # the pitch takes the arm down through the floor plane
    motors = {name: robot.getDevice(f"{name} motor") for name in targets}
    sensors = {name: robot.getDevice(f"{name} sensor") for name in targets}
    references = {name: WebotsKinematicMotor(10.0, 10.0) for name in targets}
    for name, target in targets.items():
        motors[name].setPosition(target)
        sensors[name].enable(16)
        references[name].target = target
    for _ in range(80):
        robot.step(16)
        expected = [references[name].step(0.016) for name in targets]
        np.testing.assert_allclose(joint_positions(sim), expected, atol=1e-5)
        np.testing.assert_allclose([sensors[name].getValue() for name in targets], joint_positions(sim), atol=1e-12)
        yaw, pitch, roll = joint_positions(sim)
        r, p = body_pose(sim, "ROLL")
        expected_r, expected_p = compose(
            hinge((0, 0, 0), (0, 0, 1), yaw, (0, 0, 0), (0, 0, 1, 0)),
            hinge((0, 0, 0.33), (0, 1, 0), pitch, (0, 0, 0.33), (0, 0, 1, 1.570785)),
            hinge((0, -0.3, 0), (0, -1, 0), roll, (0, -0.3, 0), (0, 0.7071067811865476, 0.7071067811865476, 3.14159)),
        )
        np.testing.assert_allclose(r, expected_r, atol=1e-9)
        np.testing.assert_allclose(p, expected_p, atol=1e-9)
    assert joint_positions(sim) == pytest.approx(list(targets.values()), abs=1e-6)
    # Kinematic links pass through the static floor, as in Webots (no ODE body, no contact): the roll link is
    # below the floor's plane now (the poses above were never held back), and MuJoCo holds no contact.
    assert body_pose(sim, "ROLL")[1][2] < 0.25 - 0.1
    assert sim.data.ncon == 0


def test_kinematic_chain_is_deterministic_after_reset(project, load):
    sim = load(project(SAMPLE_ARM))

    def run() -> np.ndarray:
        robot = sim.robot("robot")
        for name, target in (("yaw", -1.0), ("pitch", 1.2), ("roll", 2.5)):
            robot.getDevice(f"{name} motor").setPosition(target)
        states = []
        for _ in range(50):
            robot.step(16)
            states.append(np.concatenate([sim.data.qpos, sim.data.qvel]))
        return np.array(states)

    first = run()
    sim.reset()
    assert np.array_equal(run(), first)


def test_a_kinematic_link_sweeps_through_a_static_wall_and_pushes_a_box_with_physics(project, load):
    # Webots: the link (no Physics) has no body: it passes through the static wall and reaches its target, and
    # it moves the box (Physics) out of its way.
    world = """
WorldInfo { basicTimeStep 16 }
Solid { name "floor" boundingObject Plane { size 10 10 } }
DEF WALL Solid { translation 0.6 0.3 0.1 name "wall" boundingObject Box { size 0.05 0.05 0.2 } }
DEF BOX Solid { translation 0.4 0.25 0.05 name "box" boundingObject Box { size 0.1 0.1 0.1 } physics Physics { } }
Robot { name "arm" controller "<extern>" children [ HingeJoint { jointParameters HingeJointParameters { axis 0 0 1 }
  device [ RotationalMotor { name "m" maxVelocity 2 } PositionSensor { name "s" } ]
  endPoint DEF LINK Solid { translation 0.35 0 0.05 name "link" boundingObject Box { size 0.7 0.05 0.05 } } } ] }
"""
    sim = load(project(world))
    robot = sim.robot("arm")
    sensor = robot.getDevice("s")
    sensor.enable(16)
    robot.getDevice("m").setPosition(1.2)
    for _ in range(60):
        robot.step(16)
    assert sensor.getValue() == pytest.approx(1.2, abs=1e-5)  # never held back by the wall
    box = sim.data.xpos[sim.bindings.solid(sim.node("BOX")).body_id]
    # The box started where the link sweeps (0.32 m from the hinge, 0.9 rad round): it was pushed away.
    assert math.hypot(box[0] - 0.4, box[1] - 0.25) > 0.1



# A needle on a dial: a Robot with Physics falling onto a floor, a motor turning an endPoint with neither Physics
# nor boundingObject (Webots moves it kinematically, its frame carried by the robot's body).
DIAL = """#VRML_SIM R2023b utf8
WorldInfo { basicTimeStep 16 }
Solid { name "floor" boundingObject Plane { size 10 10 } }
DEF R Robot {
  translation 0 0 0.2
  rotation 1 0 0 0.3
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 0 1 anchor 0.1 0 0 }
      device [ RotationalMotor { name "needle motor" maxVelocity 2 } PositionSensor { name "needle sensor" } ]
      endPoint DEF NEEDLE Solid { translation 0.1 0 0.06 name "needle" }
    }
  ]
  physics Physics { density -1 mass 2 }
  boundingObject Box { size 0.2 0.2 0.1 }
  controller "<extern>"
}
"""
# The same robot without its needle.
PLAIN = DIAL[:DIAL.index("  children [")] + DIAL[DIAL.index("  physics Physics"):]


def test_end_point_without_physics_nor_bounding_object_under_a_body_with_physics_moves_kinematically(project, load):
    sim, plain = load(project(DIAL)), load(project(PLAIN, world_name="plain.wbt"))
    robot = sim.robot("robot")
    robot.getDevice("needle sensor").enable(16)
    robot.getDevice("needle motor").setPosition(1.0)
    ref = WebotsKinematicMotor(2.0, 10.0)
    ref.target = 1.0
    expected = []
    for _ in range(60):
        robot.step(16)
        plain.step()
        expected.append(ref.step(0.016))
    # Webots' kinematic control turns the needle at up to 2 rad/s to the target; the sensor reads it (the falling
    # body's accelerations reach the joint through its large but finite armature: 1e-8 rad).
    assert expected[-1] == pytest.approx(1.0)
    assert robot.getDevice("needle sensor").getValue() == pytest.approx(expected[-1], abs=1e-6)
    needle, body = body_pose(sim, "NEEDLE"), body_pose(sim, "R")
    np.testing.assert_allclose(body[0].T @ needle[0], rot((0, 0, 1), 1.0), atol=1e-6)
    np.testing.assert_allclose(body[0].T @ (needle[1] - body[1]), [0.1, 0.0, 0.06], atol=1e-9)
    # The robot fell, tipped onto the floor and rests as it does without the needle (of negligible mass), within
    # 0.1 mm (measured: 27 um after the bounces on the floor).
    resting = body_pose(plain, "R")
    assert resting[1][2] == pytest.approx(0.05, abs=2e-3)
    np.testing.assert_allclose(body[1], resting[1], atol=1e-4)
    np.testing.assert_allclose(body[0], resting[0], atol=1e-3)
