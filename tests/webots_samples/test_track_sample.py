"""Webots' Track sample (projects/samples/devices/worlds/track.wbt) as a local world.

The sample's documentation: the Track node "is used to model two caterpillar tracks, and a conveyor belt".
A 40 kg tracked robot (two Tracks whose boundingObjects are the sample's: a long box, two slanted boxes and
two wheel cylinders each) runs its ``track`` controller: straight ahead at 0.1 m/s for 1400 steps of 8 ms,
then turns left (left belt back, right belt forward) for 1000 steps, then turns right for good. On its way
lies the sample's low green slab, which it climbs. A conveyor robot (a static Track on a pedestal) runs the
``track_conveyor_belt`` controller, which moves its belt's target position by 0.5 mm every step
(0.0625 m/s): three small boxes on the belt travel to its end and stop there in a row against the pedestal's
edge. Both controllers are ported to Python below; the arena is a floor and four walls (the sample's
RectangleArena PROTO), and the shapes, textures and animated belt geometries are left out (no effect on the
physics).

The sample's ContactProperties give the tracks a Coulomb friction of 500, kept here (it needs wbsim's
elliptic friction cones: with MuJoCo's pyramidal ones such a contact lost its normal stiffness).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

_WHEELS = [(-0.15, 0.0075, 0.046), (0.144, 0.0075, 0.046), (0.0925, -0.044, 0.02), (0.045675, -0.044, 0.02),
           (-0.001225, -0.044, 0.02), (-0.048125, -0.044, 0.02), (-0.095, -0.044, 0.02)]
_TRACK_BOUNDS = """Group { children [
  Pose { translation 0 0 -0.00045 rotation 1 0 0 1.570796 children [ Box { size 0.195 0.124 0.015 } ] }
  Pose { translation 0.118717 0 -0.03459 rotation 0.9561247250869316 -0.20715394043734683 0.20715394043734683 1.615648
    children [ Box { size 0.065 0.04 0.015 } ] }
  Pose { translation -0.1214015 0 -0.0354165 rotation 0.959691189146035 0.19873703916918628 -0.19873703916918628 1.611928
    children [ Box { size 0.065 0.04 0.015 } ] }
  Pose { translation -0.151 0 0.0085 rotation 1 0 0 1.5708 children [ Cylinder { height 0.015 radius 0.05 } ] }
  Pose { translation 0.144 0 0.0085 rotation 1 0 0 1.5708 children [ Cylinder { height 0.015 radius 0.05 } ] }
] }"""


def _track(side: str, y: float) -> str:
    wheels = " ".join(f"TrackWheel {{ position {x} {z} radius {r} }}" for x, z, r in _WHEELS)
    return f"""Track {{
      translation 0 {y} 0
      children [ {wheels} ]
      name "{side} track"
      contactMaterial "track material"
      boundingObject {_TRACK_BOUNDS}
      physics Physics {{ }}
      device [ LinearMotor {{ name "{side} motor" }} ]
      animatedGeometry Group {{ children [ Shape {{ geometry Box {{ size 0.022 0.015 0.0025 }} }} ] }}
      geometriesCount 40
    }}"""


def _box(name: str, y: float) -> str:
    return (f'DEF {name.upper().replace(" ", "_")} Solid {{ translation -0.6 {y} 0.145 rotation 0 0 1 -1.570795 '
            f'name "{name}" boundingObject Box {{ size 0.02 0.02 0.02 }} physics Physics {{ }} }}')


_WALLS = "\n".join(f'Solid {{ translation {x} {y} 0.05 name "wall {i}" boundingObject Box {{ size {sx} {sy} 0.1 }} }}'
                   for i, (x, y, sx, sy) in enumerate([(1.01, 0, 0.02, 2.04), (-1.01, 0, 0.02, 2.04),
                                                       (0, 1.01, 2.04, 0.02), (0, -1.01, 2.04, 0.02)]))

WORLD = f"""
WorldInfo {{
  title "Track"
  basicTimeStep 8
  contactProperties [ ContactProperties {{ material1 "track material" coulombFriction [ 500 ] softCFM 0.0001 }} ]
}}
Solid {{ name "floor" boundingObject Plane {{ size 2 2 }} }}
{_WALLS}
DEF TRACKED_ROBOT Robot {{
  translation 0.547744 -0.672268 0.07
  rotation 0 0 -1 -2.094395
  children [ {_track("left", 0.07)} {_track("right", -0.07)} ]
  name "tracked robot"
  boundingObject Box {{ size 0.3 0.13 0.08 }}
  physics Physics {{ density -1 mass 40 }}
  controller "track"
}}
DEF CONVEYOR_BELT Robot {{
  translation -0.6 0 0.06
  rotation 0 0 1 -1.570795
  children [
    Track {{ translation 0 0 0.064 boundingObject Box {{ size 0.54 0.04 0.004 }}
      physics Physics {{ density -1 mass 10 }} device [ LinearMotor {{ }} ] textureAnimation 1.85 0 }}
  ]
  name "conveyor robot"
  boundingObject Group {{ children [ Box {{ size 0.66 0.1 0.12 }} ] }}
  controller "track_conveyor_belt"
}}
{_box("box 1", -0.16)}
{_box("box 2", -0.06)}
{_box("box 3", 0.04)}
Solid {{
  translation 0.282729 -0.23299 0.025
  rotation 0.08186798416599658 0.0730449858724437 -0.993962807758666 0.78828
  name "green obstacle"
  boundingObject Box {{ size 0.2 0.6 0.05 }}
}}
"""

TRACK = """
from controller import Robot

robot = Robot()
left = robot.getDevice("left motor")
right = robot.getDevice("right motor")
left.setPosition(float("inf"))
right.setPosition(float("inf"))
time_step = int(robot.getBasicTimeStep())


def run(left_speed, right_speed, steps):
    left.setVelocity(left_speed)
    right.setVelocity(right_speed)
    while robot.step(time_step) != -1 and steps != 0:
        steps -= 1


run(0.1, 0.1, 1400)     # straight ahead
run(-0.1, 0.1, 1000)    # turn left
run(0.1, -0.1, -1)      # turn right, for good
"""

CONVEYOR = """
from controller import Robot

robot = Robot()
time_step = int(robot.getBasicTimeStep())
belt = robot.getDevice("linear motor")
target = 0.0
while robot.step(time_step) != -1:
    target += 0.0005
    belt.setPosition(target)
"""


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """Poses recorded while the sample runs 3400 steps (27.2 s): robot position and unwrapped heading, boxes."""
    import textwrap
    import warnings

    from wbsim.sim.simulation import load_world

    root = tmp_path_factory.mktemp("track")
    (root / "worlds").mkdir()
    path = root / "worlds" / "track.wbt"
    path.write_text("#VRML_SIM R2023b utf8\n" + WORLD, encoding="utf-8")
    for name, source in (("track", TRACK), ("track_conveyor_belt", CONVEYOR)):
        (root / "controllers" / name).mkdir(parents=True)
        (root / "controllers" / name / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = load_world(path)
    try:
        robot = sim.bindings.solid(sim.node("TRACKED_ROBOT")).body_id
        boxes = [sim.bindings.solid(sim.node(f"BOX_{i}")).body_id for i in (1, 2, 3)]
        positions, headings, box_positions, belt = [], [], [], []
        turned, previous = 0.0, None
        for _ in range(3401):
            x_axis = sim.data.xmat[robot].reshape(3, 3)[:, 0]
            yaw = math.atan2(x_axis[1], x_axis[0])
            if previous is not None:
                turned += (yaw - previous + math.pi) % (2 * math.pi) - math.pi
            previous = yaw
            positions.append(sim.data.xpos[robot].copy())
            headings.append(turned)
            box_positions.append(sim.data.xpos[boxes].copy())
            belt.append(sim.banks["track"].belt_velocity.copy())
            sim.step()
    finally:
        sim.close()
    return np.array(positions), np.array(headings), np.array(box_positions), np.array(belt)


HEADING = 2.094395  # the robot's initial heading (rad): +x of its Tracks


def test_robot_drives_straight_at_the_belt_speed(history):
    positions, headings, _, belt = history
    assert belt[100, :2].tolist() == [0.1, 0.1]
    velocity = (positions[200] - positions[100]) / 0.8  # on flat ground, before the slab
    assert velocity[:2] == pytest.approx(0.1 * np.array([math.cos(HEADING), math.sin(HEADING)]), abs=1e-3)
    assert abs(headings[200]) < 1e-3
    # On its straight run it climbs onto the slab (its tracks lift it by 3 to 4 cm) and drives on. How it comes
    # down from the slab is sensitive to rounding (it slides off sideways or ahead), so only this is asserted.
    advance = (positions[1400] - positions[0])[:2] @ np.array([math.cos(HEADING), math.sin(HEADING)])
    assert advance > 0.5 and positions[:1400, 2].max() > 0.09


def test_robot_turns_left_then_right_on_its_tracks(history):
    positions, headings, _, belt = history
    assert belt[1500, :2].tolist() == [-0.1, 0.1] and belt[2500, :2].tolist() == [0.1, -0.1]
    assert headings[2400] - headings[1400] > 2.0  # counterclockwise, over 8 s
    assert headings[3400] - headings[2400] < -2.0  # then clockwise
    # Turning on the spot: the robot's centre stays within a few centimetres.
    assert np.linalg.norm(positions[3400][:2] - positions[1400][:2]) < 0.1


def test_conveyor_carries_the_boxes_to_its_end(history):
    _, _, boxes, belt = history
    assert belt[300, 2] == pytest.approx(0.0625, abs=1e-9)  # 0.5 mm per 8 ms step
    # Box 3 rides the belt along the conveyor's +x axis (the world's -y) at the belt speed.
    assert (boxes[300, 2] - boxes[100, 2]) / 1.6 == pytest.approx([0.0, -0.0625, 0.0], abs=1e-3)
    # At the end the three boxes rest in a row against each other at the end of the belt, on the pedestal.
    final_y = boxes[-1, :, 1]
    assert np.all((final_y > -0.33) & (final_y < -0.27))
    assert np.diff(final_y) == pytest.approx([0.02, 0.02], abs=2e-3)
    assert boxes[-1, :, 0] == pytest.approx([-0.6] * 3, abs=1e-3)
