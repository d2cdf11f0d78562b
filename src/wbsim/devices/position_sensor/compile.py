"""Compile PositionSensor nodes: a position sensor reads its joint's ``qpos``; it adds no MuJoCo element."""

from __future__ import annotations

from dataclasses import dataclass

import mujoco

from wbsim.compile.bindings import JointBinding
from wbsim.compile.context import CompileContext
from wbsim.compile.slots import DeviceSlot, JointSlot
from wbsim.devices.kind import DeviceCompiler
from wbsim.world.model import WbNode

__all__ = ["PositionSensorBinding", "PositionSensorCompiler"]


@dataclass(frozen=True, slots=True)
class PositionSensorBinding:
    """A PositionSensor and the joint it reads.

    Attributes:
        node: the sensor node.
        joint: the joint's binding (``qpos_adr`` -1 for a joint without endPoint: the sensor reads the
            joint's initial position).
        linear: True on a slider joint.
    """

    node: WbNode
    joint: JointBinding
    linear: bool


class PositionSensorCompiler(DeviceCompiler):
    """Claims the position sensors of joints (one per joint)."""

    def __init__(self) -> None:
        self._sensors: list[tuple[WbNode, JointSlot]] = []
        self._joints: set[int] = set()

    def add(self, ctx: CompileContext, node: WbNode, slot: DeviceSlot) -> bool:
        """Claim a position sensor of the joint ``slot``; a second one on one joint is an error."""
        assert isinstance(slot, JointSlot)
        if id(slot) in self._joints:
            ctx.error("A joint can have only one PositionSensor.", node)
            return False
        self._joints.add(id(slot))
        self._sensors.append((node, slot))
        return True

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[PositionSensorBinding, ...]:
        """One :class:`PositionSensorBinding` per sensor, in scene order."""
        return tuple(PositionSensorBinding(node, ctx.joint_binding(slot), slot.kind == "slider")
                     for node, slot in self._sensors)
