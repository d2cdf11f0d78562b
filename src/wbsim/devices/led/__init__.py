"""LED: Webots' light emitting diode (on/off, colour, monochrome and RGB gradual LEDs).

Package layout (one device kind, see ``docs/architecture.md``): ``schema`` (node schema), ``compile`` (the
materials and lights an LED drives, ``LedBinding``), ``bank`` (the LED state, Webots' colour rules,
supervisor reads of the driven fields, the core ``Led``), ``api`` (Webots' ``LED``). Behaviour:
``docs/led.md``.
"""

from __future__ import annotations

from wbsim.devices.kind import DeviceKind, lazy

__all__ = ["KIND"]

KIND = DeviceKind(
    name="led",
    node_types=("LED",),
    placement="solid",
    schemas=lazy("wbsim.devices.led.schema:schemas"),
    compiler=lazy("wbsim.devices.led.compile:LedCompiler"),
    bank=lazy("wbsim.devices.led.bank:LedBank"),
    api=lazy("wbsim.devices.led.api:LED"),
    api_classes=lazy("wbsim.devices.led.api:api_classes"),
    deprecated_getters=(("getLED", "getLED"),),
)
"""The LED device kind."""
