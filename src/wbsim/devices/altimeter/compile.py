"""Compile Altimeter nodes: their frames (a site at each origin, as for a GPS) and the world's GPS frame."""

from __future__ import annotations

from dataclasses import dataclass

import mujoco

from wbsim.compile.context import CompileContext
from wbsim.devices.gps.geo import GpsFrame
from wbsim.devices.site_device import SiteDeviceCompiler
from wbsim.world.model import WbNode

__all__ = ["AltimeterBinding", "AltimeterCompiler"]


@dataclass(frozen=True, slots=True)
class AltimeterBinding:
    """An Altimeter and where it reads its altitude.

    Attributes:
        node: the Altimeter node.
        site_id: the site at its origin (the measured point).
        frame: the world's GPS frame (up axis, reference altitude; the same for every binding).
    """

    node: WbNode
    site_id: int
    frame: GpsFrame


class AltimeterCompiler(SiteDeviceCompiler):
    """Claims Altimeter nodes and reads the world's GPS frame."""

    site_prefix = "altimeter"

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[AltimeterBinding, ...]:
        """One :class:`AltimeterBinding` per Altimeter, in scene order."""
        frame = GpsFrame.of(ctx.world_info)
        return tuple(AltimeterBinding(d.node, self.site_id(ctx, model, d), frame) for d in self.devices)
