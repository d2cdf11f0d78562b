"""Tests of world loading from files and strings (fixtures in tests/data/world/)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from wbsim.errors import SourceLocation, WorldError, WorldLoadError, WorldSchemaError, WorldSyntaxError
from wbsim.world.loader import load_world_model, load_world_model_from_string, project_dir_of
from wbsim.world.model import WbNode
from wbsim.world.parser import MAX_NODE_DEPTH

DATA = Path(__file__).resolve().parents[3] / "tests" / "data" / "world"
ROVER = DATA / "rover_project" / "worlds" / "rover.wbt"
H = "#VRML_SIM R2023b utf8\n"


def test_fixture_folder_exists() -> None:
    assert ROVER.is_file()


def test_project_dir_of() -> None:
    assert project_dir_of(Path("/a/proj/worlds/w.wbt")) == Path("/a/proj")
    assert project_dir_of(Path("/a/proj/w.wbt")) == Path("/a/proj")
    assert project_dir_of(Path("w.wbt")) == Path(".")


def test_load_rover_world() -> None:
    model = load_world_model(ROVER)
    assert model.file == str(ROVER)
    assert model.project_dir == DATA / "rover_project"
    assert model.version == "R2023b"
    assert [n.display_type for n in model.nodes] == [
        "WorldInfo", "Viewpoint", "Background", "DirectionalLight", "RectangleArena", "Robot", "Ball",
    ]
    info = model.world_info
    assert info["basicTimeStep"] == 16.0 and info["coordinateSystem"] == "NUE"
    assert info["contactProperties"][0]["coulombFriction"] == (1.5,)  # type: ignore[index]
    # webots:// URL served by the local copy in protos/local_copies
    arena = model.nodes[4]
    assert arena.proto_name == "RectangleArena" and arena["boundingObject"]["size"] == (4.0, 4.0)  # type: ignore[index]
    # EXTERNPROTO relative to the world file
    rover = model.find_def("ROVER")
    assert rover is not None and rover.path == 'Robot "rover"'
    children = rover["children"]
    assert isinstance(children, tuple)
    # the Camera is an inert device: kept (its warning comes at compile time)
    assert [c.display_type for c in children] == ["Shape", "Wheel", "Wheel", "HingeJoint", "Camera"]
    left = children[1]
    assert left.type_name == "HingeJoint"
    assert left["endPoint"]["name"] == "left wheel"  # type: ignore[index]
    assert left["endPoint"]["translation"] == (0.0, 0.0, 0.12)  # type: ignore[index]
    assert left["jointParameters"]["anchor"] == (0.0, 0.0, 0.12)  # type: ignore[index]
    assert left["endPoint"]["boundingObject"]["geometry"]["radius"] == 0.05  # type: ignore[index]
    # USE of a Shape as a boundingObject
    assert rover["boundingObject"]["geometry"]["size"] == (0.4, 0.1, 0.2)  # type: ignore[index]
    # DEF paths
    arm_link = model.find_def("ROVER.ARM.ARM_LINK")
    assert arm_link is not None and arm_link["name"] == "arm"
    assert model.find_def("ARM_LINK") is arm_link
    assert model.find_def("TYRE") is None  # inside the Wheel PROTO
    # legacy lookup: Ball has no EXTERNPROTO line
    ball = model.nodes[6]
    assert ball.proto_name == "Ball" and ball["boundingObject"]["radius"] == 0.03  # type: ignore[index]
    assert model.warnings == ()
    camera = children[4]
    assert camera.location == SourceLocation(str(ROVER), 41, 5) and camera.path == 'Robot "rover" > children[4] > Camera "camera"'


def test_load_accepts_str_and_pathlike() -> None:
    assert load_world_model(str(ROVER)).file == str(ROVER)

    class P(os.PathLike[str]):
        def __fspath__(self) -> str:
            return str(ROVER)

    assert load_world_model(P()).file == str(ROVER)


def test_relative_path_is_kept_in_locations(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(DATA / "rover_project")
    model = load_world_model("worlds/rover.wbt")
    assert model.file == "worlds/rover.wbt"
    assert model.nodes[0].location == SourceLocation("worlds/rover.wbt", 7, 1)
    assert model.project_dir == (DATA / "rover_project").resolve()


def test_many_errors_are_all_reported() -> None:
    path = DATA / "bad" / "many_errors.wbt"
    with pytest.raises(WorldLoadError) as info:
        load_world_model(path)
    errs = info.value.errors
    assert all(isinstance(e, WorldSchemaError) for e in errs)
    got = [(e.location.line, e.location.column, e.node_path) for e in errs if e.location]
    assert got == [
        (2, 30, "WorldInfo > coordinateSystem"),
        (6, 5, 'Robot "r" > children[0]'),
        (7, 35, 'Robot "r" > children[1] > HingeJoint > endPoint > Solid'),
        (10, 20, "Solid > children[0]"),
        (11, 34, "Shape > geometry > Sphere > radius"),
    ]
    assert all(e.location is not None and e.location.file == str(path) for e in errs)
    assert "expected one of 'ENU', 'NUE', 'EUN'" in errs[0].message
    assert "expected one of " in errs[1].message and "BallJoint, " in errs[1].message
    assert "Did you mean 'translation'" in errs[2].message
    assert errs[3].message.startswith("USE R: a Robot node cannot be USEd")
    assert "out of range" in errs[4].message
    assert str(info.value).startswith("5 problem(s) in world:")


def test_syntax_error_in_file() -> None:
    path = DATA / "bad" / "unclosed.wbt"
    with pytest.raises(WorldLoadError) as info:
        load_world_model(path)
    (error,) = info.value.errors
    assert isinstance(error, WorldSyntaxError)
    assert error.location == SourceLocation(str(path), 3, 8)
    assert error.node_path == "Solid > name"
    assert str(info.value) == f"1 problem in world:\n  {path}:3:8: {error.message} [in Solid > name]"


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(WorldLoadError) as info:
        load_world_model(tmp_path / "nope.wbt")
    (error,) = info.value.errors
    assert type(error) is WorldError
    assert error.message == f"World file not found: {tmp_path / 'nope.wbt'}"


def test_directory_instead_of_file(tmp_path: Path) -> None:
    with pytest.raises(WorldLoadError) as info:
        load_world_model(tmp_path)
    assert info.value.errors[0].message == f"Expected a .wbt file, got a directory: {tmp_path}"


def test_non_utf8_world(tmp_path: Path) -> None:
    path = tmp_path / "latin.wbt"
    path.write_bytes((H + 'Solid { name "\xe9" }').encode("latin-1"))
    with pytest.raises(WorldLoadError) as info:
        load_world_model(path)
    (error,) = info.value.errors
    assert isinstance(error, WorldSyntaxError)
    assert error.message.startswith("World file is not valid UTF-8")
    assert error.location == SourceLocation(str(path), 1, 1)


def test_crlf_world(tmp_path: Path) -> None:
    path = tmp_path / "crlf.wbt"
    path.write_bytes(b'#VRML_SIM R2023b utf8\r\nSolid {\r\n  name "a"\r\n  size 1\r\n}\r\n')
    with pytest.raises(WorldLoadError) as info:
        load_world_model(path)
    assert info.value.errors[0].location == SourceLocation(str(path), 4, 3)


def test_from_string_defaults_and_project_dir(tmp_path: Path) -> None:
    model = load_world_model_from_string(H + "Solid { }")
    assert model.file == "<string>" and model.project_dir == Path(".")
    (tmp_path / "protos").mkdir()
    (tmp_path / "protos" / "Thing.proto").write_text(H + "PROTO Thing [ ] { Solid { name \"thing\" } }")
    model = load_world_model_from_string(H + "Thing { }", "gen.wbt", tmp_path)
    assert model.nodes[0]["name"] == "thing" and model.project_dir == tmp_path


def test_from_string_errors_name_the_given_file() -> None:
    with pytest.raises(WorldLoadError) as info:
        load_world_model_from_string(H + "Box { }", "generated.wbt")
    assert info.value.errors[0].location == SourceLocation("generated.wbt", 2, 1)


@pytest.mark.parametrize("text", ["", "Solid { }", "#VRML_SIM R2023b\nSolid { }"])
def test_bad_or_missing_header(text: str) -> None:
    with pytest.raises(WorldLoadError) as info:
        load_world_model_from_string(text, "h.wbt")
    (error,) = info.value.errors
    assert isinstance(error, WorldSyntaxError)
    assert error.location == SourceLocation("h.wbt", 1, 1)
    assert error.message.startswith(("Missing header", "Invalid header"))


def test_nothing_is_half_loaded() -> None:
    # a world with one good node and one bad node gives no model at all
    with pytest.raises(WorldLoadError):
        load_world_model_from_string(H + "Solid { name \"good\" }\nSolid { name 1 }")


def test_world_error_is_a_wbsim_error() -> None:
    from wbsim.errors import WbsimError

    error = WorldLoadError([WorldSchemaError("m", SourceLocation("f", 1, 2), "P")])
    assert isinstance(error, WbsimError)
    assert str(error) == "1 problem in world:\n  f:1:2: m [in P]"


def test_node_types_in_the_rover_world_are_nodes() -> None:
    model = load_world_model(ROVER)
    assert all(isinstance(n, WbNode) for n in model.walk())
    assert sum(1 for n in model.walk() if n.is_a("joint")) == 3


def test_long_kinematic_chains_load() -> None:
    n = 300
    text = H + "Robot { children [ " + "HingeJoint { endPoint Solid { children [ " * n + "] } } " * n + "] }"
    limit = sys.getrecursionlimit()
    model = load_world_model_from_string(text)
    assert sum(1 for _ in model.walk()) == 2 * n + 1
    assert sys.getrecursionlimit() == limit  # restored


def test_absurdly_deep_nesting_is_a_load_error_not_a_crash() -> None:
    n = 6000
    text = H + "Group { children [ " * n + "] } " * n
    with pytest.raises(WorldLoadError) as info:
        load_world_model_from_string(text, "deep.wbt")
    (error,) = info.value.errors
    # Located at the first node too deep (issue 15: it used to be reported at a made-up 1:1).
    assert error.message.startswith(f"Nodes are nested more than {MAX_NODE_DEPTH} levels deep here")
    line = H.count("\n") + 1
    assert error.location == SourceLocation("deep.wbt", line, 1 + MAX_NODE_DEPTH * len("Group { children [ "))
