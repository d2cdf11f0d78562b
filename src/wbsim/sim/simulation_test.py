"""The step loop: phase order, timing, determinism, reset and several simulations in one process."""

from __future__ import annotations

import copy
import ctypes
import math
import pickle
from decimal import Decimal
import numpy as np
import pytest

from wbsim.errors import ControllerError, NotCopyableError, SimulationError
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
    dof = sim.bindings.devices["motor"][0].joint.dof_adr
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
    for bad in (-1.0, float("nan"), "1"):
        with pytest.raises(SimulationError):
            sim.run(bad)


def test_script_driven_robot_step_semantics(project, load, capfd):
    sim = load(rover(project, "<extern>"))
    robot = sim.robot("rover")
    assert robot.step(16) == 0 and sim.step_count == 1
    assert robot.step(20) == 0 and sim.step_count == 3  # 20 ms rounds up to 2 basic steps
    assert robot.step(0) == 0 and sim.step_count == 3
    assert robot.step() == 0 and sim.step_count == 4  # default: basicTimeStep
    with pytest.raises(ControllerError):
        robot.step(-5)
    # Webots' binding passes the duration to C as an int without declared argument types: ctypes refuses
    # anything else (a float too, even a whole one) with its own error, before the library sees it.
    for bad in (20.0, float("nan"), float("inf"), "16", Decimal(20)):
        with pytest.raises(ctypes.ArgumentError, match="argument 1: TypeError: "):
            robot.step(bad)
    assert sim.step_count == 4
    # The last valid duration is remembered: repeats, and equal values of other types, are checked afresh;
    # ints are cut to the C int's 32 bits and True is 1 ms (rounded up to one basic step).
    assert robot.step(20) == 0 and robot.step(20) == 0 and sim.step_count == 8
    assert robot.step(True) == 0 and robot.step(2**32 + 16) == 0 and sim.step_count == 10
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


def test_dotted_def_path_skips_intermediate_nodes_like_webots_plugins(project, load):
    sim = load(project("""
    DEF A Robot { controller "<none>" children [ Pose { children [ DEF B Solid { name "b" children [
      HingeJoint { endPoint DEF C Solid { name "c" } } ] } ] } ] }
    DEF C Solid { name "top c" }
    """))
    assert sim.node("A.B").def_name == "B"
    assert sim.node("A.C") is sim.node("A.B.C")  # found through the Pose and the joint's endPoint
    assert sim.node("A.C")["name"] == "c" and sim.node("C")["name"] == "c"  # depth first: the first C
    assert sim.node("B.A") is None


def test_script_stepping_a_robot_does_not_delay_its_running_controller(project, load, tmp_path):
    source = """
    from controller import Robot
    robot = Robot()
    with open("wakes.txt", "w") as out:
        while robot.step(160) != -1:
            out.write(f"{robot.getTime():.3f} ")
            out.flush()
    """
    sim = load(rover(project, "wander", source))
    robot = sim.robot("rover")
    for _ in range(40):
        assert robot.step(16) == 0
    sim.step()
    wakes = (tmp_path / "controllers" / "wander" / "wakes.txt").read_text().split()
    assert wakes == ["0.160", "0.320", "0.480", "0.640"]


SENSING = """
WorldInfo { basicTimeStep 10 }
DEF BOSS Robot {
  name "boss"
  controller "CONTROLLER"
  supervisor TRUE
  children [
    Solid {
      physics Physics { density -1 mass 1 }
      boundingObject Box { size 0.1 0.1 0.1 }
      children [
        HingeJoint {
          jointParameters HingeJointParameters { axis 0 0 1 }
          device [ RotationalMotor { name "m" maxTorque 100 } PositionSensor { name "s" } ]
          endPoint Solid { translation 0 0 0.3 physics Physics { density -1 mass 1 }
                           boundingObject Box { size 0.1 0.1 0.1 } }
        }
      ]
    }
  ]
}
"""


def test_simulation_reset_keeps_sensors_and_feedback_enabled_as_webots_sensor_reset(project, load, capfd):
    """Webots' WbSensor::reset only sets lastUpdate = -inf: enabled sensors stay enabled and sample in the
    reset step's answer (from the initial state); motors go back to their initial targets."""
    sim = load(project(SENSING.replace("CONTROLLER", "<extern>")))
    boss = sim.robot("boss")
    sensor, motor = boss.getDevice("s"), boss.getDevice("m")
    sensor.enable(30)
    motor.enableTorqueFeedback(10)
    motor.setPosition(float("inf"))
    motor.setVelocity(2.0)
    boss.step(300)
    moved = sensor.getValue()
    assert moved > 0.4
    boss.simulationReset()
    boss.step(10)  # the reset happens at the end of this step, which ends at t = one basic step
    assert sim.time_s == pytest.approx(0.01)
    assert sensor.getSamplingPeriod() == 30 and motor.getTorqueFeedbackSamplingPeriod() == 10
    assert sensor.getValue() == pytest.approx(0.0, abs=1e-9)  # sampled in the reset step
    assert not np.isnan(motor.getTorqueFeedback())
    boss.step(20)
    assert sensor.getValue() == pytest.approx(0.0, abs=1e-9)  # target back at the initial position
    boss.step(10)
    assert "disabled device" not in capfd.readouterr().err


FALLING_GPS = """
WorldInfo { basicTimeStep 10 }
Robot {
  translation 0 0 1
  name "faller"
  controller "resetter"
  supervisor TRUE
  physics Physics { density -1 mass 1 }
  boundingObject Sphere { radius 0.05 }
  children [ GPS { } ]
}
"""
RESET_AFTER_FIVE = """
from controller import Supervisor
robot = Supervisor()
gps = robot.getDevice("gps")
gps.enable(30)
log = []
for n in range(12):
    if n == 5:
        robot.simulationReset()
    robot.step(10)
    log.append((round(robot.getTime(), 6), gps.getValues()[2]))
robot.setCustomData(repr(log))
"""


def test_simulation_reset_ends_its_step_at_one_basic_step_with_the_initial_state(project, load):
    """Webots' ``WbSimulationWorld::step`` resets after the physics with the clock at 0, then advances the clock;
    ``WbController::resetRequestTime`` restarts pending requests at 0: the supervisor's ``step(10)`` returns
    after that one step at t = 10 ms, and the sensors (``WbSensor::reset``: last update -inf) refresh in that
    step's answer from the initial state, then every period from there."""
    sim = load(project(FALLING_GPS, controllers={"resetter": RESET_AFTER_FIVE}))
    sim.run()
    log = eval(sim.robots[0].custom_data, {"nan": float("nan")})
    times = [t for t, _ in log]
    assert times == [0.01, 0.02, 0.03, 0.04, 0.05, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07]
    heights = [z for _, z in log]
    g, h = 9.81, 0.01 / sim.substeps

    def fallen(steps: int) -> float:  # semi-implicit Euler from rest over the physics steps, as MuJoCo integrates
        n = steps * sim.substeps
        return 1.0 - g * h * h * n * (n + 1) / 2

    assert heights[2] == pytest.approx(fallen(3), abs=1e-9)  # first sample one period after enable
    assert heights[5] == 1.0  # the reset step: sampled from the initial state
    assert heights[6] == heights[7] == 1.0  # held until the next sample, one period later
    assert heights[8] == pytest.approx(fallen(3), abs=1e-9)  # t = 0.04: three physics steps after the reset
    assert heights[11] == pytest.approx(fallen(6), abs=1e-9)


ARM = """
WorldInfo { basicTimeStep 10 }
DEF BOSS Robot {
  name "boss"
  controller "<extern>"
  supervisor TRUE
  children [
    Solid {
      physics Physics { density -1 mass 1 }
      children [
        HingeJoint {
          jointParameters HingeJointParameters { axis 0 1 0 }
          device [ RotationalMotor { name "m" maxTorque 100 } ]
          endPoint Solid { translation 0.5 0 0 physics Physics { density -1 mass 2 centerOfMass [ 0 0 0 ]
                           inertiaMatrix [ 0.001 0.001 0.001 0 0 0 ] } }
        }
      ]
    }
  ]
}
"""


def test_motor_feedback_in_the_reset_step_is_the_last_physics_steps(project, load):
    """Webots keeps its ODE joints through a world reset, so the feedback a motor samples in the reset step
    (``WbRotationalMotor::computeFeedback`` reads ``dJointGetFeedback``) is the force of the last physics step
    before the reset; from the next step on it is the initial state's."""
    sim = load(project(ARM))
    boss = sim.robot("boss")
    motor = boss.getDevice("m")
    motor.enableTorqueFeedback(10)
    motor.setPosition(-math.pi / 2)  # the arm up: no gravity torque to hold there
    boss.step(2000)
    before = motor.getTorqueFeedback()
    assert abs(before) < 1e-3
    boss.simulationReset()
    boss.step(10)  # the reset step
    assert motor.getTorqueFeedback() == pytest.approx(before, abs=1e-3)
    boss.step(10)  # one physics step from the initial state: the arm horizontal, held against gravity
    assert abs(motor.getTorqueFeedback()) == pytest.approx(2 * 9.81 * 0.5, rel=0.02)


def test_run_counts_steps_done_even_across_a_world_reset_and_accepts_inf(project, load):
    source = """
    from controller import Supervisor
    robot = Supervisor()
    n = 0
    while robot.step(10) != -1:
        n += 1
        if n == 5:
            robot.simulationReset()
        if n == 30:
            robot.simulationQuit(9)
    """
    sim = load(project(SENSING.replace("CONTROLLER", "resetter"), controllers={"resetter": source}))
    sim.run(0.1)
    # 10 steps run: the reset requested in the 6th step happens at its end, which Webots ends at time = one
    # basic step; 4 steps follow.
    assert sim.step_count == 5
    assert sim.run(float("inf")) == 9
    with pytest.raises(SimulationError):
        sim.run(float("nan"))


def test_physics_blow_up_stops_with_a_located_error_instead_of_a_silent_reset(project, load):
    """MuJoCo would silently reset the whole world on divergence; wbsim raises and keeps the state."""
    sim = load(project("WorldInfo { basicTimeStep 16 }\nDEF BALL Solid { physics Physics {} boundingObject Sphere { radius 0.1 } }"))
    sim.step()
    sim.data.qvel[0] = 1e40  # a diverged state, as an unstable model would produce
    with pytest.raises(SimulationError, match=r"unstable in the step ending at t = 0\.032 s.*DEF BALL Solid"):
        sim.step()
    assert sim.ended and sim.exit_status == 1
    assert not sim.step()
    sim.reset()
    assert sim.step() and np.isfinite(sim.data.qpos).all()


def test_cli_reports_instability_with_status_1(project, capsys):
    from wbsim.cli.main import main

    path = project("""WorldInfo { basicTimeStep 16 }
    DEF BALL Solid { physics Physics {} boundingObject Sphere { radius 0.1 } }
    Robot { name "s" controller "kick" supervisor TRUE }""", controllers={"kick": """
    from controller import Supervisor
    robot = Supervisor()
    robot.step(16)
    robot.getFromDef("BALL").setVelocity([1e30, 0, 0, 0, 0, 0])  # below FLT_MAX, so Webots accepts it
    while robot.step(16) != -1:
        pass
    """})
    assert main(["run", str(path), "--no-progress"]) == 1
    assert "physics became unstable" in capsys.readouterr().err


def test_simulations_dropped_without_close_are_freed(project, tmp_path):
    """Controllers keep their Robot in suspended greenlet frames, which Python's GC cannot see; dropping
    the simulation must still stop them and free everything (MuJoCo data, import finder)."""
    import gc
    import sys
    import warnings
    import weakref

    from wbsim.sim.simulation import load_world

    source = """
    from controller import Robot
    robot = Robot()
    try:
        while robot.step(16) != -1:
            pass
    finally:
        open("stopped.txt", "a").write("x")
    """
    path = rover(project, "wander", source)
    finders_before = len(sys.meta_path)
    refs = []
    for _ in range(5):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sim = load_world(path)
        sim.run(0.05)
        refs.append(weakref.ref(sim))
        del sim
    gc.collect()
    assert all(ref() is None for ref in refs)
    assert len(sys.meta_path) == finders_before
    assert (tmp_path / "controllers" / "wander" / "stopped.txt").read_text() == "xxxxx"


def test_robot_outliving_its_simulation_raises_a_typed_error(project):
    import gc
    import warnings

    from wbsim.sim.simulation import load_world

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = load_world(rover(project, "<none>"))
    robot = sim.robot("rover")
    del sim
    gc.collect()
    with pytest.raises(SimulationError, match="no longer exists"):
        robot.step(16)


def test_simulation_reset_after_close_is_still_freed_when_dropped(project):
    import gc
    import sys
    import warnings
    import weakref

    from wbsim.sim.simulation import load_world

    path = rover(project)
    finders_before = len(sys.meta_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = load_world(path)
    sim.run(0.05)
    sim.close()
    sim.reset()  # controllers start again
    sim.run(0.05)
    ref = weakref.ref(sim)
    del sim
    gc.collect()
    assert ref() is None
    assert len(sys.meta_path) == finders_before


# -- MuJoCo's own failures become typed errors with the world's context (issue 15) ------------------------------

FALLING_BOXES = "WorldInfo { basicTimeStep 16 }\nSolid { boundingObject Plane { size 100 100 } }\n" + "\n".join(
    f'Solid {{ translation {i % 5} {i // 5} 0.06 name "b{i}" boundingObject Box {{ size 0.1 0.1 0.1 }} '
    "physics Physics { } }" for i in range(40))


def _with_arena(path, memory: int):  # noqa: ANN001, ANN202
    """The world compiled with MuJoCo's arena forced to ``memory`` bytes."""
    from wbsim.compile.builder import compile_spec, compile_world
    from wbsim.world.loader import load_world_model

    compiled = compile_world(load_world_model(path))
    compiled.spec.memory = memory
    compiled.model = compile_spec(compiled.spec)
    return compiled


def test_an_arena_too_small_for_the_contacts_stops_instead_of_dropping_them(project):
    from wbsim.sim.simulation import Simulation

    path = project(FALLING_BOXES)
    sim = Simulation(_with_arena(path, 40_000))
    with pytest.raises(SimulationError, match=r"ran out of arena memory in the step ending at t = 0\.048 s") as info:
        for _ in range(10):
            sim.step()
    assert str(path) in str(info.value) and sim.ended and sim.exit_status == 1
    sim.close()
    # With the arena wbsim sizes, the boxes land and rest on the floor.
    with Simulation(_with_arena(path, -1)) as sim:
        most = 0
        for _ in range(20):
            sim.step()
            most = max(most, sim.data.ncon)  # once resting, the boxes may fall asleep (no contacts listed)
        assert most >= 4 * 40 and (sim.data.qpos[2::7] > 0.04).all()


def test_a_fatal_mujoco_error_at_load_is_a_simulation_error(project):
    from wbsim.sim.simulation import Simulation

    path = project("WorldInfo { }\n" + "\n".join(f'Solid {{ name "s{i}" }}' for i in range(300)))
    compiled = _with_arena(path, 60_000)  # enough to compile, too little for the collision pass's pair table
    with pytest.raises(SimulationError, match="MuJoCo cannot compute the initial state of .*out of memory"):
        Simulation(compiled)


def test_a_fatal_mujoco_error_in_a_step_is_a_simulation_error(project, load, monkeypatch):
    import mujoco

    sim = load(project(FALLING_BOXES))
    sim.step()

    def fails(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise mujoco.FatalError("mj_stackAlloc: out of memory")

    monkeypatch.setattr(mujoco, "mj_step", fails)  # MuJoCo raises FatalError from inside mj_step
    monkeypatch.setattr(mujoco, "mj_step1", fails)  # (split steps: the bounce threshold of bouncy worlds)
    with pytest.raises(SimulationError, match=r"MuJoCo failed in the step ending at t = 0\.032 s of .*test\.wbt: "
                                              "mj_stackAlloc: out of memory"):
        sim.step()
    assert sim.ended and sim.exit_status == 1


def test_divergence_is_blamed_on_the_robot_that_caused_it(project, load):
    # Three robots side by side, touching; only B's motor is driven absurdly fast (issue 15 saw another
    # robot blamed). The error names B.
    robot = """DEF {n} Robot {{ name "{n}" translation {x} 0 0.05 controller "<extern>" children [
      HingeJoint {{ jointParameters HingeJointParameters {{ axis 0 1 0 }}
        device [ RotationalMotor {{ name "m" maxTorque 1e30 maxVelocity 1e30 }} ]
        endPoint Solid {{ translation 0 0.1 0 physics Physics {{ }} boundingObject Sphere {{ radius 0.03 }} }} }} ]
      boundingObject Box {{ size 0.1 0.1 0.05 }} physics Physics {{ }} }}
    """
    world = "WorldInfo { basicTimeStep 16 }\nSolid { boundingObject Plane { } }\n" + "".join(
        robot.format(n=n, x=x) for n, x in (("A", 0.19), ("B", 0.3), ("C", 0.41)))
    sim = load(project(world))
    motor = sim.robot("B").getDevice("m")
    motor.setPosition(float("inf"))
    motor.setVelocity(1e30)
    with pytest.raises(SimulationError, match=r'unstable in the step ending at t = 0\.016 s.*, in Robot "B"\)'):
        for _ in range(10):
            sim.step()


@pytest.mark.parametrize("spacing", [0.1, 1.0])  # boxes touching, and apart (both resting on the floor)
@pytest.mark.parametrize("culprit", ["B", "C"])
def test_divergence_from_a_huge_force_is_blamed_on_the_body_it_acts_on(project, load, spacing, culprit):
    # The constraint solver spreads NaN to every degree of freedom with a contact in the same substep, and
    # later substeps overwrite MuJoCo's index with the lowest bad one: robot A was blamed before (issue 15).
    robot = """DEF {n} Robot {{ name "{n}" translation {x} 0 0.05 controller "<extern>"
      boundingObject Box {{ size 0.1 0.1 0.05 }} physics Physics {{ }} }}
    """
    world = "WorldInfo { basicTimeStep 16 }\nSolid { boundingObject Plane { } }\n" + "".join(
        robot.format(n=n, x=i * spacing) for i, n in enumerate("ABC"))
    sim = load(project(world))
    body = sim.bindings.solid(sim.node(culprit)).body_id
    with pytest.raises(SimulationError, match=rf'unstable in the step ending at t = 0\.016 s.*, in Robot "{culprit}"\)'):
        for _ in range(3):
            sim.data.xfrc_applied[body, 0] = -1e300
            sim.step()


def test_other_mujoco_warnings_still_print_and_the_handler_is_restored(project, load, capfd):
    import mujoco

    sim = load(project(FALLING_BOXES))
    sim._on_mujoco_warning("Inertia matrix is too close to singular at DOF 4. Check model. Time = 0.0080.")
    assert "WARNING: Inertia matrix is too close to singular at DOF 4" in capfd.readouterr().out
    sim.step()
    assert mujoco.get_mju_user_warning() is None


ENCODER_DRIVE = """
from controller import Robot
robot = Robot()
left, right = robot.getDevice("left"), robot.getDevice("right")
sensor = robot.getDevice("right sensor")  # no noise: its samples are plain copies
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


def test_plain_python_writes_on_few_devices_give_bit_identical_runs(project, load, monkeypatch):
    """Motors and encoders of a few devices are written element by element in plain Python (cheaper than
    numpy's dispatch); the run is bit-identical to the vectorised path's."""
    from wbsim.devices.motor import bank as motor_bank
    from wbsim.devices.position_sensor import bank as sensor_bank

    path = rover(project, source=ENCODER_DRIVE)

    def run() -> tuple[np.ndarray, list[float], bool]:
        sim = load(path)
        rows, values = [], []
        for _ in range(120):
            sim.step()
            rows.append(np.concatenate([sim.data.qpos, sim.data.qvel, sim.data.ctrl]))
            values.append(float(sim.banks["position_sensor"].value[1]))
        plain = sim.banks["motor"]._plain and all(
            g.cache is not None and g.cache.pairs is not None for g in sim.banks["position_sensor"].schedule.groups)
        return np.asarray(rows), values, plain

    fast, fast_values, fast_plain = run()
    monkeypatch.setattr(motor_bank, "PLAIN_PYTHON_ROWS", 0)
    monkeypatch.setattr(sensor_bank, "PLAIN_PYTHON_ROWS", 0)
    vectorised, vectorised_values, vectorised_plain = run()
    assert fast_plain and not vectorised_plain  # each run took the path it is meant to test
    assert not np.isnan(fast_values[-1]) and fast[-1, 0] != fast[0, 0]  # it drove and sampled
    assert np.array_equal(fast, vectorised) and fast_values == vectorised_values



def test_edited_steps_run_every_edit_in_order_and_the_references_after_any_change():
    """The physics loop's split step with more than one contact edit (the bounce threshold, then banks'):
    each edit runs once per MuJoCo step in order, and the constraint references are recomputed when any of
    them changed a row: later edits that change nothing leave the run as the bounce threshold alone gives it,
    one that reports a change stands in for the threshold's own report, and without any report it differs."""
    from wbsim.sim.bounce_test import mixed_sim
    from wbsim.sim.simulation import _edited_steps

    runs = [mixed_sim(compiled=True) for _ in range(4)]
    calls: list[str] = []

    def reporting(name: str, changed: bool):
        def edit() -> bool:
            calls.append(name)
            return changed
        return edit

    def silent(edit):
        return lambda: bool(edit()) and False  # edits the rows, reports no change

    for _ in range(200):
        for i, sim in enumerate(runs):
            edit = sim._bounce.step_edit(sim.model, sim.data)
            edits = [[edit], [edit, reporting("a", False), reporting("b", False)], [silent(edit), reporting("c", True)],
                     [silent(edit)]][i]
            _edited_steps(sim.model, sim.data, sim.substeps, edits, ())
    substeps = runs[0].substeps
    assert [c for c in calls if c != "c"] == ["a", "b"] * 200 * substeps and calls.count("c") == 200 * substeps
    for same in runs[1:3]:
        np.testing.assert_array_equal(runs[0].data.qpos, same.data.qpos)
        np.testing.assert_array_equal(runs[0].data.qvel, same.data.qvel)
    assert not np.array_equal(runs[0].data.qvel, runs[3].data.qvel)


def test_several_controllers_in_two_folders_run_bit_identically_again_and_after_reset(project, load):
    """Three rovers with noisy encoders: two run the same controller (one folder), one another controller
    stepping twice as long (another folder), all in the one bracket of the controllers phase. Two loads of the
    world and a reset replay the same run bit for bit (states, commands and sensor values)."""
    start, end = ROVER.index("DEF ROVER Robot"), ROVER.index("DEF BALL")
    block = ROVER[start:end]
    robots = "".join(
        block.replace("DEF ROVER", f"DEF R{i}").replace('"rover"', f'"rover{i}"')
        .replace("translation 0 0 0.033", f"translation {0.4 * i} {0.3 * i} 0.033")
        .replace("CONTROLLER", controller)
        for i, controller in enumerate(("wander", "wander", "slow")))
    world = ROVER[:start] + robots + ROVER[end:]
    slow = WANDER.replace("robot.step(16)", "robot.step(32)").replace("(t % 50) / 10.0", "(t % 7) / 3.0")
    path = project(world, controllers={"wander": WANDER, "slow": slow})

    def run(sim) -> np.ndarray:
        rows = []
        for _ in range(120):
            sim.step()
            values = [float(sim.banks["position_sensor"].value[i]) for i in range(6)]
            rows.append(np.concatenate([sim.data.qpos, sim.data.qvel, sim.data.ctrl, values]))
        return np.asarray(rows)

    sim = load(path)
    assert len([r for r in sim.robots if r.controller is not None]) == 3
    first = run(sim)
    again = run(load(path))
    sim.reset()
    after_reset = run(sim)
    assert np.array_equal(first, again, equal_nan=True) and np.array_equal(first, after_reset, equal_nan=True)
    # Each controller drove its rover: every enabled (left, noisy) encoder turned more than a radian.
    assert all(first[-1, -6 + 2 * i] > 1.0 for i in range(3)), first[-1, -6:]


MODE_SWITCHES = """
from controller import Robot
robot = Robot()
left, right = robot.getDevice("left"), robot.getDevice("right")
for motor in (left, right):
    motor.setPosition(float("inf"))
t = 0
while robot.step(16) != -1:
    t += 1
    if t == 30:  # position control after velocity control: to 40 rad, at most 3 rad/s
        left.setPosition(40.0)
        left.setVelocity(3.0)
    elif t == 60:  # and back to velocity control
        left.setPosition(float("inf"))
    if t < 30 or t >= 60:
        left.setVelocity(6.0 - (t % 9) / 3.0)
    right.setVelocity(5.0)
"""


def test_motors_switching_between_velocity_and_position_control_run_as_the_vectorised_path(
        project, load, monkeypatch):
    """The motor bank's plain actuate (a few velocity-controlled motors) hands over to the general path when a
    motor goes to position control and takes over again when it comes back: bit-identical to a run on the
    vectorised path alone, and each path in use where it should be."""
    from wbsim.devices.motor import bank as motor_bank

    path = rover(project, source=MODE_SWITCHES)

    def run() -> tuple[np.ndarray, list[bool]]:
        sim = load(path)
        rows, plain = [], []
        for _ in range(90):
            sim.step()
            rows.append(np.concatenate([sim.data.qpos, sim.data.qvel, sim.data.ctrl]))
            plain.append(bool(sim.banks["motor"]._plain))
        return np.asarray(rows), plain

    fast, fast_plain = run()
    monkeypatch.setattr(motor_bank, "PLAIN_PYTHON_ROWS", 0)
    vectorised, vectorised_plain = run()
    assert fast_plain[:29] == [True] * 29 and not any(fast_plain[30:59]) and all(fast_plain[61:])
    assert not any(vectorised_plain)
    assert np.array_equal(fast, vectorised)


SLEEPY_SAMPLING = """
from controller import Supervisor
robot = Supervisor()
left, right = robot.getDevice("left"), robot.getDevice("right")
left_sensor, right_sensor = robot.getDevice("left sensor"), robot.getDevice("right sensor")
for motor in (left, right):
    motor.setPosition(float("inf"))
    motor.setVelocity(3.0)
t = 0
while robot.step(16) != -1:
    t += 1
    if t == 5:
        left_sensor.enable(48)  # every third step
    if t == 12:
        left.enableTorqueFeedback(32)
    if t == 30:
        right_sensor.enable(16)
    if t == 40:
        robot.simulationReset()  # feedback enabled: sampled in the reset step from the last forces
    if t == 60:
        left_sensor.enable(0)
        left.disableTorqueFeedback()
    if t == 75:
        left_sensor.enable(80)
    right.setVelocity(2.0 + t % 7)
"""


def test_sampling_banks_with_nothing_due_sleep_and_the_run_is_the_same(project, load, monkeypatch):
    """The motor and position sensor banks, which say when they next have work (next_sample_step), are not
    called until then, and called again from the step a controller enables a device (or a world reset keeps
    forces); sensor values, feedback and the run are bit-identical to calling every sampling bank every step."""
    from wbsim.sim.simulation import Simulation

    path = project(ROVER.replace("CONTROLLER", "sleepy").replace('name "rover"', 'name "rover" supervisor TRUE'),
                   controllers={"sleepy": SLEEPY_SAMPLING})

    def run() -> tuple[np.ndarray, list[tuple[str, ...]]]:
        sim = load(path)
        rows, awake = [], []
        for _ in range(90):
            sim.step()
            rows.append(np.concatenate([sim.data.qpos, sim.data.qvel, sim.banks["position_sensor"].value,
                                        sim.banks["motor"].feedback_value]))
            awake.append(tuple(type(bank).__name__ for bank in sim._sampling_awake))
        return np.asarray(rows), awake

    sleeping, awake = run()
    monkeypatch.setattr(Simulation, "_plan_sampling",
                        lambda self, step: (setattr(self, "_sampling_awake", self._sampling),
                                            setattr(self, "_sample_wake", 1 << 62)))
    every_step, _ = run()
    assert np.array_equal(sleeping, every_step, equal_nan=True)
    assert not np.isnan(sleeping[-1, -4:-2]).any() and not np.isnan(sleeping[38, -2])  # sampled and fed back
    called = {name: [step for step, names in enumerate(awake, 1) if name in names]
              for name in ("MotorBank", "PositionSensorBank")}
    assert called["PositionSensorBank"][0] == 8 and called["MotorBank"][0] == 14  # not called before their work
    assert 76 not in called["MotorBank"] and 90 in called["PositionSensorBank"]  # feedback disabled: asleep again


def test_the_motors_plain_plan_follows_a_reset_to_the_new_arrays(project, load):
    """actuate's prepared plain path (memoryviews of the bank's and MuJoCo's arrays) is made again after a reset,
    which replaces the bank's current velocities: the commanded velocities go into the new array."""
    sim = load(rover(project))
    for _ in range(5):
        sim.step()
    bank = sim.banks["motor"]
    assert bank._plain_plan is not None
    old = bank.current_velocity
    sim.reset()
    for _ in range(3):
        sim.step()
    assert bank.current_velocity is not old and bank._plain_plan[4].obj is bank.current_velocity
    np.testing.assert_array_equal(bank.current_velocity, bank.target_velocity)


SENSORS = """
WorldInfo { basicTimeStep 8 }
Solid { boundingObject Plane { size 10 10 } }
Robot {
  translation 0 0 0.3
  name "r"
  controller "<extern>"
  children [ Accelerometer { } Gyro { } InertialUnit { } DistanceSensor { rotation 0 1 0 1.5708 } ]
  boundingObject Box { size 0.2 0.1 0.05 }
  physics Physics { }
}
"""


@pytest.mark.parametrize("how", ["deepcopy", "copy", "pickle"])
def test_a_simulation_its_banks_and_their_batch_refuse_copies_with_a_typed_error(project, load, how):
    # The banks call their simulation through closures (generator, clock, kinematics) and keep compiled calls over
    # its MjData's views, some packed as addresses: a copy would drive the original simulation or read arrays that
    # follow no data. Refused (a deep copy failed before only by chance, on a node schema's mappingproxy).
    pytest.importorskip("numba")
    sim = load(project(SENSORS))
    robot = sim.robot("r")
    for name in ("accelerometer", "gyro", "inertial unit", "distance sensor"):
        robot.getDevice(name).enable(8)
    for _ in range(3):
        robot.step(8)
    batch = sim.banks["gyro"].context.shared["motion_batch"]
    assert any(call is not None for call in batch._calls.values())  # a fused call packed over the data's views
    copier = {"deepcopy": copy.deepcopy, "copy": copy.copy, "pickle": pickle.dumps}[how]
    targets = [sim, batch, *sim.banks.values()]
    if how != "copy":  # what holds them (a core device, a container) is refused as deep copies reach them
        targets += [sim.banks["gyro"].core(0), {"banks": sim.banks}]
    for target in targets:
        with pytest.raises(NotCopyableError, match="belongs to one running simulation"):
            copier(target)
    robot.step(8)  # the simulation runs on
    assert sim.step_count == 4
