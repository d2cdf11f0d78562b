"""LEDs with Webots semantics (``WbLed``), for every LED of a world.

**Requests.** A controller's ``set(value)`` is sent with its next step (the last call wins, as Webots'
``led.c`` sends only its final state) and applied before that step's physics, in scene order.

**State** (``WbLed::setValue``): an LED that colours nothing ignores requests; otherwise a new value
recolours everything it drives (``WbLed::setMaterialsAndLightsColor``, in single precision as Webots):

- ``gradual`` with an empty ``color`` list (RGB LED): the value is ``0xRRGGBB``;
- ``gradual`` with colours (monochrome LED): ``value / 255`` times the first colour;
- otherwise value ``k`` > 0 shows the ``k``-th colour (black beyond the list), 0 is off (black).

The LED is *on* for any value but 0. Supervisors reading the ``emissiveColor`` of the driven Materials and
PBRAppearances, or the ``color`` of the driven Lights, get the colour shown (black at load and after a
reset, as Webots sets them), and reading the ``on`` field of the driven Lights, whether the LED is on
(``WbLight::toggleOn`` writes it: FALSE at load and after a reset, whatever the world file says); a value they
write there holds until the LED changes value. Writes to the
LED's ``color`` and ``gradual`` apply from its next change of value (Webots reads them only then).
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from wbsim.devices.kind import BankContext, BankDevice, DeviceBank
from wbsim.devices.led.compile import LedBinding, LedTargetBinding
from wbsim.world.model import WbNode

__all__ = ["LedBank", "Led", "led_color"]

_BLACK = (0.0, 0.0, 0.0)
_LIGHT_FIELD = "color"  # the field an LED colours on a Light (Materials and PBRAppearances: emissiveColor)


def led_color(value: int, colors: tuple[tuple[float, float, float], ...], gradual: bool) -> tuple[float, float, float]:
    """The colour an LED shows for ``value`` (``WbLed::setMaterialsAndLightsColor``, single precision).

    Args:
        value: the LED value (a C int).
        colors: the LED's ``color`` list.
        gradual: the LED's ``gradual`` field.
    """
    f32 = np.float32
    if gradual:
        if not colors:  # RGB: the bytes of the value
            rgb = [f32((value >> shift) & 0xFF) / f32(255.0) for shift in (16, 8, 0)]
        else:  # monochrome: an intensity of the first colour
            intensity = f32(value) / f32(255.0)
            rgb = [f32(float(intensity) * c) for c in colors[0]]  # double product, float result
    elif 0 < value <= len(colors):
        rgb = [f32(c) for c in colors[value - 1]]
    else:
        return _BLACK
    return (float(rgb[0]), float(rgb[1]), float(rgb[2]))


class LedBank(DeviceBank):
    """State of all LEDs of one simulation: rows ``0..leds-1`` are the LEDs, the next rows the nodes they
    colour (see :mod:`wbsim.devices.led.compile`).

    Args:
        bindings: the LEDs then their targets, as the compiler returns them.
        context: the simulation's clock and warning printer.

    Attributes:
        leds: the number of LEDs.
        value: each LED's value as the simulator holds it (0 = off), int64 (leds,).
        color: the colour each LED shows, (leds, 3).
        on: each LED is on (value != 0 and it colours something), (leds,).
        drives: each LED colours a Material, PBRAppearance or Light, (leds,).
        colors, gradual: each LED's ``color`` list and ``gradual`` field (supervisors may write them).
    """

    actuates = True  # controller requests are applied with the next step

    def __init__(self, bindings: tuple[LedBinding | LedTargetBinding, ...], context: BankContext) -> None:
        super().__init__(bindings, context)
        self._leds = tuple(b for b in bindings if isinstance(b, LedBinding))
        self._targets = tuple(b for b in bindings if isinstance(b, LedTargetBinding))
        self.leds = len(self._leds)
        self.drives = np.array([b.drives for b in self._leds], dtype=bool)
        self._targets_of: list[list[int]] = [[] for _ in range(self.leds)]  # each LED's target rows
        for row, binding in enumerate(self._targets, start=self.leds):
            self._targets_of[binding.led].append(row)
        # Updated in place (never replaced), so API objects may keep references to them.
        self.value = np.zeros(self.leds, dtype=np.int64)
        self.color = np.zeros((self.leds, 3))
        self.on = np.zeros(self.leds, dtype=bool)
        self.colors: list[tuple[tuple[float, float, float], ...]] = []
        self.gradual = np.zeros(self.leds, dtype=bool)
        self._written: dict[int, object] = {}  # target row -> value a supervisor wrote since the last change
        self._written_on: dict[int, bool] = {}  # light row -> `on` a supervisor wrote since the last change
        self._requests: dict[int, int] = {}
        self._restore()

    def core(self, row: int) -> Led:
        """The core LED of row ``row`` (an LED row)."""
        return Led(self, row, str(self._leds[row].node["name"]), self.context.now_step)

    def _restore(self) -> None:
        """As after loading: fields from the world file, every LED off and black."""
        self.colors = [tuple(tuple(float(c) for c in rgb) for rgb in b.node["color"]) for b in self._leds]  # type: ignore[union-attr]
        self.gradual[:] = [bool(b.node["gradual"]) for b in self._leds]
        self.value[:] = 0
        self.color[:] = 0.0
        self.on[:] = False
        self._written.clear()
        self._written_on.clear()
        self._requests.clear()

    def transfer_from(self, old: DeviceBank, rows: tuple[np.ndarray, np.ndarray], state: object) -> None:
        """What the LEDs that stay show, their pending requests and the colours supervisors wrote on the nodes
        they drive (rows of LEDs come first, then rows of driven nodes)."""
        assert isinstance(old, LedBank)
        row_map = dict(zip(rows[0].tolist(), rows[1].tolist()))
        leds = [(o, n) for o, n in row_map.items() if o < old.leds]
        if leds:
            o, n = (np.array(x, dtype=np.int64) for x in zip(*leds))
            self.value[n] = old.value[o]
            self.color[n] = old.color[o]
            self.on[n] = old.on[o]
        self._written = {row_map[r]: v for r, v in old._written.items() if r in row_map}
        self._written_on = {row_map[r]: v for r, v in old._written_on.items() if r in row_map}
        self._requests = {row_map[r]: v for r, v in old._requests.items() if r in row_map}

    def reset(self) -> None:
        """All LEDs off (as after loading)."""
        self._restore()

    def restart(self) -> None:
        """Webots' ``WbLed::reset`` on a world reset: value 0, black; fields back to the world file's."""
        self._restore()

    def recorded_nodes(self) -> tuple[WbNode, ...]:
        """The LED nodes (a recording keeps what each shows)."""
        return tuple(b.node for b in self._leds)

    def recorded_state(self) -> dict[str, np.ndarray]:
        """Each LED's ``value`` (int64, (leds,)), the ``color`` it shows (RGB in [0, 1], (leds, 3)) and ``on``."""
        return {"value": self.value, "color": self.color, "on": self.on}

    # -- requests and state ------------------------------------------------------------------------------
    def request(self, row: int, value: int) -> None:
        """A controller's ``set(value)``, applied before the next physics step; a later call replaces it."""
        self._requests[row] = value

    def actuate(self, data: mujoco.MjData) -> None:
        """Apply the requests of the controllers that stepped (``WbLed::handleMessage``), in scene order."""
        if not self._requests:
            return
        requests, self._requests = self._requests, {}
        for row in sorted(requests):
            if self.drives[row]:
                self.set_value(row, requests[row])

    def set_value(self, row: int, value: int) -> None:
        """Webots' ``WbLed::setValue``: show ``value`` (nothing happens if it is the current one)."""
        if self.value[row] == value:
            return
        self.value[row] = value
        self.color[row] = led_color(value, self.colors[row], bool(self.gradual[row]))
        self.on[row] = value != 0
        for target in self._targets_of[row]:
            self._written.pop(target, None)
            self._written_on.pop(target, None)

    # -- supervisor fields --------------------------------------------------------------------------------
    def field_value(self, row: int, name: str) -> object | None:
        """A driven node's colour field: the colour its LED shows; a driven Light's ``on``: whether its LED is on
        (or, for both, what a supervisor wrote since the LED's last change)."""
        if row < self.leds:
            return None
        binding = self._targets[row - self.leds]
        if name == "on" and binding.field == _LIGHT_FIELD:
            return self._written_on.get(row, bool(self.on[binding.led]))
        if name != binding.field:
            return None
        written = self._written.get(row)
        return written if written is not None else tuple(float(c) for c in self.color[binding.led])

    def field_changed(self, row: int, name: str, value: object) -> object | None:
        """``color`` and ``gradual`` of an LED (used from its next change), or a driven node's colour field or a
        driven Light's ``on`` (held until the LED's next change)."""
        if row >= self.leds:
            field = self._targets[row - self.leds].field
            if name == "on" and field == _LIGHT_FIELD:
                self._written_on[row] = bool(value)
                return self._written_on[row]
            if name != field:
                return None
            self._written[row] = tuple(float(c) for c in value)  # type: ignore[union-attr]
            return self._written[row]
        if name == "color":
            self.colors[row] = tuple(tuple(float(c) for c in rgb) for rgb in value)  # type: ignore[union-attr]
            return self.colors[row]
        if name == "gradual":
            self.gradual[row] = bool(value)
            return bool(value)
        return None


@dataclass
class Led(BankDevice):
    """One LED (snake_case core API; the Webots ``LED`` class wraps it)."""

    kind: str = "led"

    def set(self, value: int) -> None:
        """Request ``value`` (a C int), shown from the next step."""
        self.bank.request(self.index, int(value))

    @property
    def value(self) -> int:
        """The value the LED shows (0 = off)."""
        return int(self.bank.value[self.index])

    @property
    def color(self) -> tuple[float, float, float]:
        """The colour the LED shows (RGB in [0, 1]; black when off)."""
        return tuple(float(c) for c in self.bank.color[self.index])  # type: ignore[return-value]

    @property
    def on(self) -> bool:
        """The LED is on (its value is not 0)."""
        return bool(self.bank.on[self.index])

    @property
    def drives(self) -> bool:
        """The LED colours a Material, PBRAppearance or Light (otherwise it ignores ``set``)."""
        return bool(self.bank.drives[self.index])
