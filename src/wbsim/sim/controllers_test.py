"""Controllers run as in Webots: found by name, isolated from each other, crashes contained."""

from __future__ import annotations

import os
import sys

import pytest

from wbsim.api.robot import Robot
from wbsim.errors import ControllerError

TWO_ROBOTS = """
WorldInfo { basicTimeStep 10 }
Robot { name "a" controller "counter" controllerArgs [ "--tag" "alpha" ] }
Robot { name "b" controller "counter" controllerArgs [ "--tag" "beta" ] }
"""
COUNTER = """
import os, sys
from controller import Robot
import helper

robot = Robot()
helper.hits += 1
with open(os.path.join(os.getcwd(), f"{robot.getName()}.txt"), "w") as out:
    out.write(f"{sys.argv!r}|{__name__}|{helper.hits}\\n")
while robot.step(10) != -1:
    helper.hits += 1
    if helper.hits == 5:
        with open(f"{robot.getName()}-5.txt", "w") as out:
            out.write(str(robot.getTime()))
"""
HELPER = "hits = 0\n"


def test_controllers_are_found_and_get_args_cwd_and_private_modules(project, load, tmp_path):
    path = project(TWO_ROBOTS, controllers={"counter": COUNTER}, files={"controllers/counter/helper.py": HELPER})
    sim = load(path)
    sys.modules.pop("helper", None)
    cwd, argv = os.getcwd(), list(sys.argv)
    sim.run(0.1)
    folder = tmp_path / "controllers" / "counter"
    a = (folder / "a.txt").read_text().strip().split("|")
    b = (folder / "b.txt").read_text().strip().split("|")
    assert a[0] == repr(["counter.py", "--tag", "alpha"])
    assert b[0] == repr(["counter.py", "--tag", "beta"])
    assert a[1] == b[1] == "__main__"
    # Each robot has its own copy of helper.py: both counted their first hit as 1.
    assert a[2] == b[2] == "1"
    # Both reach 5 hits at the same simulated time (4 steps of 10 ms after the first), independently.
    assert (folder / "a-5.txt").read_text() == (folder / "b-5.txt").read_text() == "0.04"
    # Nothing leaks into the importing process or its working directory.
    assert "helper" not in sys.modules
    assert os.getcwd() == cwd and sys.argv == argv


def test_a_crashing_controller_prints_its_traceback_and_only_it_stops(project, load, capfd):
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "bad" controller "crasher" }
    Robot { name "good" controller "steady" supervisor TRUE }
    """
    crasher = """
    from controller import Robot
    robot = Robot()
    robot.step(20)
    def deep():
        raise ValueError("boom at 20 ms")
    deep()
    """
    steady = """
    from controller import Supervisor
    robot = Supervisor()
    while robot.step(10) != -1:
        if robot.getTime() >= 0.1:
            robot.simulationQuit(0)
    """
    sim = load(project(world, controllers={"crasher": crasher, "steady": steady}))
    status = sim.run()
    err = capfd.readouterr().err
    assert "Controller 'crasher' of robot 'bad' crashed:" in err
    assert "Traceback (most recent call last):" in err and "ValueError: boom at 20 ms" in err and "deep()" in err
    assert status == 0 and sim.time_s == pytest.approx(0.1)
    bad = next(r for r in sim.robots if r.name == "bad").controller
    assert bad.finished and bad.crashed


def test_robot_keeps_last_commands_after_its_controller_exits(project, load):
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot {
      name "spinner"
      controller "once"
      children [ HingeJoint { jointParameters HingeJointParameters { axis 0 0 1 }
                 device [ RotationalMotor { name "m" maxTorque 100 } ]
                 endPoint Solid { physics Physics {} boundingObject Box { size 0.1 0.1 0.1 } } } ]
    }
    """
    once = """
    from controller import Robot
    robot = Robot()
    m = robot.getDevice("m")
    m.setPosition(float("inf"))
    m.setVelocity(2.0)
    robot.step(10)
    """
    sim = load(project(world, controllers={"once": once}))
    sim.run(0.5)
    dof = sim.bindings.devices["motor"][0].joint.dof_adr
    assert sim.data.qvel[dof] == pytest.approx(2.0, rel=1e-3)


def test_close_gives_minus_one_to_waiting_controllers_which_can_clean_up(project, load, tmp_path):
    world = 'WorldInfo { basicTimeStep 10 }\nRobot { name "r" controller "cleanup" }'
    cleanup = """
    from controller import Robot
    robot = Robot()
    while robot.step(10) != -1:
        pass
    open("cleaned.txt", "w").write("bye")
    """
    sim = load(project(world, controllers={"cleanup": cleanup}))
    sim.run(0.05)
    sim.close()
    assert (tmp_path / "controllers" / "cleanup" / "cleaned.txt").read_text() == "bye"


def test_stepping_again_after_minus_one_ends_the_controller(project, load):
    world = 'WorldInfo { basicTimeStep 10 }\nRobot { name "r" controller "stubborn" supervisor TRUE }'
    stubborn = """
    from controller import Supervisor
    robot = Supervisor()
    robot.step(10)
    robot.simulationQuit(3)
    assert robot.step(10) == -1
    robot.step(10)  # Webots exits the controller here
    raise RuntimeError("not reached")
    """
    sim = load(project(world, controllers={"stubborn": stubborn}))
    assert sim.run() == 3
    process = sim.robots[0].controller
    sim.close()
    assert process.finished and not process.crashed and process.exit_status == 0


def test_sys_exit_in_controller_is_a_clean_end(project, load):
    world = 'WorldInfo { basicTimeStep 10 }\nRobot { name "r" controller "quitter" }'
    quitter = """
    import sys
    from controller import Robot
    robot = Robot()
    robot.step(30)
    sys.exit(0)
    """
    sim = load(project(world, controllers={"quitter": quitter}))
    sim.run()
    process = sim.robots[0].controller
    assert process.finished and not process.crashed and sim.step_count == 3


def test_missing_controller_is_an_error_naming_the_expected_path(project, load):
    path = project('Robot { name "r" controller "ghost" }', files={"controllers/ghost/ghost.c": "int main(){}"})
    with pytest.raises(ControllerError) as info:
        load(path)
    message = str(info.value)
    assert "ghost.py" in message and "ghost.c" in message and "only Python controllers" in message


def test_missing_controller_can_be_downgraded_to_a_warning(project, load, capfd):
    sim = load(project('Robot { name "r" controller "ghost" }'), missing_controller="warn")
    assert sim.robots[0].controller is None
    assert 'controller "ghost" not found' in capfd.readouterr().err


def test_robot_constructor_outside_a_controller_explains_what_to_do():
    with pytest.raises(ControllerError, match=r"sim\.robot"):
        Robot()


def test_start_controllers_false_runs_none(project, load):
    path = project('Robot { name "r" controller "counter" }', controllers={"counter": COUNTER},
                   files={"controllers/counter/helper.py": HELPER})
    sim = load(path, start_controllers=False)
    assert sim.robots[0].controller is None
    sim.run(0.05)


def test_libraries_added_to_sys_path_are_private_and_sys_path_does_not_leak(project, load):
    """Webots projects share code with ``sys.path.append('../../libraries/python')``: in separate processes,
    each controller has its own copy of such modules and its own sys.path."""
    source = """
    import os, sys
    sys.path.append(os.path.join(os.getcwd(), "..", "..", "libraries"))
    from controller import Robot
    import shared
    import pkg.sub
    robot = Robot()
    shared.hits += 1
    pkg.sub.hits += 1
    with open(f"{robot.getName()}.txt", "w") as out:
        out.write(f"{shared.hits} {pkg.sub.hits} {sys.path[0] == os.getcwd()}")
    robot.step(10)
    """
    path = project(TWO_ROBOTS.replace("counter", "lib_user"), controllers={"lib_user": source},
                   files={"libraries/shared.py": "hits = 0\n", "controllers/lib_user/pkg/__init__.py": "",
                          "controllers/lib_user/pkg/sub.py": "hits = 0\n"})
    host_path = list(sys.path)
    sim = load(path)
    sim.run(0.05)
    folder = path.parent.parent / "controllers" / "lib_user"
    assert (folder / "a.txt").read_text() == (folder / "b.txt").read_text() == "1 1 True"
    assert sys.path == host_path
    assert "shared" not in sys.modules and "pkg" not in sys.modules and "pkg.sub" not in sys.modules


def test_keyboard_interrupt_in_a_controller_stops_the_simulation_not_only_it(project, load, capfd):
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "a" controller "interrupted" }
    Robot { name "b" controller "steady" }
    """
    interrupted = """
    from controller import Robot
    robot = Robot()
    robot.step(30)
    raise KeyboardInterrupt  # what a Ctrl-C landing in controller code looks like
    """
    steady = """
    from controller import Robot
    robot = Robot()
    while robot.step(10) != -1:
        pass
    """
    cwd, argv = os.getcwd(), list(sys.argv)
    sim = load(project(world, controllers={"interrupted": interrupted, "steady": steady}))
    with pytest.raises(KeyboardInterrupt):
        sim.run(1.0)
    assert sim.step_count == 3
    assert "crashed" not in capfd.readouterr().err
    assert os.getcwd() == cwd and sys.argv == argv
    sim.close()
    assert not sim.controllers_running()


# -- misbehaving controllers (issue 15): a bounded end, their own streams, exits reported as Webots does ---------

SWALLOWER = """
from controller import Robot
robot = Robot()
calls = 0
while True:
    try:
        robot.step(10)
    except:  # noqa: E722 - swallows the SystemExit that ends the controller after -1
        pass
    calls += 1
"""


def test_a_controller_swallowing_its_end_is_still_ended_when_the_run_closes(project, load, capfd):
    world = 'WorldInfo { basicTimeStep 10 }\nRobot { name "r" controller "swallower" }'
    sim = load(project(world, controllers={"swallower": SWALLOWER}))
    sim.run(0.05)
    process = sim.robots[0].controller
    sim.close()  # used to spin forever: step() kept raising the SystemExit the controller kept catching
    assert process.finished and process.abandoned and process.exit_status == 0 and not process.crashed
    assert "'swallower' controller of robot 'r': forced termination" in capfd.readouterr().err


def test_cli_run_with_a_swallowing_controller_returns(project, capsys):
    from wbsim.cli.main import main

    path = project('WorldInfo { basicTimeStep 10 }\nRobot { name "r" controller "swallower" }',
                   controllers={"swallower": SWALLOWER})
    assert main(["run", str(path), "--duration", "0.1", "--no-progress"]) == 0
    assert "forced termination" in capsys.readouterr().err


def test_ctrl_c_while_closing_gives_the_interrupted_message_and_130(project, capsys):
    from wbsim.cli.main import main

    # Ctrl-C landing in a controller's cleanup code (its finally block, run by close()).
    path = project('WorldInfo { basicTimeStep 10 }\nRobot { name "r" controller "slowend" }', controllers={"slowend": """
    from controller import Robot
    robot = Robot()
    try:
        while robot.step(10) != -1:
            pass
    finally:
        raise KeyboardInterrupt
    """})
    assert main(["run", str(path), "--duration", "0.05", "--no-progress"]) == 130
    err = capsys.readouterr().err
    assert "wbsim: interrupted while closing at t = 0.050 s" in err and "Traceback" not in err


def test_a_controller_replacing_its_streams_silences_only_itself(project, load, capfd):
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "quiet" controller "quiet" }
    Robot { name "loud" controller "loud" }
    """
    quiet = """
    import io, sys
    from controller import Robot
    robot = Robot()
    sys.stdout = io.StringIO()
    sys.stderr = io.StringIO()
    while robot.step(10) != -1:
        print("quiet out")
        print("quiet err", file=sys.stderr)
    """
    loud = """
    import sys
    from controller import Robot
    robot = Robot()
    for i in range(3):
        robot.step(10)
        print(f"loud {i}")
        print(f"loud err {i}", file=sys.stderr)
    """
    stdout, stderr = sys.stdout, sys.stderr
    sim = load(project(world, controllers={"quiet": quiet, "loud": loud}))
    sim.run(0.05)
    print("host still prints")
    out, err = capfd.readouterr()
    assert out.splitlines() == ["loud 0", "loud 1", "loud 2", "host still prints"]
    assert err.splitlines() == ["loud err 0", "loud err 1", "loud err 2"]
    assert sys.stdout is stdout and sys.stderr is stderr
    # The controller keeps its own streams across steps: what it printed is in its StringIO.
    own_out, own_err = sim.robots[0].controller.own_streams
    assert own_out.getvalue().count("quiet out") == 4 and own_err.getvalue().count("quiet err") == 4  # 5 steps


def test_what_controllers_share_in_one_process_is_as_documented(project, load):
    # docs/differences.md, "What controllers share": one interpreter, so builtins and the attributes of
    # modules the host imported are shared (separate Webots processes would not share them); a module from a
    # controller's own folder is private to it. This pins the documented limit: if it changes, update the row.
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "writer" controller "writer" }
    Robot { name "reader" controller "reader" }
    """
    writer = """
    import builtins, json
    from controller import Robot
    import helper
    robot = Robot()
    builtins.wbsim_shared_probe = "from writer"
    json.wbsim_shared_probe = "from writer"
    helper.VALUE = "changed by writer"
    robot.step(10)
    """
    reader = """
    import builtins, json
    from controller import Robot
    import helper
    robot = Robot()
    robot.step(10)
    robot.step(10)
    robot.setCustomData(" ".join([getattr(builtins, "wbsim_shared_probe", "-"),
                                  getattr(json, "wbsim_shared_probe", "-"), helper.VALUE]))
    """
    path = project(world, controllers={"writer": writer, "reader": reader})
    for name in ("writer", "reader"):
        (path.parent.parent / "controllers" / name / "helper.py").write_text('VALUE = "own"\n')
    sim = load(path)
    try:
        sim.run(0.05)
        assert sim.robot("reader").getCustomData() == "from writer from writer own"
    finally:
        import builtins
        import json

        for module in (builtins, json):
            if hasattr(module, "wbsim_shared_probe"):
                delattr(module, "wbsim_shared_probe")
        sim.close()


@pytest.mark.parametrize(("call", "status"), [("sys.exit(3)", 3), ("os._exit(5)", 5), ("sys.exit(0)", 0)])
def test_exits_end_only_that_controller_and_non_zero_statuses_are_reported(project, load, capfd, call, status):
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "leaver" controller "leaver" }
    Robot { name "stayer" controller "stayer" }
    """
    leaver = f"""
    import os, sys
    from controller import Robot
    robot = Robot()
    robot.step(20)
    try:
        {call}
    finally:
        print("finally ran")
    """
    stayer = """
    from controller import Robot
    robot = Robot()
    while robot.step(10) != -1:
        pass
    """
    sim = load(project(world, controllers={"leaver": leaver, "stayer": stayer}))
    sim.run(0.1)
    leaving, staying = (r.controller for r in sim.robots)
    assert leaving.finished and leaving.exit_status == status and not leaving.crashed
    assert not staying.finished and sim.step_count == 10  # the run went on for the other robot
    out, err = capfd.readouterr()
    reported = [line for line in err.splitlines() if "exited with status" in line]
    assert reported == ([f"WARNING: 'leaver' controller exited with status: {status}."] if status else [])
    # os._exit ends the process at once: no finally block runs; sys.exit unwinds normally.
    assert ("finally ran" in out) == call.startswith("sys.exit")
    assert os._exit.__module__ in ("posix", "nt")  # the real one is back


def test_a_controller_name_too_long_for_the_file_system_is_a_controller_error(project, load):
    name = "c" * 3000
    with pytest.raises(ControllerError, match=f'controller "{name}" cannot be looked up at .*File name too long'):
        load(project(f'Robot {{ name "r" controller "{name}" }}'))


WANDERER = """
import os
from controller import Robot
robot = Robot()
seen = []
while robot.step(10) != -1 and len(seen) < 4:
    seen.append(os.path.basename(os.getcwd()))
    os.chdir("..")  # a controller may change directory: its next step still starts in its own folder
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "seen.txt"), "w") as out:
    out.write(" ".join(seen))
""".replace('"seen.txt"', '"seen_" + robot.getName() + ".txt"')


def test_each_controller_steps_in_its_own_folder_and_the_host_keeps_its_directory(project, load, tmp_path):
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "a" controller "wanderer" }
    Robot { name "b" controller "wanderer" }
    Robot { name "c" controller "other" }
    """
    # a and b share a folder: b runs right after a has left it, and must still start there.
    path = project(world, controllers={"wanderer": WANDERER, "other": WANDERER})
    sim = load(path)
    host = os.getcwd()
    for _ in range(6):
        sim.step()
        assert os.getcwd() == host  # between steps, the host's directory
    for folder, name in (("wanderer", "a"), ("wanderer", "b"), ("other", "c")):
        assert (tmp_path / "controllers" / folder / f"seen_{name}.txt").read_text() == " ".join([folder] * 4)


def test_robots_of_one_script_share_its_code_and_a_changed_file_runs_its_new_text(project, load, tmp_path):
    """The script is compiled once per simulation and text: its robots run one code object (each in its own
    namespace); a controller started again after its file changed runs the new text."""
    source = """
    import sys
    from controller import Robot
    robot = Robot()
    robot.setCustomData(f"{VERSION} {id(sys._getframe().f_code)} {id(globals())}")
    while robot.step(10) != -1:
        pass
    """
    world = 'WorldInfo { basicTimeStep 10 }\nRobot { name "a" controller "shared" }\nRobot { name "b" controller "shared" }'
    sim = load(project(world, controllers={"shared": source.replace("VERSION", "1")}))
    sim.run(0.02)
    a, b = (robot.custom_data.split() for robot in sim.robots)
    assert a[0] == b[0] == "1" and a[1] == b[1] and a[2] != b[2]
    script = tmp_path / "controllers" / "shared" / "shared.py"
    script.write_text(script.read_text().replace("{1}", "{2}").replace('f"1 ', 'f"2 '))
    assert sim.restart_controller(sim.robots[0])
    sim.run(0.02)
    again = sim.robots[0].custom_data.split()
    assert again[0] == "2" and again[1] != a[1]


def test_each_controller_has_its_own_argv_and_path_every_step_and_the_host_gets_its_own_objects_back(
        project, load, tmp_path):
    """In a controllers phase the host's sys.argv and sys.path come back once, after the last turn: each controller
    still steps with its own (its folder first, its controllerArgs, what it appended to either, as a process keeps
    them), and the host finds its very lists again, after step() and after run()."""
    source = """
    import json, os, sys
    from controller import Robot
    robot = Robot()
    seen = []
    while robot.step(10) != -1 and len(seen) < 6:
        sys.argv.append(str(len(seen)))
        seen.append([sys.argv[1:], os.path.basename(sys.path[0]), sum(p.endswith("controllers/" + n) for p in sys.path
                     for n in ("alpha", "beta"))])
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), robot.getName() + ".json"), "w") as out:
        json.dump(seen, out)
    """
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "a" controller "alpha" controllerArgs [ "--tag" "a" ] }
    Robot { name "b" controller "beta" controllerArgs [ "--tag" "b" ] }
    """
    sim = load(project(world, controllers={"alpha": source, "beta": source}))
    argv, path = sys.argv, sys.path
    sim.step()
    sim.step()
    assert sys.argv is argv and sys.path is path
    sim.run(0.1)
    assert sys.argv is argv and sys.path is path and "--tag" not in sys.argv
    import json

    for name, folder in (("a", "alpha"), ("b", "beta")):
        seen = json.loads((tmp_path / "controllers" / folder / f"{name}.json").read_text())
        assert seen == [[["--tag", name, *map(str, range(k + 1))], folder, 1] for k in range(6)]


def test_a_controller_started_again_in_a_phase_gets_the_hosts_path_after_its_own_folder(project, load, tmp_path):
    """A controller's first turn in a controllers phase builds its sys.path from the host's, though the previous
    turn's controller's path is in place then (the phase restores the host's only at its end)."""
    source = """
    import os, sys
    from controller import Robot
    robot = Robot()
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), robot.getName() + ".txt"), "a") as out:
        out.write(repr([os.path.basename(p) for p in sys.path if "controllers" in p]) + "\\n")
    while robot.step(10) != -1:
        pass
    """
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "a" controller "alpha" }
    Robot { name "b" controller "beta" }
    """
    sim = load(project(world, controllers={"alpha": source, "beta": source}))
    sim.run(0.03)
    assert sim.restart_controller(sim.robots[1])
    sim.run(0.03)  # b's first turn comes right after a's, whose path is still sys.path
    starts = (tmp_path / "controllers" / "beta" / "b.txt").read_text().splitlines()
    assert starts == ["['beta']", "['beta']"]


def test_run_keeps_the_controllers_folder_from_step_to_step_and_gives_the_host_its_directory_back(
        project, load, tmp_path, monkeypatch):
    """run() with nothing of the caller's between steps leaves the controllers' bracket open: controllers of one
    folder cost no directory change per step (two in all: into their folder, back to the host's at the end); each
    still starts every step in its own folder (they wander off with chdir); with on_step, the host's directory is
    back at every on_step call."""
    from wbsim.sim import controllers

    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "a" controller "wanderer" }
    Robot { name "b" controller "wanderer" }
    """
    sim = load(project(world, controllers={"wanderer": WANDERER.replace("len(seen) < 4", "len(seen) < 30")}))
    host = os.getcwd()
    changes: list[str] = []
    real = controllers._OS_CHDIR

    def counting(path: object) -> None:
        changes.append(os.fspath(path))  # type: ignore[arg-type]
        real(path)  # type: ignore[arg-type]

    monkeypatch.setattr(controllers, "_OS_CHDIR", counting)
    sim.run(0.4)  # 40 steps; each wanderer wanders 30 times, then writes what it saw and ends
    assert os.getcwd() == host and os.chdir.__module__ in ("posix", "nt", "os")
    folder = str(tmp_path / "controllers" / "wanderer")
    # The wanderers' own chdir("..") go through os.chdir (counted below it). The bracket's changes: into their
    # folder at each of their 31 turns that follows the host's directory or a wandering (all but b's last, after
    # a ended in the folder), back to the host's once.
    assert changes.count("..") == 60 and changes.count(folder) == 61 and changes.count(host) == 1
    assert changes[-1] == host and len(changes) == 122
    for name in ("a", "b"):
        assert (tmp_path / "controllers" / "wanderer" / f"seen_{name}.txt").read_text() == " ".join(["wanderer"] * 30)
    seen_by_host: list[str] = []
    sim.run(0.05, on_step=lambda s: seen_by_host.append(os.getcwd()))
    assert seen_by_host == [host] * 5


def test_run_with_a_quiet_controller_changes_directory_twice(project, load, tmp_path, monkeypatch):
    """A controller that stays in its folder: run() changes directory into it once and back once, however many
    steps (a step() loop pays the two changes per step)."""
    from wbsim.sim import controllers

    quiet = """
    from controller import Robot
    robot = Robot()
    while robot.step(10) != -1:
        pass
    """
    sim = load(project('WorldInfo { basicTimeStep 10 }\nRobot { name "a" controller "quiet" }',
                       controllers={"quiet": quiet}))
    changes: list[object] = []
    real = controllers._OS_CHDIR
    monkeypatch.setattr(controllers, "_OS_CHDIR", lambda path: (changes.append(path), real(path)))
    sim.run(0.5)
    assert len(changes) == 2 and sim.step_count == 50
    sim.step()
    sim.step()
    assert len(changes) == 6


def test_a_controller_changing_directory_with_fchdir_still_steps_in_its_own_folder(project, load, tmp_path):
    fchdir = WANDERER.replace('os.chdir("..")', 'fd = os.open("..", os.O_RDONLY); os.fchdir(fd); os.close(fd)')
    path = project('WorldInfo { basicTimeStep 10 }\nRobot { name "a" controller "wanderer" }',
                   controllers={"wanderer": fchdir})
    sim = load(path)
    host = os.getcwd()
    for _ in range(6):
        sim.step()
        assert os.getcwd() == host
    assert os.chdir is not None and os.chdir.__module__ in ("posix", "nt", "os")  # the host's os.chdir is back
    assert (tmp_path / "controllers" / "wanderer" / "seen_a.txt").read_text() == " ".join(["wanderer"] * 4)


@pytest.mark.parametrize("action", ["restartController()", "remove()"])
def test_a_nested_turn_leaves_the_outer_controller_in_its_folder_with_its_modules_and_exit(project, load, tmp_path,
                                                                                              monkeypatch, action):
    """A controller's turn runs inside another's when a supervisor restarts (or removes) a robot whose
    controller already ran: its pending ``step`` ends inside the supervisor's turn (the worker's ``finally``
    here changes directory and imports its own module). Afterwards the supervisor is still in its own folder,
    finds its own private module, and its ``os._exit`` still ends only it."""
    worker = """
    import os
    from controller import Robot
    robot = Robot()
    with open("starts.txt", "a") as out:
        out.write(os.path.basename(os.getcwd()) + " ")
    try:
        while robot.step(10) != -1:
            pass
    finally:
        import worker_helper
        os.chdir("..")
    """
    boss = """
    import os
    from controller import Supervisor
    supervisor = Supervisor()
    supervisor.step(30)
    supervisor.getFromDef("W").ACTION
    import boss_helper
    with open("after.txt", "w") as out:
        out.write(os.path.basename(os.getcwd()) + " " + boss_helper.NAME)
    os._exit(4)
    """
    world = ('WorldInfo { basicTimeStep 10 }\nDEF W Robot { name "w" controller "worker" }\n'
             'Robot { name "boss" controller "boss" supervisor TRUE }')
    path = project(world, controllers={"worker": worker, "boss": boss.replace("ACTION", action)},
                   files={"controllers/worker/worker_helper.py": "NAME = 'worker'\n",
                          "controllers/boss/boss_helper.py": "NAME = 'boss'\n"})
    sim = load(path)
    host = os.getcwd()
    host_exits: list[int] = []
    monkeypatch.setattr(os, "_exit", host_exits.append)  # the host's os._exit: must not be reached
    for _ in range(8):
        sim.step()
        assert os.getcwd() == host
    assert host_exits == [] and os._exit == host_exits.append
    assert (tmp_path / "controllers" / "boss" / "after.txt").read_text() == "boss boss"
    restarted = action == "restartController()"
    assert (tmp_path / "controllers" / "worker" / "starts.txt").read_text() == "worker " * (1 + restarted)
    # The finder served the supervisor's import after the nested turn: its module stayed private.
    assert "boss_helper" not in sys.modules and "worker_helper" not in sys.modules
    boss_robot = next(r for r in sim.robots if r.controller_name == "boss")
    assert boss_robot.controller.finished and boss_robot.controller.exit_status == 4
    workers = [r for r in sim.robots if r.controller_name == "worker"]
    assert (len(workers) == 1 and not workers[0].controller.finished) if restarted else not workers
    assert sim._finder.active is None


def test_a_nested_turn_inside_a_controller_whose_folder_was_removed_goes_on(project, load, tmp_path):
    """The supervisor sits in a folder it made and then removed when it restarts a robot (a nested turn): it
    goes on in that removed folder (as a process would), not in the worker's, and without an error."""
    worker = """
    from controller import Robot
    robot = Robot()
    while robot.step(10) != -1:
        pass
    """
    boss = """
    import os
    from controller import Supervisor
    supervisor = Supervisor()
    home = os.getcwd()
    supervisor.step(30)
    os.mkdir("gone")
    os.chdir("gone")
    os.rmdir(os.path.join(home, "gone"))
    supervisor.getFromDef("W").restartController()
    try:
        os.getcwd()
        where = "elsewhere"
    except FileNotFoundError:
        where = "in the removed folder"
    with open(os.path.join(home, "after.txt"), "w") as out:
        out.write("went on " + where)
    while supervisor.step(10) != -1:
        pass
    """
    world = ('WorldInfo { basicTimeStep 10 }\nDEF W Robot { name "w" controller "worker" }\n'
             'Robot { name "boss" controller "boss" supervisor TRUE }')
    sim = load(project(world, controllers={"worker": worker, "boss": boss}))
    host = os.getcwd()
    for _ in range(8):
        sim.step()
        assert os.getcwd() == host
    assert (tmp_path / "controllers" / "boss" / "after.txt").read_text() == "went on in the removed folder"
    boss_robot = next(r for r in sim.robots if r.controller_name == "boss")
    assert not boss_robot.controller.finished and not sim.failed


def test_robot_step_in_a_controller_odd_durations_and_the_end(project, load, tmp_path):
    """``Robot.step`` called by a controller (the fast paths of Robot.step and RobotRuntime.step) gives the
    same as every other path: repeats of a duration, 0 (no time passes), a duration that is not a multiple of
    the basic step (rounded up), a negative one (ControllerError), a float (ctypes' error; the next int call
    still counts right), True (1 ms: one basic step), no argument (the basic step), then -1 once the
    simulation ends and SystemExit at a further step."""
    source = """
    import ctypes
    from controller import Robot
    from wbsim.errors import ControllerError
    robot = Robot()
    seen = []
    def note(value):
        seen.append(f"{value}@{round(robot.getTime() * 1000)}")
    note(robot.step(8)); note(robot.step(8)); note(robot.step(0)); note(robot.step(12)); note(robot.step(12))
    try:
        robot.step(-5)
    except ControllerError:
        seen.append("negative")
    try:
        robot.step(12.0)
    except ctypes.ArgumentError:
        seen.append("float")
    note(robot.step(12)); note(robot.step(True)); note(robot.step(True)); note(robot.step())
    note(robot.step(8))
    with open("seen.txt", "w") as out:
        out.write(" ".join(seen))
    result = 0
    while result != -1:
        result = robot.step(8)
        assert result in (0, -1)
    with open("end.txt", "w") as out:
        out.write(str(result))
    try:
        robot.step(8)
    except SystemExit:
        with open("exit.txt", "w") as out:
            out.write("exit")
        raise
    """
    sim = load(project('WorldInfo { basicTimeStep 8 }\nRobot { name "a" controller "odd" }',
                       controllers={"odd": source}))
    for _ in range(20):
        sim.step()
    folder = tmp_path / "controllers" / "odd"
    assert (folder / "seen.txt").read_text() == (
        "0@8 0@16 0@16 0@32 0@48 negative float 0@64 0@72 0@80 0@88 0@96")
    sim.quit(0)
    sim.close()
    assert (folder / "end.txt").read_text() == "-1" and (folder / "exit.txt").read_text() == "exit"


def test_controllers_that_crash_exit_finish_or_chdir_leave_the_others_in_their_folders(project, load, tmp_path,
                                                                                         capfd):
    """In one controllers phase (one bracket), controllers in four folders: one raises, one calls
    ``sys.exit``, one calls ``os._exit``, one finishes, each at a different step, between wanderers that
    change directory. The others start every step in their own folder; between steps the host has its own
    directory and its own ``os.chdir`` / ``os.fchdir`` / ``os._exit``; a KeyboardInterrupt out of a
    controller leaves them the host's too."""
    ender = """
    import os, sys
    from controller import Robot
    robot = Robot()
    how = {"a": "raise", "b": "sys.exit", "c": "os._exit", "d": "finish"}[robot.getName()]
    for _ in range({"a": 1, "b": 2, "c": 3, "d": 4}[robot.getName()]):
        robot.step(10)
        os.chdir("/")
    if how == "raise":
        raise RuntimeError("ender failed")
    if how == "sys.exit":
        sys.exit(2)
    if how == "os._exit":
        os._exit(3)
    """
    world = "WorldInfo { basicTimeStep 10 }\n" + "\n".join(
        f'Robot {{ name "{name}" controller "{controller}" }}'
        for name, controller in (("w1", "wanderer"), ("a", "ender"), ("w2", "other"), ("b", "ender"),
                                 ("c", "ender"), ("w3", "wanderer"), ("d", "ender")))
    sim = load(project(world, controllers={"wanderer": WANDERER, "other": WANDERER, "ender": ender}))
    host = os.getcwd()
    host_functions = (os.chdir, os.fchdir, os._exit)
    for _ in range(6):
        sim.step()
        assert os.getcwd() == host and (os.chdir, os.fchdir, os._exit) == host_functions
    statuses = {r.node["name"]: r.controller.exit_status for r in sim.robots if r.controller_name == "ender"}
    assert statuses == {"a": 1, "b": 2, "c": 3, "d": 0}
    for folder, name in (("wanderer", "w1"), ("other", "w2"), ("wanderer", "w3")):
        assert (tmp_path / "controllers" / folder / f"seen_{name}.txt").read_text() == " ".join([folder] * 4)
    assert "ender failed" in capfd.readouterr().err
    interrupted = load(project('WorldInfo { basicTimeStep 10 }\nRobot { name "i" controller "stop" }',
                               controllers={"stop": "from controller import Robot\nrobot = Robot()\n"
                                                    "import os\nos.chdir('/')\nraise KeyboardInterrupt\n"},
                               world_name="interrupted.wbt"))
    with pytest.raises(KeyboardInterrupt):
        interrupted.step()
    assert os.getcwd() == host and (os.chdir, os.fchdir, os._exit) == host_functions


def test_inside_the_phase_bracket_but_between_controllers_os_exit_is_the_hosts(monkeypatch):
    """The controllers phase swaps ``os._exit`` once for all its controllers: between two turns (no
    controller active) a call reaches the host's ``os._exit``; nested brackets change nothing and the outermost
    end gives the host its functions back."""
    from wbsim.sim.controllers import ControllerFinder

    host_exits: list[int] = []
    monkeypatch.setattr(os, "_exit", host_exits.append)
    host_functions = (os.chdir, os.fchdir, os._exit)
    finder = ControllerFinder()
    finder.begin()
    swapped = (os.chdir, os.fchdir, os._exit)
    finder.begin()
    assert (os.chdir, os.fchdir, os._exit) == swapped != host_functions
    os._exit(7)
    finder.end()
    assert (os.chdir, os.fchdir, os._exit) == swapped
    finder.end()
    assert host_exits == [7] and (os.chdir, os.fchdir, os._exit) == host_functions


LAZY_IMPORTER = """
import sys
from controller import Robot

robot = Robot()
seen = []
while robot.step(10) != -1:
    seen.append("helper" in sys.modules and getattr(sys.modules["helper"], "origin", None))
    if len(seen) == 3:
        import helper  # its own helper.py, though the host has one of that name by now
    if len(seen) >= 3:
        seen.append(helper.origin if sys.modules.get("helper") is helper else "not its own")
    with open("seen.txt", "w") as out:
        out.write(repr(seen))
"""


def test_module_swap_skipped_only_while_neither_side_has_the_controllers_names(project, load, tmp_path):
    """The turn skips the swap of the controller's module names only while it has no module of its own and
    sys.modules holds none of its names: a module of such a name that the host imports between turns is still
    taken out for the controller's turns (it imports its own, later), and put back for the host after each."""
    import types

    path = project("WorldInfo { basicTimeStep 10 }\nRobot { controller \"lazy\" }\n",
                   controllers={"lazy": LAZY_IMPORTER},
                   files={"controllers/lazy/helper.py": "origin = 'controller'\n"})
    sim = load(path)
    sys.modules.pop("helper", None)
    host = types.ModuleType("helper")
    host.origin = "host"  # type: ignore[attr-defined]
    try:
        sim.step()
        sim.step()
        assert "helper" not in sys.modules
        sys.modules["helper"] = host  # the host imports a module of the controller's name between turns
        for _ in range(4):
            sim.step()
            assert sys.modules["helper"] is host
        del sys.modules["helper"]
        sim.step()
        assert "helper" not in sys.modules
        sys.modules["helper"] = host
        sim.step()
        assert sys.modules["helper"] is host
    finally:
        sys.modules.pop("helper", None)
    seen = eval((tmp_path / "controllers" / "lazy" / "seen.txt").read_text())  # noqa: S307 - its own file
    # Before its import the controller sees no helper; from its import on, its own in every turn.
    assert seen[:3] == [False, False, False] and len(seen) >= 10, seen
    assert set(seen[3:]) == {"controller"}, seen


STAGGERED = """
from controller import Robot

robot = Robot()
first = 2 if robot.getName() == "early" else 5  # the step at which this robot imports its helper
counts = []
step = 0
while robot.step(10) != -1:
    step += 1
    if step >= first:
        import helper
        helper.hits += 1
        counts.append(helper.hits)
    robot.setCustomData(" ".join(map(str, counts)))
"""


def test_controllers_importing_their_folders_module_at_different_steps_each_get_their_own(project, load):
    """Two robots running the same controller import its helper.py at different steps, in two simulations of
    the same world stepped in turn: while one has no module of its own yet its turns skip the swap, and each
    still gets its own helper (its count starts at 1); the host never sees one."""
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "early" controller "staggered" }
    Robot { name "late" controller "staggered" }
    """
    path = project(world, controllers={"staggered": STAGGERED},
                   files={"controllers/staggered/helper.py": "hits = 0\n"})
    sys.modules.pop("helper", None)
    first, second = load(path), load(path)
    for _ in range(4):
        first.step()
    for _ in range(8):
        second.step()
        first.step()
        assert "helper" not in sys.modules
    # 12 and 8 basic steps: the controllers' step() returned 11 and 7 times.
    assert first.robot("early").getCustomData() == " ".join(map(str, range(1, 11)))
    assert first.robot("late").getCustomData() == " ".join(map(str, range(1, 8)))
    assert second.robot("early").getCustomData() == " ".join(map(str, range(1, 7)))
    assert second.robot("late").getCustomData() == " ".join(map(str, range(1, 4)))


def test_a_suspended_bracket_gives_the_host_its_directory_and_os_functions_until_reopened(tmp_path):
    """ControllerFinder.suspend closes a bracket however deep (host work inside a held run: a world load);
    reopen restores its depth, so the brackets' own ends still match; with no bracket open both do nothing."""
    from wbsim.sim import controllers

    finder = controllers.ControllerFinder()
    host, real_chdir = os.getcwd(), os.chdir
    assert finder.suspend() == 0 and os.chdir is real_chdir
    finder.reopen(0)
    assert os.chdir is real_chdir
    finder.begin()
    finder.begin()
    try:
        finder.working_directory.enter(str(tmp_path))
        depth = finder.suspend()
        assert depth == 2 and os.getcwd() == host and os.chdir is real_chdir and os._exit is controllers._OS_EXIT
        finder.reopen(depth)
        assert os.chdir is not real_chdir
        finder.end()
        assert os.chdir is not real_chdir
    finally:
        finder.end()
    assert os.getcwd() == host and os.chdir is real_chdir


@pytest.mark.parametrize("failure", ["physics", "interrupt", "unbounded"])
def test_run_gives_the_host_its_directory_and_os_functions_back_when_it_raises(project, load, monkeypatch,
                                                                                failure):
    """run() holding the controllers' bracket between steps: a SimulationError out of the physics phase, or a
    KeyboardInterrupt out of a controller's usual turn (with and without a duration), ends it with the host's
    working directory, os.chdir / os.fchdir / os._exit, sys.argv and sys.path back."""
    import mujoco

    from wbsim.errors import SimulationError

    source = """
    import os
    from controller import Robot
    robot = Robot()
    for _ in range(5):
        robot.step(10)
        os.chdir("/")
    while robot.step(10) != -1:
        if INTERRUPT:
            raise KeyboardInterrupt
    """.replace("INTERRUPT", str(failure != "physics"))
    sim = load(project('WorldInfo { basicTimeStep 10 }\nRobot { name "a" controller "failing" }',
                       controllers={"failing": source}))
    host, functions, argv, path = os.getcwd(), (os.chdir, os.fchdir, os._exit), sys.argv, sys.path
    if failure == "physics":
        sim.run(0.1)

        def fatal(*args: object, **kwargs: object) -> None:
            raise mujoco.FatalError("test failure")

        monkeypatch.setattr(mujoco, "mj_step", fatal)
    with pytest.raises(SimulationError if failure == "physics" else KeyboardInterrupt):
        sim.run(None if failure == "unbounded" else 1.0)
    assert os.getcwd() == host and (os.chdir, os.fchdir, os._exit) == functions
    assert sys.argv is argv and sys.path is path


@pytest.mark.parametrize("ending", ["close", "quit by a controller", "quit then resume"])
def test_step_returns_minus_one_when_a_resumption_other_than_the_phase_ends_the_wait(project, load, tmp_path,
                                                                                       ending):
    """The controllers phase resumes a waiting controller with RUNNING (step returns 0 at once); every other
    resumption lets step look at the simulation: close(), a quit by a controller earlier in the same phase (the
    later ones are not resumed in it), resume() after quit(). Steps of changing durations (the full path) in
    between return 0 as well, each after simulated time passed."""
    source = """
    from controller import Supervisor
    robot = Supervisor()
    results = []
    n = 0
    while True:
        n += 1
        result = robot.step(10 if n % 3 else 20)
        results.append(f"{result}@{robot.getTime():.3f}")
        if result == -1:
            break
        if robot.getName() == "a" and QUIT and robot.getTime() >= 0.2:
            robot.simulationQuit(0)
    open(f"results_{robot.getName()}.txt", "w").write(" ".join(map(str, results)))
    """.replace("QUIT", str(ending == "quit by a controller"))
    world = ('WorldInfo { basicTimeStep 10 }\nRobot { name "a" controller "stepper" supervisor TRUE }\n'
             'Robot { name "b" controller "stepper" supervisor TRUE }')
    sim = load(project(world, controllers={"stepper": source}))
    sim.run(0.3)
    if ending == "close":
        sim.close()
    elif ending == "quit then resume":
        sim.quit()
        for robot in sim.robots:
            robot.controller.resume()
    else:
        sim.close()
    for name in ("a", "b"):
        pairs = [entry.split("@") for entry in
                 (tmp_path / "controllers" / "stepper" / f"results_{name}.txt").read_text().split()]
        results, times = [r for r, _ in pairs], [float(t) for _, t in pairs]
        assert results[-1] == "-1" and set(results[:-1]) == {"0"} and len(results) > 5, (name, pairs)
        # Every answer came after simulated time passed (no 0 from the resumption that should have given -1), but
        # the quitter's -1: its step after simulationQuit answers at once.
        quitter = ending == "quit by a controller" and name == "a"
        assert all(a < b for a, b in zip(times[:-1], times[1:-1])), (name, pairs)
        assert times[-1] == times[-2] if quitter else times[-1] > times[-2], (name, pairs)


def test_a_module_or_stream_a_controller_takes_on_a_later_turn_stays_its_own(project, load, tmp_path, capfd,
                                                                               monkeypatch):
    """The usual (inline) turn falls back to the full swap when it must, checked after every controllers phase:
    robots of one controller that import a module of their folder on a later turn get one each and leave none in
    sys.modules; one that replaces sys.stdout on a later turn prints into it alone; a module of a controller's
    name that the host put in sys.modules between turns stays the host's (the controller imports its own)."""
    import types

    from wbsim.sim.phases import Phase

    late = """
    from controller import Robot
    robot = Robot()
    for _ in range(4):
        robot.step(10)
    import latemod
    latemod.count += 1
    for _ in range(3):
        robot.step(10)
    import latemod as again
    again.count += 1
    robot.setCustomData(f"{again.count} {again.__file__}")
    while robot.step(10) != -1:
        pass
    """
    printer = """
    import io, sys
    from controller import Robot
    robot = Robot()
    for _ in range(3):
        robot.step(10)
    capture = sys.stdout = io.StringIO()
    while robot.step(10) != -1:
        print("swallowed")
        robot.setCustomData(str(len(capture.getvalue().split())))
    """
    hosted = late.replace("latemod", "hostmod")
    world = "WorldInfo { basicTimeStep 10 }\n" + "\n".join(
        f'Robot {{ name "{name}" controller "{controller}" }}'
        for name, controller in (("a", "late"), ("b", "late"), ("c", "printer"), ("d", "hosted")))
    sim = load(project(world, controllers={"late": late, "printer": printer, "hosted": hosted},
                       files={"controllers/late/latemod.py": "count = 0\n",
                              "controllers/hosted/hostmod.py": "count = 0\n"}))
    host_module = types.ModuleType("hostmod")
    host_module.count = 100  # type: ignore[attr-defined]
    host_out = sys.stdout
    leaks: list[tuple[int, object, object, bool]] = []

    def check(s: object) -> None:  # nothing of the controllers' left in the host's view
        if ("latemod" in sys.modules or sys.modules.get("hostmod", host_module) is not host_module
                or sys.stdout is not host_out):
            leaks.append((sim.step_count, sys.modules.get("latemod"), sys.modules.get("hostmod"), sys.stdout))

    sim.add_hook(Phase.CONTROLLERS, check)
    sim.run(0.02)  # every robot past its first turn: the usual turn from now on
    monkeypatch.setitem(sys.modules, "hostmod", host_module)  # the host's module of hosted's name, before it imports
    sim.run(0.1)
    assert leaks == [] and sys.modules["hostmod"] is host_module and host_module.count == 100
    for robot, module in zip(sim.robots, ("late/latemod", "late/latemod", None, "hosted/hostmod")):
        if module is not None:
            assert robot.custom_data == f"2 {tmp_path / 'controllers' / module}.py"
    assert int(sim.robots[2].custom_data) >= 5 and "swallowed" not in capfd.readouterr().out


def test_a_controller_script_is_compiled_with_no_future_feature_of_wbsim(project, load):
    """A script runs as ``python <name>.py`` would compile it: no ``from __future__`` feature of wbsim's own
    modules leaks into it (annotations are evaluated, not strings), while its own ``__future__`` imports hold."""
    import textwrap

    plain = """
    from controller import Robot
    def f(x: int) -> None:
        pass
    robot = Robot()
    robot.setCustomData(repr(f.__annotations__["x"]))
    robot.step(10)
    """
    lazy = "from __future__ import annotations\n" + textwrap.dedent(plain)
    sim = load(project('WorldInfo { basicTimeStep 10 }\nRobot { name "a" controller "plain" }\n'
                       'Robot { name "b" controller "lazy" }', controllers={"plain": plain, "lazy": lazy}))
    sim.run(0.02)
    assert [robot.custom_data for robot in sim.robots] == ["<class 'int'>", "'int'"]


def test_robots_sharing_a_script_code_object_share_nothing_they_can_change(project, load, capfd):
    """What robots of one script can change stays theirs although they run one code object: their functions'
    defaults, attributes and globals, class attributes, mutable constants built at run time; a crash's traceback
    names the script's file and line for each."""
    source = """
    import sys
    from controller import Robot

    def remember(item, seen=[]):
        seen.append(item)
        return len(seen)

    class Counter:
        total = 0

    robot = Robot()
    name = robot.getName()
    remember.tag = name
    Counter.total += 1 if name == "a" else 10
    remember(name)
    robot.step(10)
    robot.setCustomData(f"{remember.tag} {remember('again')} {Counter.total} {remember.__defaults__[0]}")
    robot.step(10)
    if name == "b":
        raise RuntimeError("b stops")
    while robot.step(10) != -1:
        pass
    """
    world = 'WorldInfo { basicTimeStep 10 }\nRobot { name "a" controller "shared" }\nRobot { name "b" controller "shared" }'
    path = project(world, controllers={"shared": source})
    sim = load(path)
    sim.run(0.03)
    assert [robot.custom_data for robot in sim.robots] == ["a 2 1 ['a', 'again']", "b 2 10 ['b', 'again']"]
    err = capfd.readouterr().err
    script = path.parent.parent / "controllers" / "shared" / "shared.py"
    assert f'File "{script}", line 21' in err and "RuntimeError: b stops" in err
    assert sim.robots[1].controller.crash[1] == f"{script}:21"


def test_robot_step_keeps_subclass_overrides_and_late_step_hooks(project, load, tmp_path):
    """The API robot's usual ``step`` (RobotRuntime.step's fast path) leaves a subclass's own ``step`` called,
    and a step hook added after the robot was made (as a Radio or a Motion adds theirs) runs at every later
    step."""
    subclass = """
    from controller import Robot
    calls = []
    class Mine(Robot):
        def step(self, duration=None):
            calls.append(duration)
            return super().step(duration)
    robot = Mine()
    for _ in range(3):
        robot.step(8)
    with open("calls.txt", "w") as out:
        out.write(repr(calls))
    """
    hooked = """
    from controller import Robot
    robot = Robot()
    hooks = []
    robot.step(8); robot.step(8)
    robot._add_step_hook(lambda duration: hooks.append((duration, round(robot.getTime() * 1000))))
    robot.step(8); robot.step(8)
    with open("hooks.txt", "w") as out:
        out.write(repr((hooks, robot.step.__name__, robot.step.__doc__ == Robot.step.__doc__)))
    """
    world = ('WorldInfo { basicTimeStep 8 }\nRobot { name "a" controller "subclass" }\n'
             'Robot { name "b" controller "hooked" }')
    sim = load(project(world, controllers={"subclass": subclass, "hooked": hooked}))
    sim.run(0.1)
    assert (tmp_path / "controllers" / "subclass" / "calls.txt").read_text() == "[8, 8, 8]"
    assert (tmp_path / "controllers" / "hooked" / "hooks.txt").read_text() == "([(8, 16), (8, 24)], 'step', True)"


def test_the_finders_note_of_disjoint_names_lasts_only_between_turns_of_one_phase():
    """The usual turn skips its test of sys.modules when the last turn of the phase ended with the same names
    (one shared set per content) seen absent: the note is dropped where other code may run (a new phase, the end
    of one)."""
    from wbsim.sim.controllers import ControllerFinder

    finder = ControllerFinder()
    names = finder.shared_names(frozenset({"helper", "drive"}))
    assert finder.shared_names(frozenset({"drive", "helper"})) is names  # one object per content
    outer = finder.begin_phase()
    try:
        assert finder.disjoint is None
        finder.disjoint = names
        inner = finder.begin_phase()
        assert finder.disjoint is None
        finder.disjoint = names
        finder.end_phase(inner)
        assert finder.disjoint is None
    finally:
        finder.end_phase(outer)


def test_robot_step_introspects_as_a_bound_method_of_the_robot(project, load, tmp_path):
    """The robot's ``step`` is its bound method to whoever inspects it: its signature without ``self``, ``inspect.ismethod``, ``__self__`` the robot, the API's name and doc."""
    source = """
    import inspect
    from controller import Robot
    robot = Robot()
    robot.step(8); robot.step(8)
    times = [robot.step(time_step=8), robot.step(), robot.step(8), robot.getTime()]  # by keyword, by default
    step = robot.step
    with open("seen.txt", "w") as out:
        out.write(repr((str(inspect.signature(step)), inspect.ismethod(step), step.__self__ is robot,
                        step.__name__, step.__doc__ == Robot.step.__doc__, step == robot.step, times)))
    """
    world = 'WorldInfo { basicTimeStep 8 }\nRobot { name "a" controller "intro" }'
    sim = load(project(world, controllers={"intro": source}))
    sim.run(0.05)
    assert (tmp_path / "controllers" / "intro" / "seen.txt").read_text() == (
        "(\"(time_step: 'int | None' = None) -> 'int'\", True, True, 'step', True, True, [0, 0, 0, 0.04])")


@pytest.mark.parametrize("when", ["before", "between runs"])
def test_robot_step_patched_on_the_class_is_called_at_every_step(project, load, tmp_path, monkeypatch, when):
    """``Robot.step`` replaced on the class (a test wrapping it to count steps), before the controller makes its
    robot or between two runs, is what every later ``robot.step`` calls, as for any method."""
    source = """
    from controller import Robot
    robot = Robot()
    while robot.step(8) != -1:
        pass
    """
    world = 'WorldInfo { basicTimeStep 8 }\nRobot { name "a" controller "plain" }'
    sim = load(project(world, controllers={"plain": source}))
    original = Robot.step
    calls: list[object] = []

    def counted(self, time_step=None):  # noqa: ANN001, ANN202
        calls.append(time_step)
        return original(self, time_step)

    if when == "before":
        monkeypatch.setattr(Robot, "step", counted)
        sim.run(0.08)
        assert calls == [8] * 10
    else:
        sim.run(0.04)
        monkeypatch.setattr(Robot, "step", counted)
        sim.run(0.04)
        assert calls == [8] * 5


def test_a_full_path_turn_between_two_controllers_of_one_folder_makes_the_next_test_sys_modules(
        project, load, tmp_path, monkeypatch):
    """The usual turn skips its test of sys.modules after a turn of a controller with the same names
    (ControllerFinder.disjoint) only if no other code ran in between: a turn on the full path between them (here a
    controller with its own stdout) may import a host module of those names, which the next one must not see."""
    shared = """
    import sys
    from controller import Robot
    robot = Robot()
    k = 0
    while robot.step(10) != -1:
        k += 1
        if k == 3 and sys.argv[1] == "probe":
            import helper
            with open("origin.txt", "w") as out:
                out.write(helper.ORIGIN)
    """
    loner = """
    import os, sys
    from controller import Robot
    robot = Robot()
    sys.stdout = open(os.devnull, "w")  # its own stream: every later turn takes the full path
    k = 0
    while robot.step(10) != -1:
        k += 1
        if k == 3:
            import helper  # the host's module of that name (not in its folder)
    """
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "a" controller "shared" controllerArgs [ "quiet" ] }
    Robot { name "x" controller "loner" }
    Robot { name "c" controller "shared" controllerArgs [ "probe" ] }
    """
    path = project(world, controllers={"shared": shared, "loner": loner},
                   files={"controllers/shared/helper.py": "ORIGIN = 'own'\n", "hostlib/helper.py": "ORIGIN = 'host'\n"})
    monkeypatch.syspath_prepend(str(tmp_path / "hostlib"))
    monkeypatch.delitem(sys.modules, "helper", raising=False)
    sim = load(path)
    try:
        sim.run(0.06)
    finally:
        sys.modules.pop("helper", None)
    assert (tmp_path / "controllers" / "shared" / "origin.txt").read_text() == "own"


TWO_PLAIN = 'WorldInfo { basicTimeStep 10 }\nRobot { name "a" controller "plain" }\nRobot { name "b" controller "plain" }'


def _stepping_task_left_suspended(sim, events: list[str]):  # noqa: ANN001, ANN202
    """A greenlet that steps ``sim`` twice, switches back to its caller and stays suspended there (alive, as a
    task of a framework running many) until switched to again, when it notes "task resumed" in ``events``."""
    import greenlet

    main = greenlet.getcurrent()

    def task() -> None:
        sim.step()
        sim.step()
        main.switch()  # suspended here, alive
        events.append("task resumed")

    first = greenlet.greenlet(task)
    first.switch()
    return first


def test_a_simulation_stepped_from_another_greenlet_than_last_time_comes_back_to_its_caller(project, load, tmp_path):
    """The usual turn resumes a controller without setting its parent and resumer only when the greenlet running
    the phase resumed it last: stepped first in a greenlet that is still alive (suspended, as in a framework
    running many tasks), then from another, the controllers switch back to the new caller, never into the old."""
    source = """
    from controller import Robot
    robot = Robot()
    while robot.step(10) != -1:
        pass
    """
    sim = load(project(TWO_PLAIN, controllers={"plain": source}))
    events: list[str] = []
    first = _stepping_task_left_suspended(sim, events)
    sim.run(0.05)
    assert events == [] and sim.step_count == 7
    first.switch()
    assert events == ["task resumed"]


def test_a_robots_own_step_wrapper_stays_when_the_class_step_is_replaced(project, load, monkeypatch):
    """A script that wrapped one robot's ``step`` (its own attribute, calling the bound method it took before)
    keeps its wrapper when ``Robot.step`` is then replaced on the class, and the method it took is the API's own,
    as any bound method taken before the class changed."""
    world = 'WorldInfo { basicTimeStep 8 }\nRobot { name "a" controller "<extern>" }'
    sim = load(project(world))
    robot = sim.robot("a")
    bound = robot.step
    robot.step = lambda time_step=None: ("wrapped", bound(time_step))
    original = Robot.step
    calls: list[object] = []

    def counted(self, time_step=None):  # noqa: ANN001, ANN202
        calls.append(time_step)
        return original(self, time_step)

    monkeypatch.setattr(Robot, "step", counted)
    assert robot.step(8) == ("wrapped", 0) and robot.step(8) == ("wrapped", 0)
    assert calls == [] and sim.step_count == 2
    del robot.step  # the class's from now on
    assert robot.step(8) == 0 and calls == [8] and sim.step_count == 3


def test_a_step_a_subclass_sets_on_its_robot_before_robots_init_stays(project, load, tmp_path):
    """A subclass that gives its robot its own ``step`` attribute before calling ``Robot.__init__`` keeps it
    (``__init__`` sets no ``step`` of its own on the robot)."""
    source = """
    from controller import Robot
    calls = []
    class Mine(Robot):
        def __init__(self):
            self.step = self.counted
            super().__init__()
        def counted(self, duration=None):
            calls.append(duration)
            return Robot.step(self, duration)
    robot = Mine()
    for _ in range(3):
        robot.step(8)
    with open("calls.txt", "w") as out:
        out.write(repr(calls))
    """
    world = 'WorldInfo { basicTimeStep 8 }\nRobot { name "a" controller "mine" }'
    sim = load(project(world, controllers={"mine": source}))
    sim.run(0.05)
    assert (tmp_path / "controllers" / "mine" / "calls.txt").read_text() == "[8, 8, 8]"


def test_step_hooks_added_after_robots_init_ran_again_on_the_robot_run_at_every_step(project, load, tmp_path):
    """``Robot.__init__`` run again on the same robot (a subclass initialising its bases twice) makes a new list of
    step hooks: a hook added after that (as a Radio or a Motion adds theirs) runs at every later step, and the robot's
    ``step`` is still the class's, bound."""
    source = """
    from controller import Robot
    robot = Robot()
    robot.step(8)
    Robot.__init__(robot)  # prints Webots' line about a second Robot on stderr
    hooks = []
    robot._add_step_hook(lambda duration: hooks.append((duration, round(robot.getTime() * 1000))))
    robot.step(8); robot.step(8)
    with open("hooks.txt", "w") as out:
        out.write(repr((hooks, robot.step.__func__ is Robot.step)))
    """
    world = 'WorldInfo { basicTimeStep 8 }\nRobot { name "a" controller "again" }'
    sim = load(project(world, controllers={"again": source}))
    sim.run(0.1)
    assert (tmp_path / "controllers" / "again" / "hooks.txt").read_text() == "([(8, 8), (8, 16)], True)"


@pytest.mark.parametrize("ending", ["return", "interrupt", "exit"])
def test_a_controller_ending_in_a_usual_turn_after_the_caller_changed_greenlets_ends_into_the_new_caller(
        project, load, ending):
    """Stepped first from a greenlet that stays alive, then from another: a controller that ends in a later usual
    turn (its script returns, Ctrl-C, ``os._exit``) hands control to the new caller, the greenlet running the
    phase (the usual turn does not set the parent again: the full-path turn after the change did), never to the
    old one; the run goes on with the other controller (Ctrl-C: it reaches the new caller)."""
    import greenlet

    action = {"return": "break", "interrupt": "raise KeyboardInterrupt", "exit": "os._exit(0)"}[ending]
    source = f"""
    import os
    from controller import Robot
    robot = Robot()
    k = 0
    while robot.step(10) != -1:
        k += 1
        if robot.getName() == "a" and k == 6:
            {action}
    """
    sim = load(project(TWO_PLAIN, controllers={"plain": source}))
    events: list[str] = []
    first = _stepping_task_left_suspended(sim, events)

    def second_caller() -> str:
        try:
            for _ in range(8):
                sim.step()
        except KeyboardInterrupt:
            return f"interrupted at {sim.step_count}"
        return f"ran to {sim.step_count}"

    second = greenlet.greenlet(second_caller)
    outcome = second.switch()
    a, b = (robot.controller for robot in sim.robots)
    assert events == [] and a.finished and not b.finished
    if ending == "interrupt":
        assert outcome == "interrupted at 6"
    else:
        assert outcome == "ran to 10" and b.greenlet.parent is second
    first.switch()
    assert events == ["task resumed"]


SOLO_PUBLISHER = """
import sys
import types
from controller import Robot

robot = Robot()
seen = []
while robot.step(10) != -1:
    seen.append(getattr(sys.modules.get("solo"), "origin", None))
    if len(seen) == 3:  # a module of its script's name, put in sys.modules during its turn
        mine = types.ModuleType("solo")
        mine.origin = "controller"
        sys.modules["solo"] = mine
    with open("seen.txt", "w") as out:
        out.write(repr(seen))
"""


def test_a_module_of_the_scripts_only_name_made_during_a_usual_turn_stays_the_controllers(project, load, tmp_path):
    """A controller whose folder holds only its script (one module name, tested by the usual turn with one
    lookup) puts a module of that name in sys.modules during a usual turn: the host never sees it after the
    turn, and the controller finds it again in its next turns."""
    path = project("WorldInfo { basicTimeStep 10 }\nRobot { controller \"solo\" }\n",
                   controllers={"solo": SOLO_PUBLISHER})
    sim = load(path)
    sys.modules.pop("solo", None)
    try:
        for _ in range(8):
            sim.step()
            assert "solo" not in sys.modules
    finally:
        sys.modules.pop("solo", None)
    seen = eval((tmp_path / "controllers" / "solo" / "seen.txt").read_text())  # noqa: S307 - its own file
    assert seen[:3] == [None, None, None] and set(seen[3:]) == {"controller"} and len(seen) >= 6, seen


SOLO_LIBRARY_USER = """
import os, sys
from controller import Robot

robot = Robot()
for _ in range(3):
    robot.step(10)
sys.path.append(os.path.join(os.getcwd(), "..", "..", "libraries"))
import shared
first = shared
while robot.step(10) != -1:
    import shared
    shared.hits += 1
    robot.setCustomData(f"{shared is first} {shared.hits}")
"""


def test_a_controller_of_one_module_name_importing_from_its_own_path_on_a_later_turn_keeps_the_module(
        project, load):
    """Robots of a controller whose folder holds only its script (one module name: the usual turn's one-lookup
    test) import a module from a sys.path entry of their own on a later, usual turn: their names grow to
    two, the test after that turn sees the new module, and each robot keeps its own copy, never left in
    sys.modules."""
    from wbsim.sim.phases import Phase

    world = "WorldInfo { basicTimeStep 10 }\n" + "\n".join(
        f'Robot {{ name "{name}" controller "solo_lib" }}' for name in ("a", "b"))
    sim = load(project(world, controllers={"solo_lib": SOLO_LIBRARY_USER},
                       files={"libraries/shared.py": "hits = 0\n"}))
    assert [robot.controller.private_names for robot in sim.robots] == [{"solo_lib"}] * 2
    leaks: list[tuple[int, object]] = []

    def check(s: object) -> None:  # the host never sees the controllers' module between their turns
        if "shared" in sys.modules:
            leaks.append((sim.step_count, sys.modules["shared"]))

    sim.add_hook(Phase.CONTROLLERS, check)
    try:
        sim.run(0.1)
    finally:
        sys.modules.pop("shared", None)
    assert leaks == []
    hits = [robot.custom_data for robot in sim.robots]
    assert hits[0] == hits[1] and hits[0].startswith("True ") and int(hits[0].split()[1]) >= 5, hits
