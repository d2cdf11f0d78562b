"""Node schema of Gyro (Webots' ``Gyro.wrl``: every Solid field plus the sensor's own)."""

from __future__ import annotations

from wbsim.devices.three_axis.schema import three_axis_schema
from wbsim.world.schema import NodeSchema

__all__ = ["schemas"]


def schemas() -> list[NodeSchema]:
    """The Gyro schema: ``name`` "gyro", ``lookupTable`` [] (rad/s -> output, noise), ``xAxis``/``yAxis``/
    ``zAxis`` TRUE, ``resolution`` -1."""
    return [three_axis_schema("Gyro", "gyro", "rad/s")]
