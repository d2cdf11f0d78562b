"""Webots' sampling schedule in whole basic steps (implemented by the device banks)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from wbsim.devices.position_sensor import PositionSensorBank
from wbsim.devices.sampling import NEVER, steps_for_period


@pytest.mark.parametrize(
    ("period", "basic", "steps"),
    [(16, 16, 1), (32, 16, 2), (40, 16, 3), (1, 16, 1), (64, 32, 2), (10, 0.5, 20), (3, 0.5, 6)],
)
def test_effective_period_rounds_up_to_basic_steps(period, basic, steps):
    assert steps_for_period(period, basic) == steps


def _bank(basic_ms: float) -> PositionSensorBank:
    node = {"noise": 0.0, "resolution": -1.0}
    binding = SimpleNamespace(node=node, joint=SimpleNamespace(qpos_adr=0, initial_position=0.0))
    return PositionSensorBank((binding,), basic_ms, rng=lambda: np.random.default_rng(0))  # type: ignore[arg-type]


def test_first_sample_one_period_after_enable_then_every_period():
    bank = _bank(16)
    data = SimpleNamespace(qpos=np.zeros(1))
    bank.enable(0, 40, now_step=5)  # 40 ms -> every 3 steps
    due = []
    for step in range(5, 20):
        before = bank.next_any
        bank.sample(data, step)  # type: ignore[arg-type]
        if step >= before:
            due.append(step)
    assert due == [8, 11, 14, 17]


def test_disable_stops_sampling():
    bank = _bank(16)
    bank.enable(0, 16, now_step=0)
    bank.enable(0, 0, now_step=1)
    assert bank.next_any == NEVER and bank.period_ms[0] == 0
    bank.sample(SimpleNamespace(qpos=np.zeros(1)), 10**6)  # type: ignore[arg-type]
    assert np.isnan(bank.value[0])
