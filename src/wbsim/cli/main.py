"""The ``wbsim`` command line: ``run``, ``check`` and ``--version``.

Exit statuses: ``run`` returns the supervisor's ``simulationQuit`` status (0 otherwise); 2 for a world
that does not load (every problem is printed) or bad arguments; 1 when the physics diverges or the physics
plugin raised; 70 (``EX_SOFTWARE``) when a controller raised (its traceback is printed when it happens, the run goes on without
it, and a summary of every controller that raised ends the run), unless ``--keep-going``; 130 when
interrupted with Ctrl-C.
``check`` returns 0 when the world loads cleanly, 1 when it has problems, and 2 when a file it needs
(a Webots PROTO or mesh) is found nowhere.

Messages: located warnings and errors are printed once each, as ``file:line:column: warning: text [in
node path]``, with paths relative to the current folder, sorted by file, line and column.

Both take ``--webots-home DIR`` (a Webots installation or checkout for ``webots://`` assets; default
``WEBOTS_HOME``) and ``--offline`` (never download Webots' assets; also ``WBSIM_OFFLINE=1``).
``run --seeds LIST`` runs one copy of the world per seed (``wbsim.run_many``) and prints one JSON line per run
in seed order; it returns 0 when every run ended with status 0, else 1.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

from wbsim._version import __version__
from wbsim.errors import SimulationError, SourceLocation, WbsimError, WorldAssetError, WorldError, WorldLoadError
from wbsim.world.model import WorldWarning

__all__ = ["main", "build_parser"]

_LOAD_ERROR = 2
CONTROLLER_RAISED = 70
"""Exit status of ``wbsim run`` when a controller raised (without ``--keep-going``)."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``wbsim`` command."""
    parser = argparse.ArgumentParser(
        prog="wbsim",
        description="Run Webots-format worlds headless on MuJoCo, with Webots Python controllers.",
    )
    parser.add_argument("--version", action="version", version=f"wbsim {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = commands.add_parser("run", help="run a world headless", description="Run a world headless.")
    run.add_argument("world", type=Path, help="the .wbt file")
    run.add_argument("--duration", type=float, metavar="S",
                     help="simulated seconds to run (default: until every controller ends or a supervisor quits)")
    run.add_argument("--mode", choices=("fast", "realtime"), default="fast",
                     help="fast: as fast as possible (default); realtime: paced to the wall clock")
    run.add_argument("--seed", type=int, help="random seed overriding WorldInfo.randomSeed (-1: time-based)")
    run.add_argument("--no-progress", action="store_true", help="no progress display")
    run.add_argument("--record", type=Path, metavar="FILE",
                     help="record the run for later viewing into FILE (.npz: every Solid's pose and the devices' "
                          "visual state at WorldInfo.FPS; read it with wbsim.recording.load)")
    run.add_argument("--missing-controller", choices=("error", "warn"), default="error",
                     help="what to do when a robot's controller file is missing (default: error)")
    run.add_argument("--keep-going", action="store_true",
                     help=f"a controller that raised does not change the exit status (otherwise {CONTROLLER_RAISED})")
    run.add_argument("--seeds", metavar="LIST",
                     help="run one independent copy per seed (e.g. 0-99 or 1,5,9) in worker processes and write one "
                          "JSON line per run on stdout, in seed order (see wbsim.run_many)")
    run.add_argument("--workers", type=int, metavar="N",
                     help="worker processes for --seeds (default: the number of CPUs)")

    check = commands.add_parser("check", help="check a world and report every problem",
                                description="Check a world file and report every problem found.")
    check.add_argument("world", type=Path, help="the .wbt file")
    for command in (run, check):
        command.add_argument("--webots-home", type=Path, metavar="DIR",
                             help="a Webots installation or checkout for webots:// assets (default: WEBOTS_HOME)")
        command.add_argument("--offline", action="store_true", default=None,
                             help="never download Webots' assets (default: WBSIM_OFFLINE)")
    return parser


def _relative(path: str) -> str:
    """``path`` relative to the current folder (as given when that fails, e.g. on another drive)."""
    try:
        return os.path.relpath(path)
    except ValueError:
        return path


def _located(kind: str, message: str, location: SourceLocation | None, node_path: str) -> tuple[tuple, str]:
    """A sort key (file, line, column) and the line ``file:line:column: kind: message [in node path]``."""
    where = f"{_relative(location.file)}:{location.line}:{location.column}: " if location else ""
    key = (_relative(location.file), location.line, location.column) if location else ("", 0, 0)
    path = f" [in {node_path}]" if node_path else ""
    return key, f"{where}{kind}: {message}{path}"


def _warning_lines(items: list[WorldWarning]) -> list[str]:
    """Located warnings, one ``warning:`` each, sorted by file, line and column."""
    return [line for _, line in sorted((_located("warning", w.message, w.location, w.node_path) for w in items),
                                       key=lambda pair: pair[0])]


def _error_lines(items: list[WorldError]) -> list[str]:
    """Located errors sorted by file, line and column."""
    return [line for _, line in sorted((_located("error", e.message, e.location, e.node_path) for e in items),
                                       key=lambda pair: pair[0])]


def _print_warnings(caught: list[warnings.WarningMessage]) -> None:
    located = [item.message.world_warning for item in caught
               if getattr(item.message, "world_warning", None) is not None]
    for line in _warning_lines(located):  # type: ignore[arg-type]
        print(line, file=sys.stderr)
    for item in caught:
        if getattr(item.message, "world_warning", None) is None:
            text = str(item.message)
            print(text if "warning:" in text.lower() else f"warning: {text}", file=sys.stderr)


def _crash_summary(sim: object) -> list[str]:
    """One line per controller that raised: robot, controller, where and what, with the simulated time."""
    lines = []
    for robot in sim.robots:  # type: ignore[attr-defined]
        process = robot.controller
        if process is not None and process.crash is not None:
            error, where, time_s = process.crash
            file, _, line = where.rpartition(":")
            lines.append(f"  {_relative(file)}:{line}: controller '{process.name}' of robot '{robot.name}' raised "
                         f"at t = {time_s:.3f} s: {error}")
    return sorted(lines)


def _load(args: argparse.Namespace) -> object:
    from wbsim.sim.simulation import load_world

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim = load_world(args.world, seed=args.seed, missing_controller=args.missing_controller,
                         webots_home=args.webots_home, offline=args.offline)
    _print_warnings(caught)
    return sim


class _Progress:
    """Live line with simulated time and real-time factor, on terminals only."""

    def __init__(self, enabled: bool, duration_s: float | None) -> None:
        self.enabled = enabled
        self.duration_s = duration_s
        self._live = None
        self._start = time.perf_counter()
        self._last = 0.0

    def __enter__(self) -> _Progress:
        if self.enabled:
            from rich.console import Console
            from rich.live import Live

            self._live = Live("", console=Console(stderr=True), refresh_per_second=8, transient=False)
            self._live.__enter__()
        return self

    def update(self, sim_time_s: float, force: bool = False) -> None:
        if self._live is None:
            return
        now = time.perf_counter()
        if not force and now - self._last < 0.1:
            return
        self._last = now
        wall = max(now - self._start, 1e-9)
        total = f" / {self.duration_s:.2f}" if self.duration_s is not None else ""
        self._live.update(f"[bold]t = {sim_time_s:.2f}{total} s[/bold]   real-time factor {sim_time_s / wall:.1f}x"
                          f"   wall {wall:.1f} s")

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.__exit__(None, None, None)


def _line_buffered_stdout() -> None:
    # Webots starts Python controllers with ``python -u``: their prints reach a pipe or log file at once and
    # in order with the simulator's messages and tracebacks on stderr, not in blocks at exit.
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(line_buffering=True)
        except (ValueError, OSError):
            pass


def _run(args: argparse.Namespace) -> int:
    _line_buffered_stdout()
    if args.duration is not None and not args.duration >= 0:  # also refuses NaN
        print(f"wbsim run: --duration must be a number of seconds >= 0 (or inf), got {args.duration}",
              file=sys.stderr)
        return _LOAD_ERROR
    if args.seeds is not None or args.workers is not None:
        return _run_many(args)
    try:
        sim = _load(args)
    except WorldLoadError as error:
        print(f"wbsim: cannot load {_relative(str(args.world))}: {len(error.errors)} problem(s):", file=sys.stderr)
        for line in _error_lines(error.errors):
            print(line, file=sys.stderr)
        return _LOAD_ERROR
    except WbsimError as error:  # controller problems
        print(f"wbsim: cannot load {_relative(str(args.world))}:\n{error}", file=sys.stderr)
        return _LOAD_ERROR
    from wbsim.sim.simulation import Simulation

    assert isinstance(sim, Simulation)
    if args.duration is None and not sim.controllers_running():
        print("wbsim: no controller runs in this world; give --duration to run it for a fixed time.",
              file=sys.stderr)
        sim.close()
        return 0
    if args.record is not None:
        try:
            sim.start_recording(args.record)
        except WbsimError as error:
            print(f"wbsim run: --record: {error}", file=sys.stderr)
            sim.close()
            return _LOAD_ERROR
    show = not args.no_progress and sys.stderr.isatty()
    realtime = args.mode == "realtime"
    start = time.perf_counter()
    status = 0
    elapsed_steps = 0  # steps run, unlike sim.time_s not set back to 0 by simulationReset
    step_s = sim.basic_time_step_ms / 1000.0
    try:
        with _Progress(show, args.duration) as progress:

            def after_step(simulation: Simulation) -> None:
                nonlocal elapsed_steps
                elapsed_steps += 1
                if realtime:
                    ahead = elapsed_steps * step_s - (time.perf_counter() - start)
                    if ahead > 0:
                        time.sleep(ahead)
                progress.update(simulation.time_s)

            status = sim.run(args.duration, on_step=after_step if (show or realtime) else None)
            progress.update(sim.time_s, force=True)
    except KeyboardInterrupt:
        print(f"\nwbsim: interrupted at t = {sim.time_s:.3f} s", file=sys.stderr)
        status = 130
    except SimulationError as error:
        print(f"\nwbsim: {error}", file=sys.stderr)
        status = 1
    finally:
        try:
            sim.close()  # writes the recording; controllers' cleanup code runs here and may be interrupted too
        except WbsimError as error:  # the recording file could not be written
            print(f"wbsim: {error}", file=sys.stderr)
            status = status or 1
        except KeyboardInterrupt:
            print(f"\nwbsim: interrupted while closing at t = {sim.time_s:.3f} s", file=sys.stderr)
            status = 130
    crashes = _crash_summary(sim)
    if crashes:
        print(f"wbsim: {len(crashes)} controller(s) raised (tracebacks above):", file=sys.stderr)
        for line in crashes:
            print(line, file=sys.stderr)
    if status == 0 and sim.plugin is not None and sim.plugin.failed:  # the plugin raised (also in its cleanup)
        status = 1
    if status == 0 and crashes and not args.keep_going:
        status = CONTROLLER_RAISED
    return status


def _run_many(args: argparse.Namespace) -> int:
    """``wbsim run WORLD --seeds LIST [--workers N]``: one JSON line per run, in seed order; 0 if every run
    ended with status 0, else 1 (2 for bad arguments)."""
    from wbsim.batch import parse_seeds, run_many

    if args.seeds is None:
        print("wbsim run: --workers needs --seeds", file=sys.stderr)
        return _LOAD_ERROR
    unsupported = [flag for flag, given in (("--record", args.record is not None), ("--seed", args.seed is not None),
                                            ("--mode realtime", args.mode == "realtime")) if given]
    if unsupported:
        print(f"wbsim run: {', '.join(unsupported)} cannot be used with --seeds", file=sys.stderr)
        return _LOAD_ERROR
    try:
        seeds = parse_seeds(args.seeds)
    except ValueError as error:
        print(f"wbsim run: --seeds: {error}", file=sys.stderr)
        return _LOAD_ERROR
    if args.workers is not None and args.workers < 1:
        print(f"wbsim run: --workers must be at least 1, got {args.workers}", file=sys.stderr)
        return _LOAD_ERROR
    show = not args.no_progress and sys.stderr.isatty()
    try:
        with _RunsProgress(show, len(seeds)) as progress:
            records = run_many(args.world, seeds, args.duration, workers=args.workers, on_result=progress.advance)
    except KeyboardInterrupt:
        print("\nwbsim: interrupted", file=sys.stderr)
        return 130
    for record in records:
        print(record.to_json())
    return 0 if all(record.exit_status == 0 for record in records) else 1


class _RunsProgress:
    """A progress bar counting finished runs (rich, on stderr), on terminals only."""

    def __init__(self, enabled: bool, total: int) -> None:
        self.enabled = enabled
        self.total = total
        self._bar = None
        self._task = None
        self._failed = 0

    def __enter__(self) -> _RunsProgress:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(TextColumn("runs"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[failed]}"),
                                 TimeElapsedColumn(), console=Console(stderr=True))
            self._bar.__enter__()
            self._task = self._bar.add_task("runs", total=self.total, failed="")
        return self

    def advance(self, record: object) -> None:
        if self._bar is None:
            return
        self._failed += getattr(record, "exit_status", 0) != 0
        self._bar.update(self._task, advance=1, failed=f"{self._failed} failed" if self._failed else "")

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)


def _check(args: argparse.Namespace) -> int:
    from wbsim.compile.builder import compile_world
    from wbsim.sim.controllers import find_controller
    from wbsim.world.loader import load_world_model

    problems: list[str] = []
    warned: list[str] = []
    try:
        model = load_world_model(args.world, webots_home=args.webots_home, offline=args.offline)
    except WorldLoadError as error:
        for line in _error_lines(error.errors):
            print(line, file=sys.stderr)
        print(f"{_relative(str(args.world))}: {len(error.errors)} problem(s)", file=sys.stderr)
        return _LOAD_ERROR if any(isinstance(e, WorldAssetError) for e in error.errors) else 1
    located = list(model.warnings)
    try:
        compiled = compile_world(model)
        located.extend(compiled.warnings)
    except WorldLoadError as error:
        problems.extend(_error_lines(error.errors))
        compiled = None
    warned.extend(_warning_lines(located))
    for node in model.walk():
        if node.type_name != "Robot":
            continue
        _, problem = find_controller(model.project_dir, str(node["name"]), str(node["controller"]))
        if problem is not None:
            problems.append(_located("error", problem, node.location, node.path)[1])
    for line in warned:
        print(line, file=sys.stderr)
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        print(f"{args.world}: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    robots = sum(1 for n in model.walk() if n.type_name == "Robot")
    bodies = compiled.model.nbody - 1 if compiled is not None else 0
    print(f"{args.world}: OK ({robots} robot(s), {bodies} MuJoCo bodies, {len(warned)} warning(s))")
    if compiled is not None and compiled.substeps > 1:
        # The physics cost grows with the number of MuJoCo steps per basic step; say what a larger one would save.
        step_ms = compiled.basic_time_step_ms / compiled.substeps
        print(f"note: basicTimeStep {compiled.basic_time_step_ms:g} ms runs as {compiled.substeps} MuJoCo steps of "
              f"{step_ms:g} ms; if this world's contacts and joints stay stable with a larger step, "
              f"load_world(..., max_physics_step_ms={compiled.basic_time_step_ms:g}) runs its physics up to "
              f"{compiled.substeps}x faster (README: speed and accuracy)")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``wbsim`` console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    if args.command == "run":
        return _run(args)
    return _check(args)


def _console_main() -> None:
    sys.exit(main())
