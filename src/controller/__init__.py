"""Webots-compatible ``controller`` module: ``from controller import Robot, Motor, TouchSensor, ...``.

A thin re-export of :mod:`wbsim.api` (Robot, Supervisor, Node, Field, Device, Sensor, the user input
devices Keyboard, Mouse, MouseState, Joystick, and AnsiCodes) plus the API
classes of every registered device kind (:mod:`wbsim.devices.registry`), so that unmodified Webots
Python controllers run in wbsim. Device classes are looked up on first access.
"""

from __future__ import annotations

from typing import Any

from wbsim.api import device_api_classes
from wbsim.api.ansi_codes import AnsiCodes
from wbsim.api.device import Device, Sensor
from wbsim.api.motion import Motion
from wbsim.api.robot import Robot
from wbsim.api.supervisor import ContactPoint, Field, Node, Proto, Supervisor
from wbsim.api.user_input import Joystick, Keyboard, Mouse, MouseState

_BASE = tuple(cls.__name__ for cls in (AnsiCodes, ContactPoint, Device, Field, Joystick, Keyboard, Motion, Mouse,
                                       MouseState, Node, Proto, Robot, Sensor, Supervisor))


def __getattr__(name: str) -> Any:
    if name == "__all__":
        return sorted((*_BASE, *device_api_classes()))
    classes = device_api_classes()
    if name in classes:
        return classes[name]
    raise AttributeError(f"module 'controller' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *device_api_classes()})
