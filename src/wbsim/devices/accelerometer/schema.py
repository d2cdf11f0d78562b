"""Node schema of Accelerometer (Webots' ``Accelerometer.wrl``: every Solid field plus the sensor's own)."""

from __future__ import annotations

from wbsim.devices.three_axis.schema import three_axis_schema
from wbsim.world.schema import NodeSchema

__all__ = ["schemas"]


def schemas() -> list[NodeSchema]:
    """The Accelerometer schema: ``name`` "accelerometer", ``lookupTable`` [] (m/s^2 -> output, noise),
    ``xAxis``/``yAxis``/``zAxis`` TRUE, ``resolution`` -1."""
    return [three_axis_schema("Accelerometer", "accelerometer", "m/s^2")]
