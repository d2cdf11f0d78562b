"""Load time against the number of robots: parse + check, compile (tree walk, MuJoCo's compile, derived
constants, attaching the builder's groups of top-level specs) and simulation set-up of the demo-rover benchmark world (``sim_bench.make_project``) with 10, 100
and 1,000 robots, so the growth is visible. Times are CPU seconds of this process (``time.process_time``,
steadier than wall time on a shared machine) with the wall time beside them.

Run: ``python benchmarks/load_bench.py`` (``--robots 10 100`` for other sizes).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sim_bench import make_project  # noqa: E402


def load_phases(path: Path) -> dict[str, tuple[float, float]]:
    """(CPU s, wall s) of each load phase of the world at ``path``, plus MuJoCo's compile and ``mj_setConst``
    inside the compile phase (measured with a profiler-free wrapper)."""
    import mujoco

    from wbsim.compile.builder import compile_world
    from wbsim.sim.simulation import Simulation
    from wbsim.world.loader import load_world_model

    inner: dict[str, list[float]] = {"MuJoCo compile": [0.0, 0.0], "mj_setConst": [0.0, 0.0],
                                     "MjSpec.attach": [0.0, 0.0]}
    original_compile, original_set_const = mujoco.MjSpec.compile, mujoco.mj_setConst
    original_attach = mujoco.MjSpec.attach

    def timed(label, fn):  # noqa: ANN001, ANN202
        def wrapper(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            c, w = time.process_time(), time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                inner[label][0] += time.process_time() - c
                inner[label][1] += time.perf_counter() - w
        return wrapper

    phases: dict[str, tuple[float, float]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c, w = time.process_time(), time.perf_counter()
        model = load_world_model(path)
        phases["parse + check"] = (time.process_time() - c, time.perf_counter() - w)
        mujoco.MjSpec.compile = timed("MuJoCo compile", original_compile)
        mujoco.mj_setConst = timed("mj_setConst", original_set_const)
        mujoco.MjSpec.attach = timed("MjSpec.attach", original_attach)
        try:
            c, w = time.process_time(), time.perf_counter()
            compiled = compile_world(model)
            phases["compile"] = (time.process_time() - c, time.perf_counter() - w)
        finally:
            mujoco.MjSpec.compile, mujoco.mj_setConst = original_compile, original_set_const
            mujoco.MjSpec.attach = original_attach
        c, w = time.process_time(), time.perf_counter()
        sim = Simulation(compiled)
        phases["simulation"] = (time.process_time() - c, time.perf_counter() - w)
        sim.close()
    for label, (cpu, wall) in inner.items():
        phases[f"  of which {label}"] = (cpu, wall)
    # For scale: one mj_setConst of the final model (MuJoCo's compile runs one inside; its cost grows with
    # bodies x degrees of freedom), not part of the load.
    data = mujoco.MjData(compiled.model)
    c, w = time.process_time(), time.perf_counter()
    mujoco.mj_setConst(compiled.model, data)
    scale = (time.process_time() - c, time.perf_counter() - w)
    phases["total"] = (sum(v[0] for k, v in phases.items() if not k.startswith(" ")),
                       sum(v[1] for k, v in phases.items() if not k.startswith(" ")))
    phases["(one mj_setConst, not in load)"] = scale
    return phases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--robots", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--profile", action="store_true", help="print the top functions of the largest load")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = {}
        for robots in args.robots:
            path = make_project(Path(tmp) / f"p{robots}", robots)
            results[robots] = load_phases(path)
        labels = list(next(iter(results.values())))
        print(f"{'CPU s (wall s)':<32}" + "".join(f"{f'{n} robots':>20}" for n in args.robots))
        for label in labels:
            cells = "".join(f"{f'{results[n][label][0]:.2f} ({results[n][label][1]:.2f})':>20}" for n in args.robots)
            print(f"{label:<32}{cells}")
        if args.profile:
            from wbsim.sim.simulation import load_world

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cProfile.runctx("load_world(path).close()", globals(), {"load_world": load_world, "path": path},
                                str(Path(tmp) / "prof"))
            pstats.Stats(str(Path(tmp) / "prof")).sort_stats("tottime").print_stats(15)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
