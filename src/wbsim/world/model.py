"""The checked world model: typed nodes with every field filled in, sanitised and located.

A :class:`WbNode` is schema-generic (like dm_control's mjcf elements): its ``fields`` mapping holds
the Python value of every field of its schema, whether written in the file or defaulted. PROTO
instances are expanded: the node is the PROTO body's root, with ``proto_name`` set and the values of
the PROTO interface in ``proto_fields``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from wbsim.errors import SourceLocation
from wbsim.world.schema import NodeSchema

__all__ = ["WbNode", "WorldModel", "WorldWarning", "find_node_by_def_path"]


@dataclass(frozen=True, slots=True)
class WorldWarning:
    """A problem that does not stop loading (e.g. a value Webots would sanitise, an ignored node).

    Attributes:
        message: what happened.
        location: where in the file, if known.
        node_path: the scene-tree path of the node concerned.
    """

    message: str
    location: SourceLocation | None = None
    node_path: str = ""

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else ""
        path = f" [in {self.node_path}]" if self.node_path else ""
        return f"{where}warning: {self.message}{path}"


class WbNode:
    """One checked node of the scene tree.

    Attributes:
        schema: the schema of the node's base type (for a PROTO instance: its body root's type).
        fields: the value of every field (see :mod:`wbsim.world.fieldtypes` for the representation).
        given: names of the fields written in the file (the others hold defaults).
        field_locations: where each written field is.
        location: where the node's type name is written.
        def_name: the DEF name, or None.
        path: the scene-tree path, e.g. ``Robot "rover" > children[2] > HingeJoint > endPoint``.
        proto_name: the PROTO type name if this node is a PROTO instance root, else None.
        proto_fields: for PROTO instances, the interface field values.
        proto_given: for PROTO instances, the names of the interface fields written in the file.
        use_name: for a node written ``USE name`` (a copy of the DEF node), that name; else None.
        inside_proto: True for nodes that come from a PROTO body (hidden from DEF lookups).
        parent: the node holding this one in one of its fields, None at the top level.
        parent_field: the name of that field.
        index: the index in that field if it is an MF field.
    """

    __slots__ = (
        "schema", "fields", "given", "field_locations", "location", "def_name", "path", "proto_name",
        "proto_fields", "inside_proto", "parent", "parent_field", "index", "proto_given", "use_name",
        "__weakref__",  # Simulation.removed_nodes holds removed nodes weakly
    )

    def __init__(
        self,
        schema: NodeSchema,
        fields: dict[str, object],
        *,
        given: frozenset[str],
        field_locations: dict[str, SourceLocation],
        location: SourceLocation,
        def_name: str | None,
        path: str,
        proto_name: str | None = None,
        proto_fields: Mapping[str, object] | None = None,
        inside_proto: bool = False,
    ) -> None:
        self.schema = schema
        self.fields = fields
        self.given = given
        self.field_locations = field_locations
        self.location = location
        self.def_name = def_name
        self.path = path
        self.proto_name = proto_name
        self.proto_fields: Mapping[str, object] = proto_fields or {}
        self.inside_proto = inside_proto
        self.proto_given: frozenset[str] = frozenset()
        self.use_name: str | None = None
        self.parent: WbNode | None = None
        self.parent_field: str | None = None
        self.index: int | None = None

    @property
    def type_name(self) -> str:
        """The base node type, e.g. ``"Solid"`` (also for PROTO instances)."""
        return self.schema.base

    @property
    def display_type(self) -> str:
        """The type a user wrote: the PROTO name for PROTO instances, else the base type."""
        return self.proto_name or self.schema.base

    def __getitem__(self, name: str) -> object:
        return self.fields[name]

    def get(self, name: str, default: object = None) -> object:
        """The value of field ``name``, or ``default`` if the schema has no such field."""
        return self.fields.get(name, default)

    def is_a(self, kind: str) -> bool:
        """True if the node has role ``kind`` (e.g. ``"solid"``, ``"joint"``, ``"geometry"``)."""
        return kind in self.schema.kinds

    def location_of(self, field_name: str) -> SourceLocation:
        """Where field ``field_name`` is written, or the node's own location if it is defaulted."""
        return self.field_locations.get(field_name, self.location)

    def child_nodes(self) -> Iterator[tuple[str, int | None, WbNode]]:
        """Every node held in this node's fields, as (field name, MF index or None, node)."""
        fields = self.fields
        for name, multiple in self.schema.node_fields:
            value = fields[name]
            if multiple:
                assert isinstance(value, tuple)
                for i, node in enumerate(value):
                    yield name, i, node
            elif value is not None:
                assert isinstance(value, WbNode)
                yield name, None, value

    def walk(self) -> Iterator[WbNode]:
        """This node and all nodes below it, depth first in field order (iterative: any depth works).

        Each node object is yielded once: a tree changed at run time so that a node is held twice, or holds
        one of its ancestors, is still walked to its end (a checked world never has either: USE makes copies).
        """
        stack = [self]
        seen: set[int] = set()
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            yield node
            stack.extend(reversed([child for _, _, child in node.child_nodes()]))

    def ancestors(self) -> Iterator[WbNode]:
        """The nodes above this one, nearest first, up to a top-level node (each once, even in a broken tree)."""
        seen = {id(self)}
        above = self.parent
        while above is not None and id(above) not in seen:
            seen.add(id(above))
            yield above
            above = above.parent

    def __repr__(self) -> str:
        return f"<WbNode {self.path}>"


def _def_search(node: WbNode, name: str) -> WbNode | None:
    """Webots' findNodeByDef: pre-order search including ``node`` itself, through children and endPoints only."""
    stack = [node]
    seen: set[int] = set()  # each node once, even in a tree broken at run time
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if current.def_name == name and not current.inside_proto:
            return current
        if current.is_a("joint"):
            end_point = current.fields.get("endPoint")
            if isinstance(end_point, WbNode):
                stack.append(end_point)
            continue
        children = current.fields.get("children")
        if isinstance(children, tuple):
            stack.extend(reversed(children))
    return None


def find_node_by_def_path(roots: tuple[WbNode, ...], dotted: str) -> WbNode | None:
    """Find a node by DEF name or dotted DEF path, with Webots' rules.

    Each segment of ``"A.B.C"`` is searched depth first from the node found for the previous segment,
    that node included, through ``children`` fields and joint ``endPoint`` fields only; each dot may
    skip any number of nodes. Nodes inside PROTO bodies are not visible.

    Args:
        roots: the top-level nodes of the world.
        dotted: a DEF name or a dotted DEF path.

    Returns:
        The node, or None if a segment is not found.
    """
    segments = dotted.split(".")
    if not dotted or any(not s for s in segments):
        return None
    current: WbNode | None = None
    for root in roots:
        current = _def_search(root, segments[0])
        if current is not None:
            break
    for segment in segments[1:]:
        if current is None:
            return None
        current = _def_search(current, segment)
    return current


@dataclass
class WorldModel:
    """A checked world, ready to compile.

    Attributes:
        file: the world file path as given.
        project_dir: the project folder (the parent of ``worlds/``), where ``controllers/`` and
            ``protos/`` are looked up.
        version: the Webots version from the header.
        nodes: the top-level nodes in file order (unsupported nodes already dropped).
        world_info: the WorldInfo node in effect (the first one; a default one if the file has none).
        warnings: problems that did not stop loading.
    """

    file: str
    project_dir: Path
    version: str
    nodes: tuple[WbNode, ...]
    world_info: WbNode
    warnings: tuple[WorldWarning, ...] = field(default_factory=tuple)

    def walk(self) -> Iterator[WbNode]:
        """All nodes of the world, depth first in file order."""
        for node in self.nodes:
            yield from node.walk()

    def find_def(self, dotted: str) -> WbNode | None:
        """The node with DEF name or dotted DEF path ``dotted`` (see :func:`find_node_by_def_path`)."""
        return find_node_by_def_path(self.nodes, dotted)
