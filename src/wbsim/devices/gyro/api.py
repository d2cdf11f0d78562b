"""Webots' ``Gyro`` API over the core gyro (texts and return values of ``gyro.c`` and the Python ``gyro.py``)."""

from __future__ import annotations

from wbsim.devices.three_axis.api import ThreeAxisSensor

__all__ = ["Gyro", "api_classes"]


class Gyro(ThreeAxisSensor):
    """A gyroscope (Webots ``controller.Gyro``).

    ``getValues()`` (and the ``value`` property) returns the angular velocity in rad/s about the sensor's x,
    y and z axes, through the lookup table (default: none).
    """

    _C_NAME = "wb_gyro"


def api_classes() -> dict[str, type]:
    """The classes the ``controller`` module exports for gyros."""
    return {"Gyro": Gyro}
