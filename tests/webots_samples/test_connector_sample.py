"""Webots' Connector sample (projects/samples/devices: connector), as a local world.

The world and controller here are wbsim's own, built like the sample: three small two-wheeled robots in
a 1 m arena, each with an arm on a hinge over its body whose tip carries a magnetic Connector
(``autoLock``, wide axis and rotation tolerances). The light robot (a 0.05 kg body) drives to a heavy
one (0.5 kg), both lock when their connectors meet, both arms swing over, which carries the light
robot over the heavy one, they unlock, and the light robot drives on until the connector no longer
sees its partner; after every second hop it turns back. So it hops over heavy robot 2, then heavy
robot 3, then back over 3 and back over 2, landing upright each time, while the heavy robots stay put.

The controller waits for its arm to be within 0.02 rad of its target on either side. Webots' own
controller waits for ``|position - 1.56| < 0.01`` with a target of 1.57, a window that ends exactly at
the target: it closes once the arm settles at or just past the target under its load, which a motor
holding the arm in wbsim does (by about 4e-5 rad), so that check is not used here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import pytest

ARENA = """
Solid { name "floor" boundingObject Plane { size 1 1 } }
Solid { translation 0.505 0 0.05 name "east wall" boundingObject DEF WALL_X Box { size 0.01 1.02 0.1 } }
Solid { translation -0.505 0 0.05 name "west wall" boundingObject USE WALL_X }
Solid { translation 0 0.505 0.05 name "north wall" boundingObject DEF WALL_Y Box { size 1.02 0.01 0.1 } }
Solid { translation 0 -0.505 0.05 name "south wall" boundingObject USE WALL_Y }
"""

WHEEL = """
HingeJoint {{
  jointParameters HingeJointParameters {{ axis 0 1 0 anchor 0 {y} 0.025 }}
  device [ RotationalMotor {{ name "{side} wheel motor" }} ]
  endPoint Solid {{
    translation 0 {y} 0.025 rotation 1 0 0 1.5707963267948966 name "{side} wheel"
    boundingObject Cylinder {{ radius 0.025 height 0.01 }}
    physics Physics {{ density -1 mass 0.05 }}
  }}
}}
"""

# The arm turns about the robot's -y axis at 6 cm: at -1.57 it points forward, at +1.57 backward, and the
# connector on its tip (x-axis along the arm) faces the same way, 5.5 cm from the hinge.
ARM = """
HingeJoint {
  jointParameters HingeJointParameters { axis 0 -1 0 anchor 0 0 0.06 }
  device [
    RotationalMotor { name "arm motor" maxVelocity 1 minPosition -1.57 maxPosition 1.57 }
    PositionSensor { name "arm sensor" }
  ]
  endPoint Solid {
    translation 0 0 0.06
    name "arm"
    children [
      Connector {
        translation 0 0 0.055
        rotation 0 1 0 -1.5707963267948966
        model "magnetic"
        autoLock TRUE
        axisTolerance 3.14
        rotationTolerance 3.14
      }
    ]
    boundingObject Group {
      children [
        Pose { translation 0 0.049 0.025 children [ Box { size 0.015 0.008 0.05 } ] }
        Pose { translation 0 -0.049 0.025 children [ Box { size 0.015 0.008 0.05 } ] }
        Pose { translation 0 0 0.05 children [ Box { size 0.04 0.12 0.01 } ] }
      ]
    }
    physics Physics { density -1 mass 0.05 }
  }
}
"""


def _robot(name: str, x: float, heading: float, body_mass: float, role: str) -> str:
    return f"""
Robot {{
  translation {x} 0 0
  rotation 0 0 1 {heading}
  name "{name}"
  controller "hopper"
  controllerArgs [ "{role}" ]
  children [
    {WHEEL.format(side="left", y=0.045)}
    {WHEEL.format(side="right", y=-0.045)}
    {ARM}
  ]
  boundingObject Pose {{ translation 0 0 0.0415 children [ Cylinder {{ radius 0.045 height 0.08 }} ] }}
  physics Physics {{ density -1 mass {body_mass} }}
}}
"""


# The light robot starts at x = -0.4 facing +x; the heavy ones face it, at x = -0.12 and x = 0.22.
WORLD = ("WorldInfo { basicTimeStep 32 }\n" + ARENA
         + _robot("light", -0.4, 0.0, 0.05, "mover")
         + _robot("heavy 2", -0.12, math.pi, 0.5, "anchor")
         + _robot("heavy 3", 0.22, math.pi, 0.5, "anchor"))

HOPPER = """
import sys
from controller import Robot

STEP = 64
SPEED = 2.0  # rad/s on the wheels: 5 cm/s
REACH = 1.57  # the arm angle pointing backward (minus: forward)

robot = Robot()
mover = sys.argv[1] == "mover"
connector = robot.getDevice("connector")
connector.enablePresence(STEP)
arm = robot.getDevice("arm motor")
arm_sensor = robot.getDevice("arm sensor")
arm_sensor.enable(STEP)
wheels = [robot.getDevice(side + " wheel motor") for side in ("left", "right")]
for wheel in wheels:
    wheel.setPosition(float("inf"))
    wheel.setVelocity(0.0)

heading = 1  # the light robot's driving direction: +1 forward, -1 backward
target = -REACH  # every arm starts pointing forward, to the partner
arm.setPosition(target)
state = "raise"
hops = 0


def report(event):
    print(f"{robot.getName()}: {event} at t={robot.getTime():.3f} presence={connector.getPresence()}", flush=True)


while robot.step(STEP) != -1:
    speed = 0.0
    presence = connector.getPresence()
    if state == "raise":  # wait for the arm to point at the next partner
        if abs(arm_sensor.getValue() - target) < 0.02:
            state = "dock"
    elif state == "dock":  # the light robot drives to the partner; both lock when they sense each other
        if presence == 1:
            connector.lock()
            report("lock")
            target = -target
            arm.setPosition(target)
            state = "swing"
        elif mover:
            speed = heading * SPEED
    elif state == "swing":  # both arms swing over: the light robot is carried across
        if abs(arm_sensor.getValue() - target) < 0.02:
            connector.unlock()
            report("unlock")
            hops += 1
            state = "leave"
    elif state == "leave":  # the light robot drives on until the connectors no longer sense each other
        if presence == 0:
            report("clear")
            if mover:
                if hops % 2 == 0:
                    heading = -heading
                target = -heading * REACH
                arm.setPosition(target)
                state = "raise"
            else:
                state = "dock"  # the arm already points to where the light robot comes back from
        elif mover:
            speed = heading * SPEED
    for wheel in wheels:
        wheel.setVelocity(speed)
"""

LIGHT, HEAVY2, HEAVY3 = "light", "heavy 2", "heavy 3"
NAMES = (LIGHT, HEAVY2, HEAVY3)
SECONDS = 37.0  # five hops (the cycle of four, and the first again) take about 36 s


@dataclass
class Track:
    """What one run recorded after every basic step (rows) for the three robots (columns, ``NAMES`` order)."""

    t: np.ndarray  # (n,)
    pos: np.ndarray  # (n, 3, 3) robot body positions
    up: np.ndarray  # (n, 3) z component of each robot's z-axis (1: upright)
    connector: np.ndarray  # (n, 3, 3) connector origins
    locked: np.ndarray  # (n, 3) isLocked
    peer: np.ndarray  # (n, 3) the robot (column) each connector is linked to, -1 if none
    presence: np.ndarray  # (n, 3) the last sampled presence
    qpos: np.ndarray  # the final MuJoCo positions


def _run(project, load) -> Track:
    sim = load(project(WORLD, controllers={"hopper": HOPPER}))
    bank = sim.banks["connector"]
    runtimes = [sim.robot_runtime(name) for name in NAMES]
    bodies = [r.binding.solid.body_id for r in runtimes]
    rows = np.array([r.devices_by_name["connector"].index for r in runtimes])
    column_of_row = {int(row): column for column, row in enumerate(rows)}
    sites = [bank.bindings[row].site_id for row in rows]
    rec: dict[str, list] = {key: [] for key in ("t", "pos", "up", "connector", "locked", "peer", "presence")}

    def record(s) -> None:
        rec["t"].append(s.time_s)
        rec["pos"].append(s.data.xpos[bodies].copy())
        rec["up"].append(s.data.xmat[bodies, 8].copy())
        rec["connector"].append(s.data.site_xpos[sites].copy())
        rec["locked"].append(bank.locked[rows].copy())
        rec["peer"].append([column_of_row.get(int(p), -1) for p in bank.peer[rows]])
        rec["presence"].append(bank.presence[rows].copy())

    sim.run(SECONDS, on_step=record)
    return Track(**{key: np.array(value) for key, value in rec.items()}, qpos=sim.data.qpos.copy())


def _episodes(track: Track) -> list[tuple[int, int, int]]:
    """The light robot's link episodes: (first linked step, first step unlinked for good, partner column).

    If one side unlocks before the other, the other (still locked, with autoLock) links again at once,
    as in Webots, so links less than 0.5 s apart with the same partner make one episode.
    """
    linked = track.peer[:, 0]
    episodes: list[list[int]] = []
    for i in range(len(linked)):
        starts = linked[i] >= 0 and (i == 0 or linked[i - 1] < 0)
        if not starts:
            continue
        end = i
        while end < len(linked) and linked[end] >= 0:
            end += 1
        if episodes and episodes[-1][2] == linked[i] and track.t[i] - track.t[episodes[-1][1]] < 0.5:
            episodes[-1][1] = end
        else:
            episodes.append([i, end, int(linked[i])])
    return [tuple(e) for e in episodes]  # type: ignore[misc]


def test_connector_sample_light_robot_hops_over_the_heavy_robots_and_back(project, load, capfd):
    track = _run(project, load)
    episodes = _episodes(track)
    # Over heavy 2, over heavy 3, then (turning back after every second hop) over 3 again and over 2, and
    # the cycle starts again.
    assert [partner for _, _, partner in episodes] == [1, 2, 2, 1, 1]
    directions = [+1, +1, -1, -1, +1]
    for (start, end, partner), direction in zip(episodes, directions):
        assert end < len(track.t), "the last hop should be over before the end of the run"
        light_x, heavy_x = track.pos[:, 0, 0], track.pos[:, partner, 0]
        # Docked face to face in front of the partner: the centres are 2 x 5.5 cm apart, plus the gap
        # (at most distanceTolerance, 1 cm) at which the connectors sensed each other.
        assert 0.11 <= direction * (heavy_x[start - 1] - light_x[start - 1]) <= 0.125
        # Carried over it: halfway, both arms point up and the light robot is upside down on top.
        middle = (start + end) // 2
        assert track.pos[middle, 0, 2] > 0.15 and track.up[middle, 0] < -0.99
        # Both arms turned by pi at their 1 rad/s maximum speed.
        assert 3.0 < track.t[end] - track.t[start] < 3.5
        # Landed on the far side, upright, on its wheels, on its line.
        assert direction * (light_x[end] - heavy_x[end]) == pytest.approx(0.11, abs=0.01)
        assert track.up[end, 0] > 0.999
        assert abs(track.pos[end, 0, 2]) < 0.003
        assert abs(track.pos[end, 0, 1]) < 0.005
    # The heavy robots barely move, and never tip.
    for column in (1, 2):
        drift = np.linalg.norm(track.pos[:, column, :2] - track.pos[0, column, :2], axis=1)
        assert drift.max() < 0.005
        assert track.up[:, column].min() > 0.99
    # The controllers' locks and unlocks: one each per hop on the light robot and on its partner.
    out = capfd.readouterr().out
    for name, count in ((LIGHT, 5), (HEAVY2, 3), (HEAVY3, 2)):
        assert len(re.findall(rf"^{name}: lock at", out, re.M)) == count
        assert len(re.findall(rf"^{name}: unlock at", out, re.M)) == count


def test_connector_sample_links_only_where_presence_and_presence_clears_after_leaving(project, load, capfd):
    track = _run(project, load)
    tolerance = 0.01  # distanceTolerance (default)
    out = capfd.readouterr().out
    # The controllers lock only when they read presence 1.
    locks = re.findall(r"^(.+): lock at t=([0-9.]+) presence=(-?\d+)$", out, re.M)
    assert len(locks) == 10 and all(presence == "1" for _, _, presence in locks)
    # A link appears only between connectors that sense each other: the pair's last sampled presence
    # was 1 and their origins are within the distance tolerance.
    links = 0
    for i in range(1, len(track.t)):
        for column in range(3):
            partner = track.peer[i, column]
            if partner < 0 or track.peer[i - 1, column] >= 0:
                continue
            links += 1
            assert track.presence[i - 1, column] == 1 and track.presence[i - 1, partner] == 1
            gap = np.linalg.norm(track.connector[i, column] - track.connector[i, partner])
            assert gap <= tolerance
            assert track.locked[i, column] or track.locked[i, partner]
    assert links >= 2 * 5  # both sides of each hop (plus autoLock relinks when one side unlocks first)
    # Presence is 1 while linked, and otherwise tells whether another connector is within the tolerance
    # (sampled every other basic step: it matches the geometry of this step or of the one before).
    assert np.all(track.presence[track.peer >= 0] == 1)
    for column in range(3):
        others = [c for c in range(3) if c != column]
        nearest = np.linalg.norm(track.connector[:, others] - track.connector[:, [column]], axis=2).min(axis=1)
        near = nearest <= tolerance
        unlinked = np.flatnonzero(track.peer[1:, column] < 0) + 1
        sensed = track.presence[unlinked, column] == 1
        assert np.all((sensed == near[unlinked]) | (sensed == near[unlinked - 1]))
    # After each hop: the light robot unlocks, still senses its partner (the faces are docked), and the
    # presence drops to 0 only once it has driven away, before the next hop starts.
    episodes = _episodes(track)
    travel = 0.05 * 0.064 + 0.001  # driving at 5 cm/s, presence sampled every 64 ms (plus 1 mm of slack)
    for k, (start, end, partner) in enumerate(episodes):
        assert not track.locked[end, 0] and track.peer[end, 0] == -1
        assert track.presence[end, 0] == 1
        next_start = episodes[k + 1][0] if k + 1 < len(episodes) else len(track.t)
        cleared = next(i for i in range(end, next_start) if track.presence[i, 0] == 0)
        assert track.t[cleared] - track.t[end] < 1.0
        gap = np.linalg.norm(track.connector[cleared, 0] - track.connector[cleared, partner])
        assert tolerance < gap < tolerance + travel  # the first sample after the gap exceeds the tolerance
        assert track.presence[cleared, partner] == 0
        assert np.all(track.peer[end:next_start, 0] == -1)
    # The heavy robots never link to each other.
    assert not np.any((track.peer[:, 1] == 2) | (track.peer[:, 2] == 1))


def test_connector_sample_is_deterministic(project, load):
    first, second = _run(project, load), _run(project, load)
    np.testing.assert_array_equal(first.qpos, second.qpos)
    np.testing.assert_array_equal(first.pos, second.pos)
    np.testing.assert_array_equal(first.peer, second.peer)
    np.testing.assert_array_equal(first.presence, second.presence)
