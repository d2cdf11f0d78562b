"""Tests for wbsim.sim.c_steps: a basic step's MuJoCo steps with the bounce edit in one ``mj_step`` call (the
edit as MuJoCo's control callback), bit-identical to the split loop, safe for MuJoCo's fatal errors, and
leaving MuJoCo's process-wide callbacks as it found them."""

from __future__ import annotations

import ctypes
import hashlib

from collections.abc import Callable

import mujoco
import numpy as np
import pytest

from wbsim.compile.builder import CompileOptions, compile_spec, compile_world
from wbsim.compile.contacts import BOUNCE_USERDATA_WORDS
from wbsim.errors import SimulationError
from wbsim.sim import c_steps
from wbsim.sim.bounce import BounceThreshold
from wbsim.sim.bounce_test import MIXED_WORLD, SWAPPED_PAIR_WORLD, UNIFORM_WORLD
from wbsim.sim.simulation import Simulation
from wbsim.world.loader import load_world_model_from_string

pytest.importorskip("numba")

BOXES = """#VRML_SIM R2023b utf8
WorldInfo { basicTimeStep 16 }
Solid { boundingObject Plane { } }
DEF A Solid { translation 0 0 0.05 name "a" physics Physics { } boundingObject Box { size 0.1 0.1 0.1 } }
DEF B Solid { translation 0.1 0 0.05 name "b" physics Physics { } boundingObject Box { size 0.1 0.1 0.1 } }
DEF C Solid { translation 0.2 0 0.05 name "c" physics Physics { } boundingObject Box { size 0.1 0.1 0.1 } }
"""

# Sliding and sticking: a box thrown along the floor slides, slows and stops; another rests on it.
THROWN = BOXES.replace('name "a" physics', 'name "a" linearVelocity 1.5 0.3 0 physics').replace(
    "translation 0.2 0 0.05", "translation 0 0 0.16")


# Trees fall asleep while their contacts still move faster than the bounce velocity (a loose sleep threshold,
# a tiny bounce velocity): MuJoCo's recomputation after putting them to sleep calls the control callback
# again.
# One MuJoCo step per basic step, so that the constraint rows of a step where trees fell asleep are compared.
SLEEPY = THROWN.replace("basicTimeStep 16", "basicTimeStep 4 physicsDisableTime 0.05 "
                        "physicsDisableLinearThreshold 1 physicsDisableAngularThreshold 1 "
                        "contactProperties [ ContactProperties { bounce 0.5 bounceVelocity 0.0001 } ]")


def _split_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every simulation made after this runs the split loop (the reference)."""
    monkeypatch.setattr(BounceThreshold, "one_call_steps", lambda self, model, data: None)


def simulation(text: str) -> Simulation:
    """The world with its bounce threshold's compiled edit loaded at once (the default once numba is
    imported; set explicitly so the test does not depend on what imported numba)."""
    sim = Simulation(compile_world(load_world_model_from_string(text, "w.wbt")))
    assert sim.compiled.bounce is not None
    sim._bounce = BounceThreshold(sim.compiled.bounce, sim.model, compiled=True)
    return sim


def _run_digest(sim: Simulation, steps: int) -> str:
    """sha256 of qpos, qvel, ctrl, efc_KBIP, qacc and qacc_warmstart after each of ``steps`` basic steps (the
    accelerations also show an edit in MuJoCo's recomputation after trees fall asleep)."""
    digest = hashlib.sha256()
    for _ in range(steps):
        sim.step()
        data = sim.data
        for values in (data.qpos, data.qvel, data.ctrl, data.efc_KBIP, data.qacc, data.qacc_warmstart):
            digest.update(values.tobytes())
    return digest.hexdigest()


def _one_call_ran(sim: Simulation) -> bool:
    return sim._bounce is not None and sim._bounce._bound_steps is not None


def test_a_bouncy_world_gets_userdata_words_and_others_none() -> None:
    bouncy = compile_world(load_world_model_from_string(BOXES, "w.wbt"))
    assert bouncy.bounce is not None and bouncy.bounce.active
    assert bouncy.model.nuserdata == BOUNCE_USERDATA_WORDS
    off = compile_world(load_world_model_from_string(BOXES, "w.wbt"), CompileOptions(bounce_threshold=False))
    assert off.model.nuserdata == 0
    still = BOXES.replace("basicTimeStep 16",
                          "basicTimeStep 16 contactProperties [ ContactProperties { bounce 0 } ]")
    flat = compile_world(load_world_model_from_string(still, "w.wbt"))
    assert flat.bounce is None or not flat.bounce.active
    assert flat.model.nuserdata == 0


@pytest.mark.parametrize("text", [MIXED_WORLD, UNIFORM_WORLD, BOXES, THROWN, SLEEPY],
                         ids=["material-pairs", "uniform", "resting", "sliding-sticking", "falling-asleep"])
def test_one_call_steps_give_the_split_loops_run_bit_for_bit(text: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Bouncing, resting, sliding, sticking and rolling contacts, with material pairs, and trees falling
    asleep: the same state, constraint rows and accelerations after every basic step as the split loop
    (mj_step1, edit, mj_step2)."""
    fast = simulation(text)
    fast_digest = _run_digest(fast, 400)
    assert _one_call_ran(fast)
    assert mujoco.get_mjcb_control() is None
    _split_only(monkeypatch)
    split = simulation(text)
    assert _run_digest(split, 400) == fast_digest
    assert not _one_call_ran(split)


@pytest.mark.parametrize("text", [MIXED_WORLD, SWAPPED_PAIR_WORLD], ids=["material-pairs", "swapped-pair"])
def test_one_call_steps_give_the_numpy_edits_run_bit_for_bit(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Explicit pairs (one listed by MuJoCo with its higher geom first, keys beyond the last pair's) with slow
    and fast contacts: the control callback's run equals the split loop's with the numpy edit (the reference
    the compiled loops copy; the split loop's compiled edit shares the callback's code, so comparing those two
    alone would miss a lookup both got wrong)."""
    fast = simulation(text)
    fast_digest = _run_digest(fast, 400)
    assert _one_call_ran(fast)
    _split_only(monkeypatch)
    reference = Simulation(compile_world(load_world_model_from_string(text, "w.wbt")))
    assert reference.compiled.bounce is not None
    reference._bounce = BounceThreshold(reference.compiled.bounce, reference.model, compiled=False)
    assert _run_digest(reference, 400) == fast_digest
    assert reference._bounce._kernel is None and not _one_call_ran(reference)


def test_the_one_call_path_is_the_default_once_the_compiled_edit_is_loaded() -> None:
    """A default threshold runs the split loop (numpy or plain edits) until the compiled edit has loaded, then
    one call per basic step."""
    sim = Simulation(compile_world(load_world_model_from_string(BOXES, "w.wbt")))
    bounce = sim._bounce
    assert bounce is not None
    bounce._numpy_left = 3.0  # as if numba were not imported yet: a few numpy edits first
    assert bounce._raw is None and bounce.one_call_steps(sim.model, sim.data) is None
    for _ in range(10):  # the split loop: numpy edits, then the compiled edit loads within a step
        sim.step()
        if bounce._raw is not None:
            break
    assert bounce._raw is not None and not _one_call_ran(sim)
    sim.step()
    assert _one_call_ran(sim)


def test_the_control_callback_is_set_only_inside_the_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inside the one mj_step call libmujoco's mjcb_control is the compiled edit; before and after each step
    it is unset, in the library and in the binding."""
    slot = c_steps.control_slot()
    assert slot is not None and slot.value is None
    seen = []
    real_step = mujoco.mj_step

    def watched(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        seen.append(slot.value)
        return real_step(*args, **kwargs)

    monkeypatch.setattr(mujoco, "mj_step", watched)  # bound by the one-call path when it is first made
    sim = simulation(BOXES)
    for _ in range(20):
        sim.step()
        assert slot.value is None and mujoco.get_mjcb_control() is None
    assert _one_call_ran(sim) and seen
    assert set(seen) == {sim._bounce._control.address}  # type: ignore[union-attr]


def test_a_fatal_mujoco_error_in_the_one_call_step_is_a_simulation_error() -> None:
    """MuJoCo's fatal error inside the one ``mj_step`` call (here after the edit ran in it: an invalid
    integrator) is intercepted by the binding: SimulationError, the callback unset, the process alive, and a
    fresh simulation still steps."""
    sim = simulation(BOXES)
    sim.run(0.2)
    assert _one_call_ran(sim)
    sim.model.opt.integrator = 99
    with pytest.raises(SimulationError,
                       match="MuJoCo failed in the step ending at t = 0\\.224 s .*invalid integrator"):
        sim.step()
    assert sim.ended and sim.exit_status == 1
    assert mujoco.get_mjcb_control() is None
    assert c_steps.control_slot().value is None  # type: ignore[union-attr]
    again = simulation(BOXES)
    again.run(0.2)
    assert _one_call_ran(again)


@pytest.mark.parametrize("one_call", [False, True])
def test_divergence_inside_the_one_call_step_reaches_the_warning_handler(
        one_call: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """MuJoCo's warning handler (a Python callback) runs inside the one call: it names the diverging body (the
    handler's own finding, not MuJoCo's index) and the run stops."""
    if not one_call:
        _split_only(monkeypatch)
    sim = simulation(BOXES)
    sim.run(0.2)
    body = sim.bindings.solid(sim.node("B")).body_id
    dofs = set(range(sim.model.body_dofadr[body], sim.model.body_dofadr[body] + sim.model.body_dofnum[body]))
    sim.data.xfrc_applied[body, 0] = -1e300
    with pytest.raises(SimulationError, match="unstable"):
        sim.step()
    assert sim._diverged_dof in dofs
    assert _one_call_ran(sim) == one_call
    assert mujoco.get_mjcb_control() is None


def test_a_users_control_callback_keeps_the_split_loop_and_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a control callback of the user's set, the one-call path steps nothing: the split loop runs, in
    which MuJoCo calls the user's callback once per MuJoCo step, and the callback is still set after."""
    calls = []

    def users(model: mujoco.MjModel, data: mujoco.MjData) -> None:
        calls.append(data.time)

    sim = simulation(THROWN)
    sim.run(0.2)
    assert _one_call_ran(sim)
    reference = simulation(THROWN)
    reference.run(0.2)
    mujoco.set_mjcb_control(users)
    try:
        for _ in range(30):
            sim.step()
        assert mujoco.get_mjcb_control() is users
    finally:
        mujoco.set_mjcb_control(None)
    # Once per MuJoCo step (again after trees fall asleep in a step, at the same time).
    assert len(set(calls)) == 30 * sim.substeps <= len(calls)
    for _ in range(30):
        reference.step()
    np.testing.assert_array_equal(sim.data.qpos, reference.data.qpos)
    np.testing.assert_array_equal(sim.data.qvel, reference.data.qvel)


def test_two_simulations_alternating_steps_each_give_their_run_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two worlds with bouncy surfaces (different geom classes, pairs and time steps) stepped in turn in one
    process, each finding its own tables through its own data: each ends as the same world run alone with
    the split loop."""
    surface = "contactProperties [ ContactProperties { bounce 0.3 bounceVelocity 0.05 } ]"
    falling = BOXES.replace("0.1 0 0.05", "0.1 0 0.3")
    falling = falling.replace("basicTimeStep 16", f"basicTimeStep 16 {surface}")
    texts = (MIXED_WORLD, falling)
    together = [simulation(text) for text in texts]
    digests = [hashlib.sha256() for _ in texts]
    for _ in range(250):
        for sim, digest in zip(together, digests, strict=True):
            sim.step()
            digest.update(sim.data.qpos.tobytes() + sim.data.qvel.tobytes() + sim.data.efc_KBIP.tobytes())
    assert all(_one_call_ran(sim) for sim in together)
    _split_only(monkeypatch)
    for text, digest in zip(texts, digests, strict=True):
        alone = simulation(text)
        reference = hashlib.sha256()
        for _ in range(250):
            alone.step()
            data = alone.data
            reference.update(data.qpos.tobytes() + data.qvel.tobytes() + data.efc_KBIP.tobytes())
        assert reference.hexdigest() == digest.hexdigest()


def test_a_reset_keeps_the_one_call_runs_bit_identical() -> None:
    """A reset copies the initial data over the live data (its userdata words too): the next step writes them
    again and the run repeats bit for bit."""
    sim = simulation(THROWN)
    first = _run_digest(sim, 200)
    sim.reset()
    assert _run_digest(sim, 200) == first
    assert _one_call_ran(sim)


def test_a_rebuilt_model_steps_in_one_call_as_the_split_loop(project, load,  # noqa: ANN001
                                                             monkeypatch) -> None:  # noqa: ANN001
    """A supervisor's import recompiles the world (a new model and data, a new threshold): the one-call path
    binds to them and the run equals the split loop's."""
    from wbsim.sim.rebuild_test import WORLD, run

    path = project(WORLD)
    sim = load(path, start_controllers=False)
    fast = run(sim, 150, import_at=20)
    assert _one_call_ran(sim) and sim._bounce._bound_steps[1] is sim.model  # the rebuilt model
    assert sim.model.nuserdata == BOUNCE_USERDATA_WORDS
    _split_only(monkeypatch)
    split_sim = load(path, start_controllers=False)
    np.testing.assert_array_equal(run(split_sim, 150, import_at=20), fast)
    assert not _one_call_ran(split_sim)


def test_without_the_library_the_split_loop_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(c_steps, "_library", lambda: None)
    assert c_steps.reference_constraint_address() is None and c_steps.control_slot() is None
    sim = simulation(MIXED_WORLD)
    sim.run(0.5)
    assert sim._bounce._control == () and not _one_call_ran(sim)  # type: ignore[union-attr]
    assert sim._bounce._bound is not None  # the struct-reading edit in the split loop


def test_a_model_without_userdata_words_keeps_the_split_loop() -> None:
    compiled = compile_world(load_world_model_from_string(BOXES, "w.wbt"))
    compiled.spec.nuserdata = 0
    compiled.model = compile_spec(compiled.spec)
    sim = Simulation(compiled)
    sim._bounce = BounceThreshold(compiled.bounce, sim.model, compiled=True)  # type: ignore[arg-type]
    sim.run(0.2)
    assert sim._bounce._control == () and not _one_call_ran(sim)
    assert mujoco.get_mjcb_control() is None


def test_the_callback_leaves_data_without_its_mark_alone() -> None:
    """Set as the control callback while another model is stepped (e.g. from another thread), it edits
    nothing there: that data's userdata words do not carry its mark."""
    sim = simulation(THROWN)
    sim.run(0.2)
    assert _one_call_ran(sim)
    other = simulation(THROWN)
    other.run(0.2)
    copy = mujoco.MjData(other.model)
    mujoco.mj_copyData(copy, other.model, other.data)
    copy.userdata[:] = 0.0
    control = sim._bounce._control  # type: ignore[union-attr]
    mujoco.set_mjcb_control(control.pointer)  # type: ignore[union-attr]
    try:
        mujoco.mj_step1(other.model, copy)
    finally:
        mujoco.set_mjcb_control(None)
    reference = mujoco.MjData(other.model)
    mujoco.mj_copyData(reference, other.model, other.data)
    mujoco.mj_step1(other.model, reference)
    np.testing.assert_array_equal(copy.efc_KBIP, reference.efc_KBIP)  # unedited
    assert other._bounce.edit(other.model, reference)  # type: ignore[union-attr]  # an edit would change rows


def test_a_fatal_error_raised_inside_the_callback_is_intercepted_by_the_binding() -> None:
    """MuJoCo's fatal error raised from inside the compiled callback (here its block names libmujoco's
    ``mj_implicit`` instead of ``mj_referenceConstraint``, which fails with the Euler integrator) leaves
    through the binding's interception of ``mj_step``: ``FatalError``, the callback unset, the process
    alive."""
    from wbsim.sim.bounce_kernel import control_block

    sim = simulation(THROWN)
    sim.run(0.2)
    assert _one_call_ran(sim)
    library = c_steps._library()
    assert library is not None
    implicit = ctypes.cast(library.mj_implicit, ctypes.c_void_p).value
    tables, entries = sim._bounce._raw_tables  # type: ignore[union-attr,misc]
    block = control_block(tables, entries, implicit)
    control = sim._bounce._control  # type: ignore[union-attr]
    steps = c_steps.one_call_steps(sim.model, sim.data, control, block)  # type: ignore[arg-type]
    sim.model.opt.integrator = mujoco.mjtIntegrator.mjINT_EULER
    with pytest.raises(mujoco.FatalError, match="integrator must be implicit"):
        steps(4)
    assert mujoco.get_mjcb_control() is None
    assert c_steps.control_slot().value is None  # type: ignore[union-attr]
    again = simulation(THROWN)
    assert _run_digest(again, 30) == _run_digest(simulation(THROWN), 30)


def _meddled_simulation(monkeypatch: pytest.MonkeyPatch, meddle: Callable[[], object]) -> Simulation:
    """A simulation on the one-call path whose next basic step runs one MuJoCo step with the edit, then
    ``meddle()`` (what another thread may do while the binding has released the GIL), then the other steps."""
    real_step = mujoco.mj_step

    def meddled(model, data, nstep=1):  # noqa: ANN001, ANN202
        real_step(model, data, nstep=1)
        meddle()
        real_step(model, data, nstep=nstep - 1)

    sim = simulation(THROWN)
    sim.run(0.2)
    assert _one_call_ran(sim)
    sim._bounce._bound_steps = None  # type: ignore[union-attr]  # bind again, to the meddling mj_step
    monkeypatch.setattr(mujoco, "mj_step", meddled)
    return sim


def test_a_step_left_unedited_by_another_threads_change_of_the_callback_stops_the_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The binding releases the GIL inside mj_step: another thread may reset MuJoCo's control callback while
    the step runs. The callback counts its edits, and a step with fewer edits than MuJoCo steps raises
    CallbackLost (a SimulationError) instead of going on with a silently different run."""
    slot = c_steps.control_slot()
    sim = _meddled_simulation(monkeypatch, lambda: setattr(slot, "value", None))  # "another thread" unsets it
    with pytest.raises(c_steps.CallbackLost, match="1 of the 4 MuJoCo steps ran with the bounce threshold"):
        sim.step()
    assert sim.ended and sim.exit_status == 1 and isinstance(c_steps.CallbackLost("x"), SimulationError)


def test_a_callback_another_thread_sets_during_the_step_stays_installed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Another thread setting its own control callback through the binding while the one call runs (the GIL is
    released there): the step raises CallbackLost, and the other thread's callback stays installed in the
    library, as the binding records it (the step's reset must not clear a pointer that is no longer
    its own)."""
    real_step = mujoco.mj_step  # before the test replaces it
    calls = []

    def users(model: mujoco.MjModel, data: mujoco.MjData) -> None:
        calls.append(data.time)

    sim = _meddled_simulation(monkeypatch, lambda: mujoco.set_mjcb_control(users))  # "another thread"
    try:
        with pytest.raises(c_steps.CallbackLost, match="1 of the 4 MuJoCo steps"):
            sim.step()
        assert mujoco.get_mjcb_control() is users
        # The library's pointer read as is (control_slot()'s probe would set it again).
        assert sim._bounce._control.slot.value is not None  # type: ignore[union-attr]
        calls.clear()
        real_step(sim.model, mujoco.MjData(sim.model))
        assert len(calls) == 1  # the library still calls the other thread's callback
    finally:
        mujoco.set_mjcb_control(None)


@pytest.mark.parametrize("integrator", ["mjINT_EULER", "mjINT_IMPLICIT", "mjINT_IMPLICITFAST"])
def test_one_call_steps_equal_the_split_loop_with_each_integrator_it_runs(
        integrator: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """wbsim compiles implicitfast, but a user may switch ``sim.model.opt.integrator``: with Euler and
    implicit too, ``mj_step`` is ``mj_step1`` + ``mj_step2`` and the runs match bit for bit (RK4 keeps the
    split loop)."""

    def made() -> Simulation:
        sim = simulation(THROWN)
        sim.model.opt.integrator = getattr(mujoco.mjtIntegrator, integrator)
        return sim

    fast = made()
    digest = _run_digest(fast, 200)
    assert _one_call_ran(fast)
    _split_only(monkeypatch)
    assert _run_digest(made(), 200) == digest


def test_rk4_keeps_the_split_loop() -> None:
    sim = simulation(THROWN)
    sim.model.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    sim.run(0.3)
    steps = sim._bounce.one_call_steps(sim.model, sim.data)  # type: ignore[union-attr]
    assert steps is not None and steps(sim.substeps) is False  # stepped nothing: the split loop ran


@pytest.mark.parametrize("through_binding", [False, True])
@pytest.mark.parametrize("change", ["rk4", "no actuation"])
def test_options_changed_after_the_call_was_made_are_seen_at_the_next_step(
        change: str, through_binding: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The one call reads the integrator and the disable flags at every call (from the mjModel struct, or through
    the binding where the offsets did not check out): RK4 or disabled actuation set between two steps makes it
    step nothing (the split loop runs), and setting them back makes it step again."""
    if through_binding:
        monkeypatch.setattr("wbsim.sim.mjlayout.option_offsets", lambda model: None)
    sim = simulation(THROWN)
    sim.run(0.1)
    steps = sim._bounce.one_call_steps(sim.model, sim.data)  # type: ignore[union-attr]
    assert steps is not None and steps(1) is True
    options = sim.model.opt
    saved = (options.integrator, options.disableflags)
    if change == "rk4":
        options.integrator = mujoco.mjtIntegrator.mjINT_RK4
    else:
        options.disableflags |= mujoco.mjtDisableBit.mjDSBL_ACTUATION
    before = sim.data.time
    assert steps(1) is False and sim.data.time == before
    options.integrator, options.disableflags = saved
    assert steps(1) is True and sim.data.time > before


def test_option_offsets_in_either_order_are_read_where_they_point(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one call reads the integrator and the disable flags at the offsets :func:`option_offsets` gives,
    whichever comes first in the struct (each is checked on its own: a MuJoCo declaring ``disableflags``
    before ``integrator`` would give them in that order). Told here that each lives at the other's offset,
    it reads the integrator where the disable flags are, and the flags where the integrator is."""
    from wbsim.sim import mjlayout

    real = mjlayout.option_offsets
    monkeypatch.setattr(mjlayout, "option_offsets", lambda model: tuple(reversed(real(model))))
    sim = simulation(THROWN)
    sim.run(0.1)  # binds the one call (with the offsets reversed)
    steps = sim._bounce.one_call_steps(sim.model, sim.data)  # type: ignore[union-attr]
    assert steps is not None and steps(1) is True
    options = sim.model.opt
    integrator, flags = options.integrator, options.disableflags
    before = sim.data.time
    options.disableflags = int(mujoco.mjtIntegrator.mjINT_RK4)  # read as the integrator here
    assert steps(1) is False and sim.data.time == before
    options.disableflags = flags
    options.integrator = int(mujoco.mjtDisableBit.mjDSBL_ACTUATION)  # read as the flags here (nothing steps)
    assert steps(1) is False and sim.data.time == before
    options.integrator = integrator
    assert steps(1) is True and sim.data.time > before


def _supervised_digest(sim: Simulation, steps: int) -> tuple[str, int]:
    """sha256 of the state after each step of the rebuild test's world while its supervisor moves the walker,
    pushes it, resets its physics, resets the whole physics, imports a box (a recompiled model) and resets the
    simulation; and how many steps ran in one call."""
    from wbsim.sim.rebuild_test import BOX_STRING

    boss = sim.robot("boss")
    walker = boss.getFromDef("WALKER")
    actions = {20: lambda: walker.getField("translation").setSFVec3f([0.1, 0.2, 0.25]),
               40: lambda: walker.addForce([30.0, 0.0, 40.0], False),
               60: lambda: walker.setVelocity([0.3, -0.2, 0.5, 0.0, 2.0, 1.0]),
               80: walker.resetPhysics,
               100: boss.simulationResetPhysics,
               120: lambda: boss.getRoot().getField("children").importMFNodeFromString(-1, BOX_STRING),
               200: boss.simulationReset}
    digest, one_call = hashlib.sha256(), 0
    for step in range(steps):
        if step in actions:
            actions[step]()
        boss.step(4)
        one_call += _one_call_ran(sim)
        data = sim.data
        for values in (data.qpos, data.qvel, data.ctrl, data.efc_KBIP):
            digest.update(values.tobytes())
    return digest.hexdigest(), one_call


def test_a_supervisors_moves_forces_resets_and_import_keep_one_call_runs_bit_identical(
        project, load, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """Supervisor writes between one-call steps (a pose, a force, velocities, resetPhysics of a node and of
    the world, an import that recompiles the model, simulationReset): the same states after every step as the
    split loop's run."""
    from wbsim.sim.rebuild_test import WORLD

    path = project(WORLD)
    fast, one_call = _supervised_digest(load(path, start_controllers=False), 300)
    assert one_call > 250
    _split_only(monkeypatch)
    split, none = _supervised_digest(load(path, start_controllers=False), 300)
    assert none == 0 and split == fast


def test_a_copy_of_the_data_made_between_steps_is_not_edited_by_the_callback() -> None:
    """A user's copy of ``sim.data`` (``mj_copyData``, e.g. for rollouts stepped with plain MuJoCo in
    another thread while the simulation steps) must not carry the callback's mark: the callback, set meanwhile
    for the simulation's own step, would otherwise edit the copy's contacts in whichever of its steps overlap,
    and read a block that may since have been freed."""
    sim = simulation(THROWN)
    sim.run(0.2)
    assert _one_call_ran(sim)
    copy = mujoco.MjData(sim.model)
    mujoco.mj_copyData(copy, sim.model, sim.data)
    reference = mujoco.MjData(sim.model)
    mujoco.mj_copyData(reference, sim.model, sim.data)
    mujoco.mj_step1(sim.model, reference)
    assert sim._bounce.edit(sim.model, reference)  # type: ignore[union-attr]  # an edit would change rows
    mujoco.mj_copyData(reference, sim.model, sim.data)
    mujoco.mj_step1(sim.model, reference)
    slot = sim._bounce._control.slot  # type: ignore[union-attr]
    slot.value = sim._bounce._control.address  # type: ignore[union-attr]  # as during the simulation's step
    try:
        mujoco.mj_step1(sim.model, copy)
    finally:
        slot.value = None
    np.testing.assert_array_equal(copy.efc_KBIP, reference.efc_KBIP)
    assert copy.userdata.view(np.int64)[0] != c_steps_mark()


def c_steps_mark() -> int:
    from wbsim.sim.bounce_kernel import CONTROL_MARK

    return CONTROL_MARK


def test_a_keyboard_interrupt_out_of_the_step_leaves_the_callback_unset(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C during the one call (the binding releases the GIL; Python raises KeyboardInterrupt once the call
    returns, inside the ``try``): the callback is unset and the mark cleared before it propagates. (An
    exception raised inside MuJoCo's Python warning handler cannot get here: the binding then ends the
    process, with the split loop and plain ``mj_step`` alike.)"""
    real_step = mujoco.mj_step

    def interrupted(model, data, nstep=1):  # noqa: ANN001, ANN202
        real_step(model, data, nstep=nstep)
        raise KeyboardInterrupt

    sim = simulation(THROWN)
    sim.run(0.2)
    assert _one_call_ran(sim)
    sim._bounce._bound_steps = None  # type: ignore[union-attr]  # bind again, to the interrupted mj_step
    monkeypatch.setattr(mujoco, "mj_step", interrupted)
    with pytest.raises(KeyboardInterrupt):
        sim.step()
    assert sim._bounce._control.slot.value is None  # type: ignore[union-attr]
    assert mujoco.get_mjcb_control() is None
    assert sim.data.userdata.view(np.int64)[0] == 0
