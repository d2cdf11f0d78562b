"""Gyros in small worlds: the angular velocity reached by each step (Webots reads its bodies after the
physics step), the body read (own body with Physics, else the upper Solid's), bodiless gyros, noise."""

from __future__ import annotations

import math

import numpy as np
import pytest


def _world(children: str, *, extra: str = "", physics: str = "physics Physics { density -1 mass 2 }",
           info: str = "basicTimeStep 16 gravity 0") -> str:
    return f"""
WorldInfo {{ {info} }}
DEF BOT Robot {{
  name "r"
  controller "<extern>"
  supervisor TRUE
  children [ {children} ]
  boundingObject Box {{ size 0.1 0.1 0.1 }}
  {physics}
  {extra}
}}
"""


def test_reads_the_angular_velocity_at_the_end_of_each_step(project, load):
    # A constant torque about z on a 2 kg, 0.1 m cube (I = m a^2 / 6): omega(t) = tau t / I after each step, not
    # the value one physics step earlier that MuJoCo's own gyro sensor holds after mj_step.
    torque, inertia = 0.01, 2.0 * 0.1**2 / 6.0
    robot = load(project(_world("Gyro { rotation 1 0 0 3.141592653589793 }"))).robot("r")
    gyro, node = robot.getDevice("gyro"), robot.getFromDef("BOT")
    gyro.enable(16)
    for k in range(1, 11):
        node.addTorque([0.0, 0.0, torque], False)
        robot.step(16)
        # Upside down (rotated pi about x), the sensor's z axis is world -z.
        assert gyro.getValues() == pytest.approx([0.0, 0.0, -torque / inertia * 0.016 * k], abs=1e-9)


def test_a_gyro_with_physics_reads_its_own_body_and_one_without_its_upper_solid(project, load):
    # Two gyros on a turntable driven at 2 rad/s; a third, with Physics, is the endPoint of a second hinge
    # spinning at 5 rad/s relative to the table (about the same axis): it reads 7 rad/s.
    world = """
WorldInfo { basicTimeStep 16 gravity 0 }
Robot {
  name "r"
  controller "<extern>"
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 0 1 }
      device [ RotationalMotor { name "table" maxVelocity 20 maxTorque 100 } ]
      endPoint Solid {
        children [
          Gyro { name "plain" translation 0.3 0 0 }
          Pose { translation 0 0.3 0 children [ Gyro { name "heavy" physics Physics { density -1 mass 0.1 } } ] }
          HingeJoint {
            jointParameters HingeJointParameters { axis 0 0 1 anchor 0.5 0 0 }
            device [ RotationalMotor { name "spinner" maxVelocity 20 maxTorque 100 } ]
            endPoint Gyro { name "spun" translation 0.5 0 0 physics Physics { density -1 mass 0.1 } }
          }
        ]
        physics Physics { density -1 mass 1 }
      }
    }
  ]
}
"""
    robot = load(project(world)).robot("r")
    for name, speed in (("table", 2.0), ("spinner", 5.0)):
        motor = robot.getDevice(name)
        motor.setPosition(math.inf)
        motor.setVelocity(speed)
    gyros = [robot.getDevice(name) for name in ("plain", "heavy", "spun")]
    for gyro in gyros:
        gyro.enable(16)
    for _ in range(20):
        robot.step(16)
    readings = np.array([gyro.getValues() for gyro in gyros])
    np.testing.assert_allclose(readings, [[0, 0, 2.0], [0, 0, 2.0], [0, 0, 7.0]], atol=1e-9)


def test_without_physics_it_reads_zero_with_webots_warning_once(project, load, capfd):
    robot = load(project(_world("Gyro { lookupTable [ -1 5 0, 1 6 0 ] }", physics=""))).robot("r")
    gyro = robot.getDevice("gyro")
    gyro.enable(16)
    assert all(math.isnan(v) for v in gyro.getValues())
    for _ in range(3):
        robot.step(16)
    assert gyro.getValues() == [0.0, 0.0, 0.0]  # Webots sends its initial values, without the table
    warning = "WARNING: gyro: this node or its parents requires a 'physics' field to be functional."
    assert capfd.readouterr().err.splitlines().count(warning) == 1


def test_noise_is_relative_seeded_and_replayed_after_reset(project, load):
    path = project(_world("Gyro { lookupTable [ -10 -10 0.05, 10 10 0.05 ] }", extra="angularVelocity 0 0 3"))

    def run(sim) -> np.ndarray:
        robot = sim.robot("r")
        gyro = robot.getDevice("gyro")
        gyro.enable(16)
        values = []
        for _ in range(500):
            robot.step(16)
            values.append(gyro.getValues())
        return np.array(values)

    sim = load(path, seed=11)
    values = run(sim)
    assert values[:, 2].mean() == pytest.approx(3.0, rel=0.01)
    assert values[:, 2].std() == pytest.approx(0.05 * 3.0, rel=0.1)
    assert np.abs(values[:, :2]).max() < 1e-9
    assert np.array_equal(values, run(load(path, seed=11)))
    sim.reset()
    assert np.array_equal(values, run(sim))
