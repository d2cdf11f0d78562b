"""Webots' coupled-motors sample (projects/samples/devices/worlds/coupled_motors.wbt), as a local world.

A gripper on a vertical slider (LinearMotor, 15 N) above a table: each finger is a parallelogram of an
actuated link (``motor::left finger``, and ``motor::right finger`` with multiplier -1) and a passive link,
both pivoting on the finger, closed by a ``SolidReference`` onto the finger. The controller (the sample's
Python controller, ported) commands only the left motor: it closes the gripper (0.42 rad) around a 1 kg
box, then raises the slider to 0.14 m at 0.1 m/s. The world is wbsim's own: no meshes, gears or visuals (the
gears have no bounding object and zero density), the Table PROTO replaced by a static slab whose top is
at z = 0, the sample's physics kept (densities 500, the slider body 10 g, finger boxes 40 x 5 x 10 mm).

Coupling closes both fingers symmetrically, and the ``SolidReference`` loops (``docs/closed_loops.md``) keep
each finger parallel. At 0.42 rad the pads' inner faces are 23.5 mm apart, the box is 25 mm wide: in Webots each
pad presses 0.75 mm into it with ODE's contact spring (``softERP / (softCFM * basicTimeStep)`` = 25,000 N/m per
contact point) and the finger motors' hard velocity rows push up to their 10 N m. The box starts 10 mm towards the
left finger, which must first push it 9 mm sideways against the table's friction (9.8 N). The finger parts are
light (0.12 g links, 1 g pads, 2.7e-6 kg m^2 about the finger axis), and MuJoCo's softness scales with the inverse
inertia, so wbsim edits the rows of such parts in every physics step (``wbsim.sim.light_rows``,
``docs/motors.md#very-light-joints``):

- the pads' contacts get ODE's spring itself (they were about 400 N/m per point, ``R`` = 31);
- the finger motors' rows get ``R`` at most 1 (MuJoCo's was 70: they pushed 0.15 to 0.27 N m, not up to 10);
- the loops' welds on the pads get ``R`` at most 0.1 (MuJoCo's 27 to 1.7e4 let the pads turn under the harder
  motors).

Measured at the default 4 ms physics step: the fingers stop against the box at 0.405 and -0.407 rad (Webots' harder
motors reach 0.42 rad, 0.75 mm into the box), pushing 0.5 N m each; the pads hold it with 8 contact points of 1.6
to 4.9 N, 0.07 to 0.24 mm deep, and the slider raises it to 0.149 m by 3.2 s. Each edit alone fails: ODE's contacts
alone, the fingers stall short of 0.42 rad and the pads press 0.01 to 0.16 mm, the box pitches out at 2.1 s; with
the motor rows' ``R`` capped too (at 1), no lift; capped at 0.1 it diverged at 1.37 s (MuJoCo's Newton solver
stops early on a friction-loss row much harder than its inverse inertia); an armature of 1e-3 kg m^2 on each finger
joint makes the fingers strong, but then the loops yield and the pads turn by 4 to 7 degrees. With the three edits,
the motor cap at 0.3 or 1 and the loop cap at 0.1 or 0.25 lift the box (0.148 to 0.149 m); 3 and 0.25, or 0.3 and
1, diverged; 1 and 1 did not lift. Tried before with MuJoCo's contacts: giving the reference DOF back, every basic
step, the velocity the reaction took centred the box but gave no grip and blew up at 3.06 s; harder motor rows
(``tendon_invweight0`` capped at 1e3) diverged at 0.97 s. The motor softness isolated on one link pushed into a
wall: ``tests/physics/test_motor_light_joints.py``. These measurements were made at MuJoCo's default solver
tolerance; with the light parts' tighter one (``light_rows.LIGHT_SOLVER_TOLERANCE``, docs/motors.md) the run no
longer diverges at basicTimeStep 16 (it did at 2.53 s) and lifts the box at 8 ms physics steps too (marginally).
"""

from __future__ import annotations

import numpy as np
import pytest


WORLD = """WorldInfo { basicTimeStep 8 }
Solid { name "table" translation 0 0 -0.01 boundingObject Box { size 2 2 0.02 } }
Robot {
  translation 0.2 0.5 0
  children [
    SliderJoint {
      jointParameters JointParameters { axis 0 0 1 }
      device [ LinearMotor { name "linear motor" maxForce 15 } ]
      endPoint Solid {
        translation 0 0 0.01
        children [
          HingeJoint {
            jointParameters HingeJointParameters { axis 0 0 1 anchor 0 -0.008 0 }
            device [ RotationalMotor { name "motor::left finger" } ]
            endPoint Solid {
              translation 0 -0.008 0
              children [
                HingeJoint {
                  jointParameters HingeJointParameters { axis 0 0 1 anchor 0.02869 -0.02787 0 }
                  endPoint Solid {
                    translation 0.02869 -0.02787 0
                    rotation 0 0 1 1.5708
                    name "left_gripper"
                    boundingObject Pose { translation 0.0075 -0.0175 -0.001 rotation 0 0 1 -1.570795 children [ Box { size 0.04 0.005 0.01 } ] }
                    physics Physics { density 500 }
                  }
                }
              ]
              name "left link"
              boundingObject Cylinder { height 0.0125 radius 0.0025 }
              physics Physics { density 500 }
            }
          }
          HingeJoint {
            jointParameters HingeJointParameters { axis 0 0 1 anchor 0 -0.023 0 }
            endPoint Solid {
              translation 0 -0.023 0
              children [
                HingeJoint {
                  jointParameters HingeJointParameters { axis 0 0 1 anchor 0.02869 -0.02787 0 }
                  endPoint SolidReference { solidName "left_gripper" }
                }
              ]
              name "left tip"
              boundingObject Cylinder { height 0.0125 radius 0.0025 }
              physics Physics { density 500 }
            }
          }
          HingeJoint {
            jointParameters HingeJointParameters { axis 0 0 1 anchor 0 0.008 0 }
            device [ RotationalMotor { name "motor::right finger" multiplier -1 } ]
            endPoint Solid {
              translation 0 0.008 0
              children [
                HingeJoint {
                  jointParameters HingeJointParameters { axis 0 0 1 anchor 0.02869 0.02787 0 }
                  endPoint Solid {
                    translation 0.02869 0.02787 0
                    name "right_gripper"
                    boundingObject Pose { translation 0.0175 -0.0075 -0.001 children [ Box { size 0.04 0.005 0.01 } ] }
                    physics Physics { density 500 }
                  }
                }
              ]
              name "right tip"
              boundingObject Cylinder { height 0.0125 radius 0.0025 }
              physics Physics { density 500 }
            }
          }
          HingeJoint {
            jointParameters HingeJointParameters { axis 0 0 1 anchor 0 0.023 0 }
            endPoint Solid {
              translation 0 0.023 0
              children [
                HingeJoint {
                  jointParameters HingeJointParameters { axis 0 0 1 anchor 0.02869 0.02787 0 }
                  endPoint SolidReference { solidName "right_gripper" }
                }
              ]
              name "right pivot"
              boundingObject Cylinder { height 0.0125 radius 0.0025 }
              physics Physics { density 500 }
            }
          }
        ]
        boundingObject Box { size 0.02 0.08 0.012 }
        physics Physics { density -1 mass 0.01 }
      }
    }
  ]
  controller "coupled_motors"
}
DEF OBJECT Solid {
  translation 0.255 0.49 0.01
  name "object"
  boundingObject Box { size 0.04 0.025 0.02 }
  physics Physics { density -1 mass 1 }
}
"""

CONTROLLER = """
from controller import Robot

TIME_STEP = 16
robot = Robot()
slider = robot.getDevice("linear motor")
finger = robot.getDevice("motor::left finger")


def wait(steps):
    for _ in range(steps):
        robot.step(TIME_STEP)


wait(50)
finger.setPosition(0.42)  # both fingers: the right motor is coupled (multiplier -1)
wait(50)
slider.setPosition(0.14)
slider.setVelocity(0.1)
wait(100)
finger.setPosition(0.0)
wait(50)
slider.setPosition(0.0)
wait(100)
"""


def joint_position(sim, name):
    for motor in sim.bindings.devices["motor"]:
        if motor.node["name"] == name:
            return float(sim.data.qpos[motor.joint.qpos_adr])
    raise KeyError(name)


def box_height(sim):
    body = next(b.body_id for b in sim.bindings.solids if b.node["name"] == "object")
    return float(sim.data.xpos[body][2])


@pytest.fixture
def gripper(project, load):
    return load(project(WORLD, controllers={"coupled_motors": CONTROLLER}))


def test_one_command_closes_both_fingers_symmetrically(gripper):
    sim = gripper
    sim.run(0.8)
    assert joint_position(sim, "motor::left finger") == pytest.approx(0.0, abs=1e-6)
    assert joint_position(sim, "motor::right finger") == pytest.approx(0.0, abs=1e-6)
    sim.run(1.6)  # 0.8 s after the close command, 0.8 s into the climb
    left, right = joint_position(sim, "motor::left finger"), joint_position(sim, "motor::right finger")
    # Symmetric up to the box's own turn: pushed 9 mm sideways by the left pad, it ends turned by 0.003 rad about
    # the vertical (0.4050 and -0.4073 measured).
    assert left == pytest.approx(-right, abs=3e-3)
    # Stopped by the 25 mm box: Webots' motors, 10 N m, reach 0.42 rad 0.75 mm into its spring; wbsim's light
    # motors stop at 0.405 rad pushing 0.5 N m (docstring).
    assert 0.40 < left < 0.4205
    # 0.1 m/s for 0.8 s, carrying the box (0.0786 m measured: the 15 N slider saturates while it starts to lift it).
    assert joint_position(sim, "linear motor") == pytest.approx(0.08, abs=2e-3)


def test_gripper_lifts_the_box(gripper):
    sim = gripper
    sim.run(3.2)  # closed at 0.8 s, the slider at 0.14 m by 3.2 s
    print(f"box centre {box_height(sim):.4f} m above the table's top (0.01 m: resting; 0.149 m measured)")
    assert box_height(sim) > 0.1


def test_gripper_at_8_ms_physics_steps_closes_and_stays_stable(project, load):
    """One 8 ms physics step per basic step: the run stays stable and both fingers close on the box. Whether the
    box is then lifted is marginal at this step (this nominal run lifts it to 0.121 m, where 4 ms steps give
    0.149 m; with the box's start shifted by -1.4 to 1.4 mm in 0.2 mm steps, 9 of 15 runs lift it and the others
    leave it on the table: docs/motors.md#very-light-joints), so it is not asserted: a result that flips with a
    0.2 mm shift flips with the last bits of another CPU's arithmetic (an AMD EPYC machine leaves it on the table)."""
    sim = load(project(WORLD, controllers={"coupled_motors": CONTROLLER}), max_physics_step_ms=8)
    assert sim.substeps == 1
    sim.run(3.2)  # a divergence would raise SimulationError
    height = box_height(sim)
    print(f"box centre {height:.4f} m above the table's top at 8 ms physics steps (0.1213 m measured)")
    assert np.isfinite(sim.data.qvel).all() and np.abs(sim.data.qvel).max() < 50.0
    assert 0.009 < height < 0.16  # on the table or in the raised gripper, never flung or sunk
    left, right = joint_position(sim, "motor::left finger"), joint_position(sim, "motor::right finger")
    # Closed: stalled on the box while it is held (0.405 rad at 4 ms steps), or at the 0.42 rad target when the box
    # stayed on the table (as on an AMD EPYC machine: 0.420004 rad, box at 0.0095 m), never past it.
    assert left == pytest.approx(-right, abs=5e-3) and 0.38 < left < 0.4205
    if height > 0.05:  # lifted: the pads grip the box, so the fingers stop short of their target
        assert left < 0.415


def test_gripper_lifts_the_box_at_basic_time_step_16(project, load):
    """basicTimeStep 16 with the default 4 ms physics steps (four per basic step, the motors' velocities set once
    per basic step): the box is lifted as at basicTimeStep 8. With MuJoCo's default solver tolerance the run
    diverged at 2.53 s (the left pad's hinge, from a solve stopped early: ``light_rows.LIGHT_SOLVER_TOLERANCE``)."""
    sim = load(project(WORLD.replace("basicTimeStep 8", "basicTimeStep 16"),
                       controllers={"coupled_motors": CONTROLLER}))
    assert sim.substeps == 4
    sim.run(3.2)
    print(f"box centre {box_height(sim):.4f} m above the table's top at basicTimeStep 16 (0.1487 m measured)")
    assert box_height(sim) > 0.1
    assert joint_position(sim, "motor::left finger") == pytest.approx(0.405, abs=3e-3)  # as at basicTimeStep 8


def test_light_parts_rows_are_edited(gripper):
    """In a physics step of the closed gripper, the rows of its light parts carry wbsim's edits (docstring): the
    loops' welds and the finger motors' rows have their R capped, the pads' contacts ODE's spring."""
    import mujoco

    from wbsim.sim.light_rows import LIGHT_EQUALITY_R, LIGHT_FRICTION_R, LightContacts

    sim = gripper
    sim.run(1.5)
    model, data = sim.model, sim.data
    mujoco.mj_step1(model, data)
    light = next(b for b in sim._substep_capable if isinstance(b, LightContacts))
    assert light.edit_contacts(model, data)
    n = data.ne
    assert n == 12 and (data.efc_R[:n] <= LIGHT_EQUALITY_R).all()  # two welds (MuJoCo's R: 0.06 to 1.7e4)
    fingers = [m.tendon_id for m in sim.bindings.devices["motor"] if "finger" in m.node["name"]]
    rows = [r for r in range(n, n + data.nf) if data.efc_id[r] in fingers]
    assert len(rows) == 2 and (data.efc_R[rows] == LIGHT_FRICTION_R).all()
    slider = next(r for r in range(n, n + data.nf) if data.efc_id[r] not in fingers)
    assert data.efc_R[slider] < LIGHT_FRICTION_R  # the slider's motor is hard already (R 0.008): left alone
    pad_contacts = [data.contact[i] for i in range(data.ncon)
                    if light._light[data.contact[i].geom[0]] or light._light[data.contact[i].geom[1]]]
    assert pad_contacts
    for c in pad_contacts:
        assert data.efc_R[c.efc_address] == pytest.approx(1.0 / (0.004 * (0.004 * 25000.0 + 800.0)), rel=1e-12)


@pytest.mark.parametrize("basic_ms", [8, 16])
def test_light_parts_velocities_follow_the_solvers_accelerations(project, load, basic_ms):
    """MuJoCo's ``implicitfast`` step integrates ``M^-1 (qfrc_smooth + qfrc_constraint)``, which is the solver's
    ``qacc`` only once the solver has converged: the residual force it stops with comes back divided by each DOF's
    inertia. With the light parts' tolerance (``LIGHT_SOLVER_TOLERANCE``) every physics step's velocity change of
    the DOFs carrying the pads, while the gripper closes, grips and lifts, is ``h qacc`` to 1 rad/s (0.15 and 0.13
    measured; at MuJoCo's default 1e-8: 10.7 and 13.1, and the basicTimeStep-16 run diverged later)."""
    import numpy as np

    from wbsim.sim.light_rows import LIGHT_SOLVER_TOLERANCE, LightContacts

    sim = load(project(WORLD.replace("basicTimeStep 8", f"basicTimeStep {basic_ms}"),
                       controllers={"coupled_motors": CONTROLLER}))
    model = sim.model
    assert model.opt.tolerance == LIGHT_SOLVER_TOLERANCE
    light = next(b for b in sim._substep_capable if isinstance(b, LightContacts))
    dofs = np.flatnonzero(light._light_friction[:model.nv])  # the slider, finger links and pads
    edit, previous, worst = light.edit_contacts, [], [0.0]

    def watched(model, data):  # noqa: ANN001, ANN202 -- after mj_step1: qvel and qacc are the last step's
        if previous:
            change = data.qvel[dofs] - previous[-1] - model.opt.timestep * data.qacc[dofs]
            worst[0] = max(worst[0], float(np.abs(change).max()))
        previous[:] = [data.qvel[dofs].copy()]
        return edit(model, data)

    light.edit_contacts = watched  # the physics loop binds the bank's method once per basic step
    sim.run(2.4)  # closing from 0.8 s, lifting from 1.6 s
    print(f"largest |dv - h qacc| {worst[0]:.3g} rad/s at basicTimeStep {basic_ms}")
    assert worst[0] < 1.0
    assert box_height(sim) > 0.05  # lifting


def test_gripper_runs_are_bit_identical_after_reset_and_side_by_side(project, load):
    """The light parts' edits keep runs deterministic: a reset run and a second simulation of the same world,
    stepped in turn with the first, give the first run's states bit for bit while the gripper closes and lifts."""
    import numpy as np

    path = project(WORLD, controllers={"coupled_motors": CONTROLLER})
    first, second = load(path), load(path)
    states = []
    for _ in range(300):  # 2.4 s: closing, gripping, lifting
        first.step()
        states.append(first.data.qpos.copy())
    first.reset()
    for state in states:
        first.step()
        second.step()
        np.testing.assert_array_equal(first.data.qpos, state)
        np.testing.assert_array_equal(second.data.qpos, state)
    assert box_height(first) > 0.05  # lifted on the way
