"""Accelerometer and Gyro physics against analytic values, through the Webots API.

An accelerometer reads its point's acceleration minus gravity, averaged over the sample period as Webots'
finite difference of velocities does (``a = -g + dv / dt``): the opposite of gravity at rest, 0 in free
fall, ``F / m - g`` under a force; a gyro reads its body's angular velocity; both in the sensor's frame.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

G = 9.81
FLOOR = 'Solid { name "floor" boundingObject Plane { size 20 20 } }'


def _robot(children: str, *, translation: str = "0 0 0.05", rotation: str = "0 0 1 0", extra: str = "",
           name: str = "bot", size: float = 0.1, mass: float = 2.0) -> str:
    return f"""
DEF BOT Robot {{
  translation {translation}
  rotation {rotation}
  name "{name}"
  controller "<extern>"
  supervisor TRUE
  children [ {children} ]
  boundingObject Box {{ size {size} {size} {size} }}
  physics Physics {{ density -1 mass {mass} }}
  {extra}
}}
"""


def _steps(robot, n: int, step_ms: int = 16) -> None:
    for _ in range(n):
        assert robot.step(step_ms) != -1


@pytest.mark.parametrize(("system", "up"), [("ENU", (0.0, 0.0, G)), ("NUE", (0.0, G, 0.0))])
def test_at_rest_on_a_floor_an_accelerometer_reads_1_g_up_in_enu_and_nue(project, load, system, up):
    # The robot's frame is the world's; in NUE worlds "up" is +y (Webots' gravity along -y).
    translation = "0 0 0.05" if system == "ENU" else "0 0.05 0"
    floor = FLOOR if system == "ENU" else 'Solid { rotation 1 0 0 -1.5707963267948966 name "floor" ' \
                                          'boundingObject Plane { size 20 20 } }'
    world = f"WorldInfo {{ basicTimeStep 16 coordinateSystem \"{system}\" }}\n{floor}\n" + _robot(
        "Accelerometer { }", translation=translation)
    sim = load(project(world))
    robot = sim.robot("bot")
    sensor = robot.getDevice("accelerometer")
    sensor.enable(16)
    readings = []
    for _ in range(125):  # 2 s: the 5 cm drop and the contact's settling are over after 1 s
        robot.step(16)
        readings.append(sensor.getValues())
    settled = np.array(readings[63:])
    # Once settled (MuJoCo's soft contact holds the box at a constant penetration, then the tree sleeps), the
    # velocity no longer changes between samples and Webots' finite difference reads exactly the opposite of
    # gravity in the sensor frame: the box's own frame, which the landing left tilted by ~1e-5 rad (measured).
    sim.supervision.refresh()
    frame = sim.data.xmat[sim.bindings.solid(sim.node("BOT")).body_id].reshape(3, 3)
    expected = frame.T @ -sim.model.opt.gravity
    assert np.abs(settled - expected).max() < 1e-9
    assert np.linalg.norm(settled, axis=1) == pytest.approx(G, abs=1e-12)
    assert np.abs(settled - np.array(up)).max() < 1e-3  # the tilt: g * 1e-5


def test_in_free_fall_an_accelerometer_reads_0_and_a_rotated_one_too(project, load):
    world = "WorldInfo { basicTimeStep 16 }\n" + _robot(
        'Accelerometer { } Accelerometer { name "tilted" rotation 1 1 0 0.7 translation 0.03 0 0 }',
        translation="0 0 100", rotation="0 1 0 0.3")
    robot = load(project(world)).robot("bot")
    sensors = [robot.getDevice("accelerometer"), robot.getDevice("tilted")]
    for sensor in sensors:
        sensor.enable(16)
    for _ in range(60):  # ~1 s: 5 m fallen, 10 m/s
        robot.step(16)
        for sensor in sensors:
            # Euler's velocity update adds g h exactly at each physics step: the difference over a sample is g T
            # to rounding (1e-15 relative to the speed).
            assert np.abs(sensor.getValues()).max() < 1e-9


def test_a_rotated_accelerometer_reads_gravity_in_its_own_frame(project, load):
    # The sensor is rotated by R (axis-angle) in a robot rotated by Q: it reads (QR)^T (0, 0, g).
    axis, angle = np.array([1.0, 2.0, 3.0]) / math.sqrt(14.0), 0.9
    world = "WorldInfo { basicTimeStep 16 }\n" + FLOOR + _robot(
        f'Accelerometer {{ rotation 1 2 3 {angle} }}', rotation="0 0 1 0.5")
    sim = load(project(world))
    robot = sim.robot("bot")
    sensor = robot.getDevice("accelerometer")
    sensor.enable(16)
    _steps(robot, 80)

    def rotation(u: np.ndarray, a: float) -> np.ndarray:
        k = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
        return np.eye(3) + math.sin(a) * k + (1 - math.cos(a)) * k @ k

    frame = rotation(np.array([0.0, 0.0, 1.0]), 0.5) @ rotation(axis, angle)
    assert sensor.getValues() == pytest.approx(frame.T @ np.array([0.0, 0.0, G]), abs=1e-6)


def test_a_supervisor_force_in_free_fall_reads_f_over_m(project, load):
    mass, force = 2.0, np.array([3.0, -1.0, 4.0])
    world = "WorldInfo { basicTimeStep 16 }\n" + _robot("Accelerometer { translation 0.02 0.01 0 }",
                                                          translation="0 0 100", mass=mass)
    robot = load(project(world)).robot("bot")
    sensor = robot.getDevice("accelerometer")
    node = robot.getFromDef("BOT")
    sensor.enable(16)
    for _ in range(20):
        node.addForce(force.tolist(), False)  # applied at the centre of mass for one step, as Webots does
        robot.step(16)
        # a = g + F / m, and the sensor reads a - g.
        assert sensor.getValues() == pytest.approx(force / mass, abs=1e-9)


def test_a_slider_motor_force_reads_f_over_m_plus_the_gravity_reaction(project, load):
    # A carriage of mass m on a horizontal frictionless slider pushed by its motor with F: a = F / m along x,
    # and the joint holds it up against gravity.
    mass, force = 0.5, 2.0
    world = f"""
WorldInfo {{ basicTimeStep 8 }}
Robot {{
  name "bot"
  controller "<extern>"
  children [
    SliderJoint {{
      jointParameters JointParameters {{ axis 1 0 0 }}
      device [ LinearMotor {{ name "m" maxForce 10 minPosition -100 maxPosition 100 }} ]
      endPoint Solid {{
        children [ Accelerometer {{ }} ]
        physics Physics {{ density -1 mass {mass} }}
      }}
    }}
  ]
}}
"""
    robot = load(project(world)).robot("bot")
    motor, sensor = robot.getDevice("m"), robot.getDevice("accelerometer")
    sensor.enable(8)
    motor.setForce(force)
    _steps(robot, 3, 8)  # the first sample also sees the command's first step
    for _ in range(20):
        robot.step(8)
        assert sensor.getValues() == pytest.approx([force / mass, 0.0, G], abs=1e-9)


def test_a_gyro_reads_a_hinge_motor_speed_about_its_own_axes(project, load):
    # A turntable spun by a velocity-controlled motor about world z; the gyro on it, off its axis, is rotated
    # +90 deg about x, so its y axis is world z.
    speed = 2.5
    world = """
WorldInfo { basicTimeStep 16 }
Robot {
  name "bot"
  controller "<extern>"
  children [
    HingeJoint {
      jointParameters HingeJoint { }
      device [ RotationalMotor { name "m" maxVelocity 10 maxTorque 100 } ]
      endPoint Solid {
        translation 0 0 0.1
        children [ Gyro { translation 0.2 0 0 rotation 1 0 0 1.5707963267948966 } ]
        physics Physics { density -1 mass 1 }
      }
    }
  ]
}
""".replace("jointParameters HingeJoint { }", "jointParameters HingeJointParameters { axis 0 0 1 }")
    robot = load(project(world)).robot("bot")
    motor, gyro = robot.getDevice("m"), robot.getDevice("gyro")
    motor.setPosition(math.inf)
    motor.setVelocity(speed)
    gyro.enable(16)
    _steps(robot, 30)
    assert gyro.getValues() == pytest.approx([0.0, speed, 0.0], abs=1e-9)


def test_a_gyro_reads_an_initial_spin_without_gravity_in_the_sensor_frame(project, load):
    # Torque-free spin about a principal axis of a cube: constant angular velocity (world frame).
    omega = np.array([0.0, 0.0, 3.0])
    world = "WorldInfo { basicTimeStep 16 gravity 0 }\n" + _robot(
        "Gyro { rotation 0 1 0 1.5707963267948966 }", extra="angularVelocity 0 0 3")
    robot = load(project(world)).robot("bot")
    gyro = robot.getDevice("gyro")
    gyro.enable(16)
    for _ in range(30):
        robot.step(16)
        # Rotated +90 deg about y, the sensor's x axis is world -z: it reads (-3, 0, 0).
        assert gyro.getValues() == pytest.approx([-omega[2], 0.0, 0.0], abs=1e-9)


@pytest.mark.parametrize("period", [16, 64])
def test_an_off_axis_accelerometer_on_a_spinning_body_reads_the_chord_of_its_velocity(project, load, period):
    # Zero gravity, a body spinning at w about z, the sensor r off the axis along its x-axis: over a period T its
    # point velocity turns by w T, so Webots' finite difference reads (v - v_prev) / T in the sensor frame:
    # (-w r sin(wT) / T, w r (1 - cos(wT)) / T, 0) expressed in the frame that turned with it.
    w, r = 3.0, 0.2
    world = "WorldInfo { basicTimeStep 16 gravity 0 }\n" + _robot(
        f"Accelerometer {{ translation {r} 0 0 }}", translation="0 0 1", extra=f"angularVelocity 0 0 {w}")
    sim = load(project(world))
    robot = sim.robot("bot")
    sensor = robot.getDevice("accelerometer")
    sensor.enable(period)
    _steps(robot, 2 * period // 16)
    t = period / 1000.0
    for _ in range(3):
        _steps(robot, period // 16)
        # v_now = w r (0, 1) in the sensor frame, v_prev the same vector turned back by w T.
        expected = [-w * r * math.sin(w * t) / t, w * r * (1 - math.cos(w * t)) / t, 0.0]
        assert sensor.getValues() == pytest.approx(expected, abs=1e-6)


def test_sensors_under_a_solid_without_physics_have_no_body_as_in_webots(project, load, capfd):
    # Webots: a Solid without Physics is kinematic and has no body merger, even when a Solid with Physics
    # carries it: the Accelerometer reads NaN, the Gyro zeros, each with Webots' warning.
    world = "WorldInfo { basicTimeStep 16 }\n" + _robot(
        "Solid { children [ Accelerometer { } Gyro { } ] }", translation="0 0 100", extra="angularVelocity 0 0 1")
    sim = load(project(world))
    robot = sim.robot("bot")
    accelerometer, gyro = robot.getDevice("accelerometer"), robot.getDevice("gyro")
    accelerometer.enable(16)
    gyro.enable(16)
    _steps(robot, 3)
    assert all(math.isnan(v) for v in accelerometer.getValues())
    assert gyro.getValues() == [0.0, 0.0, 0.0]
    out = capfd.readouterr()
    text = out.out + out.err + "\n".join(sim.messages.recent)
    assert "Parent of Accelerometer node has no physics" in text and "requires a 'physics' field" in text


def test_reset_forgets_the_previous_velocity(project, load):
    # After Simulation.reset() the accelerometer starts afresh: its first sample on a body coasting at 1 m/s
    # (zero gravity) reads v / T from a previous velocity of 0, as after loading.
    world = "WorldInfo { basicTimeStep 16 gravity 0 }\n" + _robot(
        "Accelerometer { }", translation="0 0 1", extra="linearVelocity 1 0 0")
    sim = load(project(world))
    for _ in range(2):
        robot = sim.robot("bot")
        sensor = robot.getDevice("accelerometer")
        sensor.enable(16)
        robot.step(16)
        assert sensor.getValues() == pytest.approx([1.0 / 0.016, 0.0, 0.0], rel=1e-9)
        _steps(robot, 5)
        sim.reset()
