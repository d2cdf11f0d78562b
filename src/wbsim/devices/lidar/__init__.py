"""Lidar: fixed and rotating laser scanners with Webots semantics, cast on the collision geoms.

Package layout (one device kind, see ``docs/architecture.md``): ``schema`` (node schema and Webots'
interdependent repairs), ``rays`` (Webots' layout of the range image: layer elevations, column azimuths,
the rotating head's sweep, the point-cloud angles), ``compile`` (frames, bindings), ``bank`` (sampling,
batched ray casting with ``mujoco.mj_multiRay``, noise, resolution, point cloud, the core ``Lidar``),
``api`` (Webots' ``Lidar`` and ``LidarPoint``). Behaviour: ``docs/lidar.md``.
"""

from __future__ import annotations

from wbsim.devices.kind import DeviceKind, lazy

__all__ = ["KIND"]

KIND = DeviceKind(
    name="lidar",
    node_types=("Lidar",),
    placement="solid",
    schemas=lazy("wbsim.devices.lidar.schema:schemas"),
    compiler=lazy("wbsim.devices.lidar.compile:LidarCompiler"),
    bank=lazy("wbsim.devices.lidar.bank:LidarBank"),
    api=lazy("wbsim.devices.lidar.api:Lidar"),
    api_classes=lazy("wbsim.devices.lidar.api:api_classes"),
    deprecated_getters=(("getLidar", "getLidar"),),
)
"""The lidar device kind."""
