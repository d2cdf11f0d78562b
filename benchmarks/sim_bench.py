"""Simulation speed: wbsim against a hand-written MuJoCo loop on the same compiled model.

For the demo robot and for 20 such robots, both sides do the same work per basic time step: read the
two wheel encoders of every robot, compute the same wheel speeds, write them as the velocity motors'
inputs, and advance MuJoCo by one basic time step (``mj_step`` with the same substeps). wbsim runs an
ordinary Webots controller per robot (greenlets, the Webots API, sampling, motor control law); the
baseline is a plain Python loop over MuJoCo arrays. Both run in the same process in short alternating
blocks of about 20 ms, many pairs (``paired.py``), so that the load of a shared machine hits both sides of a
pair alike; figures are steps per second (basic steps, median block) and the median of the paired speed
ratios wbsim / baseline with its 10th-90th percentile range, for 1, 20 and 100 robots.

wbsim pauses MuJoCo's stage timers around its physics steps (``sim/timers.py``; the binding's clock callback costs
about 2.6 us of the 1-robot world's 27 us basic step); the hand-written loop keeps them, as any program using the
binding does. A second row per world ("loop, no timers") compares against the same loop with the timers paused too:
wbsim's own layer alone.

Also against raw C stepping: the same model advanced by ``mj_step`` with all the block's steps in one call
(no Python, no controller, the timers paused), the cost floor of the physics alone; and loading a world with 100
robots.

wbsim's blocks are ``Simulation.run`` calls on a warmed-up simulation (its bounce threshold on its compiled edit, as
in any long enough run: about 180 s of simulated time for one rover in a fresh process); ``--step-loop`` adds a row per world with ``Simulation.step`` called from
a Python loop instead (a script with its own code between steps: the working directory then goes back to the
script's after every step).

Run: ``python benchmarks/sim_bench.py`` (``--quick`` for a short run, ``--robots 1 20`` to choose).
``--no-bounce-emulation`` drops wbsim's per-physics-step bounce-threshold edit (``sim/bounce.py``; the hand-written
loop has no equivalent; the demo's default material bounces on itself by Webots' default ContactProperties) for a
measurement of the rest of wbsim's layer only: the physics then differs slightly from a normal run.
``--floor`` adds two rows per world: the same controller work through a bare greenlet layer (a switch for
``Robot.step``, list reads and writes for the devices; its speed in the first column) against the MuJoCo loop,
the least any greenlet-based controller layer costs; and wbsim against that floor (wbsim's layer beyond it).
``--cold``: for each side (wbsim, the floor with ``--floor``, the loop), a block right after a foreign block (raw
``mj_step`` of another copy of the model) against one right after its own, as a ratio of times (> 1: slower after
the foreign block): what the alternation costs a side whose working set the other side's block evicts (in the
alternating rows, ``paired.py``'s order A B, B A, A B, ... puts a side's block after the other side's in every
other pair, after its own in the rest). wbsim's physics loop of a bouncy world becomes one ``mj_step`` call per
basic step once the bounce edit's compiled code is loaded (``sim/c_steps.py``): at once when numba is already
imported in the process, else after the rent-or-buy count of ``sim/bounce.py``.
"""

from __future__ import annotations

import argparse
import math
import re
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import mujoco

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paired import PairedResult, block_seconds, paired_ratios  # noqa: E402

from wbsim.sim.timers import TimerPause  # noqa: E402

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


def _bounce_settled(sim: object) -> bool:
    """The bounce threshold's edit is what it stays for the run: its compiled loop (reading the struct in place),
    or numpy for good (numba missing: no kernel after the load was tried; or a struct layout that did not check
    out: tables made, no loop), or there is no bounce threshold."""
    bounce = sim._bounce  # type: ignore[attr-defined]  # noqa: SLF001
    if bounce is None or bounce._raw is not None:  # noqa: SLF001
        return True
    if bounce._numpy_left >= 0:  # noqa: SLF001  # still within its numpy budget
        return False
    return bounce._kernel is None or bounce._raw_tables is not None  # noqa: SLF001


def wbsim_block(path: Path, steps: int, bounce_emulation: bool = True,
                step_loop: bool = False) -> tuple[object, Callable[[], None]]:
    """A warmed-up simulation and a function running ``steps`` basic steps of it (controllers included) with
    ``Simulation.run`` (``step_loop``: ``Simulation.step`` called from a Python loop, as a script interleaving its
    own code between steps would). ``bounce_emulation=False`` switches off the bounce-threshold contact edit (a
    measurement aid only).

    Warm-up: the controllers started and their sensors enabled, and the run's steady state: the bounce threshold
    edits with its compiled loop (in one ``mj_step`` call per basic step, ``sim/c_steps.py``), as every run
    longer than ``bounce.NUMPY_EDITS`` edits does (one rover in a fresh process: about 180 s of simulated time,
    under a second; none once numba is imported; importing numba and loading the loop are not measured). Without
    numba it stays numpy, and a note says so."""
    sim = _load(path)
    if not bounce_emulation:
        sim._bounce = None  # noqa: SLF001  # the per-physics-step edit of sim/bounce.py
    from wbsim.sim.bounce import NUMPY_EDITS

    sim.run(0.1)
    # Bounded: the numpy budget (bounce.NUMPY_EDITS, at least one edit per MuJoCo step with contacts) ends within
    # NUMPY_EDITS MuJoCo steps; twice that, in runs of 0.5 s, for a world whose contacts come late.
    runs = math.ceil(2 * NUMPY_EDITS * sim.basic_time_step_ms / sim.substeps / 1000.0 / 0.5)  # type: ignore[attr-defined]
    for _ in range(runs):
        if _bounce_settled(sim) or sim.ended:  # type: ignore[attr-defined]
            break
        sim.run(0.5)  # type: ignore[attr-defined]
    if sim._bounce is not None and sim._bounce._raw is None:  # type: ignore[attr-defined]  # noqa: SLF001
        print("note: the bounce threshold does not edit with its compiled struct-reading loop here (numba missing, "
              "or MuJoCo's struct layout refused): wbsim's rows measure its slower edit", file=sys.stderr)
    duration_s = steps * sim.basic_time_step_ms / 1000.0  # type: ignore[attr-defined]

    def run() -> None:
        sim.run(duration_s)  # type: ignore[attr-defined]

    def loop() -> None:
        for _ in range(steps):
            sim.step()  # type: ignore[attr-defined]

    return sim, loop if step_loop else run


def baseline_block(path: Path, steps: int, start: mujoco.MjData | None = None,
                   timers: bool = True) -> Callable[[], None]:
    """A function running ``steps`` basic steps of a hand-written MuJoCo loop on the same model, with the same
    encoder reads and motor writes as the benchmark controller, from the state ``start`` (wbsim's warmed-up
    simulation's data: both sides then drive their robots from the same poses, so that a pair's blocks meet
    the same contacts) or the world's initial state. ``timers=False``: MuJoCo's stage timers paused around the
    block, as wbsim pauses them around its physics steps (``sim/timers.py``); by default they run, as in any
    program using the binding."""
    sim = _load(path)
    model = sim.model
    data = mujoco.MjData(model)
    mujoco.mj_copyData(data, model, sim.data if start is None else start)
    substeps = sim.substeps
    motors = sim.bindings.devices["motor"]
    sensors = sim.bindings.devices["position_sensor"]
    robots = []
    for robot in sim.bindings.robots:
        rows = {ref.kind: [] for ref in robot.devices}
        for ref in robot.devices:
            rows[ref.kind].append(ref.row)
        (ls, rs), (lm, rm) = rows["position_sensor"][:2], rows["motor"][:2]
        robots.append((sensors[ls].joint.qpos_adr, sensors[rs].joint.qpos_adr,
                       motors[lm].reference_dof_adr, motors[rm].reference_dof_adr))
    sim.close()
    qpos, qvel = data.qpos, data.qvel
    for _ in range(20):
        mujoco.mj_step(model, data, nstep=substeps)

    def loop() -> None:
        for _ in range(steps):
            for left_q, right_q, left_ref, right_ref in robots:
                a, b = float(qpos[left_q]), float(qpos[right_q])
                turn = ((a - b) % 6.0) - 3.0
                qvel[left_ref] = 6.0 - 0.3 * turn
                qvel[right_ref] = 6.0 + 0.3 * turn
            mujoco.mj_step(model, data, nstep=substeps)

    pause = None if timers else TimerPause.find()

    def run() -> None:
        if pause is None:
            loop()
            return
        saved = pause.pause()
        try:
            loop()
        finally:
            pause.resume(saved)

    run.model, run.data, run.substeps, run.robots = model, data, substeps, robots  # type: ignore[attr-defined]
    return run


def greenlet_floor_block(path: Path, steps: int, start: mujoco.MjData | None = None) -> Callable[[], None]:
    """A function running ``steps`` basic steps of the benchmark controller (``CONTROLLER``, the same source)
    through a bare greenlet layer: one greenlet per robot, ``Robot.step`` a switch back to the host, the devices'
    reads and writes plain list accesses; the host copies the targets into MuJoCo, steps it and copies the encoders
    back. What any greenlet-based controller layer costs at least (no bounce threshold, no sampling periods, no
    isolation, no Webots semantics beyond the calls the controller makes)."""
    import greenlet

    run_baseline = baseline_block(path, steps, start)  # the same model, state and addresses
    model, data, substeps, robots = run_baseline.model, run_baseline.data, run_baseline.substeps, run_baseline.robots
    basic_ms = round(model.opt.timestep * substeps * 1000)
    host = greenlet.getcurrent()
    values = [[0.0, 0.0] for _ in robots]
    targets = [[0.0, 0.0] for _ in robots]

    class Sensor:
        __slots__ = ("values", "index")

        def __init__(self, values: list[float], index: int) -> None:
            self.values, self.index = values, index

        def enable(self, period_ms: int) -> None:
            pass

        def getValue(self) -> float:  # noqa: N802
            return self.values[self.index]

    class Motor:
        __slots__ = ("targets", "index")

        def __init__(self, targets: list[float], index: int) -> None:
            self.targets, self.index = targets, index

        def setPosition(self, position: float) -> None:  # noqa: N802
            pass

        def setVelocity(self, velocity: float) -> None:  # noqa: N802
            velocity = float(velocity)
            if not abs(velocity) <= 1e3:
                raise ValueError(velocity)
            self.targets[self.index] = velocity

    def robot_class(k: int) -> type:
        devices = {"left wheel sensor": Sensor(values[k], 0), "right wheel sensor": Sensor(values[k], 1),
                   "left wheel motor": Motor(targets[k], 0), "right wheel motor": Motor(targets[k], 1)}

        class Robot:
            def getBasicTimeStep(self) -> float:  # noqa: N802
                return float(basic_ms)

            def getDevice(self, name: str) -> object:  # noqa: N802
                return devices[name]

            def step(self, duration_ms: int) -> int:
                return host.switch()

        return Robot

    code = compile(CONTROLLER.replace("from controller import Robot\n", ""), "bench_drive.py", "exec")
    greenlets = [greenlet.greenlet(lambda k=k: exec(code, {"Robot": robot_class(k)})) for k in range(len(robots))]
    for g in greenlets:
        g.switch()  # to its first Robot.step
    qpos, qvel = data.qpos, data.qvel
    rows = list(zip(greenlets, robots, values, targets))

    def run() -> None:
        for _ in range(steps):
            for g, (left_q, right_q, left_ref, right_ref), value, target in rows:
                value[0], value[1] = float(qpos[left_q]), float(qpos[right_q])
                g.switch(0)
                qvel[left_ref], qvel[right_ref] = target
            mujoco.mj_step(model, data, nstep=substeps)

    run.data = data  # type: ignore[attr-defined]
    return run


def raw_block(path: Path, steps: int, start: mujoco.MjData | None = None) -> Callable[[], None]:
    """A function advancing the same model by ``steps`` basic steps in one C call (``mj_step`` with
    ``nstep = steps * substeps``) from ``start`` (as :func:`baseline_block`): no controller, no Python per step,
    MuJoCo's stage timers paused (as wbsim pauses them); the floor of what any loop can reach."""
    sim = _load(path)
    model, data = sim.model, mujoco.MjData(sim.model)
    mujoco.mj_copyData(data, model, sim.data if start is None else start)
    total = steps * sim.substeps
    sim.close()
    pause = TimerPause.find()

    def run() -> None:
        saved = pause.pause() if pause is not None else None
        try:
            mujoco.mj_step(model, data, nstep=total)
        finally:
            if pause is not None:
                pause.resume(saved)

    return run


def block_steps(robots: int, block_ms: float = 20.0) -> int:
    """Basic steps per block for a world of ``robots`` rovers, for blocks of nominally ``block_ms`` ms: ``30 *
    block_ms // (robots + 1)``, at least 3 (sized on the slower machine of 2026-11-26; on the AMD EPYC machine the
    default's 300 / 28 / 5 steps for 1 / 20 / 100 robots take about 9 / 13 / 14 ms). Short blocks let load spikes
    hit both sides of a pair alike; longer ones weigh a block's start (its cold caches) less."""
    return max(3, int(30 * block_ms) // (robots + 1))


def cold_start(run: Callable[[], None], foreign: Callable[[], None], pairs: int) -> PairedResult:
    """How much more a block of ``run`` costs right after a ``foreign`` block than right after one of its own:
    ``pairs`` pairs of the two (the order flips every pair), each ratio time after foreign / time after own (the
    result's side A: after its own). In the alternating rows (``paired.py``: A B, B A, A B, ...) a side's block
    follows the other side's in every other pair and its own in the rest, so a side whose working set the other
    evicts pays this in half of its blocks, which splits the paired ratios by pair parity (a real run does not
    alternate with another simulation)."""

    ratios, own, after_foreign = [], [], []
    for i in range(pairs):
        if i % 2 == 0:
            run()
            a = block_seconds(run)
            foreign()
            b = block_seconds(run)
        else:
            foreign()
            b = block_seconds(run)
            a = block_seconds(run)
        own.append(a)
        after_foreign.append(b)
        ratios.append(b / a)
    return PairedResult(tuple(ratios), tuple(own), tuple(after_foreign))


def load_time(path: Path) -> float:
    """Seconds to load, check and compile a world into a ready simulation."""
    start = time.perf_counter()
    sim = _load(path)
    elapsed = time.perf_counter() - start
    sim.close()
    return elapsed


def _row(label: str, steps: int, result, other: str) -> str:  # noqa: ANN001
    w = steps / statistics.median(result.seconds_a)
    b = steps / statistics.median(result.seconds_b)
    median, low, high = result.median, result.percentile(10), result.percentile(90)
    return f"{label:<16}{w:>12,.0f}{b:>14,.0f} {other:<16}{f'{median:.3f} ({low:.3f}-{high:.3f})':>22}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer pairs of blocks")
    parser.add_argument("--pairs", type=int, default=None, help="pairs of alternating blocks per scenario")
    parser.add_argument("--robots", type=int, nargs="+", default=[1, 20, 100])
    parser.add_argument("--no-bounce-emulation", action="store_true",
                        help="measure wbsim without its bounce-threshold contact edit (see the module docstring)")
    parser.add_argument("--floor", action="store_true",
                        help="also a bare greenlet layer doing the controller's work against the MuJoCo loop (the "
                             "least any greenlet-based controller layer costs), and wbsim against it")
    parser.add_argument("--step-loop", action="store_true",
                        help="also wbsim stepped by Simulation.step from a Python loop (the first rows use "
                             "Simulation.run, which keeps the controllers' working directory between steps)")
    parser.add_argument("--block-ms", type=float, default=20.0,
                        help="the blocks' nominal length in ms (default 20: 300 / 28 / 5 basic steps for 1 / 20 / 100 "
                             "robots); longer blocks weigh what a block's start costs less, at more noise per pair")
    parser.add_argument("--cold", action="store_true",
                        help="also the cost of a block run right after a foreign mj_step block (another model's data) "
                             "against one run after its own, for wbsim, the greenlet floor and the loop")
    args = parser.parse_args()
    pairs = args.pairs or (30 if args.quick else 150)
    print(f"python {sys.version.split()[0]}, mujoco {mujoco.__version__}; {pairs} pairs of alternating blocks of "
          f"about {args.block_ms:g} ms; ratio = wbsim speed / other speed, median of the paired ratios (p10-p90)"
          + ("; wbsim without its bounce-threshold edit" if args.no_bounce_emulation else ""))
    print(f"{'scenario':<16}{'wbsim st/s':>12}{'other st/s':>14} {'other':<16}{'ratio (p10-p90)':>22}")
    with tempfile.TemporaryDirectory() as tmp:
        for robots in args.robots:
            path = make_project(Path(tmp) / f"p{robots}", robots)
            steps = block_steps(robots, args.block_ms)
            sim, ours = wbsim_block(path, steps, bounce_emulation=not args.no_bounce_emulation)
            label = "demo robot" if robots == 1 else f"{robots} robots"
            loop = paired_ratios(ours, baseline_block(path, steps, sim.data), pairs)
            print(_row(label, steps, loop, "MuJoCo loop"))
            # The same loop with MuJoCo's stage timers paused as wbsim pauses them: wbsim's own layer only.
            untimed = paired_ratios(ours, baseline_block(path, steps, sim.data, timers=False), pairs)
            print(_row(label, steps, untimed, "loop, no timers"))
            if args.step_loop:  # wbsim stepped from a Python loop (Simulation.step), against the same loop
                stepped, ours_stepped = wbsim_block(path, steps, bounce_emulation=not args.no_bounce_emulation,
                                                    step_loop=True)
                loop = paired_ratios(ours_stepped, baseline_block(path, steps, stepped.data), pairs)
                print(_row(f"{label[:10]}, step()", steps, loop, "MuJoCo loop"))
                stepped.close()  # type: ignore[attr-defined]
            raw = paired_ratios(ours, raw_block(path, steps, sim.data), pairs)
            print(_row(label, steps, raw, "raw mj_step"))
            if args.floor:  # the same loop through a bare greenlet layer, against the MuJoCo loop
                floor = paired_ratios(greenlet_floor_block(path, steps, sim.data),
                                      baseline_block(path, steps, sim.data), pairs)
                print(_row(f"floor, {robots} rob.", steps, floor, "MuJoCo loop"))
                # wbsim against the floor itself: what wbsim's layer costs beyond any greenlet layer's least.
                over = paired_ratios(ours, greenlet_floor_block(path, steps, sim.data), pairs)
                print(_row(label, steps, over, "greenlet floor"))
            if args.cold:  # the cold start each alternating block pays: after a foreign block / after its own
                other = raw_block(path, steps, sim.data)
                sides = [("wbsim", ours), ("loop", baseline_block(path, steps, sim.data))]
                if args.floor:
                    sides.insert(1, ("floor", greenlet_floor_block(path, steps, sim.data)))
                for name, run in sides:
                    cold = cold_start(run, other, pairs)
                    print(f"{f'cold, {robots} rob.':<16}{name:>12}{'':>14} {'after own block':<16}"
                          f"{f'{cold.median:.3f} ({cold.percentile(10):.3f}-{cold.percentile(90):.3f})':>22}")
            sim.close()  # type: ignore[attr-defined]
        path = make_project(Path(tmp) / "p100", 100)
        times = [load_time(path) for _ in range(3 if args.quick else 5)]
        print(f"load + compile 100 robots: {statistics.median(times):.3f} s (median of {len(times)}; "
              "benchmarks/load_bench.py for 10 to 1,000)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
