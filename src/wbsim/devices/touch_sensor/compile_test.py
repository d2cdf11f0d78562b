"""TouchSensor nodes at load time: Webots' sanitising and warnings, and how each placement is compiled."""

from __future__ import annotations

import math
import warnings

import mujoco
import numpy as np
import pytest

from wbsim.devices.touch_sensor.compile import BUMPER, FORCE3D


def _load_with_warnings(project, world: str):
    from wbsim.sim.simulation import load_world

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim = load_world(project(world))
    return sim, [str(w.message) for w in caught]


def _robot(children: str, physics: str = "physics Physics { }") -> str:
    return f'Robot {{ name "r" controller "<extern>" children [ {children} ] boundingObject Box {{ size 0.1 0.1 0.1 }} {physics} }}'


def test_unknown_type_warns_like_webots_and_becomes_a_bumper(project):
    sim, messages = _load_with_warnings(project, _robot(
        'TouchSensor { name "t" type "pressure" boundingObject Box { size 0.1 0.1 0.1 } }'))
    assert any('Unknown \'type\': "pressure". Set to "bumper"' in m for m in messages)
    assert any("test.wbt:" in m and 'TouchSensor "t"' in m for m in messages if "pressure" in m)
    assert sim.bindings.devices["touch_sensor"][0].type == BUMPER
    sim.close()


def test_invalid_resolution_is_reset_to_minus_one_with_webots_warning(project):
    sim, messages = _load_with_warnings(project, _robot(
        'TouchSensor { name "t" type "force" resolution 0 boundingObject Box { size 0.1 0.1 0.1 } physics Physics { } }'))
    assert any("Invalid 'resolution' changed to -1. The value should be either -1 or positive." in m for m in messages)
    assert sim.bindings.devices["touch_sensor"][0].resolution == -1.0
    sim.close()


def test_force_without_physics_warns_like_webots(project):
    sim, messages = _load_with_warnings(project, _robot(
        'TouchSensor { name "t" type "force-3d" boundingObject Box { size 0.1 0.1 0.1 } }'))
    assert any('"force" and "force-3d" \'type\' requires \'physics\' to be functional.' in m for m in messages)
    binding = sim.bindings.devices["touch_sensor"][0]
    assert binding.type == FORCE3D and binding.force_adr == -1
    sim.close()


@pytest.mark.parametrize(("world", "where"), [
    ('Robot { name "r" controller "<extern>" children [ HingeJoint { endPoint TouchSensor { name "t" type "force" '
     'boundingObject Box { size 0.1 0.1 0.1 } physics Physics { } } } ] physics Physics { } '
     'boundingObject Box { size 0.1 0.1 0.1 } }', "a joint's endPoint"),
    ('TouchSensor { name "t" type "force" boundingObject Box { size 0.1 0.1 0.1 } physics Physics { } }',
     "a top-level Solid"),
])
def test_force_sensor_without_fixed_joint_warns_and_has_no_feedback(project, world, where):
    sim, messages = _load_with_warnings(project, world)
    assert any(f"This force TouchSensor is {where}" in m for m in messages)
    assert sim.bindings.devices["touch_sensor"][0].force_adr == -1
    sim.close()


def test_unsorted_lookup_table_warns_like_webots(project):
    sim, messages = _load_with_warnings(project, _robot(
        'TouchSensor { name "t" type "force" lookupTable [ 0 0 0, 10 5 0, 5 8 0 ] '
        'boundingObject Box { size 0.1 0.1 0.1 } physics Physics { } }'))
    assert any("The input values of a lookup table must be sorted in increasing order." in m and "lookupTable" in m
               for m in messages)
    sim.close()


def test_missing_bounding_object_and_outside_robot_warn(project):
    sim, messages = _load_with_warnings(project, _robot('TouchSensor { name "t" }') + 'TouchSensor { name "lost" }')
    assert any("This TouchSensor has no boundingObject: it cannot touch anything." in m for m in messages)
    assert any("TouchSensor 'lost' is not inside a Robot: no controller can use it." in m for m in messages)
    sim.close()


def test_bumper_without_physics_in_a_dynamic_robot_does_not_warn_like_a_plain_solid(project):
    sim, messages = _load_with_warnings(project, _robot(
        'TouchSensor { name "t" boundingObject Box { size 0.1 0.1 0.1 } }'))
    assert not any("has no Physics but its parent does" in m for m in messages)
    sim.close()


def test_placements_compile_to_the_right_bodies(project, load):
    world = """
    DEF MOVING Robot {
      name "moving" controller "<extern>"
      children [ DEF FOOT TouchSensor { name "foot" type "force" boundingObject Box { size 0.1 0.1 0.1 } physics Physics { } } ]
      boundingObject Box { size 0.1 0.1 0.1 } physics Physics { }
    }
    DEF STATIC Robot {
      translation 2 1 0 rotation 0 0 1 0.5 name "static" controller "<extern>"
      children [ Pose { translation 0.5 0 0 children [
        DEF PLATE TouchSensor { name "plate" type "force-3d" boundingObject Box { size 0.1 0.1 0.1 } physics Physics { } }
      ] } ]
    }
    """
    sim = load(project(world))
    model = sim.model
    foot, plate = sim.bindings.devices["touch_sensor"]
    # A force sensor in a moving robot: its own body, rigidly in the robot's tree, which never sleeps.
    assert model.body_parentid[foot.body_id] == sim.bindings.robots[0].solid.body_id
    assert model.body_mocapid[foot.body_id] == -1 and foot.force_sign == -1.0
    tree = model.body_treeid[foot.body_id]
    assert model.tree_sleep_policy[tree] == mujoco.mjtSleepPolicy.mjSLEEP_NEVER
    # A sensor on a static parent: a mocap body at its world pose, read with ODE's swapped bodies.
    assert model.body_mocapid[plate.body_id] >= 0 and model.body_parentid[plate.body_id] == 0
    assert plate.force_sign == 1.0
    boss = sim.robot("static")
    assert boss is not None
    np_pos = sim.data.xpos[plate.body_id]
    assert np_pos == pytest.approx([2 + 0.5 * 0.8775825618903728, 1 + 0.5 * 0.479425538604203, 0.0], abs=1e-9)


def test_a_supervisor_moves_a_static_touch_sensor(project, load):
    world = """
    Robot { name "boss" controller "<extern>" supervisor TRUE }
    Robot { translation 1 0 0 name "static" controller "<extern>"
            children [ DEF PAD TouchSensor { translation 0 0 0.1 name "pad" boundingObject Box { size 0.1 0.1 0.02 } } ] }
    """
    sim = load(project(world))
    boss = sim.robot("boss")
    pad = boss.getFromDef("PAD")
    assert pad.getPosition() == pytest.approx([1.0, 0.0, 0.1])
    pad.getField("translation").setSFVec3f([0.0, 0.5, 0.2])
    assert pad.getField("translation").getSFVec3f() == pytest.approx([0.0, 0.5, 0.2])
    boss.step(16)
    assert pad.getPosition() == pytest.approx([1.0, 0.5, 0.2])


def test_a_static_touch_sensor_follows_its_static_robot_moved_by_a_supervisor(project, load):
    world = """
    Robot { name "boss" controller "<extern>" supervisor TRUE }
    DEF STATIC Robot { translation 1 0 0 name "static" controller "<extern>"
            children [ Pose { translation 0.2 0 0 children [
              DEF PAD TouchSensor { translation 0 0 0.1 name "pad" boundingObject Box { size 0.1 0.1 0.02 } } ] } ] }
    """
    sim = load(project(world))
    boss = sim.robot("boss")
    pad, robot = boss.getFromDef("PAD"), boss.getFromDef("STATIC")
    robot.getField("translation").setSFVec3f([3.0, 1.0, 0.0])
    robot.getField("rotation").setSFRotation([0.0, 0.0, 1.0, 1.5707963267948966])
    boss.step(16)
    assert pad.getPosition() == pytest.approx([3.0, 1.2, 0.1], abs=1e-9)
    assert pad.getField("translation").getSFVec3f() == pytest.approx([0.0, 0.0, 0.1], abs=1e-9)


def test_supervisor_writes_to_lookup_table_and_resolution_apply_from_the_next_sample(project, load, capfd):
    world = """
    WorldInfo { basicTimeStep 16 }
    Solid { name "floor" boundingObject Plane { } }
    Robot {
      translation 0 0 0.2 name "r" controller "<extern>" supervisor TRUE
      children [ DEF FOOT TouchSensor { translation 0 0 -0.12 rotation 0 1 0 1.5707963267948966 name "foot"
                 type "force" lookupTable [] boundingObject Box { size 0.04 0.1 0.1 } physics Physics { } } ]
      boundingObject Box { size 0.2 0.2 0.2 } physics Physics { density -1 mass 10 }
    }
    """
    sim = load(project(world))
    robot = sim.robot("r")
    foot = robot.getDevice("foot")
    foot.enable(16)
    robot.step(1000)
    assert foot.getValue() == pytest.approx(98.1, rel=1e-3)
    node = robot.getFromDef("FOOT")
    node.getField("resolution").setSFFloat(10.0)
    robot.step(16)
    assert foot.getValue() == 100.0
    node.getField("resolution").setSFFloat(0.0)  # Webots' repair, written back into the field
    assert ("WARNING: foot: Invalid 'resolution' changed to -1. The value should be either -1 or positive."
            in capfd.readouterr().err)
    assert node.getField("resolution").getSFFloat() == -1.0
    # MF field setters come with the Supervisor API work; the core write applies a new table already.
    sim.supervision.set_field_value(node._wb, "lookupTable", ((0.0, 0.0, 0.0), (1000.0, 10.0, 0.0)))
    assert foot.getLookupTable() == [0.0, 0.0, 0.0, 1000.0, 10.0, 0.0]
    robot.step(16)
    assert foot.getValue() == pytest.approx(0.981, rel=1e-3)
    node.getField("type").setSFString("force-3d")
    assert "changing the 'type' of a TouchSensor while the simulation runs is not simulated" in capfd.readouterr().err
    assert foot.getType() == 1
    robot.simulationReset()  # fields back to the world file's
    robot.step(16)
    robot.step(1000)
    assert foot.getLookupTable() == [] and foot.getValue() == pytest.approx(98.1, rel=1e-3)


def test_force_binding_addresses_the_mujoco_force_history_of_every_physics_step(project, load):
    # The bank averages the samples at force_adr: they must be MuJoCo's force sensor values of each physics step.
    world = """
    WorldInfo { basicTimeStep 16 }
    Solid { name "floor" boundingObject Plane { } }
    Robot {
      translation 0 0 0.3 name "r" controller "<extern>"
      children [ TouchSensor { translation 0 0 -0.12 name "pad" type "force-3d" lookupTable []
                               boundingObject Box { size 0.1 0.1 0.04 } physics Physics { } } ]
      boundingObject Box { size 0.2 0.2 0.2 } physics Physics { density -1 mass 10 }
    }
    """
    sim = load(project(world))
    binding = sim.bindings.devices["touch_sensor"][0]
    assert binding.samples == sim.substeps == 4
    robot = sim.robot("r")
    pad = robot.getDevice("pad")
    pad.enable(16)
    sensor = int(np.flatnonzero(sim.model.sensor_type == mujoco.mjtSensor.mjSENS_FORCE)[0])
    adr = sim.model.sensor_adr[sensor]
    for _ in range(40):  # through the landing, where the force changes within each basic step
        shadow = mujoco.MjData(sim.model)
        mujoco.mj_copyData(shadow, sim.model, sim.data)
        forces = []
        for _ in range(sim.substeps):
            mujoco.mj_step(sim.model, shadow)
            forces.append(shadow.sensordata[adr : adr + 3].copy())
        robot.step(16)
        expected = binding.force_sign * np.mean(forces, axis=0)
        np.testing.assert_allclose(pad.getValues(), expected, rtol=0, atol=1e-9)


NESTED = """
Robot { name "boss" controller "<extern>" supervisor TRUE }
DEF BASE Robot {
  translation 1 0 0 name "base" controller "<extern>"
  children [
    DEF A TouchSensor {
      translation 0 0 0.1 name "a" boundingObject Box { size 0.1 0.1 0.02 }
      children [
        DEF S Solid {
          translation 0.2 0 0 name "s"
          children [ DEF B TouchSensor { translation 0 0 0.05 name "b" boundingObject Box { size 0.05 0.05 0.02 } } ]
        }
        DEF C TouchSensor { translation 0 0.3 0 name "c" boundingObject Box { size 0.05 0.05 0.02 } }
      ]
    }
  ]
}
"""


def test_nested_static_sensors_follow_every_move_of_their_static_ancestors(project, load):
    # Static sensors are mocap bodies hung from the world: a sensor inside a Solid inside a sensor, and a
    # sensor directly inside a sensor, must follow moves of the robot and of the outer sensor.
    sim = load(project(NESTED))
    boss = sim.robot("boss")
    a, b, c, solid = (boss.getFromDef(name) for name in ("A", "B", "C", "S"))
    assert sim.model.body_mocapid[sim.bindings.solid(sim.node("B")).body_id] >= 0
    boss.getFromDef("BASE").getField("translation").setSFVec3f([5.0, 0.0, 0.0])
    assert a.getPosition() == pytest.approx([5.0, 0.0, 0.1], abs=1e-12)
    assert solid.getPosition() == pytest.approx([5.2, 0.0, 0.1], abs=1e-12)
    assert b.getPosition() == pytest.approx([5.2, 0.0, 0.15], abs=1e-12)
    assert c.getPosition() == pytest.approx([5.0, 0.3, 0.1], abs=1e-12)
    a.getField("translation").setSFVec3f([0.0, 0.0, 0.5])  # the outer sensor itself
    a.getField("rotation").setSFRotation([0.0, 0.0, 1.0, math.pi / 2])
    assert b.getPosition() == pytest.approx([5.0, 0.2, 0.55], abs=1e-12)
    assert c.getPosition() == pytest.approx([4.7, 0.0, 0.5], abs=1e-12)
    assert b.getField("translation").getSFVec3f() == pytest.approx([0.0, 0.0, 0.05], abs=1e-12)
    boss.step(16)
    geom = sim.bindings.solid(sim.node("B")).geom_ids[0]
    assert sim.data.geom_xpos[geom] == pytest.approx([5.0, 0.2, 0.55], abs=1e-12)  # and so does its geometry


def test_many_static_moves_in_one_step_land_where_the_last_one_says(project, load):
    sim = load(project(NESTED))
    boss = sim.robot("boss")
    base = boss.getFromDef("BASE").getField("translation")
    for x in range(50):
        base.setSFVec3f([float(x), 1.0, 0.0])
    boss.step(16)
    assert boss.getFromDef("B").getPosition() == pytest.approx([49.2, 1.0, 0.15], abs=1e-12)
