"""Where a device sits in the compiled model: the builder's view of a joint or Solid, shown to device compilers.

A :class:`JointSlot` is created when the builder meets a joint and completed once the joint's MuJoCo
elements exist; a :class:`SolidSlot` is created with the Solid's MuJoCo body (or, for a frame-only
Solid, with the site carrying its frame on the enclosing body). Device compilers keep
the slots they are given and read them in ``contribute`` (after the tree walk, when every slot is
complete) and in ``bindings`` (after compilation, through ``CompileContext.joint_binding`` /
``solid_binding``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import mujoco

    from wbsim.world.model import WbNode

__all__ = ["JointSlot", "SolidSlot", "ChildSlot", "DeviceSlot", "BodyRequest"]


@dataclass(eq=False)
class JointSlot:
    """A HingeJoint, SliderJoint or BallJoint being compiled, or one axis of a Hinge2Joint.

    Attributes:
        node: the joint node.
        kind: ``"hinge"``, ``"slider"`` or ``"ball"``.
        initial_position: the joint's ``position`` (rad or m), MuJoCo's ``ref``.
        static_friction: the JointParameters ``staticFriction`` (N*m or N).
        joint_name: the MuJoCo joint's name ("" while not built, or if the joint has no endPoint).
        joint_spec: the MuJoCo joint being built (None without endPoint).
        parent_body: the MuJoCo body the joint's endPoint hangs from (None without endPoint).
        kinematic: True if the endPoint has no Physics (moved by its motor only, as in Webots).
        end_point: the endPoint's Solid slot, or None.
        axis_index: 1, or 2 for the second axis of a Hinge2Joint (its ``device2``, ``jointParameters2``); a
            Hinge2Joint has one slot per axis, both of kind ``"hinge"``; so has a BallJoint with devices or
            stops (1..3, its ``device``/``device2``/``device3``).
    """

    node: WbNode
    kind: Literal["hinge", "slider", "ball"]
    initial_position: float
    static_friction: float = 0.0
    joint_name: str = ""
    joint_spec: mujoco.MjsJoint | None = None
    parent_body: mujoco.MjsBody | None = None
    kinematic: bool = False
    end_point: SolidSlot | None = None
    axis_index: int = 1


@dataclass(eq=False)
class SolidSlot:
    """A Solid (or Solid-derived device, or Robot) being compiled, with its own MuJoCo body, or a frame-only
    Solid (``BodyPlan.frame_only``): a site on the enclosing body, whose ``body_*``, ``owner`` and ``dynamic``
    it then shares.

    Attributes:
        node: the Solid node.
        body_name: the MuJoCo body's name (a frame-only Solid: the enclosing body's).
        body_spec: the MuJoCo body being built (a frame-only Solid: the enclosing body).
        has_physics: True if the node has a Physics node.
        dynamic: True if the body moves under physics (it or an ancestor has degrees of freedom).
        owns_body: True if the Solid is a "solid merger" in Webots' sense (has its own dynamic body).
        owner: name of the body owning the motion ("" = world, for static Solids).
        free_joint: the free joint's name for top-level dynamic Solids, else "".
        end_point_of: the joint whose endPoint this Solid is, or None.
        parent_static: True if the nearest enclosing body is static (the world or a static Solid).
        mocap: True if the body was made a MuJoCo mocap body (see ``BodyPlan.mocap``).
        geoms: the collision geoms of its boundingObject, as (geom name, contact material).
        robot_node: the innermost Robot containing the Solid (itself for a Robot), or None.
        site_name: for a frame-only Solid, the MuJoCo site at the Solid's frame on the enclosing body; ""
            for a Solid with its own body.
    """

    node: WbNode
    body_name: str
    body_spec: mujoco.MjsBody
    has_physics: bool
    dynamic: bool
    owns_body: bool
    owner: str
    free_joint: str = ""
    end_point_of: JointSlot | None = None
    parent_static: bool = False
    mocap: bool = False
    geoms: list[tuple[str, str]] = field(default_factory=list)
    robot_node: WbNode | None = None
    site_name: str = ""


@dataclass(eq=False)
class ChildSlot:
    """A non-Solid device node met in a ``children`` field (placement ``"child"``, e.g. a Propeller): the
    MuJoCo body it rides on and its frame in that body.

    Attributes:
        node: the device node.
        body_name: the MuJoCo body of the enclosing Solid ("world" at the top level).
        pos: the node's origin in the body frame (3,), m: the Poses between the Solid and the node composed.
        quat: the node's orientation in the body frame (w, x, y, z).
        dynamic: True if the body moves under physics.
        robot_node: the innermost Robot containing the node, or None.
    """

    node: WbNode
    body_name: str
    pos: tuple[float, float, float]
    quat: tuple[float, float, float, float]
    dynamic: bool
    robot_node: WbNode | None = None


DeviceSlot = JointSlot | SolidSlot | ChildSlot
"""Where a device node was met: its joint (joint devices), its own Solid slot (Solid devices) or, for a
non-Solid node in a ``children`` field, the body it rides on (``ChildSlot``)."""


@dataclass(frozen=True)
class BodyRequest:
    """What the builder knows about a Solid-derived device before making its body.

    Attributes:
        has_physics: the node has a Physics node.
        parent_dynamic: the enclosing body moves under physics.
        end_point: the node is a joint's endPoint.
        top_level: the node is a top-level node of the world (with Physics it gets a free joint).
    """

    has_physics: bool
    parent_dynamic: bool
    end_point: bool
    top_level: bool
