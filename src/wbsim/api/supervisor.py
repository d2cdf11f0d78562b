"""Webots' ``Supervisor``, ``Node`` and ``Field`` APIs over the core supervision functions."""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from wbsim.api.arguments import ArgumentChecked, c_arguments
from wbsim.api.constants import NODE_TYPE_NAMES, node_type_of
from wbsim.api.device import print_error
from wbsim.api.robot import Robot
from wbsim.compile.frames import Frame
from wbsim.errors import RecordingError
from wbsim.sim.supervision import find_def_supervisor
from wbsim.world.fieldtypes import FieldType
from wbsim.world.model import WbNode

if TYPE_CHECKING:
    from wbsim.sim.robot import RobotRuntime
    from wbsim.sim.simulation import Simulation

__all__ = ["Supervisor", "Node", "Field"]

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


@c_arguments(2, **{f"getMF{t}": "int" for t in ("Bool", "Int32", "Float", "String", "Vec2f", "Vec3f", "Rotation",
                                                   "Color", "Node")})
class Field(ArgumentChecked):
    """A field of a node (Webots ``controller.Field``); getters return the live value."""

    SF_BOOL, SF_INT32, SF_FLOAT, SF_VEC2F, SF_VEC3F, SF_ROTATION, SF_COLOR, SF_STRING, SF_NODE = range(1, 10)
    MF = 0x10
    MF_BOOL, MF_INT32, MF_FLOAT, MF_VEC2F, MF_VEC3F, MF_ROTATION, MF_COLOR, MF_STRING, MF_NODE = range(0x11, 0x1A)
    _CODES = {
        "Bool": 1, "Int32": 2, "Float": 3, "Vec2f": 4, "Vec3f": 5, "Rotation": 6, "Color": 7, "String": 8, "Node": 9,
    }

    def __init__(self, supervisor: Supervisor, node: WbNode | None, name: str, field_type: FieldType) -> None:
        self._supervisor = supervisor
        self._node = node
        self._name = name
        self._type = field_type

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
        if self._node is None:  # the root's children
            return self._supervisor._sim.world.nodes
        return self._supervisor._sim.supervision.field_value(self._node, self._name)

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
        return self._python(self._raw())

    # Webots' Python getters return the value of the field's actual type, whatever getter is used.
    getSFBool = getSFInt32 = getSFFloat = getSFString = getSFVec2f = getSFVec3f = getSFRotation = getSFColor = _get

    def getSFNode(self) -> Node | None:
        """The node held by an SFNode field, or None."""
        value = self._raw()
        return self._supervisor._node(value) if isinstance(value, WbNode) else None

    def _item(self, index: int) -> object:
        items = self._raw()
        if not isinstance(items, tuple):
            print_error(f"field '{self._name}' is not an MF field.")
            return None
        if not items:
            print_error(f"Field.getMF*() called on an empty list.")
            return None
        if index < 0:
            index += len(items)
        if not 0 <= index < len(items):
            print_error(f"Field.getMF*() called with an out-of-bound index: {index} (should be between 0 and "
                        f"{len(items) - 1}).")
            return None
        item = items[index]
        if isinstance(item, WbNode):
            return self._supervisor._node(item)
        return list(item) if isinstance(item, tuple) else item

    getMFBool = getMFInt32 = getMFFloat = getMFString = getMFVec2f = getMFVec3f = getMFRotation = getMFColor = _item
    getMFNode = _item

    def _set(self, value: object) -> None:
        if self._node is None or self._type.is_node:
            print_error(f"setting node fields is not supported by wbsim ('{self._name}').")
            return
        single = self._type.single
        try:
            if single in (FieldType.SFVec2f, FieldType.SFVec3f, FieldType.SFColor, FieldType.SFRotation):
                converted: object = tuple(float(v) for v in value)  # type: ignore[union-attr]
                size = {FieldType.SFVec2f: 2, FieldType.SFVec3f: 3, FieldType.SFColor: 3, FieldType.SFRotation: 4}[single]
                if len(converted) != size:  # type: ignore[arg-type]
                    print_error(f"set{single.value}(): length of 'value' argument should be {size}.")
                    return
                fn = f"wb_supervisor_field_set_sf_{single.value[2:].lower()}"
                if not all(_check_float(fn, v) for v in converted):  # type: ignore[union-attr]
                    return
                if single is FieldType.SFRotation:
                    x, y, z, angle = converted  # type: ignore[misc]
                    norm = math.sqrt(x * x + y * y + z * z)
                    if norm == 0:
                        print_error("wb_supervisor_field_set_sf_rotation() called with invalid values for the "
                                    "[x y z] axis.")
                        return
                    converted = (x / norm, y / norm, z / norm, angle)
            elif single is FieldType.SFBool:
                converted = bool(value)
            elif single is FieldType.SFInt32:
                converted = int(value)  # type: ignore[call-overload]
            elif single is FieldType.SFFloat:
                converted = float(value)  # type: ignore[arg-type]
                if not _check_float("wb_supervisor_field_set_sf_float", converted):  # type: ignore[arg-type]
                    return
            else:
                converted = str(value)
        except (TypeError, ValueError):
            print_error("new field value has wrong type or length.")
            return
        if self._type.is_multiple:
            print_error(f"setting MF fields is not supported by wbsim ('{self._name}').")
            return
        self._supervisor._sim.supervision.set_field_value(self._node, self._name, converted)

    setSFBool = setSFInt32 = setSFFloat = setSFString = setSFVec2f = setSFVec3f = setSFRotation = setSFColor = _set

    name = property(getName)
    type = property(getType)
    value = property(_get, _set)

    def __repr__(self) -> str:
        return f"<Field {self._name} {self._type.value}>"


@c_arguments(2, getField="str", getFromProtoDef="str", getPose="node")
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
        """The number of fields of the node."""
        return len(self._wb.schema.fields) if self._wb is not None else 1

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
        """World position of the Solid's centre of mass [x, y, z] (m)."""
        binding = self._solid("wb_supervisor_node_get_center_of_mass")
        if binding is None:
            return list(_NAN3)
        if binding.site_id >= 0:  # type: ignore[attr-defined]
            # A frame-only Solid has no mass of its own (Webots: the centre of mass of the Solid and its
            # descendants): its origin.
            frame = self._sim.supervision.world_frame(self._wb)  # type: ignore[arg-type]
            return list(map(float, frame.pos))  # type: ignore[union-attr]
        self._sim.supervision.refresh()
        return list(map(float, self._sim.data.xipos[binding.body_id]))  # type: ignore[attr-defined]

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
        return f"<Node {self.getTypeName()} DEF={self.getDef()!r} id={self._id}>"


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
        ids = self._sim.supervision.node_ids
        node_id = ids.setdefault(node, len(ids) + 1)
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
        path = Path(os.path.abspath(str(file)))
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

