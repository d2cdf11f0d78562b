"""Lidar cost: a 360-ray, 4-layer lidar sampled every basic step vs the same world with the lidar disabled.

The world: a 10 m arena (floor and four walls), 12 boxes, spheres and cylinders, and a two-wheeled robot
carrying a fixed lidar (``fieldOfView 6.2832``, ``horizontalResolution 360``, ``numberOfLayers 4``,
``maxRange 8``, noise 0.01) whose wheels turn it in place. With ``--lidar on`` the lidar is enabled with the
basic time step and its range image read every step (1440 rays per step, one ``mj_multiRay`` call); with
``--lidar off`` it is never enabled. Measured with paired alternating blocks (``paired.py``): the median
ratio of step times on/off, and the lidar's cost per step.

Run: ``python benchmarks/lidar_bench.py`` (``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paired import paired_ratios  # noqa: E402

HEADER = "#VRML_SIM R2023b utf8\n"


def world_text() -> str:
    """The benchmark world (see the module docstring)."""
    parts = [HEADER, "WorldInfo { basicTimeStep 16 }\n",
             'Solid { name "floor" boundingObject Plane { size 10 10 } }\n']
    for i, (x, y, sx, sy) in enumerate([(5.1, 0, 0.2, 10.4), (-5.1, 0, 0.2, 10.4), (0, 5.1, 10.4, 0.2),
                                        (0, -5.1, 10.4, 0.2)]):
        parts.append(f'Solid {{ translation {x} {y} 0.5 name "wall {i}" boundingObject Box {{ size {sx} {sy} 1 }} }}\n')
    shapes = ["Box { size 0.4 0.8 0.4 }", "Sphere { radius 0.4 }", "Cylinder { radius 0.3 height 1 }"]
    for i in range(12):
        angle = 2 * math.pi * i / 12
        x, y = 2.5 * math.cos(angle), 2.5 * math.sin(angle)
        parts.append(f'Solid {{ translation {x:.3f} {y:.3f} 0.4 rotation 0 0 1 {angle:.3f} name "obstacle {i}" '
                     f'boundingObject {shapes[i % 3]} }}\n')
    wheel = """
    HingeJoint {{ jointParameters HingeJointParameters {{ axis 0 1 0 anchor 0 {y} 0.05 }}
      device [ RotationalMotor {{ name "{side} motor" }} ]
      endPoint Solid {{ translation 0 {y} 0.05 rotation 1 0 0 1.5708 name "{side} wheel"
        boundingObject Cylinder {{ radius 0.05 height 0.02 }} physics Physics {{ density -1 mass 0.1 }} }} }}"""
    parts.append(f"""Robot {{ translation 0 0 0.01 name "rover" controller "<extern>"
  children [ {wheel.format(side="left", y=0.12)} {wheel.format(side="right", y=-0.12)}
    Lidar {{ translation 0 0 0.3 name "lidar" fieldOfView 6.2832 horizontalResolution 360 numberOfLayers 4
            verticalFieldOfView 0.2 maxRange 8 noise 0.01 }} ]
  boundingObject Pose {{ translation 0 0 0.1 children [ Box {{ size 0.3 0.2 0.1 }} ] }}
  physics Physics {{ density -1 mass 2 }} }}
""")
    return "".join(parts)


def make_project(root: Path) -> Path:
    """Write the benchmark world under ``root``; returns its path."""
    (root / "worlds").mkdir(parents=True, exist_ok=True)
    path = root / "worlds" / "lidar_bench.wbt"
    path.write_text(world_text(), encoding="utf-8")
    return path


def block(path: Path, lidar_on: bool, steps: int) -> tuple[object, Callable[[], None]]:
    """Load the world (lidar enabled every step or never) and return it with a block of ``steps`` steps."""
    from wbsim.sim.simulation import load_world

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = load_world(path)
    robot = sim.robot("rover")  # type: ignore[attr-defined]
    step = int(robot.getBasicTimeStep())
    for name, speed in (("left motor", 2.0), ("right motor", -2.0)):
        motor = robot.getDevice(name)
        motor.setPosition(float("inf"))
        motor.setVelocity(speed)
    lidar = robot.getDevice("lidar")
    if lidar_on:
        lidar.enable(step)
    sink: list[float] = []

    def run() -> None:
        for _ in range(steps):
            robot.step(step)
            if lidar_on:
                sink.append(lidar.getRangeImage()[0])
        sink.clear()

    return sim, run


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run")
    args = parser.parse_args(argv)
    steps, pairs = (50, 6) if args.quick else (250, 20)
    with tempfile.TemporaryDirectory() as folder:
        path = make_project(Path(folder))
        off_sim, off = block(path, False, steps)
        on_sim, on = block(path, True, steps)
        off()
        on()  # warm up
        result = paired_ratios(off, on, pairs)
        per_step_off = sorted(result.seconds_a)[len(result.seconds_a) // 2] / steps
        per_step_on = sorted(result.seconds_b)[len(result.seconds_b) // 2] / steps
        print(f"lidar 360 x 4 rays sampled every step: {result.describe('step time on/off')}")
        print(f"  median step {per_step_off * 1e6:.0f} us without lidar, {per_step_on * 1e6:.0f} us with it: "
              f"the lidar costs about {(per_step_on - per_step_off) * 1e6:.0f} us per step")
        off_sim.close()  # type: ignore[attr-defined]
        on_sim.close()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
