"""Motors and contacts of very light links (docs/motors.md, "Very light joints").

A position-controlled RotationalMotor turns a link (a 40 x 5 x 10 mm box on a hinge of a static Robot, no
gravity) into a static wall, with its target beyond the wall. In Webots the contact is ODE's spring of
``softERP / (softCFM * basicTimeStep)`` N/m per contact point (25,000 N/m here) whatever the link's mass, and the
motor is a hard velocity row that pushes its full ``maxTorque`` as long as the commanded velocity ``P * error`` is
not reached. wbsim gives contacts of parts under about 5 g ODE's spring itself (``wbsim.sim.light_rows``), so the
1 g link's contact is checked against that spring exactly. The motor is still relative to the joint's inertia
(MuJoCo's softness estimates and the reference DOF): the 1 kg link pushes 10 N m as in Webots, the 1 g link
0.77 N m (strict expected failure): its row is made harder (``R`` at most 1, ``wbsim.sim.light_rows``), but one
physics step can take at most ``armature x v_err / h`` from the reference DOF (docs/motors.md).
"""

from __future__ import annotations

import numpy as np
import pytest

WORLD = """
WorldInfo {{ basicTimeStep 8 gravity 0 {contact} }}
Solid {{ translation 0.03 0.0095 0 name "wall" boundingObject Box {{ size 0.02 0.01 0.02 }} }}
Robot {{
  children [
    HingeJoint {{
      jointParameters HingeJointParameters {{ axis 0 0 1 }}
      device [ RotationalMotor {{ name "motor" maxTorque {torque} }} ]
      endPoint Solid {{ translation 0.02 0 0 boundingObject Box {{ size 0.04 0.005 0.01 }}
                        physics Physics {{ density -1 mass {mass} }} }}
    }}
  ]
  controller "<extern>"
}}
"""

LIGHT = pytest.param(0.001, marks=pytest.mark.xfail(
    strict=True, reason="a motor's stiffness scales with its joint's inertia: a blocked 1 g link pushes 0.77 N m"))


def _push(project, load, mass: float, torque: float, target: float, contact: str = ""):  # noqa: ANN001, ANN202
    """(simulation, joint angle in rad, motor torque in N m) after 1 s of pushing the link towards ``target``."""
    sim = load(project(WORLD.format(mass=mass, torque=torque, contact=contact)))
    sim.robot("robot").getDevice("motor").setPosition(target)
    sim.run(1.0)
    motor = sim.bindings.devices["motor"][0]
    # The motor's torque as getTorqueFeedback reads it (the reaction on its reference DOF, negated); the Robot
    # has no Physics here, so Webots' feedback itself would be unavailable.
    torque_out = -float(sim.data.qfrc_constraint[motor.reference_dof_adr])
    return sim, float(sim.data.qpos[motor.joint.qpos_adr]), torque_out


@pytest.mark.parametrize("mass", [1.0, LIGHT])
def test_a_blocked_motor_pushes_its_max_torque(project, load, mass: float) -> None:
    # 0.3 rad is beyond what ODE's spring lets 10 N m reach (about 0.175 rad: 5 mm into the wall, 2 x 125 N).
    _, angle, torque = _push(project, load, mass, torque=10.0, target=0.3)
    assert angle < 0.3  # blocked by the wall short of its target
    assert torque == pytest.approx(10.0, rel=1e-3)


@pytest.mark.parametrize(("contact", "spring"), [
    ("", 0.2 / (0.001 * 0.008)),  # Webots' default surface: 25,000 N/m
    ("contactProperties [ ContactProperties { softERP 0.4 softCFM 0.0005 } ]", 0.4 / (0.0005 * 0.008)),
], ids=["default surface", "stiffer surface"])
def test_a_light_links_wall_contact_is_odes_spring(project, load, contact: str, spring: float) -> None:
    """Under 0.5 N m the 1 g link comes to rest on the wall: each contact point pushes ODE's spring force
    ``k x depth`` (``k = softERP / (softCFM basicTimeStep)``), and their torques about the hinge hold the motor's."""
    sim, angle, torque = _push(project, load, 0.001, torque=0.5, target=1.0, contact=contact)
    assert torque == pytest.approx(0.5, rel=1e-3)
    data = sim.data
    contacts = [data.contact[i] for i in range(data.ncon) if data.contact[i].efc_address >= 0]
    assert contacts
    link = sim.model.dof_bodyid[sim.bindings.devices["motor"][0].joint.dof_adr]
    held = 0.0
    for c in contacts:
        row = c.efc_address
        depth, normal_force = -float(data.efc_pos[row]), float(data.efc_force[row])
        assert depth > 0
        assert normal_force / depth == pytest.approx(spring, rel=2e-3)
        # The contact's force on its second geom (frame rows: the normal from geom 1 to geom 2, then the two
        # tangents), taken on the link, as a torque about the hinge (the z axis through the origin).
        force = np.asarray(c.frame).reshape(3, 3).T @ data.efc_force[row:row + 3]
        sign = 1.0 if sim.model.geom_bodyid[c.geom[1]] == link else -1.0
        held += sign * float(np.cross(c.pos, force)[2])
    assert -held == pytest.approx(0.5, rel=1e-2)  # the wall holds the motor's torque
    print(f"1 g link at rest at {angle:.4f} rad, {len(contacts)} contact points, k = {spring:.0f} N/m")
