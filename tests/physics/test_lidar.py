"""Lidar ranges against analytic geometry: a box face, a sphere and a plane at known distances, the layer
order, maxRange / minRange / near, noise statistics and determinism, resolution, the planar projection,
tilt, the point cloud and the rotating head.

Each expected range is the exact ray-surface intersection of the ray's world direction (from the lidar's
site pose and Webots' ray layout); ranges are float32, so 1 mm is far above the rounding (< 1e-6 m).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from wbsim.devices.lidar.rays import point_cloud_angles, ray_layout, sweep_columns, sweep_pixels

MM = 1e-3


def _world(lidars: str, scenery: str, info: str = "WorldInfo { basicTimeStep 16 }") -> str:
    return f"""{info}
{scenery}
Robot {{ name "r" controller "<extern>" children [ {lidars} ] }}
"""


def _sample(project, load, lidars: str, scenery: str, names=("lidar",), steps: int = 1, **kw):
    sim = load(project(_world(lidars, scenery, **kw)))
    robot = sim.robot("r")
    devices = [robot.getDevice(n) for n in names]
    for device in devices:
        device.enable(16)
    for _ in range(steps):
        robot.step(16)
    return sim, robot, devices


def _rays(sim, row: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Origin (3,), world directions (layers, columns, 3) and depth scales of lidar ``row``."""
    binding = sim.bindings.devices["lidar"][row]
    layout = ray_layout(binding.settings)
    origin = sim.data.site_xpos[binding.site_id]
    rotation = sim.data.site_xmat[binding.site_id].reshape(3, 3)
    return origin.copy(), layout.directions @ rotation.T, layout.depth_scale


def _image(device) -> np.ndarray:
    return np.array(device.getRangeImage()).reshape(device.getNumberOfLayers(), device.getHorizontalResolution())


def test_ranges_to_a_box_a_sphere_and_a_plane(project, load):
    lidars = """
    Lidar { name "box" horizontalResolution 64 fieldOfView 1.2 numberOfLayers 5 verticalFieldOfView 0.4 maxRange 5 }
    Lidar { name "sphere" rotation 0 0 1 1.5707963267948966 horizontalResolution 32 fieldOfView 0.5
            numberOfLayers 3 verticalFieldOfView 0.3 maxRange 5 }
    Lidar { name "plane" rotation 0 1 0 1.5707963267948966 horizontalResolution 48 fieldOfView 1.4
            numberOfLayers 4 verticalFieldOfView 1.0 maxRange 5 }
    """
    scenery = """
    Solid { translation 1.6 0 0 name "wall" boundingObject Box { size 0.2 8 8 } }
    Solid { translation 0.1 2.2 0.05 name "ball" boundingObject Sphere { radius 0.5 } }
    Solid { translation 0 0 -1.25 name "floor" boundingObject Plane { size 20 20 } }
    """
    sim, _, (box, sphere, plane) = _sample(project, load, lidars, scenery, names=("box", "sphere", "plane"))
    # Box face x = 1.5.
    p, d, _ = _rays(sim, 0)
    expected = (1.5 - p[0]) / d[..., 0]
    np.testing.assert_allclose(_image(box), expected, atol=MM)
    # Sphere of radius 0.5 at c: the nearer root of |p + t d - c| = 0.5; rays missing it see nothing.
    p, d, _ = _rays(sim, 1)
    c = np.array([0.1, 2.2, 0.05])
    b = np.einsum("lck,k->lc", d, p - c)
    disc = b * b - (np.dot(p - c, p - c) - 0.25)
    expected = np.where(disc >= 0, -b - np.sqrt(np.maximum(disc, 0)), np.inf)
    image = _image(sphere)
    assert np.isfinite(expected).sum() >= 40 and np.isinf(expected).sum() >= 10  # hits and misses both tested
    np.testing.assert_allclose(image[np.isfinite(expected)], expected[np.isfinite(expected)], atol=MM)
    assert np.isinf(image[np.isinf(expected)]).all()
    # Plane z = -1.25, below the lidar pointing down.
    p, d, _ = _rays(sim, 2)
    np.testing.assert_allclose(_image(plane), (p[2] + 1.25) / -d[..., 2], atol=MM)


def test_layers_run_from_top_to_bottom_and_columns_from_left_to_right(project, load):
    # A wall whose top edge is level with the lidar, and whose left end is straight ahead.
    lidars = "Lidar { horizontalResolution 16 fieldOfView 1 numberOfLayers 4 verticalFieldOfView 0.2 maxRange 5 }"
    scenery = 'Solid { translation 1.1 -2 -1 name "low wall" boundingObject Box { size 0.2 4 2 } }'
    sim, _, (lidar,) = _sample(project, load, lidars, scenery)
    image = _image(lidar)
    assert np.isinf(image[:2]).all(), "the upper layers pass over the wall"
    assert np.isinf(image[2:, :8]).all(), "the left half looks past the wall's end"
    p, d, _ = _rays(sim, 0)
    np.testing.assert_allclose(image[2:, 8:], ((1.0 - p[0]) / d[..., 0])[2:, 8:], atol=MM)
    assert lidar.getLayerRangeImage(3) == image[3].tolist()
    assert lidar.getRangeImageArray() == image.tolist()


def test_max_range_misses_min_range_and_near(project, load):
    lidars = """
    Lidar { name "short" horizontalResolution 8 numberOfLayers 1 maxRange 1.4 }
    Lidar { name "sky" rotation 0 1 0 -1.5707963267948966 horizontalResolution 8 numberOfLayers 2 maxRange 100 }
    Lidar { name "blind" horizontalResolution 8 numberOfLayers 1 near 0.05 minRange 0.5 maxRange 5 }
    Lidar { name "clipped" translation 0 1.5 0 horizontalResolution 8 fieldOfView 0.5 numberOfLayers 1 near 0.1
            minRange 0.1 maxRange 5 }
    """
    scenery = """
    Solid { translation 1.6 -0.5 0 name "wall" boundingObject Box { size 0.2 6 4 } }
    Solid { translation 0.3 0 0 name "pane" boundingObject Box { size 0.02 2 2 } }
    Solid { translation 0.06 1.5 0 name "speck" boundingObject Box { size 0.02 0.2 0.2 } }
    """
    sim, _, (short, sky, blind, clipped) = _sample(project, load, lidars, scenery,
                                                   names=("short", "sky", "blind", "clipped"))
    # "short": the pane at 0.29 m is seen; nothing reaches 1.4 m beyond it.
    p, d, _ = _rays(sim, 0)
    np.testing.assert_allclose(_image(short), (0.29 - p[0]) / d[..., 0], atol=MM)
    assert np.isinf(_image(sky)).all(), "nothing above: inf"
    # "blind": the pane (0.29 m) is nearer than minRange: inf, and it hides the wall behind it.
    assert np.isinf(_image(blind)).all()
    # "clipped": the speck 5 to 7 cm ahead is nearer than near (0.1 m): clipped, the wall behind is seen.
    p, d, _ = _rays(sim, 3)
    np.testing.assert_allclose(_image(clipped), (1.5 - p[0]) / d[..., 0], atol=MM)


def test_max_range_turns_far_hits_into_inf(project, load):
    lidars = 'Lidar { horizontalResolution 8 numberOfLayers 1 fieldOfView 1.2 maxRange 1.6 }'
    scenery = 'Solid { translation 1.6 0 0 name "wall" boundingObject Box { size 0.2 8 8 } }'
    sim, _, (lidar,) = _sample(project, load, lidars, scenery)
    p, d, _ = _rays(sim, 0)
    t = (1.5 - p[0]) / d[..., 0]
    image = _image(lidar)
    assert (t < 1.6).any() and (t >= 1.6).any()
    np.testing.assert_allclose(image[t < 1.6], t[t < 1.6], atol=MM)
    assert np.isinf(image[t >= 1.6]).all()


NOISY = ('Lidar { horizontalResolution 512 fieldOfView 0.5 numberOfLayers 4 verticalFieldOfView 0.1 maxRange 2 '
         'noise 0.01 }')
WALL = 'Solid { translation 1.1 0 0 name "wall" boundingObject Box { size 0.2 8 8 } }'
FOUR_WALLS = """
Solid { translation 1.1 0 0 name "front" boundingObject Box { size 0.2 8 8 } }
Solid { translation -1.6 0 0 name "back" boundingObject Box { size 0.2 8 8 } }
Solid { translation 0 1.3 0 name "left" boundingObject Box { size 8 0.2 8 } }
Solid { translation 0 -2.1 0 name "right" boundingObject Box { size 8 0.2 8 } }
"""
"""Walls 1.1 m ahead, 1.6 m behind, 1.3 m left and 2.1 m right of a lidar at the origin (rotating heads)."""


def test_noise_is_gaussian_with_sigma_noise_times_max_range(project, load):
    sim, _, (lidar,) = _sample(project, load, NOISY, WALL, info="WorldInfo { basicTimeStep 16 randomSeed 3 }")
    p, d, _ = _rays(sim, 0)
    error = (_image(lidar) - (1.0 - p[0]) / d[..., 0]).ravel()
    n = error.size  # 2048 draws, sigma = 0.01 * 2 m
    assert abs(error.mean()) < 4 * 0.02 / math.sqrt(n)
    assert error.std() == pytest.approx(0.02, rel=4 / math.sqrt(2 * n))
    assert abs(np.mean(np.abs(error) < 0.02) - 0.6827) < 0.04


def test_noise_is_seeded_and_replayed_after_reset(project, load):
    info = "WorldInfo { basicTimeStep 16 randomSeed 11 }"
    first, robot, (lidar,) = _sample(project, load, NOISY, WALL, info=info, steps=2)
    image = lidar.getRangeImage()
    second, _, (again,) = _sample(project, load, NOISY, WALL, info=info, steps=2)
    assert again.getRangeImage() == image
    first.reset()
    lidar = first.robot("r").getDevice("lidar")
    assert lidar.getRangeImage() == [0.0] * 2048, "back to Webots' black image"
    lidar.enable(16)
    first.robot("r").step(16)
    first.robot("r").step(16)
    assert lidar.getRangeImage() == image


def _face_cosines(sim, row: int) -> np.ndarray:
    """The cosine of each ray of lidar ``row`` to the axis of the sub-camera whose depth buffer holds it."""
    return ray_layout(sim.bindings.devices["lidar"][row].settings).face_cosine


def test_resolution_rounds_the_sub_camera_depth(project, load):
    # Webots rounds each sub-camera's depth (depth_resolution) before merge_spherical divides it by the cosine
    # to the sub-camera's axis: against a wall square to the lidar, every depth rounds to the same multiple of
    # the resolution, and the ranges off the axis are that depth over their cosine (not multiples themselves).
    lidars = 'Lidar { horizontalResolution 16 numberOfLayers 2 maxRange 5 resolution 0.25 }'
    sim, _, (lidar,) = _sample(project, load, lidars, WALL)
    p, d, _ = _rays(sim, 0)
    cosine = _face_cosines(sim, 0)
    depth = (1.0 - p[0]) / d[..., 0] * cosine
    np.testing.assert_allclose(_image(lidar), np.floor(depth / 0.25 + 0.5) * 0.25 / cosine, atol=1e-6)
    assert cosine.min() < 0.75 and np.ptp(_image(lidar)) > 0.3  # the edge columns, 45 degrees off the axis


def test_noise_is_added_to_the_depth_so_it_grows_off_the_sub_camera_axis(project, load):
    # range_noise adds N(0, noise * maxRange) to each sub-camera's depth; merge_spherical then divides by the
    # cosine: the noise on a range is noise * maxRange / cosine (41 % more at the edges of a 90-degree lidar).
    lidars = ('Lidar { horizontalResolution 256 fieldOfView 1.5707963267948966 numberOfLayers 8 '
              'verticalFieldOfView 0.1 maxRange 2 noise 0.01 }')
    info = "WorldInfo { basicTimeStep 16 randomSeed 5 }"
    sim, _, (lidar,) = _sample(project, load, lidars, WALL, info=info)
    p, d, _ = _rays(sim, 0)
    cosine = _face_cosines(sim, 0)
    error = _image(lidar) - (1.0 - p[0]) / d[..., 0]
    scaled = (error * cosine).ravel()  # N(0, 0.02) draws
    n = scaled.size
    assert abs(scaled.mean()) < 4 * 0.02 / math.sqrt(n)
    assert scaled.std() == pytest.approx(0.02, rel=4 / math.sqrt(2 * n))
    edges, centre = cosine < 0.8, cosine > 0.97
    assert edges.sum() >= 360 and centre.sum() >= 600
    assert error[edges].std() / error[centre].std() == pytest.approx(1 / cosine[edges].mean(), rel=0.12)


def test_min_range_and_near_apply_to_the_sub_camera_depth(project, load):
    # encode_depth drops depths below minRange, and the near plane clips depths below near: off the axis a
    # surface can be beyond minRange (or near) along the ray and still nearer in depth, as Webots' camera
    # measures it.
    lidars = """
    Lidar { name "min" horizontalResolution 16 fieldOfView 1.5707963267948966 numberOfLayers 1 minRange 0.55
            maxRange 5 }
    Lidar { name "near" translation 0 3 0 horizontalResolution 16 fieldOfView 1.5707963267948966
            numberOfLayers 1 near 0.3 minRange 0.3 maxRange 5 }
    """
    scenery = """
    Solid { translation 0.51 0 0 name "pane" boundingObject Box { size 0.02 4 4 } }
    Solid { translation 0.26 3 0 name "screen" boundingObject Box { size 0.02 4 4 } }
    Solid { translation 1.6 3 0 name "wall" boundingObject Box { size 0.2 4 4 } }
    """
    sim, _, (low, clipped) = _sample(project, load, lidars, scenery, names=("min", "near"))
    p, d, _ = _rays(sim, 0)
    t = (0.5 - p[0]) / d[..., 0]
    assert (t >= 0.55).any(), "some rays reach the pane beyond minRange ..."
    assert np.isinf(_image(low)).all(), "... but its depth, 0.5 m, is below minRange: inf"
    p, d, _ = _rays(sim, 1)
    t = (0.25 - p[0]) / d[..., 0]
    assert (t >= 0.3).any(), "some rays meet the screen beyond near ..."
    # ... but its depth, 0.25 m, is within the near plane: every ray goes through and sees the wall.
    np.testing.assert_allclose(_image(clipped), (1.5 - p[0]) / d[..., 0], atol=MM)


def test_planar_projection_reads_depth_along_the_axis_and_tilt_pitches_the_scan(project, load):
    lidars = """
    Lidar { name "planar" horizontalResolution 32 fieldOfView 1.2 numberOfLayers 3 verticalFieldOfView 0.3
            projection "planar" maxRange 5 }
    Lidar { name "tilted" translation 0 10 0 horizontalResolution 32 fieldOfView 1.2 numberOfLayers 1 tiltAngle -0.3
            maxRange 10 }
    """
    scenery = WALL + '\nSolid { translation 0 0 -1 name "floor" boundingObject Plane { size 40 40 } }'
    sim, _, (planar, tilted) = _sample(project, load, lidars, scenery, names=("planar", "tilted"))
    np.testing.assert_allclose(_image(planar), 1.0, atol=MM)  # the wall plane is at depth 1 m everywhere
    settings = sim.bindings.devices["lidar"][1].settings
    theta = point_cloud_angles(settings)[1]
    np.testing.assert_allclose(_image(tilted)[0], 1.0 / (math.sin(0.3) * np.cos(theta)), atol=MM)


def test_point_cloud_follows_webots_formula(project, load):
    lidars = """
    Lidar { name "flat" horizontalResolution 24 fieldOfView 1 numberOfLayers 1 maxRange 5 }
    Lidar { name "layers" horizontalResolution 24 fieldOfView 1 numberOfLayers 3 verticalFieldOfView 0.2 maxRange 5 }
    """
    sim = load(project(_world(lidars, WALL)))
    robot = sim.robot("r")
    flat, layers = robot.getDevice("flat"), robot.getDevice("layers")
    for lidar in (flat, layers):
        lidar.enable(32)
        lidar.enablePointCloud()
        assert lidar.isPointCloudEnabled()
    robot.step(32)
    points = flat.getPointCloud()
    assert len(points) == flat.getNumberOfPoints() == 24
    np.testing.assert_allclose([q.x for q in points], 1.0, atol=MM)  # one flat layer: the points lie on the wall
    np.testing.assert_allclose([q.z for q in points], 0.0, atol=1e-9)
    assert [q.layer_id for q in points] == [0] * 24 and [q.layer for q in points] == [0] * 24
    # Times: now - j * period / width (Webots: the points were acquired during the last period).
    np.testing.assert_allclose([q.time for q in points], 0.032 - np.arange(24) * 0.032 / 24, atol=1e-7)
    settings = sim.bindings.devices["lidar"][1].settings
    phi, theta = point_cloud_angles(settings)
    r = _image(layers)
    cloud = layers.getPointCloud()
    xyz = np.array([[q.x, q.y, q.z] for q in cloud]).reshape(3, 24, 3)
    np.testing.assert_allclose(xyz[..., 0], r * np.cos(theta)[None] * np.cos(phi)[:, None], rtol=1e-6)
    np.testing.assert_allclose(xyz[..., 1], r * np.sin(theta)[None] * np.cos(phi)[:, None], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(xyz[..., 2], r * np.sin(phi)[:, None], rtol=1e-6)
    assert [q.layer_id for q in layers.getLayerPointCloud(2)] == [2] * 24
    assert bytes(layers.getPointCloud("buffer")[:20]) == np.array(
        [(cloud[0].x, cloud[0].y, cloud[0].z, 0, cloud[0].time)],
        dtype=[("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("l", "<i4"), ("t", "<f4")]).tobytes()


def test_rotating_head_fills_the_image_as_it_turns(project, load):
    lidars = ('Lidar { type "rotating" horizontalResolution 64 fieldOfView 1.5708 numberOfLayers 1 maxRange 5 '
              'defaultFrequency 5 minFrequency 1 maxFrequency 10 }')
    sim = load(project(_world(lidars, FOUR_WALLS)))
    robot = sim.robot("r")
    lidar = robot.getDevice("lidar")
    lidar.enable(64)  # a rotating lidar samples every basic step anyway
    assert lidar.getSamplingPeriod() == 64
    robot.step(16)
    core = sim.banks["lidar"].core(0)
    assert core.head_angle == pytest.approx(-2 * math.pi * 5 * 0.016)
    image = np.array(lidar.getRangeImage())
    written = np.flatnonzero(image != 0)
    settings = sim.bindings.devices["lidar"][0].settings
    assert written.tolist() == sorted(sweep_columns(settings, 0.0, core.head_angle).tolist())
    assert len(written) == 6 and abs(written.mean() - 32) <= 2, "the first sweep: the columns ahead"
    p, d, _ = _rays(sim, 0)
    np.testing.assert_allclose(image[written], ((1.0 - p[0]) / d[0, :, 0])[written], atol=MM)
    for _ in range(13):  # 14 steps of 0.503 rad: more than a turn
        robot.step(16)
    image = np.array(lidar.getRangeImage())
    assert (image != 0).all()
    azimuth = math.pi - 2 * math.pi * np.arange(64) / 64  # column J looks at pi - 2 pi J / 64
    c, s = np.cos(azimuth), np.sin(azimuth)
    with np.errstate(divide="ignore"):
        walls = np.stack([np.where(c > 0, 1.0 / c, np.inf), np.where(c < 0, -1.5 / c, np.inf),
                          np.where(s > 0, 1.2 / s, np.inf), np.where(s < 0, -2.0 / s, np.inf)])
    np.testing.assert_allclose(image, walls.min(axis=0), atol=MM)
    # Frequency limits, as wb_lidar_set_frequency.
    lidar.setFrequency(8)
    assert lidar.getFrequency() == 8 and lidar.frequency == 8
    robot.step(16)
    assert core.head_angle == pytest.approx(-2 * math.pi * (5 * 14 + 8) * 0.016)


def test_rotating_columns_round_the_depth_of_the_head_pixel_they_are_copied_from(project, load):
    # A rotating head copies the pixels of its camera swept in the step
    # (WbLidar::copyAllLayersToMemoryMappedFile); each pixel's range is its sub-camera depth, rounded, over
    # the cosine of that pixel's azimuth from the head's axis. At 25 Hz and 16 ms the head turns 2.5 rad per
    # step, more than its 1.5708 rad camera: all its ceil(64 * 1.5708 / 2 pi) = 17 pixels are copied, from 45
    # degrees left to 45 degrees right of its axis.
    lidars = ('Lidar { type "rotating" horizontalResolution 64 fieldOfView 1.5708 numberOfLayers 1 '
              'maxRange 5 resolution 0.25 defaultFrequency 25 minFrequency 1 maxFrequency 25 }')
    sim = load(project(_world(lidars, FOUR_WALLS)))
    robot = sim.robot("r")
    lidar = robot.getDevice("lidar")
    lidar.enable(16)
    robot.step(16)
    core = sim.banks["lidar"].core(0)
    settings = sim.bindings.devices["lidar"][0].settings
    columns = sweep_columns(settings, 0.0, core.head_angle)
    pixels = sweep_pixels(settings, 0.0, core.head_angle)
    assert pixels.tolist() == list(range(17)) and len(columns) == 17
    azimuth = math.pi - 2 * math.pi * columns / 64  # the rays cast: each column's own azimuth
    c, s = np.cos(azimuth), np.sin(azimuth)
    with np.errstate(divide="ignore"):
        t = np.stack([np.where(c > 0, 1.0 / c, np.inf), np.where(c < 0, -1.5 / c, np.inf),
                      np.where(s > 0, 1.2 / s, np.inf), np.where(s < 0, -2.0 / s, np.inf)]).min(axis=0)
    pixel_azimuth = 1.5708 / 2 - (pixels + 0.5) * 1.5708 / 17
    cosine = np.maximum(np.abs(np.cos(pixel_azimuth)), np.abs(np.sin(pixel_azimuth)))
    image = np.array(lidar.getRangeImage())
    np.testing.assert_allclose(image[columns], np.floor(t * cosine / 0.25 + 0.5) * 0.25 / cosine, atol=1e-6)


def test_world_reset_stops_the_point_cloud_and_rests_the_head(project, load):
    """Webots' world reset (``simulationReset``): ``WbLidar::reset`` puts the head at rest and stops the
    simulator's point cloud, but restores no field, so the ``defaultFrequency`` a controller's setFrequency wrote
    stays (the reset matrix of Webots' supervisor docs: only a reload resets all fields); the controller
    library's point-cloud flag (lidar.c) is only changed by the controller, so it still reads True and the last
    points stay readable, no longer updated. Timing as Webots: the reset step ends at one basic step with
    the initial state (the head at rest), and the head turns again from the next physics step."""
    world = """
    WorldInfo { basicTimeStep 16 }
    Solid { translation 1.1 0 0 name "front" boundingObject Box { size 0.2 8 8 } }
    Robot { name "r" supervisor TRUE controller "<extern>" children [
      Lidar { type "rotating" horizontalResolution 64 numberOfLayers 1 maxRange 5 defaultFrequency 5 } ] }
    """
    sim = load(project(world))
    robot = sim.robot("r")
    lidar = robot.getDevice("lidar")
    lidar.enable(16)
    lidar.enablePointCloud()
    lidar.setFrequency(7)
    for _ in range(3):
        robot.step(16)
    core = sim.banks["lidar"].core(0)
    assert core.head_angle == pytest.approx(-2 * math.pi * 7 * 0.048)
    image = lidar.getRangeImage()
    robot.simulationReset()
    robot.step(16)  # returns at the end of the reset step (t = 16 ms), the head at rest
    assert sim.time_s == pytest.approx(0.016) and core.head_angle == 0.0
    points = bytes(lidar.getPointCloud("buffer"))  # computed in the reset step's physics, before its reset
    robot.step(16)
    assert lidar.isPointCloudEnabled() and not core.point_cloud_enabled
    assert lidar.getFrequency() == 7
    assert core.head_angle == pytest.approx(-2 * math.pi * 7 * 0.016)
    after = lidar.getRangeImage()
    assert after[35:49] == image[35:49] and all(v != 0.0 for v in image[35:49])  # swept before the reset, kept
    assert bytes(lidar.getPointCloud("buffer")) == points  # no longer computed
    lidar.enablePointCloud()
    robot.step(16)
    assert bytes(lidar.getPointCloud("buffer")) != points
    sim.reset()  # a fresh start: the world file's frequency, and the library configured again (cloud off)
    assert not lidar.isPointCloudEnabled() and lidar.getFrequency() == 5


def test_world_reset_a_fixed_lidar_scans_in_the_reset_step_from_the_initial_state(project, load):
    """Webots renders its cameras after the reset (``WbSimulationWorld::step``: reset, ``increaseTime``, then
    ``WbRobot::renderCameras``; ``WbSensor::reset`` made the lidar due) and ``WbLidar::writeAnswer`` copies a
    fixed lidar's image: the reset step's answer holds a scan of the initial state, the next one a period
    later. A falling sphere in the scan plane tells the scans apart."""
    world = """
    WorldInfo { basicTimeStep 16 }
    Solid { translation 1 0 0 name "ball" physics Physics { } boundingObject Sphere { radius 0.3 } }
    Robot { name "r" supervisor TRUE controller "<extern>" children [
      Lidar { horizontalResolution 32 fieldOfView 0.5 numberOfLayers 1 maxRange 5 } ] }
    """
    sim = load(project(world))
    robot = sim.robot("r")
    lidar = robot.getDevice("lidar")
    lidar.enable(48)
    for _ in range(30):  # the ball falls through the scan plane and out of it
        robot.step(16)
    assert np.isinf(_image(lidar)).all()
    robot.simulationReset()
    robot.step(16)  # the reset step
    p, d, _ = _rays(sim, 0)
    c = np.array([1.0, 0.0, 0.0])  # the ball back at its initial place
    b = np.einsum("lck,k->lc", d, c - p)
    expected = b - np.sqrt(b * b - (np.dot(c - p, c - p) - 0.09))
    reset_scan = _image(lidar)
    np.testing.assert_allclose(reset_scan, expected, atol=MM)
    for _ in range(2):  # t = 32, 48 ms: no sample
        robot.step(16)
        assert np.array_equal(_image(lidar), reset_scan)
    robot.step(16)  # t = 64 ms: the next sample, the ball 11 mm lower
    assert (_image(lidar) > reset_scan + 1e-4).all()


def test_rotating_point_times_are_stamped_at_the_start_of_the_step(project, load):
    # Webots fills a rotating lidar's points in postPhysicsStep, before the clock advances: after the third
    # 16 ms step the columns swept then read 0.032 - j * 0.016 / width.
    lidars = 'Lidar { type "rotating" horizontalResolution 64 numberOfLayers 1 maxRange 5 defaultFrequency 5 }'
    sim = load(project(_world(lidars, WALL)))
    robot = sim.robot("r")
    lidar = robot.getDevice("lidar")
    lidar.enable(16)
    lidar.enablePointCloud()
    bank = sim.banks["lidar"]
    settings = sim.bindings.devices["lidar"][0].settings
    for _ in range(2):
        robot.step(16)
    before = float(bank.core(0).head_angle)
    robot.step(16)
    swept = sweep_columns(settings, before, float(bank.core(0).head_angle))
    times = np.array([q.time for q in lidar.getPointCloud()])
    width = bank._scans[0].width  # Webots' camera width: the time step is spread over its columns
    np.testing.assert_allclose(times[swept], 0.032 - swept * 0.016 / width, atol=1e-7)
