"""Compile Accelerometer nodes: a site at the sensor's frame, and its upper Solid's body.

Webots (``WbAccelerometer::computeValue``) reads the velocity of the sensor's position as a point of its
upper Solid's ODE body (``upperSolid()->bodyMerger()``), even when the Accelerometer has Physics of its
own; see :mod:`wbsim.devices.three_axis.compile`.
"""

from __future__ import annotations

from wbsim.devices.three_axis.compile import ThreeAxisBinding, ThreeAxisCompiler

__all__ = ["AccelerometerCompiler", "ThreeAxisBinding"]


class AccelerometerCompiler(ThreeAxisCompiler):
    """Claims Accelerometer nodes; each reads the body of its upper Solid."""

    site_prefix = "acc"
    reads_own_body = False
