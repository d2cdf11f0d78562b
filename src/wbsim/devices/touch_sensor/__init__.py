"""TouchSensor: bumpers, force and force-3d sensors with Webots semantics.

Package layout (one device kind, see ``docs/architecture.md``): ``schema`` (node schema),
``compile`` (body, force readout, ``TouchSensorBinding``), ``bank`` (contact watch, sampling, lookup
tables, the core ``TouchSensor``), ``api`` (Webots' ``TouchSensor``). Behaviour: ``docs/touch_sensor.md``.
"""

from __future__ import annotations

from wbsim.devices.kind import DeviceKind, lazy

__all__ = ["KIND"]

KIND = DeviceKind(
    name="touch_sensor",
    node_types=("TouchSensor",),
    placement="solid",
    schemas=lazy("wbsim.devices.touch_sensor.schema:schemas"),
    compiler=lazy("wbsim.devices.touch_sensor.compile:TouchSensorCompiler"),
    bank=lazy("wbsim.devices.touch_sensor.bank:TouchSensorBank"),
    api=lazy("wbsim.devices.touch_sensor.api:TouchSensor"),
    api_classes=lazy("wbsim.devices.touch_sensor.api:api_classes"),
    deprecated_getters=(("getTouchSensor", "getTouchSensor"),),
)
"""The touch sensor device kind."""
