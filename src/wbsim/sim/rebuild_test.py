"""Adding and removing Solids at run time: the state of everything else carries over bit for bit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wbsim.errors import SimulationError

# Bodies stay awake: a recompilation gives MuJoCo a fresh MjData, whose trees are all awake (MuJoCo has no
# public call to put a tree back to sleep), so a body asleep before an import would wake up after it; the
# walker comes to rest and sleeps before the removal since resting contacts are critically damped.
WORLD = """
WorldInfo { basicTimeStep 4 physicsDisableTime 0 }
DEF FLOOR Solid { boundingObject Plane { size 200 200 } }
DEF BOSS Robot { name "boss" controller "<extern>" supervisor TRUE }
DEF WALKER Robot {
  name "walker"
  controller "<extern>"
  translation 0 0 0.3
  rotation 1 1 0 0.4
  linearVelocity 0.5 0.2 0
  angularVelocity 0 0 3
  boundingObject Box { size 0.2 0.3 0.1 }
  physics Physics { density -1 mass 1.5 }
}
DEF SPINNER Solid {
  translation -3 0 0.5
  name "spinner"
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 1 0 0 }
      endPoint DEF ARMEND Solid { translation 0 0.2 0 boundingObject Sphere { radius 0.05 } physics Physics { } }
    }
  ]
}
"""

BOX_STRING = "DEF NEW Solid { translation 40 0 1 name \"new\" boundingObject Box { size 0.2 0.2 0.2 } " \
             "physics Physics { density -1 mass 2 } }"


def run(sim, steps: int, import_at: int | None = None, remove_at: int | None = None, box: str = BOX_STRING) -> np.ndarray:
    """The walker's and the hinge end point's poses after each step; imports/removes the box on the way."""
    boss = sim.robot("boss")
    walker, end = boss.getFromDef("WALKER"), boss.getFromDef("ARMEND")
    children = boss.getRoot().getField("children")
    poses = []
    for step in range(steps):
        if step == import_at:
            children.importMFNodeFromString(-1, box)
        if step == remove_at:
            boss.getFromDef("NEW").remove()
        boss.step(4)
        poses.append([*walker.getPosition(), *walker.getOrientation(), *walker.getVelocity(), *end.getPosition()])
    return np.array(poses, dtype=float)


STATIC_BOX = "DEF NEW Solid { translation 40 0 1 name \"new\" boundingObject Box { size 0.2 0.2 0.2 } }"


def test_a_far_away_static_import_and_removal_leave_the_others_bit_identical(project, load):
    path = project(WORLD)
    plain = run(load(path, start_controllers=False), 300)
    changed_sim = load(path, start_controllers=False)
    changed = run(changed_sim, 300, import_at=50, remove_at=200, box=STATIC_BOX)
    assert np.array_equal(changed, plain)
    assert changed_sim.node("NEW") is None and changed_sim.model.ngeom == load(path).model.ngeom


def test_a_far_away_dynamic_import_and_removal_leave_the_others_unchanged_to_rounding(project, load):
    # Exactly identical is out of reach: MuJoCo's vector sums (unrolled by four) group the same terms differently
    # when the number of degrees of freedom changes, ~1e-13 per step, which contacts then amplify (measured:
    # 3.7e-11 after 1 s of sliding).
    path = project(WORLD)
    plain = run(load(path, start_controllers=False), 300)
    changed_sim = load(path, start_controllers=False)
    changed = run(changed_sim, 300, import_at=50, remove_at=200)
    assert np.array_equal(changed[:50], plain[:50])
    assert 0 < np.abs(changed - plain).max() <= 1e-9
    assert changed_sim.node("NEW") is None and changed_sim.model.nbody == load(path).model.nbody


def test_the_same_import_twice_gives_bit_identical_runs(project, load):
    path = project(WORLD)
    first, second = (run(load(path, start_controllers=False), 150, import_at=20) for _ in range(2))
    assert np.array_equal(first, second)


def test_the_imported_box_falls_and_lands_as_physics_says(project, load):
    sim = load(project(WORLD), start_controllers=False)
    boss = sim.robot("boss")
    boss.step(40)
    boss.getRoot().getField("children").importMFNodeFromString(-1, BOX_STRING)
    box = boss.getFromDef("NEW")
    assert box is not None and box.getPosition() == pytest.approx([40, 0, 1])
    g = 9.81
    boss.step(200)  # free fall for 0.2 s (semi-implicit Euler: z = 1 - g dt^2 n (n + 1) / 2)
    n, dt = 50, 0.004
    assert box.getPosition()[2] == pytest.approx(1 - g * dt * dt * n * (n + 1) / 2, abs=1e-9)
    assert box.getVelocity()[2] == pytest.approx(-g * n * dt, abs=1e-9)
    boss.step(2000)  # landed: resting on the floor on its half size
    assert box.getPosition()[2] == pytest.approx(0.1, abs=2e-3)
    assert np.abs(box.getVelocity()).max() < 1e-3


def test_reset_after_an_import_restores_the_others_and_keeps_the_imported_solid(project, load):
    sim = load(project(WORLD), start_controllers=False)
    boss = sim.robot("boss")
    walker = boss.getFromDef("WALKER")
    start = walker.getPosition()
    boss.step(100)
    boss.getRoot().getField("children").importMFNodeFromString(-1, BOX_STRING)
    boss.step(100)
    sim.reset()
    boss = sim.robot("boss")
    assert sim.time_s == 0 and boss.getFromDef("WALKER").getPosition() == start
    assert boss.getFromDef("NEW").getPosition() == pytest.approx([40, 0, 1])


def test_solids_come_and_go_in_a_world_with_devices_whose_state_stays(project, load):
    path = project(WORLD.replace('name "boss"', 'name "boss" children [ DistanceSensor { name "ds" } ]'))
    sim = load(path, start_controllers=False)
    boss = sim.robot("boss")
    sensor = boss.getDevice("ds")
    sensor.enable(12)  # every third step, the first value after three
    boss.step(8)
    children = boss.getRoot().getField("children")
    children.importMFNodeFromString(-1, BOX_STRING)
    boss.getFromDef("SPINNER").remove()
    assert boss.getFromDef("NEW") is not None and boss.getFromDef("SPINNER") is None
    assert boss.getDevice("ds") is sensor and sensor.getSamplingPeriod() == 12 and sensor.getValue() != sensor.getValue()
    boss.step(4)  # the schedule went on: the first value after 12 ms, as without the changes
    plain = load(path, start_controllers=False).robot("boss")
    plain_sensor = plain.getDevice("ds")
    plain_sensor.enable(12)
    plain.step(12)
    assert sensor.getValue() == plain_sensor.getValue() == 1000.0  # the walker is in front of it


def test_a_locked_connector_refuses_and_nothing_changes(project, load, capfd):
    connectors = 'children [ Connector { name "c" isLocked TRUE } ]'
    path = project(WORLD.replace('name "boss"', f'name "boss" {connectors}'))
    sim = load(path, start_controllers=False)
    boss = sim.robot("boss")
    sim.banks["connector"].peer[0] = 0  # as a link would (no peer is in reach in this world)
    children = boss.getRoot().getField("children")
    model, count = sim.model, children.getCount()
    children.importMFNodeFromString(-1, BOX_STRING)
    assert children.getCount() == count and sim.model is model
    assert "not supported yet in a world with a locked Connector" in capfd.readouterr().err
    with pytest.raises(SimulationError, match="locked Connector"):
        sim.replace_root_nodes(sim.world.nodes[:-1])


COUNTER = """
from controller import Robot

robot = Robot()
steps = 0
while robot.step(4) != -1:
    steps += 1
    robot.setCustomData(str(steps))
"""

BOT = 'DEF BOT Robot { translation -40 0 1 name "bot" controller "counter" boundingObject Sphere { radius 0.1 } }'


def test_an_imported_robot_runs_its_controller_and_a_removed_one_stops(project, load):
    path = project(WORLD, controllers={"counter": COUNTER})
    plain = run(load(path), 60)
    sim = load(path)
    boss = sim.robot("boss")
    poses = run(sim, 20)
    boss.getRoot().getField("children").importMFNodeFromString(-1, BOT)
    bot = sim.robot_runtime("bot")
    poses = np.vstack([poses, run(sim, 20)])
    # Its controller starts with the next step, as a controller present since load starts with the first.
    loaded = load(project(WORLD + BOT, controllers={"counter": COUNTER}))
    run(loaded, 20)
    assert bot.custom_data == loaded.robot_runtime("bot").custom_data == "19"
    process = bot.controller
    boss.getFromDef("BOT").remove()
    assert process.finished and bot.controller is None
    poses = np.vstack([poses, run(sim, 20)])
    assert np.array_equal(poses, plain)  # a static robot adds no degree of freedom: the others bit-identical
    with pytest.raises(SimulationError, match="No robot named 'bot'"):
        sim.robot_runtime("bot")


def test_robots_with_devices_and_batteries_are_imported_and_batteries_stay(project, load):
    charged = 'DEF CHARGED Robot { name "charged" battery [ 100 100 0 ] cpuConsumption 10 }'
    sim = load(project(WORLD + charged), start_controllers=False)
    boss, robot = sim.robot("boss"), sim.robot("charged")
    robot.batterySensorEnable(8)
    boss.step(40)  # 10 steps of 4 ms at 10 W: 0.4 J
    children = boss.getRoot().getField("children")
    count = children.getCount()
    children.importMFNodeFromString(-1, 'Robot { name "other" children [ LED { } ] }')
    children.importMFNodeFromString(-1, 'Robot { name "spare" battery [ 5 5 0 ] cpuConsumption 1 }')
    assert children.getCount() == count + 2 and sim.robot("other").getDevice("led").get() == 0
    assert robot.batterySensorGetValue() == pytest.approx(100 - 0.4) and robot.batterySensorGetSamplingPeriod() == 8
    spare = sim.robot("spare")
    spare.batterySensorEnable(4)
    boss.step(40)
    assert robot.batterySensorGetValue() == pytest.approx(100 - 0.8)
    assert spare.batterySensorGetValue() == pytest.approx(5 - 0.04)
    sim.reset()  # back to the world file's energies (the imported robot's from its node)
    assert sim.batteries.energy.tolist() == [100.0, 5.0]


def test_a_removed_robot_driven_from_a_script_gets_minus_one(project, load):
    bot = 'DEF BOT Robot { translation -40 0 1 name "bot" children [ GPS { } ] }'
    sim = load(project(WORLD + bot), start_controllers=False)
    robot, boss = sim.robot("bot"), sim.robot("boss")
    gps = robot.getDevice("gps")
    gps.enable(4)
    assert robot.step(4) == 0 and gps.getValues() == pytest.approx([-40, 0, 1])
    boss.getFromDef("BOT").remove()
    time = sim.time_s
    assert robot.step(4) == -1 and sim.time_s == time  # nothing advanced
    assert gps.getValues() == pytest.approx([-40, 0, 1])  # its devices keep their last values


def test_an_imported_robot_with_a_missing_controller_is_refused(project, load, capfd):
    sim = load(project(WORLD))
    children = sim.robot("boss").getRoot().getField("children")
    count = children.getCount()
    children.importMFNodeFromString(-1, 'Robot { name "lost" controller "nowhere" }')
    assert children.getCount() == count and all(r.name != "lost" for r in sim.robots)
    assert "nowhere" in capfd.readouterr().err


def test_a_removed_nodes_objects_answer_as_webots_for_an_invalid_node(project, load, capfd):
    sim = load(project(WORLD), start_controllers=False)
    boss = sim.robot("boss")
    spinner, end = boss.getFromDef("SPINNER"), boss.getFromDef("ARMEND")
    group = boss.getRoot().getField("children")
    group.importMFNodeFromString(-1, "DEF DECOR Pose { children [ Shape { } ] }")  # no physical part
    decor = group.getMFNode(-1)
    spinner.remove()
    decor.remove()
    capfd.readouterr()
    assert all(math.isnan(v) for v in end.getPosition()) and len(end.getOrientation()) == 9  # a descendant too
    assert (spinner.getId(), spinner.getDef(), spinner.getTypeName(), spinner.getType()) == (-1, "", "", 0)
    assert spinner.getField("translation") is None and spinner.getParentNode() is None
    assert spinner.getContactPoints() == [] and spinner.getNumberOfFields() == -1 and not spinner.isProto()
    assert decor.getTypeName() == "" and decor.getField("children") is None
    spinner.remove()
    err = capfd.readouterr().err.splitlines()
    assert err[0] == "Error: wb_supervisor_node_get_position() called with a NULL or invalid 'node' argument."
    assert err[-1] == "Error: wb_supervisor_node_remove() called with a NULL or invalid 'node' argument."
    assert len(err) == 14  # one line per call
    assert boss.getFromDef("WALKER").getTypeName() == "Robot"  # the others answer as before
    assert "removed" in repr(spinner)


def test_the_warnings_of_imported_nodes_are_printed_once(project, load, capfd):
    sim = load(project(WORLD), start_controllers=False)
    children = sim.robot("boss").getRoot().getField("children")
    capfd.readouterr()
    children.importMFNodeFromString(-1, 'Robot { name "viewer" children [ Camera { name "eye" } ] }')
    out = capfd.readouterr()
    lines = [line for line in (out.out + out.err).splitlines() if "Camera devices are not simulated" in line]
    assert len(lines) == 1 and lines[0].startswith('WARNING: Robot "viewer" > children[0] > Camera "eye": ')


def test_saved_states_of_solids_that_stay_are_kept(project, load):
    sim = load(project(WORLD), start_controllers=False)
    boss = sim.robot("boss")
    walker = boss.getFromDef("WALKER")
    boss.step(40)
    walker.saveState("start")
    saved = walker.getPosition()
    boss.getFromDef("SPINNER").saveState("gone with it")
    boss.step(40)
    boss.getFromDef("SPINNER").remove()  # its dofs come before nothing: the walker's rows stay, the arm's go
    boss.getRoot().getField("children").importMFNodeFromString(0, BOX_STRING)  # first: every row moves
    assert walker.getPosition() != saved
    walker.loadState("start")
    assert walker.getPosition() == saved
    assert [key[1] for key in sim.supervision.saved_states] == ["start"]


ARM = """
DEF HOST Robot {
  translation 0 -30 0.2
  name "host"
  controller "<extern>"
  children [
    DEF ELBOW HingeJoint {
      jointParameters HingeJointParameters { axis 0 0 1 }
      device [ RotationalMotor { name "elbow" } ]
    }
  ]
  boundingObject Box { size 0.2 0.2 0.2 }
  physics Physics { density -1 mass 2 }
}
"""

FOREARM = ('Solid { translation 0.3 0 0 name "forearm" boundingObject Box { size 0.2 0.05 0.05 } '
           'physics Physics { density -1 mass 0.2 } }')

GRIPPER = ('HingeJoint { jointParameters HingeJointParameters { axis 0 1 0 } device [ PositionSensor { name "grip" } ] '
           'endPoint Solid { translation 0 0 0.3 name "finger" boundingObject Sphere { radius 0.02 } '
           'physics Physics { } } }')


def test_nodes_imported_and_removed_inside_a_robot(project, load, capfd):
    sim = load(project(WORLD + ARM), start_controllers=False)
    boss, host = sim.robot("boss"), sim.robot("host")
    elbow = host.getDevice("elbow")
    elbow.setPosition(float("inf"))
    elbow.setVelocity(1.0)
    host.step(40)
    end_point = boss.getFromDef("ELBOW").getField("endPoint")
    end_point.importSFNodeFromString(FOREARM)  # a link on the motor's joint
    forearm = end_point.getSFNode()
    assert forearm is not None and forearm.getTypeName() == "Solid"
    assert sim.node("HOST").fields["children"][0].fields["endPoint"] is forearm._wb
    assert forearm._wb.path == 'Robot "host" > children[0] > DEF ELBOW HingeJoint > endPoint > Solid "forearm"'
    host.step(400)  # the elbow turns the forearm at 1 rad/s about z, relative to the robot's body
    body = boss.getFromDef("HOST")
    rotation = np.reshape(body.getOrientation(), (3, 3))
    x, y, _ = rotation.T @ np.subtract(forearm.getPosition(), body.getPosition())
    assert math.atan2(y, x) == pytest.approx(0.4, abs=0.02)
    assert host.getDevice("elbow") is elbow and elbow.getVelocity() == 1.0
    children = boss.getFromDef("HOST").getField("children")
    children.importMFNodeFromString(-1, GRIPPER)  # a new device inside the robot: getDevice finds it
    grip = host.getDevice("grip")
    assert grip is not None and host.getNumberOfDevices() == 2
    grip.enable(4)
    host.step(8)
    assert grip.getValue() == pytest.approx(0.0, abs=1e-3)
    children.removeMF(1)
    end_point.removeSF()
    assert end_point.getSFNode() is None and sim.model.nbody == load(project(WORLD + ARM, world_name="b.wbt")).model.nbody
    capfd.readouterr()
    assert host.getDevice("grip") is None and host.getNumberOfDevices() == 1
    children.importMFNodeFromString(-1, 'DistanceSensor { name "ds" }')  # merged into the robot's body: refused
    err = capfd.readouterr().err
    assert "would change" in err and children.getCount() == 1 and host.getDevice("ds") is None
    host.step(4)


SHAPED = """
DEF SHAPED Solid {
  translation 6 0 1
  name "shaped"
  boundingObject DEF BOUNDS Group { children [ Box { size 0.1 0.1 0.1 } ] }
  physics Physics { density -1 mass 1 }
}
DEF BARE Solid { translation 8 0 1 name "bare" physics Physics { density -1 mass 1 } }
"""


def test_changes_inside_a_solids_bounds_or_physics_are_refused_with_webots_style_errors(project, load, capfd):
    # wbsim applies field writes inside a boundingObject (a Box's size) but not nodes added to or removed from
    # it, nor a boundingObject or Physics node imported or removed: each is refused with an error line.
    sim = load(project(WORLD + SHAPED), start_controllers=False)
    boss = sim.robot("boss")
    shaped, bare = boss.getFromDef("SHAPED"), boss.getFromDef("BARE")
    bounds = boss.getFromDef("BOUNDS").getField("children")
    model = sim.model
    capfd.readouterr()
    bounds.removeMF(0)
    bounds.importMFNodeFromString(-1, "Sphere { radius 0.2 }")
    boss.getFromDef("BOUNDS").getField("children").getMFNode(0).remove()
    bare.getField("boundingObject").importSFNodeFromString("Sphere { radius 0.1 }")
    bare.getField("physics").removeSF()
    shaped.getField("boundingObject").removeSF()
    inside = "(): changing the nodes of a Solid's boundingObject at run time is not supported by wbsim yet."
    removing = ("Error: wb_supervisor_field_remove_sf(): removing physical nodes at run time is not "
                "supported by wbsim yet.")
    assert capfd.readouterr().err.splitlines() == [
        "Error: wb_supervisor_field_remove_mf" + inside,
        "Error: wb_supervisor_field_import_mf_node_from_string" + inside,
        "Error: wb_supervisor_field_remove_mf" + inside,
        "Error: wb_supervisor_field_import_sf_node_from_string(): importing into 'boundingObject' at run "
        "time is not supported by wbsim yet.",
        removing,
        removing,
    ]
    assert bounds.getCount() == 1 and bare.getField("boundingObject").getSFNode() is None
    assert bare.getField("physics").getSFNode() is not None and sim.model is model
    boss.step(2000)  # the Box still collides: the Solid rests on the floor on its half size
    assert shaped.getPosition()[2] == pytest.approx(0.05, abs=2e-3)


PLUGIN = """
def webots_physics_init():
    pass
def webots_physics_step():
    pass
def webots_physics_cleanup():
    pass
"""


def test_a_world_with_a_physics_plugin_refuses_solids_at_run_time(project, load, capfd):
    path = project(WORLD.replace("physicsDisableTime 0", 'physicsDisableTime 0 physics "plug"'),
                   files={"plugins/physics/plug/plug.py": PLUGIN})
    sim = load(path, start_controllers=False)
    boss = sim.robot("boss")
    children = boss.getRoot().getField("children")
    model, count = sim.model, children.getCount()
    capfd.readouterr()
    children.importMFNodeFromString(-1, BOX_STRING)
    boss.getFromDef("SPINNER").remove()
    err = capfd.readouterr().err.splitlines()
    reason = "adding or removing Solids at run time is not supported yet in a world with a physics plugin."
    assert err == [f"Error: wb_supervisor_field_import_mf_node_from_string(): {reason}",
                   f"Error: wb_supervisor_field_remove_mf(): {reason}"]
    assert children.getCount() == count and sim.model is model and boss.getFromDef("SPINNER") is not None
    with pytest.raises(SimulationError, match="physics plugin"):
        sim.replace_root_nodes(sim.world.nodes[:-1])
    children.importMFNodeFromString(-1, "Pose { children [ Shape { } ] }")  # no physical part: accepted
    assert children.getCount() == count + 1


SIZED = """
WorldInfo { basicTimeStep 4 }
DEF FLOOR Solid { boundingObject Plane { size 20 20 } }
DEF BOSS Robot {
  name "boss"
  controller "<extern>"
  supervisor TRUE
  translation 4 0 0.1
  children [ DistanceSensor { name "ds" rotation 0 0 1 3.14159265 lookupTable [ 0 0 0, 10 10 0 ] } ]
}
DEF BOX Solid {
  translation 0 0 0.1
  name "box"
  boundingObject DEF BB Box { size 0.2 0.2 0.2 }
  physics Physics { density -1 mass 1 }
}
DEF BALL Solid {
  translation 2 0 0.1
  name "ball"
  boundingObject DEF BP Pose { translation 0 0 0 children [ DEF BS Sphere { radius 0.1 } ] }
  physics Physics { density 1000 }
}
DEF WALKER Solid { translation -3 0 0.5 name "walker" linearVelocity 0 1 0 physics Physics { } }
"""


def test_writing_a_bounding_object_size_resizes_the_collision_shape_and_its_mass(project, load):
    # Webots applies a boundingObject geometry write to the ODE geom and recomputes the Solid's mass from it
    # (WbBox::updateSize -> applyToOdeData -> applyToOdeMass): the box rests on its new half size, the ball
    # of density 1000 kg/m^3 gets the mass of its new volume, distance sensors see the new shape.
    sim = load(project(SIZED), start_controllers=False)
    boss = sim.robot("boss")
    box, ball, walker = boss.getFromDef("BOX"), boss.getFromDef("BALL"), boss.getFromDef("WALKER")
    sensor = boss.getDevice("ds")
    sensor.enable(4)
    boss.step(400)
    assert box.getPosition()[2] == pytest.approx(0.1, abs=2e-3)
    assert sensor.getValue() == pytest.approx(4 - 2 - 0.1, abs=1e-4)  # to the ball's surface, along -x
    plain = load(project(SIZED, world_name="plain.wbt"), start_controllers=False)
    plain.robot("boss").step(400)
    box.getField("translation").setSFVec3f([0.0, 0.0, 0.3])  # lifted first: they fall onto their new sizes
    ball.getField("translation").setSFVec3f([2.0, 0.0, 0.3])
    boss.getFromDef("BB").getField("size").setSFVec3f([0.4, 0.4, 0.4])
    boss.getFromDef("BS").getField("radius").setSFFloat(0.2)
    assert boss.getFromDef("BB").getField("size").getSFVec3f() == [0.4, 0.4, 0.4]
    body = sim.bindings.solid(ball._wb).body_id
    assert sim.model.body_mass[body] == pytest.approx(1000 * 4 / 3 * math.pi * 0.2**3)
    boss.step(2000)
    assert box.getPosition()[2] == pytest.approx(0.2, abs=2e-3)
    assert ball.getPosition()[2] == pytest.approx(0.2, abs=2e-3)
    surface = math.sqrt(0.2**2 - 0.1**2)  # where the ray, 0.1 m below the centre, meets the sphere
    assert sensor.getValue() == pytest.approx(4 - 2 - surface, abs=2e-3)
    plain.robot("boss").step(2000)  # the others go on bit for bit
    assert walker.getPosition() == plain.robot("boss").getFromDef("WALKER").getPosition()


def test_a_bounding_object_size_the_compilation_refuses_is_an_error_and_changes_nothing(project, load, capfd):
    sim = load(project(SIZED), start_controllers=False)
    boss = sim.robot("boss")
    size = boss.getFromDef("BB").getField("size")
    model = sim.model
    capfd.readouterr()
    size.setSFVec3f([0.0, 0.4, 0.4])
    err = capfd.readouterr().err
    assert err.startswith("Error: the 'size' field of Solid \"box\" > boundingObject > DEF BB Box cannot be ")
    assert "size 0 must be positive" in err  # MuJoCo's refusal, placed at the Box
    assert size.getSFVec3f() == [0.2, 0.2, 0.2] and sim.model is model


def test_moving_a_pose_inside_a_bounding_object_moves_the_collision_shape(project, load):
    sim = load(project(SIZED), start_controllers=False)
    boss = sim.robot("boss")
    ball = boss.getFromDef("BALL")
    boss.step(400)
    ball.getField("translation").setSFVec3f([2.0, 0.0, 0.3])
    boss.getFromDef("BP").getField("translation").setSFVec3f([0.0, 0.0, 0.1])  # the sphere 0.1 m higher
    boss.step(2000)
    assert ball.getPosition()[2] == pytest.approx(0.0, abs=2e-3)  # its origin rests on the floor


def test_a_bounding_object_write_in_a_physics_plugin_world_is_refused(project, load, capfd):
    path = project(SIZED.replace("basicTimeStep 4", 'basicTimeStep 4 physics "plug"'),
                   files={"plugins/physics/plug/plug.py": PLUGIN})
    sim = load(path, start_controllers=False)
    size = sim.robot("boss").getFromDef("BB").getField("size")
    capfd.readouterr()
    size.setSFVec3f([0.4, 0.4, 0.4])
    assert capfd.readouterr().err.endswith("changing a boundingObject at run time is not supported yet in a world "
                                           "with a physics plugin.\n")
    assert size.getSFVec3f() == [0.2, 0.2, 0.2]


KEPT_DEVICES = """
WorldInfo { basicTimeStep 16 }
Robot {
  name "r"
  controller "<extern>"
  supervisor TRUE
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 0 1 }
      device [ RotationalMotor { name "m" maxTorque 100 } PositionSensor { name "s" } ]
      endPoint Solid { physics Physics { } boundingObject Box { size 0.1 0.1 0.1 } }
    }
  ]
}
"""


def test_kept_motor_and_sensor_objects_use_the_rebuilt_banks_rows(project, load):
    """A recompilation that moves a motor and its sensor to other rows of new banks (a joint with its own
    devices imported in front of them): the Motor and PositionSensor objects the controller keeps write and
    read the new banks' rows (setVelocity's and getValue's memoryviews are taken again at the rebinding), never
    the old arrays."""
    sim = load(project(KEPT_DEVICES))
    robot = sim.robot("r")
    motor, sensor = robot.getDevice("m"), robot.getDevice("s")
    sensor.enable(16)
    motor.setPosition(math.inf)
    motor.setVelocity(1.0)
    robot.step(160)
    old_motors, old_sensors = sim.banks["motor"], sim.banks["position_sensor"]
    robot.getSelf().getField("children").importMFNodeFromString(
        0, 'HingeJoint { jointParameters HingeJointParameters { axis 0 0 1 } '
           'device [ RotationalMotor { name "new" } PositionSensor { name "new sensor" } ] '
           'endPoint Solid { translation 0 1 0 physics Physics { } boundingObject Box { size 0.1 0.1 0.1 } } }')
    robot.step(16)
    motors, sensors = sim.banks["motor"], sim.banks["position_sensor"]
    assert motors is not old_motors and sensors is not old_sensors
    assert robot.getDevice("m") is motor and motor._core.index == 1 and sensor._core.index == 1
    motor.setVelocity(2.0)
    assert motors.target_velocity.tolist() == [10.0, 2.0]  # the new bank's row of "m"; "new" at maxVelocity
    robot.step(320)
    joint = next(b.joint for b in sim.bindings.devices["motor"] if b.node["name"] == "m")
    assert sim.data.qvel[joint.dof_adr] == pytest.approx(2.0, rel=1e-3)
    value = sensor.getValue()
    assert type(value) is float and value == sensors.value[1] and value != old_sensors.value[0]
