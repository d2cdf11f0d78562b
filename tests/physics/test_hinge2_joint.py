"""Hinge2Joint against analytic values: Webots' kinematics of the two axes, motors and sensors per axis, springs,
damping, stops, the suspension, and the load errors and warnings.

Webots places a Hinge2Joint's endPoint at ``R(axis, position) R(axis2, position2)`` applied to its pose at
position 0 (``WbHinge2Joint::computeEndPointSolidPositionFromParameters``): axis 1 is fixed in the parent and
axis 2 turns with axis 1. The file pose is the pose at the joints' ``position`` / ``position2``.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from wbsim.compile.builder import compile_world
from wbsim.compile.frames import Frame, quat_from_axis_angle, quat_to_matrix
from wbsim.sim.simulation import Simulation
from wbsim.world.loader import load_world_model_from_string

G = 9.81


def rot(axis, angle: float) -> np.ndarray:  # noqa: ANN001
    """Rotation matrix of ``angle`` rad about ``axis``."""
    return quat_to_matrix(quat_from_axis_angle((*axis, angle)))


def webots_pose(axis1, axis2, anchor, positions, initial, file_frame: Frame) -> Frame:  # noqa: ANN001
    """The endPoint's pose in the joint's frame at ``positions``, by Webots' formula, from its file pose taken at
    the ``initial`` positions."""
    a1 = np.asarray(axis1, float) / np.linalg.norm(axis1)
    a2 = np.asarray(axis2, float) / np.linalg.norm(axis2)
    anchor = np.asarray(anchor, float)
    undo = rot(a2, -initial[1]) @ rot(a1, -initial[0])  # back to the pose at position 0 (Webots' zero pose)
    turn = rot(a1, positions[0]) @ rot(a2, positions[1])
    return Frame(anchor + turn @ undo @ (file_frame.pos - anchor), turn @ undo @ file_frame.rot)


def webots_rotation(rotation: np.ndarray) -> str:
    """A rotation matrix as a Webots axis-angle field value."""
    angle = math.acos(max(-1.0, min(1.0, (np.trace(rotation) - 1.0) / 2.0)))
    if angle < 1e-12:
        return "0 0 1 0"
    axis = np.array([rotation[2, 1] - rotation[1, 2], rotation[0, 2] - rotation[2, 0], rotation[1, 0] - rotation[0, 1]])
    axis /= np.linalg.norm(axis)
    return " ".join(repr(float(v)) for v in (*axis, angle))


def end_point(sim, def_name: str = "EP"):  # noqa: ANN001, ANN201
    return sim.bindings.solid(sim.node(def_name))


def test_end_point_follows_webots_kinematics_axis_two_carried_by_axis_one(make_sim) -> None:
    """Non-orthogonal axes, an anchor off the origins, non-zero initial positions, a rotated parent: for any
    (position, position2) MuJoCo's endPoint pose is Webots' formula, and the file pose is the pose at the
    initial positions."""
    axis1, axis2, anchor, initial = (0.2, 0.3, 1.0), (1.0, -0.4, 0.1), (0.05, -0.02, 0.1), (0.4, -0.7)
    # The endPoint's zero pose (both positions 0), turned to the initial positions for the file.
    zero = Frame(np.array([0.1, 0.05, 0.25]), rot((0.3, -0.5, 0.8), 0.9))
    file_frame = webots_pose(axis1, axis2, anchor, initial, (0.0, 0.0), zero)
    parent = Frame(np.array([0.3, -0.2, 1.0]), rot((1.0, 1.0, 0.0), 0.6))
    sim = make_sim(f"""Solid {{ translation 0.3 -0.2 1 rotation 1 1 0 0.6 physics Physics {{ }}
      boundingObject Box {{ size 0.1 0.1 0.1 }} children [ Hinge2Joint {{
        jointParameters HingeJointParameters {{ axis 0.2 0.3 1 anchor 0.05 -0.02 0.1 position {initial[0]} }}
        jointParameters2 JointParameters {{ axis 1 -0.4 0.1 position {initial[1]} }}
        endPoint DEF EP Solid {{ translation {' '.join(repr(float(v)) for v in file_frame.pos)}
          rotation {webots_rotation(file_frame.rot)}
          physics Physics {{ }} boundingObject Box {{ size 0.05 0.08 0.1 }} }} }} ] }}""",
                   "WorldInfo { gravity 0 }")
    j1, j2 = (sim.bindings.joint(sim.bindings.joints[0].node, k) for k in (1, 2))
    assert (j1.axis_index, j2.axis_index) == (1, 2) and j1.qpos_adr != j2.qpos_adr
    body = end_point(sim).body_id
    for q in [initial, (0.0, 0.0), (1.3, 0.2), (-2.0, 1.1), (0.4, 2.5)]:
        sim.data.qpos[[j1.qpos_adr, j2.qpos_adr]] = q
        mujoco.mj_forward(sim.model, sim.data)
        expected = parent @ webots_pose(axis1, axis2, anchor, q, initial, file_frame)
        np.testing.assert_allclose(sim.data.xpos[body], expected.pos, atol=1e-12)
        np.testing.assert_allclose(sim.data.xmat[body].reshape(3, 3), expected.rot, atol=1e-12)
        # The first axis stays fixed in the parent; the second is the first's turned by position.
        a1 = parent.rot @ np.array(axis1) / np.linalg.norm(axis1)
        a2 = parent.rot @ rot(np.array(axis1) / np.linalg.norm(axis1), q[0]) @ (np.array(axis2) / np.linalg.norm(axis2))
        np.testing.assert_allclose(sim.data.xaxis[j1.joint_id], a1, atol=1e-12)
        np.testing.assert_allclose(sim.data.xaxis[j2.joint_id], a2, atol=1e-12)
        np.testing.assert_allclose(sim.data.xanchor[j2.joint_id], parent.apply(np.array(anchor)), atol=1e-12)


ROBOT = """
WorldInfo {{ physicsDisableTime 0 }}
Robot {{ name "arm" controller "<extern>" supervisor TRUE children [
  DEF BASE Solid {{ translation 0 0 0.5 physics Physics {{ }} boundingObject Box {{ size 0.1 0.1 0.1 }} children [
    DEF H2 Hinge2Joint {{
      jointParameters HingeJointParameters {{ axis 0 0 1 anchor 0 0 0.2 {params1} }}
      jointParameters2 JointParameters {{ axis 1 0 0 {params2} }}
      device [ RotationalMotor {{ name "m1" {motor1} }} PositionSensor {{ name "s1" }} ]
      device2 [ PositionSensor {{ name "s2" }} RotationalMotor {{ name "m2" {motor2} }} ]
      endPoint DEF EP Solid {{ translation 0 0.1 0.2 physics Physics {{ density -1 mass 0.5 }}
        boundingObject Box {{ size 0.04 0.2 0.04 }} }}
    }} ] }} ] }}
"""


def arm(project, load, params1: str = "", params2: str = "", motor1: str = "", motor2: str = ""):  # noqa: ANN001, ANN201
    sim = load(project(ROBOT.format(params1=params1, params2=params2, motor1=motor1, motor2=motor2)))
    return sim, sim.robot("arm")


def test_each_motor_drives_its_own_axis_and_each_sensor_reads_it(project, load) -> None:
    sim, robot = arm(project, load)
    m1, m2, s1, s2 = (robot.getDevice(n) for n in ("m1", "m2", "s1", "s2"))
    # Devices pair per axis: device with device, device2 with device2.
    assert m1.getPositionSensor() is s1 and m2.getPositionSensor() is s2
    assert s1.getMotor() is m1 and s2.getMotor() is m2
    # Webots' device order: the devices of axis 1, then those of axis 2.
    assert [robot.getDeviceByIndex(i).getName() for i in range(robot.getNumberOfDevices())] == ["m1", "s1", "s2", "m2"]
    s1.enable(16)
    s2.enable(16)
    m1.setPosition(0.7)
    robot.step(3000)
    assert s1.getValue() == pytest.approx(0.7, abs=1e-3)
    assert s2.getValue() == pytest.approx(0.0, abs=1e-3)
    m2.setPosition(-0.5)
    robot.step(3000)
    assert s1.getValue() == pytest.approx(0.7, abs=1e-3)
    assert s2.getValue() == pytest.approx(-0.5, abs=1e-3)
    # The endPoint is turned about the fixed z axis by 0.7, then about x turned with it (axis 2 carried by axis 1).
    sim.supervision.refresh()
    body = end_point(sim).body_id
    expected = rot((0, 0, 1), 0.7) @ rot((1, 0, 0), -0.5)
    np.testing.assert_allclose(sim.data.xmat[body].reshape(3, 3), expected, atol=2e-3)
    anchor = np.array([0.0, 0.0, 0.7])
    np.testing.assert_allclose(sim.data.xpos[body], anchor + expected @ np.array([0.0, 0.1, 0.0]), atol=2e-4)
    # The motors hold the 0.5 kg endPoint against gravity: axis 2 carries its weight, axis 1 (vertical) none.
    m1.enableTorqueFeedback(16)
    m2.enableTorqueFeedback(16)
    robot.step(32)
    lever = expected @ np.array([0.0, 0.1, 0.0])
    gravity_torque_about_axis2 = float(np.cross(lever, [0.0, 0.0, -0.5 * G]) @ (rot((0, 0, 1), 0.7) @ [1.0, 0.0, 0.0]))
    assert m2.getTorqueFeedback() == pytest.approx(-gravity_torque_about_axis2, rel=0.02)
    assert abs(m1.getTorqueFeedback()) < 1e-3


def test_position_fields_read_live_and_reset_restores_both_axes(project, load) -> None:
    sim, robot = arm(project, load, params1="position 0.2", params2="position -0.1")
    h2 = robot.getFromDef("H2")
    p1 = h2.getField("jointParameters").getSFNode().getField("position")
    p2 = h2.getField("jointParameters2").getSFNode().getField("position")
    assert (p1.getSFFloat(), p2.getSFFloat()) == pytest.approx((0.2, -0.1))
    robot.getDevice("m1").setPosition(-0.4)
    robot.getDevice("m2").setPosition(0.6)
    robot.step(2000)
    assert (p1.getSFFloat(), p2.getSFFloat()) == pytest.approx((-0.4, 0.6), abs=2e-3)
    robot.simulationReset()
    robot.step(16)
    s1, s2 = robot.getDevice("s1"), robot.getDevice("s2")
    s1.enable(16)
    s2.enable(16)
    robot.step(16)
    # Back at the file's positions; the motors' targets too (they hold them).
    assert (s1.getValue(), s2.getValue()) == pytest.approx((0.2, -0.1), abs=2e-3)


def test_supervisor_writes_of_the_positions_move_the_end_point(project, load) -> None:
    """Webots moves the endPoint when a supervisor writes ``position`` / ``position2`` (jointParameters or hidden
    fields); the motors keep their targets and drive it back."""
    sim, robot = arm(project, load, params2="position 0.1")
    h2 = robot.getFromDef("H2")
    s1, s2 = robot.getDevice("s1"), robot.getDevice("s2")
    s1.enable(16)
    s2.enable(16)
    hidden = h2.getField("position")  # axis 1 has jointParameters: its hidden field is not the position
    p2 = h2.getField("jointParameters2").getSFNode().getField("position")
    p1 = h2.getField("jointParameters").getSFNode().getField("position")
    p1.setSFFloat(0.8)
    p2.setSFFloat(-0.6)
    hidden.setSFFloat(5.0)
    body = end_point(sim).body_id
    sim.supervision.refresh()
    # The file pose is at position2 0.1, so the zero pose is the file's turned by -0.1 about x.
    np.testing.assert_allclose(sim.data.xmat[body].reshape(3, 3),
                               rot((0, 0, 1), 0.8) @ rot((1, 0, 0), -0.6) @ rot((1, 0, 0), -0.1), atol=1e-12)
    assert (p1.getSFFloat(), p2.getSFFloat()) == pytest.approx((0.8, -0.6))
    assert hidden.getSFFloat() == 5.0
    robot.step(32)  # one basic step: each motor heads back at P * error (P = 10) for 32 ms
    assert s1.getValue() == pytest.approx(0.8 - 10 * 0.8 * 0.032, abs=5e-3)
    assert s2.getValue() == pytest.approx(-0.6 + 10 * 0.7 * 0.032, abs=1e-2)  # it carries the weight
    robot.step(3000)  # the motors' targets are still 0 and 0.1
    assert (s1.getValue(), s2.getValue()) == pytest.approx((0.0, 0.1), abs=2e-3)


def test_reset_physics_of_the_end_point_stops_both_axes(project, load) -> None:
    sim, robot = arm(project, load, params1="suspensionSpringConstant 1000 suspensionAxis 0 0 1")
    dofs = [j.dof_adr for j in sim.bindings.joints]
    slide = int(sim.model.jnt_dofadr[[k for k in range(sim.model.njnt)
                                      if sim.model.jnt_type[k] == mujoco.mjtJoint.mjJNT_SLIDE][0]])
    sim.data.qvel[dofs] = (1.0, -2.0)
    sim.data.qvel[slide] = 0.3
    robot.getFromDef("EP").resetPhysics()
    assert sim.data.qvel[dofs].tolist() == [0.0, 0.0] and sim.data.qvel[slide] == 0.0


def test_hidden_position_fields_without_joint_parameters(make_sim) -> None:
    """Without jointParameters Webots keeps the positions in the hidden ``position`` / ``position2`` fields; the
    default axes are x (HingeJointParameters) and z (JointParameters)."""
    sim = make_sim("""Solid { physics Physics { } children [ DEF H2 Hinge2Joint { position 0.3 position2 -0.2
        endPoint DEF EP Solid { rotation %s physics Physics { } boundingObject Sphere { radius 0.1 } } } ]
        boundingObject Box { size 0.1 0.1 0.1 } }""" % webots_rotation(rot((1, 0, 0), 0.3) @ rot((0, 0, 1), -0.2)),
                   "WorldInfo { gravity 0 }")
    j1, j2 = (sim.bindings.joint(sim.node("H2"), k) for k in (1, 2))
    assert (sim.data.qpos[j1.qpos_adr], sim.data.qpos[j2.qpos_adr]) == pytest.approx((0.3, -0.2))
    np.testing.assert_allclose(sim.model.jnt_axis[j1.joint_id], [1, 0, 0], atol=1e-12)
    sim.data.qpos[[j1.qpos_adr, j2.qpos_adr]] = (1.0, 0.5)
    mujoco.mj_forward(sim.model, sim.data)
    np.testing.assert_allclose(sim.data.xmat[end_point(sim).body_id].reshape(3, 3),
                               rot((1, 0, 0), 1.0) @ rot((0, 0, 1), 0.5), atol=1e-12)
    assert sim.supervision.field_value(sim.node("H2"), "position") == pytest.approx(1.0)
    assert sim.supervision.field_value(sim.node("H2"), "position2") == pytest.approx(0.5)


def test_spring_on_axis_one_and_damping_on_axis_two(make_sim, record, period_of) -> None:
    """A box of mass m turning about its own centre: axis 1 (z) with spring k oscillates with
    T = 2 pi sqrt(I_z / k) about position 0; axis 2 (x) with damping c decays as exp(-c t / I_x)."""
    m, a, b, c = 2.0, 0.3, 0.1, 0.05
    k, damping = 3.0, 0.01
    # The base has Physics under a static Solid: Webots fixes it to the static environment.
    sim = make_sim(f"""Solid {{ children [ Solid {{ translation 0 0 1 physics Physics {{ }}
      boundingObject Box {{ size 0.1 0.1 0.1 }} children [ Hinge2Joint {{
        jointParameters HingeJointParameters {{ axis 0 0 1 anchor 0 0 0.5 springConstant {k} position 0.1 }}
        jointParameters2 JointParameters {{ axis 1 0 0 dampingConstant {damping} }}
        endPoint DEF EP Solid {{ translation 0 0 0.5 rotation 0 0 1 0.1 physics Physics {{ density -1 mass {m} }}
          boundingObject Box {{ size {a} {b} {c} }} }} }} ] }} ] }}""",
                   "WorldInfo { gravity 0 basicTimeStep 4 physicsDisableTime 0 }")
    j1, j2 = sim.bindings.joints
    inertia_z = m * (a * a + b * b) / 12.0
    expected = 2.0 * math.pi * math.sqrt(inertia_z / k)
    times, values = record(sim, 4 * expected, lambda s: float(s.data.qpos[j1.qpos_adr]))
    assert values[0] == pytest.approx(0.1)
    assert period_of(times, values) == pytest.approx(expected, rel=2e-3)
    assert np.abs(values).max() == pytest.approx(0.1, rel=0.01)  # rests at 0, oscillates +-0.1
    # Axis 2: start it spinning at a known rate, with axis 1 at rest.
    inertia_x = m * (b * b + c * c) / 12.0
    sim.reset()
    sim.data.qpos[j1.qpos_adr] = 0.0
    sim.data.qvel[j2.dof_adr] = 1.0
    times, rates = record(sim, 0.2, lambda s: float(s.data.qvel[j2.dof_adr]))
    np.testing.assert_allclose(rates, np.exp(-damping * times / inertia_x), rtol=1e-2)
    # Exactly (to the inertia) the decay of MuJoCo's implicit integration of the damper, step by step.
    implicit = (1.0 + damping * 0.004 / inertia_x) ** -np.arange(len(times))
    np.testing.assert_allclose(rates, implicit, rtol=1e-5)


def test_stops_hold_each_axis(project, load) -> None:
    """minStop/maxStop per axis, as absolute positions; a motor running into them stops there."""
    sim, robot = arm(project, load, params1="minStop -0.5 maxStop 0.4", params2="minStop -0.3 maxStop 0.2",
                     motor1="maxTorque 0.5", motor2="maxTorque 0.5")
    m1, m2, s1, s2 = (robot.getDevice(n) for n in ("m1", "m2", "s1", "s2"))
    s1.enable(16)
    s2.enable(16)
    for motor in (m1, m2):
        motor.setPosition(float("inf"))
        motor.setVelocity(1.0)
    robot.step(2000)
    assert s1.getValue() == pytest.approx(0.4, abs=0.01)
    assert s2.getValue() == pytest.approx(0.2, abs=0.01)
    for motor in (m1, m2):
        motor.setVelocity(-1.0)
    robot.step(2000)
    assert s1.getValue() == pytest.approx(-0.5, abs=0.01)
    assert s2.getValue() == pytest.approx(-0.3, abs=0.01)


@pytest.mark.parametrize("parameters", [
    "HingeJointParameters { axis 0 1 0 anchor 0 0 -0.1 suspensionSpringConstant 2000 suspensionAxis 0 0 1 }",
    "Hinge2JointParameters { axis 0 0 1 anchor 0 0 -0.1 suspensionSpringConstant 2000 }",
])
def test_suspension_spring_along_its_axis(make_sim, record, period_of, parameters: str) -> None:
    """A 1 kg endPoint hanging on the suspension: static sag m g / k along the suspension axis (the deprecated
    Hinge2JointParameters suspends along its axis), oscillation period 2 pi sqrt(m / k)."""
    world = f"""Solid {{ children [ Solid {{ translation 0 0 1 physics Physics {{ }}
      boundingObject Box {{ size 0.05 0.05 0.05 }}
      children [ Hinge2Joint {{ jointParameters {parameters} jointParameters2 JointParameters {{ axis 1 0 0 }}
        endPoint DEF EP Solid {{ translation 0 0 -0.1 physics Physics {{ density -1 mass 1 }}
          boundingObject Sphere {{ radius 0.02 }} }} }} ] }} ] }}"""
    model = load_world_model_from_string("#VRML_SIM R2023b utf8\nWorldInfo { physicsDisableTime 0 basicTimeStep 4 }\n"
                                         + world, "s.wbt")
    warnings = [w.message for w in compile_world(model).warnings]
    if "Hinge2JointParameters" in parameters:
        assert warnings == ["'Hinge2JointParameters' is deprecated, please use 'HingeJointParameters' instead."]
    else:
        assert warnings == []
    sim = make_sim(world, "WorldInfo { physicsDisableTime 0 basicTimeStep 4 }")
    body = end_point(sim).body_id
    times, heights = record(sim, 2.0, lambda s: float(s.data.xpos[body][2]))
    expected_sag = 1.0 * G / 2000.0
    mean = 0.5 * (heights.max() + heights.min())
    assert 0.9 - mean == pytest.approx(expected_sag, rel=0.01)
    assert period_of(times, heights - mean) == pytest.approx(2 * math.pi * math.sqrt(1.0 / 2000.0), rel=0.01)
    np.testing.assert_allclose(sim.data.xpos[body][:2], 0.0, atol=1e-9)  # only along the suspension axis


def test_no_suspension_no_extra_degree_of_freedom(make_sim) -> None:
    sim = make_sim("""Solid { physics Physics { } boundingObject Box { size 0.1 0.1 0.1 } children [ Hinge2Joint {
        jointParameters HingeJointParameters { suspensionAxis 0 0 1 }
        endPoint Solid { physics Physics { } boundingObject Sphere { radius 0.02 } } } ] }""")
    assert sim.model.njnt == 3  # the free joint and the two hinges
    assert set(sim.model.jnt_type[1:]) == {int(mujoco.mjtJoint.mjJNT_HINGE)}


def test_kinematic_end_point_moved_by_both_motors(project, load) -> None:
    """An endPoint without Physics under a static Solid: Webots moves it kinematically with each motor."""
    world = ROBOT.format(params1="", params2="", motor1="", motor2="")
    world = world.replace("physics Physics { } boundingObject Box { size 0.1 0.1 0.1 }", "")
    world = world.replace("physics Physics { density -1 mass 0.5 }", "")
    sim = load(project(world))
    robot = sim.robot("arm")
    assert all(j.kinematic for j in sim.bindings.joints)
    s1, s2 = robot.getDevice("s1"), robot.getDevice("s2")
    s1.enable(16)
    s2.enable(16)
    robot.getDevice("m1").setPosition(0.5)
    robot.getDevice("m2").setPosition(-0.25)
    robot.step(1000)
    assert (s1.getValue(), s2.getValue()) == pytest.approx((0.5, -0.25), abs=1e-6)
    sim.supervision.refresh()
    np.testing.assert_allclose(sim.data.xmat[end_point(sim).body_id].reshape(3, 3),
                               rot((0, 0, 1), 0.5) @ rot((1, 0, 0), -0.25), atol=1e-6)


def _compiled(body: str, info: str = "WorldInfo { }"):  # noqa: ANN202
    model = load_world_model_from_string("#VRML_SIM R2023b utf8\n" + info + "\n" + body, "e.wbt")
    return compile_world(model)


def test_parent_without_physics_leaves_the_end_point_unattached_with_webots_warning() -> None:
    """``WbHinge2Joint::setJoint``: with no body above the joint Webots warns and makes no ODE joint, so the
    endPoint (with Physics) is a free body: it falls, and its motor moves nothing."""
    compiled = _compiled("Solid {\n  translation 0 0 1\n  children [\n    Hinge2Joint {\n"
                         "      device [ RotationalMotor { name \"m\" } ]\n"
                         "      endPoint DEF EP Solid { translation 0.1 0 0 physics Physics { density -1 mass 1 } }\n"
                         "    }\n  ]\n}")
    (warning,) = [w for w in compiled.warnings if "Hinge2Joint" in w.message]
    assert warning.message.startswith("Hinge2Joint nodes can only connect Solid nodes that have a Physics node")
    assert (warning.location.line, warning.location.column) == (6, 5)
    assert warning.node_path == "Solid > children[0] > Hinge2Joint"
    sim = Simulation(compiled)
    assert all(j.qpos_adr < 0 for j in sim.bindings.joints)
    ep = end_point(sim)
    sim.supervision.refresh()
    np.testing.assert_allclose(sim.data.xpos[ep.body_id], [0.1, 0.0, 1.0], atol=1e-12)
    steps = 10
    for _ in range(steps):
        sim.step()
    sim.supervision.refresh()
    n, h = steps * sim.substeps, sim.basic_time_step_ms / 1000.0 / sim.substeps
    fallen = 1.0 - G * h * h * n * (n + 1) / 2  # semi-implicit Euler from rest, as MuJoCo integrates
    np.testing.assert_allclose(sim.data.xpos[ep.body_id], [0.1, 0.0, fallen], atol=1e-9)


def test_aligned_axes_use_the_world_x_and_z_axes_with_webots_warning() -> None:
    """``WbHinge2Joint::applyToOdeAxis``: aligned axes give ODE the world's x and z axes instead (at the load
    pose, whatever the parent's orientation and axis 1's position), with Webots' warning."""
    compiled = _compiled("Solid { rotation 1 1 0 0.7 physics Physics { } children [ Hinge2Joint {\n"
                         "  jointParameters HingeJointParameters { axis 0 0 2 position 0.4 }\n"
                         "  jointParameters2 JointParameters { axis 0 0 -1 position -0.3 }\n"
                         "  endPoint DEF EP Solid { physics Physics { } } } ] }", "WorldInfo { gravity 0 }")
    (warning,) = [w for w in compiled.warnings if "aligned" in w.message]
    assert warning.message == "Hinge axes are aligned: using x and z axes instead."
    assert (warning.location.line, warning.location.column) == (3, 59)
    assert warning.node_path == "Solid > children[0] > Hinge2Joint"
    sim = Simulation(compiled)
    mujoco.mj_forward(sim.model, sim.data)
    axis1, axis2 = (sim.bindings.joint(sim.node("EP").parent, i) for i in (1, 2))
    np.testing.assert_allclose(sim.data.xaxis[axis1.joint_id], [1.0, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(sim.data.xaxis[axis2.joint_id], [0.0, 0.0, 1.0], atol=1e-12)


def test_aligned_axes_of_a_kinematic_end_point_stay_as_written() -> None:
    """A kinematic endPoint has no ODE joint (no warning): both motors turn it about the file's axis."""
    compiled = _compiled("Solid { children [ Hinge2Joint {\n"
                         "  jointParameters HingeJointParameters { axis 0 0 1 }\n"
                         "  jointParameters2 JointParameters { axis 0 0 1 }\n"
                         "  endPoint DEF EP Solid { } } ] }")
    assert not [w for w in compiled.warnings if "aligned" in w.message]
    sim = Simulation(compiled)
    mujoco.mj_forward(sim.model, sim.data)
    for joint in sim.bindings.joints:
        np.testing.assert_allclose(sim.data.xaxis[joint.joint_id], [0.0, 0.0, 1.0], atol=1e-12)


def test_suspension_warnings_are_located() -> None:
    model = load_world_model_from_string("""#VRML_SIM R2023b utf8
WorldInfo { }
Solid { physics Physics { } children [
  Hinge2Joint { jointParameters HingeJointParameters {
      suspensionSpringConstant 100 suspensionAxis 0 0 0 }
    endPoint Solid { physics Physics { } } }
  HingeJoint { jointParameters HingeJointParameters { suspensionDampingConstant 3 }
    endPoint Solid { physics Physics { } } }
] }""", "w.wbt")
    warnings = [w for w in compile_world(model).warnings if "uspension" in w.message]
    assert [w.message for w in warnings] == [
        "'SuspensionAxis' must be non zero.",
        "HingeJoint suspension is not simulated by wbsim (only a Hinge2Joint's is); ignored.",
    ]
    assert warnings[0].node_path.endswith("> jointParameters > HingeJointParameters > suspensionAxis")
    assert warnings[0].location.line == 5
    assert warnings[1].location.line == 7


def test_runs_are_bit_identical_also_after_reset(make_sim) -> None:
    """A swinging Hinge2Joint with a suspension under gravity, twice from loading and once after ``reset``."""
    world = """Solid { children [ Solid { translation 0 0 1 physics Physics { } boundingObject Box { size 0.1 0.1 0.1 }
      children [ Hinge2Joint {
        jointParameters HingeJointParameters { axis 0 1 0 position 0.3 suspensionSpringConstant 500
          suspensionDampingConstant 2 suspensionAxis 0 0 1 }
        jointParameters2 JointParameters { axis 1 0 0 springConstant 0.5 }
        endPoint Solid { translation 0.1 0.05 -0.1 rotation 0 1 0 0.3 physics Physics { }
          boundingObject Box { size 0.05 0.05 0.3 } } } ] } ] }"""

    def trajectory(sim) -> np.ndarray:  # noqa: ANN001
        rows = []
        for _ in range(150):
            sim.step()
            rows.append(sim.data.qpos.copy())
        return np.array(rows)

    sim = make_sim(world, "WorldInfo { physicsDisableTime 0 }")
    first = trajectory(sim)
    assert np.ptp(first, axis=0).max() > 0.1  # it does swing
    sim.reset()
    assert np.array_equal(trajectory(sim), first)
    assert np.array_equal(trajectory(make_sim(world, "WorldInfo { physicsDisableTime 0 }")), first)


@pytest.mark.parametrize("friction, holds", [(0.6, True), (0.4, False)])
def test_static_friction_per_axis(make_sim, friction: float, holds: bool) -> None:
    """Axis 2 horizontal, a 1 kg endPoint 5 cm off it: gravity's torque is 0.49 N*m; axis 2's staticFriction
    holds it above that and not below, while axis 1 (vertical, no friction) carries no torque."""
    sim = make_sim(f"""Solid {{ children [ Solid {{ translation 0 0 1 physics Physics {{ }}
      boundingObject Box {{ size 0.05 0.05 0.05 }} children [ Hinge2Joint {{
        jointParameters HingeJointParameters {{ axis 0 0 1 }}
        jointParameters2 JointParameters {{ axis 1 0 0 staticFriction {friction} }}
        endPoint Solid {{ translation 0 0.05 0 physics Physics {{ density -1 mass 1 }}
          boundingObject Sphere {{ radius 0.01 }} }} }} ] }} ] }}""", "WorldInfo { physicsDisableTime 0 }")
    j1, j2 = sim.bindings.joints
    for _ in range(32):
        sim.step()
    moved = abs(float(sim.data.qpos[j2.qpos_adr]))
    assert (moved < 1e-3) == holds
    assert abs(float(sim.data.qpos[j1.qpos_adr])) < 1e-6


@pytest.mark.parametrize("friction, holds", [(0.6, True), (0.4, False)])
def test_hinge_joint_static_friction_without_motor_holds_like_odes(make_sim, friction: float, holds: bool) -> None:
    """The same near-hard friction on a plain HingeJoint (shared code): Webots' ODE joint holds a load below its
    staticFriction with a bounded velocity constraint, without creeping."""
    sim = make_sim(f"""Solid {{ translation 0 0 1 children [ HingeJoint {{
        jointParameters HingeJointParameters {{ axis 1 0 0 staticFriction {friction} }}
        endPoint Solid {{ translation 0 0.05 0 physics Physics {{ density -1 mass 1 }}
          boundingObject Sphere {{ radius 0.01 }} }} }} ] }}""", "WorldInfo { physicsDisableTime 0 }")
    (joint,) = sim.bindings.joints
    for _ in range(32):
        sim.step()
    assert (abs(float(sim.data.qpos[joint.qpos_adr])) < 1e-3) == holds


def test_static_friction_without_motor_slides_with_coulomb_torque_then_sticks(make_sim) -> None:
    """Above its static friction a joint slides against exactly ``staticFriction`` (ODE's motor row at velocity 0
    saturates at FMax): a spinning endPoint on a vertical axis decelerates at ``staticFriction / I`` every step,
    then stays at rest (the near-hard friction leaves no creep or stick-slip)."""
    friction, inertia, omega0 = 1.0, 0.1 + 1.0 * 0.5**2, 0.5
    sim = make_sim("""Solid { children [ HingeJoint {
        jointParameters HingeJointParameters { axis 0 0 1 staticFriction 1 }
        endPoint Solid { translation 0.5 0 0 physics Physics { density -1 mass 1 centerOfMass [ 0 0 0 ]
          inertiaMatrix [ 0.1 0.1 0.1 0 0 0 ] } } } ] }""", "WorldInfo { basicTimeStep 16 physicsDisableTime 0 }")
    (joint,) = sim.bindings.joints
    sim.data.qvel[joint.dof_adr] = omega0
    h = sim.basic_time_step_ms / 1000.0
    for step in range(1, 8):  # sliding: exact Coulomb deceleration
        sim.step()
        assert float(sim.data.qvel[joint.dof_adr]) == pytest.approx(omega0 - friction / inertia * h * step, abs=1e-12)
    for _ in range(30):
        sim.step()
    held = float(sim.data.qpos[joint.qpos_adr])
    assert held == pytest.approx(omega0**2 * inertia / (2 * friction), rel=0.03)  # the stop angle
    for _ in range(30):
        sim.step()
    assert abs(float(sim.data.qvel[joint.dof_adr])) < 1e-12
    assert float(sim.data.qpos[joint.qpos_adr]) == pytest.approx(held, abs=1e-9)


def test_parent_and_end_point_never_collide(make_sim) -> None:
    """ODE skips bodies linked by a joint; MuJoCo only skips a body and its direct parent, and the endPoint's
    MuJoCo parent is the intermediate body: an explicit exclusion keeps the overlapping boxes apart."""
    sim = make_sim("""Solid { children [ DEF BASE Solid { translation 0 0 1 physics Physics { }
      boundingObject Box { size 0.2 0.2 0.2 } children [ Hinge2Joint {
        endPoint DEF EP Solid { translation 0.05 0 0 physics Physics { } boundingObject Box { size 0.2 0.2 0.2 } }
      } ] } ] }
      DEF OTHER Solid { translation 0.22 0 1 boundingObject Box { size 0.2 0.2 0.2 } }""",
                   "WorldInfo { gravity 0 }")
    mujoco.mj_forward(sim.model, sim.data)
    ep, other = end_point(sim), sim.bindings.solid(sim.node("OTHER"))
    pairs = {frozenset(int(sim.model.geom_bodyid[g]) for g in c.geom) for c in sim.data.contact[: sim.data.ncon]}
    base = sim.bindings.solid(sim.node("BASE"))
    assert frozenset((base.body_id, ep.body_id)) not in pairs
    assert frozenset((other.body_id, ep.body_id)) in pairs  # the endPoint does collide with others
