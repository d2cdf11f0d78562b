"""Webots' position sensor sample (projects/samples/devices/worlds/position_sensor.wbt), as a local world.

The world is wbsim's own (no visuals, no distance sensors: the controller reads neither), with the
sample's physics turned from its NUE frame (R2021 geometry: cylinders along y) into ENU: a 5 kg
two-wheeled robot (wheels of 28 mm radius and 0.05 kg on velocity-controlled RotationalMotors with Webots'
default 10 N*m limit and a 100 rad/s speed limit) carrying a 1 kg, 0.16 m pole on a free HingeJoint about
the robot's y axis (the wheels' axle; stops at +-pi/2) whose PositionSensor the controller reads. The
controller is a Python port of the sample's C PID (gains 35 / 5 / 28.9 on the pole angle, its trapezoidal
sum and its per-step difference, 16 ms steps): the wheels turn at minus that speed (clamped to 100 rad/s)
to drive under the pole; it gives up when the pole is beyond 0.78 rad. The sample's description: the
robot keeps the pole "in balance".

It does not, on rigid-body physics: :func:`rigid_loop_modes` (a linearised model of the robot and its
controller, no MuJoCo) has a growing 1.56 Hz mode, which wbsim reproduces; the robot with its upright pole is
top-heavy on its axle. With the body's centre of mass 15 mm lower the unchanged controller holds the pole;
so does, on the unchanged robot, a PID on the pole's absolute angle (the body's pitch added; see
docs/differences.md).
"""

from __future__ import annotations

import numpy as np
import pytest

WORLD = """
WorldInfo { basicTimeStep 16 }
Solid { name "floor" boundingObject Plane { size 10 10 } }
Robot {
  translation 0 0 0.003
  rotation 0 0 1 4.00425
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 -1 0 anchor 0 0 0.025 }
      device [ RotationalMotor { name "left wheel motor" maxVelocity 100 } ]
      endPoint Solid {
        translation 0 -0.045 0.025
        name "left wheel"
        boundingObject DEF WHEEL Transform {
          rotation 1 0 0 1.5708 children [ Cylinder { height 0.01 radius 0.028 } ]
        }
        physics DEF WHEEL_PHYSICS Physics { density -1 mass 0.05 }
      }
    }
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 -1 0 anchor 0 0 0.025 }
      device [ RotationalMotor { name "right wheel motor" maxVelocity 100 } ]
      endPoint Solid {
        translation 0 0.045 0.025
        name "right wheel"
        boundingObject USE WHEEL
        physics USE WHEEL_PHYSICS
      }
    }
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 1 0 anchor 0 0 0.085 minStop -1.5708 maxStop 1.5708 }
      device [ PositionSensor { } ]
      endPoint DEF POLE Solid {
        translation 0 0 0.1625
        boundingObject Capsule { height 0.15 radius 0.005 }
        physics Physics { density -1 mass 1 }
      }
    }
  ]
  name "MyBot"
  boundingObject Transform { translation 0 0 0.0415 children [ Cylinder { height 0.08 radius 0.045 } ] }
  physics Physics { density -1 mass 5 centerOfMass [ 0 0 0 ] }
  controller "position_sensor"
}
"""

CONTROLLER = """
from controller import Robot

KP, KI, KD = 35.0, 5.0, 28.9

robot = Robot()
time_step = int(robot.getBasicTimeStep())
pole = robot.getDevice("position sensor")
pole.enable(time_step)
wheels = [robot.getDevice("left wheel motor"), robot.getDevice("right wheel motor")]
for wheel in wheels:
    wheel.setPosition(float("inf"))
    wheel.setVelocity(0.0)
previous = 0.0
integral = 0.0
while robot.step(time_step) != -1:
    angle = pole.getValue()
    if abs(angle) > 0.78:  # fallen: give up, as the sample does
        break
    integral += (angle + previous) * 0.5
    speed = KP * angle + KI * integral + KD * (angle - previous)
    speed = max(-100.0, min(100.0, speed))
    for wheel in wheels:
        wheel.setVelocity(-speed)
    previous = angle
for wheel in wheels:
    wheel.setVelocity(0.0)
"""


def run_sample(project, load, seconds: float, world: str = WORLD) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001
    """(times, pole angles) after every basic step."""
    sim = load(project(world, controllers={"position_sensor": CONTROLLER}))
    pole = sim.bindings.joints[-1].qpos_adr  # the third HingeJoint: the pole's
    times, angles = [], []

    def record(s) -> None:  # noqa: ANN001
        times.append(s.time_s)
        angles.append(float(s.data.qpos[pole]))

    sim.run(seconds, on_step=record)
    return np.asarray(times), np.asarray(angles)


def variant(*, com_z: float = 0.0, tilt: float = 0.0, heading: bool = True) -> str:
    """The sample world with the body's centre of mass at height ``com_z`` (m, robot frame; the sample's 0 is
    25 mm below the axle), the pole tilted ``tilt`` rad at the start, and the sample's heading or none."""
    world = WORLD.replace("centerOfMass [ 0 0 0 ]", f"centerOfMass [ 0 0 {com_z!r} ]")
    world = world.replace("anchor 0 0 0.085 minStop", f"anchor 0 0 0.085 position {tilt!r} minStop")
    return world if heading else world.replace("rotation 0 0 1 4.00425", "rotation 0 0 1 0")


def _expm(a: np.ndarray) -> np.ndarray:
    """Matrix exponential of a small matrix (scaling and squaring of the Taylor series)."""
    squarings = max(0, int(np.ceil(np.log2(max(np.abs(a).sum(axis=1).max(), 1e-300)))) + 4)
    x = a / 2.0**squarings
    result, term = np.eye(len(a)), np.eye(len(a))
    for k in range(1, 30):
        term = term @ x / k
        result = result + term
    for _ in range(squarings):
        result = result @ result
    return result


def rigid_loop_modes(com_z: float = 0.0, gains: tuple[float, float, float] = (35.0, 5.0, 28.9),
                     absolute: bool = False) -> np.ndarray:
    """Eigenvalues (per 16 ms control step, largest first) of the sample's closed loop on the rigid robot,
    linearised about upright: the body pitching by phi about its axle, the pole at absolute angle theta, wheels
    rolling without slip at the relative speed the ideal velocity motors hold (axle velocity
    ``R (speed + dphi/dt)``), the controller's PID (``gains``: kp, ki, kd) once per step on the sensor's
    ``theta - phi``, or on ``theta`` if ``absolute`` (the sensor plus the body's pitch).

    Independent of MuJoCo: the robot's numbers from :data:`WORLD` (masses, the body's inertia about its centre of
    mass, the pole's, the wheels'), Lagrange's equations ``M q'' = -K q`` between steps (exact over 16 ms), and
    a change of wheel speed as an impulse ``M dq' = -b d(speed)``.
    """
    radius, axle = 0.028, 0.025
    body_mass, body_inertia = 5.0, 5.0 * (3 * 0.045**2 + 0.08**2) / 12  # the bounding cylinder's
    wheels_mass, wheels_inertia = 0.1, 2 * 0.05 * 0.028**2 / 2
    pole_mass, pole_hinge, pole_com = 1.0, 0.085 - axle, 0.1625 - 0.085
    pole_inertia = 2.05295213e-3  # the 0.15 m capsule of radius 5 mm about its centre (MuJoCo's, as Webots')
    below = axle - com_z  # the body's centre of mass below the axle
    # Horizontal velocities (linearised) of each mass: a . (dphi, dtheta) + R speed.
    parts = [(body_mass, np.array([radius - below, 0.0])), (wheels_mass + wheels_inertia / radius**2,
             np.array([radius, 0.0])), (pole_mass, np.array([radius + pole_hinge, pole_com]))]
    mass = np.diag([body_inertia, pole_inertia]) + sum(m * np.outer(a, a) for m, a in parts)
    b = sum(m * a * radius for m, a in parts)
    k = 9.81 * np.diag([body_mass * below - pole_mass * pole_hinge, -pole_mass * pole_com])
    inverse = np.linalg.inv(mass)
    flow = _expm(np.block([[np.zeros((2, 2)), np.eye(2)], [-inverse @ k, np.zeros((2, 2))]]) * 0.016)
    jump = np.concatenate([np.zeros(2), -inverse @ b])
    kp, ki, kd = gains
    # State: phi, theta, their rates, then the previous speed, the integral and the previous angle.
    step = np.zeros((7, 7))
    for j in range(7):
        z = np.eye(7)[j]
        angle = z[1] if absolute else z[1] - z[0]
        integral = z[5] + 0.5 * (angle + z[6])
        speed = kp * angle + ki * integral + kd * (angle - z[6])
        step[:, j] = np.concatenate([flow @ (z[:4] + jump * (speed - z[4])), [speed, integral, angle]])
    modes = np.linalg.eigvals(step)
    return modes[np.argsort(-np.abs(modes))]


def test_the_sample_loop_is_unstable_on_the_rigid_robot_as_wbsim_measures(project, load) -> None:
    """The cause of the fall: the sample's PID cannot hold this robot. Its linearised rigid-body loop (no MuJoCo)
    has a 1.56 Hz mode growing 16 % per step; wbsim's pole, tilted 1e-6 rad, grows at that rate and frequency."""
    modes = rigid_loop_modes()
    dominant = modes[0]
    growth, frequency = abs(dominant), abs(np.angle(dominant)) / (2 * np.pi * 0.016)
    assert growth > 1.15 and 1.5 < frequency < 1.6
    _, angles = run_sample(project, load, 4.0, variant(tilt=1e-6, heading=False))
    linear = angles[: np.flatnonzero(np.abs(angles) > 0.02)[0]]
    peaks = [i for i in range(1, len(linear) - 1) if abs(linear[i]) > 1e-5
             and abs(linear[i]) >= abs(linear[i - 1]) and abs(linear[i]) >= abs(linear[i + 1])]
    measured_growth = (abs(linear[peaks[-1]]) / abs(linear[peaks[-2]])) ** (1.0 / (peaks[-1] - peaks[-2]))
    measured_frequency = 1.0 / (2 * (peaks[-1] - peaks[-2]) * 0.016)
    print(f"rigid model: x{growth:.4f} per step at {frequency:.3f} Hz; wbsim: x{measured_growth:.4f} at "
          f"{measured_frequency:.3f} Hz")
    assert measured_growth == pytest.approx(growth, rel=0.01)
    assert measured_frequency == pytest.approx(frequency, rel=0.05)  # peaks fall on whole steps


def test_with_the_robot_below_its_axle_the_unchanged_controller_balances_the_pole(project, load) -> None:
    """What a user must change: the body's centre of mass 15 mm lower (the robot and its upright pole then have
    their centre of mass 10 mm below the axle; the sample's is 2 mm above). The rigid loop is then stable (its
    modes inside the unit circle but the neutral one, a constant speed), and wbsim holds the pole 60 s with the
    sample's heading and gains, where the sample's robot loses it at 4.7 s; tilted 0.001 rad, it stays up."""
    modes = rigid_loop_modes(com_z=-0.015)
    assert np.isclose(abs(modes[0]), 1.0) and abs(modes[1]) < 0.995
    _, angles = run_sample(project, load, 60.0, variant(com_z=-0.015))
    print(f"centre of mass 15 mm lower: largest pole angle in 60 s {np.abs(angles).max():.2e} rad")
    assert np.abs(angles).max() < 1e-6
    _, angles = run_sample(project, load, 20.0, variant(com_z=-0.015, tilt=0.001))
    print(f"... tilted 0.001 rad: largest angle {np.abs(angles).max():.4f} rad, {angles[-1]:+.4f} rad at 20 s")
    assert np.abs(angles).max() < 0.02


ABSOLUTE_GAINS = (31.27, 131.6, 434.9)
"""PID gains on the pole's absolute angle found by a search on :func:`rigid_loop_modes` (``absolute=True``)."""


def test_a_pid_on_the_absolute_pole_angle_holds_the_sample_robot(project, load) -> None:  # noqa: ANN001
    """The other remedy: the unchanged robot, with the controller adding the body's pitch (an InertialUnit) to
    the pole sensor's angle, and other gains. The rigid model's loop is then stable (every mode but the
    neutral constant-speed one at most x0.996 per step), and wbsim holds the pole with the sample's heading
    for 20 s; tilted 0.001 rad, it stays within 0.02 rad. (Relative-angle PIDs found none: x1.010 at best.)"""
    modes = np.abs(rigid_loop_modes(gains=ABSOLUTE_GAINS, absolute=True))
    assert np.isclose(modes[0], 1.0) and modes[1] < 0.996
    world = WORLD.replace("    HingeJoint {\n      jointParameters HingeJointParameters { axis 0 1 0",
                          '    InertialUnit { name "imu" }\n    HingeJoint {\n'
                          "      jointParameters HingeJointParameters { axis 0 1 0", 1)
    controller = CONTROLLER.replace("KP, KI, KD = 35.0, 5.0, 28.9", "KP, KI, KD = {!r}, {!r}, {!r}".format(
        *ABSOLUTE_GAINS)).replace("pole.enable(time_step)\n", 'pole.enable(time_step)\nimu = robot.getDevice("imu")'
                                  "\nimu.enable(time_step)\n").replace(
        "    angle = pole.getValue()\n", "    angle = pole.getValue() + imu.getRollPitchYaw()[1]\n")
    assert world != WORLD and controller.count("imu") == 4
    controllers = {"position_sensor": controller}
    sim = load(project(world, controllers=controllers))
    pole = sim.bindings.joints[-1].qpos_adr
    angles: list[float] = []
    sim.run(20.0, on_step=lambda s: angles.append(float(s.data.qpos[pole])))
    tilted = load(project(world.replace("anchor 0 0 0.085 minStop", "anchor 0 0 0.085 position 0.001 minStop"),
                          controllers=controllers))
    tilted_angles: list[float] = []
    tilted.run(20.0, on_step=lambda s: tilted_angles.append(float(s.data.qpos[pole])))
    print(f"PID on the absolute angle: largest pole angle in 20 s {np.abs(angles).max():.2e} rad; tilted 0.001 rad: "
          f"largest {np.abs(tilted_angles).max():.4f} rad, {tilted_angles[-1]:+.4f} rad at 20 s")
    assert np.abs(angles).max() < 1e-6
    assert np.abs(tilted_angles).max() < 0.02


@pytest.mark.xfail(strict=True, reason="the sample's PID cannot hold this robot (issue 14's second PID robot): "
                   "its rigid-body loop has a 1.56 Hz mode growing 16 % per 16 ms step (the robot with its "
                   "upright pole has its centre of mass 2 mm above the axle and tips on its wheels, which the pole "
                   "sensor barely sees); wbsim follows it (test above). It only stays up while nothing perturbs "
                   "the exact upright state; docs/differences.md")
def test_the_robot_keeps_the_pole_in_balance(project, load):
    times, angles = run_sample(project, load, 20.0)
    fallen = np.flatnonzero(np.abs(angles) > 0.78)
    tipping = np.flatnonzero(np.abs(angles) > 0.01)
    left = times[tipping[0]] if len(tipping) else None
    fell = times[fallen[0]] if len(fallen) else None
    print(f"pole leaves upright at {left} s, falls at {fell} s; largest angle {np.abs(angles).max():.3f} rad")
    assert not len(fallen)
