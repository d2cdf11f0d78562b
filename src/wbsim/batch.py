"""Running many independent copies of a world: one seed each, in worker processes.

:func:`run_many` loads the world once per seed in a worker process (``spawn``: a fresh interpreter, so
controllers' module state, the working directory and MuJoCo's globals are never shared between runs
running at once), runs it, and returns one :class:`RunRecord` per seed, in seed order. Everything in a
record but ``wall_time_s`` is deterministic for a seed (same world + seed => bit-identical runs), whichever
worker ran it and in whatever order.

A run that fails (the world does not load, a controller crashes, the physics diverges) is reported in its
record (``exit_status`` and ``error``); the other runs go on.
"""

from __future__ import annotations

import contextlib
import io
import json
import multiprocessing
import os
import time
import traceback
import warnings
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path

from wbsim.errors import SimulationError, WbsimError, WorldLoadError

__all__ = ["RunRecord", "run_many", "parse_seeds", "LOAD_FAILED", "RUN_FAILED"]

LOAD_FAILED = 2
"""``exit_status`` of a run whose world did not load (as ``wbsim run``)."""

RUN_FAILED = 1
"""``exit_status`` of a run in which a controller or the physics plugin raised, or the physics diverged."""


@dataclass(frozen=True)
class RunRecord:
    """The outcome of one run of :func:`run_many`.

    Attributes:
        seed: the random seed of the run (``WorldInfo.randomSeed`` overridden).
        exit_status: the supervisor's ``simulationQuit`` status, else 0; :data:`RUN_FAILED` when a controller
            or the physics plugin raised or the physics diverged, :data:`LOAD_FAILED` when the world did not load.
        sim_time_s: the simulated time at the end (s).
        custom_data: each robot's ``customData`` at the end, by robot name (how a supervisor or controller
            reports results, as in Webots).
        output: what the run printed: load warnings (``warning: ...`` lines), then the controllers' standard
            output and error (tracebacks included), in order.
        error: why the run failed outside its controllers (load errors, divergence), or None.
        wall_time_s: wall-clock seconds the run took in its worker (load included); not deterministic.
    """

    seed: int
    exit_status: int
    sim_time_s: float
    custom_data: dict[str, str] = field(default_factory=dict)
    output: str = ""
    error: str | None = None
    wall_time_s: float = 0.0

    def to_json(self) -> str:
        """The record as one JSON line (keys in the attribute order)."""
        return json.dumps(asdict(self))


def parse_seeds(text: str) -> list[int]:
    """Seeds from a command-line list: ``"0-99"``, ``"1,5,9"`` or both (``"0-9,20"``); ranges are inclusive.

    Raises:
        ValueError: for an empty or malformed list, or a range whose end is below its start.
    """
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise ValueError(f"empty item in seed list {text!r}")
        low, dash, high = part.partition("-") if not part.startswith("-") else ("", "", "")
        if dash:
            start, end = int(low), int(high)
            if end < start:
                raise ValueError(f"seed range {part!r} ends before it starts")
            seeds.extend(range(start, end + 1))
        else:
            seeds.append(int(part))
    return seeds


def _run_one(world: str, seed: int, duration_s: float | None, max_physics_step_ms: float) -> RunRecord:
    """Load and run one copy of ``world`` with ``seed`` (in a worker process); never raises for the run's
    own failures."""
    from wbsim.sim.simulation import load_world

    start = time.perf_counter()
    buffer = io.StringIO()
    sim = None
    status, sim_time, custom, error = 0, 0.0, {}, None
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")  # every run shows its own load warnings, not only a worker's first
                sim = load_world(world, seed=seed, max_physics_step_ms=max_physics_step_ms)
            for item in caught:
                print(f"warning: {item.message}", file=buffer)
            if duration_s is None and not sim.controllers_running():
                raise SimulationError("no controller runs in this world: give a duration to run it for a fixed time")
            status = sim.run(duration_s)
            if status == 0 and sim.failed:
                status = RUN_FAILED
        except WorldLoadError as load_error:
            status, error = LOAD_FAILED, str(load_error)
        except WbsimError as run_error:  # divergence, a missing controller, a plugin that cannot load
            status, error = (LOAD_FAILED if sim is None else RUN_FAILED), str(run_error)
        except Exception:  # noqa: BLE001 - a run's failure is its record, never the batch's
            status, error = RUN_FAILED, traceback.format_exc()
        finally:
            if sim is not None:
                sim_time = sim.time_s
                custom = {robot.name: robot.custom_data for robot in sim.robots}
                try:
                    sim.close()
                except WbsimError as close_error:
                    status, error = status or RUN_FAILED, error or str(close_error)
                if status == 0 and sim.failed:  # the plugin's cleanup may raise too
                    status = RUN_FAILED
    return RunRecord(seed=seed, exit_status=status, sim_time_s=sim_time, custom_data=custom,
                     output=buffer.getvalue(), error=error, wall_time_s=time.perf_counter() - start)


def run_many(world: str | os.PathLike[str], seeds: Iterable[int], duration_s: float | None = None, *,
             workers: int | None = None, max_physics_step_ms: float = 4.0,
             on_result: Callable[[RunRecord], None] | None = None) -> list[RunRecord]:
    """Run one independent copy of ``world`` per seed in worker processes.

    Args:
        world: the ``.wbt`` file.
        seeds: the random seeds (``WorldInfo.randomSeed`` overridden), one run each; duplicates run twice.
        duration_s: simulated seconds per run; None runs until every controller ends or a supervisor quits.
        workers: worker processes (default: the number of CPUs); each runs one world at a time.
        max_physics_step_ms: the largest MuJoCo step, as in :func:`wbsim.load_world`.
        on_result: called in this process with each record as its run ends (completion order), e.g. to
            show progress or write results as they come.

    Returns:
        One :class:`RunRecord` per seed, in the order of ``seeds``.

    Raises:
        ValueError: for a seed that is not an int, a negative or NaN duration, or fewer than 1 worker.
    """
    seed_list = list(seeds)
    for seed in seed_list:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seeds must be ints, got {seed!r}")
    if duration_s is not None and not duration_s >= 0:  # also refuses NaN
        raise ValueError(f"duration_s must be a number of seconds >= 0 (or None), got {duration_s!r}")
    count = workers if workers is not None else (os.cpu_count() or 1)
    if count < 1:
        raise ValueError(f"workers must be at least 1, got {workers!r}")
    path = str(Path(world).resolve())
    records: list[RunRecord | None] = [None] * len(seed_list)
    if not seed_list:
        return []
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(count, len(seed_list)), mp_context=context) as pool:
        pending: dict[Future[RunRecord], int] = {
            pool.submit(_run_one, path, seed, duration_s, max_physics_step_ms): index
            for index, seed in enumerate(seed_list)
        }
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                index = pending.pop(future)
                try:
                    record = future.result()
                except Exception as crash:  # noqa: BLE001 - the worker process died (e.g. a crash in C)
                    record = RunRecord(seed=seed_list[index], exit_status=RUN_FAILED, sim_time_s=0.0,
                                       error=f"the worker process running this seed failed: {crash!r}")
                records[index] = record
                if on_result is not None:
                    on_result(record)
    return [record for record in records if record is not None]
