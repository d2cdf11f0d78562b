"""Compile DistanceSensor nodes: their frames, and what their rays can hit.

- **Frame.** A distance sensor is only a frame (its rays start at its origin along its +x axis): without
  Physics and without Solids below it, it is a site on the enclosing body (``BodyPlan.frame_only``);
  otherwise it keeps its own body and gets a site at its origin. The bank reads every sensor's pose
  from ``site_xpos`` / ``site_xmat``.
- **Targets.** Rays hit the collision geoms of every Solid's boundingObject (:class:`RayTargets`, one
  table for the world, shared by every binding), each with the innermost Robot of its Solid (Webots'
  ``WbSolid::robot()``): ODE rays ignore the geoms of their own robot unless the robot has
  ``selfCollision`` (``WbSimulationCluster::odeNearCallback``).
- **Surfaces.** Webots' infra-red sensors ray-trace the visual Shapes and read their colour; wbsim has
  only the collision geoms, so each geom takes the colour of the visual Shape of its Solid whose
  geometry is the same (same type and fields, as ``USE`` gives), else of its own boundingObject Shape,
  else Webots' default white (reflection factor 1). A geom is *transparent* (laser rays ignore it) when its
  boundingObject Shape has a transparency of 1 (``WbShape``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco

from wbsim.compile.context import CompileContext
from wbsim.compile.geometry import bounding_geoms
from wbsim.compile.slots import BodyRequest, DeviceSlot, SolidSlot
from wbsim.devices.distance_sensor.caster import RayTargets
from wbsim.devices.distance_sensor.schema import LASER, SONAR, TYPE_NAMES, type_code
from wbsim.devices.kind import BodyPlan, DeviceCompiler
from wbsim.devices.lookup_table import lookup_warnings
from wbsim.devices.site_device import mark_site
from wbsim.world.model import WbNode

__all__ = ["DistanceSensorBinding", "DistanceSensorCompiler", "surface_of", "infra_red_factor"]


@dataclass(frozen=True, slots=True)
class DistanceSensorBinding:
    """A DistanceSensor, where its rays start and what they see.

    Attributes:
        node: the DistanceSensor node.
        site_id: the site at the sensor's origin (its frame: rays around +x).
        robot: the index of its innermost Robot in :attr:`RayTargets.robots` numbering (-1: none).
        self_collision: that Robot's ``selfCollision`` (its rays then see the robot itself).
        type: the type code (``GENERIC``, ``INFRA_RED``, ``SONAR``, ``LASER``).
        number_of_rays: ``numberOfRays`` after Webots' repairs (1 for a laser).
        lookup_table: the (input, output, noise) rows.
        targets: the world's ray targets (the same object for every binding).
    """

    node: WbNode
    site_id: int
    robot: int
    self_collision: bool
    type: int
    number_of_rays: int
    lookup_table: tuple[tuple[float, float, float], ...]
    targets: RayTargets


@dataclass(eq=False)
class _Sensor:
    node: WbNode
    slot: SolidSlot
    site: str
    type: int
    rays: int


def infra_red_factor(red: float, roughness: float, occlusion: float = 0.0) -> float:
    """Webots' infra-red reflection factor of a surface (``WbDistanceSensor::computeValue``)."""
    return 0.8 * red * (1.0 - 0.5 * roughness) * (1.0 - 0.5 * occlusion) + 0.2


def surface_of(appearance: object) -> tuple[float, float, bool]:
    """The red level, roughness and full transparency of a Shape's ``appearance`` as Webots' infra-red
    sensors read it (``WbShape::pickColor``, without textures: a texture counts as white).

    Returns:
        (red level in [0, 1], roughness, transparency == 1).
    """
    if not isinstance(appearance, WbNode):
        return 1.0, 0.0, False  # no appearance: Webots' default white
    if appearance.type_name == "PBRAppearance":
        transparency = float(appearance["transparency"])  # type: ignore[arg-type]
        red = float(appearance["baseColor"][0]) * (1.0 - transparency)  # type: ignore[index]
        return red, float(appearance["roughness"]), transparency == 1.0  # type: ignore[arg-type]
    material = appearance.get("material")
    if not isinstance(material, WbNode):
        return 1.0, 0.0, False
    transparency = float(material["transparency"])  # type: ignore[arg-type]
    textured = isinstance(appearance.get("texture"), WbNode)
    red = 1.0 if textured else float(material["diffuseColor"][0])  # type: ignore[index]
    return red * (1.0 - transparency), 0.0, transparency == 1.0


def _visual_shapes(solid: WbNode) -> list[WbNode]:
    """The Shapes of a Solid's own visual tree (through Pose/Transform/Group, not into other Solids)."""
    shapes: list[WbNode] = []
    stack = list(solid.get("children", ()))  # type: ignore[arg-type]
    while stack:
        node = stack.pop(0)
        if not isinstance(node, WbNode) or node.is_a("solid"):
            continue
        if node.type_name == "Shape":
            shapes.append(node)
        elif node.is_a("group"):
            stack[:0] = list(node.get("children", ()))  # type: ignore[arg-type]
    return shapes


def _same_geometry(a: object, b: object) -> bool:
    return isinstance(a, WbNode) and isinstance(b, WbNode) and a.type_name == b.type_name and a.fields == b.fields


def _geom_surface(solid: WbNode, geometry: WbNode | None) -> tuple[float, bool, tuple[float, float]]:
    """(infra-red factor, transparent, plane half sizes) of one collision geom of ``solid``."""
    half = (math.inf, math.inf)
    if geometry is None:
        return 1.0, False, half
    if geometry.type_name == "Plane":
        size = geometry["size"]
        half = (float(size[0]) / 2.0, float(size[1]) / 2.0)  # type: ignore[index]
    own_shape = geometry.parent if geometry.parent is not None and geometry.parent.type_name == "Shape" else None
    transparent = surface_of(own_shape["appearance"])[2] if own_shape is not None else False
    twin = next((s for s in _visual_shapes(solid) if _same_geometry(s["geometry"], geometry)), None)
    shape = twin if twin is not None else own_shape
    if shape is None:
        return 1.0, transparent, half
    red, roughness, _ = surface_of(shape["appearance"])
    return infra_red_factor(red, roughness), transparent, half


def _geometry_nodes(slot: SolidSlot, geom_ids: tuple[int, ...], binding: object) -> list[WbNode | None]:
    """The Webots geometry node of each collision geom of a Solid (None where it cannot be told)."""
    known = getattr(binding, "geom_nodes", ())
    if len(known) == len(geom_ids):
        return list(known)
    described = bounding_geoms(slot.node["boundingObject"], [])  # type: ignore[arg-type]
    if len(described) != len(geom_ids):  # the builder skips planes that move with their Solid
        described = [d for d in described if d.kind != "plane"]
    if len(described) != len(geom_ids):
        return [None] * len(geom_ids)
    return [d.node for d in described]


def ray_targets(ctx: CompileContext) -> tuple[RayTargets, dict[int, int]]:
    """Every collision geom of the world as a ray target, and the index given to each Robot node (by id)."""
    robots: dict[int, int] = {}
    geoms: list[int] = []
    owners: list[int] = []
    transparent: list[bool] = []
    factors: list[float] = []
    halves: list[tuple[float, float]] = []
    for slot in ctx.solids:
        robot = slot.robot_node
        owner = robots.setdefault(id(robot), len(robots)) if robot is not None else -1
        binding = ctx.solid_binding(slot)
        ids = tuple(int(g) for g in binding.geom_ids)
        for geom, node in zip(ids, _geometry_nodes(slot, ids, binding)):
            if geom < 0:
                continue
            factor, clear, half = _geom_surface(slot.node, node)
            geoms.append(geom)
            owners.append(owner)
            transparent.append(clear)
            factors.append(factor)
            halves.append(half)
    return RayTargets(tuple(geoms), tuple(owners), tuple(transparent), tuple(factors), tuple(halves)), robots


class DistanceSensorCompiler(DeviceCompiler):
    """Claims DistanceSensor nodes, marks their frames, and lists what their rays can hit."""

    def __init__(self) -> None:
        self._sensors: list[_Sensor] = []

    def plan_body(self, node: WbNode, request: BodyRequest) -> BodyPlan:
        """A distance sensor needs only its frame (a site) unless it has Physics or Solids below it."""
        return BodyPlan(frame_only=True, allow_no_physics_in_dynamic_parent=True)

    def add(self, ctx: CompileContext, node: WbNode, slot: DeviceSlot) -> bool:
        """Claim a DistanceSensor, with Webots' load-time warnings (unsorted table, laser with several rays)."""
        assert isinstance(slot, SolidSlot)
        value = str(node["type"])
        code = type_code(value)
        if code == SONAR and value.casefold() != "sonar":
            ctx.warn(f"Unknown 'type' \"{value}\": Webots simulates it as a \"sonar\" sensor (the valid types are "
                     f"{', '.join(repr(t) for t in TYPE_NAMES)}).", node, "type")
        rays = int(node["numberOfRays"])  # type: ignore[arg-type]
        if code == LASER and rays > 1:
            ctx.warn("'type' \"laser\" must have one single ray.", node, "numberOfRays")
            rays = 1
        for message in lookup_warnings(node["lookupTable"]):  # type: ignore[arg-type]
            ctx.warn(message, node, "lookupTable")
        self._sensors.append(_Sensor(node, slot, mark_site(ctx, slot, "dss"), code, rays))
        return True

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[DistanceSensorBinding, ...]:
        """One :class:`DistanceSensorBinding` per DistanceSensor, in scene order."""
        if not self._sensors:
            return ()
        targets, robots = ray_targets(ctx)
        result = []
        for sensor in self._sensors:
            robot_node = sensor.slot.robot_node
            table = tuple(tuple(float(v) for v in row) for row in sensor.node["lookupTable"])  # type: ignore[union-attr]
            result.append(DistanceSensorBinding(
                node=sensor.node,
                site_id=ctx.element_id(model, mujoco.mjtObj.mjOBJ_SITE, sensor.site),
                robot=robots.get(id(robot_node), -1) if robot_node is not None else -1,
                self_collision=bool(robot_node["selfCollision"]) if robot_node is not None else False,
                type=sensor.type,
                number_of_rays=sensor.rays,
                lookup_table=table,  # type: ignore[arg-type]
                targets=targets,
            ))
        return tuple(result)
