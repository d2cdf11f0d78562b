"""Accelerometer: the acceleration of a point of a robot minus gravity, on 1 to 3 axes, with Webots semantics.

Package layout (one device kind, see ``docs/architecture.md``): ``schema`` (node schema), ``compile``
(frame and body, :class:`~wbsim.devices.three_axis.compile.ThreeAxisBinding`), ``bank`` (Webots'
finite-difference acceleration, the core ``Accelerometer``), ``api`` (Webots' ``Accelerometer``). What it
shares with the Gyro is in :mod:`wbsim.devices.three_axis`. Behaviour: ``docs/accelerometer.md``.
"""

from __future__ import annotations

from wbsim.devices.kind import DeviceKind, lazy

__all__ = ["KIND"]

KIND = DeviceKind(
    name="accelerometer",
    node_types=("Accelerometer",),
    placement="solid",
    schemas=lazy("wbsim.devices.accelerometer.schema:schemas"),
    compiler=lazy("wbsim.devices.accelerometer.compile:AccelerometerCompiler"),
    bank=lazy("wbsim.devices.accelerometer.bank:AccelerometerBank"),
    api=lazy("wbsim.devices.accelerometer.api:Accelerometer"),
    api_classes=lazy("wbsim.devices.accelerometer.api:api_classes"),
    deprecated_getters=(("getAccelerometer", "getAccelerometer"),),
)
"""The accelerometer device kind."""
