"""The compiled caster, broad phase and lookups against the numpy path, bit for bit."""

from __future__ import annotations

import copy
import math
import subprocess
import sys
from types import SimpleNamespace

import mujoco
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("numba")

from wbsim.devices.distance_sensor import kernel  # noqa: E402
from wbsim.devices.distance_sensor.bank import COMBINED_RAYS, DistanceSensorBank  # noqa: E402
from wbsim.devices.distance_sensor.schema import GENERIC, LASER  # noqa: E402
from wbsim.devices.distance_sensor.caster import RayBatch, RayCaster, RayTargets  # noqa: E402
from wbsim.devices.distance_sensor.rays import ray_directions  # noqa: E402
from wbsim.devices.lookup_table import LookupTables  # noqa: E402

# Every kind of target: plane, box, sphere, cylinder, capsule, mesh, height field; a robot with 4 sensor sites.
_SCENE = """
<mujoco>
  <asset><mesh name="tetra" vertex="0 0 0  0.3 0 0  0 0.3 0  0 0 0.3"/>
    <hfield name="hills" nrow="5" ncol="6" size="0.6 0.5 0.2 0.05"
            elevation="0 1 2 1 0 0  1 2 3 2 1 0  0 1 4 1 0 1  2 1 0 1 2 3  0 0 1 0 0 1"/></asset>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
    <geom name="box" type="box" size="0.2 0.1 0.15" pos="0.8 0.1 0.3" euler="10 20 30"/>
    <body name="mover" pos="-0.5 0.6 0.25"><geom name="ball" type="sphere" size="0.12"/></body>
    <geom name="drum" type="cylinder" size="0.1 0.2" pos="0.2 -0.7 0.4" euler="80 0 15"/>
    <geom name="pill" type="capsule" size="0.07 0.15" pos="-0.6 -0.4 0.3" euler="0 60 0"/>
    <geom name="tetra" type="mesh" mesh="tetra" pos="0.1 0.7 0.1" euler="5 10 15"/>
    <geom name="hills" type="hfield" hfield="hills" pos="0.9 -0.9 0.0" euler="0 0 20"/>
    <body name="robot" pos="0 0 0.3"><freejoint/><geom name="hull" type="box" size="0.1 0.1 0.1"/>
      <site name="s0" pos="0.05 0 0"/><site name="s1" pos="0 0.05 0" euler="0 0 90"/>
      <site name="s2" pos="-0.05 0 0" euler="0 0 180"/><site name="s3" pos="0 0 0.05" euler="0 -60 0"/>
    </body>
  </worldbody>
</mujoco>
"""


def _scene(transparent_ball: bool = False) -> tuple[mujoco.MjModel, mujoco.MjData, RayTargets]:
    model = mujoco.MjModel.from_xml_string(_SCENE)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    n = model.ngeom
    targets = RayTargets(tuple(range(n)), tuple(0 if g == model.geom("hull").id else -1 for g in range(n)),
                         tuple(transparent_ball and g == model.geom("ball").id for g in range(n)),
                         tuple(0.2 + 0.1 * g for g in range(n)),
                         tuple((0.8, 0.6) if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_PLANE else (math.inf, math.inf)
                               for g in range(n)))
    return model, data, targets


def _compiled_pairs(caster: RayCaster, batch: RayBatch) -> SimpleNamespace:
    """The (ray, bounded geom) pairs of the compiled caster's last broad phase for ``batch``, as its cast reads them
    (the filled part of its buffers, as its packed table describes it)."""
    static = caster._static[batch]
    table = static.packed.table
    count = int(table[16 * 5 + 2])
    assert count == static.found and int(table[17 * 5 + 2]) == count
    pairs = static.room[0][:count]
    return SimpleNamespace(ray=pairs[:, 0], geom=pairs[:, 1], target=pairs[:, 2], radius2=static.room[1][:count])


def _assert_same_hits(got, expected, context) -> None:
    # The numpy path sums some dot products in matrix products: the last bit may differ there.
    np.testing.assert_array_equal(got.target, expected.target, err_msg=str(context))
    np.testing.assert_allclose(got.distance, expected.distance, rtol=1e-12, atol=1e-12, err_msg=str(context))
    np.testing.assert_allclose(got.normal, expected.normal, rtol=1e-12, atol=1e-12, err_msg=str(context))
    np.testing.assert_allclose(got.direction, expected.direction, rtol=0, atol=0, err_msg=str(context))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(1, 12), st.floats(0.0, 6.3), st.floats(0.05, 3.0),
                          st.booleans(), st.booleans(), st.booleans()), min_size=1, max_size=6),
       st.lists(st.tuples(st.floats(-1.0, 1.0), st.floats(-1.0, 1.0), st.floats(-math.pi, math.pi),
                          st.floats(-0.6, 0.6)), min_size=1, max_size=6),
       st.booleans(), st.booleans(), st.floats(0.0, 0.3))
def test_compiled_casts_match_the_numpy_path(sensors, poses, normals, transparent_ball, margin):
    # Sensors of every rule (ODE, rendering, laser, self-seeing) in one batch, the robot driven through poses
    # (pairs reused or found again): the compiled cast gives the numpy cast's hits.
    model, data, targets = _scene(transparent_ball)
    compiled, numpy_caster = RayCaster(model, targets, margin, compiled=True), RayCaster(model, targets, margin,
                                                                                        compiled=False)
    local = [ray_directions(rays, aperture) for _, rays, aperture, _, _, _, _ in sensors]
    batch = RayBatch.build(model, np.array([s[0] for s in sensors]), np.array([len(d) for d in local]),
                           np.concatenate(local), np.array([s[3] for s in sensors]),
                           np.array([-2 if s[4] else 0 for s in sensors]), np.array([s[5] for s in sensors]),
                           np.array([s[6] for s in sensors]))
    for x, y, yaw, pitch in poses:
        data.qpos[:3] = [x, y, 0.3]
        data.qpos[3:7] = [math.cos(yaw / 2), 0.0, math.sin(pitch / 2) * 0.3, math.sin(yaw / 2)]
        data.qpos[3:7] /= np.linalg.norm(data.qpos[3:7])
        mujoco.mj_kinematics(model, data)
        _assert_same_hits(compiled.cast(data, batch, normals), numpy_caster.cast(data, batch, normals),
                          (x, y, yaw, pitch))


def test_compiled_broad_phase_finds_the_numpy_pairs_in_their_order():
    model, data, targets = _scene()
    rng = np.random.default_rng(3)
    local = ray_directions(7, 2.0)
    batch = RayBatch.build(model, np.arange(4), np.full(4, 7), np.tile(local, (4, 1)), np.full(4, 1.4),
                           np.array([0, -2, 0, 0]), np.array([False, False, True, False]), np.zeros(4, dtype=bool))
    compiled, numpy_caster = RayCaster(model, targets, compiled=True), RayCaster(model, targets, compiled=False)
    found = 0
    for _ in range(30):
        data.qpos[:2] = rng.uniform(-0.8, 0.8, 2)
        yaw = rng.uniform(-math.pi, math.pi)
        data.qpos[3:7] = [math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)]
        mujoco.mj_kinematics(model, data)
        compiled.cast(data, batch, True)
        numpy_caster.cast(data, batch, True)
        a = _compiled_pairs(compiled, batch)
        b = numpy_caster._static[batch].candidates
        np.testing.assert_array_equal(a.ray, b.ray)
        np.testing.assert_array_equal(a.geom, b.geom)
        np.testing.assert_array_equal(a.target, b.target)
        np.testing.assert_array_equal(a.radius2, b.radius2)
        found += len(a.ray)
    assert compiled.broad_phases == numpy_caster.broad_phases >= 20
    assert found > 100


def test_a_caster_switched_to_numpy_after_compiled_casts_finds_its_own_pairs_and_the_same_hits():
    # The compiled broad phase keeps its pairs in its cast's buffers only: a caster switched to the numpy path (as
    # the benchmark's --numpy after its warm-up) runs a broad phase of its own.
    model, data, targets = _scene()
    local = ray_directions(5, 1.0)
    batch = RayBatch.build(model, np.arange(4), np.full(4, 5), np.tile(local, (4, 1)), np.full(4, 1.2),
                           np.array([0, -2, 0, 0]), np.zeros(4, dtype=bool),
                           np.array([False, True, False, False]))
    switched, reference = RayCaster(model, targets, compiled=True), RayCaster(model, targets, compiled=False)
    switched.cast(data, batch, True)
    assert switched._static[batch].candidates is None and switched.broad_phases == 1
    switched.compiled = False
    hits = switched.cast(data, batch, True)
    assert switched.broad_phases == 2 and switched._static[batch].candidates.sensor is not None
    expected = reference.cast(data, batch, True)
    for name in ("distance", "target", "normal", "direction"):
        np.testing.assert_array_equal(getattr(hits, name), getattr(expected, name))
    assert np.isfinite(hits.distance).sum() >= 5


@pytest.mark.parametrize("floor", [True, False])
def test_a_world_without_bounded_geoms_casts_once_per_step_with_the_numpy_hits(floor):
    # Only a floor plane (or nothing) to hit: there are no pairs to find again, so each cast is one call of the
    # compiled cast (it was two, the first always rejecting the empty pairs, and their arguments rebuilt), with
    # the numpy path's hits as the sensors move and turn.
    plane = '<geom type="plane" size="0 0 1"/>' if floor else ""
    model = mujoco.MjModel.from_xml_string(
        f'<mujoco><worldbody>{plane}<body pos="0 0 0.5"><freejoint/>'
        '<inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/><site/><site pos="0.1 0 0" euler="0 50 0"/>'
        '</body></worldbody></mujoco>')
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    n = model.ngeom
    targets = RayTargets(tuple(range(n)), (-1,) * n, (False,) * n, (1.0,) * n, ((5.0, 5.0),) * n)
    local = ray_directions(3, 1.2)
    batch = RayBatch.build(model, np.arange(2), np.full(2, 3), np.tile(local, (2, 1)), np.full(2, 2.0),
                           np.full(2, -2), np.zeros(2, dtype=bool), np.zeros(2, dtype=bool))
    compiled, reference = RayCaster(model, targets, compiled=True), RayCaster(model, targets, compiled=False)
    compiled.cast(data, batch, True)
    calls = []
    cast_rays = compiled._kernel

    def counted(*arguments):
        calls.append(1)
        return cast_rays(*arguments)

    compiled._kernel = counted
    hits = 0
    for step in range(6):
        data.qpos[2] = 0.3 + 0.2 * step
        data.qpos[3:7] = [math.cos(0.2 * step), 0.0, math.sin(0.2 * step), 0.0]
        mujoco.mj_kinematics(model, data)
        got = compiled.cast(data, batch, True)
        _assert_same_hits(got, reference.cast(data, batch, True), step)
        hits += int(np.isfinite(got.distance).sum())
    assert len(calls) == 6 and compiled.broad_phases == 0
    assert hits > 10 if floor else hits == 0


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.tuples(st.floats(-5, 5), st.floats(-1e3, 1e3)), min_size=0, max_size=6), min_size=1,
                max_size=6),
       st.lists(st.one_of(st.floats(-6, 6), st.sampled_from([math.inf, -math.inf, math.nan])), min_size=6,
                max_size=6),
       st.booleans())
def test_compiled_lookups_match_the_numpy_lookups(tables, values, sort):
    # Empty, one-row, two-row (the linear path), increasing and unsorted tables (Webots' bisection), clamping.
    tables = [sorted(t) if sort else t for t in tables]
    lookup = LookupTables([[(i, o, 0.0) for i, o in t] for t in tables])
    plan = lookup.prepare(np.arange(len(tables)))
    distance = np.array(values[: len(tables)], dtype=float)
    expected = plan.lookup(distance, None)
    got = np.full(len(tables), -7.0)
    kernel.lookup_values(distance, np.arange(len(tables)), plan.linear, plan.increasing, plan.steps,
                         plan.first_input, plan.last_input, plan.first_output, plan.last_output, plan.span,
                         plan.inputs, plan.outputs, plan.counted, plan.last, plan.empty, got)
    np.testing.assert_array_equal(got, expected)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(1, COMBINED_RAYS), st.booleans()), min_size=1, max_size=12),
       st.randoms(use_true_random=False))
def test_compiled_combination_matches_numpy_bit_for_bit(sensors, random):
    # Generic sensors of 1 to COMBINED_RAYS rays (weights of very different sizes, so that the order of the sum
    # shows in the last bits) and lasers (one ray); rays that hit, miss (inf) or went wrong (NaN).
    counts = np.array([1 if laser else count for count, laser in sensors], dtype=np.int64)
    kind = np.array([LASER if laser else GENERIC for _, laser in sensors], dtype=np.int64)
    n_rays = int(counts.sum())
    starts = np.cumsum(counts) - counts
    weights = np.array([random.choice([1e-17, 0.3, 1.0, 1e16]) * random.random() for _ in range(n_rays)])
    lengths = np.repeat([random.uniform(0.1, 2.0) for _ in sensors], counts)
    hits = np.array([random.choice([math.inf, math.nan, random.uniform(0.0, 3.0), random.uniform(0.0, 3.0)])
                     for _ in range(n_rays)])
    cast = SimpleNamespace(batch=SimpleNamespace(ray_start=starts, lengths=lengths[starts]), ray_lengths=lengths,
                           kind=kind, weights=weights, rendering=False, normals=False,
                           laser=bool((kind == LASER).any()))
    expected = DistanceSensorBank._combine(SimpleNamespace(caster=object()), cast,  # type: ignore[arg-type]
                                           SimpleNamespace(distance=hits))
    rows = np.arange(len(sensors), dtype=np.int64)[::-1].copy()  # written at the sensors' bank rows
    got = np.full(len(sensors), -7.0)
    kernel.combine_distances(hits, lengths, weights, starts, counts, kind == LASER, rows, got)
    np.testing.assert_array_equal(got[rows], expected)


def test_importing_wbsim_does_not_import_numba():
    # import wbsim (and the distance-sensor package) never imports numba: it costs about a second.
    code = ("import sys, wbsim, wbsim.devices.distance_sensor.bank, wbsim.sim.simulation\n"
            "print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"



def _exhaustive_near(centre, radius, positions, inflated):
    """Every (cluster, geom) pair within reach, the test the grid must never lose (3-D distance)."""
    d = np.linalg.norm(centre[:, None, :] - positions[None, :, :], axis=2)
    return [set(np.flatnonzero(d[c] <= radius[c] + inflated).tolist()) for c in range(len(centre))]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.floats(-20, 20), st.floats(-20, 20), st.floats(-2, 2), st.floats(0.0, 3.0)), min_size=0,
                max_size=25),
       st.lists(st.tuples(st.floats(-20, 20), st.floats(-20, 20), st.floats(-2, 2),
                          st.one_of(st.floats(0.0, 1.0), st.floats(1.0, 60.0))), min_size=0, max_size=40))
def test_the_grid_keeps_every_geom_within_reach_of_a_cluster_in_index_order(clusters, geoms):
    # Clusters and geoms of any sizes (a geom spanning more than _CELL_LIMIT cells goes to every cluster): each
    # cluster's candidates hold every geom within reach, ascending, each once.
    centre = np.array([c[:3] for c in clusters], dtype=float).reshape(-1, 3)
    radius = np.array([c[3] for c in clusters], dtype=float)
    positions = np.array([g[:3] for g in geoms], dtype=float).reshape(-1, 3)
    inflated = np.array([g[3] for g in geoms], dtype=float)
    start, found = kernel.near_geoms(centre, radius, positions, np.arange(len(geoms), dtype=np.int64), inflated)
    assert len(start) == len(clusters) + 1 and start[-1] == len(found)
    for c, expected in enumerate(_exhaustive_near(centre, radius, positions, inflated)):
        got = found[start[c]:start[c + 1]]
        assert np.all(np.diff(got) > 0)
        assert expected <= set(got.tolist())


def test_the_grid_keeps_geoms_exactly_at_reach_at_any_offset_scale_and_height():
    # Geoms placed exactly at the reach of a cluster (the broad phase's own float test decides on the boundary),
    # in random directions or along x, clusters and geoms far apart in z, negative and large offsets (1e7 m),
    # scales from millimetres to kilometres and geoms up to 1,000 times wider than the sensors (several levels):
    # the grid never loses a pair the exhaustive test keeps.
    rng = np.random.default_rng(1)
    for _ in range(400):
        n_c, n_b = int(rng.integers(1, 10)), int(rng.integers(0, 16))
        scale = 10.0 ** int(rng.integers(-3, 4))
        offset = rng.normal(0.0, 1.0, 2) * 10.0 ** int(rng.integers(0, 8))
        centre = np.zeros((n_c, 3))
        centre[:, :2] = offset + rng.normal(0.0, scale, (n_c, 2))
        centre[:, 2] = rng.normal(0.0, 10.0 * scale, n_c)
        radius = np.abs(rng.normal(0.0, scale, n_c)) * (rng.random(n_c) < 0.9)
        inflated = np.abs(rng.normal(0.0, scale, n_b)) * 10.0 ** rng.integers(-2, 4, n_b)
        positions = np.zeros((n_b, 3))
        for b in range(n_b):
            c = int(rng.integers(n_c))
            direction = rng.normal(0.0, 1.0, 3) if rng.random() < 0.5 else np.array([rng.choice([-1.0, 1.0]), 0, 0])
            positions[b] = centre[c] + direction / np.linalg.norm(direction) * (radius[c] + inflated[b])
        start, found = kernel.near_geoms(centre, radius, positions, np.arange(n_b, dtype=np.int64), inflated)
        for c in range(n_c):
            d = positions - centre[c]
            reach = radius[c] + inflated
            kept = np.flatnonzero(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1] + d[:, 2] * d[:, 2] <= reach * reach)
            assert set(kept.tolist()) <= set(found[start[c]:start[c + 1]].tolist())


def test_the_grid_gives_every_geom_to_every_cluster_when_a_position_is_not_finite():
    # A diverged body (NaN), or positions so far apart that the extent overflows: no grid, every pair goes to
    # the exact tests as before. An absurd but finite position (1e300 m) only widens the cells.
    centre = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 0.0]])
    positions = np.array([[5.0, 0.0, 0.0], [math.nan, 0.0, 0.0], [1e300, 0.0, 0.0], [-1e308, 0.0, 0.0],
                          [1.5e308, 0.0, 0.0], [0.5, 0.5, 0.0]])
    for rows in ([0, 1], [3, 4]):
        start, found = kernel.near_geoms(centre, np.array([0.5, 0.5]), positions, np.array(rows, dtype=np.int64),
                                         np.array([0.1, 0.1]))
        np.testing.assert_array_equal(start, [0, 2, 4])
        np.testing.assert_array_equal(found, [0, 1, 0, 1])
    start, found = kernel.near_geoms(centre, np.array([0.5, 0.5]), positions, np.array([0, 2, 5], dtype=np.int64),
                                     np.array([0.1, 0.1, 0.1]))
    assert len(start) == 3 and start[-1] == len(found)
    for c in range(2):  # the geom at (0.5, 0.5) within reach of both, index 2 of the bounded geoms
        assert 2 in found[start[c]:start[c + 1]].tolist()


def test_the_grids_work_per_cluster_does_not_grow_with_the_number_of_robots():
    # Robots 1 m apart on a square, sensors reaching 0.4 m, one geom each: a cluster's candidates stay a few
    # neighbours whatever the crowd (the exhaustive test visits every geom: n per cluster).
    per_cluster = []
    for side in (5, 20, 60):
        x, y = np.meshgrid(np.arange(side, dtype=float), np.arange(side, dtype=float))
        centre = np.column_stack([x.ravel(), y.ravel(), np.zeros(side * side)])
        n = len(centre)
        start, found = kernel.near_geoms(centre, np.full(n, 0.4), centre, np.arange(n, dtype=np.int64),
                                         np.full(n, 0.15))
        per_cluster.append(len(found) / n)
    assert max(per_cluster) <= 9.0
    assert per_cluster[2] <= per_cluster[0] + 4.0


def test_the_grids_work_per_cluster_stays_bounded_when_every_robot_has_a_geom_far_wider_than_the_sensors():
    # Robots 2 m apart whose sensors reach 0.1 m but whose chassis' bounding sphere is 0.6 m: each chassis spans
    # far more than _CELL_LIMIT cells of the sensors' grid. A single grid gave every such geom to every cluster
    # (n candidates each: quadratic in the robots); coarser levels keep a cluster's candidates to its neighbours.
    per_cluster = []
    for side in (5, 20, 40):
        x, y = np.meshgrid(np.arange(side, dtype=float) * 2.0, np.arange(side, dtype=float) * 2.0)
        centre = np.column_stack([x.ravel(), y.ravel(), np.zeros(side * side)])
        n = len(centre)
        radius, inflated = np.full(n, 0.1), np.full(n, 0.6)
        start, found = kernel.near_geoms(centre, radius, centre, np.arange(n, dtype=np.int64), inflated)
        for c, expected in enumerate(_exhaustive_near(centre, radius, centre, inflated)):
            assert expected <= set(found[start[c]:start[c + 1]].tolist())
        per_cluster.append(len(found) / n)
    assert max(per_cluster) <= 9.0


def test_one_geom_thrown_far_away_does_not_give_every_geom_to_every_cluster():
    # A crowd with 5 cm sensor spheres and one body 1e8 m away (2e9 of the sensors' cells): the grid gets coarser
    # cells instead of giving up (which tested every pair: quadratic); nothing within reach is lost.
    x, y = np.meshgrid(np.arange(30, dtype=float), np.arange(30, dtype=float))
    centre = np.column_stack([x.ravel(), y.ravel(), np.zeros(900)])
    positions = np.vstack([centre, [[-1e8, 3.0, 0.0]]])
    radius, inflated = np.full(900, 0.05), np.full(901, 0.6)
    start, found = kernel.near_geoms(centre, radius, positions, np.arange(901, dtype=np.int64), inflated)
    for c, expected in enumerate(_exhaustive_near(centre, radius, positions, inflated)):
        assert expected <= set(found[start[c]:start[c + 1]].tolist())
    assert len(found) / 900 <= 20.0


def _crowd(side: int) -> tuple[mujoco.MjModel, mujoco.MjData, RayTargets, RayBatch]:
    """``side`` x ``side`` free robots 0.7 m apart, each a box with two 3-ray sensors looking out, on a floor."""
    bodies = "".join(
        f'<body name="r{i}" pos="{0.7 * (i % side)} {0.7 * (i // side)} 0.2" euler="0 0 {37 * i % 360}"><freejoint/>'
        f'<geom type="box" size="0.1 0.08 0.05"/><site pos="0.1 0 0"/><site pos="-0.1 0 0" euler="0 0 180"/></body>'
        for i in range(side * side))
    model = mujoco.MjModel.from_xml_string(
        f'<mujoco><worldbody><geom type="plane" size="0 0 1"/>{bodies}</worldbody></mujoco>')
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    n = model.ngeom
    targets = RayTargets(tuple(range(n)), tuple(model.geom_bodyid[g] - 1 for g in range(n)), (False,) * n,
                         (1.0,) * n, tuple((math.inf, math.inf) if g else (10.0, 10.0) for g in range(n)))
    sites = np.arange(model.nsite)
    local = ray_directions(3, 0.5)
    batch = RayBatch.build(model, sites, np.full(len(sites), 3), np.tile(local, (len(sites), 1)),
                           np.full(len(sites), 0.8), model.site_bodyid[sites] - 1, np.zeros(len(sites), dtype=bool),
                           np.zeros(len(sites), dtype=bool))
    return model, data, targets, batch


@pytest.mark.parametrize("grid_from", [0, 1 << 40])
def test_the_compiled_broad_phase_of_a_crowd_finds_the_numpy_pairs_in_their_order(grid_from):
    # Many clusters (one per robot, each ignoring its own robot) moving between broad phases: the grid's
    # candidates give the exhaustive numpy broad phase's pairs, in order, and the same hits.
    model, data, targets, batch = _crowd(7)
    compiled, numpy_caster = RayCaster(model, targets, compiled=True), RayCaster(model, targets, compiled=False)
    compiled.grid_from = grid_from  # the grid from the first pair (49 x 196 pairs is below the default), or never
    rng = np.random.default_rng(5)
    found = 0
    for _ in range(6):
        data.qpos.reshape(-1, 7)[:, :2] += rng.normal(0.0, 0.15, (model.nbody - 1, 2))
        mujoco.mj_kinematics(model, data)
        _assert_same_hits(compiled.cast(data, batch, True), numpy_caster.cast(data, batch, True), "crowd")
        a, b = _compiled_pairs(compiled, batch), numpy_caster._static[batch].candidates
        np.testing.assert_array_equal(a.ray, b.ray)
        np.testing.assert_array_equal(a.geom, b.geom)
        found += len(a.ray)
    assert found > 100


def test_the_compiled_broad_phase_grows_its_pair_buffer_and_keeps_every_pair():
    # More pairs than the buffer holds (a room of 4 to start with): the broad phase runs again with a buffer
    # large enough, and the pairs and hits are the numpy path's.
    model, data, targets, batch = _crowd(4)
    compiled, numpy_caster = RayCaster(model, targets, compiled=True), RayCaster(model, targets, compiled=False)
    compiled.pair_room = 4
    _assert_same_hits(compiled.cast(data, batch, True), numpy_caster.cast(data, batch, True), "grown")
    a, b = _compiled_pairs(compiled, batch), numpy_caster._static[batch].candidates
    np.testing.assert_array_equal(a.ray, b.ray)
    np.testing.assert_array_equal(a.geom, b.geom)
    static = compiled._static[batch]
    assert len(a.ray) > 4 and len(static.room[0]) == len(static.room[1]) == 2 * len(a.ray)
    assert all(static.packed.arrays[16 + k] is static.room[k] for k in range(4))


def test_pair_counts_that_change_between_broad_phases_give_the_numpy_pairs_and_hits():
    # The broad phases write into the same buffers until one finds more pairs than they hold (a room of 32 to
    # start with): none, a few, more (grown), many (grown again), fewer, none, more; the cast reads each time the
    # count just found (its table's lengths), never an earlier phase's tail.
    model, data, targets, batch = _crowd(4)
    compiled, numpy_caster = RayCaster(model, targets, compiled=True), RayCaster(model, targets, compiled=False)
    compiled.pair_room = 32
    counts, rooms = [], []
    for step, shift in enumerate((40.0, 0.6, 0.3, 0.0, 0.2, 40.0, 0.1)):  # 40 m: every robot far from the rest
        data.qpos.reshape(-1, 7)[:, 0] = np.arange(model.nbody - 1) * shift + step * 0.05
        mujoco.mj_kinematics(model, data)
        _assert_same_hits(compiled.cast(data, batch, True), numpy_caster.cast(data, batch, True), step)
        a, b = _compiled_pairs(compiled, batch), numpy_caster._static[batch].candidates
        np.testing.assert_array_equal(a.ray, b.ray)
        np.testing.assert_array_equal(a.geom, b.geom)
        counts.append(len(a.ray))
        rooms.append(len(compiled._static[batch].room[0]))
    assert compiled.broad_phases == numpy_caster.broad_phases == len(counts)
    assert counts[0] == counts[5] == 0 and 0 < counts[1] <= 32 < counts[2] < counts[3] and counts[4] < counts[3]
    assert rooms == [32, 32, 2 * counts[2]] + [2 * counts[3]] * 4, (counts, rooms)


def test_a_broad_phase_without_pairs_casts_only_the_planes():
    # Sensors far from every bounded geom: the broad phase finds no pair (length 0 in the cast's table), and the
    # hits are the numpy path's (none: short rays, above the floor); then back among the geoms, pairs again.
    model, data, targets = _scene()
    local = ray_directions(5, 1.0)
    batch = RayBatch.build(model, np.arange(4), np.full(4, 5), np.tile(local, (4, 1)), np.full(4, 0.3),
                           np.zeros(4), np.zeros(4, dtype=bool), np.zeros(4, dtype=bool))  # (all ignore the hull)
    compiled, reference = RayCaster(model, targets, compiled=True), RayCaster(model, targets, compiled=False)
    data.qpos[:3] = [5.0, 5.0, 0.2]
    mujoco.mj_kinematics(model, data)
    got, expected = compiled.cast(data, batch, True), reference.cast(data, batch, True)
    _assert_same_hits(got, expected, "no pairs")
    assert len(_compiled_pairs(compiled, batch).ray) == 0 and len(reference._static[batch].candidates.ray) == 0
    assert compiled.broad_phases == 1 and np.isinf(got.distance).all()
    data.qpos[:3] = [0.45, 0.1, 0.3]  # back among the geoms (by the box): pairs again
    mujoco.mj_kinematics(model, data)
    _assert_same_hits(compiled.cast(data, batch, True), reference.cast(data, batch, True), "pairs again")
    assert len(_compiled_pairs(compiled, batch).ray) > 0


def test_the_cast_keeps_its_packed_table_and_sets_only_the_pair_count_after_a_broad_phase():
    # The compiled cast's lasting arrays are packed once per batch (wbsim.devices.packed); a broad phase writes its
    # pairs into the buffers the table holds and sets their length there, and another MjData packs a new table
    # (with the same length). Hits as the numpy path's.
    model, data, targets = _scene()
    local = ray_directions(5, 1.0)
    batch = RayBatch.build(model, np.arange(4), np.full(4, 5), np.tile(local, (4, 1)), np.full(4, 1.2),
                           np.array([0, -2, 0, 0]), np.zeros(4, dtype=bool), np.zeros(4, dtype=bool))
    compiled, reference = RayCaster(model, targets, compiled=True), RayCaster(model, targets, compiled=False)
    compiled.cast(data, batch, True)
    static = compiled._static[batch]
    packed = static.packed
    head = packed.table[:16 * 5].copy()
    for step in range(8):
        data.qpos[:2] = [0.15 * step - 0.5, 0.1 * step]  # by 15 cm: beyond the margin, new pairs each time
        mujoco.mj_kinematics(model, data)
        _assert_same_hits(compiled.cast(data, batch, True), reference.cast(data, batch, True), step)
        assert static.packed is packed and (packed.table[:16 * 5] == head).all()
        assert all(packed.arrays[16 + k] is static.pairs[k] is static.room[k] for k in range(4))
        assert packed.table[16 * 5] == static.room[0].ctypes.data and packed.table[16 * 5 + 3] == 3
        assert packed.table[16 * 5 + 2] == packed.table[17 * 5 + 2] == static.found <= len(static.room[0])
        assert packed.scalars == (static.head[5], static.pairs[4], static.pairs[5])
    assert compiled.broad_phases >= 8
    other = mujoco.MjData(model)
    mujoco.mj_forward(model, other)
    got = compiled.cast(other, batch, True)
    assert static.packed is not packed and static.packed.table[0] == other.site_xpos.ctypes.data
    assert static.packed.table[16 * 5 + 2] == static.packed.table[17 * 5 + 2] == static.found
    np.testing.assert_array_equal(got.distance, reference.cast(other, batch, True).distance)


def test_pairs_that_do_not_pack_leave_the_cast_table_whole_and_fail_at_every_cast(monkeypatch):
    # A broad phase's grown pair buffers replace their four entries together: if one does not pack (not the
    # caster's types: a bug), the cast fails with an error and its table keeps the previous pairs whole, so no
    # later cast reads new pairs with the old radii's length (memory the table does not describe).
    model, data, targets = _scene()
    local = ray_directions(5, 1.0)
    batch = RayBatch.build(model, np.arange(4), np.full(4, 5), np.tile(local, (4, 1)), np.full(4, 1.2),
                           np.array([0, -2, 0, 0]), np.zeros(4, dtype=bool), np.zeros(4, dtype=bool))
    caster = RayCaster(model, targets, compiled=True)
    caster.cast(data, batch, True)
    static = caster._static[batch]
    packed = static.packed
    old = tuple(static.pairs[:4])
    pair_buffers = RayCaster._pair_buffers

    def single_radii(self, batch, rows):  # float32 radii: they do not pack (wbsim.devices.packed)
        room = pair_buffers(self, batch, rows)
        return (room[0], room[1].astype(np.float32), *room[2:])

    monkeypatch.setattr(RayCaster, "_pair_buffers", single_radii)
    static.room = None  # (as if the buffers had to grow)
    data.qpos[:2] = [0.7, 0.4]  # beyond the margin: a new broad phase
    mujoco.mj_kinematics(model, data)
    with pytest.raises(RuntimeError, match="do not pack"):
        caster.cast(data, batch, True)
    assert static.packed is packed and all(packed.arrays[16 + k] is old[k] for k in range(4))
    assert packed.table[16 * 5] == old[0].ctypes.data and packed.table[17 * 5] == old[1].ctypes.data
    with pytest.raises(RuntimeError, match="do not pack"):
        caster.cast(data, batch, True)


def test_a_deep_copy_of_a_compiled_caster_with_its_data_casts_in_the_copied_data():
    # A packed table holds addresses: copied as it is, the copy's cast would read the original caster's pair
    # buffers and MjData (or freed memory once they are gone). The copy packs again; hits as the numpy path's.
    model, data, targets = _scene()
    local = ray_directions(5, 1.0)
    batch = RayBatch.build(model, np.arange(4), np.full(4, 5), np.tile(local, (4, 1)), np.full(4, 1.2),
                           np.zeros(4), np.zeros(4, dtype=bool), np.zeros(4, dtype=bool))
    caster = RayCaster(model, targets, compiled=True)
    mujoco.mj_kinematics(model, data)
    caster.cast(data, batch, True)
    twin, twin_data = copy.deepcopy((caster, data))
    twin_data.qpos[:2] = [0.45, 0.1]  # the copy's sensors move, the original's stay
    mujoco.mj_kinematics(model, twin_data)
    reference = RayCaster(model, targets, compiled=False)
    _assert_same_hits(twin.cast(twin_data, batch, True), reference.cast(twin_data, batch, True), "copy")
    static = twin._static[batch]
    assert static.packed.table[0] == twin_data.site_xpos.ctypes.data
    assert all(static.packed.arrays[16 + k] is static.room[k] for k in range(4))
    _assert_same_hits(caster.cast(data, batch, True), reference.cast(data, batch, True), "original")
