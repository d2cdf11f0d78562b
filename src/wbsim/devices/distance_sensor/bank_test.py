"""DistanceSensor values in worlds: ranges to known shapes, Webots' rule per type, noise, timing, resets."""

from __future__ import annotations

import copy
import math
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from wbsim.devices.distance_sensor.bank import PI_OVER_8
from wbsim.devices.distance_sensor.rays import ray_directions, ray_weights
from wbsim.devices.packed import SLOT

IDENTITY = "lookupTable [ 0 0 0, 10 10 0 ]"  # reads the distance itself, up to 10 m


def _world(sensors: str, scene: str = "", basic: int = 16, robot: str = "", translation: str = "0 0 0.5",
           bounding: str = "Box { size 0.2 0.2 0.2 }") -> str:
    return f"""
WorldInfo {{ basicTimeStep {basic} }}
{scene}
Robot {{
  translation {translation}
  name "r"
  controller "<extern>"
  {robot}
  children [ {sensors} ]
  boundingObject {bounding}
}}
"""


def _read(sim, names: list[str], period: int = 16) -> list[float]:
    robot = sim.robot("r")
    sensors = [robot.getDevice(n) for n in names]
    for s in sensors:
        s.enable(period)
    robot.step(period)
    return [s.getValue() for s in sensors]


SHAPES = """
Solid { translation 1.5 0 0.5 name "box" boundingObject Box { size 0.2 1 1 } }
Solid { translation 0 2 0.5 name "ball" boundingObject Sphere { radius 0.3 } }
Solid { translation -1.2 0 0.5 name "drum" boundingObject Cylinder { radius 0.25 height 2 } }
Solid { translation 0 -1.1 0.5 rotation 1 0 0 1.5707963267948966 name "pill"
        boundingObject Capsule { radius 0.1 height 0.5 } }
Solid { name "floor" boundingObject Plane { size 20 20 } }
"""


@pytest.mark.parametrize("kind", ["generic", "infra-red", "sonar", "laser"])
def test_ranges_to_boxes_spheres_cylinders_capsules_and_planes_are_exact(project, load, kind):
    rays = "" if kind == "laser" else "numberOfRays 1"
    sensors = " ".join(
        f'DistanceSensor {{ rotation 0 0 1 {angle} name "{name}" type "{kind}" {rays} {IDENTITY} }}'
        for name, angle in (("x", 0), ("y", math.pi / 2), ("-x", math.pi), ("-y", -math.pi / 2)))
    sensors += f' DistanceSensor {{ rotation 0 1 0 {math.pi / 2} name "down" type "{kind}" {IDENTITY} }}'
    sim = load(project(_world(sensors, SHAPES)))
    values = _read(sim, ["x", "y", "-x", "-y", "down"])
    # box face at 1.4; sphere surface at 1.7; cylinder side at 0.95; capsule (lying along y) at 1.1 - 0.35; floor 0.5.
    assert values == pytest.approx([1.4, 1.7, 0.95, 0.75, 0.5], abs=1e-9)


def test_a_sensor_inside_its_robot_does_not_see_it_unless_self_collision(project, load):
    sensors = f'DistanceSensor {{ name "g" {IDENTITY} }} DistanceSensor {{ name "ir" type "infra-red" {IDENTITY} }}'
    scene = 'Solid { translation 1.5 0 0.5 name "box" boundingObject Box { size 0.2 1 1 } }'
    sim = load(project(_world(sensors, scene)))
    assert _read(sim, ["g", "ir"]) == pytest.approx([1.4, 1.4])
    # With selfCollision, ODE rays hit the robot's own box from inside (its far face); infra-red rays never see a
    # Shape containing their origin.
    sim = load(project(_world(sensors, scene, robot="selfCollision TRUE")))
    assert _read(sim, ["g", "ir"]) == pytest.approx([0.1, 1.4])


def test_infra_red_rays_see_the_robot_itself_from_outside(project, load):
    arm = 'Solid { translation 0.6 0 0 name "arm" boundingObject Box { size 0.1 0.1 0.1 } }'
    sensors = f'DistanceSensor {{ name "g" {IDENTITY} }} DistanceSensor {{ name "ir" type "infra-red" {IDENTITY} }} {arm}'
    sim = load(project(_world(sensors, 'Solid { translation 3 0 0.5 boundingObject Box { size 0.2 1 1 } }')))
    assert _read(sim, ["g", "ir"]) == pytest.approx([2.9, 0.55])


@pytest.mark.parametrize(("tilt_deg", "seen"), [(0.0, True), (20.0, True), (25.0, False), (60.0, False)])
def test_sonar_rays_are_lost_beyond_pi_over_8_of_incidence(project, load, tilt_deg, seen):
    # A wall 1 m ahead, turned about z by the incidence angle; the generic sensor always sees it.
    tilt = math.radians(tilt_deg)
    scene = f'Solid {{ translation 1 0 0.5 rotation 0 0 1 {tilt} boundingObject Box {{ size 0.01 5 5 }} }}'
    sensors = (f'DistanceSensor {{ name "sonar" type "sonar" lookupTable [ 0 0 0, 3 3 0 ] }} '
               f'DistanceSensor {{ name "g" lookupTable [ 0 0 0, 3 3 0 ] }}')
    sim = load(project(_world(sensors, scene)))
    sonar, generic = _read(sim, ["sonar", "g"])
    assert generic == pytest.approx(1.0 - 0.005 / math.cos(tilt))
    assert sonar == pytest.approx(generic if seen else 3.0)
    assert PI_OVER_8 == pytest.approx(math.pi / 8, abs=1e-9)


def _reference_value(kind: str, distances: list[float], weights: list[float], lut_max: float,
                     factors: list[float], sensitivity: float) -> float:
    """``WbDistanceSensor::computeValue`` before the table, one ray at a time (inf: the ray hit nothing)."""
    if kind == "generic":
        return sum((d if math.isfinite(d) else lut_max) * w for d, w in zip(distances, weights))
    if kind == "infra-red":
        distance, factor = 0.0, 0.0
        for d, w, f in zip(distances, weights, factors):
            distance += (d if math.isfinite(d) else lut_max) * w
            factor += (f if math.isfinite(d) else 1.0) * w
        return distance + (distance / factor - distance) * sensitivity
    if kind == "sonar":
        result = lut_max
        for d in distances:  # the caller marks hits outside the reflection cone as misses
            if math.isfinite(d) and d < result:
                result = d
        return result
    return distances[0] if math.isfinite(distances[0]) else lut_max


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["generic", "infra-red", "sonar"]), st.integers(1, 12), st.floats(0.05, 1.2),
       st.floats(0.3, 3.0), st.floats(0.2, 1.5), st.floats(0.0, 2.0))
@example("sonar", 2, 1.0, 1.0, 1.0, 0.0)  # rays 0.5 rad off the wall's normal: beyond the sonar's pi/8
def test_multi_ray_values_follow_webots_formula(project, load, kind, n, aperture, width, wall, sensitivity):
    # A red wall across the +x half-space, only above z = -1 mm in the sensor frame: the rays that point down miss.
    lut_max = 2.0
    scene = (f'Solid {{ translation {wall} 0 2.499 children [ Shape {{ appearance PBRAppearance {{ baseColor 1 0 0 '
             f'roughness 0.5 }} geometry DEF W Box {{ size 0.01 50 4 }} }} ] boundingObject USE W }}')
    sensors = (f'DistanceSensor {{ name "s" type "{kind}" numberOfRays {n} aperture {aperture} gaussianWidth {width} '
               f'redColorSensitivity {sensitivity} lookupTable [ 0 0 0, {lut_max} {lut_max} 0 ] }}')
    sim = load(project(_world(sensors, scene)))
    value = _read(sim, ["s"])[0]
    rays = ray_directions(n, aperture)
    distances = []
    for x, y, z in rays:
        t = (wall - 0.005) / x  # the wall's near face
        hit = z * t >= -0.001 and t <= lut_max
        if kind == "sonar" and math.acos(min(x, 1.0)) >= PI_OVER_8:
            hit = False  # the wall's normal is -x: a sonar ray at pi/8 or more from it is not reflected back
        distances.append(t if hit else math.inf)
    factor = 0.8 * 1.0 * (1 - 0.5 * 0.5) + 0.2
    expected = _reference_value(kind, distances, list(ray_weights(rays, aperture, width)), lut_max,
                                [factor] * n, sensitivity)
    assert value == pytest.approx(min(expected, lut_max), abs=1e-9)


def test_a_laser_ignores_transparent_bounding_objects_and_a_generic_sensor_does_not(project, load):
    glass = ('Solid { translation 1 0 0.5 name "glass" boundingObject Shape { appearance PBRAppearance '
             '{ transparency 1 } geometry Box { size 0.02 2 2 } } }')
    wall = 'Solid { translation 2 0 0.5 name "wall" boundingObject Box { size 0.02 2 2 } }'
    sensors = f'DistanceSensor {{ name "laser" type "laser" {IDENTITY} }} DistanceSensor {{ name "g" {IDENTITY} }}'
    sim = load(project(_world(sensors, glass + wall)))
    assert _read(sim, ["laser", "g"]) == pytest.approx([1.99, 0.99])


@pytest.mark.parametrize(("appearance", "factor"), [
    ("", 1.0),  # no appearance: Webots' default white
    ("appearance PBRAppearance { baseColor 1 0 0 roughness 0 }", 1.0),
    ("appearance PBRAppearance { baseColor 0 1 0 }", 0.2),
    ("appearance PBRAppearance { baseColor 0.5 0.5 0.5 roughness 1 }", 0.4),
    ("appearance PBRAppearance { baseColor 1 1 1 transparency 0.5 }", 0.6),
    ("appearance Appearance { material Material { } }", 0.84),  # diffuseColor 0.8 0.8 0.8
    ("appearance Appearance { material Material { diffuseColor 0.25 1 1 } }", 0.4),
    ("appearance Appearance { }", 1.0),
])
def test_infra_red_reads_the_red_level_of_the_visual_shape(project, load, appearance, factor):
    # The visual Shape with the same geometry as the boundingObject gives the colour.
    scene = (f'Solid {{ translation 1.1 0 0.5 children [ Shape {{ {appearance} geometry DEF B Box {{ size 0.2 2 2 }} }} ] '
             'boundingObject USE B }')
    sensors = " ".join(f'DistanceSensor {{ name "ir{s}" type "infra-red" redColorSensitivity {s} {IDENTITY} }}'
                       for s in (0, 1, 2))
    sim = load(project(_world(sensors, scene)))
    d = 1.0
    assert _read(sim, ["ir0", "ir1", "ir2"]) == pytest.approx([d, d / factor, d + 2 * (d / factor - d)])


def test_the_bounding_shape_colours_a_geom_without_visual_twin(project, load):
    scene = ('Solid { translation 1.1 0 0.5 children [ Shape { geometry Sphere { } } ] '
             'boundingObject Shape { appearance PBRAppearance { baseColor 0 0 1 } geometry Box { size 0.2 2 2 } } }')
    sim = load(project(_world(f'DistanceSensor {{ name "ir" type "infra-red" {IDENTITY} }}', scene)))
    assert _read(sim, ["ir"]) == pytest.approx([1.0 / 0.2])


def test_lookup_table_noise_statistics_and_seeded_determinism(project, load):
    scene = 'Solid { translation 1.1 0 0.5 boundingObject Box { size 0.2 2 2 } }'
    sensors = 'DistanceSensor { name "s" lookupTable [ 0 0 0.1, 2 1000 0.1 ] }'
    path = project(_world(sensors, scene, basic=8))

    def run(seed: int | None) -> np.ndarray:
        sim = load(path, seed=seed)
        robot = sim.robot("r")
        sensor = robot.getDevice("s")
        sensor.enable(8)
        values = []
        for _ in range(2000):
            robot.step(8)
            values.append(sensor.getValue())
        return np.array(values)

    values = run(3)
    assert values.mean() == pytest.approx(500.0, rel=0.01)
    assert values.std() == pytest.approx(50.0, rel=0.05)  # 10 % of 500
    assert np.array_equal(values, run(3))
    assert not np.array_equal(values, run(4))


@pytest.mark.parametrize("kind", ["generic", "infra-red", "sonar", "laser"])
def test_ranges_with_lookup_table_noise_are_exact_under_each_draw(project, load, kind):
    # Webots' table noise is relative (output * (1 + noise * N(0, 1))): with the simulation's generator replayed
    # (the sensors are its only user, one draw per sensor and sample in row order), every noisy value divided
    # by its factor gives back the range to the box, the sphere, the cylinder, the capsule and the plane, within
    # 1 mm, at every sample (the statistics test above only bounds the mean to 1 %).
    noise, seed, samples = 0.05, 5, 40
    rays = "" if kind == "laser" else "numberOfRays 1"
    table = f"lookupTable [ 0 0 {noise}, 10 10 {noise} ]"
    sensors = " ".join(
        f'DistanceSensor {{ rotation 0 0 1 {angle} name "{name}" type "{kind}" {rays} {table} }}'
        for name, angle in (("x", 0), ("y", math.pi / 2), ("-x", math.pi), ("-y", -math.pi / 2)))
    sensors += f' DistanceSensor {{ rotation 0 1 0 {math.pi / 2} name "down" type "{kind}" {table} }}'
    sim = load(project(_world(sensors, SHAPES)), seed=seed)
    robot = sim.robot("r")
    devices = [robot.getDevice(n) for n in ("x", "y", "-x", "-y", "down")]
    for device in devices:
        device.enable(16)
    values = []
    for _ in range(samples):
        robot.step(16)
        values.append([d.getValue() for d in devices])
    draws = np.random.Generator(np.random.PCG64(seed)).standard_normal((samples, len(devices)))
    ranges = np.array(values) / (1.0 + noise * draws)
    assert np.abs(ranges - [1.4, 1.7, 0.95, 0.75, 0.5]).max() < 1e-3
    assert np.abs(np.array(values) - [1.4, 1.7, 0.95, 0.75, 0.5]).max() > 0.05  # the noise is there


def test_resolution_and_empty_tables(project, load):
    scene = 'Solid { translation 1.1234 0 0.5 boundingObject Box { size 0.2 2 2 } }'
    sensors = ('DistanceSensor { name "res" lookupTable [ 0 0 0, 2 200 0 ] resolution 5 } '
               'DistanceSensor { name "empty" lookupTable [] }')
    sim = load(project(_world(sensors, scene)))
    res, empty = _read(sim, ["res", "empty"])
    assert res == pytest.approx(100.0)  # 1.0234 m -> 102.34 -> (int)(102.34 / 5 + 0.5) * 5
    assert empty == 0.0
    assert sim.banks["distance_sensor"].distance[1] == math.inf


def test_first_value_one_period_after_enable_and_nan_before(project, load):
    scene = 'Solid { translation 1.1 0 0.5 boundingObject Box { size 0.2 2 2 } }'
    sim = load(project(_world(f'DistanceSensor {{ name "s" {IDENTITY} }}', scene)))
    robot = sim.robot("r")
    sensor = robot.getDevice("s")
    sensor.enable(40)  # rounded up to 3 basic steps of 16 ms
    assert math.isnan(sensor.getValue())
    robot.step(16)
    robot.step(16)
    assert math.isnan(sensor.getValue())
    robot.step(16)
    assert sensor.getValue() == pytest.approx(1.0)


def test_generic_rays_use_the_poses_at_the_start_of_the_step_and_infra_red_ones_the_end(project, load):
    # A box falls under two downward sensors: a generic one reads where the box was when the step began (Webots
    # collides its ODE rays before the physics step), an infra-red one where it is after the step.
    scene = ('Solid { translation 0 0 0.2 name "falling" boundingObject Box { size 0.5 0.5 0.02 } '
             'physics Physics { } }')
    down = f"rotation 0 1 0 {math.pi / 2}"
    sensors = (f'DistanceSensor {{ {down} name "g" {IDENTITY} }} '
               f'DistanceSensor {{ {down} name "ir" type "infra-red" {IDENTITY} }}')
    sim = load(project(_world(sensors, scene, translation="0 0 1", bounding="NULL")))
    robot = sim.robot("r")
    g, ir = robot.getDevice("g"), robot.getDevice("ir")
    g.enable(16)
    ir.enable(16)
    body = sim.bindings.solids[0].body_id
    sim.supervision.refresh()
    before = float(sim.data.xpos[body][2])
    for _ in range(20):
        robot.step(16)
        sim.supervision.refresh()
        after = float(sim.data.xpos[body][2])
        assert g.getValue() == pytest.approx(1.0 - (before + 0.01), abs=1e-9)
        assert ir.getValue() == pytest.approx(1.0 - (after + 0.01), abs=1e-9)
        before = after
    assert before < 0.15  # it did fall


def test_reset_and_world_reset(project, load):
    scene = 'Solid { translation 1.1 0 0.5 boundingObject Box { size 0.2 2 2 } }'
    world = _world(f'DistanceSensor {{ name "s" {IDENTITY} }}', scene).replace('controller "<extern>"',
                                                                               'controller "<extern>" supervisor TRUE')
    sim = load(project(world))
    robot = sim.robot("r")
    sensor = robot.getDevice("s")
    sensor.enable(16)
    robot.step(16)
    sim.supervision.set_field_value(sim.banks["distance_sensor"].bindings[0].node, "lookupTable",
                                    ((0, 0, 0), (10, 20, 0)))
    robot.step(16)
    assert sensor.getValue() == pytest.approx(2.0)
    robot.simulationReset()
    robot.step(16)
    # A world reset restores the table; the sensor stays enabled and samples in the reset step.
    assert sensor.getSamplingPeriod() == 16 and sensor.getValue() == pytest.approx(1.0)
    sim.reset()
    bank = sim.banks["distance_sensor"]
    assert math.isnan(bank.values[0]) and bank.period_ms[0] == 0


def test_supervisor_writes_are_repaired_and_applied(project, load, capfd):
    scene = 'Solid { translation 1.1 0 0.5 boundingObject Box { size 0.2 2 2 } }'
    world = _world(f'DistanceSensor {{ name "s" {IDENTITY} }}', scene).replace('controller "<extern>"',
                                                                               'controller "<extern>" supervisor TRUE')
    sim = load(project(world))
    robot = sim.robot("r")
    sensor = robot.getDevice("s")
    node = robot.getFromDevice(sensor)
    node.getField("aperture").setSFFloat(-0.5)
    assert node.getField("aperture").getSFFloat() == 0.5 and sensor.getAperture() == 0.5
    node.getField("numberOfRays").setSFInt32(0)
    assert node.getField("numberOfRays").getSFInt32() == 1
    node.getField("type").setSFString("laser")
    node.getField("numberOfRays").setSFInt32(3)
    assert node.getField("numberOfRays").getSFInt32() == 1 and sensor.getType() == sensor.LASER
    node.getField("type").setSFString("Sonar")
    node.getField("numberOfRays").setSFInt32(5)
    assert sensor.getType() == sensor.SONAR and sim.banks["distance_sensor"].ray_count[0] == 5
    node.getField("gaussianWidth").setSFFloat(0.0)
    node.getField("resolution").setSFFloat(0.0)
    node.getField("redColorSensitivity").setSFFloat(-3.0)
    assert [node.getField(f).getSFFloat() for f in ("gaussianWidth", "resolution", "redColorSensitivity")] == \
        [1.0, -1.0, 3.0]
    err = capfd.readouterr()
    text = err.out + err.err
    for line in ("Invalid 'aperture' changed to 0.5. The value should be non-negative.",
                 "Invalid 'numberOfRays' changed to 1. The value should be 1 or greater.",
                 "'type' \"laser\" must have one single ray.",
                 "Invalid 'gaussianWidth' changed to 1. The value should be positive.",
                 "Invalid 'resolution' changed to -1. The value should be either -1 or positive.",
                 "Invalid 'redColorSensitivity' changed to 3. The value should be non-negative."):
        assert line in text


def test_a_sensor_moved_on_its_robot_by_a_supervisor_sees_from_where_it_is(project, load):
    # The broad phase bounds each body's sensors by a sphere around the body; the sensor's translation
    # written by a supervisor moves its origin 1 m forward, beyond the sphere computed at load (0.5 m rays).
    scene = 'Solid { translation 1.5 0 0.5 name "box" boundingObject Box { size 0.2 1 1 } }'
    world = _world('DistanceSensor { name "s" lookupTable [ 0 0 0, 0.5 0.5 0 ] }', scene).replace(
        'controller "<extern>"', 'controller "<extern>" supervisor TRUE')
    sim = load(project(world))
    robot = sim.robot("r")
    sensor = robot.getDevice("s")
    sensor.enable(16)
    robot.step(16)
    assert sensor.getValue() == 0.5  # the box's face is 1.4 m away: out of range
    robot.getFromDevice(sensor).getField("translation").setSFVec3f([1.0, 0.0, 0.0])
    robot.step(16)
    robot.step(16)
    assert sensor.getValue() == pytest.approx(0.4, abs=1e-9)


_FUZZ_SCENE = """
DEF BOX Solid { translation 0.6 0.2 0.5 name "box" boundingObject Box { size 0.2 0.2 1 } }
Solid { translation -0.4 0.5 0.5 name "ball" boundingObject Sphere { radius 0.15 } }
Solid { translation 0 -0.7 0.5 name "drum" boundingObject Cylinder { radius 0.2 height 1 } }
"""


def _values_under_supervisor_writes(project, load, margin: float, seed: int) -> tuple[np.ndarray, int]:
    """150 steps of 8 sensors while a supervisor moves the robot, a box and the sensors on the robot and
    rewrites their aperture, ray count and range, with resets; the caster's pair-reuse margin set."""
    sensors = " ".join(f'DistanceSensor {{ name "s{k}" rotation 0 0 1 {k * 0.8} numberOfRays 3 aperture 0.5 '
                       'lookupTable [ 0 0 0, 0.8 0.8 0 ] }' for k in range(8))
    sim = load(project(_world(sensors, _FUZZ_SCENE, robot="supervisor TRUE")))
    robot = sim.robot("r")
    sim.banks["distance_sensor"].caster.margin = margin
    devices = [robot.getDevice(f"s{k}") for k in range(8)]
    for device in devices:
        device.enable(16)
    rng = np.random.default_rng(seed)
    me, box = robot.getSelf(), robot.getFromDef("BOX")
    xyz = np.array([0.0, 0.0, 0.5])
    values = []
    for step in range(150):
        r = rng.random()
        node = robot.getFromDevice(devices[int(rng.integers(8))])
        if r < 0.3:  # drives and turns
            xyz[:2] += rng.normal(0.0, 0.01, 2)
            me.getField("translation").setSFVec3f(list(xyz))
            me.getField("rotation").setSFRotation([0, 0, 1, step * 0.05])
        elif r < 0.35:  # teleported
            xyz[:2] = rng.uniform(-0.5, 0.5, 2)
            me.getField("translation").setSFVec3f(list(xyz))
        elif r < 0.5:
            box.getField("translation").setSFVec3f([*rng.uniform(-1.0, 1.0, 2), 0.5])
        elif r < 0.6:
            node.getField("translation").setSFVec3f([*rng.uniform(-0.5, 0.5, 2), 0.0])
        elif r < 0.65:
            node.getField("rotation").setSFRotation([0, 0, 1, float(rng.uniform(-3.0, 3.0))])
        elif r < 0.7:
            node.getField("aperture").setSFFloat(float(rng.uniform(0.1, 2.5)))
        elif r < 0.75:
            node.getField("numberOfRays").setSFInt32(int(rng.integers(1, 6)))
        elif r < 0.8:
            far = float(rng.uniform(0.2, 2.0))
            sim.supervision.set_field_value(node, "lookupTable", ((0, 0, 0), (far, 0.8, 0)))
        elif r < 0.82:
            robot.simulationReset()
            xyz[:] = [0.0, 0.0, 0.5]
        robot.step(16)
        values.append([device.getValue() for device in devices])
    return np.array(values), sim.banks["distance_sensor"].caster.broad_phases


def test_reused_broad_phase_pairs_read_as_a_fresh_broad_phase_under_supervisor_writes(project, load):
    reused, broad_phases = _values_under_supervisor_writes(project, load, 0.1, seed=3)
    # margin 0: a broad phase at every cast
    fresh, fresh_phases = _values_under_supervisor_writes(project, load, 0.0, seed=3)
    np.testing.assert_array_equal(reused, fresh)
    assert (reused < 0.79).sum() > 300  # many hits
    assert broad_phases < 0.8 * fresh_phases  # and the pairs were reused


_EVERY_TYPE = [
    ('generic', 3, "lookupTable [ 0 0 0, 0.8 0.8 0 ]"),
    ('infra-red', 5, "lookupTable [ 0 1000 0, 0.2 600 0, 0.5 200 0, 0.9 0 0 ] redColorSensitivity 0.7"),
    ('sonar', 4, "lookupTable [ 0.9 0 0, 0 1 0, 0.5 3 0 ]"),  # unsorted: Webots' bisection
    ('laser', 1, "lookupTable [ 0 0 0, 0.8 800 0 ] resolution 7"),
    ('generic', 12, "lookupTable [ ]"),
    ('infra-red', 2, "lookupTable [ 0 0 0, 1 1000 0.05 ]"),  # noisy: the numpy lookup, drawing from the seed
    ('generic', 140, "lookupTable [ 0 0 0, 0.8 0.8 0 ]"),
]


def _values_of_every_type(project, load, compiled: bool) -> tuple[np.ndarray, np.ndarray]:
    """80 steps of sensors of every type and kind of table while a supervisor drives the robot and a box."""
    sensors = " ".join(f'DistanceSensor {{ name "s{k}" rotation 0 0 1 {k * 1.1} type "{kind}" numberOfRays {rays} '
                       f'aperture 0.6 {table} }}' for k, (kind, rays, table) in enumerate(_EVERY_TYPE))
    scene = _FUZZ_SCENE + """
Solid { translation 0 0.4 0.5 rotation 1 1 0 0.4 name "red" children [ Shape { appearance PBRAppearance {
  baseColor 0.3 0.1 0.1 } geometry Box { size 0.2 0.1 1 } } ] boundingObject Box { size 0.2 0.1 1 } }
Solid { name "floor" boundingObject Plane { size 3 3 } }
"""
    sim = load(project(_world(sensors, scene, robot="supervisor TRUE", translation="0 0 0.12")))
    bank = sim.banks["distance_sensor"]
    bank.caster.compiled = compiled
    robot = sim.robot("r")
    devices = [robot.getDevice(f"s{k}") for k in range(len(_EVERY_TYPE))]
    for device in devices:
        device.enable(16)
    me, box = robot.getSelf(), robot.getFromDef("BOX")
    rng = np.random.default_rng(5)
    values, distances = [], []
    for step in range(80):
        me.getField("translation").setSFVec3f([*rng.uniform(-0.3, 0.3, 2), 0.12])
        me.getField("rotation").setSFRotation([0.1, 0.2, 1, step * 0.3])
        if step % 7 == 0:
            box.getField("translation").setSFVec3f([*rng.uniform(-0.8, 0.8, 2), 0.5])
        robot.step(16)
        values.append([device.getValue() for device in devices])
        distances.append(bank.distance.copy())
    return np.array(values), np.array(distances)


def test_compiled_sensors_read_as_the_numpy_path_for_every_type_and_table(project, load):
    compiled, compiled_distances = _values_of_every_type(project, load, True)
    reference, reference_distances = _values_of_every_type(project, load, False)
    np.testing.assert_allclose(compiled_distances, reference_distances, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(compiled, reference, rtol=1e-12, atol=1e-12)
    seen = reference_distances[:, :4] < np.array([0.8, 0.9, 0.9, 0.8])  # the rays hit something
    assert seen.all(axis=0).any() and seen.sum() > 100
    assert len({tuple(row) for row in np.round(reference, 6)}) > 60  # the values change as the robot moves


def _writes_between_cast_and_sample(project, load, compiled: bool) -> tuple[list, list, list]:
    """A supervisor moves a box before each step; hooks between the cast (before the physics) and the sample
    (after it) write the lookup table, the resolution, and enable a second sensor. Per step: the values read
    just after the cast, the values after the sample, and whether the cast computed them (pending)."""
    from wbsim.sim.phases import Phase

    scene = 'DEF BOX Solid { translation 1.1 0 0.5 boundingObject Box { size 0.2 2 2 } }'
    sensors = f'DistanceSensor {{ name "s" {IDENTITY} }} DistanceSensor {{ name "t" {IDENTITY} }}'
    sim = load(project(_world(sensors, scene, robot="supervisor TRUE")))
    bank = sim.banks["distance_sensor"]
    bank.caster.compiled = compiled
    robot = sim.robot("r")
    robot.getDevice("s").enable(16)
    box, node = robot.getFromDef("BOX"), bank.bindings[0].node
    before, pending = [], []
    writes = {4: lambda: sim.supervision.set_field_value(node, "lookupTable", ((0, 0, 0), (10, 20, 0))),
              6: lambda: sim.supervision.set_field_value(node, "resolution", 0.5),
              8: lambda: robot.getDevice("t").enable(16)}

    def after_cast(s) -> None:
        before.append(bank.values.tolist())
        pending.append(bank._pending_plan is not None)

    def after_physics(s) -> None:
        write = writes.get(s.step_count)
        if write is not None:
            write()

    sim.add_hook(Phase.DEVICES_ACTUATE, after_cast)
    sim.add_hook(Phase.PHYSICS, after_physics)
    after = []
    for step in range(12):
        box.getField("translation").setSFVec3f([1.1 + 0.1 * step, 0, 0.5])
        robot.step(16)
        after.append(bank.values.tolist())
    return before, after, pending


def test_values_computed_with_the_cast_wait_for_the_sample_and_follow_writes_in_between(project, load):
    # The usual step computes the values with its cast, before the physics step, and the sample publishes
    # them: until then the last sample's values are read; a table, resolution or enable written between the
    # two applies at that sample, as with lookups at the sample (the numpy path's order).
    pytest.importorskip("numba")
    before, after, pending = _writes_between_cast_and_sample(project, load, True)
    reference = _writes_between_cast_and_sample(project, load, False)
    np.testing.assert_array_equal(before, reference[0])  # bit for bit (NaN before the first samples)
    np.testing.assert_array_equal(after, reference[1])
    assert not any(reference[2]) and pending[1] and pending[5]
    assert [b[0] for b in before[1:]] == [a[0] for a in after[:-1]]  # the cast published nothing
    first = [a[0] for a in after]
    assert first[:3] == pytest.approx([1.0, 1.1, 1.2])
    assert first[3] == pytest.approx(2 * 1.3)  # the table written after this step's cast
    assert first[5] == 3.0 and first[6] == 3.0  # 2 * 1.5, 2 * 1.6 at a resolution of 0.5
    assert math.isnan(after[7][1]) and after[8][1] == pytest.approx(1.8)  # enabled after step 8's cast


def _three_groups(project, load, compiled: bool) -> tuple[np.ndarray, list[bool]]:
    """Sensor "s" every step, "t" every second step and "u" every third (three sample groups), while a
    supervisor moves a box; "u" is disabled after step 10. Per step: the three values, and whether the cast
    computed the values of the group due (pending)."""
    from wbsim.sim.phases import Phase

    scene = 'DEF BOX Solid { translation 1.1 0 0.5 boundingObject Box { size 0.2 2 2 } }'
    sensors = " ".join(f'DistanceSensor {{ name "{n}" {IDENTITY} }}' for n in "stu")
    sim = load(project(_world(sensors, scene, robot="supervisor TRUE")))
    bank = sim.banks["distance_sensor"]
    bank.caster.compiled = compiled
    robot = sim.robot("r")
    for name, period in (("s", 16), ("t", 32), ("u", 48)):
        robot.getDevice(name).enable(period)
    box = robot.getFromDef("BOX")
    pending: list[bool] = []
    sim.add_hook(Phase.DEVICES_ACTUATE, lambda s: pending.append(bank._pending_plan is not None))
    values = []
    for step in range(16):
        if step == 10:
            robot.getDevice("u").disable()
        box.getField("translation").setSFVec3f([1.1 + 0.1 * step, 0, 0.5])
        robot.step(16)
        values.append(bank.values.copy())
    return np.array(values), pending


def test_values_computed_with_the_cast_of_one_group_leave_the_other_groups_values(project, load):
    # Three groups on different periods: on the steps where one group of some of the sensors is due, the cast
    # computes its values and the sample publishes only its rows; the others keep their last samples (a
    # disabled sensor its last value), as the numpy path.
    pytest.importorskip("numba")
    values, pending = _three_groups(project, load, True)
    reference, reference_pending = _three_groups(project, load, False)
    np.testing.assert_array_equal(values, reference)
    # "s" alone after steps 1, 5 and 7; "t" (or "u") due too after steps 2, 3, 4 and 6
    assert not any(reference_pending) and pending[0] and pending[4] and pending[6]
    assert not any(pending[1:4]) and not pending[5]
    assert values[0, 0] == pytest.approx(1.0) and math.isnan(values[0, 1]) and math.isnan(values[0, 2])
    assert values[1, 1] == pytest.approx(1.1) and math.isnan(values[1, 2])  # "t" after step 2 (one step late)
    assert values[4, 1] == pytest.approx(1.3) and values[4, 2] == pytest.approx(1.2)  # kept at step 5
    assert values[15, 2] == values[8, 2] == pytest.approx(1.8) and values[15, 0] == pytest.approx(2.5)


@pytest.mark.parametrize("compiled", [True, False])
def test_rays_the_cast_did_not_cover_are_cast_at_the_sample(project, load, compiled):
    # A hook between the cast (before the physics step) and the sample makes an infra-red sensor generic, and
    # another enables a sensor due at that sample: neither had ODE rays in the cast, so their rays are cast at
    # the sample; they read the box where it is, not a distance of an earlier sample (or NaN).
    from wbsim.sim.phases import Phase

    if compiled:
        pytest.importorskip("numba")
    scene = 'DEF BOX Solid { translation 1.1 0 0.5 boundingObject Box { size 0.2 2 2 } }'
    sensors = (f'DistanceSensor {{ name "s" type "infra-red" {IDENTITY} }} '
               f'DistanceSensor {{ name "t" {IDENTITY} }} DistanceSensor {{ name "u" {IDENTITY} }}')
    sim = load(project(_world(sensors, scene, robot="supervisor TRUE")))
    bank = sim.banks["distance_sensor"]
    bank.caster.compiled = compiled
    robot = sim.robot("r")
    robot.getDevice("s").enable(16)
    robot.getDevice("u").enable(16)
    box, node = robot.getFromDef("BOX"), bank.bindings[0].node

    def after_physics(s) -> None:
        if s.step_count == 4:
            s.supervision.set_field_value(node, "type", "generic")

    def after_cast(s) -> None:
        if s.step_count == 5:  # due after step 6, with "s" and "u"
            robot.getDevice("t").enable(16)

    sim.add_hook(Phase.PHYSICS, after_physics)
    sim.add_hook(Phase.DEVICES_ACTUATE, after_cast)
    values = []
    for step in range(8):
        box.getField("translation").setSFVec3f([1.1 + 0.1 * step, 0, 0.5])
        robot.step(16)
        values.append(bank.values.tolist())
    expected = [1.0 + 0.1 * step for step in range(8)]  # the box's face (static: the same before and after)
    assert [v[0] for v in values] == pytest.approx(expected)  # infra-red, then generic after step 4
    assert [v[2] for v in values] == pytest.approx(expected)
    assert all(math.isnan(v[1]) for v in values[:5]) and [v[1] for v in values[5:]] == pytest.approx(expected[5:])
    assert bank.type[0] == 0


def test_a_plan_whose_lookup_arrays_do_not_pack_measures_at_the_sample_with_the_same_values(project, load,
                                                                                          monkeypatch):
    # The usual step's combination and lookups take the plan's arrays packed (wbsim.devices.packed); a plan
    # whose arrays did not pack has no usual step: its rays are cast before the step as always and its values
    # computed at the sample, bit for bit the same (and as the numpy path).
    pytest.importorskip("numba")
    scene = 'DEF BOX Solid { translation 1.1 0.1 0.5 rotation 0 0 1 0.3 boundingObject Box { size 0.2 1 1 } }'
    sensors = " ".join(f'DistanceSensor {{ name "{n}" numberOfRays 3 aperture 0.4 rotation 0 0 1 {a} '
                       f'lookupTable [ 0 0 0, 3 300 0 ] }}' for n, a in (("s", 0), ("t", 0.2)))
    runs = {}
    for mode in ("packed", "unpacked", "numpy"):
        if mode == "unpacked":
            monkeypatch.setattr("wbsim.devices.distance_sensor.bank.pack", lambda arguments, codes: None)
        sim = load(project(_world(sensors, scene, robot="supervisor TRUE")))
        bank = sim.banks["distance_sensor"]
        bank.caster.compiled = mode != "numpy"
        robot = sim.robot("r")
        for name in "st":
            robot.getDevice(name).enable(16)
        box = robot.getFromDef("BOX").getField("translation")
        values, usual = [], []
        for step in range(12):
            box.setSFVec3f([1.1 - 0.05 * step, 0.1, 0.5])
            robot.step(16)
            values.append(bank.values.copy())
            usual.append(bool(bank.schedule.groups[0].cache.pending_arguments))
        runs[mode] = (np.array(values), usual)
        monkeypatch.undo()
    np.testing.assert_array_equal(runs["packed"][0], runs["unpacked"][0])
    np.testing.assert_array_equal(runs["packed"][0], runs["numpy"][0])
    assert all(runs["packed"][1]) and not any(runs["unpacked"][1]) and not any(runs["numpy"][1])
    first, last = runs["packed"][0][0], runs["packed"][0][-1]
    assert (0 < first).all() and (first < 300).all() and (last < first - 40).all()  # the box seen coming closer


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copied_plan_computes_into_the_copied_banks_arrays(project, load, how):
    # A plan's packed lookup tables hold addresses: copied as they were, the copy's usual step would write the
    # original bank's distances and pending values. Copied with the bank's arrays it writes, the copy writes those.
    pytest.importorskip("numba")
    sensors = f'DistanceSensor {{ name "s" {IDENTITY} }} DistanceSensor {{ name "t" rotation 0 0 1 0.3 {IDENTITY} }}'
    sim = load(project(_world(sensors, 'Solid { translation 1.1 0 0.5 boundingObject Box { size 0.2 1 1 } }')))
    bank = sim.banks["distance_sensor"]
    _read(sim, ["s", "t"])
    plan = bank.schedule.groups[0].cache
    assert plan.pending_arguments  # the usual step: its arrays packed
    original = (plan, bank.distance, bank._pending)
    twin, distance, pending = (copy.deepcopy(original) if how == "deepcopy"
                               else pickle.loads(pickle.dumps(original)))
    tables, flags = twin.pending_arguments
    assert [tables.table[SLOT * k] for k in range(len(tables.arrays))] == [a.ctypes.data for a in tables.arrays]
    assert any(a is distance for a in tables.arrays) and any(a is pending for a in tables.arrays)
    kept = bank.distance.copy(), bank._pending.copy()
    combine_and_lookup = bank._kernels().combine_and_lookup
    combine_and_lookup(np.array([0.5, 0.75]), tables.table, *flags)  # the copy's rays
    assert distance.tolist() == pending.tolist() == [0.5, 0.75]
    assert bank.distance.tolist() == kept[0].tolist() and bank._pending.tolist() == kept[1].tolist()
    combine_and_lookup(np.array([0.25, np.inf]), plan.pending_arguments[0].table, *flags)  # the original's
    assert bank._pending.tolist() == [0.25, 10.0] and pending.tolist() == [0.5, 0.75]
