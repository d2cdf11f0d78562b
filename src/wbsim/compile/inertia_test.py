"""Tests for wbsim.compile.inertia: closed forms, MuJoCo's geom- and mesh-derived inertia as oracle, combine().

The oracle compiles a one-body MjSpec with ``inertiafromgeom`` on and density-1 geoms and rebuilds the full
inertia tensor from MuJoCo's principal moments (``body_inertia``) and axes (``body_iquat``).
"""

from __future__ import annotations

import itertools
import math

import mujoco
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbsim.compile import inertia
from wbsim.compile.frames import Frame, quat_from_axis_angle, quat_to_matrix

lengths = st.floats(0.01, 5.0)


# --- the MuJoCo oracle --------------------------------------------------------------------------------------


def mujoco_mass(*geoms: dict, mesh: tuple[np.ndarray, np.ndarray] | None = None) -> inertia.MassProperties:
    """Mass properties MuJoCo derives for one body holding ``geoms`` (each a dict of MjsGeom attributes)."""
    spec = mujoco.MjSpec()
    spec.compiler.inertiafromgeom = mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_TRUE
    spec.compiler.degree = False
    if mesh is not None:
        m = spec.add_mesh(name="m")
        m.uservert = mesh[0].ravel().tolist()
        m.userface = mesh[1].ravel().tolist()
        m.inertia = mujoco.mjtMeshInertia.mjMESH_INERTIA_EXACT
    body = spec.worldbody.add_body(name="b")
    body.add_freejoint()
    for attributes in geoms:
        geom = body.add_geom(density=1.0, **attributes)
        if attributes.get("type") == mujoco.mjtGeom.mjGEOM_MESH:
            geom.meshname = "m"
    model = spec.compile()
    r = np.zeros(9)
    mujoco.mju_quat2Mat(r, model.body_iquat[1])
    r = r.reshape(3, 3)
    return inertia.MassProperties(float(model.body_mass[1]), model.body_ipos[1].copy(),
                                  r @ np.diag(model.body_inertia[1]) @ r.T)


def assert_same(actual: inertia.MassProperties, expected: inertia.MassProperties, rtol: float = 1e-9) -> None:
    """Equal mass, centre of mass and inertia tensor (MuJoCo stores mesh vertices as float32: callers widen rtol)."""
    assert actual.mass == pytest.approx(expected.mass, rel=rtol)
    size = max(np.abs(expected.inertia).max(), 1e-300)
    np.testing.assert_allclose(actual.com, expected.com, atol=rtol * max(1.0, np.abs(expected.com).max()))
    np.testing.assert_allclose(actual.inertia, expected.inertia, atol=rtol * size)


BOX = mujoco.mjtGeom.mjGEOM_BOX
SPHERE = mujoco.mjtGeom.mjGEOM_SPHERE
CYLINDER = mujoco.mjtGeom.mjGEOM_CYLINDER
CAPSULE = mujoco.mjtGeom.mjGEOM_CAPSULE
MESH = mujoco.mjtGeom.mjGEOM_MESH


# --- closed forms -------------------------------------------------------------------------------------------


def test_box_closed_form() -> None:
    p = inertia.box((1.0, 2.0, 3.0), density=2.0)
    assert p.mass == pytest.approx(12.0)
    np.testing.assert_allclose(np.diag(p.inertia), [12 * 13 / 12, 12 * 10 / 12, 12 * 5 / 12])
    np.testing.assert_array_equal(p.com, 0.0)
    assert p.volume_at_unit_density == pytest.approx(12.0)


def test_sphere_closed_form() -> None:
    p = inertia.sphere(0.5, density=3.0)
    m = 3.0 * 4 / 3 * math.pi * 0.125
    assert p.mass == pytest.approx(m)
    np.testing.assert_allclose(p.inertia, np.eye(3) * 0.4 * m * 0.25)


def test_cylinder_closed_form() -> None:
    p = inertia.cylinder(0.2, 1.0)
    m = math.pi * 0.04
    assert p.mass == pytest.approx(m)
    np.testing.assert_allclose(np.diag(p.inertia), [m * (3 * 0.04 + 1) / 12] * 2 + [m * 0.02])


def test_capsule_closed_form() -> None:
    # A capsule of zero height is a sphere; its mass is cylinder plus one sphere in general.
    r = 0.3
    np.testing.assert_allclose(inertia.capsule(r, 0.0).inertia, inertia.sphere(r).inertia)
    p = inertia.capsule(0.1, 0.5)
    assert p.mass == pytest.approx(math.pi * 0.01 * 0.5 + 4 / 3 * math.pi * 0.001)
    # Ixx from the textbook formula for a capsule (hemispheres shifted by their 3r/8 centroid).
    r, h = 0.1, 0.5
    mc, mh = math.pi * r * r * h, 2 / 3 * math.pi * r**3
    ixx = mc * (h * h / 12 + r * r / 4) + 2 * mh * (0.4 * r * r + h * h / 4 + 3 * h * r / 8)
    assert p.inertia[0, 0] == pytest.approx(ixx)
    assert p.inertia[2, 2] == pytest.approx(mc * r * r / 2 + 2 * mh * 0.4 * r * r)


# --- MuJoCo's geom-derived inertia as oracle ---------------------------------------------------------------


@given(lengths, lengths, lengths)
@settings(max_examples=25, deadline=None)
def test_box_matches_mujoco(a: float, b: float, c: float) -> None:
    assert_same(inertia.box((a, b, c)), mujoco_mass({"type": BOX, "size": [a / 2, b / 2, c / 2]}))


@given(lengths)
@settings(max_examples=10, deadline=None)
def test_sphere_matches_mujoco(r: float) -> None:
    assert_same(inertia.sphere(r), mujoco_mass({"type": SPHERE, "size": [r, 0, 0]}))


@given(lengths, lengths)
@settings(max_examples=25, deadline=None)
def test_cylinder_matches_mujoco(r: float, h: float) -> None:
    assert_same(inertia.cylinder(r, h), mujoco_mass({"type": CYLINDER, "size": [r, h / 2, 0]}))


@given(lengths, lengths)
@settings(max_examples=25, deadline=None)
def test_capsule_matches_mujoco(r: float, h: float) -> None:
    assert_same(inertia.capsule(r, h), mujoco_mass({"type": CAPSULE, "size": [r, h / 2, 0]}))


@given(st.tuples(lengths, lengths, lengths), st.tuples(*[st.floats(-2, 2)] * 3),
       st.tuples(*[st.floats(-1, 1)] * 3).filter(lambda v: np.linalg.norm(v) > 0.1), st.floats(-3, 3))
@settings(max_examples=25, deadline=None)
def test_transformed_box_matches_mujoco(size: tuple, pos: tuple, axis: tuple, angle: float) -> None:
    frame = Frame.from_webots(pos, (*axis, angle))
    expected = mujoco_mass({"type": BOX, "size": [s / 2 for s in size], "pos": list(pos),
                            "quat": quat_from_axis_angle((*axis, angle)).tolist()})
    assert_same(inertia.box(size).transformed(frame), expected, rtol=1e-8)


def test_scaled() -> None:
    p = inertia.box((1, 2, 3)).scaled(5.0)
    assert p.mass == pytest.approx(30.0)
    np.testing.assert_allclose(p.inertia, inertia.box((1, 2, 3), density=5.0).inertia)


# --- meshes -------------------------------------------------------------------------------------------------

CUBE_POINTS = np.array(list(itertools.product((0.0, 1.0), repeat=3)))  # index = 4x + 2y + z
CUBE_QUADS = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]  # outward CCW


def cube_mesh(size: tuple[float, float, float] = (1, 1, 1), offset: tuple[float, float, float] = (0, 0, 0),
              ) -> tuple[np.ndarray, np.ndarray]:
    """An axis-aligned box from ``offset`` to ``offset + size`` as 12 outward counter-clockwise triangles."""
    points = CUBE_POINTS * np.asarray(size) + np.asarray(offset)
    triangles = [(q[0], q[1], q[2]) for q in CUBE_QUADS] + [(q[0], q[2], q[3]) for q in CUBE_QUADS]
    return points, np.asarray(triangles, dtype=np.int64)


def convex_hull(points: np.ndarray) -> np.ndarray:
    """Outward triangles of the convex hull of points in general position (brute force, small n)."""
    centre = points.mean(axis=0)
    faces = []
    for i, j, k in itertools.combinations(range(len(points)), 3):
        normal = np.cross(points[j] - points[i], points[k] - points[i])
        side = (points - points[i]) @ normal
        if np.all(side <= 1e-12) or np.all(side >= -1e-12):
            faces.append((i, j, k) if (centre - points[i]) @ normal < 0 else (i, k, j))
    return np.asarray(faces, dtype=np.int64)


def test_mesh_unit_cube_closed_form() -> None:
    p = inertia.mesh(*cube_mesh(), density=2.0)
    assert p.mass == pytest.approx(2.0)
    np.testing.assert_allclose(p.com, [0.5] * 3)
    np.testing.assert_allclose(p.inertia, np.eye(3) * 2 * 2 / 12, atol=1e-12)


def test_mesh_box_equals_box_primitive() -> None:
    size, offset = (0.3, 1.2, 0.7), (-2.0, 0.5, 1.0)
    p = inertia.mesh(*cube_mesh(size, offset))
    expected = inertia.box(size).transformed(Frame(np.asarray(offset) + np.asarray(size) / 2, np.eye(3)))
    assert_same(p, expected, rtol=1e-10)


def test_mesh_inward_faces_give_negative_mass() -> None:
    points, faces = cube_mesh()
    assert inertia.mesh(points, faces[:, ::-1]).mass == pytest.approx(-1.0)


def test_mesh_degenerate_is_zero() -> None:
    points = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], dtype=float)
    p = inertia.mesh(points, np.array([[0, 1, 2], [0, 2, 1]]))
    assert p.mass == 0.0


def test_mesh_cube_matches_mujoco() -> None:
    points, faces = cube_mesh((0.4, 0.2, 0.1), (1.0, -1.0, 0.5))
    assert_same(inertia.mesh(points, faces), mujoco_mass({"type": MESH}, mesh=(points, faces)), rtol=1e-6)


@given(st.integers(0, 2**32 - 1), st.integers(8, 14))
@settings(max_examples=12, deadline=None)
def test_random_convex_polytope_matches_mujoco(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    directions = rng.normal(size=(n, 3))
    points = directions / np.linalg.norm(directions, axis=1)[:, None] * rng.uniform(0.5, 1.5, size=(n, 1))
    points = points * rng.uniform(0.2, 2.0, size=3) + rng.uniform(-1, 1, size=3)
    faces = convex_hull(points)
    ours = inertia.mesh(points, faces)
    assert ours.mass > 0
    assert_same(ours, mujoco_mass({"type": MESH}, mesh=(points, faces)), rtol=1e-6)


# --- combine() ----------------------------------------------------------------------------------------------


def test_combine_parallel_axis_by_hand() -> None:
    r, d = 0.1, 0.5
    s = inertia.sphere(r)
    parts = [s.transformed(Frame(np.array([sign * d, 0, 0]), np.eye(3))) for sign in (-1, 1)]
    total = inertia.combine(parts)
    i0 = s.inertia[0, 0]
    assert total.mass == pytest.approx(2 * s.mass)
    np.testing.assert_allclose(total.com, 0.0, atol=1e-15)
    np.testing.assert_allclose(np.diag(total.inertia), [2 * i0, 2 * (i0 + s.mass * d * d), 2 * (i0 + s.mass * d * d)])


def test_combine_overlaps_count_twice() -> None:
    b = inertia.box((1, 1, 1))
    total = inertia.combine([b, b])
    assert total.mass == pytest.approx(2.0)
    np.testing.assert_allclose(total.inertia, 2 * b.inertia)


def test_combine_empty_and_massless() -> None:
    assert inertia.combine([]).mass == 0.0
    assert inertia.combine([inertia.MassProperties(0.0, np.ones(3), np.zeros((3, 3)))]).mass == 0.0


def test_combine_off_centre_matches_mujoco() -> None:
    rot = quat_to_matrix(quat_from_axis_angle((1, 2, 3, 0.7)))
    parts = [
        inertia.box((0.2, 0.4, 0.6)).transformed(Frame(np.array([0.3, -0.1, 0.2]), rot)),
        inertia.cylinder(0.1, 0.5).transformed(Frame(np.array([-0.4, 0.2, 0.0]), np.eye(3))),
        inertia.sphere(0.15).transformed(Frame(np.array([0.0, 0.5, -0.3]), np.eye(3))),
    ]
    expected = mujoco_mass(
        {"type": BOX, "size": [0.1, 0.2, 0.3], "pos": [0.3, -0.1, 0.2],
         "quat": quat_from_axis_angle((1, 2, 3, 0.7)).tolist()},
        {"type": CYLINDER, "size": [0.1, 0.25, 0], "pos": [-0.4, 0.2, 0.0]},
        {"type": SPHERE, "size": [0.15, 0, 0], "pos": [0.0, 0.5, -0.3]},
    )
    assert_same(inertia.combine(parts), expected, rtol=1e-8)


def test_about_point() -> None:
    b = inertia.box((1, 1, 1))
    np.testing.assert_allclose(b.about_point(np.array([0, 0, 1.0])), b.inertia + np.diag([1.0, 1.0, 0.0]))


@pytest.mark.parametrize("shape", [lambda: inertia.sphere(1e200), lambda: inertia.capsule(1e200, 1.0),
                                   lambda: inertia.box((1e200, 1e200, 1e200)), lambda: inertia.cylinder(1e200, 1e200)])
def test_overflow_gives_inf_not_an_exception(shape) -> None:  # noqa: ANN001
    # The builder turns non-finite mass properties into a located error; Python's ** would raise instead.
    assert math.isinf(shape().mass)


# --- joint_inertia_at_rest: MuJoCo's dof_M0 as oracle --------------------------------------------------------


def _random_quat(rng: np.random.Generator) -> list[float]:
    q = rng.normal(size=4)
    return (q / np.linalg.norm(q)).tolist()


def _chain_spec(rng: np.random.Generator, kind: mujoco.mjtJoint) -> tuple[mujoco.MjSpec, list[mujoco.MjsJoint]]:
    """A free base carrying a branching chain of jointed and welded bodies in rotated, offset frames, with
    inertias given both ways (``fullinertia``; ``inertia`` along ``iquat``), one body with an unset ``ipos``."""
    spec = mujoco.MjSpec()
    spec.compiler.degree = False
    spec.compiler.inertiafromgeom = mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_FALSE
    base = spec.worldbody.add_body(pos=[0.3, -0.2, 1.0], quat=_random_quat(rng), mass=2.0, ipos=[0.0, 0.0, 0.0],
                                   inertia=[0.1, 0.2, 0.25])
    base.add_freejoint()
    joints = []
    parent = base
    for level in range(4):
        body = parent.add_body(pos=rng.normal(size=3).tolist(), quat=_random_quat(rng))
        body.explicitinertial = True
        body.mass = float(rng.uniform(0.1, 2.0))
        if level % 2:
            body.ipos = rng.normal(scale=0.1, size=3).tolist()
            a, b, c = rng.uniform(0.01, 0.1, size=3)
            body.fullinertia = [a + b, b + c, a + c, 0.2 * a, -0.1 * b, 0.05 * c]
        else:
            if level:  # level 0 leaves ipos unset: MuJoCo then takes the body's pos and quat
                body.ipos = rng.normal(scale=0.1, size=3).tolist()
            body.iquat = _random_quat(rng)
            body.inertia = rng.uniform(0.02, 0.05, size=3).tolist()
        joints.append(body.add_joint(type=kind, axis=rng.normal(size=3).tolist(), pos=rng.normal(size=3).tolist(),
                                     armature=float(rng.uniform(0.0, 0.01)), ref=0.3))
        welded = body.add_body(pos=rng.normal(size=3).tolist(), quat=_random_quat(rng), mass=0.5,
                               ipos=[0.05, 0.0, 0.0], inertia=[0.01, 0.02, 0.02])
        welded.add_geom(size=[0.01, 0, 0])
        parent = body
    return spec, joints


@pytest.mark.parametrize("kind", [mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE])
@pytest.mark.parametrize("seed", range(4))
def test_joint_inertia_at_rest_is_mujocos_dof_m0(kind, seed) -> None:
    spec, joints = _chain_spec(np.random.default_rng(seed), kind)
    expected = [inertia.joint_inertia_at_rest(j) for j in joints]
    model = spec.compile()
    measured = [float(model.dof_M0[model.jnt_dofadr[j.id]]) for j in joints]
    np.testing.assert_allclose(expected, measured, rtol=1e-12)


def test_joint_inertia_at_rest_is_none_for_ball_and_free_joints() -> None:
    spec = mujoco.MjSpec()
    body = spec.worldbody.add_body(mass=1.0, inertia=[1.0, 1.0, 1.0])
    free = body.add_freejoint()
    ball = body.add_body(mass=1.0, inertia=[1.0, 1.0, 1.0]).add_joint(type=mujoco.mjtJoint.mjJNT_BALL)
    assert inertia.joint_inertia_at_rest(free) is None
    assert inertia.joint_inertia_at_rest(ball) is None


def test_joint_inertia_at_rest_declines_what_it_cannot_predict() -> None:
    # An unset ipos with an anisotropic full inertia: MuJoCo drops its principal axes (not modelled here);
    # an isotropic one (the builder's negligible bodies) has none to drop.
    spec = mujoco.MjSpec()
    spec.compiler.inertiafromgeom = mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_FALSE
    body = spec.worldbody.add_body(pos=[0.0, 0.5, 1.0], quat=[0.5, 0.5, 0.5, 0.5], mass=1.0)
    body.explicitinertial = True
    body.fullinertia = [2.0, 2.5, 3.0, 0.1, 0.2, 0.3]
    hinge = body.add_joint(type=mujoco.mjtJoint.mjJNT_HINGE, axis=[1.0, 2.0, 3.0])
    assert inertia.joint_inertia_at_rest(hinge) is None
    body.fullinertia = [2.0, 2.0, 2.0, 0.0, 0.0, 0.0]
    expected = inertia.joint_inertia_at_rest(hinge)
    assert expected == pytest.approx(float(spec.compile().dof_M0[0]), rel=1e-12)
