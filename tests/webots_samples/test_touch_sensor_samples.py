"""Webots' TouchSensor samples (projects/samples/devices: bumper, force_sensor, force3d_sensor), as local worlds.

The worlds and controllers here are wbsim's own, built like the samples (a small two-wheeled robot in a
1 m arena with four boxes; a box robot inside a bigger force-3d sensor) without Webots' PROTOs, and the
tests check what the samples' documentation says they do: the robot backs off and turns whenever its
bumper (or force sensor) hits something, and never gets stuck; the force-3d sensor reads the robot's
weight, 78.48 N, along the axis that points up, whatever the robot's orientation.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

ARENA = """
Solid { name "floor" boundingObject Plane { size 1 1 } }
Solid { translation 0.505 0 0.05 name "east wall" boundingObject DEF WALL_X Box { size 0.01 1.02 0.1 } }
Solid { translation -0.505 0 0.05 name "west wall" boundingObject USE WALL_X }
Solid { translation 0 0.505 0.05 name "north wall" boundingObject DEF WALL_Y Box { size 1.02 0.01 0.1 } }
Solid { translation 0 -0.505 0.05 name "south wall" boundingObject USE WALL_Y }
Solid { translation 0.25 0.05 0.05 name "box 1" boundingObject Box { size 0.1 0.23 0.1 } }
Solid { translation -0.27 -0.2 0.05 rotation 0 0 1 0.31 name "box 2" boundingObject Box { size 0.1 0.1 0.1 } }
Solid { translation -0.15 0.2 0.05 rotation 0 0 1 0.4 name "box 3" boundingObject Box { size 0.3 0.05 0.1 } }
Solid { translation 0.1 -0.42 0.05 name "box 4" boundingObject Box { size 0.08 0.15 0.1 } }
"""

WHEEL = """
HingeJoint {{
  jointParameters HingeJointParameters {{ axis 0 1 0 anchor 0 {y} 0.025 }}
  device [ RotationalMotor {{ name "{side} wheel motor" }} PositionSensor {{ name "{side} wheel sensor" }} ]
  endPoint Solid {{
    translation 0 {y} 0.025 rotation 1 0 0 1.5707963267948966 name "{side} wheel"
    boundingObject Cylinder {{ radius 0.025 height 0.01 }}
    physics Physics {{ density -1 mass 0.05 }}
  }}
}}
"""


def _small_robot(sensor: str) -> str:
    """A 0.5 kg cylinder robot on two wheels with a front TouchSensor (a 0.02 x 0.09 x 0.02 m bar)."""
    return f"""
DEF MYBOT Robot {{
  translation 0 -0.15 0
  rotation 0 0 1 1
  name "mybot"
  controller "avoid"
  controllerArgs [ "{sensor}" ]
  children [
    {WHEEL.format(side="left", y=0.045)}
    {WHEEL.format(side="right", y=-0.045)}
    TouchSensor {{
      translation 0.045 0 0.02
      name "{sensor}"
      type "{'bumper' if sensor == 'bumper' else 'force'}"
      lookupTable [ 0 0 0, 1000 1000 0 ]
      boundingObject Box {{ size 0.02 0.09 0.02 }}
      physics Physics {{ density -1 mass 0.01 }}
    }}
  ]
  boundingObject Pose {{ translation 0 0 0.0415 children [ Cylinder {{ radius 0.045 height 0.08 }} ] }}
  physics Physics {{ density -1 mass 0.5 centerOfMass [ 0 0 0 ] }}
}}
"""


# Forward until the sensor reports a hit, then back up for 8 control steps and turn on the spot for 7.
AVOID = """
import sys
from controller import Robot

robot = Robot()
step = 64
sensor_name = sys.argv[1]
sensor = robot.getDevice(sensor_name)
sensor.enable(step)
left, right = robot.getDevice("left wheel motor"), robot.getDevice("right wheel motor")
for motor in (left, right):
    motor.setPosition(float("inf"))
    motor.setVelocity(0.0)
pending = 0
while robot.step(step) != -1:
    value = sensor.getValue()
    if value > (0 if sensor_name == "bumper" else 0.01):
        if sensor_name != "bumper":
            print(f"collision force {value:.4f} N at t={robot.getTime():.3f}")
        pending = 15
    if pending == 0:
        speeds = (4.0, 4.0)
    elif pending > 7:
        speeds = (-4.0, -4.0)
        pending -= 1
    else:
        speeds = (-2.0, 4.0)
        pending -= 1
    left.setVelocity(speeds[0])
    right.setVelocity(speeds[1])
"""


def _avoidance_run(project, load, sensor: str, basic_ms: int, seconds: float):
    world = f"WorldInfo {{ basicTimeStep {basic_ms} }}\n" + ARENA + _small_robot(sensor)
    sim = load(project(world, controllers={"avoid": AVOID}))
    body = sim.bindings.robots[0].solid.body_id
    bank = sim.banks["touch_sensor"]
    track = []

    def record(s) -> None:
        rot = s.data.xmat[body].reshape(3, 3)
        track.append((s.time_s, *s.data.xpos[body][:2], math.atan2(rot[1, 0], rot[0, 0]), bool(bank.touching[0])))

    sim.run(seconds, on_step=record)
    return sim, np.array(track)


def _touch_starts(track: np.ndarray) -> list[int]:
    touching = track[:, 4].astype(bool)
    return [i for i in range(1, len(track)) if touching[i] and not touching[i - 1]]


def _check_avoidance(track: np.ndarray, starts: list[int], dt: float) -> None:
    t, x, y, heading = track[:, 0], track[:, 1], track[:, 2], track[:, 3]
    checked = 0
    for i in starts:
        back = i + int(round(0.45 / dt))  # halfway through the 0.51 s of reversing
        turn = i + int(round(0.95 / dt))  # after the 0.45 s of turning
        if turn >= len(t) or any(i < j <= turn for j in starts):
            continue  # another touch restarted the manoeuvre (e.g. while reversing into a wall)
        checked += 1
        forward = np.array([math.cos(heading[i]), math.sin(heading[i])])
        moved = np.array([x[back] - x[i], y[back] - y[i]])
        assert moved @ forward < -0.02, f"no backing off after the touch at t={t[i]:.2f} s"
        turned = (heading[turn] - heading[back] + math.pi) % (2 * math.pi) - math.pi
        assert math.radians(20) < turned < math.radians(50), f"no left turn after the touch at t={t[i]:.2f} s"
    assert checked >= 5
    # Never stuck: it moves at least 2 cm in every 5 s window, and it stays in the arena.
    window = int(round(5.0 / dt))
    for k in range(0, len(t) - window, window // 2):
        assert math.hypot(x[k + window] - x[k], y[k + window] - y[k]) > 0.02 or np.ptp(x[k:k + window]) > 0.02
    assert np.all(np.abs(x) < 0.5) and np.all(np.abs(y) < 0.5)


def test_bumper_sample_robot_backs_off_and_turns_at_every_hit(project, load):
    sim, track = _avoidance_run(project, load, "bumper", 32, 60.0)
    starts = _touch_starts(track)
    assert len(starts) >= 10, "the robot should bump into the walls and boxes many times in 60 s"
    _check_avoidance(track, starts, 0.032)


def test_force_sensor_sample_reports_collision_forces_and_avoids(project, load, capfd):
    sim, track = _avoidance_run(project, load, "force", 8, 40.0)
    lines = re.findall(r"collision force ([0-9.]+) N at t=([0-9.]+)", capfd.readouterr().out)
    forces = [float(f) for f, _ in lines]
    assert len(forces) >= 8
    # Printed with 4 decimals: a force just above the sample's 0.01 N threshold shows as 0.0100.
    assert all(0.01 <= f < 100.0 for f in forces)
    # Each print (re)starts the manoeuvre at that control step.
    starts = sorted({int(round(float(t) / 0.008)) - 1 for _, t in lines})
    _check_avoidance(track, starts, 0.008)


FORCE3D = """
WorldInfo { basicTimeStep 8 }
Solid { name "floor" boundingObject Plane { size 2 2 } }
Robot {
  translation 0 0 0.25
  rotation ROTATION
  name "box robot"
  controller "<extern>"
  children [
    TouchSensor {
      name "touch"
      type "force-3d"
      lookupTable []
      boundingObject Box { size 0.3 0.3 0.3 }
      physics Physics { }
    }
  ]
  boundingObject Box { size 0.2 0.2 0.2 }
  physics Physics { }
}
"""


@pytest.mark.parametrize(("rotation", "expected"), [
    ("0 0 1 0", (0.0, 0.0, 78.48)),
    ("1 0 0 1.5707963267948966", (0.0, 78.48, 0.0)),  # the robot's y-axis now points up
    ("0 1 0 3.141592653589793", (0.0, 0.0, -78.48)),  # upside down
])
def test_force3d_sample_measures_the_robot_weight_in_the_sensor_frame(project, load, rotation, expected):
    # A 0.2 m box robot of density 1000 (8 kg) inside a 0.3 m force-3d sensor (27 kg): only the robot's
    # weight, 78.48 N, is measured, along the sensor axis that points up.
    sim = load(project(FORCE3D.replace("ROTATION", rotation)))
    robot = sim.robot("box robot")
    touch = robot.getDevice("touch")
    touch.enable(8)
    while robot.getTime() < 0.1:  # falling
        robot.step(8)
        assert touch.getValues() == pytest.approx([0.0, 0.0, 0.0], abs=1e-6)
    while robot.getTime() < 3.0:  # lands at ~0.15 s, bounces, rests
        robot.step(8)
    np.testing.assert_allclose(touch.getValues(), expected, atol=0.08)
    assert math.hypot(*touch.getValues()) == pytest.approx(0.2**3 * 1000 * 9.81, rel=1e-3)
