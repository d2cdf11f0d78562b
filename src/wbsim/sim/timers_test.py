"""Tests for wbsim.sim.timers: MuJoCo's stage timers paused during a simulation's physics steps (same physics),
kept on request, and the process-wide clock callback set back as it was found."""

from __future__ import annotations

import ctypes
import hashlib
import threading

import mujoco
import numpy as np
import pytest

from wbsim.compile.builder import compile_world
from wbsim.sim.bounce_test import MIXED_WORLD
from wbsim.sim.c_steps import binding_library
from wbsim.sim.simulation import Simulation, SimulationOptions
from wbsim.sim.timers import TimerPause
from wbsim.world.loader import load_world_model_from_string

if binding_library() is None:
    pytest.skip("libmujoco's callback pointers cannot be found on this platform", allow_module_level=True)


def clock_slot() -> ctypes.c_void_p:
    """libmujoco's ``mjcb_time`` pointer, read as is."""
    return ctypes.c_void_p.in_dll(binding_library(), "mjcb_time")


def simulation(timers: bool = False) -> Simulation:
    """The mixed-material world of the bounce tests (contacts, the bounce edit), without controllers."""
    return Simulation(compile_world(load_world_model_from_string(MIXED_WORLD, "w.wbt")),
                      SimulationOptions(mujoco_timers=timers))


def digest(sim: Simulation) -> str:
    """sha256 of the state that the physics decides."""
    return hashlib.sha256(b"".join(np.ascontiguousarray(a).tobytes()
                                   for a in (sim.data.qpos, sim.data.qvel, sim.data.qacc, sim.data.ctrl))).hexdigest()


def test_the_binding_sets_a_clock_callback_that_the_pause_finds() -> None:
    # The premise: importing the binding turns MuJoCo's timers on (a clock callback its getter does not report).
    assert clock_slot().value is not None
    assert TimerPause.find() is not None


def test_physics_steps_run_without_timers_and_the_callback_comes_back() -> None:
    sim = simulation()
    before = clock_slot().value
    seen: list[int | None] = []
    # Called inside every MuJoCo step (the one-call step then gives way to the split loop, which calls it).
    mujoco.set_mjcb_control(lambda m, d: seen.append(clock_slot().value))
    try:
        for _ in range(5):
            sim.step()
            assert clock_slot().value == before
    finally:
        mujoco.set_mjcb_control(None)
    assert seen == [None] * (5 * sim.substeps)
    assert sim.data.timer[mujoco.mjtTimer.mjTIMER_STEP].duration == 0.0


def test_timers_run_when_asked_for() -> None:
    sim = simulation(timers=True)
    for _ in range(5):
        sim.step()
    assert sim.data.timer[mujoco.mjtTimer.mjTIMER_STEP].duration > 0.0
    assert sim.data.timer[mujoco.mjtTimer.mjTIMER_STEP].number == 5 * sim.substeps


def test_the_physics_is_bit_identical_with_and_without_timers() -> None:
    paused, timed = simulation(), simulation(timers=True)
    for _ in range(200):
        paused.step()
        timed.step()
    assert digest(paused) == digest(timed)
    assert paused.step_count == 200


def test_the_callback_comes_back_after_an_error_inside_the_step() -> None:
    sim = simulation()
    before = clock_slot().value

    def failing(model: mujoco.MjModel, data: mujoco.MjData) -> None:
        raise RuntimeError("raised inside mj_step")

    mujoco.set_mjcb_control(failing)
    try:
        with pytest.raises(RuntimeError, match="raised inside mj_step"):
            sim.step()
    finally:
        mujoco.set_mjcb_control(None)
    assert clock_slot().value == before


def test_a_callback_another_thread_sets_during_the_step_stays() -> None:
    pause = TimerPause.find()
    slot = clock_slot()
    before = slot.value
    saved = pause.pause()
    assert slot.value is None and saved == before
    other = ctypes.CFUNCTYPE(ctypes.c_double)(lambda: 0.0)
    address = ctypes.cast(other, ctypes.c_void_p).value
    thread = threading.Thread(target=lambda: setattr(slot, "value", address))
    thread.start()
    thread.join()
    pause.resume(saved)
    try:
        assert slot.value == address  # not overwritten
    finally:
        slot.value = before


def test_paused_timers_stay_off_and_nothing_is_set_back() -> None:
    pause = TimerPause.find()
    slot = clock_slot()
    before = slot.value
    slot.value = None
    try:
        saved = pause.pause()
        assert saved is None
        pause.resume(saved)
        assert slot.value is None
    finally:
        slot.value = before


def test_load_world_passes_the_timers_option(tmp_path) -> None:
    from wbsim.sim.simulation import load_world

    world = tmp_path / "w.wbt"
    world.write_text(MIXED_WORLD)
    with load_world(world) as paused, load_world(world, mujoco_timers=True) as timed:
        paused.step()
        timed.step()
        assert paused._timer_pause is not None and timed._timer_pause is None  # noqa: SLF001
        assert timed.data.timer[mujoco.mjtTimer.mjTIMER_STEP].duration > 0.0
        assert paused.data.timer[mujoco.mjtTimer.mjTIMER_STEP].duration == 0.0
