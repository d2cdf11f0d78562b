"""Finding and loading a physics plugin: ``WorldInfo.physics "name"`` -> ``plugins/physics/<name>/<name>.py``.

Webots looks for the plugin's folder in the project (``<project>/plugins/physics/<name>/``), then next to
the PROTOs the world uses (``<proto dir>/../plugins/physics/<name>/``); the first folder that exists
wins, even if the library is missing from it. wbsim does the same with a Python file, ``<name>.py``.

The file runs once, as a fresh module with its folder on ``sys.path`` while it and its callbacks run;
modules it imports from its own folder stay private to it (two simulations of the same world, or two
plugins with a ``utils.py`` each, never share them), as controllers' do.
"""

from __future__ import annotations

import builtins
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from wbsim.sim.controllers import importable_names

__all__ = ["PluginFile", "find_plugin", "CALLBACKS", "MANDATORY"]

CALLBACKS = ("webots_physics_init", "webots_physics_step", "webots_physics_step_end", "webots_physics_collide",
             "webots_physics_cleanup")
"""The callbacks wbsim calls, as Webots names them."""
MANDATORY = ("webots_physics_init", "webots_physics_step", "webots_physics_cleanup")
"""The callbacks Webots' code requires (its docs say only step and cleanup)."""


def find_plugin(project_dir: Path, name: str, proto_dirs: tuple[Path, ...] = ()) -> tuple[Path | None, list[Path]]:
    """The plugin file for ``WorldInfo.physics``, and the folders searched.

    Returns:
        ``(file, searched)``: ``file`` is None when no folder exists or the first existing one has no
        ``<name>.py``.
    """
    searched = [project_dir / "plugins" / "physics" / name]
    searched += [d.parent / "plugins" / "physics" / name for d in proto_dirs]
    for folder in searched:
        try:
            if folder.is_dir():
                script = folder / f"{name}.py"
                return (script if script.is_file() else None), searched
        except OSError:  # a name too long for the file system, an unreadable folder: not found there
            continue
    return None, searched


@dataclass
class PluginFile:
    """A loaded plugin module and the isolation it runs in.

    Attributes:
        script: the plugin file.
        namespace: the module's globals.
        callbacks: the callbacks it defines, by name.
    """

    script: Path
    namespace: dict[str, object] = field(default_factory=dict)
    callbacks: dict[str, Callable[..., object]] = field(default_factory=dict)
    _private: dict[str, ModuleType] = field(default_factory=dict)
    _names: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._folder = str(self.script.parent)

    @property
    def folder(self) -> Path:
        """The plugin's folder."""
        return self.script.parent

    @contextmanager
    def running(self, in_folder: bool = False) -> Iterator[None]:
        """While plugin code runs: its folder first on ``sys.path``, its private modules in ``sys.modules``
        (and the working directory its folder, with ``in_folder``, as Webots does for ``init``)."""
        state = self.enter(in_folder)
        try:
            yield
        finally:
            self.leave(state)

    def enter(self, in_folder: bool = False) -> tuple[list[str], dict[str, ModuleType | None], int, str | None]:
        """Start running plugin code (see :meth:`running`); returns what :meth:`leave` restores."""
        saved_path = sys.path
        sys.path = [self._folder, *saved_path]
        outside: dict[str, ModuleType | None] = {}
        for name in self._names:
            outside[name] = sys.modules.pop(name, None)
            if name in self._private:
                sys.modules[name] = self._private[name]
        cwd = None
        if in_folder:
            cwd = os.getcwd()
            os.chdir(self._folder)
        return saved_path, outside, len(sys.modules), cwd

    def leave(self, state: tuple[list[str], dict[str, ModuleType | None], int, str | None]) -> None:
        """Stop running plugin code: restore what :meth:`enter` changed."""
        saved_path, outside, count, cwd = state
        if cwd is not None:
            os.chdir(cwd)
        sys.path = saved_path
        if len(sys.modules) != count:  # something was imported: modules from the plugin's folder are its own
            for name, module in list(sys.modules.items()):
                origin = getattr(module, "__file__", None) or ""
                if origin.startswith(self._folder):
                    self._names.add(name.partition(".")[0])
        for name in self._names:
            module = sys.modules.pop(name, None)
            if module is not None:
                self._private[name] = module
            previous = outside.get(name)
            if previous is not None:
                sys.modules[name] = previous

    def load(self) -> None:
        """Run the file (its top level only; callbacks run later)."""
        self._names = importable_names(self.folder)
        self.namespace = {"__name__": f"wbsim_plugin_{self.script.stem}", "__file__": str(self.script),
                          "__builtins__": builtins, "__package__": None}
        # dont_inherit: compiled as Python compiles the file alone, without this module's `from __future__` features.
        code = compile(self.script.read_text(encoding="utf-8"), str(self.script), "exec", dont_inherit=True)
        with self.running():
            exec(code, self.namespace)
        self.callbacks = {name: value for name in CALLBACKS
                          if callable(value := self.namespace.get(name))}  # type: ignore[misc]
