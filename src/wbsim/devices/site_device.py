"""Solid devices that need only their frame: a site at their origin, on the enclosing body or their own.

Many devices are measured at a point and in a frame (GPS, Altimeter, Accelerometer, Gyro, InertialUnit,
Compass, DistanceSensor): without Physics and without Solids below them they are a site on the enclosing
body (``BodyPlan.frame_only``); otherwise they keep a body of their own and get a site at its origin. Banks
then read ``site_xpos`` / ``site_xmat`` of all their devices at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco

from wbsim.compile.context import CompileContext
from wbsim.compile.slots import BodyRequest, DeviceSlot, SolidSlot
from wbsim.devices.kind import BodyPlan, DeviceCompiler
from wbsim.world.model import WbNode

__all__ = ["SiteDevice", "SiteDeviceCompiler", "mark_site"]


def mark_site(ctx: CompileContext, slot: SolidSlot, prefix: str) -> str:
    """The name of the site at a device's origin: its frame-only site, or a new one on its own body."""
    if slot.site_name:
        return slot.site_name
    site = ctx.fresh_name(prefix)
    slot.body_spec.add_site(name=site)
    return site


@dataclass(frozen=True, slots=True)
class SiteDevice:
    """A device claimed by a :class:`SiteDeviceCompiler`: its node, its slot and the site at its origin."""

    node: WbNode
    slot: SolidSlot
    site: str


class SiteDeviceCompiler(DeviceCompiler):
    """Claims Solid devices that need only their origin, and marks it with a site.

    Subclasses set :attr:`site_prefix`, may extend :meth:`add` (load-time warnings) and build their bindings
    from :attr:`devices` in ``bindings``.
    """

    site_prefix = "device"

    def __init__(self) -> None:
        self.devices: list[SiteDevice] = []

    def plan_body(self, node: WbNode, request: BodyRequest) -> BodyPlan:
        """Only a frame (a site) unless the device has Physics or Solids below it."""
        return BodyPlan(frame_only=True, allow_no_physics_in_dynamic_parent=True)

    def add(self, ctx: CompileContext, node: WbNode, slot: DeviceSlot) -> bool:
        """Claim the device and mark its origin with a site."""
        assert isinstance(slot, SolidSlot)
        self.devices.append(SiteDevice(node, slot, mark_site(ctx, slot, self.site_prefix)))
        return True

    @staticmethod
    def site_id(ctx: CompileContext, model: mujoco.MjModel, device: SiteDevice) -> int:
        """The compiled id of a device's site."""
        return ctx.element_id(model, mujoco.mjtObj.mjOBJ_SITE, device.site)
