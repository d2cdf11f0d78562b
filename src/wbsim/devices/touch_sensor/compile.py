"""Compile TouchSensor nodes: the sensor's body, its force readout and its bumper geoms.

Webots (``WbTouchSensor``) gives a TouchSensor with Physics its own ODE body, never merged into its
parent, joined to the parent body by a fixed joint whose feedback ``f1`` (the force on the joint's
first body) is what "force" and "force-3d" sensors read. In wbsim every Solid has its own MuJoCo
body, so:

- **dynamic parent** (the usual case, e.g. a foot sensor): the sensor body is a jointless child of
  its parent's body; a MuJoCo ``force`` sensor on a site at the sensor's origin reads the force from
  the parent on the sensor body (its subtree), in the sensor frame. Webots' ``f1`` is the force on
  the parent, the opposite: the reading is negated. The sensor's own weight is carried by whatever
  touches it, so it is not in the reading; inertial loads are.
- **static parent** (no Physics above it): Webots joins the sensor body to the static world, and ODE
  then makes the *sensor* body the joint's first body, so ``f1`` is the force the world applies to
  the sensor (its own weight included, opposite sign). wbsim reproduces that reading (the MuJoCo
  reading, not negated) and makes the body a mocap body, which keeps every tree resting on it awake.
- **joint endPoint**: Webots creates no fixed joint, so there is no feedback and "force" sensors
  read ``lookupTable(0)``; so do force sensors without Physics (with Webots' warning).

Bumpers add nothing to the model: the bank reads MuJoCo's contact list for the sensor's own geoms.
A tree carrying a force sensor never sleeps: a sleeping tree's sensors keep the value they had when
it fell asleep, which MuJoCo takes while the tree is still settling (up to ~0.1 % off m g, measured),
whereas an awake resting robot reads its weight exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco

from wbsim.compile.context import CompileContext
from wbsim.compile.slots import BodyRequest, DeviceSlot, SolidSlot
from wbsim.devices.kind import BodyPlan, DeviceCompiler
from wbsim.devices.lookup_table import lookup_warnings
from wbsim.devices.touch_sensor.schema import TYPES
from wbsim.world.model import WbNode

__all__ = ["TouchSensorBinding", "TouchSensorCompiler", "BUMPER", "FORCE", "FORCE3D"]

BUMPER, FORCE, FORCE3D = 0, 1, 2


@dataclass(frozen=True, slots=True)
class TouchSensorBinding:
    """A TouchSensor and where its readings come from.

    Attributes:
        node: the TouchSensor node.
        type: ``BUMPER`` (0), ``FORCE`` (1) or ``FORCE3D`` (2), Webots' ``getType`` values.
        body_id: the sensor's MuJoCo body.
        geom_ids: the collision geoms of its boundingObject (what a bumper watches).
        force_adr: index in ``mjData.history`` of the MuJoCo force sensor's ``substeps`` samples of 3
            components (sensor frame), one per physics step of the last basic step; -1 if the sensor has
            no force feedback (bumpers, no Physics, joint endPoints, top-level sensors).
        samples: the number of samples in that history (the physics steps per basic step).
        force_sign: +1 or -1: Webots' ``f1`` in the sensor frame is ``force_sign`` times the mean of the samples.
        lookup_table: the (input, output, noise) rows.
        resolution: the ``resolution`` field (-1: infinite).
    """

    node: WbNode
    type: int
    body_id: int
    geom_ids: tuple[int, ...]
    force_adr: int
    samples: int
    force_sign: float
    lookup_table: tuple[tuple[float, float, float], ...]
    resolution: float


@dataclass(eq=False)
class _Sensor:
    node: WbNode
    slot: SolidSlot
    type: int
    feedback: bool
    site: str = ""
    sensor: str = ""


class TouchSensorCompiler(DeviceCompiler):
    """Claims TouchSensor nodes, adds force sensors where Webots has feedback, keeps their trees awake."""

    def __init__(self) -> None:
        self._sensors: list[_Sensor] = []
        self._bindings: tuple[TouchSensorBinding, ...] = ()

    def plan_body(self, node: WbNode, request: BodyRequest) -> BodyPlan:
        """A static TouchSensor becomes a mocap body; bumpers without Physics are normal in dynamic robots."""
        static = not request.parent_dynamic and not request.end_point and not (request.top_level and request.has_physics)
        return BodyPlan(mocap=static, allow_no_physics_in_dynamic_parent=True)

    def add(self, ctx: CompileContext, node: WbNode, slot: DeviceSlot) -> bool:
        """Claim a TouchSensor, with Webots' load-time warnings."""
        assert isinstance(slot, SolidSlot)
        kind = TYPES.index(str(node["type"]))  # the checker already turned unknown types into "bumper"
        # Webots reads the feedback of the fixed joint to the parent Solid, which exists only for a sensor
        # with Physics that is neither a joint's endPoint nor a top-level (free) Solid.
        feedback = kind != BUMPER and slot.has_physics and slot.end_point_of is None and not slot.free_joint
        if kind != BUMPER and not slot.has_physics:
            ctx.warn('"force" and "force-3d" \'type\' requires \'physics\' to be functional.', node, "type")
        elif kind != BUMPER and not feedback:
            where = "a joint's endPoint" if slot.end_point_of is not None else "a top-level Solid"
            ctx.warn(f"This force TouchSensor is {where}: as in Webots, it has no fixed joint to a parent Solid and "
                     "always reads lookupTable(0). Put it inside the Solid whose load it should measure.", node, "type")
        if node["boundingObject"] is None:
            ctx.warn("This TouchSensor has no boundingObject: it cannot touch anything.", node)
        for message in lookup_warnings(node["lookupTable"]):  # type: ignore[arg-type]
            ctx.warn(message, node, "lookupTable")
        self._sensors.append(_Sensor(node, slot, kind, feedback))
        return True

    def contribute(self, ctx: CompileContext) -> None:
        """A site at each force sensor's origin (sensor frame) and a MuJoCo force sensor on it.

        The force sensor keeps its last ``substeps`` values (MuJoCo's sensor history): the bank averages
        them, which is the force over the whole basic step, as Webots' single ODE step reports it.
        """
        for sensor in self._sensors:
            if not sensor.feedback:
                continue
            sensor.site = ctx.fresh_name("ts")
            sensor.slot.body_spec.add_site(name=sensor.site)
            sensor.sensor = ctx.fresh_name("tsf")
            ctx.spec.add_sensor(name=sensor.sensor, type=mujoco.mjtSensor.mjSENS_FORCE,
                                objtype=mujoco.mjtObj.mjOBJ_SITE, objname=sensor.site, nsample=ctx.substeps)

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[TouchSensorBinding, ...]:
        """One :class:`TouchSensorBinding` per TouchSensor, in scene order."""
        result = []
        for sensor in self._sensors:
            solid = ctx.solid_binding(sensor.slot)
            sensor_id = ctx.element_id(model, mujoco.mjtObj.mjOBJ_SENSOR, sensor.sensor)
            table = tuple(tuple(float(v) for v in row) for row in sensor.node["lookupTable"])  # type: ignore[union-attr]
            result.append(TouchSensorBinding(
                node=sensor.node,
                type=sensor.type,
                body_id=solid.body_id,
                geom_ids=solid.geom_ids,
                # History layout: [phase, newest index, samples times, samples x 3 values].
                force_adr=int(model.sensor_historyadr[sensor_id]) + 2 + ctx.substeps if sensor_id >= 0 else -1,
                samples=ctx.substeps,
                # MuJoCo reads the force from the parent on the sensor; Webots' f1 is on the parent, except
                # under a static parent, where ODE swaps the joint's bodies (see the module docstring).
                force_sign=1.0 if sensor.slot.parent_static else -1.0,
                lookup_table=table,  # type: ignore[arg-type]
                resolution=float(sensor.node["resolution"]),  # type: ignore[arg-type]
            ))
        self._bindings = tuple(result)
        return self._bindings

    def tune(self, ctx: CompileContext, model: mujoco.MjModel) -> bool:
        """Trees carrying a force sensor never sleep (their reading stays exact at rest)."""
        for binding in self._bindings:
            tree = int(model.body_treeid[binding.body_id])
            if binding.force_adr >= 0 and tree >= 0:
                model.tree_sleep_policy[tree] = mujoco.mjtSleepPolicy.mjSLEEP_NEVER
        return False
