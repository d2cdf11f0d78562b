"""InertialUnit: the attitude (roll, pitch, yaw and quaternion) of a frame, with Webots semantics.

Package layout (one device kind, see ``docs/architecture.md``): ``schema`` (node schema), ``attitude``
(Webots' rotation arithmetic, vectorised), ``compile`` (the sensor's frame, ``InertialUnitBinding``), ``bank``
(sampling, noise, disabled axes, resolution, the core ``InertialUnit``), ``api`` (Webots'
``InertialUnit``). Behaviour: ``docs/inertial_unit.md``.
"""

from __future__ import annotations

from wbsim.devices.kind import DeviceKind, lazy

__all__ = ["KIND"]

KIND = DeviceKind(
    name="inertial_unit",
    node_types=("InertialUnit",),
    placement="solid",
    schemas=lazy("wbsim.devices.inertial_unit.schema:schemas"),
    compiler=lazy("wbsim.devices.inertial_unit.compile:InertialUnitCompiler"),
    bank=lazy("wbsim.devices.inertial_unit.bank:InertialUnitBank"),
    api=lazy("wbsim.devices.inertial_unit.api:InertialUnit"),
    api_classes=lazy("wbsim.devices.inertial_unit.api:api_classes"),
    deprecated_getters=(("getInertialUnit", "getInertialUnit"),),
)
"""The inertial unit device kind."""
