"""GPS and Altimeter on moving bodies, against analytic motion.

A robot with a GPS and an Altimeter falls freely (ENU and NUE worlds) after being thrown sideways: MuJoCo
integrates with semi-implicit Euler, so after N physics steps of dt the velocity is exactly
``v0 - g N dt`` and the drop ``g dt^2 N (N + 1) / 2`` (see test_physics_free_fall.py); the GPS reads that
position and velocity (speed = its norm), the altimeter the up coordinate. A robot coasting at a constant
velocity in zero gravity reads a constant speed whatever its sampling period.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from wbsim.compile.builder import compile_world
from wbsim.sim.simulation import Simulation
from wbsim.world.loader import load_world_model_from_string

G = 9.81


def _sim(world: str) -> Simulation:
    return Simulation(compile_world(load_world_model_from_string("#VRML_SIM R2023b utf8\n" + world, "gps.wbt")))


@pytest.mark.parametrize(("system", "up", "start", "side"), [("ENU", 2, (0.0, 0.0, 50.0), 0),
                                                              ("NUE", 1, (0.0, 50.0, 0.0), 2)])
def test_gps_and_altimeter_follow_a_projectile(system, up, start, side):
    throw = [0.0, 0.0, 0.0]
    throw[side] = 1.5
    sim = _sim(f"""
WorldInfo {{ basicTimeStep 8 coordinateSystem "{system}" gpsReference 100 200 300 }}
Robot {{
  translation {start[0]} {start[1]} {start[2]} name "r" controller "<extern>"
  linearVelocity {throw[0]} {throw[1]} {throw[2]}
  children [ GPS {{ }} Altimeter {{ }} ]
  physics Physics {{ density -1 mass 2 centerOfMass [ 0 0 0 ] }} boundingObject Sphere {{ radius 0.1 }}
}}""")
    robot = sim.robot("r")
    gps, altimeter = robot.getDevice("gps"), robot.getDevice("altimeter")
    gps.enable(8)
    altimeter.enable(8)
    dt = sim.compiled.physics_step_s
    reference = np.array([100.0, 200.0, 300.0])
    for k in range(1, 126):
        robot.step(8)
        n = round(k * 0.008 / dt)
        expected = np.array(start, dtype=float)
        expected[side] += 1.5 * n * dt
        expected[up] -= G * dt * dt * n * (n + 1) / 2
        velocity = np.zeros(3)
        velocity[side], velocity[up] = 1.5, -G * n * dt
        assert gps.getValues() == pytest.approx((expected + reference).tolist(), abs=1e-9)
        assert gps.getSpeedVector() == pytest.approx(velocity.tolist(), abs=1e-9)
        assert gps.getSpeed() == pytest.approx(float(np.linalg.norm(velocity)), abs=1e-9)
        assert altimeter.getValue() == pytest.approx(expected[up] + reference[up], abs=1e-9)
    assert altimeter.getValue() < reference[up] + start[up] - 4.9  # it fell for 1 s
    sim.close()


@pytest.mark.parametrize("period", [8, 24, 64])
def test_constant_velocity_reads_a_constant_speed_at_any_period(period):
    sim = _sim("""
WorldInfo { basicTimeStep 8 gravity 0 }
Robot { translation 0 0 1 name "r" controller "<extern>" linearVelocity 3 4 0
        children [ GPS { } ] physics Physics { } boundingObject Sphere { radius 0.1 } }""")
    robot = sim.robot("r")
    gps = robot.getDevice("gps")
    gps.enable(period)
    for k in range(1, 11):
        robot.step(period)
        t = k * period / 1000.0
        assert gps.getSpeed() == pytest.approx(5.0, abs=1e-12)
        assert gps.getValues() == pytest.approx([3.0 * t, 4.0 * t, 1.0], abs=1e-9)
    assert math.isclose(gps.getSpeedVector()[0], 3.0, abs_tol=1e-12)
    sim.close()


def test_a_gps_moved_by_a_kinematic_joint_reads_displacement_over_time():
    # A robot without Physics: its motorised hinge moves the endPoint kinematically, which has no ODE body in
    # Webots, so the speed is the chord travelled since the last sample over the time (NaN first), not the
    # point's velocity (10 m/s here, on a 1 m arm at 10 rad/s).
    sim = _sim("""
WorldInfo { basicTimeStep 16 }
Robot { name "r" controller "<extern>"
  children [
    HingeJoint { jointParameters HingeJointParameters { axis 0 0 1 }
      device [ RotationalMotor { name "m" maxVelocity 10 maxTorque 10000 } ]
      endPoint Solid { children [ GPS { translation 1 0 0 } ] } }
  ] }""")
    robot = sim.robot("r")
    motor = robot.getDevice("m")
    motor.setPosition(math.inf)
    motor.setVelocity(10.0)
    for _ in range(5):
        robot.step(16)
    gps = robot.getDevice("gps")
    gps.enable(64)
    previous = None
    for _ in range(3):
        robot.step(64)
        position = np.array(gps.getValues())
        if previous is None:
            assert math.isnan(gps.getSpeed())
        else:
            chord = 2.0 * math.sin(10.0 * 0.064 / 2.0)  # the arm turns 0.64 rad per sample
            assert gps.getSpeed() == pytest.approx(np.linalg.norm(position - previous) / 0.064, rel=1e-9)
            assert gps.getSpeed() == pytest.approx(chord / 0.064, rel=1e-6)
        previous = position
    sim.close()


def test_a_gps_in_a_solid_without_physics_reads_displacement_over_time_even_on_a_moving_body():
    # Webots reads upperSolid()->bodyMerger(), NULL for a Solid without Physics even when a Solid with Physics
    # carries it: a GPS 1 m off the axis of a robot spinning at 10 rad/s reads the chord over the period.
    sim = _sim("""
WorldInfo { basicTimeStep 16 gravity 0 }
Robot { name "r" controller "<extern>" angularVelocity 0 0 10
  children [ Solid { children [ GPS { translation 1 0 0 } ] } GPS { name "direct" translation 1 0 0 } ]
  physics Physics { density -1 mass 1 centerOfMass [ 0 0 0 ] inertiaMatrix [ 1 1 1 0 0 0 ] }
  boundingObject Sphere { radius 0.1 } }""")
    robot = sim.robot("r")
    inner, direct = robot.getDevice("gps"), robot.getDevice("direct")
    inner.enable(64)
    direct.enable(64)
    robot.step(64)
    assert math.isnan(inner.getSpeed()) and direct.getSpeed() == pytest.approx(10.0, rel=1e-6)
    for _ in range(2):
        robot.step(64)
        assert inner.getSpeed() == pytest.approx(2.0 * math.sin(10.0 * 0.064 / 2.0) / 0.064, rel=1e-6)
        assert direct.getSpeed() == pytest.approx(10.0, rel=1e-6)  # the robot's own body: the point velocity
    sim.close()
