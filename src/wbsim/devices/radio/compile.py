"""Compile Emitter and Receiver nodes: their frames, their robots, and what infra-red line of sight needs.

- **Frame.** An emitter or receiver is a frame (its origin and +x axis, the axis of its aperture cone):
  without Physics and Solids below it, a site on the enclosing body (``BodyPlan.frame_only``); otherwise a
  site at the origin of its own body. The bank reads poses from ``site_xpos`` / ``site_xmat``.
- **Robot.** Webots never delivers a packet to the robot that sent it (``WbReceiver::transmitPacket``:
  ``eRobot != rRobot``, the nearest Robot above each device). Robots are numbered per world.
- **Line of sight.** An infra-red packet is blocked by any boundingObject on the segment between emitter
  and receiver, except those of the emitting robot and, unless it has ``selfCollision``, of the receiving
  robot (Webots' ray geom carries the receiver: ``odeNearCallback`` skips same-robot pairs, and
  ``rayCollisionCallback`` skips the emitting robot). :class:`RadioWorld` maps every MuJoCo geom to the
  robot whose Solid owns it.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from wbsim.compile.context import CompileContext
from wbsim.compile.slots import BodyRequest, DeviceSlot, SolidSlot
from wbsim.devices.kind import BodyPlan, DeviceCompiler
from wbsim.devices.radio.schema import allowed_channel
from wbsim.world.model import WbNode

__all__ = ["RadioBinding", "RadioWorld", "RadioCompiler"]


@dataclass(frozen=True, eq=False)
class RadioWorld:
    """Robots and geoms of a world, as infra-red line of sight needs them (shared by every radio binding).

    Attributes:
        geom_robot: the robot (index) of the Solid owning each MuJoCo geom, -1 for none, int64 (ngeom,).
        robot_geoms: the geoms of each robot, one int64 array per robot.
        self_collision: each robot's ``selfCollision`` field, (nrobots,).
    """

    geom_robot: np.ndarray
    robot_geoms: tuple[np.ndarray, ...]
    self_collision: np.ndarray


@dataclass(frozen=True, slots=True, eq=False)
class RadioBinding:
    """An Emitter or a Receiver.

    Attributes:
        node: the Emitter or Receiver node.
        receiver: True for a Receiver.
        site_id: the site at the device's origin (its frame: the aperture cone is along +x).
        robot: the index of the nearest Robot above the device in :attr:`world`, -1 outside any Robot.
        channel: the ``channel`` field after Webots' ``allowedChannels`` repair at load.
        world: the world's robots and geoms (the same object for every device).
    """

    node: WbNode
    receiver: bool
    site_id: int
    robot: int
    channel: int
    world: RadioWorld


@dataclass(eq=False)
class _Device:
    node: WbNode
    slot: SolidSlot
    site: str
    channel: int


class RadioCompiler(DeviceCompiler):
    """Claims Emitter and Receiver nodes (frames), with Webots' load-time ``allowedChannels`` warnings."""

    def __init__(self) -> None:
        self._devices: list[_Device] = []

    def plan_body(self, node: WbNode, request: BodyRequest) -> BodyPlan:
        """An emitter or receiver needs only its frame (a site) unless it has Physics or Solids below it."""
        return BodyPlan(frame_only=True)

    def add(self, ctx: CompileContext, node: WbNode, slot: DeviceSlot) -> bool:
        """Claim an Emitter or Receiver; a ``channel`` not in ``allowedChannels`` becomes its first item with
        Webots' warning (the Receiver's ``updateTransmissionSetup`` text, the Emitter's
        ``updateAllowedChannels`` one: a Receiver checks the channel in both, first in the former)."""
        if not isinstance(slot, SolidSlot):  # the registry places radio devices as Solids
            raise TypeError(f"{node.type_name} must be compiled as a Solid")
        channel = int(node["channel"])  # type: ignore[call-overload]
        allowed = tuple(int(c) for c in node["allowedChannels"])  # type: ignore[union-attr]
        repaired = allowed_channel(channel, allowed)
        if repaired is not None:
            text = (f"'channel' is not included in 'allowedChannels'. Setting 'channel' to {repaired}"
                    if node.type_name == "Receiver" else
                    f"'allowedChannels' does not contain current 'channel'. Setting 'channel' to {repaired}.")
            ctx.warn(text, node, "channel")
            channel = repaired
        site = slot.site_name
        if not site:  # the device kept a body of its own: mark its origin
            site = ctx.fresh_name("rs")
            slot.body_spec.add_site(name=site)
        self._devices.append(_Device(node, slot, site, channel))
        return True

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[RadioBinding, ...]:
        """One :class:`RadioBinding` per Emitter and Receiver, in scene order."""
        if not self._devices:
            return ()
        robots: dict[WbNode, int] = {}
        for solid in ctx.solids:
            if solid.robot_node is not None:
                robots.setdefault(solid.robot_node, len(robots))
        for device in self._devices:
            if device.slot.robot_node is not None:
                robots.setdefault(device.slot.robot_node, len(robots))
        geom_robot = np.full(model.ngeom, -1, dtype=np.int64)
        for solid in ctx.solids:
            if solid.robot_node is None:
                continue
            for name, _ in solid.geoms:
                geom = ctx.element_id(model, mujoco.mjtObj.mjOBJ_GEOM, name)
                if geom >= 0:
                    geom_robot[geom] = robots[solid.robot_node]
        world = RadioWorld(
            geom_robot=geom_robot,
            robot_geoms=tuple(np.flatnonzero(geom_robot == index) for index in range(len(robots))),
            self_collision=np.array([bool(node["selfCollision"]) for node in robots], dtype=bool),
        )
        return tuple(
            RadioBinding(
                node=device.node,
                receiver=device.node.type_name == "Receiver",
                site_id=ctx.element_id(model, mujoco.mjtObj.mjOBJ_SITE, device.site),
                robot=robots[device.slot.robot_node] if device.slot.robot_node is not None else -1,
                channel=device.channel,
                world=world,
            )
            for device in self._devices
        )
