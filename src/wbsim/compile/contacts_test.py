"""Tests for wbsim.compile.contacts: the ContactProperties to MuJoCo mapping rules, and their use by the compiler."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from wbsim.compile.builder import compile_world
from wbsim.compile.contacts import DEFAULT_WEBOTS_CONTACT, INFINITE_FRICTION, contact_params, ode_surface_params
from wbsim.sim.simulation import Simulation
from wbsim.world.loader import load_world_model_from_string
from wbsim.world.model import WbNode

HEADER = "#VRML_SIM R2023b utf8\n"
DT = 0.004


def contact_node(fields: str) -> WbNode:
    """A checked ContactProperties node with ``fields``."""
    model = load_world_model_from_string(HEADER + f"WorldInfo {{ contactProperties [ ContactProperties {{ {fields} }} ] }}")
    (node,) = model.world_info["contactProperties"]  # type: ignore[misc]
    return node


def restitution(zeta: float) -> float:
    """Coefficient of restitution of a linear spring-damper contact with damping ratio ``zeta`` < 1."""
    return math.exp(-zeta * math.pi / math.sqrt(1 - zeta * zeta))


def test_webots_defaults_without_node() -> None:
    p = contact_params(None, 1e-4)
    assert p.friction == (1.0, 1.0, 0.0, 0.0, 0.0)
    assert p.condim == 3
    assert p.solref[0] == pytest.approx(0.02)  # softERP 0.2 / softCFM 0.001 give MuJoCo's default
    assert restitution(p.solref[1]) == pytest.approx(0.5)
    assert DEFAULT_WEBOTS_CONTACT.bounce == 0.5


def test_default_node_equals_builtin_defaults() -> None:
    assert contact_params(contact_node(""), DT) == contact_params(None, DT)


def test_coulomb_friction() -> None:
    assert contact_params(contact_node("coulombFriction [ 0.3 ]"), DT).friction[:2] == (0.3, 0.3)
    # Only the first value is used.
    assert contact_params(contact_node("coulombFriction [ 0.7 0.2 ]"), DT).friction[:2] == (0.7, 0.7)


def test_infinite_friction() -> None:
    p = contact_params(contact_node("coulombFriction [ -1 ]"), DT)
    assert p.friction[:2] == (INFINITE_FRICTION, INFINITE_FRICTION)


def test_zero_friction_is_frictionless_condim_1() -> None:
    """MuJoCo would keep its minimum friction 1e-5 with condim 3; Webots' 0 means no tangential force."""
    assert contact_params(contact_node("coulombFriction [ 0 ]"), DT).condim == 1
    assert contact_params(contact_node("coulombFriction [ 0 ] rollingFriction 0.01 0 0"), DT).condim == 6
    assert ode_surface_params(0.0, 0.0, 0.0, 0.2, 0.001, DT).condim == 1
    assert ode_surface_params(0.0, 0.5, 0.0, 0.2, 0.001, DT).condim == 3


def test_rolling_friction_enables_condim_6() -> None:
    p = contact_params(contact_node("rollingFriction 0.01 0.02 0.03"), DT)
    assert p.condim == 6
    assert p.friction == (1.0, 1.0, 0.03, 0.01, 0.02)  # (slide, slide, torsion = rhoN, roll = rho, rho2)


@pytest.mark.parametrize("bounce", [0.0, 0.1, 0.5, 0.9])
def test_bounce_to_damping_ratio(bounce: float) -> None:
    zeta = contact_params(contact_node(f"bounce {bounce}"), DT).solref[1]
    if bounce == 0.0:
        assert zeta == 1.0  # critical damping
    else:
        assert 0 < zeta < 1
        assert restitution(zeta) == pytest.approx(bounce)


def test_bounce_one_keeps_some_damping() -> None:
    assert contact_params(contact_node("bounce 1"), DT).solref[1] == pytest.approx(0.01)


@given(st.floats(0.01, 0.99), st.floats(0.01, 0.99))
def test_more_bounce_means_less_damping(a: float, b: float) -> None:
    za = contact_params(contact_node(f"bounce {a}"), DT).solref[1]
    zb = contact_params(contact_node(f"bounce {b}"), DT).solref[1]
    assert (za - zb) * (a - b) <= 1e-12


@pytest.mark.parametrize(("erp", "cfm"), [(0.2, 0.001), (0.8, 0.001), (0.2, 0.0001), (0.05, 0.01), (1.0, 1e-4)])
def test_time_constant_from_erp_cfm(erp: float, cfm: float) -> None:
    # ODE's contact stiffness is ERP / (CFM dt); MuJoCo's scales as 1 / timeconst^2.
    p = contact_params(contact_node(f"softERP {erp} softCFM {cfm}"), 1e-5)
    assert p.solref[0] == pytest.approx(0.02 * math.sqrt((0.2 / 0.001) / (erp / cfm)))


def test_time_constant_lower_bound_is_two_steps() -> None:
    p = contact_params(contact_node("softERP 1 softCFM 1e-9 bounce 0"), DT)
    assert p.solref[0] == pytest.approx(2 * DT)
    # The bound follows the physics step.
    assert contact_params(contact_node("softERP 1 softCFM 1e-9 bounce 0"), 0.001).solref[0] == pytest.approx(0.002)


@pytest.mark.parametrize("bounce", [0.0, 0.3, 0.5, 0.8, 0.95, 1.0])
@pytest.mark.parametrize("dt", [0.001, 0.004])
def test_time_constant_lower_bound_scales_with_damping_ratio(bounce: float, dt: float) -> None:
    # MuJoCo's stiffness is 1 / (timeconst * zeta)^2: the contact's natural period must span enough steps.
    timeconst, zeta = contact_params(contact_node(f"bounce {bounce}"), dt).solref
    assert timeconst * zeta >= 2 * dt * (1 - 1e-12)
    assert timeconst >= 0.02 * (1 - 1e-12)


def test_zero_erp_is_safe() -> None:
    p = contact_params(contact_node("softERP 0"), DT)
    assert math.isfinite(p.solref[0]) and p.solref[0] > 0


# --- as compiled ------------------------------------------------------------------------------------------


def test_compiled_geoms_and_pairs_carry_the_parameters() -> None:
    text = HEADER + """WorldInfo { basicTimeStep 8 contactProperties [
        ContactProperties { material1 "default" material2 "default" coulombFriction [ 0.4 ] bounce 0 }
        ContactProperties { material1 "rubber" material2 "floor" coulombFriction [ -1 ] rollingFriction 0.1 0 0
                            softCFM 0.0004 } ] }
    Solid { contactMaterial "floor" boundingObject Plane { } }
    Solid { translation 0 0 0.2 physics Physics { } boundingObject Sphere { radius 0.1 } }
    Solid { translation 1 0 0.2 contactMaterial "rubber" physics Physics { } boundingObject Sphere { radius 0.1 } }"""
    compiled = compile_world(load_world_model_from_string(text))
    model = compiled.model
    # Default geoms carry the default-default node; other materials Webots' built-in surface, with priority.
    default_geom = compiled.bindings.solids[1].geom_ids[0]
    assert model.geom_friction[default_geom][0] == pytest.approx(0.4)
    assert model.geom_solref[default_geom][1] == pytest.approx(1.0)
    assert model.geom_priority[default_geom] == 0
    for s in (0, 2):
        g = compiled.bindings.solids[s].geom_ids[0]
        assert model.geom_friction[g][0] == pytest.approx(1.0)
        assert model.geom_priority[g] == 1
    # The rubber/floor pair is explicit, with rolling friction and infinite sliding friction.
    assert model.npair == 1
    assert model.pair_dim[0] == 6
    assert model.pair_friction[0][0] == pytest.approx(INFINITE_FRICTION)
    assert model.pair_friction[0][3] == pytest.approx(0.1)
    zeta = model.pair_solref[0][1]
    assert model.pair_solref[0][0] == pytest.approx(max(0.02 * math.sqrt(0.4), 2 * compiled.physics_step_s / zeta))
    floor, rubber = compiled.bindings.solids[0].geom_ids[0], compiled.bindings.solids[2].geom_ids[0]
    assert {model.pair_geom1[0], model.pair_geom2[0]} == {floor, rubber}


def test_explicit_pair_is_not_duplicated_by_dynamic_contacts() -> None:
    text = HEADER + """WorldInfo { basicTimeStep 8 physicsDisableTime 0
        contactProperties [ ContactProperties { material1 "floor" material2 "box" bounce 0 } ] }
    Solid { contactMaterial "floor" boundingObject Plane { } }
    Solid { translation 0 0 0.05 contactMaterial "box" physics Physics { density -1 mass 2 }
            boundingObject Box { size 0.1 0.1 0.1 } }"""
    sim = Simulation(compile_world(load_world_model_from_string(text)))
    sim.run(0.5)
    data = sim.data
    assert data.ncon == 4  # box on plane: 4 corners, once each
    for i in range(data.ncon):
        np.testing.assert_allclose(data.contact[i].solref, [0.02, 1.0])
    total = np.zeros(6)
    force = np.zeros(6)
    for i in range(data.ncon):
        mujoco.mj_contactForce(sim.model, data, i, force)
        total += force
    assert total[0] == pytest.approx(2 * 9.81, rel=1e-3)


def test_default_default_node_applies_only_between_default_materials() -> None:
    """Webots falls back to its built-in surface (mu 1, bounce 0.5) for material pairs without a node."""
    text = HEADER + """WorldInfo { basicTimeStep 8 physicsDisableTime 0 contactProperties [
        ContactProperties { coulombFriction [ 0.3 ] bounce 0 } ] }
    Solid { boundingObject Plane { } }
    DEF PLAIN Solid { translation 0 0 0.049 physics Physics { } boundingObject Box { size 0.1 0.1 0.1 } }
    DEF RUBBER Solid { translation 1 0 0.049 contactMaterial "rubber" physics Physics { } boundingObject Box { size 0.1 0.1 0.1 } }"""
    model = load_world_model_from_string(text)
    sim = Simulation(compile_world(model))
    sim.run(0.1)
    data, m = sim.data, sim.model
    builtin = contact_params(None, sim.compiled.physics_step_s)
    rubber_body = sim.bindings.solid(model.find_def("RUBBER")).body_id  # type: ignore[arg-type, union-attr]
    seen = set()
    for i in range(data.ncon):
        contact = data.contact[i]
        bodies = {int(m.geom_bodyid[g]) for g in contact.geom}
        if rubber_body in bodies:
            assert contact.friction[0] == pytest.approx(1.0)
            np.testing.assert_allclose(contact.solref, builtin.solref)
            seen.add("rubber")
        else:
            assert contact.friction[0] == pytest.approx(0.3)
            np.testing.assert_allclose(contact.solref[1], 1.0)
            seen.add("plain")
    assert seen == {"rubber", "plain"}


@pytest.mark.parametrize("self_collision", [False, True])
def test_robot_self_collision(self_collision: bool) -> None:
    """Bodies of one Robot collide only with selfCollision TRUE; joint-connected bodies never do."""
    text = HEADER + f"""WorldInfo {{ gravity 0 physicsDisableTime 0
        contactProperties [ ContactProperties {{ material1 "a" material2 "b" }} ] }}
    Robot {{ controller "<none>" selfCollision {'TRUE' if self_collision else 'FALSE'} contactMaterial "a"
      physics Physics {{ }} boundingObject Box {{ size 0.2 0.2 0.2 }}
      children [ SliderJoint {{ jointParameters JointParameters {{ axis 1 0 0 }}
        endPoint Solid {{ translation 0.05 0 0 contactMaterial "b" physics Physics {{ }} boundingObject Box {{ size 0.2 0.2 0.2 }}
          children [ SliderJoint {{ jointParameters JointParameters {{ axis 1 0 0 }}
            endPoint Solid {{ translation 0.05 0 0 contactMaterial "b" physics Physics {{ }}
                             boundingObject Box {{ size 0.2 0.2 0.2 }} }} }} ] }} }} ] }}"""
    compiled = compile_world(load_world_model_from_string(text))
    model, data = compiled.model, mujoco.MjData(compiled.model)
    mujoco.mj_forward(model, data)
    root, _, grandchild = (b.body_id for b in compiled.bindings.solids)
    touching = {frozenset(int(model.geom_bodyid[g]) for g in data.contact[i].geom) for i in range(data.ncon)}
    if self_collision:
        # Only the root and the grandchild (not joined by a joint) touch, through the a/b explicit pair.
        assert touching == {frozenset((root, grandchild))}
        assert compiled.model.npair == 1
    else:
        assert touching == set()
        assert compiled.model.nexclude == 3 and compiled.model.npair == 0
