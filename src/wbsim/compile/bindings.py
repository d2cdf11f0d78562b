"""The binding table: for every simulated node, the MuJoCo ids it compiled to.

Bindings are resolved once after compilation, so the simulation loop, devices, supervisors and
plugins index MuJoCo arrays directly instead of looking names up per step.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from wbsim.world.model import WbNode

__all__ = [
    "SolidBinding",
    "JointBinding",
    "RobotDevice",
    "RobotBinding",
    "Bindings",
]


@dataclass(frozen=True, slots=True)
class SolidBinding:
    """A Solid (or Robot) node and its MuJoCo body.

    Attributes:
        node: the Solid node.
        body_id: the MuJoCo body created for this Solid; for a frame-only Solid (``site_id >= 0``), the
            enclosing body it moves with.
        owner_body_id: the body whose motion this Solid shares: itself, or for a Solid merged into its
            parent (Physics, no joint) the ancestor body that has the degrees of freedom; 0 (world) for
            static Solids.
        dynamic: True if the Solid moves under physics (it or an ancestor has degrees of freedom).
        owns_body: True if the Solid is a "solid merger" in Webots' sense (has its own dynamic body).
        free_joint_id: the free joint of a top-level dynamic Solid, else -1.
        geom_ids: the collision geoms of its boundingObject.
        robot_node: the outermost Robot containing the Solid (itself for a Robot), or None.
        site_id: for a frame-only Solid (``BodyPlan.frame_only``: no body of its own), the site carrying
            the Solid's frame on ``body_id``; -1 for a Solid with its own body.
        geom_nodes: the Webots geometry node of each of ``geom_ids`` (Box, Sphere, ... in the boundingObject).
    """

    node: WbNode
    body_id: int
    owner_body_id: int
    dynamic: bool
    owns_body: bool
    free_joint_id: int
    geom_ids: tuple[int, ...]
    robot_node: WbNode | None
    site_id: int = -1
    geom_nodes: tuple[WbNode, ...] = ()


@dataclass(frozen=True, slots=True)
class JointBinding:
    """A HingeJoint, SliderJoint or BallJoint, or one axis of a Hinge2Joint, and its MuJoCo joint.

    Attributes:
        node: the joint node.
        kind: ``"hinge"``, ``"slider"`` or ``"ball"``.
        joint_id: the MuJoCo joint, or -1 if the joint has no endPoint (nothing moves).
        qpos_adr: index of the joint position in ``qpos`` (-1 without endPoint).
        dof_adr: index of the joint velocity in ``qvel`` (-1 without endPoint).
        end_point: the endPoint Solid's binding, or None.
        kinematic: True if the endPoint has no Physics (Webots' kinematic mode: moved by the motor only).
        initial_position: the JointParameters ``position`` field (rad or m).
        axis_index: 1, or 2 for the second axis of a Hinge2Joint, 1..3 for a BallJoint made of hinges (each axis
            has its own binding and hinge).
    """

    node: WbNode
    kind: Literal["hinge", "slider", "ball"]
    joint_id: int
    qpos_adr: int
    dof_adr: int
    end_point: SolidBinding | None
    kinematic: bool
    initial_position: float
    axis_index: int = 1


@dataclass(frozen=True, slots=True)
class RobotDevice:
    """One device of a robot, in Webots' device order.

    Attributes:
        kind: the device kind's name (``Bindings.devices[kind]``, ``Simulation.banks[kind]``).
        row: the device's index among the bindings of its kind (its bank row).
        node: the device node.
    """

    kind: str
    row: int
    node: WbNode


@dataclass(frozen=True, slots=True)
class RobotBinding:
    """A Robot and its devices in Webots' device order (depth-first scene order, joints' devices first)."""

    node: WbNode
    solid: SolidBinding
    devices: tuple[RobotDevice, ...]


@dataclass(frozen=True)
class Bindings:
    """Every binding of a compiled world, in scene order, with lookup by node.

    Attributes:
        solids: all Solid bindings.
        joints: all joint bindings.
        robots: all Robot bindings.
        devices: the device bindings of each registered device kind, by kind name, in scene order
            (every kind is present, possibly with no devices).
    """

    solids: tuple[SolidBinding, ...]
    joints: tuple[JointBinding, ...]
    robots: tuple[RobotBinding, ...]
    devices: Mapping[str, tuple[object, ...]] = field(default_factory=dict)
    _by_node: Mapping[WbNode, object] = field(default_factory=dict, repr=False)
    _solid_by_node: Mapping[WbNode, SolidBinding] = field(default_factory=dict, repr=False)
    _joint_by_node: Mapping[tuple[WbNode, int], JointBinding] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        # A Solid-derived device (e.g. a TouchSensor) has both a Solid and a device binding: `of` gives the
        # device one, `solid` the Solid one.
        table: dict[WbNode, object] = {}
        for group in (self.solids, self.joints, *self.devices.values()):
            for binding in group:
                table[binding.node] = binding  # type: ignore[attr-defined]
        object.__setattr__(self, "devices", MappingProxyType(dict(self.devices)))
        object.__setattr__(self, "_by_node", table)
        object.__setattr__(self, "_solid_by_node", {b.node: b for b in self.solids})
        object.__setattr__(self, "_joint_by_node", {(b.node, b.axis_index): b for b in self.joints})

    def of(self, node: WbNode) -> object | None:
        """The binding of ``node`` (its device binding for a device, else its Solid or joint binding), or None."""
        return self._by_node.get(node)

    def joint(self, node: WbNode, axis_index: int = 1) -> JointBinding | None:
        """The binding of the joint ``node`` (for a Hinge2Joint, of its axis ``axis_index``), or None."""
        return self._joint_by_node.get((node, axis_index))

    def solid(self, node: WbNode) -> SolidBinding | None:
        """The Solid binding of ``node``, or None if it is not a compiled Solid."""
        return self._solid_by_node.get(node)
