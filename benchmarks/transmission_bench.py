"""Benchmark: transmission maps per second, and the cost of transmissions attached to 100 simulated robots.

Run from the repository root::

    python benchmarks/transmission_bench.py            # both parts
    python benchmarks/transmission_bench.py --attached # only the simulated robots (``--quick``: fewer pairs,
                                                       # ``--differential``: differential wrists, not four-bars)

**Attached** (``attach_transmissions``): a world of ``ROBOTS`` robots, each the four-bar finger of
``examples/worlds/four_bar_finger.wbt`` (two base motors driving a two-joint finger through a parallelogram closed
with a SolidReference) with its ``FourBarLinkageTransmission`` from ``four_bar_finger.urdf``, every robot run by
its own controller that, every basic step, reads the joint state, computes a joint-space position target and
writes it (``hw.read()``, two ``hw.state``, two ``hw.command``, ``hw.write()``); against the same world whose
controllers do the same in actuator space directly (two ``getValue``, two ``setPosition``), the targets mapped
by hand with the same arithmetic. ``--differential`` runs the same comparison on two-hinge robots with a
``DifferentialTransmission`` instead. Both worlds run in the same process in short alternating blocks
(``paired.py``); reported: the median of the paired step-time ratios attached / direct with its 10th-90th
percentile range, i.e. the cost of the transmission layer per step.

**Maps**:

For each transmission and batch size (1, 1 000 and 1 000 000 robots) it times the ``position`` map from
actuator to joint space:

- functional: one call ``actuator_to_joint_values("position", values)`` on a float64 array of shape
  (robots, n_actuators);
- handle loop (the baseline): one configured transmission with one handle per joint and actuator, and a
  plain Python loop that, for every robot, writes its actuator values into the handles, calls
  ``actuator_to_joint()`` and reads the joint values back into a list. Reusing one transmission is the
  cheapest way to use the handle API (one transmission per robot would add the cost of touching a million
  objects), so the baseline is, if anything, flattering. Its cost is linear in the number of robots, so for
  large batches the loop is timed on the first ``LOOP_SAMPLE`` robots only and reported per robot.

Each figure is the median of ``REPEATS`` timings with :func:`time.perf_counter`; every timing runs the
operation often enough to last at least ``MIN_TIME`` seconds, so it measures warm, repeated calls: for the
simple transmission the 1 000 000-robot arrays (8 MB in, 8 MB out) can stay in a large L3 cache, and a single
cold call (fresh pages) can be several times slower. The whole run takes well under a minute.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

from wbsim.transmission import (
    ActuatorHandle,
    DifferentialTransmission,
    FourBarLinkageTransmission,
    JointHandle,
    SimpleTransmission,
    Transmission,
)

BATCHES = (1, 1_000, 1_000_000)
LOOP_SAMPLE = 20_000  # robots timed in the handle loop for larger batches
REPEATS = 7
MIN_TIME = 0.1  # seconds per timing
INTERFACE = "position"


def median_seconds(operation: Callable[[], object]) -> float:
    """Median wall time of one ``operation()`` call, over REPEATS timings of at least MIN_TIME each."""
    calls = 1
    while True:  # calibrate: double the number of calls until one timing lasts MIN_TIME
        start = time.perf_counter()
        for _ in range(calls):
            operation()
        if time.perf_counter() - start >= MIN_TIME:
            break
        calls *= 2
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(calls):
            operation()
        samples.append((time.perf_counter() - start) / calls)
    return statistics.median(samples)


def functional_rate(trans: Transmission, values: np.ndarray) -> float:
    """Maps per second (robots per second) of one vectorised call on ``values`` (robots, n_actuators)."""
    seconds = median_seconds(lambda: trans.actuator_to_joint_values(INTERFACE, values))
    return len(values) / seconds


def handle_loop_rate(trans: Transmission, values: np.ndarray) -> float:
    """Maps per second of a Python loop over robots through the handle API (see the module docstring)."""
    actuators = [ActuatorHandle(f"act{k + 1}", INTERFACE) for k in range(trans.num_actuators())]
    joints = [JointHandle(f"joint{k + 1}", INTERFACE) for k in range(trans.num_joints())]
    trans.configure(joints, actuators)
    rows = values[:LOOP_SAMPLE].tolist()

    def loop() -> list[list[float]]:
        out = []
        for row in rows:
            for handle, value in zip(actuators, row, strict=True):
                handle.set_value(value)
            trans.actuator_to_joint()
            out.append([handle.get_value() for handle in joints])
        return out

    # Sanity check: both paths compute the same numbers.
    assert np.array_equal(np.array(loop()), trans.actuator_to_joint_values(INTERFACE, values[: len(rows)]))
    return len(rows) / median_seconds(loop)


ROBOTS = 100

WRIST_URDF = """<robot name="wrist">
  <ros2_control name="Wrist" type="system">
    <joint name="m1"><command_interface name="position"/><state_interface name="position"/></joint>
    <joint name="m2"><command_interface name="position"/><state_interface name="position"/></joint>
    <transmission name="wrist">
      <plugin>transmission_interface/DifferentialTransmission</plugin>
      <actuator name="m1" role="actuator1"><mechanical_reduction>1</mechanical_reduction></actuator>
      <actuator name="m2" role="actuator2"><mechanical_reduction>1</mechanical_reduction></actuator>
      <joint name="m1" role="joint1"><mechanical_reduction>0.5</mechanical_reduction></joint>
      <joint name="m2" role="joint2"><mechanical_reduction>0.5</mechanical_reduction></joint>
    </transmission>
  </ros2_control>
</robot>
"""

# Both controllers: joint-space targets j1 = 0.3 sin(t), j2 = 0.2 cos(t) plus a correction from the measured
# state (so the state is used). Differential wrist: the transmission's joints are j1 = a1 + a2, j2 = a1 - a2
# (reductions 1 and 0.5), so the direct controller maps a1 = (j1 + j2) / 2, a2 = (j1 - j2) / 2. Four-bar finger
# (unit reductions, no offsets): j1 = a1, j2 = a2 - a1, so a1 = j1, a2 = j1 + j2.
ATTACHED = """
import math
from controller import Robot
from wbsim.transmission import attach_transmissions
robot = Robot()
step = int(robot.getBasicTimeStep())
hw = attach_transmissions(robot, {urdf!r})
first, second = hw.joint_names
while robot.step(step) != -1:
    hw.read()
    t = robot.getTime()
    j1, j2 = hw.state(first, "position"), hw.state(second, "position")
    if j1 != j1:
        j1 = j2 = 0.0
    hw.command(first, "position", 0.3 * math.sin(t) + 0.01 * j1)
    hw.command(second, "position", 0.2 * math.cos(t) + 0.01 * j2)
    hw.write()
"""

DIRECT = """
import math
from controller import Robot
robot = Robot()
step = int(robot.getBasicTimeStep())
m1, m2 = robot.getDevice({motor1!r}), robot.getDevice({motor2!r})
s1, s2 = m1.getPositionSensor(), m2.getPositionSensor()
s1.enable(step); s2.enable(step)
while robot.step(step) != -1:
    t = robot.getTime()
    a1, a2 = s1.getValue(), s2.getValue()
    j1, j2 = {to_joints}
    if j1 != j1:
        j1 = j2 = 0.0
    p = 0.3 * math.sin(t) + 0.01 * j1
    r = 0.2 * math.cos(t) + 0.01 * j2
    m1.setPosition({to_motor1})
    m2.setPosition({to_motor2})
"""

DIRECT_MAPS = {
    "differential": dict(motor1="m1", motor2="m2", to_joints="a1 + a2, a1 - a2", to_motor1="(p + r) / 2",
                         to_motor2="(p - r) / 2"),
    "four-bar": dict(motor1="motor 1", motor2="motor 2", to_joints="a1, a2 - a1", to_motor1="p", to_motor2="p + r"),
}
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _finger(index: int, controller: str) -> str:
    """The demo's four-bar finger robot, moved to its place in a 10 x 10 grid and renamed."""
    text = (EXAMPLES / "worlds" / "four_bar_finger.wbt").read_text()
    robot = text[text.index("Robot {"):]
    x, y = (index % 10) * 0.5, (index // 10) * 0.5
    robot = robot.replace("translation 0 0 0.3", f"translation {x} {y} 0.3", 1)
    robot = robot.replace('name "four bar finger"', f'name "finger {index}"', 1)
    return robot.replace('controller "four_bar_finger"', f'controller "{controller}"', 1)


def _robot(index: int, controller: str) -> str:
    x, y = (index % 10) * 0.5, (index // 10) * 0.5
    joints = "".join(
        f"""
    HingeJoint {{ jointParameters HingeJointParameters {{ axis {axis} anchor 0 0 0.1 }}
      device [ RotationalMotor {{ name "m{k}" maxTorque 10 }} PositionSensor {{ name "s{k}" }} ]
      endPoint Solid {{ translation {0.05 * k} 0 0.1 physics Physics {{ density -1 mass 0.2 }}
        boundingObject Box {{ size 0.1 0.02 0.02 }} }} }}"""
        for k, axis in ((1, "0 1 0"), (2, "1 0 0"))
    )
    return f"""Robot {{ translation {x} {y} 0 name "wrist {index}" controller "{controller}" children [
  Solid {{ physics Physics {{ }} boundingObject Box {{ size 0.05 0.05 0.05 }} children [{joints}
  ] }}
] }}
"""


def make_project(root: Path, robots: int, attached: bool, mechanism: str = "four-bar") -> Path:
    """A world of ``robots`` robots (``mechanism``: "four-bar" fingers or "differential" wrists) whose controllers
    use the transmission layer or command the motors directly."""
    controller = "bench_attached" if attached else "bench_direct"
    (root / "worlds").mkdir(parents=True, exist_ok=True)
    folder = root / "controllers" / controller
    folder.mkdir(parents=True, exist_ok=True)
    urdf = folder / "transmission.urdf"
    if mechanism == "four-bar":
        urdf.write_text((EXAMPLES / "controllers" / "four_bar_finger" / "four_bar_finger.urdf").read_text())
        robot = _finger
    else:
        urdf.write_text(WRIST_URDF)
        robot = _robot
    text = ATTACHED.format(urdf=str(urdf)) if attached else DIRECT.format(**DIRECT_MAPS[mechanism])
    (folder / f"{controller}.py").write_text(text)
    world = root / "worlds" / f"{controller}.wbt"
    world.write_text("#VRML_SIM R2023b utf8\nWorldInfo { basicTimeStep 8 }\n" + "".join(robot(i, controller) for i in range(robots)))
    return world


def sim_block(path: Path, steps: int) -> tuple[object, Callable[[], None]]:
    """A warmed-up simulation of ``path`` and a function running ``steps`` basic steps of it."""
    from wbsim.sim.simulation import load_world

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = load_world(path)
    sim.run(0.1)  # controllers started, transmissions attached, sensors sampling

    def run() -> None:
        for _ in range(steps):
            sim.step()

    return sim, run


def attached_main(pairs: int, robots: int = ROBOTS, mechanism: str = "four-bar") -> None:
    """Print the paired step-time ratio attached / direct for ``robots`` robots of ``mechanism``."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from paired import paired_ratios

    steps = max(3, 600 // (robots + 1))
    with tempfile.TemporaryDirectory() as tmp:
        direct_sim, direct = sim_block(make_project(Path(tmp) / "direct", robots, False, mechanism), steps)
        attached_sim, attached = sim_block(make_project(Path(tmp) / "attached", robots, True, mechanism), steps)
        result = paired_ratios(direct, attached, pairs)
        per_step_a = statistics.median(result.seconds_a) / steps
        per_step_b = statistics.median(result.seconds_b) / steps
        print(f"{robots} {mechanism} robots, {steps}-step blocks, {pairs} pairs: direct {per_step_a * 1e3:.3f} ms/step, "
              f"attached {per_step_b * 1e3:.3f} ms/step; attached/direct {result.describe('ratio')}; "
              f"extra per robot and step {(per_step_b - per_step_a) / robots * 1e6:.1f} us")
        direct_sim.close()  # type: ignore[attr-defined]
        attached_sim.close()  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--attached", action="store_true", help="only the simulated-robots part")
    parser.add_argument("--quick", action="store_true", help="fewer pairs of blocks")
    parser.add_argument("--differential", action="store_true", help="differential wrists instead of four-bar fingers")
    args = parser.parse_args()
    attached_main(30 if args.quick else 100, mechanism="differential" if args.differential else "four-bar")
    if args.attached:
        return
    maps_main()


def maps_main() -> None:
    """Print the maps-per-second table."""
    rng = np.random.default_rng(1234)
    transmissions: list[tuple[str, Transmission]] = [
        ("simple", SimpleTransmission(50.0, 0.5)),
        ("differential", DifferentialTransmission((50.0, -50.0), (2.0, -2.0), (0.5, -0.5))),
        ("four-bar", FourBarLinkageTransmission((50.0, -50.0), (2.0, -2.0), (0.5, -0.5))),
    ]
    print(f"Python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    print(f"actuator_to_joint ({INTERFACE}), median of {REPEATS}; maps/s = robots mapped per second")
    header = (
        f"{'transmission':<13}{'robots':>10}{'functional maps/s':>20}{'handle loop maps/s':>21}{'ratio':>10}"
    )
    print(header)
    print("-" * len(header))
    started = time.perf_counter()
    for name, trans in transmissions:
        for batch in BATCHES:
            values = rng.uniform(-10.0, 10.0, (batch, trans.num_actuators()))
            fast = functional_rate(trans, values)
            slow = handle_loop_rate(trans, values)
            print(f"{name:<13}{batch:>10,}{fast:>20,.0f}{slow:>21,.0f}{fast / slow:>9,.1f}x")
    print(
        f"(handle loop timed on at most {LOOP_SAMPLE:,} robots; total {time.perf_counter() - started:.0f} s)"
    )


if __name__ == "__main__":
    main()
