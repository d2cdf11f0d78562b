"""Connector: docking with presence, locking, snapping and breakage (Webots' ``Connector``).

Package layout (one device kind, see ``docs/architecture.md``): ``schema`` (node schema and Webots'
repairs), ``compile`` (frames, linked bodies, the pool of welds and exclusions, ``ConnectorBinding``),
``presence`` (vectorised peer detection and its reference), ``weld`` (held poses, snap ramps), ``bank``
(the lock state machine, links, rupture, presence sampling, the core ``Connector``), ``api`` (Webots'
``Connector``). Behaviour: ``docs/connector.md``.
"""

from __future__ import annotations

from wbsim.devices.kind import DeviceKind, lazy

__all__ = ["KIND"]

KIND = DeviceKind(
    name="connector",
    node_types=("Connector",),
    placement="solid",
    schemas=lazy("wbsim.devices.connector.schema:schemas"),
    compiler=lazy("wbsim.devices.connector.compile:ConnectorCompiler"),
    bank=lazy("wbsim.devices.connector.bank:ConnectorBank"),
    api=lazy("wbsim.devices.connector.api:Connector"),
    api_classes=lazy("wbsim.devices.connector.api:api_classes"),
    deprecated_getters=(("getConnector", "getConnector"),),
    outside_robot=True,
)
"""The connector device kind."""
