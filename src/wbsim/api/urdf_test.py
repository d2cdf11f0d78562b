"""Robot.getUrdf: the XML structure and numbers Webots' URDF writer gives for a small arm."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from wbsim.api.urdf import euler_zyx

WORLD = """
WorldInfo { gravity 0 }
Robot {
  name "arm"
  controller "<extern>"
  boundingObject Box { size 0.1 0.2 0.3 }
  children [
    Pose {
      translation 0 0 0.1
      children [
        HingeJoint {
          jointParameters HingeJointParameters { axis 0 0 1 anchor 0 0 0.05 }
          device [
            RotationalMotor { name "shoulder" maxTorque 20 maxVelocity 3 minPosition -1 maxPosition 1.5 }
            PositionSensor { name "shoulder sensor" }
          ]
          endPoint Solid {
            translation 0 0 0.2
            rotation 1 0 0 0.5
            name "upper"
            physics Physics { }
            boundingObject Pose { translation 0 0 0.1 children [ Cylinder { radius 0.02 height 0.2 } ] }
            children [
              SliderJoint {
                jointParameters JointParameters { axis 0 1 0 }
                device [ LinearMotor { name "slide" maxForce 7 } ]
                endPoint Solid {
                  translation 0 0.3 0
                  name "tip"
                  physics Physics { }
                  boundingObject Sphere { radius 0.01 }
                }
              }
            ]
          }
        }
      ]
    }
    DistanceSensor { translation 0.05 0 0 rotation 0 0 1 1.5708 name "ds" }
  ]
}
"""


def floats(text: str) -> list[float]:
    return [float(v) for v in text.split()]


@pytest.fixture
def urdf(project, load):
    sim = load(project(WORLD))
    return sim.robot("arm")


def test_links_joints_and_numbers_follow_webots_writer(urdf) -> None:
    text = urdf.getUrdf()
    assert text.startswith('<?xml version="1.0"?>\n<robot name="arm" xmlns:xacro="http://ros.org/wiki/xacro">\n')
    root = ET.fromstring(text.split("\n", 1)[1])
    # Links: the robot, every named node (Solids and devices) and every joint child (also the joint parameters,
    # as Webots' isUrdfRootLink has it), in Webots' last-in first-out order.
    assert [link.get("name") for link in root.findall("link")] == [
        "arm", "ds", "upper", "tip", "slide", "jointparameters", "shoulder sensor", "shoulder", "hingejointparameters"]
    joints = {j.get("name"): j for j in root.findall("joint")}
    assert {n: j.get("type") for n, j in joints.items()} == {
        "arm_ds_joint": "fixed", "shoulder": "revolute", "slide": "prismatic"}
    # The robot's boundingObject box, as visual and collision, at the link origin (no <origin>).
    arm = root.find("link[@name='arm']")
    assert [e.tag for e in arm] == ["visual", "collision"]
    assert floats(arm.find("visual/geometry/box").get("size")) == [0.1, 0.2, 0.3]
    assert arm.find("visual/origin") is None
    # The sensor is fixed to the robot at its pose (rpy: Z-Y-X Euler angles).
    ds = joints["arm_ds_joint"]
    assert (ds.find("parent").get("link"), ds.find("child").get("link")) == ("arm", "ds")
    assert floats(ds.find("origin").get("xyz")) == [0.05, 0.0, 0.0]
    assert floats(ds.find("origin").get("rpy")) == [0.0, 0.0, 1.5708]
    # The hinge: its origin at the anchor (Pose 0.1 + anchor 0.05), the endPoint's rotation, its axis in the
    # endPoint's frame (Rx(0.5)^T z), the motor's limits.
    hinge = joints["shoulder"]
    assert (hinge.find("parent").get("link"), hinge.find("child").get("link")) == ("arm", "upper")
    np.testing.assert_allclose(floats(hinge.find("origin").get("xyz")), [0.0, 0.0, 0.15], atol=1e-12)
    assert floats(hinge.find("origin").get("rpy")) == [0.5, 0.0, 0.0]
    assert floats(hinge.find("axis").get("xyz")) == [0.0, round(math.sin(0.5), 6), round(math.cos(0.5), 6)]
    assert {k: float(v) for k, v in hinge.find("limit").attrib.items()} == {
        "effort": 20.0, "lower": -1.0, "upper": 1.5, "velocity": 3.0}
    # The upper link's frame is at the anchor: its shapes carry the 0.15 m back to the Solid's frame, in the
    # link's axes (Webots' joint offset); the cylinder also keeps its own Pose.
    offset = np.array([0.0, 0.15 * math.sin(0.5), 0.15 * math.cos(0.5)])
    upper = root.find("link[@name='upper']")
    np.testing.assert_allclose(floats(upper.find("collision/origin").get("xyz")), offset + [0, 0, 0.1], atol=1e-7)
    assert upper.find("collision/geometry/cylinder").attrib == {"radius": "0.02", "length": "0.2"}
    # The slider: origin at the endPoint's position-0 place plus that offset; axis; force and velocity limits.
    slider = joints["slide"]
    assert (slider.find("parent").get("link"), slider.find("child").get("link")) == ("upper", "tip")
    np.testing.assert_allclose(floats(slider.find("origin").get("xyz")), offset + [0, 0.3, 0], atol=1e-6)
    assert floats(slider.find("axis").get("xyz")) == [0.0, 1.0, 0.0]
    assert {k: float(v) for k, v in slider.find("limit").attrib.items()} == {"effort": 7.0, "velocity": 10.0}
    tip = root.find("link[@name='tip']")
    assert tip.find("visual/origin") is None and tip.find("visual/geometry/sphere").get("radius") == "0.01"


def test_prefix_and_current_pose(urdf) -> None:
    root = ET.fromstring(urdf.getUrdf("r1_").split("\n", 1)[1])
    assert root.get("name") == "arm"
    assert {link.get("name") for link in root.findall("link")} == {
        "r1_arm", "r1_ds", "r1_upper", "r1_tip", "r1_slide", "r1_shoulder sensor", "r1_shoulder",
        "r1_jointparameters", "r1_hingejointparameters"}
    assert root.find("joint[@name='r1_arm_r1_ds_joint']/parent").get("link") == "r1_arm"  # both names prefixed
    # Webots writes the current state: after the slider moved 0.1 m the origin is still its position-0 place.
    urdf.getDevice("slide").setPosition(0.1)
    for _ in range(100):
        urdf.step(32)
    moved = ET.fromstring(urdf.getUrdf().split("\n", 1)[1])
    offset = np.array([0.0, 0.15 * math.sin(0.5), 0.15 * math.cos(0.5)])
    np.testing.assert_allclose(floats(moved.find("joint[@name='slide']/origin").get("xyz")),
                               offset + [0, 0.3, 0], atol=1e-6)
    tip = moved.find("link[@name='tip']")
    np.testing.assert_allclose(floats(tip.find("visual/origin").get("xyz")), [0, 0.1, 0], atol=1e-4)


def test_euler_zyx_inverts_the_urdf_rotation() -> None:
    rng = np.random.default_rng(3)
    for roll, pitch, yaw in rng.uniform(-1.5, 1.5, size=(20, 3)):
        cr, sr, cp, sp, cy, sy = (math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch),
                                  math.cos(yaw), math.sin(yaw))
        rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
        ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
        rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
        np.testing.assert_allclose(euler_zyx(rz @ ry @ rx), [roll, pitch, yaw], atol=1e-12)


def test_a_tree_broken_at_run_time_is_written_once_per_node(project, load) -> None:
    # A node held twice, or below itself, (never in a checked world, possible after a run-time edit) is
    # written once and the export ends (each node is met once per export).
    from wbsim.api.urdf import robot_urdf

    sim = load(project(WORLD))
    robot = next(n for n in sim.world.walk() if n.type_name == "Robot")
    clean = robot_urdf(robot, sim.supervision.field_value)
    pose = robot["children"][0]
    pose.fields["children"] = (*pose["children"], *pose["children"], robot)  # the joint twice, the robot below
    assert robot_urdf(robot, sim.supervision.field_value) == clean
