"""Cost of ODE's bounce threshold (``sim/bounce.py``): step time with the per-step contact edit vs without it.

Three worlds with Webots' default bouncy surface: the demo world (``examples/worlds/demo.wbt``, one rover and
its own controller), 20 demo rovers on an open floor driving in arcs (``sim_bench.py``'s world) and 50 boxes
resting on a floor (no controller). Each world is loaded three times: the threshold edited with numpy
(``compiled=False``), with the compiled loop (``compiled=True``, ``bounce_kernel.py``) and switched off
(``sim._bounce = None``: MuJoCo's plain ``mj_step``, the physics before issue 14). The three copies run
side by side from the same start, so they see nearly the same contacts.

Measured with paired alternating blocks (see ``paired.py``): the median and 10th-90th percentile of the
paired ratios of step times, numpy / off and compiled / off. The ratios include a difference of physics, not
only the edit: the resting contacts are another spring, and MuJoCo's Newton solver may need more iterations
for them. So the benchmark also prints the edit's own time per MuJoCo step (best of repeated calls on one
state after ``mj_step1``, so unaffected by load spikes) next to ``mj_step``'s, and the solver's iterations
per MuJoCo step (summed over the islands) with and without the threshold.

Run: ``python benchmarks/bounce_bench.py`` (``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import sys
import timeit
import tempfile
import warnings
from pathlib import Path

import mujoco

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paired import paired_ratios  # noqa: E402
from sim_bench import DEMO, make_project  # noqa: E402


def boxes_world(root: Path, boxes: int) -> Path:
    """A floor with ``boxes`` 0.2 m boxes of 1 kg resting on it in a grid (Webots' default contact)."""
    side = max(1, int(boxes**0.5 + 0.999))
    solids = "\n".join(
        f"Solid {{ translation {(i % side) * 0.5:.1f} {(i // side) * 0.5:.1f} 0.1 name \"box {i}\" "
        f"physics Physics {{ density -1 mass 1 }} boundingObject Box {{ size 0.2 0.2 0.2 }} }}"
        for i in range(boxes))
    text = ("#VRML_SIM R2023b utf8\nWorldInfo { basicTimeStep 4 physicsDisableTime 0 }\n"
            "Solid { name \"floor\" boundingObject Plane { size 40 40 } }\n" + solids + "\n")
    (root / "worlds").mkdir(parents=True, exist_ok=True)
    path = root / "worlds" / "boxes.wbt"
    path.write_text(text)
    return path


def load(path: Path, mode: str):
    """The world with its bounce threshold in ``mode`` (numpy, compiled or off), run 1 s to settle."""
    from wbsim.sim.bounce import BounceThreshold
    from wbsim.sim.simulation import load_world

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = load_world(path)
    assert sim._bounce is not None, "the benchmark worlds have a bouncy surface"
    sim._bounce = None if mode == "off" else BounceThreshold(sim.compiled.bounce, sim.model,
                                                              compiled=mode == "compiled")
    sim.run(1.0)
    return sim


def edit_times(sim) -> str:  # noqa: ANN001
    """The edit's own time per MuJoCo step, numpy and compiled, and ``mj_step``'s, on a copy of ``sim``'s
    state (best of repeated calls: the floor a load spike cannot raise)."""
    from wbsim.sim.bounce import BounceThreshold

    model = sim.model
    data = mujoco.MjData(model)
    mujoco.mj_copyData(data, model, sim.data)
    mujoco.mj_step1(model, data)
    frozen = mujoco.MjData(model)
    mujoco.mj_copyData(frozen, model, data)
    times = {}
    for name, compiled in (("numpy", False), ("compiled", True)):
        threshold = BounceThreshold(sim.compiled.bounce, model, compiled=compiled)
        threshold.edit(model, data)  # loads the compiled loop
        times[name] = min(timeit.repeat(lambda t=threshold: t.edit(model, data), number=200, repeat=9)) / 200
    step = mujoco.MjData(model)

    def one_step() -> None:
        mujoco.mj_copyData(step, model, frozen)
        mujoco.mj_step(model, step)

    copy = timeit.repeat(lambda: mujoco.mj_copyData(step, model, frozen), number=200, repeat=9)
    copy_only = min(copy) / 200
    times["mj_step"] = min(timeit.repeat(one_step, number=200, repeat=9)) / 200 - copy_only
    return (f"{data.ncon} contacts; per MuJoCo step: edit {1e6 * times['numpy']:.1f} us numpy, "
            f"{1e6 * times['compiled']:.1f} us compiled; mj_step {1e6 * times['mj_step']:.1f} us")


def iterations(sim, steps: int = 50) -> float:  # noqa: ANN001
    """Mean solver iterations per MuJoCo step (summed over the constraint islands) over ``steps`` basic
    steps."""
    total = 0
    for _ in range(steps):
        sim.step()
        total += int(sim.data.solver_niter[:max(sim.data.nisland, 1)].sum())
    return total / steps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer blocks")
    args = parser.parse_args()
    pairs = 20 if args.quick else 60
    print(f"python {sys.version.split()[0]}, mujoco {mujoco.__version__}; {pairs} pairs of alternating "
          "blocks; ratio = step time with the threshold / without it, median of the paired ratios (p10-p90)")
    with tempfile.TemporaryDirectory() as tmp:
        worlds = [("demo world", DEMO, 25), ("20 rovers", make_project(Path(tmp) / "rovers", 20), 10),
                  ("50 boxes", boxes_world(Path(tmp) / "boxes", 50), 25)]
        for label, path, steps in worlds:
            sims = {mode: load(path, mode) for mode in ("off", "numpy", "compiled")}

            def block(mode: str, sims=sims, steps=steps):  # noqa: ANN001, ANN202
                sim = sims[mode]
                return lambda: [sim.step() for _ in range(steps)]

            numpy_path = paired_ratios(block("off"), block("numpy"), pairs)
            compiled = paired_ratios(block("off"), block("compiled"), pairs)
            off_us = 1e6 * sorted(numpy_path.seconds_a)[pairs // 2] / steps
            print(f"{label:<11} off {off_us:7.0f} us/step   {numpy_path.describe('numpy/off')}   "
                  f"{compiled.describe('compiled/off')}")
            print(f"{'':<11} {edit_times(sims['compiled'])}; solver iterations per MuJoCo step "
                  f"{iterations(sims['off']):.2f} off, {iterations(sims['compiled']):.2f} on")
            for sim in sims.values():
                sim.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
