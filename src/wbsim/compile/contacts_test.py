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
            # the built-in surface's bouncy solref, or its resting one once slower than bounceVelocity
            assert any(np.allclose(contact.solref, ref) for ref in (builtin.solref, builtin.resting_solref))
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
        contactProperties [ ContactProperties {{ material1 "a" material2 "b" coulombFriction [ 0.2 ] }} ] }}
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


# --- per-geom parameters and explicit pairs against the all-pairs compilation ------------------------------

MIXED_WORLD = HEADER + """WorldInfo { basicTimeStep 4 physicsDisableTime 0 contactProperties [
    ContactProperties { material1 "default" material2 "default" coulombFriction [ 0.6 ] bounce 0 }
    ContactProperties { material1 "default" material2 "wheel" coulombFriction [ 1.5 ] bounce 0 }
    ContactProperties { material1 "ice" material2 "default" coulombFriction [ 0.05 ] bounce 0.1 }
    ContactProperties { material1 "floor" material2 "rubber" coulombFriction [ 0.8 ] bounce 0.9 }
    ContactProperties { material1 "floor" material2 "ice" coulombFriction [ 0.1 ] bounce 0.2 softCFM 0.0005 }
    ContactProperties { material1 "floor" material2 "rubber" coulombFriction [ 0.1 ] } ] }
Solid { contactMaterial "floor" boundingObject Plane { size 20 20 } }
Solid { translation 5 0 0.05 boundingObject Box { size 4 4 0.1 } }
DEF RUBBER Solid { translation 0 0 0.3 contactMaterial "rubber" physics Physics { density -1 mass 1 }
                   boundingObject Sphere { radius 0.05 } }
DEF ICE Solid { translation 0 1 0.05 contactMaterial "ice" physics Physics { density -1 mass 2 }
                boundingObject Box { size 0.1 0.1 0.1 } linearVelocity 1 0 0 }
DEF ICE2 Solid { translation 5 1 0.15 contactMaterial "ice" physics Physics { density -1 mass 2 }
                 boundingObject Box { size 0.1 0.1 0.1 } linearVelocity 1 0 0 }
DEF WHEEL Solid { translation 5 -1 0.15 contactMaterial "wheel" physics Physics { density -1 mass 3 }
                  boundingObject Box { size 0.1 0.1 0.1 } linearVelocity 2 0 0 }
DEF PLAIN Solid { translation 0 -1 0.05 physics Physics { density -1 mass 1.5 }
                  boundingObject Box { size 0.1 0.1 0.1 } linearVelocity 2 0 0 }
DEF DROP Solid { translation 5 0 0.4 physics Physics { density -1 mass 1 } boundingObject Sphere { radius 0.05 } }
DEF ARM Robot { translation 0 3 0.05 selfCollision TRUE contactMaterial "ice" physics Physics { density -1 mass 1 }
  boundingObject Box { size 0.1 0.1 0.1 }
  children [ SliderJoint { jointParameters JointParameters { axis 0 0 1 }
    endPoint Solid { translation 0 0 0.3 children [ SliderJoint { jointParameters JointParameters { axis 0 0 1 }
      endPoint Solid { translation 0 0 0.1 contactMaterial "rubber" physics Physics { density -1 mass 0.5 }
                       boundingObject Sphere { radius 0.04 } } } ]
      physics Physics { density -1 mass 0.1 } } } ] }
"""
"""Static "floor" and "default" ground; sliding, bouncing and resting bodies of each material pair, and a robot
whose own geoms touch (selfCollision)."""


def _legacy_contacts(builder) -> None:  # noqa: ANN001
    """The compilation before per-geom material parameters, as the oracle: "default" geoms carry the
    default/default surface, others the built-in one with priority 1, and every geom pair of two materials
    named by a ContactProperties node (other than default/default) is an explicit pair."""
    nodes = builder.contact_nodes
    first = {}
    for node in nodes:
        first.setdefault(frozenset((str(node["material1"]), str(node["material2"]))), node)
    for slot in builder.solids:
        for g, m in slot.geoms:
            params = contact_params(first.get(frozenset(("default",))) if m == "default" else None, DT)
            geom = builder.geom_specs[g]  # the groups are attached after contacts()
            geom.friction = [params.friction[0], params.friction[2], params.friction[3]]
            geom.solref = list(params.solref)
            geom.solimp = list(params.solimp)
            geom.condim = params.condim
            geom.priority = 0 if m == "default" else 1
    static = {s.body_name for s in builder.solids if not s.dynamic}
    geoms = [(g, m, s) for s in builder.solids for g, m in s.geoms]
    for key, node in first.items():
        if key == frozenset(("default",)):
            continue
        params = contact_params(node, DT)
        for ga, ma, sa in geoms:
            for gb, mb, sb in geoms:
                if ga >= gb or frozenset((ma, mb)) != key or (sa.body_name in static and sb.body_name in static):
                    continue
                if (sa.owner or "world") == (sb.owner or "world") or builder.parent_of.get(sa.body_name) == sb.body_name \
                        or builder.parent_of.get(sb.body_name) == sa.body_name:
                    continue
                pair = builder.spec.add_pair(geomname1=ga, geomname2=gb)
                pair.condim, pair.friction = params.condim, list(params.friction)
                pair.solref, pair.solimp = list(params.solref), list(params.solimp)
                builder.pair_contacts.append((ga, gb, params))  # its resting solref, as the builder records


def _mixed_run(monkeypatch, legacy: bool) -> tuple[dict[str, np.ndarray], dict[str, float], int]:  # noqa: ANN001
    """Run the mixed world 1.5 s: each body's trajectory (x, z per step), its resting load (contact normal
    force at the end), and the number of explicit pairs."""
    from wbsim.compile import builder as builder_module

    with monkeypatch.context() as patch:
        if legacy:
            patch.setattr(builder_module._Builder, "_material_pairs", _legacy_contacts)
        model = load_world_model_from_string(MIXED_WORLD)
        sim = Simulation(compile_world(model))
    names = ("RUBBER", "ICE", "ICE2", "WHEEL", "PLAIN", "DROP", "ARM")
    bodies = {n: sim.bindings.solid(model.find_def(n)).body_id for n in names}  # type: ignore[arg-type, union-attr]
    tracks: dict[str, list[np.ndarray]] = {n: [] for n in names}
    for _ in range(375):
        sim.step()
        for n, b in bodies.items():
            tracks[n].append(sim.data.xpos[b][[0, 2]].copy())
    loads = dict.fromkeys(names, 0.0)
    force = np.zeros(6)
    for i in range(sim.data.ncon):
        mujoco.mj_contactForce(sim.model, sim.data, i, force)
        for g in sim.data.contact[i].geom:
            for n, b in bodies.items():
                if sim.model.geom_bodyid[g] == b:
                    loads[n] += force[0]
    return {n: np.array(t) for n, t in tracks.items()}, loads, sim.model.npair


def test_per_geom_material_parameters_give_the_all_pairs_physics(monkeypatch) -> None:
    """Same resting loads, sliding distances and bounces as the compilation with every material pair explicit,
    with explicit pairs only where MuJoCo's per-geom rules cannot give Webots' surface."""
    old_tracks, old_loads, old_pairs = _mixed_run(monkeypatch, legacy=True)
    new_tracks, new_loads, new_pairs = _mixed_run(monkeypatch, legacy=False)
    # Old: every geom pair named by a node (wheel, ice with the default box and each other moving default
    # geom, floor with rubber and ice...); new: floor/rubber, floor/ice, and the robot's ice/rubber pair.
    assert new_pairs < old_pairs
    # The bounce threshold (sim/bounce.py) switches a contact's solref when its speed crosses bounceVelocity:
    # a last-bit difference between MuJoCo's mix and the explicit pair's value may switch one step apart, so
    # trajectories agree to micrometres (8 um measured) rather than bit for bit.
    for name, old in old_tracks.items():
        np.testing.assert_allclose(new_tracks[name], old, rtol=0, atol=5e-5, err_msg=name)
        assert new_loads[name] == pytest.approx(old_loads[name], rel=1e-3, abs=1e-6), name
    # The world exercises what it should: the rubber ball bounced off the floor, the ice boxes slid further than
    # the wheel box and the plain box, and resting bodies carry their weight.
    rubber_z = old_tracks["RUBBER"][:, 1]
    first_impact = int(np.argmax(np.diff(rubber_z) > 0))
    assert rubber_z[first_impact:].max() > 0.1
    slid = {n: t[-1, 0] - t[0, 0] for n, t in old_tracks.items()}
    assert slid["ICE"] > slid["PLAIN"] and slid["ICE2"] > slid["WHEEL"]
    for name, mass in (("WHEEL", 3.0), ("PLAIN", 1.5), ("DROP", 1.0)):
        assert old_loads[name] == pytest.approx(mass * 9.81, rel=1e-3), name


@pytest.mark.parametrize(("fields", "dt"), [("bounce 0.5", DT), ("softCFM 0.0004 bounce 0.5", DT),
                                             ("softCFM 0.0004 bounce 0.5", 0.002), ("bounce 0.9", DT),
                                             ("softERP 0 bounce 0.5", DT)])
def test_resting_solref_is_critically_damped_and_at_most_1_7_times_softer(fields: str, dt: float) -> None:
    """Slow contacts (wbsim.sim.bounce): the surface without bounce, but never softer than 1.7 times the bouncy
    stiffness (MuJoCo's stiffness is 1 / (timeconst * zeta)^2)."""
    bouncy = contact_params(contact_node(fields), dt)
    without = contact_params(contact_node(fields.replace("bounce 0.5", "").replace("bounce 0.9", "") + " bounce 0"), dt)
    assert bouncy.bounce_velocity == 0.01 and bouncy.rest_solref is not None
    tc, zeta = bouncy.rest_solref
    assert zeta == 1.0
    assert tc == pytest.approx(min(without.solref[0], 1.3 * bouncy.solref[0] * bouncy.solref[1]))
    assert (bouncy.solref[0] * bouncy.solref[1] / tc) ** 2 >= 1 / 1.3**2 - 1e-12


def test_no_bounce_means_no_resting_solref_and_bounce_velocity_is_read() -> None:
    assert contact_params(contact_node("bounce 0"), DT).rest_solref is None
    assert contact_params(contact_node("bounceVelocity 0.3"), DT).bounce_velocity == 0.3
    assert contact_params(None, DT).bounce_velocity == 0.01
