"""The registered device kinds: the one list the builder, the loop, the robot API and ``controller`` read.

Adding a device kind: write its package under :mod:`wbsim.devices` (schema, compiler, bank, core
device, API class; see ``docs/architecture.md``) and add its module to :data:`KIND_MODULES`.
Kinds are imported on first use, not at import time, so the world stage can ask for schemas without
import cycles.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from types import MappingProxyType

from wbsim.devices.kind import DeviceKind

__all__ = ["KIND_MODULES", "device_kinds", "kind_named", "kinds_by_node_type"]

KIND_MODULES: tuple[str, ...] = (
    "wbsim.devices.motor",
    "wbsim.devices.position_sensor",
    "wbsim.devices.touch_sensor",
    "wbsim.devices.connector",
    "wbsim.devices.distance_sensor",
    "wbsim.devices.led",
    "wbsim.devices.radio",
    "wbsim.devices.inertial_unit",
    "wbsim.devices.compass",
    "wbsim.devices.gps",
    "wbsim.devices.altimeter",
    "wbsim.devices.accelerometer",
    "wbsim.devices.gyro",
    "wbsim.devices.lidar",
    "wbsim.devices.propeller",
    "wbsim.devices.track",
    "wbsim.devices.inert",
    "wbsim.devices.brake",
    "wbsim.devices.skin",
)
"""The modules defining a ``KIND``, in the order banks run within a phase."""


@functools.cache
def device_kinds() -> tuple[DeviceKind, ...]:
    """Every registered device kind, in :data:`KIND_MODULES` order (immutable, built once)."""
    return tuple(importlib.import_module(module).KIND for module in KIND_MODULES)


@functools.cache
def kinds_by_node_type() -> Mapping[str, DeviceKind]:
    """The device kind simulating each Webots node type."""
    return MappingProxyType({t: kind for kind in device_kinds() for t in kind.node_types})


def kind_named(name: str) -> DeviceKind:
    """The device kind called ``name`` (e.g. ``"touch_sensor"``).

    Raises:
        KeyError: no kind has that name.
    """
    for kind in device_kinds():
        if kind.name == name:
            return kind
    raise KeyError(name)
