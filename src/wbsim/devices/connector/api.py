"""Webots' ``Connector`` API over the core connector (texts and caching of Webots' ``connector.c``).

The controller library keeps its own copy of ``isLocked``: ``lock()``/``unlock()`` set it at once, and
the simulator sends its value after every step in which it changed (and once after the first step).
So ``isLocked()`` is False before the first step even for ``isLocked TRUE`` in the file, and stays
True after ``lock()`` on a passive connector, which the simulator refused.
"""

from __future__ import annotations

from wbsim.api.arguments import c_arguments
from wbsim.api.device import Device, print_error
from wbsim.devices.connector.bank import Connector as CoreConnector

__all__ = ["Connector", "api_classes"]


@c_arguments(2, enablePresence="int")
class Connector(Device):
    """A docking device (Webots ``controller.Connector``): presence sampling, lock and unlock."""

    _core: CoreConnector

    def __init__(self, core: CoreConnector, robot: object) -> None:
        super().__init__(core, robot)  # type: ignore[arg-type]
        self._seen_changes = 0
        self._locked = False

    def _bind(self) -> None:
        super()._bind()
        bank = self._core.bank
        self._row = self._core.index
        self._periods = bank.period_ms
        self._presence = bank.presence
        self._reported_locked = bank.reported_locked
        self._reported_changes = bank.reported_changes

    def enablePresence(self, sampling_period: int) -> None:
        """Sample the presence every ``sampling_period`` ms; the first value comes one period later."""
        if sampling_period < 0:
            print_error("wb_connector_enable_presence() called with negative sampling period.")
            return
        self._core.enable(int(sampling_period))

    def disablePresence(self) -> None:
        """Stop sampling the presence (the last value stays readable, with an error)."""
        self._core.enable(0)

    def getPresenceSamplingPeriod(self) -> int:
        """The presence sampling period in ms (0 = disabled)."""
        return int(self._periods[self._row])

    def getPresence(self) -> int:
        """1 if a compatible, aligned connector is near (or linked), 0 if not, -1 for a passive connector
        (0 before the first sample)."""
        if self._periods[self._row] <= 0:
            print_error("wb_connector_get_presence() called for a disabled device! Please use: "
                        "wb_connector_enable_presence().")
        return int(self._presence[self._row])

    def _sync(self) -> None:
        changes = self._reported_changes[self._row]
        if changes != self._seen_changes:  # the simulator sent isLocked after the last step
            self._seen_changes = int(changes)
            self._locked = bool(self._reported_locked[self._row])

    def isLocked(self) -> bool:
        """The controller library's ``isLocked``: set by ``lock()``/``unlock()``, updated after steps."""
        self._sync()
        return self._locked

    def lock(self) -> None:
        """Close the latch: links to the peer present, if the rules allow (effective immediately)."""
        self._sync()
        self._locked = True
        self._core.lock()

    def unlock(self) -> None:
        """Open the latch: the link breaks if the rules allow (effective immediately)."""
        self._sync()
        self._locked = False
        self._core.unlock()

    locked = property(isLocked)
    presence = property(getPresence)
    presence_sampling_period = property(getPresenceSamplingPeriod)


def api_classes() -> dict[str, type]:
    """The classes the ``controller`` module exports for connectors."""
    return {"Connector": Connector}
