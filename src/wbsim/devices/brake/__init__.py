"""Brake: a joint device that adds a damping constant to its joint (Webots' ``WbBrake``).

Package layout (one device kind, see ``docs/architecture.md``): ``schema``, ``compile`` (``BrakeBinding``:
the joint's DOF and its own damping), ``bank`` (the damping each brake adds, applied with the next step),
``api`` (Webots' ``Brake``).
"""

from __future__ import annotations

from wbsim.devices.kind import DeviceKind, lazy

__all__ = ["KIND"]

KIND = DeviceKind(
    name="brake",
    node_types=("Brake",),
    placement="joint",
    schemas=lazy("wbsim.devices.brake.device:schemas"),
    compiler=lazy("wbsim.devices.brake.device:BrakeCompiler"),
    bank=lazy("wbsim.devices.brake.device:BrakeBank"),
    api=lazy("wbsim.devices.brake.device:Brake"),
    api_classes=lazy("wbsim.devices.brake.device:api_classes"),
    deprecated_getters=(("getBrake", "getBrake"),),
)
"""The brake device kind."""
