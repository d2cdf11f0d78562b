"""Coupled motors: grouping and load checks (pure), and the relay of each command through the Webots API."""

from __future__ import annotations

import warnings

import pytest

from wbsim.devices.motor.coupling import MotorLimits, couple_motors, coupling_key


def run(names, limits, robots=None):
    messages = []
    groups = couple_motors(names, robots or [0] * len(names), limits,
                           lambda i, text, field: messages.append((i, text, field)))
    return groups, messages


def test_coupling_key_needs_exactly_one_separator():
    assert coupling_key("arm::left") == "arm"
    assert coupling_key("arm") is None
    assert coupling_key("a::b::c") is None  # Webots splits on '::' and wants two chunks
    assert coupling_key("::x") == ""


def test_groups_stay_inside_one_robot_and_lonely_members_warn():
    limits = [MotorLimits(1, 0, 0, 10) for _ in range(4)]
    groups, messages = run(["g::a", "g::b", "g::c", "h::a"], limits, robots=[1, 1, 2, 1])
    assert groups == [0, 0, -1, -1]
    assert messages == [
        (2, "Motor 'g::c' uses the coupled motor name structure but does not have any siblings.", "name"),
        (3, "Motor 'h::a' uses the coupled motor name structure but does not have any siblings.", "name"),
    ]


def test_zero_multiplier_reverts_to_one():
    limits = [MotorLimits(0.0, 0, 0, 10)]
    _, messages = run(["m"], limits)
    assert limits[0].multiplier == 1.0
    assert messages == [(0, "The value of 'multiplier' cannot be 0. Value reverted to 1.", "multiplier")]


def test_first_member_imposes_scaled_limits_with_webots_messages():
    limits = [MotorLimits(2, -2, 4, 10), MotorLimits(-0.5, -2, 4, 10), MotorLimits(2, -2, 4, 10)]
    groups, messages = run(["g::0", "g::1", "g::2"], limits)
    assert groups == [0, 0, 0]
    assert (limits[1].min_position, limits[1].max_position, limits[1].max_velocity) == (-1.0, 0.5, 2.5)
    assert (limits[2].min_position, limits[2].max_position, limits[2].max_velocity) == (-2, 4, 10)
    assert messages == [
        (0, "When using coupled motors, 'minPosition' must be consistent across devices. Adjusting 'minPosition' "
            "from -2 to -1 for motor 'g::0'.", "minPosition"),
        (0, "When using coupled motors, 'maxPosition' must be consistent across devices. Adjusting 'maxPosition' "
            "from 4 to 0.5 for motor 'g::0'.", "maxPosition"),
        (0, "When using coupled motors, velocity limits must be consistent across devices. Adjusted 'maxVelocity' "
            "from 10 to 2.5 for motor 'g::0'.", "maxVelocity"),
    ]


def test_unlimited_first_member_makes_siblings_unlimited():
    limits = [MotorLimits(1, 0, 0, 10), MotorLimits(1, -1, 1, 10)]
    _, messages = run(["g::0", "g::1"], limits)
    assert (limits[1].min_position, limits[1].max_position) == (0.0, 0.0)
    assert messages == [(0, "For coupled motors, if one has unlimited position, its siblings must have unlimited "
                            "position as well. Adjusting 'minPosition' and 'maxPosition' to 0 for motor 'g::0'.", None)]


WORLD = """
WorldInfo { basicTimeStep 16 }
Robot {
  name "r"
  controller "<extern>"
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 0 1 }
      device [ RotationalMotor { name "pair::a" maxTorque 4 minPosition -1 maxPosition 1 } ]
      endPoint Solid { physics Physics { density -1 mass 1 } boundingObject Sphere { radius 0.05 } }
    }
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 0 1 anchor 0 0 1 }
      device [ RotationalMotor { name "pair::b" maxTorque 4 multiplier -2 maxVelocity 20 minPosition -2 maxPosition 2 } ]
      endPoint Solid {
        translation 0 0 1
        physics Physics { density -1 mass 1 } boundingObject Sphere { radius 0.05 }
      }
    }
  ]
}
"""


@pytest.fixture
def pair(project, load):
    sim = load(project(WORLD))
    robot = sim.robot("r")
    return sim, robot, robot.getDevice("pair::a"), robot.getDevice("pair::b")


def test_position_relays_scaled_and_each_member_clamps_with_its_own_warning(pair, capfd):
    sim, robot, a, b = pair
    a.setPosition(0.8)
    bank = b._core.bank
    assert bank.target_position[a._core.index] == 0.8 and bank.target_position[b._core.index] == pytest.approx(-1.6)
    assert a.getTargetPosition() == 0.8 and b.getTargetPosition() == pytest.approx(-1.6)  # the library's relay
    b.setPosition(0.75)  # a: 0.75*1 fine; b: 0.75*-2 = -1.5 fine
    assert bank.target_position[a._core.index] == 0.75 and bank.target_position[b._core.index] == -1.5
    assert a.getTargetPosition() == 0.75 and b.getTargetPosition() == 0.75
    capfd.readouterr()
    a.setPosition(1.5)  # a: 1.5 > 1; b: -3 < -2
    out = capfd.readouterr()
    text = out.out + out.err
    assert "pair::a: too big requested position: 1.5 > 1" in text
    assert "pair::b: too low requested position: 1.5 < -2" in text
    assert bank.target_position[a._core.index] == 1.0 and bank.target_position[b._core.index] == -2.0
    a.setPosition(float("inf"))  # velocity control: infinity is relayed as given, not times -2
    assert bank.target_position[b._core.index] == float("inf") and b.getTargetPosition() == float("inf")


def test_velocity_relays_scaled_and_clamps_to_each_max_velocity(pair, capfd):
    sim, robot, a, b = pair
    bank = a._core.bank
    a.setPosition(float("inf"))
    a.setVelocity(3.0)
    assert bank.target_velocity[b._core.index] == -6.0 and b.getVelocity() == -6.0
    capfd.readouterr()
    b.setVelocity(-6.0)  # b: 12 (fine, maxVelocity 20); a: -6 (fine)
    b.setVelocity(-12.0)  # b: 24 > 20; a: -12 > 10
    out = capfd.readouterr()
    text = out.out + out.err
    assert "pair::b: The requested velocity 24 exceeds 'maxVelocity' = 20 (rad/s)." in text
    assert "pair::a: The requested velocity -12 exceeds 'maxVelocity' = 10 (rad/s)." in text
    assert bank.target_velocity[a._core.index] == -10.0 and bank.target_velocity[b._core.index] == 20.0
    # Both joints turn at their clamped speeds (a position sensor-free check on the joint velocities).
    robot.step(160)
    qvel = sim.data.qvel
    assert qvel[a._core.binding.joint.dof_adr] == pytest.approx(-10.0, rel=1e-3)
    assert qvel[b._core.binding.joint.dof_adr] == pytest.approx(20.0, rel=1e-3)


def test_torque_relays_scaled_silently_and_clamps_to_each_available_torque(pair, capfd):
    sim, robot, a, b = pair
    bank = a._core.bank
    capfd.readouterr()
    a.setTorque(3.0)  # b: -6, beyond its 4 N*m: clamped, no warning for coupled motors (as in Webots)
    out = capfd.readouterr()
    assert "exceeds" not in out.out + out.err
    assert bank.torque[a._core.index] == 3.0 and bank.torque[b._core.index] == -4.0
    assert list(bank.mode[[a._core.index, b._core.index]]) == [1, 1]


def test_acceleration_available_torque_and_pid_stay_per_motor_as_in_webots(pair, capfd):
    """Webots relays only position, velocity and force/torque (WbMotor::handleMessage); the others apply to
    the motor they are given to. The available-torque clamping warning is silenced for coupled motors."""
    sim, robot, a, b = pair
    bank = a._core.bank
    ia, ib = a._core.index, b._core.index
    a.setAcceleration(5.0)
    a.setControlPID(3.0, 0.0, 0.0)
    capfd.readouterr()
    a.setAvailableTorque(7.0)
    out = capfd.readouterr()
    assert "exceeds" not in out.out + out.err
    assert bank.acceleration[ia] == 5.0 and bank.acceleration[ib] == -1.0
    assert list(bank.pid[ia]) == [3.0, 0.0, 0.0] and list(bank.pid[ib]) == [10.0, 0.0, 0.0]
    assert bank.available[ia] == 4.0 and bank.available[ib] == 4.0


def test_coupled_joints_reach_proportional_positions_read_by_sensors(project, load):
    text = WORLD.replace('device [ RotationalMotor { name "pair::a"',
                         'device [ PositionSensor { name "sa" } RotationalMotor { name "pair::a"').replace(
                         'device [ RotationalMotor { name "pair::b"',
                         'device [ PositionSensor { name "sb" } RotationalMotor { name "pair::b"')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = load(project(text))
    robot = sim.robot("r")
    sa, sb = robot.getDevice("sa"), robot.getDevice("sb")
    sa.enable(16)
    sb.enable(16)
    robot.getDevice("pair::b").setPosition(-0.3)  # a: -0.3, b: 0.6
    robot.step(3200)
    assert sa.getValue() == pytest.approx(-0.3, abs=1e-6)
    assert sb.getValue() == pytest.approx(0.6, abs=1e-6)
