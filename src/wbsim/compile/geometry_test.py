"""Tests for wbsim.compile.geometry: every boundingObject kind, frames through nesting, errors and warnings.

Worlds are written inline; the boundingObject node of the first Solid is passed to ``bounding_geoms``.
"""

from __future__ import annotations

import itertools
import math

import mujoco
import numpy as np
import pytest

from wbsim.compile import inertia
from wbsim.compile.builder import compile_world
from wbsim.compile.frames import Frame
from wbsim.compile.geometry import GeomDescription, bounding_geoms, triangulate
from wbsim.errors import CompileError, WorldLoadError
from wbsim.sim.simulation import Simulation
from wbsim.world.loader import load_world_model_from_string
from wbsim.world.model import WbNode, WorldModel, WorldWarning

HEADER = "#VRML_SIM R2023b utf8\n"
FILE = "geometry.wbt"


def world(body: str, info: str = "WorldInfo { }") -> WorldModel:
    return load_world_model_from_string(HEADER + info + "\n" + body, FILE)


def geoms_of(bounding: str, solid_fields: str = "") -> tuple[list[GeomDescription], list[WorldWarning]]:
    """The descriptions of one Solid's boundingObject (and the warnings they raised)."""
    model = world(f"Solid {{ {solid_fields} boundingObject {bounding} }}")
    node = model.nodes[-1]["boundingObject"]
    assert isinstance(node, WbNode)
    warnings: list[WorldWarning] = []
    return bounding_geoms(node, warnings), warnings


def location_of(text: str, needle: str, occurrence: int = 0) -> tuple[int, int]:
    """1-based (line, column) of the ``occurrence``-th ``needle`` in ``text``."""
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(needle, start + 1)
    line = text.count("\n", 0, start) + 1
    return line, start - (text.rfind("\n", 0, start) + 1) + 1


# --- primitives ---------------------------------------------------------------------------------------------


def test_box_size_is_full_edges() -> None:
    (g,), warnings = geoms_of("Box { size 0.2 0.4 0.6 }")
    assert (g.kind, g.size) == ("box", pytest.approx((0.1, 0.2, 0.3)))
    assert g.unit_mass is not None and g.unit_mass.mass == pytest.approx(0.2 * 0.4 * 0.6)
    assert not warnings


def test_sphere() -> None:
    (g,), _ = geoms_of("Sphere { radius 0.3 }")
    assert (g.kind, g.size) == ("sphere", (0.3,))
    assert g.unit_mass is not None and g.unit_mass.mass == pytest.approx(4 / 3 * math.pi * 0.027)


def test_cylinder_radius_and_half_height() -> None:
    (g,), _ = geoms_of("Cylinder { radius 0.1 height 0.5 }")
    assert (g.kind, g.size) == ("cylinder", pytest.approx((0.1, 0.25)))
    assert g.unit_mass is not None and g.unit_mass.mass == pytest.approx(math.pi * 0.01 * 0.5)


def test_capsule_height_excludes_caps() -> None:
    (g,), _ = geoms_of("Capsule { radius 0.1 height 0.5 }")
    assert (g.kind, g.size) == ("capsule", pytest.approx((0.1, 0.25)))
    assert g.unit_mass is not None
    assert g.unit_mass.mass == pytest.approx(math.pi * 0.01 * 0.5 + 4 / 3 * math.pi * 0.001)


def test_plane_is_infinite_and_massless() -> None:
    (g,), _ = geoms_of("Plane { size 3 3 }")
    assert g.kind == "plane" and g.unit_mass is None
    assert g.size[:2] == (0.0, 0.0)  # MuJoCo: zero half-sizes = infinite plane


def test_defaults() -> None:
    (g,), _ = geoms_of("Box { }")
    assert g.size == (1.0, 1.0, 1.0)
    (g,), _ = geoms_of("Capsule { }")
    assert g.size == (1.0, 1.0)


def test_shape_wrapper_uses_its_geometry_and_empty_shape_adds_nothing() -> None:
    (g,), _ = geoms_of("Shape { geometry Sphere { radius 0.2 } }")
    assert g.kind == "sphere"
    result, _ = geoms_of("Shape { }")
    assert result == []


def test_no_bounding_object() -> None:
    assert bounding_geoms(None, []) == []


def test_cylinder_and_capsule_lie_along_local_z_in_mujoco() -> None:
    # A cylinder of height 1 and a capsule standing on a plane: their tops are at the analytic height.
    text = """Solid { boundingObject Plane { } }
    Solid { translation 0 0 0.5 boundingObject Cylinder { radius 0.1 height 1 } }
    Solid { translation 2 0 0.7 boundingObject Capsule { radius 0.2 height 1 } }"""
    compiled = compile_world(world(text))
    model, data = compiled.model, mujoco.MjData(compiled.model)
    mujoco.mj_forward(model, data)
    for binding, top in zip(compiled.bindings.solids[1:], (1.0, 1.4), strict=True):
        (geom,) = binding.geom_ids
        np.testing.assert_allclose(data.geom_xmat[geom].reshape(3, 3)[:, 2], [0, 0, 1])
        aabb_top = data.geom_xpos[geom][2] + model.geom_size[geom][1] + (
            model.geom_size[geom][0] if model.geom_type[geom] == mujoco.mjtGeom.mjGEOM_CAPSULE else 0.0)
        assert aabb_top == pytest.approx(top)


# --- frames through wrappers --------------------------------------------------------------------------------


def test_pose_transform_group_nesting_composes_frames() -> None:
    bounding = """Pose {
        translation 1 0 0 rotation 0 0 1 1.5707963267948966
        children [
          Transform { translation 0 2 0 rotation 1 0 0 0.5 children [
            Group { children [ Shape { geometry Box { size 1 1 1 } } Shape { geometry Sphere { radius 0.1 } } ] }
          ] }
          Shape { geometry Capsule { radius 0.1 height 0.2 } }
        ]
      }"""
    (box, sphere, capsule), _ = geoms_of(bounding)
    expected = Frame.from_webots((1, 0, 0), (0, 0, 1, math.pi / 2)) @ Frame.from_webots((0, 2, 0), (1, 0, 0, 0.5))
    for g in (box, sphere):
        np.testing.assert_allclose(g.frame.pos, [-1, 0, 0], atol=1e-12)  # (1,0,0) + Rz(90) (0,2,0)
        np.testing.assert_allclose(g.frame.rot, expected.rot, atol=1e-12)
    np.testing.assert_allclose(capsule.frame.pos, [1, 0, 0])
    # The unit mass is expressed in the Solid frame (the box's centre of mass moved with it).
    assert box.unit_mass is not None
    np.testing.assert_allclose(box.unit_mass.com, [-1, 0, 0], atol=1e-12)


def test_nested_frames_land_in_world_coordinates() -> None:
    # The same nesting under a rotated, translated Solid: MuJoCo's geom_xpos/xmat agree with Frame algebra.
    text = """Solid {
      translation 0.5 -1 2 rotation 1 1 0 0.8
      boundingObject Pose { translation 0.3 0 0 rotation 0 1 0 0.4 children [
        Pose { translation 0 0 0.2 rotation 0 0 1 1.1 children [ Shape { geometry Box { size 0.1 0.2 0.3 } } ] } ] }
    }"""
    compiled = compile_world(world(text))
    data = mujoco.MjData(compiled.model)
    mujoco.mj_forward(compiled.model, data)
    expected = (Frame.from_webots((0.5, -1, 2), (1, 1, 0, 0.8)) @ Frame.from_webots((0.3, 0, 0), (0, 1, 0, 0.4))
                @ Frame.from_webots((0, 0, 0.2), (0, 0, 1, 1.1)))
    (geom,) = compiled.bindings.solids[0].geom_ids
    np.testing.assert_allclose(data.geom_xpos[geom], expected.pos, atol=1e-12)
    np.testing.assert_allclose(data.geom_xmat[geom].reshape(3, 3), expected.rot, atol=1e-12)


def test_bare_geometries_in_bounding_pose_and_group_children() -> None:
    # Webots worlds commonly write `boundingObject Pose { children [ Box { } ] }` without a Shape.
    (box, sphere), _ = geoms_of("Pose { translation 0 0 1 children [ Box { size 1 1 1 } "
                                "Group { children [ Sphere { radius 0.1 } ] } ] }")
    assert (box.kind, sphere.kind) == ("box", "sphere")
    np.testing.assert_allclose(box.frame.pos, [0, 0, 1])
    np.testing.assert_allclose(sphere.frame.pos, [0, 0, 1])


def test_transform_with_unit_scale_is_allowed() -> None:
    (g,), _ = geoms_of("Transform { scale 1 1 1 translation 0 0 1 children [ Shape { geometry Sphere { radius 1 } } ] }")
    np.testing.assert_allclose(g.frame.pos, [0, 0, 1])


def test_transform_scale_is_an_error_with_location() -> None:
    text = HEADER + "WorldInfo { }\nSolid {\n  boundingObject Transform {\n    scale 2 1 1\n    children [ Shape { geometry Box { } } ]\n  }\n}\n"
    node = load_world_model_from_string(text, FILE).nodes[-1]["boundingObject"]
    with pytest.raises(CompileError) as info:
        bounding_geoms(node, [])  # type: ignore[arg-type]
    error = info.value
    assert "scale" in error.message
    assert error.location is not None and error.location.file == FILE
    assert (error.location.line, error.location.column) == location_of(text, "scale")
    assert error.node_path == "Solid > boundingObject > Transform"
    assert str(error).startswith(f"{FILE}:5:5: ")


def test_transform_scale_in_bounding_object_fails_compilation_with_location() -> None:
    text = HEADER + "WorldInfo { }\nSolid {\n  physics Physics { }\n  boundingObject Transform { scale 1 1 3 children [ Shape { geometry Box { } } ] }\n}\n"
    with pytest.raises(WorldLoadError) as info:
        compile_world(load_world_model_from_string(text, FILE))
    (error,) = info.value.errors
    assert isinstance(error, CompileError)
    assert error.location is not None
    assert (error.location.line, error.location.column) == location_of(text, "scale")


def test_solid_inside_bounding_group_is_an_error() -> None:
    try:
        model = world("Solid { boundingObject Group { children [ Solid { } ] } }")
    except WorldLoadError:
        return  # the checker already refuses it: also fine
    with pytest.raises(CompileError) as info:
        bounding_geoms(model.nodes[-1]["boundingObject"], [])  # type: ignore[arg-type]
    assert "cannot be part of a boundingObject" in info.value.message
    assert info.value.location is not None


def test_plane_with_physics_is_a_compile_error_with_location() -> None:
    text = HEADER + "WorldInfo { }\nSolid {\n  physics Physics { }\n  boundingObject Group { children [ Shape { geometry Box { } } Shape { geometry Plane { } } ] }\n}\n"
    with pytest.raises(WorldLoadError) as info:
        compile_world(load_world_model_from_string(text, FILE))
    (error,) = info.value.errors
    assert isinstance(error, CompileError) and "Plane" in error.message
    assert error.location is not None
    assert (error.location.line, error.location.column) == location_of(text, "Plane")
    assert "Plane" in error.node_path


def test_plane_in_static_solid_compiles_to_mujoco_plane() -> None:
    compiled = compile_world(world("Solid { rotation 1 0 0 0.2 boundingObject Plane { } }"))
    (geom,) = compiled.bindings.solids[0].geom_ids
    assert compiled.model.geom_type[geom] == mujoco.mjtGeom.mjGEOM_PLANE
    assert compiled.bindings.solids[0].body_id == 1 and not compiled.bindings.solids[0].dynamic


# --- IndexedFaceSet -----------------------------------------------------------------------------------------

CUBE_POINTS = " , ".join(" ".join(str(v) for v in p) for p in itertools.product((0, 1), repeat=3))
CUBE_INDEX = "0 1 3 2 -1 4 6 7 5 -1 0 4 5 1 -1 2 3 7 6 -1 0 2 6 4 -1 1 5 7 3 -1"
CUBE_INWARD = "2 3 1 0 -1 5 7 6 4 -1 1 5 4 0 -1 6 7 3 2 -1 4 6 2 0 -1 3 7 5 1 -1"
CUBE_OPEN = "0 1 3 2 -1 4 6 7 5 -1 0 4 5 1 -1 2 3 7 6 -1 0 2 6 4 -1"


def face_set(points: str, index: str, extra: str = "") -> str:
    return f"IndexedFaceSet {{ {extra} coord Coordinate {{ point [ {points} ] }} coordIndex [ {index} ] }}"


def test_indexed_face_set_cube() -> None:
    (g,), warnings = geoms_of(face_set(CUBE_POINTS, CUBE_INDEX))
    assert g.kind == "mesh" and not warnings
    assert g.mesh_faces is not None and g.mesh_faces.shape == (12, 3)
    assert g.unit_mass is not None
    assert g.unit_mass.mass == pytest.approx(1.0)
    np.testing.assert_allclose(g.unit_mass.com, [0.5, 0.5, 0.5])
    np.testing.assert_allclose(g.unit_mass.inertia, np.eye(3) / 6, atol=1e-12)


def test_indexed_face_set_ccw_false_reverses_triangles() -> None:
    (g,), warnings = geoms_of(face_set(CUBE_POINTS, CUBE_INWARD, "ccw FALSE"))
    assert not warnings
    assert g.unit_mass is not None and g.unit_mass.mass == pytest.approx(1.0)


def test_indexed_face_set_inward_faces_warn_and_keep_the_enclosed_volume() -> None:
    (g,), warnings = geoms_of(face_set(CUBE_POINTS, CUBE_INWARD))
    assert [w for w in warnings if "inward" in w.message]
    assert not [w for w in warnings if "not convex" in w.message]
    assert g.unit_mass is not None and g.unit_mass.mass == pytest.approx(1.0)
    np.testing.assert_allclose(g.unit_mass.com, [0.5, 0.5, 0.5])


def test_indexed_face_set_open_mesh_uses_its_convex_hull() -> None:
    (g,), warnings = geoms_of(face_set(CUBE_POINTS, CUBE_OPEN))
    assert [w for w in warnings if "convex hull" in w.message]
    assert g.unit_mass is not None and g.unit_mass.mass == pytest.approx(1.0)
    np.testing.assert_allclose(g.unit_mass.com, [0.5, 0.5, 0.5], atol=1e-9)
    np.testing.assert_allclose(g.unit_mass.inertia, np.eye(3) / 6, atol=1e-9)
    assert g.extra["hull_mass"] is True


def test_indexed_face_set_with_repeated_vertices_is_closed() -> None:
    # Each quad has its own 4 vertices (as exported meshes often do): still one closed solid.
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    corners = list(itertools.product((0, 1), repeat=3))
    points = " , ".join(" ".join(str(v) for v in corners[i]) for q in quads for i in q)
    index = " ".join(f"{4 * k} {4 * k + 1} {4 * k + 2} {4 * k + 3} -1" for k in range(6))
    (g,), warnings = geoms_of(face_set(points, index))
    assert not warnings
    assert g.unit_mass is not None and g.unit_mass.mass == pytest.approx(1.0)


def test_inward_and_open_meshes_compile_with_the_right_mass() -> None:
    for index in (CUBE_INWARD, CUBE_OPEN):
        compiled = compile_world(world(f"Solid {{ physics Physics {{ }} boundingObject {face_set(CUBE_POINTS, index)} }}"))
        assert compiled.model.body_mass[1] == pytest.approx(1000.0)
        np.testing.assert_allclose(compiled.model.body_ipos[1], [0.5, 0.5, 0.5], atol=1e-9)


def test_non_convex_mesh_warns() -> None:
    # An L-shaped prism: a 2x1 box with a 1x1 notch cut out of one corner (extruded along z).
    outline = [(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]
    points = [(x, y, 0) for x, y in outline] + [(x, y, 1) for x, y in outline]
    n = len(outline)
    faces = [tuple(reversed(range(n))), tuple(range(n, 2 * n))]
    faces += [(i, (i + 1) % n, n + (i + 1) % n, n + i) for i in range(n)]
    index = " ".join(" ".join(map(str, f)) + " -1" for f in faces)
    text = " , ".join(" ".join(map(str, p)) for p in points)
    (g,), warnings = geoms_of(face_set(text, index))
    assert [w for w in warnings if "not convex" in w.message]
    assert g.unit_mass is not None and g.unit_mass.mass == pytest.approx(3.0)


def test_mesh_geom_sits_where_the_vertices_are() -> None:
    # MuJoCo recentres meshes on their centre of mass: the compiled geom must still cover the file's vertices.
    text = f"Solid {{ translation 1 2 3 boundingObject Pose {{ translation 0 0 1 children [ Shape {{ geometry {face_set(CUBE_POINTS, CUBE_INDEX)} }} ] }} }}"
    compiled = compile_world(world(text))
    data = mujoco.MjData(compiled.model)
    mujoco.mj_forward(compiled.model, data)
    (geom,) = compiled.bindings.solids[0].geom_ids
    np.testing.assert_allclose(data.geom_xpos[geom], [1.5, 2.5, 4.5], atol=1e-6)


@pytest.mark.parametrize(("points", "index", "needle", "message"), [
    ("0 0 0, 1 0 0, 0 1 0", "0 1 2 -1", "coord", "at least 4 points"),
    (CUBE_POINTS, "0 1 9 -1", "coordIndex", "out of range"),
    (CUBE_POINTS, "0 1 -1 2 3 4 -1", "coordIndex", "fewer than 3"),
    (CUBE_POINTS, "", "coordIndex", "no faces"),
    ("0 0 0, 1 0 0, 0 1 0, 1 1 0", "0 1 3 2 -1 2 3 1 0 -1", "IndexedFaceSet", "flat"),
])
def test_indexed_face_set_errors(points: str, index: str, needle: str, message: str) -> None:
    bounding = face_set(points, index) if index else f"IndexedFaceSet {{ coord Coordinate {{ point [ {points} ] }} }}"
    text = HEADER + f"WorldInfo {{ }}\nSolid {{\n  physics Physics {{ }}\n  boundingObject {bounding}\n}}\n"
    with pytest.raises(WorldLoadError) as info:
        compile_world(load_world_model_from_string(text, FILE))
    (error,) = info.value.errors
    assert isinstance(error, CompileError) and message in error.message
    assert error.location is not None and error.location.file == FILE
    # A defaulted field (no coordIndex written) is located at its node.
    line, column = location_of(text, needle if index or needle != "coordIndex" else "IndexedFaceSet")
    assert (error.location.line, error.location.column) == (line, column)
    assert "IndexedFaceSet" in error.node_path


def test_triangulate_fan_and_orientation() -> None:
    model = world(f"Solid {{ boundingObject {face_set(CUBE_POINTS, CUBE_INDEX)} }}")
    node = model.nodes[-1]["boundingObject"]
    assert isinstance(node, WbNode)
    np.testing.assert_array_equal(triangulate((0, 1, 2, 3, -1, 4, 5, 6), 8, node, True),
                                  [[0, 1, 2], [0, 2, 3], [4, 5, 6]])
    np.testing.assert_array_equal(triangulate((0, 1, 2, 3), 8, node, False), [[0, 2, 1], [0, 3, 2]])


# --- ElevationGrid ------------------------------------------------------------------------------------------

NX, NY, DX, DY = 5, 4, 0.4, 0.3


def grid_heights() -> np.ndarray:
    """Heights [j, i] (row j along y): two flat plateaus at known cells, zero elsewhere."""
    h = np.zeros((NY, NX))
    h[1:3, 1:3] = 0.3  # points i = 1..2, j = 1..2
    h[0:2, 3:5] = 0.6  # points i = 3..4, j = 0..1
    return h


def grid_text(extra: str = "") -> str:
    values = " ".join(str(v) for v in grid_heights().ravel())  # index i + j * xDimension
    return (f"ElevationGrid {{ {extra} xDimension {NX} yDimension {NY} xSpacing {DX} ySpacing {DY} "
            f"height [ {values} ] }}")


def test_elevation_grid_layout() -> None:
    (g,), _ = geoms_of(grid_text("thickness 0.5"))
    assert g.kind == "hfield" and g.unit_mass is None and g.hfield is not None
    nrow, ncol, size, data = g.hfield
    assert (nrow, ncol) == (NY, NX)  # MuJoCo rows run along y, columns along x
    assert size == pytest.approx((DX * (NX - 1) / 2, DY * (NY - 1) / 2, 0.6, 0.5))
    np.testing.assert_allclose(data.reshape(NY, NX), grid_heights() / 0.6)
    # MuJoCo height fields are centred on their geom: the grid's corner P[0, 0] is at the Solid origin.
    np.testing.assert_allclose(g.frame.pos, [DX * (NX - 1) / 2, DY * (NY - 1) / 2, 0.0])


def test_elevation_grid_offset_by_lowest_point_and_zero_thickness() -> None:
    (g,), _ = geoms_of("ElevationGrid { xDimension 2 yDimension 2 height [ -1 -1 -1 1 ] thickness 0 }")
    assert g.hfield is not None
    _, _, size, data = g.hfield
    assert size[2] == pytest.approx(2.0) and size[3] > 0  # MuJoCo needs a positive base thickness
    np.testing.assert_allclose(g.frame.pos, [0.5, 0.5, -1.0])
    np.testing.assert_allclose(data, [0, 0, 0, 1])


def test_elevation_grid_flat() -> None:
    (g,), _ = geoms_of("ElevationGrid { xDimension 2 yDimension 3 height [ 0.2 0.2 0.2 0.2 0.2 0.2 ] }")
    assert g.hfield is not None
    np.testing.assert_allclose(g.frame.pos, [0.5, 1.0, 0.2])
    assert np.all(np.isfinite(g.hfield[3]))


@pytest.mark.parametrize(("grid", "needle", "message"), [
    ("ElevationGrid { xDimension 1 yDimension 3 height [ 0 0 0 ] }", "ElevationGrid", "xDimension >= 2"),
    ("ElevationGrid { xDimension 2 yDimension 2 height [ 0 0 0 ] }", "height", "xDimension*yDimension"),
])
def test_elevation_grid_errors(grid: str, needle: str, message: str) -> None:
    text = HEADER + f"WorldInfo {{ }}\nSolid {{\n  boundingObject {grid}\n}}\n"
    with pytest.raises(WorldLoadError) as info:
        compile_world(load_world_model_from_string(text, FILE))
    (error,) = info.value.errors
    assert message in error.message
    assert error.location is not None
    assert (error.location.line, error.location.column) == location_of(text, needle)


@pytest.mark.parametrize(("i", "j", "height"), [(1.5, 1.5, 0.3), (3.5, 0.5, 0.6), (3.5, 2.5, 0.0)])
def test_ball_rests_on_elevation_grid_cell_at_analytic_height(i: float, j: float, height: float) -> None:
    """A ball dropped over the middle of a flat grid cell P[i, j] rests at that cell's height plus its radius."""
    origin, yaw, radius = np.array([1.0, 2.0, 0.1]), 0.3, 0.05
    text = f"""Solid {{ translation {origin[0]} {origin[1]} {origin[2]} rotation 0 0 1 {yaw}
                boundingObject {grid_text()} }}
               Solid {{ translation 0 0 1 physics Physics {{ }} boundingObject Sphere {{ radius {radius} }} }}"""
    info = "WorldInfo { basicTimeStep 4 physicsDisableTime 0 contactProperties [ ContactProperties { bounce 0 } ] }"
    model = world(text, info)
    ball = model.nodes[-1]
    compiled = compile_world(model)
    sim = Simulation(compiled)
    c, s = math.cos(yaw), math.sin(yaw)
    xy = origin[:2] + np.array([[c, -s], [s, c]]) @ np.array([i * DX, j * DY])
    qadr = compiled.model.jnt_qposadr[compiled.bindings.solid(ball).free_joint_id]  # type: ignore[union-attr]
    sim.data.qpos[qadr : qadr + 2] = xy
    sim.run(1.2)
    pos = sim.data.qpos[qadr : qadr + 3]
    np.testing.assert_allclose(pos[:2], xy, atol=1e-3)
    assert pos[2] == pytest.approx(origin[2] + height + radius, abs=1e-3)


def test_inertia_module_is_used_for_unit_masses() -> None:
    (g,), _ = geoms_of("Pose { translation 0 0 2 children [ Shape { geometry Box { size 1 2 3 } } ] }")
    expected = inertia.box((1, 2, 3)).transformed(Frame(np.array([0, 0, 2.0]), np.eye(3)))
    assert g.unit_mass is not None
    np.testing.assert_allclose(g.unit_mass.inertia, expected.inertia)
    np.testing.assert_allclose(g.unit_mass.com, [0, 0, 2])
