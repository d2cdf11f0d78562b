"""runtime.ini: paths relative to the controller folder, $(VAR) expansion, platform sections, and the
variables holding only while their controller runs."""

from __future__ import annotations

import os
import sys

import pytest

from wbsim.sim.runtime_ini import read_runtime_ini


def test_no_file_is_an_empty_environment(tmp_path):
    ini = read_runtime_ini(tmp_path)
    assert ini.environment == {} and ini.python_path == ()


def test_sections_paths_and_expansion(tmp_path, monkeypatch):
    monkeypatch.setenv("WBSIM_TEST_ROOT", "/opt/root")
    platform = {"win32": "Windows", "darwin": "macOS"}.get(sys.platform, "Linux")
    other = "Windows" if platform != "Windows" else "Linux"
    (tmp_path / "runtime.ini").write_text(
        "; a comment\n"
        "[environment variables with paths]\n"
        "PYTHONPATH = ../lib:$(WBSIM_TEST_ROOT)/python\n"
        "[environment variables]\n"
        "MODE = fast $(WBSIM_TEST_UNSET)\n"
        f"[environment variables for {platform}]\n"
        "ONLY_HERE = 1\n"
        f"[environment variables for {other}]\n"
        "NOT_HERE = 1\n"
        "[python]\n"
        "COMMAND = python3.11\n")
    ini = read_runtime_ini(tmp_path)
    lib = str((tmp_path / "../lib").resolve())
    assert ini.python_path == (lib, "/opt/root/python")
    assert ini.environment == {"PYTHONPATH": os.pathsep.join((lib, "/opt/root/python")), "MODE": "fast",
                               "ONLY_HERE": "1"}


def test_variables_hold_only_while_the_controller_runs(project, load, capfd, monkeypatch):
    monkeypatch.delenv("WBSIM_GREETING", raising=False)
    source = """
    import os
    from controller import Robot
    robot = Robot()
    while robot.step(16) != -1:
        print("sees", os.environ.get("WBSIM_GREETING"))
        break
    """
    path = project('WorldInfo { basicTimeStep 16 }\nRobot { controller "greeter" }', controllers={"greeter": source},
                   files={"controllers/greeter/runtime.ini": "[environment variables]\nWBSIM_GREETING=hello\n"})
    sim = load(path)
    sim.run(0.1)
    assert "sees hello" in capfd.readouterr().out
    assert "WBSIM_GREETING" not in os.environ  # restored when the controller yields


@pytest.mark.parametrize("separator", [":", ";"])
def test_path_separators(tmp_path, separator):
    (tmp_path / "runtime.ini").write_text(f"[environment variables with paths]\nPYTHONPATH=a{separator}b\n")
    assert read_runtime_ini(tmp_path).python_path == (str(tmp_path / "a"), str(tmp_path / "b"))
