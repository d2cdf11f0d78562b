"""Compile Skin nodes: nothing physical, one located warning each, one binding per skin."""

from __future__ import annotations

import mujoco

from wbsim.compile.context import CompileContext
from wbsim.compile.slots import DeviceSlot
from wbsim.devices.inert.compile import InertBinding
from wbsim.devices.kind import DeviceCompiler
from wbsim.world.model import WbNode

__all__ = ["SkinCompiler", "WARNING"]

WARNING = ("Skin devices are not simulated by wbsim: no mesh or skeleton is read from modelUrl, so the skin has no "
           "bones (getBoneCount returns 0) and nothing is deformed. The node keeps its controller API.")
"""The load warning of every Skin."""


class SkinCompiler(DeviceCompiler):
    """Claims Skin nodes (one warning each); they add nothing to the MuJoCo model."""

    def __init__(self) -> None:
        self._nodes: list[WbNode] = []

    def add(self, ctx: CompileContext, node: WbNode, slot: DeviceSlot) -> bool:
        """Claim the skin and warn once that it is not simulated."""
        ctx.warn(WARNING, node)
        self._nodes.append(node)
        return True

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[InertBinding, ...]:
        """One binding per skin, in scene order."""
        return tuple(InertBinding(node) for node in self._nodes)
