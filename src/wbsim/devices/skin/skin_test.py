"""Skin: an inert device in a children field (Webots' class and error lines, no physical part, one warning)."""

from __future__ import annotations

import ctypes
import math

import pytest

import controller
from wbsim.devices.skin.compile import WARNING
from wbsim.sim.simulation import WbsimWarning, load_world
from wbsim.world.builtin_nodes import builtin_schemas

WORLD = """
WorldInfo { basicTimeStep 16 gravity 0 }
Robot {
  name "r"
  controller "<extern>"
  physics Physics { mass 1 }
  boundingObject Box { size 0.2 0.2 0.2 }
  children [
    Pose { translation 0 0 0.1 children [ Skin { name "body skin" modelUrl "human.fbx" } ] }
  ]
}
"""

PLAIN = WORLD.replace('Skin { name "body skin" modelUrl "human.fbx" }', "")


def test_schema_is_a_child_node_with_webots_fields():
    schema = builtin_schemas()["Skin"]
    assert schema.support == "simulated" and schema.is_a("skin") and not schema.is_a("solid")
    assert list(schema.fields) == ["translation", "rotation", "scale", "name", "modelUrl", "appearance", "bones",
                                   "castShadows", "translationStep", "rotationStep"]
    assert schema.fields["name"].default == "skin"
    assert builtin_schemas()["Pose"].fields["children"].node_kinds >= {"skin"}


def test_one_located_warning_and_no_physical_part(project, load):
    path = project(WORLD)
    with pytest.warns(WbsimWarning) as caught:
        sim = load_world(path)
    skin_warnings = [w.message for w in caught if WARNING in str(w.message)]
    assert len(skin_warnings) == 1
    located = skin_warnings[0].world_warning
    assert located is not None and (located.location.line, located.location.column) == (10, 43)
    assert located.node_path.endswith('Pose > children[0] > Skin "body skin"')
    plain = project(PLAIN, world_name="plain.wbt")
    reference = load(plain)
    assert (sim.model.nbody, sim.model.ngeom, sim.model.nsite) == (
        reference.model.nbody, reference.model.ngeom, reference.model.nsite)
    sim.close()


def test_api_answers_as_webots_for_a_skin_without_bones(project, load, capsys):
    sim = load(project(WORLD))
    robot = sim.robot("r")
    skin = robot.getDevice("body skin")
    assert isinstance(skin, controller.Skin) and skin.getName() == "body skin"
    assert skin.getNodeType() == controller.Node.SKIN
    assert robot.getNumberOfDevices() == 1 and robot.getDeviceByIndex(0) is skin
    assert (skin.getBoneCount(), skin.bone_count) == (0, 0)
    capsys.readouterr()
    assert skin.getBoneName(0) is None
    assert skin.getBonePosition(0, True) is None
    assert skin.getBoneOrientation(-1) is None
    skin.setBonePosition(0, [0.0, 0.0, 1.0], False)
    skin.setBonePosition(0, [math.nan, 0.0, 1.0], False)
    skin.setBoneOrientation(0, [0.0, 1.0, 0.0, 1.0], True)
    skin.setBoneOrientation(0, [0.0, 0.0, 0.0, 1.0], True)
    skin.setBoneOrientation(0, [0.0, math.nan, 0.0, 1.0], True)
    assert capsys.readouterr().err.splitlines() == [
        "Error: The index of wb_skin_get_bone_name() is out of the bounds.",
        "Error: The index of wb_skin_get_bone_position() is out of the bounds.",
        "Error: The index of wb_skin_get_bone_orientation() is out of the bounds.",
        "Error: The index of wb_skin_set_bone_position() is out of the bounds.",
        "Error: wb_skin_set_bone_position() called with a NaN value.",
        "Error: The index of wb_skin_set_bone_orientation() is out of the bounds.",
        "Error: wb_skin_set_bone_orientation() called with invalid values for the [x y z] orientation axis.",
        "Error: wb_skin_set_bone_orientation() called with a NaN orientation value.",
    ]
    with pytest.raises(ctypes.ArgumentError):  # a float index fails in ctypes, as in Webots' binding
        skin.getBoneName(0.5)
    assert robot.getSkin("body skin") is skin  # Webots' deprecated alias
    assert sim.step() and skin.getBoneCount() == 0


ROBOT_CREATED = """
WorldInfo { basicTimeStep 16 }
Robot { name "a" controller "twice" }
Robot { name "b" controller "twice" }
"""

TWICE = """
from controller import Robot, Supervisor
assert Robot.created is None  # nothing made yet by this controller
first = Robot()
assert Robot.created is first and first.created is first
second = Robot()  # Webots prints its error; the first stays Robot.created
assert Robot.created is first and second.created is first
first.setCustomData("ok " + first.getName())
first.step(16)
"""


def test_robot_created_is_per_controller(project, load, capfd):
    sim = load(project(ROBOT_CREATED, controllers={"twice": TWICE}))
    sim.run()
    assert not sim.failed
    assert [r.custom_data for r in sim.robots] == ["ok a", "ok b"]
    assert capfd.readouterr().err.count("Error: only one Robot instance can be created per controller process.") == 2
    assert controller.Robot.created is None  # outside any controller
    script_robot = sim.robot("a")  # a script's objects do not print Webots' error
    assert script_robot.created is sim.robots[0].created_robot
    sim.reset()  # a restarted controller starts without a Robot
    assert all(r.created_robot is None for r in sim.robots)
