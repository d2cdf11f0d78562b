"""The controllers phase puts the host's sys.argv and sys.path back once per phase (ControllerFinder.begin_phase /
end_phase): what runs between two turns or inside a turn on the full path (_enter/_leave, nested turns, crashes,
exits, interrupts, quit) sees its own lists, and the host gets its own back."""

from __future__ import annotations

import importlib
import io
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from wbsim.sim.phases import Phase

# Each step a probe controller writes its argv (after the script name), the base names of the folders of
# sys.path that lie under controllers/, and whether sys.stdout is the host's (sys.__stdout__ swapped by pytest:
# compared by the marker the test puts on the host's stream).
PROBE = """
import json, os, sys
from controller import Robot
robot = Robot()
log = os.path.join(os.path.dirname(os.path.abspath(__file__)), robot.getName() + ".jsonl")
def note():
    with open(log, "a") as out:
        out.write(json.dumps([sys.argv[1:], [os.path.basename(p) for p in sys.path if "controllers" in str(p)],
                              getattr(sys.stdout, "host_marker", False)]) + "\\n")
note()
while robot.step(10) != -1:
    note()
"""


def _notes(root: Path, folder: str, name: str) -> list[list[object]]:
    lines = (root / "controllers" / folder / f"{name}.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


class _HostStream(io.StringIO):
    host_marker = True


@pytest.fixture
def host_lists(monkeypatch: pytest.MonkeyPatch) -> Callable[[], tuple[list[str], list[str], io.StringIO]]:
    """Factory: the host's own argv, path and stdout objects, set for the test body (restored by monkeypatch;
    called in the body, as pytest's capture sets sys.stdout after the fixtures)."""

    def make() -> tuple[list[str], list[str], io.StringIO]:
        argv, path, out = ["host.py", "--host"], list(sys.path), _HostStream()
        monkeypatch.setattr(sys, "argv", argv)
        monkeypatch.setattr(sys, "path", path)
        monkeypatch.setattr(sys, "stdout", out)
        return argv, path, out

    return make


def _assert_host(host: tuple[list[str], list[str], io.StringIO]) -> None:
    assert sys.argv is host[0] and sys.path is host[1] and sys.stdout is host[2]
    assert sys.argv == ["host.py", "--host"]


def test_a_supervisor_restarting_and_removing_later_robots_mid_phase_leaves_every_list_right(
        project, load, tmp_path, host_lists):
    """A supervisor (first in the phase, its usual turn) restarts robot b and removes robot c, whose controllers
    already ran: their ends run as nested turns with their own lists, the supervisor goes on with its own, b's new
    controller starts later in the same phase from the host's path with a fresh argv, and the host's physics hooks
    and the host after the step see the host's very lists."""
    host_lists = host_lists()
    supervisor = """
    import json, os, sys
    from controller import Supervisor
    robot = Supervisor()
    log = os.path.join(os.path.dirname(os.path.abspath(__file__)), "s.jsonl")
    k = 0
    while robot.step(10) != -1:
        k += 1
        sys.argv.append(str(k))
        if k == 3:
            robot.getFromDef("B").restartController()
            robot.getFromDef("C").remove()
        with open(log, "a") as out:
            out.write(json.dumps([sys.argv[1:], [os.path.basename(p) for p in sys.path if "controllers" in p]]) + "\\n")
    """
    probe = PROBE.replace("while robot.step", "sys.argv.append('x')\nwhile robot.step")
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "s" controller "sup" controllerArgs [ "--s" ] supervisor TRUE }
    DEF B Robot { name "b" controller "beta" controllerArgs [ "--b" ] }
    DEF C Robot { name "c" controller "gamma" controllerArgs [ "--c" ] }
    """
    sim = load(project(world, controllers={"sup": supervisor, "beta": probe, "gamma": probe}))
    seen_in_hooks: list[bool] = []

    def hook(_sim: object) -> None:
        seen_in_hooks.append(sys.argv is host_lists[0] and sys.path is host_lists[1])

    sim.add_hook(Phase.CONTROLLERS, hook)
    sim.add_hook(Phase.DEVICES_SAMPLE, hook)
    for _ in range(5):
        sim.step()
        _assert_host(host_lists)
    assert seen_in_hooks == [True] * 10
    s = [json.loads(line) for line in (tmp_path / "controllers" / "sup" / "s.jsonl").read_text().splitlines()]
    assert s == [[["--s", *map(str, range(1, k + 1))], ["sup"]] for k in range(1, 5)]
    b = _notes(tmp_path, "beta", "b")
    # b: first run (start + steps 0..2 -> notes), then restarted at step 3: fresh argv, its own folder only.
    first, second = b[:3], b[3:]
    assert first[0] == [["--b"], ["beta"], True]
    assert all(n[0] == ["--b", "x"] and n[1] == ["beta"] and n[2] for n in first[1:])
    assert second[0] == [["--b"], ["beta"], True] and all(n[0] == ["--b", "x"] and n[1] == ["beta"] for n in second[1:])
    c = _notes(tmp_path, "gamma", "c")
    assert all(n[1] == ["gamma"] and n[2] for n in c)


@pytest.mark.parametrize("ending", ["raise RuntimeError('boom')", "sys.exit(3)", "os._exit(0)", "sys.exit()"])
def test_a_controller_ending_mid_phase_leaves_the_next_its_own_lists_and_the_host_its_own(
        project, load, tmp_path, host_lists, ending):
    """A controller that crashes, exits or calls os._exit in its turn: the next controller of the phase still
    gets its own argv and path (not the ended one's), and the host its own after the step."""
    host_lists = host_lists()
    ender = f"""
    import os, sys
    from controller import Robot
    robot = Robot()
    sys.argv.append("ender")
    sys.path.insert(0, "/nonexistent/controllers/ender_extra")
    k = 0
    while robot.step(10) != -1:
        k += 1
        if k == 2:
            {ending}
    """
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "e" controller "ender" controllerArgs [ "--e" ] }
    Robot { name "b" controller "beta" controllerArgs [ "--b" ] }
    """
    sim = load(project(world, controllers={"ender": ender, "beta": PROBE}))
    for _ in range(4):
        sim.step()
        _assert_host(host_lists)
    assert all(n == [["--b"], ["beta"], True] for n in _notes(tmp_path, "beta", "b"))
    assert sim.robots[0].controller.finished


def test_a_keyboard_interrupt_in_a_controller_mid_phase_gives_the_host_its_lists_streams_and_directory(
        project, load, tmp_path, host_lists):
    """Ctrl-C landing in a controller's turn (after another controller's usual turn in the same phase) ends the
    step with KeyboardInterrupt; the host has its argv, path, stdout and working directory back."""
    host_lists = host_lists()
    stopper = """
    import sys
    from controller import Robot
    robot = Robot()
    k = 0
    sys.stdout = open(__file__ + ".out", "w")
    while robot.step(10) != -1:
        k += 1
        if k == 2:
            raise KeyboardInterrupt
    """
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "b" controller "beta" controllerArgs [ "--b" ] }
    Robot { name "k" controller "stopper" }
    """
    sim = load(project(world, controllers={"beta": PROBE, "stopper": stopper}))
    cwd = os.getcwd()
    sim.step()
    sim.step()
    with pytest.raises(KeyboardInterrupt):
        sim.step()
    _assert_host(host_lists)
    assert os.getcwd() == cwd and sys.stderr is not None
    sim.step()  # b goes on with its own lists
    _assert_host(host_lists)
    assert all(n == [["--b"], ["beta"], True] for n in _notes(tmp_path, "beta", "b"))


def test_a_quit_mid_phase_and_run_give_the_host_its_lists(project, load, tmp_path, host_lists):
    """A supervisor quitting in its turn ends the phase early (the next robot's controller does not run): the
    host's lists come back, after step() and after run()."""
    host_lists = host_lists()
    quitter = """
    from controller import Supervisor
    robot = Supervisor()
    k = 0
    while robot.step(10) != -1:
        k += 1
        if k == 3:
            robot.simulationQuit(4)
    """
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "b" controller "beta" controllerArgs [ "--b" ] }
    Robot { name "q" controller "quitter" supervisor TRUE }
    Robot { name "c" controller "gamma" controllerArgs [ "--c" ] }
    """
    sim = load(project(world, controllers={"beta": PROBE, "quitter": quitter, "gamma": PROBE}))
    assert sim.run(1.0) == 4
    _assert_host(host_lists)
    assert all(n == [["--c"], ["gamma"], True] for n in _notes(tmp_path, "gamma", "c"))


def test_controllers_replacing_their_lists_and_streams_keep_them_and_others_are_untouched(
        project, load, tmp_path, host_lists):
    """A controller that replaces sys.argv, sys.path and sys.stdout by new objects keeps them from turn to turn;
    the controller after it in the phase gets its own lists and the host's stream, the host its own objects."""
    host_lists = host_lists()
    replacer = """
    import io, json, os, sys
    from controller import Robot
    robot = Robot()
    log = os.path.join(os.path.dirname(os.path.abspath(__file__)), "r.jsonl")
    sys.argv = ["mine"]
    sys.path = [os.path.dirname(os.path.abspath(__file__)), "/nonexistent/controllers/own"] + sys.path[1:]
    mine = sys.path
    sys.stdout = io.StringIO()
    k = 0
    while robot.step(10) != -1:
        k += 1
        sys.argv.append(str(k))
        with open(log, "a") as out:
            out.write(json.dumps([sys.argv, sys.path is mine, isinstance(sys.stdout, io.StringIO)]) + "\\n")
    """
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "r" controller "replacer" }
    Robot { name "b" controller "beta" controllerArgs [ "--b" ] }
    """
    sim = load(project(world, controllers={"replacer": replacer, "beta": PROBE}))
    for _ in range(4):
        sim.step()
        _assert_host(host_lists)
    r = [json.loads(line) for line in (tmp_path / "controllers" / "replacer" / "r.jsonl").read_text().splitlines()]
    assert r == [[["mine", *map(str, range(1, k + 1))], True, True] for k in range(1, 4)]
    assert all(n == [["--b"], ["beta"], True] for n in _notes(tmp_path, "beta", "b"))


def test_a_runtime_ini_pythonpath_controller_after_a_plain_one_builds_its_path_from_the_hosts(
        project, load, tmp_path, host_lists):
    """A controller with a runtime.ini PYTHONPATH whose first turn follows another controller's usual turn: its
    path is its folder, its runtime.ini folder, then the host's (not the previous controller's folder)."""
    host_lists = host_lists()
    extra = tmp_path / "controllers" / "libs"
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "b" controller "beta" }
    Robot { name "i" controller "inied" }
    """
    ini = f"[environment variables with paths]\nPYTHONPATH = {extra}\n"
    sim = load(project(world, controllers={"beta": PROBE, "inied": PROBE},
                       files={"controllers/inied/runtime.ini": ini, "controllers/libs/keep.txt": ""}))
    sim.step()
    assert sim.restart_controller(sim.robots[1])
    for _ in range(3):
        sim.step()
        _assert_host(host_lists)
    notes = _notes(tmp_path, "inied", "i")
    assert notes and all(n[1] == ["inied", "libs"] for n in notes)


def test_imports_in_physics_hooks_see_the_hosts_path_not_a_controllers(project, load, tmp_path, host_lists):
    """A host hook of a physics phase importing a module: found on the host's path only, not from the folder of
    the controller whose turn came last (its path is no longer sys.path then)."""
    host_lists = host_lists()
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "b" controller "beta" }
    """
    sim = load(project(world, controllers={"beta": PROBE},
                       files={"controllers/beta/only_in_beta_r25d.py": "VALUE = 1\n"}))
    outcomes: list[str] = []

    def hook(_sim: object) -> None:
        try:
            importlib.import_module("only_in_beta_r25d")
            outcomes.append("imported")
        except ModuleNotFoundError:
            outcomes.append("not found")

    sim.add_hook(Phase.DEVICES_ACTUATE, hook)
    sim.step()
    sim.step()
    assert outcomes == ["not found", "not found"]
    assert "only_in_beta_r25d" not in sys.modules


def test_a_step_refused_for_a_vanished_host_directory_leaves_the_controllers_bracket_whole(
        project, load, tmp_path, monkeypatch):
    """The host's working directory removed under it: the controllers phase cannot note it (os.getcwd fails), so
    the step raises FileNotFoundError; once the host is in a directory again, the next steps still put it back
    after the controllers ran and still give controllers their own os._exit (the failed bracket was not closed
    as if it had opened: a bracket depth below zero left the host in the controller's folder and the process's
    own os._exit to the controllers)."""
    source = """
    import os
    from controller import Robot
    robot = Robot()
    log = os.path.join(os.path.dirname(os.path.abspath(__file__)), "exit_kind.txt")
    while robot.step(10) != -1:
        with open(log, "a") as out:
            out.write(type(os._exit).__name__ + "\\n")
    """
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "a" controller "alpha" }
    """
    sim = load(project(world, controllers={"alpha": source}))
    gone, home = tmp_path / "gone", tmp_path / "home"
    gone.mkdir()
    home.mkdir()
    monkeypatch.chdir(gone)
    sim.step()  # the controller starts
    gone.rmdir()
    with pytest.raises(FileNotFoundError):
        sim.step()
    os.chdir(home)
    for _ in range(3):
        sim.step()
        assert os.getcwd() == str(home)
    kinds = (tmp_path / "controllers" / "alpha" / "exit_kind.txt").read_text().split()
    assert kinds == ["method"] * 3  # the finder's os._exit in every turn, not the process's


def test_host_code_inside_a_held_runs_physics_sees_the_hosts_lists(project, load, tmp_path, host_lists):
    """``Simulation.run`` with nothing of the caller's between steps holds the controllers phase open from step
    to step, yet the host's argv and path come back after each step's controllers: code the physics runs without
    being a phase hook (here MuJoCo's control callback, which keeps the run held) sees the host's very lists, and
    the controllers their own at every step."""
    import mujoco

    host_lists = host_lists()
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "b" controller "beta" controllerArgs [ "--b" ] }
    """
    sim = load(project(world, controllers={"beta": PROBE}))
    seen: list[bool] = []
    mujoco.set_mjcb_control(lambda model, data: seen.append(sys.argv is host_lists[0] and sys.path is host_lists[1]))
    try:
        sim.run(0.05)
    finally:
        mujoco.set_mjcb_control(None)
    assert len(seen) == 5 * sim.substeps and all(seen)
    _assert_host(host_lists)
    assert _notes(tmp_path, "beta", "b") == [[["--b"], ["beta"], True]] * 5  # its first turn and 4 more


def test_host_code_replacing_its_stream_and_lists_during_a_held_run_keeps_them(project, load, tmp_path, host_lists):
    """Host code that replaces ``sys.stdout``, ``sys.argv`` and ``sys.path`` while a held run's physics runs (here
    MuJoCo's control callback; another thread could): the host keeps its new objects after the step and after the
    run, as with a phase per step, and no controller takes the host's new stream for its own."""
    import mujoco

    host_lists()
    world = """
    WorldInfo { basicTimeStep 10 }
    Robot { name "b" controller "beta" controllerArgs [ "--b" ] }
    """
    sim = load(project(world, controllers={"beta": PROBE}))
    replaced = (["other.py"], list(sys.path), _HostStream())
    last_path = list(sys.path)  # replaced in the last step's physics, after the last controllers

    def replace(model: object, data: object) -> None:
        if sim.step_count == 2 and sys.stdout is not replaced[2]:
            sys.argv, sys.path, sys.stdout = replaced
        elif sim.step_count == 4:
            sys.path = last_path

    mujoco.set_mjcb_control(replace)
    try:
        sim.run(0.05)
    finally:
        mujoco.set_mjcb_control(None)
    assert sys.argv is replaced[0] and sys.path is last_path and sys.stdout is replaced[2]
    assert sim.robots[0].controller.own_streams is None
    assert _notes(tmp_path, "beta", "b") == [[["--b"], ["beta"], True]] * 5
