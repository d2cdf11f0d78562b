"""Altimeter: the altitude of a device origin, with Webots semantics.

Package layout (one device kind, see ``docs/architecture.md``): ``schema`` (node schema and Webots'
repair), ``compile`` (a site at each origin, ``AltimeterBinding``; it shares the GPS site compiler and the
world's GPS frame, :mod:`wbsim.devices.gps.geo`), ``bank`` (sampling, noise, resolution, the core
``Altimeter``), ``api`` (Webots' ``Altimeter``). Behaviour: ``docs/gps.md``.
"""

from __future__ import annotations

from wbsim.devices.kind import DeviceKind, lazy

__all__ = ["KIND"]

KIND = DeviceKind(
    name="altimeter",
    node_types=("Altimeter",),
    placement="solid",
    schemas=lazy("wbsim.devices.altimeter.schema:schemas"),
    compiler=lazy("wbsim.devices.altimeter.compile:AltimeterCompiler"),
    bank=lazy("wbsim.devices.altimeter.bank:AltimeterBank"),
    api=lazy("wbsim.devices.altimeter.api:Altimeter"),
    api_classes=lazy("wbsim.devices.altimeter.api:api_classes"),
    deprecated_getters=(("getAltimeter", "getAltimeter"),),
)
"""The altimeter device kind."""
