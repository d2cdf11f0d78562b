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
from wbsim.devices.site_device import SiteDeviceCompiler
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


class InertialUnitCompiler(SiteDeviceCompiler):
    """Claims InertialUnit nodes and marks their frames with sites."""

    site_prefix = "imu"

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[InertialUnitBinding, ...]:
        """One :class:`InertialUnitBinding` per InertialUnit, in scene order."""
        nue = str(ctx.world_info["coordinateSystem"]) == "NUE"
        return tuple(InertialUnitBinding(device.node, self.site_id(ctx, model, device), nue) for device in self.devices)
