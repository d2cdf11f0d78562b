"""Webots' ``Supervisor``, ``Node`` and ``Field`` APIs over the core supervision functions."""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from wbsim.api.arguments import WRONG_VALUE, ArgumentChecked, c_arguments, has_length, null_pointer, sf_value
from wbsim.api.constants import NODE_TYPE_NAMES, node_type_of
from wbsim.api.device import print_error
from wbsim.api.robot import Robot
from wbsim.compile.frames import Frame
from wbsim.devices.registry import kinds_by_node_type
from wbsim.errors import RecordingError, WbsimError
from wbsim.sim.supervision import find_def_supervisor
from wbsim.world.fieldtypes import FieldType
from wbsim.world.model import WbNode
from wbsim.world.writer import node_text, world_text

if TYPE_CHECKING:
    from wbsim.sim.robot import RobotRuntime
    from wbsim.sim.simulation import Simulation

__all__ = ["Supervisor", "Node", "Field", "Proto", "ContactPoint"]

_NAN3 = [math.nan] * 3
_FLT_MAX = 3.4028234663852886e38


def _check_float(fn: str, value: float) -> bool:
    """Webots' ``check_float``: NaN and values beyond +/-FLT_MAX are refused with an error message."""
    if math.isnan(value):
        print_error(f"{fn}() called with a NaN value.")
        return False
    if value > _FLT_MAX:
        print_error(f"{fn}() called with a value greater than FLX_MAX: {value:g} > {_FLT_MAX:g}.")
        return False
    if value < -_FLT_MAX:
        print_error(f"{fn}() called with a value smaller than -FLX_MAX): {value:g} < {-_FLT_MAX:g}.")
        return False
    return True


def _check_vector(fn: str, values: object, n: int) -> list[float] | None:
    """Webots' ``check_vector`` on ``n`` numbers: the floats, or None after printing the error."""
    try:
        floats = [float(v) for v in values]  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        floats = []
    if len(floats) != n:
        print_error(f"{fn}() called with an invalid argument: expected {n} numbers.")
        return None
    return floats if all(_check_float(fn, v) for v in floats) else None


_VECTOR_KINDS = {"Vec2f": 2, "Vec3f": 3, "Rotation": 4, "Color": 3}
_ITEM_KINDS = {"Bool": "flag", "Int32": "int", "Float": "double", "String": "text", "Vec2f": "double2",
               "Vec3f": "double3", "Rotation": "double4", "Color": "double3"}
"""How the binding converts an item value of each MF type (a kind of :data:`wbsim.api.arguments.CONVERTERS`)."""


def _checked_item(fn: str, kind: str, value: object) -> object | None:
    """A converted field value after the C library's checks for its type (``check_float``/``check_vector``, a
    rotation axis that is not zero, colour components in [0, 1]), as stored; None after the error message."""
    if kind == "Float":
        return value if _check_float(fn, value) else None  # type: ignore[arg-type]
    if kind == "Color":
        rgb = tuple(value)  # type: ignore[call-overload]
        if not all(0.0 <= v <= 1.0 for v in rgb):
            print_error(f"{fn}() called with invalid RGB values (outside [0,1] range).")
            return None
        return rgb
    if kind in ("Vec2f", "Vec3f"):
        vector = tuple(value)  # type: ignore[call-overload]
        return vector if all(_check_float(fn, v) for v in vector) else None
    if kind == "Rotation":
        x, y, z, angle = value  # type: ignore[misc]
        if not all(_check_float(fn, v) for v in (x, y, z, angle)):
            return None
        norm = math.sqrt(x * x + y * y + z * z)
        if norm == 0:
            print_error(f"{fn}() called with invalid values for the [x y z] axis.")
            return None
        return (x / norm, y / norm, z / norm, angle)  # stored with a unit axis, as Webots' SFRotation does
    return value


@c_arguments(2, **{f"getMF{t}": "int" for t in ("Bool", "Int32", "Float", "String", "Vec2f", "Vec3f", "Rotation",
                                                   "Color", "Node")},
             **{f"{verb}MF{t}": ("int", kind) for verb in ("set", "insert") for t, kind in _ITEM_KINDS.items()},
             removeMF="int", importMFNodeFromString=("int", "text"), importSFNodeFromString="text",
             enableSFTracking="int")
class Field(ArgumentChecked):
    """A field of a node (Webots ``controller.Field``); getters return the live value."""

    SF_BOOL, SF_INT32, SF_FLOAT, SF_VEC2F, SF_VEC3F, SF_ROTATION, SF_COLOR, SF_STRING, SF_NODE = range(1, 10)
    MF = 0x10
    MF_BOOL, MF_INT32, MF_FLOAT, MF_VEC2F, MF_VEC3F, MF_ROTATION, MF_COLOR, MF_STRING, MF_NODE = range(0x11, 0x1A)
    _CODES = {
        "Bool": 1, "Int32": 2, "Float": 3, "Vec2f": 4, "Vec3f": 5, "Rotation": 6, "Color": 7, "String": 8, "Node": 9,
    }

    def __init__(self, supervisor: Supervisor, node: WbNode | None, name: str, field_type: FieldType,
                 base: bool = False) -> None:
        self._supervisor = supervisor
        self._node = node
        self._name = name
        self._type = field_type
        self._base = base  # a field of a PROTO instance's base node (getBaseNodeField), not of its interface

    def getName(self) -> str:
        """The field name."""
        return self._name

    def getType(self) -> int:
        """The ``Field.SF_*``/``Field.MF_*`` constant."""
        code = self._CODES[self._type.value[2:]]
        return code | (Field.MF if self._type.is_multiple else 0)

    def getTypeName(self) -> str:
        """The type name, e.g. ``"SFVec3f"``."""
        return self._type.value

    def _raw(self) -> object:
        if self._node is None:  # the root's children (with the nodes imported or removed at run time)
            sim = self._supervisor._sim
            return sim.supervision.overrides.get((None, "children"), sim.world.nodes)  # type: ignore[call-overload]
        node = self._node
        if self._base and node.proto_name is not None and self._name in node.proto_fields:
            supervision = self._supervisor._sim.supervision
            if self._name in ("translation", "rotation") or (node, self._name) in supervision.overrides:
                return supervision.field_value(node, self._name)
            return node.fields[self._name]  # the base node's own value, not the PROTO interface's
        return self._supervisor._sim.supervision.field_value(node, self._name)

    # -- adding and removing nodes at run time (nodes without physical part only) -------------------------------
    def _store_nodes(self, value: object) -> None:
        sim = self._supervisor._sim
        before = self._raw()
        kept = set(value) if isinstance(value, tuple) else {value}
        sim.supervision.overrides[(self._node, self._name)] = value  # type: ignore[index]
        for node in before if isinstance(before, tuple) else (before,):
            if isinstance(node, WbNode) and node not in kept:  # removed: its Node objects answer as Webots'
                sim.forget_removed_nodes(node.walk())

    def _parse_nodes(self, fn: str, text: str) -> list[WbNode] | None:
        """The nodes of ``text`` checked as nodes of this field, or None (after Webots-style errors) if they
        cannot be imported."""
        from wbsim.sim.simulation import IMPORTED_NODE_FILE
        from wbsim.world.loader import load_world_model_from_string

        sim = self._supervisor._sim
        host = self._node.type_name if self._node is not None else None
        # Checked inside a node of the field's owner type, so that the field's own rules (node kinds) apply.
        source = f"{host} {{ {self._name} [ {text} ] }}" if host else text
        if host and not self._type.is_multiple:
            source = f"{host} {{ {self._name} {text} }}"
        try:
            model = load_world_model_from_string("#VRML_SIM R2023b utf8\n" + source, IMPORTED_NODE_FILE,
                                                 sim.world.project_dir)
        except WbsimError as error:
            print_error(f"{fn}(): cannot import the node string: {error}")
            return None
        if host:
            value = model.nodes[0].fields[self._name]
            nodes = list(value) if isinstance(value, tuple) else [value] if isinstance(value, WbNode) else []
        else:
            nodes = [n for n in model.nodes if n.type_name != "WorldInfo"]
        for node in nodes:
            node.parent = self._node
            node.parent_field = self._name
        return nodes

    def _refused_in_description(self, fn: str) -> bool:
        """Print a Webots-style error and return True if this field belongs to a Solid's ``boundingObject`` or
        ``physics`` (the field's node or one above it is that node): their geometry and mass are compiled into
        MuJoCo geoms and inertia, which wbsim does not rebuild when nodes come or go inside them."""
        node = self._node
        while node is not None:
            if node.parent_field in ("boundingObject", "physics"):
                print_error(f"{fn}(): changing the nodes of a Solid's {node.parent_field} at run time is not "
                            "supported by wbsim yet.")
                return True
            node = node.parent
        return False

    def _place(self, nodes: list[WbNode], first_index: int | None) -> None:
        """Give imported ``nodes`` (and their descendants) their scene-tree paths in this field: they were
        checked inside a stand-in of the field's node, whose path prefixes theirs."""
        if self._node is None:
            return
        for offset, node in enumerate(nodes):
            label = node.path.rsplit(" > ", 1)[-1]
            old_prefix = node.path[: len(node.path) - len(label)]
            slot = self._name if first_index is None else f"{self._name}[{first_index + offset}]"
            new_prefix = f"{self._node.path} > {slot} > "
            for inner in node.walk():
                if inner.path.startswith(old_prefix):
                    inner.path = new_prefix + inner.path[len(old_prefix):]

    def importMFNodeFromString(self, position: int, nodeString: str) -> None:
        """Insert the nodes of ``nodeString`` at ``position`` (-1: at the end) of this MFNode field. Solids,
        joints, devices and Robots recompile the world with the state kept (``Simulation.replace_root_nodes``
        for the root's children, ``replace_node_field`` elsewhere); nodes inside a Solid's ``boundingObject``
        or ``physics`` are refused."""
        fn = "wb_supervisor_field_import_mf_node_from_string"
        if self._type is not FieldType.MFNode:
            print_error(f"{fn}() called with a field of type {self._type.value} instead of MFNode.")
            return
        items = list(self._raw())  # type: ignore[call-overload]
        if not -len(items) - 1 <= position <= len(items):
            print_error(f"{fn}() called with an out-of-bound index: {position} (should be between "
                        f"{-len(items) - 1} and {len(items)}).")
            return
        if self._refused_in_description(fn):
            return
        nodes = self._parse_nodes(fn, nodeString)
        if nodes is None:
            return
        at = position if position >= 0 else len(items) + 1 + position
        self._place(nodes, at)
        self._store_nodes_physically(fn, tuple(items[:at] + nodes + items[at:]), nodes)

    def _store_nodes_physically(self, fn: str, value: object, changed: list[WbNode]) -> None:
        """Store the field's new node(s); when Solids, joints or devices come or go, the simulation recompiles
        with the state kept (``Simulation.replace_root_nodes`` / ``replace_node_field``), or the change is
        refused with an error message."""
        if not any(_has_physics(node) for node in changed):
            self._store_nodes(value)
            return
        sim = self._supervisor._sim
        try:
            if self._node is None:
                sim.replace_root_nodes(value)  # type: ignore[arg-type]
            else:
                sim.replace_node_field(self._node, self._name, value)
        except WbsimError as error:
            print_error(f"{fn}(): {error}")
            return
        sim.supervision.overrides.pop((self._node, self._name), None)  # the world's nodes now

    def importSFNodeFromString(self, nodeString: str) -> None:
        """Put the node of ``nodeString`` in this empty SFNode field (e.g. a joint's ``endPoint``); a node with a
        physical part recompiles the world with the state kept (``Simulation.replace_node_field``)."""
        fn = "wb_supervisor_field_import_sf_node_from_string"
        if self._type is not FieldType.SFNode or self._node is None:
            print_error(f"{fn}() called with a field of type {self._type.value} instead of SFNode.")
            return
        if self._raw() is not None:
            print_error(f"{fn}(): the '{self._name}' field is not empty.")
            return
        if self._name in ("boundingObject", "physics"):
            print_error(f"{fn}(): importing into '{self._name}' at run time is not supported by wbsim yet.")
            return
        if self._refused_in_description(fn):
            return
        nodes = self._parse_nodes(fn, nodeString)
        if nodes:
            self._place(nodes[:1], None)
            self._store_nodes_physically(fn, nodes[0], nodes[:1])

    def removeMF(self, index: int) -> None:
        """Remove item ``index`` of this MF field (a value, or a node: one with a physical part recompiles the world
        with the state kept)."""
        items = self._raw()
        if not isinstance(items, tuple) or not self._type.is_multiple:
            print_error("wb_supervisor_field_remove_mf() called with a SF field.")
            return
        if index < 0:
            index += len(items)
        if not 0 <= index < len(items):
            print_error(f"wb_supervisor_field_remove_mf() called with an out-of-bound index: {index}.")
            return
        item = items[index]
        if isinstance(item, WbNode) and self._refused_in_description("wb_supervisor_field_remove_mf"):
            return
        if isinstance(item, WbNode):
            self._store_nodes_physically("wb_supervisor_field_remove_mf", items[:index] + items[index + 1:], [item])
            return
        if self._type.is_node:
            self._store_nodes(items[:index] + items[index + 1:])
        else:  # values go through the device that may apply them
            self._supervisor._sim.supervision.set_field_value(self._node, self._name, items[:index] + items[index + 1:])

    def removeSF(self) -> None:
        """Empty this SFNode field (a node with a physical part recompiles the world with the state kept; not a
        ``boundingObject`` or ``physics``)."""
        value = self._raw()
        if self._type is not FieldType.SFNode or self._node is None:
            print_error("wb_supervisor_field_remove_sf() called with a non-SFNode field.")
            return
        if isinstance(value, WbNode) and self._name in ("boundingObject", "physics"):
            print_error("wb_supervisor_field_remove_sf(): removing physical nodes at run time is not supported by "
                        "wbsim yet.")
            return
        if isinstance(value, WbNode) and self._refused_in_description("wb_supervisor_field_remove_sf"):
            return
        self._store_nodes_physically("wb_supervisor_field_remove_sf", None,
                                     [value] if isinstance(value, WbNode) else [])

    def _python(self, value: object) -> object:
        if isinstance(value, WbNode):
            return self._supervisor._node(value)
        if value is None:
            return None
        if isinstance(value, tuple):
            if self._type.single is FieldType.SFNode:
                return [self._supervisor._node(v) for v in value]
            return list(value)
        return value

    def getCount(self) -> int:
        """Number of items of an MF field (-1 for SF fields)."""
        if not self._type.is_multiple:
            return -1
        return len(self._raw())  # type: ignore[arg-type]

    def _get(self) -> object:
        if self._type.is_multiple:  # Webots' ``value`` reads SF types only: an MF field gives None
            return None
        return self._python(self._raw())

    # Webots' Python getters return the value of the field's actual type, whatever getter is used.
    getSFBool = getSFInt32 = getSFFloat = getSFString = getSFVec2f = getSFVec3f = getSFRotation = getSFColor = _get

    def getSFNode(self) -> Node | None:
        """The node held by an SFNode field, or None."""
        value = self._raw()
        return self._supervisor._node(value) if isinstance(value, WbNode) else None

    def _mf_index(self, fn: str, kind: str, index: int, insert: bool) -> tuple[tuple[object, ...], int] | None:
        """The items and the resolved ``index`` of this MF field as Webots' ``check_field`` accepts them, or None
        after its error (a field of another type than ``MF<kind>``, an index out of bounds, an empty list)."""
        if self._type.value != f"MF{kind}":
            print_error(f"{fn}() called with wrong field type: {self._type.value}.")
            return None
        items = self._raw()
        assert isinstance(items, tuple)  # an MF field's value
        count = len(items)
        offset = 0 if insert else -1
        if not -(count + 1 + offset) <= index <= count + offset:
            if count == 0:
                print_error(f"{fn}() called on an empty list.")
            else:
                print_error(f"{fn}() called with an out-of-bound index: {index} (should be between "
                            f"{-count - 1 - offset} and {count + offset}).")
            return None
        return items, index + count + 1 + offset if index < 0 else index

    def _getter(kind: str) -> Any:  # type: ignore[misc]  # noqa: N805 - builds methods at class creation
        fn = f"wb_supervisor_field_get_mf_{kind.lower()}"
        vector = kind in _VECTOR_KINDS
        # What the binding returns after the C function's error: its default value, or, for a vector, the
        # ValueError of slicing the NULL pointer the C function returned.
        default = {"Bool": False, "Int32": 0, "Float": 0.0, "String": "", "Node": None}.get(kind)

        def get_item(self: Field, index: int) -> object:
            found = self._mf_index(fn, kind, index, insert=False)
            if found is None:
                if vector:
                    null_pointer()
                return default
            items, at = found
            item = items[at]
            if isinstance(item, WbNode):
                return self._supervisor._node(item)
            return list(item) if isinstance(item, tuple) else item
        get_item.__name__ = f"getMF{kind}"
        get_item.__doc__ = (f"Item ``index`` of this MF{kind} field (negative: from the end); Webots' error and "
                            "default value for another field type or an index out of bounds.")
        return get_item

    getMFBool = _getter("Bool")
    getMFInt32 = _getter("Int32")
    getMFFloat = _getter("Float")
    getMFString = _getter("String")
    getMFVec2f = _getter("Vec2f")
    getMFVec3f = _getter("Vec3f")
    getMFRotation = _getter("Rotation")
    getMFColor = _getter("Color")
    getMFNode = _getter("Node")

    def _set(self, value: object) -> None:
        """The binding's ``Field.value`` setter: ``value`` converted by this field's own type (see
        :func:`wbsim.api.arguments.sf_value`), then the C library's checks of that type."""
        kind = self._type.value[2:] if not self._type.is_multiple else self._type.value
        converted = sf_value(kind, value)
        if converted is WRONG_VALUE or self._node is None:
            print_error("new field value has wrong type or length.")
            return
        fn = f"wb_supervisor_field_set_sf_{kind.lower()}"
        checked = _checked_item(fn, kind, converted)
        if checked is not None:
            self._supervisor._sim.supervision.set_field_value(self._node, self._name, checked)

    def _vector_setter(kind: str) -> Any:  # type: ignore[misc]  # noqa: N805
        size = _VECTOR_KINDS[kind]

        def set_vector(self: Field, value: list[float]) -> None:
            if not has_length(value, size):
                print_error(f"setSF{kind}(): length of 'value' argument should be {size}.")
                return
            self._set(value)
        set_vector.__name__ = f"setSF{kind}"
        set_vector.__doc__ = (f"Set this field to ``value`` (a list of {size} numbers); like every ``setSF*``, "
                              "the value is converted by the field's own type, as Webots' binding does.")
        return set_vector

    setSFBool = setSFInt32 = setSFFloat = setSFString = _set
    setSFVec2f = _vector_setter("Vec2f")
    setSFVec3f = _vector_setter("Vec3f")
    setSFRotation = _vector_setter("Rotation")
    setSFColor = _vector_setter("Color")

    # -- MF values (not nodes): written like SF values, through the devices that apply them -----------------
    def _mf_edit(self, fn: str, kind: str, index: int, value: object, insert: bool) -> None:
        found = self._mf_index(fn, kind, index, insert)
        if found is None or self._node is None:
            return
        item = _checked_item(fn, kind, value)
        if item is None:
            return
        items, at = list(found[0]), found[1]
        if insert:
            items.insert(at, item)
        else:
            items[at] = item
        self._supervisor._sim.supervision.set_field_value(self._node, self._name, tuple(items))

    def _setter(kind: str) -> Any:  # type: ignore[misc]  # noqa: N805 - builds methods at class creation
        def set_item(self: Field, index: int, value: object) -> None:
            self._mf_edit(f"wb_supervisor_field_set_mf_{kind.lower()}", kind, index, value, insert=False)
        set_item.__name__ = f"setMF{kind}"
        set_item.__doc__ = f"Replace item ``index`` of this MF{kind} field (negative: from the end)."
        return set_item

    def _inserter(kind: str) -> Any:  # type: ignore[misc]  # noqa: N805
        def insert_item(self: Field, index: int, value: object) -> None:
            self._mf_edit(f"wb_supervisor_field_insert_mf_{kind.lower()}", kind, index, value, insert=True)
        insert_item.__name__ = f"insertMF{kind}"
        insert_item.__doc__ = f"Insert ``value`` at ``index`` of this MF{kind} field (-1: at the end)."
        return insert_item

    setMFBool = _setter("Bool")
    setMFInt32 = _setter("Int32")
    setMFFloat = _setter("Float")
    setMFVec2f = _setter("Vec2f")
    setMFVec3f = _setter("Vec3f")
    setMFRotation = _setter("Rotation")
    setMFColor = _setter("Color")
    setMFString = _setter("String")
    insertMFBool = _inserter("Bool")
    insertMFInt32 = _inserter("Int32")
    insertMFFloat = _inserter("Float")
    insertMFVec2f = _inserter("Vec2f")
    insertMFVec3f = _inserter("Vec3f")
    insertMFRotation = _inserter("Rotation")
    insertMFColor = _inserter("Color")
    insertMFString = _inserter("String")
    del _getter, _vector_setter, _setter, _inserter

    def getActualField(self) -> Field:
        """The field this PROTO interface field stands for: wbsim answers the interface field itself."""
        return self

    def enableSFTracking(self, samplingPeriod: int) -> None:
        """Webots streams the value to speed up reads; wbsim reads are always live, so nothing is needed."""

    def disableSFTracking(self) -> None:
        """See :meth:`enableSFTracking`."""

    name = property(getName)
    type = property(getType)
    type_name = property(getTypeName)
    count = property(getCount)
    value = property(_get, _set)

    def __repr__(self) -> str:
        return f"<Field {self._name} {self._type.value}>"


def _saved_value(sim: Simulation) -> Any:
    """Field values as Webots writes them: the supervisor's live view, and for a Solid with its own free body its
    current centre-of-mass velocities (``linearVelocity``/``angularVelocity``, world frame)."""
    supervision = sim.supervision

    def value(node: WbNode, name: str) -> object:
        if name in ("linearVelocity", "angularVelocity"):
            binding = sim.bindings.solid(node)
            if binding is not None and binding.free_joint_id >= 0:
                velocity = supervision.velocity(binding)
                return tuple(velocity[:3] if name == "linearVelocity" else velocity[3:])
        return supervision.field_value(node, name)

    return value


@c_arguments(2, getField="text", getFromProtoDef="text", getPose="node", getFieldByIndex="int",
             getBaseNodeField="text", getBaseNodeFieldByIndex="int", setVelocity="double6",
             addForce=("double3", "flag"), addForceWithOffset=("double3", "double3", "flag"))
class Node(ArgumentChecked):
    """A node of the scene tree (Webots ``controller.Node``)."""

    _c_node = True  # a node argument of the API (see wbsim.api.arguments.as_node)

    # Node type constants: Node.SOLID, Node.ROBOT, ... (see wbsim.api.constants).
    locals().update({name: i for i, name in enumerate(NODE_TYPE_NAMES)})

    def __init__(self, supervisor: Supervisor, node: WbNode | None, node_id: int) -> None:
        self._supervisor = supervisor
        self._wb = node
        self._id = node_id

    @property
    def _sim(self) -> Simulation:
        return self._supervisor._sim

    def getId(self) -> int:
        """A unique id for the node (0 for the root)."""
        return self._id

    def getDef(self) -> str:
        """The DEF name, or ""."""
        return (self._wb.def_name or "") if self._wb is not None else ""

    def getTypeName(self) -> str:
        """The node type as written (the PROTO name for PROTO instances)."""
        return self._wb.display_type if self._wb is not None else "Group"

    def getBaseTypeName(self) -> str:
        """The Webots base node type."""
        return self._wb.type_name if self._wb is not None else "Group"

    def getType(self) -> int:
        """The ``Node.X`` constant of the base type."""
        return node_type_of(self.getBaseTypeName())

    def isProto(self) -> bool:
        """True for PROTO instances."""
        return self._wb is not None and self._wb.proto_name is not None

    def getParentNode(self) -> Node | None:
        """The node holding this one (the root for top-level nodes; None for the root)."""
        if self._wb is None:
            return None
        if self._wb.parent is None:
            return self._supervisor.getRoot()
        return self._supervisor._node(self._wb.parent)

    def getField(self, name: str) -> Field | None:
        """The field called ``name`` (PROTO instances: their interface fields first), or None."""
        if self._wb is None:
            return Field(self._supervisor, None, "children", FieldType.MFNode) if name == "children" else None
        node = self._wb
        if node.proto_name is not None and name in node.proto_fields:
            value = node.proto_fields[name]
            return Field(self._supervisor, node, name, _type_of_value(node, name, value))
        spec = node.schema.fields.get(name)
        if spec is None:
            return None
        return Field(self._supervisor, node, name, spec.type)

    def getNumberOfFields(self) -> int:
        """The number of fields of the node (of its PROTO interface for PROTO instances)."""
        if self._wb is None:
            return 1
        if self._wb.proto_name is not None:
            return len(self._wb.proto_fields)
        return len(self._wb.schema.fields)

    def getFieldByIndex(self, index: int) -> Field | None:
        """The field at ``index`` in declaration order (PROTO instances: their interface), or None."""
        if self._wb is None:
            return self.getField("children") if index == 0 else None
        names = list(self._wb.proto_fields) if self._wb.proto_name is not None else list(self._wb.schema.fields)
        if not 0 <= index < len(names):
            print_error(f"wb_supervisor_node_get_field_by_index() called with an out-of-bound index: {index}.")
            return None
        return self.getField(names[index])

    def getBaseNodeField(self, name: str) -> Field | None:
        """The field ``name`` of the node's base node (for a PROTO instance, the Webots node it is made of)."""
        if self._wb is None:
            return self.getField(name)
        spec = self._wb.schema.fields.get(name)
        return Field(self._supervisor, self._wb, name, spec.type, base=True) if spec is not None else None

    def getBaseNodeFieldByIndex(self, index: int) -> Field | None:
        """The base node's field at ``index`` (schema order), or None."""
        if self._wb is None:
            return self.getFieldByIndex(index)
        names = list(self._wb.schema.fields)
        if not 0 <= index < len(names):
            print_error(f"wb_supervisor_node_get_base_node_field_by_index() called with an out-of-bound index: {index}.")
            return None
        return self.getBaseNodeField(names[index])

    def getNumberOfBaseNodeFields(self) -> int:
        """The number of fields of the base node."""
        return len(self._wb.schema.fields) if self._wb is not None else 1

    def getProto(self) -> Proto | None:
        """The PROTO this node is an instance of, or None."""
        if self._wb is None or self._wb.proto_name is None:
            return None
        return Proto(self, self._wb.proto_name)

    def exportString(self) -> str:
        """The node (and all it holds) in .wbt syntax with its current field values, as Webots writes it: the
        fields that differ from their defaults, DEF names, ``USE`` for a DEF node met again (see
        :mod:`wbsim.world.writer`). The root gives every top-level node."""
        value = _saved_value(self._sim)
        if self._wb is None:
            return "\n".join(node_text(node, value) for node in self._sim.world.nodes)
        return node_text(self._wb, value)

    def remove(self) -> None:
        """Remove the node from the scene (as :meth:`Field.removeMF` / :meth:`Field.removeSF` of its parent
        field; the root cannot be removed)."""
        node = self._wb
        if node is None:
            print_error("wb_supervisor_node_remove(): the root node cannot be removed.")
            return
        parent = self.getParentNode()
        field = parent.getField(node.parent_field or "children") if parent is not None else None
        if field is None:
            print_error("wb_supervisor_node_remove(): the node has no parent field.")
            return
        items = field._raw()
        if isinstance(items, tuple):
            if node in items:
                field.removeMF(items.index(node))
        elif items is node:
            field.removeSF()

    DEF = property(getDef)
    id = property(getId)
    type = property(getType)
    type_name = property(getTypeName)
    base_type_name = property(getBaseTypeName)
    number_of_fields = property(getNumberOfFields)
    number_of_base_node_fields = property(getNumberOfBaseNodeFields)

    def _frame(self, fn: str) -> Frame | None:
        if self._wb is None:
            return Frame.identity()
        frame = self._sim.supervision.world_frame(self._wb)
        if frame is None:
            self._sim.messages.warning(f"{fn}() can exclusively be used with Pose (or derived).")
        return frame

    def getPosition(self) -> list[float]:
        """The node origin in world coordinates [x, y, z] (m)."""
        frame = self._frame("wb_supervisor_node_get_position")
        return list(map(float, frame.pos)) if frame is not None else list(_NAN3)

    def getOrientation(self) -> list[float]:
        """The node's rotation matrix in world coordinates, row-major (9 values)."""
        frame = self._frame("wb_supervisor_node_get_orientation")
        return list(map(float, frame.rot.ravel())) if frame is not None else [math.nan] * 9

    def getPose(self, from_node: Node | None = None) -> list[float]:
        """The 4x4 homogeneous pose (row-major, 16 values) in world coordinates, or relative to ``from_node``."""
        frame = self._frame("wb_supervisor_node_get_pose")
        if frame is None:
            return [math.nan] * 16
        if from_node is not None:
            base = from_node._frame("wb_supervisor_node_get_pose")
            if base is None:
                return [math.nan] * 16
            frame = base.inverse() @ frame
        matrix = np.eye(4)
        matrix[:3, :3], matrix[:3, 3] = frame.rot, frame.pos
        return list(map(float, matrix.ravel()))

    def _solid(self, fn: str) -> object:
        binding = self._sim.bindings.solid(self._wb) if self._wb is not None else None
        if binding is None:
            self._sim.messages.warning(f"{fn}() can exclusively be used with a Solid")
        return binding

    def getCenterOfMass(self) -> list[float]:
        """World position [x, y, z] (m) of the centre of mass of the Solid and every Solid inside it (Webots'
        definition: endPoints of its joints, nested Solids); the Solid's origin if none of them has mass."""
        binding = self._solid("wb_supervisor_node_get_center_of_mass")
        if binding is None:
            return list(_NAN3)
        bodies = set()
        for node in self._wb.walk():  # type: ignore[union-attr]
            if node.is_a("solid"):
                inner = self._sim.bindings.solid(node)
                if inner is not None and inner.site_id < 0:  # Solids merged into a body add to its mass
                    bodies.add(inner.body_id)
        rows = np.fromiter(sorted(bodies), dtype=np.int64)
        masses = self._sim.model.body_mass[rows]
        total = float(masses.sum())
        if total <= 0.0:
            frame = self._sim.supervision.world_frame(self._wb)  # type: ignore[arg-type]
            return list(map(float, frame.pos))  # type: ignore[union-attr]
        self._sim.supervision.refresh()
        return list(map(float, masses @ self._sim.data.xipos[rows] / total))

    def getVelocity(self) -> list[float]:
        """[vx, vy, vz, wx, wy, wz] of the Solid's rigid body at its centre of mass, world frame."""
        binding = self._solid("wb_supervisor_node_get_velocity")
        if binding is None:
            return [math.nan] * 6
        return self._sim.supervision.velocity(binding)  # type: ignore[arg-type]

    def setVelocity(self, velocity: list[float]) -> None:
        """Set [vx, vy, vz, wx, wy, wz] (world frame, at the centre of mass) of a free Solid."""
        binding = self._solid("wb_supervisor_node_set_velocity")
        if binding is None:
            return
        values = _check_vector("wb_supervisor_node_set_velocity", velocity, 6)
        if values is None:
            return
        if not self._sim.supervision.set_velocity(binding, values):  # type: ignore[arg-type]
            self._sim.messages.warning("wb_supervisor_node_set_velocity(): only Solids with their own free body "
                                       "(top-level Solids with Physics) can be given a velocity in wbsim.")

    def setJointPosition(self, position: float, index: int = 1) -> None:
        """Put axis ``index`` of this joint (HingeJoint, SliderJoint: 1; Hinge2Joint: 1 or 2; a BallJoint with
        devices or stops: 1 to 3, its Euler axes) at ``position`` (rad or m) at once, with zero velocity; the
        endPoint and everything on it follow. Motors keep their targets (Webots' behaviour)."""
        fn = "wb_supervisor_node_set_joint_position"
        node = self._wb
        axes = [b for b in (self._sim.bindings.joint(node, i) for i in (1, 2, 3)) if b is not None] \
            if node is not None else []
        if node is None or not node.is_a("joint") or not axes or axes[0].kind == "ball":
            print_error(f"{fn}() can exclusively be used with a HingeJoint or a SliderJoint"
                        + (" (a BallJoint without devices nor stops is not supported by wbsim yet)." if node is not None
                           and node.is_a("joint") else "."))
            return
        if not isinstance(index, int) or not 1 <= index <= len(axes):
            print_error(f"{fn}() called with an invalid 'index' argument: {index} (this joint has "
                        + ("one axis)." if len(axes) == 1 else f"{len(axes)} axes)."))
            return
        binding = axes[index - 1]
        if not _check_float(fn, position):
            return
        qpos_adr, dof_adr = binding.qpos_adr, binding.dof_adr  # type: ignore[union-attr]
        if qpos_adr < 0:
            print_error(f"{fn}(): the joint has no endPoint.")
            return
        data = self._sim.data
        data.qpos[qpos_adr] = float(position)
        data.qvel[dof_adr] = 0.0
        self._sim.supervision.invalidate()

    def getStaticBalance(self) -> bool:
        """Webots' static balance test: True if the centre of mass of the Solid and its descendants, projected
        along gravity, lies inside the support polygon (the convex hull of their contact points projected on the
        plane orthogonal to gravity). False without Physics contacts or with fewer than 3 non-aligned points."""
        if self._solid("wb_supervisor_node_get_static_balance") is None:
            return False
        points = self.getContactPoints(includeDescendants=True)
        gravity = np.asarray(self._sim.model.opt.gravity, dtype=float)
        norm = float(np.linalg.norm(gravity))
        if len(points) < 3 or norm == 0.0:
            return False
        down = gravity / norm
        u = np.cross(down, [1.0, 0.0, 0.0] if abs(down[0]) < 0.9 else [0.0, 1.0, 0.0])
        u /= np.linalg.norm(u)
        v = np.cross(down, u)
        plane = np.array([[float(np.dot(p.point, u)), float(np.dot(p.point, v))] for p in points])
        com = np.asarray(self.getCenterOfMass(), dtype=float)
        return _inside_convex_hull(plane, np.array([com @ u, com @ v]))

    def saveState(self, stateName: str) -> None:
        """Remember the positions and velocities of this Solid and of everything below it as ``stateName``."""
        binding = self._solid("wb_supervisor_node_save_state")
        if binding is not None:
            self._sim.supervision.save_state(binding, str(stateName))  # type: ignore[arg-type]

    def loadState(self, stateName: str) -> None:
        """Put back the state saved as ``stateName`` (Webots' error if there is none)."""
        binding = self._solid("wb_supervisor_node_load_state")
        if binding is not None and not self._sim.supervision.load_state(binding, str(stateName)):  # type: ignore[arg-type]
            print_error(f"wb_supervisor_node_load_state(): the state '{stateName}' was not saved for this node.")

    def restartController(self) -> None:
        """End this Robot's controller and start it again from its first line with the next step (a supervisor
        restarting its own controller is not supported)."""
        fn = "wb_supervisor_node_restart_controller"
        node = self._wb
        robot = next((r for r in self._sim.robots if r.node is node), None) if node is not None else None
        if robot is None:
            print_error(f"{fn}() can exclusively be used with a Robot.")
            return
        if not self._sim.restart_controller(robot):
            print_error(f"{fn}(): robot '{robot.name}' has no controller file to restart, or it is the calling "
                        "controller (not supported by wbsim).")

    def resetPhysics(self) -> None:
        """Zero the velocities of this Solid and every Solid below it, and the commanded motor velocities."""
        binding = self._solid("wb_supervisor_node_reset_physics")
        if binding is None:
            return
        self._sim.supervision.reset_node_physics(binding)  # type: ignore[arg-type]

    def addForce(self, force: list[float], relative: bool) -> None:
        """Apply ``force`` (N) at the Solid's centre of mass during the next step; ``relative``: Solid frame."""
        self._wrench(force, relative, torque=False)

    def addTorque(self, torque: list[float], relative: bool) -> None:
        """Apply ``torque`` (N*m) to the Solid's body during the next step; ``relative``: Solid frame."""
        self._wrench(torque, relative, torque=True)

    def addForceWithOffset(self, force: list[float], offset: list[float], relative: bool) -> None:
        """Apply ``force`` (N; Solid frame if ``relative``) at ``offset`` (m, from the centre of mass, in the
        Solid's frame) during the next step: the force plus the torque ``offset x force`` (ODE's
        ``dBodyAdd(Rel)ForceAtRelPos``, as Webots)."""
        fn = "wb_supervisor_node_add_force_with_offset"
        binding = self._solid(fn)
        if binding is None:
            return
        if not binding.dynamic:  # type: ignore[attr-defined]
            self._sim.messages.warning(f"{fn}() can't be used with a kinematic Solid")
            return
        values, arm = _check_vector(fn, force, 3), _check_vector(fn, offset, 3)
        if values is None or arm is None:
            return
        rotation = self._sim.supervision.world_frame(self._wb).rot  # type: ignore[arg-type, union-attr]
        f = np.asarray(values, dtype=float)
        if relative:
            f = rotation @ f
        r = rotation @ np.asarray(arm, dtype=float)
        self._sim.supervision.add_wrench(binding, f, False)  # type: ignore[arg-type]
        self._sim.supervision.add_wrench(binding, np.cross(r, f), True)  # type: ignore[arg-type]

    def enablePoseTracking(self, samplingPeriod: int, fromNode: Node | None = None) -> None:
        """Webots streams poses to speed up reads; wbsim's reads are always live, so nothing is needed."""

    def disablePoseTracking(self, fromNode: Node | None = None) -> None:
        """See :meth:`enablePoseTracking`."""

    def enableContactPointsTracking(self, samplingPeriod: int, includeDescendants: bool = False) -> None:
        """Webots streams contact points to speed up reads; wbsim's reads are always live."""

    def disableContactPointsTracking(self, includeDescendants: bool = False) -> None:
        """See :meth:`enableContactPointsTracking`."""

    def setVisibility(self, fromNode: Node, visible: bool) -> None:
        """Hide the node from a camera or viewpoint: nothing is rendered headless, so there is nothing to hide."""

    def moveViewpoint(self) -> None:
        """Move the viewpoint to the node: there is no viewpoint headless."""

    def getContactPoints(self, includeDescendants: bool = False) -> list[ContactPoint]:
        """The contact points of this Solid's boundingObject (and, with ``includeDescendants``, of the Solids
        inside it) at the end of the last step, in world coordinates; ``getNodeId`` is the id of the Solid
        whose geometry touches (Webots' ``wb_supervisor_node_get_contact_points``)."""
        fn = "wb_supervisor_node_get_contact_points"
        if self._wb is None or not self._wb.is_a("solid"):
            print_error(f"{fn}() can exclusively be used with a Solid.")
            return []
        sim = self._sim
        solids = [self._wb]
        if includeDescendants:
            solids = [n for n in self._wb.walk() if n.is_a("solid")]
        owner_of_geom: dict[int, WbNode] = {}
        for solid in solids:
            binding = sim.bindings.solid(solid)
            for geom in getattr(binding, "geom_ids", ()) or ():
                owner_of_geom[int(geom)] = solid
        points: list[ContactPoint] = []
        data = sim.data
        for i in range(data.ncon):
            contact = data.contact[i]
            for geom in (int(contact.geom1), int(contact.geom2)):
                owner = owner_of_geom.get(geom)
                if owner is not None:
                    points.append(ContactPoint([float(v) for v in contact.pos], self._supervisor._node(owner).getId()))
        return points

    def _wrench(self, vector: list[float], relative: bool, torque: bool) -> None:
        binding = self._solid("wb_supervisor_node_add_torque" if torque else "wb_supervisor_node_add_force")
        if binding is None:
            return
        fn = "wb_supervisor_node_add_torque" if torque else "wb_supervisor_node_add_force"
        if not binding.dynamic:  # type: ignore[attr-defined]
            self._sim.messages.warning(f"{fn}() can't be used with a kinematic Solid")
            return
        values = _check_vector(fn, vector, 3)
        if values is None:
            return
        v = np.asarray(values, dtype=float)
        if relative:  # the Solid's own frame (a frame-only Solid's differs from its body's)
            v = self._sim.supervision.world_frame(self._wb).rot @ v  # type: ignore[arg-type, union-attr]
        self._sim.supervision.add_wrench(binding, v, torque)  # type: ignore[arg-type]

    def getFromProtoDef(self, name: str) -> Node | None:
        """A node inside this PROTO instance's body by DEF name, or None."""
        if self._wb is None or self._wb.proto_name is None:
            return None
        for node in self._wb.walk():
            if node.def_name == name and node is not self._wb:
                return self._supervisor._node(node)
        return None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Node) and other._wb is self._wb and other._supervisor._sim is self._sim

    def __hash__(self) -> int:
        return hash((id(self._wb), id(self._sim)))

    def __repr__(self) -> str:
        if self._wb is not None and self._wb in self._sim.removed_nodes:
            return f"<Node (removed) {self._wb.type_name} id={self._id}>"
        return f"<Node {self.getTypeName()} DEF={self.getDef()!r} id={self._id}>"


_INVALID_NODE_ANSWERS: dict[str, object] = {
    "getPosition": [math.nan] * 3, "getOrientation": [math.nan] * 9, "getPose": [math.nan] * 16,
    "getCenterOfMass": [math.nan] * 3, "getVelocity": [math.nan] * 6,
    "getId": -1, "getNumberOfFields": -1, "getNumberOfBaseNodeFields": -1,
    "getDef": "", "getTypeName": "", "getBaseTypeName": "", "exportString": "",
    "getType": 0, "isProto": False, "getStaticBalance": False, "getContactPoints": [],
}
"""What Webots' ``wb_supervisor_node_*`` functions return for a node that is no longer in the scene (lists are
copied); the other methods return None."""


def _guard_removed_nodes(cls: type) -> None:
    """Make every public method of ``cls`` (Node) answer as Webots does once its node was removed from the scene:
    the C library's error line (``called with a NULL or invalid 'node' argument``) and its "invalid" return."""
    guarded: dict[object, object] = {}
    for name, method in list(vars(cls).items()):
        if name.startswith("_") or not callable(method) or isinstance(method, (staticmethod, classmethod, type)):
            continue
        c_name = "wb_supervisor_node_" + "".join("_" + c.lower() if c.isupper() else c for c in name)

        def make(method: Any = method, c_name: str = c_name, answer: object = _INVALID_NODE_ANSWERS.get(name)) -> Any:
            def checked(self: Node, *args: object, **kwargs: object) -> object:
                if self._wb is not None and self._wb in self._sim.removed_nodes:
                    print_error(f"{c_name}() called with a NULL or invalid 'node' argument.")
                    return list(answer) if isinstance(answer, list) else answer
                return method(self, *args, **kwargs)

            checked.__name__, checked.__qualname__, checked.__doc__ = method.__name__, method.__qualname__, method.__doc__
            checked.__wrapped__ = method  # type: ignore[attr-defined]
            return checked

        guarded[method] = make()
        setattr(cls, name, guarded[method])
    for name, attribute in list(vars(cls).items()):  # properties made from those methods use the guarded ones
        if isinstance(attribute, property) and attribute.fget in guarded:
            setattr(cls, name, property(guarded[attribute.fget], attribute.fset, attribute.fdel, attribute.__doc__))


_guard_removed_nodes(Node)


@dataclass
class ContactPoint:
    """A contact point (Webots ``controller.ContactPoint``): ``point`` in world coordinates (m) and the id of
    the Solid node whose geometry touches (``node_id``)."""

    point: list[float]
    node_id: int

    def getPoint(self) -> list[float]:
        """The point [x, y, z] in world coordinates (m)."""
        return self.point

    def getNodeId(self) -> int:
        """The id of the touching Solid (``Supervisor.getFromId``)."""
        return self.node_id



class Proto:
    """The PROTO a node is an instance of (Webots ``controller.Proto``): its name and interface fields."""

    def __init__(self, node: Node, name: str) -> None:
        self._node = node
        self._name = name

    def getTypeName(self) -> str:
        """The PROTO name."""
        return self._name

    def getParent(self) -> Proto | None:
        """The PROTO this one derives from: None (wbsim expands PROTOs to their base node)."""
        return None

    def isDerived(self) -> bool:
        """False (see :meth:`getParent`)."""
        return False

    def getField(self, name: str) -> Field | None:
        """The interface field ``name``, or None."""
        return self._node.getField(name) if name in self._node._wb.proto_fields else None  # type: ignore[union-attr]

    def getFieldByIndex(self, index: int) -> Field | None:
        """The interface field at ``index``, or None."""
        return self._node.getFieldByIndex(index)

    def getNumberOfFields(self) -> int:
        """The number of interface fields."""
        return self._node.getNumberOfFields()

    type_name = property(getTypeName)
    number_of_fields = property(getNumberOfFields)
    is_derived = property(isDerived)


def _inside_convex_hull(points: np.ndarray, query: np.ndarray) -> bool:
    """True if the 2-D point ``query`` lies inside (or on) the convex hull of ``points`` (n, 2), which must span
    an area (Andrew's monotone chain, then a same-side test on every edge)."""
    pts = sorted({(float(x), float(y)) for x, y in np.round(points, 12)})

    def cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    hull: list[tuple[float, float]] = []
    for sweep in (pts, pts[::-1]):
        start = len(hull)
        for p in sweep:
            while len(hull) >= start + 2 and cross(hull[-2], hull[-1], p) <= 0:
                hull.pop()
            hull.append(p)
        hull.pop()
    if len(hull) < 3:
        return False
    q = (float(query[0]), float(query[1]))
    return all(cross(hull[i], hull[(i + 1) % len(hull)], q) >= -1e-12 for i in range(len(hull)))


def _has_physics(node: WbNode) -> bool:
    """True if ``node`` or a node inside it is a Solid, a joint or a device (it has a MuJoCo part)."""
    return any(n.is_a("solid") or n.is_a("joint") or n.type_name in kinds_by_node_type() for n in node.walk())


def _type_of_value(node: WbNode, name: str, value: object) -> FieldType:
    spec = node.schema.fields.get(name)
    if spec is not None:
        return spec.type
    if isinstance(value, bool):
        return FieldType.SFBool
    if isinstance(value, int):
        return FieldType.SFInt32
    if isinstance(value, float):
        return FieldType.SFFloat
    if isinstance(value, str):
        return FieldType.SFString
    if isinstance(value, tuple) and len(value) == 3:
        return FieldType.SFVec3f
    if isinstance(value, tuple) and len(value) == 4:
        return FieldType.SFRotation
    return FieldType.SFString


@c_arguments(1, getFromDef="str", getFromId="int", simulationQuit="int", simulationSetMode="int")
class Supervisor(Robot):
    """A robot with ``supervisor TRUE`` (Webots ``controller.Supervisor``)."""

    SIMULATION_MODE_PAUSE = 0
    SIMULATION_MODE_REAL_TIME = 1
    SIMULATION_MODE_FAST = 2

    def __init__(self, runtime: RobotRuntime | None = None) -> None:
        super().__init__(runtime)
        self._nodes: dict[int, Node] = {}

    @property
    def _sim(self) -> Simulation:
        return self._runtime.sim

    def _allowed(self, fn: str) -> bool:
        if self._runtime.supervisor:
            return True
        print(f"Error: ignoring illegal call to {fn}() in a 'Robot' controller.", file=sys.stderr)
        print("Error: this function can only be used in a 'Supervisor' controller.", file=sys.stderr, flush=True)
        return False

    def _node(self, node: WbNode) -> Node:
        supervision = self._sim.supervision
        node_id = supervision.node_ids.get(node)
        if node_id is None:
            supervision.last_node_id += 1
            node_id = supervision.node_ids[node] = supervision.last_node_id
        cached = self._nodes.get(node_id)
        if cached is None:
            cached = self._nodes[node_id] = Node(self, node, node_id)
        return cached

    def getRoot(self) -> Node | None:
        """The root of the scene tree (a Group holding the top-level nodes)."""
        if not self._allowed("wb_supervisor_node_get_root"):
            return None
        return self._nodes.setdefault(0, Node(self, None, 0))

    def getSelf(self) -> Node | None:
        """The node of this robot."""
        if not self._allowed("wb_supervisor_node_get_self"):
            return None
        return self._node(self._runtime.node)

    def getFromDef(self, name: str) -> Node | None:
        """The node with DEF name ``name``; ``"A.B"`` means a node DEF B directly inside DEF A."""
        if not self._allowed("wb_supervisor_node_get_from_def"):
            return None
        if name is None:  # Webots' binding builds Node(DEF=None), which is the root
            return self.getRoot()
        if not name:
            print_error("wb_supervisor_node_get_from_def() called with a NULL or empty 'def' argument.")
            return None
        node = find_def_supervisor(self._sim.world.nodes, name)
        return self._node(node) if node is not None else None

    def getFromId(self, node_id: int) -> Node | None:
        """The node with the given id (ids are handed out as nodes are first returned)."""
        if not self._allowed("wb_supervisor_node_get_from_id"):
            return None
        if node_id == 0:
            return self.getRoot()
        for node, known in self._sim.supervision.node_ids.items():
            if known == node_id:
                return self._node(node)
        return None

    def getFromDevice(self, device: object) -> Node | None:
        """The node of a device of this robot."""
        node = getattr(device, "_node", None)
        return self._node(node) if isinstance(node, WbNode) else None

    def simulationQuit(self, status: int) -> None:
        """End the simulation with exit status ``status``; controllers then get -1 from step()."""
        if self._allowed("wb_supervisor_simulation_quit"):
            self._sim.quit(status)

    def _absolute(self, filename: str) -> Path:
        """A file name given to the supervisor API, made absolute as Webots makes it
        (``WbSupervisorUtilities::makeFilenameAbsolute``): a relative name is relative to the controller's folder,
        not to the working directory the controller may have moved to (a script driving an ``<extern>`` robot: its
        working directory)."""
        path = Path(filename)
        if path.is_absolute():
            return path
        process = self._runtime.controller
        return (process.folder if process is not None else Path(os.getcwd())) / path

    def worldSave(self, filename: str | None = None) -> bool:
        """Write the world with its current state (poses, joint positions, free bodies' velocities) to
        ``filename`` (default: the world's own file); False with Webots' error if the name does not end in
        ``.wbt`` or the file cannot be written. wbsim loads the file back to the same state."""
        if not self._allowed("wb_supervisor_world_save"):
            return False
        target = self._absolute(filename) if filename is not None else Path(self._sim.world.file)
        if target.suffix.lower() != ".wbt":
            print_error("wb_supervisor_world_save(): the target file should have the '.wbt' extension.")
            return False
        try:
            target.write_text(world_text(self._sim.world, _saved_value(self._sim)), encoding="utf-8")
        except OSError as error:
            print_error(f"wb_supervisor_world_save(): cannot write '{target}': {error.strerror}.")
            return False
        return True

    def worldLoad(self, filename: str) -> None:
        """Replace the world by the one in ``filename`` at the end of this step: it is read and compiled afresh
        and every controller (this one too) starts again from its first line; the time restarts at 0."""
        if not self._allowed("wb_supervisor_world_load"):
            return
        path = self._absolute(filename)
        if path.suffix.lower() != ".wbt":
            print_error("wb_supervisor_world_load(): the target file should have the '.wbt' extension.")
            return
        if not path.is_file():
            print_error(f"wb_supervisor_world_load(): the file '{filename}' does not exist.")
            return
        self._sim.request_world_load(path)

    def worldReload(self) -> None:
        """Load the world's file again at the end of this step (with any change saved to it since), restarting
        every controller: the state is the file's (a fresh load, bit-identical to the first)."""
        if self._allowed("wb_supervisor_world_reload"):
            self._sim.request_world_load(Path(self._sim.world.file))

    def simulationReset(self) -> None:
        """Reset the world at the end of this step; controllers keep running."""
        if self._allowed("wb_supervisor_simulation_reset"):
            self._sim.request_world_reset()

    def simulationResetPhysics(self) -> None:
        """Zero every velocity and applied force; poses are kept."""
        if self._allowed("wb_supervisor_simulation_reset_physics"):
            self._sim.supervision.reset_physics()

    def simulationSetMode(self, mode: int) -> None:
        """Accepted for compatibility; the CLI's --mode decides pacing."""
        self._allowed("wb_supervisor_simulation_set_mode")

    def simulationGetMode(self) -> int:
        """Always ``SIMULATION_MODE_FAST`` for scripted runs."""
        return Supervisor.SIMULATION_MODE_FAST

    def animationStartRecording(self, file: str) -> bool:
        """Start recording the simulation for later viewing (Webots' HTML5 animation): frames of every Solid's
        pose and of the devices' visual state (LEDs) at ``WorldInfo.FPS``, until :meth:`animationStopRecording`
        or the end of the simulation. Webots wants a ``.html`` name; wbsim writes its recording (see
        :mod:`wbsim.recording`) beside it with the ``.npz`` extension (a ``.npz`` name is used as it is).
        A relative name is relative to the controller's folder. Returns True if recording started."""
        fn = "wb_supervisor_animation_start_recording"
        if not self._allowed(fn):
            return False
        if not file:
            print_error(f"{fn}() called with NULL or empty 'filename' argument.")
            return False
        path = self._absolute(str(file))
        suffix = path.suffix.lower()
        if suffix not in (".html", ".npz"):
            print_error(f"the target file given to {fn}() should have the '.html' extension.")
            return False
        if self._sim.recorder is not None:
            print_error(f"{fn}(): an animation is already being recorded ({self._sim.recorder.path}).")
            return False
        try:
            self._sim.start_recording(path.with_suffix(".npz"))
        except RecordingError as error:
            print_error(f"{fn}(): {error}")
            return False
        return True

    def animationStopRecording(self) -> bool:
        """Stop the recording started by :meth:`animationStartRecording` and write its file; True on success
        (False, with an error message, when nothing is being recorded or the file cannot be written)."""
        fn = "wb_supervisor_animation_stop_recording"
        if not self._allowed(fn):
            return False
        if self._sim.recorder is None:
            print_error(f"{fn}(): no animation is being recorded.")
            return False
        try:
            self._sim.stop_recording()
        except RecordingError as error:
            print_error(f"{fn}(): {error}")
            return False
        return True

    def setLabel(self, *args: object) -> None:
        """Accepted for compatibility; wbsim has no 3D view to draw labels in."""

    simulation_mode = property(simulationGetMode, simulationSetMode)

    # -- rendering, recording and virtual reality: nothing is rendered headless ---------------------------------
    def getSelected(self) -> Node | None:
        """The node selected in the 3D view: None (there is no 3D view)."""
        return None

    def exportImage(self, filename: str, quality: int) -> None:
        """Save a screenshot: impossible headless (Webots' error for an unavailable rendering)."""
        print_error("wb_supervisor_export_image(): nothing is rendered by wbsim (headless); no image written.")

    def movieStartRecording(self, filename: str, width: int, height: int, codec: int, quality: int,
                            acceleration: int, caption: bool) -> None:
        """Record a movie: impossible headless; :meth:`movieFailed` then reports the failure."""
        print_error("wb_supervisor_movie_start_recording(): nothing is rendered by wbsim (headless); no movie.")
        self._movie_failed = True

    def movieStopRecording(self) -> None:
        """Stop the movie recording (there is none)."""

    def movieIsReady(self) -> bool:
        """True: no recording is in progress."""
        return True

    def movieFailed(self) -> bool:
        """True after a :meth:`movieStartRecording` (no movie can be made headless)."""
        return bool(getattr(self, "_movie_failed", False))

    def virtualRealityHeadsetIsUsed(self) -> bool:
        """False: no headset."""
        return False

    def virtualRealityHeadsetGetPosition(self) -> list[float]:
        """NaN position: no headset."""
        return list(_NAN3)

    def virtualRealityHeadsetGetOrientation(self) -> list[float]:
        """NaN rotation matrix: no headset."""
        return [math.nan] * 9

