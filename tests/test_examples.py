"""The demo project and the README's Python example run as documented."""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import wbsim

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "examples" / "worlds" / "demo.wbt"


@pytest.fixture
def demo():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the demo world must load without warnings
        sim = wbsim.load_world(DEMO)
    yield sim
    sim.close()


def test_demo_drives_a_square_and_ends(demo, capsys):
    body = demo.bindings.robots[0].solid.body_id
    xs, ys = [], []
    demo.run(on_step=lambda s: (xs.append(s.data.xpos[body][0]), ys.append(s.data.xpos[body][1])))
    out = capsys.readouterr().out
    assert "lap 1:" in out and "done after" in out
    assert not demo.controllers_running()
    assert 8.0 < demo.time_s < 20.0
    # It really drove a ~0.5 m square: the extent of its path and a return close to the start.
    assert 0.4 < max(xs) - min(xs) < 0.65 and 0.4 < max(ys) - min(ys) < 0.65
    assert math.hypot(xs[-1], ys[-1]) < 0.15


def test_demo_is_deterministic(demo):
    first = [demo.step() and demo.data.qpos.copy() for _ in range(200)]
    demo.reset()
    second = [demo.step() and demo.data.qpos.copy() for _ in range(200)]
    assert all(np.array_equal(a, b) for a, b in zip(first, second))


def test_readme_python_example_runs(monkeypatch):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    monkeypatch.chdir(ROOT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(block, "README.md", "exec"), {})


def test_readme_commands_match_ci():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_command = "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest"
    assert test_command in readme and test_command in ci
    assert "wbsim run examples/worlds/demo.wbt" in readme
