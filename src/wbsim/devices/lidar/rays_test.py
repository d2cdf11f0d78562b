"""Webots' lidar layout, against scalar transcriptions of WbLidar / merge_spherical.frag / the copy offsets."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from wbsim.devices.lidar.rays import layer_rows, point_cloud_angles, ray_layout, sweep_columns, sweep_pixels
from wbsim.devices.lidar.schema import LidarSettings, image_height, image_width


def _scalar_rays(s: LidarSettings) -> list[list[tuple[float, float, float]]]:
    """One pixel at a time: Webots' row per layer, the pixel's cylindrical angles, the camera pitch."""
    w = math.ceil(s.horizontal_resolution * s.field_of_view / (2 * math.pi)) if s.rotating else s.horizontal_resolution
    h = 1 if s.number_of_layers == 1 else math.ceil((s.vertical_field_of_view + s.field_of_view / w) * (w / s.field_of_view))
    skip = (h - 1) / (s.number_of_layers - 1) if h != s.number_of_layers and s.number_of_layers != 1 else 1.0
    span = s.field_of_view * h / w
    rows = []
    for i in range(s.number_of_layers):
        phi = span / 2 - (int(i * skip) + 0.5) * span / h
        row = []
        for j in range(s.horizontal_resolution):
            if s.rotating:
                yaw, theta = math.pi - 2 * math.pi * j / s.horizontal_resolution, 0.0
            else:
                yaw, theta = 0.0, s.field_of_view / 2 - (j + 0.5) * s.field_of_view / w
            x, y, z = math.cos(theta) * math.cos(phi), math.sin(theta) * math.cos(phi), math.sin(phi)
            t = s.tilt_angle
            x, z = math.cos(t) * x - math.sin(t) * z, math.sin(t) * x + math.cos(t) * z
            row.append((math.cos(yaw) * x - math.sin(yaw) * y, math.sin(yaw) * x + math.cos(yaw) * y, z))
        rows.append(row)
    return rows


LAYOUTS = st.builds(
    lambda res, fov, vfov, layers, tilt, rotating: LidarSettings(
        horizontal_resolution=res, field_of_view=fov, vertical_field_of_view=vfov, number_of_layers=layers,
        tilt_angle=tilt, rotating=rotating),
    st.integers(8, 200), st.floats(0.2, 2 * math.pi), st.floats(0.05, 1.5), st.integers(1, 6),
    st.floats(-0.5, 0.5), st.booleans())


@settings(max_examples=60, deadline=None)
@given(LAYOUTS)
def test_cylindrical_rays_match_webots_pixels(s):
    if image_height(s) < s.number_of_layers:
        return  # Webots repairs such fields first (schema.repair)
    layout = ray_layout(s)
    np.testing.assert_allclose(layout.directions, _scalar_rays(s), atol=1e-12)
    assert (layout.depth_scale == 1.0).all()


def _merge_cosine(s: LidarSettings, layer: int, column: int) -> float:
    """merge_spherical.frag for one pixel of a fixed cylindrical lidar: the pixel's direction in the camera
    frame (before the tilt), the horizontal sub-camera face with the largest dot product (front, right, back,
    left), and that dot product (the cosine the shader divides the face's depth by)."""
    w = image_width(s)
    h = image_height(s)
    span = s.field_of_view * h / w
    phi = span / 2 - (layer_rows(s)[layer] + 0.5) * span / h
    theta = s.field_of_view / 2 - (column + 0.5) * s.field_of_view / w
    coord = (math.cos(theta) * math.cos(phi), math.sin(theta) * math.cos(phi), math.sin(phi))
    faces = ((1.0, 0.0, 0.0), (0.0, -1.0, 0.0), (-1.0, 0.0, 0.0), (0.0, 1.0, 0.0))
    return max(sum(a * b for a, b in zip(coord, face)) for face in faces)


@settings(max_examples=60, deadline=None)
@given(LAYOUTS)
def test_face_cosines_are_the_merge_shaders_for_cylindrical_pixels(s):
    if s.rotating or image_height(s) < s.number_of_layers:
        return
    layout = ray_layout(s)
    expected = [[_merge_cosine(s, i, j) for j in range(s.horizontal_resolution)]
                for i in range(s.number_of_layers)]
    np.testing.assert_allclose(layout.face_cosine, expected, atol=1e-12)


def test_planar_face_cosines_are_the_camera_axis_cosines():
    s = LidarSettings(horizontal_resolution=10, field_of_view=1.0, number_of_layers=3,
                      vertical_field_of_view=0.3, planar=True)
    layout = ray_layout(s)
    assert np.array_equal(layout.face_cosine, layout.depth_scale)


def test_layer_rows_spread_over_the_camera_rows():
    s = LidarSettings()  # Webots' defaults: 512 x 4, fov 1.5708, vertical fov 0.2
    assert image_height(s) == 67 and layer_rows(s).tolist() == [0, 22, 44, 66]
    elevations = np.arcsin(ray_layout(s).directions[:, 0, 2])
    assert np.all(np.diff(elevations) < 0), "first layer on top"
    span = 1.5708 * 67 / 512
    assert elevations[0] == np.float64(span / 2 - 0.5 * span / 67)  # within half a pixel of 0.1 rad
    assert abs(elevations[0] - 0.1) < span / 67 / 2 + 1e-3


def test_planar_rays_are_pinhole_pixels_and_read_depth():
    s = LidarSettings(horizontal_resolution=10, field_of_view=1.0, number_of_layers=3, vertical_field_of_view=0.3,
                      planar=True)
    layout = ray_layout(s)
    w, h = image_width(s), image_height(s)
    fov_y = 2 * math.atan(math.tan(0.5) * h / w)
    for i, r in enumerate(layer_rows(s)):
        for j in range(w):
            a = math.tan(0.5) * (1 - 2 * (j + 0.5) / w)
            b = math.tan(fov_y / 2) * (1 - 2 * (r + 0.5) / h)
            d = np.array([1.0, a, b]) / math.sqrt(1 + a * a + b * b)
            np.testing.assert_allclose(layout.directions[i, j], d, atol=1e-12)
            assert abs(layout.depth_scale[i, j] - d[0]) < 1e-12  # the depth along the camera axis


def _webots_copy(s: LidarSettings, previous: float, current: float) -> list[int]:
    """WbLidar::copyAllLayersToMemoryMappedFile's destination columns, including its two-part copies."""
    w = image_width(s)
    res = s.horizontal_resolution
    ratio = min(abs(current - previous) / s.field_of_view, 1.0)
    lo, hi = int(w / 2.0 * (1.0 - ratio)), int(w / 2.0 * (1.0 + ratio))
    turns = abs((previous - math.pi) / (2 * math.pi))
    tmp = (turns - math.floor(turns)) * 2 * math.pi
    offset = int(res * (tmp / (2 * math.pi)))
    offset = int(offset - w / 2)
    if hi + offset <= res and lo + offset >= 0:
        return list(range(lo + offset, hi + offset))
    if hi + offset > res:
        return list(range(lo + offset, res)) + list(range(0, hi + offset - res))
    return list(range(res + lo + offset, res)) + list(range(0, hi + offset))


def _webots_sources(s: LidarSettings, previous: float, current: float) -> list[int]:
    """The head camera's pixel columns WbLidar copies, in the order of :func:`_webots_copy`'s destinations."""
    w = image_width(s)
    ratio = min(abs(current - previous) / s.field_of_view, 1.0)
    return list(range(int(w / 2.0 * (1.0 - ratio)), int(w / 2.0 * (1.0 + ratio))))


@settings(max_examples=100, deadline=None)
@given(st.integers(16, 400), st.floats(0.3, 3.0), st.floats(-60.0, 0.0), st.floats(0.001, 1.0))
def test_sweep_columns_are_webots_copies(res, fov, previous, step):
    s = LidarSettings(horizontal_resolution=res, field_of_view=fov, number_of_layers=1, rotating=True)
    assert sweep_columns(s, previous, previous - step).tolist() == _webots_copy(s, previous, previous - step)
    sources = _webots_sources(s, previous, previous - step)
    assert sweep_pixels(s, previous, previous - step).tolist() == sources


def test_a_turn_of_sweeps_covers_every_column():
    s = LidarSettings(horizontal_resolution=256, field_of_view=1.57, number_of_layers=6, rotating=True)
    seen: set[int] = set()
    angle = 0.0
    for _ in range(63):  # 2 Hz, 8 ms steps: 62.5 steps a turn
        seen |= set(sweep_columns(s, angle, angle - 2 * math.pi * 2 * 0.008).tolist())
        angle -= 2 * math.pi * 2 * 0.008
    assert seen == set(range(256))


def test_point_cloud_angles_are_webots():
    s = LidarSettings(horizontal_resolution=8, field_of_view=1.0, number_of_layers=3, vertical_field_of_view=0.2,
                      tilt_angle=0.05)
    phi, theta = point_cloud_angles(s)
    span = 1.0 * image_height(s) / 8
    np.testing.assert_allclose(phi, [span / 2 + 0.05, 0.05, -span / 2 + 0.05])
    np.testing.assert_allclose(theta, 0.5 - (np.arange(8) + 0.5) / 8)
    rotating = LidarSettings(horizontal_resolution=8, number_of_layers=1, rotating=True)
    phi, theta = point_cloud_angles(rotating)
    np.testing.assert_allclose(phi, [0.0])
    np.testing.assert_allclose(theta, -math.pi - np.arange(8) * math.pi / 4)
