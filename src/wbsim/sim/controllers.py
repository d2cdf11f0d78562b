"""Running unmodified Webots Python controllers inside the simulation process.

Each controller runs in its own greenlet (a coroutine with its own stack): ``robot.step(ms)`` switches
back to the simulation, which resumes the controller once ``ms`` of simulated time have elapsed. A
round trip costs under a microsecond, against tens of microseconds for threads or processes.

Isolation, matching what separate processes give in Webots:

- the script runs as ``__main__`` in a fresh namespace, with ``sys.argv = [<name>.py, *controllerArgs]``,
  the controller's folder as the working directory and its own ``sys.path`` (the folder first, as
  ``python <name>.py`` gives) while it runs;
- modules imported from the controller's own folder, or from folders the controller added to its
  ``sys.path`` (``sys.path.append("../../libraries/python")``), are private to that controller: two
  controllers with a ``utils.py`` each, or two robots running the same controller with a shared
  library, never share module state;
- a ``runtime.ini`` next to the script is honoured (:mod:`wbsim.sim.runtime_ini`): its ``PYTHONPATH``
  folders follow the controller's folder on its ``sys.path``, its variables are in ``os.environ`` while it
  runs;
- an exception prints its traceback on stderr and ends only that controller; its robot keeps its last
  commands, as in Webots. ``KeyboardInterrupt`` (Ctrl-C) is not a controller crash: it stops the
  simulation's caller;
- ``sys.stdout`` and ``sys.stderr`` are the controller's own: a controller that replaces them (to silence
  or capture its output) changes only what it prints, not what other controllers or wbsim print;
- ``sys.exit(n)`` and ``os._exit(n)`` end only that controller, and a status other than 0 is reported as
  Webots reports a controller process's exit status; ``os._exit`` runs no ``finally`` blocks, as a process
  would not;
- a controller that keeps running after the simulation ended (one that catches the ``SystemExit`` raised
  by its next ``step`` after -1, e.g. with a bare ``except:``) is stopped at its next ``step`` call, as
  Webots kills a controller that does not end within its grace period.

What controllers still share, being in one process: the interpreter, every module the host imports (the
standard library, numpy, ...) with its attributes, ``builtins``, ``os.environ``, and the process's file
descriptors. A controller that changes those (``builtins.x = 1``, ``numpy.seterr``, ``os.environ[...]``)
changes them for all.
"""

from __future__ import annotations

import builtins
import contextvars
import importlib.abc
import importlib.machinery
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from types import CodeType, ModuleType
from typing import TYPE_CHECKING

import greenlet

from wbsim.sim.runtime_ini import read_runtime_ini

if TYPE_CHECKING:
    from wbsim.sim.robot import RobotRuntime
    from wbsim.sim.simulation import Simulation

__all__ = ["ControllerProcess", "WorkingDirectory", "current_robot", "ControllerFinder", "find_controller",
           "importable_names", "NO_CONTROLLER", "exit_status_message", "RUNNING"]

_OS_CHDIR = os.chdir
_OS_FCHDIR = os.fchdir
_OS_EXIT = os._exit
"""The real ``os.chdir`` / ``os.fchdir`` / ``os._exit`` (controllers run with :class:`WorkingDirectory`'s and
:class:`ControllerFinder`'s in their place)."""

_getcurrent = greenlet.getcurrent

_CURRENT_ROBOT: contextvars.ContextVar[RobotRuntime | None] = contextvars.ContextVar("wbsim_robot", default=None)


def current_robot() -> RobotRuntime | None:
    """The robot whose controller is running in the current greenlet, or None outside controllers."""
    return _CURRENT_ROBOT.get()


class _Running:
    """The type of :data:`RUNNING`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "RUNNING"


RUNNING = _Running()
"""What the controllers phase's usual turn resumes a controller waiting in ``step`` with
(:meth:`ControllerFinder.run_turns`): the simulation runs on, so ``step`` returns 0 at once (a turn on the full path,
:meth:`ControllerProcess.take_turn`, resumes it with nothing). A unique constant, compared by identity."""


class _Terminate(BaseException):
    """Raised inside a controller to end it (the simulation is closing)."""


def exit_status_message(name: str, status: int) -> str:
    """Webots' console line for a controller process that ended with a non-zero ``status``."""
    return f"WARNING: '{name}' controller exited with status: {status}."


NO_CONTROLLER = frozenset({"<none>", "<extern>", "<generic>", ""})
"""``controller`` field values that start no controller file."""


def find_controller(project_dir: Path, robot_name: str, name: str) -> tuple[Path | None, str | None]:
    """Locate a Robot's controller, ``controllers/<name>/<name>.py`` of its project.

    Args:
        project_dir: the project folder.
        robot_name: the Robot's ``name`` (for the message).
        name: the Robot's ``controller`` field.

    Returns:
        ``(script, None)`` when found; ``(None, None)`` for :data:`NO_CONTROLLER` values; ``(None, message)``
        when the file is missing, the message naming the expected path and what the folder holds instead.
    """
    if name in NO_CONTROLLER:
        return None, None
    script = project_dir / "controllers" / name / f"{name}.py"
    try:
        if script.is_file():
            return script, None
        folder = script.parent
        others = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    except OSError as error:  # a name too long for the file system, an unreadable folder
        return None, f'Robot "{robot_name}": controller "{name}" cannot be looked up at {script}: {error.strerror or error}.'
    hint = f" (that folder holds: {', '.join(others)}; only Python controllers run in wbsim)" if others else ""
    return None, (f'Robot "{robot_name}": controller "{name}" not found; expected {script}{hint}. Use controller '
                  '"<none>" or "<extern>" to drive the robot from Python.')


def importable_names(folder: Path) -> set[str]:
    """The top-level module names a folder provides (its .py files and packages)."""
    names = set()
    try:
        entries = list(folder.iterdir())
    except OSError:
        return names
    for entry in entries:
        if entry.suffix == ".py" and entry.is_file():
            names.add(entry.stem)
        elif entry.is_dir() and (entry / "__init__.py").is_file():
            names.add(entry.name)
    return names


class ControllerFinder(importlib.abc.MetaPathFinder):
    """Finds modules in the running controller's folder first, like ``sys.path[0]`` in a process.

    One finder serves one simulation; it is first in ``sys.meta_path`` while that simulation exists
    and does nothing when none of its controllers is running.
    """

    def __init__(self) -> None:
        self.active: ControllerProcess | None = None
        # Shared by the simulation's controllers: one working-directory switch per change of folder.
        self.working_directory = WorkingDirectory()
        # What os.chdir, os.fchdir and os._exit are while a bracket is open (begin/end), and the host's.
        self._os_functions = (self.working_directory.chdir, self.working_directory.fchdir, self._exit)
        self._host_os: tuple[object, object, object] | None = None
        self._depth = 0
        # A view of sys.modules' names (the interpreter's one dict for the process's life): a turn checks it
        # against a controller's own module names without making a view each time.
        self.module_names = sys.modules.keys()
        self._code: dict[tuple[str, str], CodeType] = {}  # compiled controller scripts (see compiled)
        # (argv, path, stdout, stderr, greenlet) of the host while a controllers phase runs (begin_phase), else
        # None; the greenlet is the one running the phase.
        self.host_sys: tuple[list[str], list[str], object, object, greenlet.greenlet] | None = None
        # The module names of a controller that sys.modules was last seen not to hold, at the end of a usual turn
        # of the phase (None at the phase's start and end, before each usual turn's switch and in every full-path
        # turn): the next turn with the same names (one shared set per content, shared_names) skips that test,
        # as no code ran in between.
        self.disjoint: frozenset[str] | None = None
        self._names: dict[frozenset[str], frozenset[str]] = {}

    def begin(self) -> None:
        """Open a bracket in which controllers run (the controllers phase opens one for all its controllers):
        the working directory's (:class:`WorkingDirectory`), and ``os.chdir``, ``os.fchdir`` and ``os._exit``
        as the running controller's. Nested brackets change nothing; the outermost :meth:`end` restores the
        host's."""
        if self._depth == 0:
            self.working_directory.begin()
            self._host_os = (os.chdir, os.fchdir, os._exit)
            os.chdir, os.fchdir, os._exit = self._os_functions  # type: ignore[assignment]
        self._depth += 1

    def end(self) -> None:
        """Close a bracket opened by :meth:`begin`."""
        self._depth -= 1
        if self._depth == 0:
            if self._host_os is not None:
                os.chdir, os.fchdir, os._exit = self._host_os  # type: ignore[assignment]
                self._host_os = None
            self.working_directory.end()

    def suspend(self) -> int:
        """Close the open bracket, however deep, for host work inside it (a world replaced at the end of a step
        while ``Simulation.run`` holds the bracket): the host's working directory and ``os`` functions are back
        until :meth:`reopen`.

        Returns:
            The depth to give :meth:`reopen` (0: no bracket was open, nothing changed)."""
        depth = self._depth
        if depth:
            self._depth = 1
            self.end()
        return depth

    def reopen(self, depth: int) -> None:
        """Open again, at ``depth``, the bracket :meth:`suspend` closed."""
        if depth:
            self.begin()
            self._depth = depth

    def begin_phase(self) -> tuple[list[str], list[str], object, object, greenlet.greenlet] | None:
        """Open the bracket of a controllers phase (:meth:`begin`) and note the host's ``sys.argv``,
        ``sys.path``, ``sys.stdout`` and ``sys.stderr``, and the greenlet running the phase: the phase's usual turns
        (:meth:`run_turns`) put each controller's argv and path in place without putting the host's back after
        each (:meth:`end_phase` restores them once), and resume a controller that this greenlet resumed last
        without setting its parent again.

        Returns:
            The note of an enclosing phase (a script stepping the simulation from inside one), for
            :meth:`end_phase`."""
        self.begin()
        outer = self.host_sys
        self.host_sys = (sys.argv, sys.path, sys.stdout, sys.stderr, _getcurrent())
        self.disjoint = None
        return outer

    def end_phase(self, outer: tuple[list[str], list[str], object, object, greenlet.greenlet] | None) -> None:
        """Close the bracket of :meth:`begin_phase` (``outer``: what it returned): the host's argv and path
        back, then :meth:`end`."""
        host = self.host_sys
        self.host_sys = outer
        self.disjoint = None
        if host is not None:
            sys.argv, sys.path = host[0], host[1]
        self.end()

    def run_turns(self, robots: Sequence[RobotRuntime], sim: Simulation) -> None:
        """The controllers phase's turns: each robot whose controller's wait has elapsed (``robot.wake_step`` at
        most ``sim.step_count``, both read at its turn) runs until its next ``step`` call, in order, until
        ``sim.ended``. One bracket for the phase (:meth:`begin_phase`), opened at the first due controller.

        The usual turn runs here, ``_enter`` and ``_leave`` inline (:meth:`ControllerProcess.take_turn` for the
        others): outside any controller's turn (a phase run from inside one runs them all as nested turns), a
        controller resumed last from the greenlet running the phase (so that is its greenlet's parent already; a
        simulation stepped from another greenlet than last time, or a first turn, takes the full path), with
        nothing of its own to swap in (``_plain``: the host's streams, no runtime.ini variables;
        no module of its names in ``sys.modules``, known without a test when the last turn of the phase ended
        with the same names absent, :attr:`disjoint`). It gets its folder, argv and ``sys.path``; the phase puts
        the host's argv and path back once, after its last turn. It is resumed with :data:`RUNNING`: its
        ``step`` returns 0 without looking at the simulation again."""
        outer = host = None
        try:
            for robot in robots:
                process = robot.controller
                if process is None or robot.wake_step > sim.step_count or process.finished:
                    continue
                if host is None:
                    # The bracket opened first: begin_phase raising (the host's directory gone, os.getcwd failing)
                    # opened nothing, and closing it anyway left the bracket's depth below zero.
                    outer = self.begin_phase()
                    host = self.host_sys
                    names = self.module_names
                own = process.greenlet
                swap = process._swap
                if (own is None or process.resumer is not host[4] or not process._plain  # type: ignore[index]
                        or self.active is not None or (swap is not self.disjoint and not names.isdisjoint(swap))):
                    process.take_turn()
                else:
                    working_directory = process._working_directory
                    if working_directory.current != process._folder_str:
                        working_directory.enter(process._folder_str)
                    sys.argv = process.own_argv
                    sys.path = process.path
                    self.active = process
                    host_out, host_err = host[2], host[3]  # type: ignore[index]
                    process._host_stdout, process._host_stderr = host_out, host_err
                    self.disjoint = None
                    try:
                        own.switch(RUNNING)
                    finally:
                        swap, one = process._swap, process._swap_one  # with this turn's imports
                        if sys.stdout is host_out and sys.stderr is host_err and (
                                one not in names if one is not None else names.isdisjoint(swap)):
                            self.active = None
                            self.disjoint = swap
                            process.path = sys.path  # the controller may have replaced its lists
                            process.own_argv = sys.argv
                        else:  # it replaced a stream or imported a module of its own during the turn
                            process._leave((host[0], host[1], None, None))  # type: ignore[index]
                if sim.ended:
                    break
        finally:
            if host is not None:
                self.end_phase(outer)

    def shared_names(self, names: frozenset[str]) -> frozenset[str]:
        """One set object per content for the controllers' module names (so that :attr:`disjoint` is an
        identity test)."""
        return self._names.setdefault(names, names)

    def compiled(self, filename: str, source: str) -> CodeType:
        """The code object of a controller script with this source: compiled once and shared by the robots that
        run it (code objects are immutable; each run has its own namespace). Robots of one controller then step
        through one copy of the bytecode, its specialised instructions warm for all, instead of one each."""
        key = (filename, source)
        code = self._code.get(key)
        if code is None:
            # dont_inherit: as ``python <name>.py`` compiles it, without this module's ``from __future__`` features.
            code = self._code[key] = compile(source, filename, "exec", dont_inherit=True)
        return code

    def _exit(self, status: int) -> None:
        """``os._exit`` inside a bracket: ends the running controller (:meth:`ControllerProcess._os_exit`),
        or, between two controllers' turns, is the host's."""
        process = self.active
        if process is None:
            host = self._host_os[2] if self._host_os is not None else _OS_EXIT
            host(status)  # type: ignore[operator]
            return
        process._os_exit(status)  # noqa: SLF001

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        process = self.active
        if process is None:
            return None
        if path is None:
            if fullname in process.private_names:
                spec = importlib.machinery.PathFinder.find_spec(fullname, [str(process.folder)])
            else:
                spec = process.find_on_own_path(fullname)
        elif (top := fullname.partition(".")[0]) in process.private_names or top in process.loaded_names:
            spec = importlib.machinery.PathFinder.find_spec(fullname, list(path))
        else:
            return None
        if spec is not None:
            process.add_loaded_name(fullname)
        return spec


class WorkingDirectory:
    """The process working directory while controllers run: each controller runs in its own folder, and the
    host's directory comes back once the simulation's controllers are done.

    ``os.chdir`` is called only when the next controller's folder differs from the current directory
    (controllers of one folder run one after another without any), and the host's directory is restored once
    per :meth:`begin` / :meth:`end` bracket (the controllers phase of a step, or a whole ``Simulation.run``
    with nothing of the caller's between steps), not after each controller.
    While controllers run (:meth:`ControllerFinder.begin`), ``os.chdir`` and ``os.fchdir`` are :meth:`chdir` /
    :meth:`fchdir`, which mark the current directory unknown: a controller that changes directory still starts
    its next step in its own folder, and one that does not costs no ``os.getcwd`` system call after each step
    (a directory change made by C code, not through ``os``, goes unseen).

    Attributes:
        current: the working directory as this object last set or read it (None: unknown).
    """

    def __init__(self) -> None:
        self._host: str | None = None
        self.current: str | None = None
        self._depth = 0

    def begin(self) -> None:
        """Open a bracket (nested brackets restore once, at the outermost :meth:`end`)."""
        if self._depth == 0:
            self._host = self.current = os.getcwd()
        self._depth += 1

    def enter(self, folder: str) -> None:
        """Make ``folder`` the working directory (raises ``OSError`` if it cannot)."""
        if folder != self.current:
            _OS_CHDIR(folder)  # the real one: os.chdir may be this object's chdir, which forgets the folder
            self.current = folder

    def chdir(self, path: object) -> None:
        """``os.chdir`` while a controller runs: change directory, then treat the current one as unknown (the
        next controller, or the host, gets its own back)."""
        self.current = None
        _OS_CHDIR(path)  # type: ignore[arg-type]

    def fchdir(self, fd: object) -> None:
        """``os.fchdir`` while a controller runs (see :meth:`chdir`)."""
        self.current = None
        _OS_FCHDIR(fd)  # type: ignore[arg-type]

    def end(self) -> None:
        """Close a bracket; the outermost one puts the host's directory back."""
        self._depth -= 1
        if self._depth == 0:
            host, self._host = self._host, None
            if host is not None and self.current != host:
                self.current = None
                _OS_CHDIR(host)
            self.current = None


class ControllerProcess:
    """One controller script running as a greenlet for one robot.

    Args:
        robot: the robot runtime the controller drives.
        script: the controller's ``.py`` file.
        args: the Robot's ``controllerArgs``.
        finder: the simulation's import finder.
    """

    def __init__(self, robot: RobotRuntime, script: Path, args: Sequence[str], finder: ControllerFinder) -> None:
        self.robot = robot
        self.script = script
        self.folder = script.parent
        self._folder_str = str(self.folder)
        self.argv = [script.name, *args]
        # Its sys.argv while it runs: its own list, kept from turn to turn as a process keeps it.
        self.own_argv = list(self.argv)
        self.finder = finder
        self._working_directory = finder.working_directory
        self.private_names = importable_names(self.folder)
        self.loaded_names: set[str] = set()
        # The names swapped in sys.modules around each turn: private_names | loaded_names (add_loaded_name).
        self._set_swap(frozenset(self.private_names))
        self.private_modules: dict[str, ModuleType] = {}
        self.finished = False
        self.crashed = False
        self.abandoned = False
        self.crash: tuple[str, str, float] | None = None  # (exception text, "file:line" raising, simulated s)
        self.exit_status: int | None = None
        # The controller's own sys.stdout / sys.stderr once it replaced them (None: the host's, whatever they are).
        self.own_streams: tuple[object, object] | None = None
        self._host_stderr: object = sys.stderr
        self._host_stdout: object = sys.stdout
        self.greenlet: greenlet.greenlet | None = None
        # The greenlet that resumed the controller last (its step() switches back to it).
        self.resumer: greenlet.greenlet | None = None
        self._terminating = False
        # The controller's own sys.path, made on first entry: its folder, then the host's entries.
        self.path: list[str] | None = None
        self.host_entries: frozenset[str] = frozenset()
        self.runtime_ini = read_runtime_ini(self.folder)  # its PYTHONPATH and environment variables
        # True once the usual turn applies (ControllerFinder.run_turns): a first turn made its sys.path, the host's
        # streams, no module of its own, no runtime.ini variables; _leave keeps it current.
        self._plain = False
        self._outside_environment: dict[str, str | None] = {}

    def _raising_line(self, error: BaseException) -> str:
        """``file:line`` of the innermost frame of ``error``'s traceback in the controller's own folder (else the
        innermost frame), for the crash summary."""
        frames = traceback.extract_tb(error.__traceback__)
        own = [f for f in frames if Path(f.filename).resolve().is_relative_to(self.folder.resolve())]
        frame = (own or frames or [None])[-1]
        return f"{frame.filename}:{frame.lineno}" if frame is not None else str(self.script)

    @property
    def name(self) -> str:
        """The controller name (the script's stem)."""
        return self.script.stem

    def find_on_own_path(self, fullname: str) -> importlib.machinery.ModuleSpec | None:
        """A top-level module found, in ``sys.path`` order, on an entry that only this controller has.

        Modules the host process would import from its own entries are left to the normal import machinery
        (shared, like the standard library); namespace packages too.
        """
        for entry in sys.path:
            if not isinstance(entry, str):
                continue
            spec = importlib.machinery.PathFinder.find_spec(fullname, [entry])
            if spec is None:
                continue
            if spec.loader is None or entry in self.host_entries:
                return None
            return spec
        return None

    # -- running ------------------------------------------------------------------------------------
    def _main(self) -> None:
        _CURRENT_ROBOT.set(self.robot)
        namespace: dict[str, object] = {
            "__name__": "__main__",
            "__file__": str(self.script),
            "__builtins__": builtins,
            "__package__": None,
        }
        try:
            source = self.script.read_text(encoding="utf-8")
            exec(self.finder.compiled(str(self.script), source), namespace)
            self.exit_status = 0
        except (_Terminate, greenlet.GreenletExit):
            self.exit_status = 0
        except KeyboardInterrupt:
            # Ctrl-C lands in whatever code runs, often a controller's: it stops the simulation, not just this
            # controller. Raised here, it continues in the simulation's greenlet (the one that resumed us).
            self.exit_status = 130
            raise
        except SystemExit as exit_request:
            code = exit_request.code
            self.exit_status = code if isinstance(code, int) else (0 if code is None else 1)
            if code not in (None, 0) and not isinstance(code, int):
                print(code, file=sys.stderr)  # what Python prints for sys.exit("message"), on the controller's stderr
            if self.exit_status != 0:
                self._report(exit_status_message(self.name, self.exit_status))
        except BaseException as error:
            self.crashed = True
            self.exit_status = 1
            self.crash = (f"{type(error).__name__}: {error}", self._raising_line(error), self.robot.sim.time_s)
            print(f"Controller '{self.name}' of robot '{self.robot.name}' crashed:", file=sys.stderr)
            traceback.print_exc()
            sys.stderr.flush()
        finally:
            self.finished = True

    def _report(self, line: str) -> None:
        """Print a simulator line about this controller on the host's stderr (not the controller's own)."""
        stream = self._host_stderr
        try:
            print(line, file=stream, flush=True)  # type: ignore[arg-type]
        except (OSError, ValueError, AttributeError):  # the host's stream is closed or not a stream
            pass

    def _os_exit(self, status: int) -> None:
        """``os._exit`` inside this controller: the controller ends at once, like a process, not the simulator."""
        try:
            self.exit_status = int(status)
        except (TypeError, ValueError):
            raise TypeError(f"'{type(status).__name__}' object cannot be interpreted as an integer") from None
        if self.exit_status != 0:
            self._report(exit_status_message(self.name, self.exit_status))
        self.abandon()

    def abandon(self) -> None:
        """End the controller from inside its own greenlet without running any more of its code.

        Control goes back to the simulation and the greenlet is never resumed (its ``finally`` blocks do not
        run, as in a killed process). Never returns to the caller.
        """
        self.finished = True
        self.abandoned = True
        if self.exit_status is None:
            self.exit_status = 0
        while True:  # switched back into only when the garbage collector kills the greenlet
            target = self.resumer if self.resumer is not None and not self.resumer.dead else None
            (target or greenlet.getcurrent().parent).switch()  # type: ignore[union-attr]

    def force_end(self) -> None:
        """The controller stepped again after the ``SystemExit`` that should have ended it: stop it for good."""
        self._report(f"WARNING: '{self.name}' controller of robot '{self.robot.name}': forced termination (it "
                     "caught the SystemExit ending it and kept running after the end of the simulation).")
        self.abandon()

    def add_loaded_name(self, fullname: str) -> None:
        """Record a module this controller imported from its own folder or path (private to it from now
        on)."""
        self.loaded_names.add(fullname)
        self._set_swap(frozenset(self.private_names | self.loaded_names))

    def _set_swap(self, names: frozenset[str]) -> None:
        """The module names swapped in ``sys.modules`` around each turn (one shared set per content,
        :meth:`ControllerFinder.shared_names`), and the only one if there is one (the usual controller: its
        script alone), which the usual turn tests with one dict lookup, a third of the names view's
        ``isdisjoint``."""
        self._swap = self.finder.shared_names(names)
        self._swap_one = next(iter(names)) if len(names) == 1 else None

    def _enter(self) -> tuple[list[str], list[str], dict[str, ModuleType | None] | None,
                              ControllerProcess | None]:
        # First: the one step that can fail, before any global is swapped (no call when already there).
        working_directory = self._working_directory
        if working_directory.current != self._folder_str:
            working_directory.enter(self._folder_str)
        saved_argv, saved_path = sys.argv, sys.path
        sys.argv = self.own_argv
        path = self.path
        if path is None:  # made from the host's (in a controllers phase, the previous controller's may be there)
            host_path = self.finder.host_sys[1] if self.finder.host_sys is not None else saved_path
            self.host_entries = frozenset(p for p in host_path if isinstance(p, str))
            path = self.path = [self._folder_str, *self.runtime_ini.python_path, *host_path]
        sys.path = path
        if self.runtime_ini.environment:  # runtime.ini variables hold only while this controller runs
            self._outside_environment = {name: os.environ.get(name) for name in self.runtime_ini.environment}
            os.environ.update(self.runtime_ini.environment)
        # Modules of the controller's own names: the host's (or another controller's) out, this one's in.
        # Nothing to do (one set operation in C) while the controller has no module of its own and sys.modules
        # has none of its names: the usual turn of a controller that imports nothing from its folder.
        outside: dict[str, ModuleType | None] | None = None
        modules, private, swap = sys.modules, self.private_modules, self._swap
        if private or not modules.keys().isdisjoint(swap):
            for name in swap:
                previous = modules.pop(name, None)
                if previous is not None:
                    if outside is None:
                        outside = {}
                    outside[name] = previous
                mine = private.get(name)
                if mine is not None:
                    modules[name] = mine
        finder = self.finder
        active, finder.active = finder.active, self
        self._host_stdout, self._host_stderr = sys.stdout, sys.stderr
        if self.own_streams is not None:
            sys.stdout, sys.stderr = self.own_streams  # type: ignore[assignment]
        return saved_argv, saved_path, outside, active

    def _leave(self, saved: tuple[list[str], list[str], dict[str, ModuleType | None] | None,
                                  ControllerProcess | None]) -> None:
        saved_argv, saved_path, outside, active = saved
        host_out, host_err = self._host_stdout, self._host_stderr
        if sys.stdout is not host_out or sys.stderr is not host_err:
            self.own_streams = (sys.stdout, sys.stderr)  # the controller replaced one: it keeps it, alone
            sys.stdout, sys.stderr = host_out, host_err  # type: ignore[assignment]
        elif self.own_streams is not None:
            self.own_streams = None  # it put the host's streams back
        self.finder.active = active  # None, or the controller whose turn this one ran in
        self.path = sys.path  # the controller may have replaced its lists
        self.own_argv = sys.argv
        sys.path = saved_path
        modules, private, swap = sys.modules, self.private_modules, self._swap  # with this turn's imports
        if outside is not None or not modules.keys().isdisjoint(swap):  # else nothing to take out or put back
            for name in swap:
                module = modules.pop(name, None)
                if module is not None:
                    private[name] = module
                if outside is not None:
                    previous = outside.get(name)
                    if previous is not None:
                        modules[name] = previous
        self._plain = (self.own_streams is None and not private and not self.runtime_ini.environment
                       and self.path is not None)
        if self.runtime_ini.environment:
            for name, value in self._outside_environment.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        sys.argv = saved_argv

    def resume(self) -> None:
        """Run the controller until its next ``robot.step`` call or its end (in a bracket of its finder:
        :meth:`ControllerFinder.begin`)."""
        if self.finished:
            return
        finder = self.finder
        finder.begin()
        try:
            self.take_turn()
        finally:
            finder.end()

    def take_turn(self) -> None:
        """:meth:`resume` inside a bracket the caller opened (:meth:`ControllerFinder.begin`): the controllers
        phase opens one for all the controllers it runs (:meth:`ControllerFinder.run_turns`, which runs the usual
        turn itself and this for the others)."""
        if self.finished:
            return
        finder = self.finder
        finder.disjoint = None  # code runs: sys.modules may change
        own = self.greenlet
        if own is None:
            own = self.greenlet = greenlet.greenlet(self._main)
        current = _getcurrent()
        if own.parent is not current:  # setting it checks for cycles: only when it changes
            own.parent = current
        self.resumer = current
        if finder.active is not None:  # a turn inside another controller's (see _nested_turn)
            self._nested_turn(own)
            return
        saved = self._enter()
        try:
            own.switch()
        finally:
            self._leave(saved)

    def _nested_turn(self, own: greenlet.greenlet) -> None:
        """A turn inside another controller's: a supervisor restarting or removing a robot whose controller
        already ran ends that controller's pending ``step`` in its own turn. The outer controller then goes
        on in the working directory it had (Webots' controllers are separate processes), not in this one's."""
        working_directory = self._working_directory
        try:
            outer, outer_fd = os.getcwd(), None
        except OSError:  # the outer controller removed its own folder: come back to it through a descriptor
            outer, outer_fd = working_directory.current, os.open(".", os.O_RDONLY)
        saved = self._enter()
        try:
            own.switch()
        finally:
            self._leave(saved)
            if outer_fd is not None:
                try:
                    _OS_FCHDIR(outer_fd)
                finally:
                    os.close(outer_fd)
                working_directory.current = outer
            elif working_directory.current != outer:
                _OS_CHDIR(outer)
                working_directory.current = outer

    def yield_to_simulation(self) -> object:
        """Called from the controller's greenlet by ``robot.step``: give control back to the simulation.

        Returns:
            What the greenlet was resumed with: :data:`RUNNING` from a usual turn of the controllers phase
            (:meth:`ControllerFinder.run_turns`), else nothing."""
        assert self.resumer is not None
        resumed = self.resumer.switch()
        if self._terminating:
            raise _Terminate()
        return resumed

    def terminate(self) -> None:
        """End the controller now (it gets no further chance to run code except ``finally`` blocks)."""
        if self.finished or self.greenlet is None:
            self.finished = True
            return
        self._terminating = True
        self.resume()
        self.finished = True

    def in_own_greenlet(self) -> bool:
        """True if the caller runs inside this controller's greenlet."""
        return self.greenlet is not None and greenlet.getcurrent() is self.greenlet
