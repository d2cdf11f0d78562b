"""The Webots controller API (camelCase, as in Webots' Python ``controller`` module), over wbsim's core.

The robot-level classes live here; each device kind brings its own API classes (see
:func:`device_api_classes`), which are also reachable as attributes of this package.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from wbsim.api.device import Device, Sensor
from wbsim.api.robot import Robot
from wbsim.api.supervisor import Field, Node, Supervisor

__all__ = ["Device", "Field", "Node", "Robot", "Sensor", "Supervisor", "device_api_classes"]


@functools.cache
def device_api_classes() -> Mapping[str, type]:
    """The Webots API class of every registered device kind, by class name (``"TouchSensor"``, ...)."""
    from wbsim.devices.registry import device_kinds

    return MappingProxyType({name: cls for kind in device_kinds() for name, cls in kind.api_classes().items()})


def __getattr__(name: str) -> Any:
    classes = device_api_classes()
    if name in classes:
        return classes[name]
    raise AttributeError(f"module 'wbsim.api' has no attribute {name!r}")
