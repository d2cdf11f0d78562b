"""The one exception hierarchy of wbsim.

Every error that user input can cause (world files, controllers, plugins, transmissions, CLI arguments)
is raised as a subclass of :class:`WbsimError`, so callers can catch one type.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = [
    "WbsimError",
    "SourceLocation",
    "WorldError",
    "WorldSyntaxError",
    "WorldSchemaError",
    "WorldLoadError",
    "WorldAssetError",
    "TemplateError",
    "CompileError",
    "ControllerError",
    "PluginError",
    "TransmissionError",
    "SimulationError",
    "NotCopyableError",
    "RecordingError",
]


class WbsimError(Exception):
    """Base class of every error raised by wbsim for bad input or misuse."""


class SourceLocation(NamedTuple):
    """A position in a source file (immutable; a named tuple, as a large world makes one per token and a
    frozen dataclass cost four times as much to create).

    Attributes:
        file: path of the file as given by the user (str, not resolved).
        line: 1-based line number.
        column: 1-based column number (in characters).
    """

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class WorldError(WbsimError):
    """An error in a world or PROTO file, located at a file position and a node path.

    Attributes:
        message: what is wrong and, for names, the valid choices.
        location: where in the file, or None if the error has no single position.
        node_path: the scene-tree path, e.g. ``Robot "rover" > children[2] > HingeJoint > endPoint``.
    """

    def __init__(self, message: str, location: SourceLocation | None = None, node_path: str = "") -> None:
        self.message = message
        self.location = location
        self.node_path = node_path
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else ""
        path = f" [in {self.node_path}]" if self.node_path else ""
        return f"{where}{self.message}{path}"


class WorldSyntaxError(WorldError):
    """The file is not valid Webots world/PROTO syntax (lexer or grammar)."""


class WorldSchemaError(WorldError):
    """The file parses but breaks the node schemas: unknown node or field, wrong type, value out of range."""


class WorldAssetError(WorldSchemaError):
    """A file the world needs (a PROTO, a mesh) was found nowhere; the message lists where wbsim looked."""


class TemplateError(WorldError):
    """A procedural PROTO's template failed: JavaScript error, unsupported Lua template, bad generated text."""


class WorldLoadError(WbsimError):
    """Several world errors found in one load; nothing was loaded.

    Attributes:
        errors: every problem found, in file order.
    """

    def __init__(self, errors: list[WorldError]) -> None:
        self.errors = list(errors)
        lines = [str(e) for e in self.errors]
        head = f"{len(lines)} problem(s) in world:" if len(lines) != 1 else "1 problem in world:"
        super().__init__("\n".join([head, *("  " + line for line in lines)]))


class CompileError(WorldError):
    """The world model cannot be turned into a MuJoCo model; located in the world file where possible."""


class ControllerError(WbsimError):
    """A controller cannot be found, loaded or run as asked."""


class PluginError(WbsimError):
    """A physics plugin cannot be found or is missing a mandatory callback."""


class TransmissionError(WbsimError):
    """A transmission was built, configured or loaded with invalid parameters or handles."""


class SimulationError(WbsimError):
    """The simulation was used in a way it does not allow (e.g. stepping after it has ended)."""


class NotCopyableError(SimulationError, TypeError):
    """An object that belongs to one running simulation (the simulation, its device banks) was copied or pickled
    (:class:`wbsim.bound.BoundToSimulation`); a ``TypeError`` too, as ``copy`` and ``pickle`` raise for objects
    they cannot copy."""


class RecordingError(WbsimError):
    """A recording cannot be written, or a file read as a recording is not one (see :mod:`wbsim.recording`)."""
