"""The services the builder offers to device compilers: the spec, names, located messages, id lookup."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import mujoco

from wbsim.errors import CompileError, WorldError
from wbsim.world.model import WbNode, WorldWarning

if TYPE_CHECKING:
    from wbsim.compile.bindings import JointBinding, SolidBinding
    from wbsim.compile.slots import JointSlot, SolidSlot

__all__ = ["CompileContext"]


class CompileContext:
    """One compilation, as device compilers see it.

    Args:
        spec: the MjSpec being built.
        basic_time_step_ms: WorldInfo.basicTimeStep in ms.
        dt_s: the MuJoCo time step in s.
        substeps: MuJoCo steps per basic time step.
        fresh_name: returns a new unique MuJoCo element name for a prefix.
        warnings: the list compile warnings are appended to.
        errors: the list compile errors are appended to.

    Attributes:
        spec: the MjSpec being built.
        basic_time_step_ms: WorldInfo.basicTimeStep in ms.
        dt_s: the MuJoCo time step in s.
        substeps: MuJoCo steps per basic time step.
        world_info: the WorldInfo node in effect (set by the builder).
        solids: every Solid slot of the world, in scene order (complete once the tree walk is done, i.e.
            in ``contribute``).
    """

    def __init__(self, spec: mujoco.MjSpec, basic_time_step_ms: float, dt_s: float, substeps: int,
                 fresh_name: Callable[[str], str], warnings: list[WorldWarning], errors: list[WorldError],
                 world_info: WbNode, solids: list[SolidSlot] | None = None) -> None:
        self.spec = spec
        self.basic_time_step_ms = basic_time_step_ms
        self.dt_s = dt_s
        self.substeps = substeps
        self.world_info = world_info
        self.solids: list[SolidSlot] = solids if solids is not None else []
        self._fresh_name = fresh_name
        self._warnings = warnings
        self._errors = errors
        self._joint_bindings: dict[int, JointBinding] = {}
        self._solid_bindings: dict[int, SolidBinding] = {}

    def fresh_name(self, prefix: str) -> str:
        """A new MuJoCo element name starting with ``prefix``, unique in the model."""
        return self._fresh_name(prefix)

    def warn(self, message: str, node: WbNode, field_name: str | None = None) -> None:
        """Record a located warning about ``node`` (or its field ``field_name``)."""
        location = node.location_of(field_name) if field_name else node.location
        path = f"{node.path} > {field_name}" if field_name else node.path
        self._warnings.append(WorldWarning(message, location, path))

    def error(self, message: str, node: WbNode, field_name: str | None = None) -> None:
        """Record a located compile error about ``node`` (loading fails once the walk is done)."""
        location = node.location_of(field_name) if field_name else node.location
        path = f"{node.path} > {field_name}" if field_name else node.path
        self._errors.append(CompileError(message, location, path))

    # -- after compilation -----------------------------------------------------------------------
    def set_bindings(self, joints: dict[int, JointBinding], solids: dict[int, SolidBinding]) -> None:
        """Called by the builder once the joint and Solid bindings exist (keyed by ``id(slot)``)."""
        self._joint_bindings = joints
        self._solid_bindings = solids

    def joint_binding(self, slot: JointSlot) -> JointBinding:
        """The compiled binding of a joint slot."""
        return self._joint_bindings[id(slot)]

    def solid_binding(self, slot: SolidSlot) -> SolidBinding:
        """The compiled binding of a Solid slot."""
        return self._solid_bindings[id(slot)]

    @staticmethod
    def element_id(model: mujoco.MjModel, kind: mujoco.mjtObj, name: str) -> int:
        """The MuJoCo id of the element called ``name`` (-1 for "" or an unknown name)."""
        return mujoco.mj_name2id(model, kind, name) if name else -1
