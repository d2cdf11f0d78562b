"""The benchmark worlds of demo rovers on an open floor (shared by ``touch_sensor_bench.py`` and
``distance_sensor_bench.py``): the demo world's floor, without its arena walls and 40 m wide, with copies of
the demo rover 0.6 m apart in a square grid, each driven by a benchmark controller.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "examples" / "worlds" / "demo.wbt"
CASTER = "    DEF CASTER Solid {"
"""The line opening the demo rover's caster Solid: what ``rover_world`` replaces to add devices."""


def rover_world(robots: int, controller: str, caster: str, controller_args: str) -> str:
    """The world text: ``robots`` rovers running ``controller`` with ``controllerArgs [ controller_args ]``,
    each with :data:`CASTER` replaced by ``caster`` (devices inserted before the caster, or the caster turned
    into a device); DEF names get a ``_<i>`` suffix per rover."""
    text = DEMO.read_text()
    head = re.sub(r"DEF WALL_\w+ Solid \{.*?\n\}\n", "", text[: text.index("DEF ROVER Robot {")], flags=re.S)
    head = head.replace("size 4 4", "size 40 40")
    rover = text[text.index("DEF ROVER Robot {"):]
    rover = rover.replace('controller "drive_pattern"', f'controller "{controller}"')
    rover = rover.replace('controllerArgs [ "--side" "0.5" "--laps" "1" "--bumps" "3" ]',
                          f"controllerArgs [ {controller_args} ]")
    rover = rover.replace(CASTER, caster)
    side = max(1, int(robots**0.5 + 0.999))
    blocks = []
    for i in range(robots):
        block = rover.replace("translation 0 0 0.033", f"translation {(i % side) * 0.6 - 3.0} {(i // side) * 0.6 - 3.0} 0.033", 1)
        block = block.replace('name "rover"', f'name "rover {i}"', 1)
        block = re.sub(r"\b(DEF|USE) (\w+)", lambda m: f"{m.group(1)} {m.group(2)}_{i}", block)
        blocks.append(block)
    return head + "\n".join(blocks)


def write_project(root: Path, world: str, controller: str, source: str) -> Path:
    """Write ``worlds/bench.wbt`` and ``controllers/<controller>/<controller>.py`` under ``root``; the world path."""
    (root / "worlds").mkdir(parents=True, exist_ok=True)
    path = root / "worlds" / "bench.wbt"
    path.write_text(world)
    folder = root / "controllers" / controller
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{controller}.py").write_text(source)
    return path


def load_warm(path: Path, seconds: float = 0.5):
    """Load a benchmark world (warnings silenced) and run it ``seconds`` to warm up: controllers started,
    sensors enabled, robots landed."""
    from wbsim.sim.simulation import load_world

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = load_world(path)
    sim.run(seconds)
    return sim
