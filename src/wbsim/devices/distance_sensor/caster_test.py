"""The batched ray caster against MuJoCo's own ray functions, one ray and one geom at a time."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from wbsim.devices.distance_sensor.caster import RayBatch, RayCaster, RayTargets, capsule_interval, primitive_interval

_TYPES = {"box": mujoco.mjtGeom.mjGEOM_BOX, "sphere": mujoco.mjtGeom.mjGEOM_SPHERE,
          "cylinder": mujoco.mjtGeom.mjGEOM_CYLINDER, "capsule": mujoco.mjtGeom.mjGEOM_CAPSULE}


def _ode_distance(kind: str, size: np.ndarray, p: np.ndarray, v: np.ndarray, normals: bool = False):
    """Our ODE-rule distance (entry from outside, exit from inside; -1: none) for one ray, with the normal."""
    p, v = p.reshape(3, 1), v.reshape(3, 1)
    if kind == "capsule":
        t_in, t_out, n_in, n_out, ok = capsule_interval(p, v, size[:1], size[1:2], normals)
    else:
        half = {"box": size, "sphere": np.full(3, np.inf), "cylinder": np.array([np.inf, np.inf, size[1]])}[kind]
        quadric = {"box": np.zeros(3), "sphere": np.ones(3), "cylinder": np.array([1.0, 1.0, 0.0])}[kind]
        r2 = np.array([1.0 if kind == "box" else size[0] ** 2])
        t_in, t_out, n_in, n_out, ok = primitive_interval(p, v, half.reshape(3, 1), quadric.reshape(3, 1), r2, normals)
    t = t_in[0] if t_in[0] >= 0 else t_out[0]
    if not ok[0] or t < 0:
        return -1.0, None
    if not normals:
        return t, None
    return t, (n_in[:, 0] if t_in[0] >= 0 else -n_out[:, 0])


def _line_to_axis_segment(p: np.ndarray, v: np.ndarray, half_length: float) -> float:
    """Distance (m) between the line p + t v (v a unit vector) and the segment from (0, 0, -h) to (0, 0, h)."""
    b, d, e = v[2], float(v @ p), p[2]
    denominator = 1.0 - b * b
    s = float(np.clip((e - b * d) / denominator, -half_length, half_length)) if denominator > 1e-12 else 0.0
    t = s * b - d  # the line's point nearest to the segment's point s
    return float(np.linalg.norm(p + t * v - np.array([0.0, 0.0, s])))


# Components either 0 or not tiny: a ray grazing a face with a 1e-300 slope is a tie ODE and MuJoCo break apart.
_component = st.floats(-1, 1).filter(lambda x: x == 0.0 or abs(x) > 1e-6)
_unit = st.tuples(_component, _component, _component).filter(lambda v: np.linalg.norm(v) > 1e-3)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(_TYPES)), st.tuples(st.floats(0.05, 1.0), st.floats(0.05, 1.0), st.floats(0.05, 1.0)),
       st.tuples(st.floats(-2, 2), st.floats(-2, 2), st.floats(-2, 2)), _unit)
def test_primitive_distances_match_mujoco_inside_and_outside(kind, size, origin, direction):
    # MuJoCo's mju_rayGeom gives the entry point from outside and the exit point from inside, as ODE's rays.
    size = np.array(size)
    v = np.array(direction) / np.linalg.norm(direction)
    p = np.array(origin)
    normal = np.zeros(3)
    expected = mujoco.mju_rayGeom(np.zeros(3), np.eye(3).ravel(), size, p, v, _TYPES[kind], normal)
    got, mine = _ode_distance(kind, size, p, v, normals=True)
    # An origin on the surface itself is a tie ODE and MuJoCo break differently (entry at 0 or exit).
    assume(not (0.0 <= got <= 1e-9 or 0.0 <= expected <= 1e-9))
    # So is a ray tangent to a sphere or a capsule (e.g. down the side of a capsule, touching both caps: ODE's first
    # touch, MuJoCo's float32 roots may give the second, and a 1e-9 m shift moves a tangent hit by sqrt(1e-9)).
    if kind in ("sphere", "capsule"):
        assume(abs(_line_to_axis_segment(p, v, size[1] if kind == "capsule" else 0.0) - size[0]) > 1e-7)
    if kind == "box" and got > 0.0:
        # So is a ray entering exactly through an edge or a corner (MuJoCo tests the faces one by one and may
        # miss it, and the rays shifted below too): e.g. from (-1, -1, -1) along (1, 1, 1) into a cube.
        assume(int((np.abs(np.abs(p + got * v) - size) <= 1e-9).sum()) < 2)
    if abs(got - expected) > 1e-9:
        # MuJoCo tests the faces of a box one by one and can miss an exit exactly on an edge: the same ray
        # shifted by 1e-9 m must then agree.
        shifted = [mujoco.mju_rayGeom(np.zeros(3), np.eye(3).ravel(), size, p + 1e-9 * np.array(d), v, _TYPES[kind],
                                      None) for d in ((1, 0, 0), (0, 1, 0), (0, 0, 1), (-1, -1, -1))]
        assert any(abs(got - e) < 1e-6 for e in shifted), (got, expected, shifted)
        return
    assert got == pytest.approx(expected, abs=1e-9)
    if got > 1e-9:
        assert mine is not None
        assert np.linalg.norm(mine) == pytest.approx(1.0)
        assert mine @ v <= 1e-9  # ODE turns the normal against the ray


def test_box_normals_are_the_face_normals_against_the_ray():
    half = np.array([0.5, 0.5, 0.5])
    # From outside along +x: enters the -x face. From the centre along +x: leaves through +x, normal turned back.
    assert _ode_distance("box", half, np.array([-2.0, 0.1, 0.2]), np.array([1.0, 0.0, 0.0]), True)[1] == \
        pytest.approx([-1.0, 0.0, 0.0])
    t, n = _ode_distance("box", half, np.zeros(3), np.array([1.0, 0.0, 0.0]), True)
    assert t == pytest.approx(0.5) and n == pytest.approx([-1.0, 0.0, 0.0])


# -- whole scenes ---------------------------------------------------------------------------------------------
_SCENE = """
<mujoco>
  <asset><mesh name="tetra" vertex="0 0 0  0.3 0 0  0 0.3 0  0 0 0.3"/></asset>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
    <geom name="box" type="box" size="0.2 0.1 0.15" pos="0.8 0.1 0.3" euler="10 20 30"/>
    <geom name="ball" type="sphere" size="0.12" pos="-0.5 0.6 0.25"/>
    <geom name="drum" type="cylinder" size="0.1 0.2" pos="0.2 -0.7 0.4" euler="80 0 15"/>
    <geom name="pill" type="capsule" size="0.07 0.15" pos="-0.6 -0.4 0.3" euler="0 60 0"/>
    <geom name="tetra" type="mesh" mesh="tetra" pos="0.1 0.7 0.1" euler="5 10 15"/>
    <body name="robot" pos="0 0 0.3"><geom name="hull" type="box" size="0.1 0.1 0.1"/>
      <site name="s0" pos="0.05 0 0"/><site name="s1" pos="0 0.05 0" euler="0 0 90"/>
      <site name="s2" pos="-0.05 0 0" euler="0 0 180"/><site name="s3" pos="0 0 0.05" euler="0 -60 0"/>
    </body>
  </worldbody>
</mujoco>
"""


def _scene(robot_of_hull: int = 0) -> tuple[mujoco.MjModel, mujoco.MjData, RayCaster]:
    model = mujoco.MjModel.from_xml_string(_SCENE)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    robots = tuple(robot_of_hull if g == model.geom("hull").id else -1 for g in range(model.ngeom))
    caster = RayCaster(model, RayTargets(tuple(range(model.ngeom)), robots, (False,) * model.ngeom,
                                         (1.0,) * model.ngeom, ((math.inf, math.inf),) * model.ngeom))
    return model, data, caster


def _reference(model: mujoco.MjModel, data: mujoco.MjData, origin: np.ndarray, direction: np.ndarray, length: float,
               skip: set[int], rendering: bool) -> float:
    """The nearest hit of one ray, one geom at a time with MuJoCo's functions (inf: none)."""
    best = math.inf
    for g in range(model.ngeom):
        if g in skip:
            continue
        pos, mat = data.geom_xpos[g], data.geom_xmat[g]
        if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_PLANE:  # ODE planes: both sides, infinite
            up = mat.reshape(3, 3)[:, 2]
            rise = up @ direction
            with np.errstate(over="ignore"):
                t = -(up @ (origin - pos)) / rise if rise else -1.0
        elif model.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH:
            t = mujoco.mj_rayMesh(model, data, g, origin, direction, None)
        else:
            t = mujoco.mju_rayGeom(pos, mat, model.geom_size[g], origin, direction, model.geom_type[g], None)
            if rendering:
                local = mat.reshape(3, 3).T @ (origin - pos)
                inside = mujoco.mju_rayGeom(np.zeros(3), np.eye(3).ravel(), model.geom_size[g], local,
                                            np.array([0.0, 0.0, 1.0]), model.geom_type[g], None)
                back = mujoco.mju_rayGeom(np.zeros(3), np.eye(3).ravel(), model.geom_size[g], local,
                                          np.array([0.0, 0.0, -1.0]), model.geom_type[g], None)
                if inside >= 0 and back >= 0:  # origin inside (rays both ways hit): unseen
                    t = -1.0
        ok = t > 0 if rendering else t >= 0
        if ok and (t < length if rendering else t <= length):
            best = min(best, t)
    return best


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.floats(-math.pi, math.pi), st.floats(-1.2, 1.2)), min_size=1,
                max_size=4),
       st.integers(1, 12), st.floats(0.0, 2.5), st.floats(0.1, 3.0), st.booleans(), st.booleans())
def test_batched_casts_match_one_ray_at_a_time(sensors, rays, aperture, length, rendering, see_robot):
    from wbsim.devices.distance_sensor.rays import ray_directions

    model, data, caster = _scene()
    sites = [s for s, _, _ in sensors]
    # Turn the robot so the sensors look around.
    for _, yaw, pitch in sensors[:1]:
        model.body("robot").quat[:] = [math.cos(yaw / 2), 0, math.sin(pitch / 4), math.sin(yaw / 2)]
        model.body("robot").quat[:] /= np.linalg.norm(model.body("robot").quat)
    mujoco.mj_forward(model, data)
    local = ray_directions(rays, aperture)
    batch = RayBatch.build(model, np.array(sites), np.full(len(sites), rays), np.tile(local, (len(sites), 1)),
                           np.full(len(sites), length), np.full(len(sites), -2 if see_robot else 0),
                           np.zeros(len(sites), dtype=bool), np.full(len(sites), rendering))
    hits = caster.cast(data, batch, normals=True)
    hull = model.geom("hull").id
    for ray in range(len(batch.ray_sensor)):
        site = sites[batch.ray_sensor[ray]]
        origin = data.site_xpos[site]
        direction = data.site_xmat[site].reshape(3, 3) @ local[ray % rays]
        assert hits.direction[ray] == pytest.approx(direction)
        expected = _reference(model, data, origin, direction, length, set() if see_robot else {hull}, rendering)
        assert hits.distance[ray] == pytest.approx(expected, abs=1e-9)
        if math.isfinite(expected) and not rendering:
            assert hits.normal[ray] @ direction <= 1e-9
            assert hits.target[ray] >= 0


def test_broad_phase_keeps_grazing_and_wide_cones():
    model, data, caster = _scene()
    # A half-space of rays (aperture 2 pi) from the hull's right side sees the ball behind it.
    from wbsim.devices.distance_sensor.rays import ray_directions

    local = ray_directions(40, 2 * math.pi)
    batch = RayBatch.build(model, np.array([1]), np.array([40]), local, np.array([3.0]), np.array([0]),
                           np.array([False]), np.array([False]))
    hits = caster.cast(data, batch, normals=False)
    targets = {model.geom(int(caster.geom_ids[t])).name for t in hits.target if t >= 0}
    assert {"floor", "ball"} <= targets
    assert "hull" not in targets  # its own robot


def test_candidates_reused_between_casts_give_the_hits_of_a_fresh_broad_phase():
    # The robot drives, turns and is moved far away; a ball moves too. The caster keeps its (ray, geom) pairs
    # while nothing moved by its margin: every cast must equal the cast of a caster that never reuses them.
    from wbsim.devices.distance_sensor.rays import ray_directions

    xml = _SCENE.replace('<geom name="ball" type="sphere" size="0.12" pos="-0.5 0.6 0.25"/>',
                         '<body name="mover" pos="-0.5 0.6 0.25"><geom name="ball" type="sphere" size="0.12"/></body>')
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    targets = RayTargets(tuple(range(model.ngeom)),
                         tuple(0 if g == model.geom("hull").id else -1 for g in range(model.ngeom)),
                         (False,) * model.ngeom, (1.0,) * model.ngeom, ((math.inf, math.inf),) * model.ngeom)
    reusing, fresh = RayCaster(model, targets), RayCaster(model, targets, margin=0.0)
    local = ray_directions(5, 1.2)
    batch = RayBatch.build(model, np.arange(4), np.full(4, 5), np.tile(local, (4, 1)), np.full(4, 1.5),
                           np.zeros(4, dtype=np.int64), np.zeros(4, dtype=bool), np.zeros(4, dtype=bool))
    rng = np.random.default_rng(7)
    robot, mover = model.body("robot"), model.body("mover")
    yaw, hits_seen = 0.0, 0
    for step in range(160):
        if step < 40:  # drives and turns
            robot.pos[:2] += rng.normal(0.0, 0.01, 2)
            yaw += rng.normal(0.0, 0.03)
        elif step < 80:  # only turns: its rays sweep
            yaw += 0.04
        elif step == 80:  # a teleport: the pairs must be found again
            robot.pos[:2] = [0.4, 0.1]
        elif step < 120:  # only the ball moves, through the rays
            mover.pos[:2] += [0.02, -0.01]
        else:  # both
            robot.pos[:2] -= 0.01
            mover.pos[:2] += rng.normal(0.0, 0.01, 2)
        robot.quat[:] = [math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)]
        mujoco.mj_kinematics(model, data)
        got, expected = reusing.cast(data, batch, normals=True), fresh.cast(data, batch, normals=True)
        for name in ("distance", "target", "normal", "direction"):
            assert np.array_equal(getattr(got, name), getattr(expected, name)), (step, name)
        hits_seen += int((got.target >= 0).sum())
    assert fresh.broad_phases == 160
    assert 4 <= reusing.broad_phases <= 60  # reused most of the time, found again after the teleport
    assert hits_seen > 200
