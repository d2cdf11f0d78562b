"""Compile Propeller nodes: the body their thrust acts on, their frames and constants, and their motor.

A Propeller is not a Solid: it rides on the MuJoCo body of the Solid it sits in (Poses in between composed
into its frame). Webots applies its thrust and torque to that Solid's ODE body (``upperSolid()->solidMerger()``),
which exists only if the upper Solid has Physics; otherwise spinning the motor prints Webots' warning and
produces nothing. The RotationalMotor in ``device`` is the Propeller's controller-side device; a Propeller
without one does nothing and is no device (as in Webots). The helix Solids are visual only in wbsim.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from wbsim.compile.context import CompileContext
from wbsim.compile.frames import quat_to_matrix
from wbsim.compile.slots import ChildSlot, DeviceSlot
from wbsim.devices.kind import DeviceCompiler, upper_solid
from wbsim.world.model import WbNode

__all__ = ["PropellerBinding", "PropellerCompiler", "DEFAULT_AXIS", "normalized_axis"]

DEFAULT_AXIS = (0.0, 1.0, 0.0)
"""What Webots (``WbPropeller::updateShaftAxis``) puts in a zero ``shaftAxis``."""


def normalized_axis(axis: tuple[float, ...]) -> tuple[tuple[float, float, float], str | None]:
    """Webots' shaft axis repair: a zero axis becomes :data:`DEFAULT_AXIS` with Webots' warning text.

    Returns:
        The unit axis (3,) and the warning (None if the axis was valid).
    """
    vector = np.asarray(axis, dtype=float)
    norm = float(np.linalg.norm(vector))
    if norm == 0.0:
        x, y, z = DEFAULT_AXIS
        return DEFAULT_AXIS, f"'shaftAxis'cannot be zero. Defaults to {x:g} {y:g} {z:g}"
    unit = vector / norm
    return (float(unit[0]), float(unit[1]), float(unit[2])), None


@dataclass(frozen=True, slots=True)
class PropellerBinding:
    """A Propeller with a RotationalMotor, and where its thrust goes.

    Attributes:
        node: the Propeller node.
        motor: its RotationalMotor node (the device controllers see).
        body_id: the MuJoCo body of the Solid it sits in (0: the world).
        thrusting: True if that Solid has Physics (Webots' solid merger body exists): thrust and torque act.
        frame_pos: the Propeller's origin in the body frame (3,), m.
        frame_rot: the Propeller's orientation in the body frame (3, 3).
        axis: the normalised ``shaftAxis`` in the Propeller's frame (3,).
    """

    node: WbNode
    motor: WbNode
    body_id: int
    thrusting: bool
    frame_pos: tuple[float, float, float]
    frame_rot: tuple[tuple[float, float, float], ...]
    axis: tuple[float, float, float]


@dataclass(eq=False)
class _Propeller:
    node: WbNode
    motor: WbNode
    slot: ChildSlot
    thrusting: bool
    axis: tuple[float, float, float]


class PropellerCompiler(DeviceCompiler):
    """Claims Propellers that have a RotationalMotor; warns as Webots (and wbsim) do at load."""

    def __init__(self) -> None:
        self._propellers: list[_Propeller] = []

    def add(self, ctx: CompileContext, node: WbNode, slot: DeviceSlot) -> bool:
        """Claim ``node`` if its ``device`` is a RotationalMotor (a Propeller without one does nothing)."""
        assert isinstance(slot, ChildSlot)
        axis, message = normalized_axis(tuple(node["shaftAxis"]))  # type: ignore[arg-type]
        if message is not None:
            ctx.warn(message, node, "shaftAxis")
        for helix_field in ("fastHelix", "slowHelix"):
            helix = node[helix_field]
            if isinstance(helix, WbNode) and (helix["boundingObject"] is not None or helix["physics"] is not None):
                ctx.warn("wbsim draws no helix and ignores the boundingObject and Physics of a Propeller's helix "
                         "Solid (Webots moves it kinematically with the motor).", helix)
        motor = node["device"]
        if not isinstance(motor, WbNode):
            return False  # Webots: no motor, no thrust and no device
        if motor.type_name != "RotationalMotor":
            ctx.warn(f"A Propeller's 'device' must be a RotationalMotor: this {motor.type_name} is ignored.", motor)
            return False
        if slot.robot_node is None:
            ctx.warn(f"RotationalMotor '{motor['name']}' of this Propeller is not inside a Robot: no controller can "
                     "use it.", node)
        solid = upper_solid(node)
        thrusting = solid is not None and solid["physics"] is not None
        self._propellers.append(_Propeller(node, motor, slot, thrusting, axis))
        return True

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[PropellerBinding, ...]:
        """One :class:`PropellerBinding` per claimed Propeller, in scene order."""
        result = []
        for p in self._propellers:
            body = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, p.slot.body_name)
            rot = quat_to_matrix(np.asarray(p.slot.quat, dtype=float))
            result.append(PropellerBinding(
                node=p.node,
                motor=p.motor,
                body_id=max(body, 0),
                thrusting=p.thrusting and body > 0,
                frame_pos=p.slot.pos,
                frame_rot=tuple(tuple(float(v) for v in row) for row in rot),
                axis=p.axis,
            ))
        return tuple(result)
