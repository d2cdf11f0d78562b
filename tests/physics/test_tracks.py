"""Tracks: a belt driven at speed v moves its vehicle at v, turns it when the two belts differ, carries what
rests on a conveyor, and its position sensor reads the distance the belt ran.

The vehicle: a 10 kg box on two Tracks (boxes 0.3 x 0.05 x 0.1 m, 0.2 m apart) on a plane, default contacts
(mu = 1; no bounce so it settles fast). Webots makes the Track's contacts move at the belt speed (ODE's contact
``motion1``); with no slip, the vehicle's speed is the belt speed. wbsim sets MuJoCo's contact surface velocity
and the friction constraint drives the relative tangential velocity to it: on flat ground at constant belt speed
the steady state has no slip at all, so the measured speed equals v to solver precision (1e-6 m/s asked).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from wbsim.sim.phases import Phase

VEHICLE = """
WorldInfo {{ basicTimeStep 8 contactProperties [ ContactProperties {{ material1 "belt" bounce 0 }} ] }}
DEF FLOOR Solid {{ boundingObject Plane {{ size 20 20 }} }}
DEF VEHICLE Robot {{
  translation 0 0 0.0525 rotation 0 0 1 {yaw}
  children [
    Track {{ translation 0 0.1 0 name "left track" contactMaterial "belt" boundingObject Box {{ size 0.3 0.05 0.1 }}
      physics Physics {{ }} device [ LinearMotor {{ name "left motor" }} PositionSensor {{ name "left belt" }} ] }}
    Track {{ translation 0 -0.1 0 name "right track" contactMaterial "belt" boundingObject Box {{ size 0.3 0.05 0.1 }}
      physics Physics {{ }} device [ LinearMotor {{ name "right motor" maxVelocity 1 }} ] }}
  ]
  boundingObject Box {{ size 0.3 0.15 0.05 }}
  physics Physics {{ density -1 mass 10 }}
  controller "<extern>"
}}
"""


@pytest.fixture
def vehicle(project, load):
    """``vehicle(yaw=0)``: (simulation, robot API, body id of the vehicle)."""

    def make(yaw: float = 0.0):
        sim = load(project(VEHICLE.format(yaw=yaw)))
        robot = sim.robot("robot")
        return sim, robot, sim.bindings.solid(sim.node("VEHICLE")).body_id

    return make


def drive(robot, left: float, right: float) -> None:
    for name, speed in (("left motor", left), ("right motor", right)):
        motor = robot.getDevice(name)
        motor.setPosition(math.inf)
        motor.setVelocity(speed)


def heading(sim, body: int) -> float:
    x_axis = sim.data.xmat[body].reshape(3, 3)[:, 0]
    return math.atan2(x_axis[1], x_axis[0])


@pytest.mark.parametrize("yaw", [0.0, 2.0])
def test_vehicle_moves_at_the_belt_speed_along_its_heading(vehicle, yaw):
    sim, robot, body = vehicle(yaw)
    drive(robot, 0.1, 0.1)
    for _ in range(125):  # 1 s: the vehicle settles and reaches the belt speed
        robot.step(8)
    start = sim.data.xpos[body].copy()
    for _ in range(250):  # 2 s
        robot.step(8)
    velocity = (sim.data.xpos[body] - start) / 2.0
    assert velocity[:2] == pytest.approx(0.1 * np.array([math.cos(yaw), math.sin(yaw)]), abs=1e-6)
    assert heading(sim, body) == pytest.approx(yaw, abs=1e-6)


def test_backward_belts_move_the_vehicle_backward(vehicle):
    sim, robot, body = vehicle()
    drive(robot, -0.05, -0.05)
    for _ in range(125):
        robot.step(8)
    start = sim.data.xpos[body][0]
    for _ in range(125):
        robot.step(8)
    assert (sim.data.xpos[body][0] - start) / 1.0 == pytest.approx(-0.05, abs=1e-6)


def test_opposite_belts_turn_the_vehicle_on_the_spot(vehicle):
    """Left belt forward, right belt backward: the vehicle turns clockwise about its centre. Skid steering
    scrubs the belts sideways, so the rate stays below the no-slip rate (v_r - v_l) / spacing = -1 rad/s."""
    sim, robot, body = vehicle()
    drive(robot, 0.1, -0.1)
    for _ in range(125):
        robot.step(8)
    start, before = sim.data.xpos[body].copy(), heading(sim, body)
    for _ in range(50):  # 0.4 s, less than half a turn
        robot.step(8)
    rate = (heading(sim, body) - before) / 0.4
    assert -1.0 < rate < -0.2
    assert np.linalg.norm(sim.data.xpos[body][:2] - start[:2]) < 1e-3


def test_different_belt_speeds_curve_towards_the_slower_belt(vehicle):
    sim, robot, body = vehicle()
    drive(robot, 0.1, 0.2)  # right belt faster: the vehicle curves to the left (counterclockwise)
    for _ in range(125):
        robot.step(8)
    before = heading(sim, body)
    for _ in range(125):
        robot.step(8)
    rate = heading(sim, body) - before
    assert 0.1 < rate <= 0.5 + 1e-9  # at most the no-slip rate (0.2 - 0.1) / 0.2 m
    speed = np.linalg.norm(sim.data.cvel[body][3:5])
    assert 0.1 < speed < 0.2  # between the two belt speeds


def test_position_sensor_reads_the_distance_the_belt_ran(vehicle):
    sim, robot, body = vehicle()
    sensor = robot.getDevice("left belt")
    sensor.enable(8)
    drive(robot, 0.1, 0.1)
    for _ in range(250):
        robot.step(8)
    assert sensor.getValue() == pytest.approx(0.1 * 2.0, abs=1e-12)  # 250 steps of 8 ms at 0.1 m/s
    assert sensor.getType() == sensor.LINEAR


def test_position_control_runs_the_belt_to_the_target(vehicle):
    sim, robot, body = vehicle()
    for _ in range(50):  # let the vehicle land first: a belt running in the air moves nothing
        robot.step(8)
    start = sim.data.xpos[body][0]
    sensor = robot.getDevice("left belt")
    sensor.enable(8)
    for name in ("left motor", "right motor"):
        robot.getDevice(name).setVelocity(0.05)  # the speed limit of position control
        robot.getDevice(name).setPosition(0.3)
    for _ in range(900):  # 6 s at 0.05 m/s, then the P controller's tail (time constant 1 / P = 0.1 s)
        robot.step(8)
    assert sensor.getValue() == pytest.approx(0.3, abs=1e-6)
    # Both belts ran 0.3 m: the vehicle advanced 0.3 m, less the slip while its belts jump to 0.05 m/s and
    # back to 0 (at most v^2 / (2 mu g) = 0.13 mm each time with mu = 1).
    assert sim.data.xpos[body][0] - start == pytest.approx(0.3, abs=5e-4)


def test_a_sleeping_vehicle_wakes_when_its_belts_start(vehicle):
    sim, robot, body = vehicle()
    for _ in range(500):  # 4 s at rest: MuJoCo puts the vehicle to sleep
        robot.step(8)
    assert sim.data.body_awake[body] == 0
    drive(robot, 0.1, 0.1)
    start = sim.data.xpos[body][0]
    for _ in range(250):
        robot.step(8)
    assert sim.data.xpos[body][0] - start == pytest.approx(0.2, abs=5e-3)


CONVEYOR = """
WorldInfo { basicTimeStep 8 }
DEF FLOOR Solid { boundingObject Plane { size 20 20 } }
Robot {
  rotation 0 0 1 1.5707963267948966
  children [
    DEF BELT Track { translation 0 0 0.1 boundingObject Box { size 2 0.2 0.02 } physics Physics { }
      device [ LinearMotor { name "belt" } ] }
  ]
  controller "<extern>"
}
DEF PARCEL Solid { translation 0 -0.5 0.14 boundingObject Box { size 0.06 0.06 0.06 } physics Physics { } }
"""


def test_conveyor_carries_a_parcel_at_the_belt_speed(project, load):
    """A static Track (a conveyor): its upper side carries what rests on it along the Track's +x axis (here the
    world's +y) at the belt speed."""
    sim = load(project(CONVEYOR))
    robot = sim.robot("robot")
    motor = robot.getDevice("belt")
    motor.setPosition(math.inf)
    motor.setVelocity(0.25)
    parcel = sim.bindings.solid(sim.node("PARCEL")).body_id
    for _ in range(125):
        robot.step(8)
    start = sim.data.xpos[parcel].copy()
    for _ in range(125):
        robot.step(8)
    velocity = (sim.data.xpos[parcel] - start) / 1.0
    assert velocity == pytest.approx([0.0, 0.25, 0.0], abs=1e-6)


def test_force_control_gives_the_belt_force_times_step_over_mass(vehicle):
    """Webots' force control of a Track: the belt velocity of each step is F * ts / m (m: the vehicle's mass),
    without accumulation."""
    sim, robot, body = vehicle()
    sensor = robot.getDevice("left belt")
    sensor.enable(8)
    robot.getDevice("left motor").setForce(5.0)
    mass = sim.banks["track"].mass[0]
    assert mass == pytest.approx(10.0 + 2 * 1.5)  # the vehicle and its two Tracks (density 1000) merged
    for _ in range(10):
        robot.step(8)
    assert sensor.getValue() == pytest.approx(10 * 0.008 * (5.0 * 0.008 / mass), rel=1e-12)


def test_runs_are_deterministic_and_reset_restores_the_belts(vehicle):
    def run(sim, robot, body):
        sensor = robot.getDevice("left belt")
        sensor.enable(8)
        drive(robot, 0.1, -0.05)
        for _ in range(200):
            robot.step(8)
        return sim.data.qpos.copy(), sensor.getValue()

    sim, robot, body = vehicle()
    first = run(sim, robot, body)
    sim2, robot2, body2 = vehicle()
    second = run(sim2, robot2, body2)
    assert np.array_equal(first[0], second[0]) and first[1] == second[1]
    sim.reset()
    assert sim.banks["track"].belt_position.tolist() == [0.0, 0.0]
    robot = sim.robot("robot")
    third = run(sim, robot, body)
    assert np.array_equal(first[0], third[0]) and first[1] == third[1]


PLUGIN = """
from wbsim.physics_plugin import *
ghost = wall = None
def webots_physics_init():
    global ghost, wall
    ghost, wall = dWebotsGetGeomFromDEF("GHOST"), dWebotsGetGeomFromDEF("WALL")
def webots_physics_step():
    pass
def webots_physics_collide(g1, g2):
    return 1 if {g1, g2} == {ghost, wall} else 0
def webots_physics_cleanup():
    pass
"""


def test_belts_drive_through_a_physics_plugins_split_steps(project, load):
    """A plugin that suppresses the contacts of a box with a wall it overlaps makes wbsim split every MuJoCo step
    for the plugin; the belts' contact edit runs inside those steps, after the plugin's edits."""
    world = VEHICLE.format(yaw=0.0).replace("WorldInfo { basicTimeStep 8", 'WorldInfo { basicTimeStep 8 physics "ghost"')
    world += ('DEF GHOST Solid { translation 2 0 0.05 name "ghost" boundingObject Box { size 0.1 0.1 0.1 } '
              'physics Physics { } }\n'
              'DEF WALL Solid { translation 2 0.04 0.1 name "wall" boundingObject Box { size 0.5 0.05 0.2 } }\n')
    sim = load(project(world, files={"plugins/physics/ghost/ghost.py": PLUGIN}))
    robot = sim.robot("robot")
    drive(robot, 0.1, 0.1)
    body = sim.bindings.solid(sim.node("VEHICLE")).body_id
    ghost = sim.bindings.solid(sim.node("GHOST")).body_id
    split = []
    sim.add_hook(Phase.PHYSICS, lambda s: split.append(bool(len(s.plugin.collisions._handled))))
    for _ in range(125):
        robot.step(8)
    start = sim.data.xpos[body].copy()
    for _ in range(125):
        robot.step(8)
    assert all(split[1:]) and sim.data.xpos[ghost] == pytest.approx([2.0, 0.0, 0.05], abs=1e-3)
    assert (sim.data.xpos[body] - start)[:2] / 1.0 == pytest.approx([0.1, 0.0], abs=1e-6)
