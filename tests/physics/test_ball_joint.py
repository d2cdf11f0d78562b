"""Devices on a BallJoint: three RotationalMotors / PositionSensors on Webots' Euler axes.

Webots (``WbBallJoint``) drives a BallJoint with an ODE angular motor in Euler mode: axis 1 is
``jointParameters2``'s axis (default x), axis 3 ``jointParameters3``'s (default z; made perpendicular to axis 1
when only that one is given), axis 2 is ``axis3 x axis1``, and the endPoint's rotation is
``R(axis1, p1) R(axis2, p2) R(axis3, p3) R0`` about the anchor. The expected poses below are composed with
numpy rotation matrices from those rules.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from wbsim.compile.builder import compile_world
from wbsim.world.loader import load_world_model_from_string


def rot(axis, angle: float) -> np.ndarray:
    """Rotation matrix of ``angle`` about ``axis`` (Rodrigues)."""
    u = np.asarray(axis, dtype=float)
    u = u / np.linalg.norm(u)
    k = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)


def world(params2: str = "", params3: str = "", ball_params: str = "anchor 0 0 1", gravity: float = 0.0) -> str:
    return f"""#VRML_SIM R2023b utf8
WorldInfo {{ basicTimeStep 8 gravity {gravity} }}
Robot {{
  children [
    BallJoint {{
      jointParameters BallJointParameters {{ {ball_params} }}
      {params2}
      {params3}
      device [ RotationalMotor {{ name "m1" maxTorque 50 }} PositionSensor {{ name "s1" }} ]
      device2 [ RotationalMotor {{ name "m2" maxTorque 50 }} PositionSensor {{ name "s2" }} ]
      device3 [ RotationalMotor {{ name "m3" maxTorque 50 }} PositionSensor {{ name "s3" }} ]
      endPoint DEF END Solid {{
        translation 0.2 0.1 0.6
        physics Physics {{ density -1 mass 1 }}
        boundingObject Box {{ size 0.1 0.1 0.1 }}
      }}
    }}
  ]
  controller "<extern>"
}}
"""


def pose(sim, def_name: str) -> tuple[np.ndarray, np.ndarray]:
    body = sim.bindings.solid(sim.node(def_name)).body_id
    data = mujoco.MjData(sim.model)
    data.qpos[:] = sim.data.qpos
    mujoco.mj_kinematics(sim.model, data)
    return data.xmat[body].reshape(3, 3).copy(), data.xpos[body].copy()


@pytest.mark.parametrize(("params2", "params3", "axes"), [
    ("", "", ((1, 0, 0), (0, 1, 0), (0, 0, 1))),
    # Only axis 1 given (y): axis 3 = y x x = -z, axis 2 = axis3 x axis1 = x.
    ("jointParameters2 JointParameters { axis 0 1 0 }", "", ((0, 1, 0), (1, 0, 0), (0, 0, -1))),
    # Only axis 3 given (x): axis 1 = x x z = -y, axis 2 = axis3 x axis1 = -z.
    ("", "jointParameters3 JointParameters { axis 1 0 0 }", ((0, -1, 0), (0, 0, -1), (1, 0, 0))),
])
def test_three_motors_turn_the_end_point_about_webots_euler_axes(project, load, params2, params3, axes) -> None:
    sim = load(project(world(params2, params3)))
    robot = sim.robot("robot")
    targets = (0.3, -0.4, 0.5)
    for i, target in enumerate(targets, start=1):
        robot.getDevice(f"s{i}").enable(8)
        robot.getDevice(f"m{i}").setPosition(target)
    for _ in range(250):
        robot.step(8)
    sensed = [robot.getDevice(f"s{i}").getValue() for i in (1, 2, 3)]
    np.testing.assert_allclose(sensed, targets, atol=1e-6)
    # Each axis's devices see each other (device, device2, device3 fields), in Webots' device order.
    assert all(robot.getDevice(f"m{i}").getPositionSensor() is robot.getDevice(f"s{i}") for i in (1, 2, 3))
    assert [robot.getDeviceByIndex(i).getName() for i in range(6)] == ["m1", "s1", "m2", "s2", "m3", "s3"]
    expected = rot(axes[0], targets[0]) @ rot(axes[1], targets[1]) @ rot(axes[2], targets[2])
    r, p = pose(sim, "END")
    np.testing.assert_allclose(r, expected, atol=1e-5)
    anchor = np.array([0.0, 0.0, 1.0])
    np.testing.assert_allclose(p, expected @ (np.array([0.2, 0.1, 0.6]) - anchor) + anchor, atol=1e-5)


def test_initial_positions_are_the_file_pose_and_a_hanging_mass_swings_about_the_anchor(project, load) -> None:
    text = world(params2="jointParameters2 JointParameters { position 0.2 }",
                 params3="jointParameters3 JointParameters { position -0.1 }",
                 ball_params="anchor 0 0 1 position 0.4", gravity=9.81)
    text = text.replace('RotationalMotor { name "m1" maxTorque 50 }', "").replace(
        'RotationalMotor { name "m2" maxTorque 50 }', "").replace('RotationalMotor { name "m3" maxTorque 50 }', "")
    sim = load(project(text))
    robot = sim.robot("robot")
    for i in (1, 2, 3):
        robot.getDevice(f"s{i}").enable(8)
    robot.step(8)
    first = [robot.getDevice(f"s{i}").getValue() for i in (1, 2, 3)]
    np.testing.assert_allclose(first, (0.4, 0.2, -0.1), atol=2e-3)  # one step of swing from the file pose
    anchor = np.array([0.0, 0.0, 1.0])
    for _ in range(300):
        robot.step(8)
        _, p = pose(sim, "END")
        # A ball joint keeps the endPoint's centre at its distance from the anchor.
        assert np.linalg.norm(p - anchor) == pytest.approx(np.linalg.norm([0.2, 0.1, -0.4]), abs=1e-6)
    assert not np.allclose([robot.getDevice(f"s{i}").getValue() for i in (1, 2, 3)], first, atol=1e-2)


def test_second_axis_motor_is_kept_within_plus_minus_half_pi_as_webots(project, load) -> None:
    text = world().replace('RotationalMotor { name "m2" maxTorque 50 }',
                           'RotationalMotor { name "m2" maxTorque 50 minPosition -2 maxPosition 1 }')
    sim = load(project(text))
    robot = sim.robot("robot")
    m1, m2 = robot.getDevice("m1"), robot.getDevice("m2")
    compiled = compile_world(load_world_model_from_string(text, "ball.wbt"))
    # Unlimited: Webots gives it [-pi/2, pi/2]; beyond: clamped, with Webots' warning at the field.
    assert (m1.getMinPosition(), m1.getMaxPosition()) == (0.0, 0.0)
    assert (m2.getMinPosition(), m2.getMaxPosition()) == (-math.pi / 2, 1.0)
    lower = [w for w in compiled.warnings if "second axis" in w.message]
    assert [w.message for w in lower] == [
        "The lower limit of the motor associated to the second axis shouldn't be smaller than -pi/2."]
    assert lower[0].location.line == text.splitlines().index(
        next(line for line in text.splitlines() if "minPosition -2" in line)) + 1
    unlimited = load(project(world(), world_name="u.wbt")).robot("robot").getDevice("m2")
    assert (unlimited.getMinPosition(), unlimited.getMaxPosition()) == (-math.pi / 2, math.pi / 2)


def test_stops_hold_each_euler_angle(project, load) -> None:
    """Webots places a BallJoint's stops on its Euler motor's angles: a pendulum released 0.6 rad about axis 1
    swings back through 0 and is stopped at -0.2 rad on the other side."""
    text = world(ball_params="anchor 0 0 1 position 0.6 minStop -0.2 maxStop 0.8", gravity=9.81)
    for name in ("m1", "m2", "m3"):
        text = text.replace(f'RotationalMotor {{ name "{name}" maxTorque 50 }}', "")
    text = text.replace("translation 0.2 0.1 0.6", "translation 0 0.225857 0.669866")  # 0.6 rad about x from -z
    sim = load(project(text))
    robot = sim.robot("robot")
    sensor = robot.getDevice("s1")
    sensor.enable(8)
    lowest = math.inf
    for _ in range(200):
        robot.step(8)
        lowest = min(lowest, sensor.getValue())
    assert -0.23 < lowest < -0.19  # reached the stop (MuJoCo's soft limit lets it in by a few hundredths)


def test_supervisor_sets_each_euler_axis(project, load, capfd) -> None:
    text = world().replace('Robot {\n  children', 'Robot {\n  supervisor TRUE\n  children').replace(
        "    BallJoint {", "    DEF BALL BallJoint {")
    sim = load(project(text))
    robot = sim.robot("robot")
    ball = robot.getFromDef("BALL")
    ball.setJointPosition(-0.2, 2)
    ball.setJointPosition(0.3, 3)
    r, _ = pose(sim, "END")
    np.testing.assert_allclose(r, rot((0, 1, 0), -0.2) @ rot((0, 0, 1), 0.3), atol=1e-12)
    ball.setJointPosition(0.1, 4)
    assert "invalid 'index' argument: 4 (this joint has 3 axes)" in capfd.readouterr().err
