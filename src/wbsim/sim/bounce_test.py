"""Tests for wbsim.sim.bounce: slow contacts get their resting solref, with MuJoCo's own constraint rows."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from wbsim.compile.builder import compile_world
from wbsim.sim.bounce import BounceThreshold
from wbsim.sim.simulation import Simulation
from wbsim.world.loader import load_world_model_from_string

HEADER = "#VRML_SIM R2023b utf8\n"


def ball_world(speed: float, contact: str = "", shape: str = "Sphere { radius 0.05 }", slide: float = 0.0) -> Simulation:
    """A 1 kg ball touching the floor (1 mm deep), moving down at ``speed`` m/s and along x at ``slide`` m/s."""
    text = HEADER + f"""WorldInfo {{ basicTimeStep 4 physicsDisableTime 0 contactProperties [ ContactProperties {{ {contact} }} ] }}
    Solid {{ boundingObject Plane {{ }} }}
    DEF BALL Solid {{ translation 0 0 0.049 physics Physics {{ density -1 mass 1 }} boundingObject {shape}
      linearVelocity {slide} 0 {-speed} }}"""
    return Simulation(compile_world(load_world_model_from_string(text, "b.wbt")))


def rows_after_step1(sim: Simulation) -> tuple[np.ndarray, np.ndarray]:
    """The constraint rows' K, B of the first contact after MuJoCo's collision detection."""
    mujoco.mj_step1(sim.model, sim.data)
    c = sim.data.contact[0]
    rows = slice(c.efc_address, c.efc_address + c.dim)
    return sim.data.efc_KBIP[rows, 0].copy(), sim.data.efc_KBIP[rows, 1].copy()


def _assert_same_edit(data: mujoco.MjData, copy: mujoco.MjData) -> None:
    """Two edits of the same contacts wrote the same rows: constraint K/B/impedance/position, and each contact's
    solref and solreffriction."""
    n = data.ncon
    np.testing.assert_array_equal(data.efc_KBIP[:data.nefc], copy.efc_KBIP[:copy.nefc])
    np.testing.assert_array_equal(data.contact.solref[:n], copy.contact.solref[:n])
    np.testing.assert_array_equal(data.contact.solreffriction[:n], copy.contact.solreffriction[:n])


@pytest.mark.parametrize("rolling", ["", "rollingFriction 0.01 0.01 0.01"])
@pytest.mark.parametrize("slide", [0.0, 0.5])
def test_slow_contact_gets_the_rows_mujoco_makes_for_the_resting_solref(rolling: str, slide: float) -> None:
    """The edited normal row equals what MuJoCo computes for a contact compiled with the resting solref; so do
    the friction rows of a sticking contact, while a sliding one keeps its friction rows (the bouncy solref,
    given as solreffriction)."""
    sim = ball_world(0.005, rolling, slide=slide)
    bounce = sim._bounce
    assert isinstance(bounce, BounceThreshold)
    k_before, b_before = rows_after_step1(sim)
    assert bounce.edit(sim.model, sim.data)
    c = sim.data.contact[0]
    rows = slice(c.efc_address, c.efc_address + c.dim)
    edited_k, edited_b = sim.data.efc_KBIP[rows, 0].copy(), sim.data.efc_KBIP[rows, 1].copy()
    rest = sim.data.contact.solref[0].copy()
    assert rest[1] == 1.0 and edited_k[0] < k_before[0]
    np.testing.assert_array_equal(sim.data.contact.solreffriction[0], sim.model.geom_solref[0])
    # The same contact compiled with the resting solref: MuJoCo's own rows.
    reference = ball_world(0.005, rolling, slide=slide)
    reference.model.geom_solref[:] = rest
    k_ref, b_ref = rows_after_step1(reference)
    np.testing.assert_allclose(edited_k[0], k_ref[0], rtol=1e-12)
    np.testing.assert_allclose(edited_b[0], b_ref[0], rtol=1e-12)
    np.testing.assert_array_equal(edited_k[1:], k_before[1:])  # friction rows have no stiffness
    if slide == 0.0:
        np.testing.assert_allclose(edited_b[1:], b_ref[1:], rtol=1e-12)
    else:
        np.testing.assert_array_equal(edited_b[1:], b_before[1:])


@pytest.mark.parametrize(("speed", "resting"), [(0.005, True), (0.02, False), (0.5, False)])
def test_contacts_faster_than_bounce_velocity_keep_the_bouncy_solref(speed: float, resting: bool) -> None:
    sim = ball_world(speed)
    compiled = sim.model.geom_solref[0].copy()
    mujoco.mj_step1(sim.model, sim.data)
    changed = sim._bounce.edit(sim.model, sim.data)  # type: ignore[union-attr]
    assert changed == resting
    solref = sim.data.contact.solref[0]
    assert (solref[1] == 1.0) == resting
    if not resting:
        np.testing.assert_array_equal(solref, compiled)


def test_surfaces_without_bounce_build_no_threshold() -> None:
    assert ball_world(0.005, "bounce 0")._bounce is None


def test_bounce_velocity_field_sets_the_threshold() -> None:
    """bounceVelocity 0.1: a contact at 0.05 m/s is slow (resting), as ODE would not bounce it."""
    sim = ball_world(0.05, "bounceVelocity 0.1")
    mujoco.mj_step1(sim.model, sim.data)
    assert sim._bounce.edit(sim.model, sim.data)  # type: ignore[union-attr]
    assert sim.data.contact.solref[0][1] == 1.0


# A world where every branch of the edit runs: a ball bouncing on a bouncy floor (fast contacts), boxes resting
# (slow, sticking) and sliding (slow, sliding), a rolling-friction cylinder (condim 6), a box of a bounce-0
# material (contacts that never switch) and material pairs with the floor (explicit MuJoCo pairs).
MIXED_WORLD = HEADER + """WorldInfo { basicTimeStep 4 physicsDisableTime 0 contactProperties [
    ContactProperties { bounce 0.8 }
    ContactProperties { material2 "ground" coulombFriction 0.7 bounce 0.6 bounceVelocity 0.05 }
    ContactProperties { material1 "ground" material2 "rubber" coulombFriction 1.5 bounce 0.3 }
    ContactProperties { material2 "felt" bounce 0 }
    ContactProperties { material1 "ground" material2 "roller" rollingFriction 0.01 0.01 0.01 bounce 0.5 }
  ] }
  Solid { contactMaterial "ground" boundingObject Plane { size 10 10 } }
  DEF BALL Solid { translation 0 0 0.6 physics Physics { density -1 mass 0.2 } boundingObject Sphere { radius 0.05 } }
  DEF REST Solid { translation 0.5 0 0.1 contactMaterial "rubber" physics Physics { density -1 mass 2 }
    boundingObject Box { size 0.2 0.2 0.2 } }
  DEF SLIDE Solid { translation -0.5 0 0.1 physics Physics { density -1 mass 1 } boundingObject Box { size 0.2 0.2 0.2 }
    linearVelocity 1.5 0 0 }
  DEF FELT Solid { translation 0 0.6 0.11 contactMaterial "felt" physics Physics { density -1 mass 1 }
    boundingObject Box { size 0.2 0.2 0.2 } }
  DEF ROLL Solid { translation 0 -0.6 0.1 rotation 1 0 0 1.5708 contactMaterial "roller"
    physics Physics { density -1 mass 1 } boundingObject Cylinder { height 0.1 radius 0.1 } angularVelocity 8 0 0 }
  DEF TOP Solid { translation 0.5 0 0.3 physics Physics { density -1 mass 0.5 } boundingObject Box { size 0.1 0.1 0.1 } }
"""


def mixed_sim(compiled: bool) -> Simulation:
    """:data:`MIXED_WORLD` with its bounce threshold edited by the numpy path or the compiled loop."""
    sim = Simulation(compile_world(load_world_model_from_string(MIXED_WORLD, "mixed.wbt")))
    assert sim.compiled.bounce is not None
    sim._bounce = BounceThreshold(sim.compiled.bounce, sim.model, compiled=compiled)
    return sim


def test_compiled_edit_equals_the_numpy_edit_bit_for_bit() -> None:
    """In each MuJoCo step of a world with bouncing, resting, sliding and rolling contacts, material pairs and
    contacts that never switch, the compiled loop writes exactly the rows and solref the numpy path writes."""
    pytest.importorskip("numba")  # the compiled loop (the numpy path runs without it)
    sim = mixed_sim(compiled=True)
    model, data = sim.model, sim.data
    numpy_path = BounceThreshold(sim.compiled.bounce, model, compiled=False)  # type: ignore[arg-type]
    assert numpy_path._uniform is None and len(numpy_path.table.pair_keys) > 0  # the general path, with pairs
    copy = mujoco.MjData(model)
    outcomes = {True: 0, False: 0}
    fast_and_slow = 0
    for _ in range(1500):  # 6 s: the ball bounces and settles, the slider stops
        mujoco.mj_step1(model, data)
        mujoco.mj_copyData(copy, model, data)
        expected = numpy_path.edit(model, copy)
        changed = sim._bounce.edit(model, data)  # type: ignore[union-attr]
        assert changed == expected
        outcomes[changed] += 1
        n = data.ncon
        _assert_same_edit(data, copy)
        rows = data.contact.efc_address[:n]
        speed = np.abs(data.efc_vel[rows[rows >= 0]])
        fast_and_slow += bool((speed > 0.05).any() and (speed <= 0.01).any())
        if changed:
            mujoco.mj_referenceConstraint(model, data)
        mujoco.mj_step2(model, data)
    assert sim._bounce._kernel is not None  # type: ignore[union-attr]
    assert sim._bounce._raw is not None  # type: ignore[union-attr]  # the loop reading the mjData struct
    assert outcomes[True] > 1000 and fast_and_slow > 10, (outcomes, fast_and_slow)


def test_struct_reading_loop_equals_the_view_loop_and_falls_back_to_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled loop reads the mjData struct in place once its layout checks out; if the check fails it
    keeps the binding's views. Whole runs either way are bit-identical, and the physics loop binds the struct
    reader to the data (one call per MuJoCo step)."""
    pytest.importorskip("numba")  # the compiled loop (the numpy path runs without it)
    import wbsim.sim.mjlayout as mjlayout

    in_place = mixed_sim(compiled=True)
    in_place.run(0.1)
    bounce = in_place._bounce
    assert bounce is not None and bounce._raw is not None
    step_edit = bounce.step_edit(in_place.model, in_place.data)
    assert step_edit.func is bounce._raw and step_edit.args[0] == in_place.data._address  # type: ignore[attr-defined]
    monkeypatch.setattr(mjlayout, "data_layout", lambda data: None)  # another MuJoCo's layout
    views = mixed_sim(compiled=True)
    views.run(0.1)
    assert views._bounce is not None and views._bounce._raw is None and views._bounce._kernel is not None
    for sim in (in_place, views):
        sim.run(2.9)
    np.testing.assert_array_equal(in_place.data.qpos, views.data.qpos)
    np.testing.assert_array_equal(in_place.data.qvel, views.data.qvel)


def test_compiled_and_numpy_runs_are_identical() -> None:
    """Whole simulations with either path end bit-identical (so switching paths keeps runs deterministic)."""
    runs = [mixed_sim(compiled) for compiled in (False, True)]
    for sim in runs:
        sim.run(3.0)
    np.testing.assert_array_equal(runs[0].data.qpos, runs[1].data.qpos)
    np.testing.assert_array_equal(runs[0].data.qvel, runs[1].data.qvel)


def test_default_threshold_switches_to_the_compiled_loop_after_numpy_edits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Default: numpy edits first, the compiled loop once they used up :data:`NUMPY_EDITS` (each contact adding
    1/32 edit; numba not yet imported): 33 with one contact are 32 numpy edits."""
    pytest.importorskip("numba")  # the compiled loop (the numpy path runs without it)
    import wbsim.sim.bounce as bounce_module

    monkeypatch.setattr(bounce_module, "NUMPY_EDITS", 33)
    monkeypatch.setattr(bounce_module, "_numba_imported", lambda: False)  # as in a fresh process
    sim = ball_world(0.005)
    threshold = BounceThreshold(sim.compiled.bounce, sim.model)  # type: ignore[arg-type]
    mujoco.mj_step1(sim.model, sim.data)
    assert sim.data.ncon == 1
    for _ in range(32):
        assert threshold.edit(sim.model, sim.data) and threshold._kernel is None
    assert threshold.edit(sim.model, sim.data) and threshold._kernel is not None


def test_numba_already_imported_switches_at_the_first_edit(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("numba")  # the compiled loop (the numpy path runs without it)
    import wbsim.sim.bounce as bounce_module

    monkeypatch.setattr(bounce_module, "_numba_imported", lambda: True)
    sim = ball_world(0.005)
    threshold = BounceThreshold(sim.compiled.bounce, sim.model)  # type: ignore[arg-type]
    mujoco.mj_step1(sim.model, sim.data)
    assert threshold.edit(sim.model, sim.data) and threshold._kernel is not None


def test_without_numba_the_numpy_path_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    """numba is a dependency, but a threshold asked for the compiled loop without it keeps editing with numpy."""
    import wbsim.sim.bounce as bounce_module

    monkeypatch.setattr(bounce_module.importlib.util, "find_spec", lambda name: None)
    sim = ball_world(0.005)
    threshold = BounceThreshold(sim.compiled.bounce, sim.model, compiled=True)  # type: ignore[arg-type]
    mujoco.mj_step1(sim.model, sim.data)
    assert threshold.edit(sim.model, sim.data) and threshold._kernel is None
    assert sim.data.contact.solref[0][1] == 1.0


def test_the_threshold_can_be_turned_off_and_the_run_keeps_the_bouncy_springs(tmp_path) -> None:  # noqa: ANN001
    """``bounce_threshold=False`` (load_world, CompileOptions): no edit, every physics step of a basic step in one
    ``mj_step`` call, the same motion as with the edit removed by hand, and not the default's."""
    from wbsim.sim.simulation import load_world

    (tmp_path / "worlds").mkdir()
    path = tmp_path / "worlds" / "mixed.wbt"
    path.write_text(MIXED_WORLD)
    off = load_world(path, bounce_threshold=False)
    assert off.compiled.bounce is None and off._bounce is None
    assert off.options.compile.bounce_threshold is False  # kept for run-time recompilations
    by_hand = load_world(path)
    by_hand._bounce = None
    default = load_world(path)
    for sim in (off, by_hand, default):
        sim.run(1.0)
    np.testing.assert_array_equal(off.data.qpos, by_hand.data.qpos)
    assert not np.array_equal(off.data.qpos, default.data.qpos)



# A frictionless material (condim 1, geom priority 1) on a floor of the default surface (condim 3, priority 0):
# MuJoCo gives their contacts the higher priority's condim, 1. SLIDE rests on the floor sliding along x.
ICE = """DEF ICE Solid { translation 0 0 0.0999 contactMaterial "ice" physics Physics { density -1 mass 1 }
    boundingObject Sphere { radius 0.1 } }
"""
SLIDE = """DEF SLIDE Solid { translation 1 0 0.0999 physics Physics { density -1 mass 1 }
    boundingObject Sphere { radius 0.1 } linearVelocity 0.5 0 0 }
"""
PRIORITY_WORLD = HEADER + """WorldInfo { basicTimeStep 4 physicsDisableTime 0 contactProperties [
    ContactProperties { material2 "ice" coulombFriction 0 } ] }
  Solid { boundingObject Plane { size 10 10 } }
"""


@pytest.mark.parametrize("compiled", [False, True])
def test_a_higher_priority_geoms_smaller_condim_edits_only_its_own_rows(compiled: bool) -> None:
    """ICE's slow frictionless contact has one constraint row: the edit must not take the next contact's rows
    for its friction rows (SLIDE's contact is slow but sliding, so its friction rows keep their bouncy
    damping), nor read past the last row when ICE's is the last contact (the numpy path raised IndexError;
    the compiled loop read and wrote out of bounds)."""
    sim = Simulation(compile_world(load_world_model_from_string(PRIORITY_WORLD + ICE + SLIDE, "p.wbt")))
    model, data = sim.model, sim.data
    threshold = BounceThreshold(sim.compiled.bounce, model, compiled=compiled)  # type: ignore[arg-type]
    mujoco.mj_step1(model, data)
    assert data.contact.dim[:data.ncon].tolist() == [1, 3] and data.contact.efc_address[1] == 1
    before = data.efc_KBIP[:data.nefc].copy()
    assert threshold.edit(model, data)
    assert data.contact.solref[0][1] == 1.0 and data.contact.solref[1][1] == 1.0  # both slow
    assert data.efc_KBIP[0, 1] == data.efc_KBIP[1, 1] != before[1, 1]  # both normal rows resting
    np.testing.assert_array_equal(data.efc_KBIP[2:4], before[2:4])  # SLIDE slides: bouncy friction rows
    # ICE's contact last: whole runs with the edit in every step.
    last = Simulation(compile_world(load_world_model_from_string(PRIORITY_WORLD + SLIDE + ICE, "p.wbt")))
    last._bounce = BounceThreshold(last.compiled.bounce, last.model, compiled=compiled)  # type: ignore[arg-type]
    mujoco.mj_step1(last.model, last.data)
    assert last.data.contact.dim[:last.data.ncon].tolist() == [3, 1]
    last.run(0.5)
    assert abs(last.data.qpos[9] - 0.0995) < 1e-3 and last.data.qpos[7] == 0.0  # ICE rests where it was


def test_a_switch_to_the_compiled_loop_mid_run_and_a_reset_keep_runs_bit_identical(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The default threshold switches from numpy to the compiled loop during the first run (after 300 edits
    here); that run, the run after :meth:`Simulation.reset` and a numpy-only run end bit-identical."""
    pytest.importorskip("numba")  # the compiled loop (the numpy path runs without it)
    import wbsim.sim.bounce as bounce_module

    monkeypatch.setattr(bounce_module, "NUMPY_EDITS", 300)
    monkeypatch.setattr(bounce_module, "_numba_imported", lambda: False)
    sim = Simulation(compile_world(load_world_model_from_string(MIXED_WORLD, "mixed.wbt")))
    assert sim._bounce is not None and sim._bounce._kernel is None
    sim.run(2.0)
    assert sim._bounce._kernel is not None  # switched during the run
    first = (sim.data.qpos.copy(), sim.data.qvel.copy())
    sim.reset()
    sim.run(2.0)
    numpy_only = mixed_sim(compiled=False)
    numpy_only.run(2.0)
    for other in (sim, numpy_only):
        np.testing.assert_array_equal(other.data.qpos, first[0])
        np.testing.assert_array_equal(other.data.qvel, first[1])


def test_a_copied_threshold_edits_the_data_it_is_given_never_the_originals() -> None:
    """``copy.deepcopy`` of a threshold whose compiled calls are bound (to a data's struct address, for the
    one-call steps to the model's too, with a block of its tables' addresses) copies the data they were bound
    to: the copy's calls must follow the data and model they are given and its own tables, never write into
    or step the original's structs."""
    pytest.importorskip("numba")  # the compiled loop (the numpy path runs without it)
    import copy

    sim = mixed_sim(compiled=True)
    sim.run(0.5)
    bounce = sim._bounce
    assert bounce is not None and bounce._raw is not None
    bounce.step_edit(sim.model, sim.data)
    assert bounce.one_call_steps(sim.model, sim.data) is not None
    twin = copy.deepcopy(bounce)
    assert twin._control is bounce._control  # the compiled callback is shared, not copied
    data, model = twin._bound[0], twin._bound_steps[1]  # type: ignore[index]  # the copied data and model
    assert data is not sim.data and model is not sim.model
    original = sim.data.qpos.copy(), sim.data.qvel.copy(), sim.data.time
    reference = copy.deepcopy(data)
    mujoco.mj_step1(model, data)
    mujoco.mj_step1(sim.model, reference)
    assert twin.step_edit(model, data)() == bounce.step_edit(sim.model, reference)()
    np.testing.assert_array_equal(data.efc_KBIP, reference.efc_KBIP)
    steps = twin.one_call_steps(model, data)
    assert steps is not None and steps is not bounce.one_call_steps(sim.model, sim.data)
    assert steps(10)
    assert data.time > reference.time
    np.testing.assert_array_equal(sim.data.qpos, original[0])
    np.testing.assert_array_equal(sim.data.qvel, original[1])
    assert sim.data.time == original[2]
    del bounce, sim  # the copy's block names the copy's tables: it steps on alone
    assert steps(10)


# One bouncy surface (the default material everywhere, Webots' default bounce 0.5): the uniform edit. A ball
# bounces and settles, a box slides to a stop, a box rests with another on top (a few contacts each step).
UNIFORM_WORLD = HEADER + """WorldInfo { basicTimeStep 4 physicsDisableTime 0 }
  Solid { boundingObject Plane { size 10 10 } }
  DEF BALL Solid { translation 0 0 0.3 physics Physics { density -1 mass 0.2 } boundingObject Sphere { radius 0.05 } }
  DEF SLIDE Solid { translation -0.5 0 0.1 physics Physics { density -1 mass 1 } boundingObject Box { size 0.2 0.2 0.2 }
    linearVelocity 0.8 0 0 }
  DEF REST Solid { translation 0.5 0 0.1 physics Physics { density -1 mass 2 } boundingObject Box { size 0.2 0.2 0.2 } }
  DEF TOP Solid { translation 0.5 0 0.3 physics Physics { density -1 mass 0.5 } boundingObject Box { size 0.1 0.1 0.1 } }
"""

# The same with a second material (no bounce, less friction, on the sliding and the top box) that the compiler
# expresses by geom priorities, without explicit pairs (as the demo's wheels): contact classes that switch or
# not.
CLASSES_WORLD = (
    UNIFORM_WORLD
    .replace("physicsDisableTime 0", """physicsDisableTime 0 contactProperties [
    ContactProperties { material1 "default" material2 "felt" coulombFriction [ 0.3 ] bounce 0 } ]""")
    .replace("DEF SLIDE Solid {", 'DEF SLIDE Solid { contactMaterial "felt"')
    .replace("DEF TOP Solid {", 'DEF TOP Solid { contactMaterial "felt"'))


@pytest.mark.parametrize("world", ["uniform", "classes"])
def test_plain_python_edit_of_a_few_contacts_equals_the_numpy_edit_bit_for_bit(
        world: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A world without explicit pairs with up to PLAIN_PYTHON_CONTACTS contacts is edited element by element
    in plain Python; in each MuJoCo step it writes exactly the rows and solref the vectorised numpy edit
    writes, through bouncing, sliding, sticking and resting contacts, with one bouncy surface or several
    contact classes (the limit raised here to cover them all)."""
    import wbsim.sim.bounce as bounce_module

    text = UNIFORM_WORLD if world == "uniform" else CLASSES_WORLD
    sim = Simulation(compile_world(load_world_model_from_string(text, f"{world}.wbt")))
    model, data = sim.model, sim.data
    plain = BounceThreshold(sim.compiled.bounce, model, compiled=False)  # type: ignore[arg-type]
    vectorised = BounceThreshold(sim.compiled.bounce, model, compiled=False)  # type: ignore[arg-type]
    assert (plain._uniform is not None) == (world == "uniform") and not plain._has_pairs
    assert world == "uniform" or (plain._nclass > 1 and not plain._switches.all())
    copy = mujoco.MjData(model)
    outcomes = {True: 0, False: 0}
    sticking = sliding = 0
    for _ in range(1500):  # 6 s: the ball bounces and settles, the slider stops
        mujoco.mj_step1(model, data)
        mujoco.mj_copyData(copy, model, data)
        monkeypatch.setattr(bounce_module, "PLAIN_PYTHON_CONTACTS", 0)
        expected = vectorised.edit(model, copy)
        monkeypatch.setattr(bounce_module, "PLAIN_PYTHON_CONTACTS", 64)  # this world's 9 to 13: all plain
        assert 0 < data.ncon <= 64
        changed = plain.edit(model, data)
        assert changed == expected
        outcomes[changed] += 1
        n = data.ncon
        _assert_same_edit(data, copy)
        rows = data.contact.efc_address[:n]
        rows = rows[rows >= 0]
        slide = np.hypot(data.efc_vel[rows + 1], data.efc_vel[rows + 2])
        slow = np.abs(data.efc_vel[rows]) <= 0.01
        sticking += int((slow & (slide <= 0.01)).sum())
        sliding += int((slow & (slide > 0.01)).sum())
        if changed:
            mujoco.mj_referenceConstraint(model, data)
        mujoco.mj_step2(model, data)
    assert outcomes[True] > 1000 and outcomes[False] > 0 and sticking > 1000 and sliding > 10, (
        outcomes, sticking, sliding)


def test_sticking_test_decides_as_the_c_librarys_hypot() -> None:
    """The plain edit's sticking test gives numpy's ``hypot(u, v) <= threshold`` on both sides of the
    threshold, within rounding of it, for NaN and infinite speeds, and for a zero or tiny threshold."""
    from wbsim.sim.bounce import _slides_at_most

    rng = np.random.default_rng(3)
    thresholds = [0.0, 1e-300, 1e-170, 0.01, 0.05, 1.0]
    cases = [(u, v) for u, v in rng.normal(0.0, 0.01, (2000, 2))]
    for t in thresholds[3:]:  # just around the threshold: a few ulps either side
        for angle in np.linspace(0.0, 2 * np.pi, 50):
            for scale in (1 - 4e-16, 1 - 1e-16, 1.0, 1 + 1e-16, 1 + 4e-16, 1 - 1e-10, 1 + 1e-10):
                cases.append((t * scale * np.cos(angle), t * scale * np.sin(angle)))
    cases += [(np.nan, 0.0), (np.inf, np.nan), (-np.inf, 1.0), (1e-171, 0.0), (1e200, 1e200), (0.0, 0.0)]
    for t in thresholds:
        for u, v in cases:
            assert _slides_at_most(float(u), float(v), t) == bool(np.hypot(u, v) <= t), (u, v, t)


def _dropped_balls(contacts: str, materials: list[str]) -> str:
    """Nine balls dropped from staggered heights onto a floor (0 to 9 contacts as they land), every other one
    sliding along x; ball ``i`` has ``materials[i % len(materials)]`` ("" for the default)."""
    balls = []
    for i in range(9):
        material = materials[i % len(materials)]
        balls.append(
            f'Solid {{ translation {0.3 * i} 0 {0.052 + 0.012 * i} {f"contactMaterial {material!r}" if material else ""}'
            f' physics Physics {{ density -1 mass 0.2 }} boundingObject Sphere {{ radius 0.05 }}'
            f' linearVelocity {0.3 * (i % 2)} 0 0 name "ball{i}" }}'.replace("'", '"'))
    return (HEADER + f"WorldInfo {{ basicTimeStep 4 physicsDisableTime 0 contactProperties [ {contacts} ] }}\n"
            "Solid { boundingObject Plane { size 10 10 } }\n" + "\n".join(balls))


@pytest.mark.parametrize("world", ["frictionless", "rolling", "mixed"])
def test_plain_edit_at_its_default_limit_equals_the_numpy_edit_for_0_1_8_and_9_contacts(
        world: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """At the default PLAIN_PYTHON_CONTACTS (8), the plain edit takes 0 to 8 contacts and leaves 9 to the
    vectorised one; every MuJoCo step writes the same doubles as the vectorised edit alone, for frictionless
    contacts (condim 1), rolling friction (condim 6) and a mix of materials with condim 1, 3 and 6, bouncy or
    not (contact classes that switch or not, mixed by MuJoCo's priorities)."""
    import wbsim.sim.bounce as bounce_module

    if world == "frictionless":
        text = _dropped_balls('ContactProperties { coulombFriction [ 0 ] }', [""])
    elif world == "rolling":
        text = _dropped_balls('ContactProperties { rollingFriction 0.01 0.01 0.01 }', [""])
    else:
        text = _dropped_balls(
            'ContactProperties { material2 "ice" coulombFriction [ 0 ] bounce 0.5 } '
            'ContactProperties { material2 "rubber" rollingFriction 0.01 0.01 0.01 bounce 0 }',
            ["", "ice", "rubber"])
    sim = Simulation(compile_world(load_world_model_from_string(text, f"{world}.wbt")))
    model, data = sim.model, sim.data
    plain = BounceThreshold(sim.compiled.bounce, model, compiled=False)  # type: ignore[arg-type]
    vectorised = BounceThreshold(sim.compiled.bounce, model, compiled=False)  # type: ignore[arg-type]
    assert not plain._has_pairs
    if world == "mixed":  # per-class entries: condim 1, 3 and 6, switching or not, two priorities
        assert plain._uniform is None and set(plain._dims.tolist()) == {1, 3, 6}
        assert plain._switches.any() and not plain._switches.all() and len(set(model.geom_priority)) == 2
    else:  # one bouncy surface: the uniform entry
        assert plain._uniform is not None and plain._friction_dims == (1 if world == "frictionless" else 6)
    few_counts: list[int] = []
    edit_few = plain._edit_few

    def spy(contact, data_, n):  # the plain edit's contact counts
        few_counts.append(n)
        return edit_few(contact, data_, n)

    plain._edit_few = spy  # type: ignore[method-assign]
    copy = mujoco.MjData(model)
    seen: set[int] = set()
    changed_steps = 0
    for _ in range(600):
        mujoco.mj_step1(model, data)
        mujoco.mj_copyData(copy, model, data)
        monkeypatch.setattr(bounce_module, "PLAIN_PYTHON_CONTACTS", 0)
        expected = vectorised.edit(model, copy)
        monkeypatch.undo()
        n = data.ncon
        calls = len(few_counts)
        changed = plain.edit(model, data)
        assert changed == expected
        assert len(few_counts) == calls + (0 < n <= 8), n  # 0 contacts: edit returns before either path
        seen.add(n)
        changed_steps += changed
        _assert_same_edit(data, copy)
        if changed:
            mujoco.mj_referenceConstraint(model, data)
        mujoco.mj_step2(model, data)
    assert {0, 1, 8, 9} <= seen and changed_steps > 100, (seen, changed_steps)


def test_a_world_with_explicit_pairs_never_takes_the_plain_edit() -> None:
    """Explicit contact pairs (a material pair whose mix MuJoCo's rules cannot express) are left to the
    vectorised edit, which looks them up, even with fewer than PLAIN_PYTHON_CONTACTS contacts."""
    text = HEADER + """WorldInfo { basicTimeStep 4 physicsDisableTime 0 contactProperties [
      ContactProperties { material1 "ice" material2 "rubber" coulombFriction [ 0.1 ] bounce 0.9 }
      ContactProperties { material2 "rubber" coulombFriction [ 2 ] bounce 0.2 } ] }
    Solid { boundingObject Plane { size 10 10 } contactMaterial "rubber" }
    Solid { translation 0 0 0.06 contactMaterial "ice" physics Physics { density -1 mass 0.2 }
      boundingObject Sphere { radius 0.05 } }
    Solid { translation 1 0 0.06 physics Physics { density -1 mass 0.2 } boundingObject Sphere { radius 0.05 } }
    """
    sim = Simulation(compile_world(load_world_model_from_string(text, "pairs.wbt")))
    model, data = sim.model, sim.data
    threshold = BounceThreshold(sim.compiled.bounce, model, compiled=False)  # type: ignore[arg-type]
    assert model.npair == 1 and threshold._has_pairs

    def refuse(*_: object) -> bool:
        raise AssertionError("the plain edit ran in a world with explicit pairs")

    threshold._edit_few = refuse  # type: ignore[method-assign]
    changed_steps, counts = 0, set()
    for _ in range(300):
        mujoco.mj_step1(model, data)
        counts.add(data.ncon)
        if threshold.edit(model, data):
            changed_steps += 1
            mujoco.mj_referenceConstraint(model, data)
        mujoco.mj_step2(model, data)
    assert counts >= {2} and max(counts) <= 8 and changed_steps > 100, (counts, changed_steps)


# An explicit pair whose contacts MuJoCo lists with the higher geom id first: a ball (geom 1) on a static box
# (geom 0); MuJoCo's collision functions take the lower geom type first (sphere before box), so the contact's
# geoms are (1, 0). The pair's surface (rubber on pad) differs from the classes' (pad with anything): its
# threshold must be found from the unordered key. A box of the default material rests on the pad too (a
# contact whose key lies beyond the last pair's).
SWAPPED_PAIR_WORLD = HEADER + """WorldInfo { basicTimeStep 4 physicsDisableTime 0 contactProperties [
    ContactProperties { material1 "pad" material2 "rubber" coulombFriction 1.5 bounce 0.5 bounceVelocity 0.2 }
    ContactProperties { material1 "pad" coulombFriction 0.3 bounce 0.9 bounceVelocity 0.001 }
  ] }
  Solid { contactMaterial "pad" boundingObject Box { size 4 4 0.1 } }
  DEF BALL Solid { translation 0 0 0.3 contactMaterial "rubber" physics Physics { density -1 mass 0.2 }
    boundingObject Sphere { radius 0.05 } }
  DEF BOX Solid { translation 0.5 0 0.3 physics Physics { density -1 mass 1 } boundingObject Box { size 0.2 0.2 0.2 } }
"""


@pytest.mark.parametrize("in_place", [True, False], ids=["struct-reading", "views"])
def test_a_pair_contact_listing_the_higher_geom_first_gets_its_pairs_threshold(
        in_place: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both compiled loops find an explicit pair from its unordered geoms, as the numpy path: in each MuJoCo
    step of a ball settling on a pad (contact geoms (1, 0), pair key 0 * ngeom + 1), they write exactly the
    numpy path's rows, and the ball's slow contact gets the pair's resting solref (the classes' threshold
    would leave it bouncy)."""
    pytest.importorskip("numba")  # the compiled loop (the numpy path runs without it)
    import wbsim.sim.mjlayout as mjlayout

    if not in_place:
        monkeypatch.setattr(mjlayout, "data_layout", lambda data: None)  # another MuJoCo's layout: the views
    sim = Simulation(compile_world(load_world_model_from_string(SWAPPED_PAIR_WORLD, "pair.wbt")))
    model, data = sim.model, sim.data
    assert sim.compiled.bounce is not None
    compiled = BounceThreshold(sim.compiled.bounce, model, compiled=True)
    numpy_path = BounceThreshold(sim.compiled.bounce, model, compiled=False)
    assert list(numpy_path.table.pair_keys) == [1] and model.ngeom == 3
    copy = mujoco.MjData(model)
    swapped_and_slow = 0
    for _ in range(500):  # 2 s: the ball bounces and settles
        mujoco.mj_step1(model, data)
        mujoco.mj_copyData(copy, model, data)
        expected = numpy_path.edit(model, copy)
        changed = compiled.edit(model, data)
        assert changed == expected
        _assert_same_edit(data, copy)
        for c in data.contact[:data.ncon] if data.ncon else []:
            if tuple(c.geom) == (1, 0) and c.efc_address >= 0 and abs(data.efc_vel[c.efc_address]) <= 0.2:
                swapped_and_slow += 1
                assert c.solref[1] == 1.0  # the resting dampratio (the bouncy one is below 1)
        if changed:
            mujoco.mj_referenceConstraint(model, data)
        mujoco.mj_step2(model, data)
    assert (compiled._raw is not None) == in_place and compiled._kernel is not None
    assert swapped_and_slow > 100
