"""TouchSensor cost: 20 rovers with 4 touch sensors each, sensors enabled vs disabled vs plain Solids.

Each rover of the demo carries four TouchSensors of mixed types: its front bumper (no Physics), a rear
bumper (with Physics), a "force" scale on its roof carrying a payload, and a "force-3d" caster under
its body. Its controller drives the rover in arcs (as ``sim_bench.py``) and, with ``--sensors on``,
enables the four sensors every basic step and reads them every step; with ``--sensors off`` it never
enables them. A third world replaces the four TouchSensors by plain Solids of the same geometry and
mass (same physics, no device at all).

Measured with paired alternating blocks (see ``paired.py``): the median ratio of step times
enabled/disabled (the cost the issue asks about: sampling, lookup tables, the Webots API calls) and
enabled/plain (the whole cost, MuJoCo's force sensors and their history included).

Run: ``python benchmarks/touch_sensor_bench.py`` (``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

import mujoco

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paired import paired_ratios  # noqa: E402
from rovers import load_warm, rover_world, write_project  # noqa: E402

CONTROLLER = """
import sys
from controller import Robot
robot = Robot()
step = int(robot.getBasicTimeStep())
left, right = robot.getDevice("left wheel motor"), robot.getDevice("right wheel motor")
ls, rs = robot.getDevice("left wheel sensor"), robot.getDevice("right wheel sensor")
left.setPosition(float("inf")); right.setPosition(float("inf"))
ls.enable(step); rs.enable(step)
sensing = "--sensors" in sys.argv and sys.argv[sys.argv.index("--sensors") + 1] == "on"
if sensing:
    bumper, rear, scale, caster = (robot.getDevice(n) for n in ("bumper", "rear bumper", "scale", "caster"))
    for sensor in (bumper, rear, scale, caster):
        sensor.enable(step)
hits = 0
while robot.step(step) != -1:
    a, b = ls.getValue(), rs.getValue()
    if a != a:
        a = b = 0.0
    if sensing:
        hits += bumper.getValue() + rear.getValue() > 0
        load = scale.getValue() + caster.getValues()[2]
    turn = ((a - b) % 6.0) - 3.0
    left.setVelocity(6.0 - 0.3 * turn)
    right.setVelocity(6.0 + 0.3 * turn)
"""

EXTRA_SENSORS = """
    TouchSensor {
      translation -0.09 0 0.01
      name "rear bumper"
      boundingObject Box { size 0.02 0.14 0.03 }
      physics Physics { density -1 mass 0.01 }
    }
    TouchSensor {
      translation 0 0 0.045
      rotation 0 1 0 -1.5707963267948966
      name "scale"
      type "force"
      children [ Solid { translation -0.02 0 0 name "payload" boundingObject Box { size 0.03 0.05 0.05 }
                         physics Physics { density -1 mass 0.2 } } ]
      boundingObject Box { size 0.01 0.06 0.06 }
      physics Physics { density -1 mass 0.02 }
    }
"""


def _rover_world(robots: int, plain: bool, sensors: str) -> str:
    """``robots`` rovers (without the arena walls), each with 4 TouchSensors (or, ``plain``, the same Solids)."""
    world = rover_world(robots, "bench_touch", EXTRA_SENSORS + "    DEF CASTER TouchSensor {\n      type \"force-3d\"",
                        f'"--sensors" "{sensors}"')
    if plain:  # the same bodies and geometry, no device: TouchSensor -> Solid without the sensor fields
        world = world.replace("TouchSensor {", "Solid {")
        world = re.sub(r'\n\s*type "force(-3d)?"', "", world)
    return world


def make_project(root: Path, robots: int, plain: bool, sensors: str) -> Path:
    """A project with the benchmark world and controller; ``sensors`` is "on" or "off"."""
    return write_project(root, _rover_world(robots, plain, sensors), "bench_touch", CONTROLLER)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer blocks")
    parser.add_argument("--robots", type=int, default=20)
    args = parser.parse_args()
    pairs, steps = (10, 30) if args.quick else (40, 50)
    print(f"python {sys.version.split()[0]}, mujoco {mujoco.__version__}; {args.robots} rovers x 4 TouchSensors; "
          f"{pairs} pairs of {steps}-step blocks")
    with tempfile.TemporaryDirectory() as tmp:
        sims = {name: load_warm(make_project(Path(tmp) / name, args.robots, plain, sensors))
                for name, plain, sensors in (("on", False, "on"), ("off", False, "off"), ("plain", True, "off"))}
        touch = sims["on"].banks["touch_sensor"]
        assert touch.n == 4 * args.robots and (touch.period_ms > 0).all(), "the sensors should be enabled"
        assert sims["plain"].banks["touch_sensor"].n == 0

        def block(name: str):
            sim = sims[name]
            return lambda: [sim.step() for _ in range(steps)]

        versus_off = paired_ratios(block("off"), block("on"), pairs)
        versus_plain = paired_ratios(block("plain"), block("on"), pairs)
        step_us = 1e6 * sorted(versus_off.seconds_b)[len(versus_off.seconds_b) // 2] / steps
        for sim in sims.values():
            sim.close()
    print(f"step time with sensors enabled: {step_us:.0f} us (median block)")
    print(versus_off.describe("enabled / disabled"))
    print(versus_plain.describe("enabled / plain Solids"))
    print(f"cost of the enabled sensors: {100 * (versus_off.median - 1):+.1f} % vs disabled (target < 15 %), "
          f"{100 * (versus_plain.median - 1):+.1f} % vs no TouchSensor at all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
