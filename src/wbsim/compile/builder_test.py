"""Tests for wbsim.compile.builder: masses, body structure, joints, WorldInfo mapping and located errors.

Expected world-frame positions and axes are computed with MuJoCo's own quaternion functions
(``mju_axisAngle2Quat``, ``mju_mulQuat``, ``mju_rotVecQuat``), not with wbsim's Frame class.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from wbsim.compile import inertia
from wbsim.compile.builder import CompileOptions, compile_world, gravity_vector, sleep_tolerance
from wbsim.compile.bindings import JointBinding, SolidBinding
from wbsim.errors import CompileError, WorldLoadError
from wbsim.world.loader import load_world_model_from_string
from wbsim.world.model import WbNode, WorldModel

HEADER = "#VRML_SIM R2023b utf8\n"
FILE = "builder.wbt"


def world(body: str, info: str = "WorldInfo { }") -> WorldModel:
    return load_world_model_from_string(HEADER + info + "\n" + body, FILE)


def compiled_of(body: str, info: str = "WorldInfo { }", options: CompileOptions | None = None):  # noqa: ANN201
    return compile_world(world(body, info), options)


def solid(compiled, def_name: str) -> SolidBinding:  # noqa: ANN001
    node = compiled.world.find_def(def_name)
    assert node is not None, def_name
    binding = compiled.bindings.solid(node)
    assert binding is not None
    return binding


def joint(compiled, index: int = 0) -> JointBinding:  # noqa: ANN001
    return compiled.bindings.joints[index]


def full_inertia(model: mujoco.MjModel, body: int) -> np.ndarray:
    """A body's inertia tensor about its centre of mass, in the body frame."""
    r = np.zeros(9)
    mujoco.mju_quat2Mat(r, model.body_iquat[body])
    r = r.reshape(3, 3)
    return r @ np.diag(model.body_inertia[body]) @ r.T


def mj_quat(rotation: tuple[float, float, float, float]) -> np.ndarray:
    q = np.zeros(4)
    axis = np.asarray(rotation[:3], dtype=float)
    mujoco.mju_axisAngle2Quat(q, axis / np.linalg.norm(axis), rotation[3])
    return q


def mj_compose(*poses: tuple[tuple[float, ...], tuple[float, float, float, float]]) -> tuple[np.ndarray, np.ndarray]:
    """World (position, quaternion) of nested (translation, rotation) poses, outermost first."""
    pos, quat = np.zeros(3), np.array([1.0, 0, 0, 0])
    for translation, rotation in poses:
        moved = np.zeros(3)
        mujoco.mju_rotVecQuat(moved, np.asarray(translation, dtype=float), quat)
        pos = pos + moved
        product = np.zeros(4)
        mujoco.mju_mulQuat(product, quat, mj_quat(rotation))
        quat = product
    return pos, quat


def rotate(quat: np.ndarray, vector: tuple[float, ...] | np.ndarray) -> np.ndarray:
    out = np.zeros(3)
    mujoco.mju_rotVecQuat(out, np.asarray(vector, dtype=float), quat)
    return out


def compile_errors(body: str, info: str = "WorldInfo { }") -> tuple[str, list[CompileError]]:
    text = HEADER + info + "\n" + body
    with pytest.raises(WorldLoadError) as raised:
        compile_world(load_world_model_from_string(text, FILE))
    errors = raised.value.errors
    assert all(isinstance(e, CompileError) for e in errors)
    return text, errors  # type: ignore[return-value]


def location_of(text: str, needle: str, occurrence: int = 0) -> tuple[int, int]:
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(needle, start + 1)
    return text.count("\n", 0, start) + 1, start - (text.rfind("\n", 0, start) + 1) + 1


# --- masses and inertias ------------------------------------------------------------------------------------


def test_density_times_volume() -> None:
    c = compiled_of("DEF S Solid { physics Physics { density 500 } boundingObject Box { size 0.1 0.2 0.3 } }")
    body = solid(c, "S").body_id
    assert c.model.body_mass[body] == pytest.approx(500 * 0.006)
    np.testing.assert_allclose(full_inertia(c.model, body), inertia.box((0.1, 0.2, 0.3), 500).inertia, atol=1e-15)
    np.testing.assert_allclose(c.model.body_ipos[body], 0.0, atol=1e-15)


def test_default_density_is_water() -> None:
    c = compiled_of("DEF S Solid { physics Physics { } boundingObject Sphere { radius 0.1 } }")
    assert c.model.body_mass[solid(c, "S").body_id] == pytest.approx(1000 * 4 / 3 * math.pi * 0.001)


def test_mass_spread_over_shapes_by_volume_with_overlaps_counted_twice() -> None:
    text = """DEF S Solid { physics Physics { density -1 mass 3 } boundingObject Group { children [
        Shape { geometry Box { size 1 1 1 } }
        Pose { translation 1 0 0 children [ Shape { geometry Box { size 1 1 1 } } ] }
        Pose { translation 0.5 0 0 children [ Shape { geometry Box { size 1 1 1 } } ] }
    ] } }"""
    c = compiled_of(text)
    body = solid(c, "S").body_id
    model = c.model
    assert model.body_mass[body] == pytest.approx(3.0)
    np.testing.assert_allclose(model.body_ipos[body], [0.5, 0, 0], atol=1e-12)
    # Three unit cubes of 1 kg at x = 0, 1, 0.5: Ixx = 3/6; Iyy = Izz = 3/6 + (0.25 + 0.25 + 0).
    np.testing.assert_allclose(full_inertia(model, body), np.diag([0.5, 1.0, 1.0]), atol=1e-12)


def test_mass_wins_over_density_with_a_warning() -> None:
    c = compiled_of("DEF S Solid { physics Physics { density 10 mass 2 } boundingObject Box { size 1 1 1 } }")
    assert c.model.body_mass[solid(c, "S").body_id] == pytest.approx(2.0)
    assert any("density" in w.message and "ignored" in w.message for w in c.warnings)


def test_center_of_mass_moves_the_mass_but_not_the_inertia() -> None:
    text = """DEF S Solid { physics Physics { density -1 mass 2 centerOfMass [ 0.1 -0.2 0.3 ] }
              boundingObject Pose { translation 1 0 0 children [ Shape { geometry Box { size 0.1 0.2 0.3 } } ] } }"""
    c = compiled_of(text)
    body = solid(c, "S").body_id
    np.testing.assert_allclose(c.model.body_ipos[body], [0.1, -0.2, 0.3])
    np.testing.assert_allclose(full_inertia(c.model, body), inertia.box((0.1, 0.2, 0.3), 2 / 0.006).inertia,
                               atol=1e-15)


def test_inertia_matrix_overrides() -> None:
    text = """DEF S Solid { physics Physics { density -1 mass 4 centerOfMass [ 0 0 0.1 ]
              inertiaMatrix [ 0.3 0.4 0.5, 0.01 -0.02 0.03 ] } boundingObject Box { size 1 1 1 } }"""
    c = compiled_of(text)
    body = solid(c, "S").body_id
    assert c.model.body_mass[body] == pytest.approx(4.0)
    np.testing.assert_allclose(c.model.body_ipos[body], [0, 0, 0.1])
    expected = np.array([[0.3, 0.01, -0.02], [0.01, 0.4, 0.03], [-0.02, 0.03, 0.5]])
    np.testing.assert_allclose(full_inertia(c.model, body), expected, atol=1e-9)


def test_no_bounding_object_gives_identity_inertia_with_warning() -> None:
    c = compiled_of("DEF S Solid { physics Physics { density -1 mass 2.5 } }")
    body = solid(c, "S").body_id
    assert c.model.body_mass[body] == pytest.approx(2.5)
    np.testing.assert_allclose(full_inertia(c.model, body), np.eye(3))
    assert any("identity" in w.message for w in c.warnings)
    # Webots scales the default 1 kg by density / 1000.
    c = compiled_of("DEF S Solid { physics Physics { density 500 } }")
    assert c.model.body_mass[solid(c, "S").body_id] == pytest.approx(0.5)


def test_very_thin_plate_compiles() -> None:
    # Principal moments of a 10 nm plate satisfy A + B = C only up to rounding, which MuJoCo refuses as is.
    c = compiled_of("DEF S Solid { physics Physics { } boundingObject Box { size 2.5 3.425 1e-8 } }")
    assert c.model.body_mass[solid(c, "S").body_id] == pytest.approx(1000 * 2.5 * 3.425 * 1e-8)
    assert not [w for w in c.warnings if "inertia" in w.message]


def test_unrealisable_inertia_matrix_is_fixed_with_a_warning() -> None:
    c = compiled_of("""DEF S Solid { physics Physics { density -1 mass 1 centerOfMass [ 0 0 0 ]
        inertiaMatrix [ 1 1 3, 0 0 0 ] } }""")
    np.testing.assert_allclose(full_inertia(c.model, solid(c, "S").body_id), np.diag([2.0, 2.0, 4.0]), rtol=1e-6)
    (warning,) = [w for w in c.warnings if "I1 + I2 < I3" in w.message]
    assert warning.location is not None and warning.node_path.endswith("Physics")


@pytest.mark.parametrize("physics", ["density 1e-9", "density -1 mass 1e-16"])
def test_tiny_parts_compile_with_a_warning(physics: str) -> None:
    c = compiled_of(f"DEF S Solid {{ physics Physics {{ {physics} }} boundingObject Box {{ size 0.01 0.01 0.01 }} }}")
    body = solid(c, "S").body_id
    assert c.model.body_mass[body] >= 1e-13
    assert c.model.body_inertia[body].min() >= 1e-13
    assert [w for w in c.warnings if "MuJoCo" in w.message]


def test_plane_on_a_moving_solid_without_physics_is_ignored_with_a_warning() -> None:
    c = compiled_of("""Solid { translation 0 0 1 physics Physics { } boundingObject Box { size 0.1 0.1 0.1 }
        children [ DEF P Solid { boundingObject Plane { } } ] }
      Solid { children [ HingeJoint { endPoint DEF Q Solid { boundingObject Plane { } } } ] }""")
    assert solid(c, "P").geom_ids == () and solid(c, "Q").geom_ids == ()
    planes = [w for w in c.warnings if "Plane is ignored" in w.message]
    assert len(planes) == 2 and all(w.location is not None for w in planes)


def test_merged_child_has_its_own_mass_and_the_owner_gets_the_sum() -> None:
    text = """DEF P Solid { translation 0 0 1 physics Physics { density -1 mass 2 } boundingObject Box { size 0.1 0.1 0.1 }
      children [ DEF C Solid { translation 0.5 0 0 physics Physics { density -1 mass 1 }
                               boundingObject Sphere { radius 0.05 } } ] }"""
    c = compiled_of(text)
    parent, child = solid(c, "P"), solid(c, "C")
    model = c.model
    assert model.body_mass[child.body_id] == pytest.approx(1.0)
    assert model.body_subtreemass[parent.body_id] == pytest.approx(3.0)
    assert model.body_parentid[child.body_id] == parent.body_id
    assert model.body_jntnum[child.body_id] == 0


# --- body structure: free, static, welded, merged ------------------------------------------------------------

STRUCTURE = """
DEF FREE Solid { translation 0 0 1 physics Physics { } boundingObject Box { size 0.1 0.1 0.1 }
  children [
    DEF MERGED Solid { translation 0.2 0 0 physics Physics { } boundingObject Box { size 0.1 0.1 0.1 }
      children [ DEF MERGED2 Solid { translation 0.2 0 0 physics Physics { } boundingObject Box { size 0.1 0.1 0.1 } } ] }
    DEF WHEEL Solid { name "Left Wheel" translation 0 0.2 0 physics Physics { } boundingObject Sphere { radius 0.05 } }
    DEF PASSIVE Solid { translation 0 -0.2 0 boundingObject Sphere { radius 0.05 } }
  ] }
DEF STATIC Solid { translation 2 0 0 boundingObject Box { size 1 1 1 }
  children [ DEF WELDED Solid { translation 0 0 1 physics Physics { } boundingObject Box { size 0.1 0.1 0.1 } } ] }
Pose { translation 5 0 0 children [ DEF POSED Solid { physics Physics { } boundingObject Sphere { radius 0.1 } } ] }
"""


def test_body_structure_rules() -> None:
    c = compiled_of(STRUCTURE)
    model = c.model
    free, merged, merged2 = solid(c, "FREE"), solid(c, "MERGED"), solid(c, "MERGED2")
    wheel, passive, static, welded, posed = (solid(c, n) for n in ("WHEEL", "PASSIVE", "STATIC", "WELDED", "POSED"))
    # Top-level Solid with Physics: a free body owning itself.
    assert free.free_joint_id >= 0 and model.jnt_type[free.free_joint_id] == mujoco.mjtJoint.mjJNT_FREE
    assert (free.owner_body_id, free.dynamic, free.owns_body) == (free.body_id, True, True)
    # A Solid under a top-level Pose is still top-level.
    assert posed.free_joint_id >= 0 and posed.dynamic
    # Merged children: jointless, owned by the free ancestor.
    for m in (merged, merged2):
        assert (m.owner_body_id, m.dynamic, m.owns_body, m.free_joint_id) == (free.body_id, True, False, -1)
        assert model.body_jntnum[m.body_id] == 0
    # Legacy wheel names keep their own body (case-insensitive).
    assert wheel.owns_body and wheel.owner_body_id == wheel.body_id and wheel.dynamic
    # A Solid without Physics under a dynamic one moves with it (and is warned about).
    assert passive.dynamic and passive.owner_body_id == free.body_id and not passive.owns_body
    assert any("no Physics" in w.message and w.node_path == passive.node.path for w in c.warnings)
    # Static Solid and a Physics Solid welded under it: owner 0 (world), not dynamic, no joint.
    for s in (static, welded):
        assert (s.owner_body_id, s.dynamic, s.free_joint_id) == (0, False, -1)
        assert model.body_jntnum[s.body_id] == 0
    assert model.body_mass[welded.body_id] == pytest.approx(1.0)
    # Every boundingObject became geoms bound to its Solid.
    for s in (free, merged, wheel, passive, static, welded):
        assert len(s.geom_ids) == 1 and model.geom_bodyid[s.geom_ids[0]] == s.body_id


def test_body_positions_follow_the_tree() -> None:
    c = compiled_of(STRUCTURE)
    data = mujoco.MjData(c.model)
    mujoco.mj_forward(c.model, data)
    expected = {"FREE": (0, 0, 1), "MERGED": (0.2, 0, 1), "MERGED2": (0.4, 0, 1), "WHEEL": (0, 0.2, 1),
                "STATIC": (2, 0, 0), "WELDED": (2, 0, 1), "POSED": (5, 0, 0)}
    for name, position in expected.items():
        np.testing.assert_allclose(data.xpos[solid(c, name).body_id], position, atol=1e-12)


def test_binding_lookup() -> None:
    c = compiled_of(STRUCTURE)
    node = c.world.find_def("FREE")
    assert isinstance(node, WbNode)
    assert c.bindings.of(node) is c.bindings.solid(node)
    assert c.bindings.solid(c.world.world_info) is None
    assert c.body_names  # body name -> node path, for diagnostics
    assert any(path == node.path for path in c.body_names.values())


# --- joints in world coordinates -------------------------------------------------------------------------------

PARENT = ((0.3, -0.2, 1.1), (1.0, 2.0, 3.0, 0.7))
POSE = ((0.1, 0.05, -0.2), (0.0, 1.0, 0.2, 0.5))
END = ((0.2, 0.1, -0.3), (1.0, 0.0, 0.5, 0.3))


def joint_world(system: str, kind: str, axis: tuple[float, float, float], anchor: tuple[float, float, float],
                position: float, parent_physics: bool) -> str:
    parameters = {"hinge": "HingeJointParameters", "slider": "JointParameters", "ball": "BallJointParameters"}[kind]
    joint_type = {"hinge": "HingeJoint", "slider": "SliderJoint", "ball": "BallJoint"}[kind]
    fields = f"position {position}"
    if kind != "ball":
        fields += " axis {} {} {}".format(*axis)
    if kind != "slider":
        fields += " anchor {} {} {}".format(*anchor)
    physics = "physics Physics { } boundingObject Box { size 0.1 0.1 0.1 }" if parent_physics else ""
    return f"""WorldInfo {{ coordinateSystem "{system}" gravity 0 }}
    DEF PARENT Solid {{ translation {' '.join(map(str, PARENT[0]))} rotation {' '.join(map(str, PARENT[1]))} {physics}
      children [ Pose {{ translation {' '.join(map(str, POSE[0]))} rotation {' '.join(map(str, POSE[1]))} children [
        {joint_type} {{ jointParameters {parameters} {{ {fields} }}
          endPoint DEF END Solid {{ translation {' '.join(map(str, END[0]))} rotation {' '.join(map(str, END[1]))}
            physics Physics {{ }} boundingObject Sphere {{ radius 0.05 }} }} }} ] }} ] }}"""


@pytest.mark.parametrize("system", ["ENU", "NUE", "EUN"])
@pytest.mark.parametrize("parent_physics", [False, True])
@pytest.mark.parametrize("kind", ["hinge", "slider", "ball"])
def test_joint_axis_and_anchor_in_world_coordinates(system: str, parent_physics: bool, kind: str) -> None:
    axis, anchor, position = (0.2, 1.0, -0.4), (0.05, -0.1, 0.2), 0.35 if kind != "ball" else 0.0
    text = joint_world(system, kind, axis, anchor, position, parent_physics)
    c = compile_world(load_world_model_from_string(HEADER + text, FILE))
    model, data = c.model, mujoco.MjData(c.model)
    mujoco.mj_forward(model, data)
    j = joint(c)
    frame_pos, frame_quat = mj_compose(PARENT, POSE)
    expected_axis = rotate(frame_quat, np.asarray(axis) / np.linalg.norm(axis))
    if kind != "ball":
        np.testing.assert_allclose(data.xaxis[j.joint_id], expected_axis, atol=1e-12)
    if kind != "slider":
        np.testing.assert_allclose(data.xanchor[j.joint_id], frame_pos + rotate(frame_quat, anchor), atol=1e-12)
    # The endPoint is where the file puts it (the file pose is the pose at `position`).
    end_pos, end_quat = mj_compose(PARENT, POSE, END)
    end = solid(c, "END").body_id
    np.testing.assert_allclose(data.xpos[end], end_pos, atol=1e-12)
    q = data.xquat[end] if data.xquat[end] @ end_quat >= 0 else -data.xquat[end]
    np.testing.assert_allclose(q, end_quat, atol=1e-12)
    if kind != "ball":
        assert model.qpos0[j.qpos_adr] == pytest.approx(position)
        assert data.qpos[j.qpos_adr] == pytest.approx(position)
        assert j.initial_position == pytest.approx(position)
    # Gravity (set to 0 here) and the system's up axis.
    up = {"ENU": 2, "NUE": 1, "EUN": 1}[system]
    np.testing.assert_allclose(gravity_vector(system, 9.81), -9.81 * np.eye(3)[up])


@pytest.mark.parametrize("kind", ["hinge", "slider"])
def test_zero_position_pose_undoes_the_initial_position(kind: str) -> None:
    """At joint position 0 the endPoint is the file pose moved back by ``position`` along/about the axis."""
    axis, anchor, position = (0.2, 1.0, -0.4), (0.05, -0.1, 0.2), 0.35
    c = compile_world(load_world_model_from_string(HEADER + joint_world("ENU", kind, axis, anchor, position, False)))
    model, data = c.model, mujoco.MjData(c.model)
    j = joint(c)
    data.qpos[j.qpos_adr] = 0.0
    mujoco.mj_forward(model, data)
    frame_pos, frame_quat = mj_compose(PARENT, POSE)
    end_pos, end_quat = mj_compose(PARENT, POSE, END)
    world_axis = rotate(frame_quat, np.asarray(axis) / np.linalg.norm(axis))
    end = solid(c, "END").body_id
    if kind == "slider":
        np.testing.assert_allclose(data.xpos[end], end_pos - position * world_axis, atol=1e-12)
    else:
        undo = np.zeros(4)
        mujoco.mju_axisAngle2Quat(undo, world_axis, -position)
        pivot = frame_pos + rotate(frame_quat, anchor)
        np.testing.assert_allclose(data.xpos[end], pivot + rotate(undo, end_pos - pivot), atol=1e-12)
        expected = np.zeros(4)
        mujoco.mju_mulQuat(expected, undo, end_quat)
        q = data.xquat[end] if data.xquat[end] @ expected >= 0 else -data.xquat[end]
        np.testing.assert_allclose(q, expected, atol=1e-12)


def test_joint_on_top_of_merged_and_jointed_bodies() -> None:
    # A hinge on a Solid that is itself a hinge endPoint: the chain's second axis follows the first joint.
    text = """DEF BASE Solid { children [ HingeJoint { jointParameters HingeJointParameters { axis 0 0 1 }
        endPoint DEF ARM Solid { translation 1 0 0 rotation 0 0 1 1.5707963267948966
          physics Physics { } boundingObject Sphere { radius 0.05 }
          children [ HingeJoint { jointParameters HingeJointParameters { axis 1 0 0 anchor 0.5 0 0 }
            endPoint DEF TIP Solid { translation 1 0 0 physics Physics { } boundingObject Sphere { radius 0.05 } } } ] } } ] }"""
    c = compiled_of(text)
    data = mujoco.MjData(c.model)
    mujoco.mj_forward(c.model, data)
    second = joint(c, 1)
    np.testing.assert_allclose(data.xaxis[second.joint_id], [0, 1, 0], atol=1e-12)  # ARM is turned 90 deg
    np.testing.assert_allclose(data.xanchor[second.joint_id], [1, 0.5, 0], atol=1e-12)
    np.testing.assert_allclose(data.xpos[solid(c, "TIP").body_id], [1, 1, 0], atol=1e-12)
    assert second.end_point is not None and second.end_point.body_id == solid(c, "TIP").body_id
    assert solid(c, "ARM").owns_body and solid(c, "ARM").owner_body_id == solid(c, "ARM").body_id


def test_joint_parameters_defaults() -> None:
    c = compiled_of("""Solid { children [ HingeJoint { endPoint DEF E Solid { physics Physics { }
        boundingObject Sphere { radius 0.1 } } } SliderJoint { endPoint Solid { physics Physics { }
        boundingObject Sphere { radius 0.1 } } } ] }""")
    data = mujoco.MjData(c.model)
    mujoco.mj_forward(c.model, data)
    hinge, slider = joint(c, 0), joint(c, 1)
    np.testing.assert_allclose(data.xaxis[hinge.joint_id], [1, 0, 0])  # HingeJointParameters axis 1 0 0
    np.testing.assert_allclose(data.xaxis[slider.joint_id], [0, 0, 1])  # JointParameters axis 0 0 1
    assert not c.model.jnt_limited[hinge.joint_id]
    assert hinge.kind == "hinge" and slider.kind == "slider"


@pytest.mark.parametrize(("stops", "expected"), [
    ("", None),
    ("minStop 0 maxStop 0", None),
    ("minStop -0.5 maxStop 1.2", (-0.5, 1.2)),
    ("minStop 0 maxStop 1.2", (0.0, 1.2)),
    ("minStop 0.4 maxStop 0.4", None),  # Webots places stops only when minStop != maxStop
    ("minStop 1 maxStop -1", None),  # ODE ignores both stops when the low one is above the high one
])
@pytest.mark.parametrize("kind", ["HingeJoint", "SliderJoint"])
def test_stops_are_absolute_ranges(kind: str, stops: str, expected: tuple[float, float] | None) -> None:
    params = "HingeJointParameters" if kind == "HingeJoint" else "JointParameters"
    c = compiled_of(f"""Solid {{ children [ {kind} {{ jointParameters {params} {{ position 0.3 {stops} }}
        endPoint Solid {{ physics Physics {{ }} boundingObject Sphere {{ radius 0.1 }} }} }} ] }}""")
    j = joint(c).joint_id
    if expected is None:
        assert not c.model.jnt_limited[j]
    else:
        assert c.model.jnt_limited[j]
        np.testing.assert_allclose(c.model.jnt_range[j], expected)


def test_spring_damping_and_static_friction() -> None:
    c = compiled_of("""Solid { children [
      HingeJoint { jointParameters HingeJointParameters { position 0.2 springConstant 3 dampingConstant 0.4
                                                          staticFriction 0.05 }
        endPoint Solid { rotation 1 0 0 0.2 physics Physics { } boundingObject Sphere { radius 0.1 } } }
      SliderJoint { jointParameters JointParameters { springConstant 7 dampingConstant 0.9 staticFriction 1.5 }
        endPoint Solid { physics Physics { } boundingObject Sphere { radius 0.1 } } } ] }""")
    model = c.model
    for index, (k, b, f) in enumerate([(3.0, 0.4, 0.05), (7.0, 0.9, 1.5)]):
        j = joint(c, index)
        assert np.ravel(model.jnt_stiffness[j.joint_id])[0] == pytest.approx(k)
        assert model.dof_damping[j.dof_adr] == pytest.approx(b)
        assert model.dof_frictionloss[j.dof_adr] == pytest.approx(f)
        assert model.qpos_spring[j.qpos_adr] == 0.0  # the spring rests at position 0, not at `position`
    assert model.qpos0[joint(c, 0).qpos_adr] == pytest.approx(0.2)


def test_spring_force_rests_at_zero_position() -> None:
    c = compiled_of("""WorldInfo { gravity 0 }
      Solid { children [ HingeJoint { jointParameters HingeJointParameters { position 0.2 springConstant 3 }
        endPoint Solid { rotation 1 0 0 0.2 physics Physics { } boundingObject Sphere { radius 0.1 } } } ] }""",
                    info="")
    data = mujoco.MjData(c.model)
    mujoco.mj_forward(c.model, data)
    assert data.qfrc_spring[joint(c).dof_adr] == pytest.approx(-3 * 0.2)


def test_joint_without_end_point_warns() -> None:
    c = compiled_of("Solid { children [ HingeJoint { } ] }")
    assert joint(c).joint_id == -1 and joint(c).end_point is None
    assert any("without endPoint" in w.message for w in c.warnings)


def test_kinematic_end_point_under_static_parent() -> None:
    c = compiled_of("Solid { children [ HingeJoint { endPoint DEF K Solid { translation 0 0 1 } } ] }")
    assert joint(c).kinematic
    k = solid(c, "K")
    assert k.dynamic and c.model.body_mass[k.body_id] > 0


KINEMATIC_CHAIN = """Robot { children [ HingeJoint { jointParameters HingeJointParameters { axis 0 0 1 }
  device [ RotationalMotor { name "m1" } PositionSensor { name "s1" } ]
  endPoint DEF A Solid { children [ HingeJoint { jointParameters HingeJointParameters { axis 0 1 0 }
    device [ RotationalMotor { name "m2" } ]
    endPoint DEF B Solid { name "b" } } ] name "a" } } ] controller "<extern>" }"""


def test_chained_kinematic_end_points_compile_as_nested_kinematic_joints() -> None:
    # Webots' inertial_unit.wbt sample: endPoints without Physics chained under a Robot without Physics.
    c = compiled_of(KINEMATIC_CHAIN)
    first, second = joint(c, 0), joint(c, 1)
    assert first.kinematic and second.kinematic
    a, b = solid(c, "A"), solid(c, "B")
    assert first.end_point is a and second.end_point is b
    assert c.model.body_parentid[b.body_id] == a.body_id  # each joint moves its endPoint relative to the previous
    assert c.model.jnt_bodyid[second.joint_id] == b.body_id
    for j in (first, second):  # kinematic joints carry the huge armature wbsim moves them with
        assert c.model.dof_armature[j.dof_adr] > 1e3
    assert not c.warnings


@pytest.mark.parametrize("parent", [
    "Robot { physics Physics { } children [ {joint} ] }",  # a jointless parent with Physics
    "Robot { children [ HingeJoint { endPoint Solid { physics Physics { } children [ {joint} ] } } ] }",
    "Robot { children [ HingeJoint { endPoint Solid { children [ Solid { physics Physics { } children [ {joint} ] } ] } } ] }",
])
def test_end_point_without_physics_under_a_parent_with_physics_is_kinematic_without_bounding_object(
        parent: str) -> None:
    c = compiled_of(parent.replace("{joint}", "HingeJoint { endPoint DEF K Solid { children [ DEF L Solid { } ] } }"))
    (moved,) = [j for j in c.bindings.joints if j.end_point is solid(c, "K")]
    assert moved.kinematic and c.model.dof_armature[moved.dof_adr] > 1e3
    assert solid(c, "L").owner_body_id == solid(c, "K").body_id  # the Solid it carries rides its body
    # A boundingObject in the moving part (here on a Solid it carries) is refused, located at that Solid.
    inner = "HingeJoint { endPoint DEF K Solid { children [ Solid { boundingObject Box { } } ] } }"
    text, errors = compile_errors(parent.replace("{joint}", inner))
    assert [e.message for e in errors] == [
        "A joint endPoint without Physics under a Solid with Physics cannot have a boundingObject in wbsim (Webots "
        "makes it kinematic and ignores its collisions); give it a Physics node or remove the boundingObject."]
    assert (errors[0].location.line, errors[0].location.column) == location_of(text, "Solid { boundingObject")


def test_physics_end_point_under_a_kinematic_link_is_dynamic() -> None:
    c = compiled_of("""Robot { children [ HingeJoint { endPoint Solid { children [
        HingeJoint { endPoint DEF P Solid { physics Physics { } boundingObject Sphere { radius 0.1 } } } ] } } ] }""")
    assert joint(c, 0).kinematic and not joint(c, 1).kinematic
    assert c.model.body_mass[solid(c, "P").body_id] == pytest.approx(1000 * 4 / 3 * math.pi * 0.001)
    # Webots attaches such a Solid to the static world instead: wbsim says it differs.
    assert any("carried by a joint endPoint without Physics" in w.message for w in c.warnings)


def test_kinematic_links_do_not_touch_static_or_kinematic_solids() -> None:
    # Webots gives Solids without Physics no ODE body, and ODE makes no contact between two bodyless geoms: the
    # links (A, B, and a Solid C riding on B) pass through the static wall W and another robot's kinematic link O;
    # they still push a Solid with Physics (D).
    box = "boundingObject Box { size 0.1 0.1 0.1 }"
    c = compiled_of(f"""
      DEF W Solid {{ {box} }}
      DEF D Solid {{ translation 0 0 1 {box} physics Physics {{ }} }}
      Robot {{ name "o" children [ HingeJoint {{ endPoint DEF O Solid {{ {box} }} }} ] }}
      Robot {{ selfCollision TRUE children [ HingeJoint {{ endPoint DEF A Solid {{ {box} children [
        HingeJoint {{ endPoint DEF B Solid {{ {box} children [ DEF C Solid {{ translation 0 0 0.5 {box} }} ] }} }} ]
      }} }} ] }}""")
    model, data = c.model, mujoco.MjData(c.model)
    mujoco.mj_forward(model, data)
    touching = {frozenset((int(model.geom_bodyid[k.geom1]), int(model.geom_bodyid[k.geom2]))) for k in data.contact}
    body = {name: solid(c, name).body_id for name in "WDOABC"}
    for link in "ABCO":
        assert frozenset((body[link], body["W"])) not in touching
    for a_, b_ in (("A", "O"), ("B", "O"), ("C", "O"), ("A", "C")):
        assert frozenset((body[a_], body[b_])) not in touching
    assert solid(c, "C").body_id != solid(c, "B").body_id  # C rides B: kinematic too
    assert frozenset((body["D"], body["W"])) not in touching  # (1 m apart)
    # D against the kinematic links is a real contact: move D onto B and check.
    data.qpos[model.jnt_qposadr[solid(c, "D").free_joint_id] + 2] = 0.5
    mujoco.mj_forward(model, data)
    touching = {frozenset((int(model.geom_bodyid[k.geom1]), int(model.geom_bodyid[k.geom2]))) for k in data.contact}
    assert frozenset((body["D"], body["C"])) in touching


# --- WorldInfo --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("basic", "substeps", "dt_ms"), [(32, 8, 4.0), (16, 4, 4.0), (10, 3, 10 / 3), (4, 1, 4.0),
                                                         (1, 1, 1.0), (5, 2, 2.5)])
def test_basic_time_step_is_split_into_equal_steps(basic: float, substeps: int, dt_ms: float) -> None:
    c = compiled_of("", info=f"WorldInfo {{ basicTimeStep {basic} }}")
    assert c.substeps == substeps
    assert c.physics_step_s == pytest.approx(dt_ms / 1000)
    assert c.basic_time_step_ms == basic
    assert c.substeps * c.physics_step_s == pytest.approx(basic / 1000)


def test_physics_step_options() -> None:
    c = compiled_of("", info="WorldInfo { basicTimeStep 32 }", options=CompileOptions(physics_step_ms=2))
    assert (c.substeps, c.physics_step_s) == (16, pytest.approx(0.002))
    c = compiled_of("", info="WorldInfo { basicTimeStep 32 }", options=CompileOptions(max_physics_step_ms=10))
    assert c.substeps == 4
    with pytest.raises(CompileError):
        compiled_of("", info="WorldInfo { basicTimeStep 32 }", options=CompileOptions(physics_step_ms=3))


@pytest.mark.parametrize(("system", "axis"), [("ENU", 2), ("NUE", 1), ("EUN", 1)])
def test_gravity_along_minus_up(system: str, axis: int) -> None:
    c = compiled_of("", info=f'WorldInfo {{ coordinateSystem "{system}" gravity 3.7 }}')
    np.testing.assert_allclose(c.model.opt.gravity, -3.7 * np.eye(3)[axis])


def test_sleep_follows_physics_disable_time() -> None:
    assert not compiled_of("", info="WorldInfo { physicsDisableTime 0 }").model.opt.enableflags & \
        mujoco.mjtEnableBit.mjENBL_SLEEP
    c = compiled_of("", info="WorldInfo { basicTimeStep 8 physicsDisableTime 0.5 }")
    assert c.model.opt.enableflags & mujoco.mjtEnableBit.mjENBL_SLEEP
    assert c.model.opt.sleep_tolerance == pytest.approx(sleep_tolerance(0.01, 0.01, 0.5, 0.004))


def test_sleep_tolerance_scales_with_idle_windows() -> None:
    # MuJoCo sleeps after mjMINAWAKE steps; Webots after physicsDisableTime seconds.
    window = mujoco.mjMINAWAKE * 0.004
    assert sleep_tolerance(0.01, 0.02, 1.0, 0.004) == pytest.approx(0.01 * window)
    assert sleep_tolerance(0.05, 0.01, window / 2, 0.004) == pytest.approx(0.01)  # never above the threshold


def test_default_damping_and_physics_damping() -> None:
    text = """DEF A Solid { physics Physics { density -1 mass 2 } boundingObject Sphere { radius 0.1 } }
              DEF B Solid { translation 1 0 0 physics Physics { density -1 mass 2 damping Damping { linear 0.5 angular 0.1 } }
                            boundingObject Sphere { radius 0.1 } }
              DEF C Solid { translation 2 0 0 physics Physics { density -1 mass 2 } boundingObject Sphere { radius 0.1 } }"""
    c = compiled_of(text, info="WorldInfo { defaultDamping Damping { linear 0.2 angular 0.3 } }")
    model = c.model
    for name, linear, angular in (("A", 0.2, 0.3), ("B", 0.5, 0.1), ("C", 0.2, 0.3)):
        # Velocity actuators on the body's centre-of-mass site (compile/damping.py): kv = k m, then k I.
        body = solid(c, name).body_id
        rows = [a for a in range(model.nu) if model.site_bodyid[model.actuator_trnid[a, 0]] == body]
        gains = sorted(float(model.actuator_gainprm[a, 0]) for a in rows)
        inertia_diag = 0.4 * 2 * 0.01
        np.testing.assert_allclose(gains, sorted([-math.log(1 - linear) * 2.0] * 3 + [-math.log(1 - angular) * inertia_diag] * 3))
    assert not model.dof_damping.any()
    c = compiled_of(text.replace(" damping Damping { linear 0.5 angular 0.1 }", ""))
    assert c.model.nu == 0


# --- located compile errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("body", "needle", "message"), [
    ("Solid {\n  physics Physics { density -1 mass -1 }\n  boundingObject Box { }\n}", "Physics", "Either the 'mass'"),
    ("Solid {\n  physics Physics { density -1 mass 1 centerOfMass [ 0 0 0, 1 1 1 ] }\n  boundingObject Box { }\n}",
     "centerOfMass", "'centerOfMass' must have exactly 0 or 1 line"),
    ("Solid {\n  physics Physics { density -1 mass 1 inertiaMatrix [ 1 1 1 ] }\n}", "inertiaMatrix",
     "'inertiaMatrix' must have exactly 0 or 2 lines"),
    ("Solid {\n  physics Physics { inertiaMatrix [ 1 1 1, 0 0 0 ] }\n}", "inertiaMatrix", "requires 'mass'"),
    ("Solid {\n  physics Physics { density -1 mass 1 inertiaMatrix [ 1 1 1, 2 0 0 ] }\n}", "inertiaMatrix",
     "positive definite"),
    ("Solid {\n  physics Physics { }\n  boundingObject Plane { }\n}", "Plane", "Plane"),
    ("Solid {\n  boundingObject Transform { scale 2 2 2 children [ Shape { geometry Box { } } ] }\n}", "scale",
     "scale"),
    ("Transform {\n  scale 2 2 2\n  children [ Solid { } ]\n}", "scale", "cannot contain Solid"),
    ("Solid {\n  physics Physics { }\n  children [ HingeJoint { endPoint Solid { name \"k\" boundingObject Box { } } } ]"
     "\n}", "Solid { name", "cannot have a boundingObject"),
    ("Solid {\n  children [ HingeJoint {\n    jointParameters HingeJointParameters { axis 0 0 0 }\n"
     "    endPoint Solid { physics Physics { } boundingObject Box { } } } ]\n}", "axis", "axis must not be zero"),
    ("Robot {\n  children [ HingeJoint {\n    device [ RotationalMotor { } RotationalMotor { name \"m2\" } ]\n"
     "    endPoint Solid { physics Physics { } boundingObject Box { } } } ]\n}", "RotationalMotor { name",
     "only one motor"),
    ("Robot {\n  children [ HingeJoint {\n    device [ PositionSensor { } PositionSensor { name \"p2\" } ]\n"
     "    endPoint Solid { physics Physics { } boundingObject Box { } } } ]\n}", "PositionSensor { name",
     "only one PositionSensor"),
])
def test_compile_errors_are_located(body: str, needle: str, message: str) -> None:
    text, errors = compile_errors(body)
    assert len(errors) == 1, errors
    (error,) = errors
    assert message in error.message
    assert error.location is not None and error.location.file == FILE
    assert (error.location.line, error.location.column) == location_of(text, needle)
    assert error.node_path
    assert str(error).startswith(f"{FILE}:{error.location.line}:{error.location.column}: ")
    assert f"[in {error.node_path}]" in str(error)


def test_every_error_is_reported_at_once() -> None:
    body = ("Solid {\n  physics Physics { density -1 mass -1 }\n}\n"
            "Solid {\n  physics Physics { }\n  boundingObject Plane { }\n}\n")
    _, errors = compile_errors(body)
    assert len(errors) == 2
    assert [e.location.line for e in errors if e.location] == [4, 8]


def test_joint_without_parameters_takes_its_hidden_position(tmp_path) -> None:
    """Webots saves the position of a joint without jointParameters in the joint's hidden 'position' field."""
    from wbsim.world.loader import load_world_model_from_string

    world = load_world_model_from_string("""#VRML_SIM R2023b utf8
Robot { children [ HingeJoint { position 0.4 endPoint Solid { rotation 1 0 0 0.4 physics Physics {}
                                boundingObject Box { size 0.1 0.1 0.1 } } } ] }""", project_dir=tmp_path)
    compiled = compile_world(world)
    joint = compiled.bindings.joints[0]
    assert joint.initial_position == 0.4
    assert compiled.model.qpos0[joint.qpos_adr] == 0.4


def test_zero_density_is_reset_to_1000_with_a_warning(tmp_path) -> None:
    from wbsim.world.loader import load_world_model_from_string

    world = load_world_model_from_string("""#VRML_SIM R2023b utf8
DEF B Solid { physics Physics { density 0 } boundingObject Box { size 0.1 0.1 0.1 } }""", project_dir=tmp_path)
    compiled = compile_world(world)
    assert compiled.model.body_mass[compiled.bindings.solids[0].body_id] == pytest.approx(1.0)
    assert any("reset to 1000" in str(w) for w in compiled.warnings)


def test_deep_chains_compile(tmp_path) -> None:
    """A 400-link hinge chain nests far deeper than Python's default recursion limit allows."""
    from wbsim.world.loader import load_world_model_from_string

    chain = "Solid { physics Physics {} boundingObject Sphere { radius 0.01 } }"
    for _ in range(400):
        chain = ("Solid { physics Physics {} boundingObject Sphere { radius 0.01 } children [ HingeJoint { "
                 f"endPoint {chain} }} ] }}")
    world = load_world_model_from_string("#VRML_SIM R2023b utf8\n" + chain, project_dir=tmp_path)
    assert compile_world(world).model.njnt == 401


# --- frame-only Solids (BodyPlan.frame_only): a site on the enclosing body -----------------------------------

BUMPER = ("boundingObject Group { children [ Box { size 0.02 0.03 0.04 } "
          "Pose { translation 0 0.05 0 rotation 0 1 0 0.5 children [ Sphere { radius 0.01 } ] } ] }")
SENSOR_POSE = ((0.1, 0.02, -0.03), (0.0, 0.0, 1.0, 0.3))
INNER_POSE = ((0.05, 0.0, 0.1), (1.0, 0.0, 0.0, 0.7))
HOLDER = ((0.1, 0.2, 0.3), (0.0, 1.0, 0.0, 0.4))


def _pose_fields(pose: tuple[tuple[float, ...], tuple[float, ...]]) -> str:
    return f"translation {' '.join(map(str, pose[0]))} rotation {' '.join(map(str, pose[1]))}"


def _sensor(extra: str = "", children: str = "") -> str:
    return (f'DEF T TouchSensor {{ {_pose_fields(SENSOR_POSE)} name "t" {BUMPER} {extra} '
            f"children [ {children} ] }}")


FRAME_ONLY_WORLDS = {
    # A moving robot; the sensor sits in a rotated Pose.
    "dynamic parent": f"""DEF HOLDER Robot {{ {_pose_fields(HOLDER)} controller "<extern>"
        children [ Pose {{ {_pose_fields(INNER_POSE)} children [ {_sensor()} ] }} ]
        boundingObject Box {{ size 0.1 0.1 0.1 }} physics Physics {{ }} }}""",
    "static parent": f"""DEF HOLDER Solid {{ {_pose_fields(HOLDER)}
        children [ Pose {{ {_pose_fields(INNER_POSE)} children [ {_sensor()} ] }} ]
        boundingObject Box {{ size 0.1 0.1 0.1 }} }}""",
    # Top level, under two Poses: the enclosing body is the world.
    "top-level static": f"""Pose {{ {_pose_fields(HOLDER)} children [
        Pose {{ {_pose_fields(INNER_POSE)} children [ {_sensor()} ] }} ] }}""",
}


def _plain_plan(self, node, request):  # noqa: ANN001, ANN202
    from wbsim.devices.kind import BodyPlan

    return BodyPlan(allow_no_physics_in_dynamic_parent=True)


def _frame_only_plan(self, node, request):  # noqa: ANN001, ANN202
    from wbsim.devices.kind import BodyPlan

    return BodyPlan(frame_only=True, allow_no_physics_in_dynamic_parent=True)


def compile_both(monkeypatch: pytest.MonkeyPatch, body: str):  # noqa: ANN201
    """The world compiled with TouchSensors as Solids with their own body, then as frame-only Solids."""
    from wbsim.devices.touch_sensor.compile import TouchSensorCompiler

    built = []
    for plan in (_plain_plan, _frame_only_plan):
        with monkeypatch.context() as patch:
            patch.setattr(TouchSensorCompiler, "plan_body", plan)
            built.append(compiled_of(body))
    return tuple(built)


def world_poses(compiled, def_name: str):  # noqa: ANN001, ANN201
    """World position, rotation matrix and geom poses of a Solid (its site for a frame-only Solid)."""
    model = compiled.model
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    b = solid(compiled, def_name)
    if b.site_id >= 0:
        pos, mat = data.site_xpos[b.site_id].copy(), data.site_xmat[b.site_id].copy()
    else:
        pos, mat = data.xpos[b.body_id].copy(), data.xmat[b.body_id].copy()
    return pos, mat, [(data.geom_xpos[g].copy(), data.geom_xmat[g].copy()) for g in b.geom_ids]


@pytest.mark.parametrize("case", list(FRAME_ONLY_WORLDS))
def test_frame_only_solid_is_a_site_on_the_enclosing_body(monkeypatch, case) -> None:
    plain, frame_only = compile_both(monkeypatch, FRAME_ONLY_WORLDS[case])
    assert frame_only.model.nbody == plain.model.nbody - 1
    sensor = solid(frame_only, "T")
    enclosing = solid(frame_only, "HOLDER").body_id if case != "top-level static" else 0
    assert sensor.site_id >= 0 and frame_only.model.site_bodyid[sensor.site_id] == enclosing
    assert (sensor.body_id, sensor.owns_body) == (enclosing, False)
    assert sensor.dynamic == (case == "dynamic parent") == plain.bindings.solid(plain.world.find_def("T")).dynamic
    assert len(sensor.geom_ids) == 2 and all(frame_only.model.geom_bodyid[g] == enclosing for g in sensor.geom_ids)
    assert solid(plain, "T").site_id == -1
    pos, mat, geoms = world_poses(frame_only, "T")
    ref_pos, ref_mat, ref_geoms = world_poses(plain, "T")
    np.testing.assert_allclose(pos, ref_pos, atol=1e-12)
    np.testing.assert_allclose(mat, ref_mat, atol=1e-12)
    for (gpos, gmat), (rpos, rmat) in zip(geoms, ref_geoms, strict=True):
        np.testing.assert_allclose(gpos, rpos, atol=1e-12)
        np.testing.assert_allclose(gmat, rmat, atol=1e-12)
    # And the pose is the composition of the file's poses (MuJoCo's own quaternion arithmetic).
    expected_pos, expected_quat = mj_compose(HOLDER, INNER_POSE, SENSOR_POSE)
    np.testing.assert_allclose(pos, expected_pos, atol=1e-12)
    expected_mat = np.zeros(9)
    mujoco.mju_quat2Mat(expected_mat, expected_quat)
    np.testing.assert_allclose(mat, expected_mat, atol=1e-12)


def test_frame_only_solid_geoms_still_collide(monkeypatch) -> None:
    # A free box around the bumper's origin: the contact is between the box and the enclosing (static) body.
    at = " ".join(map(str, mj_compose(HOLDER, INNER_POSE, SENSOR_POSE)[0]))
    text = FRAME_ONLY_WORLDS["static parent"] + f"""
        DEF BOX Solid {{ translation {at} boundingObject Box {{ size 0.05 0.05 0.05 }} physics Physics {{ }} }}"""
    plain, frame_only = compile_both(monkeypatch, text)
    for compiled in (plain, frame_only):
        model = compiled.model
        data = mujoco.MjData(model)
        mujoco.mj_forward(model, data)
        sensor_geoms = set(solid(compiled, "T").geom_ids)
        box_geom = solid(compiled, "BOX").geom_ids[0]
        touching = {frozenset((int(c.geom1), int(c.geom2))) for c in data.contact}
        assert any(frozenset((g, box_geom)) in touching for g in sensor_geoms), compiled is frame_only


@pytest.mark.parametrize(("where", "text"), [
    ("with Physics", "DEF T TouchSensor { physics Physics { } " + BUMPER + " }"),
    ("with a Solid below", f"DEF T TouchSensor {{ {BUMPER} children [ Pose {{ children [ Solid {{ }} ] }} ] }}"),
    ("an endPoint", f"HingeJoint {{ endPoint DEF T TouchSensor {{ {BUMPER} physics Physics {{ }} }} }}"),
    ("a kinematic endPoint", f"HingeJoint {{ endPoint DEF T TouchSensor {{ {BUMPER} }} }}"),
])
def test_frame_only_is_refused_where_a_body_is_needed(monkeypatch, where, text) -> None:
    holder = "" if where == "a kinematic endPoint" else "physics Physics { }"
    body = (f'DEF HOLDER Robot {{ controller "<extern>" children [ {text} ] '
            f"boundingObject Box {{ size 0.1 0.1 0.1 }} {holder} }}")
    plain, frame_only = compile_both(monkeypatch, body)
    sensor = solid(frame_only, "T")
    assert sensor.site_id == -1
    assert sensor.body_id not in (0, solid(frame_only, "HOLDER").body_id)
    assert frame_only.model.nbody == plain.model.nbody


def test_the_robot_binding_of_a_robot_with_a_frame_only_child_is_its_own(monkeypatch) -> None:
    _, compiled = compile_both(monkeypatch, FRAME_ONLY_WORLDS["dynamic parent"])
    robot_node = compiled.world.find_def("HOLDER")
    (robot,) = compiled.bindings.robots
    assert robot.node is robot_node and robot.solid.node is robot_node and robot.solid.site_id == -1
    assert robot.solid is compiled.bindings.solid(robot_node)
    assert [d.node for d in robot.devices] == [compiled.world.find_def("T")]


@pytest.mark.parametrize("allowed", [False, True])
def test_frame_only_solid_keeps_the_no_physics_warning_rule(monkeypatch, allowed) -> None:
    from wbsim.devices.kind import BodyPlan
    from wbsim.devices.touch_sensor.compile import TouchSensorCompiler

    monkeypatch.setattr(TouchSensorCompiler, "plan_body", lambda self, node, request: BodyPlan(
        frame_only=True, allow_no_physics_in_dynamic_parent=allowed))
    compiled = compiled_of(FRAME_ONLY_WORLDS["dynamic parent"])
    assert solid(compiled, "T").site_id >= 0
    warned = [w for w in compiled.warnings if "has no Physics but its parent does" in w.message]
    assert [w.node_path for w in warned] == ([] if allowed else [compiled.world.find_def("T").path])


def test_frame_only_solid_contact_pairs_and_exclusions_match_a_solid_with_its_own_body(monkeypatch) -> None:
    # Frictions other than the built-in surface: MuJoCo's per-geom mix would miss both pairs.
    info = ('WorldInfo { contactProperties [ ContactProperties { material1 "rubber" material2 "floor" '
            'coulombFriction [ 0.3 ] } ContactProperties { material1 "rubber" material2 "rubber" '
            'coulombFriction [ 0.7 ] } ] }')
    text = FRAME_ONLY_WORLDS["dynamic parent"].replace('name "t"', 'name "t" contactMaterial "rubber"').replace(
        "boundingObject Box { size 0.1 0.1 0.1 }", 'boundingObject Box { size 0.1 0.1 0.1 } contactMaterial "rubber"')
    text += """
        DEF FLOOR Solid { contactMaterial "floor" boundingObject Plane { } }
        DEF OTHER Robot { translation 1 0 0 controller "<extern>" contactMaterial "rubber"
          boundingObject Box { size 0.1 0.1 0.1 } physics Physics { } }
        DEF TOP TouchSensor { translation 0 2 0 contactMaterial "rubber" boundingObject Box { size 0.1 0.1 0.1 } }"""
    from wbsim.devices.touch_sensor.compile import TouchSensorCompiler

    built = []
    for plan in (_plain_plan, _frame_only_plan):
        with monkeypatch.context() as patch:
            patch.setattr(TouchSensorCompiler, "plan_body", plan)
            built.append(compiled_of(text, info))
    plain, frame_only = built

    def pairs(compiled) -> set[frozenset[str]]:  # noqa: ANN001
        model = compiled.model
        names = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, g) for g in range(model.ngeom)]
        return {frozenset((names[a], names[b])) for a, b in zip(model.pair_geom1, model.pair_geom2, strict=True)}

    # Element names come from one counter, and a site takes the name a body would have: geom names match.
    # The 3 rubber geoms of HOLDER (robot and sensor) with FLOOR, OTHER with FLOOR, and TOP (a frame-only
    # Solid on the world body, static, rubber) with the 4 moving rubber geoms; HOLDER and OTHER are two moving
    # objects (per-geom mix, no pairs), HOLDER's own geoms do not self-collide.
    assert solid(frame_only, "TOP").body_id == 0
    assert pairs(frame_only) == pairs(plain) and len(pairs(plain)) == 8
    # MuJoCo never collides geoms of one body: the robot's exclusion with its sensor's body is not needed.
    assert frame_only.model.nexclude == plain.model.nexclude - 1


# --- robustness (issue 15): Webots' stop rules, huge values, MuJoCo's errors located ------------------------


def test_min_stop_above_max_stop_has_no_effect_with_a_warning() -> None:
    text = """Solid { children [ HingeJoint { jointParameters HingeJointParameters { minStop 1 maxStop -1 }
        endPoint Solid { physics Physics { } boundingObject Sphere { radius 0.1 } } } ] }"""
    c = compiled_of(text)
    assert not c.model.jnt_limited[joint(c).joint_id]
    (warning,) = [w for w in c.warnings if "no effect" in w.message]
    full = HEADER + "WorldInfo { }\n" + text
    assert (warning.location.line, warning.location.column) == location_of(full, "minStop")
    assert warning.node_path.endswith("HingeJoint > jointParameters > HingeJointParameters")


@pytest.mark.parametrize(("position", "expected"), [
    (0.5, []),
    (-0.7, ["'minStop' must be less than or equal to 'position'."]),
    (1.2, ["'maxStop' must be greater than or equal to 'position'."]),
])
def test_initial_position_outside_the_stops_warns_as_webots(position: float, expected: list[str]) -> None:
    text = f"""Solid {{ children [ SliderJoint {{ jointParameters JointParameters {{ position {position}
        minStop -0.5 maxStop 1 }} endPoint Solid {{ physics Physics {{ }} boundingObject Sphere {{ radius 0.1 }} }} }} ] }}"""
    c = compiled_of(text)
    found = [w for w in c.warnings if "Stop' must be" in w.message]
    assert [w.message for w in found] == expected
    full = HEADER + "WorldInfo { }\n" + text
    for w in found:
        field_name = "minStop" if "minStop" in w.message else "maxStop"
        assert (w.location.line, w.location.column) == location_of(full, field_name)


@pytest.mark.parametrize("axis", ["0 0 1e300", "0 0 1e-310", "0 0 -3e200"])
def test_extreme_axis_magnitudes_are_normalised_as_ode_does(axis: str) -> None:
    c = compiled_of(f"""Solid {{ children [ HingeJoint {{ jointParameters HingeJointParameters {{ axis {axis} }}
        endPoint Solid {{ physics Physics {{ }} boundingObject Sphere {{ radius 0.1 }} }} }} ] }}""")
    sign = -1.0 if axis.split()[2].startswith("-") else 1.0
    np.testing.assert_allclose(c.model.jnt_axis[joint(c).joint_id], [0.0, 0.0, sign])


def test_overflowing_mass_properties_are_a_located_error() -> None:
    # The checker refuses such densities in files (its limits); a model changed after the check (the values
    # a program sets) still gets a located compile error, not a numpy exception.
    body = "Solid { boundingObject Box { size 1e9 1e9 1e9 } physics Physics { density 1e12 } }"
    model = world(body)
    physics = next(n for n in model.walk() if n.type_name == "Physics")
    physics.fields["density"] = 1e300
    with pytest.raises(WorldLoadError) as raised:
        with np.errstate(over="ignore"):
            compile_world(model)
    (error,) = raised.value.errors
    assert "overflow" in error.message and error.node_path == "Solid > physics > Physics"
    assert (error.location.line, error.location.column) == location_of(HEADER + "WorldInfo { }\n" + body, "Physics {")


def test_mujoco_errors_name_the_node_not_the_element() -> None:
    # A chain of 1100 links passes wbsim's nesting limit but exceeds MuJoCo's body depth (about 1000).
    n = 1030
    chain = "".join(f'HingeJoint {{ endPoint Solid {{ name "l{i}" physics Physics {{ }} '
                    "boundingObject Sphere { radius 0.01 } children [\n" for i in range(n))
    text, errors = compile_errors("Solid { children [\n" + chain + "] } }" * n + "\n] }")
    (error,) = errors
    assert "depth limit exceeded" in error.message
    assert "Element name" not in error.message and "'b" not in error.message
    assert error.location is not None and error.location.file == FILE
    line = error.location.line
    name = text.splitlines()[line - 1].split('name "')[1].split('"')[0]
    assert error.node_path.endswith(f'Solid "{name}"')


def test_mujoco_error_messages_are_mapped_to_joints_and_geoms() -> None:
    from wbsim.compile.builder import _Builder

    model = world("""DEF S Solid { children [ HingeJoint { endPoint DEF E Solid { physics Physics { }
        boundingObject DEF G Sphere { radius 0.1 } } } ] }""")
    builder = _Builder(model, CompileOptions())
    builder.build()
    joint_name = builder.joints[0].joint_name
    geom_name = next(iter(builder._geom_descriptions))
    error = builder.located_mujoco_error(f"Error: axis too small in joint\nElement name '{joint_name}', id 0")
    assert error.message == "MuJoCo rejected the element made from this node: axis too small in joint"
    assert error.node_path == "DEF S Solid > children[0] > HingeJoint"
    error = builder.located_mujoco_error(f"Error: size too small\nElement name '{geom_name}', id 3")
    assert error.node_path.endswith("boundingObject > DEF G Sphere")
    error = builder.located_mujoco_error("Error: something global")
    assert error.location is None and "something global" in error.message


@pytest.mark.parametrize(("count", "inside"), [(3000, ""), (2000, "boundingObject Box { size 0.5 0.5 0.5 }")],
                         ids=["3000 empty Solids", "2000 static boxes"])
def test_thousands_of_solids_get_an_arena_that_fits(monkeypatch, count, inside) -> None:
    # MuJoCo's default arena does not grow with the body count; its collision pass needs a body-pair table.
    # It is sized before the one compilation (a second one doubled the load time of large worlds). The issue's
    # two reproductions: empty Solids, and static Solids with a Box each (geoms in the collision pass).
    compiles = []
    original = mujoco.MjSpec.compile
    monkeypatch.setattr(mujoco.MjSpec, "compile", lambda spec, *a: (compiles.append(1), original(spec, *a))[1])
    body = "\n".join(f'Solid {{ translation {i} 0 0 name "s{i}" {inside} }}' for i in range(count))
    c = compiled_of(body)
    assert len(compiles) == 1
    data = mujoco.MjData(c.model)
    mujoco.mj_forward(c.model, data)
    mujoco.mj_step(c.model, data)
    assert c.model.narena >= 8 * c.model.nbody**2


ARENA_WORLDS = [
    "Solid { }",
    'Robot { physics Physics { } boundingObject Box { size 0.1 0.1 0.1 } children [ HingeJoint { device [ '
    'RotationalMotor { } ] endPoint Solid { physics Physics { } boundingObject Sphere { radius 0.05 } } } ] }',
    "\n".join(f'DEF S{i} Solid {{ translation {i} 0 1 name "s{i}" physics Physics {{ }} '
              f'boundingObject Box {{ size 0.1 0.1 0.1 }} }}' for i in range(120)),
]


@pytest.mark.parametrize("body", ARENA_WORLDS, ids=["static", "robot", "120 free boxes"])
def test_the_arena_estimate_from_counts_is_mujocos_own(body) -> None:
    # The estimate made before compiling must equal the arena MuJoCo's compiler sizes by itself.
    from wbsim.compile.builder import _counts, automatic_arena_bytes, compile_spec

    spec = compiled_of(body).spec
    assert spec.memory == -1  # small worlds keep MuJoCo's own arena
    assert automatic_arena_bytes(_counts(spec), spec.njmax, spec.nconmax) == compile_spec(spec).narena


def test_top_level_groups_compile_to_the_model_of_one_spec(monkeypatch) -> None:
    # Building top-level nodes in attached groups (a cost matter) must not change the model: same elements,
    # in the same order, with the same values, including what device compilers add after the tree walk.
    from wbsim.compile import builder as builder_module

    rover = (
        'Robot {{ translation {x} 0 0.05 name "r{i}" physics Physics {{ }} boundingObject Box {{ size 0.2 0.1 0.05 }} '
        "children [ HingeJoint { jointParameters HingeJointParameters { axis 0 1 0 } "
        "device [ RotationalMotor { } PositionSensor { } ] endPoint Solid { translation 0 0.07 0 "
        "physics Physics { } boundingObject Cylinder { radius 0.03 height 0.01 } } } "
        'TouchSensor { name "bumper" boundingObject Box { size 0.01 0.1 0.05 } } ] }'
    )
    body = "Solid { boundingObject Plane { } }\n" + "\n".join(
        rover.replace("{{", "{").replace("}}", "}").replace("{x}", str(0.5 * i)).replace("{i}", str(i))
        for i in range(10))
    # The default size (3 nodes: 4 groups) and 1 node (11 groups, an odd count): the groups are attached to
    # each other pairwise over several rounds before the main spec receives them.
    models = [compiled_of(body).model]
    monkeypatch.setattr(builder_module, "_group_size", lambda n: 1)
    models.append(compiled_of(body).model)
    monkeypatch.setattr(builder_module, "_group_size", lambda n: max(1, n))
    single = compiled_of(body).model
    for grouped in models:
        assert grouped.nbody == single.nbody == 1 + 1 + 10 * 4
        assert bytes(grouped.names) == bytes(single.names)
        for name in ("body_parentid", "body_pos", "body_quat", "body_mass", "body_inertia", "geom_bodyid", "geom_size",
                     "jnt_bodyid", "dof_M0", "dof_armature", "dof_invweight0", "body_invweight0", "actuator_trnid",
                     "tendon_num", "sensor_objid"):
            np.testing.assert_array_equal(getattr(grouped, name), getattr(single, name), err_msg=name)


def test_element_counts_taken_before_attaching_are_the_models(monkeypatch) -> None:
    # The arena is sized from counts summed over the groups before they are attached; they must be the model's.
    from wbsim.compile import builder as builder_module

    body = "\n".join(f'Robot {{ translation {i} 0 0 name "r{i}" physics Physics {{ }} boundingObject Box {{ size 0.1 '
                     "0.1 0.1 } children [ HingeJoint { device [ RotationalMotor { } ] endPoint Solid { physics "
                     "Physics { } boundingObject Sphere { radius 0.02 } } } ] }" for i in range(9))
    seen = []
    original = builder_module.compile_spec

    def spy(spec, counts=None):  # noqa: ANN001, ANN202
        seen.append(counts)
        return original(spec, counts)

    monkeypatch.setattr(builder_module, "compile_spec", spy)
    model = compiled_of(body).model
    (counts,) = seen
    names = ("nbody", "nq", "nv", "njnt", "ngeom", "nsite", "nu", "ntendon", "nwrap", "neq")
    assert [counts[n] for n in names] == [getattr(model, n) for n in names]


def test_a_compilation_leaves_no_builder_or_walk_closure_to_the_cyclic_collector():
    # compile_world and load_world pause the collector (wbsim.collector): what a load drops is freed by
    # reference counting only if it holds no reference cycle. The builder and its context (which keeps the
    # name function) and the boundingObject walk did.
    import gc

    checked = world('Robot { children [ Solid { name "s" physics Physics { } boundingObject Pose { '
                    'children [ Box { size 0.1 0.1 0.1 } ] } } ] physics Physics { } '
                    'boundingObject Sphere { radius 0.1 } }')
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        compile_world(checked)
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        kinds = {type(o).__name__ for o in gc.garbage}
        functions = {o.__qualname__ for o in gc.garbage if type(o).__name__ == "function"}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()
    assert not kinds & {"_Builder", "CompileContext", "MotorCompiler", "GeomDescription"}
    assert not functions
