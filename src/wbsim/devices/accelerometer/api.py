"""Webots' ``Accelerometer`` API over the core accelerometer (texts and return values of ``accelerometer.c``
and the Python ``accelerometer.py``)."""

from __future__ import annotations

from wbsim.devices.three_axis.api import ThreeAxisSensor

__all__ = ["Accelerometer", "api_classes"]


class Accelerometer(ThreeAxisSensor):
    """An accelerometer (Webots ``controller.Accelerometer``).

    ``getValues()`` (and the ``value`` property) returns the acceleration minus gravity in m/s^2 along the
    sensor's x, y and z axes (1 g up at rest, 0 in free fall), through the lookup table (default: none).
    """

    _C_NAME = "wb_accelerometer"


def api_classes() -> dict[str, type]:
    """The classes the ``controller`` module exports for accelerometers."""
    return {"Accelerometer": Accelerometer}
