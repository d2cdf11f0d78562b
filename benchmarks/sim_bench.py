"""Simulation speed: wbsim against a hand-written MuJoCo loop on the same compiled model.

For the demo robot and for 20 such robots, both sides do the same work per basic time step: read the
two wheel encoders of every robot, compute the same wheel speeds, write them as the velocity motors'
inputs, and advance MuJoCo by one basic time step (``mj_step`` with the same substeps). wbsim runs an
ordinary Webots controller per robot (greenlets, the Webots API, sampling, motor control law); the
baseline is a plain Python loop over MuJoCo arrays. Figures are steps per second (basic steps) and the
ratio wbsim / baseline, medians of several runs measured in the same process.

Also measured: loading and compiling a world with 100 robots.

Run: ``python benchmarks/sim_bench.py`` (``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import mujoco

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "examples" / "worlds" / "demo.wbt"

CONTROLLER = """
from controller import Robot
robot = Robot()
step = int(robot.getBasicTimeStep())
left, right = robot.getDevice("left wheel motor"), robot.getDevice("right wheel motor")
ls, rs = robot.getDevice("left wheel sensor"), robot.getDevice("right wheel sensor")
left.setPosition(float("inf")); right.setPosition(float("inf"))
ls.enable(step); rs.enable(step)
while robot.step(step) != -1:
    a, b = ls.getValue(), rs.getValue()
    if a != a:
        a = b = 0.0
    turn = ((a - b) % 6.0) - 3.0
    left.setVelocity(6.0 - 0.3 * turn)
    right.setVelocity(6.0 + 0.3 * turn)
"""


def _rover_block(index: int, x: float, y: float) -> str:
    text = DEMO.read_text()
    start = text.index("DEF ROVER Robot {")
    # The rover without its bumper: this benchmark measures motors and encoders (touch_sensor_bench.py
    # measures touch sensors).
    block = re.sub(r"    DEF BUMPER TouchSensor \{.*?\n    \}\n", "", text[start:], flags=re.S)
    block = block.replace("DEF ROVER Robot {", f"DEF ROVER_{index} Robot {{", 1)
    block = block.replace('translation 0 0 0.033', f"translation {x} {y} 0.033", 1)
    block = block.replace('name "rover"', f'name "rover {index}"', 1)
    block = block.replace('controller "drive_pattern"', 'controller "bench_drive"', 1)
    for name in ("LEFT_WHEEL_JOINT", "RIGHT_WHEEL_JOINT", "LEFT_WHEEL", "RIGHT_WHEEL", "CASTER", "BODY",
                 "WHEEL_SHAPE", "WHEEL_PHYSICS"):
        block = block.replace(f"DEF {name} ", f"DEF {name}_{index} ").replace(f"USE {name}\n", f"USE {name}_{index}\n")
        block = block.replace(f"USE {name} ", f"USE {name}_{index} ")
    return block


def make_project(root: Path, robots: int) -> Path:
    """A copy of the demo world with ``robots`` rovers running the benchmark controller."""
    text = DEMO.read_text()
    head = text[: text.index("DEF ROVER Robot {")]
    head = re.sub(r"DEF WALL_\w+ Solid \{.*?\n\}\n", "", head, flags=re.S)  # the open floor, no arena walls
    head = head.replace("size 4 4", "size 40 40")
    side = max(1, int(robots**0.5 + 0.999))
    blocks = [_rover_block(i, (i % side) * 0.6 - 3.0, (i // side) * 0.6 - 3.0) for i in range(robots)]
    (root / "worlds").mkdir(parents=True, exist_ok=True)
    world = root / "worlds" / f"bench_{robots}.wbt"
    world.write_text(head + "\n".join(blocks))
    controller = root / "controllers" / "bench_drive"
    controller.mkdir(parents=True, exist_ok=True)
    (controller / "bench_drive.py").write_text(CONTROLLER)
    return world


def _load(path: Path):
    from wbsim.sim.simulation import load_world

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_world(path)


def wbsim_rate(path: Path, steps: int) -> float:
    """Basic steps per second of wbsim running the controllers."""
    sim = _load(path)
    sim.run(0.1)  # warm up: controllers started, sensors enabled
    start = time.perf_counter()
    for _ in range(steps):
        sim.step()
    elapsed = time.perf_counter() - start
    sim.close()
    return steps / elapsed


def baseline_rate(path: Path, steps: int) -> float:
    """Basic steps per second of a hand-written MuJoCo loop on the same model, same reads and writes."""
    sim = _load(path)
    model = sim.model
    data = mujoco.MjData(model)
    mujoco.mj_copyData(data, model, sim.data)
    substeps = sim.substeps
    robots = []
    for robot in sim.bindings.robots:
        motors = [d for d in robot.devices if hasattr(d, "reference_dof_adr")]
        sensors = [d for d in robot.devices if not hasattr(d, "reference_dof_adr")]
        robots.append((sensors[0].joint.qpos_adr, sensors[1].joint.qpos_adr,
                       motors[0].reference_dof_adr, motors[1].reference_dof_adr))
    sim.close()
    qpos, qvel = data.qpos, data.qvel
    for _ in range(20):
        mujoco.mj_step(model, data, nstep=substeps)
    start = time.perf_counter()
    for _ in range(steps):
        for left_q, right_q, left_ref, right_ref in robots:
            a, b = float(qpos[left_q]), float(qpos[right_q])
            turn = ((a - b) % 6.0) - 3.0
            qvel[left_ref] = 6.0 - 0.3 * turn
            qvel[right_ref] = 6.0 + 0.3 * turn
        mujoco.mj_step(model, data, nstep=substeps)
    return steps / (time.perf_counter() - start)


def load_time(path: Path) -> float:
    """Seconds to load, check and compile a world into a ready simulation."""
    start = time.perf_counter()
    sim = _load(path)
    elapsed = time.perf_counter() - start
    sim.close()
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps and repeats")
    args = parser.parse_args()
    repeats = 3 if args.quick else 5
    scale = 0.25 if args.quick else 1.0
    print(f"python {sys.version.split()[0]}, mujoco {mujoco.__version__}; medians of {repeats} runs")
    print(f"{'scenario':<22}{'wbsim steps/s':>15}{'MuJoCo loop steps/s':>22}{'ratio':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for robots, steps in ((1, int(3000 * scale)), (20, int(600 * scale))):
            path = make_project(Path(tmp) / f"p{robots}", robots)
            ours, base = [], []
            for _ in range(repeats):
                base.append(baseline_rate(path, steps))
                ours.append(wbsim_rate(path, steps))
            w, b = statistics.median(ours), statistics.median(base)
            label = "demo robot" if robots == 1 else f"{robots} robots"
            print(f"{label:<22}{w:>15,.0f}{b:>22,.0f}{w / b:>8.2f}")
        path = make_project(Path(tmp) / "p100", 100)
        times = [load_time(path) for _ in range(repeats)]
        print(f"load + compile 100 robots: {statistics.median(times):.3f} s (target < 2 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
