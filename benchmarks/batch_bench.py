"""Aggregate throughput of ``wbsim.run_many``: simulated seconds per wall second over all runs, with 1 and 2
worker processes, on the 5-robot demo-rover benchmark world (``sim_bench.make_project``). Each run loads its
world in its worker (load time included, as a batch user sees it).

Run: ``python benchmarks/batch_bench.py`` (``--runs 8 --duration 2`` by default).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sim_bench import make_project  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--duration", type=float, default=2.0, help="simulated seconds per run")
    parser.add_argument("--robots", type=int, default=5)
    args = parser.parse_args()
    from wbsim.batch import run_many

    with tempfile.TemporaryDirectory() as tmp:
        path = make_project(Path(tmp), args.robots)
        print(f"{args.runs} runs of {args.duration} s, {args.robots} robots each")
        for workers in (1, 2):
            start = time.perf_counter()
            records = run_many(path, range(args.runs), args.duration, workers=workers)
            wall = time.perf_counter() - start
            failed = sum(r.exit_status != 0 for r in records)
            simulated = sum(r.sim_time_s for r in records)
            print(f"{workers} worker(s): {wall:6.2f} s wall, {simulated / wall:6.2f} simulated s per wall s, "
                  f"{args.runs / wall:5.2f} runs/s, {failed} failed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
