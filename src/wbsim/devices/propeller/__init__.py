"""Propeller: Webots' thrust and torque from its RotationalMotor's velocity, applied to the enclosing body.

Package layout (one device kind, see ``docs/architecture.md``): ``schema`` (the Propeller node schema),
``compile`` (``PropellerBinding``: body, frames, constants, motor), ``physics`` (the vectorised motor ramp and
thrust/torque formulas), ``bank`` (the per-step work and the core ``PropellerMotor``), ``api`` (the motor as
Webots' ``RotationalMotor``). See ``docs/propeller.md``.
"""

from __future__ import annotations

from wbsim.devices.kind import DeviceKind, lazy

__all__ = ["KIND"]

KIND = DeviceKind(
    name="propeller",
    node_types=("Propeller",),
    placement="child",
    schemas=lazy("wbsim.devices.propeller.schema:schemas"),
    compiler=lazy("wbsim.devices.propeller.compile:PropellerCompiler"),
    bank=lazy("wbsim.devices.propeller.bank:PropellerBank"),
    api=lazy("wbsim.devices.propeller.api:make_api"),
    api_classes=lazy("wbsim.devices.propeller.api:api_classes"),
    outside_robot=True,  # the compiler prints its own warning (a Propeller has no name field)
)
"""The propeller device kind (its controller-side device is the Propeller's RotationalMotor)."""
