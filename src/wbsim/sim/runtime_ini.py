"""A controller's ``runtime.ini`` (Webots' per-controller environment), as Webots reads it.

The file sits next to the controller script. wbsim honours:

- ``[environment variables with paths]``: ``NAME = value``, where the value is a list of paths separated
  by ``:`` or ``;``; relative paths are relative to the controller folder; ``$(VAR)`` is replaced by the
  environment variable ``VAR`` (empty if unset);
- ``[environment variables]`` and the section for the current platform (``[environment variables for
  Linux]``, ``... for Linux 64``, ``... for macOS``, ``... for Windows``, ``... for Windows 64``):
  ``NAME = value`` with ``$(VAR)`` expansion.

A ``PYTHONPATH`` entry puts its folders on the controller's ``sys.path`` right after the controller's own
folder, as the variable does for a Python process; every variable is set in ``os.environ`` while the
controller runs (and restored when it yields). The ``[python]`` section (``COMMAND``, ``OPTIONS``) and other
languages' sections have no meaning for in-process controllers and are ignored. Lines starting with ``;``
or ``#`` are comments.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["RuntimeIni", "read_runtime_ini"]

_VARIABLE = re.compile(r"\$\(([^)]*)\)")


@dataclass(frozen=True)
class RuntimeIni:
    """What a ``runtime.ini`` asks for.

    Attributes:
        environment: variables to set while the controller runs (path lists joined with ``os.pathsep``).
        python_path: absolute folders to put on ``sys.path`` after the controller's folder.
    """

    environment: dict[str, str] = field(default_factory=dict)
    python_path: tuple[str, ...] = ()


def _platform_sections() -> set[str]:
    if sys.platform.startswith("win"):
        return {"environment variables for windows", "environment variables for windows 64"}
    if sys.platform == "darwin":
        return {"environment variables for macos", "environment variables for mac os x"}
    return {"environment variables for linux", "environment variables for linux 64"}


def _expand(value: str) -> str:
    return _VARIABLE.sub(lambda m: os.environ.get(m.group(1), ""), value)


def read_runtime_ini(folder: Path) -> RuntimeIni:
    """The ``runtime.ini`` of the controller in ``folder`` (an empty one when there is no file)."""
    path = folder / "runtime.ini"
    if not path.is_file():
        return RuntimeIni()
    environment: dict[str, str] = {}
    section = ""
    plain = {"environment variables"} | _platform_sections()
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        line = raw.strip()
        if not line or line[0] in ";#":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip().lower()
            continue
        name, sep, value = line.partition("=")
        if not sep:
            continue
        name, value = name.strip(), _expand(value.strip().strip('"')).strip()
        if section == "environment variables with paths":
            parts = [p for p in re.split(r"[:;]", value) if p]
            resolved = [str((folder / p).resolve()) if not os.path.isabs(p) else p for p in parts]
            environment[name] = os.pathsep.join(resolved)
        elif section in plain:
            environment[name] = value
    python_path = tuple(p for p in environment.get("PYTHONPATH", "").split(os.pathsep) if p)
    return RuntimeIni(environment, python_path)
