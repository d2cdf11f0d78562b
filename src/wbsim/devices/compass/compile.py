"""Compile Compass nodes: their frames and the world's north.

A compass is only a frame: without Physics and without Solids below it, a site on the enclosing body
(``BodyPlan.frame_only``); otherwise a site at the origin of its own body. The bank reads every sensor's
orientation from ``site_xmat``. North is the world axis that ``WorldInfo.coordinateSystem`` names "N"
(``WbWorldInfo::updateGravityBasis``): +y in ENU, +x in NUE, +z in EUN.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco

from wbsim.compile.context import CompileContext
from wbsim.compile.slots import DeviceSlot
from wbsim.devices.lookup_table import lookup_warnings
from wbsim.devices.site_device import SiteDeviceCompiler
from wbsim.world.model import WbNode

__all__ = ["CompassBinding", "CompassCompiler", "north_axis"]


def north_axis(coordinate_system: str) -> int:
    """The index (0, 1, 2) of the world axis pointing north in a ``coordinateSystem`` such as "ENU"."""
    return coordinate_system.index("N")


@dataclass(frozen=True, slots=True)
class CompassBinding:
    """A Compass and where its frame is.

    Attributes:
        node: the Compass node.
        site_id: the MuJoCo site at the sensor's frame.
        north: the world axis pointing north (0: x, 1: y, 2: z).
        lookup_table: the (input, output, noise) rows of the world file.
    """

    node: WbNode
    site_id: int
    north: int
    lookup_table: tuple[tuple[float, float, float], ...]


class CompassCompiler(SiteDeviceCompiler):
    """Claims Compass nodes and marks their frames with sites."""

    site_prefix = "compass"

    def add(self, ctx: CompileContext, node: WbNode, slot: DeviceSlot) -> bool:
        """Claim a Compass, with Webots' warning for an unsorted lookup table."""
        for message in lookup_warnings(node["lookupTable"]):  # type: ignore[arg-type]
            ctx.warn(message, node, "lookupTable")
        return super().add(ctx, node, slot)

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[CompassBinding, ...]:
        """One :class:`CompassBinding` per Compass, in scene order."""
        north = north_axis(str(ctx.world_info["coordinateSystem"]))
        result = []
        for device in self.devices:
            table = tuple(tuple(float(v) for v in row) for row in device.node["lookupTable"])  # type: ignore[union-attr]
            result.append(CompassBinding(device.node, self.site_id(ctx, model, device), north,
                                         table))  # type: ignore[arg-type]
        return tuple(result)
