"""Propellers against Webots' formulas: hover speed, climb and sink, reaction torque, the t2/q2 terms, an
off-centre centre of thrust, the motor ramp, and the cases where Webots produces no thrust.

Forces act for one whole basic step (Webots applies them once per ODE step) and MuJoCo integrates a constant
force on a free rigid body exactly, so velocity changes over a basic step are compared with ``F/m * ts`` to
rounding (1e-9 relative). Bodies are boxes centred on their centre of mass: 2 kg, 0.2 x 0.2 x 0.05 m, so
``Ixx = Iyy = 2 (0.04 + 0.0025) / 12`` and ``Izz = 2 (0.04 + 0.04) / 12``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

MASS = 2.0
IZZ = MASS * (0.2**2 + 0.2**2) / 12.0
IYY = MASS * (0.2**2 + 0.05**2) / 12.0
TS = 0.032


def _drone(propeller: str, robot_fields: str = "", gravity: float = 9.81, extra: str = "",
           z: float = 1.0) -> tuple[str, str]:
    """(world body, WorldInfo) of a 2 kg box robot "drone" at height ``z`` carrying ``propeller``."""
    return f"""
{extra}
Robot {{
  translation 0 0 {z}
  name "drone"
  {robot_fields}
  children [ {propeller} ]
  boundingObject Box {{ size 0.2 0.2 0.05 }}
  physics Physics {{ density -1 mass {MASS} }}
}}
""", f"WorldInfo {{ gravity {gravity} }}"


def _propeller(t: str = "0.001 0", q: str = "0 0", cot: str = "0 0 0", axis: str = "0 0 1", motor: str = "") -> str:
    return f"""Propeller {{
      shaftAxis {axis} centerOfThrust {cot} thrustConstants {t} torqueConstants {q}
      device RotationalMotor {{ name "motor" maxVelocity 1000 maxTorque 1e6 {motor} }}
    }}"""


def _spin(sim, velocity: float, steps: int):
    robot = sim.robot("drone")
    motor = robot.getDevice("motor")
    motor.setPosition(math.inf)
    motor.setVelocity(velocity)
    history = []
    for _ in range(steps):
        robot.step(32)
        history.append(sim.data.qvel[:6].copy())
    return robot, motor, np.array(history)


@pytest.mark.parametrize("ratio", [1.0, 1.1, 0.9])
def test_vertical_propeller_hovers_at_webots_speed_climbs_above_and_sinks_below(make_sim, ratio) -> None:
    t1, g = 0.001, 9.81
    hover = math.sqrt(MASS * g / t1)  # T = t1 w^2 = m g
    sim = make_sim(*_drone(_propeller()))
    _, _, qvel = _spin(sim, ratio * hover, 6)
    acceleration = np.diff(qvel[:, 2]) / TS
    expected = t1 * (ratio * hover) ** 2 / MASS - g
    np.testing.assert_allclose(acceleration, expected, rtol=0, atol=1e-9 * g)
    assert sim.banks["propeller"].thrust[0] == pytest.approx(t1 * (ratio * hover) ** 2, rel=1e-15)
    np.testing.assert_allclose(qvel[:, [0, 1, 3, 4, 5]], 0.0, atol=1e-12)  # straight up, no turn


@pytest.mark.parametrize("w", [10.0, -10.0])
def test_reaction_torque_turns_a_free_body_about_the_shaft(make_sim, w) -> None:
    q1 = 0.01  # Q = q1 |w| w = +-1 N*m; Webots applies -Q along the shaft
    sim = make_sim(*_drone(_propeller(t="0 0", q=f"{q1} 0"), gravity=0.0))
    _, motor, qvel = _spin(sim, w, 4)
    torque = q1 * w * abs(w)
    np.testing.assert_allclose(np.diff(qvel[:, 5]) / TS, -torque / IZZ, rtol=1e-9)
    assert sim.banks["propeller"].shaft_torque[0] == torque
    np.testing.assert_allclose(qvel[:, :5], 0.0, atol=1e-12)


def test_torque_is_clamped_to_the_motor_max_torque(make_sim) -> None:
    sim = make_sim(*_drone(_propeller(t="0 0", q="0.01 0").replace("maxTorque 1e6", "maxTorque 0.5"), gravity=0.0))
    _, _, qvel = _spin(sim, 10.0, 40)  # ramp at 0.5 rad/s^2 (Webots caps it with the torque): Q = 1e-2 w^2
    bank = sim.banks["propeller"]
    w = bank.current_velocity[0]
    assert w == pytest.approx(40 * 0.5 * TS, rel=1e-12)
    assert bank.shaft_torque[0] == pytest.approx(min(0.01 * w * w, 0.5), rel=1e-12)


def test_t2_and_q2_terms_with_a_known_axial_velocity(make_sim) -> None:
    t1, t2, q1, q2, w, v0 = 0.001, 0.002, 1e-4, 2e-4, 100.0, 2.0
    sim = make_sim(*_drone(_propeller(t=f"{t1} {t2}", q=f"{q1} {q2}"), f"linearVelocity 0 0 {v0}", gravity=0.0))
    _, _, qvel = _spin(sim, w, 1)
    bank = sim.banks["propeller"]
    thrust, torque = t1 * w * w - t2 * w * v0, q1 * w * w - q2 * w * v0  # 9.6 N and 0.96 N*m
    assert bank.axial_velocity[0] == pytest.approx(v0, abs=1e-12)
    assert bank.thrust[0] == pytest.approx(thrust, rel=1e-12)
    assert bank.shaft_torque[0] == pytest.approx(torque, rel=1e-12)
    assert qvel[0, 2] - v0 == pytest.approx(thrust / MASS * TS, rel=1e-9)
    assert qvel[0, 5] == pytest.approx(-torque / IZZ * TS, rel=1e-9)


def test_axial_velocity_uses_the_shaft_axis_of_the_propeller_frame_as_webots_code_does(make_sim) -> None:
    # The body is turned 90 degrees about x: the shaft (local z) points along world -y. Webots' code dots the
    # world velocity (0, 0, 2) with the local axis (0, 0, 1): V = 2 (its documentation would give 0); the thrust
    # still pushes along world -y.
    t1, t2, w = 0.001, 0.002, 100.0
    sim = make_sim(*_drone(_propeller(t=f"{t1} {t2}"), "rotation 1 0 0 1.5707963267948966 linearVelocity 0 0 2",
                          gravity=0.0))
    _, _, qvel = _spin(sim, w, 1)
    bank = sim.banks["propeller"]
    assert bank.axial_velocity[0] == pytest.approx(2.0, abs=1e-12)
    thrust = t1 * w * w - t2 * w * 2.0
    assert bank.thrust[0] == pytest.approx(thrust, rel=1e-12)
    assert qvel[0, 1] == pytest.approx(-thrust / MASS * TS, rel=1e-9)
    assert qvel[0, 2] == pytest.approx(2.0, abs=1e-9)


def test_off_centre_thrust_turns_the_body(make_sim) -> None:
    d, t1, w = 0.1, 0.001, 50.0  # T = 2.5 N at (0.1, 0, 0): torque (0.1, 0, 0) x (0, 0, T) = (0, -0.1 T, 0)
    sim = make_sim(*_drone(_propeller(cot=f"{d} 0 0"), gravity=0.0))
    _, _, qvel = _spin(sim, w, 1)
    thrust = t1 * w * w
    assert qvel[0, 2] == pytest.approx(thrust / MASS * TS, rel=1e-9)
    assert qvel[0, 4] == pytest.approx(-d * thrust / IYY * TS, rel=1e-9)


def test_propeller_under_a_pose_takes_the_pose_frame(make_sim) -> None:
    # A Pose turned 90 degrees about y makes the shaft (0, 0, 1) point along +x and moves the centre of thrust
    # (0, 0, 0.1) to (0.1, 0, 0): thrust along x through a point on the x axis gives no turn.
    propeller = f"Pose {{ rotation 0 1 0 1.5707963267948966 children [ {_propeller(cot='0 0 0.1')} ] }}"
    sim = make_sim(*_drone(propeller, gravity=0.0))
    _, _, qvel = _spin(sim, 50.0, 2)
    np.testing.assert_allclose(qvel[:, 0], np.arange(1, 3) * 2.5 / MASS * TS, rtol=1e-9)
    np.testing.assert_allclose(qvel[:, 1:], 0.0, atol=1e-9)


def test_motor_ramp_position_control_and_idle_propeller(make_sim) -> None:
    sim = make_sim(*_drone(_propeller(motor="acceleration 50").replace("maxTorque 1e6", "maxTorque 15"),
                          gravity=0.0))
    robot = sim.robot("drone")
    motor = robot.getDevice("motor")
    bank = sim.banks["propeller"]
    robot.step(32)  # target position 0 = the propeller's angle: Webots does nothing
    assert bank.current_velocity[0] == 0.0 and bank.thrust[0] == 0.0
    motor.setPosition(math.inf)
    motor.setVelocity(100.0)
    speeds = []
    for _ in range(5):
        robot.step(32)
        speeds.append(bank.current_velocity[0])
    # The acceleration 50 is capped by the available torque (15) used as rad/s^2, as Webots does.
    np.testing.assert_allclose(speeds, 15.0 * TS * np.arange(1, 6), rtol=1e-12)
    assert bank.thrust[0] == pytest.approx(0.001 * speeds[-1] ** 2, rel=1e-12)
    # Position control: the propeller turns to the target at the target speed and stops there (thrust 0).
    motor.setPosition(bank.position[0] + 0.5)
    for _ in range(60):
        robot.step(32)
    assert bank.current_velocity[0] == 0.0 and bank.thrust[0] == 0.0


def test_spinning_propeller_wakes_a_sleeping_body(make_sim) -> None:
    floor = "Solid { boundingObject Plane { size 10 10 } }"
    sim = make_sim(*_drone(_propeller(), extra=floor, z=0.025))
    robot = sim.robot("drone")
    body = sim.bindings.robots[0].solid.body_id
    for _ in range(100):
        robot.step(32)
    assert sim.data.body_awake[body] == 0
    motor = robot.getDevice("motor")
    motor.setPosition(math.inf)
    motor.setVelocity(1.2 * math.sqrt(MASS * 9.81 / 0.001))
    for _ in range(10):
        robot.step(32)
    assert sim.data.xpos[body, 2] > 0.03


@pytest.mark.parametrize("where", ["robot", "solid"])
def test_no_thrust_without_physics_and_webots_warning_once(make_sim, where) -> None:
    if where == "robot":  # the Robot has no Physics
        world = (f'Robot {{ name "drone" children [ {_propeller()} ] }}', "WorldInfo { }")
    else:  # a Solid without Physics in a Robot with Physics: Webots gives it no body either
        world = _drone(f'Solid {{ name "arm" children [ {_propeller()} ] }}', gravity=0.0)
    sim = make_sim(*world)
    robot = sim.robot("drone")
    motor = robot.getDevice("motor")
    motor.setPosition(math.inf)
    motor.setVelocity(100.0)
    for _ in range(3):
        robot.step(32)
    warnings = [m for m in sim.messages.recent if "Adds a Physics node" in m]
    assert warnings == [f"WARNING: {sim.bindings.devices['propeller'][0].node.path}: Adds a Physics node to Solid "
                        "ancestors to enable thrust and torque effect."]
    assert sim.banks["propeller"].thrust[0] == 0.0 and not sim.data.xfrc_applied.any()
    assert not sim.data.qvel.any()


def test_the_axial_velocity_is_read_after_each_step_as_the_drone_speeds_up(make_sim) -> None:
    # With t2 > 0 the thrust depends on the axial velocity V, which changes every step: each step's thrust uses
    # V at the start of that step (the state after the previous physics step, refreshed), as Webots does.
    t1, t2, w, v0 = 0.001, 0.002, 100.0, 2.0
    sim = make_sim(*_drone(_propeller(t=f"{t1} {t2}"), f"linearVelocity 0 0 {v0}", gravity=0.0))
    _, _, qvel = _spin(sim, w, 5)
    start = np.r_[v0, qvel[:-1, 2]]
    thrust = t1 * w * w - t2 * w * start
    np.testing.assert_allclose(qvel[:, 2] - start, thrust / MASS * TS, rtol=1e-9)
    assert qvel[-1, 2] > v0 + 0.5  # it did speed up, so V changed from step to step
