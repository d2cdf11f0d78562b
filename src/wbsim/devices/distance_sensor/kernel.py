"""The distance-sensor caster's per-cast work as one compiled loop (numba), the same arithmetic as the numpy path.

:class:`~wbsim.devices.distance_sensor.caster.RayCaster` calls :func:`cast_rays` once per cast instead of
about a hundred numpy operations on small arrays: it checks that the broad phase's (ray, geom) pairs are
still valid, turns the rays into the world frame, intersects them with the planes and with the geoms of the
pairs whose segment crosses the bounding sphere (boxes, spheres, cylinders, capsules, meshes, height fields),
and keeps each ray's nearest hit; :func:`broad_pairs` is the broad phase (rare: it runs when something moved
by its margin), :func:`lookup_values` the bank's lookup tables, :func:`combine_distances` the generic and
laser sensors' distances, :func:`combine_and_lookup` both in one call (the bank's usual step).

Each formula repeats the numpy path's (:mod:`.caster`, the bank), in the same order of operations, so the
two agree to the last bits except where numpy's matrix products sum in another order (1e-16 relative; the
tests compare them). Compiled with ``error_model="numpy"`` (IEEE infinities and NaN, as the numpy path under
``errstate``) and ``cache=True``: the machine code is stored next to this file (``__pycache__``), or in
numba's user cache when that folder is not writable (``NUMBA_CACHE_DIR`` overrides both).

This module imports numba: import it only when a world casts distance-sensor rays (the caster does so
lazily), never at ``import wbsim``.
"""

from __future__ import annotations

import math

import numpy as np

from wbsim.devices.compiled import cached_njit
from wbsim.devices.packed import B1, B2, F1, F2, F3, I1, I2
from wbsim.devices.packed_kernel import b1, b2, f1, f2, f3, i1, i2

__all__ = ["cast_rays", "broad_pairs", "near_geoms", "lookup_values", "combine_distances",
           "combine_and_lookup", "CAST_CODES", "LOOKUP_CODES"]

_BOX, _SPHERE, _CAPSULE, _CYLINDER, _PLANE, _MESH, _HFIELD = range(7)  # caster's target kinds
_SLACK = 1e-9  # the caster's broad-phase tolerance (m)
_JIT = cached_njit(error_model="numpy", nogil=True)  # in memory when no cache folder is writable


# numpy's scalar functions, written out: numba compiles each numpy ufunc it meets slowly (seconds each).
@_JIT
def _max(a: float, b: float) -> float:
    """``np.maximum`` (NaN propagates)."""
    return a if a >= b or a != a else b


@_JIT
def _min(a: float, b: float) -> float:
    """``np.minimum`` (NaN propagates)."""
    return a if a <= b or a != a else b


@_JIT
def _fmin(a: float, b: float) -> float:
    """``np.fmin`` (NaN ignored)."""
    return a if a <= b or b != b else b


@_JIT
def _fmax(a: float, b: float) -> float:
    """``np.fmax`` (NaN ignored)."""
    return a if a >= b or b != b else b


@_JIT
def _sign(x: float) -> float:
    """``np.sign``."""
    return 1.0 if x > 0.0 else (-1.0 if x < 0.0 else x)


@_JIT
def _cell(x: float, top: int) -> int:
    """``int(np.clip(np.floor(x), 0, top))`` (0 for NaN)."""
    if not x > 0.0:
        return 0
    return top if x >= top else int(x)


@_JIT
def _slab(h: float, p: float, v: float) -> tuple[float, float]:
    """The ray parameters (low, high) bounding ``|p + t v| <= h`` (one slab of ``primitive_interval``)."""
    t1 = (-h - p) / v
    t2 = (h - p) / v
    if v == 0.0:  # parallel to the slab: 0 / 0 (on a face) is inside
        if math.isnan(t1):
            t1 = -np.inf
        if math.isnan(t2):
            t2 = np.inf
    return _fmin(t1, t2), _fmax(t1, t2)


@_JIT
def _interval(p0: float, p1: float, p2: float, v0: float, v1: float, v2: float, h0: float, h1: float, h2: float,
              c0: float, c1: float, c2: float, radius2: float, normals: bool, out: np.ndarray) -> None:
    """``primitive_interval`` for one ray: writes (t_in, t_out, ok, n_in (3), n_out (3)) into ``out`` (9,)."""
    lo0, hi0 = _slab(h0, p0, v0)
    lo1, hi1 = _slab(h1, p1, v1)
    lo2, hi2 = _slab(h2, p2, v2)
    slab_in = _max(_max(lo0, lo1), lo2)
    slab_out = _min(_min(hi0, hi1), hi2)
    a = (c0 * v0) * v0 + (c1 * v1) * v1 + (c2 * v2) * v2
    b = (c0 * v0) * p0 + (c1 * v1) * p1 + (c2 * v2) * p2
    c = ((c0 * p0) * p0 + (c1 * p1) * p1 + (c2 * p2) * p2) - radius2
    k = b * b - a * c
    moving = a > 1e-18
    root = math.sqrt(_max(k, 0.0))
    still = -np.inf if c <= 0.0 else np.inf
    if moving:
        q_in = (-b - root) / a
        q_out = (-b + root) / a
    else:
        q_in = still
        q_out = -still
    t_in = _max(slab_in, q_in)
    t_out = _min(slab_out, q_out)
    out[0] = t_in
    out[1] = t_out
    out[2] = 1.0 if ((not moving) or k >= 0.0) and t_in <= t_out else 0.0
    if not normals:
        return
    radius = math.sqrt(radius2 if radius2 > 0.0 else 1.0)
    # Entry: the slab bounds the interval there (the first axis of the largest low end), or the quadric does.
    if slab_in >= q_in:
        axis = 0 if lo0 >= lo1 and lo0 >= lo2 else (1 if lo1 >= lo2 else 2)
        out[3] = out[4] = out[5] = 0.0
        out[3 + axis] = -_sign(v0 if axis == 0 else (v1 if axis == 1 else v2))
    else:
        t = t_in if math.isfinite(t_in) else 0.0
        out[3] = c0 * (p0 + t * v0) / radius
        out[4] = c1 * (p1 + t * v1) / radius
        out[5] = c2 * (p2 + t * v2) / radius
    if -slab_out >= -q_out:
        axis = 0 if hi0 <= hi1 and hi0 <= hi2 else (1 if hi1 <= hi2 else 2)
        out[6] = out[7] = out[8] = 0.0
        out[6 + axis] = _sign(v0 if axis == 0 else (v1 if axis == 1 else v2))
    else:
        t = t_out if math.isfinite(t_out) else 0.0
        out[6] = c0 * (p0 + t * v0) / radius
        out[7] = c1 * (p1 + t * v1) / radius
        out[8] = c2 * (p2 + t * v2) / radius


@_JIT
def _capsule(p: np.ndarray, v: np.ndarray, radius: float, half_height: float, normals: bool, out: np.ndarray,
             part: np.ndarray) -> None:
    """``capsule_interval`` for one ray (the two balls, then the cylinder): ``out`` as :func:`_interval`;
    ``part`` is scratch space, (3, 9)."""
    inf = np.inf
    r2 = radius * radius
    _interval(p[0], p[1], p[2] - half_height, v[0], v[1], v[2], inf, inf, inf, 1.0, 1.0, 1.0, r2, normals, part[0])
    _interval(p[0], p[1], p[2] + half_height, v[0], v[1], v[2], inf, inf, inf, 1.0, 1.0, 1.0, r2, normals, part[1])
    _interval(p[0], p[1], p[2], v[0], v[1], v[2], inf, inf, half_height, 1.0, 1.0, 0.0, r2, normals, part[2])
    best_in, best_out = 0, 0
    low, high = inf, -inf
    hit = False
    for j in range(3):  # the earliest entry and the latest exit (first parts win ties: balls first)
        ok = part[j, 2] != 0.0
        hit = hit or ok
        t_in = part[j, 0] if ok else inf
        t_out = part[j, 1] if ok else -inf
        if j == 0 or t_in < low:
            best_in, low = j, t_in
        if j == 0 or t_out > high:
            best_out, high = j, t_out
    out[0] = low
    out[1] = high
    out[2] = 1.0 if hit else 0.0
    for j in range(3):
        out[3 + j] = part[best_in, 3 + j]
        out[6 + j] = part[best_out, 6 + j]


@_JIT
def _triangles(p: np.ndarray, v: np.ndarray, first: int, count: int, row0: int, col0: int, width: int, ncol: int,
               grid: bool, tris: np.ndarray, strict: bool, normal: np.ndarray) -> float:
    """``nearest_triangle`` for one ray over ``count`` triangles (a height field's: those of the cells under
    the ray's box, row-major from (row0, col0), ``width`` cells a row); ``tris`` holds each triangle's vertex
    and two edges from it, (T, 3, 3); writes the normal, returns t (inf)."""
    best = np.inf
    for k in range(count):
        if grid:
            cell = k // 2
            tri = first + 2 * ((row0 + cell // width) * (ncol - 1) + col0 + cell % width) + k % 2
        else:
            tri = first + k
        a, e1, e2 = tris[tri, 0], tris[tri, 1], tris[tri, 2]
        pv0 = v[1] * e2[2] - v[2] * e2[1]
        pv1 = v[2] * e2[0] - v[0] * e2[2]
        pv2 = v[0] * e2[1] - v[1] * e2[0]
        det = e1[0] * pv0 + e1[1] * pv1 + e1[2] * pv2
        ok = abs(det) > 1e-14
        inv = 1.0 / (det if ok else 1.0)
        tv0, tv1, tv2 = p[0] - a[0], p[1] - a[1], p[2] - a[2]
        u = (tv0 * pv0 + tv1 * pv1 + tv2 * pv2) * inv
        q0 = tv1 * e1[2] - tv2 * e1[1]
        q1 = tv2 * e1[0] - tv0 * e1[2]
        q2 = tv0 * e1[1] - tv1 * e1[0]
        w = (v[0] * q0 + v[1] * q1 + v[2] * q2) * inv
        t = (e2[0] * q0 + e2[1] * q1 + e2[2] * q2) * inv
        ok = ok and u >= 0.0 and u <= 1.0 and w >= 0.0 and u + w <= 1.0 and (t > 0.0 if strict else t >= 0.0)
        if not ok or t > best:
            continue
        best = t  # equal distances: the last triangle's normal, as numpy's assignment
        n0 = e1[1] * e2[2] - e1[2] * e2[1]
        n1 = e1[2] * e2[0] - e1[0] * e2[2]
        n2 = e1[0] * e2[1] - e1[1] * e2[0]
        norm = math.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
        n0, n1, n2 = n0 / norm, n1 / norm, n2 / norm
        sign = -1.0 if n0 * v[0] + n1 * v[1] + n2 * v[2] > 0.0 else 1.0
        normal[0], normal[1], normal[2] = n0 * sign, n1 * sign, n2 * sign
    return best


CAST_CODES = (F2, F2, F2, F2, I1, I1, F2, F1, B1, I2, B2, F2, I2, F2, F3, I1, I2, F1, F2, F2)
"""The type codes of :func:`cast_rays`'s packed arrays, in order (:mod:`wbsim.devices.packed`)."""


@_JIT
def cast_rays(arrays: np.ndarray, any_rendering: bool, margin: float, reach: float, check: bool, normals: bool,
              distance: np.ndarray, target: np.ndarray, normal: np.ndarray, direction: np.ndarray,
              scratch: np.ndarray) -> bool:
    """Cast every ray of a batch (the caster's numpy ``cast``, compiled); see the module docstring.

    The 20 arrays that stay the same from cast to cast come packed in one table (:mod:`wbsim.devices.packed`,
    :data:`CAST_CODES`): numba unboxes each array argument at every call, which cost about 10 us per cast right
    after a physics step.

    Args:
        arrays: packed, in order: MuJoCo's poses ``site_xpos``, ``site_xmat``, ``geom_xpos``, ``geom_xmat``
            (world frame); ``sites``, each sensor's site, (s,); ``ray_sensor``, each ray's sensor, (r,);
            ``local``, the rays' unit directions in their sensor frames, (r, 3); ``ray_length``, (r,) m;
            ``sensor_rendering``, the infra-red rule per sensor, (s,); ``planes``, the planes' MuJoCo geoms and
            target indices, (2, P); ``plane_allowed``, the rays that may hit each plane, (P, r); ``plane_half``,
            every target's rendered plane half sizes, (T, 2); the caster's per-target shape tables ``shape_i``,
            (T, 5) ints (kind, first triangle, triangles, height-field rows and columns), ``shape_f``, (T, 11)
            floats (slab half widths (3), quadric (3), squared radius, capsule radius and half height,
            height-field half sizes (2)), and ``tris``, every triangle's vertex and edges, (triangles, 3, 3);
            ``bounded_gid``, the MuJoCo geom of each bounded target (the broad phase's geom index), (b,); the
            broad phase's (ray, bounded geom) ``pairs``: ray, bounded index and target index, (m, 3), and their
            squared bounding radius ``pair_radius2``, (m,); the poses the pairs were found in, ``found_poses``,
            each sensor's origin and rotation, (s, 12), and ``found_centres``, each bounded geom's centre, (b, 3).
        any_rendering: some sensor has the infra-red rule.
        margin: the pairs' margin (m); reach: the longest ray (m); check: test the pairs' validity first.
        normals: also compute the hit normals.
        distance, target, normal, direction: outputs, (r,), (r,), (r, 3), (r, 3) (world frame).
        scratch: work space, (7, 9) (numba compiles allocations slowly: the caller makes it).

    Returns:
        False (with only ``direction`` written) when ``check`` found that something moved by the margin
        since the pairs were found: the caller runs the broad phase and calls again with ``check`` False.
    """
    a = arrays
    site_xpos, site_xmat, geom_xpos, geom_xmat = f2(a, 0), f2(a, 1), f2(a, 2), f2(a, 3)
    sites, ray_sensor, local, ray_length, sensor_rendering = i1(a, 4), i1(a, 5), f2(a, 6), f1(a, 7), b1(a, 8)
    planes, plane_allowed, plane_half = i2(a, 9), b2(a, 10), f2(a, 11)
    shape_i, shape_f, tris, bounded_gid = i2(a, 12), f2(a, 13), f3(a, 14), i1(a, 15)
    pairs, pair_radius2, found_poses, found_centres = i2(a, 16), f1(a, 17), f2(a, 18), f2(a, 19)
    n_sensors = len(sites)
    n_rays = len(ray_sensor)
    for r in range(n_rays):
        m = site_xmat[sites[ray_sensor[r]]]
        for i in range(3):
            direction[r, i] = m[3 * i] * local[r, 0] + m[3 * i + 1] * local[r, 1] + m[3 * i + 2] * local[r, 2]
    if check:
        step = 0.0
        turn = 0.0
        for s in range(n_sensors):
            site = sites[s]
            d = 0.0
            for i in range(3):
                x = site_xpos[site, i] - found_poses[s, i]
                d += x * x
            if not d <= step:
                if math.isnan(d):
                    return False
                step = d
            d = 0.0
            for i in range(9):
                x = site_xmat[site, i] - found_poses[s, 3 + i]
                d += x * x
            if not d <= turn:
                if math.isnan(d):
                    return False
                turn = d
        shift = 0.0
        for b in range(len(bounded_gid)):
            d = 0.0
            for i in range(3):
                x = geom_xpos[bounded_gid[b], i] - found_centres[b, i]
                d += x * x
            if not d <= shift:
                if math.isnan(d):
                    return False
                shift = d
        if not math.sqrt(step) + math.sqrt(turn) * (0.7072 * reach) + math.sqrt(shift) <= margin - _SLACK:
            return False
    for r in range(n_rays):
        distance[r] = np.inf
        target[r] = -1
        for i in range(3):
            normal[r, i] = 0.0
    # Planes, every ray (ODE: infinite, both sides; rendering rays: the Webots Plane's rectangle).
    for k in range(planes.shape[1]):
        g = planes[0, k]
        x = geom_xmat[g]
        gp = geom_xpos[g]
        up_at = x[2] * gp[0] + x[5] * gp[1] + x[8] * gp[2]
        index = planes[1, k]
        for r in range(n_rays):
            if not plane_allowed[k, r]:
                continue
            s = ray_sensor[r]
            o = site_xpos[sites[s]]
            height = (x[2] * o[0] + x[5] * o[1] + x[8] * o[2]) - up_at
            rise = x[2] * direction[r, 0] + x[5] * direction[r, 1] + x[8] * direction[r, 2]
            t = -height / rise
            limit = ray_length[r]
            hit = t >= 0.0 and t <= limit
            if hit and any_rendering and sensor_rendering[s]:
                tt = t if math.isfinite(t) else 0.0
                a0 = o[0] + tt * direction[r, 0] - gp[0]
                a1 = o[1] + tt * direction[r, 1] - gp[1]
                a2 = o[2] + tt * direction[r, 2] - gp[2]
                hit = (t > 0.0 and t < limit and abs(x[0] * a0 + x[3] * a1 + x[6] * a2) <= plane_half[index, 0]
                       and abs(x[1] * a0 + x[4] * a1 + x[7] * a2) <= plane_half[index, 1])
            if hit and (k == 0 or t < distance[r]):
                distance[r] = t
                target[r] = index
                if normals:
                    sign = -_sign(rise)
                    normal[r, 0], normal[r, 1], normal[r, 2] = x[2] * sign, x[5] * sign, x[8] * sign
    # The pairs whose segment crosses the bounding sphere now, exact tests in the geom frame, nearest hit.
    out, part, p, v, n_local = scratch[0], scratch[1:4], scratch[4, :3], scratch[5, :3], scratch[6, :3]
    for j in range(pairs.shape[0]):
        r = pairs[j, 0]
        s = ray_sensor[r]
        o = site_xpos[sites[s]]
        g = bounded_gid[pairs[j, 1]]
        c = geom_xpos[g]
        tc0, tc1, tc2 = c[0] - o[0], c[1] - o[1], c[2] - o[2]
        d0, d1, d2 = direction[r, 0], direction[r, 1], direction[r, 2]
        limit = ray_length[r]
        along = _min(_max(tc0 * d0 + tc1 * d1 + tc2 * d2, 0.0), limit)
        g0, g1, g2 = tc0 - along * d0, tc1 - along * d1, tc2 - along * d2
        if not g0 * g0 + g1 * g1 + g2 * g2 <= pair_radius2[j]:
            continue
        x = geom_xmat[g]
        for i in range(3):
            p[i] = x[i] * -tc0 + x[3 + i] * -tc1 + x[6 + i] * -tc2
            v[i] = x[i] * d0 + x[3 + i] * d1 + x[6 + i] * d2
        index = pairs[j, 2]
        rendering = sensor_rendering[s]
        shape = shape_i[index, 0]
        if shape == _MESH or shape == _HFIELD:
            first, count, row0, col0, width = shape_i[index, 1], shape_i[index, 2], 0, 0, 1
            grid = shape == _HFIELD
            ncol = shape_i[index, 4]
            if grid:
                nrow, sx, sy = shape_i[index, 3], shape_f[index, 9], shape_f[index, 10]
                e0, e1 = p[0] + limit * v[0], p[1] + limit * v[1]
                lo0, hi0 = _min(p[0], e0), _max(p[0], e0)
                lo1, hi1 = _min(p[1], e1), _max(p[1], e1)
                dx, dy = 2.0 * sx / (ncol - 1), 2.0 * sy / (nrow - 1)
                col0 = _cell((lo0 + sx) / dx, ncol - 2)
                col1 = _cell((hi0 + sx) / dx, ncol - 2)
                row0 = _cell((lo1 + sy) / dy, nrow - 2)
                row1 = _cell((hi1 + sy) / dy, nrow - 2)
                width = col1 - col0 + 1
                outside = hi0 < -sx or lo0 > sx or hi1 < -sy or lo1 > sy
                count = 0 if outside else 2 * (row1 - row0 + 1) * width
            t = _triangles(p, v, first, count, row0, col0, width, ncol, grid, tris, rendering, n_local)
            if not (t < limit if rendering else t <= limit):
                continue
        else:
            if shape == _CAPSULE:
                _capsule(p, v, shape_f[index, 7], shape_f[index, 8], normals, out, part)
            else:
                _interval(p[0], p[1], p[2], v[0], v[1], v[2], shape_f[index, 0], shape_f[index, 1],
                          shape_f[index, 2], shape_f[index, 3], shape_f[index, 4], shape_f[index, 5],
                          shape_f[index, 6], normals, out)
            t_in, t_out = out[0], out[1]
            if out[2] == 0.0:
                continue
            entering = t_in >= 0.0
            if rendering:  # entries only
                if not (t_in > 0.0 and t_in < limit):
                    continue
                t = t_in
            else:  # the entry point from outside, the exit point from inside
                t = t_in if entering else t_out
                if not (t >= 0.0 and t <= limit):
                    continue
            if normals:
                for i in range(3):
                    n_local[i] = out[3 + i] if entering else -out[6 + i]
        if not t < distance[r]:  # ties: the first pair (pairs are in cluster, geom order), then the planes
            continue
        distance[r] = t
        target[r] = index
        if normals:
            for i in range(3):
                normal[r, i] = x[3 * i] * n_local[0] + x[3 * i + 1] * n_local[1] + x[3 * i + 2] * n_local[2]
    return True


_CELL_LIMIT = 64  # a geom is entered at the finest grid level where its bounding square spans at most this many cells
_LEVEL_SCALE = 8  # each grid level's cells are this many times wider than the level below's
_GRID_PAD = 1e-9  # relative and absolute (m) widening of the grid's squares: only ever adds candidates


@_JIT
def near_geoms(centre: np.ndarray, radius: np.ndarray, geom_xpos: np.ndarray, bounded_gid: np.ndarray,
               inflated: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each cluster ``c``, the bounded geoms ``b`` whose sphere of radius ``inflated[b]`` (m) may reach the
    cluster's sphere (``centre[c]``, (c, 3), radius ``radius[c]``), ascending: ``found[start[c]:start[c + 1]]``.

    A superset of the pairs with ``|centre - geom centre| <= radius + inflated``, found in uniform grids of
    the x-y plane (the finest with cells as wide as the largest cluster radius, each next one ``_LEVEL_SCALE``
    times coarser, the coarsest a few cells over everything): each geom is entered in the cells its bounding
    square covers at the finest level where that is at most ``_CELL_LIMIT`` cells, each cluster looks in the
    cells of its own square at every level, so the work grows with the clusters and the geoms near them, not
    with their product, whatever the geoms' sizes. The finest cells widen so that no level has more than 1e9
    cells a side (int64 keys). Coordinates that are not finite give every geom to every cluster (the exact
    tests decide, as without the grid).

    Returns:
        ``(start, found)``: (c + 1,) offsets into (k,) bounded geom indices.
    """
    n_c, n_b = len(radius), len(bounded_gid)
    lo = np.empty((n_b, 2), dtype=np.int64)
    hi = np.empty((n_b, 2), dtype=np.int64)
    cell = 1e-3
    finite = True
    for c in range(n_c):
        cell = _fmax(cell, radius[c])
        finite = finite and math.isfinite(centre[c, 0]) and math.isfinite(centre[c, 1]) and math.isfinite(radius[c])
    origin = np.zeros(2)
    for i in range(2):
        low = math.inf
        for c in range(n_c):
            low = min(low, centre[c, i] - radius[c])
        for b in range(n_b):
            g = bounded_gid[b]
            finite = finite and math.isfinite(geom_xpos[g, i]) and math.isfinite(inflated[b])
            low = min(low, geom_xpos[g, i] - inflated[b])
        origin[i] = low - 1.0
    extent = 0.0  # from the origin to the farthest edge (m)
    if finite:
        for c in range(n_c):
            for i in range(2):
                extent = max(extent, centre[c, i] + radius[c] - origin[i])
        for b in range(n_b):
            for i in range(2):
                extent = max(extent, geom_xpos[bounded_gid[b], i] + inflated[b] - origin[i])
    # At most 1e9 cells a side (the keys of every level fit in int64): a body thrown far away widens the cells
    # rather than giving up the grid.
    cell = max(cell, extent / 5e8)
    top = extent / cell
    if not finite or not top <= 1e9:  # not finite (or the extent overflowed): every geom for every cluster
        start = np.arange(n_c + 1, dtype=np.int64) * n_b
        found = np.empty(n_c * n_b, dtype=np.int64)
        for c in range(n_c):
            found[c * n_b:(c + 1) * n_b] = np.arange(n_b)
        return start, found
    # Levels of ever coarser grids (each _LEVEL_SCALE times wider): a geom is entered at the finest level where
    # its square spans at most _CELL_LIMIT cells, so that geoms far wider than the sensors (a chassis around short
    # sensors) are not given to every cluster; the coarsest level holds the whole extent in a few cells.
    levels = 1
    while top / _LEVEL_SCALE ** (levels - 1) > 2.0:
        levels += 1
    base = np.zeros(levels + 1, dtype=np.int64)  # each level's first key
    width = np.empty(levels, dtype=np.int64)  # cells per row of each level
    size = np.empty(levels)  # each level's cell width (m)
    for level in range(levels):
        size[level] = cell * float(_LEVEL_SCALE) ** level
        width[level] = np.int64(top / float(_LEVEL_SCALE) ** level) + 2
        base[level + 1] = base[level] + width[level] * width[level]
    entries, n_big = 0, 0
    big = np.zeros(n_b, dtype=np.bool_)
    level_of = np.zeros(n_b, dtype=np.int64)
    used = np.zeros(levels, dtype=np.bool_)
    for b in range(n_b):
        g = bounded_gid[b]
        reach = inflated[b] * (1.0 + _GRID_PAD) + _GRID_PAD
        big[b] = True
        for level in range(levels):
            for i in range(2):
                lo[b, i] = np.int64(math.floor((geom_xpos[g, i] - reach - origin[i]) / size[level]))
                hi[b, i] = np.int64(math.floor((geom_xpos[g, i] + reach - origin[i]) / size[level]))
            cells = (hi[b, 0] - lo[b, 0] + 1) * (hi[b, 1] - lo[b, 1] + 1)
            if cells <= _CELL_LIMIT:
                big[b] = False
                level_of[b] = level
                used[level] = True
                entries += cells
                break
        if big[b]:
            n_big += 1
    keys = np.empty(entries, dtype=np.int64)
    ids = np.empty(entries, dtype=np.int64)
    k = 0
    for b in range(n_b):
        if not big[b]:
            level = level_of[b]
            for x in range(lo[b, 0], hi[b, 0] + 1):
                for y in range(lo[b, 1], hi[b, 1] + 1):
                    keys[k] = base[level] + x * width[level] + y
                    ids[k] = b
                    k += 1
    order = np.argsort(keys, kind="mergesort")
    keys, ids = keys[order], ids[order]
    bigs = np.flatnonzero(big)
    stamp = np.full(n_b, -1, dtype=np.int64)  # the last cluster that took each geom (no duplicates)
    start = np.empty(n_c + 1, dtype=np.int64)
    found = np.empty(max(16, 4 * n_b), dtype=np.int64)
    m = 0
    for c in range(n_c):
        start[c] = m
        reach = radius[c] * (1.0 + _GRID_PAD) + _GRID_PAD
        for level in range(levels):
            if not used[level]:
                continue
            x0 = np.int64(math.floor((centre[c, 0] - reach - origin[0]) / size[level]))
            x1 = np.int64(math.floor((centre[c, 0] + reach - origin[0]) / size[level]))
            y0 = np.int64(math.floor((centre[c, 1] - reach - origin[1]) / size[level]))
            y1 = np.int64(math.floor((centre[c, 1] + reach - origin[1]) / size[level]))
            for x in range(x0, x1 + 1):
                for y in range(y0, y1 + 1):
                    key = base[level] + x * width[level] + y
                    j = np.searchsorted(keys, key)
                    while j < entries and keys[j] == key:
                        b = ids[j]
                        if stamp[b] != c:
                            stamp[b] = c
                            if m == len(found):
                                found = np.concatenate((found, np.empty(m, dtype=np.int64)))
                            found[m] = b
                            m += 1
                        j += 1
        # The grid loop's append again: as a shared compiled helper it measured 1.3-2x slower (stop 21).
        for b in bigs:
            if stamp[b] != c:
                stamp[b] = c
                if m == len(found):
                    found = np.concatenate((found, np.empty(m, dtype=np.int64)))
                found[m] = b
                m += 1
        found[start[c]:m].sort()  # the geoms in index order, as the exhaustive loop visits them
    start[n_c] = m
    return start, found[:m]


@_JIT
def broad_pairs(site_xpos: np.ndarray, site_xmat: np.ndarray, geom_xpos: np.ndarray, body_xpos: np.ndarray,
                sites: np.ndarray, lengths: np.ndarray, exclude: np.ndarray, skip_transparent: np.ndarray,
                cone_cos: np.ndarray, cone_sin: np.ndarray, ray_start: np.ndarray, ray_count: np.ndarray,
                cluster_body: np.ndarray, cluster_start: np.ndarray, cluster_count: np.ndarray,
                cluster_members: np.ndarray, cluster_exclude: np.ndarray, filter_sensors: bool,
                bounded_gid: np.ndarray, bounded_rb: np.ndarray, bounded_robot: np.ndarray,
                bounded_transparent: np.ndarray, margin: float, ray_length: np.ndarray, direction: np.ndarray,
                near_start: np.ndarray, near: np.ndarray, bounded_target: np.ndarray, bounded_r2: np.ndarray,
                pairs: np.ndarray, pair_radius2: np.ndarray, found_poses: np.ndarray,
                found_centres: np.ndarray) -> int:
    """The caster's broad phase (its numpy ``_broad_phase``, compiled): the (ray, bounded geom) pairs whose ray
    segment passes within ``margin`` (m) of the geom's bounding sphere, in (cluster, geom, sensor, ray) order.

    Clusters (the sensors of one body) are tested against every bounded geom, or, when ``near_start`` is not
    empty, against cluster ``c``'s geoms ``near[near_start[c]:near_start[c + 1]]`` (:func:`near_geoms`: a grid,
    so that the cost grows with the robots, not their square; the same pairs in the same order), skipping the robot the whole cluster
    ignores (``cluster_exclude``), then their sensors' ray cones, then the rays' segments, with the numpy
    path's tests. Arrays as in ``RayBatch`` and the caster; ``direction`` is each ray's world direction,
    (r, 3); ``filter_sensors``: some sensor of a cluster ignores other geoms than its cluster's (mixed
    exclusions, or transparent geoms and lasers).

    The pairs are written as :func:`cast_rays` reads them, into the caller's lasting buffers (no arrays to make
    or repack after a broad phase): ``pairs`` (ray, bounded index, target index ``bounded_target[b]``), (k, 3),
    and ``pair_radius2`` (``bounded_r2[b]``, the squared bounding radius with the slack), (k,); and the poses
    they are found in: ``found_poses``, each sensor's origin and rotation, (s, 12), ``found_centres``, each
    bounded geom's centre, (b, 3).

    Returns:
        The number of pairs ``m``; the first ``min(m, k)`` are written: the caller calls again with room for
        ``m`` if there was not enough.
    """
    n_clusters = len(cluster_body)
    n_bounded = len(bounded_gid)
    gridded = len(near_start) > 0
    for s in range(len(sites)):
        for i in range(3):
            found_poses[s, i] = site_xpos[sites[s], i]
        for i in range(9):
            found_poses[s, 3 + i] = site_xmat[sites[s], i]
    for b in range(n_bounded):
        for i in range(3):
            found_centres[b, i] = geom_xpos[bounded_gid[b], i]
    room = len(pairs)
    m = 0
    for c in range(n_clusters):
        body = body_xpos[cluster_body[c]]
        # The cluster's radius from where its sensors are now (a supervisor may move one on its body).
        radius = 0.0
        for k in range(cluster_count[c]):
            s = cluster_members[cluster_start[c] + k]
            o = site_xpos[sites[s]]
            d0, d1, d2 = o[0] - body[0], o[1] - body[1], o[2] - body[2]
            radius = _max(radius, math.sqrt(d0 * d0 + d1 * d1 + d2 * d2) + lengths[s])
        for j in range(near_start[c], near_start[c + 1]) if gridded else range(n_bounded):
            b = near[j] if gridded else j
            if bounded_robot[b] == cluster_exclude[c]:
                continue
            centre = geom_xpos[bounded_gid[b]]
            rb = bounded_rb[b] + (_SLACK + margin)
            d0, d1, d2 = centre[0] - body[0], centre[1] - body[1], centre[2] - body[2]
            reach = radius + rb
            if not d0 * d0 + d1 * d1 + d2 * d2 <= reach * reach:
                continue
            for k in range(cluster_count[c]):
                s = cluster_members[cluster_start[c] + k]
                if filter_sensors and (bounded_robot[b] == exclude[s]
                                       or (bounded_transparent[b] and skip_transparent[s])):
                    continue
                o = site_xpos[sites[s]]
                x = site_xmat[sites[s]]
                t0, t1, t2 = centre[0] - o[0], centre[1] - o[1], centre[2] - o[2]
                square = t0 * t0 + t1 * t1 + t2 * t2
                span = lengths[s] + rb
                if not square <= span * span:  # out of reach (the cheaper test first)
                    continue
                along = t0 * x[0] + t1 * x[3] + t2 * x[6]
                across = math.sqrt(_max(square - along * along, 0.0))
                cos, sin = cone_cos[s], cone_sin[s]
                # The centre is in the cone's wedge, near its side, or near its apex.
                if not (along >= math.sqrt(square) * cos
                        or (across * cos - along * sin <= rb and along * cos + across * sin >= 0.0)
                        or square <= rb * rb):
                    continue
                for r in range(ray_start[s], ray_start[s] + ray_count[s]):
                    e0, e1, e2 = direction[r, 0], direction[r, 1], direction[r, 2]
                    a = _min(_max(t0 * e0 + t1 * e1 + t2 * e2, 0.0), ray_length[r])
                    g0, g1, g2 = t0 - a * e0, t1 - a * e1, t2 - a * e2
                    if g0 * g0 + g1 * g1 + g2 * g2 <= rb * rb:
                        if m < room:
                            pairs[m, 0] = r
                            pairs[m, 1] = b
                            pairs[m, 2] = bounded_target[b]
                            pair_radius2[m] = bounded_r2[b]
                        m += 1
    return m


@_JIT
def lookup_values(distance: np.ndarray, rows: np.ndarray, linear: bool, increasing: bool, steps: int,
                  first_input: np.ndarray, last_input: np.ndarray, first_output: np.ndarray,
                  last_output: np.ndarray, span: np.ndarray, inputs: np.ndarray, outputs: np.ndarray,
                  counted: np.ndarray, last: np.ndarray, empty: np.ndarray, values: np.ndarray) -> None:
    """Webots' lookup tables without noise (``LookupPlan.lookup`` with no generator, compiled):
    ``values[rows[i]]`` = the table output of ``distance[rows[i]]``; the arrays are the plan's."""
    for i in range(len(rows)):
        v = distance[rows[i]]
        low = v <= first_input[i]
        high = v >= last_input[i]
        if linear:
            inner = first_input[i] if low or high else v
            u = 0.0 if low else (1.0 if high else (inner - first_input[i]) / span[i])
            out = (1.0 - u) * first_output[i] + u * last_output[i]
        else:
            if increasing:
                mini = 0
                for j in range(counted.shape[1]):
                    if v >= counted[i, j]:
                        mini += 1
                maxi = min(mini + 1, last[i])
            else:  # Webots' bisection
                mini, maxi = 0, last[i]
                k = maxi // 2
                for _ in range(steps):
                    if not mini + 1 < maxi:
                        break
                    if v < inputs[i, k]:
                        maxi = k
                    else:
                        mini = k
                    k = (mini + maxi) // 2
            low_input = inputs[i, mini]
            inner = low_input if low or high else v
            u = (inner - low_input) / (inputs[i, maxi] - low_input)
            out = (1 - u) * outputs[i, mini] + u * outputs[i, maxi]
        if low:
            out = first_output[i]
        elif high:
            out = last_output[i]
        values[rows[i]] = v if empty[i] else out


@_JIT
def combine_distances(ray_distance: np.ndarray, ray_lengths: np.ndarray, weights: np.ndarray,
                      starts: np.ndarray, counts: np.ndarray, laser: np.ndarray, rows: np.ndarray,
                      distance: np.ndarray) -> None:
    """The distance of each generic or laser sensor from its rays' hits (the bank's ``_combine``, compiled).

    A ray's distance is its hit's, or its length when it hit nothing (``np.minimum``); a generic sensor's the
    weighted sum of its rays' (as ``np.add.reduceat``: the first ray's term plus the plain sum of the others',
    at most ``bank.COMBINED_RAYS`` rays: numpy sums 8 or more terms pairwise), a laser's its one ray's.

    Args:
        ray_distance: each ray's hit distance (inf: no hit), (r,).
        ray_lengths, weights: each ray's length (m) and weight, (r,).
        starts, counts: each sensor's first ray and number of rays, (s,).
        laser: each sensor is a laser, (s,).
        rows: each sensor's bank row, (s,).
        distance: the bank's distances (n,), written at ``rows``.
    """
    for i in range(len(rows)):
        s = starts[i]
        first = _min(ray_distance[s], ray_lengths[s])
        if laser[i]:
            distance[rows[i]] = first
            continue
        total = weights[s] * first
        if counts[i] > 1:
            rest = weights[s + 1] * _min(ray_distance[s + 1], ray_lengths[s + 1])
            for j in range(s + 2, s + counts[i]):
                rest += weights[j] * _min(ray_distance[j], ray_lengths[j])
            total += rest
        distance[rows[i]] = total


LOOKUP_CODES = (F2, I2, B1, F1, F2, F2, F2, F2, I1, B1, F1)
"""The type codes of :func:`combine_and_lookup`'s packed tables, in order (:mod:`wbsim.devices.packed`)."""


@_JIT
def combine_and_lookup(ray_distance: np.ndarray, tables: np.ndarray, linear: bool, increasing: bool,
                       steps: int) -> None:
    """:func:`combine_distances`, then :func:`lookup_values` of the same rows, in one call (the bank's usual
    step: one sample group of generic or laser sensors without noise), with the plan's arrays packed in one
    table (:mod:`wbsim.devices.packed`: numba unboxes each array argument at every call, ~0.3-1 us each right
    after a physics step).

    Args:
        ray_distance: each ray's hit distance (inf: no hit), (r,).
        tables: packed (:data:`LOOKUP_CODES`), in order: ``ray_table``, each ray's length (m) and weight, (2, r);
            ``sensor_table``, each sensor's first ray, number of rays and bank row, (3, s); ``laser`` and
            ``distance`` as :func:`combine_distances`'s; ``ends``, the tables' first input, last input, first
            output, last output and span, (5, s); ``inputs``, ``outputs``, ``counted``, ``last``, ``empty`` as
            :func:`lookup_values`'s; ``values``, where the values go, at the sensors' bank rows, (n,).
        linear, increasing, steps: as :func:`lookup_values`'s.
    """
    t = tables
    ray_table, sensor_table, distance, ends = f2(t, 0), i2(t, 1), f1(t, 3), f2(t, 4)
    rows = sensor_table[2]
    combine_distances(ray_distance, ray_table[0], ray_table[1], sensor_table[0], sensor_table[1], b1(t, 2), rows,
                      distance)
    lookup_values(distance, rows, linear, increasing, steps, ends[0], ends[1], ends[2], ends[3], ends[4],
                  f2(t, 5), f2(t, 6), f2(t, 7), i1(t, 8), b1(t, 9), f1(t, 10))
