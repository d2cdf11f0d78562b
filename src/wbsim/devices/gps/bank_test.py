"""GPS values in worlds: positions, speeds, the reference frames, noise with correlation, resolution, resets."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wbsim.devices.gps.geo import UtmProjection


def _world(devices: str, info: str = "", robot: str = 'translation 1 2 3', body: str = "") -> str:
    return f"""
WorldInfo {{ basicTimeStep 16 gravity 0 {info} }}
Robot {{
  {robot}
  name "r"
  controller "<extern>"
  supervisor TRUE
  children [ {devices} ]
  {body}
}}
"""


PHYSICS = "boundingObject Box { size 0.1 0.1 0.1 } physics Physics { density -1 mass 1 centerOfMass [ 0 0 0 ] }"


def _gps(sim, *names: str, period: int = 16):
    robot = sim.robot("r")
    devices = [robot.getDevice(name) for name in names]
    for device in devices:
        device.enable(period)
    return robot, devices


def _rotation(axis, angle):
    axis = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


def test_position_is_the_world_origin_of_the_device_plus_the_reference(project, load):
    devices = ('Pose { translation 0.1 0.2 0.3 rotation 1 0 0 1.5707963267948966 children [ '
               'GPS { translation 0.4 0.5 0.6 name "deep" } ] } GPS { name "plain" }')
    sim = load(project(_world(devices, info="gpsReference 10 -20 30", robot="translation 1 2 3 rotation 0 0 1 0.7")))
    robot, (deep, plain) = _gps(sim, "deep", "plain")
    robot.step(16)
    turn = _rotation((0, 0, 1), 0.7)
    inner = np.array([0.1, 0.2, 0.3]) + _rotation((1, 0, 0), math.pi / 2) @ np.array([0.4, 0.5, 0.6])
    expected = np.array([1.0, 2.0, 3.0]) + turn @ inner + np.array([10.0, -20.0, 30.0])
    assert deep.getValues() == pytest.approx(expected.tolist(), abs=1e-12)
    assert plain.getValues() == pytest.approx([11.0, -18.0, 33.0], abs=1e-12)
    assert plain.getSpeed() != plain.getSpeed()  # static robot: no previous position at the first sample (NaN)


def test_speed_of_a_body_at_constant_velocity_is_that_velocity(project, load):
    # No gravity, no contact: the robot keeps its initial velocity; a GPS 0.2 m off its centre of mass while it
    # spins at w about z moves at v + w x r (Webots reads the point velocity of the body).
    world = _world('GPS { name "centre" } GPS { translation 0.2 0 0 name "rim" }',
                   robot="translation 0 0 1 linearVelocity 0.3 -0.4 1.2 angularVelocity 0 0 2.5", body=PHYSICS)
    sim = load(project(world))
    robot, (centre, rim) = _gps(sim, "centre", "rim")
    for step in range(1, 31):
        robot.step(16)
        t = step * 0.016
        assert centre.getSpeedVector() == pytest.approx([0.3, -0.4, 1.2], abs=1e-9)
        assert centre.getSpeed() == pytest.approx(math.sqrt(0.09 + 0.16 + 1.44), abs=1e-9)
        assert centre.getValues() == pytest.approx([0.3 * t, -0.4 * t, 1.0 + 1.2 * t], abs=1e-9)
        angle = 2.5 * t
        rim_offset = 0.2 * np.array([math.cos(angle), math.sin(angle), 0.0])
        assert rim.getValues() == pytest.approx((np.array(centre.getValues()) + rim_offset).tolist(), abs=1e-6)
        spin = np.cross([0.0, 0.0, 2.5], rim_offset)
        assert rim.getSpeedVector() == pytest.approx((np.array([0.3, -0.4, 1.2]) + spin).tolist(), abs=1e-6)
        assert rim.getSpeed() == pytest.approx(float(np.linalg.norm([0.3, -0.4, 1.2] + spin)), abs=1e-6)


def test_speed_without_physics_is_the_displacement_over_the_sampling_interval(project, load):
    sim = load(project(_world('GPS { }', robot="translation 0 0 0")))
    robot, (gps,) = _gps(sim, "gps", period=32)  # every 2 basic steps
    field = robot.getSelf().getField("translation")
    robot.step(32)
    assert all(math.isnan(v) for v in gps.getSpeedVector()) and math.isnan(gps.getSpeed())
    x = 0.0
    for _ in range(5):
        x += 0.05
        field.setSFVec3f([x, 0.0, 0.0])
        robot.step(32)
        assert gps.getValues() == pytest.approx([x, 0.0, 0.0], abs=1e-12)
        assert gps.getSpeedVector() == pytest.approx([0.05 / 0.032, 0.0, 0.0], abs=1e-9)
        assert gps.getSpeed() == pytest.approx(0.05 / 0.032, abs=1e-9)


@pytest.mark.parametrize("system", ["ENU", "NUE"])
def test_local_values_are_world_coordinates_whatever_the_axes(project, load, system):
    sim = load(project(_world('GPS { translation 0.5 0 0 }', info=f'coordinateSystem "{system}"')))
    robot, (gps,) = _gps(sim, "gps")
    robot.step(16)
    assert gps.getValues() == pytest.approx([1.5, 2.0, 3.0], abs=1e-12)
    assert gps.getCoordinateSystem() == gps.LOCAL


@pytest.mark.parametrize(("system", "east", "north", "up"), [("ENU", 0, 1, 2), ("NUE", 2, 0, 1)])
def test_wgs84_values_follow_the_reference_and_the_world_axes(project, load, system, east, north, up):
    # Reference on the central meridian of UTM zone 32 (9 deg E): the GPS sits 100 m east, 200 m north and 10 m
    # up of the world origin; latitude and longitude move by the distances over the radii of curvature (scaled by
    # UTM's k0) and the altitude adds to the reference's.
    offset = [0.0, 0.0, 0.0]
    offset[east], offset[north], offset[up] = 100.0, 200.0, 10.0
    info = f'coordinateSystem "{system}" gpsCoordinateSystem "WGS84" gpsReference 46.5 9 400'
    sim = load(project(_world("GPS { }", info=info, robot="translation {} {} {}".format(*offset))))
    robot, (gps,) = _gps(sim, "gps")
    robot.step(16)
    a, f, k0 = 6378137.0, 1.0 / 298.2572236, 0.9996
    e2 = f * (2.0 - f)
    phi = math.radians(46.5)
    meridian = a * (1.0 - e2) / (1.0 - e2 * math.sin(phi) ** 2) ** 1.5
    latitude, longitude, altitude = gps.getValues()
    expected_latitude = 46.5 + math.degrees(200.0 / (k0 * meridian))
    assert latitude == pytest.approx(expected_latitude, abs=3e-8)  # 3 mm
    phi = math.radians(expected_latitude)  # the parallel the GPS is on
    normal = a / math.sqrt(1.0 - e2 * math.sin(phi) ** 2)
    assert longitude == pytest.approx(9.0 + math.degrees(100.0 / (k0 * normal * math.cos(phi))), abs=3e-8)
    assert altitude == pytest.approx(410.0, abs=1e-9)
    assert gps.getCoordinateSystem() == gps.WGS84 == 1


def test_wgs84_resolution_and_noise_apply_in_metres_before_the_projection(project, load):
    info = 'gpsCoordinateSystem "WGS84" gpsReference -33.9 18.4 5'
    sim = load(project(_world('GPS { resolution 10 }', info=info, robot="translation 0 0 0")))
    robot, (gps,) = _gps(sim, "gps")
    robot.step(16)
    projection = UtmProjection(-33.9, 18.4)
    north, east = projection.north_east(-33.9, 18.4)
    snapped = [math.trunc(float(v) / 10.0 + 0.5) * 10.0 for v in (north, east)]
    latitude, longitude = projection.latitude_longitude(*snapped)
    assert gps.getValues() == pytest.approx([float(latitude), float(longitude), 10.0], abs=1e-12)


def test_accuracy_noise_is_gaussian_with_that_deviation(project, load):
    devices = " ".join(f'GPS {{ name "g{i}" accuracy 0.25 }}' for i in range(40))
    sim = load(project(_world(devices, robot="translation 0 0 0")))
    robot, gps = _gps(sim, *[f"g{i}" for i in range(40)])
    samples = []
    for _ in range(100):
        robot.step(16)
        samples.append([g.getValues() for g in gps])
    noise = np.array(samples)  # (100 steps, 40 devices, 3 axes), the true position is 0
    assert noise.std() == pytest.approx(0.25, rel=0.1)
    assert abs(noise.mean()) < 0.01  # 12000 draws: the mean's deviation is 0.0023
    lag = np.mean(noise[1:] * noise[:-1]) / noise.var()
    assert abs(lag) < 0.05  # no correlation: independent draws


def test_noise_correlation_follows_webots_gauss_markov_formula(project, load):
    # n_k = r n_{k-1} + sqrt(1 - r^2) g_k with r = c ** (dt / 1 s) and n_0 = 0; the value is p + accuracy * n_k.
    world = _world('GPS { name "a" accuracy 2 noiseCorrelation 0.3 } GPS { name "b" accuracy 0.5 }',
                   robot="translation 0 0 0")
    sim = load(project(world, ), seed=11)
    draws = np.random.Generator(np.random.PCG64())
    draws.bit_generator.state = sim.rng.bit_generator.state
    robot, (a, b) = _gps(sim, "a", "b", period=48)  # 3 basic steps: dt = 0.048 s
    r = 0.3**0.048
    state = np.zeros(3)
    for _ in range(6):
        for _ in range(3):
            robot.step(16)
        g = draws.standard_normal((2, 3))
        state = r * state + math.sqrt(1.0 - r * r) * g[0]
        assert a.getValues() == pytest.approx((2.0 * state).tolist(), abs=1e-12)
        assert b.getValues() == pytest.approx((0.5 * g[1]).tolist(), abs=1e-12)


def test_full_correlation_keeps_webots_initial_zero_noise(project, load):
    sim = load(project(_world('GPS { accuracy 3 noiseCorrelation 1 }', robot="translation 1 2 3")))
    robot, (gps,) = _gps(sim, "gps")
    for _ in range(5):
        robot.step(16)
        assert gps.getValues() == [1.0, 2.0, 3.0]


def test_correlated_noise_statistics(project, load):
    # Stationary Gauss-Markov process: deviation `accuracy`, lag-one correlation r = c ** dt.
    devices = " ".join(f'GPS {{ name "g{i}" accuracy 1 noiseCorrelation 0.01 }}' for i in range(40))
    sim = load(project(_world(devices, robot="translation 0 0 0")))
    robot, gps = _gps(sim, *[f"g{i}" for i in range(40)], period=160)  # dt = 0.16 s: r = 0.478
    samples = []
    for _ in range(60):
        robot.step(160)
        samples.append([g.getValues() for g in gps])
    noise = np.array(samples)[10:]  # past the start-up from n = 0 (r^20 < 1e-6)
    r = 0.01**0.16
    assert noise.std() == pytest.approx(1.0, rel=0.1)
    assert np.mean(noise[1:] * noise[:-1]) / noise.var() == pytest.approx(r, abs=0.05)


def test_same_seed_same_sequence_and_reset_replays(project, load):
    world = _world('GPS { accuracy 0.1 noiseCorrelation 0.5 speedNoise 0.2 }',
                   robot="translation 0 0 1 linearVelocity 1 0 0", body=PHYSICS)
    path = project(world)

    def run(sim) -> list[list[float]]:
        robot, (gps,) = _gps(sim, "gps")
        out = []
        for _ in range(20):
            robot.step(16)
            out.append(gps.getValues() + [gps.getSpeed()] + gps.getSpeedVector())
        return out

    sim = load(path, seed=5)
    first = run(sim)
    assert first == run(load(path, seed=5))
    assert first != run(load(path, seed=6))
    sim.reset()
    assert run(sim) == first
    speeds = np.array(first)[:, 3]
    assert speeds.std() > 0.05 and abs(speeds.mean() - 1.0) < 0.15  # 1 m/s times (1 + 0.2 g)


def test_speed_noise_is_relative_and_speed_resolution_rounds(project, load):
    devices = " ".join(f'GPS {{ name "g{i}" speedNoise 0.1 }}' for i in range(50)) + \
        ' GPS { name "coarse" speedResolution 0.25 resolution 0.5 }'
    sim = load(project(_world(devices, robot="translation 0 0 1.3 linearVelocity 2 0 0", body=PHYSICS)))
    robot, gps = _gps(sim, *[f"g{i}" for i in range(50)], "coarse")
    speeds = []
    for _ in range(40):
        robot.step(16)
        speeds += [g.getSpeed() for g in gps[:-1]]
        assert gps[0].getSpeedVector() == pytest.approx([2.0, 0.0, 0.0], abs=1e-9)  # the vector is exact
    speeds = np.array(speeds)
    assert speeds.std() == pytest.approx(0.2, rel=0.1) and speeds.mean() == pytest.approx(2.0, abs=0.01)
    coarse = gps[-1]
    assert coarse.getSpeed() == 2.0  # (int)(2 / 0.25 + 0.5) * 0.25
    x = 2.0 * 40 * 0.016  # 1.28 m -> 1.5; 1.3 -> 1.5
    assert coarse.getValues() == [math.trunc(x / 0.5 + 0.5) * 0.5, 0.0, 1.5]


def test_first_value_one_period_after_enable(project, load, capfd):
    sim = load(project(_world('GPS { }')))
    robot = sim.robot("r")
    gps = robot.getDevice("gps")
    assert all(math.isnan(v) for v in gps.getValues())
    assert "Error: wb_gps_get_values() called for a disabled device! Please use: wb_gps_enable()." in \
        capfd.readouterr().err
    gps.enable(40)  # 3 basic steps of 16 ms
    robot.step(16)
    robot.step(16)
    assert all(math.isnan(v) for v in gps.getValues())
    robot.step(16)
    assert gps.getValues() == [1.0, 2.0, 3.0]


def test_world_reset_forgets_the_previous_position_and_supervisor_writes(project, load, capfd):
    sim = load(project(_world('GPS { }', robot="translation 0 0 0")))
    robot, (gps,) = _gps(sim, "gps")
    node = robot.getFromDevice(gps)
    node.getField("noiseCorrelation").setSFFloat(2.0)
    assert node.getField("noiseCorrelation").getSFFloat() == 0.0
    node.getField("resolution").setSFFloat(0.0)
    node.getField("speedNoise").setSFFloat(-1.0)
    node.getField("speedResolution").setSFFloat(-2.0)
    assert [node.getField(f).getSFFloat() for f in ("resolution", "speedNoise", "speedResolution")] == [-1, 0, -1]
    err = capfd.readouterr().err
    for text in ("Invalid 'noiseCorrelation' changed to 0. The value should be in range [0, 1].",
                 "Invalid 'resolution' changed to -1. The value should be either -1 or positive.",
                 "Invalid 'speedNoise' changed to 0. The value should be non-negative.",
                 "Invalid 'speedResolution' changed to -1. The value should be either -1 or positive."):
        assert text in err
    node.getField("resolution").setSFFloat(1.0)
    robot.getSelf().getField("translation").setSFVec3f([0.4, 0.0, 0.0])
    robot.step(16)
    assert gps.getValues() == [0.0, 0.0, 0.0]  # 0.4 m at a 1 m resolution
    robot.getSelf().getField("translation").setSFVec3f([0.6, 0.0, 0.0])
    robot.step(16)
    assert gps.getValues() == [1.0, 0.0, 0.0] and gps.getSpeed() == pytest.approx(0.2 / 0.016)
    robot.simulationReset()
    robot.step(16)
    # Back at the origin with the file's resolution; enabled, sampled, and no previous position: NaN speed.
    assert gps.getSamplingPeriod() == 16 and gps.getValues() == [0.0, 0.0, 0.0]
    assert math.isnan(gps.getSpeed())
    sim.reset()
    bank = sim.banks["gps"]
    assert np.isnan(bank.values).all() and bank.period_ms[0] == 0 and not bank.noise.any()


def test_speed_resolution_rounds_an_off_grid_speed_after_its_noise(project, load):
    # 2.1 m/s is off the 0.25 grid: (int)(2.1 / 0.25 + 0.5) * 0.25 = 2.0; with speed noise the rounding comes
    # last, so every reading is on the grid.
    devices = 'GPS { name "exact" speedResolution 0.25 } GPS { name "noisy" speedNoise 0.3 speedResolution 0.25 }'
    sim = load(project(_world(devices, robot="translation 0 0 1.3 linearVelocity 2.1 0 0", body=PHYSICS)))
    robot, (exact, noisy) = _gps(sim, "exact", "noisy")
    readings = []
    for _ in range(30):
        robot.step(16)
        assert exact.getSpeed() == 2.0
        readings.append(noisy.getSpeed())
    grid = np.array(readings) / 0.25
    assert np.array_equal(grid, np.round(grid)) and len(set(readings)) > 2


def test_accuracy_noise_comes_before_the_resolution(project, load):
    # Webots adds the noise to the position, then rounds: every value is on the 0.5 grid, and the seeded draws
    # give exactly (int)((p + accuracy g) / r + 0.5) * r.
    sim = load(project(_world('GPS { accuracy 0.4 resolution 0.5 }', robot="translation 1.1 2.2 3.3")), seed=3)
    draws = np.random.Generator(np.random.PCG64())
    draws.bit_generator.state = sim.rng.bit_generator.state
    robot, (gps,) = _gps(sim, "gps")
    for _ in range(10):
        robot.step(16)
        noisy = np.array([1.1, 2.2, 3.3]) + 0.4 * draws.standard_normal(3)
        expected = [math.trunc(v / 0.5 + 0.5) * 0.5 for v in noisy]  # C's (int) truncates toward zero
        assert gps.getValues() == pytest.approx(expected, abs=1e-12)


def test_finite_difference_divides_by_the_time_since_the_last_sample(project, load):
    # A 20 ms period with 16 ms steps samples every 32 ms; after a disable and a new enable, the first
    # difference spans the time since the last sample taken before it.
    sim = load(project(_world('GPS { }', robot="translation 0 0 0")))
    robot, (gps,) = _gps(sim, "gps", period=20)
    field = robot.getSelf().getField("translation")
    robot.step(32)
    field.setSFVec3f([0.064, 0.0, 0.0])
    robot.step(32)
    assert gps.getSpeed() == pytest.approx(0.064 / 0.032, rel=1e-9)


def test_a_gps_with_physics_reads_its_upper_solids_body_not_its_own(project, load):
    # WbGps reads upperSolid()->bodyMerger(): the body of the Solid above the GPS, whatever the GPS's own
    # Physics. "spun": a GPS with Physics on a motorised hinge of a static robot (no Physics): its upper Solid
    # has no body, so its speed is a finite difference (NaN at the first sample), although its own body turns.
    # "carried": the same hinge under a moving body with Physics: the speed is the point velocity of that body
    # at the GPS origin; the hinge's own rotation does not count.
    hinge = """
    HingeJoint {{
      jointParameters HingeJointParameters {{ axis 0 0 1 }}
      device [ RotationalMotor {{ name "{name} motor" maxVelocity 10 }} ]
      endPoint GPS {{ translation 0.3 0 0 name "{name}" {physics} }}
    }}"""
    spun = hinge.format(name="spun", physics=PHYSICS)
    sim = load(project(_world(spun)))
    robot, (gps,) = _gps(sim, "spun")
    motor = robot.getDevice("spun motor")
    motor.setPosition(float("inf"))
    motor.setVelocity(2.0)
    positions, vectors = [], []
    for _ in range(4):
        robot.step(16)
        positions.append(np.array(gps.getValues()))
        vectors.append(np.array(gps.getSpeedVector()))
    assert np.isnan(vectors[0]).all(), "no previous position at the first sample, as for a static robot"
    for k in (1, 2, 3):
        np.testing.assert_allclose(vectors[k], (positions[k] - positions[k - 1]) / 0.016, atol=1e-9)
    sim.close()

    carried = hinge.format(name="carried", physics=PHYSICS)
    world = _world(carried, body=PHYSICS + " linearVelocity 0.5 0 0")
    sim = load(project(world))
    robot, (gps,) = _gps(sim, "carried")
    motor = robot.getDevice("carried motor")
    motor.setPosition(float("inf"))
    motor.setVelocity(2.0)
    for _ in range(5):
        robot.step(16)
    base = sim.bindings.robots[0].solid.body_id
    assert sim.bindings.devices["gps"][0].body_id == base
    twist = sim.data.cvel[base]
    lever = sim.data.site_xpos[sim.bindings.devices["gps"][0].site_id] - sim.data.subtree_com[base]
    expected = twist[3:] + np.cross(twist[:3], lever)
    np.testing.assert_allclose(gps.getSpeedVector(), expected, atol=1e-12)
    own = sim.bindings.solids[[s.node["name"] for s in sim.bindings.solids].index("carried")].body_id
    own_twist = sim.data.cvel[own]
    own_velocity = own_twist[3:] + np.cross(own_twist[:3], lever)
    assert np.linalg.norm(own_velocity - expected) > 0.1, "the GPS's own body turns with the hinge (0.6 m/s)"
