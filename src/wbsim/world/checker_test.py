"""Tests of the checker: schemas applied to parsed worlds (errors, warnings, sanitising, DEF/USE, placement)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbsim.errors import SourceLocation, WorldError, WorldLoadError, WorldSchemaError, WorldSyntaxError
from wbsim.world.checker import Checker, ProtoScope
from wbsim.world.loader import load_world_model_from_string
from wbsim.world.model import WbNode, WorldModel
from wbsim.world.parser import parse_proto, parse_world
from wbsim.world.syntax import ProtoSyntax

H = "#VRML_SIM R2023b utf8\n"
F = "w.wbt"


def load(body: str) -> WorldModel:
    return load_world_model_from_string(H + body, F)


def errors(body: str) -> list[WorldError]:
    with pytest.raises(WorldLoadError) as info:
        load(body)
    assert info.value.errors
    return info.value.errors


def one_error(body: str) -> WorldError:
    (error,) = errors(body)
    assert isinstance(error, WorldSchemaError)
    return error


def loc(line: int, column: int, file: str = F) -> SourceLocation:
    return SourceLocation(file, line, column)


def listed(*names: str, children: bool = True) -> str:
    """How the checker lists ``names`` plus every registered Solid-derived device node type (fields taking
    Solids accept them) and, for ``children`` fields and the world, the non-Solid child devices (Propeller), up to
    the last of ``names`` in its sorted order: what such a list starts with, so the tests do not change whenever a
    device kind is added."""
    from wbsim.devices.registry import device_kinds

    placements = ("solid", "child") if children else ("solid",)
    devices = {t for kind in device_kinds() if kind.placement in placements for t in kind.node_types}
    ordered = sorted(set(names) | devices)
    return ", ".join(ordered[: ordered.index(max(names)) + 1])


CHILDREN = ("BallJoint", "DirectionalLight", "Group", "Hinge2Joint", "HingeJoint", "PointLight", "Pose", "Robot",
            "Shape", "SliderJoint", "Solid", "SpotLight", "Transform")
"""The non-device nodes a ``children`` field accepts."""


def top(model: WorldModel, i: int = 0) -> WbNode:
    return model.nodes[i]


# -- unknown nodes and fields -------------------------------------------------------------------------------


def test_unknown_node_lists_valid_nodes_and_suggests() -> None:
    error = one_error("Robot {\n  name \"rover\"\n  children [ Soild { } ]\n}")
    assert error.location == loc(4, 14)
    assert error.node_path == 'Robot "rover" > children[0]'
    assert error.message.startswith("Unknown node or PROTO 'Soild'. Did you mean 'Solid'?")
    assert f"Valid nodes in field 'children' of Robot: {listed(*CHILDREN)}" in error.message
    assert error.message.endswith(" (or a PROTO declared with EXTERNPROTO).")
    assert "Connector, DirectionalLight, Display, DistanceSensor" in error.message and "TouchSensor, Track, Transform" in error.message


def test_unknown_top_level_node() -> None:
    error = one_error("WorldInf { }")
    assert error.location == loc(2, 1)
    assert error.node_path == "top-level node [0]"
    assert "Did you mean 'WorldInfo'?" in error.message
    assert "Valid nodes in the world:" in error.message and "WorldInfo" in error.message
    assert "Charger" not in error.message  # unsupported nodes are not offered


def test_unknown_field_lists_valid_fields_and_suggests() -> None:
    error = one_error('Robot { name "r" children [ HingeJoint {\n  endPoint Solid {\n    translaton 0 0 1 } } ] }')
    assert error.location == loc(4, 5)
    assert error.node_path == 'Robot "r" > children[0] > HingeJoint > endPoint > Solid'
    assert error.message.startswith("Unknown field 'translaton' in Solid. Did you mean 'translation' or 'translationStep'?")
    assert "Valid fields: translation, rotation, children," in error.message
    assert "boundingObject, physics" in error.message


def test_unknown_field_without_close_match_has_no_suggestion() -> None:
    error = one_error("Shape { geometry Box { zzz 1 } }")
    assert "Did you mean" not in error.message
    assert error.message == "Unknown field 'zzz' in Box. Valid fields: size."


def test_unknown_field_of_visual_node_is_a_warning() -> None:
    model = load("Viewpoint { positon 1 2 3 }")
    (warning,) = model.warnings
    assert warning.location == loc(2, 13)
    assert "Unknown field 'positon' in Viewpoint. Did you mean 'position'?" in warning.message
    assert warning.message.endswith("Ignored (visual-only node).")
    assert top(model)["position"] == (0.0, 0.0, 10.0)


def test_duplicate_field() -> None:
    error = one_error('Solid {\n  name "a" name "b"\n}')
    assert error.message == "Field 'name' is given twice in Solid."
    assert error.location == loc(3, 12)


# -- wrong types -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "line", "column", "message", "path"),
    [
        ("Solid { translation 1 2 }", 2, 21,
         "Invalid value for field 'translation' of Solid (SFVec3f): expected 3 numbers, found 2 value(s).",
         "Solid > translation"),
        ("Solid { name 5 }", 2, 14,
         "Invalid value for field 'name' of Solid (SFString): expected a string in double quotes.", "Solid > name"),
        ("Robot { supervisor 1 }", 2, 20,
         "Invalid value for field 'supervisor' of Robot (SFBool): expected TRUE or FALSE.", "Robot > supervisor"),
        ('Shape { geometry Sphere { subdivision 1.5 } }', 2, 39,
         "Invalid value for field 'subdivision' of Sphere (SFInt32): expected an integer, found 1.5.",
         "Shape > geometry > Sphere > subdivision"),
        ("Solid { translation 1 \"2\" 3 }", 2, 23,
         "Invalid value for field 'translation' of Solid (SFVec3f): expected 3 numbers.", "Solid > translation"),
        ("Solid { translation [ 1 2 3 ] }", 2, 21,
         "Invalid value for field 'translation' of Solid (SFVec3f): '[ ]' is only for MF fields; expected 3 numbers.",
         "Solid > translation"),
        ("Robot { controllerArgs \"a\" \"b\" }", 2, 24,
         "Invalid value for field 'controllerArgs' of Robot (MFString): several values of an MF field must be "
         "written inside [ ].", "Robot > controllerArgs"),
        ("Solid { translation Box { } }", 2, 21,
         "Expected 3 numbers for field 'translation' of Solid, found a node.", "Solid > translation"),
        ("Solid { boundingObject 1 }", 2, 24,
         "Expected a node in field 'boundingObject' of Solid, found a literal 1.0.", "Solid > boundingObject"),
        ("Solid { physics [ Physics { } ] }", 2, 17,
         "Expected a single node, USE or NULL for field 'physics' of Solid.", "Solid > physics"),
        ("Solid { children [ NULL ] }", 2, 20,
         "NULL is not allowed in the list of field 'children' of Solid.", "Solid > children[0]"),
        ("Pose { rotation 0 0 0 1 }", 2, 17,
         "Invalid value for field 'rotation' of Pose (SFRotation): rotation axis is zero but the angle is not.",
         "Pose > rotation"),
        ("Shape { geometry IndexedFaceSet { coordIndex [ 0 1 2.5 -1 ] } }", 2, 52,
         "Invalid value for field 'coordIndex' of IndexedFaceSet (MFInt32): expected an integer, found 2.5.",
         "Shape > geometry > IndexedFaceSet > coordIndex"),
    ],
)
def test_wrong_type(body: str, line: int, column: int, message: str, path: str) -> None:
    error = one_error(body)
    assert error.message == message
    assert error.location == loc(line, column)
    assert error.node_path == path


# -- values and ranges -----------------------------------------------------------------------------------------


def test_value_out_of_range() -> None:
    error = one_error('Robot { name "rover" children [ Solid { } Pose { } HingeJoint { endPoint Solid {\n'
                      "  boundingObject Box { size 1 -2 1 } } } ] }")
    assert error.message == "Value -2 out of range for field 'size' of Box: must be in (0, inf)."
    assert error.location == loc(3, 29)
    assert error.node_path == 'Robot "rover" > children[2] > HingeJoint > endPoint > Solid > boundingObject > Box > size'


@pytest.mark.parametrize(
    ("body", "shown", "bounds"),
    [
        ("Solid { physics Physics { mass 0 } }", "0", "{-1, (0, inf)}"),
        ("Solid { physics Physics { density -3 } }", "-3", "{-1, [0, inf)}"),
        ("Solid { physics Physics { damping Damping { linear 1.5 } } }", "1.5", "[0, 1]"),
        ("WorldInfo { physicsDisableTime -1 }", "-1", "[0, inf)"),
        ("WorldInfo { contactProperties ContactProperties { coulombFriction [ 1 -2 ] } }", "-2", "{-1, [0, inf)}"),
        ("HingeJoint { device RotationalMotor { maxTorque -1 } }", "-1", "[0, inf)"),
    ],
)
def test_more_ranges(body: str, shown: str, bounds: str) -> None:
    error = one_error(body)
    assert error.message.startswith(f"Value {shown} out of range for field")
    assert error.message.endswith(f"must be in {bounds}.")


def test_values_are_converted_and_defaults_filled() -> None:
    model = load("Pose { translation 1 2 3 rotation 0 0 2 1.5 children [ Shape { geometry Box { size 1 2 3 } } ] }")
    pose = top(model)
    assert pose["translation"] == (1.0, 2.0, 3.0)
    assert pose["rotation"] == (0.0, 0.0, 1.0, 1.5)  # normalised axis
    assert pose["translationStep"] == 0.01
    assert pose.given == {"translation", "rotation", "children"}
    (shape,) = pose["children"]  # type: ignore[misc]
    assert isinstance(shape, WbNode) and shape.type_name == "Shape"
    assert shape["appearance"] is None and shape["castShadows"] is True
    box = shape["geometry"]
    assert isinstance(box, WbNode) and box["size"] == (1.0, 2.0, 3.0)
    assert box.parent is shape and box.parent_field == "geometry" and box.index is None
    assert shape.parent is pose and shape.parent_field == "children" and shape.index == 0
    assert pose.parent is None
    assert box.path == "Pose > children[0] > Shape > geometry > Box"
    assert pose.field_locations["rotation"] == loc(2, 26)
    assert pose.location_of("translationStep") == pose.location == loc(2, 1)


def test_mf_bare_single_values_in_a_world() -> None:
    model = load(
        "WorldInfo { info \"one\" contactProperties ContactProperties { coulombFriction 0.5 } }\n"
        "Robot { controllerArgs \"--x\" battery 3 children Solid { } recognitionColors 1 0 0 }\n"
        "Shape { geometry IndexedFaceSet { coord Coordinate { point 1 2 3 } coordIndex 0 } }"
    )
    info, robot, shape = model.nodes
    assert info["info"] == ("one",)
    (cp,) = info["contactProperties"]  # type: ignore[misc]
    assert cp["coulombFriction"] == (0.5,)
    assert robot["controllerArgs"] == ("--x",)
    assert robot["battery"] == (3.0,)
    assert robot["recognitionColors"] == ((1.0, 0.0, 0.0),)
    (child,) = robot["children"]  # type: ignore[misc]
    assert child.type_name == "Solid"
    ifs = shape["geometry"]
    assert isinstance(ifs, WbNode)
    assert ifs["coordIndex"] == (0,)
    assert ifs["coord"]["point"] == ((1.0, 2.0, 3.0),)  # type: ignore[index]


def test_sfint32_values_are_ints() -> None:
    model = load("WorldInfo { randomSeed 7 optimalThreadCount 4 }")
    assert top(model)["randomSeed"] == 7 and type(top(model)["randomSeed"]) is int


def test_choices() -> None:
    error = one_error('WorldInfo {\n  coordinateSystem "XYZ" }')
    assert error.message == (
        "Invalid value 'XYZ' for field 'coordinateSystem' of WorldInfo: expected one of 'ENU', 'NUE', 'EUN'."
    )
    assert error.location == loc(3, 20)
    assert error.node_path == "WorldInfo > coordinateSystem"
    for system in ("ENU", "NUE", "EUN"):
        assert load(f'WorldInfo {{ coordinateSystem "{system}" }}').world_info["coordinateSystem"] == system


# -- sanitising ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "written", "result", "bounds"),
    [
        ("basicTimeStep", "0", 32.0, "(0, inf)"),
        ("basicTimeStep", "-8", 32.0, "(0, inf)"),
        ("FPS", "0", 60.0, "(0, inf)"),
        ("CFM", "0", 1e-5, "(0, inf)"),
        ("CFM", "-1", 1e-5, "(0, inf)"),
        ("ERP", "1.5", 0.2, "[0, 1]"),
        ("ERP", "-0.1", 0.2, "[0, 1]"),
        ("randomSeed", "-5", 0, "{-1, [0, inf)}"),
    ],
)
def test_worldinfo_sanitising(field: str, written: str, result: object, bounds: str) -> None:
    model = load(f"WorldInfo {{\n  {field} {written}\n}}")
    info = model.world_info
    assert info[field] == result and type(info[field]) is type(result)
    (warning,) = [w for w in model.warnings if "has no effect" not in w.message]  # ERP/CFM: see below
    assert warning.location == loc(3, 4 + len(field))
    assert warning.node_path == f"WorldInfo > {field}"
    assert warning.message == (
        f"Invalid value {float(written):g} for field '{field}' of WorldInfo: must be in {bounds}; "
        f"using {result!r} as Webots does."
    )
    assert field in info.given


@pytest.mark.parametrize(
    ("field", "value"),
    [("basicTimeStep", 0.5), ("ERP", 0.0), ("ERP", 1.0), ("CFM", 1e-9), ("randomSeed", -1), ("randomSeed", 0),
     ("FPS", 1.0)],
)
def test_worldinfo_values_kept_when_valid(field: str, value: float) -> None:
    model = load(f"WorldInfo {{ {field} {value} }}")
    assert model.world_info[field] == value
    assert [w for w in model.warnings if "has no effect" not in w.message] == []


def test_all_sanitising_warnings_are_recorded_in_order() -> None:
    model = load("WorldInfo { basicTimeStep 0 ERP 2 CFM 0 randomSeed -5 FPS 0 }")
    sanitised = [w for w in model.warnings if "has no effect" not in w.message]
    assert [w.node_path.split(" > ")[1] for w in sanitised] == ["basicTimeStep", "ERP", "CFM", "randomSeed", "FPS"]
    info = model.world_info
    assert (info["basicTimeStep"], info["ERP"], info["CFM"], info["randomSeed"], info["FPS"]) == (32.0, 0.2, 1e-5, 0, 60.0)


def test_sanitising_and_errors_together() -> None:
    errs = errors("WorldInfo { basicTimeStep 0 coordinateSystem \"up\" }")
    assert [e.message.split(" for ")[0] for e in errs] == ["Invalid value 'up'"]


# -- placement ---------------------------------------------------------------------------------------------------------


def test_misplaced_geometry_in_children_lists_valid_nodes() -> None:
    error = one_error("Solid { children [ Box { } ] }")
    assert error.message.startswith(f"A Box node cannot be placed in field 'children' of Solid: expected one of "
                                    f"{listed(*CHILDREN)}")
    assert error.location == loc(2, 20)
    assert error.node_path == "Solid > children[0]"


@pytest.mark.parametrize(
    ("body", "node", "field", "valid"),
    [
        ("Sphere { }", "Sphere", "the world", listed("Background", "BallJoint")),
        ("Solid { boundingObject Solid { } }", "Solid", "field 'boundingObject' of Solid",
         "Box, Capsule, Cylinder, ElevationGrid, Group, IndexedFaceSet, Plane, Pose, Shape, Sphere, Transform"),
        ("HingeJoint { endPoint Box { } }", "Box", "field 'endPoint' of HingeJoint",
         listed("Connector", "DistanceSensor", "Emitter", "LED", "Receiver", "Robot", "Solid", children=False)),
        ("HingeJoint { device [ LinearMotor { } ] }", "LinearMotor", "field 'device' of HingeJoint",
         "Brake, PositionSensor, RotationalMotor"),
        ("SliderJoint { jointParameters HingeJointParameters { } }", "HingeJointParameters",
         "field 'jointParameters' of SliderJoint", "JointParameters"),
        ("Solid { children [ WorldInfo { } ] }", "WorldInfo", "field 'children' of Solid", listed("BallJoint")),
        ("Solid { children [ RotationalMotor { } ] }", "RotationalMotor", "field 'children' of Solid", listed("BallJoint")),
        ("Solid { physics Damping { } }", "Damping", "field 'physics' of Solid", "Physics"),
        ("Shape { geometry Shape { } }", "Shape", "field 'geometry' of Shape", "Box, Capsule, Cylinder"),
    ],
)
def test_misplaced_nodes(body: str, node: str, field: str, valid: str) -> None:
    error = one_error(body)
    assert error.message.startswith(f"A {node} node cannot be placed in {field}: expected one of {valid}")


def test_unsupported_known_nodes_are_skipped_with_a_warning() -> None:
    model = load(
        'Robot { name "r" children [ Charger { name "cam" unknownField 1 } Solid { } ]\n'
        "  boundingObject Mesh { url [ ] } }\nHingeJoint { endPoint Fluid { } }"
    )
    robot, joint = model.nodes
    (child,) = robot["children"]  # type: ignore[misc]
    assert child.type_name == "Solid" and child.index == 0
    assert robot["boundingObject"] is None
    assert joint["endPoint"] is None
    assert [(w.location, w.node_path) for w in model.warnings] == [
        (loc(2, 29), 'Robot "r" > children[0]'),
        (loc(3, 18), 'Robot "r" > boundingObject'),
        (loc(4, 23), "HingeJoint > endPoint"),
    ]
    assert model.warnings[0].message == (
        "Charger nodes are not simulated by wbsim yet; this node and everything inside it are ignored."
    )


def test_unsupported_node_in_a_wrong_place_is_still_an_error() -> None:
    error = one_error("Shape { geometry Charger { } }")
    assert error.message.startswith("A Charger node cannot be placed in field 'geometry' of Shape")


# -- DEF / USE -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "name", "type_name"),
    [
        ("DEF S Solid { }\nSolid { children [ USE S ] }", "S", "Solid"),
        ("DEF R Robot { }\nSolid { children [ USE R ] }", "R", "Robot"),
        ("DEF J HingeJoint { }\nSolid { children [ USE J ] }", "J", "HingeJoint"),
        ("DEF J SliderJoint { }\nSolid { children [ USE J ] }", "J", "SliderJoint"),
        ("DEF J BallJoint { }\nSolid { children [ USE J ] }", "J", "BallJoint"),
        ("HingeJoint { jointParameters DEF P HingeJointParameters { } }\nHingeJoint { jointParameters USE P }", "P",
         "HingeJointParameters"),
        ("SliderJoint { jointParameters DEF P JointParameters { } }\nSliderJoint { jointParameters USE P }", "P",
         "JointParameters"),
        ("BallJoint { jointParameters DEF P BallJointParameters { } }\nBallJoint { jointParameters USE P }", "P",
         "BallJointParameters"),
        ("HingeJoint { endPoint DEF S Solid { } }\nHingeJoint { endPoint USE S }", "S", "Solid"),
    ],
)
def test_use_of_solids_joints_and_joint_parameters_is_an_error(body: str, name: str, type_name: str) -> None:
    error = one_error(body)
    assert error.message.startswith(f"USE {name}: a {type_name} node cannot be USEd;")
    assert error.location is not None and error.location.line == 3
    assert error.location.column == body.split("\n")[1].index("USE") + 1


@pytest.mark.parametrize(
    ("body", "type_name"),
    [
        ("HingeJoint { device [ DEF M RotationalMotor { } ] }\nHingeJoint { device [ USE M ] }", "RotationalMotor"),
        ("SliderJoint { device [ DEF M LinearMotor { } ] }\nSliderJoint { device [ USE M ] }", "LinearMotor"),
        ("HingeJoint { device [ DEF M PositionSensor { } ] }\nHingeJoint { device [ USE M ] }", "PositionSensor"),
    ],
)
def test_use_of_devices_is_an_error(body: str, type_name: str) -> None:
    error = one_error(body)
    assert error.message.startswith(f"USE M: a {type_name} node cannot be USEd;")
    assert error.location == loc(3, body.split("\n")[1].index("USE") + 1)


@pytest.mark.parametrize(
    ("defined", "inner"),
    [
        ("DEF G Group { children [ Shape { } Solid { } ] }", "Solid"),
        ("DEF G Pose { children [ Group { children [ Robot { } ] } ] }", "Robot"),
        ("DEF G Transform { children [ HingeJoint { } ] }", "HingeJoint"),
        ("DEF G Group { children [ Pose { children [ BallJoint { endPoint Solid { } } ] } ] }", "BallJoint"),
    ],
)
def test_use_of_nodes_holding_solids_or_joints_is_an_error(defined: str, inner: str) -> None:
    error = one_error(f"{defined}\nPose {{ children [ USE G ] }}")
    assert error.message.startswith(f"USE G: this {defined.split()[2]} node holds a {inner} node")
    assert error.message.endswith("nodes with a Solid or joint descendant cannot be USEd.")
    assert error.location == loc(3, 19)
    assert error.node_path == "Pose > children[0]"


def test_use_of_groups_of_shapes_is_fine() -> None:
    model = load("DEF G Group { children [ Shape { geometry Box { } } Pose { children [ Shape { } ] } ] }\n"
                 "Solid { boundingObject USE G children [ USE G ] }")
    solid = model.nodes[1]
    assert solid["boundingObject"].type_name == "Group"  # type: ignore[union-attr]
    assert solid["children"][0] is not model.nodes[0]  # type: ignore[index]


def test_use_of_shapes_geometry_physics_and_appearance_makes_separate_copies() -> None:
    model = load(
        "Solid { children [ DEF SH Shape { appearance DEF AP PBRAppearance { roughness 0.5 }\n"
        "  geometry DEF G Box { size 1 2 3 } } ]\n"
        "  boundingObject USE G physics DEF PH Physics { mass 2 density -1 } }\n"
        "Solid { children [ USE SH Shape { appearance USE AP geometry USE G } ] boundingObject USE SH physics USE PH }"
    )
    first, second = model.nodes
    (shape,) = first["children"]  # type: ignore[misc]
    copy, other = second["children"]  # type: ignore[misc]
    box = shape["geometry"]
    assert isinstance(box, WbNode) and box.def_name == "G"
    bo = first["boundingObject"]
    assert isinstance(bo, WbNode) and bo is not box and bo.def_name is None
    assert bo["size"] == box["size"] == (1.0, 2.0, 3.0)
    assert copy is not shape and copy.def_name is None and copy.type_name == "Shape"
    assert copy["geometry"]["size"] == (1.0, 2.0, 3.0)  # type: ignore[index]
    assert copy.path == "Solid > children[0] > Shape"
    assert copy.parent is second
    assert other["appearance"]["roughness"] == 0.5  # type: ignore[index]
    physics = second["physics"]
    assert isinstance(physics, WbNode) and physics is not first["physics"]
    assert physics["mass"] == 2.0 and physics.parent is second
    assert second["boundingObject"].type_name == "Shape"  # type: ignore[union-attr]


def test_closest_preceding_def_wins() -> None:
    model = load(
        "Shape { geometry DEF G Box { } }\nShape { geometry USE G }\nShape { geometry DEF G Sphere { } }\n"
        "Shape { geometry USE G }"
    )
    assert [n["geometry"].type_name for n in model.nodes] == ["Box", "Box", "Sphere", "Sphere"]  # type: ignore[union-attr]


def test_errors_in_a_def_node_are_reported_once_even_if_used_again() -> None:
    error = one_error("Shape { geometry DEF B Box { size -1 1 1 } }\nShape { geometry USE B }\nShape { geometry USE B }")
    assert error.location == loc(2, 35)
    assert error.node_path == "Shape > geometry > DEF B Box > size"


def test_use_of_a_misplaced_node_is_an_error_at_the_use() -> None:
    error = one_error("Shape { geometry DEF B Box { } }\nSolid { children [ USE B ] }")
    assert error.message.startswith("A Box node cannot be placed in field 'children' of Solid")
    assert error.node_path == "Solid > children[0]"


# -- world info, paths, many errors --------------------------------------------------------------------------------


def test_multiple_worldinfo_warns_and_uses_the_first() -> None:
    model = load("WorldInfo { basicTimeStep 8 }\nWorldInfo { basicTimeStep 16 }")
    assert model.world_info is model.nodes[0]
    assert model.world_info["basicTimeStep"] == 8.0
    (warning,) = model.warnings
    assert warning.message == "Only the first WorldInfo node is used; this one is ignored."
    assert warning.location == loc(3, 1)


def test_missing_worldinfo_gives_a_default_one() -> None:
    model = load("Solid { }")
    info = model.world_info
    assert info.type_name == "WorldInfo" and info not in model.nodes
    assert info["basicTimeStep"] == 32.0 and info["coordinateSystem"] == "ENU" and info.given == frozenset()


def test_node_path_labels() -> None:
    model = load(
        'DEF ROVER Robot { name "rover" children [ Solid { } Pose { } DEF ARM HingeJoint { endPoint DEF TIP Solid {\n'
        "  children [ Shape { } ] } } ] }"
    )
    rover = top(model)
    tip = rover["children"][2]["endPoint"]  # type: ignore[index]
    assert isinstance(tip, WbNode)
    assert tip.path == 'Robot "rover" > children[2] > DEF ARM HingeJoint > endPoint > DEF TIP Solid'
    assert tip["children"][0].path == tip.path + " > children[0] > Shape"  # type: ignore[index]
    named = load('Solid { name "a b" }').nodes[0]
    assert named.path == 'Solid "a b"'


def test_all_problems_are_reported_in_file_order() -> None:
    errs = errors(
        "WorldInfo { coordinateSystem \"up\" }\n"
        "Robot { name \"r\" foo 1 children [ Box { } ] }\n"
        "Shape { geometry Sphere { radius -1 } }\n"
        "Unknown { }\n"
        "Solid { translation 1 2 }"
    )
    assert all(isinstance(e, WorldSchemaError) for e in errs)
    assert [e.location.line for e in errs if e.location] == [2, 3, 3, 4, 5, 6]
    assert "'up'" in errs[0].message
    assert "Unknown field 'foo'" in errs[1].message
    assert "cannot be placed" in errs[2].message
    assert "out of range" in errs[3].message
    assert "Unknown node or PROTO 'Unknown'" in errs[4].message
    assert "expected 3 numbers" in errs[5].message


def test_load_error_text_lists_every_problem() -> None:
    with pytest.raises(WorldLoadError) as info:
        load("Box { }\nSphere { }")
    text = str(info.value)
    assert text.startswith("2 problem(s) in world:\n")
    assert "  w.wbt:2:1: A Box node cannot be placed in the world" in text
    assert "  w.wbt:3:1: A Sphere node cannot be placed in the world" in text


def test_syntax_error_stops_before_checking() -> None:
    with pytest.raises(WorldLoadError) as info:
        load("Box { }\nSolid { name \"x }")
    (error,) = info.value.errors
    assert isinstance(error, WorldSyntaxError)
    assert error.location == loc(3, 14)


def test_hidden_fields_written_by_webots_are_accepted() -> None:
    model = load(
        "Solid { linearVelocity 0 0 1 angularVelocity 0 1 0 }\n"
        "HingeJoint { position 0.5 }\nSliderJoint { position 0.1 }\nBallJoint { position 1 position2 2 position3 3 }"
    )
    assert top(model)["linearVelocity"] == (0.0, 0.0, 1.0)
    assert model.nodes[1]["position"] == 0.5
    assert model.nodes[3]["position3"] == 3.0


def test_joints_and_devices() -> None:
    model = load(
        "Robot { children [ HingeJoint {\n"
        "  jointParameters HingeJointParameters { axis 0 1 0 anchor 0 0 1 minStop -1 maxStop 1 }\n"
        "  device [ RotationalMotor { name \"m\" maxTorque 5 } PositionSensor { name \"s\" } ]\n"
        "  endPoint Solid { name \"arm\" physics Physics { } } } ] }"
    )
    joint = top(model)["children"][0]  # type: ignore[index]
    assert isinstance(joint, WbNode) and joint.is_a("joint")
    assert joint["jointParameters"]["axis"] == (0.0, 1.0, 0.0)  # type: ignore[index]
    motor, sensor = joint["device"]  # type: ignore[misc]
    assert motor["maxTorque"] == 5.0 and motor["maxVelocity"] == 10.0
    assert sensor["resolution"] == -1.0
    assert joint["endPoint"]["name"] == "arm"  # type: ignore[index]


# -- Checker with an in-memory PROTO resolver ------------------------------------------------------------------------


def _checker(protos: dict[str, str]) -> Checker:
    parsed: dict[str, ProtoSyntax] = {n: parse_proto(H + t, f"{n}.proto") for n, t in protos.items()}

    def resolve(name: str, scope: ProtoScope, location: SourceLocation) -> ProtoSyntax | None:
        return parsed.get(name)

    return Checker(resolve)


def test_checker_direct_use_returns_none_on_errors(tmp_path: object) -> None:
    checker = _checker({})
    assert checker.check_world(parse_world(H + "Box { }", F), tmp_path) is None  # type: ignore[arg-type]
    assert len(checker.errors) == 1 and checker.warnings == []


def test_checker_expands_protos_from_a_resolver(tmp_path: object) -> None:
    checker = _checker({"Ball": 'PROTO Ball [ field SFFloat r 0.1 field SFString n "ball" ] '
                               "{ Solid { name IS n children [ Shape { geometry Sphere { radius IS r } } ] } }"})
    model = checker.check_world(parse_world(H + "DEF B Ball { r 0.5 }\nBall { }", F), tmp_path)  # type: ignore[arg-type]
    assert model is not None
    big, small = model.nodes
    assert big.proto_name == "Ball" and big.display_type == "Ball" and big.type_name == "Solid"
    assert big.def_name == "B" and big.path == 'Ball "ball"'
    assert big.proto_fields == {"r": 0.5, "n": "ball"}
    assert big["children"][0]["geometry"]["radius"] == 0.5  # type: ignore[index]
    assert small["children"][0]["geometry"]["radius"] == 0.1  # type: ignore[index]
    assert big["children"][0].inside_proto and not big.inside_proto  # type: ignore[index]
    assert big.location == loc(2, 7)


def test_is_error_is_reported_once_even_through_the_name_label() -> None:
    checker = _checker({"P": 'PROTO P [ field SFString nm "x" ] { Solid { name IS nme } }'})
    assert checker.check_world(parse_world(H + "P { }", F), ".") is None  # type: ignore[arg-type]
    (error,) = checker.errors
    assert error.message.startswith("'name IS nme': the PROTO has no field 'nme'. Did you mean 'nm'? Its fields: nm.")
    assert error.location == SourceLocation("P.proto", 2, 53)  # the name after IS
    assert error.node_path == "P"


def test_rotation_defaults_are_unit() -> None:
    model = load("Solid { }")
    assert math.isclose(sum(c * c for c in top(model)["rotation"][:3]), 1.0)  # type: ignore[index]


# -- boundingObject contents -------------------------------------------------------------------------------------


def test_bare_geometries_in_bounding_object_groups() -> None:
    model = load(
        "Solid { boundingObject Group { children [\n"
        "  Box { size 1 1 1 }\n"
        "  Pose { translation 0 0 1 children [ Sphere { radius 0.5 } Shape { geometry Capsule { } } ] }\n"
        "  Transform { children [ Group { children [ Cylinder { } ] } ] } ] } }"
    )
    bo = top(model)["boundingObject"]
    assert isinstance(bo, WbNode)
    box, pose, transform = bo["children"]  # type: ignore[misc]
    assert box.type_name == "Box" and box.path == "Solid > boundingObject > Group > children[0] > Box"
    assert [c.type_name for c in pose["children"]] == ["Sphere", "Shape"]
    assert transform["children"][0]["children"][0].type_name == "Cylinder"


def test_bare_geometry_outside_bounding_objects_is_misplaced() -> None:
    error = one_error("Solid { boundingObject Box { } children [ Pose { children [ Box { } ] } ] }")
    assert error.message.startswith(f"A Box node cannot be placed in field 'children' of Pose: expected one of "
                                    f"{listed('BallJoint')}")
    assert error.node_path == "Solid > children[0] > Pose > children[0]"


def test_solids_and_lights_are_not_accepted_inside_bounding_objects() -> None:
    errs = errors("Solid { boundingObject Pose { children [ Solid { } PointLight { } ] } }")
    assert [e.message for e in errs] == [
        f"A {name} node cannot be placed in field 'children' of Pose: expected one of Box, Capsule, Cylinder, "
        "ElevationGrid, Group, IndexedFaceSet, Plane, Pose, Shape, Sphere, Transform."
        for name in ("Solid", "PointLight")
    ]


def test_bounding_object_rules_follow_use_and_proto_fields(tmp_path: object) -> None:
    model = load("Solid { boundingObject DEF BO Pose { children [ Box { } ] } }\nSolid { boundingObject USE BO }")
    assert model.nodes[1]["boundingObject"]["children"][0].type_name == "Box"  # type: ignore[index]
    error = one_error("Solid { boundingObject DEF BO Pose { children [ Box { } ] } }\nSolid { children [ USE BO ] }")
    assert error.message.startswith("A Box node cannot be placed in field 'children' of Pose")
    checker = _checker({"Hull": "PROTO Hull [ field MFNode parts [] ] { Solid { boundingObject Group { children IS parts } } }"})
    model2 = checker.check_world(parse_world(H + "Hull { parts [ Box { } Sphere { } ] }", F), tmp_path)  # type: ignore[arg-type]
    assert model2 is not None
    assert [c.type_name for c in model2.nodes[0]["boundingObject"]["children"]] == ["Box", "Sphere"]  # type: ignore[index]


# -- defaults through a world, and property tests -------------------------------------------------------------------

PLACES = {
    "WorldInfo": "{}", "Viewpoint": "{}", "Background": "{}", "DirectionalLight": "{}", "PointLight": "{}",
    "SpotLight": "{}", "Solid": "{}", "Robot": "{}", "Pose": "{}", "Transform": "{}", "Group": "{}", "Shape": "{}",
    "Appearance": "Shape { appearance {} }", "PBRAppearance": "Shape { appearance {} }",
    "Material": "Shape { appearance Appearance { material {} } }",
    "Box": "Shape { geometry {} }", "Sphere": "Shape { geometry {} }", "Cylinder": "Shape { geometry {} }",
    "Capsule": "Shape { geometry {} }", "Plane": "Shape { geometry {} }", "IndexedFaceSet": "Shape { geometry {} }",
    "ElevationGrid": "Shape { geometry {} }", "Coordinate": "Shape { geometry IndexedFaceSet { coord {} } }",
    "Physics": "Solid { physics {} }", "Damping": "Solid { physics Physics { damping {} } }",
    "ContactProperties": "WorldInfo { contactProperties [ {} ] }",
    "HingeJoint": "{}", "SliderJoint": "{}", "BallJoint": "{}",
    "HingeJointParameters": "HingeJoint { jointParameters {} }", "JointParameters": "SliderJoint { jointParameters {} }",
    "BallJointParameters": "BallJoint { jointParameters {} }", "RotationalMotor": "HingeJoint { device [ {} ] }",
    "LinearMotor": "SliderJoint { device [ {} ] }", "PositionSensor": "HingeJoint { device [ {} ] }",
}


@pytest.mark.parametrize("name", sorted(PLACES))
def test_an_empty_node_holds_every_schema_default(name: str) -> None:
    from wbsim.world.builtin_nodes import builtin_schemas

    place = PLACES[name]
    text = f"{name} {{ }}" if place == "{}" else place.replace("{}", f"{name} {{ }}", 1)
    model = load(text)
    (node,) = [n for n in model.walk() if n.type_name == name and n.given == frozenset()]
    schema = builtin_schemas()[name]
    assert node.fields == {f: spec.default for f, spec in schema.fields.items()}
    assert model.warnings == ()


finite = st.floats(-1e9, 1e9, allow_nan=False)


@settings(max_examples=50, deadline=None)
@given(st.tuples(finite, finite, finite), st.lists(st.text(st.characters(blacklist_categories=("Cs", "Cc"))), max_size=4))
def test_written_values_load_back_equal(translation: tuple[float, float, float], args: list[str]) -> None:
    quoted = " ".join('"' + a.replace("\\", "\\\\").replace('"', '\\"') + '"' for a in args)
    model = load(f"Robot {{ translation {' '.join(map(repr, translation))} controllerArgs [ {quoted} ] }}")
    robot = top(model)
    assert robot["translation"] == translation
    assert robot["controllerArgs"] == tuple(args)


@settings(max_examples=50, deadline=None)
@given(st.tuples(finite, finite, finite).filter(lambda v: math.hypot(*v) > 1e-6), st.floats(-7, 7))
def test_rotations_load_with_unit_axes(axis: tuple[float, float, float], angle: float) -> None:
    rotation = top(load(f"Pose {{ rotation {' '.join(map(repr, (*axis, angle)))} }}"))["rotation"]
    assert isinstance(rotation, tuple)
    assert math.isclose(math.hypot(*rotation[:3]), 1.0, rel_tol=1e-12)
    assert rotation[3] == angle
    assert all(math.isclose(r * math.hypot(*axis), a, rel_tol=1e-9, abs_tol=1e-9) for r, a in zip(rotation[:3], axis))


def test_negate_repair_at_load_warns_with_the_schema_text() -> None:
    model = load('Robot { children [ DistanceSensor { name "d" aperture -0.5 redColorSensitivity -2 } ] }')
    sensor = model.nodes[0]["children"][0]
    assert (sensor["aperture"], sensor["redColorSensitivity"]) == (0.5, 2.0)
    assert [w.message for w in model.warnings] == [
        "Invalid 'aperture' changed to 0.5. The value should be non-negative.",
        "Invalid 'redColorSensitivity' changed to 2. The value should be non-negative.",
    ]
    assert model.warnings[0].node_path == 'Robot > children[0] > DistanceSensor "d" > aperture'


# -- limits of what can be simulated (issue 15): finite values that would overflow or hang later ---------------


@pytest.mark.parametrize(("body", "needle", "reason"), [
    ("Solid { boundingObject Box { size 1e200 1 1 } }", "1e200", "lengths must be at most 1e+09 m"),
    ("Solid { boundingObject Sphere { radius 1e200 } }", "1e200", "lengths must be at most 1e+09 m"),
    ("Solid { boundingObject Capsule { radius 1e200 } }", "1e200", "lengths must be at most 1e+09 m"),
    ("Solid { boundingObject Box { size 1e-310 1 1 } }", "1e-310", "geometry sizes at least 1e-09 m"),
    ("Solid { translation 0 0 -1e300 }", "0 0 -1e300", "lengths must be at most 1e+09 m"),
    ("Solid { physics Physics { density 1e300 } }", "1e300", "masses and densities must be at most 1e+12"),
    ("Solid { physics Physics { mass 1e13 } }", "1e13", "masses and densities must be at most 1e+12"),
    ("WorldInfo { basicTimeStep 2e7 }", "2e7", "basicTimeStep must be between 0.001 ms and 100000 ms"),
    ("WorldInfo { basicTimeStep 1e-310 }", "1e-310", "basicTimeStep must be between 0.001 ms and 100000 ms"),
])
def test_values_beyond_what_can_be_simulated_are_located_errors_with_the_reason(body: str, needle: str,
                                                                                 reason: str) -> None:
    error = one_error(body)
    assert reason in error.message and "out of range" in error.message
    column = body.index(needle) + 1
    assert error.location == loc(2, column)


@pytest.mark.parametrize("body", [
    "Solid { boundingObject Box { size 1e9 1e-9 1 } physics Physics { density 1e12 } }",
    "Solid { translation 0 0 1e-300 boundingObject Sphere { radius 1e-9 } }",  # positions may be tiny
    "WorldInfo { basicTimeStep 100000 } Solid { physics Physics { mass 1e12 } }",
    "WorldInfo { basicTimeStep 0.001 }",
])
def test_values_at_the_limits_load(body: str) -> None:
    load(body)


def test_world_info_erp_cfm_warn_that_they_have_no_effect() -> None:
    model = load("WorldInfo {\n  ERP 0.6\n  CFM 1e-4\n  gravity 3\n}")
    warnings = [w for w in model.warnings if "has no effect" in w.message]
    assert [(w.message.split(" ")[0], w.location) for w in warnings] == [
        ("WorldInfo.ERP", loc(3, 3)), ("WorldInfo.CFM", loc(4, 3))]
    assert warnings[0].node_path == "WorldInfo > ERP"
    # Not written, or used by a physics plugin's contacts: no warning.
    assert not [w for w in load("WorldInfo { gravity 3 }").warnings if "has no effect" in w.message]
    with_plugin = load('WorldInfo { ERP 0.6 physics "my_plugin" }')
    assert not [w for w in with_plugin.warnings if "has no effect" in w.message]


@pytest.mark.parametrize("body", [
    # Visual geometry never reaches the physics: a huge terrain or a tiny detail loads, as in Webots.
    "Solid { children [ Shape { geometry Box { size 2e9 2e9 1 } } ] }",
    "Solid { children [ Pose { children [ Shape { geometry Sphere { radius 1e-10 } } ] } ] }",
    "Robot { children [ Emitter { range 1e10 maxRange 1e10 } ] }",
    "Robot { children [ SliderJoint { device [ LinearMotor { minPosition -2e9 maxPosition 2e9 } ] } ] }",
])
def test_limits_leave_values_the_physics_never_builds_alone(body: str) -> None:
    load(body)


def test_limits_apply_to_geometry_inside_a_bounding_shape() -> None:
    body = "Solid { boundingObject Shape { geometry Box { size 2e9 1 1 } } }"
    error = one_error(body)
    assert "lengths must be at most 1e+09 m" in error.message and error.location == loc(2, body.index("2e9") + 1)
