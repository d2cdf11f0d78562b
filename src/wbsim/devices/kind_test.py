"""The bank base class: carrying devices' run-time state over a recompilation (``DeviceBank.transfer_from``)."""

from __future__ import annotations

from collections import deque

import numpy as np

from wbsim.devices.kind import BankContext, DeviceBank


class _Bank(DeviceBank):
    carried = ("values", "queues")

    def __init__(self, n: int) -> None:
        context = BankContext(None, 16.0, 4, lambda: np.random.default_rng(0), print, lambda: 0)  # type: ignore[arg-type]
        super().__init__(tuple(range(n)), context)
        self.values = np.full((n, 2), np.nan)
        self.queues = [deque() for _ in range(n)]
        self.ids = np.arange(n) + 100  # MuJoCo ids: not carried


def test_carried_rows_are_copied_and_list_entries_moved():
    old, new = _Bank(3), _Bank(4)
    old.values[:] = [[1, 2], [3, 4], [5, 6]]
    old.queues[2].append(b"packet")
    new.transfer_from(old, (np.array([0, 2]), np.array([3, 1])), None)
    assert np.array_equal(new.values, [[np.nan, np.nan], [5, 6], [np.nan, np.nan], [1, 2]], equal_nan=True)
    assert new.queues[1] is old.queues[2] and list(new.queues[1]) == [b"packet"]  # the same object (API objects)
    assert new.queues[0] is not old.queues[0] and not new.queues[0]
    assert new.ids.tolist() == [100, 101, 102, 103]
    assert new.transfer_refusal() is None
