"""Supervisor, Node and Field against Webots semantics and the live MuJoCo state."""

from __future__ import annotations

import ctypes
import math
import os

import numpy as np
import pytest

from wbsim.world.writer import format_number

WORLD = """
WorldInfo { basicTimeStep 10 physicsDisableTime 0 contactProperties [ ContactProperties { bounce 0 } ] }
DEF FLOOR Solid { boundingObject Plane {} }
DEF BOSS Robot {
  name "boss"
  controller "<extern>"
  supervisor TRUE
  customData "hello"
  children [
    DEF ARM Pose {
      translation 1 0 0
      children [ DEF MARKER Solid { translation 0 1 0 rotation 0 0 1 1.5707963 name "marker" } ]
    }
  ]
}
DEF WORKER Robot { name "worker" controller "<extern>" translation 5 0 0 }
DEF BOX Solid {
  translation 0 0 2
  rotation 0 0 1 0.5
  name "box"
  boundingObject Box { size 0.2 0.2 0.2 }
  physics Physics { density -1 mass 2 }
}
DEF SHELF Solid { translation 3 0 0 name "shelf" boundingObject Box { size 0.5 0.5 0.5 } }
"""


@pytest.fixture
def rig(project, load):
    sim = load(project(WORLD))
    return sim, sim.robot("boss")


def test_supervisor_robot_gets_a_supervisor_object(rig):
    sim, boss = rig
    from controller import Supervisor

    assert isinstance(boss, Supervisor)
    assert boss.getSupervisor() is True
    assert not isinstance(sim.robot("worker"), Supervisor)


def test_get_from_def_and_dotted_paths_follow_webots_supervisor_rules(rig):
    sim, boss = rig
    box = boss.getFromDef("BOX")
    assert box.getTypeName() == "Solid" and box.getDef() == "BOX"
    assert boss.getFromDef("BOSS.ARM").getTypeName() == "Pose"
    assert boss.getFromDef("BOSS.ARM.MARKER").getDef() == "MARKER"
    # Each later segment must be a direct sub-node: MARKER is not directly inside BOSS.
    assert boss.getFromDef("BOSS.MARKER") is None
    assert boss.getFromDef("NOPE") is None
    assert boss.getSelf().getDef() == "BOSS"
    assert boss.getSelf() == boss.getFromDef("BOSS")
    assert boss.getFromId(box.getId()) == box
    assert boss.getFromDef("MARKER").getParentNode() == boss.getFromDef("BOSS.ARM")
    assert boss.getFromDef("BOX").getParentNode() == boss.getRoot()


def test_position_and_orientation_of_solids_and_poses(rig):
    sim, boss = rig
    marker = boss.getFromDef("MARKER")
    np.testing.assert_allclose(marker.getPosition(), [1, 1, 0], atol=1e-9)
    np.testing.assert_allclose(np.reshape(marker.getOrientation(), (3, 3)), [[0, -1, 0], [1, 0, 0], [0, 0, 1]],
                               atol=1e-6)
    np.testing.assert_allclose(boss.getFromDef("ARM").getPosition(), [1, 0, 0], atol=1e-12)
    pose = np.reshape(marker.getPose(boss.getFromDef("ARM")), (4, 4))
    np.testing.assert_allclose(pose[:3, 3], [0, 1, 0], atol=1e-9)


def test_velocity_of_a_falling_box_is_g_t(rig):
    sim, boss = rig
    box = boss.getFromDef("BOX")
    boss.step(300)
    vx, vy, vz, wx, wy, wz = box.getVelocity()
    assert vz == pytest.approx(-9.81 * 0.3, rel=1e-6)
    assert vx == vy == wx == wy == wz == 0.0
    assert box.getPosition()[2] == pytest.approx(2 - 0.5 * 9.81 * 0.3**2, abs=0.02)


def test_set_velocity_moves_a_free_solid(rig):
    sim, boss = rig
    box = boss.getFromDef("BOX")
    box.setVelocity([1.0, 0.0, 0.0, 0.0, 0.0, 2.0])
    boss.step(10)
    velocity = box.getVelocity()
    assert velocity[0] == pytest.approx(1.0, rel=1e-6)
    assert velocity[5] == pytest.approx(2.0, rel=1e-6)
    assert box.getPosition()[0] == pytest.approx(0.01, rel=1e-3)


def test_translation_field_reads_live_pose_and_writing_it_moves_bodies(rig):
    sim, boss = rig
    box = boss.getFromDef("BOX")
    translation = box.getField("translation")
    assert translation.getTypeName() == "SFVec3f" and translation.getType() == translation.SF_VEC3F
    np.testing.assert_allclose(translation.getSFVec3f(), [0, 0, 2], atol=1e-12)
    boss.step(100)
    assert translation.getSFVec3f()[2] == pytest.approx(2.0 - 0.5 * 9.81 * 0.1**2, abs=2e-3)  # live
    falling = box.getVelocity()
    translation.setSFVec3f([0.5, 0.5, 1.0])
    np.testing.assert_allclose(box.getPosition(), [0.5, 0.5, 1.0], atol=1e-9)
    assert box.getVelocity() == pytest.approx(falling, abs=1e-12)  # supervisor moves keep velocities
    rotation = box.getField("rotation")
    np.testing.assert_allclose(rotation.getSFRotation(), [0, 0, 1, 0.5], atol=1e-9)
    rotation.setSFRotation([0, 0, 2, 1.0])  # the axis is normalised
    np.testing.assert_allclose(rotation.getSFRotation(), [0, 0, 1, 1.0], atol=1e-9)
    shelf = boss.getFromDef("SHELF")
    shelf.getField("translation").setSFVec3f([3, 1, 0])
    boss.step(10)
    np.testing.assert_allclose(shelf.getPosition(), [3, 1, 0], atol=1e-12)


def test_other_fields_read_and_write(rig, capfd):
    sim, boss = rig
    robot_node = boss.getSelf()
    assert robot_node.getField("customData").getSFString() == "hello"
    assert robot_node.getField("controller").getSFString() == "<extern>"
    assert robot_node.getField("nonexistent") is None
    boss.setCustomData("changed")
    assert robot_node.getField("customData").getSFString() == "changed"
    robot_node.getField("customData").setSFString("via field")
    assert boss.getCustomData() == "via field"
    children = robot_node.getField("children")
    assert children.getCount() == 1 and children.getMFNode(0) == boss.getFromDef("ARM")
    assert children.getMFNode(-1) == boss.getFromDef("ARM")
    assert children.getMFNode(5) is None
    assert "out-of-bound index" in capfd.readouterr().err
    box = boss.getFromDef("BOX")
    assert box.getField("physics").getSFNode().getTypeName() == "Physics"
    box.getField("translation").setSFVec3f([1, 2])
    assert "length of 'value' argument should be 3" in capfd.readouterr().err


def test_simulation_quit_status_ends_the_run(rig):
    sim, boss = rig
    boss.step(10)
    boss.simulationQuit(7)
    assert boss.step(10) == -1
    assert sim.exit_status == 7


def test_simulation_reset_restores_world_and_time(rig):
    sim, boss = rig
    box = boss.getFromDef("BOX")
    boss.step(200)
    boss.simulationReset()
    # Webots resets at the end of the next step (after its physics, with the clock at 0) and then advances the
    # clock: that step ends at t = one basic step with the initial state, and the pending step(10), restarted
    # at time 0, returns there.
    boss.step(10)
    assert sim.time_s == pytest.approx(0.01)
    assert box.getPosition()[2] == 2.0 and box.getVelocity() == [0.0] * 6
    boss.step(10)  # the first physics step from the initial state
    assert sim.time_s == pytest.approx(0.02)
    assert box.getVelocity()[2] == pytest.approx(-9.81 * 0.01, rel=1e-6)


def test_simulation_reset_physics_zeroes_velocities_keeps_poses(rig):
    sim, boss = rig
    box = boss.getFromDef("BOX")
    boss.step(200)
    z = box.getPosition()[2]
    boss.simulationResetPhysics()
    assert box.getVelocity() == [0.0] * 6
    assert box.getPosition()[2] == z


def test_add_force_acts_for_one_step(rig):
    sim, boss = rig
    box = boss.getFromDef("BOX")
    box.addForce([20.0, 0.0, 0.0], False)
    boss.step(10)
    vx = box.getVelocity()[0]
    assert vx == pytest.approx(20.0 / 2.0 * 0.01, rel=1e-6)
    boss.step(10)
    assert box.getVelocity()[0] == pytest.approx(vx, rel=1e-9)


def test_supervisor_calls_from_a_plain_robot_are_refused(project, load, capfd):
    sim = load(project(WORLD))
    from controller import Supervisor

    worker = Supervisor(sim.robot_runtime("worker"))
    assert worker.getFromDef("BOX") is None
    err = capfd.readouterr().err
    assert "ignoring illegal call to wb_supervisor_node_get_from_def() in a 'Robot' controller." in err
    worker.simulationQuit(1)
    assert not sim.ended


def test_position_of_non_pose_node_warns_and_returns_nan(rig, capfd):
    sim, boss = rig
    physics = boss.getFromDef("BOX").getField("physics").getSFNode()
    assert all(math.isnan(v) for v in physics.getPosition())
    assert "can exclusively be used with Pose" in capfd.readouterr().err


def test_node_type_constants(rig):
    sim, boss = rig
    from controller import Node

    assert boss.getSelf().getType() == Node.ROBOT
    assert boss.getFromDef("BOX").getType() == Node.SOLID
    assert boss.getFromDef("ARM").getType() == Node.POSE
    assert len({Node.ROBOT, Node.SOLID, Node.POSE, Node.HINGE_JOINT}) == 4


def test_nan_and_huge_arguments_are_refused_and_leave_the_world_untouched(rig, capfd):
    """Webots' check_float: NaN or |v| > FLT_MAX is an error (MuJoCo would reset the whole state)."""
    sim, boss = rig
    box = boss.getFromDef("BOX")
    boss.step(100)
    z = box.getPosition()[2]
    box.addForce([math.nan, 0.0, 0.0], False)
    box.addTorque([0.0, math.inf, 0.0], False)
    box.setVelocity([0.0, 0.0, 0.0, 0.0, 0.0, math.nan])
    box.getField("translation").setSFVec3f([1e300, 0.0, 1.0])
    with pytest.raises(IndexError, match="invalid index"):  # the binding's ctypes array of 3 doubles
        box.addForce([1.0, 2.0, 3.0, 4.0], False)
    err = capfd.readouterr().err
    assert "wb_supervisor_node_add_force() called with a NaN value." in err
    assert "wb_supervisor_node_add_torque() called with a value greater than FLX_MAX" in err
    assert "wb_supervisor_node_set_velocity() called with a NaN value." in err
    assert "wb_supervisor_field_set_sf_vec3f() called with a value greater than FLX_MAX" in err
    boss.step(10)
    assert np.isfinite(sim.data.qpos).all()
    assert box.getPosition()[2] == pytest.approx(z - 9.81 * 0.1 * 0.01 - 9.81 * 0.01**2, abs=1e-3)


ARM = """
WorldInfo { basicTimeStep 10 gravity 0 }
DEF BOSS Robot { name "boss" controller "<extern>" supervisor TRUE }
DEF CART Solid {
  translation 0 0 1
  physics Physics { density -1 mass 1 }
  boundingObject Box { size 0.1 0.1 0.1 }
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 0 1 }
      endPoint DEF LINK Solid { translation 0.3 0 0 physics Physics { density -1 mass 1 }
                                boundingObject Box { size 0.1 0.1 0.1 } }
    }
  ]
}
"""


def test_joint_parameters_position_field_reads_the_live_joint_position(project, load):
    """Webots updates JointParameters.position after every physics step."""
    link = "endPoint DEF LINK Solid { translation 0.3 0 0"
    world = ARM.replace("axis 0 0 1 }", "axis 0 0 1 position 0.25 }")
    world = world.replace(link, link + " rotation 0 0 1 0.25")
    sim = load(project(world))
    boss = sim.robot("boss")
    hinge = boss.getFromDef("CART").getField("children").getMFNode(0)
    position = hinge.getField("jointParameters").getSFNode().getField("position")
    assert position.getSFFloat() == pytest.approx(0.25)
    sim.data.qvel[sim.bindings.joints[0].dof_adr] = 2.0
    boss.step(100)
    assert position.getSFFloat() == pytest.approx(0.25 + 2.0 * 0.1, rel=1e-6)


def test_writing_a_joint_position_field_moves_the_end_point(project, load):
    """Webots moves the endPoint to a position a supervisor writes (and resets its physics)."""
    sim = load(project(ARM))
    boss = sim.robot("boss")
    position = boss.getFromDef("CART").getField("children").getMFNode(0).getField("jointParameters") \
        .getSFNode().getField("position")
    sim.data.qvel[sim.bindings.joints[0].dof_adr] = 2.0
    position.setSFFloat(math.pi / 2)
    assert boss.getFromDef("LINK").getPosition() == pytest.approx([0.0, 0.3, 1.0], abs=1e-12)
    assert sim.data.qvel[sim.bindings.joints[0].dof_adr] == 0.0
    boss.step(100)  # no motor: it stays there
    assert position.getSFFloat() == pytest.approx(math.pi / 2, abs=1e-9)


def test_node_reset_physics_stops_the_solid_and_everything_below_it(project, load):
    sim = load(project(ARM))
    boss = sim.robot("boss")
    cart = boss.getFromDef("CART")
    cart.setVelocity([1.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    hinge = sim.bindings.joints[0]
    sim.data.qvel[hinge.dof_adr] = 3.0
    boss.step(10)
    cart.resetPhysics()
    assert cart.getVelocity() == [0.0] * 6
    assert sim.data.qvel[hinge.dof_adr] == 0.0
    boss.getFromDef("LINK").resetPhysics()  # an endPoint owns its body: only its joint stops
    assert boss.getFromDef("LINK").getVelocity() == [0.0] * 6


def test_moving_a_static_solid_works_with_sleeping_enabled(project, load):
    # Webots' default physicsDisableTime (1 s) enables MuJoCo sleeping, which computes static poses only once.
    world = """
    WorldInfo { }
    Solid { name "floor" boundingObject Plane { } }
    Robot { name "boss" controller "<extern>" supervisor TRUE }
    DEF SHELF Solid { translation 3 0 0.25 name "shelf" boundingObject Box { size 0.5 0.5 0.5 } }
    DEF BOX Solid { translation 0 0 1 name "box" boundingObject Box { size 0.2 0.2 0.2 } physics Physics { } }
    """
    sim = load(project(world))
    boss = sim.robot("boss")
    shelf = boss.getFromDef("SHELF")
    shelf.getField("translation").setSFVec3f([0.0, 0.0, 0.25])  # under the falling box
    boss.step(32)
    assert shelf.getPosition() == pytest.approx([0.0, 0.0, 0.25])
    geom = sim.bindings.solid(sim.node("SHELF")).geom_ids[0]
    assert sim.data.geom_xpos[geom] == pytest.approx([0.0, 0.0, 0.25])
    boss.step(3000)
    box = sim.bindings.solid(sim.node("BOX"))
    assert sim.data.xpos[box.body_id][2] == pytest.approx(0.6, abs=2e-3)  # resting on the shelf top


# --- frame-only Solids (BodyPlan.frame_only): a site on the enclosing body, no body of their own --------------

FRAME_ONLY_SENSOR = """
DEF T TouchSensor { translation 0.1 0.02 0 rotation 0 1 0 0.2 name "bumper"
  boundingObject Group { children [
    Box { size 0.02 0.03 0.04 }
    Pose { translation 0 0.03 0 rotation 0 0 1 0.5 children [ Sphere { radius 0.01 } ] } ] }
  children [ DEF MARK Pose { translation 0.01 0.02 0.03 rotation 1 1 0 0.3 } ] }
"""


def frame_only_world(parent: str) -> str:
    """A supervisor robot and a bumper on it ("dynamic": the robot has Physics; "static": it has none) or at
    the top level ("top-level"), under a rotated Pose; sleeping is on for static cases (Webots' default)."""
    inside = FRAME_ONLY_SENSOR if parent != "top-level" else ""
    outside = FRAME_ONLY_SENSOR if parent == "top-level" else ""
    physics = "physics Physics { }" if parent == "dynamic" else ""
    sleep = "physicsDisableTime 0" if parent == "dynamic" else ""
    return f"""
    WorldInfo {{ basicTimeStep 10 gravity 0 {sleep} }}
    DEF BOSS Robot {{
      translation 0.3 -0.2 1 rotation 0 0 1 0.3
      name "boss" controller "<extern>" supervisor TRUE
      children [ Pose {{ translation 0.05 0 0 rotation 1 0 0 0.4 children [ {inside} ] }} ]
      boundingObject Box {{ size 0.1 0.1 0.1 }}
      {physics}
    }}
    Pose {{ translation -1 0.5 0.2 rotation 0 1 1 0.6 children [ {outside} ] }}
    """


def _plain_plan(self, node, request):
    from wbsim.devices.kind import BodyPlan

    return BodyPlan(allow_no_physics_in_dynamic_parent=True)


def _frame_only_plan(self, node, request):
    from wbsim.devices.kind import BodyPlan

    return BodyPlan(frame_only=True, allow_no_physics_in_dynamic_parent=True)


def load_both(project, load, monkeypatch, world):
    """The world loaded with TouchSensors as Solids with their own body, then as frame-only Solids."""
    from wbsim.devices.touch_sensor.compile import TouchSensorCompiler

    sims = []
    for plan in (_plain_plan, _frame_only_plan):
        with monkeypatch.context() as patch:
            patch.setattr(TouchSensorCompiler, "plan_body", plan)
            sims.append(load(project(world)))
    assert sims[0].bindings.solid(sims[0].node("T")).site_id == -1
    assert sims[1].bindings.solid(sims[1].node("T")).site_id >= 0
    assert sims[1].model.nbody == sims[0].model.nbody - 1
    return sims


def observe(sim):
    """What supervisors see of the sensor (pose, fields, a Pose inside it) and where its geoms are."""
    boss = sim.robot("boss")
    sensor, mark = boss.getFromDef("T"), boss.getFromDef("MARK")
    seen = [sensor.getPosition(), sensor.getOrientation(), sensor.getPose(), sensor.getVelocity(),
            sensor.getField("translation").getSFVec3f(), sensor.getField("rotation").getSFRotation(),
            mark.getPosition(), mark.getOrientation()]
    sim.supervision.refresh()
    for geom in sim.bindings.solid(sim.node("T")).geom_ids:
        seen += [sim.data.geom_xpos[geom].tolist(), sim.data.geom_xmat[geom].tolist()]
    return seen


def assert_same(seen, expected, atol=1e-12):
    for a, b in zip(seen, expected, strict=True):
        np.testing.assert_allclose(a, b, rtol=0, atol=atol)


@pytest.mark.parametrize("parent", ["dynamic", "static", "top-level"])
def test_frame_only_solid_pose_reads_and_writes_match_a_solid_with_its_own_body(project, load, monkeypatch, parent):
    plain, frame_only = load_both(project, load, monkeypatch, frame_only_world(parent))
    assert_same(observe(frame_only), observe(plain))
    # No mass of its own (Webots: the centre of mass of a Solid and its descendants): its origin.
    sensor = frame_only.robot("boss").getFromDef("T")
    assert sensor.getCenterOfMass() == sensor.getPosition()
    for sim in (plain, frame_only):
        boss = sim.robot("boss")
        if parent == "dynamic":
            boss.getSelf().setVelocity([0.2, 0.1, 0.0, 0.3, 0.0, 0.5])
        boss.step(50)
    assert_same(observe(frame_only), observe(plain))
    for sim in (plain, frame_only):
        sensor = sim.robot("boss").getFromDef("T")
        sensor.getField("translation").setSFVec3f([0.2, -0.1, 0.05])
        sensor.getField("rotation").setSFRotation([0.0, 0.0, 1.0, 1.0])
        np.testing.assert_allclose(sensor.getField("translation").getSFVec3f(), [0.2, -0.1, 0.05], atol=1e-12)
        np.testing.assert_allclose(sensor.getField("rotation").getSFRotation(), [0.0, 0.0, 1.0, 1.0], atol=1e-12)
    assert_same(observe(frame_only), observe(plain))  # the geoms moved with the sensor
    for sim in (plain, frame_only):
        sim.robot("boss").step(50)
    assert_same(observe(frame_only), observe(plain))


def test_moving_a_frame_only_bumper_on_a_static_robot_moves_its_geoms_where_they_collide(project, load, monkeypatch):
    # Sleeping is on (Webots' default physicsDisableTime): static poses are computed once, unless a move is flushed.
    # The robot's body has two geoms, so MuJoCo's midphase culls with the body's bounding boxes: they must follow.
    world = """
    WorldInfo { basicTimeStep 10 contactProperties [ ContactProperties { bounce 0 } ] }
    DEF FLOOR Solid { boundingObject Plane { } }
    DEF BOSS Robot { name "boss" controller "<extern>" supervisor TRUE translation 0 0 0.05
      children [ DEF T TouchSensor { name "bumper" boundingObject Box { size 0.3 0.3 0.02 } } ]
      boundingObject Box { size 0.1 0.1 0.1 } }
    DEF BOX Solid { translation 2 0 0.8 boundingObject Box { size 0.1 0.1 0.1 } physics Physics { } }
    """
    landed = []
    for sim in load_both(project, load, monkeypatch, world):
        boss = sim.robot("boss")
        bumper = boss.getDevice("bumper")
        bumper.enable(10)
        boss.getFromDef("T").getField("translation").setSFVec3f([2.0, 0.0, 0.25])
        touched = False
        for _ in range(100):
            boss.step(10)
            touched = touched or bumper.getValue() == 1.0
        assert touched
        landed.append(boss.getFromDef("BOX").getPosition())
    np.testing.assert_allclose(landed[1], landed[0], atol=1e-9)
    assert landed[1][2] == pytest.approx(0.05 + 0.25 + 0.01 + 0.05, abs=2e-3)  # on the bumper, not on the floor


def test_world_reset_puts_frame_only_solids_back(project, load, monkeypatch):
    _, sim = load_both(project, load, monkeypatch, frame_only_world("dynamic"))
    initial = observe(sim)
    model = sim.model
    arrays = {name: getattr(model, name).copy() for name in ("site_pos", "site_quat", "site_sameframe", "geom_pos",
                                                              "geom_quat", "geom_sameframe", "bvh_aabb")}
    boss = sim.robot("boss")
    translation = boss.getFromDef("T").getField("translation")
    translation.setSFVec3f([1.0, 2.0, 3.0])
    boss.step(10)
    assert not np.allclose(model.geom_pos, arrays["geom_pos"])
    assert not np.allclose(model.bvh_aabb, arrays["bvh_aabb"])
    # Moved back: the refitted collision bounds are those MuJoCo compiled.
    translation.setSFVec3f([0.1, 0.02, 0.0])
    np.testing.assert_allclose(model.bvh_aabb, arrays["bvh_aabb"], rtol=0, atol=1e-12)
    translation.setSFVec3f([1.0, 2.0, 3.0])
    sim.reset()
    for name, values in arrays.items():
        np.testing.assert_array_equal(getattr(model, name), values)
    assert_same(observe(sim), initial)


def test_forces_and_reset_physics_on_a_frame_only_solid(project, load, monkeypatch):
    wrenches = []
    for sim in load_both(project, load, monkeypatch, frame_only_world("dynamic")):
        boss = sim.robot("boss")
        sensor = boss.getFromDef("T")
        boss.getSelf().setVelocity([0.2, 0.1, 0.0, 0.3, 0.0, 0.5])
        boss.step(30)
        sensor.addForce([1.0, 2.0, 3.0], True)  # in the sensor's frame
        sensor.addTorque([0.5, 0.0, 0.0], True)
        (wrench,) = sim.supervision.wrenches.values()
        rotation = np.reshape(sensor.getOrientation(), (3, 3))
        np.testing.assert_allclose(wrench, [*rotation @ [1.0, 2.0, 3.0], *rotation @ [0.5, 0.0, 0.0]], atol=1e-12)
        wrenches.append(wrench.copy())
        velocity = boss.getSelf().getVelocity()
        sensor.resetPhysics()  # no body of its own (nor below it): nothing stops
        assert boss.getSelf().getVelocity() == velocity
    np.testing.assert_allclose(wrenches[1], wrenches[0], atol=1e-12)
    frame_only = sim.bindings.solid(sim.node("T"))
    assert next(iter(sim.supervision.wrenches)) == frame_only.body_id == sim.bindings.solid(sim.node("BOSS")).body_id


def test_bad_argument_types_give_the_errors_of_webots_binding(rig):
    sim, sup = rig
    # Webots' binding encodes names for C (str.encode) and passes ints through ctypes: the same errors (issue 15).
    with pytest.raises(TypeError, match="descriptor 'encode' for 'str' objects doesn't apply to a 'int' object"):
        sup.getFromDef(3)
    with pytest.raises(TypeError, match="descriptor 'encode' for 'str' objects doesn't apply to a 'list' object"):
        sup.getRoot().getField(["children"])
    with pytest.raises(ctypes.ArgumentError, match="argument 1: TypeError: Don't know how to convert parameter 1"):
        sup.simulationQuit(1.0)
    with pytest.raises(ctypes.ArgumentError, match="argument 2: TypeError: Don't know how to convert parameter 2"):
        sup.getRoot().getField("children").getMFNode(0.0)
    assert not sim.ended
    sup.simulationQuit(True)  # a bool is an int to ctypes
    assert sim.ended and sim.exit_status == 1


def test_node_identity_properties_and_fields_by_index(rig):
    sim, boss = rig
    box = boss.getFromDef("BOX")
    assert (box.DEF, box.type_name, box.base_type_name, box.type, box.id) == ("BOX", "Solid", "Solid", box.getType(),
                                                                              box.getId())
    assert box.number_of_fields == box.getNumberOfFields() == len(box._wb.schema.fields)
    first = box.getFieldByIndex(0)
    assert first.getName() == "translation" and first.type_name == "SFVec3f"
    assert box.getFieldByIndex(box.getNumberOfFields()) is None
    assert box.getBaseNodeField("translation").getSFVec3f() == box.getField("translation").getSFVec3f()
    assert box.getNumberOfBaseNodeFields() == box.getNumberOfFields() and box.getProto() is None
    children = boss.getRoot().getField("children")
    assert children.count == children.getCount() == 6 and children.getActualField() is children


def test_proto_instances_expose_their_proto_and_base_node(project, load):
    path = project('DEF B Bar { length 2 }\nRobot { name "s" controller "<extern>" supervisor TRUE }',
                   files={"protos/Bar.proto": "#VRML_SIM R2023b utf8\n"
                                              "PROTO Bar [ field SFFloat length 1 field SFString name \"bar\" ] "
                                              "{ Solid { name IS name } }"})
    sim = load(path)
    bar = sim.robot("s").getFromDef("B")
    proto = bar.getProto()
    assert (proto.getTypeName(), proto.isDerived(), proto.getParent()) == ("Bar", False, None)
    assert proto.getNumberOfFields() == bar.getNumberOfFields() == 2
    assert proto.getField("length").getSFFloat() == 2.0 and proto.getField("nope") is None
    assert bar.getFieldByIndex(0).getName() == "length"
    assert bar.getBaseNodeField("name").getSFString() == "bar" and bar.getBaseNodeField("length") is None


def test_import_and_remove_nodes_without_physical_part(rig, capfd):
    sim, boss = rig
    children = boss.getRoot().getField("children")
    children.importMFNodeFromString(-1, "DEF MARK Pose { translation 1 2 3 children [ Shape { geometry Sphere { } } ] }")
    children.importMFNodeFromString(0, "Group { }")
    assert children.getCount() == 8
    assert children.getMFNode(0).getTypeName() == "Group" and children.getMFNode(-1).getDef() == "MARK"
    mark = children.getMFNode(-1)
    assert mark.getField("translation").getSFVec3f() == [1.0, 2.0, 3.0]
    assert mark.getParentNode() == boss.getRoot()
    shape = mark.getField("children").getMFNode(0)
    shape.getField("geometry").removeSF()
    assert shape.getField("geometry").getSFNode() is None
    shape.getField("geometry").importSFNodeFromString("Box { size 1 2 3 }")
    assert shape.getField("geometry").getSFNode().getField("size").getSFVec3f() == [1.0, 2.0, 3.0]
    mark.remove()
    children.removeMF(0)
    assert children.getCount() == 6
    # Solids come and go anywhere at run time, the world recompiled (see sim/rebuild_test.py).
    arm = boss.getFromDef("ARM").getField("children")
    arm.importMFNodeFromString(-1, 'Solid { name "added" }')
    boss.getFromDef("MARKER").remove()
    assert arm.getCount() == 1 and children.getCount() == 6
    assert arm.getMFNode(0).getField("name").getSFString() == "added" and boss.getFromDef("MARKER") is None
    assert capfd.readouterr().err == ""


def test_mf_value_setters_inserts_and_removal(project, load, capfd):
    path = project('Robot { name "s" controller "<extern>" supervisor TRUE children [\n'
                   '  DEF L LED { color [ 1 0 0 ] children [ Shape { appearance Appearance { material DEF M Material { } } } ] }\n'
                   "] }\nDEF W WorldInfo { info [ \"a\" ] }")
    sim = load(path)
    boss = sim.robot("s")
    info = boss.getFromDef("W").getField("info")
    info.insertMFString(-1, "c")
    info.insertMFString(1, "b")
    info.setMFString(0, "A")
    assert [info.getMFString(i) for i in range(info.getCount())] == ["A", "b", "c"]
    info.removeMF(-1)
    assert info.getCount() == 2
    info.setMFString(5, "x")
    assert "out-of-bound index: 5" in capfd.readouterr().err
    # An LED applies a colour list written through MF setters (as Webots' LED reads its 'color' field).
    colors = boss.getFromDef("L").getField("color")
    colors.insertMFColor(-1, [0, 0, 1])
    colors.setMFColor(0, [0, 1, 0])
    led = boss.getDevice("led")
    led.set(2)
    boss.step(16)
    assert boss.getFromDef("M").getField("emissiveColor").getSFColor() == [0.0, 0.0, 1.0]
    colors.insertMFColor(0, [1, 2])  # the binding pads it to [1, 2, 0]: 2 is outside [0, 1]
    assert ("wb_supervisor_field_insert_mf_color() called with invalid RGB values (outside [0,1] range)."
            in capfd.readouterr().err)
    assert colors.getCount() == 2


def test_contact_points_of_a_resting_box_and_force_with_offset(rig):
    sim, boss = rig
    box = boss.getFromDef("BOX")
    assert box.getContactPoints() == []
    boss.step(1500)  # falls 2 m and rests on the floor
    points = box.getContactPoints()
    assert len(points) >= 3 and all(p.getNodeId() == box.getId() for p in points)
    assert all(abs(p.getPoint()[2]) < 2e-3 for p in points)  # on the floor plane z = 0
    floor_points = boss.getFromDef("FLOOR").getContactPoints()
    assert {p.getNodeId() for p in floor_points} == {boss.getFromDef("FLOOR").getId()}


def test_force_with_offset_pushes_and_turns(project, load):
    world = ('WorldInfo { basicTimeStep 10 gravity 0 }\nRobot { name "s" controller "<extern>" supervisor TRUE }\n'
             "DEF BOX Solid { translation 0 0 1 boundingObject Box { size 0.2 0.2 0.2 } physics Physics { density -1 mass 2 } }")
    sim = load(project(world))
    box = sim.robot("s").getFromDef("BOX")
    # F = 2 N along x at 0.1 m above the centre of mass, for one 10 ms step: torque 0.2 N m about +y.
    box.addForceWithOffset([2.0, 0, 0], [0, 0, 0.1], False)
    sim.robot("s").step(10)
    v = box.getVelocity()
    inertia = 2 * 0.2**2 / 6  # solid cube of 2 kg, 0.2 m sides
    assert v[0] == pytest.approx(2.0 / 2 * 0.01, rel=1e-3)
    assert v[4] == pytest.approx(2.0 * 0.1 / inertia * 0.01, rel=1e-3)


def test_headless_supervisor_members(rig, capfd):
    sim, boss = rig
    assert boss.getSelected() is None and boss.simulation_mode == boss.SIMULATION_MODE_FAST
    boss.movieStartRecording("m.mp4", 640, 480, 0, 90, 1, False)
    assert boss.movieFailed() and boss.movieIsReady()
    assert boss.animationStartRecording("a.txt") is False  # animations are recorded (recording_test.py); not this name
    assert not boss.virtualRealityHeadsetIsUsed() and math.isnan(boss.virtualRealityHeadsetGetPosition()[0])
    boss.exportImage("x.png", 90)
    assert "nothing is rendered by wbsim" in capfd.readouterr().err


def test_set_joint_position_moves_the_end_point(project, load, capfd):
    world = ('WorldInfo { basicTimeStep 10 gravity 0 }\nDEF R Robot { name "s" controller "<extern>" supervisor TRUE\n'
             "  children [ DEF J HingeJoint { jointParameters HingeJointParameters { axis 0 0 1 }\n"
             "    endPoint DEF ARM Solid { translation 1 0 0 physics Physics { density -1 mass 1 } "
             "boundingObject Sphere { radius 0.05 } } } ] }")
    sim = load(project(world))
    boss = sim.robot("s")
    boss.getFromDef("J").setJointPosition(math.pi / 2)
    x, y, _ = boss.getFromDef("ARM").getPosition()
    assert (x, y) == (pytest.approx(0.0, abs=1e-9), pytest.approx(1.0))
    params = boss.getFromDef("J").getField("jointParameters").getSFNode()
    assert params.getField("position").getSFFloat() == pytest.approx(math.pi / 2)
    boss.step(100)
    assert boss.getFromDef("ARM").getPosition()[1] == pytest.approx(1.0)  # at rest there
    boss.getFromDef("ARM").setJointPosition(1.0)
    boss.getFromDef("J").setJointPosition(1.0, 2)
    err = capfd.readouterr().err
    assert "can exclusively be used with a HingeJoint or a SliderJoint" in err and "invalid 'index'" in err


def test_center_of_mass_includes_descendant_solids(project, load):
    world = ('WorldInfo { gravity 0 }\nDEF R Robot { name "s" controller "<extern>" supervisor TRUE\n'
             "  physics Physics { density -1 mass 3 } boundingObject Sphere { radius 0.1 }\n"
             "  children [ HingeJoint { jointParameters HingeJointParameters { axis 0 0 1 }\n"
             "    endPoint DEF ARM Solid { translation 1 0 0 physics Physics { density -1 mass 1 } "
             "boundingObject Sphere { radius 0.05 } } } ] }")
    sim = load(project(world))
    boss = sim.robot("s")
    assert boss.getFromDef("R").getCenterOfMass() == pytest.approx([0.25, 0.0, 0.0])  # (3*0 + 1*1) / 4
    assert boss.getFromDef("ARM").getCenterOfMass() == pytest.approx([1.0, 0.0, 0.0])


def test_restart_controller_runs_it_again_from_the_start(project, load, capfd):
    counter = """
    from controller import Robot
    robot = Robot()
    print("started at", robot.getTime())
    while robot.step(10) != -1:
        pass
    """
    boss = """
    from controller import Supervisor
    supervisor = Supervisor()
    supervisor.step(50)
    supervisor.getFromDef("W").restartController()
    supervisor.getSelf().restartController()
    while supervisor.step(10) != -1:
        pass
    """
    world = ('WorldInfo { basicTimeStep 10 }\nDEF W Robot { name "w" controller "counter" }\n'
             'Robot { name "boss" controller "boss" supervisor TRUE }')
    sim = load(project(world, controllers={"counter": counter, "boss": boss}))
    sim.run(0.2)
    captured = capfd.readouterr()
    assert not sim.failed
    # Restarted at t = 0.05 s, after the worker ran in that step: it starts again in the next one.
    assert captured.out.count("started at") == 2 and "started at 0.06" in captured.out
    assert "it is the calling controller" in captured.err


def test_save_and_load_state_of_a_subtree(rig, capfd):
    sim, boss = rig
    box = boss.getFromDef("BOX")
    boss.step(200)
    box.saveState("falling")
    position, velocity = box.getPosition(), box.getVelocity()
    boss.step(300)
    assert box.getPosition()[2] < position[2]
    box.loadState("falling")
    assert box.getPosition() == pytest.approx(position) and box.getVelocity() == pytest.approx(velocity)
    boss.step(100)  # it falls on from there
    assert box.getPosition()[2] < position[2]
    box.loadState("never saved")
    assert "'never saved' was not saved" in capfd.readouterr().err


def test_static_balance_of_a_falling_then_resting_box(project, load):
    from wbsim.api.supervisor import _inside_convex_hull

    square = np.array([[0, 0], [1, 0], [1, 1], [0, 1], [0.5, 0.5]])
    assert _inside_convex_hull(square, np.array([0.5, 0.2])) and not _inside_convex_hull(square, np.array([1.2, 0.5]))
    assert not _inside_convex_hull(np.array([[0, 0], [1, 1], [2, 2]]), np.array([1, 1]))  # no area
    world = ('WorldInfo { basicTimeStep 10 physicsDisableTime 0 }\nRobot { name "s" controller "<extern>" supervisor TRUE }\n'
             "Solid { name \"floor\" boundingObject Plane { size 10 10 } }\n"
             "DEF BOX Solid { translation 0 0 0.5 name \"box\" boundingObject Box { size 0.2 0.2 0.2 } "
             "physics Physics { density -1 mass 1 } }")
    sim = load(project(world))
    boss = sim.robot("s")
    box = boss.getFromDef("BOX")
    assert box.getStaticBalance() is False  # in the air: no support polygon
    boss.step(1500)
    assert len(box.getContactPoints()) >= 3 and box.getStaticBalance() is True


def test_writing_the_joint_position_field_moves_the_joint(project, load):
    world = ('WorldInfo { gravity 0 }\nRobot { name "s" controller "<extern>" supervisor TRUE\n'
             "  children [ HingeJoint { jointParameters DEF P HingeJointParameters { axis 0 0 1 }\n"
             "    endPoint DEF ARM Solid { translation 1 0 0 physics Physics { density -1 mass 1 } "
             "boundingObject Sphere { radius 0.05 } } } ] }")
    sim = load(project(world))
    boss = sim.robot("s")
    boss.getFromDef("P").getField("position").setSFFloat(math.pi)
    assert boss.getFromDef("ARM").getPosition()[0] == pytest.approx(-1.0)
    assert boss.getFromDef("P").getField("position").getSFFloat() == pytest.approx(math.pi)


def test_writing_a_mass_changes_the_body_until_reset(project, load):
    world = ('WorldInfo { basicTimeStep 10 gravity 0 }\nRobot { name "s" controller "<extern>" supervisor TRUE }\n'
             "DEF BOX Solid { translation 0 0 1 boundingObject Box { size 0.2 0.2 0.2 } "
             "physics DEF P Physics { density -1 mass 2 } }")
    sim = load(project(world))
    boss = sim.robot("s")

    def push() -> float:
        box = boss.getFromDef("BOX")
        box.resetPhysics()
        box.addForce([2.0, 0, 0], False)
        boss.step(10)
        return box.getVelocity()[0]

    assert push() == pytest.approx(2.0 / 2 * 0.01, rel=1e-6)
    boss.getFromDef("P").getField("mass").setSFFloat(4.0)
    assert boss.getFromDef("P").getField("mass").getSFFloat() == 4.0
    assert push() == pytest.approx(2.0 / 4 * 0.01, rel=1e-6)
    body = sim.bindings.solid(boss.getFromDef("BOX")._wb).body_id
    assert sim.model.body_inertia[body] == pytest.approx([4 * 0.08 / 12] * 3)  # inertia scaled with the mass
    sim.reset()
    boss = sim.robot("s")
    assert push() == pytest.approx(2.0 / 2 * 0.01, rel=1e-6)


SAVE_WORLD = """
WorldInfo { basicTimeStep 8 gravity 9.81 }
DEF BOSS Robot { name "boss" controller "<extern>" supervisor TRUE }
DEF TUMBLER Solid {
  translation 0 0 20
  name "tumbler"
  boundingObject Box { size 0.1 0.2 0.3 }
  physics Physics { density -1 mass 2 }
  linearVelocity 1 0 3
  angularVelocity 2 -1 0.5
}
DEF PENDULUM Solid {
  translation 5 0 2
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 1 0 dampingConstant 5 }
      endPoint DEF BOB Solid {
        translation 0 0 -1
        name "bob"
        boundingObject Sphere { radius 0.05 }
        physics Physics { density -1 mass 1 }
      }
    }
  ]
  name "pendulum"
}
"""


def test_export_string_gives_the_current_state(project, load) -> None:
    sim = load(project(SAVE_WORLD))
    boss = sim.robot("boss")
    tumbler = boss.getFromDef("TUMBLER")
    assert tumbler.exportString().startswith("DEF TUMBLER Solid {\n  translation 0 0 20\n")
    boss.step(80)
    text = tumbler.exportString()
    position = tumbler.getField("translation").getSFVec3f()
    assert f"  translation {' '.join(format_number(v) for v in position)}\n" in text
    # The free body's current velocities are written (Webots' hidden velocity fields).
    velocity = tumbler.getVelocity()
    assert "  linearVelocity " + " ".join(format_number(v) for v in velocity[:3]) + "\n" in text


def test_world_save_loads_back_to_the_same_state(project, load, tmp_path) -> None:
    sim = load(project(SAVE_WORLD))
    boss = sim.robot("boss")
    boss.getFromDef("BOB").getField("translation")  # a jointed endPoint: saved with its joint's position
    for _ in range(40):
        boss.step(8)
    saved = tmp_path / "worlds" / "saved.wbt"
    assert boss.worldSave(str(saved))
    assert not boss.worldSave(str(tmp_path / "saved.txt"))  # Webots wants the .wbt extension
    again = load(saved)
    for name in ("TUMBLER", "BOB"):
        a, b = sim.bindings.solid(sim.node(name)), again.bindings.solid(again.node(name))
        np.testing.assert_allclose(again.data.xpos[b.body_id], sim.data.xpos[a.body_id], atol=1e-12)
        np.testing.assert_allclose(again.data.xmat[b.body_id], sim.data.xmat[a.body_id], atol=1e-12)
    hinge_a, hinge_b = sim.bindings.joints[0], again.bindings.joints[0]
    assert again.data.qpos[hinge_b.qpos_adr] == pytest.approx(sim.data.qpos[hinge_a.qpos_adr], abs=1e-12)
    assert sim.data.qpos[hinge_a.qpos_adr] == 0.0  # the bob hangs at rest; what moved is the tumbler
    # The tumbler flies on identically: the same free-body state (velocities are saved too).
    tumbler_a, tumbler_b = sim.bindings.solid(sim.node("TUMBLER")), again.bindings.solid(again.node("TUMBLER"))
    for _ in range(20):
        sim.step()
        again.step()
    np.testing.assert_allclose(again.data.xpos[tumbler_b.body_id], sim.data.xpos[tumbler_a.body_id], atol=1e-9)
    np.testing.assert_allclose(again.data.xmat[tumbler_b.body_id], sim.data.xmat[tumbler_a.body_id], atol=1e-9)


def test_world_reload_and_load_replace_the_world(project, load, tmp_path) -> None:
    path = project(SAVE_WORLD)
    sim = load(path)
    boss = sim.robot("boss")
    for _ in range(30):
        boss.step(8)
    first = sim.data.qpos.copy()
    tumbler = sim.bindings.solid(sim.node("TUMBLER"))
    assert sim.data.xpos[tumbler.body_id][2] != 20.0
    boss.worldReload()
    sim.step()  # the reload happens at the end of this step
    assert sim.step_count == 0 and sim.time_s == 0.0
    again = sim.bindings.solid(sim.node("TUMBLER"))
    assert sim.data.xpos[again.body_id].tolist() == [0.0, 0.0, 20.0]
    # A fresh load: the same run again, bit for bit.
    boss = sim.robot("boss")
    for _ in range(30):
        boss.step(8)
    assert np.array_equal(sim.data.qpos, first)
    # worldReload reads the file again: a change saved to it shows; worldLoad takes another file.
    path.write_text(path.read_text().replace("translation 0 0 20", "translation 0 0 7"))
    boss.worldReload()
    sim.step()
    assert sim.data.xpos[sim.bindings.solid(sim.node("TUMBLER")).body_id][2] == 7.0
    other = tmp_path / "worlds" / "other.wbt"
    other.write_text('#VRML_SIM R2023b utf8\nDEF BOSS Robot { name "boss" controller "<extern>" supervisor TRUE }\n'
                     'DEF BALL Solid { translation 1 2 3 name "ball" }\n')
    sim.robot("boss").worldLoad(str(other))
    sim.step()
    assert sim.world.file == str(other) and sim.node("TUMBLER") is None and sim.node("BALL") is not None
    sim.robot("boss").worldLoad(str(tmp_path / "missing.wbt"))  # Webots' error; nothing changes
    sim.step()
    assert sim.node("BALL") is not None


def _world_loading_supervisor(project, tmp_path, before_load: str = "") -> tuple:
    """A world whose supervisor "boss" (controller "loader") runs ``before_load`` after its first step, then loads
    ``../../worlds/other.wbt`` (relative to its folder), a world with a Solid BALL; (world path, other's path)."""
    loader = "import os\nfrom controller import Supervisor\nboss = Supervisor()\nboss.step(8)\n" + before_load + (
        '\nboss.worldLoad("../../worlds/other.wbt")\nwhile boss.step(8) != -1:\n    pass\n')
    path = project('WorldInfo { basicTimeStep 8 }\nDEF BOSS Robot { name "boss" controller "loader" supervisor TRUE }',
                   controllers={"loader": loader})
    other = tmp_path / "worlds" / "other.wbt"
    other.write_text('#VRML_SIM R2023b utf8\nWorldInfo { basicTimeStep 8 }\nDEF BALL Solid { name "ball" }\n')
    return path, other


def test_a_relative_world_load_is_relative_to_the_controllers_folder(project, load, tmp_path) -> None:
    """A relative name given to worldLoad (or worldSave) is relative to the controller's folder, as Webots'
    makeFilenameAbsolute makes it, even after the controller changed directory: the world loaded is that file,
    whatever the working directory is when the step ends (the host's, or a held run's)."""
    path, other = _world_loading_supervisor(project, tmp_path, 'os.chdir("/")\nassert boss.worldSave("saved.wbt")')
    assert os.getcwd() != str(tmp_path / "controllers" / "loader")
    for run in (lambda sim: sim.run(0.04), lambda sim: [sim.step() for _ in range(5)]):
        sim = load(path)
        run(sim)
        assert sim.world.file == str(other) and sim.node("BALL") is not None
        saved = tmp_path / "controllers" / "loader" / "saved.wbt"
        assert saved.is_file() and "BOSS" in saved.read_text()
        saved.unlink()


def test_a_relative_animation_name_is_relative_to_the_controllers_folder_after_a_chdir(
        project, load, tmp_path) -> None:
    """animationStartRecording("anim.html") after os.chdir elsewhere: wbsim's recording (anim.npz) is written in
    the controller's folder (Webots makes the name absolute against the controller's directory), none where it
    moved."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    recorder = f"""
        import os
        from controller import Supervisor
        boss = Supervisor()
        boss.step(8)
        os.chdir({str(elsewhere)!r})
        assert boss.animationStartRecording("anim.html")
        boss.step(8)
        assert boss.animationStopRecording()
        while boss.step(8) != -1:
            pass
    """
    world = """
    WorldInfo { basicTimeStep 8 }
    DEF BOSS Robot { name "boss" controller "recorder" supervisor TRUE }
    """
    sim = load(project(world, controllers={"recorder": recorder}))
    sim.run(0.05)
    assert not sim.failed
    assert (tmp_path / "controllers" / "recorder" / "anim.npz").is_file()
    assert list(elsewhere.iterdir()) == []


def test_a_world_loaded_during_run_loads_in_the_hosts_directory(project, load, tmp_path, monkeypatch) -> None:
    """The world a supervisor loads is read at the end of its step in the host's working directory, with the
    host's os.chdir, also while run() keeps the controllers' bracket open between steps (what the load reads
    relative to the working directory, e.g. a relative WBSIM_CACHE_DIR or WEBOTS_HOME, is the host's, as
    between the steps of a step() loop)."""
    from wbsim.sim import simulation

    path, other = _world_loading_supervisor(project, tmp_path)
    real_chdir, real_load = os.chdir, simulation.load_world_model
    seen: list[tuple[str, bool]] = []

    def watching(*args, **kwargs):
        seen.append((os.getcwd(), os.chdir is real_chdir))
        return real_load(*args, **kwargs)

    host = os.getcwd()
    sim = load(path)
    monkeypatch.setattr(simulation, "load_world_model", watching)
    sim.run(0.04)
    assert sim.node("BALL") is not None and seen == [(host, True)]
    assert os.getcwd() == host and os.chdir is real_chdir


def test_world_reload_restarts_the_calling_controller(project, load) -> None:
    source = """
        import pathlib
        from controller import Supervisor

        log = pathlib.Path(__file__).with_name("log.txt")
        with log.open("a") as f:
            f.write("start\\n")
        robot = Supervisor()
        robot.step(8)
        if log.read_text().count("start") == 1:
            robot.worldReload()
        while robot.step(8) != -1:
            pass
    """
    path = project('DEF BOSS Robot { name "boss" controller "reloader" supervisor TRUE }', {"reloader": source})
    sim = load(path)
    for _ in range(5):
        sim.step()
    log = path.parent.parent / "controllers" / "reloader" / "log.txt"
    assert log.read_text() == "start\nstart\n"
    assert sim.step_count == 3  # two steps before the reload (its own step ends it), three since


FIELDS = ('Robot { name "s" controller "<extern>" supervisor TRUE }\n'
          'DEF B Solid { translation 0 0 1 name "b" children [ DEF DS DistanceSensor { lookupTable [ 0 0 0 1 1 0 ] } ] }\n'
          'DEF W WorldInfo { info [ "a" "b" ] basicTimeStep 16 }')


def test_field_setters_convert_values_as_webots_binding(project, load, capfd):
    """Webots' field.py: an SF setter hands the value to the ``value`` setter, which converts it by the field's
    own type and accepts exact Python types only (printing an error otherwise); ctypes raises for what it
    cannot convert."""
    sim = load(project(FIELDS))
    boss = sim.robot("s")
    step = boss.getFromDef("W").getField("basicTimeStep")  # SFFloat
    step.setSFFloat(8)  # an int is not a float: refused, as in Webots
    assert capfd.readouterr().err == "Error: new field value has wrong type or length.\n"
    assert step.getSFFloat() == 16.0
    step.setSFFloat(8.0)
    assert step.getSFFloat() == 8.0
    step.value = math.nan  # the C library's check_float
    assert "wb_supervisor_field_set_sf_float() called with a NaN value." in capfd.readouterr().err
    translation = boss.getFromDef("B").getField("translation")  # SFVec3f
    with pytest.raises(TypeError, match="object of type 'int' has no len()"):
        translation.setSFVec3f(5)
    translation.setSFVec3f([1.0, 2.0])
    assert capfd.readouterr().err == "Error: setSFVec3f(): length of 'value' argument should be 3.\n"
    translation.setSFVec3f((1.0, 2.0, 3.0))  # a tuple is not a list
    assert capfd.readouterr().err == "Error: new field value has wrong type or length.\n"
    with pytest.raises(TypeError, match="must be real number, not str"):
        translation.setSFVec3f(["1", 2, 3])
    translation.setSFFloat([1, 2, 3])  # any SF setter sets by the field's own type: here SFVec3f
    assert translation.getSFVec3f() == [1.0, 2.0, 3.0]
    name = boss.getFromDef("B").getField("name")  # SFString
    name.setSFString(b"x")
    assert capfd.readouterr().err == "Error: new field value has wrong type or length.\n"
    assert name.getSFString() == "b"
    boss.getFromDef("B").getField("children").setSFFloat(1.0)  # a node field, an MF field: refused
    boss.getFromDef("W").getField("info").setSFString("x")
    assert capfd.readouterr().err == "Error: new field value has wrong type or length.\n" * 2


def test_field_mf_arguments_and_getter_errors_as_webots(project, load, capfd):
    import ctypes

    sim = load(project(FIELDS))
    boss = sim.robot("s")
    info = boss.getFromDef("W").getField("info")  # MFString
    with pytest.raises(ctypes.ArgumentError, match="argument 2: TypeError: Don't know how to convert parameter 2"):
        info.setMFString(0.0, "x")
    with pytest.raises(TypeError, match="descriptor 'encode' for 'str' objects doesn't apply to a 'NoneType'"):
        info.insertMFString(0, None)
    assert info.getMFString(5) == ""  # the C library's default after its error
    assert "wb_supervisor_field_get_mf_string() called with an out-of-bound index: 5 (should be between -2 and 1)." \
        in capfd.readouterr().err
    assert info.getMFFloat(0) == 0.0
    assert capfd.readouterr().err == "Error: wb_supervisor_field_get_mf_float() called with wrong field type: MFString.\n"
    with pytest.raises(ValueError, match="NULL pointer access"):  # the binding slices the NULL it returned
        info.getMFVec3f(0)
    table = boss.getFromDef("DS").getField("lookupTable")  # MFVec3f
    with pytest.raises(IndexError, match="invalid index"):
        table.setMFVec3f(0, [1, 2, 3, 4])
    table.setMFVec3f(1, [2])  # padded with zeros by the ctypes array
    assert table.getMFVec3f(1) == [2.0, 0.0, 0.0]
    table.insertMFVec3f(0, [math.inf, 0, 0])
    assert "wb_supervisor_field_insert_mf_vec3f() called with a value greater than FLX_MAX" in capfd.readouterr().err
    assert table.getCount() == 2
    table.insertMFBool(0, True)
    assert capfd.readouterr().err == ("Error: wb_supervisor_field_insert_mf_bool() called with wrong field type: "
                                      "MFVec3f.\n")


def test_sf_getters_of_mf_fields_and_none_names_as_webots_binding(project, load, capfd):
    """Webots' field.py reads every SF getter through ``value``, which knows the SF types only (an MF field
    gives None, whatever its items); node.py encodes field and PROTO DEF names (``str.encode(None)``
    raises), and ``Supervisor.getFromDef(None)`` builds ``Node(DEF=None)``, which is the root."""
    sim = load(project(FIELDS))
    boss = sim.robot("s")
    info, children = boss.getFromDef("W").getField("info"), boss.getFromDef("B").getField("children")
    assert info.getSFString() is None and info.getSFFloat() is None and info.value is None
    assert children.getSFBool() is None and children.getCount() == 1
    assert boss.getFromDef("W").getField("basicTimeStep").getSFString() == 16.0  # SF: by the field's own type
    body = boss.getFromDef("B")
    for method in (body.getField, body.getFromProtoDef, body.getBaseNodeField):
        with pytest.raises(TypeError, match="'encode' for 'str' objects doesn't apply to a 'NoneType'"):
            method(None)
    root = boss.getFromDef(None)
    assert root is not None and root.getId() == 0 and root.getTypeName() == "Group"
    assert capfd.readouterr().err == ""
    assert boss.getFromDef("") is None
    error = "Error: wb_supervisor_node_get_from_def() called with a NULL or empty 'def' argument.\n"
    assert capfd.readouterr().err == error
