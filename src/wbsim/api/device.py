"""Base classes of Webots API devices: ``Device`` and ``Sensor``.

An API device wraps one core device (snake_case, see :class:`wbsim.devices.kind.CoreDevice`) for the
robot whose controller uses it; it holds no simulation state of its own beyond the controller
library's caches.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from wbsim.api.arguments import ArgumentChecked, c_arguments
from wbsim.api.constants import node_type_of
from wbsim.world.model import WbNode

if TYPE_CHECKING:
    from wbsim.api.robot import Robot

__all__ = ["Device", "Sensor", "print_error"]


def print_error(text: str) -> None:
    """Print a controller-library error line (``Error: ...``) on stderr, as libController does."""
    print(f"Error: {text}", file=sys.stderr, flush=True)


class Device(ArgumentChecked):
    """A device of a robot (Webots' ``controller.Device``).

    Args:
        core: the core device (it has ``name`` and ``node``).
        robot: the API robot the device belongs to.
    """

    def __init__(self, core: Any, robot: Robot) -> None:
        self._core = core
        self._robot = robot
        self._node: WbNode = core.node
        self._name: str = core.name
        self._bind()

    def _bind(self) -> None:
        """Read what this object keeps from its core device's bank (arrays it reads directly, its row). Called
        at creation and again when the world is recompiled at run time (Solids imported or removed), which
        moves the core device to a new bank and row: the controller keeps this object."""

    def getName(self) -> str:
        """The device's ``name`` field."""
        return self._name

    def getModel(self) -> str:
        """The device's ``model`` field ("" for devices without one)."""
        return str(self._node.get("model", ""))

    def getNodeType(self) -> int:
        """The ``Node.X`` constant of the device's node type."""
        return node_type_of(self._node.type_name)

    @property
    def name(self) -> str:
        """The device name."""
        return self._name

    @property
    def model(self) -> str:
        """The device model."""
        return self.getModel()

    @property
    def node_type(self) -> int:
        """The node type constant."""
        return self.getNodeType()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._name!r}>"


@c_arguments(2, enable="int")
class Sensor(Device):
    """A device sampled every ``sampling_period`` ms (Webots' ``controller.Sensor``).

    The core device must have ``enable(period_ms)``, ``period_ms``, ``index`` (its bank row) and
    ``bank.period_ms`` (the periods of its bank, an array updated in place, read here directly because
    controllers read sensors every step). Subclasses set ``_C_NAME``, the C API prefix used in error
    messages (e.g. ``"wb_touch_sensor"``).
    """

    _C_NAME = "wb_sensor"

    def _bind(self) -> None:
        super()._bind()
        self._row: int = self._core.index
        self._periods = self._core.bank.period_ms

    def enable(self, samplingPeriod: int) -> None:
        """Sample every ``samplingPeriod`` ms (rounded up to basic steps); the first value comes one period later."""
        if samplingPeriod < 0:
            print_error(f"{self._C_NAME}_enable() called with negative sampling period.")
            return
        self._core.enable(samplingPeriod)

    def disable(self) -> None:
        """Stop sampling (the last value stays readable)."""
        self._core.enable(0)

    def getSamplingPeriod(self) -> int:
        """The sampling period in ms as requested (0 = disabled)."""
        return int(self._core.period_ms)

    def _set_sampling_period(self, period: int | None) -> None:
        self.enable(0 if period is None else period)

    sampling_period = property(getSamplingPeriod, _set_sampling_period)

    def _disabled_error(self, function: str) -> None:
        """Print Webots' error for reading a disabled sensor, if it is disabled."""
        if self._periods.item(self._row) <= 0:
            print_error(f"{self._C_NAME}_{function}() called for a disabled device! Please use: {self._C_NAME}_enable().")
