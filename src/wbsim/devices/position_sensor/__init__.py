"""PositionSensor: the joint position (rad or m) with Webots' noise, resolution and sampling.

Package layout (one device kind, see ``docs/architecture.md``): ``schema``, ``compile``
(``PositionSensorBinding``), ``bank`` (vectorised sampling and the core ``PositionSensor``), ``api``
(Webots' ``PositionSensor``).
"""

from __future__ import annotations

from wbsim.devices.kind import DeviceKind, lazy

__all__ = ["KIND"]

KIND = DeviceKind(
    name="position_sensor",
    node_types=("PositionSensor",),
    placement="joint",
    schemas=lazy("wbsim.devices.position_sensor.schema:schemas"),
    compiler=lazy("wbsim.devices.position_sensor.compile:PositionSensorCompiler"),
    bank=lazy("wbsim.devices.position_sensor.bank:PositionSensorBank"),
    api=lazy("wbsim.devices.position_sensor.api:PositionSensor"),
    api_classes=lazy("wbsim.devices.position_sensor.api:api_classes"),
    deprecated_getters=(("getPositionSensor", "getPositionSensor"),),
)
"""The position sensor device kind."""
