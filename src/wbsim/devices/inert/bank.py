"""Runtime state of the inert devices: what their controllers set (sampling periods, stored values).

Nothing is simulated, so the bank has no phase work; it holds the sampling periods (``Sensor`` API objects
read ``period_ms`` directly) and the values controllers set through ``W`` members of the spec, which the
matching getters answer. A reset clears both, as a reset disables Webots' devices.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wbsim.devices.inert.compile import InertBinding
from wbsim.devices.kind import BankContext, BankDevice, DeviceBank

__all__ = ["InertBank", "InertDevice"]


class InertBank(DeviceBank):
    """Every inert device of one simulation (row = device).

    Attributes:
        period_ms: each device's sampling period as requested (0 = disabled), int (n,).
        stored: each device's values set by its controller, by key.
    """

    carried = ("period_ms", "stored")

    def __init__(self, bindings: tuple[InertBinding, ...], context: BankContext) -> None:
        super().__init__(bindings, context)
        self.period_ms = np.zeros(self.n, dtype=np.int64)
        self.stored: list[dict[str, object]] = [{} for _ in range(self.n)]

    def core(self, row: int) -> InertDevice:
        """The core device of row ``row``."""
        return InertDevice(self, row, str(self.bindings[row].node["name"]), self.context.now_step)

    def reset(self) -> None:
        """As after loading: disabled, nothing stored."""
        self.period_ms[:] = 0
        for values in self.stored:
            values.clear()

    def restart(self) -> None:
        """A world reset: the stored values go (the periods stay, as enabled sensors stay enabled)."""
        for values in self.stored:
            values.clear()


@dataclass
class InertDevice(BankDevice):
    """One inert device (snake_case core; the Webots API class built from the spec wraps it)."""

    kind: str = "inert"

    def enable(self, period_ms: int) -> None:
        """Record the sampling period (0 disables); no sample ever comes."""
        self.bank.period_ms[self.index] = period_ms

    @property
    def period_ms(self) -> int:
        """The sampling period as requested (0 = disabled)."""
        return int(self.bank.period_ms[self.index])

    @property
    def stored(self) -> dict[str, object]:
        """The values the controller set (``W`` members of the spec)."""
        return self.bank.stored[self.index]
