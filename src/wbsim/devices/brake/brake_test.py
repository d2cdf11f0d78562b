"""Brake: the damping it adds to its joint decays a free flywheel as exp(-c t / I); API links and resets."""

from __future__ import annotations

import math

import pytest

WORLD = """
WorldInfo { basicTimeStep 4 gravity 0 }
Robot {
  name "r"
  controller "<extern>"
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 0 1 dampingConstant 0.01 }
      device [ Brake { name "brake" } PositionSensor { name "sensor" } RotationalMotor { name "motor" maxTorque 0 } ]
      endPoint Solid {
        physics Physics { density -1 mass 2 centerOfMass [ 0 0 0 ] inertiaMatrix [ 0.1 0.1 0.2, 0 0 0 ] }
        angularVelocity 0 0 10
      }
    }
  ]
}
"""
INERTIA = 0.2


def spin(sim) -> float:
    joint = sim.bindings.joints[0]
    return float(sim.data.qvel[joint.dof_adr])


def test_brake_damping_adds_to_the_joint_damping(project, load):
    from controller import Brake, Motor, PositionSensor

    sim = load(project(WORLD))
    robot = sim.robot("r")
    brake = robot.getDevice("brake")
    assert isinstance(brake, Brake) and brake.getType() == Brake.ROTATIONAL
    assert isinstance(brake.getMotor(), Motor) and isinstance(brake.position_sensor, PositionSensor)
    assert robot.getDevice("motor").getBrake() is brake and robot.getDevice("sensor").getBrake() is brake
    robot.step(4)
    w0 = spin(sim)
    brake.setDampingConstant(0.39)  # with the joint's own 0.01: 0.4 N m s
    robot.step(500)
    assert spin(sim) == pytest.approx(w0 * math.exp(-0.4 * 0.5 / INERTIA), rel=0.01)
    brake.dampingConstant = 0.0
    robot.step(4)
    w1 = spin(sim)
    robot.step(500)
    assert spin(sim) == pytest.approx(w1 * math.exp(-0.01 * 0.5 / INERTIA), rel=0.01)


def test_invalid_damping_is_refused_and_reset_restores_the_joint(project, load, capfd):
    sim = load(project(WORLD))
    robot = sim.robot("r")
    brake = robot.getDevice("brake")
    brake.setDampingConstant(-1)
    assert "invalid damping constant" in capfd.readouterr().err
    brake.setDampingConstant(5.0)
    robot.step(4)
    dof = sim.bindings.joints[0].dof_adr
    assert float(sim.model.dof_damping.reshape(sim.model.nv, -1)[dof, 0]) == pytest.approx(5.01)
    sim.reset()
    assert float(sim.model.dof_damping.reshape(sim.model.nv, -1)[dof, 0]) == pytest.approx(0.01)
