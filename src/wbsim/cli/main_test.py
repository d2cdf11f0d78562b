"""The wbsim command: run, check, --version, exit statuses and the progress display."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from wbsim import __version__
from wbsim.cli.main import CONTROLLER_RAISED, main

REPO = Path(__file__).resolve().parents[3]
DEMO = REPO / "examples" / "worlds" / "demo.wbt"
QUITTER = """
from controller import Supervisor
robot = Supervisor()
while robot.step(10) != -1:
    if robot.getTime() >= 0.05:
        robot.simulationQuit(3)
"""


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"wbsim {__version__}"


def test_run_demo_until_its_controller_ends(capsys):
    assert main(["run", str(DEMO), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "lap 1:" in out and "done after" in out


def test_run_exit_status_is_the_supervisor_quit_status(project):
    path = project('WorldInfo { basicTimeStep 10 }\nRobot { name "q" controller "quitter" supervisor TRUE }',
                   controllers={"quitter": QUITTER})
    assert main(["run", str(path), "--no-progress"]) == 3


def test_run_for_a_fixed_duration_without_controllers(project, capsys):
    path = project('WorldInfo { basicTimeStep 10 }\nSolid { physics Physics {} boundingObject Sphere {} }')
    assert main(["run", str(path), "--duration", "0.1", "--no-progress"]) == 0
    assert main(["run", str(path), "--no-progress"]) == 0
    assert "no controller runs in this world" in capsys.readouterr().err


def test_run_reports_every_load_error_with_status_2(project, capsys):
    path = project('WorldInfo { basicTimeStp 10 }\nSolid { translation 0 0 }\nBox { size -1 1 1 }')
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert "3 problem(s)" in err
    assert "test.wbt:2:13" in err and "basicTimeStp" in err and "Did you mean 'basicTimeStep'" in err
    assert "test.wbt:3:21" in err and "translation" in err and "expected 3 numbers" in err
    assert "test.wbt:4:1" in err and "Box node cannot be placed" in err


def test_run_missing_controller_is_a_load_error(project, capsys):
    path = project('Robot { name "r" controller "ghost" }')
    assert main(["run", str(path)]) == 2
    assert 'controller "ghost" not found' in capsys.readouterr().err
    assert main(["run", str(path), "--missing-controller", "warn", "--duration", "0.05", "--no-progress"]) == 0


def test_run_rejects_negative_or_nan_duration_with_a_message(project, capsys):
    path = project("Solid {}")
    for bad in ("-1", "nan"):
        assert main(["run", str(path), "--duration", bad]) == 2
        assert "--duration must be a number of seconds >= 0" in capsys.readouterr().err


def test_run_with_infinite_duration_runs_until_a_supervisor_quits(project):
    path = project('WorldInfo { basicTimeStep 10 }\nRobot { name "q" controller "quitter" supervisor TRUE }',
                   controllers={"quitter": QUITTER})
    assert main(["run", str(path), "--duration", "inf", "--no-progress"]) == 3


def test_check_ok_and_problems(project, capsys):
    assert main(["check", str(DEMO)]) == 0
    assert "OK" in capsys.readouterr().out
    bad = project('Solid { physics Physics { density -1 mass -1 } boundingObject Plane {} }\nRobot { controller "ghost" }',
                  world_name="bad.wbt")
    assert main(["check", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "Either the 'mass' or the 'density' must be specified" in err
    assert "Plane" in err and 'controller "ghost" not found' in err
    assert "3 problem(s)" in err


def test_check_missing_file(tmp_path, capsys):
    assert main(["check", str(tmp_path / "none.wbt")]) == 1
    assert "World file not found" in capsys.readouterr().err


def _console() -> list[str]:
    script = Path(sys.executable).with_name("wbsim")
    return [str(script)] if script.exists() else [sys.executable, "-m", "wbsim"]


def test_console_script_piped_shows_no_progress(project):
    path = project('WorldInfo { basicTimeStep 10 }\nRobot { name "q" controller "quitter" supervisor TRUE }',
                   controllers={"quitter": QUITTER})
    result = subprocess.run([*_console(), "run", str(path)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 3
    assert "real-time factor" not in result.stderr


def test_controller_prints_reach_a_pipe_in_order_with_tracebacks(project):
    source = """
    from controller import Robot
    robot = Robot()
    print("before the crash")
    robot.step(10)
    raise RuntimeError("boom")
    """
    path = project('WorldInfo { basicTimeStep 10 }\nRobot { name "r" controller "printer" }',
                   controllers={"printer": source})
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    result = subprocess.run([*_console(), "run", str(path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, timeout=120, env=env)
    assert result.returncode == CONTROLLER_RAISED  # the run ends normally, and its status says a controller failed
    assert result.stdout.index("before the crash") < result.stdout.index("RuntimeError: boom")
    summary = result.stdout[result.stdout.index("wbsim: 1 controller(s) raised"):]
    assert "printer.py:6: controller 'printer' of robot 'r' raised at t = 0.010 s: RuntimeError: boom" in summary


def test_controller_crashes_summary_and_keep_going(project, capsys, monkeypatch, tmp_path):
    crash = """
    from controller import Robot
    robot = Robot()
    robot.step({ms})
    raise ValueError("bad {ms}")
    """
    path = project('WorldInfo { basicTimeStep 10 }\nRobot { name "b" controller "late" }\n'
                   'Robot { name "a" controller "early" }',
                   controllers={"early": crash.format(ms=10), "late": crash.format(ms=30)})
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(path), "--duration", "0.1", "--no-progress"]) == CONTROLLER_RAISED
    err = capsys.readouterr().err
    summary = err[err.index("wbsim: 2 controller(s) raised (tracebacks above):"):].splitlines()
    assert summary[1:] == [  # sorted by file, paths relative to the current folder
        "  controllers/early/early.py:5: controller 'early' of robot 'a' raised at t = 0.010 s: ValueError: bad 10",
        "  controllers/late/late.py:5: controller 'late' of robot 'b' raised at t = 0.030 s: ValueError: bad 30",
    ]
    assert main(["run", str(path), "--duration", "0.1", "--no-progress", "--keep-going"]) == 0
    assert "wbsim: 2 controller(s) raised" in capsys.readouterr().err


def test_run_warnings_once_prefixed_relative_and_sorted(project, capsys, monkeypatch, tmp_path):
    # The Charger's warning comes from the loader, before the compiler's warnings about the devices of line 2.
    path = project("Robot { children [ Display { } Camera { } ] }\nCharger { }")
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(path), "--duration", "0.02", "--no-progress"]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if "not simulated" in line]
    assert [line.split(" devices")[0].split(" nodes")[0] for line in lines] == [
        "worlds/test.wbt:2:20: warning: Display", "worlds/test.wbt:2:32: warning: Camera",
        "worlds/test.wbt:3:1: warning: Charger",
    ]
    assert all(line.count("warning:") == 1 for line in lines)


@pytest.mark.skipif(shutil.which("script") is None or os.name != "posix", reason="needs util-linux script")
def test_progress_is_shown_on_a_terminal():
    command = " ".join([*_console(), "run", str(DEMO), "--duration", "1"])
    result = subprocess.run(["script", "-qec", command, "/dev/null"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0
    assert "real-time factor" in result.stdout


def test_realtime_mode_paces_to_the_wall_clock(project):
    path = project('WorldInfo { basicTimeStep 10 }\nSolid { physics Physics {} boundingObject Sphere {} }')
    start = time.perf_counter()
    assert main(["run", str(path), "--duration", "0.3", "--mode", "realtime", "--no-progress"]) == 0
    assert time.perf_counter() - start >= 0.3


@pytest.mark.parametrize("body", [
    "Solid { boundingObject Box { size 1e200 1 1 } physics Physics { } }",
    "Solid { boundingObject Sphere { radius 1e200 } physics Physics { } }",
    "Solid { boundingObject Box { size 1 1 1 } physics Physics { density 1e300 } }",
])
def test_huge_values_are_located_problems_for_check_and_run_not_tracebacks(project, capsys, body):
    # Issue 15: these passed the checker and then raised numpy/Python errors in the compiler.
    path = project("WorldInfo { }\n" + body)
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "test.wbt:3:" in err and "out of range" in err
    assert main(["run", str(path), "--duration", "0.1", "--no-progress"]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_run_seeds_writes_one_json_line_per_run_in_seed_order(project, capsys):
    import json

    world = 'WorldInfo { basicTimeStep 10 }\nRobot { name "q" controller "quitter" supervisor TRUE }'
    path = project(world, controllers={"quitter": QUITTER.replace("robot.simulationQuit(3)",
                                                                   'robot.setCustomData("done"); robot.simulationQuit(0)')})
    assert main(["run", str(path), "--seeds", "2-4,1", "--workers", "2", "--no-progress"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["seed"] for line in lines] == [2, 3, 4, 1]
    assert all(line["exit_status"] == 0 and line["custom_data"] == {"q": "done"} for line in lines)
    assert [line["sim_time_s"] for line in lines] == pytest.approx([0.05] * 4)


def test_run_seeds_status_and_argument_errors(project, capsys):
    path = project('WorldInfo { basicTimeStep 10 }\nRobot { name "q" controller "quitter" supervisor TRUE }',
                   controllers={"quitter": QUITTER})
    assert main(["run", str(path), "--seeds", "0", "--no-progress"]) == 1  # the run quit with status 3
    assert '"exit_status": 3' in capsys.readouterr().out
    assert main(["run", str(path), "--seeds", "3-1"]) == 2
    assert main(["run", str(path), "--workers", "2"]) == 2
    assert main(["run", str(path), "--seeds", "0", "--seed", "4"]) == 2
    err = capsys.readouterr().err
    assert "--seeds: seed range '3-1' ends before it starts" in err and "--workers needs --seeds" in err
    assert "--seed cannot be used with --seeds" in err


@pytest.mark.parametrize(("basic_ms", "note"), [(16, "runs as 4 MuJoCo steps of 4 ms"), (4, None)])
def test_check_tells_when_a_larger_physics_step_would_run_faster(project, capsys, basic_ms, note):
    path = project(f"WorldInfo {{ basicTimeStep {basic_ms} }}\nSolid {{ boundingObject Plane {{ }} }}")
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    if note is None:
        assert "note:" not in out
    else:
        assert note in out and "max_physics_step_ms=16" in out and "up to 4x faster" in out
