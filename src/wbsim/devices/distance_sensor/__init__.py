"""DistanceSensor: generic, infra-red, sonar and laser range sensors with Webots semantics.

Package layout (one device kind, see ``docs/architecture.md``): ``schema`` (node schema and Webots'
repairs), ``rays`` (Webots' ray directions and weights), ``caster`` (batched ray casting against the
collision geoms), ``compile`` (frames, ray targets and surfaces, ``DistanceSensorBinding``), ``bank``
(sampling, Webots' per-type distance, lookup tables, the core ``DistanceSensor``), ``api`` (Webots'
``DistanceSensor``). Behaviour: ``docs/distance_sensor.md``.
"""

from __future__ import annotations

from wbsim.devices.kind import DeviceKind, lazy

__all__ = ["KIND"]

KIND = DeviceKind(
    name="distance_sensor",
    node_types=("DistanceSensor",),
    placement="solid",
    schemas=lazy("wbsim.devices.distance_sensor.schema:schemas"),
    compiler=lazy("wbsim.devices.distance_sensor.compile:DistanceSensorCompiler"),
    bank=lazy("wbsim.devices.distance_sensor.bank:DistanceSensorBank"),
    api=lazy("wbsim.devices.distance_sensor.api:DistanceSensor"),
    api_classes=lazy("wbsim.devices.distance_sensor.api:api_classes"),
    deprecated_getters=(("getDistanceSensor", "getDistanceSensor"),),
)
"""The distance sensor device kind."""
