"""RotationalMotor and LinearMotor: Webots' velocity/position/torque-controlled joint motors.

Package layout (one device kind, see ``docs/architecture.md``): ``schema`` (node schemas),
``compile`` (MuJoCo elements and ``MotorBinding``), ``bank`` (vectorised control law and the core
``Motor``), ``api`` (Webots' ``Motor``, ``RotationalMotor``, ``LinearMotor``).
"""

from __future__ import annotations

from wbsim.devices.kind import DeviceKind, lazy

__all__ = ["KIND"]

KIND = DeviceKind(
    name="motor",
    node_types=("RotationalMotor", "LinearMotor"),
    placement="joint",
    schemas=lazy("wbsim.devices.motor.schema:schemas"),
    compiler=lazy("wbsim.devices.motor.compile:MotorCompiler"),
    bank=lazy("wbsim.devices.motor.bank:MotorBank"),
    api=lazy("wbsim.devices.motor.api:make_api"),
    api_classes=lazy("wbsim.devices.motor.api:api_classes"),
    deprecated_getters=(("getMotor", "getMotor"),),
)
"""The motor device kind."""
