"""Gyro: the angular velocity of a robot part about 1 to 3 axes, with Webots semantics.

Package layout (one device kind, see ``docs/architecture.md``): ``schema`` (node schema), ``compile``
(frame and body, :class:`~wbsim.devices.three_axis.compile.ThreeAxisBinding`), ``bank`` (the angular
velocity in the sensor frame, the core ``Gyro``), ``api`` (Webots' ``Gyro``). What it shares with the
Accelerometer is in :mod:`wbsim.devices.three_axis`. Behaviour: ``docs/gyro.md``.
"""

from __future__ import annotations

from wbsim.devices.kind import DeviceKind, lazy

__all__ = ["KIND"]

KIND = DeviceKind(
    name="gyro",
    node_types=("Gyro",),
    placement="solid",
    schemas=lazy("wbsim.devices.gyro.schema:schemas"),
    compiler=lazy("wbsim.devices.gyro.compile:GyroCompiler"),
    bank=lazy("wbsim.devices.gyro.bank:GyroBank"),
    api=lazy("wbsim.devices.gyro.api:Gyro"),
    api_classes=lazy("wbsim.devices.gyro.api:api_classes"),
    deprecated_getters=(("getGyro", "getGyro"),),
)
"""The gyro device kind."""
