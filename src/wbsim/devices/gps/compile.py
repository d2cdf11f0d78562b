"""Compile GPS nodes: their frames, how their speed is measured, and the world's GPS frame.

A GPS is only a frame: without Physics and without Solids below it, it is a site on the enclosing body
(``BodyPlan.frame_only``); otherwise it keeps its own body and gets a site at its origin. The bank reads
every GPS position from ``site_xpos`` at once (:class:`~wbsim.devices.site_device.SiteDeviceCompiler`).

The speed follows ``WbGps::refreshSensorIfNeeded``: a GPS whose upper Solid (the nearest Solid above it) has
Physics reads the velocity of its origin as a point of that Solid's body (Webots'
``upperSolid()->bodyMerger()``, whatever the GPS's own Physics: a GPS with Physics on a joint reads the body
across the joint); any other GPS (a static, supervisor-moved or kinematic robot, a Solid without Physics,
which has no body in Webots even inside one with Physics) divides its displacement by the time since its
last sample.
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
        body_id: the MuJoCo body whose motion gives the speed: the upper Solid's when it has Physics, else the
            body carrying the site.
        dynamic: True if the upper Solid has Physics and its body moves under physics: the speed is then the
            velocity of the origin as a point of that body, otherwise the displacement between two samples
            over their interval.
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
        # and the speed is then a finite difference. The GPS's own Physics does not matter.
        slots = {id(slot.node): slot for slot in ctx.solids}
        result = []
        for device in self.devices:
            site = self.site_id(ctx, model, device)
            upper = upper_solid(device.node)
            slot = slots.get(id(upper)) if upper is not None else None
            if slot is not None and slot.has_physics:
                body = ctx.solid_binding(slot).body_id
                physical = bool(slot.dynamic) and body != 0
            else:
                body, physical = int(model.site_bodyid[site]), False
            result.append(GpsBinding(device.node, site, body, physical, frame))
        return tuple(result)
