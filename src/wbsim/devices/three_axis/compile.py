"""Compile Accelerometer and Gyro nodes: the sensor frame, and the body whose motion the sensor reads.

- **Frame.** The sensor needs only its frame: without Physics and without Solids below it, it is a site on
  the enclosing body (``BodyPlan.frame_only``); otherwise it keeps its own body and gets a site at its
  origin. Values are expressed in that frame (``site_xmat``).
- **Motion body.** Webots reads an ODE body: the Accelerometer the body of its *upper Solid* (the nearest
  Solid above it, ``upperSolid()->bodyMerger()``), at the sensor's position; the Gyro its own body if it
  has Physics, else its upper Solid's (``body()``, then ``upperSolidBody()``). In Webots a Solid has such a
  body only when it has Physics itself: one without is kinematic (``bodyMerger()`` is NULL), even when a
  Solid with Physics carries it. wbsim resolves that Solid's MuJoCo body once here; -1 when Webots has none,
  for which each kind has Webots' answer (NaN for the Accelerometer, 0 for the Gyro, with Webots' warning).
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco

from wbsim.compile.context import CompileContext
from wbsim.compile.slots import DeviceSlot, SolidSlot
from wbsim.devices.kind import upper_solid
from wbsim.devices.lookup_table import lookup_warnings
from wbsim.devices.site_device import SiteDevice, SiteDeviceCompiler
from wbsim.devices.three_axis.schema import AXIS_FIELDS
from wbsim.world.model import WbNode

__all__ = ["ThreeAxisBinding", "ThreeAxisCompiler", "upper_solid"]


@dataclass(frozen=True, slots=True)
class ThreeAxisBinding:
    """An Accelerometer or Gyro: its frame, the body it reads, its fields.

    Attributes:
        node: the sensor node.
        site_id: the site at the sensor's origin (its frame).
        body_id: the MuJoCo body whose motion the sensor reads (see the module docstring), -1 if Webots has no
            body for it.
        root_id: ``body_rootid`` of ``body_id`` (the point MuJoCo's ``cvel`` refers to is that tree's
            ``subtree_com``); -1 with ``body_id``.
        lookup_table: the (input, output, noise) rows (empty: the raw value, without noise).
        axes: ``xAxis``, ``yAxis``, ``zAxis``.
        resolution: the ``resolution`` field (-1: infinite).
        gravity: the world's gravity vector (m/s^2, world frame; WorldInfo ``gravity`` along the
            ``coordinateSystem``'s down axis).
    """

    node: WbNode
    site_id: int
    body_id: int
    root_id: int
    lookup_table: tuple[tuple[float, float, float], ...]
    axes: tuple[bool, bool, bool]
    resolution: float
    gravity: tuple[float, float, float]


class ThreeAxisCompiler(SiteDeviceCompiler):
    """Claims the sensor nodes of one kind, marks their frames and resolves the body each one reads.

    Subclasses set :attr:`site_prefix` and :attr:`reads_own_body` (the Gyro reads its own body when it has
    Physics; the Accelerometer always its upper Solid's).
    """

    site_prefix = "tas"
    reads_own_body = False

    def add(self, ctx: CompileContext, node: WbNode, slot: DeviceSlot) -> bool:
        """Claim a sensor node, with Webots' load-time warning about an unsorted lookup table."""
        for message in lookup_warnings(node["lookupTable"]):  # type: ignore[arg-type]
            ctx.warn(message, node, "lookupTable")
        return super().add(ctx, node, slot)

    def _motion_body(self, ctx: CompileContext, sensor: SiteDevice, slots: dict[int, SolidSlot]) -> int:
        if self.reads_own_body and sensor.slot.has_physics:
            return ctx.solid_binding(sensor.slot).body_id
        upper = upper_solid(sensor.node)
        slot = slots.get(id(upper)) if upper is not None else None
        if slot is None or not slot.has_physics:
            # Webots: a Solid without Physics is kinematic and has no body (``bodyMerger()`` is NULL), even
            # inside a Solid with Physics that carries it.
            return -1
        return ctx.solid_binding(slot).body_id

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[ThreeAxisBinding, ...]:
        """One :class:`ThreeAxisBinding` per sensor, in scene order."""
        slots = {id(slot.node): slot for slot in ctx.solids}
        gravity = tuple(float(g) for g in model.opt.gravity)  # WorldInfo's, before any physics plugin runs
        result = []
        for sensor in self.devices:
            body = self._motion_body(ctx, sensor, slots)
            table = tuple(tuple(float(v) for v in row) for row in sensor.node["lookupTable"])  # type: ignore[union-attr]
            result.append(ThreeAxisBinding(
                node=sensor.node,
                site_id=self.site_id(ctx, model, sensor),
                body_id=body,
                root_id=int(model.body_rootid[body]) if body >= 0 else -1,
                lookup_table=table,  # type: ignore[arg-type]
                axes=tuple(bool(sensor.node[name]) for name in AXIS_FIELDS),  # type: ignore[arg-type]
                resolution=float(sensor.node["resolution"]),  # type: ignore[arg-type]
                gravity=gravity,  # type: ignore[arg-type]
            ))
        return tuple(result)
