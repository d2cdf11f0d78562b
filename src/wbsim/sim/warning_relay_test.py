"""Tests for wbsim.sim.warning_relay: the simulation's MuJoCo warning handler written into libmujoco's pointer
around each physics phase, leaving the binding's record and a user's own handler as they were."""

from __future__ import annotations

import ctypes
import gc
import weakref

import mujoco
import numpy as np
import pytest

from wbsim.compile.builder import compile_world
from wbsim.errors import SimulationError
from wbsim.sim import simulation as simulation_module
from wbsim.sim.simulation import Simulation
from wbsim.sim.warning_relay import WarningRelay, warning_slot
from wbsim.world.loader import load_world_model_from_string

BALL = """#VRML_SIM R2023b utf8
WorldInfo { basicTimeStep 16 }
DEF BALL Solid { physics Physics { } boundingObject Sphere { radius 0.1 } }
"""

_BAD_XML = "<mujoco><worldbody><body><freejoint/><geom size='0.1'/></body></worldbody></mujoco>"


def _simulation() -> Simulation:
    return Simulation(compile_world(load_world_model_from_string(BALL, "w.wbt")))


def _diverge(sim: Simulation) -> None:
    """The next step diverges (MuJoCo's bad-velocity warning inside the step)."""
    sim.data.qvel[0] = 1e40


def _plain_warning() -> None:
    """A MuJoCo warning outside any simulation's step (a plain model's diverging step)."""
    model = mujoco.MjModel.from_xml_string(_BAD_XML)
    data = mujoco.MjData(model)
    data.qvel[0] = 1e40
    mujoco.mj_step(model, data)


@pytest.fixture
def slot() -> ctypes.c_void_p:
    found = warning_slot()
    if found is None:
        pytest.skip("libmujoco's mju_user_warning pointer is not found here")
    return found


def test_warnings_inside_the_step_reach_the_simulation_without_the_bindings_setter(
        slot: ctypes.c_void_p, monkeypatch: pytest.MonkeyPatch) -> None:
    sim = _simulation()
    sim.step()

    def refuse(handler: object) -> None:
        raise AssertionError("the binding's setter was called in the step")

    monkeypatch.setattr(mujoco, "set_mju_user_warning", refuse)
    _diverge(sim)
    with pytest.raises(SimulationError, match="unstable.*DEF BALL Solid"):
        sim.step()
    assert sim._diverged_dof == 0  # noqa: SLF001  # the handler's own finding
    assert slot.value is None


def test_a_users_handler_is_kept_in_the_binding_and_in_the_library(slot: ctypes.c_void_p) -> None:
    seen: list[str] = []
    sim = _simulation()
    mujoco.set_mju_user_warning(seen.append)
    try:
        installed = slot.value
        assert installed is not None  # the binding's trampoline
        sim.step()
        assert mujoco.get_mju_user_warning() == seen.append and slot.value == installed
        _diverge(sim)
        with pytest.raises(SimulationError, match="unstable"):
            sim.step()
        assert seen == []  # the step's warning went to the simulation's handler
        assert mujoco.get_mju_user_warning() == seen.append and slot.value == installed
        _plain_warning()  # after the step the user's handler gets MuJoCo's warnings again
        assert len(seen) == 1 and "unstable" in seen[0]
    finally:
        mujoco.set_mju_user_warning(None)


def test_each_simulation_gets_its_own_warnings(slot: ctypes.c_void_p) -> None:
    first, second = _simulation(), _simulation()
    first.step()
    second.step()
    _diverge(second)
    first.step()
    with pytest.raises(SimulationError, match="unstable"):
        second.step()
    assert first._diverged_dof is None and second._diverged_dof == 0  # noqa: SLF001
    assert first.step() and np.isfinite(first.data.qvel).all()
    assert slot.value is None


def test_an_exception_in_the_handler_is_raised_after_the_mujoco_call(
        slot: ctypes.c_void_p, monkeypatch: pytest.MonkeyPatch) -> None:
    """It cannot cross MuJoCo's C frames (the binding's trampoline ends the process): it is kept and raised
    once the MuJoCo call returned, with the handler back."""
    sim = _simulation()
    sim.step()

    def broken(self: Simulation) -> None:
        raise KeyError("broken")

    monkeypatch.setattr(Simulation, "_first_diverging_dof", broken)
    _diverge(sim)
    with pytest.raises(KeyError, match="broken"):
        sim.step()
    assert slot.value is None and sim._warnings.failures == []  # noqa: SLF001


def test_without_the_pointer_the_bindings_setter_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(simulation_module, "warning_slot", lambda: None)
    sim = _simulation()
    assert sim._warnings.slot is None  # noqa: SLF001
    calls: list[object] = []
    setter = mujoco.set_mju_user_warning
    monkeypatch.setattr(mujoco, "set_mju_user_warning", lambda handler: (calls.append(handler), setter(handler)))
    sim.step()
    _diverge(sim)
    with pytest.raises(SimulationError, match="unstable"):
        sim.step()
    assert sim._diverged_dof == 0 and len(calls) == 4 and calls[-1] is None  # noqa: SLF001
    assert mujoco.get_mju_user_warning() is None


def test_a_collected_relay_clears_a_pointer_left_on_its_callback() -> None:
    """Another thread's step may leave the pointer on a relay's callback: the relay clears it when collected,
    before its code is freed (a stand-in pointer here, not libmujoco's)."""
    class Owner:
        def warn(self, message: str) -> None:
            pass

    owner = Owner()
    stand_in = ctypes.c_void_p()
    relay = WarningRelay(owner.warn, stand_in)
    stand_in.value = relay.address
    del relay
    gc.collect()
    assert stand_in.value is None


def test_a_handlers_exception_is_not_left_over_when_the_step_itself_fails(
        slot: ctypes.c_void_p, monkeypatch: pytest.MonkeyPatch) -> None:
    """A step that raises on its own (here a KeyboardInterrupt out of MuJoCo's call) reports that, and the next
    step does not raise the handler's exception of the interrupted one."""
    sim = _simulation()
    sim._bounce = None  # noqa: SLF001  # the plain mj_step call (no bounce threshold's edit)
    sim.step()
    step = mujoco.mj_step

    def interrupted(model: mujoco.MjModel, data: mujoco.MjData, nstep: int = 1) -> None:
        sim._warnings.failures.append(KeyError("from the handler"))  # noqa: SLF001
        raise KeyboardInterrupt

    monkeypatch.setattr(mujoco, "mj_step", interrupted)
    with pytest.raises(KeyboardInterrupt):
        sim.step()
    monkeypatch.setattr(mujoco, "mj_step", step)
    assert sim._warnings.failures == [] and slot.value is None  # noqa: SLF001
    assert sim.step()


def test_a_callback_another_step_may_put_back_outlives_its_simulation(
        slot: ctypes.c_void_p, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two steps overlapping (threads; greenlets here, for a fixed order): the second begins while the first's
    callback is in the pointer, the first ends and its simulation is dropped, then the second ends and puts the
    first's address back. That callback must still be alive (freed, MuJoCo's next warning would jump into freed
    memory); it calls nothing once its simulation is gone."""
    greenlet = pytest.importorskip("greenlet")
    first, second = _simulation(), _simulation()
    for sim in (first, second):
        sim._bounce = None  # noqa: SLF001  # the plain mj_step call
        sim.step()
    callback = weakref.ref(first._warnings._callback)  # noqa: SLF001
    address, first_data = first._warnings.address, first.data  # noqa: SLF001
    step, main = mujoco.mj_step, greenlet.getcurrent()
    other: list = []

    def overlapping(model: mujoco.MjModel, data: mujoco.MjData, nstep: int = 1) -> None:
        step(model, data, nstep=nstep)
        if data is first_data:
            main.switch()  # the first step's MuJoCo call "still runs": the second step begins
        else:
            other.pop().switch()  # the first step ends meanwhile (its finally finds the second's callback)
            holder.clear()  # and its simulation is dropped
            gc.collect()

    holder = [first]
    del first
    monkeypatch.setattr(mujoco, "mj_step", overlapping)
    other.append(greenlet.greenlet(lambda: holder[0].step()))
    other[0].switch()
    assert slot.value == address
    second.step()
    monkeypatch.setattr(mujoco, "mj_step", step)
    try:
        assert slot.value == address  # put back by the second step, as it found it
        assert callback() is not None  # still callable
        _plain_warning()  # reaches the dropped simulation's callback, which does nothing
    finally:
        slot.value = None


def test_the_simulations_handler_stays_through_the_step_that_makes_the_bounce_callback(
        slot: ctypes.c_void_p, monkeypatch: pytest.MonkeyPatch) -> None:
    """The step that first binds the one-call bounce step checks libmujoco's instance inside the physics phase
    (c_steps.reference_constraint_address, control_slot): not through the warning pointer, whose probe would put
    the binding's record there for the rest of the step; that step's MuJoCo call reports to the simulation's
    handler."""
    pytest.importorskip("numba")
    from wbsim.sim.c_steps_test import BOXES, simulation

    sim = simulation(BOXES)
    installed: list[bool] = []
    step = mujoco.mj_step

    def watched(model: mujoco.MjModel, data: mujoco.MjData, nstep: int = 1) -> None:
        installed.append(slot.value == sim._warnings.address)  # noqa: SLF001
        step(model, data, nstep=nstep)

    monkeypatch.setattr(mujoco, "mj_step", watched)
    for _ in range(4):
        sim.step()
    assert sim._bounce._bound_steps is not None  # noqa: SLF001  # the one-call step was bound in this run
    assert installed and all(installed)
    assert slot.value is None and not sim._warnings._pinned  # noqa: SLF001
