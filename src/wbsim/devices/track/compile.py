"""Compile Track nodes: the Track's own body and geoms carry the belt; its devices become bank rows.

A Track is a Solid compiled like any other (its boundingObject is the belt's outside shape). A static
Track (under a static parent; e.g. a conveyor belt) is made a MuJoCo mocap body, as a static TouchSensor
is, so the bodies resting on it stay awake and keep their contacts with it. The compiler adds no MuJoCo
element: the belt moves the contacts of the Track's geoms (their surface velocity, set by the bank in
every physics step; ``mjModel.flg_surfacevel`` is raised so collision detection fills that field).

Bindings: one :class:`TrackDeviceBinding` per device of the Track's ``device`` field (the first
LinearMotor and the first PositionSensor, as Webots reads them), each naming its :class:`TrackBinding`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import mujoco
import numpy as np

from wbsim.compile.context import CompileContext
from wbsim.compile.slots import BodyRequest, DeviceSlot, SolidSlot
from wbsim.devices.kind import BodyPlan, DeviceCompiler
from wbsim.world.model import WbNode

__all__ = ["TrackBinding", "TrackDeviceBinding", "TrackCompiler", "up_vector", "weld_mass"]

_UP_AXIS = {"ENU": 2, "NUE": 1, "EUN": 1}


def up_vector(coordinate_system: str) -> tuple[float, float, float]:
    """The world's up direction (unit, world frame) for a WorldInfo ``coordinateSystem``."""
    up = [0.0, 0.0, 0.0]
    up[_UP_AXIS[coordinate_system]] = 1.0
    return (up[0], up[1], up[2])


@dataclass(frozen=True, slots=True)
class TrackBinding:
    """A Track and the MuJoCo elements its belt moves.

    Attributes:
        node: the Track node.
        body_id: the Track's MuJoCo body (its frame is the Track's frame: the belt runs along its x axis).
        geom_ids: the Track's boundingObject geoms (the belt surface).
        dynamic: True if the Track moves under physics (a tracked vehicle), False for a static one.
        mass: the mass of the rigid body carrying the Track, kg (Webots' ``dBodyGetMass`` of the Track's
            body: a Track merged into its parent counts the whole merged body), used by force control.
        up: the world's up direction (world frame): the belt's top side carries what rests on it forward.
        motor: the LinearMotor driving the belt, or None (the belt then never moves).
        sensor: the PositionSensor reading the belt position, or None.
    """

    node: WbNode
    body_id: int
    geom_ids: tuple[int, ...]
    dynamic: bool
    mass: float
    up: tuple[float, float, float]
    motor: WbNode | None
    sensor: WbNode | None


@dataclass(frozen=True, slots=True)
class TrackDeviceBinding:
    """One device of a Track's ``device`` field (a bank row).

    Attributes:
        node: the LinearMotor or PositionSensor node.
        track: the Track it belongs to.
        track_index: the Track's index among the bank's tracks.
        role: ``"motor"`` or ``"position_sensor"``.
    """

    node: WbNode
    track: TrackBinding
    track_index: int
    role: Literal["motor", "position_sensor"]


@dataclass(eq=False)
class _Track:
    node: WbNode
    slot: SolidSlot
    motor: WbNode | None
    sensor: WbNode | None


class TrackCompiler(DeviceCompiler):
    """Claims Track nodes and lists their LinearMotor and PositionSensor among the robot's devices."""

    def __init__(self) -> None:
        self._tracks: list[_Track] = []
        self._by_node: dict[WbNode, _Track] = {}

    def plan_body(self, node: WbNode, request: BodyRequest) -> BodyPlan:
        """A static Track becomes a mocap body (what rests on it stays awake and in contact)."""
        static = (not request.parent_dynamic and not request.end_point
                  and not (request.top_level and request.has_physics))
        return BodyPlan(mocap=static)

    def add(self, ctx: CompileContext, node: WbNode, slot: DeviceSlot) -> bool:
        """Claim a Track and pick its devices as Webots does (the first LinearMotor and PositionSensor)."""
        assert isinstance(slot, SolidSlot)
        motor: WbNode | None = None
        sensor: WbNode | None = None
        for device in node["device"]:  # type: ignore[union-attr]
            if device.type_name == "LinearMotor" and motor is None:
                motor = device
            elif device.type_name == "PositionSensor" and sensor is None:
                sensor = device
            elif device.type_name in ("LinearMotor", "PositionSensor"):
                ctx.warn(f"Only the first {device.type_name} of a Track is used; this one is ignored.",
                         device)
        if node["boundingObject"] is None or not slot.has_physics:
            ctx.warn("A Track needs a boundingObject and a Physics node: its belt moves only what touches "
                     "its boundingObject.", node)
        track = _Track(node, slot, motor, sensor)
        self._tracks.append(track)
        self._by_node[node] = track
        return True

    def listed_devices(self, node: WbNode) -> tuple[WbNode, ...]:
        """The Track's LinearMotor and PositionSensor, in the order of its ``device`` field."""
        track = self._by_node[node]
        devices = [d for d in (track.motor, track.sensor) if d is not None]
        order = list(node["device"])  # type: ignore[arg-type]
        return tuple(sorted(devices, key=lambda d: next(i for i, n in enumerate(order) if n is d)))

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[TrackDeviceBinding, ...]:
        """One :class:`TrackDeviceBinding` per listed device, Track by Track in scene order."""
        up = up_vector(str(ctx.world_info["coordinateSystem"]))
        result: list[TrackDeviceBinding] = []
        index = 0
        for track in self._tracks:
            devices = self.listed_devices(track.node)
            if not devices:
                continue  # no motor and no sensor: the belt never moves and nothing reads it
            solid = ctx.solid_binding(track.slot)
            body = solid.body_id
            # A moving Track: the rigid body ODE would make of it and what it is merged with.
            mass = weld_mass(model, body) if solid.dynamic else float(model.body_mass[body])
            binding = TrackBinding(track.node, body, solid.geom_ids, solid.dynamic, mass, up, track.motor,
                                   track.sensor)
            for device in devices:
                role: Literal["motor", "position_sensor"] = (
                    "motor" if device is track.motor else "position_sensor")
                result.append(TrackDeviceBinding(device, binding, index, role))
            index += 1
        return tuple(result)

    def tune(self, ctx: CompileContext, model: mujoco.MjModel) -> bool:
        """Let collision detection fill the contacts' surface velocity (the belt writes it per contact)."""
        if any(track.motor is not None for track in self._tracks):
            model.flg_surfacevel = 1
        return False


def weld_mass(model: mujoco.MjModel, body: int) -> float:
    """The mass (kg) of the rigid group of MuJoCo bodies moving with ``body`` (welded to the same body)."""
    return float(np.asarray(model.body_mass)[np.asarray(model.body_weldid) == model.body_weldid[body]].sum())
