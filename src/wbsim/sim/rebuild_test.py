"""Adding and removing Solids at run time: the state of everything else carries over bit for bit."""

from __future__ import annotations

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


def test_solids_in_a_world_with_devices_are_refused_and_nothing_changes(project, load, capfd):
    path = project(WORLD.replace('name "boss"', 'name "boss" children [ DistanceSensor { } ]'))
    sim = load(path, start_controllers=False)
    boss = sim.robot("boss")
    children = boss.getRoot().getField("children")
    model = sim.model
    count = children.getCount()
    children.importMFNodeFromString(-1, BOX_STRING)
    boss.getFromDef("SPINNER").remove()
    assert children.getCount() == count and sim.model is model
    err = capfd.readouterr().err
    assert "not supported yet in a world with devices" in err
    with pytest.raises(SimulationError, match="devices"):
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


def test_robot_changes_that_are_not_supported_are_refused(project, load, capfd):
    sim = load(project(WORLD), start_controllers=False)
    boss = sim.robot("boss")
    children = boss.getRoot().getField("children")
    count = children.getCount()
    children.importMFNodeFromString(-1, 'Robot { name "other" children [ LED { } ] }')
    children.importMFNodeFromString(-1, 'Robot { name "charged" battery [ 1 1 1 ] }')
    assert children.getCount() == count
    err = capfd.readouterr().err
    assert "importing devices at run time is not supported yet" in err
    assert "importing Robots with a battery at run time is not supported yet" in err


def test_an_imported_robot_with_a_missing_controller_is_refused(project, load, capfd):
    sim = load(project(WORLD))
    children = sim.robot("boss").getRoot().getField("children")
    count = children.getCount()
    children.importMFNodeFromString(-1, 'Robot { name "lost" controller "nowhere" }')
    assert children.getCount() == count and all(r.name != "lost" for r in sim.robots)
    assert "nowhere" in capfd.readouterr().err
