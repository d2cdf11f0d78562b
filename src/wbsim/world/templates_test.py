"""Tests of the template engine: Webots' template language, ``context``, ``wbfile``, every module function."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from wbsim.errors import SourceLocation, TemplateError
from wbsim.world.templates import MODULE_NAMES, TemplateContext, TemplateEngine, js_literal

FILE = "/project/protos/T.proto"


def engine(tmp_path: Path | None = None) -> TemplateEngine:
    temporary = str(tmp_path / "tmp") if tmp_path is not None else "/tmp/wbsim-test"
    return TemplateEngine(TemplateContext("/project/worlds/w.wbt", "/project", "/opt/webots", "R2023b", "NUE",
                                          temporary))


def run(content: str, fields: dict[str, object] | None = None, file: str = FILE, line: int = 1,
        eng: TemplateEngine | None = None) -> str:
    fields = fields or {}
    values = {name: {"value": value, "defaultValue": value} for name, value in fields.items()}
    eng = eng or engine()
    return eng.expand(file, content, line, "T", js_literal(values), tuple(fields), 3).text


def value(expression: str, imports: str = "") -> object:
    """The JSON value of a JavaScript expression evaluated in a template (modules imported by name)."""
    head = "".join(f"import * as {m} from '{m}.js';" for m in imports.split())
    return json.loads(run(f"%< {head} >%%<= JSON.stringify({expression}) >%"))


# -- the template language ----------------------------------------------------------------------------------------


def test_text_statements_and_expressions() -> None:
    content = 'Group { children [\n%< for (let i = 0; i < 3; ++i) { >%\n  Pose { translation %<= i >% 0 0 }\n%< } >%\n] }'
    assert run(content) == (
        "Group { children [\n\n  Pose { translation 0 0 0 }\n\n  Pose { translation 1 0 0 }\n\n"
        "  Pose { translation 2 0 0 }\n\n] }"
    )


def test_text_is_kept_verbatim() -> None:
    # backslashes, quotes, template-literal syntax and comments pass through unchanged
    text = 'Solid { name "a\\"b" description "${x} `q` \\\\" } # %< is a marker only outside this comment? no'
    assert run(text.split("%<")[0]) == text.split("%<")[0]


def test_expressions_convert_like_javascript_addition() -> None:
    assert run("%<= 0.1 + 0.2 >% %<= true >% %<= [1, 2] >% %<= 'x' + 1 >% %<= 1e21 >%") == (
        "0.30000000000000004 true 1,2 x1 1e+21"
    )


def test_field_values_of_every_type() -> None:
    fields = {
        "b": True, "i": 7, "f": 0.5, "s": "hi", "v2": {"x": 1.0, "y": 2.0}, "v3": {"x": 1.0, "y": 2.0, "z": 3.0},
        "c": {"r": 1.0, "g": 0.5, "b": 0.0}, "r": {"x": 0.0, "y": 0.0, "z": 1.0, "a": 1.5}, "mf": [1.0, 2.0],
        "node": {"node_name": "Box", "fields": {"size": {"value": {"x": 1.0, "y": 2.0, "z": 3.0},
                                                          "defaultValue": {"x": 2.0, "y": 2.0, "z": 2.0}}}},
        "empty": None,
    }
    content = ("%<= fields.b.value >% %<= fields.i.value + 1 >% %<= fields.f.value * 2 >% %<= fields.s.value >% "
               "%<= fields.v2.value.y >% %<= fields.v3.value.z >% %<= fields.c.value.g >% %<= fields.r.value.a >% "
               "%<= fields.mf.value.length >% %<= fields.node.value.node_name >% "
               "%<= fields.node.value.fields.size.value.y >% %<= fields.node.value.fields.size.defaultValue.x >% "
               "%<= fields.empty.value === undefined >% %<= fields.i.defaultValue >%")
    assert run(content, fields) == "true 8 1 hi 2 3 0.5 1.5 2 Box 2 2 true 7"


def test_context() -> None:
    got = value("context")
    assert got == {
        "os": "linux", "world": "/project/worlds/w.wbt", "proto": FILE, "webots_home": "/opt/webots",
        "project_path": "/project/", "temporary_files_path": "/tmp/wbsim-test/", "id": "3",
        "coordinate_system": "NUE", "webots_version": {"major": "R2023b", "revision": "0"},
    }


def test_strict_mode() -> None:
    with pytest.raises(TemplateError) as info:
        run("%< undeclared = 1; >%")
    assert "'undeclared' is not defined" in info.value.message


def test_named_imports_and_aliases() -> None:
    assert run("%< import {norm, dot as d} from 'wbvector2.js'; >%%<= norm({x: 3, y: 4}) + d({x: 1, y: 0}, {x: 2, y: 0}) >%") == "7"


def test_imports_are_hoisted_out_of_blocks() -> None:
    assert run("%< if (true) { import * as wbmath from 'wbmath.js'; } >%%<= wbmath.radiansToDegrees(Math.PI) >%") == "180"


def test_module_state_is_fresh_for_every_expansion() -> None:
    eng = engine()
    content = "%< import * as wbrandom from 'wbrandom.js'; >%%<= wbrandom.integer(0, 1000) >%"
    assert run(content, eng=eng) == run(content, eng=eng)


# -- errors --------------------------------------------------------------------------------------------------------


def test_javascript_exception_is_located_at_the_template_line() -> None:
    with pytest.raises(TemplateError) as info:
        run("Solid {\n  %< const a = 1;\n     null.x; >%\n}", line=12)
    assert info.value.location == SourceLocation(FILE, 14, 1)
    assert info.value.message == "JavaScript error in the PROTO template: TypeError: cannot read property 'x' of null"


def test_error_inside_a_module_is_located_at_the_calling_template_line() -> None:
    with pytest.raises(TemplateError) as info:
        run("\n\n%< import * as wbgeometry from 'wbgeometry.js'; wbgeometry.bSpline2(null, 2); >%", line=5)
    assert info.value.location == SourceLocation(FILE, 7, 1)


def test_syntax_error_is_located() -> None:
    with pytest.raises(TemplateError) as info:
        run("Solid {\n\n  %< let = ; >%\n}", line=4)
    assert info.value.location == SourceLocation(FILE, 6, 1)
    assert "SyntaxError" in info.value.message


def test_unknown_field_names_the_field() -> None:
    with pytest.raises(TemplateError) as info:
        run("\n%<= fields.sise.value >%", {"size": 1.0}, line=3)
    assert info.value.message == "The template reads fields.sise, but PROTO T has no field 'sise' (its fields: size)."
    assert info.value.location == SourceLocation(FILE, 4, 1)
    with pytest.raises(TemplateError) as info:  # read by a computed name: found when it runs
        run("%< const k = 'si' + 'se'; >%%<= fields[k].value >%", {"size": 1.0}, file="/other/T.proto")
    assert "PROTO T has no field 'sise'" in info.value.message


def test_unclosed_statement() -> None:
    with pytest.raises(TemplateError) as info:
        run("Solid {\n %< let a = 1;\n}", line=3)
    assert info.value.message == "Template statement '%<' is never closed with '>%'."
    assert info.value.location == SourceLocation(FILE, 4, 1)


@pytest.mark.parametrize(("module", "message"), [
    ("wbfile", "'wbfile' is global in templates and must not be imported"),
    ("wbnothing", "Unknown template module 'wbnothing.js'"),
])
def test_bad_imports(module: str, message: str) -> None:
    with pytest.raises(TemplateError) as info:
        run(f"\n%< import * as x from '{module}.js'; >%", line=2)
    assert message in info.value.message
    assert info.value.location == SourceLocation(FILE, 3, 1)


def test_error_stream_is_returned() -> None:
    eng = engine()
    result = eng.expand(FILE, "%< import * as wbutility from 'wbutility.js'; console.error('e1'); "
                              "wbutility.assert(false, 'e2'); wbutility.assert(true, 'no'); console.log('out'); >%",
                        1, "T", "{}", (), 1)
    assert result.errors == ("e1", "e2")


# -- wbfile --------------------------------------------------------------------------------------------------------


def test_wbfile(tmp_path: Path) -> None:
    eng = engine(tmp_path)
    (tmp_path / "data.txt").write_text("1 2 3", encoding="utf-8")
    content = (f"%<= wbfile.fileExists('{tmp_path / 'data.txt'}') >% %<= wbfile.fileExists('{tmp_path / 'no'}') >% "
               f"%<= wbfile.readTextFile('{tmp_path / 'data.txt'}') >% %<= wbfile.writeTextFile('out.txt', 'hey') >%")
    assert run(content, eng=eng) == "true false 1 2 3 true"
    assert (tmp_path / "tmp" / "out.txt").read_text(encoding="utf-8") == "hey"


def test_wbfile_sees_its_own_writes_and_survives_a_caught_miss(tmp_path: Path) -> None:
    # A file written by the template is read back in the same run; a template that catches the exception of a
    # first read still gets the file's text (it is run again once the file is read).
    eng = engine(tmp_path)
    (tmp_path / "a.txt").write_text("A", encoding="utf-8")
    content = (f"%< let a; try {{ a = wbfile.readTextFile('{tmp_path / 'a.txt'}'); }} catch (e) {{ a = 'lost'; }} "
               f"wbfile.writeTextFile('b.txt', a + 'B'); >%%<= a >% "
               f"%<= wbfile.readTextFile('{tmp_path / 'tmp' / 'b.txt'}') >% %<= wbfile.readTextFile('/no/such') === '' >%")
    assert run(content, eng=eng) == "A AB true"
    assert (tmp_path / "tmp" / "b.txt").read_text(encoding="utf-8") == "AB"


@pytest.mark.timeout(30, method="thread")  # QuickJS does not return to Python while it loops
def test_endless_template_using_wbfile_is_stopped(tmp_path: Path) -> None:
    # Templates that use wbfile run under the time limit too (they used to run without one and could hang).
    (tmp_path / "a.txt").write_text("A", encoding="utf-8")
    eng = TemplateEngine(TemplateContext("/w.wbt", "/p", "", "R2023b", "ENU", str(tmp_path)), time_limit_s=1)
    with pytest.raises(TemplateError) as info:
        eng.expand(FILE, f"\n%< wbfile.readTextFile('{tmp_path / 'a.txt'}'); while (true) {{}} >%", 7, "T", "{}", (), 1)
    assert "interrupted (the template ran for more than 1 s)" in info.value.message
    assert info.value.location == SourceLocation(FILE, 8, 1)


@pytest.mark.timeout(60, method="thread")
def test_reruns_for_files_share_the_time_limit(tmp_path: Path) -> None:
    # The work before the file reads is repeated by every run (one per new file): without a shared limit, 1000
    # runs of a fraction of the limit each.
    eng = TemplateEngine(TemplateContext("/w.wbt", "/p", "", "R2023b", "ENU", str(tmp_path)), time_limit_s=1)
    content = ("\n%< let x = 0; for (let k = 0; k < 1e6; ++k) x += k; "
               "for (let i = 0; i < 1000; ++i) wbfile.fileExists('/no/such/' + i); >%")
    with pytest.raises(TemplateError) as info:
        eng.expand(FILE, content, 7, "T", "{}", (), 1)
    assert "the template ran for more than 1 s" in info.value.message


def test_clock_and_math_random_are_the_same_on_every_load() -> None:
    # Date.now(), new Date() and Math.random() are the template's only other sources of variation: the same
    # world must load the same way every time.
    expression = "[Date.now(), Date.now(), new Date().getTime(), Math.random(), Math.random(), new Date(5).getTime()]"
    first = value(expression)
    assert first == value(expression)
    assert first[0] < first[1] < first[2]
    assert first[3] != first[4] and 0 <= first[3] < 1 and 0 <= first[4] < 1
    assert first[5] == 5


# -- modules -------------------------------------------------------------------------------------------------------


def webots_lcg(seed: float, count: int) -> list[float]:
    """Webots' generator states after ``seed``: the LCG in double precision, as its JavaScript computes it."""
    states = []
    state = float(seed)
    for _ in range(count):
        state = math.fmod(1140671485.0 * state + 12820163.0, 16777216.0)
        states.append(state)
    return states


@pytest.mark.parametrize("seed", [0, 1, 42, 123456])
def test_wbrandom_gives_webots_sequence(seed: int) -> None:
    got = value(f"(() => {{ wbrandom.seed({seed}); return [wbrandom.real(), wbrandom.real(2), wbrandom.real(-1, 1), "
                "wbrandom.integer(), wbrandom.integer(6), wbrandom.integer(-3, 3)]; })()", "wbrandom")
    s = webots_lcg(seed, 6)
    top = 16777215.0
    assert got == [s[0] / top, s[1] * 2 / top, -1 + s[2] * 2 / top, s[3], 1 + s[4] % 6, -3 + s[5] % 7]


def test_wbrandom_default_seed_is_zero() -> None:
    assert value("wbrandom.real()", "wbrandom") == webots_lcg(0, 1)[0] / 16777215.0


def test_wbcore_and_wbutility_copies_and_conversions() -> None:
    assert value("(() => { const a = {p: [1, {q: 2}]}; const b = wbcore.deepCopy(a); b.p[1].q = 3; "
                 "return [a.p[1].q, b.p[1].q, wbutility.deepCopy([1]).length]; })()", "wbcore wbutility") == [2, 3, 1]
    assert value("[wbutility.degreesToRadians(180), wbutility.radiansToDegrees(Math.PI / 2), "
                 "wbmath.degreesToRadians(90), wbmath.radiansToDegrees(Math.PI)]", "wbutility wbmath") == [
        math.pi, 90.0, math.pi / 2, 180.0]


def test_wbutility_type_checks() -> None:
    assert value("[wbutility.isScalar(1), wbutility.isScalar('1'), wbutility.isVector2({x: 1, y: 2}), "
                 "wbutility.isVector2({x: 1, y: 2, z: 3}), wbutility.isVector3({x: 1, y: 2, z: 3}), "
                 "wbutility.isAxisAngle({x: 0, y: 0, z: 1, a: 1}), wbutility.isQuaternion({w: 1, x: 0, y: 0, z: 0}), "
                 "wbutility.isMatrix3([1, 0, 0, 0, 1, 0, 0, 0, 1]), wbutility.isMatrix3([1, 0]), "
                 "wbutility.isArrayOfPoints([{x: 1, y: 2}], 2), wbutility.isArrayOfPoints([{x: 1, y: 2}], 3), "
                 "wbutility.isVector2(null), wbutility.isVector2(5)]",
                 # Webots' checks look for the keys only: a 3D point is also a 2D one
                 "wbutility") == [True, False, True, True, True, True, True, True, False, True, False, False, False]


def test_wbutility_messages() -> None:
    result = engine().expand(FILE, "%< import * as wbutility from 'wbutility.js'; wbutility.error('bad'); "
                                   "wbutility.info('fine'); wbutility.isArrayOfPoints([], 4); >%", 1, "T", "{}", (), 1)
    assert result.errors == ("bad", "The second parameter of wbutility.isArrayOfPoints can only be 2 or 3.")


def test_wbvector2() -> None:
    got = value("[wbvector2.equal({x: 1, y: 2}, {x: 1, y: 2}), wbvector2.add({x: 1, y: 2}, {x: 3, y: 4}), "
                "wbvector2.minus({x: 1, y: 2}, {x: 3, y: 5}), wbvector2.multiply({x: 1, y: 2}, 3), "
                "wbvector2.norm({x: 3, y: 4}), wbvector2.distance({x: 0, y: 0}, {x: 3, y: 4}), "
                "wbvector2.angle({x: 1, y: 1}, {x: 0, y: 0}), wbvector2.cross({x: 1, y: 0}, {x: 0, y: 1}), "
                "wbvector2.dot({x: 1, y: 2}, {x: 3, y: 4}), wbvector2.normalize({x: 3, y: 4}), "
                "wbvector2.intersection({x: 0, y: 0}, {x: 2, y: 2}, {x: 0, y: 2}, {x: 2, y: 0}), "
                "wbvector2.intersection({x: 0, y: 0}, {x: 1, y: 1}, {x: 0, y: 1}, {x: 1, y: 2}), "
                "wbvector2.intersection({x: 1, y: -1}, {x: 1, y: 3}, {x: 0, y: 0}, {x: 2, y: 2}), "
                "wbvector2.intersection({x: 0, y: 0}, {x: 1, y: 0}, {x: 2, y: -1}, {x: 3, y: 1}), "
                "wbvector2.normalize({x: 0, y: 0})]", "wbvector2")
    assert got == [True, {"x": 4, "y": 6}, {"x": -2, "y": -3}, {"x": 3, "y": 6}, 5, 5, math.pi / 4, 1, 11,
                   {"x": 0.6, "y": 0.8}, {"x": 1, "y": 1}, None,  # crossing; parallel
                   {"x": 1, "y": 1}, None, None]  # a vertical segment; x ranges apart; zero vector


def test_wbvector3() -> None:
    got = value("[wbvector3.equal({x: 1, y: 2, z: 3}, {x: 1, y: 2, z: 4}), "
                "wbvector3.add({x: 1, y: 2, z: 3}, {x: 1, y: 1, z: 1}), "
                "wbvector3.minus({x: 1, y: 2, z: 3}, {x: 1, y: 1, z: 1}), wbvector3.multiply({x: 1, y: 2, z: 3}, 2), "
                "wbvector3.norm({x: 2, y: 3, z: 6}), wbvector3.distance({x: 1, y: 1, z: 1}, {x: 3, y: 4, z: 7}), "
                "wbvector3.cross({x: 1, y: 0, z: 0}, {x: 0, y: 1, z: 0}), "
                "wbvector3.dot({x: 1, y: 2, z: 3}, {x: 4, y: 5, z: 6}), wbvector3.normalize({x: 0, y: 0, z: 2})]",
                "wbvector3")
    assert got == [False, {"x": 2, "y": 3, "z": 4}, {"x": 0, "y": 1, "z": 2}, {"x": 2, "y": 4, "z": 6}, 7, 7,
                   {"x": 0, "y": 0, "z": 1}, 32, {"x": 0, "y": 0, "z": 1}]


def close(a: object, b: object) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, abs_tol=1e-12)
    return a == b


def test_wbrotation_conversions() -> None:
    h = math.sqrt(0.5)
    got = value("[wbrotation.toQuaternion({x: 0, y: 0, z: 2, a: Math.PI / 2}), "
                "wbrotation.fromQuaternion({w: Math.SQRT1_2, x: 0, y: Math.SQRT1_2, z: 0}), "
                "wbrotation.toMatrix3({x: 0, y: 0, z: 1, a: Math.PI / 2}), "
                "wbrotation.fromMatrix3({0: 1, 1: 0, 2: 0, 3: 0, 4: -1, 5: 0, 6: 0, 7: 0, 8: -1}), "
                "wbrotation.isIdentity({x: 1, y: 0, z: 0, a: 0}), wbrotation.isIdentity({x: 1, y: 0, z: 0, a: 1}), "
                "wbrotation.equal({x: 1, y: 0, z: 0, a: 1}, {x: 1, y: 0, z: 0, a: 1}), "
                "wbrotation.normalize({x: 0, y: 3, z: 4, a: 1}), wbrotation.normalize({x: 0, y: 0, z: 0, a: 4}), "
                "wbrotation.fromQuaternion({w: 1, x: 0, y: 0, z: 0}), wbrotation.isValid({x: 0, y: 0, z: 0, a: 1}), "
                "(() => { const r = {x: 0, y: 0, z: 2, a: -7}; wbrotation.normalizeAxis(r); "
                "wbrotation.normalizeAngle(r); return r; })()]", "wbrotation")
    assert close(got, [
        {"w": h, "x": 0, "y": 0, "z": h}, {"x": 0, "y": 1, "z": 0, "a": math.pi / 2},
        {"0": 0, "1": -1, "2": 0, "3": 1, "4": 0, "5": 0, "6": 0, "7": 0, "8": 1},
        {"x": 1, "y": 0, "z": 0, "a": math.pi}, True, False, True, {"x": 0, "y": 0.6, "z": 0.8, "a": 1},
        # Webots' conventions: a zero axis becomes y, angles wrap into [-pi, pi], the identity is about y
        {"x": 0, "y": 1, "z": 0, "a": 4 - 2 * math.pi}, {"x": 0, "y": 1, "z": 0, "a": 0}, False,
        {"x": 0, "y": 0, "z": 1, "a": -7 + 2 * math.pi},
    ])


def test_wbrotation_combine_and_rotate() -> None:
    got = value("[wbrotation.combine({x: 0, y: 0, z: 1, a: Math.PI / 2}, {x: 1, y: 0, z: 0, a: Math.PI / 2}), "
                "wbrotation.rotateVector3ByRotation({x: 0, y: 0, z: 1, a: Math.PI / 2}, {x: 1, y: 0, z: 0}), "
                "wbrotation.rotateVector3ByMatrix3(wbrotation.toMatrix3({x: 1, y: 0, z: 0, a: Math.PI / 2}), "
                "{x: 0, y: 1, z: 0}), "
                "wbrotation.rotateVector3ByQuaternion({w: Math.SQRT1_2, x: 0, y: Math.SQRT1_2, z: 0}, {x: 0, y: 0, z: 1})]",
                "wbrotation")
    # Rz(90°) after Rx(90°) is the rotation by 120° about (1, 1, 1)/√3.
    k = 1 / math.sqrt(3)
    assert close(got, [{"x": k, "y": k, "z": k, "a": 2 * math.pi / 3}, {"x": 0, "y": 1, "z": 0},
                       {"x": 0, "y": 0, "z": 1}, {"x": 1, "y": 0, "z": 0}])


def test_wbrotation_follows_webots_code_for_raw_inputs() -> None:
    # Webots' module: toMatrix3 uses the axis as given (no normalisation); toQuaternion normalises its argument
    # in place (axis and angle) first; rotateVector3ByQuaternion goes through fromQuaternion (angles below 1e-4
    # rad are the identity) and toMatrix3.
    got = value("[wbrotation.toMatrix3({x: 0, y: 0, z: 2, a: Math.PI / 2}), "
                "(() => { const r = {x: 0, y: 0, z: 2, a: 1.5 * Math.PI}; const q = wbrotation.toQuaternion(r); "
                "return [r, q]; })(), "
                "wbrotation.rotateVector3ByQuaternion({w: Math.cos(2e-5), x: 0, y: 0, z: Math.sin(2e-5)}, "
                "{x: 1, y: 0, z: 0})]", "wbrotation")
    t = 1 - math.cos(math.pi / 2)
    c, s = math.cos(math.pi / 2), math.sin(math.pi / 2)
    h = math.sqrt(0.5)
    assert close(got, [
        {"0": c, "1": -2 * s, "2": 0, "3": 2 * s, "4": c, "5": 0, "6": 0, "7": 0, "8": 4 * t + c},
        [{"x": 0, "y": 0, "z": 1, "a": -math.pi / 2}, {"w": h, "x": 0, "y": 0, "z": -h}],
        {"x": 1, "y": 0, "z": 0},
    ])
    assert got[2] == {"x": 1, "y": 0, "z": 0}  # exactly: the identity, not a rotation by 4e-5 rad


def test_wbgeometry_circle_and_polygons() -> None:
    got = value("[wbgeometry.circle(2, 4, {x: 1, y: 1}, Math.PI / 2), "
                "wbgeometry.isPoint2InPolygon({x: 1, y: 1}, [{x: 0, y: 0}, {x: 2, y: 0}, {x: 2, y: 2}, {x: 0, y: 2}]), "
                "wbgeometry.isPoint2InPolygon({x: 3, y: 1}, [{x: 0, y: 0}, {x: 2, y: 0}, {x: 2, y: 2}, {x: 0, y: 2}]), "
                "wbgeometry.findClosestPoint2InArray({x: 0, y: 0}, [{x: 5, y: 5}, {x: 1, y: -1}, {x: 2, y: 0}]), "
                "wbgeometry.isPoint2ArrayClockwise([{x: 0, y: 0}, {x: 0, y: 1}, {x: 1, y: 1}, {x: 1, y: 0}]), "
                "wbgeometry.isPoint2ArrayClockwise([{x: 0, y: 0}, {x: 1, y: 0}, {x: 1, y: 1}, {x: 0, y: 1}])]",
                "wbgeometry")
    circle = [{"x": 1 + 2 * math.cos(math.pi / 2 + i * math.pi / 2), "y": 1 + 2 * math.sin(math.pi / 2 + i * math.pi / 2)}
              for i in range(5)]
    # Webots' sum of (x2 - x1)(y2 + y1) is positive for a clockwise turn with y up, and its function answers
    # true for a negative sum: "clockwise" with y pointing down (its code wins over its name).
    assert close(got, [circle, True, False, {"x": 1, "y": -1}, False, True])


def cubic_bspline(p0: float, p1: float, p2: float, p3: float, t: float) -> float:
    """The uniform cubic B-spline segment between p1 and p2, from its basis functions."""
    return ((1 - t) ** 3 * p0 + (3 * t**3 - 6 * t**2 + 4) * p1 + (-3 * t**3 + 3 * t**2 + 3 * t + 1) * p2
            + t**3 * p3) / 6


def test_wbgeometry_bsplines() -> None:
    got = value("[wbgeometry.bSpline2([{x: 0, y: 0}, {x: 1, y: 2}, {x: 3, y: 3}], 2), "
                "wbgeometry.bSpline3([{x: 0, y: 0, z: 0}, {x: 1, y: 2, z: 1}, {x: 3, y: 3, z: 0}], 2)]", "wbgeometry")
    pts = [(0, 0, 0), (1, 2, 1), (3, 3, 0)]
    mirror = lambda p, q: tuple(2 * a - b for a, b in zip(p, q))  # noqa: E731
    ext = [None, None, *pts]
    ext.append(mirror(pts[2], pts[1]))
    ext.append(mirror(ext[-1], pts[2]))
    ext[1] = mirror(pts[0], pts[1])
    ext[0] = mirror(ext[1], pts[0])

    def curve(first: int, dims: int) -> list[dict[str, float]]:
        out = [dict(zip("xyz", ext[2][:dims]))]
        for i in range(first, len(pts) + 1):
            for j in (1, 2):
                out.append({k: cubic_bspline(*(ext[i + d][c] for d in (-1, 0, 1, 2)), j / 2)
                            for c, k in enumerate("xyz"[:dims])})
        return out

    assert close(got, [curve(1, 2), curve(2, 3)])  # Webots starts 3D splines one segment later


def test_every_module_is_available() -> None:
    got = value("[" + ", ".join(f"typeof {m}" for m in MODULE_NAMES) + "]", " ".join(MODULE_NAMES))
    assert got == ["object"] * len(MODULE_NAMES)


def test_endless_template_is_stopped() -> None:
    eng = TemplateEngine(TemplateContext("/w.wbt", "/p", "", "R2023b"), time_limit_s=1)
    with pytest.raises(TemplateError) as info:
        eng.expand(FILE, "\n%< while (true) {} >%", 7, "T", "{}", (), 1)
    assert "interrupted (the template ran for more than 1 s)" in info.value.message
    assert info.value.location.file == FILE
