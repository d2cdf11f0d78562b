"""Webots' sampling schedule in whole basic steps."""

from __future__ import annotations

import pytest

from wbsim.devices.sampling import NEVER, SamplingSchedule, steps_for_period


@pytest.mark.parametrize(
    ("period", "basic", "steps"),
    [(16, 16, 1), (32, 16, 2), (40, 16, 3), (1, 16, 1), (64, 32, 2), (10, 0.5, 20), (3, 0.5, 6)],
)
def test_effective_period_rounds_up_to_basic_steps(period, basic, steps):
    assert steps_for_period(period, basic) == steps


def test_first_sample_one_period_after_enable_then_every_period():
    schedule = SamplingSchedule()
    schedule.enable(40, now_step=5, basic_ms=16)  # 40 ms -> every 3 steps
    due = [step for step in range(5, 20) if schedule.due(step)]
    assert due == [8, 11, 14, 17]


def test_disable_stops_sampling():
    schedule = SamplingSchedule()
    schedule.enable(16, now_step=0, basic_ms=16)
    schedule.enable(0, now_step=1, basic_ms=16)
    assert schedule.next_step == NEVER and schedule.period_ms == 0
    assert not schedule.due(10**6)
