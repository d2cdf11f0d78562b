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
from wbsim.compile.slots import BodyRequest, DeviceSlot, SolidSlot
from wbsim.devices.kind import BodyPlan, DeviceCompiler
from wbsim.devices.lookup_table import lookup_warnings
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


class CompassCompiler(DeviceCompiler):
    """Claims Compass nodes and marks their frames with sites."""

    def __init__(self) -> None:
        self._sensors: list[tuple[WbNode, str, int]] = []

    def plan_body(self, node: WbNode, request: BodyRequest) -> BodyPlan:
        """A compass needs only its frame unless it has Physics or Solids below it."""
        return BodyPlan(frame_only=True, allow_no_physics_in_dynamic_parent=True)

    def add(self, ctx: CompileContext, node: WbNode, slot: DeviceSlot) -> bool:
        """Claim a Compass, with Webots' warning for an unsorted lookup table."""
        assert isinstance(slot, SolidSlot)
        for message in lookup_warnings(node["lookupTable"]):  # type: ignore[arg-type]
            ctx.warn(message, node, "lookupTable")
        site = slot.site_name
        if not site:
            site = ctx.fresh_name("compass")
            slot.body_spec.add_site(name=site)
        self._sensors.append((node, site, north_axis(str(ctx.world_info["coordinateSystem"]))))
        return True

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[CompassBinding, ...]:
        """One :class:`CompassBinding` per Compass, in scene order."""
        result = []
        for node, site, north in self._sensors:
            table = tuple(tuple(float(v) for v in row) for row in node["lookupTable"])  # type: ignore[union-attr]
            result.append(CompassBinding(node, ctx.element_id(model, mujoco.mjtObj.mjOBJ_SITE, site), north,
                                         table))  # type: ignore[arg-type]
        return tuple(result)
