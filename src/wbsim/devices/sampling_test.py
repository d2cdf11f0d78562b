"""Webots' sampling schedule in whole basic steps (``SampleSchedule``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbsim.devices.sampling import NEVER, SampleSchedule, steps_for_period


@pytest.mark.parametrize(
    ("period", "basic", "steps"),
    [(16, 16, 1), (32, 16, 2), (40, 16, 3), (1, 16, 1), (64, 32, 2), (10, 0.5, 20), (3, 0.5, 6)],
)
def test_effective_period_rounds_up_to_basic_steps(period, basic, steps):
    assert steps_for_period(period, basic) == steps


def _due_steps(schedule: SampleSchedule, steps: range) -> dict[int, list[int]]:
    seen: dict[int, list[int]] = {}
    for step in steps:
        for group in schedule.due(step):
            seen.setdefault(step, []).extend(group.rows.tolist())
    return {step: sorted(rows) for step, rows in seen.items()}


def test_first_sample_one_period_after_enable_then_every_period():
    schedule = SampleSchedule(1, 16)
    schedule.enable(0, 40, now_step=5)  # 40 ms -> every 3 steps
    assert sorted(_due_steps(schedule, range(5, 20))) == [8, 11, 14, 17]


def test_devices_with_other_periods_and_phases_sample_on_their_own_steps():
    schedule = SampleSchedule(3, 10)
    schedule.enable(0, 10, now_step=0)
    schedule.enable(1, 20, now_step=0)
    schedule.enable(2, 10, now_step=1)
    seen = _due_steps(schedule, range(0, 6))
    assert seen == {1: [0], 2: [0, 1, 2], 3: [0, 2], 4: [0, 1, 2], 5: [0, 2]}


def test_reenabling_moves_a_device_to_its_new_schedule():
    schedule = SampleSchedule(2, 10)
    schedule.enable(0, 10, now_step=0)
    schedule.enable(1, 10, now_step=0)
    schedule.due(1)
    schedule.enable(1, 30, now_step=1)
    assert _due_steps(schedule, range(2, 8)) == {2: [0], 3: [0], 4: [0, 1], 5: [0], 6: [0], 7: [0, 1]}


def test_disable_stops_sampling():
    schedule = SampleSchedule(1, 16)
    schedule.enable(0, 16, now_step=0)
    schedule.enable(0, 0, now_step=1)
    assert schedule.next_any == NEVER and schedule.period_ms[0] == 0
    assert schedule.due(10**6) == []


def test_restart_samples_enabled_devices_after_the_first_step_and_keeps_periods():
    schedule = SampleSchedule(2, 10)
    schedule.enable(0, 30, now_step=0)
    schedule.due(3)
    schedule.restart()  # a world reset: the clock is back at 0
    assert _due_steps(schedule, range(0, 8)) == {1: [0], 4: [0], 7: [0]}
    assert schedule.period_ms.tolist() == [30, 0]


def test_reset_disables_everything():
    schedule = SampleSchedule(2, 10)
    schedule.enable(0, 10, now_step=0)
    schedule.reset()
    assert schedule.period_ms.tolist() == [0, 0] and schedule.due(5) == []


class _NaiveSchedule:
    """Webots' WbSensor rule per device, written plainly: the oracle of SampleSchedule."""

    def __init__(self, n: int, basic_ms: float) -> None:
        self.basic_ms = basic_ms
        self.every = [0] * n
        self.next = [NEVER] * n

    def enable(self, row: int, period_ms: int, now: int) -> None:
        self.every[row] = steps_for_period(period_ms, self.basic_ms) if period_ms > 0 else 0
        self.next[row] = now + self.every[row] if period_ms > 0 else NEVER

    def due(self, step: int) -> list[int]:
        rows = [r for r, n in enumerate(self.next) if n <= step]
        for r in rows:
            self.next[r] = step + self.every[r]
        return rows


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 6),
    basic=st.sampled_from([4.0, 16.0, 32.0]),
    script=st.lists(st.tuples(
        st.lists(st.tuples(st.integers(0, 5), st.sampled_from([0, 4, 7, 16, 20, 32, 64, 100])), max_size=4),
        st.lists(st.tuples(st.integers(0, 5), st.sampled_from([0, 16, 20])), max_size=2),
        st.booleans()), min_size=1, max_size=40),
)
def test_incremental_schedule_matches_the_per_device_rule(n, basic, script):
    """Random enable/disable calls in the controllers phase of a step, samples due after it, enables after the
    sample (a script between steps), and world resets (restart) at random steps."""
    fast, naive = SampleSchedule(n, basic), _NaiveSchedule(n, basic)
    seen = [fast.version, _layout(fast)]

    def same_layout_same_version() -> None:  # what the motion kinds' steady fused call trusts
        layout = _layout(fast)
        assert fast.version != seen[0] or layout == seen[1], "the groups changed, the version did not"
        seen[:] = [fast.version, layout]

    step = 0
    for before, after, restart in script:
        for row, period in before:
            if row < n:
                fast.enable(row, period, step)
                naive.enable(row, period, step)
                same_layout_same_version()
        step += 1
        got = sorted(r for group in fast.due(step) for r in group.rows.tolist())
        assert got == naive.due(step), f"step {step}"
        same_layout_same_version()
        for row, period in after:
            if row < n:
                fast.enable(row, period, step)
                naive.enable(row, period, step)
                same_layout_same_version()
        if restart:  # Webots' WbSensor::reset: the clock goes back to 0, enabled devices sample after step 1
            fast.restart()
            naive.next = [1 if e else NEVER for e in naive.every]
            step = 0
            same_layout_same_version()
        groups = fast.groups
        assert sorted(r for g in groups for r in g.members) == sorted(r for r in range(n) if naive.every[r])
        assert fast.next_any == min((g.next_step for g in groups), default=NEVER)
        _check_keys(fast)


def _check_keys(schedule: SampleSchedule) -> None:
    """Every group under its own key, except a sole group moved on since it was keyed (then noted as such)."""
    moved = schedule._moved  # noqa: SLF001
    if moved is None:
        assert all(key == (g.next_step, g.every) for key, g in schedule._groups.items())  # noqa: SLF001
    else:
        assert schedule._groups == {moved[0]: moved[1]}  # noqa: SLF001
        assert schedule.next_any == moved[1].next_step


def test_a_sole_group_moving_on_is_keyed_again_before_any_other_change():
    """The sole group's dict key is not renewed at each sample: a device joining its schedule later still finds
    it (one group, not two on the same steps), and one leaving empties it."""
    schedule = SampleSchedule(3, 16.0)
    schedule.enable(0, 16, 0)
    for step in range(1, 6):
        (group,) = schedule.due(step)
    _check_keys(schedule)
    assert schedule._moved is not None and group.next_step == 6  # noqa: SLF001
    schedule.enable(1, 16, 5)  # next sample after step 6, every step: the same schedule
    assert schedule.groups == (group,) and group.members == {0, 1} and schedule.is_sole(group)
    _check_keys(schedule)
    assert _due_steps(schedule, range(6, 9)) == {6: [0, 1], 7: [0, 1], 8: [0, 1]}
    schedule.enable(2, 32, 8)  # a second group: the first one keyed again under its next step
    assert len(schedule.groups) == 2 and not schedule.is_sole(group)
    _check_keys(schedule)
    assert _due_steps(schedule, range(9, 11)) == {9: [0, 1], 10: [0, 1, 2]}
    schedule.enable(2, 0, 10)
    schedule.due(11)
    schedule.enable(0, 0, 11)
    schedule.enable(1, 0, 11)  # emptied
    assert schedule.groups == () and schedule.next_any == NEVER and schedule.due(12) == []
    _check_keys(schedule)


def test_joining_a_schedule_calls_its_joined_callback():
    calls: list[int] = []
    schedule = SampleSchedule(2, 16.0, lambda: calls.append(1))
    schedule.enable(0, 16, 0)
    schedule.enable(0, 16, 0)  # a re-enable that changes nothing: no call
    schedule.due(1)
    schedule.enable(1, 32, 1)
    schedule.enable(1, 0, 1)  # leaving: next_any does not come sooner
    assert len(calls) == 2
    schedule.restart()
    assert len(calls) == 3


def _layout(schedule: SampleSchedule) -> frozenset:
    """The groups (by identity), their periods and members: everything but their next steps."""
    return frozenset((group, group.every, frozenset(group.members)) for group in schedule.groups)


def test_version_moves_with_every_change_of_the_groups_but_a_sole_group_moving_on():
    schedule = SampleSchedule(3, 16.0)
    schedule.enable(0, 16, 0)
    schedule.enable(1, 16, 0)
    version = schedule.version
    (group,) = schedule.due(1)  # the only group moves on
    schedule.enable(0, 16, 1)  # a re-enable that changes nothing
    schedule.advance_sole(group, 2)  # what due(2) does for it
    assert schedule.version == version and group.next_step == 3 and schedule.next_any == 3
    assert schedule.due(2) == [] and schedule.due(3) == [group] and schedule.is_sole(group)
    changes = (lambda: schedule.enable(2, 32, 3), lambda: schedule.due(5), lambda: schedule.enable(2, 0, 5),
               lambda: schedule.enable(1, 0, 5), schedule.restart, schedule.reset)
    for change in changes:  # a group joined; two groups due (a heap scan); left; emptied; restart; reset
        before = schedule.version
        change()
        assert schedule.version > before, change
    adopted = SampleSchedule(3, 16.0)
    adopted.adopt(schedule, np.array([0]), np.array([1]))
    assert adopted.version == 0  # nothing enabled any more
    schedule.enable(0, 16, 0)
    adopted.adopt(schedule, np.array([0]), np.array([1]))
    assert adopted.version == 1


def test_re_enabling_every_step_keeps_the_group_and_its_cache():
    schedule = SampleSchedule(1000, 16)
    for row in range(1000):
        schedule.enable(row, 16, now_step=0)
    (group,) = schedule.due(1)
    group.cache = "plan"
    for row in range(1000):  # a controller calling enable(16) in its loop, at step 1
        schedule.enable(row, 16, now_step=1)
    (again,) = schedule.due(2)
    assert again is group and again.cache == "plan" and len(again.rows) == 1000


def test_moving_one_device_clears_only_its_groups_caches():
    schedule = SampleSchedule(3, 10)
    schedule.enable(0, 10, now_step=0)
    schedule.enable(1, 10, now_step=0)
    schedule.enable(2, 20, now_step=0)
    first = {tuple(g.rows.tolist()): g for g in schedule.groups}
    for group in first.values():
        group.cache = "plan"
    schedule.enable(1, 20, now_step=0)  # row 1 joins row 2's schedule
    assert first[(0, 1)].cache is None and first[(2,)].cache is None
    assert sorted(tuple(g.rows.tolist()) for g in schedule.groups) == [(0,), (1, 2)]


def test_due_rows_gathers_the_rows_of_every_group_due():
    schedule = SampleSchedule(4, 16.0)
    schedule.enable(0, 16, 0)
    schedule.enable(2, 32, 0)
    schedule.enable(3, 32, 0)
    assert schedule.due_rows(0) is None
    assert schedule.due_rows(1).tolist() == [0]
    assert sorted(schedule.due_rows(2).tolist()) == [0, 2, 3]  # two groups due at once


def test_adopt_keeps_periods_and_next_samples_of_moved_rows():
    old = SampleSchedule(3, 10)
    old.enable(0, 30, now_step=1)  # next samples at 4, 7, ...
    old.enable(1, 0, now_step=0)  # disabled
    old.enable(2, 10, now_step=2)  # 3, 4, ...
    new = SampleSchedule(4, 10)  # rows 0 -> 3, 2 -> 0; row 1 removed; new rows 1 and 2 as loaded
    new.adopt(old, np.array([0, 2]), np.array([3, 0]))
    assert new.period_ms.tolist() == [10, 0, 0, 30] and new.every.tolist() == [1, 0, 0, 3]
    assert _due_steps(new, range(3, 8)) == {3: [0], 4: [0, 3], 5: [0], 6: [0], 7: [0, 3]}
    assert _due_steps(old, range(3, 8)) == {3: [2], 4: [0, 2], 5: [2], 6: [2], 7: [0, 2]}  # old untouched


def test_period_list_follows_the_periods_through_enable_restart_adopt_and_reset():
    # The API's disabled checks read period_list: it must hold period_ms as Python ints at every change.
    schedule = SampleSchedule(3, 16.0)
    schedule.enable(0, 32, 0)
    schedule.enable(2, 20, 0)
    schedule.enable(2, 0, 1)
    assert schedule.period_list == schedule.period_ms.tolist() == [32, 0, 0]
    assert all(type(p) is int for p in schedule.period_list)
    schedule.restart()
    assert schedule.period_list == [32, 0, 0]
    moved = SampleSchedule(2, 16.0)
    moved.adopt(schedule, np.array([0]), np.array([1]))
    assert moved.period_list == moved.period_ms.tolist() == [0, 32]
    schedule.reset()
    assert schedule.period_list == [0, 0, 0]
