"""The parsed node tree: what a world or PROTO file says, before any schema is applied.

The parser produces these plain records; :mod:`wbsim.world.checker` turns them into the checked
world model using the node schemas. Every record keeps its source location so that later stages can
report errors at the right file, line and column.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, Union

from wbsim.errors import SourceLocation

__all__ = [
    "Atom",
    "NullSyntax",
    "UseSyntax",
    "NodeSyntax",
    "ValueSyntax",
    "IsSyntax",
    "FieldSyntax",
    "ProtoFieldDecl",
    "ProtoSyntax",
    "ProtoTemplate",
    "ExternProto",
    "WorldSyntax",
    "Item",
]


class Atom(NamedTuple):
    """A scalar literal: a number, a string, or TRUE/FALSE (immutable; Atom, ValueSyntax and FieldSyntax are
    named tuples, cheaper to create than frozen dataclasses: a large world has hundreds of thousands).

    Attributes:
        kind: ``"number"``, ``"string"`` or ``"bool"``.
        value: float, str or bool.
        location: where the literal starts.
    """

    kind: str
    value: float | str | bool
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class NullSyntax:
    """The ``NULL`` keyword used as an SFNode value."""

    location: SourceLocation


@dataclass(slots=True)
class NodeSyntax:
    """A node as written: ``[DEF name] Type { fields }``.

    Attributes:
        type_name: the node or PROTO type name as written.
        location: position of the type name.
        def_name: the DEF name, if any.
        fields: the field entries in file order.
        hidden: the ``hidden name value`` entries Webots saves in PROTO instances (joint positions, solid
            poses and velocities of the PROTO's inner nodes), in file order.
    """

    type_name: str
    location: SourceLocation
    def_name: str | None = None
    fields: list[FieldSyntax] = field(default_factory=list)
    hidden: list[FieldSyntax] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class UseSyntax:
    """``USE name``, already resolved to the closest preceding node with that DEF name.

    Attributes:
        name: the DEF name referred to.
        target: the node that was defined with it.
        location: position of the ``USE`` keyword.
    """

    name: str
    target: NodeSyntax
    location: SourceLocation


Item = Union[Atom, NodeSyntax, UseSyntax, NullSyntax]


class ValueSyntax(NamedTuple):
    """A field value as written: a bracketed list or a bare sequence of items.

    Attributes:
        items: literals and nodes in order.
        bracketed: True for ``[ ... ]`` (only legal for MF fields).
        location: where the value starts.
    """

    items: tuple[Item, ...]
    bracketed: bool
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class IsSyntax:
    """``field IS protoField`` inside a PROTO body."""

    proto_field: str
    location: SourceLocation


class FieldSyntax(NamedTuple):
    """One field entry of a node: ``name value`` or ``name IS protoField``."""

    name: str
    value: ValueSyntax | IsSyntax
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class ProtoFieldDecl:
    """One interface field of a PROTO: ``field Type [{accepted}] name default``.

    Attributes:
        keyword: ``field``, ``vrmlField``, ``hiddenField``, ``deprecatedField``, ``unconnectedField`` or ``w3dField``.
        type_name: the declared field type, e.g. ``SFVec3f``.
        name: the interface field name.
        default: the default value as written.
        accepted: the accepted values if restricted, else None.
        location: position of the field name.
    """

    keyword: str
    type_name: str
    name: str
    default: ValueSyntax
    accepted: tuple[Item, ...] | None
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class ExternProto:
    """``[IMPORTABLE] EXTERNPROTO "url"``: where a PROTO type is defined.

    Attributes:
        url: the URL as written.
        name: the PROTO name (file stem of the URL).
        location: position of the URL string.
    """

    url: str
    name: str
    location: SourceLocation


@dataclass(frozen=True, slots=True)
class ProtoTemplate:
    """The body of a procedural PROTO: text with JavaScript template statements, expanded per instance.

    Attributes:
        content: the body text between the PROTO's opening ``{`` and its last ``}``.
        line: the file line where ``content`` starts (1-based).
        column: the column where ``content`` starts (1-based).
        text: the whole file text (the expansion replaces ``content`` in it before parsing).
        offset: the character offset of ``content`` in ``text``.
        regenerators: names of the fields the template reads (``fields.<name>``; every field with
            ``# tags: indirectFieldAccess``): only these are given to the template and key the cache.
        deterministic: False with ``# tags: nonDeterministic`` (every instance is expanded anew).
        interface_defs: the DEF names of the interface defaults, which the body may USE.
    """

    content: str
    line: int
    column: int
    text: str
    offset: int
    regenerators: frozenset[str]
    deterministic: bool
    interface_defs: tuple[tuple[str, NodeSyntax], ...] = ()


@dataclass(frozen=True, slots=True)
class ProtoSyntax:
    """A parsed PROTO file.

    Attributes:
        name: the PROTO type name.
        fields: interface declarations in order.
        body: the root node of the PROTO body.
        externprotos: PROTOs the body may use.
        file: path of the PROTO file.
        location: position of the PROTO name.
        template: for a procedural PROTO, its template; ``body`` is then only the root node's type
            (fields empty) until an instance is expanded.
    """

    name: str
    fields: tuple[ProtoFieldDecl, ...]
    body: NodeSyntax
    externprotos: tuple[ExternProto, ...]
    file: str
    location: SourceLocation
    template: ProtoTemplate | None = None


@dataclass(frozen=True, slots=True)
class WorldSyntax:
    """A parsed world file.

    Attributes:
        file: path of the world file.
        version: the version from the header, e.g. ``R2023b``.
        externprotos: the EXTERNPROTO declarations.
        nodes: the top-level nodes in order (Nodes or USEs).
    """

    file: str
    version: str
    externprotos: tuple[ExternProto, ...]
    nodes: tuple[NodeSyntax | UseSyntax, ...]
