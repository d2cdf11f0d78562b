"""Compile a checked world model into a MuJoCo model plus the binding table.

Webots' rules applied here:

- A Solid is static (no body motion) unless it or an ancestor has Physics and moves; a top-level Solid
  with Physics gets a free joint; a Solid with Physics under a static Solid and not attached by a joint
  is welded to the world; a Solid with Physics under a dynamic Solid and not attached by a joint is
  merged into its parent's rigid body (a jointless MuJoCo child body with its own mass).
- A Solid device whose kind asks for it (``BodyPlan.frame_only``) and that has no Physics, is not a joint's
  endPoint, not a Robot and holds no Solid gets no body at all: a site on the enclosing body carries its
  frame and its boundingObject geoms join that body (Webots merges it into its parent's body anyway).
- Joints are defined in the frame where the joint node sits; the endPoint pose in the file is the pose
  at the joint's ``position``, which becomes MuJoCo's ``ref``; stops are absolute positions; springs rest
  at position 0.
- A Hinge2Joint is two MuJoCo hinges: axis 1 on an intermediate body of negligible mass at the anchor (with a
  slide along the suspension axis before it when there is a suspension), axis 2 on the endPoint, so that axis 2
  turns with axis 1 as in Webots; each axis is a joint slot of its own for the devices (``axis_index``).
- A BallJoint with devices or stops is three hinges on Webots' Euler axes (two intermediate bodies of negligible
  mass at the anchor, each axis a joint slot, ``axis_index`` 1..3); without them it is a MuJoCo ball joint.
- A joint endPoint without Physics under a static Solid or under another such endPoint (chains of them, as
  in Webots' ``inertial_unit.wbt`` sample) is kinematic: its motor moves it (``wbsim.devices.motor``), and
  it does not touch static Solids or other kinematic ones (Webots gives none of them an ODE body). Under a
  Solid with Physics it is kinematic too when it carries no boundingObject (a load error otherwise).
- Mass: ``density`` times the boundingObject volume, or ``mass`` spread over it; inertia from the same
  primitives; ``centerOfMass`` moves the mass distribution; ``inertiaMatrix`` (with ``mass``) overrides.
- Devices are compiled by their device kinds (:mod:`wbsim.devices.registry`): the builder hands each
  device node met in the tree walk to its kind's compiler with its slot (the joint or the Solid it is),
  lets every compiler add its MuJoCo elements after the walk, and collects their bindings after
  compilation; each Robot's devices are listed in Webots' order (depth first, a joint's devices before
  its endPoint, a Solid device before its children).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import re
import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import mujoco
import numpy as np

from wbsim.compile import inertia
from wbsim.collector import paused_collection
from wbsim.compile.bindings import Bindings, JointBinding, RobotBinding, RobotDevice, SolidBinding
from wbsim.compile.contacts import (BOUNCE_USERDATA_WORDS, CONE_IMPRATIO, MAX_TIMECONST, BounceTable,
                                    ContactParams, MaterialPlan, SurfaceTable, too_soft)
from wbsim.compile.context import CompileContext
from wbsim.compile.damping import DampedBody, add_damping_actuators, allow_sleep_of_damped_trees
from wbsim.compile.frames import Frame, quat_from_axis_angle, quat_to_matrix
from wbsim.compile.geometry import GeomDescription, bounding_geoms
from wbsim.compile.loops import (AUX_MASS, WELD_PREFIX, LoopClosure, add_loop_weld, closing_dofs, resolve_reference,
                                 tie_loop_weights)
from wbsim.compile.slots import BodyRequest, ChildSlot, JointSlot, SolidSlot
from wbsim.devices.kind import BodyPlan, DeviceCompiler, DeviceKind
from wbsim.devices.registry import device_kinds, kinds_by_node_type
from wbsim.errors import CompileError, WorldError, WorldLoadError
from wbsim.recursion import raised_recursion_limit
from wbsim.world.builtin_nodes import builtin_schemas
from wbsim.world.model import WbNode, WorldModel, WorldWarning

__all__ = ["CompileOptions", "CompiledWorld", "automatic_arena_bytes", "compile_spec", "compile_world", "gravity_vector",
           "sleep_tolerance"]

_UP_AXIS = {"ENU": 2, "NUE": 1, "EUN": 1}
_KINEMATIC_ARMATURE_RATIO = 1.0e4  # kinematic joints are moved by wbsim, not by forces
_TINY_MASS = 1.0e-6
_FRICTION_SOLIMP = (0.9999, 0.9999, 0.001, 0.5, 2.0)  # near-hard joint friction, like the motors' (motors.md)
# Joint stops: near-hard as ODE's limit rows, yet 0.999 (not the motors' 0.9999): hanging chains of 19 to 40
# stopped links diverged at 0.9999 under gravity at 16 ms steps, none at 0.999 (tests/physics/test_joint_stops.py).
_STOP_SOLIMP = (0.999, 0.999, 0.001, 0.5, 2.0)
_MIN_INERTIA = 1.0e-13  # MuJoCo rejects principal moments (and masses of moving bodies) below ~1e-14
_GEOM_TYPES = {
    "box": mujoco.mjtGeom.mjGEOM_BOX,
    "sphere": mujoco.mjtGeom.mjGEOM_SPHERE,
    "cylinder": mujoco.mjtGeom.mjGEOM_CYLINDER,
    "capsule": mujoco.mjtGeom.mjGEOM_CAPSULE,
    "plane": mujoco.mjtGeom.mjGEOM_PLANE,
    "mesh": mujoco.mjtGeom.mjGEOM_MESH,
    "hfield": mujoco.mjtGeom.mjGEOM_HFIELD,
}


def _new_spec() -> mujoco.MjSpec:
    """An empty spec with the builder's compiler settings (radians, explicit inertias, automatic limits); the
    groups of top-level nodes need the same, as attached elements keep their own spec's settings."""
    spec = mujoco.MjSpec()
    spec.compiler.degree = False
    spec.compiler.inertiafromgeom = mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_FALSE
    spec.compiler.autolimits = True
    return spec


def _group_size(top_level_nodes: int) -> int:
    """How many top-level nodes the builder puts in one attached spec: about the square root of their number
    (balancing the cost of each group's own adds against one pass over the tree per attach)."""
    return max(1, math.isqrt(top_level_nodes))


_EMPTY_PREFIX_WARNING = "Attaching a spec with an empty prefix"


@contextlib.contextmanager
def _quiet_empty_prefix() -> Iterator[None]:
    """Drop MuJoCo's warning about attaching with an empty prefix (wbsim never saves the spec as XML, and
    its names are unique across groups), at attach time (MuJoCo's warning handler) and at compile time
    (a Python warning); every other warning passes through."""
    previous = mujoco.get_mju_user_warning()

    def handler(message: str) -> None:
        if not message.startswith(_EMPTY_PREFIX_WARNING):
            if previous is not None:
                previous(message)
            else:
                print(f"WARNING: {message}", file=sys.stderr)

    mujoco.set_mju_user_warning(handler)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=_EMPTY_PREFIX_WARNING)
            yield
    finally:
        mujoco.set_mju_user_warning(previous)


def gravity_vector(coordinate_system: str, gravity: float) -> np.ndarray:
    """World gravity (3,) in m/s^2: ``-up * gravity`` where up is the axis lettered 'U'."""
    vector = np.zeros(3)
    vector[_UP_AXIS[coordinate_system]] = -gravity
    return vector


def sleep_tolerance(linear_threshold: float, angular_threshold: float, disable_time_s: float, dt_s: float) -> float:
    """MuJoCo's ``sleep_tolerance`` standing for Webots' auto-disable thresholds and ``physicsDisableTime``.

    ODE disables a body once its speeds stay below the thresholds for ``physicsDisableTime`` seconds;
    MuJoCo puts a tree to sleep once its velocities stay below one tolerance for only ``mjMINAWAKE``
    steps. Using Webots' threshold unchanged would freeze a body released from rest (or at the turning
    point of a slow oscillation) within a few tens of milliseconds. The tolerance is therefore scaled by
    the ratio of the two idle windows, so that a motion of constant acceleration ``a`` (which stays
    below a threshold ``v`` for ``v / a`` seconds) falls asleep in both engines under the same condition.
    """
    window_s = mujoco.mjMINAWAKE * dt_s
    return min(linear_threshold, angular_threshold) * min(1.0, window_s / disable_time_s)


@dataclass(frozen=True)
class CompileOptions:
    """Options of the compilation.

    Attributes:
        max_physics_step_ms: the largest MuJoCo time step; each basicTimeStep is split into the fewest
            equal physics steps not longer than this (Webots runs one ODE step per basicTimeStep, which
            is too coarse for MuJoCo's soft contacts at Webots' default 32 ms).
        physics_step_ms: force this MuJoCo time step instead (it must divide basicTimeStep).
        bounce_threshold: emulate ODE's bounce threshold (contacts slower than ``bounceVelocity`` get the
            resting, non-bouncing spring; ``sim/bounce.py``). False keeps every contact's bouncy spring, which
            lets MuJoCo run all physics steps of a basic step in one call (faster, especially for small worlds)
            but makes resting contacts on bouncy surfaces springy (piles and stacks may creep or collapse).
    """

    max_physics_step_ms: float = 4.0
    physics_step_ms: float | None = None
    bounce_threshold: bool = True


@dataclass
class CompiledWorld:
    """A world compiled to MuJoCo.

    Attributes:
        world: the checked world model.
        spec: the MjSpec it was built from.
        model: the compiled MuJoCo model.
        bindings: node to MuJoCo id bindings.
        basic_time_step_ms: WorldInfo.basicTimeStep in ms.
        substeps: physics steps per basic time step.
        warnings: compile-time warnings.
        body_names: MuJoCo body name to the node path it came from (for diagnostics).
        bounce: where contacts switch to their resting solref below ``bounceVelocity`` (None: built without).
        surfaces: each geom's and pair's ODE softERP/softCFM (for the contacts of very light parts).
    """

    world: WorldModel
    spec: mujoco.MjSpec
    model: mujoco.MjModel
    bindings: Bindings
    basic_time_step_ms: float
    substeps: int
    warnings: tuple[WorldWarning, ...]
    body_names: dict[str, str] = field(default_factory=dict)
    bounce: BounceTable | None = None
    surfaces: SurfaceTable | None = None

    @property
    def physics_step_s(self) -> float:
        """The MuJoCo time step in seconds."""
        return float(self.model.opt.timestep)


@dataclass
class _Body:
    """A MuJoCo body being built, with what its children need to know.

    ``world_frame`` is the body's pose in the world for static bodies (None for moving ones): a static
    device made a mocap body is hung from the world at that pose composed with its own. ``kinematic`` marks a
    moving body without Physics: a joint endPoint without Physics (Webots moves it kinematically, with its
    joint's motor) and the Solids without Physics it carries; such a body may hold further kinematic joints.
    """

    spec: mujoco.MjsBody
    name: str
    dynamic: bool
    owner: str  # name of the body owning the motion ("" = world)
    robot: _Robot | None
    is_world: bool = False
    world_frame: Frame | None = None
    kinematic: bool = False

    @property
    def has_physics(self) -> bool:
        """True if the body moves under physics (Webots' Solid with Physics, or a Solid carried by one)."""
        return self.dynamic and not self.kinematic


@dataclass
class _Robot:
    node: WbNode
    body_name: str
    devices: list[tuple[str, WbNode]] = field(default_factory=list)  # (kind name, device node), Webots order
    outermost: _Robot | None = None
    bodies: list[str] = field(default_factory=list)


class _Builder:
    def __init__(self, world: WorldModel, options: CompileOptions) -> None:
        self.world = world
        self.options = options
        self.warnings: list[WorldWarning] = []
        self.errors: list[WorldError] = []
        info = world.world_info
        self.basic_ms = float(info["basicTimeStep"])  # type: ignore[arg-type]
        if options.physics_step_ms is not None:
            ratio = self.basic_ms / options.physics_step_ms
            if options.physics_step_ms <= 0 or abs(ratio - round(ratio)) > 1e-9:
                raise CompileError(
                    f"physics step {options.physics_step_ms} ms must divide basicTimeStep {self.basic_ms} ms."
                )
            self.substeps = max(1, round(ratio))
        else:
            self.substeps = max(1, math.ceil(self.basic_ms / options.max_physics_step_ms - 1e-9))
        self.dt_s = self.basic_ms / self.substeps / 1000.0
        self.spec = _new_spec()
        self._world_spec = self.spec.worldbody  # the world body of the group of top-level nodes being built
        opt = self.spec.option
        opt.timestep = self.dt_s
        opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
        opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC  # see compile/contacts.py (friction over Webots' whole range)
        opt.impratio = CONE_IMPRATIO
        # MuJoCo's previous convex collider: the native one misplaces cylinder-cylinder contacts (issue 14,
        # tests/webots_samples/test_cylinder_stack_sample.py).
        opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_NATIVECCD
        opt.gravity = gravity_vector(str(info["coordinateSystem"]), float(info["gravity"]))  # type: ignore[arg-type]
        disable_time_s = float(info["physicsDisableTime"])  # type: ignore[arg-type]
        if disable_time_s > 0:
            opt.enableflags |= mujoco.mjtEnableBit.mjENBL_SLEEP
            opt.sleep_tolerance = sleep_tolerance(
                float(info["physicsDisableLinearThreshold"]),  # type: ignore[arg-type]
                float(info["physicsDisableAngularThreshold"]),  # type: ignore[arg-type]
                disable_time_s, self.dt_s)
        self.contact_nodes = list(info["contactProperties"])  # type: ignore[arg-type]
        for node in self.contact_nodes:
            if too_soft(node):
                self.warnings.append(WorldWarning(
                    f"softERP {float(node['softERP']):g} with softCFM {float(node['softCFM']):g}: ODE's contact "  # type: ignore[arg-type]
                    "is then almost only a damper that lets bodies creep into each other; wbsim uses its softest "
                    f"spring contact (time constant {MAX_TIMECONST:g} s) instead.",
                    node.location_of("softERP"), node.path))
        # Webots uses the first ContactProperties matching both materials, else its built-in surface: a
        # "default"/"default" node applies only between two "default" geoms.
        self.contact_plan = MaterialPlan(self.contact_nodes, self.dt_s)
        # The parameters given to each named geom and explicit pair, for the bounce threshold (BounceTable).
        self.geom_contacts: list[tuple[str, ContactParams]] = []
        self.pair_contacts: list[tuple[str, str, ContactParams]] = []
        # Not a method: the context keeps it, and a bound method would tie the builder into a reference cycle.
        self._name = _fresh_names()
        self.solids: list[SolidSlot] = []
        self.joints: list[JointSlot] = []
        self.robots: list[_Robot] = []
        self.robot_of_slot: dict[int, _Robot | None] = {}  # id(SolidSlot) -> its innermost robot
        self.context = CompileContext(self.spec, self.basic_ms, self.dt_s, self.substeps, self._name, self.warnings,
                                      self.errors, info, self.solids)
        self.kinds: tuple[DeviceKind, ...] = device_kinds()
        self.compilers: dict[str, DeviceCompiler] = {kind.name: kind.compiler() for kind in self.kinds}
        self.body_paths: dict[str, str] = {}
        self.parent_of: dict[str, str] = {}
        self.damping: list[DampedBody] = []  # per dynamic body with Webots damping
        self.damping_actuators: list[str] = []
        self._geom_descriptions: dict[str, GeomDescription] = {}
        self._kinematic_joints: list[str] = []
        self._kinematic_bodies: set[str] = set()  # bodies moved by kinematic joints only (no Physics)
        self._joint_excludes: list[tuple[str, str]] = []  # (parent, endPoint) not MuJoCo parent and child
        self._groups: list[mujoco.MjSpec] = []  # the specs of the groups of top-level nodes, until attached
        self.element_counts: dict[str, int] | None = None  # the model's sizes, counted when the groups are attached
        self.body_specs: dict[str, mujoco.MjsBody] = {}  # by name: the groups' elements before they are attached
        self.geom_specs: dict[str, mujoco.MjsGeom] = {}  # by name, likewise
        self._closures: list[LoopClosure] = []  # joints whose endPoint is a SolidReference (compile/loops.py)
        self._loop_targets: dict[int, WbNode | None] = {}  # id(SolidReference) -> its Solid (None: static world)

    # -- helpers ----------------------------------------------------------------------------------
    def _error(self, message: str, node: WbNode, field_name: str | None = None) -> None:
        location = node.location_of(field_name) if field_name else node.location
        path = f"{node.path} > {field_name}" if field_name else node.path
        self.errors.append(CompileError(message, location, path))

    # -- tree walk ----------------------------------------------------------------------------------
    def build(self) -> None:
        """Walk the world's nodes, building the top-level ones in groups of about sqrt(n), each in a spec of its
        own, attached in scene order by :meth:`attach_groups` (so bodies keep their scene order in the model).

        Every element added to an MjSpec makes MuJoCo rebuild the spec's lists of the whole tree: adding
        them all to one spec costs the square of the world's size (11 s of 13 s of spec building for 1,000
        demo robots). A group's spec stays small; attaching a spec (by reference: elements added to a group
        later still belong to the model) costs one pass over the tree, so a world of n top-level nodes costs
        about n^1.5 instead of n^2. Names are unchanged (empty prefix), so the compiled model's names are as
        before; until the groups are attached, bodies are found by name in :attr:`body_specs`.
        """
        nodes = list(self.world.nodes)
        size = _group_size(len(nodes))
        groups = []
        for start in range(0, len(nodes), size):
            group = _new_spec()
            self._world_spec = group.worldbody
            world_body = _Body(group.worldbody, "world", False, "", None, is_world=True, world_frame=Frame.identity())
            for node in nodes[start:start + size]:
                self._visit(node, world_body, Frame.identity())
            groups.append(group)
        self._world_spec = self.spec.worldbody
        self._groups = groups
        self._close_loops()

    def attach_groups(self) -> None:
        """Attach the groups' specs to the main spec, in scene order, once their trees are complete: an element
        added to a group after its attachment costs a pass over the whole tree again."""
        # Counted before attaching: MuJoCo walks an attached spec's elements in time growing with the tree.
        self.element_counts = _counts(self.spec)
        for group in self._groups:
            for name, count in _counts(group).items():
                self.element_counts[name] += count
            self.element_counts["nbody"] -= 1  # each group's own world body
        with _quiet_empty_prefix():
            # Pairwise, like a merge: each attach walks the whole destination tree, so attaching the groups one
            # by one to the main spec cost (number of groups) x (world size); merged in pairs, each body is
            # walked about log2(groups) times (0.7 -> 0.25 s for 1,000 demo robots). Scene order is kept: a
            # group only ever receives the next one.
            groups = self._groups
            while len(groups) > 1:
                for first, second in zip(groups[0::2], groups[1::2]):
                    first.attach(second, frame=first.worldbody.add_frame(), prefix="")
                groups = groups[0::2]
            for group in groups:
                self.spec.attach(group, frame=self.spec.worldbody.add_frame(), prefix="")
        self._groups = []

    def _visit(self, node: WbNode, parent: _Body, frame: Frame) -> None:
        if node.is_a("solid"):
            self._solid(node, parent, frame @ Frame.from_webots(node["translation"], node["rotation"]), None)  # type: ignore[arg-type]
        elif node.is_a("joint"):
            self._joint(node, parent, frame)
        elif node.is_a("group"):
            if node.type_name == "Transform" and tuple(node["scale"]) != (1.0, 1.0, 1.0):  # type: ignore[arg-type]
                if any(n.is_a("solid") for n in node.walk()):
                    self._error("A Transform with a scale other than 1 1 1 cannot contain Solid nodes.", node, "scale")
                    return
            if node.type_name in ("Pose", "Transform"):
                frame = frame @ Frame.from_webots(node["translation"], node["rotation"])  # type: ignore[arg-type]
            for child in node["children"]:  # type: ignore[union-attr]
                self._visit(child, parent, frame)
        elif (kind := kinds_by_node_type().get(node.type_name)) is not None and kind.placement == "child":
            # A non-Solid device in a children field (a Propeller): it rides on the enclosing body at ``frame``.
            slot = ChildSlot(node, parent.name, tuple(frame.pos.tolist()), tuple(frame.quat.tolist()),  # type: ignore[arg-type]
                             parent.dynamic, parent.robot.node if parent.robot is not None else None)
            self._add_device(kind, node, slot, parent.robot)
        # Shapes, lights and world nodes have no physical effect.

    def _solid(self, node: WbNode, parent: _Body, frame: Frame, joint: tuple[str, dict] | None) -> SolidSlot:
        physics = node["physics"]
        has_physics = isinstance(physics, WbNode)
        kind = kinds_by_node_type().get(node.type_name)
        if kind is not None and kind.placement != "solid":
            kind = None
        plan = BodyPlan()
        if kind is not None:
            plan = self.compilers[kind.name].plan_body(node, BodyRequest(
                has_physics=has_physics, parent_dynamic=parent.dynamic, end_point=joint is not None,
                top_level=parent.is_world))
        if kind is not None and plan.frame_only and self._can_be_frame_only(node, has_physics, joint):
            return self._frame_only_solid(node, parent, frame, kind, plan)
        if has_physics and parent.kinematic:
            self.warnings.append(WorldWarning(
                "This Solid has Physics but is carried by a joint endPoint without Physics (moved kinematically): "
                "Webots attaches it to the static world instead, so it does not follow the link; wbsim carries it "
                "with the link, and its contacts with static Solids can stop the link's motor.",
                node.location, node.path))
        name = self._name("b")
        self.body_paths[name] = node.path
        self.parent_of[name] = parent.name
        mocap = plan.mocap and joint is None and not parent.dynamic and parent.world_frame is not None
        if mocap:
            # A mocap body hangs from the world at its world pose (MuJoCo requires it).
            assert parent.world_frame is not None
            placed = parent.world_frame @ frame
            body = self._world_spec.add_body(name=name, pos=placed.pos.tolist(), quat=placed.quat.tolist(),
                                             mocap=True)
        else:
            body = parent.spec.add_body(name=name, pos=frame.pos.tolist(), quat=frame.quat.tolist())
        self.body_specs[name] = body
        free_joint = ""
        kinematic = False
        if joint is not None:
            dynamic = True
            owns_body = True
            owner = name
            kinematic = not has_physics  # moved by its joint's motor only, as Webots does
        elif has_physics and not parent.dynamic:
            if parent.is_world:
                free_joint = self._name("free")
                body.add_freejoint(name=free_joint)
                dynamic, owns_body, owner = True, True, name
            else:
                # Webots welds a Physics Solid under a static Solid to the static environment.
                dynamic, owns_body, owner = False, False, ""
        elif has_physics:
            # Merged into the parent's rigid body, except Webots' legacy wheel names which keep their own body.
            owns_body = str(node["name"]).lower() in ("right wheel", "left wheel")
            dynamic, owner = True, name if owns_body else parent.owner
        else:
            dynamic, owns_body, owner = parent.dynamic, False, parent.owner
            kinematic = parent.kinematic
            self._warn_no_physics(node, parent, plan)
        robot = parent.robot
        if node.is_a("robot"):
            new_robot = _Robot(node, name)
            new_robot.outermost = robot.outermost if robot is not None else new_robot
            self.robots.append(new_robot)
            robot = new_robot
        if robot is not None and robot.outermost is not None:
            robot.outermost.bodies.append(name)
        # Kinematic endPoints (no Physics) still move with their joint: give MuJoCo a negligible mass.
        if joint is not None and not has_physics:
            body.explicitinertial = True
            body.mass = _TINY_MASS
            body.fullinertia = [_TINY_MASS] * 3 + [0.0] * 3
        geoms = self._geoms(node, body, has_physics, dynamic)
        if has_physics:
            assert isinstance(physics, WbNode)
            with np.errstate(over="ignore", invalid="ignore"):  # overflowing values are reported, not warned
                self._inertial(node, physics, body, geoms)
            damping = physics["damping"] if isinstance(physics["damping"], WbNode) else self.world.world_info["defaultDamping"]
            if isinstance(damping, WbNode) and owns_body:
                self.damping.append(DampedBody(name, float(damping["linear"]), float(damping["angular"])))  # type: ignore[arg-type]
        world_frame = None
        if not dynamic and parent.world_frame is not None:
            world_frame = parent.world_frame @ frame
        if kinematic:
            self._kinematic_bodies.add(name)
        this = _Body(body, name, dynamic, owner, robot, world_frame=world_frame, kinematic=kinematic)
        slot = SolidSlot(
            node=node, body_name=name, body_spec=body, has_physics=has_physics, dynamic=dynamic,
            owns_body=owns_body, owner=owner, free_joint=free_joint,
            end_point_of=joint[1]["pending"] if joint is not None else None, parent_static=not parent.dynamic,
            mocap=mocap, geoms=geoms, robot_node=robot.node if robot is not None else None,
        )
        self.solids.append(slot)
        self.robot_of_slot[id(slot)] = robot
        if joint is not None:
            self._add_joint_to_body(body, joint)
        if kind is not None:
            self._add_device(kind, node, slot, robot)
        for child in node["children"]:  # type: ignore[union-attr]
            self._visit(child, this, Frame.identity())
        return slot

    @staticmethod
    def _can_be_frame_only(node: WbNode, has_physics: bool, joint: tuple[str, dict] | None) -> bool:
        """True if a Solid may do without a body of its own: no Physics (no mass, no motion of its own), not a
        joint's endPoint (a joint needs a body), not a Robot, and no Solid below it (a body needs a parent
        body)."""
        if has_physics or joint is not None or node.is_a("robot"):
            return False
        return not any(below is not node and below.is_a("solid") for below in node.walk())

    def _frame_only_solid(self, node: WbNode, parent: _Body, frame: Frame, kind: DeviceKind,
                          plan: BodyPlan) -> SolidSlot:
        """Compile a frame-only Solid device (``BodyPlan.frame_only``): a site on the enclosing body.

        Its boundingObject geoms go to the enclosing body, at ``frame`` (the Solid's pose in that body,
        intermediate Poses included), as Webots merges a Solid without Physics into its parent's body; a
        jointless child body would cost MuJoCo time in every physics step for no motion of its own.
        """
        self._warn_no_physics(node, parent, plan)
        site = self._name("s")
        parent.spec.add_site(name=site, pos=frame.pos.tolist(), quat=frame.quat.tolist())
        geoms = self._geoms(node, parent.spec, False, parent.dynamic, offset=frame)
        robot = parent.robot
        slot = SolidSlot(
            node=node, body_name=parent.name, body_spec=parent.spec, has_physics=False, dynamic=parent.dynamic,
            owns_body=False, owner=parent.owner, parent_static=not parent.dynamic, geoms=geoms,
            robot_node=robot.node if robot is not None else None, site_name=site,
        )
        self.solids.append(slot)
        self.robot_of_slot[id(slot)] = robot
        self._add_device(kind, node, slot, robot)
        # No Solid below (checked): what is left (Poses, joints without endPoint) sits on the same body.
        for child in node["children"]:  # type: ignore[union-attr]
            self._visit(child, parent, frame)
        return slot

    def _warn_no_physics(self, node: WbNode, parent: _Body, plan: BodyPlan) -> None:
        """Warn about a boundingObject without Physics under a parent with Physics, unless the kind expects it.

        A Solid without Physics carried by a kinematic endPoint is kinematic too: its geoms move with that
        endPoint as in Webots, so there is nothing to warn about.
        """
        if (parent.has_physics and node["boundingObject"] is not None
                and not plan.allow_no_physics_in_dynamic_parent):
            self.warnings.append(WorldWarning(
                "This Solid has no Physics but its parent does: Webots would let its boundingObject collide "
                "without effect; wbsim attaches it to the parent's body with no mass, so it does collide.",
                node.location, node.path))

    def _add_device(self, kind: DeviceKind, node: WbNode, slot: JointSlot | SolidSlot | ChildSlot,
                    robot: _Robot | None) -> None:
        """Hand a device node to its kind's compiler and list it among its robot's devices."""
        compiler = self.compilers[kind.name]
        if not compiler.add(self.context, node, slot):
            return
        listed = compiler.listed_devices(node)
        if robot is not None:
            robot.devices.extend((kind.name, device) for device in listed)
        elif listed and not kind.outside_robot:
            self.warnings.append(WorldWarning(
                f"{node.type_name} '{node['name']}' is not inside a Robot: no controller can use it.",
                node.location, node.path))

    def _geoms(self, node: WbNode, body: mujoco.MjsBody, has_physics: bool, moves: bool,
               offset: Frame | None = None) -> list[tuple[str, str]]:
        """Add the boundingObject geoms of ``node`` to ``body``; ``offset`` is the node's frame in ``body`` when
        it is not the body's own (frame-only Solids). Returns (geom name, contact material) pairs."""
        try:
            descriptions = bounding_geoms(node["boundingObject"], self.warnings)  # type: ignore[arg-type]
        except CompileError as error:
            self.errors.append(error)
            return []
        material = str(node["contactMaterial"])
        result = []
        for description in descriptions:
            if description.kind == "plane" and has_physics:
                self._error("A Plane in a boundingObject cannot be used with a Physics node (it is an infinite "
                            "static half-space).", description.node)
                continue
            if description.kind == "plane" and moves:
                plane = description.node
                self.warnings.append(WorldWarning(
                    "This Plane is ignored: it belongs to a Solid without Physics that moves with a joint or with a "
                    "parent that has Physics, and MuJoCo planes must be static.", plane.location, plane.path))
                continue
            gname = self._name("g")
            placed = description.frame if offset is None else offset @ description.frame
            geom = body.add_geom(name=gname, type=_GEOM_TYPES[description.kind],
                                 pos=placed.pos.tolist(), quat=placed.quat.tolist())
            self.geom_specs[gname] = geom
            if description.kind == "mesh":
                mesh = self.spec.add_mesh(name=gname + "_mesh")
                assert description.mesh_vertices is not None and description.mesh_faces is not None
                mesh.uservert = description.mesh_vertices.ravel().tolist()
                mesh.userface = description.mesh_faces.ravel().tolist()
                geom.meshname = gname + "_mesh"
            elif description.kind == "hfield":
                assert description.hfield is not None
                nrow, ncol, size, data = description.hfield
                self.spec.add_hfield(name=gname + "_hf", nrow=nrow, ncol=ncol, size=list(size),
                                     userdata=data.tolist())
                geom.hfieldname = gname + "_hf"
            else:
                geom.size = list(description.size) + [0.0] * (3 - len(description.size))
            # Per-geom parameters (see compile/contacts.py, material_plan): "default" geoms carry the
            # default/default surface, other materials their surface against "default" with a higher
            # priority, so MuJoCo uses it unmixed; the material pairs this misses get explicit pairs.
            params = self.contact_plan.geom_params(material)
            self._apply_contact(geom, params)
            self.geom_contacts.append((gname, params))
            geom.priority = self.contact_plan.priority(material)
            result.append((gname, material))
            self._geom_descriptions[gname] = description
        return result

    @staticmethod
    def _apply_contact(geom: mujoco.MjsGeom, params: ContactParams) -> None:
        geom.friction = [params.friction[0], params.friction[2], params.friction[3]]
        geom.condim = params.condim
        geom.solref = list(params.solref)
        geom.solimp = list(params.solimp)

    def _inertial(self, node: WbNode, physics: WbNode, body: mujoco.MjsBody, geoms: list[tuple[str, str]]) -> None:
        density = float(physics["density"])  # type: ignore[arg-type]
        mass = float(physics["mass"])  # type: ignore[arg-type]
        com_rows = tuple(physics["centerOfMass"])  # type: ignore[arg-type]
        inertia_rows = tuple(physics["inertiaMatrix"])  # type: ignore[arg-type]
        if density < 0 and mass < 0:
            self._error("Either the 'mass' or the 'density' must be specified (both are -1).", physics)
            return
        if density == 0 and mass < 0:
            # Webots resets a non-positive density to 1000 when no mass is given (WbPhysics).
            self.warnings.append(WorldWarning("'density' must be positive when 'mass' is -1: reset to 1000 as "
                                              "Webots does.", physics.location_of("density"), physics.path))
            density = 1000.0
        if density >= 0 and mass > 0 and "density" in physics.given:
            self.warnings.append(WorldWarning("Both 'density' and 'mass' specified: the 'density' will be ignored.",
                                              physics.location, physics.path))
        if len(com_rows) > 1:
            self._error("'centerOfMass' must have exactly 0 or 1 line.", physics, "centerOfMass")
            return
        if len(inertia_rows) not in (0, 2):
            self._error("'inertiaMatrix' must have exactly 0 or 2 lines: [I11 I22 I33, I12 I13 I23].", physics,
                        "inertiaMatrix")
            return
        parts = [self._geom_descriptions[g].unit_mass for g, _ in geoms]
        unit = inertia.combine([p for p in parts if p is not None])
        if inertia_rows:
            if mass <= 0:
                self._error("'inertiaMatrix' requires 'mass' to be specified.", physics, "inertiaMatrix")
                return
            (i11, i22, i33), (i12, i13, i23) = inertia_rows
            tensor = np.array([[i11, i12, i13], [i12, i22, i23], [i13, i23, i33]], dtype=float)
            if min(i11, i22, i33) <= 0 or np.linalg.eigvalsh(tensor).min() <= 0:
                self._error("'inertiaMatrix' must be positive definite.", physics, "inertiaMatrix")
                return
            com = np.asarray(com_rows[0], dtype=float) if com_rows else unit.com
            props = inertia.MassProperties(mass, com, tensor)
        elif unit.mass > 0:
            total = mass if mass > 0 else density * unit.mass
            props = unit.scaled(total / unit.mass)
            if com_rows:
                props = inertia.MassProperties(props.mass, np.asarray(com_rows[0], dtype=float), props.inertia)
        else:
            total = mass if mass > 0 else max(density, 0.0) / 1000.0
            self.warnings.append(WorldWarning(
                "No boundingObject volume to compute the inertia from: using the identity inertia matrix as "
                "Webots does. Specify 'boundingObject' or 'inertiaMatrix'.", physics.location, physics.path))
            com = np.asarray(com_rows[0], dtype=float) if com_rows else np.zeros(3)
            props = inertia.MassProperties(total if total > 0 else 1.0, com, np.eye(3))
        if not (math.isfinite(props.mass) and np.isfinite(props.com).all() and np.isfinite(props.inertia).all()):
            # Huge densities or sizes (or both) overflow double precision: no body can be built from them.
            self._error(f"The mass properties of this Solid overflow (mass {props.mass:g} kg): reduce 'density', "
                        "'mass' or the boundingObject sizes.", physics)
            return
        props = self._realisable(props, physics)
        i = props.inertia
        body.explicitinertial = True
        body.mass = props.mass
        body.ipos = props.com.tolist()
        body.fullinertia = [i[0, 0], i[1, 1], i[2, 2], i[0, 1], i[0, 2], i[1, 2]]

    def _realisable(self, props: inertia.MassProperties, physics: WbNode) -> inertia.MassProperties:
        """Mass properties MuJoCo accepts: mass and principal moments above its minimum, A + B >= C.

        ODE takes any positive definite inertia; MuJoCo rejects principal moments below ~1e-14 kg*m^2 (tiny
        parts) and moments that break the triangle inequality (exactly, so a very thin plate can fail on
        rounding alone). The smallest isotropic inertia that fixes both is added, with a warning when it is
        more than a rounding-level change.
        """
        moments = np.sort(np.linalg.eigvalsh(props.inertia))
        a, b, c = (float(v) for v in moments)
        extra = max(0.0, _MIN_INERTIA - a)
        if a + b < c:
            extra = max(extra, (c - a - b) + 1e-9 * c)
        mass = max(props.mass, _MIN_INERTIA)
        if extra > 0.0:
            if extra > 1e-6 * c or mass != props.mass:
                self.warnings.append(WorldWarning(
                    f"The inertia of this Solid (principal moments {a:.3g}, {b:.3g}, {c:.3g} kg*m^2) is not one "
                    f"MuJoCo accepts (too small, or I1 + I2 < I3): {extra:.3g} kg*m^2 is added about every axis.",
                    physics.location, physics.path))
            props = inertia.MassProperties(mass, props.com, props.inertia + extra * np.eye(3))
        elif mass != props.mass:
            self.warnings.append(WorldWarning(
                f"The mass of this Solid ({props.mass:.3g} kg) is below MuJoCo's minimum: {mass:.3g} kg is used.",
                physics.location, physics.path))
            props = inertia.MassProperties(mass, props.com, props.inertia)
        return props

    # -- joints -------------------------------------------------------------------------------------
    def _joint(self, node: WbNode, parent: _Body, frame: Frame) -> None:
        if node.type_name == "Hinge2Joint":
            self._hinge2_joint(node, parent, frame)
            return
        if node.type_name == "BallJoint" and (any(node[f] for f in ("device", "device2", "device3"))
                                              or self._ball_has_stops(node)):
            self._ball_joint_hinges(node, parent, frame)
            return
        kind = {"HingeJoint": "hinge", "SliderJoint": "slider", "BallJoint": "ball"}[node.type_name]
        params = node["jointParameters"]
        param_values = self._param_values(node, params)
        suspension = (param_values.get("suspensionSpringConstant", 0.0), param_values.get("suspensionDampingConstant", 0.0))
        if kind == "hinge" and isinstance(params, WbNode) and any(float(v) for v in suspension):  # type: ignore[arg-type]
            self.warnings.append(WorldWarning("HingeJoint suspension is not simulated by wbsim (only a "
                                              "Hinge2Joint's is); ignored.", params.location, params.path))
        end_point = node["endPoint"]
        position = float(param_values.get("position", 0.0))
        pending = JointSlot(node, kind, position, static_friction=float(param_values.get("staticFriction", 0.0)))  # type: ignore[arg-type]
        self.joints.append(pending)
        self._joint_devices(node, pending, parent.robot, kind)
        if not isinstance(end_point, WbNode):
            self.warnings.append(WorldWarning(f"{node.type_name} without endPoint: nothing moves.", node.location,
                                              node.path))
            return
        anchor = np.asarray(param_values.get("anchor", (0.0, 0.0, 0.0)), dtype=float)
        closing = end_point.is_a("solid_reference")
        if closing:
            if not self._loop_can_close(node, end_point, parent):
                return
            # The closing joint's auxiliary body sits at the anchor, turned as the joint's frame.
            kinematic = False
            ep_frame = Frame(frame.apply(anchor) if kind != "slider" else frame.pos, frame.rot)
        else:
            kinematic = not isinstance(end_point["physics"], WbNode)
            # Under a static parent or a kinematic one (a chain of endPoints without Physics, as in Webots' sample
            # inertial_unit.wbt), an endPoint without Physics is moved kinematically relative to its parent; so is
            # one without boundingObject under a Solid with Physics (needles, dials moved by a motor).
            if kinematic and parent.has_physics and not self._kinematic_end_point_allowed(end_point):
                return
            ep_frame = frame @ Frame.from_webots(end_point["translation"], end_point["rotation"])  # type: ignore[arg-type]
        to_child = ep_frame.inverse()
        joint_spec: dict[str, object] = {"kind": kind, "pending": pending, "kinematic": kinematic}
        if kind in ("hinge", "slider"):
            axis = np.asarray(param_values.get("axis", (1.0, 0.0, 0.0) if kind == "hinge" else (0.0, 0.0, 1.0)),
                              dtype=float)
            # Scaled by its largest component first, as ODE normalises: 0 0 1e300 or denormal axes stay exact.
            largest = float(np.abs(axis).max())
            axis = axis / largest if largest > 0.0 else axis
            norm = float(np.linalg.norm(axis))
            if norm == 0.0:
                where = params if isinstance(params, WbNode) else node
                self._error("The joint axis must not be zero.", where, "axis" if isinstance(params, WbNode) else None)
                return
            axis_parent = frame.rot @ (axis / norm)
            joint_spec["axis"] = to_child.rot @ axis_parent
        joint_spec["pos"] = to_child.apply(frame.apply(anchor)) if kind != "slider" else np.zeros(3)
        joint_spec["params"] = param_values
        joint_spec["params_node"] = params
        joint_spec["parent_spec"] = parent.spec
        pending.kinematic = kinematic
        if closing:
            self._closing_body(node, end_point, parent, parent, ep_frame, ("joint", joint_spec), [pending])
            return
        pending.end_point = self._solid(end_point, parent, ep_frame, ("joint", joint_spec))

    def _hinge2_joint(self, node: WbNode, parent: _Body, frame: Frame) -> None:
        """A Hinge2Joint: ODE's hinge-2 as two MuJoCo hinges through the anchor.

        Axis 1 is fixed in the parent; axis 2 is carried by axis 1 (Webots: the endPoint's rotation is
        ``R(axis, position) R(axis2, position2) R0``). The first hinge (and, with a suspension spring or damper,
        a slide along the suspension axis before it, fixed in the parent as ODE's) sits on an intermediate body
        of negligible mass at the anchor, rotated by ``position`` about axis 1; the second hinge is the
        endPoint's. Each axis has its own :class:`JointSlot` (``axis_index`` 1 and 2), so motors and sensors
        in ``device`` / ``device2`` drive and read their own hinge.
        """
        params, params2 = node["jointParameters"], node["jointParameters2"]
        values = self._param_values(node, params)
        values2 = self._param_values(node, params2, axis_index=2)
        deprecated = isinstance(params, WbNode) and params.type_name == "Hinge2JointParameters"
        if deprecated:
            assert isinstance(params, WbNode)
            self.warnings.append(WorldWarning("'Hinge2JointParameters' is deprecated, please use "
                                              "'HingeJointParameters' instead.", params.location, params.path))
        slots: list[JointSlot] = []
        for index, vals in ((1, values), (2, values2)):
            friction = float(vals["staticFriction"])  # type: ignore[arg-type]
            slot = JointSlot(node, "hinge", float(vals["position"]), static_friction=friction,  # type: ignore[arg-type]
                             axis_index=index)
            self.joints.append(slot)
            slots.append(slot)
        # Webots lists the devices of axis 1, then those of axis 2.
        for field_name, slot in (("device", slots[0]), ("device2", slots[1])):
            for device in node[field_name]:  # type: ignore[union-attr]
                device_kind = kinds_by_node_type().get(device.type_name)
                if device_kind is not None and device_kind.placement == "joint":
                    self._add_device(device_kind, device, slot, parent.robot)
        end_point = node["endPoint"]
        if not isinstance(end_point, WbNode):
            self.warnings.append(WorldWarning("Hinge2Joint without endPoint: nothing moves.", node.location,
                                              node.path))
            return
        closing = end_point.is_a("solid_reference")
        if closing and not self._loop_can_close(node, end_point, parent):
            return
        kinematic = not closing and not isinstance(end_point["physics"], WbNode)
        if kinematic and parent.has_physics and not self._kinematic_end_point_allowed(end_point):
            return
        if not kinematic and not parent.dynamic and not self._upper_solid_has_physics(node):
            if closing:
                self.warnings.append(WorldWarning("Hinge2Joint nodes can only connect Solid nodes that have a Physics "
                                                  "node (the loop stays open, as in Webots).", node.location,
                                                  node.path))
                return
            self._unattached_end_point(node, end_point, parent, frame)
            return
        axes = []
        for vals, where in ((values, params), (values2, params2)):
            axis = np.asarray(vals["axis"], dtype=float)
            norm = float(np.linalg.norm(axis))
            if norm == 0.0:
                located = where if isinstance(where, WbNode) else node
                self._error("The joint axis must not be zero.", located,
                            "axis" if isinstance(where, WbNode) else None)
                return
            axes.append(frame.rot @ (axis / norm))
        axis1, axis2 = axes
        p1 = slots[0].initial_position
        if float(np.linalg.norm(np.cross(axis1, axis2))) < 1e-9 and not kinematic:
            # Webots (WbHinge2Joint::applyToOdeAxis) gives ODE the world's x and z axes instead, at the load pose;
            # a kinematic endPoint has no ODE joint and turns about the file's axes (no warning there).
            self.warnings.append(WorldWarning("Hinge axes are aligned: using x and z axes instead.", node.location,
                                              node.path))
            to_parent = self._world_rotation(parent.spec).T
            axis1 = to_parent @ np.array([1.0, 0.0, 0.0])
            # axis 2 is given in the intermediate body (turned by p1 about axis 1): world z at the load pose.
            axis2 = quat_to_matrix(quat_from_axis_angle((*axis1, p1))).T @ (to_parent @ np.array([0.0, 0.0, 1.0]))
        # The intermediate body: at the anchor, rotated by position about axis 1 (MuJoCo's ref is position).
        inter = Frame(frame.apply(np.asarray(values["anchor"], dtype=float)),
                      quat_to_matrix(quat_from_axis_angle((*axis1, p1))))
        name = self._name("h2_")
        self.body_paths[name] = node.path
        self.parent_of[name] = parent.name
        body = parent.spec.add_body(name=name, pos=inter.pos.tolist(), quat=inter.quat.tolist())
        self.body_specs[name] = body
        body.explicitinertial = True
        body.mass = _TINY_MASS
        body.fullinertia = [_TINY_MASS] * 3 + [0.0] * 3
        spring = float(values.get("suspensionSpringConstant", 0.0))  # type: ignore[arg-type]
        damper = float(values.get("suspensionDampingConstant", 0.0))  # type: ignore[arg-type]
        if (spring or damper) and not kinematic:  # a kinematic Hinge2Joint has no ODE joint, hence no suspension
            self._suspension(body, inter, frame, values, params, deprecated, spring, damper)
        for slot in slots:
            slot.kinematic = kinematic
        self._add_joint_to_body(body, ("joint", {
            "kind": "hinge", "pending": slots[0], "kinematic": kinematic, "axis": inter.rot.T @ axis1,
            "pos": np.zeros(3), "params": values, "params_node": params, "parent_spec": parent.spec}))
        if closing:  # the closing body sits at the anchor, turned as the intermediate body
            ep_in_inter = Frame.identity()
        else:
            ep_frame = frame @ Frame.from_webots(end_point["translation"], end_point["rotation"])  # type: ignore[arg-type]
            ep_in_inter = inter.inverse() @ ep_frame
        to_child = ep_in_inter.inverse()
        joint_spec: dict[str, object] = {
            "kind": "hinge", "pending": slots[1], "kinematic": kinematic,
            # Axis 2 turns with axis 1: the file's axis2 is its direction at position 0 of axis 1, which is its
            # direction in the intermediate body (that body is the parent's frame turned by axis 1's position).
            "axis": to_child.rot @ axis2,
            "pos": to_child.apply(np.zeros(3)), "params": values2, "params_node": params2, "parent_spec": body}
        carrier = _Body(body, name, True, name, parent.robot, kinematic=kinematic)
        if closing:
            self._closing_body(node, end_point, carrier, parent, ep_in_inter, ("joint", joint_spec), slots)
            return
        end_slot = self._solid(end_point, carrier, ep_in_inter, ("joint", joint_spec))
        slots[0].end_point = slots[1].end_point = end_slot
        # The endPoint's Webots parent is the joint's parent (the intermediate body has no geoms); ODE never
        # collides two bodies linked by a joint, while MuJoCo only skips a body's contacts with its direct parent.
        self.parent_of[end_slot.body_name] = parent.name
        if not parent.is_world:
            self._joint_excludes.append((parent.name, end_slot.body_name))

    # -- closed loops (compile/loops.py) ---------------------------------------------------------------
    def _loop_can_close(self, node: WbNode, reference: WbNode, parent: _Body) -> bool:
        """Whether a joint's SolidReference closes a loop; else a located warning (the world still loads, as in
        Webots) and the joint stays detached."""
        resolution = resolve_reference(reference)
        problem = resolution.problem
        if not problem and parent.kinematic:
            problem = ("A joint closing a loop (SolidReference endPoint) cannot sit on a Solid without Physics moved "
                       "by a joint; the loop stays open.")
        if problem:
            self.warnings.append(WorldWarning(problem, reference.location_of("solidName"),
                                              f"{reference.path} > solidName"))
            return False
        self._loop_targets[id(reference)] = resolution.target
        return True

    def _closing_body(self, node: WbNode, reference: WbNode, carrier: _Body, parent: _Body, frame: Frame,
                      joint: tuple[str, dict], slots: list[JointSlot]) -> None:
        """The auxiliary body of a closing joint: negligible mass, no geoms, at ``frame`` in ``carrier``; it
        carries the joint's last MuJoCo joint and is welded to the referenced Solid once every body exists."""
        name = self._name("loop")
        self.body_paths[name] = node.path
        self.parent_of[name] = carrier.name
        body = carrier.spec.add_body(name=name, pos=frame.pos.tolist(), quat=frame.quat.tolist())
        body.explicitinertial = True
        body.mass = AUX_MASS
        body.fullinertia = [AUX_MASS] * 3 + [0.0] * 3
        self._add_joint_to_body(body, joint)
        self._closures.append(LoopClosure(node, self._loop_targets.pop(id(reference)), name, body,
                                          "world" if parent.is_world else parent.name, slots))

    def _close_loops(self) -> None:
        """Weld each closing joint's auxiliary body to its referenced Solid (or to the world), and keep the
        contacts between the two Solids the joint links off (ODE never collides two bodies linked by a joint)."""
        slots = {slot.node: slot for slot in self.solids}
        for closure in self._closures:
            if closure.target is None:
                target_body, target_name, target_slot = self.spec.worldbody, "world", None
            else:
                target_slot = slots.get(closure.target)
                if target_slot is None:  # the Solid was dropped (an error or warning says why)
                    self.warnings.append(WorldWarning(
                        f"SolidReference '{closure.target['name']}': the referenced Solid is not simulated, so the "
                        "loop stays open.", closure.joint.location, closure.joint.path))
                    continue
                target_body, target_name = target_slot.body_spec, target_slot.body_name
            add_loop_weld(self.spec, closure, target_body, self._name(WELD_PREFIX), self.dt_s)
            for slot in closure.slots:
                slot.end_point = target_slot
            if "world" not in (closure.upper_body, target_name) and closure.upper_body != target_name:
                self._joint_excludes.append((closure.upper_body, target_name))

    def _kinematic_end_point_allowed(self, end_point: WbNode) -> bool:
        """Whether an endPoint without Physics can ride a parent with Physics (else a located error).

        Its joint becomes a kinematic one on the parent's body (a negligible mass, a huge armature, moved by its
        motor as Webots moves it), which leaves the parent's dynamics unchanged. Webots then ignores the
        collisions of the moving parts; wbsim cannot reproduce that, so a boundingObject in that moving part
        (outside Solids with their own Physics) stays an error.
        """
        pending = [end_point]
        while pending:
            node = pending.pop()
            if node.is_a("solid") and node is not end_point and isinstance(node["physics"], WbNode):
                continue
            if node.is_a("solid") and isinstance(node["boundingObject"], WbNode):
                self._error("A joint endPoint without Physics under a Solid with Physics cannot have a "
                            "boundingObject in wbsim (Webots makes it kinematic and ignores its collisions); "
                            "give it a Physics node or remove the boundingObject.", node)
                return False
            pending.extend(child for _, _, child in node.child_nodes())
        return True

    @staticmethod
    def _ball_has_stops(node: WbNode) -> bool:
        """Whether a BallJoint has stops on one of its axes (Webots places them where minStop != maxStop)."""
        params = (node["jointParameters"], node["jointParameters2"], node["jointParameters3"])
        return any(isinstance(p, WbNode) and float(p["minStop"]) != float(p["maxStop"]) for p in params)  # type: ignore[arg-type]

    @staticmethod
    def _ball_axes(node: WbNode) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A BallJoint's three axes in the joint's frame, as Webots derives them (``WbBallJoint::axis*``).

        Axis 1 is ``jointParameters2``'s axis, axis 3 ``jointParameters3``'s (defaults x and z; when only one
        is given, the other is made perpendicular to it), axis 2 is ``axis3 x axis1``.
        """
        p2, p3 = node["jointParameters2"], node["jointParameters3"]
        x, z = np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])

        def crossed(a: np.ndarray, first: np.ndarray, other: np.ndarray) -> np.ndarray:
            c = np.cross(a, first)
            return np.cross(a, other) if not c.any() else c

        a2 = np.asarray(p2["axis"], dtype=float) if isinstance(p2, WbNode) else None
        a3 = np.asarray(p3["axis"], dtype=float) if isinstance(p3, WbNode) else None
        axis1 = a2 if a2 is not None else (x if a3 is None else crossed(a3, z, x))
        axis3 = a3 if a3 is not None else (z if a2 is None else crossed(a2, x, z))
        return axis1, np.cross(axis3, axis1), axis3

    def _ball_joint_hinges(self, node: WbNode, parent: _Body, frame: Frame) -> None:
        """A BallJoint with devices or stops: three MuJoCo hinges through the anchor, as Webots' Euler angular motor.

        Webots controls a BallJoint with an ODE angular motor in Euler mode: the endPoint's rotation is
        ``R(axis, position) R(axis2, position2) R(axis3, position3) R0`` (``computeEndPointSolidPositionFromParameters``),
        i.e. a chain of three hinges, each axis carried by the previous ones. Two intermediate bodies of
        negligible mass at the anchor carry hinges 1 and 2; hinge 3 is the endPoint's. Each axis is a joint slot
        (``axis_index`` 1..3) for the devices of ``device``, ``device2`` and ``device3``. Axis 1 takes
        ``jointParameters`` (the BallJointParameters) for its position, spring, damper, stops and friction,
        axes 2 and 3 ``jointParameters2`` / ``jointParameters3``; without those, axes 2 and 3 take the first
        one's spring and damper (Webots' homogeneous case); stops are Euler-angle stops, as Webots places them on
        that motor. Like Webots' Euler motor, the middle axis is singular at +-pi/2 (gimbal lock): Webots limits
        its motor to that range. A BallJoint with neither devices nor stops stays a MuJoCo ball joint (no
        singularity; its springs act on the rotation angle).
        """
        params = (node["jointParameters"], node["jointParameters2"], node["jointParameters3"])
        values = [self._param_values(node, p, axis_index=i + 1) for i, p in enumerate(params)]
        if isinstance(params[0], WbNode):  # the homogeneous spring and damper of WbBallJoint
            for i in (1, 2):
                if not isinstance(params[i], WbNode):
                    values[i]["springConstant"] = values[0].get("springConstant", 0.0)
                    values[i]["dampingConstant"] = values[0].get("dampingConstant", 0.0)
        axes = [np.asarray(a, dtype=float) for a in self._ball_axes(node)]
        if not np.cross(axes[0], axes[2]).any() or not axes[1].any():
            self.warnings.append(WorldWarning("Axes are aligned: using x and z axes instead.", node.location,
                                              node.path))
            axes = [np.array([1.0, 0.0, 0.0]), np.array([0.0, -1.0, 0.0]), np.array([0.0, 0.0, 1.0])]
        axes = [frame.rot @ (a / np.linalg.norm(a)) for a in axes]
        slots: list[JointSlot] = []
        for index, vals in enumerate(values, start=1):
            slot = JointSlot(node, "hinge", float(vals["position"]),  # type: ignore[arg-type]
                             static_friction=float(vals.get("staticFriction", 0.0)), axis_index=index)  # type: ignore[arg-type]
            self.joints.append(slot)
            slots.append(slot)
        # Webots lists the devices of axis 1, then those of axis 2, then axis 3.
        for field_name, slot in zip(("device", "device2", "device3"), slots):
            for device in node[field_name]:  # type: ignore[union-attr]
                if field_name == "device2" and device.type_name == "RotationalMotor":
                    self._warn_ball_middle_motor_limits(device)
                device_kind = kinds_by_node_type().get(device.type_name)
                if device_kind is not None and device_kind.placement == "joint":
                    self._add_device(device_kind, device, slot, parent.robot)
        end_point = node["endPoint"]
        if not isinstance(end_point, WbNode):
            self.warnings.append(WorldWarning("BallJoint without endPoint: nothing moves.", node.location, node.path))
            return
        closing = end_point.is_a("solid_reference")
        if closing and not self._loop_can_close(node, end_point, parent):
            return
        kinematic = not closing and not isinstance(end_point["physics"], WbNode)
        if kinematic and parent.has_physics and not self._kinematic_end_point_allowed(end_point):
            return
        anchor = np.asarray(values[0].get("anchor", (0.0, 0.0, 0.0)), dtype=float)
        carrier_spec, carrier_frame, carrier = parent.spec, Frame(frame.apply(anchor), np.eye(3)), parent
        for i in (0, 1):
            # Intermediate body i: at the anchor (the previous one's origin), turned by position i about axis i.
            turn = quat_to_matrix(quat_from_axis_angle((*axes[i], slots[i].initial_position)))
            local = Frame(carrier_frame.pos if i == 0 else np.zeros(3), turn)
            name = self._name("bj_")
            self.body_paths[name] = node.path
            self.parent_of[name] = carrier.name
            body = carrier_spec.add_body(name=name, pos=local.pos.tolist(), quat=local.quat.tolist())
            self.body_specs[name] = body
            body.explicitinertial = True
            body.mass = _TINY_MASS
            body.fullinertia = [_TINY_MASS] * 3 + [0.0] * 3
            slots[i].kinematic = kinematic
            # In the intermediate body, axis i keeps its direction (the body is turned about it); the later
            # axes are given at position 0 of the earlier ones, i.e. in this body's frame.
            self._add_joint_to_body(body, ("joint", {
                "kind": "hinge", "pending": slots[i], "kinematic": kinematic, "axis": axes[i], "pos": np.zeros(3),
                "params": values[i], "params_node": params[i], "parent_spec": carrier_spec}))
            carrier_frame = carrier_frame @ local if i == 1 else local
            carrier_spec = body
            carrier = _Body(body, name, True, name, parent.robot, kinematic=kinematic)
        slots[2].kinematic = kinematic
        if closing:  # the closing body sits at the anchor, turned as the second intermediate body
            ep_in_carrier = Frame.identity()
        else:
            ep_frame = frame @ Frame.from_webots(end_point["translation"], end_point["rotation"])  # type: ignore[arg-type]
            ep_in_carrier = carrier_frame.inverse() @ ep_frame
        to_child = ep_in_carrier.inverse()
        joint_spec: dict[str, object] = {
            "kind": "hinge", "pending": slots[2], "kinematic": kinematic, "axis": to_child.rot @ axes[2],
            "pos": to_child.apply(np.zeros(3)), "params": values[2], "params_node": params[2],
            "parent_spec": carrier_spec}
        if closing:
            self._closing_body(node, end_point, carrier, parent, ep_in_carrier, ("joint", joint_spec), slots)
            return
        end_slot = self._solid(end_point, carrier, ep_in_carrier, ("joint", joint_spec))
        for slot in slots:
            slot.end_point = end_slot
        # The endPoint's Webots parent is the joint's parent (the intermediate bodies have no geoms).
        self.parent_of[end_slot.body_name] = parent.name
        if not parent.is_world:
            self._joint_excludes.append((parent.name, end_slot.body_name))

    def _warn_ball_middle_motor_limits(self, motor: WbNode) -> None:
        """Webots' warnings for a BallJoint's second-axis motor limits beyond +-pi/2 (the motor bank clamps them,
        and gives unlimited ones that range, as ``WbBallJoint::checkMotorLimit``)."""
        lo, hi = float(motor["minPosition"]), float(motor["maxPosition"])  # type: ignore[arg-type]
        if lo == 0.0 and hi == 0.0:
            return
        if lo < -math.pi / 2:
            self.warnings.append(WorldWarning("The lower limit of the motor associated to the second axis shouldn't "
                                              "be smaller than -pi/2.", motor.location_of("minPosition"), motor.path))
        if hi > math.pi / 2:
            self.warnings.append(WorldWarning("The upper limit of the motor associated to the second axis shouldn't "
                                              "be greater than pi/2.", motor.location_of("maxPosition"), motor.path))

    def _suspension(self, body: mujoco.MjsBody, inter: Frame, frame: Frame, values: dict[str, object],
                    params: object, deprecated: bool, spring: float, damper: float) -> None:
        """The Hinge2Joint suspension: a slide of the intermediate body along the suspension axis (in the
        parent's frame, as ODE's hinge-2 keeps it in body 1), a linear spring and damper with Webots' constants
        (Webots turns them into ODE's suspension ERP/CFM, the same spring-damper)."""
        # The deprecated Hinge2JointParameters has no suspensionAxis: Webots uses its axis.
        axis = np.asarray(values["axis" if deprecated else "suspensionAxis"], dtype=float)
        norm = float(np.linalg.norm(axis))
        if norm == 0.0:
            assert isinstance(params, WbNode)
            self.warnings.append(WorldWarning("'SuspensionAxis' must be non zero.", params.location_of("suspensionAxis"),
                                              f"{params.path} > suspensionAxis"))
            axis, norm = np.array([1.0, 0.0, 0.0]), 1.0
        local = inter.rot.T @ (frame.rot @ (axis / norm))
        slide = body.add_joint(name=self._name("susp"), type=mujoco.mjtJoint.mjJNT_SLIDE, pos=[0.0, 0.0, 0.0],
                               axis=local.tolist())
        slide.stiffness = [spring, 0.0, 0.0]
        slide.damping = [damper, 0.0, 0.0]

    def _unattached_end_point(self, node: WbNode, end_point: WbNode, parent: _Body, frame: Frame) -> None:
        """A Hinge2Joint whose parent has no body (Webots' ``WbHinge2Joint::setJoint`` fails): Webots warns and
        creates no joint, so the endPoint is a free body of its own; its devices stay unbound (no joint)."""
        self.warnings.append(WorldWarning("Hinge2Joint nodes can only connect Solid nodes that have a Physics node "
                                          "(the endPoint is left unattached, as in Webots).", node.location, node.path))
        assert parent.world_frame is not None  # a static body's world pose is known
        ep_frame = frame @ Frame.from_webots(end_point["translation"], end_point["rotation"])  # type: ignore[arg-type]
        world = _Body(self._world_spec, "world", False, "", parent.robot, is_world=True,
                      world_frame=Frame.identity())
        self._solid(end_point, world, parent.world_frame @ ep_frame, None)

    @staticmethod
    def _world_rotation(body: mujoco.MjsBody) -> np.ndarray:
        """The world rotation of a MuJoCo body being built, at the load pose (its chain of ``quat``)."""
        rotation = np.eye(3)
        while body is not None and body.name != "world":
            rotation = quat_to_matrix(np.asarray(body.quat, dtype=float)) @ rotation
            body = body.parent
        return rotation

    @staticmethod
    def _upper_solid_has_physics(node: WbNode) -> bool:
        """True if the nearest Solid above ``node`` has a Physics node (Webots' ``upperSolid()->bodyMerger()``)."""
        above = node.parent
        while above is not None and not above.is_a("solid"):
            above = above.parent
        return above is not None and isinstance(above["physics"], WbNode)

    def _param_values(self, joint: WbNode, params: object, axis_index: int = 1) -> dict[str, object]:
        if isinstance(params, WbNode):
            return dict(params.fields)
        schema_name = {"HingeJoint": "HingeJointParameters", "SliderJoint": "JointParameters",
                       "BallJoint": "BallJointParameters", "Hinge2Joint": "HingeJointParameters"}[joint.type_name]
        if axis_index > 1:
            schema_name = "JointParameters"  # a Hinge2Joint's second axis, a BallJoint's second and third
        values = {name: spec.default for name, spec in builtin_schemas()[schema_name].fields.items()}
        # Without jointParameters, Webots keeps the joint position in the joint's hidden 'position' field.
        hidden = "position" if axis_index == 1 else f"position{axis_index}"
        values["position"] = float(joint.get(hidden, 0.0))  # type: ignore[arg-type]
        return values

    def _add_joint_to_body(self, body: mujoco.MjsBody, joint: tuple[str, dict]) -> None:
        spec = joint[1]
        pending: JointSlot = spec["pending"]
        params: dict[str, object] = spec["params"]
        kind = spec["kind"]
        name = self._name("j")
        pending.joint_name = name
        mj_type = {"hinge": mujoco.mjtJoint.mjJNT_HINGE, "slider": mujoco.mjtJoint.mjJNT_SLIDE,
                   "ball": mujoco.mjtJoint.mjJNT_BALL}[kind]
        j = body.add_joint(name=name, type=mj_type, pos=np.asarray(spec["pos"]).tolist())
        if kind != "ball":
            j.axis = np.asarray(spec["axis"]).tolist()
            j.ref = pending.initial_position
            j.springref = 0.0  # Webots' spring rests at the joint's zero position
        # MuJoCo 4 stiffness and damping are polynomial coefficients; Webots' are the linear terms.
        j.stiffness = [float(params.get("springConstant", 0.0)), 0.0, 0.0]  # type: ignore[arg-type]
        j.damping = [float(params.get("dampingConstant", 0.0)), 0.0, 0.0]  # type: ignore[arg-type]
        lo, hi = float(params.get("minStop", 0.0)), float(params.get("maxStop", 0.0))  # type: ignore[arg-type]
        # Webots places stops only when minStop != maxStop (so both 0, the default, means none).
        if kind != "ball" and lo != hi:
            self._warn_position_outside_stops(spec, pending, lo, hi)
            if lo < hi and not spec["kinematic"]:  # Webots moves a kinematic joint by its motor, past any stop
                j.limited = mujoco.mjtLimited.mjLIMITED_TRUE
                j.range = [lo, hi]
                j.solref_limit = self._stop_solref()
                j.solimp_limit = list(_STOP_SOLIMP)
            elif lo > hi:  # ODE ignores both stops when the low one is above the high one, and so does Webots
                where = spec["params_node"] if isinstance(spec["params_node"], WbNode) else pending.node
                self.warnings.append(WorldWarning(
                    f"'minStop' ({lo:g}) is greater than 'maxStop' ({hi:g}): the stops have no effect, as in Webots.",
                    where.location_of("minStop"), where.path))
        if spec["kinematic"]:
            self._kinematic_joints.append(name)
        j.frictionloss = pending.static_friction  # a motor on the joint takes it over (see its compiler)
        if pending.static_friction > 0.0:
            # ODE holds the joint with a velocity constraint bounded by the friction: a near-hard friction loss
            # (MuJoCo's default one is soft and lets the joint creep under a smaller load), as the motor's.
            j.solref_friction = [2.0 * self.dt_s, 1.0]
            j.solimp_friction = list(_FRICTION_SOLIMP)
        pending.joint_spec = j
        pending.parent_body = spec["parent_spec"]

    def _stop_solref(self) -> list[float]:
        """MuJoCo's direct ``(-stiffness, -damping)`` reference of a joint stop, ODE's limit row in MuJoCo terms.

        ODE's row (one step of ``basicTimeStep`` h_b) removes the approaching velocity at once and corrects the
        remaining violation by the fraction ``ERP`` per step: with a near-hard impedance that is a damping of
        ``1 / h`` (h: MuJoCo's step; the velocity gone within one step) and a stiffness of ``ERP / (h h_b)``
        (a violation ``x`` is corrected at ``ERP x / h_b``, ODE's speed, whatever the link's mass).
        """
        erp = max(0.0, float(self.world.world_info["ERP"]))  # type: ignore[arg-type]
        return [-erp / (self.dt_s * self.basic_ms / 1000.0), -1.0 / self.dt_s]

    def _warn_position_outside_stops(self, spec: dict, pending: JointSlot, lo: float, hi: float) -> None:
        """Webots' load warnings for an initial position outside the stops (``WbJointParameters``)."""
        params_node = spec["params_node"]
        if not isinstance(params_node, WbNode):
            return  # no parameters node: no stops to compare with
        position = pending.initial_position
        if position < lo:
            self.warnings.append(WorldWarning("'minStop' must be less than or equal to 'position'.",
                                              params_node.location_of("minStop"), params_node.path))
        if position > hi:
            self.warnings.append(WorldWarning("'maxStop' must be greater than or equal to 'position'.",
                                              params_node.location_of("maxStop"), params_node.path))

    def located_mujoco_error(self, message: str) -> CompileError:
        """A MuJoCo compile error placed at the world node that made the element it names (``b3``, ``g2``, ...)."""
        text = " ".join(line.strip() for line in message.replace("Error:", "").splitlines() if line.strip())
        match = _ELEMENT_NAME.search(message)
        element = match.group(1) if match else ""
        node: WbNode | None = None
        if element:
            by_name: dict[str, WbNode] = {j.joint_name: j.node for j in self.joints if j.joint_name}
            for slot in self.solids:
                for name in (slot.body_name, slot.site_name, slot.free_joint):
                    if name:
                        by_name.setdefault(name, slot.node)
            for name, description in self._geom_descriptions.items():
                by_name[name] = description.node
            node = by_name.get(element)
        if node is None:
            return CompileError(f"MuJoCo rejected the compiled model: {text}", None, "")
        text = _ELEMENT_NAME.sub("", text).replace(", id", "").strip(" ,")
        text = re.sub(r"\s+\d+$", "", text)
        return CompileError(f"MuJoCo rejected the element made from this node: {text}", node.location, node.path)

    def _joint_devices(self, node: WbNode, slot: JointSlot, robot: _Robot | None, kind: str) -> None:
        for field_name in ("device",) if kind != "ball" else ():  # a BallJoint with devices: _ball_joint_hinges
            for device in node[field_name]:  # type: ignore[union-attr]
                device_kind = kinds_by_node_type().get(device.type_name)
                if device_kind is None or device_kind.placement != "joint":
                    continue  # the checker only lets joint devices in; unsupported ones are dropped there
                self._add_device(device_kind, device, slot, robot)

    # -- contacts -----------------------------------------------------------------------------------
    def switches_contacts(self) -> bool:
        """Some geom or explicit pair has a resting solref of its own (the compiled model's
        :class:`BounceTable` will be active)."""
        return (any(params.rest_solref is not None for _, params in self.geom_contacts)
                or any(params.rest_solref is not None for _, _, params in self.pair_contacts))

    def contacts(self) -> None:
        """Exclusions for same-robot pairs without selfCollision and for pairs of Solids Webots gives no body
        (static or kinematic, see :meth:`_kinematic_exclusions`), and explicit pairs for material pairs."""
        excluded: set[frozenset[str]] = set()
        for robot in self.robots:
            if robot.outermost is not robot or bool(robot.node["selfCollision"]):
                continue
            bodies = robot.bodies
            for i, a in enumerate(bodies):
                for b in bodies[i + 1 :]:
                    self.spec.add_exclude(bodyname1=a, bodyname2=b)
                    excluded.add(frozenset((a, b)))
        for a, b in self._joint_excludes:
            if frozenset((a, b)) not in excluded:
                self.spec.add_exclude(bodyname1=a, bodyname2=b)
                excluded.add(frozenset((a, b)))
        self._kinematic_exclusions(excluded)
        self._material_pairs()

    def _material_pairs(self) -> None:
        """Explicit MuJoCo pairs for the material pairs whose per-geom parameters MuJoCo would mix into
        something other than Webots' surface (:class:`MaterialPlan`), linear in the number of robots.

        Pairs are made where one side has no Physics body (static or kinematic: the environment, whose geoms
        do not multiply with robots) and between geoms of one top-level object (a robot's self-collisions);
        between the geoms of two different moving objects MuJoCo's per-geom mix applies (docs/differences.md).
        """
        plan = self.contact_plan
        by_material: dict[str, list[tuple[str, SolidSlot]]] = {}
        for slot in self.solids:
            for g, m in slot.geoms:
                by_material.setdefault(m, []).append((g, slot))
        materials = sorted(by_material)
        todo = [(a, b) for i, a in enumerate(materials) for b in materials[i:] if plan.needs_pairs(a, b)]
        if not todo:
            return
        # Static and kinematic Solids have no ODE body in Webots: two of them never touch.
        static = {s.body_name for s in self.solids if not s.dynamic} | self._kinematic_bodies
        weld = {s.body_name: (s.owner or "world") for s in self.solids}
        robot_of: dict[str, _Robot | None] = {}
        for slot in self.solids:
            robot = self.robot_of_slot[id(slot)]
            robot_of[slot.body_name] = robot.outermost if robot is not None else None
        root: dict[str, str] = {}

        def root_of(body: str) -> str:
            chain = []
            while body not in root:
                parent = self.parent_of.get(body)
                if parent is None or parent == "world":
                    root[body] = body
                    break
                chain.append(body)
                body = parent
            for b in chain:
                root[b] = root[body]
            return root[body]

        seen: set[tuple[str, str]] = set()
        for ma, mb in todo:
            params = plan.surface(ma, mb)
            side_a, side_b = by_material[ma], by_material[mb]
            candidates: list[tuple[tuple[str, SolidSlot], tuple[str, SolidSlot]]] = []
            for first, second in ((side_a, side_b), (side_b, side_a)):
                for ga in first:
                    if ga[1].body_name in static:
                        candidates.extend((ga, gb) for gb in second)
            groups: dict[str, tuple[list[tuple[str, SolidSlot]], list[tuple[str, SolidSlot]]]] = {}
            for index, side in enumerate((side_a, side_b)):
                for g in side:
                    if g[1].body_name not in static:
                        groups.setdefault(root_of(g[1].body_name), ([], []))[index].append(g)
            for ga_list, gb_list in groups.values():
                candidates.extend((ga, gb) for ga in ga_list for gb in gb_list)
            for (ga, sa), (gb, sb) in candidates:
                key = (ga, gb) if ga < gb else (gb, ga)
                if ga == gb or key in seen:
                    continue
                if sa.body_name in static and sb.body_name in static:
                    continue
                if weld[sa.body_name] == weld[sb.body_name]:
                    continue
                # Parent and child bodies do not touch; the world body (a frame-only Solid's at the top level)
                # is no Solid's parent here.
                if "world" not in (sa.body_name, sb.body_name) and (
                        self.parent_of.get(sa.body_name) == sb.body_name
                        or self.parent_of.get(sb.body_name) == sa.body_name):
                    continue
                ra, rb = robot_of[sa.body_name], robot_of[sb.body_name]
                if ra is not None and ra is rb and not bool(ra.node["selfCollision"]):
                    continue
                seen.add(key)
                pair = self.spec.add_pair(geomname1=key[0], geomname2=key[1])
                pair.condim = params.condim
                pair.friction = list(params.friction)
                pair.solref = list(params.solref)
                pair.solimp = list(params.solimp)
                self.pair_contacts.append((key[0], key[1], params))

    def _kinematic_exclusions(self, excluded: set[frozenset[str]]) -> None:
        """No contact between a kinematic body and a static or another kinematic body.

        Webots gives a Solid without Physics no ODE body, also when a joint moves it kinematically, and ODE
        makes no contact between two geoms without body: a kinematic link passes through static solids and
        other kinematic links, while it pushes bodies with Physics (through their contact with the static
        environment). In MuJoCo a kinematic body has a joint (of huge armature) and would be stopped by a
        static geom, whose soft contact scales with that armature. So, in worlds with kinematic links, the
        geoms of every body-less Solid (static or kinematic) get ``contype`` 0 and keep ``conaffinity`` 1:
        they meet the geoms of bodies with Physics (``contype`` 1) and never each other, at no cost per pair
        (the explicit material pairs skip body-less pairs too). Bumpers on either side see no contact then, as
        between two static Solids (see touch_sensor.md).
        """
        del excluded  # body-pair exclusions would grow with kinematic x static bodies; contype needs none
        if not self._kinematic_bodies & {s.body_name for s in self.solids if s.geoms}:
            return
        for slot in self.solids:
            if slot.geoms and (not slot.dynamic or slot.body_name in self._kinematic_bodies):
                for geom, _ in slot.geoms:
                    self.geom_specs[geom].contype = 0

    # -- finish ---------------------------------------------------------------------------------------
    def finish(self, model: mujoco.MjModel) -> Bindings:
        """Resolve every binding in the compiled model, then tune it (armatures, damping)."""

        def bid(name: str) -> int:
            return mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name) if name else 0

        def jid(name: str) -> int:
            return mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name) if name else -1

        def gid(name: str) -> int:
            return mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, name)

        def sid(name: str) -> int:
            return mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, name) if name else -1

        solid_bindings: dict[int, SolidBinding] = {}
        for s in self.solids:
            robot = self.robot_of_slot[id(s)]
            solid_bindings[id(s)] = SolidBinding(
                node=s.node,
                body_id=bid(s.body_name),
                owner_body_id=bid(s.owner),
                dynamic=s.dynamic,
                owns_body=s.owns_body,
                free_joint_id=jid(s.free_joint),
                geom_ids=tuple(gid(g) for g, _ in s.geoms),
                robot_node=robot.outermost.node if robot and robot.outermost else None,
                site_id=sid(s.site_name),
                geom_nodes=tuple(self._geom_descriptions[g].node for g, _ in s.geoms),
            )
        joint_bindings: dict[int, JointBinding] = {}
        for j in self.joints:
            joint_id = jid(j.joint_name)
            joint_bindings[id(j)] = JointBinding(
                node=j.node,
                kind=j.kind,
                joint_id=joint_id,
                qpos_adr=int(model.jnt_qposadr[joint_id]) if joint_id >= 0 else -1,
                dof_adr=int(model.jnt_dofadr[joint_id]) if joint_id >= 0 else -1,
                end_point=solid_bindings[id(j.end_point)] if j.end_point is not None else None,
                kinematic=j.kinematic,
                initial_position=j.initial_position,
                axis_index=j.axis_index,
            )
        self.context.set_bindings(joint_bindings, solid_bindings)
        devices: dict[str, tuple[object, ...]] = {}
        rows: dict[WbNode, tuple[str, int]] = {}
        for kind in self.kinds:
            devices[kind.name] = self.compilers[kind.name].bindings(self.context, model)
            for row, binding in enumerate(devices[kind.name]):
                rows[binding.node] = (kind.name, row)  # type: ignore[attr-defined]
        robots = []
        # By node, not by body name: a frame-only Solid shares its enclosing body's (possibly its Robot's) name.
        solid_by_node = {s.node: solid_bindings[id(s)] for s in self.solids}
        for robot in self.robots:
            refs = tuple(RobotDevice(*rows[node], node) for _, node in robot.devices)
            robots.append(RobotBinding(robot.node, solid_by_node[robot.node], refs))
        self._size_armatures(model)
        # Webots damping: velocity actuators at each damped body's centre of mass (compile/damping.py).
        allow_sleep_of_damped_trees(model, self.damping_actuators)
        return Bindings(
            solids=tuple(solid_bindings.values()),
            joints=tuple(joint_bindings.values()),
            robots=tuple(robots),
            devices=devices,
        )

    def _size_armatures(self, model: mujoco.MjModel) -> None:
        """Armatures relative to the compiled inertias (known only after compilation), then refresh constants.

        Kinematic joints get an armature far above the typical inertia of the world's own degrees of
        freedom (free and Webots joints, not devices' auxiliary ones); device compilers then tune theirs.
        """
        kinematic = {int(model.jnt_dofadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)])
                     for name in self._kinematic_joints}
        real: list[int] = [d for name in self._real_joints() for d in self._dofs(model, name) if d not in kinematic]
        typical = float(model.dof_M0[real].max()) if real else 1.0
        for dof in sorted(kinematic):
            model.dof_armature[dof] = _KINEMATIC_ARMATURE_RATIO * typical
        refresh = bool(kinematic)
        # A closing joint's degrees of freedom stand for the links of its loop (compile/loops.py): device compilers
        # size their elements against that inertia (mj_setConst below restores MuJoCo's own estimate).
        loop_dofs = closing_dofs(model)
        for dof, inertia in loop_dofs.items():
            model.dof_M0[dof] = inertia
        refresh = refresh or bool(loop_dofs)
        for compiler in self.compilers.values():
            refresh = compiler.tune(self.context, model) or refresh
        if refresh:
            mujoco.mj_setConst(model, mujoco.MjData(model))
        tie_loop_weights(model)

    def _real_joints(self) -> list[str]:
        names = [s.free_joint for s in self.solids if s.free_joint]
        return names + [j.joint_name for j in self.joints if j.joint_name]

    @staticmethod
    def _dofs(model: mujoco.MjModel, joint_name: str) -> range:
        joint = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, joint_name)
        count = {int(mujoco.mjtJoint.mjJNT_FREE): 6, int(mujoco.mjtJoint.mjJNT_BALL): 3}.get(int(model.jnt_type[joint]), 1)
        start = int(model.jnt_dofadr[joint])
        return range(start, start + count)


def _fresh_names() -> Callable[[str], str]:
    """A function returning a new MuJoCo element name for a prefix at each call: the prefix and a number
    counted from 1 over all prefixes (``b1``, ``g2``, ``b3``, ...)."""
    numbers = itertools.count(1)

    def fresh(prefix: str) -> str:
        return f"{prefix}{next(numbers)}"

    return fresh


def compile_world(world: WorldModel, options: CompileOptions | None = None) -> CompiledWorld:
    """Compile a checked world into a MuJoCo model and its binding table.

    Raises:
        WorldLoadError: listing every compile error, each located in the world file.
    """
    with paused_collection():  # see wbsim.collector: its passes over a growing load are superlinear
        return _compile_world(world, options)


def _compile_world(world: WorldModel, options: CompileOptions | None) -> CompiledWorld:
    """:func:`compile_world` with the collector paused."""
    builder = _Builder(world, options or CompileOptions())
    try:
        with raised_recursion_limit():  # the tree walk recurses once per nesting level, like the checker
            builder.build()
    except RecursionError:
        raise WorldLoadError([CompileError("The world is nested too deeply for wbsim to compile.")]) from None
    if not builder.errors:
        for compiler in builder.compilers.values():
            compiler.contribute(builder.context)
    if not builder.errors:
        builder.contacts()
        builder.damping_actuators = add_damping_actuators(builder.spec, builder.damping, builder.body_specs.__getitem__)
    if builder.errors:
        raise WorldLoadError(builder.errors)
    for compiler in builder.compilers.values():
        compiler.finish_spec(builder.context)
    builder.attach_groups()
    if builder.options.bounce_threshold and builder.switches_contacts():
        # Room for the bounce threshold's control callback to find its tables (sim/c_steps.py).
        builder.spec.nuserdata = max(builder.spec.nuserdata, BOUNCE_USERDATA_WORDS)
    model = _compile_spec(builder)
    bindings = builder.finish(model)
    return CompiledWorld(
        world=world,
        spec=builder.spec,
        model=model,
        bindings=bindings,
        basic_time_step_ms=builder.basic_ms,
        substeps=builder.substeps,
        warnings=tuple(builder.warnings),
        body_names=builder.body_paths,
        bounce=(BounceTable.build(model, builder.geom_contacts, builder.pair_contacts)
                if builder.options.bounce_threshold else None),
        surfaces=SurfaceTable.build(model, builder.geom_contacts, builder.pair_contacts),
    )


_ELEMENT_NAME = re.compile(r"Element name '([^']*)'")
_ARENA_BYTES_PER_BODY_PAIR = 8  # MuJoCo's collision and broadphase passes take ~4 bytes per body pair; doubled
_LARGE_WORLD_BODIES = 500  # from this many bodies on, the arena gets the body-pair term
_MEGABYTE = 1 << 20
_MJCONTACT_BYTES = 608  # sizeof(mjContact) in MuJoCo 4.0 (a test checks the estimate against MuJoCo's own)


def _counts(spec: mujoco.MjSpec) -> dict[str, int]:
    """Element counts of an uncompiled spec, named as the model's (``nq``, ``nv``, ``nbody``, ...); one pass
    over each element list."""
    nq = nv = 0
    for joint in spec.joints:
        kind = joint.type
        if kind == mujoco.mjtJoint.mjJNT_FREE:
            nq, nv = nq + 7, nv + 6
        elif kind == mujoco.mjtJoint.mjJNT_BALL:
            nq, nv = nq + 4, nv + 3
        else:
            nq, nv = nq + 1, nv + 1
    actuators = spec.actuators
    tendons = spec.tendons
    return {
        "nq": nq, "nv": nv, "nu": len(actuators),
        "na": sum(1 for a in actuators if a.dyntype != mujoco.mjtDyn.mjDYN_NONE or a.actdim > 0),
        "nbody": len(spec.bodies), "njnt": len(spec.joints), "ngeom": len(spec.geoms), "nsite": len(spec.sites),
        "neq": len(spec.equalities), "ntendon": len(tendons), "nwrap": sum(len(t.path) for t in tendons),
        "nflex": len(spec.flexes),
    }


def automatic_arena_bytes(counts: dict[str, int], njmax: int = -1, nconmax: int = -1) -> int:
    """The arena MuJoCo's compiler sizes for a model of these element counts when ``<size memory>`` is unset
    (MuJoCo 4.0's heuristic: dense solver matrices over the default 500 constraint rows plus the degrees of
    freedom, per-element scratch, and a default contact buffer; rounded up to whole MiB). Bytes."""
    njmax = 500 if njmax == -1 else njmax
    nconmax = 100 if nconmax == -1 else nconmax
    rows = njmax + counts["neq"] + counts["nv"]
    elements = sum(counts[k] for k in ("nq", "nv", "nu", "na", "nbody", "njnt", "ngeom", "nsite", "neq", "ntendon",
                                       "nwrap"))
    total = 8 * max(1000, 5 * rows * rows + 20 * elements)
    nv = counts["nv"]
    total += (nconmax * _MJCONTACT_BYTES + njmax * (8 * 4 + 14 * 8) + nv * 3 * 4 + njmax * nv * (2 * 4 + 2 * 8)
              + njmax * njmax * (4 + 8))
    return -(-total // _MEGABYTE) * _MEGABYTE


def _arena_for_bodies(automatic: int, nbody: int) -> int:
    """The arena for a world of ``nbody`` bodies (and flexes) whose automatic arena is ``automatic`` bytes: 0
    (MuJoCo's own) below the large-world threshold, else that plus room for the body-pair tables."""
    if nbody <= _LARGE_WORLD_BODIES:
        return 0
    return automatic + _ARENA_BYTES_PER_BODY_PAIR * nbody * nbody


def _compile_spec(builder: _Builder) -> mujoco.MjModel:
    """Compile the builder's spec, with MuJoCo's errors located at the node that made the element.

    MuJoCo sizes its arena (the per-step scratch memory) from contact and constraint estimates that do not
    grow with the number of bodies, while its collision passes take a table over body pairs: thousands of
    Solids would stop the first ``mj_forward`` with "out of memory". The arena is enlarged for them, sized
    from the spec's element counts before the one compilation (MuJoCo's compile costs bodies x degrees of
    freedom, so compiling twice to read the automatic size doubled the load time of large worlds); a world
    with flexes, whose automatic arena follows other rules, is still measured by a first compilation.
    """
    try:
        return compile_spec(builder.spec, builder.element_counts)
    except ValueError as error:
        raise WorldLoadError([builder.located_mujoco_error(str(error))]) from None


def compile_spec(spec: mujoco.MjSpec, counts: dict[str, int] | None = None) -> mujoco.MjModel:
    """Compile a builder's spec (``CompiledWorld.spec``, e.g. after editing it) as the builder does: the
    arena of a large world sized from the element counts unless ``spec.memory`` is set, MuJoCo's notice
    about the groups' empty attach prefix silenced. ``counts``: the spec's element counts if known
    (:func:`_counts` of a spec with attached groups takes time growing with the square of the tree).

    Raises:
        ValueError: MuJoCo's compile error.
    """
    with _quiet_empty_prefix():
        counts = counts if counts is not None else _counts(spec)
        if counts["nflex"]:
            model = spec.compile()
            needed = _arena_for_bodies(model.narena, model.nbody + model.nflex)
            if needed and spec.memory == -1:
                spec.memory = needed
                model = spec.compile()
            return model
        needed = _arena_for_bodies(automatic_arena_bytes(counts, spec.njmax, spec.nconmax), counts["nbody"])
        if needed and spec.memory == -1:
            spec.memory = needed
        return spec.compile()
