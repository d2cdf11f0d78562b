"""Turn parsed syntax into the checked world model, applying the node schemas.

The checker reports every problem it can find (unknown nodes and fields with the valid names, wrong
types, out-of-range values, misplaced nodes, forbidden USEs, PROTO interface errors) instead of
stopping at the first one, so ``wbsim check`` can list them all. Values outside bounds that Webots
repairs itself are repaired the same way, with a warning.

PROTO instances are expanded here: the body is checked with each ``IS`` replaced by the instance's
value (or the interface default), in the context of the file that wrote that value. A procedural PROTO's
template is first run with the values of the fields it reads (see :data:`TemplateExpander`).
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from wbsim.errors import SourceLocation, WorldError, WorldSchemaError, WorldSyntaxError
from wbsim.world.builtin_nodes import BOUNDING_KINDS, TOP_LEVEL_KINDS, builtin_schemas
from wbsim.world.fieldtypes import FieldType, LiteralError, convert_literals
from wbsim.world.model import WbNode, WorldModel, WorldWarning
from wbsim.world.schema import FieldSpec, NodeSchema
from wbsim.world.syntax import (
    Atom,
    ExternProto,
    FieldSyntax,
    IsSyntax,
    Item,
    NodeSyntax,
    NullSyntax,
    ProtoFieldDecl,
    ProtoSyntax,
    UseSyntax,
    ValueSyntax,
    WorldSyntax,
)

__all__ = ["Checker", "ProtoScope", "ProtoResolver", "TemplateExpander"]

# Webots forbids USE of these (WbNodeUtilities::isAValidUseableNode): each must exist once in the scene tree.
_NO_USE_KINDS = frozenset(
    {"solid", "joint", "hinge_parameters", "slider_parameters", "ball_parameters", "rotational_device",
     "linear_device"}
)
_INVALID = object()

# Finite values beyond which compilation or stepping breaks down, by unit: (smallest non-zero magnitude,
# largest magnitude, why). They are wbsim's limits, not Webots' (which accepts any double and then fails in ODE).
_LENGTH_REASON = ("lengths must be at most 1e+09 m (and geometry sizes at least 1e-09 m): beyond, volumes and "
                  "inertias overflow double precision, and below, MuJoCo's geometric tolerances swallow the shape")
_MASS_REASON = ("masses and densities must be at most 1e+12: larger ones make inertias overflow or MuJoCo's "
                "solver lose all precision against ordinary bodies")
_PHYSICAL_LIMITS: dict[str, tuple[float, float, str]] = {
    "m": (1e-9, 1e9, _LENGTH_REASON),
    "kg": (0.0, 1e12, _MASS_REASON),
    "kg/m^3": (0.0, 1e12, _MASS_REASON),
    "ms": (1e-3, 1e5, "basicTimeStep must be between 0.001 ms and 100000 ms: wbsim splits each basic step into "
                      "MuJoCo steps of a few ms, so longer steps take minutes each, and shorter ones let no time "
                      "pass in double precision"),
}
_GEOMETRY_TYPES = frozenset({"Box", "Sphere", "Cylinder", "Capsule", "ElevationGrid"})
# Lengths only compared with distances, never built into bodies: any finite value works (as in Webots).
_HARMLESS_LENGTHS = frozenset({("Emitter", "range"), ("Emitter", "maxRange"), ("LinearMotor", "minPosition"),
                               ("LinearMotor", "maxPosition")})
_RAYS_REASON = ("wbsim casts every ray of a sensor at each sample: more would take minutes and gigabytes per step "
                "(Webots renders a lidar into a GPU texture, at most 16384 pixels wide)")
_ANGLE_REASON = ("the lidar's fields of view must be between 1e-06 and 1e+06 rad in magnitude: its image layout "
                 "divides by them and overflows beyond")
# Per-field limits, by (node type, field): (smallest non-zero magnitude, largest magnitude, why).
_FIELD_LIMITS: dict[tuple[str, str], tuple[float, float, str]] = {
    ("Lidar", "horizontalResolution"): (0.0, 16384.0, f"at most 16384: {_RAYS_REASON}"),
    ("Lidar", "numberOfLayers"): (0.0, 4096.0, f"at most 4096: {_RAYS_REASON}"),
    ("Lidar", "fieldOfView"): (1e-6, 1e6, _ANGLE_REASON),
    ("Lidar", "verticalFieldOfView"): (1e-6, 1e6, _ANGLE_REASON),
    ("DistanceSensor", "numberOfRays"): (0.0, 4096.0, f"at most 4096: {_RAYS_REASON}"),
}


@dataclass(frozen=True, slots=True)
class ProtoScope:
    """Where PROTO names are resolved: the declaring file and its EXTERNPROTO declarations."""

    file: str
    externs: Mapping[str, ExternProto]


ProtoResolver = Callable[[str, ProtoScope, SourceLocation], "ProtoSyntax | None"]
"""Finds a PROTO by name for a scope; returns None if unknown, raises WorldError if found but broken."""

AssetFinder = Callable[[str, str, SourceLocation], Path]
"""Finds the local file of a URL written in a file (``url``, writing file, location); raises WorldError."""

TemplateExpander = Callable[["ProtoSyntax", str], "tuple[ProtoSyntax, tuple[str, ...]]"]
"""Expands a procedural PROTO for a ``fields`` object (JavaScript source): the concrete PROTO and the lines
its template wrote to its error stream; raises WorldError (located in the PROTO file) on failure."""

_HIDDEN_SOLID_RE = re.compile(r"^(translation|rotation|linearVelocity|angularVelocity)_(\d+)$")
_HIDDEN_JOINT_RE = re.compile(r"^(position|position2|position3)_(\d+)_(\d+)$")
_JOINT_PARAMETERS = {"position": "jointParameters", "position2": "jointParameters2", "position3": "jointParameters3"}

_JS_KEYS = {"Vec2f": ("x", "y"), "Vec3f": ("x", "y", "z"), "Color": ("r", "g", "b"), "Rotation": ("x", "y", "z", "a")}


def _js_value(type_name: str, value: object) -> object:
    """A checked non-node field value in the form templates see (``{x, y, z}``, arrays for MF fields)."""
    base = type_name[2:]
    if type_name.startswith("MF"):
        return [_js_single(base, v) for v in value]  # type: ignore[union-attr]
    return _js_single(base, value)


def _js_number(value: float) -> float:
    """A real as Webots hands it to templates: written with Qt's default ``%g``, 6 significant digits."""
    return float(f"{value:.6g}") if math.isfinite(value) else value


def _js_single(base: str, value: object) -> object:
    keys = _JS_KEYS.get(base)
    if keys is not None:
        return {k: _js_number(float(v)) for k, v in zip(keys, value)}  # type: ignore[call-overload]
    if base == "Float":
        return _js_number(float(value))  # type: ignore[arg-type]
    return value


@dataclass(frozen=True, slots=True)
class _Ctx:
    """What applies to syntax written in one place: PROTO scope, IS bindings, PROTO nesting."""

    scope: ProtoScope
    bindings: Mapping[str, _Bound] | None
    decls: Mapping[str, ProtoFieldDecl] | None
    inside_proto: bool
    proto_stack: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Bound:
    """A value together with the context it was written in."""

    value: ValueSyntax
    ctx: _Ctx


def _suggest(name: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(name, choices, n=3, cutoff=0.6)
    return f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def _relocated(error: WorldError, location: SourceLocation | None, path: str) -> WorldError:
    """A copy of a PROTO-loading error placed at ``location`` and ``path``, keeping its class."""
    cls = type(error) if isinstance(error, (WorldSyntaxError, WorldSchemaError)) else WorldSchemaError
    return cls(error.message, location, path)


def _solid_or_joint_below(node: WbNode) -> WbNode | None:
    """The first Solid or joint below ``node`` through children and joint endPoints (Webots' USE check)."""
    if node.is_a("joint"):
        end_point = node.fields.get("endPoint")
        return end_point if isinstance(end_point, WbNode) else None
    children = node.fields.get("children")
    if isinstance(children, tuple):
        for child in children:
            if child.is_a("solid") or child.is_a("joint"):
                return child
            found = _solid_or_joint_below(child)
            if found is not None:
                return found
    return None


def _numbers(value: object) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [float(value)]
    if isinstance(value, tuple):
        return [n for v in value for n in _numbers(v)]
    return []


def _map_numbers(value: object, fn: Callable[[float], float]) -> object:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(fn(float(value)))
    if isinstance(value, float):
        return fn(value)
    if isinstance(value, tuple):
        return tuple(_map_numbers(v, fn) for v in value)
    return value


class Checker:
    """Checks one world (and the PROTOs it uses) against the node schemas.

    Args:
        resolve_proto: finds PROTO definitions by name (see :data:`ProtoResolver`).
        expand_template: expands procedural PROTOs (see :data:`TemplateExpander`); None refuses them.
        find_asset: finds mesh files of boundingObjects (see :data:`AssetFinder`); None does not look.

    Attributes:
        errors: every error found, in discovery order, without duplicates.
        warnings: every warning, without duplicates.
    """

    def __init__(self, resolve_proto: ProtoResolver, expand_template: TemplateExpander | None = None,
                 find_asset: AssetFinder | None = None) -> None:
        self._resolve_proto = resolve_proto
        self._expand_template = expand_template
        self._find_asset = find_asset
        self._schemas = builtin_schemas()
        self.errors: list[WorldError] = []
        self.warnings: list[WorldWarning] = []
        self._seen: set[str] = set()
        self._bounding_depth = 0  # > 0 while checking the inside of a boundingObject

    # -- reporting ----------------------------------------------------------------------------------
    def _error(self, message: str, location: SourceLocation | None, path: str) -> None:
        self._record(WorldSchemaError(message, location, path))

    def _record(self, error: WorldError) -> None:
        # One problem, one error: a located problem met again (through a USE copy or another instance of
        # the same PROTO) is reported once, at its first node path.
        key = f"{error.location}: {error.message}" if error.location is not None else str(error)
        if key not in self._seen:
            self._seen.add(key)
            self.errors.append(error)

    def _warn(self, message: str, location: SourceLocation | None, path: str) -> None:
        warning = WorldWarning(message, location, path)
        key = "W" + str(warning)
        if key not in self._seen:
            self._seen.add(key)
            self.warnings.append(warning)

    # -- entry point --------------------------------------------------------------------------------
    def check_world(self, syntax: WorldSyntax, project_dir: Path) -> WorldModel | None:
        """Check a parsed world; returns the model, or None if errors were found (see ``errors``)."""
        scope = ProtoScope(syntax.file, {e.name: e for e in syntax.externprotos})
        ctx = _Ctx(scope, None, None, False, ())
        nodes: list[WbNode] = []
        for i, item in enumerate(syntax.nodes):
            node = self._item(item, ctx, TOP_LEVEL_KINDS, "", f"top-level node [{i}]", "the world")
            if node is not None:
                nodes.append(node)
        infos = [n for n in nodes if n.type_name == "WorldInfo"]
        for extra in infos[1:]:
            self._warn("Only the first WorldInfo node is used; this one is ignored.", extra.location, extra.path)
        world_info = infos[0] if infos else self._default_node("WorldInfo", SourceLocation(syntax.file, 1, 1))
        self._warn_unapplied_world_info(world_info)
        if self.errors:
            return None
        return WorldModel(
            file=syntax.file,
            project_dir=project_dir,
            version=syntax.version,
            nodes=tuple(nodes),
            world_info=world_info,
            warnings=tuple(self.warnings),
        )

    def _warn_unapplied_world_info(self, info: WbNode) -> None:
        """One located warning per WorldInfo field written in the file that wbsim accepts but does not apply.

        ``ERP`` and ``CFM`` are ODE's global constraint softness; MuJoCo's joints and contacts have their own
        (contacts follow ContactProperties' softERP/softCFM), so only a physics plugin's contacts use them.
        """
        if str(info["physics"]) not in ("", "<none>"):
            return
        for name in ("ERP", "CFM"):
            if name in info.given:
                self._warn(f"WorldInfo.{name} has no effect in wbsim (MuJoCo's constraints have their own "
                           "softness; only the contacts of a physics plugin use it).", info.location_of(name),
                           f"{info.path} > {name}")

    def _default_node(self, type_name: str, location: SourceLocation) -> WbNode:
        schema = self._schemas[type_name]
        fields = {name: spec.default for name, spec in schema.fields.items()}
        return WbNode(schema, fields, given=frozenset(), field_locations={}, location=location, def_name=None,
                      path=type_name)

    # -- nodes --------------------------------------------------------------------------------------
    def _kinds_of(self, type_name: str, ctx: _Ctx, location: SourceLocation) -> frozenset[str] | None:
        schema = self._schemas.get(type_name)
        if schema is not None:
            return schema.kinds
        seen: set[str] = set()
        scope = ctx.scope
        while True:
            try:
                proto = self._resolve_proto(type_name, scope, location)
            except WorldError:
                return None
            if proto is None or proto.name in seen:
                return None
            seen.add(proto.name)
            root = proto.body.type_name
            if root in self._schemas:
                return self._schemas[root].kinds
            type_name, location = root, proto.body.location
            scope = ProtoScope(proto.file, {e.name: e for e in proto.externprotos})

    def _valid_names(self, kinds: frozenset[str]) -> list[str]:
        return sorted(n for n, s in self._schemas.items() if s.kinds & kinds and s.support != "unsupported")

    def _item(
        self, item: Item, ctx: _Ctx, kinds: frozenset[str], parent_path: str, slot: str, field_label: str
    ) -> WbNode | None:
        """Check one SFNode item placed in a field accepting ``kinds``; None if skipped or invalid."""
        container = f"{parent_path} > {slot}" if parent_path else slot
        if isinstance(item, UseSyntax):
            target_kinds = self._kinds_of(item.target.type_name, ctx, item.target.location)
            if target_kinds is not None and target_kinds & _NO_USE_KINDS:
                self._error(
                    f"USE {item.name}: a {item.target.type_name} node cannot be USEd; Solid nodes, joints, "
                    "joint parameters and devices must appear once (DEF/USE is for shapes, geometries, "
                    "appearances, Physics).",
                    item.location,
                    container,
                )
                return None
            node = self._node(item.target, ctx, kinds, parent_path, slot, field_label, use_copy=True)
            if node is not None:
                node.use_name = item.name  # the writer writes it back as USE
            inner = _solid_or_joint_below(node) if node is not None else None
            if inner is not None:
                self._error(
                    f"USE {item.name}: this {item.target.type_name} node holds a {inner.display_type} node "
                    "(through children or a joint endPoint); nodes with a Solid or joint descendant "
                    "cannot be USEd.",
                    item.location,
                    container,
                )
                return None
            return node
        if isinstance(item, NodeSyntax):
            return self._node(item, ctx, kinds, parent_path, slot, field_label)
        if isinstance(item, NullSyntax):
            self._error(f"NULL is not allowed in the list of {field_label}.", item.location, container)
            return None
        self._error(f"Expected a node in {field_label}, found a literal {item.value!r}.", item.location, container)
        return None

    def _node(
        self,
        syntax: NodeSyntax,
        ctx: _Ctx,
        kinds: frozenset[str],
        parent_path: str,
        slot: str,
        field_label: str,
        *,
        use_copy: bool = False,
    ) -> WbNode | None:
        container = f"{parent_path} > {slot}" if parent_path else slot
        schema = self._schemas.get(syntax.type_name)
        if schema is None:
            try:
                proto = self._resolve_proto(syntax.type_name, ctx.scope, syntax.location)
            except WorldError as error:
                self._record(_relocated(error, error.location or syntax.location, container))
                return None
            if proto is None:
                valid = self._valid_names(kinds)
                self._error(
                    f"Unknown node or PROTO '{syntax.type_name}'.{_suggest(syntax.type_name, list(self._schemas))} "
                    f"Valid nodes in {field_label}: {', '.join(valid)} (or a PROTO declared with EXTERNPROTO).",
                    syntax.location,
                    container,
                )
                return None
            return self._expand_proto(syntax, proto, ctx, kinds, parent_path, slot, field_label, use_copy)
        if not schema.kinds & kinds:
            valid = self._valid_names(kinds)
            self._error(
                f"A {syntax.type_name} node cannot be placed in {field_label}: expected one of {', '.join(valid)}.",
                syntax.location,
                container,
            )
            return None
        if schema.support == "unsupported":
            if syntax.type_name == "Mesh" and self._bounding_depth and self._find_asset is not None:
                self._check_mesh_url(syntax, ctx, container)
            self._warn(
                f"{syntax.type_name} nodes are not simulated by wbsim yet; this node and everything inside it "
                "are ignored.",
                syntax.location,
                container,
            )
            return None
        return self._build(syntax, schema, ctx, parent_path, slot, use_copy=use_copy)

    def _label(self, type_name: str, def_name: str | None, name: object) -> str:
        label = type_name
        if isinstance(name, str):
            label += f' "{name}"'
        elif def_name:
            label = f"DEF {def_name} {label}"
        return label

    def _build(
        self,
        syntax: NodeSyntax,
        schema: NodeSchema,
        ctx: _Ctx,
        parent_path: str,
        slot: str,
        *,
        use_copy: bool,
        display_type: str | None = None,
        def_name: str | None = None,
    ) -> WbNode:
        """Check the fields of a node with a known built-in schema and create it."""
        def_name = def_name if def_name is not None else (None if use_copy else syntax.def_name)
        # The path label needs the name, which may come through IS; resolve it first.
        name_value: object = None
        for entry in syntax.fields:
            if entry.name == "name" and "name" in schema.fields:
                bound = self._resolve(entry, ctx, schema.fields["name"], "", report=False)
                if bound is not None and len(bound.value.items) == 1 and isinstance(bound.value.items[0], Atom):
                    name_value = bound.value.items[0].value
        label = self._label(display_type or schema.name, def_name, name_value)
        path = f"{parent_path} > {slot} > {label}" if parent_path else label
        fields: dict[str, object] = {}
        locations: dict[str, SourceLocation] = {}
        schema_fields = schema.fields
        for entry in syntax.fields:
            spec = schema_fields.get(entry.name)
            if spec is None:
                names = list(schema.field_names)
                message = (
                    f"Unknown field '{entry.name}' in {schema.name}.{_suggest(entry.name, names)} "
                    f"Valid fields: {', '.join(names) if names else 'none'}."
                )
                if schema.support == "visual":
                    self._warn(message + " Ignored (visual-only node).", entry.location, path)
                else:
                    self._error(message, entry.location, path)
                continue
            if entry.name in fields or entry.name in locations:
                self._error(f"Field '{entry.name}' is given twice in {schema.name}.", entry.location, path)
                continue
            locations[entry.name] = entry.location
            if isinstance(entry.value, IsSyntax):
                bound = self._resolve(entry, ctx, spec, path)
                if bound is None:
                    continue
                value = self._value(spec, bound.value, bound.ctx, path, schema.name)
            else:  # a value written here (what _resolve gives, without its record: most fields)
                value = self._value(spec, entry.value, ctx, path, schema.name)
            if value is not _INVALID:
                fields[entry.name] = value
        given = frozenset(fields)
        fields = schema.with_defaults(fields)
        node = WbNode(
            schema,
            fields,
            given=given,
            field_locations=locations,
            location=syntax.location,
            def_name=def_name,
            path=path,
            inside_proto=ctx.inside_proto,
        )
        for field_name, index, child in node.child_nodes():
            child.parent, child.parent_field, child.index = node, field_name, index
        return node

    def _resolve(
        self, entry: FieldSyntax, ctx: _Ctx, spec: FieldSpec, path: str, *, report: bool = True
    ) -> _Bound | None:
        """The value of a field entry with its context, following IS to the PROTO instance value.

        With ``report=False`` a broken IS gives None without an error (it is reported when the field
        itself is checked).
        """
        if not isinstance(entry.value, IsSyntax):
            return _Bound(entry.value, ctx)
        target = entry.value.proto_field
        if ctx.bindings is None or ctx.decls is None:
            if report:
                self._error("'IS' can only be used inside a PROTO body.", entry.value.location, path)
            return None
        decl = ctx.decls.get(target)
        if decl is None or decl.type_name != spec.type.value:
            if not report:
                return None
        if decl is None:
            self._error(
                f"'{entry.name} IS {target}': the PROTO has no field '{target}'."
                f"{_suggest(target, list(ctx.decls))} Its fields: {', '.join(ctx.decls) or 'none'}.",
                entry.value.location,
                path,
            )
            return None
        if decl.type_name != spec.type.value:
            self._error(
                f"'{entry.name} IS {target}': field '{entry.name}' is {spec.type.value} but PROTO field "
                f"'{target}' is {decl.type_name}.",
                entry.value.location,
                path,
            )
            return None
        return ctx.bindings[target]

    def _value(self, spec: FieldSpec, value: ValueSyntax, ctx: _Ctx, path: str, node_type: str) -> object:
        """Convert and check one field value; returns ``_INVALID`` after reporting an error."""
        label = f"field '{spec.name}' of {node_type}"
        field_path = f"{path} > {spec.name}"
        if spec.type.is_node:
            if spec.name != "boundingObject":
                return self._node_value(spec, value, ctx, path, label, field_path)
            self._bounding_depth += 1
            try:
                return self._node_value(spec, value, ctx, path, label, field_path)
            finally:
                self._bounding_depth -= 1
        atoms: list[Atom] = []
        for item in value.items:
            if not isinstance(item, Atom):
                where = item.location
                self._error(f"Expected {spec.type.description} for {label}, found a node.", where, field_path)
                return _INVALID
            atoms.append(item)
        try:
            converted = convert_literals(
                spec.type, [a.kind for a in atoms], [a.value for a in atoms], value.bracketed
            )
        except LiteralError as error:
            where = atoms[error.index].location if 0 <= error.index < len(atoms) else value.location
            self._error(f"Invalid value for {label} ({spec.type.value}): {error.message}.", where, field_path)
            return _INVALID
        limited = self._within_limits(spec, converted, value.location, field_path, label, node_type)
        if limited is _INVALID:
            return _INVALID
        return self._constrain(spec, converted, value.location, field_path, label)

    def _within_limits(self, spec: FieldSpec, value: object, location: SourceLocation, path: str, label: str,
                       node_type: str) -> object:
        """Refuse finite values no simulation can use (they would overflow or hang later), with the reason."""
        field_limit = _FIELD_LIMITS.get((node_type, spec.name))
        if field_limit is not None:
            low, high, reason = field_limit
            for number in _numbers(value):
                if abs(number) > high or 0.0 < abs(number) < low:
                    self._error(f"Value {number:g} out of range for {label}: {reason}.", location, path)
                    return _INVALID
        limit = _PHYSICAL_LIMITS.get(spec.unit)
        if limit is None or spec.effect != "simulated" or (spec.unit == "ms" and spec.name != "basicTimeStep"):
            return value
        low, high, reason = limit
        if spec.unit == "m" and node_type in _GEOMETRY_TYPES and "boundingObject" not in path.split(" > "):
            return value  # a visual Shape's geometry never reaches the physics (a terrain's, a tiny detail's)
        if spec.unit == "m" and (node_type, spec.name) in _HARMLESS_LENGTHS:
            return value
        if spec.unit == "m" and node_type not in _GEOMETRY_TYPES:
            low = 0.0  # positions and ranges may be 0 or tiny; only geometry sizes have a floor
        for number in _numbers(value):
            size = abs(number)
            if size > high or 0.0 < size < low:
                self._error(f"Value {number:g} out of range for {label}: {reason}.", location, path)
                return _INVALID
        return value

    def _node_value(
        self, spec: FieldSpec, value: ValueSyntax, ctx: _Ctx, path: str, label: str, field_path: str
    ) -> object:
        """Check the value of an SFNode or MFNode field; returns ``_INVALID`` after reporting an error."""
        kinds = spec.node_kinds
        if self._bounding_depth and spec.name == "children":
            # Inside a boundingObject, Group/Pose/Transform children are geometries (bare or in a Shape).
            kinds = BOUNDING_KINDS
        if not spec.type.is_multiple:
            if value.bracketed or len(value.items) != 1:
                self._error(f"Expected a single node, USE or NULL for {label}.", value.location, field_path)
                return _INVALID
            item = value.items[0]
            if isinstance(item, NullSyntax):
                return None
            return self._item(item, ctx, kinds, path, spec.name, label)
        nodes = []
        for i, item in enumerate(value.items):
            node = self._item(item, ctx, kinds, path, f"{spec.name}[{i}]", label)
            if node is not None:
                nodes.append(node)
        return tuple(nodes)

    def _constrain(self, spec: FieldSpec, value: object, location: SourceLocation, path: str, label: str) -> object:
        if spec.choices is not None:
            items = value if spec.type.is_multiple else (value,)
            for item in items:  # type: ignore[union-attr]
                if item not in spec.choices:
                    choices = ", ".join(repr(c) for c in spec.choices)
                    if spec.on_violation == "replace":
                        self._warn(self._replaced_message(spec, item, f"expected one of {choices}"), location, path)
                        return spec.replacement
                    self._error(
                        f"Invalid value {item!r} for {label}: expected one of {choices}.", location, path
                    )
                    return _INVALID
        bounds = spec.bounds
        if bounds is None:
            return value
        bad = [n for n in _numbers(value) if not bounds.contains(n)]
        if not bad:
            return value
        if spec.on_violation == "replace":
            if spec.violation_message is not None:
                self._warn(self._replaced_message(spec, f"{bad[0]:g}", ""), location, path)
            else:
                self._warn(
                    f"Invalid value {bad[0]:g} for {label}: must be in {bounds}; using {spec.replacement!r} as "
                    "Webots does.",
                    location,
                    path,
                )
            return spec.replacement
        if spec.on_violation == "clamp":
            clamped = _map_numbers(value, bounds.clamp)
            if spec.violation_message is not None:
                self._warn(spec.violation_message.format(value=f"{bad[0]:g}", replacement=clamped), location, path)
            else:
                self._warn(f"Invalid value {bad[0]:g} for {label}: must be in {bounds}; clamped.", location, path)
            return clamped
        if spec.on_violation == "negate" and not spec.type.is_multiple:
            opposite = _map_numbers(value, lambda n: -n)
            if spec.violation_message is not None:
                self._warn(spec.violation_message.format(value=f"{bad[0]:g}", replacement=opposite), location, path)
            else:
                self._warn(f"Invalid value {bad[0]:g} for {label}: must be in {bounds}; using its opposite as "
                           "Webots does.", location, path)
            return opposite
        shown = "nan" if math.isnan(bad[0]) else f"{bad[0]:g}"
        self._error(f"Value {shown} out of range for {label}: must be in {bounds}.", location, path)
        return _INVALID

    @staticmethod
    def _replaced_message(spec: FieldSpec, value: object, expected: str) -> str:
        """The warning for a value replaced as Webots does: Webots' own text if the schema has one."""
        if spec.violation_message is not None:
            return spec.violation_message.format(value=value, replacement=spec.replacement)
        return f"Invalid value {value!r} for field '{spec.name}': {expected}; using {spec.replacement!r} as Webots does."

    # -- PROTOs -------------------------------------------------------------------------------------
    def _expand_proto(
        self,
        syntax: NodeSyntax,
        proto: ProtoSyntax,
        ctx: _Ctx,
        kinds: frozenset[str],
        parent_path: str,
        slot: str,
        field_label: str,
        use_copy: bool,
    ) -> WbNode | None:
        container = f"{parent_path} > {slot}" if parent_path else slot
        if proto.name in ctx.proto_stack:
            chain = " -> ".join((*ctx.proto_stack, proto.name))
            self._error(f"PROTO {proto.name} uses itself ({chain}).", syntax.location, container)
            return None
        decls = {d.name: d for d in proto.fields}
        proto_scope = ProtoScope(proto.file, {e.name: e for e in proto.externprotos})
        stack = (*ctx.proto_stack, proto.name)
        default_ctx = _Ctx(proto_scope, None, None, True, stack)
        bindings: dict[str, _Bound] = {}
        proto_fields: dict[str, object] = {}
        instance_path = f"{container} > {proto.name}"
        given: set[str] = set()
        for entry in syntax.fields:
            decl = decls.get(entry.name)
            if decl is None:
                self._error(
                    f"Unknown field '{entry.name}' in PROTO {proto.name}.{_suggest(entry.name, list(decls))} "
                    f"Valid fields: {', '.join(decls) or 'none'}.",
                    entry.location,
                    instance_path,
                )
                continue
            if entry.name in given:
                message = f"Field '{entry.name}' is given twice in PROTO {proto.name}."
                self._error(message, entry.location, instance_path)
                continue
            given.add(entry.name)
            spec = FieldSpec(decl.name, FieldType(decl.type_name), None)
            bound = self._resolve(entry, ctx, spec, instance_path)
            if bound is None:
                continue
            if not spec.type.is_node:
                value = self._value(spec, bound.value, bound.ctx, instance_path, f"PROTO {proto.name}")
                if value is _INVALID:
                    continue
                if decl.accepted is not None and not self._accepted(value, decl, spec):
                    choices = ", ".join(repr(a.value) for a in decl.accepted if isinstance(a, Atom))
                    self._error(
                        f"Invalid value {value!r} for field '{decl.name}' of PROTO {proto.name}: "
                        f"expected one of {choices}.",
                        bound.value.location,
                        instance_path,
                    )
                    continue
                proto_fields[decl.name] = value
            elif decl.accepted is not None:
                rejected = self._rejected_node(bound.value, decl)
                if rejected is not None:
                    type_name, where = rejected
                    allowed = ", ".join(n.type_name for n in decl.accepted if isinstance(n, NodeSyntax))
                    self._error(
                        f"A {type_name} node is not accepted by field '{decl.name}' of PROTO {proto.name}: "
                        f"expected one of {allowed}.",
                        where,
                        instance_path,
                    )
                    continue
            bindings[decl.name] = bound
        for decl in proto.fields:
            if decl.name not in bindings:
                bindings[decl.name] = _Bound(decl.default, default_ctx)
                spec = FieldSpec(decl.name, FieldType(decl.type_name), None)
                if not spec.type.is_node:
                    value = self._value(spec, decl.default, default_ctx, instance_path, f"PROTO {proto.name}")
                    if value is not _INVALID:
                        proto_fields[decl.name] = value
        if proto.template is not None:
            concrete = self._instantiate(proto, bindings, proto_fields, default_ctx, syntax, instance_path,
                                         container)
            if concrete is None:
                return None
            proto = concrete
            proto_scope = ProtoScope(proto.file, {e.name: e for e in proto.externprotos})
        body_ctx = _Ctx(proto_scope, bindings, decls, True, stack)
        body = proto.body
        schema = self._schemas.get(body.type_name)
        def_name = None if use_copy else syntax.def_name
        if schema is None:
            # A PROTO whose body is another PROTO instance: expand that one with our bindings.
            try:
                inner = self._resolve_proto(body.type_name, proto_scope, body.location)
            except WorldError as error:
                self._record(_relocated(error, error.location or body.location, container))
                return None
            if inner is None:
                self._error(
                    f"Unknown node or PROTO '{body.type_name}' as the body of PROTO {proto.name}.",
                    body.location,
                    instance_path,
                )
                return None
            node = self._expand_proto(body, inner, body_ctx, kinds, parent_path, slot, field_label, False)
        else:
            if not schema.kinds & kinds:
                self._error(
                    f"A {proto.name} (a {body.type_name} PROTO) cannot be placed in {field_label}: expected one of "
                    f"{', '.join(self._valid_names(kinds))}.",
                    syntax.location,
                    container,
                )
                return None
            if schema.support == "unsupported":
                self._warn(
                    f"PROTO {proto.name} is a {body.type_name}, which wbsim does not simulate yet; ignored.",
                    syntax.location,
                    container,
                )
                return None
            node = self._build(
                body, schema, body_ctx, parent_path, slot, use_copy=False, display_type=proto.name,
                def_name=def_name or "",
            )
        if node is None:
            return None
        node.def_name = def_name
        node.proto_name = proto.name
        node.proto_fields = proto_fields
        node.proto_given = frozenset(given)
        node.inside_proto = ctx.inside_proto
        node.location = syntax.location
        if syntax.hidden:
            self._apply_hidden(node, syntax, ctx, instance_path)
        return node

    def _apply_hidden(self, root: WbNode, syntax: NodeSyntax, ctx: _Ctx, path: str) -> None:
        """Apply the hidden fields Webots saves in a PROTO instance (Webots' "PROTO hidden fields" page).

        ``translation_i``, ``rotation_i``, ``linearVelocity_i``, ``angularVelocity_i`` set fields of the i-th
        Solid of the instance in depth-first pre-order (the root being 0); ``position_i_j`` (and
        ``position2_i_j``, ``position3_i_j``) the position of the j-th joint, in pre-order, whose parent
        Solid is the i-th one.
        """
        solids: list[WbNode] = []

        def collect(node: WbNode) -> None:
            if node.is_a("solid"):
                solids.append(node)
            for _, _, child in node.child_nodes():
                collect(child)

        def joints_of(node: WbNode, found: list[WbNode]) -> list[WbNode]:
            for _, _, child in node.child_nodes():
                if child.is_a("solid"):
                    continue
                if child.is_a("joint"):
                    found.append(child)
                joints_of(child, found)
            return found

        collect(root)
        for entry in syntax.hidden:
            target: WbNode | None = None
            name = ""
            solid_match = _HIDDEN_SOLID_RE.match(entry.name)
            joint_match = _HIDDEN_JOINT_RE.match(entry.name)
            if solid_match is not None:
                index = int(solid_match.group(2))
                target = solids[index] if index < len(solids) else None
                name = solid_match.group(1)
            elif joint_match is not None:
                index, joint_index = int(joint_match.group(2)), int(joint_match.group(3))
                joints = joints_of(solids[index], []) if index < len(solids) else []
                joint = joints[joint_index] if joint_index < len(joints) else None
                parameters = _JOINT_PARAMETERS[joint_match.group(1)]
                if joint is not None and parameters in joint.schema.fields:
                    value = joint.fields.get(parameters)
                    target = value if isinstance(value, WbNode) else None
                name = "position"
            if target is None or name not in target.schema.fields:
                self._warn(f"Hidden field '{entry.name}' matches no node of PROTO {root.display_type}; ignored.",
                           entry.location, path)
                continue
            spec = target.schema.fields[name]
            assert isinstance(entry.value, ValueSyntax)
            value = self._value(spec, entry.value, ctx, target.path, target.schema.name)
            if value is _INVALID:
                continue
            target.fields[name] = value
            target.given = target.given | {name}

    def _check_mesh_url(self, syntax: NodeSyntax, ctx: _Ctx, container: str) -> None:
        """A boundingObject Mesh's file must be found, as Webots' own assets are (only resolved, not used)."""
        assert self._find_asset is not None
        for entry in syntax.fields:
            if entry.name != "url":
                continue
            bound = self._resolve(entry, ctx, FieldSpec("url", FieldType("MFString"), ()), container, report=False)
            if bound is None or not bound.value.items or not isinstance(bound.value.items[0], Atom):
                return
            first = bound.value.items[0]
            if not isinstance(first.value, str) or not first.value:
                return
            try:
                self._find_asset(first.value, bound.ctx.scope.file, first.location)
            except WorldError as error:
                self._record(type(error)(error.message, error.location or first.location, container))
            return

    # -- procedural PROTOs ---------------------------------------------------------------------------
    def _instantiate(
        self,
        proto: ProtoSyntax,
        bindings: Mapping[str, _Bound],
        proto_fields: Mapping[str, object],
        default_ctx: _Ctx,
        syntax: NodeSyntax,
        instance_path: str,
        container: str,
    ) -> ProtoSyntax | None:
        """Run a procedural PROTO's template for this instance; None after reporting an error."""
        from wbsim.world.templates import js_literal  # the template engine is only needed for templates

        assert proto.template is not None
        if self._expand_template is None:
            self._error(f"PROTO {proto.name} is procedural (a JavaScript template); this load cannot expand it.",
                        syntax.location, container)
            return None
        fields: dict[str, object] = {}
        for decl in proto.fields:
            if decl.name not in proto.template.regenerators:
                continue
            spec = FieldSpec(decl.name, FieldType(decl.type_name), None)
            if spec.type.is_node:
                bound = bindings[decl.name]
                value = self._js_node_field(spec, bound.value, bound.ctx, instance_path)
                default = self._js_node_field(spec, decl.default, default_ctx, instance_path)
            else:
                if decl.name not in proto_fields:
                    return None  # its error is reported
                value = _js_value(decl.type_name, proto_fields[decl.name])
                checked = self._value(spec, decl.default, default_ctx, instance_path, f"PROTO {proto.name}")
                default = None if checked is _INVALID else _js_value(decl.type_name, checked)
            fields[decl.name] = {"value": value, "defaultValue": default}
        try:
            concrete, printed = self._expand_template(proto, js_literal(fields))
        except WorldError as error:
            message = f"{error.message} (instance of PROTO {proto.name} at {syntax.location})"
            self._record(type(error)(message, error.location or syntax.location, instance_path))
            return None
        for line in printed:
            self._warn(f"PROTO {proto.name} template: {line}", syntax.location, instance_path)
        return concrete

    def _js_node_field(self, spec: FieldSpec, value: ValueSyntax, ctx: _Ctx, path: str) -> object:
        """An SFNode/MFNode value as templates see it: ``{node_name, fields}``, undefined, or an array."""
        items = [self._js_node(item, ctx, path, 0) for item in value.items]
        if spec.type.is_multiple:
            return items
        return items[0] if items else None

    def _js_node(self, item: Item, ctx: _Ctx, path: str, depth: int) -> object:
        if isinstance(item, UseSyntax):
            item = item.target
        if not isinstance(item, NodeSyntax) or depth > 64:
            return None
        fields: dict[str, object] = {}
        entries = {entry.name: entry for entry in item.fields}
        schema = self._schemas.get(item.type_name)
        if schema is not None:
            for name, spec in schema.fields.items():
                default = None if spec.type.is_node else _js_value(spec.type.value, spec.default)
                if spec.type.is_node:
                    default = [] if spec.type.is_multiple else None
                value = default
                entry = entries.get(name)
                bound = self._resolve(entry, ctx, spec, path, report=False) if entry is not None else None
                if bound is not None:
                    if spec.type.is_node:
                        nodes = [self._js_node(i, bound.ctx, path, depth + 1) for i in bound.value.items]
                        value = nodes if spec.type.is_multiple else (nodes[0] if nodes else None)
                    else:
                        checked = self._value(spec, bound.value, bound.ctx, path, schema.name)
                        if checked is not _INVALID:
                            value = _js_value(spec.type.value, checked)
                fields[name] = {"value": value, "defaultValue": default}
            return {"node_name": item.type_name, "fields": fields}
        try:
            proto = self._resolve_proto(item.type_name, ctx.scope, item.location)
        except WorldError:
            proto = None
        if proto is None:
            return {"node_name": item.type_name, "fields": fields}
        proto_ctx = _Ctx(ProtoScope(proto.file, {e.name: e for e in proto.externprotos}), None, None, True,
                         ctx.proto_stack)
        for decl in proto.fields:
            spec = FieldSpec(decl.name, FieldType(decl.type_name), None)
            entry = entries.get(decl.name)
            bound = self._resolve(entry, ctx, spec, path, report=False) if entry is not None else None
            converted = []
            for value_syntax, value_ctx in ((decl.default, proto_ctx), (bound.value, bound.ctx) if bound else (None, None)):
                if value_syntax is None:
                    converted.append(converted[0])
                elif spec.type.is_node:
                    nodes = [self._js_node(i, value_ctx, path, depth + 1) for i in value_syntax.items]
                    converted.append(nodes if spec.type.is_multiple else (nodes[0] if nodes else None))
                else:
                    checked = self._value(spec, value_syntax, value_ctx, path, f"PROTO {proto.name}")
                    converted.append(None if checked is _INVALID else _js_value(decl.type_name, checked))
            fields[decl.name] = {"value": converted[1], "defaultValue": converted[0]}
        return {"node_name": proto.name, "fields": fields}

    @staticmethod
    def _rejected_node(value: ValueSyntax, decl: ProtoFieldDecl) -> tuple[str, SourceLocation] | None:
        """For a node field restricted to node types (``SFNode{Box{}, Sphere{}}``), the type and location
        of the first node (or USE) of ``value`` whose type is not one of them; NULL is always accepted."""
        assert decl.accepted is not None
        nodes = [n for n in decl.accepted if isinstance(n, NodeSyntax)]
        if not nodes or len(nodes) != len(decl.accepted):
            return None
        allowed = {n.type_name for n in nodes}
        for item in value.items:
            node = item.target if isinstance(item, UseSyntax) else item
            if isinstance(node, NodeSyntax) and node.type_name not in allowed:
                return node.type_name, item.location
        return None

    @staticmethod
    def _accepted(value: object, decl: ProtoFieldDecl, spec: FieldSpec) -> bool:
        """True if ``value`` is one of the PROTO field's accepted values (only literal restrictions are checked)."""
        assert decl.accepted is not None
        atoms = [a for a in decl.accepted if isinstance(a, Atom)]
        if not atoms or len(atoms) != len(decl.accepted):
            return True
        as_list = FieldType["MF" + spec.type.single.value[2:]]
        try:
            allowed = convert_literals(as_list, [a.kind for a in atoms], [a.value for a in atoms], True)
        except LiteralError:
            return True  # a malformed restriction list is the PROTO author's problem, not the instance's
        assert isinstance(allowed, tuple)
        items = value if spec.type.is_multiple else (value,)
        return all(item in allowed for item in items)  # type: ignore[union-attr]
