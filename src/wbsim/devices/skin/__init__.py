"""Skin: Webots' skinned-mesh device, kept as an inert device.

A Skin is not a Solid: it sits in a ``children`` field of a robot and deforms a mesh (read from the FBX file
of ``modelUrl``) along a skeleton. wbsim renders nothing and reads no FBX file, so the node has no physical
effect; it is still a device: ``Robot.getDevice`` returns Webots' ``Skin`` class, which answers as Webots
does for a skin without skeleton (no bones). Package layout: ``schema`` (the node schema), ``compile``
(the claim and its located warning), ``bank`` (the inert bank with this kind's core devices), ``api`` (the
``Skin`` class). Behaviour: ``docs/inert_devices.md``.
"""

from __future__ import annotations

from wbsim.devices.kind import DeviceKind, lazy

__all__ = ["KIND"]

KIND = DeviceKind(
    name="skin",
    node_types=("Skin",),
    placement="child",
    schemas=lazy("wbsim.devices.skin.schema:schemas"),
    compiler=lazy("wbsim.devices.skin.compile:SkinCompiler"),
    bank=lazy("wbsim.devices.skin.bank:SkinBank"),
    api=lazy("wbsim.devices.skin.api:make_api"),
    api_classes=lazy("wbsim.devices.skin.api:api_classes"),
)
"""The skin device kind."""
