"""Compile Lidar nodes: Webots' repairs and warnings, their frames, and what their rays leave out.

- **Frame.** A lidar is a frame (rays start at its origin): without Physics, boundingObject and Solids
  below it, it is a site on the enclosing body (``BodyPlan.frame_only``); otherwise it has a body of its
  own with a site at its origin.
- **Own shape.** Webots' depth camera sits inside the lidar's own shape and does not see it (back faces,
  ``near``); wbsim gives a lidar with a boundingObject its own MuJoCo body so that ``mj_multiRay``'s
  ``bodyexclude`` leaves exactly those geoms out. Everything else, the robot carrying the lidar included,
  is seen, as in Webots' rendering.
- **rotatingHead** is not built (its Solid has no MuJoCo body or geoms); the bank turns the scan instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco

from wbsim.compile.context import CompileContext
from wbsim.compile.slots import BodyRequest, DeviceSlot, SolidSlot
from wbsim.devices.kind import BodyPlan, DeviceCompiler
from wbsim.devices.lidar.schema import LidarSettings, repair
from wbsim.world.model import WbNode

__all__ = ["LidarBinding", "LidarCompiler", "settings_of"]


@dataclass(frozen=True, slots=True)
class LidarBinding:
    """A Lidar, where its rays start and what they leave out.

    Attributes:
        node: the Lidar node.
        site_id: the site at the lidar's origin (its FLU frame).
        exclude_body: the MuJoCo body holding only the lidar's own geoms (-1: it has none).
        settings: the fields after Webots' repairs.
    """

    node: WbNode
    site_id: int
    exclude_body: int
    settings: LidarSettings


def settings_of(node: WbNode) -> tuple[LidarSettings, list[tuple[str, str]]]:
    """The repaired settings of a Lidar node and Webots' warnings (field name, text), with the deprecated
    ``spherical`` FALSE turned into ``projection "planar"`` as Webots does."""
    warnings: list[tuple[str, str]] = []
    planar = str(node["projection"]) == "planar"
    if not bool(node["spherical"]):
        warnings.append(("spherical", "Deprecated 'spherical' field, please use the 'projection' field instead."))
        planar = True
    raw = LidarSettings(
        tilt_angle=float(node["tiltAngle"]),  # type: ignore[arg-type]
        horizontal_resolution=int(node["horizontalResolution"]),  # type: ignore[arg-type]
        field_of_view=float(node["fieldOfView"]),  # type: ignore[arg-type]
        vertical_field_of_view=float(node["verticalFieldOfView"]),  # type: ignore[arg-type]
        number_of_layers=int(node["numberOfLayers"]),  # type: ignore[arg-type]
        near=float(node["near"]),  # type: ignore[arg-type]
        min_range=float(node["minRange"]),  # type: ignore[arg-type]
        max_range=float(node["maxRange"]),  # type: ignore[arg-type]
        rotating=str(node["type"]).casefold() == "rotating",
        planar=planar,
        noise=float(node["noise"]),  # type: ignore[arg-type]
        resolution=float(node["resolution"]),  # type: ignore[arg-type]
        default_frequency=float(node["defaultFrequency"]),  # type: ignore[arg-type]
        min_frequency=float(node["minFrequency"]),  # type: ignore[arg-type]
        max_frequency=float(node["maxFrequency"]),  # type: ignore[arg-type]
    )
    settings, repairs = repair(raw, str(node["type"]))
    return settings, warnings + repairs


@dataclass(eq=False)
class _Lidar:
    node: WbNode
    slot: SolidSlot
    site: str
    settings: LidarSettings


class LidarCompiler(DeviceCompiler):
    """Claims Lidar nodes, repairs their fields with Webots' warnings and marks their frames."""

    def __init__(self) -> None:
        self._lidars: list[_Lidar] = []

    def plan_body(self, node: WbNode, request: BodyRequest) -> BodyPlan:
        """A frame (a site) unless the lidar has a boundingObject (its own body, left out of its rays)."""
        return BodyPlan(frame_only=node["boundingObject"] is None, allow_no_physics_in_dynamic_parent=True)

    def add(self, ctx: CompileContext, node: WbNode, slot: DeviceSlot) -> bool:
        """Claim a Lidar, with Webots' load-time warnings."""
        assert isinstance(slot, SolidSlot)
        settings, messages = settings_of(node)
        for field_name, message in messages:
            ctx.warn(message, node, field_name)
        site = slot.site_name
        if not site:
            site = ctx.fresh_name("lidar")
            slot.body_spec.add_site(name=site)
        self._lidars.append(_Lidar(node, slot, site, settings))
        return True

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[LidarBinding, ...]:
        """One :class:`LidarBinding` per Lidar, in scene order."""
        result = []
        for lidar in self._lidars:
            site = ctx.element_id(model, mujoco.mjtObj.mjOBJ_SITE, lidar.site)
            own = not lidar.slot.site_name and lidar.node["boundingObject"] is not None
            result.append(LidarBinding(lidar.node, site, int(model.site_bodyid[site]) if own else -1,
                                       lidar.settings))
        return tuple(result)
