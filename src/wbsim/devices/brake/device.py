"""The Brake kind in one module (it is small): schema, compiler, bank, core device and Webots API.

Webots (``WbBrake``, ``brake.c``): ``setDampingConstant(c)`` sets the brake's damping constant (N*s/m or
N*m*s/rad); the joint is then damped by the sum of its JointParameters ``dampingConstant`` and ``c``. The
request reaches the simulator with the controller's next step. In MuJoCo the joint's DOF damping is that sum
(``dof_damping``, integrated implicitly like the joint's own damping). A reset puts the joints' own damping
back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import mujoco
import numpy as np

from wbsim.api.device import Device, print_error
from wbsim.compile.bindings import JointBinding
from wbsim.compile.context import CompileContext
from wbsim.compile.slots import DeviceSlot, JointSlot
from wbsim.devices.kind import BankContext, BankDevice, DeviceBank, DeviceCompiler
from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.model import WbNode
from wbsim.world.schema import NodeSchema
from wbsim.world.schema_kit import node_schema, simulated_field

__all__ = ["schemas", "BrakeBinding", "BrakeCompiler", "BrakeBank", "CoreBrake", "Brake", "api_classes"]


def schemas() -> list[NodeSchema]:
    """The Brake schema (Webots' ``Brake.wrl``: only a name), in hinge and slider joints."""
    return [node_schema("Brake", "rotational_device linear_device", [simulated_field("name", T.SFString, "brake")])]


@dataclass(frozen=True, slots=True)
class BrakeBinding:
    """A Brake and its joint.

    Attributes:
        node: the Brake node.
        joint: the joint's binding (``dof_adr`` -1 for a joint without endPoint: the brake has no effect).
        linear: True on a slider joint.
        own_damping: the joint's own damping constant (its JointParameters ``dampingConstant``).
    """

    node: WbNode
    joint: JointBinding
    linear: bool
    own_damping: float


class BrakeCompiler(DeviceCompiler):
    """Claims the brakes of joints (one per joint)."""

    def __init__(self) -> None:
        self._brakes: list[tuple[WbNode, JointSlot]] = []
        self._joints: set[int] = set()

    def add(self, ctx: CompileContext, node: WbNode, slot: DeviceSlot) -> bool:
        """Claim a brake of the joint ``slot``; a second one on one joint is an error."""
        assert isinstance(slot, JointSlot)
        if id(slot) in self._joints:
            ctx.error("A joint can have only one Brake.", node)
            return False
        self._joints.add(id(slot))
        self._brakes.append((node, slot))
        return True

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[BrakeBinding, ...]:
        """One :class:`BrakeBinding` per brake, in scene order."""
        out = []
        for node, slot in self._brakes:
            joint = ctx.joint_binding(slot)
            own = float(np.ravel(model.dof_damping[joint.dof_adr])[0]) if joint.dof_adr >= 0 else 0.0
            out.append(BrakeBinding(node, joint, slot.kind == "slider", own))
        return tuple(out)


class BrakeBank(DeviceBank):
    """The brakes of one simulation.

    Attributes:
        damping: the damping constant each brake adds (0 at load), (n,).
    """

    actuates = True  # controller requests are applied with the next step

    def __init__(self, bindings: tuple[BrakeBinding, ...], context: BankContext) -> None:
        super().__init__(bindings, context)
        self.damping = np.zeros(self.n)
        self._dofs = np.array([b.joint.dof_adr for b in bindings], dtype=np.int64)
        self._own = np.array([b.own_damping for b in bindings])
        self._requests: dict[int, float] = {}

    carried = ("damping",)

    def transfer_from(self, old: DeviceBank, rows: tuple[np.ndarray, np.ndarray], state: object) -> None:
        """The damping of the brakes that stay, written into the new model's joints, and their pending requests."""
        super().transfer_from(old, rows, state)
        assert isinstance(old, BrakeBank)
        row_map = dict(zip(rows[0].tolist(), rows[1].tolist()))
        self._requests = {row_map[r]: v for r, v in old._requests.items() if r in row_map}
        for row in rows[1].tolist():
            self._write(row)

    def core(self, row: int) -> CoreBrake:
        """The core brake of row ``row``."""
        return CoreBrake(self, row, str(self.bindings[row].node["name"]), self.context.now_step)

    def request(self, row: int, damping: float) -> None:
        """A controller's ``setDampingConstant``, applied before the next physics step (the last one wins)."""
        self._requests[row] = damping

    def actuate(self, data: mujoco.MjData) -> None:
        """Write the requested damping into the joints' DOF damping."""
        if not self._requests:
            return
        requests, self._requests = self._requests, {}
        for row, damping in requests.items():
            self.damping[row] = damping
            self._write(row)

    def _write(self, row: int) -> None:
        dof = self._dofs[row]
        if dof >= 0:
            damping = self.context.model.dof_damping
            value = self._own[row] + self.damping[row]
            if damping.ndim == 1:
                damping[dof] = value
            else:  # polynomial damping coefficients: the linear term
                damping[dof, 0] = value

    def reset(self) -> None:
        """No brake applied (the joints' own damping)."""
        self._requests.clear()
        self.damping[:] = 0.0
        for row in range(self.n):
            self._write(row)


@dataclass
class CoreBrake(BankDevice):
    """One brake (snake_case core; Webots' ``Brake`` wraps it)."""

    kind: str = "brake"

    def set_damping(self, damping: float) -> None:
        """Request the brake's damping constant (N*s/m or N*m*s/rad), applied with the next step."""
        self.bank.request(self.index, float(damping))

    @property
    def damping(self) -> float:
        """The damping constant the brake applies now."""
        return float(self.bank.damping[self.index])


class Brake(Device):
    """A joint brake (Webots ``controller.Brake``): ``setDampingConstant`` damps its joint."""

    ROTATIONAL = 0
    LINEAR = 1

    _core: CoreBrake

    def setDampingConstant(self, dampingConstant: float) -> None:
        """Add ``dampingConstant`` (N*s/m or N*m*s/rad, >= 0) to the joint's damping from the next step."""
        if not isinstance(dampingConstant, int | float) or math.isnan(dampingConstant) or dampingConstant < 0:
            print_error("wb_brake_set_damping_constant() called with an invalid damping constant.")
            return
        self._core.set_damping(dampingConstant)

    def getType(self) -> int:
        """``Brake.LINEAR`` on a SliderJoint, else ``Brake.ROTATIONAL``."""
        return Brake.LINEAR if self._core.binding.linear else Brake.ROTATIONAL

    def getMotor(self) -> Any:
        """The motor of the same joint, or None."""
        return self._robot._device_in_joint(self._node, "motor")

    def getPositionSensor(self) -> Any:
        """The position sensor of the same joint, or None."""
        return self._robot._device_in_joint(self._node, "position_sensor")

    dampingConstant = property(fset=setDampingConstant, doc="Write-only: ``setDampingConstant``.")
    type = property(getType)
    motor = property(getMotor)
    position_sensor = property(getPositionSensor)


def api_classes() -> dict[str, type]:
    """The classes the ``controller`` module exports for brakes."""
    return {"Brake": Brake}
