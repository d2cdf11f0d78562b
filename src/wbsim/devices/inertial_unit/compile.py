"""Compile InertialUnit nodes: their frames and the world's coordinate system.

An inertial unit is only a frame: without Physics and without Solids below it, a site on the enclosing body
(``BodyPlan.frame_only``); otherwise a site at the origin of its own body. The bank reads the orientation of
every sensor from ``site_xmat``. The binding records whether the world is NUE (``WorldInfo.coordinateSystem``),
which selects Webots' roll/pitch/yaw convention.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco

from wbsim.compile.context import CompileContext
from wbsim.compile.slots import BodyRequest, DeviceSlot, SolidSlot
from wbsim.devices.kind import BodyPlan, DeviceCompiler
from wbsim.world.model import WbNode

__all__ = ["InertialUnitBinding", "InertialUnitCompiler"]


@dataclass(frozen=True, slots=True)
class InertialUnitBinding:
    """An InertialUnit and where its frame is.

    Attributes:
        node: the InertialUnit node.
        site_id: the MuJoCo site at the sensor's frame.
        nue: the world's ``coordinateSystem`` is "NUE" (Webots' x-z-y angle sequence; else x-y-z).
    """

    node: WbNode
    site_id: int
    nue: bool


class InertialUnitCompiler(DeviceCompiler):
    """Claims InertialUnit nodes and marks their frames with sites."""

    def __init__(self) -> None:
        self._sensors: list[tuple[WbNode, str, bool]] = []

    def plan_body(self, node: WbNode, request: BodyRequest) -> BodyPlan:
        """An inertial unit needs only its frame unless it has Physics or Solids below it."""
        return BodyPlan(frame_only=True, allow_no_physics_in_dynamic_parent=True)

    def add(self, ctx: CompileContext, node: WbNode, slot: DeviceSlot) -> bool:
        """Claim an InertialUnit (a site at its origin when it kept a body of its own)."""
        assert isinstance(slot, SolidSlot)
        site = slot.site_name
        if not site:
            site = ctx.fresh_name("imu")
            slot.body_spec.add_site(name=site)
        self._sensors.append((node, site, str(ctx.world_info["coordinateSystem"]) == "NUE"))
        return True

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[InertialUnitBinding, ...]:
        """One :class:`InertialUnitBinding` per InertialUnit, in scene order."""
        return tuple(InertialUnitBinding(node, ctx.element_id(model, mujoco.mjtObj.mjOBJ_SITE, site), nue)
                     for node, site, nue in self._sensors)
