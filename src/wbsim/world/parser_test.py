"""Tests of the world/PROTO parser: grammar, EXTERNPROTO, DEF/USE resolution, hidden fields, PROTO interfaces."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbsim.errors import SourceLocation, WorldSyntaxError
from wbsim.world.parser import FIELD_TYPE_NAMES, is_identifier, parse_proto, parse_world
from wbsim.world.syntax import (
    Atom,
    ExternProto,
    FieldSyntax,
    IsSyntax,
    NodeSyntax,
    NullSyntax,
    ProtoSyntax,
    UseSyntax,
    ValueSyntax,
    WorldSyntax,
)

H = "#VRML_SIM R2023b utf8\n"
F = "w.wbt"
P = "P.proto"


def world(body: str) -> WorldSyntax:
    return parse_world(H + body, F)


def proto(body: str) -> ProtoSyntax:
    return parse_proto(H + body, P)


def world_error(body: str) -> WorldSyntaxError:
    with pytest.raises(WorldSyntaxError) as info:
        world(body)
    return info.value


def proto_error(body: str) -> WorldSyntaxError:
    with pytest.raises(WorldSyntaxError) as info:
        proto(body)
    return info.value


def loc(line: int, column: int, file: str = F) -> SourceLocation:
    return SourceLocation(file, line, column)


def field(node: NodeSyntax | UseSyntax, name: str) -> FieldSyntax:
    assert isinstance(node, NodeSyntax)
    (entry,) = [f for f in node.fields if f.name == name]
    return entry


def atoms(entry: FieldSyntax) -> list[object]:
    assert isinstance(entry.value, ValueSyntax)
    return [a.value for a in entry.value.items if isinstance(a, Atom)]


# -- world structure ------------------------------------------------------------------------------------


def test_world_header_version_and_nodes() -> None:
    w = world("WorldInfo { basicTimeStep 16 }\nSolid { }\n")
    assert w.version == "R2023b"
    assert w.file == F
    assert [n.type_name for n in w.nodes] == ["WorldInfo", "Solid"]  # type: ignore[union-attr]
    info = w.nodes[0]
    assert isinstance(info, NodeSyntax)
    assert info.location == loc(2, 1)
    entry = field(info, "basicTimeStep")
    assert entry.location == loc(2, 13)
    assert isinstance(entry.value, ValueSyntax)
    assert entry.value.items == (Atom("number", 16.0, loc(2, 27)),)
    assert entry.value.bracketed is False
    assert entry.value.location == loc(2, 27)


def test_empty_world() -> None:
    w = world("# nothing\n")
    assert w.nodes == () and w.externprotos == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [("", "Missing header"), ("#VRML_SIM R2023b\nSolid {}", "Invalid header")],
)
def test_world_header_errors(text: str, message: str) -> None:
    with pytest.raises(WorldSyntaxError) as info:
        parse_world(text, F)
    assert info.value.message.startswith(message)
    assert info.value.location == loc(1, 1)


def test_proto_requires_header_too() -> None:
    with pytest.raises(WorldSyntaxError) as info:
        parse_proto("PROTO A [ ] { Solid {} }", P)
    assert info.value.message.startswith("Missing header")
    assert info.value.location == loc(1, 1, P)


def test_all_literal_kinds() -> None:
    (node,) = world('N { a TRUE b FALSE c "s" d -1.5 e NULL f 1 2 3 }').nodes
    assert isinstance(node, NodeSyntax)
    assert atoms(field(node, "a")) == [True]
    assert atoms(field(node, "b")) == [False]
    assert atoms(field(node, "c")) == ["s"]
    assert atoms(field(node, "d")) == [-1.5]
    e = field(node, "e").value
    assert isinstance(e, ValueSyntax) and e.items == (NullSyntax(loc(2, 35)),)
    assert atoms(field(node, "f")) == [1.0, 2.0, 3.0]
    assert [a.kind for a in field(node, "a").value.items] == ["bool"]  # type: ignore[union-attr]


def test_bracketed_lists_and_nested_nodes() -> None:
    (node,) = world('Solid { children [ Shape { geometry Box { size 1 1 1 } } USE_ME { } ] info [ "a" "b" ] e [] }').nodes
    children = field(node, "children").value
    assert isinstance(children, ValueSyntax) and children.bracketed
    shape, other = children.items
    assert isinstance(shape, NodeSyntax) and shape.type_name == "Shape"
    geometry = field(shape, "geometry").value
    assert isinstance(geometry, ValueSyntax) and not geometry.bracketed
    (box,) = geometry.items
    assert isinstance(box, NodeSyntax) and box.type_name == "Box"
    assert isinstance(other, NodeSyntax) and other.type_name == "USE_ME"
    assert atoms(field(node, "info")) == ["a", "b"]
    empty = field(node, "e").value
    assert isinstance(empty, ValueSyntax) and empty.items == () and empty.bracketed


def test_mf_bare_single_value_is_not_bracketed() -> None:
    (node,) = world("Solid { children Solid { } coulombFriction 0.5 }").nodes
    children = field(node, "children").value
    assert isinstance(children, ValueSyntax) and not children.bracketed and len(children.items) == 1
    assert atoms(field(node, "coulombFriction")) == [0.5]


def test_bare_literal_run_stops_at_the_next_field_name() -> None:
    (node,) = world("Pose { translation 1 2 3 rotation 0 0 1 1.57 }").nodes
    assert atoms(field(node, "translation")) == [1.0, 2.0, 3.0]
    assert atoms(field(node, "rotation")) == [0.0, 0.0, 1.0, 1.57]


def test_hidden_fields_are_kept_apart() -> None:
    (node,) = world(
        "MyProto {\n hidden position_0_0 1\n hidden linearVelocity_1 0 0 0 hidden rotation_5 0 0 1 0.5"
        " hidden list_2 [ 1 2 ] size 1 }"
    ).nodes
    assert isinstance(node, NodeSyntax)
    assert [f.name for f in node.fields] == ["size"]
    assert [f.name for f in node.hidden] == ["position_0_0", "linearVelocity_1", "rotation_5", "list_2"]
    assert [atoms(f) for f in node.hidden] == [[1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.5], [1.0, 2.0]]
    assert node.hidden[0].location == loc(3, 9)


def test_hidden_field_needs_a_name_and_value() -> None:
    error = world_error("Solid { hidden }")
    assert error.message == "Expected a field name after 'hidden', found '}'."
    assert error.location == loc(2, 16)


# -- grammar errors ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "message", "line", "column"),
    [
        ("Solid {", "Missing '}' to close node Solid opened at line 2.", 2, 8),
        ("Solid {\n children [ Solid { }", "Missing ']' to close the list of field 'children' of Solid opened at line 3.", 3, 22),
        ("Solid { children [ 1 } ]", "Unexpected '}' in the list of field 'children' of Solid.", 2, 22),
        ("Solid { 1 }", "Expected a field name or '}' in node Solid, found '1'.", 2, 9),
        ('Solid { "name" }', "Expected a field name or '}' in node Solid, found string \"name\".", 2, 9),
        ("Solid { DEF }", "Expected a field name or '}' in node Solid, found 'DEF'.", 2, 9),
        ("Solid { a.b 1 }", "Expected a field name or '}' in node Solid, found 'a.b'.", 2, 9),
        ("Solid { name }", "Expected a value for field 'name' of Solid, found '}'.", 2, 14),
        ("Solid { name rover }", "Expected a value for field 'name' of Solid, found 'rover'.", 2, 14),
        ("Solid", "Expected '{' after node type Solid, found end of file.", 2, 6),
        ("Solid }", "Expected '{' after node type Solid, found '}'.", 2, 7),
        ("{ }", "Expected a node, found '{'.", 2, 1),
        ("1", "Expected a node, found '1'.", 2, 1),
        ("NULL", "Expected a node type name (an identifier), found 'NULL'.", 2, 1),
        ("DEF 1a Solid {}", "Invalid number '1a'.", 2, 5),
        ("DEF _1 2 {}", "Expected a node type name (an identifier), found '2'.", 2, 8),
        ("DEF a.b Solid {}", "Expected a name after DEF (an identifier), found 'a.b'.", 2, 5),
        ("DEF Solid {}", "Expected a node type name (an identifier), found '{'.", 2, 11),
        ("DEF TRUE Solid {}", "Expected a name after DEF (an identifier), found 'TRUE'.", 2, 5),
        ("USE", "Expected a DEF name after USE (an identifier), found end of file.", 2, 4),
        ("PROTO A [] { Solid {} }", "PROTO definitions belong in .proto files, not in worlds.", 2, 1),
        ("Solid { translation 1 IS x }", "Expected a field name or '}' in node Solid, found 'IS'.", 2, 23),
    ],
)
def test_grammar_errors(body: str, message: str, line: int, column: int) -> None:
    error = world_error(body)
    assert error.message == message
    assert error.location == loc(line, column)


@pytest.mark.parametrize(
    ("body", "message", "path"),
    [
        ('Robot { name "rover" children [ Solid { } Solid { } HingeJoint { endPoint Solid { children [ USE X ] } } ] }',
         "USE X: no node was defined", 'Robot "rover" > children[2] > HingeJoint > endPoint > Solid > children[0]'),
        ('Robot { name "rover" children [ Solid { } Pose { } HingeJoint { endPoint Solid {\n name "a\\q" } } ] }',
         "Invalid escaped character", 'Robot "rover" > children[2] > HingeJoint > endPoint > Solid > name'),
        ('DEF R Robot { children [ Solid { name "x } ] }', "Unclosed string literal",
         "DEF R Robot > children[0] > Solid > name"),
        ("Solid { children [ Shape { geometry Box { size 1 1 ] } ] }", "Expected a field name or '}' in node Box",
         "Solid > children[0] > Shape > geometry > Box"),
        ("Solid { children [ Shape { geometry Box { size 1 1 } ] }", "Expected a field name or '}' in node Shape",
         "Solid > children[0] > Shape"),
        ("Solid { children [ Solid { } Group { } ] translation 1 +inf 0 }", "Invalid number '+inf'",
         "Solid > translation"),
        ("Solid { children [ Solid { } } ] }", "Unexpected '}' in the list", "Solid > children[1]"),
        ("Solid { hidden p_0 1.2.3 }", "Invalid number", "Solid > p_0"),
        ("USE X", "USE X: no node was defined", ""),
        ("Solid { name \"n\" } Solid { name 1 } Solid {", "Missing '}' to close node Solid", "Solid"),
    ],
)
def test_syntax_errors_name_the_node_path(body: str, message: str, path: str) -> None:
    error = world_error(body)
    assert error.message.startswith(message)
    assert error.node_path == path


def test_proto_syntax_errors_name_the_proto_and_field() -> None:
    error = proto_error('PROTO A [ field MFString s [ "a" "b\\t" ] ] { Solid { } }')
    assert error.message.startswith("Invalid escaped character")
    assert error.node_path == "PROTO A > s[1]"
    error = proto_error("PROTO A [ ] { Robot { children [ Solid { translation 1 2 x } ] } }")
    assert error.message == "Expected a value for field 'x' of Solid, found '}'."
    assert error.node_path == "PROTO A > Robot > children[0] > Solid > x"


def test_is_is_only_allowed_in_proto_files() -> None:
    error = world_error("Solid {\n  name IS n }")
    assert error.message == "'IS' keyword is only allowed in .proto files."
    assert error.location == loc(3, 8)


def test_lexer_errors_surface_from_the_parser() -> None:
    error = world_error('Solid { name "abc }')
    assert error.message.startswith("Unclosed string literal")
    assert error.location == loc(2, 14)


# -- EXTERNPROTO --------------------------------------------------------------------------------------------


def test_externprotos() -> None:
    w = world(
        'EXTERNPROTO "../protos/Rover.proto"\nIMPORTABLE EXTERNPROTO "webots://projects/x/Ball.PROTO"\n'
        'Rover { }\nEXTERNPROTO "https://a.b/c/Late.Proto"\nLate { }'
    )
    assert w.externprotos == (
        ExternProto("../protos/Rover.proto", "Rover", loc(2, 13)),
        ExternProto("webots://projects/x/Ball.PROTO", "Ball", loc(3, 24)),
        ExternProto("https://a.b/c/Late.Proto", "Late", loc(5, 13)),
    )
    assert [n.type_name for n in w.nodes] == ["Rover", "Late"]  # type: ignore[union-attr]


def test_externproto_windows_path_name() -> None:
    (e,) = world('EXTERNPROTO "protos\\\\sub\\\\Arm.proto"').externprotos
    assert e.name == "Arm"


@pytest.mark.parametrize("url", ["x.txt", "x.proto.bak", "x", "protos/"])
def test_externproto_url_must_end_in_proto(url: str) -> None:
    error = world_error(f'EXTERNPROTO "{url}"')
    assert error.message == f"Expected URL to end with '.proto' or '.PROTO', found \"{url}\"."
    assert error.location == loc(2, 13)


def test_externproto_needs_a_string() -> None:
    error = world_error("EXTERNPROTO Rover.proto")
    assert error.message == "Expected the URL of the PROTO file after EXTERNPROTO, found 'Rover.proto'."
    assert error.location == loc(2, 13)


@pytest.mark.parametrize("body", ["IMPORTABLE Solid {}", "Solid {}\nIMPORTABLE Solid {}", "IMPORTABLE"])
def test_importable_must_be_followed_by_externproto(body: str) -> None:
    error = world_error(body)  # used to loop forever
    assert error.message.startswith("Expected EXTERNPROTO after IMPORTABLE")


# -- DEF / USE -------------------------------------------------------------------------------------------------


def test_use_refers_to_its_def_node() -> None:
    w = world("DEF BOX Box { size 1 2 3 }\nUSE BOX")
    box, use = w.nodes
    assert isinstance(box, NodeSyntax) and box.def_name == "BOX"
    assert isinstance(use, UseSyntax)
    assert use.name == "BOX" and use.target is box
    assert use.location == loc(3, 1)


def test_use_refers_to_the_closest_preceding_def() -> None:
    w = world(
        "DEF A Shape { geometry Box {} }\nUSE A\nDEF A Shape { geometry Sphere {} }\nUSE A\n"
        "Group { children [ DEF A Shape { geometry Capsule {} } ] }\nUSE A"
    )
    first, use1, second, use2, group, use3 = w.nodes
    assert isinstance(use1, UseSyntax) and use1.target is first
    assert isinstance(use2, UseSyntax) and use2.target is second
    assert isinstance(group, NodeSyntax)
    (inner,) = group.fields[0].value.items  # type: ignore[union-attr]
    assert isinstance(use3, UseSyntax) and use3.target is inner


def test_def_inside_a_node_is_visible_after_it_closes() -> None:
    w = world("Solid { physics DEF PH Physics { } }\nSolid { physics USE PH }")
    use = w.nodes[1].fields[0].value.items[0]  # type: ignore[union-attr]
    assert isinstance(use, UseSyntax) and use.target.type_name == "Physics"


def test_use_inside_its_own_def_is_dangling() -> None:
    error = world_error("DEF G Group {\n  children [ USE G ] }")
    assert error.message.startswith("USE G: no node was defined with DEF G before this point")
    assert error.location == loc(3, 18)


def test_use_inside_its_own_def_refers_to_an_earlier_def() -> None:
    w = world("DEF G Group { }\nDEF G Group { children [ USE G ] }")
    first, second = w.nodes
    use = second.fields[0].value.items[0]  # type: ignore[union-attr]
    assert isinstance(use, UseSyntax) and use.target is first


def test_dangling_use_lists_known_defs() -> None:
    error = world_error("DEF B Box {}\nDEF A Sphere {}\nShape { geometry USE C }")
    assert error.message == (
        "USE C: no node was defined with DEF C before this point (DEF names defined so far: A, B)."
    )
    assert error.location == loc(4, 22)


def test_use_before_def_is_dangling() -> None:
    error = world_error("USE A\nDEF A Box {}")
    assert error.message.endswith("(DEF names defined so far: none).")
    assert error.location == loc(2, 5)


def test_def_scope_is_one_file() -> None:
    # a DEF of a PROTO file is not visible from the world and vice versa: each file has its own parser
    parse_proto(H + "PROTO A [ ] { Group { children [ DEF X Shape {} USE X ] } }", P)
    error = world_error("USE X")
    assert "no node was defined with DEF X" in error.message


# -- PROTO files ------------------------------------------------------------------------------------------------

PROTO_TEXT = """EXTERNPROTO "Wheel.proto"
IMPORTABLE EXTERNPROTO "webots://projects/x/Tyre.proto"
PROTO Rover [
  field SFVec3f translation 0 0 0
  vrmlField SFString{"a", "b"} mode "a"
  hiddenField MFNode extra []
  deprecatedField SFNode{Box{}, Sphere{}} shape NULL
  unconnectedField SFFloat unused 1
  w3dField MFFloat values [ 1 2 ]
]
{
  Robot {
    translation IS translation
    children [ Wheel { } ]
  }
}
"""


def test_proto_file() -> None:
    p = parse_proto(H + PROTO_TEXT, P)
    assert p.name == "Rover" and p.file == P and p.location == loc(4, 7, P)
    assert [(e.name, e.url) for e in p.externprotos] == [("Wheel", "Wheel.proto"), ("Tyre", "webots://projects/x/Tyre.proto")]
    assert [(d.keyword, d.type_name, d.name) for d in p.fields] == [
        ("field", "SFVec3f", "translation"),
        ("vrmlField", "SFString", "mode"),
        ("hiddenField", "MFNode", "extra"),
        ("deprecatedField", "SFNode", "shape"),
        ("unconnectedField", "SFFloat", "unused"),
        ("w3dField", "MFFloat", "values"),
    ]
    translation, mode, extra, shape, unused, vals = p.fields
    assert translation.location == loc(5, 17, P)
    assert translation.accepted is None
    assert [a.value for a in translation.default.items] == [0.0, 0.0, 0.0]  # type: ignore[union-attr]
    assert mode.accepted is not None and [a.value for a in mode.accepted] == ["a", "b"]  # type: ignore[union-attr]
    assert shape.accepted is not None and [n.type_name for n in shape.accepted] == ["Box", "Sphere"]  # type: ignore[union-attr]
    assert isinstance(shape.default.items[0], NullSyntax)
    assert extra.default.bracketed and extra.default.items == ()
    assert vals.default.bracketed
    assert p.body.type_name == "Robot"
    is_entry = field(p.body, "translation")
    assert is_entry.value == IsSyntax("translation", loc(14, 20, P))


@pytest.mark.parametrize(
    ("body", "message", "line", "column"),
    [
        ("Solid {}", "Expected 'PROTO', found 'Solid'.", 2, 1),
        ("PROTO NULL [ ] { Solid {} }", "Expected the PROTO name (an identifier), found 'NULL'.", 2, 7),
        ("PROTO A { Solid {} }", "Expected '[' to open the interface of PROTO A, found '{'.", 2, 9),
        ("PROTO A [ ] Solid {}", "Expected '{' to open the body of PROTO A, found 'Solid'.", 2, 13),
        ("PROTO A [ SFFloat x 1 ] { Solid {} }",
         "Expected a field declaration (deprecatedField, field, hiddenField, unconnectedField, vrmlField, "
         "w3dField) or ']', found 'SFFloat'.", 2, 11),
        ("PROTO A [ field SFDouble x 1 ] { Solid {} }", "Unknown field type 'SFDouble': expected one of "
         + ", ".join(sorted(FIELD_TYPE_NAMES)) + ".", 2, 17),
        ("PROTO A [ field SFFloat x 1 field SFInt32 x 2 ] { Solid {} }", "Duplicate field 'x' in PROTO A.", 2, 43),
        ("PROTO A [ field SFFloat 1 ] { Solid {} }", "Expected a field name (an identifier), found '1'.", 2, 25),
        ("PROTO A [ field SFFloat x ] { Solid {} }", "Expected a value for the default of field 'x', found ']'.", 2, 27),
        ("PROTO A [ field SFString{\"a\" x ] { Solid {} }", "Unexpected 'x' in accepted values.", 2, 30),
        ("PROTO A [ field SFString{\"a\"", "Missing '}' after the accepted values opened at line 2.", 2, 29),
        ("PROTO A [ ] { USE X }", "USE X: no node was defined with DEF X before this point (DEF names defined so far: none).", 2, 19),
        ("PROTO A [ ] { DEF X Group {} USE X }", "A PROTO body has exactly one root node; found 'USE'.", 2, 30),
        ("PROTO A [ ] { Solid {} Solid {} }", "A PROTO body has exactly one root node; found 'Solid'.", 2, 24),
        ("PROTO A [ ] { Solid {}", "Missing '}' to close the body of PROTO A.", 2, 23),
        ("PROTO A [ ] { Solid {} } Solid {}", "Unexpected 'Solid' after the PROTO definition.", 2, 26),
        ("PROTO A [ ] { Solid {} } PROTO B [ ] { Solid {} }", "Unexpected 'PROTO' after the PROTO definition.", 2, 26),
    ],
)
def test_proto_grammar_errors(body: str, message: str, line: int, column: int) -> None:
    error = proto_error(body)
    assert error.message == message
    assert error.location == loc(line, column, P)


def test_proto_body_cannot_be_use() -> None:
    # the only DEF a body's USE can see is one in an interface default
    error = proto_error("PROTO A [ field SFNode n DEF X Box {} ] { USE X }")
    assert error.message == "The body of a PROTO must be a node, not USE."
    assert error.location == loc(2, 43, P)


@pytest.mark.parametrize(
    ("body", "column", "read"),
    [
        ('PROTO A [ field SFString n "" ] { Solid { name "%<= fields.n.value >%" } }', 35, {"n"}),
        ("PROTO A [ field SFVec3f t 0 0 0 ] { %< const k = 2; >% DEF S Solid { translation %<= k >% 0 0 } }",
         62, set()),
    ],
)
def test_procedural_proto_keeps_its_body_as_a_template(body: str, column: int, read: set[str]) -> None:
    p = proto(body)
    assert p.template is not None
    assert p.body.type_name == "Solid" and p.body.fields == []
    assert p.body.location == loc(2, column, P)
    assert body[column - 1:].startswith("Solid")
    assert p.template.text[p.template.offset:].startswith(p.template.content)
    assert p.template.content.rstrip().endswith("}") and p.template.content.lstrip().startswith(("Solid", "%<"))
    assert p.template.regenerators == read
    assert p.template.deterministic


def test_procedural_proto_regenerators_and_tags() -> None:
    text = ("#VRML_SIM R2023b utf8\n# tags: nonDeterministic, indirectFieldAccess\n"
            "PROTO A [ field SFFloat a 1 field SFFloat b 2 ] { Solid { %< let x = 1; >% } }")
    p = parse_proto(text, P)
    assert p.template is not None and not p.template.deterministic
    assert p.template.regenerators == {"a", "b"}  # indirect access: every field
    p = proto("PROTO A [ field SFFloat a 1 field SFFloat ab 2 ] { Solid { name %<= fields.ab.value >% } }")
    assert p.template is not None and p.template.regenerators == {"ab"}  # 'a' is not read


@pytest.mark.parametrize(
    ("body", "column"),
    [
        ('PROTO A [ ] { Solid { name "x" url [ "a" "b%{ x }%" ] } }', 44),
        ("PROTO A [ ] { Solid { translation %{= t }% } }", 35),
    ],
)
def test_lua_templates_are_refused(body: str, column: int) -> None:
    error = proto_error(body)
    assert "Lua templates are not supported; this PROTO predates Webots R2022a" in error.message
    assert error.location == loc(2, column, P)


def test_template_like_strings_are_fine_in_worlds() -> None:
    (node,) = world('Robot { controllerArgs [ "%{x}" "%<y" ] }').nodes
    assert atoms(field(node, "controllerArgs")) == ["%{x}", "%<y"]


def test_is_in_proto_body() -> None:
    p = proto("PROTO A [ field SFNode g NULL ] { Shape { geometry IS g } }")
    entry = field(p.body, "geometry")
    assert entry.value == IsSyntax("g", loc(2, 55, P))


def test_is_needs_an_identifier() -> None:
    error = proto_error("PROTO A [ ] { Shape { geometry IS 1 } }")
    assert error.message == "Expected a PROTO field name after IS (an identifier), found '1'."


# -- identifiers --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["a", "Solid", "_x", "my-robot", "a1", "é", "x+y", "a%b", "hidden", "field_"])
def test_identifiers(text: str) -> None:
    assert is_identifier(text)


@pytest.mark.parametrize(
    "text",
    ["", "1a", "9", "a.b", "a,b", "a#b", "a'b", 'a"b', "a[b", "a]b", "a{b", "a}b", "a\\b", "a b", "a\x01b",
     "DEF", "USE", "PROTO", "EXTERNPROTO", "IMPORTABLE", "IS", "TRUE", "FALSE", "NULL", "field", "vrmlField",
     "hiddenField", "deprecatedField", "unconnectedField", "SFFloat", "MFNode", "ROUTE", "TO", "eventIn",
     "eventOut", "exposedField", "MFTime", "SFImage", "SFTime"],
)
def test_non_identifiers(text: str) -> None:
    assert not is_identifier(text)


@given(st.text(st.characters(max_codepoint=0x3000), min_size=1, max_size=6))
@settings(max_examples=400)
def test_identifier_characters_follow_the_rules(text: str) -> None:
    # The rule as written in VRML97 terms: no control or space character (code point 0x20 or below) and none
    # of " # ' , . [ \\ ] { } (the leading "a": no digit first, no keyword starts with it).
    allowed = all(ord(c) > 0x20 and c not in "\"#',.[\\]{}" for c in text)
    assert is_identifier("a" + text) == allowed


# -- properties -----------------------------------------------------------------------------------------------------

SEPARATORS = st.lists(st.sampled_from([" ", ",", "\n", "\t", ",\n", "# c } ] \"x\n", "\r\n"]), min_size=1, max_size=3)
WORLD_PIECES = [
    "EXTERNPROTO", '"a/B.proto"', "DEF", "R", "Robot", "{", "name", '"r, #1"', "translation", "1", "-2", ".5",
    "children", "[", "DEF", "S", "Shape", "{", "geometry", "Box", "{", "size", "1", "1", "1", "}", "}", "USE", "S",
    "Solid", "{", "boundingObject", "NULL", "}", "]", "info", '"x"', "hidden", "p_0", "1", "supervisor", "TRUE", "}",
]


def _shape(node: object) -> object:
    """A location-free summary of a syntax tree, for comparing parses."""
    if isinstance(node, NodeSyntax):
        return ("node", node.type_name, node.def_name, [(f.name, _shape(f.value)) for f in node.fields])
    if isinstance(node, UseSyntax):
        return ("use", node.name, _shape(node.target))
    if isinstance(node, ValueSyntax):
        return ("value", node.bracketed, [_shape(i) for i in node.items])
    if isinstance(node, Atom):
        return (node.kind, node.value)
    if isinstance(node, NullSyntax):
        return "NULL"
    raise AssertionError(node)


@settings(max_examples=60)
@given(st.data())
def test_separators_and_comments_do_not_change_the_parse(data: st.DataObject) -> None:
    reference = world(" ".join(WORLD_PIECES))
    text = "".join(p + "".join(data.draw(SEPARATORS)) for p in WORLD_PIECES)
    parsed = world(text)
    assert [_shape(n) for n in parsed.nodes] == [_shape(n) for n in reference.nodes]
    assert [(e.url, e.name) for e in parsed.externprotos] == [(e.url, e.name) for e in reference.externprotos]


finite = st.floats(allow_nan=False, allow_infinity=False)
plain_text = st.text(st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)), max_size=20)


@given(st.lists(st.one_of(finite, plain_text, st.booleans()), min_size=1, max_size=10))
def test_literals_round_trip(items: list[object]) -> None:
    def write(v: object) -> str:
        if isinstance(v, bool):
            return "TRUE" if v else "FALSE"
        if isinstance(v, float):
            return repr(v)
        assert isinstance(v, str)
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'

    (node,) = world("N { f [ " + " ".join(write(v) for v in items) + " ] g " + write(items[0]) + " }").nodes
    assert atoms(field(node, "f")) == items
    assert atoms(field(node, "g")) == items[:1]
