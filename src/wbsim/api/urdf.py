"""URDF of a Robot's tree, as Webots' ``wb_robot_get_urdf`` writes it (``Robot.getUrdf``).

Webots writes the URDF by walking the robot's node tree with its node writer in URDF mode; this module follows
the same rules on wbsim's world model, with the live field values of the simulation:

- Links: the Robot and every node with a ``name`` field (Solids, devices) or whose parent is a joint. A link is
  named ``prefix + name`` (else its DEF name, else its lower-case node type), with ``_<n>`` appended (one counter
  per export) when that name is taken. Its boundingObject primitives (Box, Cylinder, Sphere; a Capsule as a
  cylinder and two spheres) are written as both ``<visual>`` and ``<collision>``, placed by their nearest Pose.
- A link whose parent is not a joint is attached to the nearest link above it by a ``fixed`` joint named
  ``<parent>_<child>_joint``, its ``origin`` the link's pose in that link (``rpy``: Z-Y-X Euler angles).
- A HingeJoint (and a Hinge2Joint's first axis) is a ``revolute`` joint when its motor has position limits, else
  ``continuous``; a SliderJoint is ``prismatic``. The joint is named after its motor (else its position sensor),
  its ``axis`` is given in the endPoint's frame, ``limit`` carries the motor's ``maxTorque``/``maxForce``,
  limits and ``maxVelocity``, and its origin sits at the anchor (hinge) or at the endPoint's position-0 place
  (slider); the offset between that origin and the endPoint's own frame is carried into the next link written
  (Webots' writer "joint offset"). A BallJoint is not exported (Webots warns), nor what it carries.
- Links are written in Webots' order: the current link, then the links and joints met below it are queued and
  written last-in first-out.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from wbsim.compile.frames import Frame
from wbsim.world.model import WbNode

__all__ = ["ValueOf", "euler_zyx", "robot_urdf"]

ValueOf = Callable[[WbNode, str], object]
"""Reads the current value of a node's field (the supervisor's live view)."""

_JOINTS = frozenset({"HingeJoint", "SliderJoint", "Hinge2Joint", "BallJoint"})


def _round6(value: float) -> str:
    """Webots' ``FLOAT_ROUND_6`` number: rounded to 6 decimals, shortest form, no negative zero."""
    rounded = round(float(value), 6) + 0.0
    text = f"{rounded:.6f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _vec6(values: np.ndarray) -> str:
    return " ".join(_round6(v) for v in values)


def _full(value: float) -> str:
    """A number at float precision (Webots' ``FLOAT_MAX``)."""
    text = f"{float(value) + 0.0:.9g}"
    return "0" if text == "-0" else text


def _arg(value: object) -> str:
    """A number as Qt's ``QString::arg(double)`` prints it (``%g``, 6 significant digits)."""
    return f"{float(value):g}"  # type: ignore[arg-type]


def euler_zyx(rot: np.ndarray) -> np.ndarray:
    """URDF's ``rpy`` of a rotation matrix (3, 3): ``R = Rz(yaw) Ry(pitch) Rx(roll)``, returned as (roll, pitch,
    yaw) in rad."""
    pitch = -math.asin(max(-1.0, min(1.0, float(rot[2, 0]))))
    if abs(float(rot[2, 0])) < 1.0 - 1e-12:
        roll = math.atan2(float(rot[2, 1]), float(rot[2, 2]))
        yaw = math.atan2(float(rot[1, 0]), float(rot[0, 0]))
    else:  # gimbal lock: the roll is folded into the yaw
        roll, yaw = 0.0, math.atan2(-float(rot[0, 1]), float(rot[1, 1]))
    return np.array([roll, pitch, yaw])


class _UrdfWriter:
    """One URDF export (names and the joint offset are per export, as Webots resets them per robot)."""

    def __init__(self, value: ValueOf, prefix: str, warn: Callable[[str], None]) -> None:
        self.value = value
        self.prefix = prefix
        self.warn = warn
        self.lines: list[str] = []
        self.depth = 0
        self.names: dict[int, str] = {}
        self.used_names: set[str] = set()
        self.counter = 0
        self.offset = np.zeros(3)
        self.queue: list[WbNode] = []
        # Every node met once per export (ids): a tree changed at run time so that a node is reachable twice, or
        # below itself, is still written to its end, each node once.
        self.met: set[int] = set()
        self.current: WbNode | None = None

    # -- output --------------------------------------------------------------------------------------------
    def line(self, text: str) -> None:
        self.lines.append("  " * self.depth + text)

    # -- names and frames ------------------------------------------------------------------------------------
    def name(self, node: WbNode) -> str:
        """Webots' link name: ``name`` field, else DEF name, else lower-case type; made unique per export."""
        key = id(node)
        if key in self.names:
            return self.names[key]
        own = str(self.value(node, "name")) if "name" in node.schema.fields else ""
        base = own or node.def_name or node.type_name.lower()
        full = self.prefix + base
        if full in self.used_names:
            full = f"{full}_{self.counter}"
            self.counter += 1
        self.names[key] = full
        self.used_names.add(full)
        return full

    def joint_name(self, joint: WbNode) -> str:
        for kind in ("RotationalMotor", "LinearMotor", "PositionSensor"):
            for device in self._devices(joint):
                if device.type_name == kind:
                    return self.prefix + str(self.value(device, "name"))
        return self.name(joint)

    @staticmethod
    def _devices(joint: WbNode) -> list[WbNode]:
        return list(joint["device"]) if "device" in joint.schema.fields else []  # type: ignore[arg-type]

    def motor(self, joint: WbNode) -> WbNode | None:
        return next((d for d in self._devices(joint) if d.type_name in ("RotationalMotor", "LinearMotor")), None)

    @staticmethod
    def is_link(node: WbNode) -> bool:
        """Webots' ``isUrdfRootLink``: a node with a ``name`` field, or a joint's child."""
        return "name" in node.schema.fields or (node.parent is not None and node.parent.type_name in _JOINTS)

    def upper_link(self, node: WbNode) -> WbNode | None:
        return next((above for above in node.ancestors() if self.is_link(above)), None)

    def local(self, node: WbNode) -> Frame:
        if "translation" in node.schema.fields and "rotation" in node.schema.fields:
            return Frame.from_webots(self.value(node, "translation"), self.value(node, "rotation"))  # type: ignore[arg-type]
        return Frame.identity()

    def frame_from(self, node: WbNode, root: WbNode | None) -> Frame:
        """The pose of ``node``'s frame in ``root``'s frame (Webots' ``translationFrom``/``rotationMatrixFrom``)."""
        chain: list[WbNode] = [node]
        if node is not root:
            for above in node.ancestors():
                if above is root:
                    break
                chain.append(above)
        else:
            chain = []
        frame = Frame.identity()
        for item in reversed(chain):
            frame = frame @ self.local(item)
        return frame

    @staticmethod
    def upper_pose(node: WbNode) -> WbNode | None:
        return next((above for above in node.ancestors() if "translation" in above.schema.fields), None)

    # -- the walk ------------------------------------------------------------------------------------------
    def run(self, robot: WbNode) -> str:
        self.current = robot
        self.met.add(id(robot))
        while self.current is not None:
            self.export(self.current)
            self.current = self.queue.pop() if self.queue else None
        return "\n".join(self.lines) + "\n" if self.lines else ""

    def visit(self, node: WbNode) -> None:
        """A node met below the current link (Webots' ``write``): joints and links are queued."""
        if id(node) in self.met:
            return
        self.met.add(id(node))
        end_point = node.get("endPoint") if node.type_name in _JOINTS else None
        if isinstance(end_point, WbNode) and end_point.is_a("solid_reference"):
            return  # a joint closing a loop: URDF describes trees only (its Solid is exported where it sits)
        if node.type_name in _JOINTS or self.is_link(node):
            self.queue.append(node)
            return
        self.subnodes(node)

    def subnodes(self, node: WbNode) -> None:
        for _, _, child in node.child_nodes():
            self.visit(child)

    def export(self, node: WbNode) -> None:
        """Write the current link or joint."""
        end_point = node["endPoint"] if node.type_name in _JOINTS else None
        if node.type_name == "BallJoint" and isinstance(end_point, WbNode):
            self.warn("Exporting 'BallJoint' nodes to URDF is currently not supported")
            return
        if isinstance(end_point, WbNode):
            self.joint(node, end_point)
            self.subnodes(node)
            return
        self.depth += 1
        self.line(f'<link name="{self.name(node)}">')
        if "boundingObject" in node.schema.fields and isinstance(node["boundingObject"], WbNode):
            self.shapes(node, node["boundingObject"])  # type: ignore[arg-type]
        self.subnodes(node)
        self.line("</link>")
        self.depth -= 1
        if self.is_link(node) and node.type_name != "Robot":
            self.fixed_joint(node)

    def shapes(self, solid: WbNode, bounding: WbNode) -> None:
        for node in bounding.walk():
            pose = self.upper_pose(node)  # the nearest Pose above the geometry (the Solid itself at the top)
            geometries: list[tuple[str, np.ndarray]] = []
            if node.type_name == "Box":
                size = self.value(node, "size")
                geometries.append((f'<box size="{" ".join(_arg(v) for v in size)}"/>', np.zeros(3)))  # type: ignore[union-attr]
            elif node.type_name == "Cylinder":
                geometries.append((f'<cylinder radius="{_arg(self.value(node, "radius"))}" '
                                   f'length="{_arg(self.value(node, "height"))}"/>', np.zeros(3)))
            elif node.type_name == "Sphere":
                geometries.append((f'<sphere radius="{_arg(self.value(node, "radius"))}"/>', np.zeros(3)))
            elif node.type_name == "Capsule":
                radius, height = float(self.value(node, "radius")), float(self.value(node, "height"))  # type: ignore[arg-type]
                turn = self.local(pose).rot if pose is not None and pose is not solid else np.eye(3)
                geometries.append((f'<cylinder radius="{_arg(radius)}" length="{_arg(height)}"/>', np.zeros(3)))
                for sign in (1.0, -1.0):
                    geometries.append((f'<sphere radius="{_arg(radius)}"/>',
                                       turn @ np.array([0.0, 0.0, sign * 0.5 * height])))
            for geometry, offset in geometries:
                self.shape(geometry, solid, pose, offset + self.offset)

    def shape(self, geometry: str, solid: WbNode, pose: WbNode | None, offset: np.ndarray) -> None:
        for element in ("visual", "collision"):
            self.depth += 1
            self.line(f"<{element}>")
            self.depth += 1
            if pose is not solid or np.any(offset != 0.0):
                if pose is None or pose is solid:
                    translation, rot = offset, np.eye(3)
                else:
                    frame = self.local(pose)
                    translation, rot = frame.pos + offset, frame.rot
                self.line(f'<origin xyz="{" ".join(_full(v) for v in translation)}" '
                          f'rpy="{" ".join(_full(v) for v in euler_zyx(rot))}"/>')
            self.line("<geometry>")
            self.depth += 1
            self.line(geometry)
            self.depth -= 1
            self.line("</geometry>")
            self.depth -= 1
            self.line(f"</{element}>")
            self.depth -= 1

    def fixed_joint(self, node: WbNode) -> None:
        """Webots' ``exportUrdfJoint``: a link not below a joint is fixed to the link above it."""
        if node.parent is None or node.parent.type_name in _JOINTS:
            return
        upper = self.upper_link(node)
        if upper is None:
            return
        frame = self.frame_from(node, upper)
        translation = frame.pos + self.offset
        self.offset = np.zeros(3)
        self.depth += 1
        self.line(f'<joint name="{self.name(upper)}_{self.name(node)}_joint" type="fixed">')
        self.depth += 1
        self.line(f'<parent link="{self.name(upper)}"/>')
        self.line(f'<child link="{self.name(node)}"/>')
        self.line(f'<origin xyz="{_vec6(translation)}" rpy="{_vec6(euler_zyx(frame.rot))}"/>')
        self.depth -= 1
        self.line("</joint>")
        self.depth -= 1

    def joint(self, joint: WbNode, end_point: WbNode) -> None:
        """A hinge (revolute/continuous) or slider (prismatic) joint element."""
        slider = joint.type_name == "SliderJoint"
        params = joint["jointParameters"]
        axis = np.asarray(self.value(params, "axis") if isinstance(params, WbNode)  # type: ignore[arg-type]
                          else ((0.0, 0.0, 1.0) if slider else (1.0, 0.0, 0.0)), dtype=float)
        root = self.upper_link(joint)
        to_root = self.frame_from(end_point, root)
        translation_in_joint = np.asarray(self.value(end_point, "translation"), dtype=float)
        if slider:
            hidden = float(self.value(params, "position")) if isinstance(params, WbNode) else float(  # type: ignore[arg-type]
                self.value(joint, "position"))  # type: ignore[arg-type]
            norm = float(np.linalg.norm(axis))
            anchor = translation_in_joint - (axis / norm * hidden if norm > 0.0 else 0.0)
        else:
            anchor = np.asarray(self.value(params, "anchor"), dtype=float) if isinstance(params, WbNode) \
                else np.zeros(3)
        current_offset = translation_in_joint - anchor
        translation = to_root.pos - current_offset + self.offset
        self.offset = to_root.rot.T @ current_offset
        if slider:
            axis_out = to_root.rot.T @ axis
        else:
            axis_out = self.frame_from(end_point, self.upper_pose(joint)).rot.T @ axis
        motor = self.motor(joint)
        limited = motor is not None and (float(self.value(motor, "minPosition")) != 0.0  # type: ignore[arg-type]
                                         or float(self.value(motor, "maxPosition")) != 0.0)  # type: ignore[arg-type]
        kind = "prismatic" if slider else ("revolute" if limited else "continuous")
        origin = f'<origin xyz="{_vec6(translation)}" rpy="{_vec6(euler_zyx(to_root.rot))}"/>'
        limit = ""
        if motor is not None:
            effort = _arg(self.value(motor, "maxForce" if motor.type_name == "LinearMotor" else "maxTorque"))
            velocity = _arg(self.value(motor, "maxVelocity"))
            limit = (f'<limit effort="{effort}" lower="{_arg(self.value(motor, "minPosition"))}" '
                     f'upper="{_arg(self.value(motor, "maxPosition"))}" velocity="{velocity}"/>' if limited
                     else f'<limit effort="{effort}" velocity="{velocity}"/>')
        self.depth += 1
        self.line(f'<joint name="{self.joint_name(joint)}" type="{kind}">')
        self.depth += 1
        assert root is not None  # a joint always sits under a Solid (the Robot at least)
        self.line(f'<parent link="{self.name(root)}"/>')
        self.line(f'<child link="{self.name(end_point)}"/>')
        self.line(f'<axis xyz="{_vec6(axis_out)}"/>')
        # Webots writes a slider's origin before its limit, a hinge's after.
        for text in ((origin, limit) if slider else (limit, origin)):
            if text:
                self.line(text)
        self.depth -= 1
        self.line("</joint>")
        self.depth -= 1


def robot_urdf(robot: WbNode, value: ValueOf, prefix: str = "", warn: Callable[[str], None] = lambda _: None) -> str:
    """The URDF document of ``robot``'s tree (Webots' ``wb_robot_get_urdf``).

    Args:
        robot: the Robot node.
        value: reads a field's current value (poses and joint positions move with the simulation).
        prefix: prepended to every link and joint name.
        warn: receives Webots' export warnings (a BallJoint is not exported).

    Returns:
        The XML text: header, ``<robot name="...">`` element with the links and joints, closing tag.
    """
    writer = _UrdfWriter(value, prefix, warn)
    body = writer.run(robot)
    name = str(value(robot, "name"))
    return (f'<?xml version="1.0"?>\n<robot name="{name}" xmlns:xacro="http://ros.org/wiki/xacro">\n'
            f"{body}</robot>\n")
