"""Devices: one package per device kind (``motor``, ``position_sensor``, ``touch_sensor``), registered in
:mod:`wbsim.devices.registry`, and what kinds share (sampling schedule, lookup tables, resolution).

See ``docs/architecture.md`` for what a device kind provides and how to add one.
"""

from wbsim.devices.kind import BankContext, DeviceBank, DeviceCompiler, DeviceKind
from wbsim.devices.registry import device_kinds, kind_named

__all__ = ["BankContext", "DeviceBank", "DeviceCompiler", "DeviceKind", "device_kinds", "kind_named"]
