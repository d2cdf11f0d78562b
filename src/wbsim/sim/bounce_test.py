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
