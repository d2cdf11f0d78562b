"""Connector cost: 100 modules with 4 connectors each, presence sampled every step, vs the same modules without.

Each module is a free 0.1 m cube (0.5 kg) with a symmetric connector on each side face. Two scenes:

- ``raft``: the modules rest on the floor in a 10 x 10 raft with 5 mm gaps, so every inner connector
  faces a neighbour's within its tolerance and presence detection finds peers;
- ``drift``: the modules float without gravity in a closed box, moving at 0.05-0.2 m/s and bouncing
  off each other, so the neighbour lists must be rebuilt often.

Every connector's presence is enabled with a period of one basic step (16 ms). Sleeping is off
(``physicsDisableTime 0``) so the physics cost stays steady. The baseline is the same world with the
Connector nodes removed.

Measured with paired alternating blocks (see ``paired.py``): the median ratio of step times with / without
connectors (target: connectors cost under 20 %). Also measured: the load time (parse, check, compile,
bind) of a world with 1000 connectors (250 modules), median of 5 loads (target < 2 s).

Run: ``python benchmarks/connector_bench.py`` (``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import mujoco

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paired import paired_ratios  # noqa: E402

FACES = (0.0, math.pi / 2, math.pi, 3 * math.pi / 2)
HEADER = "#VRML_SIM R2023b utf8"


def _connectors() -> str:
    return " ".join(f'Connector {{ translation {0.05 * math.cos(a):.9f} {0.05 * math.sin(a):.9f} 0 '
                    f'rotation 0 0 1 {a:.9f} name "c{k}" }}' for k, a in enumerate(FACES))


def _module(i: int, translation: tuple[float, float, float], connectors: bool, velocity: str = "") -> str:
    children = _connectors() if connectors else ""
    x, y, z = translation
    return (f'Robot {{ translation {x:.6f} {y:.6f} {z:.6f} name "m{i}" controller "<extern>" {velocity} '
            f'children [ {children} ] boundingObject Box {{ size 0.1 0.1 0.1 }} '
            "physics Physics { density -1 mass 0.5 } }")


def raft_world(modules: int, connectors: bool, gap: float = 0.005) -> str:
    """A raft of ``modules`` cubes at rest on a floor, 5 mm apart: inner connectors face a neighbour."""
    lines = [HEADER, "WorldInfo { basicTimeStep 16 physicsDisableTime 0 }",
             'Solid { name "floor" boundingObject Plane { size 100 100 } }']
    side = max(1, math.ceil(modules ** 0.5))
    pitch = 0.1 + gap
    lines += [_module(i, ((i % side) * pitch, (i // side) * pitch, 0.05), connectors) for i in range(modules)]
    return "\n".join(lines) + "\n"


def drift_world(modules: int, connectors: bool) -> str:
    """``modules`` cubes floating without gravity in a closed 1.6 m box, moving at 0.05 to 0.2 m/s and
    bouncing off each other and the walls: the connectors keep moving (neighbour lists are rebuilt)."""
    rng = random.Random(1)
    lines = [HEADER, "WorldInfo { basicTimeStep 16 physicsDisableTime 0 gravity 0 }"]
    for k, (axis, sign) in enumerate((a, s) for a in range(3) for s in (-1, 1)):
        position = [0.0, 0.0, 0.0]
        position[axis] = sign * 0.85
        size = [1.8, 1.8, 1.8]
        size[axis] = 0.1
        lines.append(f'Solid {{ translation {" ".join(map(str, position))} name "wall {k}" '
                     f'boundingObject Box {{ size {" ".join(map(str, size))} }} }}')
    side = max(1, math.ceil(modules ** (1 / 3)))
    for i in range(modules):
        position = tuple(-0.6 + 1.2 * c / max(1, side - 1) for c in (i % side, (i // side) % side, i // side // side))
        speed, theta, phi = rng.uniform(0.05, 0.2), rng.uniform(0, 2 * math.pi), rng.uniform(-1, 1)
        velocity = (f"linearVelocity {speed * math.sqrt(1 - phi * phi) * math.cos(theta):.6f} "
                    f"{speed * math.sqrt(1 - phi * phi) * math.sin(theta):.6f} {speed * phi:.6f}")
        lines.append(_module(i, position, connectors, velocity))  # type: ignore[arg-type]
    return "\n".join(lines) + "\n"


SCENARIOS = {"raft": raft_world, "drift": drift_world}


def write_world(root: Path, name: str, text: str) -> Path:
    """Write ``text`` as ``root/worlds/<name>.wbt``."""
    (root / "worlds").mkdir(parents=True, exist_ok=True)
    path = root / "worlds" / f"{name}.wbt"
    path.write_text(text)
    return path


def load(path: Path, enable_presence: bool):
    """Load a world, enable every connector's presence every basic step, and let it settle for 0.5 s."""
    from wbsim.sim.simulation import load_world

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = load_world(path)
    if enable_presence:
        step = int(sim.basic_time_step_ms)
        for runtime in sim.robots:
            robot = sim.robot(runtime.name)
            for k in range(len(FACES)):
                robot.getDevice(f"c{k}").enablePresence(step)
    sim.run(0.5)
    return sim


def load_seconds(path: Path, repeats: int) -> float:
    """The median wall time of loading ``path`` (parse, check, compile, bind, start)."""
    from wbsim.sim.simulation import load_world

    times = []
    for _ in range(repeats):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            sim = load_world(path)
            times.append(time.perf_counter() - start)
        sim.close()
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter blocks")
    parser.add_argument("--modules", type=int, default=100)
    args = parser.parse_args()
    pairs, steps = (10, 20) if args.quick else (40, 50)
    print(f"python {sys.version.split()[0]}, mujoco {mujoco.__version__}; {args.modules} modules x 4 connectors; "
          f"{pairs} pairs of {steps}-step blocks")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for scenario, make in SCENARIOS.items():
            with_connectors = load(write_world(root, f"{scenario}_with", make(args.modules, True)), True)
            without = load(write_world(root, f"{scenario}_without", make(args.modules, False)), False)
            bank = with_connectors.banks["connector"]
            assert bank.n == 4 * args.modules and (bank.period_ms > 0).all()
            builds = bank._search.builds

            def block(sim):
                return lambda: [sim.step() for _ in range(steps)]

            result = paired_ratios(block(without), block(with_connectors), pairs)
            step_ms = 1e3 * statistics.median(result.seconds_b) / steps
            base_ms = 1e3 * statistics.median(result.seconds_a) / steps
            rebuilt = (bank._search.builds - builds) / (2 * pairs * steps)
            present = int((bank.presence == 1).sum())
            with_connectors.close()
            without.close()
            print(f"{scenario}: {step_ms:.2f} ms per step with connectors, {base_ms:.2f} ms without; {present} of "
                  f"{bank.n} connectors see a peer; neighbour list rebuilt in {100 * rebuilt:.0f} % of the steps")
            print(f"  {result.describe('with / without connectors')}: cost {100 * (result.median - 1):+.1f} % "
                  "(target < 20 %)")
        big = 250 if not args.quick else 25
        load_with = load_seconds(write_world(root, "big", raft_world(big, True)), 1 if args.quick else 5)
        load_without = load_seconds(write_world(root, "big_plain", raft_world(big, False)), 1 if args.quick else 5)
    print(f"load of {4 * big} connectors ({big} modules): {load_with:.2f} s (without connectors {load_without:.2f} s; "
          "target < 2 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
