"""Transmissions: maps between actuator space (motors, encoders) and joint space (what controllers command).

A Python re-implementation of ros2_control's ``transmission_interface`` (simple, differential and four-bar
linkage transmissions), with a vectorised functional API beside the handle API, linear-map extraction, a
power-conservation check and a URDF loader. See ``docs/transmissions.md``.

Example::

    import numpy as np
    from wbsim.transmission import DifferentialTransmission

    wrist = DifferentialTransmission(actuator_reduction=(50, -50), joint_reduction=(2, -2))
    motor_angles = np.zeros((1000, 2))                      # 1000 robots, 2 actuators each
    joint_angles = wrist.actuator_to_joint_values("position", motor_angles)   # shape (1000, 2)
"""

from wbsim.errors import TransmissionError
from wbsim.transmission.base import Transmission
from wbsim.transmission.differential import DifferentialTransmission
from wbsim.transmission.four_bar import EFFORT_MAPS, EffortMap, FourBarLinkageTransmission
from wbsim.transmission.handle import ActuatorHandle, Handle, JointHandle
from wbsim.transmission.hardware import (
    COMMAND_INTERFACES,
    STATE_INTERFACES,
    TransmissionHardware,
    attach_transmissions,
)
from wbsim.transmission.interfaces import (
    ABSOLUTE_POSITION,
    ALL_INTERFACES,
    EFFORT,
    FORCE,
    POSITION,
    TORQUE,
    VELOCITY,
)
from wbsim.transmission.simple import SimpleTransmission
from wbsim.transmission.urdf import (
    DIFFERENTIAL_TRANSMISSION_PLUGIN,
    FOUR_BAR_LINKAGE_TRANSMISSION_PLUGIN,
    SIMPLE_TRANSMISSION_PLUGIN,
    TRANSMISSION_PLUGINS,
    ActuatorInfo,
    JointInfo,
    LoadedTransmission,
    load_transmissions,
)

__all__ = [
    "ABSOLUTE_POSITION",
    "ALL_INTERFACES",
    "ActuatorHandle",
    "ActuatorInfo",
    "COMMAND_INTERFACES",
    "DIFFERENTIAL_TRANSMISSION_PLUGIN",
    "DifferentialTransmission",
    "EFFORT",
    "EFFORT_MAPS",
    "EffortMap",
    "FORCE",
    "FOUR_BAR_LINKAGE_TRANSMISSION_PLUGIN",
    "FourBarLinkageTransmission",
    "Handle",
    "JointHandle",
    "JointInfo",
    "LoadedTransmission",
    "POSITION",
    "SIMPLE_TRANSMISSION_PLUGIN",
    "STATE_INTERFACES",
    "SimpleTransmission",
    "TORQUE",
    "TRANSMISSION_PLUGINS",
    "Transmission",
    "TransmissionError",
    "TransmissionHardware",
    "VELOCITY",
    "attach_transmissions",
    "load_transmissions",
]
