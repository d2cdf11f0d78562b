"""Physics plugin cost: forces on 20 robots every step, and a collide callback on a pile of 50 boxes.

1. **Forces.** 20 demo rovers driven by their controllers (as ``sim_bench.py``), with a physics plugin
   that adds a small force to every rover's body in each ``webots_physics_step`` (bodies found once by
   DEF in ``webots_physics_init``), against the same world without a plugin. Paired alternating blocks
   (``paired.py``): the median ratio of step times (target: the plugin costs under 10 %).
2. **Collide.** 50 boxes settled in a pile, with a plugin whose ``webots_physics_collide`` returns 0 for
   every pair, against the same plugin without collide: the extra time per step divided by the number
   of pairs offered per step gives the cost per candidate pair.

Run: ``python benchmarks/plugin_bench.py`` (``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import textwrap
import warnings
from pathlib import Path

import mujoco

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paired import paired_ratios  # noqa: E402
from sim_bench import make_project  # noqa: E402

FORCE_PLUGIN = """
from wbsim.physics_plugin import *

bodies = []

def webots_physics_init():
    bodies[:] = [dWebotsGetBodyFromDEF(f"ROVER_{i}") for i in range(ROBOTS)]

def webots_physics_step():
    for body in bodies:
        dBodyAddForce(body, 0.01, 0.0, 0.0)

def webots_physics_cleanup():
    pass
"""

PILE_PLUGIN = """
from wbsim.physics_plugin import *

pairs = 0

def webots_physics_init():
    pass

def webots_physics_step():
    pass

COLLIDE

def webots_physics_cleanup():
    pass
"""

COLLIDE = """
def webots_physics_collide(g1, g2):
    global pairs
    pairs += 1
    return 0
"""


def force_project(root: Path, robots: int, plugin: bool) -> Path:
    """The sim_bench world of ``robots`` rovers, with the force plugin or without a plugin."""
    path = make_project(root, robots)
    if plugin:
        text = path.read_text().replace("WorldInfo {", 'WorldInfo {\n  physics "push"', 1)
        path.write_text(text)
        folder = root / "plugins" / "physics" / "push"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "push.py").write_text(FORCE_PLUGIN.replace("ROBOTS", str(robots)))
    return path


def pile_project(root: Path, boxes: int, collide: bool) -> Path:
    """``boxes`` 0.1 m boxes dropped in a 5 x 5 column pile on a floor, with the pile plugin."""
    rows = [f'WorldInfo {{ basicTimeStep 16 physics "pile" physicsDisableTime 0 }}',
            'Solid { name "floor" boundingObject Plane { size 10 10 } }']
    for i in range(boxes):
        x, y, z = (i % 5) * 0.101, ((i // 5) % 5) * 0.101, 0.05 + (i // 25) * 0.101
        rows.append(f'Solid {{ translation {x:.3f} {y:.3f} {z:.3f} name "box {i}" '
                    'boundingObject Box { size 0.1 0.1 0.1 } physics Physics { density -1 mass 0.5 } }')
    (root / "worlds").mkdir(parents=True, exist_ok=True)
    path = root / "worlds" / "pile.wbt"
    path.write_text("#VRML_SIM R2023b utf8\n" + "\n".join(rows) + "\n")
    folder = root / "plugins" / "physics" / "pile"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pile.py").write_text(PILE_PLUGIN.replace("COLLIDE", COLLIDE if collide else ""))
    return path


def load(path: Path, settle_s: float):
    """Load a world and run it for ``settle_s``."""
    from wbsim.sim.simulation import load_world

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = load_world(path)
    sim.run(settle_s)
    return sim


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter blocks")
    args = parser.parse_args()
    pairs, steps = (10, 20) if args.quick else (150, 10)
    robots = 20 if not args.quick else 4
    print(f"python {sys.version.split()[0]}, mujoco {mujoco.__version__}; {pairs} pairs of {steps}-step blocks")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        with_plugin = load(force_project(root / "plugin", robots, True), 0.5)
        without = load(force_project(root / "plain", robots, False), 0.5)
        assert with_plugin.plugin is not None and len(with_plugin.plugin.file.namespace["bodies"]) == robots

        def block(sim):
            return lambda: [sim.step() for _ in range(steps)]

        forces = paired_ratios(block(without), block(with_plugin), pairs)
        step_ms = 1e3 * statistics.median(forces.seconds_b) / steps
        with_plugin.close()
        without.close()
        boxes = 50 if not args.quick else 10
        collide = load(pile_project(root / "collide", boxes, True), 1.0)
        plain = load(pile_project(root / "nocollide", boxes, False), 1.0)
        offered = collide.plugin.file.namespace["pairs"]
        probe_steps = 20
        before = collide.plugin.file.namespace["pairs"]
        for _ in range(probe_steps):
            collide.step()
        per_step = (collide.plugin.file.namespace["pairs"] - before) / probe_steps
        piles = paired_ratios(block(plain), block(collide), pairs)
        extra_us = 1e6 * (statistics.median(piles.seconds_b) - statistics.median(piles.seconds_a)) / steps
        assert offered > 0
        collide.close()
        plain.close()
    print(f"forces on {robots} robots: {step_ms:.2f} ms per step with the plugin")
    print(f"  {forces.describe('with / without plugin')}: cost {100 * (forces.median - 1):+.1f} % (target < 10 %)")
    print(f"collide on a pile of {boxes} boxes: {per_step:.0f} pairs offered per step; "
          f"{piles.describe('with / without collide')}; about {extra_us / max(per_step, 1):.1f} us per pair")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
