"""Tests of PROTO files: lookup (EXTERNPROTO, <project>/protos), interfaces, IS substitution and PROTO errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from wbsim.errors import (
    SourceLocation,
    TemplateError,
    WorldAssetError,
    WorldError,
    WorldLoadError,
    WorldSchemaError,
    WorldSyntaxError,
)
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


# -- lookup -------------------------------------------------------------------------------------------------------------


def test_webots_url_found_nowhere_is_one_error_listing_every_place(tmp_path: Path) -> None:
    world = 'EXTERNPROTO "webots://projects/robots/x/protos/Pioneer3at.proto"\nPioneer3at { }'
    error = one_error(tmp_path, world)
    assert isinstance(error, WorldAssetError)
    assert error.message.startswith("Cannot find PROTO Pioneer3at 'webots://projects/robots/x/protos/Pioneer3at.proto'")
    assert str(tmp_path / "protos" / "**" / "Pioneer3at.proto") in error.message  # 1. project copy
    assert "Webots home: not set (WEBOTS_HOME or --webots-home)" in error.message  # 2.
    assert "R2023b/projects/robots/x/protos/Pioneer3at.proto (WBSIM_CACHE_DIR): not there" in error.message  # 3.
    assert "not tried, offline (--offline / WBSIM_OFFLINE)" in error.message  # 4.
    assert "Provide it by pointing WEBOTS_HOME" in error.message
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


# -- procedural PROTOs --------------------------------------------------------------------------------------------

JS = "# template language: javascript\n"
ROW = JS + """PROTO Row [
  field SFInt32 count 3
  field SFVec3f size 0.1 0.2 0.3
  field SFString prefix "box"
]
{
  %< import * as wbrandom from 'wbrandom.js';
     const n = fields.count.value;
     const s = fields.size.value; >%
  Group {
    children [
      %< for (let i = 0; i < n; ++i) { >%
        Solid {
          translation %<= i * s.x >% 0 0
          name "%<= fields.prefix.value + i >%"
          boundingObject Box { size %<= s.x >% %<= s.y >% %<= s.z >% }
        }
      %< } >%
    ]
  }
}
"""


def solids(model: WorldModel) -> list[WbNode]:
    return [n for n in model.walk() if n.is_a("solid")]


def test_procedural_proto_expands_with_instance_and_default_values(tmp_path: Path) -> None:
    model = load(tmp_path, 'Row { count 2 size 1 2 3 }\nRow { prefix "d" }', {"protos/Row.proto": ROW})
    got = [(n["name"], n["translation"], n["boundingObject"]["size"]) for n in solids(model)]  # type: ignore[index]
    assert got == [
        ("box0", (0.0, 0.0, 0.0), (1.0, 2.0, 3.0)), ("box1", (1.0, 0.0, 0.0), (1.0, 2.0, 3.0)),
        ("d0", (0.0, 0.0, 0.0), (0.1, 0.2, 0.3)), ("d1", (0.1, 0.0, 0.0), (0.1, 0.2, 0.3)),
        ("d2", (0.2, 0.0, 0.0), (0.1, 0.2, 0.3)),
    ]
    assert model.nodes[0].proto_name == "Row" and model.nodes[0].proto_fields["count"] == 2


def test_procedural_values_through_is_of_an_enclosing_proto(tmp_path: Path) -> None:
    # Outer passes its own field to a procedural Row (IS), and is itself procedural (its body is a Row).
    outer = JS + ('EXTERNPROTO "Row.proto"\nPROTO Outer [ field SFInt32 rows 1 field SFString tag "t" ] {\n'
                  '  Row { count %<= fields.rows.value * 2 >% prefix IS tag }\n}\n')
    model = load(tmp_path, "Outer { rows 2 }", {"protos/Row.proto": ROW, "protos/Outer.proto": outer})
    assert [n["name"] for n in solids(model)] == ["t0", "t1", "t2", "t3"]
    assert model.nodes[0].proto_name == "Outer"


def test_sfnode_field_holding_a_proto_is_seen_by_the_template(tmp_path: Path) -> None:
    shelf = JS + """PROTO Shelf [ field SFNode item NULL field MFNode more [] ] {
  Solid {
    name "%<= fields.item.value ? fields.item.value.node_name + ':' + fields.item.value.fields.radius.value : 'empty' >%"
    description "%<= fields.more.value.map((n) => n.node_name + n.fields.size.value.x).join(',') >%"
    children [ %<= fields.item.value === undefined ? '' : 'Pose { }' >% ]
  }
}
"""
    world = ('Shelf { item Ball { radius 0.25 } more [ Box { size 3 1 1 } ] }\nShelf { }\n'
             'Shelf { item DEF B Ball { } }\nShelf { item USE B }')
    model = load(tmp_path, world, {"protos/Shelf.proto": shelf, "protos/Ball.proto": BALL})
    assert [(n["name"], n["description"]) for n in model.nodes] == [
        ("Ball:0.25", "Box3"), ("empty", ""), ("Ball:0.1", ""), ("Ball:0.1", "")]


def test_templates_see_reals_with_six_significant_digits_as_in_webots(tmp_path: Path) -> None:
    # Webots writes field values into the template's JavaScript with Qt's default %g (6 significant digits),
    # so generated geometry and the expansion cache see 0.123457, not 0.1234567.
    echo = JS + """PROTO Echo [ field SFFloat f 0.1 field SFVec3f v 0 0 0 field SFNode n NULL ] {
  Solid { name "%<= [fields.f.value, fields.v.value.x, fields.v.value.y, fields.n.value.fields.radius.value] >%" }
}
"""
    model = load(tmp_path, "Echo { f 0.1234567 v 1234567.8 -2e-9 0.5 n Sphere { radius 2.718281828 } }",
                 {"protos/Echo.proto": echo})
    assert model.nodes[0]["name"] == "0.123457,1234570,-2e-9,2.71828"


def test_template_error_names_proto_line_instance_and_message(tmp_path: Path) -> None:
    bad = JS + "PROTO Bad [ field SFFloat k 1 ] {\n  %< const a = fields.k.value;\n     a.b.c; >%\n  Solid { }\n}\n"
    error = one_error(tmp_path, "Group { children [ Bad { } ] }", {"protos/Bad.proto": bad})
    assert isinstance(error, TemplateError)
    assert error.location == at(tmp_path / "protos" / "Bad.proto", 5, 1)  # header line + 4
    assert "TypeError: cannot read property 'c' of undefined" in error.message
    assert f"instance of PROTO Bad at {tmp_path / 'worlds' / 'w.wbt'}:2:20" in error.message
    assert error.node_path == "Group > children[0] > Bad"


def test_template_reading_an_undeclared_field(tmp_path: Path) -> None:
    bad = JS + "PROTO Bad [ field SFFloat k 1 ] {\n  Solid { name \"%<= fields.kk.value >%\" }\n}\n"
    error = one_error(tmp_path, "Bad { }", {"protos/Bad.proto": bad})
    assert "The template reads fields.kk, but PROTO Bad has no field 'kk' (its fields: k)" in error.message
    assert error.location == at(tmp_path / "protos" / "Bad.proto", 4, 1)


def test_generated_text_with_a_syntax_error(tmp_path: Path) -> None:
    bad = JS + "PROTO Bad [ ] {\n  Solid { name %<= '\"unclosed' >% }\n}\n"
    error = one_error(tmp_path, "Bad { }", {"protos/Bad.proto": bad})
    assert isinstance(error, WorldSyntaxError)
    assert "in the text generated by the template of PROTO Bad" in error.message


def test_lua_template_is_refused_clearly(tmp_path: Path) -> None:
    lua = "PROTO Old [ field SFFloat r 1 ] {\n  %{ local r2 = fields.r.value * 2 }%\n  Solid { }\n}\n"
    error = one_error(tmp_path, "Old { }", {"protos/Old.proto": lua})
    assert "Lua templates are not supported; this PROTO predates Webots R2022a" in error.message
    assert error.location == at(tmp_path / "protos" / "Old.proto", 3, 3)


def test_template_error_stream_becomes_warnings(tmp_path: Path) -> None:
    noisy = JS + "PROTO Noisy [ ] {\n  %< console.error('size too small'); console.log('hello'); >%\n  Solid { }\n}\n"
    model = load(tmp_path, "Noisy { }", {"protos/Noisy.proto": noisy})
    assert [w.message for w in model.warnings] == ["PROTO Noisy template: size too small"]


def test_context_sees_world_coordinate_system_and_paths(tmp_path: Path) -> None:
    ctx = JS + ('PROTO Ctx [ ] {\n  Solid { name "%<= context.coordinate_system >%" '
                'description "%<= context.world + \'|\' + context.proto + \'|\' + context.project_path >%" }\n}\n')
    model = load(tmp_path, 'WorldInfo { coordinateSystem "NUE" }\nCtx { }', {"protos/Ctx.proto": ctx})
    node = model.nodes[1]
    assert node["name"] == "NUE"
    assert node["description"] == (f"{tmp_path / 'worlds' / 'w.wbt'}|{tmp_path / 'protos' / 'Ctx.proto'}|"
                                   f"{tmp_path}/")


def test_expansions_are_cached_by_proto_file_and_field_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from wbsim.world.templates import TemplateEngine

    calls: list[str] = []
    original = TemplateEngine.expand

    def counting(self: TemplateEngine, file: str, *args: object) -> object:
        calls.append(file)
        return original(self, file, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(TemplateEngine, "expand", counting)
    # 500 instances, two distinct sizes; 'prefix' is read too, translation-like fields are not templated here.
    world = "\n".join(f"Row {{ count 1 size {0.1 if i % 2 else 0.2} 1 1 }}" for i in range(500))
    model = load(tmp_path, world, {"protos/Row.proto": ROW})
    assert len(solids(model)) == 500
    assert len(calls) == 2


def test_cache_key_tracks_read_fields_nested_node_values_and_keeps_is_values(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from wbsim.world.templates import TemplateEngine

    calls: list[str] = []
    original = TemplateEngine.expand

    def counting(self: TemplateEngine, file: str, *args: object) -> object:
        calls.append(file)
        return original(self, file, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(TemplateEngine, "expand", counting)
    knob = JS + """PROTO Knob [ field SFVec3f translation 0 0 0 field SFNode shape NULL ] {
  Solid { translation IS translation name "r%<= fields.shape.value.fields.radius.value >%" }
}
"""
    # Instances 1-3 share one expansion (same read field) but keep their own IS translation; instance 4 changes
    # a value nested inside the read SFNode field, so it is expanded again.
    world = "\n".join(f"Knob {{ translation {i + 1} 0 0 shape Sphere {{ radius {r} }} }}"
                      for i, r in enumerate((0.5, 0.5, 0.5, 0.7)))
    model = load(tmp_path, world, {"protos/Knob.proto": knob})
    assert [(n["name"], n["translation"][0]) for n in model.nodes] == [  # type: ignore[index]
        ("r0.5", 1.0), ("r0.5", 2.0), ("r0.5", 3.0), ("r0.7", 4.0)]
    assert len(calls) == 2


def test_nondeterministic_proto_expands_every_instance(tmp_path: Path) -> None:
    nd = ("# tags: nonDeterministic\n" + JS +
          "PROTO Nd [ ] {\n  %< import * as wbrandom from 'wbrandom.js'; wbrandom.seed(Number(context.id)); >%\n"
          "  Solid { name \"n%<= wbrandom.integer(0, 1000000) >%\" }\n}\n")
    model = load(tmp_path, "Nd { }\nNd { }", {"protos/Nd.proto": nd})
    first, second = (n["name"] for n in model.nodes)
    assert first != second
    again = load(tmp_path, "Nd { }\nNd { }", {"protos/Nd.proto": nd})
    assert [n["name"] for n in again.nodes] == [first, second]  # ids follow load order: reproducible


def test_two_hundred_procedural_instances_load_quickly(tmp_path: Path) -> None:
    import time

    world = "\n".join(f"Row {{ count 2 size {0.1 + i * 0.001:.3f} 1 1 prefix \"r{i}_\" }}" for i in range(200))
    path = project(tmp_path, world, {"protos/Row.proto": ROW})
    start = time.perf_counter()
    model = load_world_model(path)
    elapsed = time.perf_counter() - start
    assert len(solids(model)) == 400
    assert elapsed < 2.0, f"{elapsed:.2f} s"


# -- hidden fields ------------------------------------------------------------------------------------------------

ROVER = """PROTO Rover [ field SFVec3f translation 0 0 0 ] {
  Robot {
    translation IS translation
    children [
      HingeJoint {
        jointParameters HingeJointParameters { axis 0 1 0 }
        endPoint Solid { name "left" translation 0 0.1 0 children [
          HingeJoint { jointParameters HingeJointParameters { } endPoint Solid { name "tip" } } ] }
      }
      Group { children [ Solid { name "mast" translation 0 0 0.2 } ] }
      HingeJoint {
        jointParameters HingeJointParameters { axis 0 1 0 }
        endPoint Solid { name "right" translation 0 -0.1 0 }
      }
    ]
    physics Physics { }
  }
}
"""


def test_hidden_fields_restore_joint_positions_poses_and_velocities(tmp_path: Path) -> None:
    world = """Rover {
  hidden position_0_0 0.5
  hidden position_0_1 -0.25
  hidden position_1_0 2
  hidden translation_1 0 0.1 0.01
  hidden rotation_1 0 1 0 0.5
  hidden linearVelocity_0 1 2 3
  hidden angularVelocity_4 0 0 4
  translation 1 0 0
}"""
    model = load(tmp_path, world, {"protos/Rover.proto": ROVER})
    robot = model.nodes[0]
    by_name = {n["name"]: n for n in model.walk() if n.is_a("solid")}
    # Solids in pre-order: 0 robot, 1 left, 2 tip, 3 mast, 4 right; joints of the robot: left (0), right (1).
    left_joint, right_joint = (c for c in robot["children"] if c.is_a("joint"))  # type: ignore[union-attr]
    assert left_joint["jointParameters"]["position"] == 0.5  # type: ignore[index]
    assert right_joint["jointParameters"]["position"] == -0.25  # type: ignore[index]
    tip_joint = by_name["left"]["children"][0]  # type: ignore[index]
    assert tip_joint["jointParameters"]["position"] == 2.0
    assert by_name["left"]["translation"] == (0.0, 0.1, 0.01)
    assert by_name["left"]["rotation"] == (0.0, 1.0, 0.0, 0.5)
    assert robot["linearVelocity"] == (1.0, 2.0, 3.0) and robot["translation"] == (1.0, 0.0, 0.0)
    assert by_name["right"]["angularVelocity"] == (0.0, 0.0, 4.0)
    assert by_name["mast"]["translation"] == (0.0, 0.0, 0.2)  # untouched


def test_hidden_field_matching_nothing_is_a_warning(tmp_path: Path) -> None:
    model = load(tmp_path, "Rover { hidden translation_9 0 0 1 hidden position_0_7 1 }", {"protos/Rover.proto": ROVER})
    assert [w.message for w in model.warnings] == [
        "Hidden field 'translation_9' matches no node of PROTO Rover; ignored.",
        "Hidden field 'position_0_7' matches no node of PROTO Rover; ignored.",
    ]
    assert model.warnings[0].location == at(tmp_path / "worlds" / "w.wbt", 2, 16)


def test_hidden_field_with_a_bad_value_is_an_error(tmp_path: Path) -> None:
    error = one_error(tmp_path, "Rover { hidden translation_1 0 0 }", {"protos/Rover.proto": ROVER})
    assert "Invalid value for field 'translation' of Solid (SFVec3f)" in error.message


def test_hidden_joint_position_reaches_the_simulation(tmp_path: Path) -> None:
    from wbsim.sim.simulation import load_world

    arm = ('PROTO Arm [ ] { Robot { children [ HingeJoint { jointParameters HingeJointParameters { axis 0 0 1 } '
           'device [ PositionSensor { name "ps" } ] endPoint Solid { translation 0.1 0 0 physics Physics { } '
           'boundingObject Box { size 0.05 0.05 0.05 } } } ] controller "<none>" } }')
    readings = []
    for hidden in ("hidden position_0_0 0.5", ""):
        path = project(tmp_path, f"WorldInfo {{ gravity 0 }}\nArm {{ {hidden} }}", {"protos/Arm.proto": arm})
        sim = load_world(path, start_controllers=False)
        try:
            robot = sim.robot("robot")
            sensor = robot.getDevice("ps")
            sensor.enable(32)
            robot.step(32)
            readings.append(sensor.getValue())
        finally:
            sim.close()
    assert readings == [0.5, 0.0]  # the saved joint angle, as Webots restores it; none: the rest pose


def test_template_sees_every_field_type_in_webots_form(tmp_path: Path) -> None:
    import json

    every = JS + """PROTO Every [
  field SFBool b TRUE field SFInt32 i 3 field SFFloat f 0.5 field SFString s "x" field SFVec2f v2 1 2
  field SFVec3f v3 1 2 3 field SFColor c 1 0.5 0 field SFRotation r 0 0 2 1 field MFFloat mf [ 1 2 ]
  field MFVec3f mv [ 1 2 3, 4 5 6 ] field MFString ms [ "a" "b" ] field MFInt32 mi [ ] field MFBool mb [ FALSE ]
]
{
  %< const names = ['b', 'i', 'f', 's', 'v2', 'v3', 'c', 'r', 'mf', 'mv', 'ms', 'mi', 'mb'];
     const out = {};
     for (const n of names) out[n] = [fields[n].value, fields[n].defaultValue]; >%
  Solid { description "%<= JSON.stringify(out).replace(/"/g, "'") >%" }
}
"""
    every = every.replace("# template language: javascript\n", "# template language: javascript\n# tags: indirectFieldAccess\n")
    model = load(tmp_path, 'Every { b FALSE i 7 s "y" v3 0 0 1 r 1 0 0 0.5 mv [ ] ms "z" mi [ 1 2 ] }',
                 {"protos/Every.proto": every})
    got = json.loads(str(model.nodes[0]["description"]).replace("'", '"'))
    assert got == {
        "b": [False, True], "i": [7, 3], "f": [0.5, 0.5], "s": ["y", "x"], "v2": [{"x": 1, "y": 2}] * 2,
        "v3": [{"x": 0, "y": 0, "z": 1}, {"x": 1, "y": 2, "z": 3}], "c": [{"r": 1, "g": 0.5, "b": 0}] * 2,
        "r": [{"x": 1, "y": 0, "z": 0, "a": 0.5}, {"x": 0, "y": 0, "z": 1, "a": 1}],  # axes normalised
        "mf": [[1, 2], [1, 2]], "mv": [[], [{"x": 1, "y": 2, "z": 3}, {"x": 4, "y": 5, "z": 6}]],
        "ms": [["z"], ["a", "b"]], "mi": [[1, 2], []], "mb": [[False], [False]],
    }


# -- file-system failures are typed, located errors (issue 15) ---------------------------------------------------


def test_a_folder_named_like_a_proto_is_not_a_proto(tmp_path: Path) -> None:
    (tmp_path / "protos" / "Ball.proto").mkdir(parents=True)
    error = one_error(tmp_path, "Ball { }")
    assert isinstance(error, WorldSchemaError) and "Unknown node or PROTO 'Ball'" in error.message


def test_an_externproto_naming_a_folder_is_a_located_error(tmp_path: Path) -> None:
    (tmp_path / "worlds" / "Ball.proto").mkdir(parents=True)
    world = project(tmp_path, 'EXTERNPROTO "Ball.proto"\nBall { }')
    with pytest.raises(WorldLoadError) as info:
        load_world_model(world)
    (error,) = info.value.errors
    assert "PROTO file not found" in error.message and error.location == at(world, 2, 13)


def test_an_over_long_externproto_path_is_a_located_error(tmp_path: Path) -> None:
    name = "x" * 5000
    world = project(tmp_path, f'EXTERNPROTO "{name}.proto"\n{name} {{ }}')
    with pytest.raises(WorldLoadError) as info:
        load_world_model(world)
    first = info.value.errors[0]
    assert isinstance(first, WorldSchemaError) and "cannot be opened" in first.message
    assert first.location == at(world, 2, 13)


def test_an_unreadable_proto_file_is_a_located_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    proto = write(tmp_path / "protos" / "Ball.proto", BALL)
    world = project(tmp_path, "Ball { }")
    real_read = Path.read_text

    def denied(self: Path, *args: object, **kwargs: object) -> str:
        if self.name == "Ball.proto":  # chmod 0 does not stop root, who runs the test suite in CI
            raise PermissionError(13, "Permission denied", str(self))
        return real_read(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_text", denied)
    with pytest.raises(WorldLoadError) as info:
        load_world_model(world)
    (error,) = info.value.errors
    assert error.message == f"PROTO file {proto.resolve()} cannot be read: Permission denied."
    assert error.location == at(world, 2, 1)
