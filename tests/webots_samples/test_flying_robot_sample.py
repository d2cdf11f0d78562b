"""Webots' "flying robot" physics-plugin sample (projects/samples/howto/physics), as a local world.

The world is wbsim's own, built like the sample's ``physics.wbt``: ``WorldInfo { physics "flying_mybot"
basicTimeStep 64 }``, the same four 0.2 m high boxes, and the robot "Flying MyBot" (controller "physics",
rotation 0 0 1 1) with the sample's Physics (0.5 kg and its inertiaMatrix), its two "wheels" DEF LEFT_WING
and DEF RIGHT_WING (0.05 kg each; "left wheel motor"/"right wheel motor" with their PositionSensors), its
two rotors (motors "lower_rotor" and "upper_rotor", the sample's ROTOR_PHYSICS: 0.05 kg each), the
DistanceSensors ds0/ds1 (the sample's translations, rotations and lookupTables), the LED (``gradual TRUE``,
``color []``, a Shape to colour), an Emitter (channel 0) and the Receivers "data_receiver" (channel 1) and
"color_receiver" (channel 2). Other Shapes are left out.

The plugin and the controller are wbsim's Python ports made for its own demo
(examples/plugins/physics/flying_robot and examples/controllers/flying_robot), copied into the project under
the sample's names (plugins/physics/flying_mybot/flying_mybot.py, controllers/physics/physics.py). They use
the sample's DEF and device names (ROBOT, FLOOR, LEFT_WING, RIGHT_WING, ds0, ds1, lower_rotor, upper_rotor,
emitter, data_receiver, color_receiver, led), so the world needs no renaming; the wheel motors are unused.

The sample's arena is a RectangleArena, a procedural PROTO wbsim cannot load yet: here it is a plain floor
Solid (a Plane boundingObject) and four walls. As in the sample, no Solid is ``DEF FLOOR``: the plugin's
``dWebotsGetGeomFromDEF("FLOOR")`` is NULL (None), its own floor contacts (no bounce, mu 0.4 / mu2 0.8)
are never made, and the robot stands on the floor through the default contacts (Webots' default
ContactProperties: Coulomb friction 1).

What the plugin (flying_mybot.c) does, which the tests check against the simulated motion: it pushes the
two wings up with 6.867 N (the weight of the 0.7 kg robot), with 0.3 N more or less for ONE 64 ms step
to start or stop climbing or sinking (a 27.4 mm/s change of vertical speed). On the ground it waits 10
steps, draws how many obstacles to pass, flips its turning direction (left to right the first time), tells
the controller, takes off and stops at 1 cm. It turns with 0.01 N sideways on each wing (in opposite
directions) until the distance sensor on the turning side sees something, cancels that turning speed,
climbs until that sensor is above the obstacle, turns ten times slower until its ray (0.4 m along the
robot's x-axis from its centre) has met the obstacle and left it (two steps later), cancels the turning
speed with C's integer division by 10 (up to 9 tenth-steps remain), and sinks back to 1 cm.

The controller spins both rotors (``setPosition(-INFINITY)`` and ``setPosition(INFINITY)`` at the default
10 rad/s). As in Webots' WbMotor (with an infinite target the velocity's sign counts, not the infinity's),
both turn the same way, and their reaction turns the robot on the floor until friction stops it, before it
takes off: its first obstacle is then the green box, in front of its right sensor.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np
import pytest

from wbsim.sim.simulation import load_world

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

DT = 0.064  # s, basicTimeStep
MASS = 0.7  # kg: 0.5 (body) + 2 x 0.05 (wings) + 2 x 0.05 (rotors)
KICK = 0.3 / MASS * DT  # m/s: the change of vertical speed of one 0.3 N impulse (27.4 mm/s)
WING_ARM = 0.045  # m: the wings' distance from the robot's vertical axis
BOX_TOP = 0.2  # m: the boxes' height
RAY_LENGTH = 0.4  # m: the plugin's ray
SENSOR_RANGE = 0.35  # m: the last input of ds0's and ds1's lookup table
SECONDS = 40.0  # three obstacles

# The sample's boxes: name, centre (x, y), rotation about z (rad), size (x, y, z).
BOXES = [
    ("green box", (0.25, 0.05), 0.0, (0.1, 0.23, 0.2)),
    ("blue box", (-0.27, -0.2), 0.31, (0.1, 0.1, 0.2)),
    ("yellow box", (-0.15, 0.2), 0.4, (0.3, 0.05, 0.2)),
    ("red box", (0.1, -0.42), 0.0, (0.08, 0.15, 0.2)),
]

# The RectangleArena's floor and walls; the floor has no DEF (none in the sample either).
ARENA = """
WorldInfo {
  info [ "Example of use of a custom ODE plugin" ]
  title "Physics"
  physics "flying_mybot"
  basicTimeStep 64
}
Solid { name "floor" boundingObject Plane { size 1 1 } }
Solid { translation 0.505 0 0.05 name "east wall" boundingObject DEF WALL_X Box { size 0.01 1.02 0.1 } }
Solid { translation -0.505 0 0.05 name "west wall" boundingObject USE WALL_X }
Solid { translation 0 0.505 0.05 name "north wall" boundingObject DEF WALL_Y Box { size 1.02 0.01 0.1 } }
Solid { translation 0 -0.505 0.05 name "south wall" boundingObject USE WALL_Y }
"""

WING = """
HingeJoint {{
  jointParameters HingeJointParameters {{ axis 0 1 0 anchor 0 0 0.025 }}
  device [
    RotationalMotor {{ name "{side} wheel motor" }}
    PositionSensor {{ name "{side} wheel sensor" }}
  ]
  endPoint DEF {DEF} Solid {{
    translation 0 {y} 0.025
    name "{side} wheel"
    boundingObject Pose {{ children [ Cylinder {{ height 0.01 radius 0.025 }} ] }}
    physics Physics {{ density -1 mass 0.05 }}
  }}
}}
"""

ROTOR = """
HingeJoint {{
  jointParameters HingeJointParameters {{ axis 0 0 1 anchor 0 0 {z} }}
  device [ RotationalMotor {{ name "{motor}" }} ]
  endPoint Solid {{
    translation 0 0 {z}
    name "{name}"
    boundingObject Box {{ size 0.01 0.1 0.002 }}
    physics Physics {{
      density -1 mass 0.05 centerOfMass [ 0 0 0 ] inertiaMatrix [ 0.0004 4e-05 0.0004, 0 0 0 ]
    }}
  }}
}}
"""

SENSORS = """
DistanceSensor {
  translation 0.042 0.02 0.063
  rotation 0.940734994155684 0.2398099985101804 0.2398099985101804 1.631852
  name "ds0"
  lookupTable [ 0 1024 0, 0.05 1024 0, 0.35 0 0 ]
}
DistanceSensor {
  translation 0.042 -0.02 0.063
  rotation 0.9403743985363968 -0.2405161019321887 -0.2405161019321887 1.632235
  name "ds1"
  lookupTable [ 0 1024 0, 0.05 1024 0, 0.35 0 0 ]
}
"""

ROBOT = f"""
DEF ROBOT Robot {{
  rotation 0 0 1 1
  children [
    LED {{
      translation 0.2 0 -0.01
      rotation 0 -1 0 4.712388966
      children [
        Shape {{
          appearance PBRAppearance {{ baseColor 0 0 0 transparency 0.27 roughness 1 metalness 0 }}
          geometry Cylinder {{ height 0.4 radius 0.002 }}
        }}
      ]
      color []
      gradual TRUE
    }}
    {WING.format(side="left", DEF="LEFT_WING", y=0.045)}
    {WING.format(side="right", DEF="RIGHT_WING", y=-0.045)}
    {SENSORS}
    {ROTOR.format(motor="lower_rotor", name="rotor 1", z=0.1)}
    {ROTOR.format(motor="upper_rotor", name="rotor 2", z=0.11)}
    Emitter {{ }}
    Receiver {{ name "data_receiver" channel 1 }}
    Receiver {{ name "color_receiver" channel 2 }}
  ]
  name "Flying MyBot"
  boundingObject Group {{
    children [
      Pose {{ translation 0 0 0.0045 children [ Box {{ size 0.09 0.09 0.01 }} ] }}
      Pose {{ translation 0 0 0.0415 children [ Cylinder {{ height 0.08 radius 0.045 }} ] }}
    ]
  }}
  physics Physics {{
    density -1 mass 0.5 centerOfMass [ 0 0 0 ] inertiaMatrix [ 0.00124 0.00124 0.000529, 0 0 0 ]
  }}
  controller "physics"
}}
"""

WORLD = "#VRML_SIM R2023b utf8\n" + ARENA + "".join(
    f'Solid {{ translation {x} {y} {size[2] / 2} rotation 0 0 1 {yaw} name "{name}" '
    f'boundingObject Box {{ size {size[0]} {size[1]} {size[2]} }} }}\n'
    for name, (x, y), yaw, size in BOXES) + ROBOT

LEFT, RIGHT = 0, 1  # the plugin's turning directions, also its indices of ds0 and ds1
RED, GREEN = 0xFF0000, 0x00FF00
HIT = re.compile(r"Obstacle detected at a distance of ([0-9.e+-]+) after ([0-9.e+-]+) s")
ANNOUNCEMENT = re.compile(r"Avoiding (\d+) obstacles when turning on the (left|right)")
# A change of state changes the lift for that step only: +0.3 N (start climbing) or -0.3 N (stop).
LIFT_CHANGES = {("landing", "taking off"): 1, ("taking off", "searching"): -1, ("searching", "climbing"): 1,
                ("climbing", "passing"): -1, ("passing", "sinking"): -1, ("sinking", "searching"): 1}


@dataclass
class Flight:
    """The state after every basic step (row ``i``: after the step ending at ``t[i]``); ``before_*``: at
    load. Positions and rotations are the robot body's (ODE's body position: its centre of mass)."""

    sim: object
    plugin: dict
    t: np.ndarray
    states: list[str]  # the plugin's state after its step
    pos: np.ndarray  # (n, 3)
    rot: np.ndarray  # (n, 3, 3)
    vz: np.ndarray  # vertical velocity
    wz: np.ndarray  # yaw rate
    ds: np.ndarray  # (n, 2): the values of ds0 and ds1
    sensor_pos: np.ndarray  # (n, 2, 3): where ds0 and ds1 are
    sensor_axis: np.ndarray  # (n, 2, 3): their x-axes (their rays)
    led: list[int]
    out: list[str]  # what was printed during each step
    load_out: str  # what was printed at load
    floor_friction: set[tuple[float, float]]  # (mu, mu2) of every robot-floor contact
    before_pos: np.ndarray
    before_rot: np.ndarray
    before_sensor_pos: np.ndarray
    before_sensor_axis: np.ndarray

    def start_pos(self, i: int) -> np.ndarray:
        """The body's position at the start of step ``i`` (what the plugin reads in that step)."""
        return self.pos[i - 1] if i > 0 else self.before_pos

    def start_rot(self, i: int) -> np.ndarray:
        """The body's rotation at the start of step ``i``."""
        return self.rot[i - 1] if i > 0 else self.before_rot


def _fly(root: Path, seconds: float = SECONDS) -> Flight:
    """Write the project in ``root`` (the world; the examples' plugin and controller under the sample's
    names), load it and run it for ``seconds``."""
    (root / "worlds").mkdir(parents=True)
    (root / "worlds" / "physics.wbt").write_text(WORLD, encoding="utf-8")
    copies = {"plugins/physics/flying_mybot/flying_mybot.py": "plugins/physics/flying_robot/flying_robot.py",
              "controllers/physics/physics.py": "controllers/flying_robot/flying_robot.py"}
    for target, source in copies.items():
        (root / target).parent.mkdir(parents=True)
        (root / target).write_text((EXAMPLES / source).read_text(encoding="utf-8"), encoding="utf-8")
    out = io.StringIO()  # the plugin and the controller (a greenlet) print to sys.stdout
    with warnings.catch_warnings(), contextlib.redirect_stdout(out):
        warnings.simplefilter("error")  # the world loads without warnings
        sim = load_world(root / "worlds" / "physics.wbt")
    load_out = out.getvalue()
    out.seek(0)
    out.truncate()
    plugin = sim.plugin.file.namespace
    body = plugin["robot_body"]
    model, data = sim.model, sim.data
    ds, led = sim.banks["distance_sensor"], sim.banks["led"]
    sites = [binding.site_id for binding in ds.bindings]
    floor = int(np.flatnonzero(model.geom_type == mujoco.mjtGeom.mjGEOM_PLANE)[0])
    robot_geoms = set(np.flatnonzero(model.body_rootid[model.geom_bodyid] == body.root).tolist())
    rows: list[tuple] = []
    friction: set[tuple[float, float]] = set()

    def sensors() -> tuple[np.ndarray, np.ndarray]:
        return data.site_xpos[sites].copy(), data.site_xmat[sites].reshape(-1, 3, 3)[:, :, 0].copy()

    def record(s) -> None:
        s.supervision.refresh()  # the poses and velocities after the step (MuJoCo's are a substep old)
        v, w = body.velocity()
        rows.append((s.time_s, plugin["state"], body.com(), body.rotation(), v[2], w[2], ds.values.copy(),
                     *sensors(), int(led.value[0]), out.getvalue()))
        out.seek(0)
        out.truncate()
        for contact in data.contact[: data.ncon]:
            pair = {int(contact.geom[0]), int(contact.geom[1])}
            if floor in pair and pair & robot_geoms:
                friction.add((float(contact.friction[0]), float(contact.friction[1])))

    sim.supervision.refresh()
    before = (body.com(), body.rotation(), *sensors())
    with contextlib.redirect_stdout(out):
        sim.run(seconds, on_step=record)
    t, states, pos, rot, vz, wz, values, sensor_pos, sensor_axis, leds, printed = zip(*rows)
    return Flight(sim, plugin, np.array(t), list(states), np.array(pos), np.array(rot), np.array(vz),
                  np.array(wz), np.array(values), np.array(sensor_pos), np.array(sensor_axis), list(leds),
                  list(printed), load_out, friction, *before)


@pytest.fixture(scope="module")
def flight(tmp_path_factory):
    result = _fly(tmp_path_factory.mktemp("flying_mybot"))
    yield result
    result.sim.close()


def _box_distance(start: np.ndarray, direction: np.ndarray, box: tuple) -> float | None:
    """Where a ray (unit ``direction``) first meets one of ``BOXES`` (the slab method), None if never."""
    _, (x, y), yaw, size = box
    c, s = math.cos(yaw), math.sin(yaw)
    to_box = np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]])  # world to box frame
    p = to_box @ (start - np.array([x, y, size[2] / 2]))
    d = to_box @ direction
    near, far = -math.inf, math.inf
    for k in range(3):
        half = size[k] / 2
        if abs(d[k]) < 1e-12:
            if abs(p[k]) > half:
                return None
            continue
        t1, t2 = sorted(((-half - p[k]) / d[k], (half - p[k]) / d[k]))
        near, far = max(near, t1), min(far, t2)
    return max(near, 0.0) if near <= far and far >= 0.0 else None


def _ray_hits(start: np.ndarray, direction: np.ndarray, length: float) -> dict[str, float]:
    """The boxes a ray of ``length`` m meets, and where (the walls, 0.5 m away, are out of reach)."""
    direction = direction / np.linalg.norm(direction)
    hits = {box[0]: _box_distance(start, direction, box) for box in BOXES}
    return {name: d for name, d in hits.items() if d is not None and d <= length}


def _sensor_value(start: np.ndarray, axis: np.ndarray) -> float:
    """What ds0/ds1 read along ``axis``: their lookup table (1024 up to 5 cm, 0 from 35 cm) of the nearest
    box (the robot's own parts are not seen)."""
    distance = min(_ray_hits(start, axis, SENSOR_RANGE).values(), default=SENSOR_RANGE)
    return float(np.interp(distance, [0.0, 0.05, SENSOR_RANGE], [1024.0, 1024.0, 0.0]))


def _phases(states: list[str], name: str) -> list[tuple[int, int]]:
    """The [first, last + 1) row ranges in which the plugin was in state ``name``."""
    result: list[list[int]] = []
    for i, state in enumerate(states):
        if state == name and (i == 0 or states[i - 1] != name):
            result.append([i, i + 1])
        elif state == name:
            result[-1][1] = i + 1
    return [(first, end) for first, end in result]


def _robot_mass(flight: Flight) -> float:
    """The mass of every body of the robot in the compiled model."""
    model = flight.sim.model
    return float(model.body_mass[model.body_rootid == flight.plugin["robot_body"].root].sum())


def _yaw_inertia(flight: Flight) -> float:
    """The robot's moment of inertia about the vertical through its centre of mass, from the compiled model
    (body, wings, and rotors: their motors hold their speed relative to the body, so they turn with it)."""
    sim = flight.sim
    model, data = sim.model, sim.data
    sim.supervision.refresh()
    tree = np.flatnonzero(model.body_rootid == flight.plugin["robot_body"].root)
    mass = model.body_mass[tree]
    com = mass @ data.xipos[tree] / mass.sum()
    total = 0.0
    for b in tree.tolist():
        rot = data.ximat[b].reshape(3, 3)
        total += (rot @ np.diag(model.body_inertia[b]) @ rot.T)[2, 2]
        total += model.body_mass[b] * float(np.sum((data.xipos[b, :2] - com[:2]) ** 2))
    return total


def test_flying_mybot_sample_has_no_floor_def_so_floor_contacts_are_the_default_ones(flight):
    plugin, model = flight.plugin, flight.sim.model
    # As with the sample's RectangleArena: dWebotsGetGeomFromDEF("FLOOR") is NULL...
    assert plugin["floor_geom"] is None
    # ... while the robot (a Group boundingObject: a space of two geoms) and its wings are found.
    robot = plugin["robot_geom"]
    assert robot.is_space() and len(robot.children) == 2
    body, wings = plugin["robot_body"], plugin["wing_bodies"]
    assert len(wings) == 2 and wings[0] is not wings[1] and body not in wings
    assert [wing.mass for wing in wings] == pytest.approx([0.05, 0.05])
    # The robot weighs 0.7 kg (0.5 + 2 x 0.05 wings + 2 x 0.05 rotors), what the plugin's 6.867 N holds up.
    assert _robot_mass(flight) == pytest.approx(MASS, abs=1e-5)
    assert plugin["HOVER_FORCE"] == pytest.approx(MASS * -model.opt.gravity[2], rel=1e-6)
    # It stood on the floor with Webots' default contacts (Coulomb friction 1), never with the plugin's
    # (mu 0.4, mu2 0.8: only against the FLOOR geom).
    assert flight.floor_friction == {(1.0, 1.0)}


def test_flying_mybot_sample_announces_its_draw_and_turns_right_first(flight):
    states, out = flight.states, flight.out
    # At load the plugin prints the robot's space and body, then the first collision pass (Webots runs it
    # after webots_physics_init) sees the new ray at ODE's default pose: from the origin up along +z,
    # through the two rotors (separate Solids, not in the robot's space): 2 mm boxes at 0.1 and 0.11 m.
    assert re.search(r'robot <dGeomID Space of Robot "Flying MyBot">, body <dBodyID Robot', flight.load_out)
    assert sorted(float(d) for d, _ in HIT.findall(flight.load_out)) == pytest.approx([0.099, 0.109])
    # When it takes off the plugin draws 1 to 6 obstacles and flips its direction (from left: right); the
    # controller prints the message in its next step. The draw is what the plugin then counts down.
    up = states.index("taking off")
    announced = [(i, int(n), side) for i, text in enumerate(out) for n, side in ANNOUNCEMENT.findall(text)]
    assert [(i, side) for i, _, side in announced] == [(up + 1, "right")]
    draw = announced[0][1]
    passed = sum(1 for _, end in _phases(states, "sinking") if end < len(states))
    assert 1 <= draw <= 6 and draw == flight.plugin["obstacles_left"] + passed
    assert flight.plugin["direction"] == RIGHT
    # The other tests rely on the draw of the default seed: no landing within the run.
    assert draw > passed and "landing" not in states[up:]


def test_flying_mybot_sample_takes_off_with_one_impulse_climbs_steadily_and_stops_at_1_cm(flight):
    states, z, vz = flight.states, flight.pos[:, 2], flight.vz
    start_z = np.array([flight.start_pos(i)[2] for i in range(len(states))])  # what the plugin reads
    up = states.index("taking off")
    # On the ground (6 N of lift: it rests on the floor) it waits for 10 steps that start below 1 mm.
    assert set(states[:up]) == {"landing"}
    assert sum(start_z[:up] < 0.001) == 10 and start_z[up - 1] < 0.001
    assert abs(z[up - 1]) < 0.001 and abs(vz[up - 1]) < 0.01 * KICK
    # 0.3 N more than the weight for one 64 ms step: the vertical speed jumps by 0.3 / 0.7 x 0.064 m/s...
    assert vz[up] - vz[up - 1] == pytest.approx(KICK, rel=0.02)
    # ... then the lift balances the weight: it climbs at that speed...
    stop = states.index("searching")
    assert set(states[up:stop]) == {"taking off"} and stop - up >= 3
    assert np.abs(np.diff(vz[up:stop]) / DT).max() < 0.01  # m/s^2
    assert np.diff(z[up:stop]) == pytest.approx(KICK * DT, rel=0.02)
    # ... until it has passed 1 cm: the opposite impulse stops it there.
    assert start_z[stop] > 0.01 >= start_z[stop - 1]
    assert vz[stop] - vz[stop - 1] == pytest.approx(-KICK, rel=0.02)
    assert abs(vz[stop]) < 0.02 * KICK and 0.01 < z[stop] < 0.01 + KICK * DT


def test_flying_mybot_sample_changes_its_lift_by_one_impulse_per_state_change_and_hovers_between(flight):
    states, vz = flight.states, flight.vz
    transitions = set()
    for i in range(1, len(states)):
        change = (states[i - 1], states[i])
        if change[0] != change[1]:
            transitions.add(change)
            expected = LIFT_CHANGES[change] * KICK
            assert vz[i] - vz[i - 1] == pytest.approx(expected, rel=0.02), (flight.t[i], change)
    assert transitions == set(LIFT_CHANGES)
    # Between changes the lift is the weight: no vertical acceleration (within 0.01 m/s^2). Exactly, it is
    # (6.867 N - M g) / M with the compiled model's mass M.
    mass, gravity = _robot_mass(flight), flight.sim.model.opt.gravity[2]
    steady = np.array([i for i in range(1, len(states)) if states[i] == states[i - 1] != "landing"])
    acceleration = (vz[steady] - vz[steady - 1]) / DT
    assert np.abs(acceleration).max() < 0.01
    assert acceleration == pytest.approx((flight.plugin["HOVER_FORCE"] + mass * gravity) / mass, abs=1e-6)


def test_flying_mybot_sample_hovers_at_1_cm_while_searching(flight):
    states, z, vz = flight.states, flight.pos[:, 2], flight.vz
    searches = _phases(states, "searching")
    assert len(searches) >= 3
    for first, end in searches:
        # A search starts once it has crossed 1 cm, climbing (the first time) or sinking.
        crossed = flight.start_pos(first)[2]
        if states[first - 1] == "taking off":
            assert crossed > 0.01
        else:
            assert crossed <= 0.01 < flight.start_pos(first - 1)[2]
        # It then hovers (one step of climbing or sinking is 1.75 mm): within 5 mm of 1 cm, hardly moving.
        assert np.abs(z[first:end] - 0.01).max() < 0.005, flight.t[first]
        assert np.abs(vz[first:end]).max() < 0.1 * KICK, flight.t[first]


def test_flying_mybot_sample_distance_sensors_measure_the_boxes(flight):
    # Each ds0/ds1 value is the lookup table of the distance to the nearest box along the sensor's x-axis,
    # from the pose at the start of the step after which it sampled (Webots' generic sensors are ODE rays).
    for i in range(len(flight.t)):
        position = flight.sensor_pos[i - 1] if i else flight.before_sensor_pos
        axis = flight.sensor_axis[i - 1] if i else flight.before_sensor_axis
        for k in (LEFT, RIGHT):
            expected = _sensor_value(position[k], axis[k])
            assert flight.ds[i, k] == pytest.approx(expected, abs=1e-6), (flight.t[i], k)
    assert (flight.ds > 0).any(axis=0).all() and (flight.ds == 0).any(axis=0).all()
    # ds0 looks left of the robot's heading and ds1 right (the plugin's LEFT and RIGHT).
    to_robot = flight.before_rot.T
    assert (to_robot @ flight.before_sensor_axis[LEFT])[1] > 0.4
    assert (to_robot @ flight.before_sensor_axis[RIGHT])[1] < -0.4


def test_flying_mybot_sample_climbs_over_what_its_turning_side_sensor_sees(flight):
    states, ds = flight.states, flight.ds
    sensor_z = flight.sensor_pos[:, RIGHT, 2]
    searches, climbs = _phases(states, "searching"), _phases(states, "climbing")
    assert len(climbs) >= 3
    for (search, _), (climb, passing) in zip(searches, climbs):
        # The plugin reads the values the controller sent at the start of the step, sampled after the
        # previous one. Turning right, it searches until ds1 sees something (ds0 does not count).
        assert ds[climb - 1, RIGHT] > 0 and (ds[search : climb - 1, RIGHT] == 0).all(), flight.t[climb]
        if passing == len(states):
            continue
        # It climbs until ds1, 6.3 cm above the robot, is above the 0.2 m box: the ray read in the first
        # "passing" step was cast from the pose after step passing - 2.
        assert ds[passing - 1, RIGHT] == 0 and ds[passing - 2, RIGHT] > 0
        assert sensor_z[passing - 3] < BOX_TOP <= sensor_z[passing - 2], flight.t[passing]
    # The first obstacle is the green box.
    first = climbs[0][0]
    seen = _ray_hits(flight.sensor_pos[first - 2, RIGHT], flight.sensor_axis[first - 2, RIGHT], SENSOR_RANGE)
    assert min(seen, key=seen.get) == "green box"


def test_flying_mybot_sample_ray_meets_the_boxes_and_the_led_shows_it(flight):
    states, out, led = flight.states, flight.out, flight.led
    hit_rows = set()
    for i in range(len(states)):
        hits = [(float(d), float(when)) for d, when in HIT.findall(out[i])]
        # The plugin's ray: 0.4 m from the body's position along (R00, -R01, R02) of its rotation matrix
        # (the sample's formula: its x-axis), placed at the start of the step, whose time is printed.
        rot = flight.start_rot(i)
        expected = _ray_hits(flight.start_pos(i), np.array([rot[0, 0], -rot[0, 1], rot[0, 2]]), RAY_LENGTH)
        distances = sorted(d for d, _ in hits)
        assert distances == pytest.approx(sorted(expected.values()), rel=1e-5, abs=1e-6), flight.t[i]
        assert all(when == pytest.approx(flight.t[i] - DT) for _, when in hits)
        if hits:
            hit_rows.add(i)
    # The controller sets the LED from the last message of the previous step's collision pass: red if the
    # ray met a box, green otherwise (it meets the robot itself every step). So it is red only after a step
    # in which the ray met a box, and green after any other.
    assert RED in led and GREEN in led
    for i in range(2, len(states)):
        assert led[i] in ((RED, GREEN) if i - 1 in hit_rows else (GREEN,)), flight.t[i]
    # It passes until its ray has met the obstacle and left it: it sinks three steps after the last step in
    # which the ray met something (the plugin keeps a hit for two more steps).
    passes = [(first, end) for first, end in _phases(states, "passing") if end < len(states)]
    assert len(passes) >= 2
    for first, end in passes:
        met = max(i for i in hit_rows if i < end)
        assert met >= first - 1 and end == met + 3, flight.t[end]


def test_flying_mybot_sample_turns_in_place_and_cancels_its_turning_speed(flight):
    states, wz = flight.states, flight.wz
    # Each wing is pushed sideways with 0.01 N (searching) or 0.001 N (passing), in opposite directions: a
    # couple of 2 x F x 0.045 m for one step changes the yaw rate by that impulse over the moment of inertia.
    per_step = 2 * 0.001 * WING_ARM * DT / _yaw_inertia(flight)
    turning = {"searching": -10 * per_step, "passing": -per_step}  # turning right: clockwise
    for i in range(1, len(states)):
        if states[i] == "landing":
            continue  # on the floor: the rotors' reaction turns it until friction stops it
        if states[i] == states[i - 1]:
            expected = turning.get(states[i], 0.0)
        elif states[i] in ("climbing", "sinking"):
            continue  # the step that cancels the turning speed (below)
        else:
            expected = 0.0  # the first step of taking off, searching or passing pushes no wing sideways
        if expected:
            assert wz[i] - wz[i - 1] == pytest.approx(expected, rel=0.02), flight.t[i]
        else:
            assert abs(wz[i] - wz[i - 1]) < 0.02 * per_step, flight.t[i]
    # When it sees an obstacle it pushes back with all the search's steps...
    for (search, _), (climb, _) in zip(_phases(states, "searching"), _phases(states, "climbing")):
        assert wz[climb] == pytest.approx(wz[search], abs=0.02 * per_step), flight.t[climb]
    # ... and after passing one, with C's integer division of the N tenth-steps by 10: N % 10 of them remain.
    for first, end in _phases(states, "passing"):
        if end < len(states):
            remaining = (end - first - 1) % 10
            expected = wz[first] - remaining * per_step
            assert wz[end] == pytest.approx(expected, abs=0.02 * per_step), flight.t[end]
    # The forces are couples and the lift is vertical: it turns in place and stays level.
    assert np.hypot(flight.pos[:, 0], flight.pos[:, 1]).max() < 0.01
    assert flight.rot[:, 2, 2].min() > 0.9999


def test_flying_mybot_sample_is_deterministic(flight, tmp_path):
    again = _fly(tmp_path, seconds=8.0)
    try:
        n = len(again.t)
        assert again.states == flight.states[:n] and again.out == flight.out[:n]
        assert np.array_equal(again.pos, flight.pos[:n]) and np.array_equal(again.ds, flight.ds[:n])
    finally:
        again.sim.close()
