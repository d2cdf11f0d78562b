"""Webots' user input devices for a headless simulator: ``Keyboard``, ``Mouse`` (+ ``MouseState``), ``Joystick``.

Nobody types, clicks or holds a joystick in a headless run, so these answer what Webots answers when the
user does nothing: ``Keyboard.getKey()`` returns -1, the mouse state has NaN coordinates and no button
down, the joystick is not connected. A script or a test can still type: ``sim.robot_runtime(name)
.press_keys(code, ...)`` queues key codes that the robot's enabled keyboard returns one per ``getKey``
call, as Webots returns the keys held at the last sample one by one (then -1).

Sampling periods follow Webots' controller library: ``enable(ms)`` records the period, ``disable()`` sets 0;
reading a disabled keyboard prints Webots' error and returns -1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wbsim.api.device import print_error

if TYPE_CHECKING:
    from wbsim.sim.robot import RobotRuntime

__all__ = ["Keyboard", "Mouse", "MouseState", "Joystick"]


class _Periodic:
    """Shared sampling-period handling of the user input devices (one period per robot and device)."""

    _DEVICE = ""

    def __init__(self, runtime: RobotRuntime) -> None:
        self._runtime = runtime

    def enable(self, samplingPeriod: int) -> None:
        """Sample every ``samplingPeriod`` ms (0 disables)."""
        if samplingPeriod < 0:
            print_error(f"wb_{self._DEVICE}_enable() called with negative sampling period.")
            return
        self._runtime.input_periods[self._DEVICE] = int(samplingPeriod)

    def disable(self) -> None:
        """Stop sampling."""
        self._runtime.input_periods[self._DEVICE] = 0

    def getSamplingPeriod(self) -> int:
        """The sampling period in ms (0 = disabled)."""
        return self._runtime.input_periods.get(self._DEVICE, 0)

    def _set_period(self, period: int | None) -> None:
        self.enable(0 if period is None else period)

    sampling_period = property(getSamplingPeriod, _set_period)


class Keyboard(_Periodic):
    """The computer keyboard (Webots ``controller.Keyboard``); key codes are Webots' (``keyboard.h``)."""

    _DEVICE = "keyboard"
    END = 312
    HOME = 313
    LEFT = 314
    UP = 315
    RIGHT = 316
    DOWN = 317
    PAGEUP = 366
    PAGEDOWN = 367
    NUMPAD_HOME = 375
    NUMPAD_LEFT = 376
    NUMPAD_UP = 377
    NUMPAD_RIGHT = 378
    NUMPAD_DOWN = 379
    NUMPAD_END = 382
    KEY = 0x0000FFFF
    SHIFT = 0x00010000
    CONTROL = 0x00020000
    ALT = 0x00040000

    def getKey(self) -> int:
        """The next key code pressed (with ``SHIFT``/``CONTROL``/``ALT`` bits), or -1 when none is left."""
        if self.getSamplingPeriod() <= 0:
            print_error("wb_keyboard_get_key() called for a disabled device! Please use: wb_keyboard_enable().")
            return -1
        keys = self._runtime.pending_keys
        return keys.popleft() if keys else -1

    getKeyCode = getKey

    def get_key(self) -> str:
        """The next key as Webots' Python library names it (``"shift-a"``, ``"left"``, ...), or "" for none."""
        code = self.getKey()
        if code < 0:
            return ""
        text = "".join(prefix for bit, prefix in ((self.SHIFT, "shift-"), (self.CONTROL, "control-"), (self.ALT, "atl-"))
                       if code & bit)  # "atl-" is Webots' own spelling
        code &= self.KEY
        names = {self.END: "end", self.HOME: "home", self.LEFT: "left", self.RIGHT: "right", self.UP: "up",
                 self.DOWN: "down", self.PAGEUP: "page up", self.PAGEDOWN: "page down",
                 self.NUMPAD_END: "numpad end", self.NUMPAD_HOME: "numpad home", self.NUMPAD_LEFT: "numpad left",
                 self.NUMPAD_RIGHT: "numpad right", self.NUMPAD_UP: "numpad up", self.NUMPAD_DOWN: "numpad down"}
        return text + names.get(code, chr(code))


@dataclass
class MouseState:
    """The mouse state (Webots ``controller.MouseState``): ``u, v`` in the 3D view [0, 1], ``x, y, z`` the 3D
    point under the cursor (m; NaN unless 3D positions are enabled), and the buttons."""

    u: float = math.nan
    v: float = math.nan
    x: float = math.nan
    y: float = math.nan
    z: float = math.nan
    left: bool = False
    middle: bool = False
    right: bool = False


class Mouse(_Periodic):
    """The mouse over the 3D view (Webots ``controller.Mouse``); headless, no pointer: NaN coordinates."""

    _DEVICE = "mouse"

    def getState(self) -> MouseState:
        """The current state: NaN coordinates and no button down (there is no 3D view)."""
        return MouseState()

    def enable3dPosition(self) -> None:
        """Ask for the 3D point under the cursor (it stays NaN: no cursor)."""
        self._runtime.input_periods["mouse3d"] = 1

    def disable3dPosition(self) -> None:
        """Stop computing the 3D point."""
        self._runtime.input_periods["mouse3d"] = 0

    def is3dPositionEnabled(self) -> bool:
        """True after :meth:`enable3dPosition`."""
        return bool(self._runtime.input_periods.get("mouse3d", 0))


class Joystick(_Periodic):
    """A game controller (Webots ``controller.Joystick``): never connected in a headless run."""

    _DEVICE = "joystick"

    def isConnected(self) -> bool:
        """False: no joystick."""
        return False

    def getModel(self) -> str:
        """"": no joystick."""
        return ""

    def getNumberOfAxes(self) -> int:
        """0: no joystick."""
        return 0

    def getAxisValue(self, axis: int) -> int:
        """0 (Webots' value for a missing axis)."""
        return 0

    def getNumberOfPovs(self) -> int:
        """0: no joystick."""
        return 0

    def getPovValue(self, pov: int) -> int:
        """0 (Webots' value for a missing point of view)."""
        return 0

    def getPressedButton(self) -> int:
        """-1: no button pressed."""
        return -1

    def setConstantForce(self, level: int) -> None:
        """Force feedback: ignored (no joystick)."""

    def setConstantForceDuration(self, duration: float) -> None:
        """Force feedback: ignored (no joystick)."""

    def setAutoCenteringGain(self, gain: float) -> None:
        """Force feedback: ignored (no joystick)."""

    def setResistanceGain(self, gain: float) -> None:
        """Force feedback: ignored (no joystick)."""

    def setForceAxis(self, axis: int) -> None:
        """Force feedback: ignored (no joystick)."""

    is_connected = property(isConnected)
    model = property(getModel)
    number_of_axes = property(getNumberOfAxes)
    number_of_povs = property(getNumberOfPovs)
    pressed_button = property(getPressedButton)
