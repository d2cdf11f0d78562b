"""Tests for wbsim.sim.light_rows: ODE's force-space contact spring for very light parts."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from wbsim.compile.builder import CompileOptions, compile_world
from wbsim.sim.light_rows import LIGHT_FRICTION_R, LIGHT_INVERSE_MASS, LIGHT_SOLVER_TOLERANCE, LightContacts
from wbsim.sim.simulation import Simulation
from wbsim.world.loader import load_world_model_from_string

HEADER = "#VRML_SIM R2023b utf8\n"


def balls(light_kg: float, heavy_kg: float = 1.0, contact: str = "", floor: str = "default",
          ball: str = "default") -> Simulation:
    """A ball of ``light_kg`` (material ``ball``) and one of ``heavy_kg`` resting 1 mm deep in the floor (material
    ``floor``), 4 ms steps of 2 ms."""
    text = HEADER + f"""WorldInfo {{ basicTimeStep 4 physicsDisableTime 0 {contact} }}
    Solid {{ boundingObject Plane {{ }} contactMaterial "{floor}" }}
    DEF LIGHT Solid {{ translation 0 0 0.009 physics Physics {{ density -1 mass {light_kg} }}
      boundingObject Sphere {{ radius 0.01 }} contactMaterial "{ball}" }}
    DEF HEAVY Solid {{ translation 1 0 0.049 physics Physics {{ density -1 mass {heavy_kg} }}
      boundingObject Sphere {{ radius 0.05 }} }}"""
    compiled = compile_world(load_world_model_from_string(text, "b.wbt"), CompileOptions(max_physics_step_ms=2))
    return Simulation(compiled)


def contact_rows(sim: Simulation) -> dict[str, tuple[int, int]]:
    """{"LIGHT" | "HEAVY": (first constraint row, dim)} of each ball's floor contact."""
    data, model = sim.data, sim.model
    out = {}
    for name in ("LIGHT", "HEAVY"):
        body = sim.bindings.solid(sim.node(name)).body_id  # type: ignore[union-attr, arg-type]
        for i in range(data.ncon):
            c = data.contact[i]
            if body in (model.geom_bodyid[c.geom[0]], model.geom_bodyid[c.geom[1]]):
                out[name] = (int(c.efc_address), int(c.dim))
    return out


def installed(sim: Simulation) -> LightContacts | None:
    return next((b for b in sim._substep_capable if isinstance(b, LightContacts)), None)


def test_installed_only_for_worlds_with_very_light_parts() -> None:
    light, heavy = balls(0.001), balls(0.5)
    assert installed(light) is not None
    assert installed(heavy) is None  # a 10 mm ball of 0.5 kg: MuJoCo's contacts, no per-step edit
    assert 1.0 / 0.001 > LIGHT_INVERSE_MASS > 1.0 / 0.5
    # The solver's tolerance: the light parts' tighter one, else MuJoCo's default.
    assert light.model.opt.tolerance == LIGHT_SOLVER_TOLERANCE < heavy.model.opt.tolerance == 1e-8


@pytest.mark.parametrize(("contact", "erp", "cfm"), [
    ("", 0.2, 0.001),
    ("contactProperties [ ContactProperties { softERP 0.5 softCFM 0.0001 } ]", 0.5, 0.0001),
])
def test_light_rows_get_odes_spring_heavy_rows_stay_mujocos(contact: str, erp: float, cfm: float) -> None:
    sim = balls(0.001, contact=contact)
    model, data = sim.model, sim.data
    mujoco.mj_step1(model, data)
    rows = contact_rows(sim)
    before_r, before_kbip = data.efc_R.copy(), data.efc_KBIP.copy()
    assert installed(sim).edit_contacts(model, data)  # type: ignore[union-attr]
    h, basic = 0.002, 0.004
    spring, damper = erp / (cfm * basic), (1 - erp) / cfm  # ODE's k (N/m) and c (N s/m) at Webots' step
    row, dim = rows["LIGHT"]
    r = 1.0 / (h * (h * spring + damper))
    assert data.efc_R[row] == pytest.approx(r, rel=1e-12)
    # Friction rows keep MuJoCo's proportion to the normal row (the elliptic cone's mu stays valid).
    np.testing.assert_allclose(data.efc_R[row + 1:row + dim] / data.efc_R[row],
                               before_r[row + 1:row + dim] / before_r[row], rtol=1e-12)
    np.testing.assert_allclose(data.efc_D[row:row + dim], 1.0 / data.efc_R[row:row + dim], rtol=1e-15)
    # K I = k R: at rest the row pushes k x depth; B = 1 / h on every row.
    assert data.efc_KBIP[row, 0] * data.efc_KBIP[row, 2] == pytest.approx(spring * r, rel=1e-12)
    np.testing.assert_array_equal(data.efc_KBIP[row:row + dim, 1], 1.0 / h)
    # The solver reads the island copies.
    assert data.nisland > 0
    island = data.map_efc2iefc[row:row + dim]
    np.testing.assert_array_equal(data.iefc_R[island], data.efc_R[row:row + dim])
    np.testing.assert_array_equal(data.iefc_D[island], data.efc_D[row:row + dim])
    row, dim = rows["HEAVY"]
    np.testing.assert_array_equal(data.efc_R[row:row + dim], before_r[row:row + dim])
    np.testing.assert_array_equal(data.efc_KBIP[row:row + dim], before_kbip[row:row + dim])


def test_a_light_ball_rests_on_odes_spring_and_runs_are_deterministic() -> None:
    """A 1 g ball settles where ODE's spring holds its weight (m g / k deep); two runs are bit-identical."""
    runs = []
    for _ in range(2):
        sim = balls(0.001)
        sim.run(0.5)
        runs.append(sim.data.qpos.copy())
        row, _ = contact_rows(sim)["LIGHT"]
        depth = -float(sim.data.efc_pos[row])
        assert depth == pytest.approx(0.001 * 9.81 / (0.2 / (0.001 * 0.004)), rel=1e-3)
    np.testing.assert_array_equal(runs[0], runs[1])


def _surface(a: str, b: str, erp: float, cfm: float) -> str:
    return f'ContactProperties {{ material1 "{a}" material2 "{b}" softERP {erp} softCFM {cfm} }}'


@pytest.mark.parametrize(("floor", "ball", "erp", "cfm"), [
    ("default", "rubber", 0.5, 0.0001),  # the ball's geom has the higher priority: its default/rubber surface
    ("steel", "rubber", 0.3, 0.0002),  # a material pair with a static side: an explicit MuJoCo pair
])
def test_each_contact_gets_its_material_pairs_surface(floor: str, ball: str, erp: float, cfm: float) -> None:
    contact = ("contactProperties [ " + _surface("default", "rubber", 0.5, 0.0001) + " "
               + _surface("default", "steel", 0.9, 0.01) + " " + _surface("steel", "rubber", 0.3, 0.0002) + " ]")
    sim = balls(0.001, contact=contact, floor=floor, ball=ball)
    light = installed(sim)
    assert light is not None and light._uniform is None  # several surfaces: looked up per contact
    assert (len(light.table.pair_keys) > 0) == (floor == "steel")
    sim.run(0.3)
    row, _ = contact_rows(sim)["LIGHT"]
    spring = erp / (cfm * 0.004)
    assert sim.data.efc_R[row] == pytest.approx(1.0 / (0.002 * (0.002 * spring + (1 - erp) / cfm)), rel=1e-12)
    assert -float(sim.data.efc_pos[row]) == pytest.approx(0.001 * 9.81 / spring, rel=1e-3)  # rests m g / k deep


def test_contacts_of_different_dimensions_in_one_edit() -> None:
    """A frictionless contact (one row) and a frictional one (three rows) edited together."""
    text = HEADER + """WorldInfo { basicTimeStep 4 physicsDisableTime 0 contactProperties [
      ContactProperties { material1 "default" material2 "ice" coulombFriction 0 } ] }
    Solid { boundingObject Plane { } }
    DEF A Solid { translation 0 0 0.009 physics Physics { density -1 mass 0.001 } boundingObject Sphere { radius 0.01 } }
    DEF B Solid { translation 1 0 0.009 physics Physics { density -1 mass 0.001 } boundingObject Sphere { radius 0.01 }
      contactMaterial "ice" }"""
    sim = Simulation(compile_world(load_world_model_from_string(text, "d.wbt"), CompileOptions(max_physics_step_ms=2)))
    model, data = sim.model, sim.data
    mujoco.mj_step1(model, data)
    dims = sorted(int(data.contact[i].dim) for i in range(data.ncon))
    assert dims == [1, 3]
    assert installed(sim).edit_contacts(model, data)  # type: ignore[union-attr]
    r = 1.0 / (0.002 * (0.002 * 0.2 / (0.001 * 0.004) + 0.8 / 0.001))
    for i in range(data.ncon):
        c = data.contact[i]
        rows = slice(c.efc_address, c.efc_address + c.dim)
        assert data.efc_R[c.efc_address] == pytest.approx(r, rel=1e-12)
        np.testing.assert_array_equal(data.efc_KBIP[rows, 1], 1.0 / 0.002)
        np.testing.assert_allclose(data.efc_D[rows], 1.0 / data.efc_R[rows], rtol=1e-15)
        if c.dim == 3:
            np.testing.assert_allclose(data.efc_R[c.efc_address + 1:c.efc_address + 3], r / 100.0, rtol=1e-12)


LINK = HEADER + """WorldInfo {{ basicTimeStep 8 gravity 0 }}
Robot {{ children [ HingeJoint {{ jointParameters HingeJointParameters {{ axis 0 0 1 }}
  device [ RotationalMotor {{ name "motor" }} ]
  endPoint Solid {{ translation 0.02 0 0 boundingObject Box {{ size 0.04 0.005 0.01 }}
    physics Physics {{ density -1 mass {mass} }} }} }} ] }}"""


def test_motor_rows_of_light_joints_are_capped() -> None:
    """The motor's friction-loss tendon row of a 1 g link gets R = LIGHT_FRICTION_R (MuJoCo: 1e-4 / inertia, 187);
    a 1 kg link's motor is left alone (no edit installed)."""
    assert installed(Simulation(compile_world(load_world_model_from_string(LINK.format(mass=1.0), "l.wbt")))) is None
    sim = Simulation(compile_world(load_world_model_from_string(LINK.format(mass=0.001), "l.wbt")))
    model, data = sim.model, sim.data
    mujoco.mj_step1(model, data)
    (row,) = np.flatnonzero(data.efc_type[:data.nefc] == mujoco.mjtConstraint.mjCNSTR_FRICTION_TENDON)
    assert data.efc_R[row] > 100 * LIGHT_FRICTION_R
    assert installed(sim).edit_contacts(model, data)  # type: ignore[union-attr]
    assert data.efc_R[row] == LIGHT_FRICTION_R and data.efc_D[row] == 1.0 / LIGHT_FRICTION_R
    island = data.map_efc2iefc[row]
    assert data.iefc_R[island] == LIGHT_FRICTION_R and data.iefc_D[island] == 1.0 / LIGHT_FRICTION_R


def test_a_supervisors_mass_write_installs_or_removes_the_edit_until_reset(project, load) -> None:
    """The light parts are those of the current masses: a supervisor making a 1 kg ball 1 g gives its contact ODE's
    spring from the next step; the reset (initial masses) and making it heavy again remove the edit."""
    world = HEADER + """WorldInfo { basicTimeStep 4 physicsDisableTime 0 }
    Robot { name "s" controller "<extern>" supervisor TRUE }
    Solid { boundingObject Plane { } }
    DEF BALL Solid { translation 0 0 0.009 physics DEF P Physics { density -1 mass 1 }
      boundingObject Sphere { radius 0.01 } }"""
    sim = load(project(world), max_physics_step_ms=2)
    boss = sim.robot("s")
    assert installed(sim) is None
    boss.getFromDef("P").getField("mass").setSFFloat(0.001)
    assert installed(sim) is not None
    assert sim.model.opt.tolerance == LIGHT_SOLVER_TOLERANCE
    boss.step(4)
    body = sim.bindings.solid(sim.node("BALL")).body_id
    (contact,) = [sim.data.contact[i] for i in range(sim.data.ncon)
                  if body in sim.model.geom_bodyid[sim.data.contact[i].geom]]
    assert sim.data.efc_R[contact.efc_address] == pytest.approx(
        1.0 / (0.002 * (0.002 * 0.2 / (0.001 * 0.004) + 0.8 / 0.001)), rel=1e-12)
    sim.reset()
    assert installed(sim) is None  # the initial 1 kg
    assert sim.model.opt.tolerance == 1e-8  # MuJoCo's default again: the run after the reset is the first one's
    boss = sim.robot("s")
    boss.getFromDef("P").getField("mass").setSFFloat(0.001)
    assert installed(sim) is not None
    boss.getFromDef("P").getField("mass").setSFFloat(2.0)
    assert installed(sim) is None
    assert sim.model.opt.tolerance == 1e-8


def test_light_runs_are_bit_identical_after_reset_and_with_two_simulations_interleaved() -> None:
    """A 1 g ball dropped 5 mm (contacts appear, bounce and settle under the edit): a reset run and a second
    simulation stepped in turn with the first give the first run's states bit for bit."""
    def dropped() -> Simulation:
        text = HEADER + """WorldInfo { basicTimeStep 4 physicsDisableTime 0 }
        Solid { boundingObject Plane { } }
        Solid { translation 0 0 0.015 physics Physics { density -1 mass 0.001 }
          boundingObject Sphere { radius 0.01 } }"""
        compiled = compile_world(load_world_model_from_string(text, "r.wbt"), CompileOptions(max_physics_step_ms=2))
        return Simulation(compiled)

    first, second = dropped(), dropped()
    assert installed(first) is not None
    states = []
    for _ in range(60):
        first.step()
        states.append(first.data.qpos.copy())
    first.reset()
    for k in range(60):
        first.step()
        second.step()
        np.testing.assert_array_equal(first.data.qpos, states[k])
        np.testing.assert_array_equal(second.data.qpos, states[k])
