"""DistanceSensor cost: 20 rovers with 8 distance sensors each (3 rays), enabled every step vs disabled.

Each demo rover (the demo floor, without the arena walls, rovers 0.6 m apart) carries a ring of 8
DistanceSensors around its body, 45 degrees apart, each casting 3 rays (aperture 0.5 rad) up to 1 m: the
sensors of neighbouring rovers see each other, so the rays reach the narrow phase, not only the broad
one. Its controller drives the rover in arcs (as ``sim_bench.py``) and, with ``--sensors on``, enables
the 8 sensors with the basic time step and reads all of them every step; with ``--sensors off`` it never
enables them. ``--imu`` adds an Accelerometer, a Gyro, an InertialUnit, a Compass and a GPS to each rover,
enabled and read with the distance sensors (the sensors issue's combined benchmark). ``--type`` picks the
sensor type of every sensor (generic by default; infra-red rays are
cast after the physics step instead of before it); ``--numpy`` measures the numpy caster and banks (with
``--imu`` the IMU set's and GPS's too) instead of the compiled ones. ``--no-read`` enables the sensors but never
reads them (a measurement aid: what the sensing costs without the controllers' API calls).

Measured with paired alternating blocks (see ``paired.py``): the median ratio of step times
enabled/disabled, which is the whole cost of the sensors (ray casting, lookup tables, the Webots API
calls).

Run: ``python benchmarks/distance_sensor_bench.py`` (``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from pathlib import Path

import mujoco

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paired import paired_ratios  # noqa: E402
from rovers import CASTER, load_warm, rover_world, write_project  # noqa: E402

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
reading = sensing and "--no-read" not in sys.argv
sensors = [robot.getDevice("ds%d" % i) for i in range(8)]
imu = []
if "--imu" in sys.argv:  # the IMU set and the GPS, read every step too
    imu = [robot.getDevice(name) for name in ("accelerometer", "gyro", "inertial unit", "compass", "gps")]
if sensing:
    for sensor in sensors + imu:
        sensor.enable(step)
near = 0.0
while robot.step(step) != -1:
    a, b = ls.getValue(), rs.getValue()
    if a != a:
        a = b = 0.0
    if reading:
        near = max(sensor.getValue() for sensor in sensors)
        if imu:
            readings = (imu[0].getValues(), imu[1].getValues(), imu[2].getRollPitchYaw(), imu[3].getValues(),
                        imu[4].getValues(), imu[4].getSpeed())
    turn = ((a - b) % 6.0) - 3.0
    left.setVelocity(6.0 - 0.3 * turn)
    right.setVelocity(6.0 + 0.3 * turn)
"""


IMU = """    Accelerometer { translation 0 0 0.03 }
    Gyro { translation 0 0 0.03 }
    InertialUnit { translation 0 0 0.03 }
    Compass { translation 0 0 0.03 }
    GPS { translation 0 0 0.03 }
"""
"""The IMU set and the GPS of ``--imu`` (issue 11's combined benchmark)."""
IMU_KINDS = ("accelerometer", "gyro", "inertial_unit", "compass", "gps")


def _sensors(kind: str, reach: float, imu: bool = False) -> str:
    """A ring of 8 DistanceSensors around the rover body, 3 rays each, ``reach`` m range (and the IMU set)."""
    blocks = [IMU] if imu else []
    for i in range(8):
        angle = i * math.pi / 4
        x, y = 0.085 * math.cos(angle), 0.06 * math.sin(angle)
        blocks.append(
            f'    DistanceSensor {{ translation {x:.4f} {y:.4f} 0.02 rotation 0 0 1 {angle:.6f} name "ds{i}" '
            f'type "{kind}" numberOfRays 3 aperture 0.5 lookupTable [ 0 1000 0, {reach:g} 0 0 ] }}\n')
    return "".join(blocks)


def make_project(root: Path, robots: int, sensors: str, kind: str = "generic", reach: float = 1.0,
                 imu: bool = False, read: bool = True) -> Path:
    """A project with the benchmark world and controller: ``robots`` rovers (without the arena walls), each
    with 8 DistanceSensors; ``sensors`` is "on" or "off"; ``imu`` adds an Accelerometer, Gyro, InertialUnit,
    Compass and GPS to each rover; ``read=False``: the controllers enable the sensors but never read them."""
    args = f'"--sensors" "{sensors}"' + (' "--imu"' if imu else "") + ('' if read else ' "--no-read"')
    world = rover_world(robots, "bench_distance", _sensors(kind, reach, imu) + CASTER, args)
    return write_project(root, world, "bench_distance", CONTROLLER)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer blocks")
    parser.add_argument("--robots", type=int, default=20)
    parser.add_argument("--type", default="generic", choices=("generic", "infra-red", "sonar", "laser"))
    parser.add_argument("--range", type=float, default=1.0, help="the sensors' range (m)")
    parser.add_argument("--imu", action="store_true", help="also an IMU set and a GPS per rover, read every step")
    parser.add_argument("--no-read", action="store_true",
                        help="enable the sensors but never read them (the sensing without the API calls)")
    parser.add_argument("--numpy", action="store_true",
                        help="the numpy caster and banks instead of the compiled ones")
    args = parser.parse_args()
    pairs, steps = (10, 30) if args.quick else (40, 50)
    print(f"python {sys.version.split()[0]}, mujoco {mujoco.__version__}; {args.robots} rovers x 8 {args.type} "
          f"DistanceSensors x {1 if args.type == 'laser' else 3} rays{' + IMU set + GPS' if args.imu else ''}"
          f"{' (numpy path)' if args.numpy else ''}{', never read' if args.no_read else ''}; "
          f"{pairs} pairs of {steps}-step blocks")
    with tempfile.TemporaryDirectory() as tmp:
        sims = {name: load_warm(make_project(Path(tmp) / name, args.robots, name, args.type, args.range, args.imu,
                                             not args.no_read))
                for name in ("on", "off")}
        bank = sims["on"].banks["distance_sensor"]
        if args.numpy:  # numba was imported and the kernels loaded in the warm-up: only the paths change
            bank.caster.compiled = False
            for kind in IMU_KINDS if args.imu else ():
                sims["on"].banks[kind].compiled = False
        assert bank.n == 8 * args.robots and (bank.period_ms > 0).all(), "the sensors should be enabled"
        assert (sims["off"].banks["distance_sensor"].period_ms == 0).all()
        for kind in IMU_KINDS if args.imu else ():
            assert (sims["on"].banks[kind].period_ms > 0).all() and sims["on"].banks[kind].n == args.robots, kind
        seen = int((bank.values > 0).sum())

        def block(name: str):
            sim = sims[name]
            return lambda: [sim.step() for _ in range(steps)]

        result = paired_ratios(block("off"), block("on"), pairs)
        on_us = 1e6 * sorted(result.seconds_b)[len(result.seconds_b) // 2] / steps
        off_us = 1e6 * sorted(result.seconds_a)[len(result.seconds_a) // 2] / steps
        for sim in sims.values():
            sim.close()
    print(f"sensors seeing something after warm-up: {seen} of {8 * args.robots}")
    print(f"step time: {on_us:.0f} us enabled, {off_us:.0f} us disabled (median blocks)")
    print(result.describe("enabled / disabled"))
    print(f"cost of the enabled sensors: {100 * (result.median - 1):+.1f} % of the step (target < 20 %)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
