"""Recording cost: 20 demo rovers, each with an LED its controller sets every step, recorded vs not recorded.

Two copies of the same world run side by side; one records (``Simulation.start_recording``: every Solid's pose
and the LEDs' state at WorldInfo.FPS, 60: every 2nd 16 ms step), the other does not. Not recording adds no hook,
so nothing runs per step; the ratio measures what recording adds. Also printed: the time to write the file at
the end and its size per frame.

Measured with paired alternating blocks (see ``paired.py``). Run: ``python benchmarks/recording_bench.py``
(``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import mujoco

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paired import paired_ratios  # noqa: E402
from rovers import CASTER, load_warm, rover_world, write_project  # noqa: E402

CONTROLLER = """
from controller import Robot
robot = Robot()
step = int(robot.getBasicTimeStep())
left, right = robot.getDevice("left wheel motor"), robot.getDevice("right wheel motor")
led = robot.getDevice("led")
left.setPosition(float("inf")); right.setPosition(float("inf"))
n = 0
while robot.step(step) != -1:
    n += 1
    led.set(1 + (n // 20) % 2)
    left.setVelocity(6.0)
    right.setVelocity(5.0)
"""

LED = """    LED {
      translation 0 0 0.05
      color [ 1 0 0, 0 1 0 ]
      children [ Shape { appearance PBRAppearance { } geometry Sphere { radius 0.01 } } ]
    }
"""


def make_project(root: Path, robots: int) -> Path:
    """A project with ``robots`` demo rovers, each with an LED, and the benchmark controller."""
    return write_project(root, rover_world(robots, "bench_record", LED + CASTER, ""), "bench_record", CONTROLLER)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer blocks")
    parser.add_argument("--robots", type=int, default=20)
    args = parser.parse_args()
    pairs, steps = (10, 30) if args.quick else (40, 50)
    print(f"python {sys.version.split()[0]}, mujoco {mujoco.__version__}; {args.robots} rovers with an LED; "
          f"{pairs} pairs of {steps}-step blocks")
    with tempfile.TemporaryDirectory() as tmp:
        plain = load_warm(make_project(Path(tmp) / "plain", args.robots))
        recorded = load_warm(make_project(Path(tmp) / "recorded", args.robots))
        assert len(recorded.banks["led"].recorded_nodes()) == args.robots
        target = Path(tmp) / "bench.npz"
        recorder = recorded.start_recording(target)

        def block(sim):
            return lambda: [sim.step() for _ in range(steps)]

        result = paired_ratios(block(plain), block(recorded), pairs)
        step_us = 1e6 * sorted(result.seconds_a)[len(result.seconds_a) // 2] / steps
        frames, bodies = recorder.frames, len(recorded.bindings.solids)
        start = time.perf_counter()
        recorded.stop_recording()
        write_s = time.perf_counter() - start
        size = target.stat().st_size
        plain.close()
        recorded.close()
    print(f"step time without recording: {step_us:.0f} us (median block)")
    print(result.describe("recording / not recording"))
    print(f"cost of recording: {100 * (result.median - 1):+.1f} % per step; {frames} frames of {bodies} Solids "
          f"written in {1000 * write_s:.0f} ms, {size / frames:.0f} bytes per frame")
    return 0


if __name__ == "__main__":
    sys.exit(main())
