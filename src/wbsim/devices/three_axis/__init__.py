"""What Webots' Accelerometer and Gyro share: three axes read through one lookup table (not a device kind).

Webots' ``WbAccelerometer`` and ``WbGyro`` are the same sensor around a different measurement: a vector in
the sensor's frame, each enabled axis (``xAxis``, ``yAxis``, ``zAxis``) mapped through the same
``lookupTable`` (with its noise) and discretised by ``resolution``, a disabled axis read as NaN.
``schema`` (the node schema), ``compile`` (the sensor frame and the body whose motion it reads),
``bank`` (sampling, tables, resolution; the measurement is the subclass's) and ``api`` (the Webots
API base) hold that; :mod:`wbsim.devices.accelerometer` and :mod:`wbsim.devices.gyro` are the kinds.
"""

from __future__ import annotations

__all__: list[str] = []
