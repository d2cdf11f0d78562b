"""Joint stops hold against motors whatever the link's mass (docs/differences.md, "Joint stops").

In Webots a motor driving its joint into a stop pushes with at most ``maxTorque``/``maxForce`` against ODE's
limit row, a near-hard constraint (the world's ERP and CFM: 0.2 and 1e-5 by default, a spring of
``ERP / (CFM h)`` = 1.25e6 N m/rad at 16 ms, so 50 N m moves the joint 4e-5 rad past the stop). MuJoCo's default
limit is soft in proportion to the joint's inertia: before wbsim made its stops near-hard, a 10 g link with a
1 N m motor came to rest 0.15 rad past its stop and a 100 g one with 50 N m reached the motor's target, 0.2 rad
beyond. The joints here turn (or slide) freely in zero gravity; their motors target a position 0.2 past the
upper stop at 10 rad/s (m/s), hit it, and keep pushing.
"""

from __future__ import annotations

import pytest

HINGE = """
WorldInfo {{ basicTimeStep 16 gravity 0 }}
Robot {{
  children [
    HingeJoint {{
      jointParameters HingeJointParameters {{ axis 0 0 1 minStop -0.3 maxStop 0.3 }}
      device [ RotationalMotor {{ name "motor" maxTorque {force} maxVelocity 10 }} PositionSensor {{ name "sensor" }} ]
      endPoint Solid {{ translation 0.1 0 0 boundingObject Box {{ size 0.2 0.02 0.02 }}
                        physics Physics {{ density -1 mass {mass} }} }}
    }}
  ]
  controller "<extern>"
}}
"""

SLIDER = """
WorldInfo {{ basicTimeStep 16 gravity 0 }}
Robot {{
  children [
    SliderJoint {{
      jointParameters JointParameters {{ axis 1 0 0 minStop -0.3 maxStop 0.3 }}
      device [ LinearMotor {{ name "motor" maxForce {force} maxVelocity 10 }} PositionSensor {{ name "sensor" }} ]
      endPoint Solid {{ boundingObject Box {{ size 0.02 0.02 0.02 }} physics Physics {{ density -1 mass {mass} }} }}
    }}
  ]
  controller "<extern>"
}}
"""


def _positions_pushing_into_the_stop(project, load, world: str, target: float) -> list[float]:  # noqa: ANN001
    """The joint's position (rad or m) at each 16 ms step of 3 s while its motor pushes towards ``target``."""
    sim = load(project(world))
    robot = sim.robot("robot")
    robot.getDevice("motor").setPosition(target)
    sensor = robot.getDevice("sensor")
    sensor.enable(16)
    positions = []
    for _ in range(int(3.0 / 0.016)):
        robot.step(16)
        positions.append(sensor.getValue())
    return positions


@pytest.mark.parametrize("world", [HINGE, SLIDER], ids=["hinge", "slider"])
@pytest.mark.parametrize(("mass", "force"), [(0.01, 1.0), (0.01, 50.0), (0.1, 50.0), (1.0, 5.0), (10.0, 50.0)])
def test_a_motor_pushing_into_its_stop_does_not_pass_it(project, load, world: str, mass: float,
                                                        force: float) -> None:
    for stop in (0.3, -0.3):
        positions = _positions_pushing_into_the_stop(project, load, world.format(mass=mass, force=force),
                                                     target=stop + 0.2 if stop > 0 else stop - 0.2)
        past = [abs(p) - 0.3 for p in positions]
        # The impact at 10 rad/s (m/s) overshoots by a few mrad (ODE's limit, corrected by its ERP, does too);
        # then the stop holds the motor's full push.
        # The 10 g link at 50 N m (the hardest case) rests 12 mrad past; the others within 1.2 mrad.
        assert max(past) < 0.015
        assert max(past[-60:]) < (0.015 if force / mass > 1000.0 else 3e-3)  # the last second: resting
        assert past[-1] > -1e-3  # and pressed to it, not bounced back off


def test_a_motor_moves_freely_between_the_stops(project, load) -> None:
    """The near-hard stops act only at the stops: a motor's target inside them is reached."""
    positions = _positions_pushing_into_the_stop(project, load, HINGE.format(mass=0.01, force=1.0), target=0.25)
    assert positions[-1] == pytest.approx(0.25, abs=1e-4)


KINEMATIC = """
WorldInfo {{ basicTimeStep 16 }}
Robot {{
  {parent}
  children [
    HingeJoint {{
      jointParameters HingeJointParameters {{ axis 0 0 1 minStop -0.3 maxStop 0.3 }}
      device [ RotationalMotor {{ name "motor" maxVelocity 10 }} PositionSensor {{ name "sensor" }} ]
      endPoint Solid {{ translation 0.1 0 0 children [ Shape {{ geometry Box {{ size 0.2 0.02 0.02 }} }} ] }}
    }}
  ]
  controller "<extern>"
}}
"""


@pytest.mark.parametrize("parent", ["", "boundingObject Box { size 0.1 0.1 0.1 } physics Physics { }"],
                         ids=["static-parent", "parent-with-physics"])
def test_a_kinematic_joint_ignores_its_stops(project, load, parent: str) -> None:
    """An endPoint without Physics has no ODE joint in Webots: its motor sets the position
    (``WbMotor::runKinematicControl``, bounded by the motor's minPosition/maxPosition only), so the joint's stops
    do not hold it (before the fix, wbsim's near-hard limit stopped it at 0.3)."""
    positions = _positions_pushing_into_the_stop(project, load, KINEMATIC.format(parent=parent), target=0.5)
    assert positions[-1] == pytest.approx(0.5, abs=1e-6)


PASSIVE = """
WorldInfo {{ basicTimeStep 16 gravity 0 }}
Robot {{
  children [
    HingeJoint {{
      jointParameters HingeJointParameters {{ axis 0 0 1 minStop -0.3 maxStop 0.3 position {position} }}
      endPoint Solid {{ translation 0.1 0 0 boundingObject Box {{ size 0.2 0.02 0.02 }}
                        physics Physics {{ density -1 mass {mass} }} }}
    }}
  ]
  controller "<extern>"
}}
"""


@pytest.mark.parametrize("mass", [0.01, 10.0])
def test_a_joint_starting_past_its_stop_comes_back_at_odes_erp_speed(project, load, mass: float) -> None:
    """ODE corrects a stop's violation by the fraction ERP per step: 0.5 rad past the stop at ERP 0.2 and 16 ms
    is a return at 0.2 x 0.5 / 0.016 = 6.25 rad/s, whatever the mass (a stiffer reference kicked it out at 31 rad/s).
    Undamped, the link then keeps that speed across the range, as in ODE, and stops dead at the other stop."""
    sim = load(project(PASSIVE.format(position=0.8, mass=mass)))
    qpos, qvel = [], []
    for _ in range(60):
        sim.step()
        qpos.append(float(sim.data.qpos[0]))  # the hinge's angle, Webots' position
        qvel.append(float(sim.data.qvel[0]))
    assert max(abs(v) for v in qvel) == pytest.approx(0.2 * 0.5 / 0.016, rel=1e-6)
    assert min(qpos) > -0.3 - 0.025  # an impact at 6.25 rad/s: one 4 ms step's travel at most
    # There the approach speed is gone within one step; what remains is the ERP correction of that step's
    # overshoot (at most 0.025 rad: 0.31 rad/s), which, undamped, drifts on as in ODE.
    assert abs(qvel[-1]) < 0.2 * 0.025 / 0.016 + 1e-9


def _hanging_chain(links: int) -> str:
    """A Robot with a chain of ``links`` 50 g links hanging on hinges with stops at +-0.2 rad."""
    solid = ("Solid {{ translation 0.1 0 0 boundingObject Box {{ size 0.1 0.02 0.02 }} "
             "physics Physics {{ density -1 mass 0.05 }} {children} }}")
    body = solid.format(children="")
    for _ in range(links - 1):
        body = solid.format(children="children [ HingeJoint { jointParameters HingeJointParameters { axis 0 1 0 "
                                     "anchor 0.05 0 0 minStop -0.2 maxStop 0.2 } endPoint " + body + " } ]")
    return ("WorldInfo { basicTimeStep 16 }\nRobot { children [ HingeJoint { jointParameters HingeJointParameters "
            "{ axis 0 1 0 minStop -0.2 maxStop 0.2 } endPoint " + body + " } ] }")


@pytest.mark.parametrize("links", [20, 30])
def test_a_long_chain_falling_onto_its_stops_stays_stable(project, load, links: int) -> None:
    """A horizontal chain released under gravity whips onto its stops; with the motors' 0.9999 impedance on these
    stops such chains of 19 to 40 links diverged (SimulationError) at 16 ms; passive stops use 0.999."""
    sim = load(project(_hanging_chain(links)))
    sim.run(5.0)  # a divergence raises SimulationError
    print(f"largest hinge angle after 5 s: {abs(sim.data.qpos).max():.4f} rad (stops at 0.2)")
    assert abs(sim.data.qpos).max() < 0.25  # every hinge at its stops (the base ones sag under the chain)
