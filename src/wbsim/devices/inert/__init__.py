"""Inert devices: Webots device nodes that wbsim does not simulate yet, kept as devices.

One generic kind driven by data (:mod:`wbsim.devices.inert.spec`): a Camera, RangeFinder, Radar,
LightSensor, Speaker, Pen, Display, VacuumGripper, Microphone or Radio keeps its Solid part (frame, mass,
boundingObject, children with their joints and motors), prints one located warning naming what is not
simulated, and ``Robot.getDevice`` returns an object of its Webots class whose methods accept Webots'
arguments and answer Webots' "no data" values (NaN, empty lists, -1, the node's own fields for
static properties). Package layout: ``schema`` (node schemas from the spec), ``compile`` (frame-only
placement, the warning), ``bank`` (sampling periods and the state set by controllers), ``api`` (the
classes built from the spec). Behaviour: ``docs/inert_devices.md``.
"""

from __future__ import annotations

from wbsim.devices.kind import DeviceKind, lazy

__all__ = ["KIND"]

KIND = DeviceKind(
    name="inert",
    node_types=("Camera", "RangeFinder", "Radar", "LightSensor", "Speaker", "Pen", "Display", "VacuumGripper",
                "Microphone", "Radio"),  # the keys of spec.INERT_DEVICES (a test checks)
    placement="solid",
    schemas=lazy("wbsim.devices.inert.schema:schemas"),
    compiler=lazy("wbsim.devices.inert.compile:InertCompiler"),
    bank=lazy("wbsim.devices.inert.bank:InertBank"),
    api=lazy("wbsim.devices.inert.api:make_api"),
    api_classes=lazy("wbsim.devices.inert.api:api_classes"),
    deprecated_getters=(
        ("getCamera", "getCamera"), ("getRangeFinder", "getRangeFinder"), ("getRadar", "getRadar"),
        ("getLightSensor", "getLightSensor"), ("getSpeaker", "getSpeaker"), ("getPen", "getPen"),
        ("getDisplay", "getDisplay"),
    ),
)
"""The inert device kind."""
