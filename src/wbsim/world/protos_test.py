"""Tests of PROTO files: lookup (EXTERNPROTO, <project>/protos), interfaces, IS substitution and PROTO errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from wbsim.errors import SourceLocation, WorldError, WorldLoadError, WorldSchemaError, WorldSyntaxError
from wbsim.world.checker import ProtoScope
from wbsim.world.loader import load_world_model
from wbsim.world.model import WbNode, WorldModel
from wbsim.world.parser import parse_world
from wbsim.world.protos import ProtoLibrary

H = "#VRML_SIM R2023b utf8\n"

BALL = """PROTO Ball [
  field SFVec3f translation 0 0 0
  field SFFloat radius 0.1
  field SFString name "ball"
  field MFColor colors []
  field SFNode physics Physics { density 500 }
  field MFNode extra []
  field SFString{"red", "green"} color "red"
  unconnectedField SFBool unused FALSE
]
{
  Solid {
    translation IS translation
    name IS name
    recognitionColors IS colors
    children [
      DEF INNER Shape { geometry Sphere { radius IS radius } }
      Group { children IS extra }
    ]
    boundingObject Sphere { radius IS radius }
    physics IS physics
  }
}
"""


def write(path: Path, text: str, header: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text((H if header else "") + text, encoding="utf-8")
    return path


def project(tmp_path: Path, world: str, protos: dict[str, str] | None = None) -> Path:
    for rel, text in (protos or {}).items():
        write(tmp_path / rel, text)
    return write(tmp_path / "worlds" / "w.wbt", world)


def load(tmp_path: Path, world: str, protos: dict[str, str] | None = None) -> WorldModel:
    return load_world_model(project(tmp_path, world, protos))


def errors(tmp_path: Path, world: str, protos: dict[str, str] | None = None) -> list[WorldError]:
    with pytest.raises(WorldLoadError) as info:
        load(tmp_path, world, protos)
    return info.value.errors


def one_error(tmp_path: Path, world: str, protos: dict[str, str] | None = None) -> WorldError:
    (error,) = errors(tmp_path, world, protos)
    return error


def at(path: Path, line: int, column: int) -> SourceLocation:
    return SourceLocation(str(path), line, column)


# -- interface, IS ------------------------------------------------------------------------------------------------


def test_interface_defaults(tmp_path: Path) -> None:
    model = load(tmp_path, 'EXTERNPROTO "../protos/Ball.proto"\nBall { }', {"protos/Ball.proto": BALL})
    (ball,) = model.nodes
    assert ball.type_name == "Solid" and ball.proto_name == "Ball" and ball.display_type == "Ball"
    assert ball["translation"] == (0.0, 0.0, 0.0)
    assert ball["name"] == "ball"
    assert ball["recognitionColors"] == ()
    assert ball["boundingObject"]["radius"] == 0.1  # type: ignore[index]
    assert ball["physics"]["density"] == 500.0  # type: ignore[index]
    assert ball.proto_fields == {
        "translation": (0.0, 0.0, 0.0), "radius": 0.1, "name": "ball", "colors": (), "color": "red", "unused": False,
    }
    assert ball.path == 'Ball "ball"'
    assert ball.location == SourceLocation(str(tmp_path / "worlds" / "w.wbt"), 3, 1)


def test_instance_overrides(tmp_path: Path) -> None:
    world = (
        'EXTERNPROTO "../protos/Ball.proto"\n'
        'DEF B1 Ball { translation 1 2 3 radius 0.5 name "big" colors [ 1 0 0 0 1 0 ] color "green"\n'
        '  physics Physics { mass 2 density -1 } extra [ Shape { geometry Box { } } ] hidden p_0 1 }\n'
        "Ball { radius 0.2 colors 0 0 1 }"
    )
    model = load(tmp_path, world, {"protos/Ball.proto": BALL})
    big, small = model.nodes
    assert big["translation"] == (1.0, 2.0, 3.0)
    assert big["name"] == "big" and big.path == 'Ball "big"'
    assert big["recognitionColors"] == ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0))
    inner_shape, group = big["children"]  # type: ignore[misc]
    assert inner_shape["geometry"]["radius"] == 0.5
    assert big["boundingObject"]["radius"] == 0.5  # type: ignore[index]
    physics = big["physics"]
    assert isinstance(physics, WbNode) and physics["mass"] == 2.0 and physics["density"] == -1.0
    assert physics.parent is big
    (box_shape,) = group["children"]
    assert box_shape["geometry"].type_name == "Box"
    assert big.proto_fields["color"] == "green"
    # instance values and defaults are per instance
    assert small["boundingObject"]["radius"] == 0.2  # type: ignore[index]
    assert small["recognitionColors"] == ((0.0, 0.0, 1.0),)
    assert small["physics"]["density"] == 500.0  # type: ignore[index]
    assert small["physics"] is not big["physics"]


def test_proto_internal_nodes_are_marked_and_hidden_from_def_lookup(tmp_path: Path) -> None:
    world = (
        'EXTERNPROTO "../protos/Ball.proto"\n'
        "DEF B Ball { extra [ DEF MINE Solid { } ] }"
    )
    model = load(tmp_path, world, {"protos/Ball.proto": BALL})
    (ball,) = model.nodes
    inner, group = ball["children"]  # type: ignore[misc]
    assert inner.def_name == "INNER" and inner.inside_proto
    assert group.inside_proto
    mine = group["children"][0]
    assert not mine.inside_proto  # given by the instance, not part of the PROTO
    assert model.find_def("B") is ball
    assert model.find_def("INNER") is None
    assert model.find_def("B.INNER") is None
    assert model.find_def("MINE") is mine and model.find_def("B.MINE") is mine


def test_is_of_node_fields_checks_the_value_where_it_was_written(tmp_path: Path) -> None:
    world = 'EXTERNPROTO "../protos/Ball.proto"\nBall {\n  physics Physics { mass -5 } }'
    error = one_error(tmp_path, world, {"protos/Ball.proto": BALL})
    assert isinstance(error, WorldSchemaError)
    assert error.location == at(tmp_path / "worlds" / "w.wbt", 4, 26)
    assert error.message.startswith("Value -5 out of range for field 'mass' of Physics")
    assert error.node_path == 'Ball "ball" > physics > Physics > mass'


def test_is_of_node_field_with_a_misplaced_node(tmp_path: Path) -> None:
    world = 'EXTERNPROTO "../protos/Ball.proto"\nBall { physics Box { } }'
    error = one_error(tmp_path, world, {"protos/Ball.proto": BALL})
    assert error.message.startswith("A Box node cannot be placed in field 'physics' of Solid: expected one of Physics")
    assert error.location == at(tmp_path / "worlds" / "w.wbt", 3, 16)


def test_unknown_instance_field_lists_interface_fields(tmp_path: Path) -> None:
    world = 'EXTERNPROTO "../protos/Ball.proto"\nBall {\n  radus 1 }'
    error = one_error(tmp_path, world, {"protos/Ball.proto": BALL})
    assert isinstance(error, WorldSchemaError)
    assert error.message == (
        "Unknown field 'radus' in PROTO Ball. Did you mean 'radius'? "
        "Valid fields: translation, radius, name, colors, physics, extra, color, unused."
    )
    assert error.location == at(tmp_path / "worlds" / "w.wbt", 4, 3)
    assert error.node_path == "top-level node [0] > Ball"


def test_instance_field_given_twice(tmp_path: Path) -> None:
    world = 'EXTERNPROTO "../protos/Ball.proto"\nBall { radius 1\n  radius 2 }'
    error = one_error(tmp_path, world, {"protos/Ball.proto": BALL})
    assert error.message == "Field 'radius' is given twice in PROTO Ball."
    assert error.location == at(tmp_path / "worlds" / "w.wbt", 4, 3)


def test_wrong_type_for_an_instance_field(tmp_path: Path) -> None:
    world = 'EXTERNPROTO "../protos/Ball.proto"\nBall { radius "big" translation 1 2 }'
    errs = errors(tmp_path, world, {"protos/Ball.proto": BALL})
    assert [e.message for e in errs] == [
        "Invalid value for field 'radius' of PROTO Ball (SFFloat): expected a number.",
        "Invalid value for field 'translation' of PROTO Ball (SFVec3f): expected 3 numbers, found 2 value(s).",
    ]
    assert [e.location.column for e in errs if e.location] == [15, 33]


def test_accepted_values_restriction(tmp_path: Path) -> None:
    world = 'EXTERNPROTO "../protos/Ball.proto"\nBall { color "blue" }'
    error = one_error(tmp_path, world, {"protos/Ball.proto": BALL})
    assert error.message == "Invalid value 'blue' for field 'color' of PROTO Ball: expected one of 'red', 'green'."
    assert error.location == at(tmp_path / "worlds" / "w.wbt", 3, 14)


def test_accepted_values_restriction_for_numbers_and_mf(tmp_path: Path) -> None:
    proto = "PROTO N [ field SFInt32{1, 2, 4} n 1 field MFFloat{0.5, 1} m [] ] { Solid { } }"
    ok = load(tmp_path, "N { n 4 m [ 0.5 1 0.5 ] }", {"protos/N.proto": proto})
    assert ok.nodes[0].proto_fields == {"n": 4, "m": (0.5, 1.0, 0.5)}
    errs = errors(tmp_path, "N { n 3 m [ 1 2 ] }", {"protos/N.proto": proto})
    assert [e.message for e in errs] == [
        "Invalid value 3 for field 'n' of PROTO N: expected one of 1.0, 2.0, 4.0.",
        "Invalid value (1.0, 2.0) for field 'm' of PROTO N: expected one of 0.5, 1.0.",
    ]


def test_accepted_node_types_restriction(tmp_path: Path) -> None:
    proto = "PROTO G [ field SFNode{Box{}, Sphere{}} shape Box { } ] { Solid { boundingObject IS shape } }"
    model = load(tmp_path, "G { shape Sphere { radius 2 } }\nG { shape NULL }\nG { }", {"protos/G.proto": proto})
    assert [n["boundingObject"] and n["boundingObject"].type_name for n in model.nodes] == ["Sphere", None, "Box"]
    error = one_error(tmp_path, "Shape { geometry DEF C Capsule { } }\nG {\n  shape USE C }", {"protos/G.proto": proto})
    assert error.message == "A Capsule node is not accepted by field 'shape' of PROTO G: expected one of Box, Sphere."
    assert error.location == at(tmp_path / "worlds" / "w.wbt", 4, 9)
    assert error.node_path == "top-level node [1] > G"


def test_is_with_mismatched_type(tmp_path: Path) -> None:
    proto = "PROTO Bad [ field SFFloat size 1 ] {\n  Solid {\n    translation IS size } }"
    error = one_error(tmp_path, "Bad { }", {"protos/Bad.proto": proto})
    assert isinstance(error, WorldSchemaError)
    assert error.message == "'translation IS size': field 'translation' is SFVec3f but PROTO field 'size' is SFFloat."
    assert error.location == at(tmp_path / "protos" / "Bad.proto", 4, 20)
    assert error.node_path == "Bad"


def test_is_to_unknown_field_lists_the_interface(tmp_path: Path) -> None:
    proto = "PROTO Bad [ field SFVec3f position 0 0 0 field SFFloat mass 1 ] {\n  Solid { translation IS postion } }"
    error = one_error(tmp_path, "Bad { }", {"protos/Bad.proto": proto})
    assert error.message == (
        "'translation IS postion': the PROTO has no field 'postion'. Did you mean 'position'? Its fields: position, mass."
    )
    assert error.location == at(tmp_path / "protos" / "Bad.proto", 3, 26)


def test_is_to_unknown_node_field(tmp_path: Path) -> None:
    proto = "PROTO Bad [ field SFFloat x 1 ] { Solid { nosuch IS x } }"
    error = one_error(tmp_path, "Bad { }", {"protos/Bad.proto": proto})
    assert error.message.startswith("Unknown field 'nosuch' in Solid.")


def test_bad_default_in_the_interface_is_an_error(tmp_path: Path) -> None:
    proto = 'PROTO Bad [\n  field SFFloat x "one" ] { Solid { } }'
    error = one_error(tmp_path, "Bad { }", {"protos/Bad.proto": proto})
    assert error.message == "Invalid value for field 'x' of PROTO Bad (SFFloat): expected a number."
    assert error.location == at(tmp_path / "protos" / "Bad.proto", 3, 19)


def test_errors_in_a_proto_body_are_reported_once_for_many_instances(tmp_path: Path) -> None:
    proto = "PROTO Bad [ ] { Solid { boundingObject Box { size 0 1 1 } } }"
    errs = errors(tmp_path, "Bad { }\nBad { }\nBad { }", {"protos/Bad.proto": proto})
    assert len(errs) == 1
    assert errs[0].location == at(tmp_path / "protos" / "Bad.proto", 2, 51)


def test_misplaced_proto_instance(tmp_path: Path) -> None:
    world = 'EXTERNPROTO "../protos/Ball.proto"\nShape { geometry Ball { } }'
    error = one_error(tmp_path, world, {"protos/Ball.proto": BALL})
    assert error.message.startswith(
        "A Ball (a Solid PROTO) cannot be placed in field 'geometry' of Shape: expected one of Box, Capsule"
    )
    assert error.location == at(tmp_path / "worlds" / "w.wbt", 3, 18)


def test_use_of_solid_proto_is_an_error_and_geometry_proto_is_copied(tmp_path: Path) -> None:
    protos = {"protos/Ball.proto": BALL, "protos/Rock.proto": "PROTO Rock [ field SFFloat r 1 ] { Sphere { radius IS r } }"}
    error = one_error(tmp_path, "DEF B Ball { }\nGroup { children [ USE B ] }", protos)
    assert error.message.startswith("USE B: a Ball node cannot be USEd;")
    model = load(tmp_path, "Shape { geometry DEF R Rock { r 2 } }\nShape { geometry USE R }", protos)
    first, second = (n["geometry"] for n in model.nodes)
    assert isinstance(first, WbNode) and isinstance(second, WbNode)
    assert first is not second
    assert first.proto_name == second.proto_name == "Rock"
    assert first["radius"] == second["radius"] == 2.0
    assert first.def_name == "R" and second.def_name is None


def test_unsupported_proto_base_is_skipped_with_a_warning(tmp_path: Path) -> None:
    model = load(tmp_path, "Robot { children [ Cam { } ] }", {"protos/Cam.proto": "PROTO Cam [ ] { Charger { } }"})
    assert model.nodes[0]["children"] == ()
    (warning,) = model.warnings
    assert warning.message == "PROTO Cam is a Charger, which wbsim does not simulate yet; ignored."


# -- nesting and recursion ------------------------------------------------------------------------------------------


def test_nested_proto_uses_externproto_relative_to_the_proto_file(tmp_path: Path) -> None:
    protos = {
        "protos/robots/Rover.proto": (
            'EXTERNPROTO "../parts/Wheel.proto"\n'
            'PROTO Rover [ field SFFloat wheelRadius 0.1 field SFString name "rover" ] {\n'
            "  Robot { name IS name children [ Wheel { radius IS wheelRadius } Wheel { } ] } }"
        ),
        "protos/parts/Wheel.proto": (
            'PROTO Wheel [ field SFFloat radius 0.05 ] {\n'
            "  HingeJoint { endPoint Solid { name \"wheel\" boundingObject Cylinder { radius IS radius } } } }"
        ),
    }
    model = load(tmp_path, 'EXTERNPROTO "../protos/robots/Rover.proto"\nRover { wheelRadius 0.3 }', protos)
    (rover,) = model.nodes
    first, second = rover["children"]  # type: ignore[misc]
    assert first.proto_name == "Wheel" and first.type_name == "HingeJoint"
    assert first["endPoint"]["boundingObject"]["radius"] == 0.3
    assert second["endPoint"]["boundingObject"]["radius"] == 0.05
    assert first.inside_proto and second.inside_proto
    assert first.path == 'Rover "rover" > children[0] > Wheel'


def test_proto_whose_body_is_another_proto(tmp_path: Path) -> None:
    protos = {
        "protos/Base.proto": 'PROTO Base [ field SFString name "base" field SFFloat m 1 ] '
                             "{ Solid { name IS name physics Physics { mass IS m density -1 } } }",
        "protos/Derived.proto": 'PROTO Derived [ field SFFloat mass 3 ] { Base { name "derived" m IS mass } }',
    }
    model = load(tmp_path, "DEF D Derived { mass 4 }", protos)
    (node,) = model.nodes
    assert node.proto_name == "Derived" and node.def_name == "D"
    assert node["name"] == "derived"
    assert node["physics"]["mass"] == 4.0  # type: ignore[index]
    assert model.find_def("D") is node


def test_recursive_proto_is_an_error(tmp_path: Path) -> None:
    protos = {"protos/Loop.proto": "PROTO Loop [ ] { Solid { children [ Loop { } ] } }"}
    error = one_error(tmp_path, "Loop { }", protos)
    assert error.message == "PROTO Loop uses itself (Loop -> Loop)."
    assert error.location == at(tmp_path / "protos" / "Loop.proto", 2, 37)


def test_mutually_recursive_protos_are_an_error(tmp_path: Path) -> None:
    protos = {
        "protos/A.proto": "PROTO A [ ] { Group { children [ B { } ] } }",
        "protos/B.proto": "PROTO B [ ] { B2 { } }",
        "protos/B2.proto": "PROTO B2 [ ] { A { } }",
    }
    error = one_error(tmp_path, "A { }", protos)
    assert error.message == "PROTO A uses itself (A -> B -> B2 -> A)."


def test_procedural_proto_is_not_supported(tmp_path: Path) -> None:
    protos = {"protos/Tpl.proto": "# template language: javascript\nPROTO Tpl [ field SFFloat r 1 ] {\n"
                                  "  %< const r2 = fields.r.value * 2; >%\n  Solid { } }"}
    error = one_error(tmp_path, "Tpl { }", protos)
    assert isinstance(error, WorldSyntaxError)
    assert error.message.startswith("Template statement '%<': procedural PROTOs")
    assert "not supported" in error.message
    assert error.location == at(tmp_path / "protos" / "Tpl.proto", 4, 3)


def test_proto_syntax_error_keeps_its_class_and_location(tmp_path: Path) -> None:
    protos = {"protos/Broken.proto": 'PROTO Broken [ ] {\n  Solid { name "x } }'}
    error = one_error(tmp_path, "Group { children [ Broken { } ] }", protos)
    assert isinstance(error, WorldSyntaxError)
    assert error.message.startswith("Unclosed string literal")
    assert error.location == at(tmp_path / "protos" / "Broken.proto", 3, 16)
    assert error.node_path == "Group > children[0]"


# -- lookup -------------------------------------------------------------------------------------------------------------


def test_webots_url_without_local_copy_is_a_clear_error(tmp_path: Path) -> None:
    world = 'EXTERNPROTO "webots://projects/robots/x/protos/Pioneer3at.proto"\nPioneer3at { }'
    error = one_error(tmp_path, world)
    assert isinstance(error, WorldSchemaError)
    assert error.message.startswith(
        "PROTO Pioneer3at is declared from 'webots://projects/robots/x/protos/Pioneer3at.proto', which wbsim cannot fetch"
    )
    assert str(tmp_path / "protos" / "Pioneer3at.proto") in error.message
    assert error.location == at(tmp_path / "worlds" / "w.wbt", 2, 13)
    assert error.node_path == "top-level node [0]"


@pytest.mark.parametrize("url", ["webots://projects/x/Ball.proto", "https://example.com/protos/Ball.proto",
                                 "http://example.com/Ball.proto"])
def test_remote_url_uses_the_local_copy_in_project_protos(tmp_path: Path, url: str) -> None:
    model = load(tmp_path, f'EXTERNPROTO "{url}"\nBall {{ radius 0.7 }}', {"protos/sub/dir/Ball.proto": BALL})
    assert model.nodes[0]["boundingObject"]["radius"] == 0.7  # type: ignore[index]


def test_undeclared_proto_is_found_in_project_protos(tmp_path: Path) -> None:
    model = load(tmp_path, "Ball { }", {"protos/Ball.proto": BALL})
    assert model.nodes[0].proto_name == "Ball"


def test_undeclared_unknown_proto_is_an_unknown_node(tmp_path: Path) -> None:
    error = one_error(tmp_path, "Bal { }", {"protos/Ball.proto": BALL})
    assert error.message.startswith("Unknown node or PROTO 'Bal'.")


def test_declared_relative_proto_file_missing(tmp_path: Path) -> None:
    error = one_error(tmp_path, 'EXTERNPROTO "../protos/Nope.proto"\nNope { }')
    assert error.message == f"PROTO file not found: {tmp_path / 'worlds' / '../protos/Nope.proto'} (declared here)."
    assert error.location == at(tmp_path / "worlds" / "w.wbt", 2, 13)


def test_absolute_externproto_path(tmp_path: Path) -> None:
    elsewhere = write(tmp_path / "lib" / "Ball.proto", BALL)
    model = load(tmp_path, f'EXTERNPROTO "{elsewhere}"\nBall {{ }}')
    assert model.nodes[0].proto_name == "Ball"


def test_proto_file_name_must_match_the_proto_name(tmp_path: Path) -> None:
    error = one_error(tmp_path, 'EXTERNPROTO "../protos/Ball.proto"\nBall { }',
                      {"protos/Ball.proto": BALL.replace("PROTO Ball", "PROTO Bowl")})
    assert isinstance(error, WorldSchemaError)
    assert error.message == (
        "File Ball.proto defines PROTO Bowl, but it was looked up as Ball: the file name must match the PROTO name."
    )
    assert error.location == at((tmp_path / "protos" / "Ball.proto").resolve(), 2, 7)


def test_declaration_is_per_file_and_unused_declarations_are_not_loaded(tmp_path: Path) -> None:
    model = load(tmp_path, 'EXTERNPROTO "../protos/Missing.proto"\nSolid { }')
    assert model.nodes[0].type_name == "Solid"


def test_proto_library_resolve_and_cache(tmp_path: Path) -> None:
    write(tmp_path / "protos" / "Ball.proto", BALL)
    (tmp_path / "worlds").mkdir()
    library = ProtoLibrary(tmp_path)
    scope = ProtoScope(str(tmp_path / "worlds" / "w.wbt"), {})
    where = SourceLocation("w.wbt", 1, 1)
    first = library.resolve("Ball", scope, where)
    assert first is not None and first.name == "Ball"
    assert library.resolve("Ball", scope, where) is first
    assert library.resolve("Nothing", scope, where) is None
    externs = {e.name: e for e in parse_world(H + 'EXTERNPROTO "../protos/Ball.proto"', scope.file).externprotos}
    assert library.resolve("Ball", ProtoScope(scope.file, externs), where) is first  # same file, same parse


def test_proto_library_without_protos_folder(tmp_path: Path) -> None:
    library = ProtoLibrary(tmp_path / "nowhere")
    assert library.resolve("X", ProtoScope("w.wbt", {}), SourceLocation("w.wbt", 1, 1)) is None


def test_non_utf8_proto_file(tmp_path: Path) -> None:
    (tmp_path / "protos").mkdir()
    (tmp_path / "protos" / "Latin.proto").write_bytes((H + 'PROTO Latin [ ] { Solid { name "\xe9" } }').encode("latin-1"))
    error = one_error(tmp_path, "Latin { }")
    assert isinstance(error, WorldSyntaxError)
    assert error.message.startswith("PROTO file is not valid UTF-8")
