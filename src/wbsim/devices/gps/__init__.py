"""GPS: the absolute position, speed and velocity of a device origin, with Webots semantics.

Package layout (one device kind, see ``docs/architecture.md``): ``schema`` (node schema and Webots'
repairs), ``geo`` (the world's GPS frame from WorldInfo, Webots' UTM projection for WGS84), ``compile``
(a site at each GPS origin, ``GpsBinding``; the site compiler the Altimeter shares), ``bank`` (sampling,
noise, speed, the core ``GPS``), ``api`` (Webots' ``GPS``). Behaviour: ``docs/gps.md``.
"""

from __future__ import annotations

from wbsim.devices.kind import DeviceKind, lazy

__all__ = ["KIND"]

KIND = DeviceKind(
    name="gps",
    node_types=("GPS",),
    placement="solid",
    schemas=lazy("wbsim.devices.gps.schema:schemas"),
    compiler=lazy("wbsim.devices.gps.compile:GpsCompiler"),
    bank=lazy("wbsim.devices.gps.bank:GpsBank"),
    api=lazy("wbsim.devices.gps.api:GPS"),
    api_classes=lazy("wbsim.devices.gps.api:api_classes"),
    deprecated_getters=(("getGPS", "getGPS"),),
)
"""The GPS device kind."""
