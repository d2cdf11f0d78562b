"""The step loop: phase order, timing, determinism, reset and several simulations in one process."""

from __future__ import annotations

import numpy as np
import pytest

from wbsim.errors import ControllerError, SimulationError
from wbsim.sim.phases import PHASE_ORDER, Phase

ROVER = """
WorldInfo { basicTimeStep 16 randomSeed 11 }
Solid { boundingObject Plane {} }
DEF ROVER Robot {
  translation 0 0 0.033
  name "rover"
  controller "CONTROLLER"
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 1 0 anchor 0 0.07 0 }
      device [ RotationalMotor { name "left" } PositionSensor { name "left sensor" noise 0.001 } ]
      endPoint Solid { translation 0 0.07 0 rotation 1 0 0 1.5708 physics Physics {}
                       boundingObject Cylinder { radius 0.033 height 0.02 } }
    }
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 1 0 anchor 0 -0.07 0 }
      device [ RotationalMotor { name "right" } PositionSensor { name "right sensor" } ]
      endPoint Solid { translation 0 -0.07 0 rotation 1 0 0 1.5708 physics Physics {}
                       boundingObject Cylinder { radius 0.033 height 0.02 } }
    }
    Solid { translation -0.06 0 -0.021 boundingObject Sphere { radius 0.012 } physics Physics {} }
  ]
  boundingObject Box { size 0.16 0.11 0.04 }
  physics Physics { density -1 mass 1 }
}
DEF BALL Solid { translation 0.5 0.5 0.3 boundingObject Sphere { radius 0.05 } physics Physics {} }
"""
WANDER = """
from controller import Robot
robot = Robot()
left, right = robot.getDevice("left"), robot.getDevice("right")
sensor = robot.getDevice("left sensor")
sensor.enable(16)
for motor in (left, right):
    motor.setPosition(float("inf"))
t = 0
while robot.step(16) != -1:
    t += 1
    value = sensor.getValue()
    left.setVelocity(5.0 + (t % 50) / 10.0)
    right.setVelocity(4.0 + (value if value == value else 0.0) % 2.0)
"""


def rover(project, controller="wander", source=WANDER):
    return project(ROVER.replace("CONTROLLER", controller), controllers={"wander": source})


def trajectory(sim, steps: int) -> np.ndarray:
    rows = []
    for _ in range(steps):
        sim.step()
        rows.append(np.concatenate([sim.data.qpos, sim.data.qvel]))
    return np.asarray(rows)


def test_phases_run_in_documented_order(project, load):
    sim = load(rover(project))
    seen: list[Phase] = []
    for phase in PHASE_ORDER:
        sim.add_hook(phase, lambda s, phase=phase: seen.append(phase))
    sim.step()
    assert seen == list(PHASE_ORDER)
    assert [p.value for p in PHASE_ORDER] == [
        "controllers", "devices_actuate", "plugin_step", "physics", "collide", "plugin_step_end", "devices_sample",
    ]


def test_time_advances_by_basic_time_step(project, load):
    sim = load(rover(project, "<none>"))
    assert sim.time_s == 0.0
    sim.run(1.0)
    assert sim.step_count == 63  # ceil(1000 / 16)
    assert sim.time_ms == pytest.approx(1008.0)
    assert sim.substeps == 4 and sim.model.opt.timestep == pytest.approx(0.004)


def test_fractional_basic_time_step_below_one_ms(project, load):
    sim = load(project("WorldInfo { basicTimeStep 0.5 }\nDEF B Solid { physics Physics {} boundingObject Sphere { radius 0.1 } }"))
    assert sim.substeps == 1 and sim.model.opt.timestep == pytest.approx(0.0005)
    sim.run(0.01)
    assert sim.step_count == 20


def test_two_runs_of_the_same_world_and_seed_are_bit_identical(project, load):
    path = rover(project)
    first = trajectory(load(path), 150)
    second = trajectory(load(path), 150)
    assert np.array_equal(first, second)


def test_reset_replays_bit_identically_including_controllers_and_noise(project, load):
    sim = load(rover(project))
    first = trajectory(sim, 150)
    sim.reset()
    assert sim.time_s == 0.0
    second = trajectory(sim, 150)
    assert np.array_equal(first, second)


def test_two_simulations_in_one_process_are_independent(project, load):
    path = rover(project)
    alone = trajectory(load(path), 60)
    a, b = load(path), load(path)
    rows_a, rows_b = [], []
    for _ in range(60):
        a.step()
        b.step()
        rows_a.append(np.concatenate([a.data.qpos, a.data.qvel]))
        rows_b.append(np.concatenate([b.data.qpos, b.data.qvel]))
    assert np.array_equal(np.asarray(rows_a), alone)
    assert np.array_equal(np.asarray(rows_b), alone)


def test_controller_commands_take_effect_in_the_same_step(project, load):
    source = """
    from controller import Robot
    robot = Robot()
    m = robot.getDevice("left")
    m.setPosition(float("inf"))
    m.setVelocity(3.0)
    robot.step(16)
    """
    sim = load(rover(project, "wander", source))
    sim.step()
    dof = sim.bindings.motors[0].joint.dof_adr
    assert sim.data.qvel[dof] == pytest.approx(3.0, rel=1e-2)


def test_run_without_duration_ends_when_controllers_end(project, load):
    source = """
    from controller import Robot
    robot = Robot()
    for _ in range(10):
        robot.step(32)
    """
    sim = load(rover(project, "wander", source))
    assert sim.run() == 0
    assert sim.step_count == 20
    assert not sim.controllers_running()


def test_run_rejects_negative_duration(project, load):
    sim = load(rover(project, "<none>"))
    with pytest.raises(SimulationError):
        sim.run(-1.0)


def test_script_driven_robot_step_semantics(project, load, capfd):
    sim = load(rover(project, "<extern>"))
    robot = sim.robot("rover")
    assert robot.step(16) == 0 and sim.step_count == 1
    assert robot.step(20) == 0 and sim.step_count == 3  # 20 ms rounds up to 2 basic steps
    assert robot.step(0) == 0 and sim.step_count == 3
    assert robot.step() == 0 and sim.step_count == 4  # default: basicTimeStep
    with pytest.raises(ControllerError):
        robot.step(-5)
    sim.quit(4)
    assert robot.step(16) == -1
    assert sim.exit_status == 4
    assert not sim.step()


def test_unknown_robot_name_lists_robots(project, load):
    sim = load(rover(project, "<none>"))
    with pytest.raises(SimulationError, match="'rover'"):
        sim.robot("rovr")


def test_node_lookup_by_def_and_dotted_path(project, load):
    sim = load(rover(project, "<none>"))
    assert sim.node("ROVER").type_name == "Robot"
    assert sim.node("BALL").type_name == "Solid"
    assert sim.node("ROVER.BALL") is None
    assert sim.node("NOPE") is None
