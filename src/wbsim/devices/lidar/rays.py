"""Where a Lidar looks: Webots' layout of its range image as ray directions (``WbLidar``, ``WbWrenCamera``).

Webots renders a depth camera of ``width x height`` pixels (:func:`~.schema.image_width`,
:func:`~.schema.image_height`) and copies one pixel row per layer into the range image: layer ``i`` is row
``int(i * skip)`` with ``skip = (height - 1) / (layers - 1)`` (1 if ``height == layers`` or one layer). Frames
are Webots' FLU lidar frame: +x forward, +y left, +z up; angles in rad.

- **Cylindrical** projection (the default): pixel ``(column j, row r)`` looks at azimuth
  ``fov / 2 - (j + 0.5) fov / width`` and elevation ``VF / 2 - (r + 0.5) VF / height`` with
  ``VF = fov * height / width`` (both linear, ``merge_spherical.frag``); the value is the distance along
  that ray (the depth divided by the cosine to the sub-camera axis).
- **Planar** projection: a pinhole camera of horizontal field ``fov`` and vertical field
  ``2 atan(tan(fov / 2) height / width)``; the value is the depth along the camera axis.
- **Rotating** head: the range image has ``horizontalResolution`` columns over a full turn; column ``J``
  looks at azimuth ``pi - 2 pi J / resolution`` (behind, then left, front, right: Webots' point cloud),
  with the elevations of the head's camera rows.
- ``tiltAngle`` pitches the camera about its lateral axis (positive up), after the head's yaw.
- **Sub-camera depth** (cylindrical): Webots renders the cylindrical image with up to four horizontal
  sub-cameras (front, left, right, back, each of at most pi/2) and stores, per pixel, the depth along the
  axis of the sub-camera nearest to the pixel's direction; its shaders drop depths outside
  ``[minRange, maxRange)``, add the noise and the resolution to that depth, and only then divide by the
  cosine between the pixel's direction and that axis (``merge_spherical.frag``). That cosine,
  ``cos(elevation) * max(|cos a|, |sin a|)`` for a pixel at azimuth ``a`` from the camera's axis, is
  :attr:`RayLayout.face_cosine` (the camera-axis cosine for the planar projection, where the depth is the
  value). The top and bottom sub-cameras (vertical fields above 1.23 rad) are not modelled.

The point cloud uses Webots' own angles (``WbLidar::updatePointCloud``), which differ from the rays' by up to
half a pixel row: layer ``i`` at ``VF / 2 - i VF / (layers - 1) + tilt`` (0 + tilt for one layer), plain
addition of the tilt, see :func:`point_cloud_angles`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from wbsim.devices.lidar.schema import LidarSettings, image_height, image_width

__all__ = ["RayLayout", "layer_rows", "ray_layout", "point_cloud_angles", "sweep_columns", "sweep_pixels",
           "face_cosines"]


@dataclass(frozen=True, eq=False)
class RayLayout:
    """Every ray of one lidar's range image.

    Attributes:
        directions: unit directions in the lidar frame, (layers, columns, 3), row-major like the image.
        depth_scale: the factor turning a distance along the ray into the value Webots stores (1 for the
            cylindrical projection; the cosine to the camera axis for the planar one), (layers, columns).
        face_cosine: the cosine between each ray and the axis of the (sub-)camera whose depth buffer holds
            it (the depth Webots clips at ``near``, limits, blurs and rounds is the distance times this),
            (layers, columns); for a rotating head, that of the head camera's centre pixel (the bank uses the
            pixel each column is copied from).
    """

    directions: np.ndarray
    depth_scale: np.ndarray
    face_cosine: np.ndarray


def layer_rows(settings: LidarSettings) -> np.ndarray:
    """The camera pixel row of each layer (``WbLidar::copyAllLayersToMemoryMappedFile``), int (layers,)."""
    height, layers = image_height(settings), settings.number_of_layers
    skip = 1.0
    if height != layers and layers != 1:
        skip = (height - 1) / (layers - 1)
    return np.array([int(i * skip) for i in range(layers)], dtype=np.int64)


def face_cosines(azimuth: np.ndarray, elevation: np.ndarray) -> np.ndarray:
    """The cosine between a cylindrical pixel's direction and the axis of the horizontal sub-camera nearest to
    it (front, left, right or back; ``merge_spherical.frag``'s face and ``cosine``), for pixels at ``azimuth``
    from the camera axis and ``elevation`` (rad, camera frame, broadcast together)."""
    return np.cos(elevation) * np.maximum(np.abs(np.cos(azimuth)), np.abs(np.sin(azimuth)))


def _pitch_yaw(azimuth: np.ndarray, elevation: np.ndarray, yaw: np.ndarray, tilt: float) -> np.ndarray:
    """Unit vectors at (azimuth, elevation) in a camera pitched up by ``tilt`` then yawed by ``yaw``; (..., 3)."""
    x = np.cos(azimuth) * np.cos(elevation)
    y = np.sin(azimuth) * np.cos(elevation)
    z = np.sin(elevation) * np.ones_like(azimuth)
    ct, st = math.cos(tilt), math.sin(tilt)
    x, z = ct * x - st * z, st * x + ct * z
    cy, sy = np.cos(yaw), np.sin(yaw)
    return np.stack([cy * x - sy * y, sy * x + cy * y, z], axis=-1)


def ray_layout(settings: LidarSettings) -> RayLayout:
    """The rays of every pixel of the range image (see the module docstring)."""
    width, height = image_width(settings), image_height(settings)
    fov = settings.field_of_view
    rows = layer_rows(settings).astype(float)
    res = settings.horizontal_resolution
    if settings.rotating:
        yaw = math.pi - 2.0 * math.pi * np.arange(res) / res
        relative = np.zeros(res)
    else:
        yaw = np.zeros(res)
        relative = fov / 2.0 - (np.arange(res) + 0.5) * fov / width
    if settings.planar:
        fov_y = 2.0 * math.atan(math.tan(fov / 2.0) * height / width)
        a = np.tan(relative) if settings.rotating else math.tan(fov / 2.0) * (1.0 - 2.0 * (np.arange(res) + 0.5) / width)
        b = math.tan(fov_y / 2.0) * (1.0 - 2.0 * (rows + 0.5) / height)
        azimuth = np.broadcast_to(np.arctan(a)[None, :], (len(rows), res))
        elevation = np.arctan(b[:, None] / np.sqrt(1.0 + a[None, :] ** 2))
        scale = np.cos(azimuth) * np.cos(elevation)  # the component along the camera axis
        face = scale
    else:
        span = fov * height / width
        elevation = np.broadcast_to((span / 2.0 - (rows + 0.5) * span / height)[:, None], (len(rows), res))
        azimuth = np.broadcast_to(relative[None, :], (len(rows), res))
        scale = np.ones((len(rows), res))
        face = face_cosines(azimuth, elevation)
    directions = _pitch_yaw(azimuth, elevation, np.broadcast_to(yaw[None, :], (len(rows), res)),
                            settings.tilt_angle)
    return RayLayout(np.ascontiguousarray(directions), np.ascontiguousarray(scale),
                     np.ascontiguousarray(face))


def point_cloud_angles(settings: LidarSettings) -> tuple[np.ndarray, np.ndarray]:
    """Webots' point-cloud angles: the elevation of each layer (tilt added), (layers,), and the azimuth of
    each column, (columns,) (``WbLidar::updatePointCloud``)."""
    width, height = image_width(settings), image_height(settings)
    fov, layers, res = settings.field_of_view, settings.number_of_layers, settings.horizontal_resolution
    span = fov * height / width
    if layers > 1:
        phi = span / 2.0 - np.arange(layers) * (span / (layers - 1))
    else:
        phi = np.zeros(1)
    if settings.rotating:
        theta = -math.pi - np.arange(res) * (2.0 * math.pi / res)
    else:
        theta = fov / 2.0 - (np.arange(res) + 0.5) * (fov / width)
    return phi + settings.tilt_angle, theta


def sweep_columns(settings: LidarSettings, previous_angle: float, current_angle: float) -> np.ndarray:
    """The range-image columns a rotating head refreshes in one step, as Webots copies them
    (``WbLidar::copyAllLayersToMemoryMappedFile``): the pixels of the head's camera within the angle swept,
    centred on the head's previous direction.

    Args:
        previous_angle, current_angle: the head's cumulative yaw (rad, negative: Webots turns clockwise)
            before and after the step.

    Returns:
        The column indices, in the order Webots writes them, int (k,).
    """
    width, res = image_width(settings), settings.horizontal_resolution
    pixels = sweep_pixels(settings, previous_angle, current_angle)
    turns = abs((previous_angle - math.pi) / (2.0 * math.pi))
    angle = (turns - math.floor(turns)) * (2.0 * math.pi)
    offset = int(int(res * (angle / (2.0 * math.pi))) - width / 2.0)
    return (pixels + offset) % res


def sweep_pixels(settings: LidarSettings, previous_angle: float, current_angle: float) -> np.ndarray:
    """The head camera's pixel columns a rotating head copies in one step, in :func:`sweep_columns`' order
    (pixel ``p`` looks at ``fov / 2 - (p + 0.5) fov / width`` from the head's axis), int (k,)."""
    width = image_width(settings)
    ratio = min(abs(current_angle - previous_angle) / settings.field_of_view, 1.0)
    first = int((width / 2.0) * (1.0 - ratio))
    last = int((width / 2.0) * (1.0 + ratio))
    return np.arange(first, last)
