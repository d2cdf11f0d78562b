"""Webots-compatible ``controller`` module: ``from controller import Robot, Motor, PositionSensor, Supervisor``.

This is a thin re-export of :mod:`wbsim.api` so that unmodified Webots Python controllers run in wbsim.
"""

from wbsim.api import (
    Device,
    Field,
    LinearMotor,
    Motor,
    Node,
    PositionSensor,
    Robot,
    RotationalMotor,
    Supervisor,
)

__all__ = [
    "Device",
    "Field",
    "LinearMotor",
    "Motor",
    "Node",
    "PositionSensor",
    "Robot",
    "RotationalMotor",
    "Supervisor",
]
