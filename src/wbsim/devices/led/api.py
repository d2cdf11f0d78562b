"""Webots' ``LED`` API over the core LED (``led.c`` and the Python ``led.py``).

The controller library keeps the last value given to ``set`` and answers ``get`` with it, whatever the
simulator did with it (an LED without anything to colour ignores it); the value reaches the simulator
with the next step.
"""

from __future__ import annotations

from wbsim.api.arguments import c_arguments
from wbsim.api.device import Device
from wbsim.devices.led.bank import Led as CoreLed

__all__ = ["LED", "api_classes"]


@c_arguments(2, set="int")  # wb_led_set(WbDeviceTag, int): True is 1, None is 0
class LED(Device):
    """A light emitting diode (Webots ``controller.LED``): ``set(0)`` is off; ``set(k)`` shows the ``k``-th
    colour, or for a gradual LED an intensity (0-255) or an RGB value (``0xRRGGBB``)."""

    _core: CoreLed

    def __init__(self, core: CoreLed, robot: object) -> None:
        super().__init__(core, robot)  # type: ignore[arg-type]
        self._state = 0  # led.c's state: the last value set

    def set(self, value: int | bool) -> None:
        """Switch the LED (sent with the next step): 0 is off; True/False are 1/0."""
        self._state = value
        self._core.set(self._state)

    def get(self) -> int:
        """The value last given to :meth:`set` (0 before any)."""
        return self._state

    value = property(get, set)


def api_classes() -> dict[str, type]:
    """The classes the ``controller`` module exports for LEDs."""
    return {"LED": LED}
