"""The per-sample work of the motion sensors (Accelerometer, Gyro, InertialUnit, Compass, GPS) as compiled loops.

Each bank's numpy path is several tens of numpy calls on arrays of a few rows, so a world with one IMU set per
robot spent most of its sensor time in numpy's per-call overhead. These loops (numba) do the same arithmetic
for all the sensors of a sample group in one call each, reading MuJoCo's arrays in place and writing the
bank's arrays at the sensors' rows:

- :func:`gyro_values`, :func:`accelerometer_values`: the measured vector in the sensor frame
  (:meth:`~wbsim.devices.three_axis.bank.ThreeAxisBank.measure` of each kind);
- :func:`inertial_values`: Webots' ``toQuaternion`` of the sensor rotations, the resolution and the roll, pitch
  and yaw the controller library derives (:mod:`wbsim.devices.inertial_unit.attitude`);
- :func:`compass_values`: the normalised north direction in the sensor frame;
- :func:`gps_values`: position (plus a noise offset computed by the bank), resolution, velocity of the origin,
  speed (times a noise factor drawn by the bank) and speed resolution;
- :func:`fused_values`: the five loops in one call, for the plain samples of
  the kinds due in the same step (:mod:`wbsim.devices.motion_batch`).

Randomness stays in the banks: they draw from the simulation's generator in the numpy path's order and pass
the draws in, so both paths consume the same numbers. The formulas repeat the numpy path's in the same order of
operations; results agree to the last bits except where numpy sums a product in another order or uses other
implementations of ``atan2``/``asin`` (1e-16 relative; the banks' tests compare the two paths on moving robots).
Compiled with ``error_model="numpy"`` (IEEE infinities and NaN) and ``cache=True`` (machine code stored next to
this file, or in numba's user cache when that folder is read-only; ``NUMBA_CACHE_DIR`` overrides both; without
any writable place, compiled in memory: :func:`wbsim.devices.compiled.cached_njit`).

This module imports numba: the banks import it at their first sample, never at ``import wbsim``.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from wbsim.devices.compiled import cached_njit
from wbsim.devices.packed import F1, F2, I1
from wbsim.devices.packed_kernel import f1, f2, i1

__all__ = ["gyro_values", "accelerometer_values", "inertial_values", "compass_values", "gps_values", "fused_values",
           "FUSED_PIECES", "FUSED_CODES"]

_JIT = cached_njit(error_model="numpy", nogil=True)


@_JIT
def _quantize(value: float, resolution: float) -> float:
    """``quantize`` of :mod:`wbsim.devices.resolution` for one value: ``trunc(v / r + 0.5) * r`` when r > 0."""
    if not resolution > 0.0:
        return value
    x = value / resolution + 0.5
    if abs(x) < 4503599627370496.0:  # 2**52: larger floats (and infinities, NaN) are already whole
        x = math.copysign(float(int(x)), x)  # np.trunc(x) (-0.3 gives -0.0)
    return x * resolution


@_JIT
def gyro_values(site_xmat: np.ndarray, cvel: np.ndarray, sites: np.ndarray, bodies: np.ndarray,
                out_rows: np.ndarray, out: np.ndarray) -> None:
    """Each sensor's body angular velocity in its frame, ``R^T w`` (rad/s), into ``out`` at ``out_rows``.

    Args:
        site_xmat: MuJoCo's ``site_xmat`` (nsite, 9), row-major sensor rotations.
        cvel: MuJoCo's ``cvel`` (nbody, 6), [angular, linear] in world axes.
        sites, bodies: each sensor's site and body, (k,).
        out_rows: where each sensor's vector goes in ``out``, (k,).
        out: (m, 3), written at ``out_rows``.
    """
    for n in range(len(sites)):
        s, b, o = sites[n], bodies[n], out_rows[n]
        w0, w1, w2 = cvel[b, 0], cvel[b, 1], cvel[b, 2]
        for i in range(3):
            out[o, i] = site_xmat[s, i] * w0 + site_xmat[s, 3 + i] * w1 + site_xmat[s, 6 + i] * w2


@_JIT
def accelerometer_values(site_xmat: np.ndarray, site_xpos: np.ndarray, cvel: np.ndarray, subtree_com: np.ndarray,
                         sites: np.ndarray, bodies: np.ndarray, roots: np.ndarray, rows: np.ndarray,
                         velocity: np.ndarray, last_step: np.ndarray, step: int, basic_ms: float,
                         gravity: np.ndarray, out_rows: np.ndarray, out: np.ndarray) -> None:
    """Webots' accelerometer: ``-gravity + (v - v_prev) * 1000 / elapsed_ms`` in each sensor frame (m/s^2).

    ``v`` is the velocity of the sensor's position as a point of its body (``cvel`` about the tree's
    ``subtree_com``); the bank's ``velocity`` and ``last_step`` rows are updated (the sensor's ``v`` and
    ``step``), as :meth:`~wbsim.devices.accelerometer.bank.AccelerometerBank.measure` does.

    Args:
        site_xmat, site_xpos, cvel, subtree_com: MuJoCo's arrays.
        sites, bodies, roots, rows: each sensor's site, body, tree root and bank row, (k,).
        velocity: the bank's velocities at the last samples (n, 3), updated.
        last_step: the bank's last sample steps (n,), updated.
        step: the basic step sampled; basic_ms: the basic time step (ms).
        gravity: the world's gravity (3,).
        out_rows: where each sensor's vector goes in ``out``, (k,).
        out: (m, 3), written at ``out_rows``.
    """
    for n in range(len(sites)):
        s, b, r, row = sites[n], bodies[n], roots[n], rows[n]
        a0, a1, a2 = cvel[b, 0], cvel[b, 1], cvel[b, 2]
        o0 = site_xpos[s, 0] - subtree_com[r, 0]
        o1 = site_xpos[s, 1] - subtree_com[r, 1]
        o2 = site_xpos[s, 2] - subtree_com[r, 2]
        v0 = cvel[b, 3] + (a1 * o2 - a2 * o1)
        v1 = cvel[b, 4] + (a2 * o0 - a0 * o2)
        v2 = cvel[b, 5] + (a0 * o1 - a1 * o0)
        rate = 1000.0 / ((step - last_step[row]) * basic_ms)  # 0 after a world reset (infinite elapsed time)
        c0 = -gravity[0] + (v0 - velocity[row, 0]) * rate
        c1 = -gravity[1] + (v1 - velocity[row, 1]) * rate
        c2 = -gravity[2] + (v2 - velocity[row, 2]) * rate
        velocity[row, 0], velocity[row, 1], velocity[row, 2] = v0, v1, v2
        last_step[row] = step
        o = out_rows[n]
        for i in range(3):
            out[o, i] = site_xmat[s, i] * c0 + site_xmat[s, 3 + i] * c1 + site_xmat[s, 6 + i] * c2


@_JIT
def inertial_values(mats: np.ndarray, index: np.ndarray, rows: np.ndarray, resolution: np.ndarray, nue: bool,
                    quaternion: np.ndarray, roll_pitch_yaw: np.ndarray) -> None:
    """Webots' ``toQuaternion`` of each rotation, discretised, and its roll, pitch and yaw (rad).

    Args:
        mats: row-major rotations (m, 9): MuJoCo's ``site_xmat``, or the bank's noisy rotations.
        index: each sensor's rotation in ``mats``, (k,).
        rows: each sensor's bank row, (k,).
        resolution: the bank's ``resolution`` (n,) (-1: none).
        nue: the world is NUE (Webots' NUE angle sequence; else ENU's).
        quaternion: the bank's (n, 4) ``[x, y, z, w]``, written at ``rows``.
        roll_pitch_yaw: the bank's (n, 3), written at ``rows``.
    """
    for n in range(len(index)):
        j, row = index[n], rows[n]
        m0, m1, m2 = mats[j, 0], mats[j, 1], mats[j, 2]
        m3, m4, m5 = mats[j, 3], mats[j, 4], mats[j, 5]
        m6, m7, m8 = mats[j, 6], mats[j, 7], mats[j, 8]
        trace = m0 + m4 + m8
        if m0 == m4 and m0 == m8 and m0 == 1.0:
            x, y, z, w = 0.0, 0.0, 0.0, 1.0
        elif trace >= 0.0:
            s = 2.0 * math.sqrt(trace + 1)
            i = 1.0 / s
            x, y, z, w = (m7 - m5) * i, (m2 - m6) * i, (m3 - m1) * i, 0.25 * s
        elif m0 > m4 and m0 > m8:
            s = 2.0 * math.sqrt(1.0 + m0 - m4 - m8)
            i = 1.0 / s
            x, y, z, w = 0.25 * s, (m1 + m3) * i, (m6 + m2) * i, (m7 - m5) * i
        elif m4 > m8:
            s = 2.0 * math.sqrt(1.0 + m4 - m8 - m0)
            i = 1.0 / s
            x, y, z, w = (m1 + m3) * i, 0.25 * s, (m5 + m7) * i, (m2 - m6) * i
        else:
            s = 2.0 * math.sqrt(1.0 + m8 - m0 - m4)
            i = 1.0 / s
            x, y, z, w = (m6 + m2) * i, (m5 + m7) * i, 0.25 * s, (m3 - m1) * i
        r = resolution[row]
        if r > 0.0:
            x, y, z, w = _quantize(x, r), _quantize(y, r), _quantize(z, r), _quantize(w, r)
        quaternion[row, 0], quaternion[row, 1], quaternion[row, 2], quaternion[row, 3] = x, y, z, w
        if nue:
            roll_pitch_yaw[row, 2] = math.atan2(2 * y * w - 2 * x * z, 1 - 2 * y * y - 2 * z * z)
            roll_pitch_yaw[row, 0] = math.atan2(2 * x * w - 2 * y * z, 1 - 2 * x * x - 2 * z * z)
            t = 2 * x * y + 2 * z * w
            roll_pitch_yaw[row, 1] = math.asin(t) if -1.0 <= t <= 1.0 else math.nan  # unclamped, as Webots
        else:
            roll_pitch_yaw[row, 0] = math.atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y))
            t = 2.0 * (w * y - z * x)
            if t > 1.0:
                t = 1.0
            if t < -1.0:
                t = -1.0
            roll_pitch_yaw[row, 1] = math.asin(t)
            roll_pitch_yaw[row, 2] = math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


@_JIT
def compass_values(site_xmat: np.ndarray, sites: np.ndarray, north: int, rows: np.ndarray,
                   out: np.ndarray) -> None:
    """The world's north axis in each sensor frame (row ``north`` of ``R``), normalised as ``WbVector3::normalize``
    (a zero vector stays zero), into ``out`` at ``rows``.

    Args:
        site_xmat: MuJoCo's ``site_xmat`` (nsite, 9).
        sites: each compass's site, (k,).
        north: the world axis named "N" (0, 1 or 2).
        rows: where each compass's vector goes in ``out``.
        out: (n, 3), written at ``rows``.
    """
    for n in range(len(sites)):
        s, row = sites[n], rows[n]
        x, y, z = site_xmat[s, 3 * north], site_xmat[s, 3 * north + 1], site_xmat[s, 3 * north + 2]
        length = math.sqrt(x * x + y * y + z * z)
        inverse = 1.0 / length if length != 0.0 else 1.0
        out[row, 0], out[row, 1], out[row, 2] = x * inverse, y * inverse, z * inverse


@_JIT
def gps_values(site_xpos: np.ndarray, cvel: np.ndarray, subtree_com: np.ndarray, sites: np.ndarray,
               bodies: np.ndarray, roots: np.ndarray, dynamic: np.ndarray, rows: np.ndarray,
               reference: np.ndarray,
               offset: np.ndarray, resolution: np.ndarray, speed_factor: np.ndarray, speed_resolution: np.ndarray,
               previous: np.ndarray, last: np.ndarray, step: int, basic_s: float, metric_rows: np.ndarray,
               metric: np.ndarray, speed_vector: np.ndarray, speed: np.ndarray) -> None:
    """One GPS sample of each device (:meth:`~wbsim.devices.gps.bank.GpsBank.sample`'s numpy path).

    Args:
        site_xpos, cvel, subtree_com: MuJoCo's arrays.
        sites, bodies, roots, dynamic, rows: each device's site, body, tree root, whether it moves under physics,
            and bank row, (k,).
        reference: the metric reference added to positions (3,).
        offset: the noise added to each metric position (k, 3), or an empty array for none.
        resolution, speed_resolution: the bank's resolutions (n,).
        speed_factor: each speed's noise factor (k,), or an empty array for none.
        previous: the bank's positions at the last samples (n, 3), updated.
        last: the bank's last sample steps (n,), updated.
        step: the basic step sampled; basic_s: the basic time step (s).
        metric_rows: where each device's position goes in ``metric``, (k,).
        metric: (m, 3), written at ``metric_rows``: the discretised metric positions (the values of a ``LOCAL``
            world).
        speed_vector, speed: the bank's (n, 3) and (n,), written at ``rows``.
    """
    noisy = len(offset) > 0
    shaken = len(speed_factor) > 0
    for n in range(len(sites)):
        s, row = sites[n], rows[n]
        p0, p1, p2 = site_xpos[s, 0], site_xpos[s, 1], site_xpos[s, 2]
        elapsed = (step - last[row]) * basic_s
        m0, m1, m2 = p0 + reference[0], p1 + reference[1], p2 + reference[2]
        if noisy:
            m0 += offset[n, 0]
            m1 += offset[n, 1]
            m2 += offset[n, 2]
        r = resolution[row]
        o = metric_rows[n]
        metric[o, 0], metric[o, 1], metric[o, 2] = _quantize(m0, r), _quantize(m1, r), _quantize(m2, r)
        if dynamic[n]:
            b, t = bodies[n], roots[n]
            a0, a1, a2 = cvel[b, 0], cvel[b, 1], cvel[b, 2]
            l0, l1, l2 = p0 - subtree_com[t, 0], p1 - subtree_com[t, 1], p2 - subtree_com[t, 2]
            v0 = cvel[b, 3] + (a1 * l2 - a2 * l1)
            v1 = cvel[b, 4] + (a2 * l0 - a0 * l2)
            v2 = cvel[b, 5] + (a0 * l1 - a1 * l0)
        else:  # NaN at the first sample (no previous position)
            v0 = (p0 - previous[row, 0]) / elapsed
            v1 = (p1 - previous[row, 1]) / elapsed
            v2 = (p2 - previous[row, 2]) / elapsed
        previous[row, 0], previous[row, 1], previous[row, 2] = p0, p1, p2
        speed_vector[row, 0], speed_vector[row, 1], speed_vector[row, 2] = v0, v1, v2
        norm = math.sqrt(v0 * v0 + v1 * v1 + v2 * v2)
        if shaken:
            norm *= speed_factor[n]
        speed[row] = _quantize(norm, speed_resolution[row])
        last[row] = step


FUSED_PIECES = (3, 4, 2, 2, 5)
"""How many index arrays each kind of :func:`fused_values` takes from ``index``, in its order (gyro: sites, bodies,
rows; accelerometer: sites, bodies, roots, rows; inertial unit: sites, rows; compass: sites, rows; GPS: sites,
bodies, roots, dynamic (0/1), rows)."""


FUSED_CODES = (F2, F2, F2, F2, I1, I1, F2, F2, F1, F1, F2, F1, F2, F2, F2, F1, F2, F1, F1, F1, F2, F1, F2, F2, F1)
"""The type codes of :func:`fused_values`'s packed arrays, in order (:mod:`wbsim.devices.packed`)."""


@_JIT
def fused_values(arrays: np.ndarray, step: int, basic_ms: float, nue: bool, north: int, basic_s: float) -> None:
    """The plain samples of the five motion kinds in one call (:mod:`wbsim.devices.motion_batch`): each kind's loop
    above, in turn, on its sensors, with the arguments its bank would pass (every kind writes only its own arrays
    and reads only MuJoCo's, so the order of the kinds changes nothing).

    Its 25 arrays come packed in one table (:mod:`wbsim.devices.packed`, :data:`FUSED_CODES`): numba unboxes each
    array argument at every call, which cost more than the five loops right after a physics step.

    Args:
        arrays: packed, in order: MuJoCo's ``site_xmat``, ``site_xpos``, ``cvel``, ``subtree_com``; ``index``, the
            int64 index arrays of the kinds one after the other (:data:`FUSED_PIECES`; a kind not sampled in this
            call has empty ones) and ``bounds``, where each starts in ``index`` plus the end, (17,); the Gyros'
            values; the Accelerometers' ``velocity``, ``last``, ``gravity`` and values (as
            :func:`accelerometer_values`); the InertialUnits' ``resolution``, ``quaternion``, ``roll_pitch_yaw``
            (as :func:`inertial_values`); the Compasses' values; the GPS devices' ``reference``, ``no_offset``,
            ``resolution``, ``no_factor``, ``speed_resolution``, ``previous``, ``last``, values, ``speed_vector``,
            ``speed`` (as :func:`gps_values`, without noise: ``no_offset`` and ``no_factor`` empty, ``LOCAL``: the
            metric positions are the values).
        step: the basic step sampled; basic_ms: the Accelerometers' basic step (ms); nue: the InertialUnits'
            coordinate system; north: the Compasses' north axis; basic_s: the GPS devices' basic step (s).
    """
    a = arrays
    site_xmat, site_xpos, cvel, subtree_com, index, b = f2(a, 0), f2(a, 1), f2(a, 2), f2(a, 3), i1(a, 4), i1(a, 5)
    gyro_values(site_xmat, cvel, index[b[0]:b[1]], index[b[1]:b[2]], index[b[2]:b[3]], f2(a, 6))
    acc_rows = index[b[6]:b[7]]
    accelerometer_values(site_xmat, site_xpos, cvel, subtree_com, index[b[3]:b[4]], index[b[4]:b[5]],
                         index[b[5]:b[6]], acc_rows, f2(a, 7), f1(a, 8), step, basic_ms, f1(a, 9), acc_rows,
                         f2(a, 10))
    inertial_values(site_xmat, index[b[7]:b[8]], index[b[8]:b[9]], f1(a, 11), nue, f2(a, 12), f2(a, 13))
    compass_values(site_xmat, index[b[9]:b[10]], north, index[b[10]:b[11]], f2(a, 14))
    gps_rows = index[b[15]:b[16]]
    gps_values(site_xpos, cvel, subtree_com, index[b[11]:b[12]], index[b[12]:b[13]], index[b[13]:b[14]],
               index[b[14]:b[15]], gps_rows, f1(a, 15), f2(a, 16), f1(a, 17), f1(a, 18), f1(a, 19), f2(a, 20),
               f1(a, 21), step, basic_s, gps_rows, f2(a, 22), f2(a, 23), f1(a, 24))
