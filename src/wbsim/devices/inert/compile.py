"""Compile inert device nodes: their Solid part like any Solid, and one located warning each.

An inert device needs no body of its own (``BodyPlan.frame_only``): without Physics and Solid children it
becomes a frame on the enclosing body, its boundingObject geoms going to that body, as Webots merges such a
Solid into its parent; with Physics or Solid children it is a body like any Solid, so its mass,
boundingObject, children, joints and motors stay in the physics.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco

from wbsim.compile.context import CompileContext
from wbsim.compile.slots import BodyRequest, DeviceSlot
from wbsim.devices.inert.spec import INERT_DEVICES
from wbsim.devices.kind import BodyPlan, DeviceCompiler
from wbsim.world.model import WbNode

__all__ = ["InertBinding", "InertCompiler", "warning_text"]


@dataclass(frozen=True, slots=True)
class InertBinding:
    """An inert device.

    Attributes:
        node: the device node.
    """

    node: WbNode


def warning_text(node_type: str) -> str:
    """The load warning of an inert device of type ``node_type``."""
    return (f"{node_type} devices are not simulated by wbsim yet: {INERT_DEVICES[node_type].not_simulated}. "
            "The node keeps its physical part (mass, boundingObject, children) and its controller API.")


class InertCompiler(DeviceCompiler):
    """Claims inert device nodes (one warning each)."""

    def __init__(self) -> None:
        self._nodes: list[WbNode] = []

    def plan_body(self, node: WbNode, request: BodyRequest) -> BodyPlan:
        """A frame on the enclosing body when it can be (no Physics, no Solid inside, not an endPoint)."""
        return BodyPlan(frame_only=True)

    def add(self, ctx: CompileContext, node: WbNode, slot: DeviceSlot) -> bool:
        """Claim the device and warn once that it is not simulated."""
        ctx.warn(warning_text(node.type_name), node)
        self._nodes.append(node)
        return True

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[InertBinding, ...]:
        """One :class:`InertBinding` per device, in scene order."""
        return tuple(InertBinding(node) for node in self._nodes)
