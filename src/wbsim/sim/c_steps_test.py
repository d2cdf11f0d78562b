"""Tests for wbsim.sim.c_steps (EXPERIMENTAL, off by default): a basic step's MuJoCo steps and bounce edits in
one compiled call, bit-identical to the Python loop, MuJoCo's warnings still reaching the simulation."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from wbsim.compile.builder import compile_world
from wbsim.errors import SimulationError
from wbsim.sim import c_steps
from wbsim.sim.bounce import BounceThreshold
from wbsim.sim.bounce_test import MIXED_WORLD
from wbsim.sim.simulation import Simulation
from wbsim.world.loader import load_world_model_from_string

BOXES = """#VRML_SIM R2023b utf8
WorldInfo { basicTimeStep 16 }
Solid { boundingObject Plane { } }
DEF A Solid { translation 0 0 0.05 name "a" physics Physics { } boundingObject Box { size 0.1 0.1 0.1 } }
DEF B Solid { translation 0.1 0 0.05 name "b" physics Physics { } boundingObject Box { size 0.1 0.1 0.1 } }
DEF C Solid { translation 0.2 0 0.05 name "c" physics Physics { } boundingObject Box { size 0.1 0.1 0.1 } }
"""


def simulation(text: str, c_loop: bool) -> Simulation:
    """The world with its bounce threshold's compiled edit loaded at once, stepped in one compiled call per
    basic step (``c_loop``) or by the Python loop."""
    sim = Simulation(compile_world(load_world_model_from_string(text, "w.wbt")))
    assert sim.compiled.bounce is not None
    sim._bounce = BounceThreshold(sim.compiled.bounce, sim.model, compiled=True)
    sim.experimental_c_steps = c_loop
    return sim


def test_the_libraries_entry_points_are_the_bindings() -> None:
    functions = c_steps.mujoco_functions()
    assert functions is not None and functions.dtype == np.int64 and len(set(functions.tolist())) == 3


def test_compiled_steps_give_the_python_loops_run_bit_for_bit() -> None:
    """Bouncing, resting, sliding and rolling contacts with material pairs: the same states after 3 s."""
    runs = [simulation(MIXED_WORLD, c_loop) for c_loop in (False, True)]
    for sim in runs:
        sim.run(3.0)
    assert runs[1]._bounce._bound_steps is not None  # the compiled call ran  # type: ignore[union-attr]
    assert runs[0]._bounce._bound_steps is None  # type: ignore[union-attr]
    np.testing.assert_array_equal(runs[0].data.qpos, runs[1].data.qpos)
    np.testing.assert_array_equal(runs[0].data.qvel, runs[1].data.qvel)
    np.testing.assert_array_equal(runs[0].data.efc_KBIP, runs[1].data.efc_KBIP)


def test_without_the_library_the_python_loop_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(c_steps, "_library", lambda: None)
    assert c_steps.mujoco_functions() is None
    sim = simulation(MIXED_WORLD, True)
    sim.run(0.5)
    assert sim._bounce._functions == () and sim._bounce._bound_steps is None  # type: ignore[union-attr]


@pytest.mark.parametrize("c_loop", [False, True])
def test_divergence_inside_the_compiled_steps_reaches_the_warning_handler(c_loop: bool) -> None:
    """MuJoCo's warning handler is a Python callback: called from C inside the compiled loop it still names
    the diverging body (the handler's own finding, not MuJoCo's index) and the run stops."""
    sim = simulation(BOXES, c_loop)
    sim.run(0.2)  # resting: the compiled edit is loaded and checked
    body = sim.bindings.solid(sim.node("B")).body_id
    dofs = set(range(sim.model.body_dofadr[body], sim.model.body_dofadr[body] + sim.model.body_dofnum[body]))
    sim.data.xfrc_applied[body, 0] = -1e300
    with pytest.raises(SimulationError, match="unstable"):
        sim.step()
    assert sim._diverged_dof in dofs
    assert (sim._bounce._bound_steps is not None) == c_loop  # type: ignore[union-attr]
    assert mujoco.get_mju_user_warning() is None or mujoco.get_mju_user_warning() != sim._on_mujoco_warning


def test_the_experimental_loop_is_off_unless_asked() -> None:
    """A default simulation never binds the one-call loop nor looks for libmujoco's entry points (which
    briefly swaps MuJoCo's process-wide warning handler): its bounce edit runs in the Python loop."""
    sim = Simulation(compile_world(load_world_model_from_string(MIXED_WORLD, "w.wbt")))
    assert sim.experimental_c_steps is False
    sim._bounce = BounceThreshold(sim.compiled.bounce, sim.model, compiled=True)  # type: ignore[arg-type]
    sim.run(0.5)
    bounce = sim._bounce
    assert bounce._raw is not None and bounce._bound is not None  # the struct-reading edit ran
    assert bounce._functions is None and bounce._bound_steps is None


@pytest.mark.parametrize("c_loop", [False, True])
def test_two_simulations_of_different_models_each_keep_their_own_tables(c_loop: bool) -> None:
    """Two worlds with bouncy surfaces stepped in turn in one process (each edit reading its own mjData with
    its own geom classes and pairs): each ends bit-identical to the same world run alone with numpy edits."""
    surface = "contactProperties [ ContactProperties { bounce 0.3 bounceVelocity 0.05 } ]"
    falling = BOXES.replace("0.1 0 0.05", "0.1 0 0.3")
    falling = falling.replace("basicTimeStep 16", f"basicTimeStep 16 {surface}")
    together = [simulation(MIXED_WORLD, c_loop), simulation(falling, c_loop)]
    for _ in range(250):
        for sim in together:
            sim.step()
    for text, sim in zip((MIXED_WORLD, falling), together, strict=True):
        assert sim._bounce._raw is not None  # type: ignore[union-attr]
        assert (sim._bounce._bound_steps is not None) == c_loop  # type: ignore[union-attr]
        alone = simulation(text, False)  # the reference: run alone with the numpy edit (no shared state)
        alone._bounce = BounceThreshold(alone.compiled.bounce, alone.model,  # type: ignore[arg-type]
                                        compiled=False)
        for _ in range(250):
            alone.step()
        np.testing.assert_array_equal(alone.data.qpos, sim.data.qpos)
        np.testing.assert_array_equal(alone.data.qvel, sim.data.qvel)
