"""Compass: the north direction in a sensor's frame, with Webots semantics.

Package layout (one device kind, see ``docs/architecture.md``): ``schema`` (node schema), ``compile`` (the
sensor's frame and the world's north, ``CompassBinding``), ``bank`` (sampling, lookup tables, disabled axes,
resolution, the core ``Compass``), ``api`` (Webots' ``Compass``). Behaviour: ``docs/compass.md``.
"""

from __future__ import annotations

from wbsim.devices.kind import DeviceKind, lazy

__all__ = ["KIND"]

KIND = DeviceKind(
    name="compass",
    node_types=("Compass",),
    placement="solid",
    schemas=lazy("wbsim.devices.compass.schema:schemas"),
    compiler=lazy("wbsim.devices.compass.compile:CompassCompiler"),
    bank=lazy("wbsim.devices.compass.bank:CompassBank"),
    api=lazy("wbsim.devices.compass.api:Compass"),
    api_classes=lazy("wbsim.devices.compass.api:api_classes"),
    deprecated_getters=(("getCompass", "getCompass"),),
)
"""The compass device kind."""
