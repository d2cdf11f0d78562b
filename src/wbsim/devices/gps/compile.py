"""Compile GPS nodes: their frames, how their speed is measured, and the world's GPS frame.

A GPS is only a frame: without Physics and without Solids below it, it is a site on the enclosing body
(``BodyPlan.frame_only``); otherwise it keeps its own body and gets a site at its origin. The bank reads
every GPS position from ``site_xpos`` at once (:class:`~wbsim.devices.site_device.SiteDeviceCompiler`).

The speed follows ``WbGps::refreshSensorIfNeeded``: a GPS whose upper Solid (or itself) has Physics (Webots'
``upperSolid()->bodyMerger()``; a Solid without Physics has no body) reads the velocity of its origin point on
that body; any other GPS (a static, supervisor-moved or kinematic robot, a Solid without Physics) divides its
displacement by the time since its last sample.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco

from wbsim.compile.context import CompileContext
from wbsim.devices.gps.geo import GpsFrame
from wbsim.devices.kind import upper_solid
from wbsim.devices.site_device import SiteDeviceCompiler
from wbsim.world.model import WbNode

__all__ = ["GpsBinding", "GpsCompiler"]


@dataclass(frozen=True, slots=True)
class GpsBinding:
    """A GPS and where it reads its position.

    Attributes:
        node: the GPS node.
        site_id: the site at the GPS origin (its position is the measured point).
        body_id: the MuJoCo body carrying the site.
        dynamic: True if that body moves under physics: the speed is then the point velocity of the origin,
            otherwise the displacement between two samples over their interval.
        frame: the world's GPS frame (the same for every binding).
    """

    node: WbNode
    site_id: int
    body_id: int
    dynamic: bool
    frame: GpsFrame


class GpsCompiler(SiteDeviceCompiler):
    """Claims GPS nodes and reads the world's GPS frame."""

    site_prefix = "gps"

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[GpsBinding, ...]:
        """One :class:`GpsBinding` per GPS, in scene order."""
        frame = GpsFrame.of(ctx.world_info)
        # Webots reads the body of the Solid above the GPS (``upperSolid()->bodyMerger()``), which exists only if
        # that Solid has Physics: a Solid without (kinematic, static, or carried by one with Physics) has none,
        # and the speed is then a finite difference.
        physics = {id(slot.node) for slot in ctx.solids if slot.has_physics}
        result = []
        for device in self.devices:
            site = self.site_id(ctx, model, device)
            body = int(model.site_bodyid[site])
            slot = device.slot
            upper = upper_solid(device.node)
            physical = bool(slot.dynamic) and body != 0 and (
                slot.has_physics or (upper is not None and id(upper) in physics))
            result.append(GpsBinding(device.node, site, body, physical, frame))
        return tuple(result)
