"""The Webots controller API (camelCase, as in Webots' Python ``controller`` module), over wbsim's core."""

from wbsim.api.device import Device
from wbsim.api.motor import LinearMotor, Motor, RotationalMotor
from wbsim.api.position_sensor import PositionSensor
from wbsim.api.robot import Robot
from wbsim.api.supervisor import Field, Node, Supervisor

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
