"""Batched ray casting against the collision geoms of a world, with the rules of Webots' distance sensors.

One call of :meth:`RayCaster.cast` intersects every ray of every sensor due with the scene: with the
compiled loops of :mod:`.kernel` (numba, when installed), or vectorised with numpy over (ray, geom) pairs
(the reference: both give the same hits). ``mujoco.mj_multiRay`` casts rays from a single origin only (one call
per sensor), excludes one body, not a robot, and costs about 29 us per call of 3 rays on the distance
benchmark's world (103 geoms, 1 m cutoff; 4.6 ms for its 160 sensors, ten times this caster); this
caster instead:

1. keeps the (sensor, geom) pairs whose distance is within the ray length plus the geom's bounding
   radius (``geom_rbound``), minus the geoms the sensor must not see (its own robot, transparent geoms);
2. expands them to (ray, geom) pairs and keeps those whose ray segment passes through the geom's bounding
   sphere; steps 1 and 2 look a margin farther and their pairs serve the next casts while nothing moved by
   that margin (:class:`_Candidates`), each cast keeping those whose segment crosses the sphere now;
3. intersects those pairs exactly, per geom type, in the geom frame: boxes, spheres, capsules and
   cylinders give the interval ``[t_in, t_out]`` of the ray inside the solid, meshes and height fields
   their nearest triangle (Moller-Trumbore, both faces); planes (infinite, MuJoCo's) are cast for every
   ray at once;
4. keeps the nearest hit of each ray.

Two hit rules, as in Webots:

- **ODE rays** (generic, sonar, laser: ``dCollide`` of an ODE ray of length ``L``): the entry point if the
  origin is outside the solid, else the exit point; hits at ``0 <= t <= L``; the normal is the surface
  normal turned against the ray (ODE's ray contacts).
- **Rendering rays** (infra-red: ``WbNodeUtilities::findIntersectingShape``): the entry point only, so a
  solid containing the origin is not seen; hits at ``0 < t < L``.

All arrays are in the world frame, lengths in metres. See ``docs/distance_sensor.md``.
"""

from __future__ import annotations

import copy
import math
import weakref
from dataclasses import dataclass

import mujoco
import numpy as np

from wbsim.devices.packed import Packed, pack

__all__ = ["RayTargets", "RayBatch", "RayHits", "RayCaster", "BOX", "SPHERE", "CAPSULE", "CYLINDER", "PLANE",
           "MESH", "HFIELD", "primitive_interval", "capsule_interval", "nearest_triangle"]

BOX, SPHERE, CAPSULE, CYLINDER, PLANE, MESH, HFIELD = range(7)
"""Target kinds (the MuJoCo geom types wbsim compiles boundingObjects to)."""

_KIND_OF = {
    int(mujoco.mjtGeom.mjGEOM_BOX): BOX,
    int(mujoco.mjtGeom.mjGEOM_SPHERE): SPHERE,
    int(mujoco.mjtGeom.mjGEOM_CAPSULE): CAPSULE,
    int(mujoco.mjtGeom.mjGEOM_CYLINDER): CYLINDER,
    int(mujoco.mjtGeom.mjGEOM_PLANE): PLANE,
    int(mujoco.mjtGeom.mjGEOM_MESH): MESH,
    int(mujoco.mjtGeom.mjGEOM_HFIELD): HFIELD,
}
_SLACK = 1e-9  # m: broad-phase tolerance, so rounding never drops a grazing hit


@dataclass(frozen=True)
class RayTargets:
    """The geoms distance-sensor rays can hit, with what Webots' rules need (one entry per geom).

    Attributes:
        geom_ids: the MuJoCo geoms (the collision geoms of Solids' boundingObjects).
        robots: the innermost Robot of each geom's Solid, as an index (-1: none); an ODE ray ignores the
            geoms of its own robot unless that robot has ``selfCollision``.
        transparent: the geom's boundingObject Shape has a transparency of 1 (laser rays ignore it).
        infra_red: Webots' reflection factor ``0.2 + 0.8 red (1 - 0.5 roughness) (1 - 0.5 occlusion)`` of
            the surface, for infra-red sensors (1.0 for Webots' default white).
        plane_half: for planes, the half sizes (x, y) of the Webots Plane (infra-red rays see the finite
            rendered plane; ODE rays the infinite one); (inf, inf) otherwise.
    """

    geom_ids: tuple[int, ...]
    robots: tuple[int, ...]
    transparent: tuple[bool, ...]
    infra_red: tuple[float, ...]
    plane_half: tuple[tuple[float, float], ...]


@dataclass(frozen=True, eq=False)
class RayBatch:
    """The rays of the sensors cast together, with what the broad phase precomputes (:meth:`build`).

    Attributes:
        sites: the MuJoCo site at each sensor's origin (its frame), (s,).
        ray_sensor: the sensor (0..s-1) of each ray; a sensor's rays are contiguous, in sensor order, (r,).
        directions: each ray's unit direction in its sensor's frame, (r, 3).
        lengths: each sensor's ray length (m), (s,).
        exclude: the robot index whose geoms each sensor ignores (-2: none), (s,).
        skip_transparent: the sensor ignores transparent geoms (laser), (s,).
        rendering: the sensor uses the rendering rule (infra-red), (s,).
        ray_start: the index of each sensor's first ray, (s,).
        ray_count: the number of rays of each sensor, (s,).
        cone_cos, cone_sin: cosine and sine of the largest angle between a sensor's rays and its axis, (s,).
        cluster_body: the bodies carrying the sensors (each a cluster of sensors), (c,).
        cluster_radius: the radius around each cluster body's origin that holds all its sensors' rays in the
            compiled model, (c,) (the broad phase recomputes it from the current sites: a supervisor may move
            a sensor on its body).
        sensor_cluster: each sensor's cluster, (s,).
        cluster_start, cluster_count: each cluster's sensors in :attr:`cluster_members`, (c,).
        cluster_members: the sensors grouped by cluster, (s,).
        cluster_exclude: the robot all sensors of a cluster ignore (-2: none, or they differ), (c,).
        mixed_exclusion: some cluster's sensors ignore different robots.
        local: :attr:`directions` as (3, r), one row per coordinate.
        ray_length: each ray's length, (r,).
        any_rendering: some sensor uses the rendering rule.
    """

    sites: np.ndarray
    ray_sensor: np.ndarray
    directions: np.ndarray
    lengths: np.ndarray
    exclude: np.ndarray
    skip_transparent: np.ndarray
    rendering: np.ndarray
    ray_start: np.ndarray
    ray_count: np.ndarray
    cone_cos: np.ndarray
    cone_sin: np.ndarray
    cluster_body: np.ndarray
    cluster_radius: np.ndarray
    sensor_cluster: np.ndarray
    cluster_start: np.ndarray
    cluster_count: np.ndarray
    cluster_members: np.ndarray
    cluster_exclude: np.ndarray
    mixed_exclusion: bool
    local: np.ndarray
    ray_length: np.ndarray
    any_rendering: bool

    @staticmethod
    def build(model: mujoco.MjModel, sites: np.ndarray, ray_count: np.ndarray, directions: np.ndarray,
              lengths: np.ndarray, exclude: np.ndarray, skip_transparent: np.ndarray,
              rendering: np.ndarray) -> RayBatch:
        """A batch from per-sensor arrays (s,) and the rays' directions (r, 3), sensor after sensor.

        Sensors on one MuJoCo body form a cluster: the body's origin and the largest site offset plus ray
        length bound all their rays, so the broad phase first tests clusters against geoms.
        """
        sites = np.asarray(sites, dtype=np.int64)
        ray_count = np.asarray(ray_count, dtype=np.int64)
        lengths = np.maximum(np.asarray(lengths, dtype=float), 0.0)
        ray_sensor = np.repeat(np.arange(len(sites)), ray_count)
        angle = np.arccos(np.clip(directions[:, 0], -1.0, 1.0)) if len(directions) else np.zeros(0)
        widest = np.maximum.reduceat(angle, np.cumsum(ray_count) - ray_count) if len(sites) else np.zeros(0)
        bodies = model.site_bodyid[sites]
        reach = np.linalg.norm(model.site_pos[sites], axis=1) + lengths
        cluster_body, cluster_of = np.unique(bodies, return_inverse=True)
        members = np.argsort(cluster_of, kind="stable")
        count = np.bincount(cluster_of, minlength=len(cluster_body))
        radius = np.zeros(len(cluster_body))
        np.maximum.at(radius, cluster_of, reach)
        exclude = np.asarray(exclude, dtype=np.int64)
        low = np.full(len(cluster_body), np.iinfo(np.int64).max)
        high = np.full(len(cluster_body), np.iinfo(np.int64).min)
        np.minimum.at(low, cluster_of, exclude)
        np.maximum.at(high, cluster_of, exclude)
        uniform = low == high
        directions = np.asarray(directions, dtype=float).reshape(-1, 3)
        rendering = np.asarray(rendering, dtype=bool)
        return RayBatch(
            sites=sites, ray_sensor=ray_sensor, directions=directions, lengths=lengths, exclude=exclude,
            skip_transparent=np.asarray(skip_transparent, dtype=bool), rendering=rendering,
            ray_start=np.cumsum(ray_count) - ray_count, ray_count=ray_count,
            cone_cos=np.cos(widest), cone_sin=np.sin(widest),
            cluster_body=cluster_body.astype(np.int64), cluster_radius=radius,
            sensor_cluster=np.asarray(cluster_of, dtype=np.int64).reshape(-1),
            cluster_start=np.cumsum(count) - count, cluster_count=count, cluster_members=members,
            cluster_exclude=np.where(uniform, low, -2), mixed_exclusion=not bool(uniform.all()),
            local=np.ascontiguousarray(directions.T), ray_length=lengths[ray_sensor],
            any_rendering=bool(rendering.any()),
        )

    @staticmethod
    def concatenate(model: mujoco.MjModel, batches: list[RayBatch]) -> RayBatch:
        """One batch with the sensors of ``batches``, in order."""
        def cat(name: str) -> np.ndarray:
            return np.concatenate([getattr(b, name) for b in batches])

        return RayBatch.build(model, cat("sites"), cat("ray_count"), cat("directions"), cat("lengths"),
                              cat("exclude"), cat("skip_transparent"), cat("rendering"))


@dataclass
class RayHits:
    """What each ray of a batch hit.

    Attributes:
        distance: the distance to the hit (m), inf for none, (r,).
        target: the index in :class:`RayTargets` of the geom hit, -1 for none, (r,).
        normal: the world surface normal at the hit, turned against the ray (zero without hit or when
            normals were not asked for), (r, 3).
        direction: each ray's world unit direction, (r, 3).
    """

    distance: np.ndarray
    target: np.ndarray
    normal: np.ndarray
    direction: np.ndarray


# -- exact intersections in the geom frame ------------------------------------------------------------
# Arrays are (3, n): one row per coordinate (numpy reduces long rows much faster than (n, 3) rows of 3).
def _numba_installed() -> bool:
    """numba can be imported (without importing it: that takes about a second)."""
    import importlib.util

    return importlib.util.find_spec("numba") is not None


def primitive_interval(p: np.ndarray, v: np.ndarray, half: np.ndarray, quadric: np.ndarray, radius2: np.ndarray,
                       normals: bool) -> tuple[np.ndarray, ...]:
    """The ray parameters ``t_in <= t_out`` inside convex primitives centred at the origin, each the
    intersection of the slabs ``|x_k| <= half_k`` and the quadric ``sum_k quadric_k x_k^2 <= radius2``.

    A box has ``quadric`` 0 (and ``radius2`` 1); a sphere infinite ``half``; a cylinder along z
    ``half = (inf, inf, h)`` and ``quadric = (1, 1, 0)``. The slab part is ODE's box test.

    Args:
        p: the ray origins, (3, n).
        v: the unit ray directions, (3, n).
        half: the slabs' half widths (inf: none), (3, n).
        quadric: the quadric's coefficients (0 or 1), (3, n).
        radius2: the quadric's squared radius, (n,).
        normals: also compute the outward normals.

    Returns:
        (t_in, t_out, outward normal at t_in (3, n), outward normal at t_out (3, n), the interval is not
        empty); the normals are None unless ``normals``.
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # IEEE infinities, as ODE
        return _primitive_interval(p, v, half, quadric, radius2, normals)


def _primitive_interval(p: np.ndarray, v: np.ndarray, half: np.ndarray, quadric: np.ndarray, radius2: np.ndarray,
                        normals: bool) -> tuple[np.ndarray, ...]:
    """:func:`primitive_interval` without its floating-point error state (the caller ignores IEEE warnings)."""
    t1 = (-half - p) / v
    t2 = (half - p) / v
    if not v.all():
        # A ray parallel to a slab: inside it (ODE: on its faces too) (-inf, inf); outside it, empty (the
        # infinities of x / 0 give both; 0 / 0, on a face, is NaN).
        t1[np.isnan(t1)] = -np.inf
        t2[np.isnan(t2)] = np.inf
    lo = np.fmin(t1, t2)
    hi = np.fmax(t1, t2)
    slab_in = np.maximum(np.maximum(lo[0], lo[1]), lo[2])  # lo.max(axis=0) as numpy reduces it, faster
    slab_out = np.minimum(np.minimum(hi[0], hi[1]), hi[2])
    qv = quadric * v
    a = np.einsum("ij,ij->j", qv, v)
    b = np.einsum("ij,ij->j", qv, p)
    c = np.einsum("ij,ij->j", quadric * p, p) - radius2
    k = b * b - a * c
    moving = a > 1e-18  # else along the quadric's axis: a radial drift under 1e-9 per metre is none
    root = np.sqrt(np.maximum(k, 0.0))
    still = np.where(c <= 0.0, -np.inf, np.inf)  # no motion across the quadric: always in, or never
    q_in = np.where(moving, (-b - root) / a, still)  # (what a division by a ~ 0 gives is not selected)
    q_out = np.where(moving, (-b + root) / a, -still)
    t_in = np.maximum(slab_in, q_in)
    t_out = np.minimum(slab_out, q_out)
    ok = (~moving | (k >= 0.0)) & (t_in <= t_out)
    if not normals:
        return t_in, t_out, None, None, ok
    columns = np.arange(p.shape[1])
    radius = np.sqrt(np.where(radius2 > 0.0, radius2, 1.0))

    def normal(t: np.ndarray, slab: np.ndarray, axis: np.ndarray, sign: float) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore"):  # far (unused) points of nearly parallel rays
            n = quadric * (p + np.where(np.isfinite(t), t, 0.0) * v) / radius
        flat = slab >= np.where(sign < 0, q_in, -q_out)  # the slab bounds the interval there
        n[:, flat] = 0.0
        n[axis[flat], columns[flat]] = sign * np.sign(v[axis[flat], columns[flat]])
        return n

    n_in = normal(t_in, slab_in, lo.argmax(axis=0), -1.0)  # the face the ray enters through faces it
    n_out = normal(t_out, -slab_out, hi.argmin(axis=0), 1.0)
    return t_in, t_out, n_in, n_out, ok


def capsule_interval(p: np.ndarray, v: np.ndarray, radius: np.ndarray, half_height: np.ndarray,
                     normals: bool) -> tuple[np.ndarray, ...]:
    """The ray parameters inside capsules along z (radius, half length of the segment, (n,)); arrays (3, n).

    A capsule is the union of a cylinder and two balls, a convex set: the ray is inside it from the
    earliest entry into a part to the latest exit from one.

    Returns:
        As :func:`primitive_interval`.
    """
    n = p.shape[1]
    shift = np.zeros_like(p)
    shift[2] = half_height
    inf = np.full(n, np.inf)
    half = np.concatenate([np.stack([inf, inf, inf])] * 2 + [np.stack([inf, inf, half_height])], axis=1)
    quadric = np.concatenate([np.ones((3, 2 * n)), np.stack([np.ones(n), np.ones(n), np.zeros(n)])], axis=1)
    r2 = np.tile(radius * radius, 3)
    # Balls first: they win ties at the rims.
    t_in, t_out, n_in, n_out, ok = primitive_interval(np.concatenate([p - shift, p + shift, p], axis=1),
                                                      np.tile(v, 3), half, quadric, r2, normals)
    t_in = np.where(ok, t_in, np.inf).reshape(3, n)
    t_out = np.where(ok, t_out, -np.inf).reshape(3, n)
    first, last = t_in.argmin(axis=0), t_out.argmax(axis=0)
    columns = np.arange(n)
    hit = ok.reshape(3, n).any(axis=0)
    if not normals:
        return t_in[first, columns], t_out[last, columns], None, None, hit
    assert n_in is not None and n_out is not None
    n_in = n_in.reshape(3, 3, n)[:, first, columns]
    n_out = n_out.reshape(3, 3, n)[:, last, columns]
    return t_in[first, columns], t_out[last, columns], n_in, n_out, hit


def nearest_triangle(p: np.ndarray, v: np.ndarray, pair: np.ndarray, a: np.ndarray, e1: np.ndarray,
                     e2: np.ndarray, n_pairs: int, strict: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The nearest triangle hit (both faces, Moller-Trumbore) of each ray among the triangles given for it.

    Args:
        p, v: the origin and unit direction of each (ray, triangle) test in the triangle frame, (m, 3).
        pair: the ray (0..n_pairs-1) each test belongs to, (m,).
        a, e1, e2: a vertex of each triangle and its two edges from it, (m, 3).
        n_pairs: the number of rays.
        strict: per ray, require ``t > 0`` (rendering rays) instead of ``t >= 0``, (n_pairs,).

    Returns:
        (distance per ray, inf without hit (n_pairs,); unit normal turned against the ray, zero without hit,
        (n_pairs, 3)).
    """
    pvec = np.cross(v, e2)
    det = np.einsum("ij,ij->i", e1, pvec)
    ok = np.abs(det) > 1e-14
    inv = 1.0 / np.where(ok, det, 1.0)
    tvec = p - a
    u = np.einsum("ij,ij->i", tvec, pvec) * inv
    q = np.cross(tvec, e1)
    w = np.einsum("ij,ij->i", v, q) * inv
    t = np.einsum("ij,ij->i", e2, q) * inv
    ok &= (u >= 0.0) & (u <= 1.0) & (w >= 0.0) & (u + w <= 1.0)
    ok &= np.where(strict[pair], t > 0.0, t >= 0.0)
    t = np.where(ok, t, np.inf)
    best = np.full(n_pairs, np.inf)
    np.minimum.at(best, pair, t)
    normal = np.zeros((n_pairs, 3))
    win = ok & (t == best[pair])
    if win.any():
        n = np.cross(e1[win], e2[win])
        n /= np.linalg.norm(n, axis=1)[:, None]
        facing = np.einsum("ij,ij->i", n, v[win])
        normal[pair[win]] = n * np.where(facing > 0.0, -1.0, 1.0)[:, None]
    return best, normal


@dataclass(eq=False)
class _Candidates:
    """The (ray, bounded geom) pairs of a batch that may hit, found with every bounding sphere grown by
    ``margin`` (m), with the poses they were found in and what the exact tests gather for them.

    While the sensors' origins, their rays' far ends and the geoms' centres moved by less than ``margin`` in
    all, every ray segment that meets a bounding sphere is among them, so they replace the broad phase: the
    hits are those of a fresh broad phase, only cheaper.

    Attributes:
        ray, geom, sensor: each pair's ray, bounded-geom index and the ray's sensor, (m,).
        target, geom_id: the pair's target index and MuJoCo geom, (m,).
        centre_at, origin_at: flat indices of the pair's geom centre in the (b, 3) centres and of its sensor's
            origin in the (s, 3) origins, one row per coordinate, (3, m).
        length: the ray's length (m), (m,).
        radius2: the squared bounding radius (with the broad phase's slack), (m,).
        rendering: the ray uses the rendering rule, (m,).
        primitive: every pair's geom is a box, sphere or cylinder.
        origins, frames: the sensors' origins (s, 3) and rotations (s, 9) when found.
        centres: the bounded geoms' centres when found, (b, 3).
        margin: how far things may move (m).

    Only the numpy path makes them: the compiled broad phase writes its pairs into buffers its cast reads
    (:meth:`RayCaster._pair_buffers`).
    """

    ray: np.ndarray
    geom: np.ndarray
    sensor: np.ndarray
    target: np.ndarray
    geom_id: np.ndarray
    centre_at: np.ndarray
    origin_at: np.ndarray
    length: np.ndarray
    radius2: np.ndarray
    rendering: np.ndarray
    primitive: bool
    origins: np.ndarray
    frames: np.ndarray
    centres: np.ndarray
    margin: float

    def valid(self, origins: np.ndarray, frames: np.ndarray, centres: np.ndarray, reach: float) -> bool:
        """No ray and no geom centre moved by :attr:`margin` in all since the pairs were found.

        A point at distance ``s <= reach`` along a ray moved at most ``|d origin| + s ||d R||_2``, and for two
        rotations ``||d R||_2 = ||d R||_F / sqrt(2)``. NaN poses are never valid.

        Args:
            origins: the sensors' origins now, (s, 3).
            frames: the sensors' rotations now, (s, 9).
            centres: the bounded geoms' centres now, (b, 3).
            reach: the longest ray (m).
        """
        step = origins - self.origins
        turn = frames - self.frames
        shift = centres - self.centres
        moved = (math.sqrt(np.einsum("ij,ij->i", step, step).max(initial=0.0))
                 + math.sqrt(np.einsum("ij,ij->i", turn, turn).max(initial=0.0)) * (0.7072 * reach)
                 + math.sqrt(np.einsum("ij,ij->i", shift, shift).max(initial=0.0)))
        return moved <= self.margin - _SLACK


@dataclass(eq=False)
class _Static:
    """Per batch: (plane target, may each ray hit it (None: all)), the longest ray (m), whether its sensors use both hit rules, and the current candidate pairs
    (None until the first cast); for the compiled cast, its arguments for the batch (``head``) and for the
    current pairs (``pairs``)."""

    planes: tuple[tuple[int, np.ndarray | None], ...]
    reach: float
    mixed_rendering: bool
    candidates: _Candidates | None = None
    head: tuple | None = None
    pairs: tuple | None = None
    packed: Packed | None = None  # the compiled cast's pose views, head and pairs, packed (wbsim.devices.packed)
    views: tuple | None = None  # the pose views ``packed`` holds
    reused: tuple | None = None  # the outputs of :meth:`RayCaster.cast_distances`, kept between casts
    broad: tuple | None = None  # the compiled broad phase's pose views, margin and fixed arguments
    room: tuple | None = None  # the compiled broad phase's lasting outputs (RayCaster._pair_buffers)
    found: int = 0  # how many pairs of ``room`` the last compiled broad phase found


class RayCaster:
    """Casts batches of rays against a world's :class:`RayTargets` (built once per simulation).

    Args:
        model: the compiled MuJoCo model (geom types, sizes, meshes, height fields).
        targets: the geoms rays may hit.
        margin: how far (a fraction of the largest cluster radius of a batch) the broad phase looks beyond the
            bounding spheres, so that its pairs serve the following casts until something moves that far
            (0: a broad phase at every cast whose poses differ). The hits do not depend on it, only the cost.
        compiled: cast with the compiled loop of :mod:`.kernel` (numba; compiled at the first cast, or read
            from numba's cache) instead of numpy operations, broad phase included. None: compiled if numba is
            installed. The hits are the same (the tests compare the two).

    Attributes:
        grid_from: the number of (sensor cluster, bounded geom) pairs from which the compiled broad phase finds
            each cluster's geoms in a grid (:func:`.kernel.near_geoms`) instead of testing every pair: same
            pairs, a cost linear in the robots instead of quadratic. The default is the measured crossover
            (about 400,000 pairs, 300 robots with 8 sensors and 4 geoms each; the grid costs about 60 ns per
            candidate, a skipped pair about 5 ns).
    """

    grid_from: int = 1 << 18
    pair_room: int = 1024
    """The (ray, geom) pairs a batch's first compiled broad phase has room for; a broad phase finding more makes
    room for twice as many and runs again (each batch keeps its buffers: its packed cast reads them)."""

    def __init__(self, model: mujoco.MjModel, targets: RayTargets, margin: float = 0.1,
                 compiled: bool | None = None) -> None:
        self.margin = margin
        self.compiled = _numba_installed() if compiled is None else compiled
        self._kernel = None  # the compiled cast and broad phase, imported at the first cast
        self._broad_pairs = None
        self._every_pair = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))  # no grid: test every pair
        self._views: tuple | None = None  # (data, its pose arrays, its body positions) for the compiled cast
        self._scratch = np.zeros((7, 9))  # the compiled cast's work space
        self._shapes: tuple | None = None  # the compiled cast's per-target tables, packed at its first batch
        self.broad_phases = 0  # how many broad phases ran (the others reused their pairs)
        kinds = np.array([_KIND_OF.get(int(model.geom_type[g]), -1) for g in targets.geom_ids], dtype=np.int64)
        keep = kinds >= 0  # other geom types (none from boundingObjects) are not seen
        self.geom_ids = np.array(targets.geom_ids, dtype=np.int64)[keep]
        self.kind = kinds[keep]
        self.robot = np.array(targets.robots, dtype=np.int64)[keep]
        self.transparent = np.array(targets.transparent, dtype=bool)[keep]
        self.infra_red = np.array(targets.infra_red, dtype=float)[keep]
        self.plane_half = np.array(targets.plane_half, dtype=float).reshape(-1, 2)[keep]
        n = len(self.geom_ids)
        size = model.geom_size[self.geom_ids].copy() if n else np.zeros((0, 3))
        self.rbound = model.geom_rbound[self.geom_ids].copy() if n else np.zeros(0)
        self.any_transparent = bool(self.transparent.any())
        # Primitives as slabs and a quadric (see primitive_interval), (3, n) and (n,).
        inf = np.inf
        self._half = np.full((3, n), inf)
        self._quadric = np.zeros((3, n))
        self._radius2 = np.ones(n)
        box, sphere, cylinder = self.kind == BOX, self.kind == SPHERE, self.kind == CYLINDER
        self._half[:, box] = size[box].T
        self._quadric[:, sphere] = 1.0
        self._quadric[:2, cylinder] = 1.0
        self._half[2, cylinder] = size[cylinder, 1]
        self._radius2[sphere | cylinder] = size[sphere | cylinder, 0] ** 2
        self._capsule_size = size[:, :2].copy()
        self._primitive = box | sphere | cylinder
        planes = self.kind == PLANE
        self._planes = np.flatnonzero(planes)
        self._bounded = np.flatnonzero(~planes)
        self._bounded_gid = self.geom_ids[self._bounded]
        self._bounded_rb = self.rbound[self._bounded]
        self._bounded_robot = self.robot[self._bounded]
        self._bounded_transparent = self.transparent[self._bounded]
        self._static: weakref.WeakKeyDictionary[RayBatch, _Static] = weakref.WeakKeyDictionary()
        self._last: tuple[RayBatch, _Static] | None = None  # the batch of the last cast and its _Static
        # Triangles of meshes (all of them) and height fields (per grid cell), in the geom frame.
        self._tri_start = np.zeros(n, dtype=np.int64)
        self._tri_count = np.zeros(n, dtype=np.int64)
        # Height-field grids per target (zero for other targets): rows, columns, half sizes (m).
        self._grid_nrow = np.zeros(n, dtype=np.int64)
        self._grid_ncol = np.zeros(n, dtype=np.int64)
        self._grid_sx = np.zeros(n)
        self._grid_sy = np.zeros(n)
        corners: list[np.ndarray] = []
        total = 0
        for index in np.flatnonzero((self.kind == MESH) | (self.kind == HFIELD)).tolist():
            tri = self._triangles(model, int(self.geom_ids[index]), index)
            self._tri_start[index], self._tri_count[index] = total, len(tri)
            corners.append(tri)
            total += len(tri)
        tris = np.concatenate(corners) if corners else np.zeros((0, 3, 3))
        self._tri_a = np.ascontiguousarray(tris[:, 0])
        self._tri_e1 = tris[:, 1] - tris[:, 0]
        self._tri_e2 = tris[:, 2] - tris[:, 0]
        self._bounded_gid = np.ascontiguousarray(self._bounded_gid)
        self._bounded_r2 = (self._bounded_rb + _SLACK) ** 2  # the compiled cast's squared radii (per geom)

    def _triangles(self, model: mujoco.MjModel, geom: int, index: int) -> np.ndarray:
        """The triangles of a mesh or height field geom in its frame, (f, 3 vertices, 3)."""
        data_id = int(model.geom_dataid[geom])
        if self.kind[index] == MESH:
            start, count = int(model.mesh_vertadr[data_id]), int(model.mesh_vertnum[data_id])
            vertices = model.mesh_vert[start : start + count].astype(float)
            face_start, faces = int(model.mesh_faceadr[data_id]), int(model.mesh_facenum[data_id])
            return vertices[model.mesh_face[face_start : face_start + faces]]
        nrow, ncol = int(model.hfield_nrow[data_id]), int(model.hfield_ncol[data_id])
        sx, sy, sz, _ = (float(s) for s in model.hfield_size[data_id])
        start = int(model.hfield_adr[data_id])
        height = model.hfield_data[start : start + nrow * ncol].reshape(nrow, ncol).astype(float) * sz
        xs = np.linspace(-sx, sx, ncol)
        ys = np.linspace(-sy, sy, nrow)
        grid = np.stack(np.broadcast_arrays(xs[None, :], ys[:, None], height), axis=-1)  # (nrow, ncol, 3)
        a, b = grid[:-1, :-1], grid[:-1, 1:]
        c, d = grid[1:, 1:], grid[1:, :-1]
        # Two triangles per cell (row r, column c), cell-major: index 2 * (r * (ncol - 1) + c) + k.
        cells = np.stack([np.stack([a, b, c], axis=-2), np.stack([a, c, d], axis=-2)], axis=2)
        self._grid_nrow[index], self._grid_ncol[index] = nrow, ncol
        self._grid_sx[index], self._grid_sy[index] = sx, sy
        return cells.reshape(-1, 3, 3)

    @property
    def n(self) -> int:
        """The number of targets."""
        return len(self.geom_ids)

    def cast(self, data: mujoco.MjData, batch: RayBatch, normals: bool) -> RayHits:
        """Intersect every ray of ``batch`` with the targets in their current poses (``data``).

        Args:
            data: the MuJoCo data with fresh kinematics (``site_x*``, ``geom_x*``).
            batch: the rays.
            normals: compute the hit normals (sonar sensors need them).
        """
        static = self._static_of(batch)
        if self.compiled:
            return self._cast_compiled(data, batch, static, normals)
        origins = data.site_xpos[batch.sites]  # (s, 3)
        origin = origins.T  # (3, s)
        frames = data.site_xmat[batch.sites]  # (s, 9): rows of each sensor's rotation
        rotation = frames.T.take(batch.ray_sensor, axis=1).reshape(3, 3, -1)  # (3, 3, r)
        direction = np.einsum("ijr,jr->ir", rotation, batch.local)  # (3, r), world
        n_rays = len(batch.ray_sensor)
        distance = np.full(n_rays, np.inf)
        target = np.full(n_rays, -1, dtype=np.int64)
        normal = np.zeros((3, n_rays))
        # IEEE infinities and NaNs stand for "no hit" (parallel rays, rays from inside a slab...), as in ODE.
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            for k, (index, allowed) in enumerate(static.planes):
                self._cast_plane(data, index, allowed, origin, direction, batch, distance, target, normal, normals,
                                 k == 0)
            if len(self._bounded):
                self._cast_bounded(data, origins, frames, direction, batch, static, distance, target, normal, normals)
        return RayHits(distance, target, normal.T, direction.T)

    def cast_distances(self, data: mujoco.MjData, batch: RayBatch) -> np.ndarray:
        """Each ray's hit distance (inf: no hit), (r,), as :meth:`cast` finds it, in an array reused by the next
        call for ``batch`` (the bank's compiled path reads it at once; no new arrays per cast).

        Only for a compiled caster (:attr:`compiled`).
        """
        static = self._static_of(batch)
        out = static.reused
        if out is None:
            out = static.reused = self._outputs(len(batch.ray_sensor))
        self._run_compiled(data, batch, static, False, out)
        return out[0]

    def __deepcopy__(self, memo: dict) -> RayCaster:
        """A copy that packs its compiled cast's tables again at its first cast: a copied table would hold the
        addresses of this caster's arrays (and a copied MjData's pose views are not views of the copied data)."""
        twin = object.__new__(type(self))
        memo[id(self)] = twin
        for name, value in self.__dict__.items():
            setattr(twin, name, None if name == "_views" else copy.deepcopy(value, memo))
        return twin

    def _static_of(self, batch: RayBatch) -> _Static:
        """What never changes for ``batch`` (prepared at its first cast)."""
        last = self._last
        if last is not None and last[0] is batch:  # the usual case: the same batch every step
            return last[1]
        static = self._static.get(batch)  # (a weak dictionary's lookup makes a weak reference: slower)
        if static is None:
            static = self._static[batch] = self._prepare(batch)
        self._last = (batch, static)
        return static

    def _outputs(self, n_rays: int) -> tuple:
        """Fresh output arrays of the compiled cast of ``n_rays`` rays: distance, target, normal, direction, and
        the shared scratch."""
        return (np.empty(n_rays), np.empty(n_rays, dtype=np.int64), np.empty((n_rays, 3)), np.empty((n_rays, 3)),
                self._scratch)

    def _cast_compiled(self, data: mujoco.MjData, batch: RayBatch, static: _Static, normals: bool) -> RayHits:
        """:meth:`cast` with the compiled loops (:func:`.kernel.cast_rays`, :func:`.kernel.broad_pairs`)."""
        out = self._outputs(len(batch.ray_sensor))
        self._run_compiled(data, batch, static, normals, out)
        return RayHits(*out[:4])

    def _run_compiled(self, data: mujoco.MjData, batch: RayBatch, static: _Static, normals: bool,
                      out: tuple) -> None:
        """The compiled cast of ``batch`` into ``out`` (distance, target, normal, direction, scratch)."""
        if self._kernel is None:
            from wbsim.devices.distance_sensor import kernel as compiled  # imports numba: only when rays are cast

            self._kernel, self._broad_pairs = compiled.cast_rays, compiled.broad_pairs
        if static.head is None:
            self._prepare_compiled(batch, static)
        views = self._views
        if views is None or views[0] is not data:  # MjData's arrays, made once (a property access builds a view)
            views = self._views = (data, (data.site_xpos, data.site_xmat, data.geom_xpos, data.geom_xmat), data.xpos)
        kernel = self._kernel
        if static.pairs is not None:
            packed = self._packed(static, views, static.pairs)
            if kernel(packed.table, *packed.scalars, True, normals, *out):
                return
        # Something moved by the margin (or the first cast): a new broad phase, then the cast.
        if not len(self._bounded):
            # No pairs to find again: valid whatever moves (an infinite margin; NaN poses still fail the check).
            static.pairs = self._pair_args(self._no_pairs(batch, math.inf), static)
        else:
            if static.pairs is None:  # only the directions: these pairs are never valid
                packed = self._packed(static, views, self._pair_args(self._no_pairs(batch, -1.0), static))
                kernel(packed.table, *packed.scalars, True, normals, *out)
            self.broad_phases += 1
            site_xpos, site_xmat, geom_xpos, _ = views[1]
            broad = static.broad
            if broad is None or broad[0] is not views or broad[1] != self.margin:  # built once per batch
                margin = self.margin * float(batch.cluster_radius.max(initial=0.0))
                broad = static.broad = (views, self.margin, margin, (
                    site_xpos, site_xmat, geom_xpos, views[2], batch.sites, batch.lengths, batch.exclude,
                    batch.skip_transparent, batch.cone_cos, batch.cone_sin, batch.ray_start, batch.ray_count,
                    batch.cluster_body, batch.cluster_start, batch.cluster_count, batch.cluster_members,
                    batch.cluster_exclude, batch.mixed_exclusion or self.any_transparent, self._bounded_gid,
                    self._bounded_rb, self._bounded_robot, self._bounded_transparent, margin,
                    batch.ray_length))
            margin = broad[2]
            arguments = broad[3] + (out[3],) + self._near_geoms(site_xpos, views[2], geom_xpos, batch, margin) + (
                self._bounded, self._bounded_r2)
            room = static.room
            if room is None:
                room = static.room = self._pair_buffers(batch, self.pair_room)
            found = self._broad_pairs(*arguments, *room)
            if found > len(room[0]):  # not enough room: again with enough
                room = static.room = self._pair_buffers(batch, 2 * found)
                self._broad_pairs(*arguments, *room)
            # The cast reads the pairs where the broad phase wrote them: only the lengths change in its table.
            static.found = found
            static.pairs = room + (margin, static.reach)
            packed = self._packed(static, views, static.pairs)
            if not (packed.set_length(16, found) and packed.set_length(17, found)):
                raise RuntimeError("the distance-sensor caster's pair buffers are too short (wbsim.devices.packed)")
            packed.scalars = (static.head[5], margin, static.reach)  # (the margin changes with RayCaster.margin)
            kernel(packed.table, *packed.scalars, False, normals, *out)
            return
        packed = self._packed(static, views, static.pairs)
        kernel(packed.table, *packed.scalars, False, normals, *out)

    def _pair_buffers(self, batch: RayBatch, rows: int) -> tuple:
        """Lasting outputs of the compiled broad phase (:func:`.kernel.broad_pairs`) with room for ``rows`` pairs,
        which the compiled cast reads as they are: the pairs (rows, 3), their squared radii (rows,), the poses
        they are found in (s, 12) and the bounded geoms' centres (b, 3)."""
        return (np.zeros((rows, 3), dtype=np.int64), np.zeros(rows), np.zeros((len(batch.sites), 12)),
                np.zeros((len(self._bounded), 3)))

    @staticmethod
    def _packed(static: _Static, views: tuple, pairs: tuple) -> Packed:
        """The compiled cast's packed arrays (:data:`.kernel.CAST_CODES`: the pose views, ``head`` and ``pairs``)
        and scalars, kept in ``static``: only the pairs' four entries are replaced when the pairs change (a whole
        packing costs about 3 us per array)."""
        packed = static.packed
        if packed is not None and static.views is views:
            if packed.arrays[16] is pairs[0]:  # the usual cast: the same pairs
                return packed
            if packed.replace(16, *pairs[:4]):  # all four or none
                packed.scalars = (static.head[5], pairs[4], pairs[5])  # any_rendering, margin, reach
                return packed
        from wbsim.devices.distance_sensor.kernel import CAST_CODES

        packed = pack(views[1] + static.head + pairs, CAST_CODES)
        if packed is None:  # the caster makes every array C-contiguous with the kernel's types
            raise RuntimeError("the distance-sensor caster's arrays do not pack (wbsim.devices.packed)")
        if static.room is not None and pairs[0] is static.room[0]:  # the filled part of the broad phase's buffers
            packed.set_length(16, static.found)
            packed.set_length(17, static.found)
        static.packed, static.views = packed, views
        return packed

    def _near_geoms(self, site_xpos: np.ndarray, body_xpos: np.ndarray, geom_xpos: np.ndarray, batch: RayBatch,
                    margin: float) -> tuple[np.ndarray, np.ndarray]:
        """The compiled broad phase's candidate geoms per cluster (:func:`.kernel.near_geoms`) from
        :attr:`grid_from` (cluster, geom) pairs on, else two empty arrays (every pair is tested)."""
        if len(batch.cluster_body) * len(self._bounded_gid) < self.grid_from:
            return self._every_pair
        from wbsim.devices.distance_sensor import kernel as compiled  # compiled at the first large broad phase

        centre = body_xpos[batch.cluster_body]
        offset = site_xpos[batch.sites] - centre[batch.sensor_cluster]
        radius = np.zeros(len(batch.cluster_body))
        np.maximum.at(radius, batch.sensor_cluster, np.sqrt(np.einsum("ij,ij->i", offset, offset)) + batch.lengths)
        return compiled.near_geoms(centre, radius, geom_xpos, self._bounded_gid, self._bounded_rb + (_SLACK + margin))

    def _prepare_compiled(self, batch: RayBatch, static: _Static) -> None:
        """The compiled cast's arguments that never change for ``batch`` (:attr:`_Static.head`)."""
        planes = [index for index, _ in static.planes]
        allowed = np.ones((len(planes), len(batch.ray_sensor)), dtype=bool)
        for k, (_, rays) in enumerate(static.planes):
            if rays is not None:
                allowed[k] = rays
        if self._shapes is None:  # the per-target tables packed into three arrays (fewer arguments to check)
            self._shapes = (
                np.ascontiguousarray(np.stack([self.kind, self._tri_start, self._tri_count, self._grid_nrow,
                                               self._grid_ncol], axis=1), dtype=np.int64),
                np.ascontiguousarray(np.concatenate([self._half.T, self._quadric.T, self._radius2[:, None],
                                                     self._capsule_size, self._grid_sx[:, None],
                                                     self._grid_sy[:, None]], axis=1), dtype=float),
                np.ascontiguousarray(np.stack([self._tri_a, self._tri_e1, self._tri_e2], axis=1),
                                     dtype=float))
        static.head = (batch.sites, batch.ray_sensor, np.ascontiguousarray(batch.directions, dtype=float),
                       batch.ray_length, batch.rendering, batch.any_rendering,
                       np.array([self.geom_ids[planes], planes], dtype=np.int64).reshape(2, -1), allowed,
                       self.plane_half) + self._shapes + (self._bounded_gid,)

    @staticmethod
    def _pair_args(found: _Candidates, static: _Static) -> tuple:
        """The compiled cast's arguments for the pairs ``found``."""
        return (np.ascontiguousarray(np.stack([found.ray, found.geom, found.target], axis=1), dtype=np.int64),
                found.radius2,
                np.concatenate([found.origins, found.frames], axis=1), found.centres, found.margin,
                static.reach)

    def _no_pairs(self, batch: RayBatch, margin: float) -> _Candidates:
        """No (ray, geom) pairs: for worlds without bounded geoms (``margin`` inf), or (``margin`` -1) pairs the
        compiled cast's check rejects after writing the rays' directions."""
        empty = np.zeros(0, dtype=np.int64)
        return _Candidates(ray=empty, geom=empty, sensor=empty, target=empty, geom_id=empty,
                           centre_at=np.zeros((3, 0), dtype=np.int64), origin_at=np.zeros((3, 0), dtype=np.int64),
                           length=np.zeros(0), radius2=np.zeros(0), rendering=np.zeros(0, dtype=bool),
                           primitive=True, origins=np.zeros((len(batch.sites), 3)),
                           frames=np.zeros((len(batch.sites), 9)), centres=np.zeros((len(self._bounded), 3)),
                           margin=margin)

    def _prepare(self, batch: RayBatch) -> _Static:
        """What never changes for a batch: which rays may hit each plane."""
        planes = []
        for index in self._planes.tolist():
            allowed = batch.exclude != self.robot[index]
            if self.transparent[index]:
                allowed &= ~batch.skip_transparent
            planes.append((index, None if allowed.all() else allowed[batch.ray_sensor]))
        return _Static(tuple(planes), float(batch.lengths.max(initial=0.0)),
                       bool(batch.any_rendering and not batch.rendering.all()))

    def _cast_plane(self, data: mujoco.MjData, index: int, allowed: np.ndarray | None, origin: np.ndarray,
                    direction: np.ndarray, batch: RayBatch, distance: np.ndarray, target: np.ndarray,
                    normal: np.ndarray, normals: bool, first: bool) -> None:
        """Every ray against one plane (planes are few: the floor). ``allowed``: the rays that may hit it (None:
        all); ``first``: nothing was cast yet (``distance`` is all inf)."""
        geom = int(self.geom_ids[index])
        axes = data.geom_xmat[geom].reshape(3, 3)
        up = axes[:, 2]
        height = up @ origin - up @ data.geom_xpos[geom]  # of each sensor above the plane, (s,)
        rise = up @ direction  # (r,)
        t = -height[batch.ray_sensor] / rise  # NaN or infinite for rays parallel to the plane: no hit
        limit = batch.ray_length
        # ODE rays see the infinite plane from both sides; rendering rays the Webots Plane's rectangle.
        hit = (t >= 0.0) & (t <= limit)
        if allowed is not None:
            hit &= allowed
        if batch.any_rendering:
            rendering = batch.rendering[batch.ray_sensor]
            at = (origin[:, batch.ray_sensor] + np.where(np.isfinite(t), t, 0.0) * direction
                  - data.geom_xpos[geom][:, None])
            half = self.plane_half[index]
            shown = (np.abs(axes[:, 0] @ at) <= half[0]) & (np.abs(axes[:, 1] @ at) <= half[1])
            hit &= ~rendering | ((t > 0.0) & (t < limit) & shown)
        better = hit if first else hit & (t < distance)
        np.copyto(distance, t, where=better)
        np.copyto(target, index, where=better)
        if normals:
            normal[:, better] = up[:, None] * -np.sign(rise[better])

    def _cast_bounded(self, data: mujoco.MjData, origins: np.ndarray, frames: np.ndarray, direction: np.ndarray,
                      batch: RayBatch, static: _Static, distance: np.ndarray, target: np.ndarray, normal: np.ndarray,
                      normals: bool) -> None:
        """Rays against the geoms with a bounding sphere: candidate pairs, then exact tests per geom type."""
        centres = data.geom_xpos[self._bounded_gid]  # (b, 3)
        found = static.candidates
        if found is None or not found.valid(origins, frames, centres, static.reach):
            found = static.candidates = self._broad_phase(data, origins, frames, direction, batch, static, centres)
        if not len(found.ray):
            return
        # 3. (ray, geom) pairs whose segment crosses the geom's bounding sphere now.
        to_centre = centres.take(found.centre_at) - origins.take(found.origin_at)  # (3, m)
        ray_dir = direction.take(found.ray, axis=1)
        along = np.einsum("ij,ij->j", to_centre, ray_dir)
        np.minimum(np.maximum(along, 0.0, out=along), found.length, out=along)  # np.clip, cheaper
        gap = to_centre - along * ray_dir
        crossing = np.flatnonzero(np.einsum("ij,ij->j", gap, gap) <= found.radius2)
        if not len(crossing):
            return
        ray, index, limit = found.ray[crossing], found.target[crossing], found.length[crossing]
        # 4. Exact tests in the geom frame: p = R^T (origin - centre), v = R^T direction.
        axes = data.geom_xmat[found.geom_id[crossing]].T.reshape(3, 3, -1)  # (row, column, pair)
        p = np.einsum("jir,jr->ir", axes, -to_centre[:, crossing])
        v = np.einsum("jir,jr->ir", axes, ray_dir[:, crossing])
        if found.primitive and not static.mixed_rendering:
            t, n_local = self._primitive_hits(p, v, index, limit, batch.any_rendering, normals)
        else:
            t, n_local = self._exact(p, v, index, limit, found.rendering[crossing], normals)
        # 5. The nearest hit of each ray (pairs are in (cluster, geom) order: ties go to the first geom).
        order = np.lexsort((t, ray))
        ordered = ray[order]
        first = np.empty(len(order), dtype=bool)
        first[0] = True
        np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
        chosen = order[first]
        ray, t = ray[chosen], t[chosen]
        better = t < distance[ray]
        if not better.any():
            return
        chosen, hit_rays = chosen[better], ray[better]
        distance[hit_rays] = t[better]
        target[hit_rays] = index[chosen]
        if normals:
            normal[:, hit_rays] = np.einsum("ijr,jr->ir", axes[:, :, chosen], n_local[:, chosen])

    def _broad_phase(self, data: mujoco.MjData, origins: np.ndarray, frames: np.ndarray, direction: np.ndarray,
                     batch: RayBatch, static: _Static, centres: np.ndarray) -> _Candidates:
        """The (ray, geom) pairs whose ray segment passes within ``margin`` of the geom's bounding sphere, in
        (cluster, geom, ray) order, valid until something moves by ``margin`` (:meth:`_Candidates.valid`)."""
        self.broad_phases += 1
        margin = self.margin * float(batch.cluster_radius.max(initial=0.0))
        rb = self._bounded_rb + (_SLACK + margin)
        # Contiguous (3, n) copies: numpy takes columns of them much faster than of transposed views.
        origin, axis, centre = (np.ascontiguousarray(a.T) for a in (origins, frames[:, 0::3], centres))
        # 1. (cluster, geom) pairs within reach: the sensors of one body share its bounding sphere; a cluster
        #    ignores the geoms of the robot its sensors ignore.
        body = data.xpos[batch.cluster_body]
        d2 = (np.einsum("ij,ij->i", body, body)[:, None] + np.einsum("ij,ij->i", centres, centres)[None, :]
              - 2.0 * body @ centres.T)
        # The clusters' radii from where the sensors are now (a supervisor may have moved one on its body).
        offset = origins - body[batch.sensor_cluster]
        cluster_radius = np.zeros(len(batch.cluster_body))
        np.maximum.at(cluster_radius, batch.sensor_cluster, np.sqrt(np.einsum("ij,ij->i", offset, offset))
                      + batch.lengths)
        reach = cluster_radius[:, None] + rb[None, :]
        # (The compiled broad phase looks only near each cluster; this reference tests every pair.)
        near = (d2 <= reach * reach) & (self._bounded_robot[None, :] != batch.cluster_exclude[:, None])
        pair_cluster, pair_geom = np.nonzero(near)
        # 2. (sensor, geom) pairs: the geom's bounding sphere meets the cone of the sensor's rays.
        counts = batch.cluster_count[pair_cluster]
        slot = np.repeat(batch.cluster_start[pair_cluster] - (np.cumsum(counts) - counts), counts)
        sensor = batch.cluster_members[slot + np.arange(len(slot))]
        geom = np.repeat(pair_geom, counts)
        if batch.mixed_exclusion or self.any_transparent:
            keep = self._bounded_robot[geom] != batch.exclude[sensor]
            if self.any_transparent:
                keep &= ~(self._bounded_transparent[geom] & batch.skip_transparent[sensor])
            sensor, geom = sensor[keep], geom[keep]
        to_centre = centre.take(geom, axis=1) - origin.take(sensor, axis=1)  # (3, m)
        along = np.einsum("ij,ij->j", to_centre, axis.take(sensor, axis=1))
        square = np.einsum("ij,ij->j", to_centre, to_centre)
        across = np.sqrt(np.maximum(square - along * along, 0.0))
        cos, sin = batch.cone_cos[sensor], batch.cone_sin[sensor]
        radius = rb[geom]
        span = batch.lengths[sensor] + radius
        # In the plane of the axis and the centre the cone is a wedge of half-angle theta: the centre is in it,
        # or near its side (when the side's nearest point is not the apex), or near the apex.
        keep = along >= np.sqrt(square) * cos
        keep |= (across * cos - along * sin <= radius) & (along * cos + across * sin >= 0.0)
        keep |= square <= radius * radius
        keep &= square <= span * span
        sensor, geom, to_centre = sensor[keep], geom[keep], to_centre[:, keep]
        # 3. (ray, geom) pairs whose segment passes near the geom's bounding sphere.
        counts = batch.ray_count[sensor]
        ray = np.repeat(batch.ray_start[sensor] - (np.cumsum(counts) - counts), counts) + np.arange(int(counts.sum()))
        geom = np.repeat(geom, counts)
        to_centre = np.repeat(to_centre, counts, axis=1)
        ray_dir = direction.take(ray, axis=1)
        along = np.clip(np.einsum("ij,ij->j", to_centre, ray_dir), 0.0, batch.ray_length[ray])
        gap = to_centre - along * ray_dir
        radius = rb[geom]
        crossing = np.einsum("ij,ij->j", gap, gap) <= radius * radius
        return self._candidates(ray[crossing], geom[crossing], batch, origins, frames, centres, margin)

    def _candidates(self, ray: np.ndarray, geom: np.ndarray, batch: RayBatch, origins: np.ndarray,
                    frames: np.ndarray, centres: np.ndarray, margin: float) -> _Candidates:
        """The broad phase's pairs (ray and bounded geom, (m,) each), with what the casts gather for them."""
        sensor = batch.ray_sensor[ray]
        index = self._bounded[geom]
        xyz = np.arange(3)[:, None]
        return _Candidates(
            ray=ray, geom=geom, sensor=sensor, target=index, geom_id=self.geom_ids[index],
            centre_at=3 * geom[None, :] + xyz, origin_at=3 * sensor[None, :] + xyz, length=batch.ray_length[ray],
            radius2=(self._bounded_rb[geom] + _SLACK) ** 2, rendering=batch.rendering[sensor],
            primitive=bool(self._primitive[index].all()), origins=origins.copy(), frames=frames.copy(),
            centres=centres.copy(), margin=margin)

    def _primitive_hits(self, p: np.ndarray, v: np.ndarray, index: np.ndarray, limit: np.ndarray, rendering: bool,
                        normals: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """:meth:`_exact` for pairs whose geoms are all boxes, spheres or cylinders, and rays of one rule."""
        t_in, t_out, n_in, n_out, ok = _primitive_interval(p, v, self._half[:, index], self._quadric[:, index],
                                                           self._radius2[index], normals)
        if rendering:  # entries only
            t = np.where(ok & (t_in > 0.0) & (t_in < limit), t_in, np.inf)
        else:  # the entry point from outside, the exit point from inside
            entering = t_in >= 0.0
            alpha = np.where(entering, t_in, t_out)
            t = np.where(ok & (alpha >= 0.0) & (alpha <= limit), alpha, np.inf)
        if not normals:
            return t, None
        return t, np.where(t_in >= 0.0, n_in, -n_out)  # type: ignore[operator]

    def _exact(self, p: np.ndarray, v: np.ndarray, index: np.ndarray, limit: np.ndarray, rendering: np.ndarray,
               normals: bool) -> tuple[np.ndarray, np.ndarray]:
        """The hit distance (inf: none) and local normal (3, m) of each (ray, geom) pair, per Webots' rules."""
        m = len(index)
        t = np.full(m, np.inf)
        n_local = np.zeros((3, m))
        primitive = self._primitive[index]
        groups = [(np.flatnonzero(primitive) if not primitive.all() else None, "primitive")]
        if not primitive.all():
            kind = self.kind[index]
            groups += [(np.flatnonzero(kind == CAPSULE), "capsule"),
                       (np.flatnonzero((kind == MESH) | (kind == HFIELD)), "triangles")]
        for rows, how in groups:
            if rows is not None and not len(rows):
                continue
            pr = p if rows is None else p[:, rows]
            vr = v if rows is None else v[:, rows]
            ir = index if rows is None else index[rows]
            lr = limit if rows is None else limit[rows]
            rr = rendering if rows is None else rendering[rows]
            if how == "triangles":
                tr, nr = self._triangles_hit(pr.T, vr.T, ir, lr, rr)
                nr = nr.T
            else:
                if how == "primitive":
                    t_in, t_out, n_in, n_out, ok = primitive_interval(pr, vr, self._half[:, ir], self._quadric[:, ir],
                                                                      self._radius2[ir], normals)
                else:
                    size = self._capsule_size[ir]
                    t_in, t_out, n_in, n_out, ok = capsule_interval(pr, vr, size[:, 0], size[:, 1], normals)
                entering = t_in >= 0.0
                # ODE rays: the entry point from outside, the exit point from inside. Rendering rays: entries only.
                alpha = np.where(entering | rr, t_in, t_out)
                hit = ok & np.where(rr, (t_in > 0.0) & (t_in < lr), (alpha >= 0.0) & (alpha <= lr))
                tr = np.where(hit, alpha, np.inf)
                nr = np.where(entering, n_in, -n_out) if normals else None  # type: ignore[operator]
            if rows is None:
                t = tr
                if nr is not None:
                    n_local = nr
            else:
                t[rows] = tr
                if nr is not None:
                    n_local[:, rows] = nr
        return t, n_local

    def _triangles_hit(self, p: np.ndarray, v: np.ndarray, index: np.ndarray, limit: np.ndarray,
                       rendering: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The nearest triangle hit of each (ray, mesh or height field) pair, within the ray length; (m, 3).

        A mesh is tested against all its triangles; a height field only against the cells under the
        bounding box of the ray segment (two triangles per cell).
        """
        start = self._tri_start[index]
        count = self._tri_count[index].copy()
        grid = np.flatnonzero(self.kind[index] == HFIELD)
        first_row = np.zeros(len(p), dtype=np.int64)
        first_col = np.zeros(len(p), dtype=np.int64)
        width = np.ones(len(p), dtype=np.int64)
        if len(grid):
            target = index[grid]
            nrow, ncol = self._grid_nrow[target], self._grid_ncol[target]
            sx, sy = self._grid_sx[target], self._grid_sy[target]
            end = p[grid] + limit[grid, None] * v[grid]
            lo, hi = np.minimum(p[grid], end), np.maximum(p[grid], end)
            dx, dy = 2.0 * sx / (ncol - 1), 2.0 * sy / (nrow - 1)
            c0 = np.clip(np.floor((lo[:, 0] + sx) / dx), 0, ncol - 2).astype(np.int64)
            c1 = np.clip(np.floor((hi[:, 0] + sx) / dx), 0, ncol - 2).astype(np.int64)
            r0 = np.clip(np.floor((lo[:, 1] + sy) / dy), 0, nrow - 2).astype(np.int64)
            r1 = np.clip(np.floor((hi[:, 1] + sy) / dy), 0, nrow - 2).astype(np.int64)
            outside = (hi[:, 0] < -sx) | (lo[:, 0] > sx) | (hi[:, 1] < -sy) | (lo[:, 1] > sy)
            first_row[grid], first_col[grid], width[grid] = r0, c0, c1 - c0 + 1
            count[grid] = np.where(outside, 0, 2 * (r1 - r0 + 1) * (c1 - c0 + 1))
        total = int(count.sum())
        if not total:
            return np.full(len(p), np.inf), np.zeros((len(p), 3))
        pair = np.repeat(np.arange(len(p)), count)
        k = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
        tri = start[pair] + k
        if len(grid):
            # The k-th test of a height-field pair: cell k // 2 of its box of cells (row-major), triangle k % 2.
            in_grid = np.zeros(len(p), dtype=bool)
            in_grid[grid] = True
            sel = in_grid[pair]
            owner, kk = pair[sel], k[sel]
            cell = kk // 2
            row = first_row[owner] + cell // width[owner]
            col = first_col[owner] + cell % width[owner]
            tri[sel] = start[owner] + 2 * (row * (self._grid_ncol[index[owner]] - 1) + col) + kk % 2
        t, n = nearest_triangle(p[pair], v[pair], pair, self._tri_a[tri], self._tri_e1[tri], self._tri_e2[tri],
                                len(p), rendering)
        inside = np.where(rendering, t < limit, t <= limit)
        return np.where(inside, t, np.inf), n
