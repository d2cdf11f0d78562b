"""Compile Gyro nodes: a site at the sensor's frame, and the body it reads.

Webots (``WbGyro::computeValue``) reads the angular velocity of the Gyro's own ODE body if it has Physics,
else of its upper Solid's (``upperSolidBody()``); see :mod:`wbsim.devices.three_axis.compile`.
"""

from __future__ import annotations

from wbsim.devices.three_axis.compile import ThreeAxisBinding, ThreeAxisCompiler

__all__ = ["GyroCompiler", "ThreeAxisBinding"]


class GyroCompiler(ThreeAxisCompiler):
    """Claims Gyro nodes; each reads its own body if it has Physics, else its upper Solid's."""

    site_prefix = "gyr"
    reads_own_body = True
