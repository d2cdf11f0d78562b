"""Lidars with Webots semantics (``WbLidar`` over its depth camera), each cast as one ``mj_multiRay`` call.

**Rays.** Each pixel of the range image is a ray from the lidar's origin (:mod:`.rays`); all the rays of a
lidar due are cast in one ``mujoco.mj_multiRay`` call (one origin per call: exactly a lidar), against the
collision geoms (boundingObjects), leaving out the lidar's own body (``bodyexclude``) and geoms beyond
``maxRange`` (``cutoff``). A hit closer than ``near`` is clipped (the rare rays concerned are cast again from
``near`` on, one ``mj_ray`` each), as Webots' camera clips what is nearer than its near plane.

**Value** of a ray hitting at distance ``t`` (inf for none), as Webots' shaders compute it
(``encode_depth``, ``range_noise``, ``depth_resolution``, ``merge_spherical``), from the depth ``d = t * c``
in the depth buffer that holds the ray (``c``: the cosine to the axis of that (sub-)camera,
:attr:`~.rays.RayLayout.face_cosine`; a hit with ``d < near`` is clipped and the ray goes on):

- planar: ``d``, inf where ``d < minRange`` or ``d >= maxRange``, then Gaussian noise of standard deviation
  ``noise * maxRange`` (from the simulation's seeded generator) and the resolution ``floor(d / r + 0.5) * r``;
- cylindrical: the same on ``d`` (each sub-camera's shaders), then ``d / c`` where ``d < maxRange`` (the
  distance along the ray: the noise is ``noise * maxRange / c`` and the rounding that of ``d``), then inf
  where that is below ``minRange`` or ``>= maxRange``;

stored as float32 (Webots' image). Before the first sample the image holds zeros.

**When.** A fixed lidar samples on Webots' sensor schedule with the poses after the step. A rotating lidar
samples every basic step while enabled (Webots forces its period to ``basicTimeStep``); before each step its
head turns by ``-2 pi f dt`` and only the columns swept (:func:`~.rays.sweep_columns`) are cast and written,
so the image fills progressively as the head turns.

**Point cloud** (when enabled): for the columns written, Webots' ``updatePointCloud`` with its own angles
(:func:`~.rays.point_cloud_angles`): ``(r cos(theta) cos(phi), r sin(theta) cos(phi), r sin(phi))`` in the
lidar frame, ``layer_id`` and ``time = now - J * period / width``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from wbsim.devices.kind import BankContext
from wbsim.devices.lidar.compile import LidarBinding
from wbsim.devices.lidar.rays import face_cosines, point_cloud_angles, ray_layout, sweep_columns, sweep_pixels
from wbsim.devices.lidar.schema import LidarSettings, image_width
from wbsim.devices.sampling import SampledBank, SampledDevice

__all__ = ["LidarBank", "Lidar", "POINT_DTYPE"]

POINT_DTYPE = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("layer_id", "<i4"), ("time", "<f4")])
"""Webots' ``WbLidarPoint`` (20 bytes): x, y, z (m, lidar frame), layer_id, time (s)."""


@dataclass(eq=False)
class _Scan:
    """What one lidar casts, precomputed at load: its rays and point-cloud angles."""

    settings: LidarSettings
    directions: np.ndarray  # (layers * columns, 3), lidar frame
    depth_scale: np.ndarray  # (layers * columns,)
    face_cosine: np.ndarray  # (layers * columns,)
    elevation: np.ndarray | None  # rotating heads: (layers, 1), each row's |elevation| in the head camera
    cos_phi: np.ndarray  # (layers, 1)
    sin_phi: np.ndarray
    cos_theta: np.ndarray  # (1, columns)
    sin_theta: np.ndarray
    width: int

    @staticmethod
    def of(settings: LidarSettings) -> _Scan:
        layout = ray_layout(settings)
        phi, theta = point_cloud_angles(settings)
        # A rotating head's layout looks along the head camera's axis (azimuth 0), so its face cosines are the
        # cosines of the rows' elevations; the pixels' azimuths come with each sweep.
        elevation = np.arccos(np.minimum(layout.face_cosine[:, :1], 1.0)) if settings.rotating else None
        return _Scan(settings, layout.directions.reshape(-1, 3).copy(), layout.depth_scale.reshape(-1).copy(),
                     layout.face_cosine.reshape(-1).copy(), elevation, np.cos(phi)[:, None],
                     np.sin(phi)[:, None], np.cos(theta)[None, :], np.sin(theta)[None, :],
                     image_width(settings))


class LidarBank(SampledBank):
    """State and sampling of all Lidars of one simulation (row ``i`` is ``bindings[i]``).

    Args:
        bindings: the lidars, in scene order.
        context: the simulation's model, data, generator and clock.

    Attributes:
        images: each lidar's range image, float32 (layers * horizontalResolution,), row-major by layer (m;
            inf: nothing within the range), updated in place.
        points: each lidar's point cloud, :data:`POINT_DTYPE` (layers * horizontalResolution,).
        point_cloud: the point cloud is enabled, bool (n,).
        frequency: each head's rotation frequency (Hz), (n,).
        head_angle: each head's cumulative yaw (rad, clockwise negative), (n,).
    """

    carried = ("images", "points", "point_cloud", "frequency", "head_angle", "requested_ms")

    def __init__(self, bindings: tuple[LidarBinding, ...], context: BankContext) -> None:
        super().__init__(bindings, context)
        self.bindings: tuple[LidarBinding, ...] = bindings
        self._scans = [_Scan.of(b.settings) for b in bindings]
        self._sites = np.array([b.site_id for b in bindings], dtype=np.int64)
        self.rotating = np.array([b.settings.rotating for b in bindings], dtype=bool)
        sizes = [len(s.depth_scale) for s in self._scans]
        self.images = [np.zeros(size, dtype=np.float32) for size in sizes]
        self.points = [np.zeros(size, dtype=POINT_DTYPE) for size in sizes]
        for scan, points in zip(self._scans, self.points):
            points["layer_id"] = np.repeat(np.arange(scan.settings.number_of_layers, dtype=np.int32),
                                           scan.settings.horizontal_resolution)
        self.point_cloud = np.zeros(self.n, dtype=bool)
        self.frequency = np.array([b.settings.default_frequency for b in bindings])
        self.head_angle = np.zeros(self.n)
        self.requested_ms = np.zeros(self.n, dtype=np.int64)

    def core(self, row: int) -> Lidar:
        """The core Lidar of row ``row``."""
        return Lidar(self, row, str(self.bindings[row].node["name"]), self.context.now_step)

    def settings(self, row: int) -> LidarSettings:
        """The (repaired) fields of lidar ``row``."""
        return self.bindings[row].settings

    # -- control --------------------------------------------------------------------------------------
    def enable(self, row: int, period_ms: int, now_step: int) -> None:
        """Enable (period > 0) or disable (0) lidar ``row``; a rotating lidar samples every basic step."""
        self.requested_ms[row] = period_ms
        if self.rotating[row] and period_ms > 0:
            super().enable(row, int(math.ceil(self.context.basic_time_step_ms)), now_step)
        else:
            super().enable(row, period_ms, now_step)

    @property
    def period_ms(self) -> np.ndarray:
        """The sampling period each controller asked for (0 = disabled), (n,)."""
        return self.requested_ms

    # -- resets ---------------------------------------------------------------------------------------
    def reset(self) -> None:
        """Everything as after loading: disabled, zero images, point clouds off, heads at rest."""
        self.schedule.reset()
        self.requested_ms[:] = 0
        for image, points in zip(self.images, self.points):
            image[:] = 0.0
            for name in ("x", "y", "z", "time"):
                points[name] = 0.0
        self._restart_heads()

    def restart(self) -> None:
        """Webots' ``WbLidar::reset`` (world reset): enabled lidars stay enabled, the simulator stops computing
        point clouds, heads go back to rest; the frequency a controller set stays (``wb_lidar_set_frequency``
        writes the ``defaultFrequency`` field, and a supervisor reset restores no such field). The last image
        stays readable. A fixed lidar scans in the reset step, from the initial state (Webots renders its
        cameras after the reset, ``WbRobot::renderCameras``, and ``WbLidar::writeAnswer`` copies the image); a
        rotating one first at the end of the next physics step (Webots turns the head before the physics and
        copies its columns after it, ``WbLidar::postPhysicsStep``)."""
        self.schedule.restart(first_step=np.where(self.rotating, 2, 1))
        self.point_cloud[:] = False
        self.head_angle[:] = 0.0

    def _restart_heads(self) -> None:
        self.point_cloud[:] = False
        self.head_angle[:] = 0.0
        self.frequency[:] = [b.settings.default_frequency for b in self.bindings]

    # -- per step -------------------------------------------------------------------------------------
    def sample(self, data: mujoco.MjData, step: int) -> None:
        """Cast and store the scans of the lidars due after basic step ``step``."""
        groups = self.schedule.due(step)
        if not groups:
            return
        self.context.refresh_kinematics()
        now_s = step * self.context.basic_time_step_ms / 1000.0
        dt_s = self.context.basic_time_step_ms / 1000.0
        for group in groups:
            for row in group.rows.tolist():
                scan = self._scans[row]
                if self.rotating[row]:
                    previous = float(self.head_angle[row])
                    current = previous - 2.0 * math.pi * float(self.frequency[row]) * dt_s
                    self.head_angle[row] = current
                    columns = sweep_columns(scan.settings, previous, current)
                    pixels = sweep_pixels(scan.settings, previous, current)
                    # Webots copies a rotating lidar's columns in postPhysicsStep, before the clock advances.
                    self._scan(data, row, scan, columns, now_s - dt_s, pixels)
                else:
                    self._scan(data, row, scan, None, now_s)

    def _scan(self, data: mujoco.MjData, row: int, scan: _Scan, columns: np.ndarray | None, now_s: float,
              pixels: np.ndarray | None = None) -> None:
        """Cast the rays of lidar ``row`` (all, or the given columns of every layer, copied from the head
        camera's ``pixels``) and store their values."""
        settings = scan.settings
        res = settings.horizontal_resolution
        if columns is None:
            index = None
            local, scale, cosine = scan.directions, scan.depth_scale, scan.face_cosine
        else:
            index = (np.arange(settings.number_of_layers)[:, None] * res + columns[None, :]).reshape(-1)
            local, scale, cosine = scan.directions[index], scan.depth_scale[index], scan.face_cosine[index]
            if not settings.planar and pixels is not None:  # the head camera's pixels these columns come from
                fov, width = settings.field_of_view, scan.width
                azimuth = fov / 2.0 - (pixels + 0.5) * (fov / width)
                cosine = face_cosines(azimuth[None, :], scan.elevation).reshape(-1)
        site = int(self._sites[row])
        origin = data.site_xpos[site].copy()
        world = local @ data.site_xmat[site].reshape(3, 3).T
        t = self._cast(data, origin, world, self.bindings[row].exclude_body, settings, cosine)
        rng = self.context.rng() if settings.noise > 0.0 else None
        if settings.planar:
            values = self._limit(t * scale, settings)
            values = self._blur(values, settings, rng)
        else:
            # Each sub-camera's depth buffer (encode_depth, range_noise, depth_resolution), then
            # merge_spherical: back to the distance along the ray, and the range limits again.
            depth = self._blur(self._limit(t * cosine, settings), settings, rng)
            with np.errstate(invalid="ignore"):
                values = self._limit(np.where(depth < settings.max_range, depth / cosine, depth), settings)
        image = self.images[row]
        if index is None:
            image[:] = values
        else:
            image[index] = values
        if self.point_cloud[row]:
            self._points(row, scan, index, columns, now_s)

    def _cast(self, data: mujoco.MjData, origin: np.ndarray, world: np.ndarray, exclude: int,
              settings: LidarSettings, cosine: np.ndarray) -> np.ndarray:
        """Distances (m) along unit rays ``world`` (k, 3) from ``origin`` to the nearest geom within
        ``maxRange`` and beyond the near plane (inf for none), (k,). The near plane is a depth: a ray's hit is
        clipped when its distance times its camera-axis ``cosine`` (k,) is below ``near``."""
        count = len(world)
        geom = np.empty(count, dtype=np.int32)
        dist = np.empty(count)
        mujoco.mj_multiRay(self.context.model, data, origin, world.reshape(-1), None, 1, exclude, geom, dist, None,
                           count, settings.max_range)
        t = np.where(geom >= 0, dist, np.inf)
        clipped = np.flatnonzero(t * cosine < settings.near)
        if len(clipped):  # rare (something within `near`): cast those rays again beyond the near plane
            one = np.zeros(1, dtype=np.int32)
            for k in clipped.tolist():
                near = settings.near / float(cosine[k])  # where the ray crosses the near plane
                start = origin + near * world[k]
                d = mujoco.mj_ray(self.context.model, data, start, world[k], None, 1, exclude, one)
                t[k] = near + d if d >= 0.0 and near + d <= settings.max_range else np.inf
        return t

    @staticmethod
    def _limit(values: np.ndarray, settings: LidarSettings) -> np.ndarray:
        """inf outside ``[minRange, maxRange)``."""
        return np.where((values < settings.min_range) | (values >= settings.max_range), np.inf, values)

    @staticmethod
    def _blur(values: np.ndarray, settings: LidarSettings, rng: np.random.Generator | None) -> np.ndarray:
        """Webots' range noise (one draw per ray, inf stays inf) and resolution."""
        if rng is not None:
            values = values + (settings.noise * settings.max_range) * rng.standard_normal(len(values))
        if settings.resolution > 0.0:
            with np.errstate(invalid="ignore"):
                values = np.floor(values / settings.resolution + 0.5) * settings.resolution
        return values

    def _points(self, row: int, scan: _Scan, index: np.ndarray | None, columns: np.ndarray | None,
                now_s: float) -> None:
        """Webots' point cloud for the pixels just written (``WbLidar::updatePointCloud``)."""
        settings = scan.settings
        layers, res = settings.number_of_layers, settings.horizontal_resolution
        period_ms = self.context.basic_time_step_ms if self.rotating[row] else float(self.requested_ms[row])
        points = self.points[row]
        r = self.images[row].reshape(layers, res).astype(np.float64)
        cols = np.arange(res) if columns is None else columns
        r = r[:, cols]
        with np.errstate(invalid="ignore"):
            x = r * scan.cos_theta[:, cols] * scan.cos_phi
            y = r * scan.sin_theta[:, cols] * scan.cos_phi
            z = r * scan.sin_phi * np.ones_like(r)
        time = np.broadcast_to(now_s - cols * (period_ms / 1000.0) / scan.width, r.shape)
        flat = slice(None) if index is None else index
        points["x"][flat] = x.reshape(-1)
        points["y"][flat] = y.reshape(-1)
        points["z"][flat] = z.reshape(-1)
        points["time"][flat] = time.reshape(-1)


@dataclass
class Lidar(SampledDevice):
    """One Lidar (snake_case core API; the Webots ``Lidar`` class wraps it)."""

    kind: str = "lidar"

    @property
    def settings(self) -> LidarSettings:
        """The fields after Webots' repairs."""
        return self.bank.settings(self.index)

    @property
    def range_image(self) -> np.ndarray:
        """The last range image, float32 (layers, horizontalResolution), m (a view, updated in place)."""
        s = self.settings
        return self.bank.images[self.index].reshape(s.number_of_layers, s.horizontal_resolution)

    @property
    def point_cloud(self) -> np.ndarray:
        """The last point cloud, :data:`POINT_DTYPE` (layers * horizontalResolution,) (a view)."""
        return self.bank.points[self.index]

    @property
    def point_cloud_enabled(self) -> bool:
        """True if the simulator computes the point cloud at each sample (a world reset turns it off)."""
        return bool(self.bank.point_cloud[self.index])

    def enable_point_cloud(self, enabled: bool = True) -> None:
        """Compute (or stop computing) the point cloud from the next sample on."""
        self.bank.point_cloud[self.index] = enabled

    @property
    def frequency(self) -> float:
        """The head's rotation frequency (Hz)."""
        return float(self.bank.frequency[self.index])

    def set_frequency(self, frequency: float) -> None:
        """Set the head's rotation frequency (Hz; the caller checks Webots' range)."""
        self.bank.frequency[self.index] = frequency

    @property
    def head_angle(self) -> float:
        """The head's cumulative yaw (rad; Webots turns it clockwise, so it decreases)."""
        return float(self.bank.head_angle[self.index])
