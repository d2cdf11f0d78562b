"""Emitter and Receiver: packets between robots, and to and from the physics plugin (Webots' radio devices).

One device kind for both node types, so one bank holds every emitter and receiver of a world and delivers
vectorised. Package layout (see ``docs/architecture.md``): ``schema`` (node schemas and Webots' repairs),
``compile`` (frames, robots, the geom map for line of sight, ``RadioBinding``), ``delivery`` (range,
aperture cones, signal strength and direction, infra-red line of sight with MuJoCo ray casts), ``bank``
(fields, controller-library queues, transmission, reception, the core ``Emitter`` and ``Receiver``),
``api`` (Webots' ``Emitter`` and ``Receiver``). Behaviour: ``docs/radio.md``.
"""

from __future__ import annotations

from wbsim.devices.kind import DeviceKind, lazy

__all__ = ["KIND"]

KIND = DeviceKind(
    name="radio",
    node_types=("Emitter", "Receiver"),
    placement="solid",
    schemas=lazy("wbsim.devices.radio.schema:schemas"),
    compiler=lazy("wbsim.devices.radio.compile:RadioCompiler"),
    bank=lazy("wbsim.devices.radio.bank:RadioBank"),
    api=lazy("wbsim.devices.radio.api:make_api"),
    api_classes=lazy("wbsim.devices.radio.api:api_classes"),
    deprecated_getters=(("getEmitter", "getEmitter"), ("getReceiver", "getReceiver")),
)
"""The radio device kind (Emitter and Receiver nodes)."""
