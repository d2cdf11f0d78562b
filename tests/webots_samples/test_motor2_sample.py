"""Webots' Motor 2 sample (projects/samples/devices/worlds/motor2.wbt) as a local world.

The sample's documentation: "two rotational motors are controlling a Hinge2Joint in position". A Robot without
Physics holds a post (a Solid with Physics under it, so fixed to the static environment) carrying a Hinge2Joint
whose first axis is -x and second -y (at axis 1's zero), anchored 7 cm above the post's centre; its endPoint is
a small cylinder with three boxes. Each axis has a RotationalMotor limited to 1 rad/s. The controller counts
basic steps (32 ms): at 50 it sends motor 1 to 1 rad, at 100 to -1, at 200 back to 0; at 300 motor 2 to 1, at 400
to -1; after 500 both follow slow sinusoids, ``0.5 cos(0.01 n)`` and ``0.5 sin(0.003 n)``.

Shapes and the arena are as in the sample where they carry mass or collide (the post, its two side plates, the
pin, the endPoint and its three boxes, with the PROTO boxes written as Solids with a Box boundingObject); the
decorative screws, bolts, base plate and torus (no Physics) are left out, since nothing touches them.
"""

from __future__ import annotations

import math

import numpy as np

from wbsim.compile.frames import quat_from_axis_angle, quat_to_matrix

PLATE = "Solid {{ translation {t} {rot} name \"{name}\" physics Physics {{ }} boundingObject Box {{ size {size} }} }}"

WORLD = f"""
WorldInfo {{ title "Motor 2" }}
Solid {{ name "arena floor" boundingObject Plane {{ size 1 1 }} }}
Robot {{
  children [
    Solid {{
      translation 0 0 0.06
      children [
        {PLATE.format(t="0.014 0 0.065", rot="", name="box", size="0.005 0.02 0.03")}
        {PLATE.format(t="-0.014 0 0.065", rot="", name="box(1)", size="0.005 0.02 0.03")}
        Solid {{
          translation 0 0 0.07
          rotation 0.5773502691896258 -0.5773502691896258 0.5773502691896258 -2.094395
          boundingObject Cylinder {{ height 0.03 radius 0.008 }}
          physics Physics {{ }}
        }}
        DEF H2 Hinge2Joint {{
          jointParameters HingeJointParameters {{ axis -1 0 0 anchor 0 0 0.07 }}
          jointParameters2 JointParameters {{ axis 0 -1 0 }}
          device [ RotationalMotor {{ name "motor 1" maxVelocity 1 }} ]
          device2 [ RotationalMotor {{ name "motor 2" maxVelocity 1 }} ]
          endPoint DEF TIP Solid {{
            translation 0 0 0.07
            rotation 0.5773509358554485 0.5773489358556708 -0.5773509358554485 2.0944
            children [
              {PLATE.format(t="-0.006 0 0.015", rot="rotation 0 1 0 -1.570795", name="box", size="0.005 0.02 0.03")}
              {PLATE.format(t="-0.006 0 -0.015", rot="rotation 0 1 0 -1.570795", name="box(1)",
                            size="0.005 0.02 0.03")}
              {PLATE.format(t="-0.026 0 0", rot="rotation 0 0 1 3.14159", name="box(2)", size="0.014 0.05 0.05")}
            ]
            name "solid(1)"
            boundingObject Cylinder {{ height 0.03 radius 0.008 }}
            physics Physics {{ }}
          }}
        }}
      ]
      boundingObject Cylinder {{ height 0.1 radius 0.02 }}
      physics Physics {{ }}
    }}
  ]
  controller "motor2"
}}
"""

# The sample's C controller, in Python.
MOTOR2 = """
import math
from controller import Robot

robot = Robot()
time_step = int(robot.getBasicTimeStep())
first = robot.getDevice("motor 1")
second = robot.getDevice("motor 2")
count = 0
while robot.step(time_step) != -1:
    count += 1
    if count == 50:
        first.setPosition(1.0)
    elif count == 100:
        first.setPosition(-1.0)
    elif count == 200:
        first.setPosition(0.0)
    elif count == 300:
        second.setPosition(1.0)
    elif count == 400:
        second.setPosition(-1.0)
    elif count > 500:
        first.setPosition(0.5 * math.cos(0.01 * count))
        second.setPosition(0.5 * math.sin(0.003 * count))
"""


def test_motor2_sample_two_motors_control_the_hinge2_joint_in_position(project, load) -> None:
    sim = load(project(WORLD, controllers={"motor2": MOTOR2}))
    joint = sim.node("H2")
    axis1, axis2 = sim.bindings.joint(joint, 1), sim.bindings.joint(joint, 2)
    tip = sim.bindings.solid(sim.node("TIP")).body_id
    steps, first, second, rotations = [], [], [], []

    def record(s) -> None:  # noqa: ANN001
        s.supervision.refresh()
        steps.append(round(s.time_s * 1000.0 / 32.0))
        first.append(float(s.data.qpos[axis1.qpos_adr]))
        second.append(float(s.data.qpos[axis2.qpos_adr]))
        rotations.append(s.data.xmat[tip].reshape(3, 3).copy())

    sim.run(800 * 0.032, on_step=record)
    n, q1, q2 = np.array(steps), np.array(first), np.array(second)

    def at(count: int) -> tuple[float, float]:
        k = int(np.flatnonzero(n == count)[0])
        return q1[k], q2[k]

    # Nothing moves before the first command (the motors hold position 0 against gravity).
    assert np.abs(q1[n <= 50]).max() < 1e-3 and np.abs(q2[n <= 50]).max() < 1e-3
    # Each command is reached before the next one, at most at the motors' 1 rad/s ...
    for count, expected in [(100, (1.0, 0.0)), (200, (-1.0, 0.0)), (300, (0.0, 0.0)), (400, (0.0, 1.0)),
                            (500, (0.0, -1.0))]:
        np.testing.assert_allclose(at(count), expected, atol=5e-3)
    speeds = np.abs(np.diff(np.stack([q1, q2]), axis=1)) / 0.032
    assert speeds.max() < 1.0 + 0.02
    # ... with motor 1 only moving axis 1 and motor 2 only axis 2.
    assert np.abs(q2[n < 300]).max() < 5e-3 and np.abs(q1[(n > 300) & (n <= 500)]).max() < 5e-3
    # After 500 both follow their sinusoids (a P controller: a small lag behind the slow targets).
    late = n > 560
    np.testing.assert_allclose(q1[late], 0.5 * np.cos(0.01 * (n[late] - 1)), atol=0.03)
    np.testing.assert_allclose(q2[late], 0.5 * np.sin(0.003 * (n[late] - 1)), atol=0.03)
    # The tip's orientation is Webots' Hinge2Joint pose: turned about -x by position, then about -y turned with it.
    initial = quat_to_matrix(quat_from_axis_angle((0.5773509358554485, 0.5773489358556708, -0.5773509358554485,
                                                   2.0944)))
    for k in np.flatnonzero(n % 97 == 0):
        turn = (quat_to_matrix(quat_from_axis_angle((-1.0, 0.0, 0.0, q1[k])))
                @ quat_to_matrix(quat_from_axis_angle((0.0, -1.0, 0.0, q2[k]))))
        np.testing.assert_allclose(rotations[k], turn @ initial, atol=1e-3)
    assert math.isclose(float(np.linalg.det(rotations[-1])), 1.0, rel_tol=1e-9)
