"""Nodes and worlds written back in .wbt syntax, as Webots' writer does (``Node.exportString``, ``worldSave``).

Webots writes a node as ``[DEF name ]Type {`` followed by its fields that differ from their defaults, one per
line indented by two spaces, and ``}``; multiple values open ``[`` on the field's line and put each item on its
own line (numbers of MFInt32/MFFloat/MFBool share one line, separated by ``, ``); a node met again under a DEF
name already written is written ``USE name``. wbsim writes from its world model with the values a caller
supplies (the supervisor's live view, so poses, joint positions and velocities are the current ones).

A PROTO instance is written as ``ProtoName { ... }`` with the interface fields given in the file (and the
ones a caller reports as changed); node-valued PROTO parameters (``extensionSlot`` ...) are not written yet.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path

from wbsim.world.fieldtypes import FieldType
from wbsim.world.model import WbNode, WorldModel

__all__ = ["ValueOf", "file_value", "format_number", "node_text", "world_text"]

ValueOf = Callable[[WbNode, str], object]
"""Reads the value of a node's field (the file's, or the simulation's current one)."""

_SHARED_LINE = frozenset({FieldType.MFInt32, FieldType.MFFloat, FieldType.MFBool})
_EXTERNPROTO = re.compile(r'^\s*(?:IMPORTABLE\s+)?EXTERNPROTO\s+"[^"]*"', re.MULTILINE)


def file_value(node: WbNode, name: str) -> object:
    """The field's value as loaded (a PROTO instance's interface value when it has one)."""
    if node.proto_name is not None and name in node.proto_fields:
        return node.proto_fields[name]
    return node.fields[name]


def format_number(value: float) -> str:
    """The shortest text that reads back as the same double (integers without a decimal point; no ``-0``)."""
    number = float(value) + 0.0
    if number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return repr(number)


def _atom(value: object) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_number(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, tuple):  # SFVec2f, SFVec3f, SFColor, SFRotation
        return " ".join(_atom(float(v)) for v in value)
    raise TypeError(f"cannot write {value!r}")


class _Writer:
    def __init__(self, value: ValueOf) -> None:
        self.value = value
        self.defs: set[str] = set()
        self.lines: list[str] = []
        self.written: set[int] = set()  # ids of the nodes written: each once, even in a tree broken at run time

    def node(self, node: WbNode, depth: int, head: str) -> None:
        """Write ``node`` after ``head`` (the field name and a space, or indentation only)."""
        pad = "  " * depth
        if node.use_name is not None and node.use_name in self.defs:
            self.lines.append(f"{pad}{head}USE {node.use_name}")
            return
        if id(node) in self.written:  # held twice or below itself (a run-time edit; never in a checked world)
            if node.def_name:
                self.lines.append(f"{pad}{head}USE {node.def_name}")
            return
        self.written.add(id(node))
        prefix = ""
        if node.def_name:
            self.defs.add(node.def_name)
            prefix = f"DEF {node.def_name} "
        self.lines.append(f"{pad}{head}{prefix}{node.display_type} {{")
        for name, field_type, value in self._fields(node):
            self.field(name, field_type, value, depth + 1)
        self.lines.append(f"{pad}}}")

    def _fields(self, node: WbNode) -> Iterable[tuple[str, FieldType | None, object]]:
        if node.proto_name is not None:
            for name in node.proto_fields:
                current = self.value(node, name)
                if name in node.proto_given or current != node.proto_fields[name]:
                    yield name, None, current
            return
        for name, spec in node.schema.fields.items():
            if spec.deprecated and name not in node.given:
                continue
            current = self.value(node, name)
            if current != spec.default or (name in node.given and spec.deprecated):
                yield name, spec.type, current

    def field(self, name: str, field_type: FieldType | None, value: object, depth: int) -> None:
        pad = "  " * depth
        if isinstance(value, WbNode):
            self.node(value, depth, f"{name} ")
        elif value is None:
            self.lines.append(f"{pad}{name} NULL")
        elif field_type is not None and field_type.is_multiple or field_type is None and _is_multiple(value):
            items = tuple(value)  # type: ignore[arg-type]
            if not items:
                self.lines.append(f"{pad}{name} []")
                return
            self.lines.append(f"{pad}{name} [")
            if field_type in _SHARED_LINE or (field_type is None and all(
                    isinstance(v, (int, float)) for v in items)):
                self.lines.append(f"{pad}  " + ", ".join(_atom(v) for v in items))
            else:
                for item in items:
                    if isinstance(item, WbNode):
                        self.node(item, depth + 1, "")
                    else:
                        self.lines.append(f"{pad}  {_atom(item)}")
            self.lines.append(f"{pad}]")
        else:
            self.lines.append(f"{pad}{name} {_atom(value)}")


def _is_multiple(value: object) -> bool:
    """For a PROTO interface value of unknown type: a tuple of non-numbers is an MF value."""
    return isinstance(value, tuple) and any(not isinstance(v, (int, float)) for v in value)


def node_text(node: WbNode, value: ValueOf = file_value) -> str:
    """``node`` (and all it holds) in .wbt syntax, as Webots' ``wb_supervisor_node_export_string`` gives it.

    Args:
        node: the node to write.
        value: reads each field's value (default: the file's).

    Returns:
        The text, without a trailing newline.
    """
    writer = _Writer(value)
    writer.node(node, 0, "")
    return "\n".join(writer.lines)


def world_text(world: WorldModel, value: ValueOf = file_value) -> str:
    """The whole world in .wbt syntax: the header of its release, its EXTERNPROTO lines (copied from the file),
    and every top-level node, as Webots' ``worldSave`` writes it."""
    header = f"#VRML_SIM {world.version} utf8"
    try:
        source = Path(world.file).read_text(encoding="utf-8")
    except OSError:
        source = ""
    externs = [m.group(0).strip() for m in _EXTERNPROTO.finditer(source)]
    writer = _Writer(value)
    for node in world.nodes:
        writer.node(node, 0, "")
    parts = [header, ""] + (externs + [""] if externs else []) + writer.lines
    return "\n".join(parts) + "\n"
