"""Webots' coupled-motor test world (tests/physics/worlds/coupled_motor.wbt), as a local world.

Three robots, each running a Python port of the test's controller with its own argument:

- ``coupling_test``: motors ``a``, ``a::b``, ``a::c``, ``b::b``: only ``a::b`` and ``a::c`` are coupled (a
  name without ``::`` or with another group name is not); a position/velocity given to ``a::c`` reaches
  ``a::b`` (its getters return it), never the others.
- ``load_test``: the limits Webots makes consistent at load: the first motor of a group imposes its
  maxVelocity and position limits (an unlimited first motor makes its siblings unlimited), scaled by the
  multipliers' ratio (limits swap under a negative ratio).
- ``physics_test``: five hinges about the vertical (no gravity torque) with sensors, motors ``motor::1..5``
  of multipliers 1, 0.5, 4, -0.5, -4: velocity commands to the first (then the last) motor move every joint
  in proportion within 1e-4 rad at every step; position commands give proportional positions within 1e-7
  rad at the checkpoints 100 steps after each command.

The world is wbsim's own, in ENU (Webots' world is NUE: its hinge axis ``0 1 0`` is our ``0 0 1``). Each
failed check prints ``FAIL: ...``; the test requires none, and every check to have run.
"""

from __future__ import annotations

import re

WORLD = """
WorldInfo { basicTimeStep 16 }
Robot {
  name "coupling test"
  controller "coupled_motor"
  controllerArgs "coupling_test"
  children [
    HingeJoint { device [ RotationalMotor { name "motor group a" } ] }
    HingeJoint { device [ RotationalMotor { name "motor group a::subgroup b" } ] }
    HingeJoint { device [ RotationalMotor { name "motor group a::subgroup c" } ] }
    HingeJoint { device [ RotationalMotor { name "motor group b::subgroup b" } ] }
  ]
}
Robot {
  name "parameter adjustment at load"
  controller "coupled_motor"
  controllerArgs "load_test"
  children [
    HingeJoint { device [ RotationalMotor { name "motor C::0" maxVelocity 5 multiplier 2 } ] }
    HingeJoint { device [ RotationalMotor { name "motor C::1" maxVelocity 10 multiplier 2 } ] }
    HingeJoint { device [ RotationalMotor { name "motor C::2" maxVelocity 20 multiplier 2 } ] }
    HingeJoint { device [ RotationalMotor { name "motor D::0" multiplier 2 } ] }
    HingeJoint { device [ RotationalMotor { name "motor D::1" minPosition -10 maxPosition 20 multiplier 2 } ] }
    HingeJoint { device [ RotationalMotor { name "motor D::2" minPosition -20 maxPosition 40 multiplier 2 } ] }
    HingeJoint { device [ RotationalMotor { name "motor E::0" minPosition -5 maxPosition 10 multiplier 2 } ] }
    HingeJoint { device [ RotationalMotor { name "motor E::1" minPosition -10 maxPosition 20 multiplier 2 } ] }
    HingeJoint { device [ RotationalMotor { name "motor E::2" multiplier 2 } ] }
    HingeJoint { device [ RotationalMotor { name "motor F::0" multiplier 2 minPosition -2 maxPosition 4 } ] }
    HingeJoint { device [ RotationalMotor { name "motor F::1" multiplier 0.5 minPosition -2 maxPosition 4 } ] }
    HingeJoint { device [ RotationalMotor { name "motor F::2" multiplier 4 minPosition -2 maxPosition 4 } ] }
    HingeJoint { device [ RotationalMotor { name "motor G::0" multiplier 2 minPosition -2 maxPosition 4 } ] }
    HingeJoint { device [ RotationalMotor { name "motor G::1" multiplier -0.5 minPosition -2 maxPosition 4 } ] }
    HingeJoint { device [ RotationalMotor { name "motor G::2" multiplier -4 minPosition -2 maxPosition 4 } ] }
  ]
}
Robot {
  name "physics behavior test"
  controller "coupled_motor"
  controllerArgs "physics_test"
  children [
    %JOINTS%
  ]
}
"""

# (sensor, motor name, maxVelocity, multiplier) of the physics robot's five hinges, 0.1 m apart along z.
_PHYSICS_JOINTS = [(1, "motor::1", 10, 1), (2, "motor::2", 5, 0.5), (3, "motor::3", 40, 4),
                   (4, "motor::4", 5, -0.5), (5, "motor::5", 40, -4)]


def _physics_joints() -> str:
    return "\n".join(
        f"""HingeJoint {{
      jointParameters HingeJointParameters {{ axis 0 0 1 anchor 0 0 {0.1 * (k - 1):g} }}
      device [ PositionSensor {{ name "sensor{k}" }} RotationalMotor {{ name "{name}" maxVelocity {vmax} multiplier {m} }} ]
      endPoint Solid {{
        translation 0 0 {0.1 * (k - 1):g}
        name "multiplier {m}"
        boundingObject Box {{ size 0.1 0.1 0.1 }}
        physics Physics {{ density -1 mass 1 }}
      }}
    }}""" for k, name, vmax, m in _PHYSICS_JOINTS)


CONTROLLER = r"""
import sys
from controller import Robot

TIME_STEP = 16
robot = Robot()
checks = 0


def check(ok, message):
    global checks
    checks += 1
    if not ok:
        print("FAIL: " + message)


def near(a, b, tolerance=1e-10):
    return abs(a - b) <= tolerance


test = sys.argv[1]
if test == "coupling_test":
    names = ["motor group a", "motor group a::subgroup b", "motor group a::subgroup c", "motor group b::subgroup b"]
    motors = [robot.getDevice(n) for n in names]

    def expect(velocities, positions):
        for motor, name, v, p in zip(motors, names, velocities, positions):
            check(near(motor.getVelocity(), v), f"'{name}' should have velocity {v}, has {motor.getVelocity()}")
            check(near(motor.getTargetPosition(), p),
                  f"'{name}' should have position {p}, has {motor.getTargetPosition()}")

    motors[0].setVelocity(5)  # no '::' in the name: itself only
    motors[0].setPosition(5)
    robot.step(TIME_STEP)
    expect([5, 10, 10, 10], [5, 0, 0, 0])
    motors[2].setVelocity(2.5)  # 'a::c' reaches 'a::b'
    motors[2].setPosition(2.5)
    robot.step(10 * TIME_STEP)
    expect([5, 2.5, 2.5, 10], [5, 2.5, 2.5, 0])
    motors[3].setVelocity(7.5)  # 'b::b' has no sibling
    motors[3].setPosition(7.5)
    robot.step(TIME_STEP)
    expect([5, 2.5, 2.5, 7.5], [5, 2.5, 2.5, 7.5])

elif test == "load_test":
    for i in range(3):
        check(near(robot.getDeviceByIndex(i).getVelocity(), 5), f"motor C::{i}: velocity should be 5")
    for i in range(3, 9):
        low, high = (0, 0) if i < 6 else (-5, 10)
        motor = robot.getDeviceByIndex(i)
        check(near(motor.getMinPosition(), low), f"device {i}: minPosition {motor.getMinPosition()} != {low}")
        check(near(motor.getMaxPosition(), high), f"device {i}: maxPosition {motor.getMaxPosition()} != {high}")
    expected = {9: (-2, 4, 10), 10: (-0.5, 1, 2.5), 11: (-4, 8, 20),
                12: (-2, 4, 10), 13: (-1, 0.5, 2.5), 14: (-8, 4, 20)}
    for i, (low, high, vmax) in expected.items():
        motor = robot.getDeviceByIndex(i)
        got = (motor.getMinPosition(), motor.getMaxPosition(), motor.getMaxVelocity())
        check(all(near(a, b) for a, b in zip(got, (low, high, vmax))), f"device {i}: limits {got} != {(low, high, vmax)}")

elif test == "physics_test":
    sensors = [robot.getDevice(f"sensor{i + 1}") for i in range(5)]
    for sensor in sensors:
        sensor.enable(TIME_STEP)
    motors = [robot.getDeviceByIndex(2 * i + 1) for i in range(5)]
    multipliers = [1, 0.5, 4, -0.5, -4]

    def proportional(driver, tolerance, what):
        positions = [s.getValue() for s in sensors]
        for i in range(5):
            if i != driver:
                expected = positions[driver] * multipliers[i] / multipliers[driver]
                check(near(positions[i], expected, tolerance),
                      f"{what}: position[{i}] {positions[i]} != {expected} when controlling motor[{driver}]")

    def velocity_phase(driver):
        for k in range(250):
            if robot.step(TIME_STEP) == -1:
                return
            changes = {50: -0.4, 100: 0.2, 150: -0.2, 202: 0.0}
            if k in changes:
                motors[driver].setVelocity(changes[k])
            proportional(driver, 1e-4, "Velocity control")

    def position_phase(driver, targets):
        motors[driver].setPosition(targets[0])
        for k in range(301):
            if robot.step(TIME_STEP) == -1:
                return
            if k in (101, 201):
                motors[driver].setPosition(targets[k // 100])
            if k > 0 and k % 100 == 0:
                proportional(driver, 1e-7, "Position control")

    motors[0].setPosition(float("inf"))
    motors[0].setVelocity(0.4)
    velocity_phase(0)
    motors[4].setVelocity(0.4)
    velocity_phase(4)
    motors[0].setVelocity(10)  # maxVelocity back
    position_phase(0, [1.5708, -0.7854, 0.0])
    position_phase(4, [-1.5708, 0.7854, 0.0])

print(f"{test}: {checks} checks done")
"""


def test_webots_coupled_motor_world_checks_pass(project, load, capfd):
    world = WORLD.replace("%JOINTS%", _physics_joints())
    sim = load(project(world, controllers={"coupled_motor": CONTROLLER}))
    sim.run(18.0)
    out = capfd.readouterr().out
    failures = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert not failures, "\n".join(failures[:20])
    done = dict(re.findall(r"(\w+_test): (\d+) checks done", out))
    # 24 getter checks; 3 + 12 + 6 limit checks; 2 x 250 x 4 + 2 x 3 x 4 position checks.
    assert done == {"coupling_test": "24", "load_test": "21", "physics_test": "2024"}, done
