"""Tests of Webots asset lookup: project copy, WEBOTS_HOME, the per-release cache, downloads, errors.

Webots' tree is imitated by folders the tests write; downloads come from a local HTTP server on 127.0.0.1.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from wbsim.cli.main import main
from wbsim.errors import SourceLocation, WorldAssetError, WorldLoadError
from wbsim.world.assets import AssetResolver, AssetSettings, webots_relative_path
from wbsim.world.loader import load_world_model

H = "#VRML_SIM R2023b utf8\n"
CRATE = "projects/objects/test/protos/Crate.proto"
# A PROTO of the imitated Webots tree that uses another through webots:// and a third through a relative path.
TREE = {
    CRATE: H + 'EXTERNPROTO "webots://projects/objects/test/protos/Lid.proto"\nEXTERNPROTO "../meshes/Peg.proto"\n'
               "PROTO Crate [ field SFFloat side 0.5 ] {\n  Solid { children [ Lid { } Peg { } ] name \"crate\" "
               "boundingObject Box { size 0.5 0.5 0.5 } } }\n",
    "projects/objects/test/protos/Lid.proto": H + "PROTO Lid [ ] { Solid { name \"lid\" } }\n",
    "projects/objects/test/meshes/Peg.proto": H + "PROTO Peg [ ] { Solid { name \"peg\" } }\n",
}
WORLD = H + f'EXTERNPROTO "webots://{CRATE}"\nCrate {{ }}\n'


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def world_file(tmp_path: Path, text: str = WORLD) -> Path:
    path = tmp_path / "project" / "worlds" / "w.wbt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def names(model: object) -> list[str]:
    return [n["name"] for n in model.walk() if n.is_a("solid")]  # type: ignore[attr-defined]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    requested: list[str] = []

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        type(self).requested.append(self.path)
        super().do_GET()


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, list[str]]]:
    """A local HTTP server imitating Webots' raw-content host: ``<root>/<tag>/<path>``; online mode."""
    root = tmp_path / "remote"
    root.mkdir()
    requested: list[str] = []
    handler = type("Handler", (_Quiet,), {"requested": requested})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("WBSIM_WEBOTS_URL", f"http://127.0.0.1:{httpd.server_address[1]}")
    monkeypatch.setenv("WBSIM_OFFLINE", "0")
    try:
        yield root, requested
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_webots_relative_path() -> None:
    assert webots_relative_path("webots://projects/a/B.proto") == (None, "projects/a/B.proto")
    github = "https://raw.githubusercontent.com/cyberbotics/webots/R2023a/projects/a/B.proto"
    assert webots_relative_path(github) == ("R2023a", "projects/a/B.proto")
    assert webots_relative_path("https://example.com/B.proto") is None
    assert webots_relative_path("../protos/B.proto") is None


def test_settings_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("WEBOTS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("WBSIM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("WBSIM_OFFLINE", "yes")
    settings = AssetSettings.from_environment()
    assert settings.webots_home == tmp_path / "home" and settings.cache_dir == tmp_path / "cache"
    assert settings.offline
    explicit = AssetSettings.from_environment(webots_home=tmp_path / "other", offline=False, cache_dir=tmp_path)
    assert explicit.webots_home == tmp_path / "other" and not explicit.offline and explicit.cache_dir == tmp_path
    monkeypatch.delenv("WBSIM_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert AssetSettings.from_environment().cache_dir == tmp_path / "xdg" / "wbsim"


def test_webots_home_serves_webots_protos_and_their_own_references(tmp_path: Path) -> None:
    home = write_tree(tmp_path / "webots", TREE)
    model = load_world_model(world_file(tmp_path), webots_home=home)
    assert names(model) == ["crate", "lid", "peg"]


def test_webots_home_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBOTS_HOME", str(write_tree(tmp_path / "webots", TREE)))
    assert names(load_world_model(world_file(tmp_path))) == ["crate", "lid", "peg"]


def test_project_copy_wins_over_webots_home(tmp_path: Path) -> None:
    home = write_tree(tmp_path / "webots", TREE)
    write_tree(tmp_path / "project", {"protos/Crate.proto": H + 'PROTO Crate [ ] { Solid { name "mine" } }\n'})
    assert names(load_world_model(world_file(tmp_path), webots_home=home)) == ["mine"]


def test_cache_is_keyed_by_the_world_release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    write_tree(cache / "R2023b", TREE)
    monkeypatch.setenv("WBSIM_CACHE_DIR", str(cache))
    assert names(load_world_model(world_file(tmp_path))) == ["crate", "lid", "peg"]
    older = world_file(tmp_path, WORLD.replace("R2023b", "R2022b"))
    with pytest.raises(WorldLoadError) as info:
        load_world_model(older)
    (error,) = info.value.errors
    assert isinstance(error, WorldAssetError)
    assert str(cache / "R2022b" / CRATE) in error.message


def test_github_url_uses_its_own_tag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    write_tree(cache / "R2023a", TREE)
    monkeypatch.setenv("WBSIM_CACHE_DIR", str(cache))
    url = f"https://raw.githubusercontent.com/cyberbotics/webots/R2023a/{CRATE}"
    model = load_world_model(world_file(tmp_path, H + f'EXTERNPROTO "{url}"\nCrate {{ }}\n'))
    # Lid is declared with webots:// inside the R2023a file: Webots reads it at that file's release, not at
    # the world's (R2023b, not cached here).
    assert names(model) == ["crate", "lid", "peg"]


def test_download_fills_the_cache_recursively_then_works_offline(tmp_path: Path, server, monkeypatch) -> None:
    remote, requested = server
    write_tree(remote / "R2023b", TREE)
    cache = Path(AssetSettings.from_environment().cache_dir)
    world = world_file(tmp_path)
    assert names(load_world_model(world)) == ["crate", "lid", "peg"]
    assert sorted(requested) == sorted(f"/R2023b/{path}" for path in TREE)
    for path, text in TREE.items():
        assert (cache / "R2023b" / path).read_text(encoding="utf-8") == text
    requested.clear()
    monkeypatch.setenv("WBSIM_OFFLINE", "1")
    assert names(load_world_model(world)) == ["crate", "lid", "peg"]
    assert requested == []  # served from the cache


def test_failed_download_is_listed(tmp_path: Path, server) -> None:
    with pytest.raises(WorldLoadError) as info:
        load_world_model(world_file(tmp_path))
    (error,) = info.value.errors
    assert isinstance(error, WorldAssetError)
    assert f"/R2023b/{CRATE}: failed, HTTP 404" in error.message
    assert error.location == SourceLocation(str(world_file(tmp_path)), 2, 13)


def test_offline_option_forbids_downloads(tmp_path: Path, server) -> None:
    remote, requested = server
    write_tree(remote / "R2023b", TREE)
    with pytest.raises(WorldLoadError) as info:
        load_world_model(world_file(tmp_path), offline=True)
    assert "not tried, offline" in info.value.errors[0].message
    assert requested == []


def test_resolver_error_lists_every_place_in_order(tmp_path: Path) -> None:
    settings = AssetSettings(webots_home=tmp_path / "home", cache_dir=tmp_path / "cache", offline=True)
    where = SourceLocation("w.wbt", 3, 13)
    with pytest.raises(WorldAssetError) as info:
        AssetResolver(settings, "R2023b").resolve("webots://a/b.stl", where, what="mesh", looked=("first",))
    lines = info.value.message.splitlines()
    assert lines[0] == "Cannot find mesh 'webots://a/b.stl'. Looked in:"
    assert lines[1] == "    1. first"
    assert lines[2] == f"    2. Webots home {tmp_path / 'home' / 'a/b.stl'} (WEBOTS_HOME / --webots-home): not there"
    assert lines[3] == f"    3. wbsim cache {tmp_path / 'cache' / 'R2023b' / 'a/b.stl'} (WBSIM_CACHE_DIR): not there"
    assert lines[4].startswith("    4. download from https://raw.githubusercontent.com/cyberbotics/webots/R2023b/a/b.stl")
    assert info.value.location == where


def test_check_exits_2_on_missing_assets_and_is_clean_with_webots_home(tmp_path: Path, capsys) -> None:
    world = world_file(tmp_path)
    assert main(["check", str(world)]) == 2
    err = capsys.readouterr().err
    assert "Cannot find PROTO Crate" in err and "Looked in:" in err
    home = write_tree(tmp_path / "webots", TREE)
    assert main(["check", str(world), "--webots-home", str(home)]) == 0
    assert "OK" in capsys.readouterr().out


# -- meshes of boundingObjects ------------------------------------------------------------------------------------

MESH_WORLD = H + 'Solid {{ boundingObject Mesh {{ url "{url}" }} }}\n'


def mesh_errors(tmp_path: Path, url: str, **options: object) -> list[str]:
    """The asset errors of a world whose boundingObject is a Mesh (unsupported otherwise: only resolved)."""
    try:
        load_world_model(world_file(tmp_path, MESH_WORLD.format(url=url)), **options)  # type: ignore[arg-type]
    except WorldLoadError as error:
        return [e.message for e in error.errors]
    return []


def test_mesh_urls_resolve_like_protos(tmp_path: Path) -> None:
    home = write_tree(tmp_path / "webots", {"projects/meshes/wheel.stl": "solid x\nendsolid x\n"})
    assert mesh_errors(tmp_path, "webots://projects/meshes/wheel.stl", webots_home=home) == []
    (message,) = mesh_errors(tmp_path, "webots://projects/meshes/wheel.stl")
    assert message.startswith("Cannot find mesh 'webots://projects/meshes/wheel.stl'. Looked in:")
    write_tree(tmp_path / "project", {"worlds/local.obj": "v 0 0 0\n"})
    assert mesh_errors(tmp_path, "local.obj") == []
    (message,) = mesh_errors(tmp_path, "missing.dae")
    assert f"{tmp_path / 'project' / 'worlds' / 'missing.dae'}: not there" in message


def test_mesh_relative_to_a_webots_proto_is_looked_up_in_webots_tree(tmp_path: Path, server) -> None:
    remote, requested = server
    write_tree(remote / "R2023b", {
        "projects/robots/r/protos/Body.proto": H + 'PROTO Body [ ] { Solid { boundingObject Mesh { url "../meshes/b.stl" } } }\n',
        "projects/robots/r/meshes/b.stl": "solid b\nendsolid b\n",
    })
    world = world_file(tmp_path, H + 'EXTERNPROTO "webots://projects/robots/r/protos/Body.proto"\nBody { }\n')
    load_world_model(world)
    assert "/R2023b/projects/robots/r/meshes/b.stl" in requested


def test_run_takes_webots_home_and_offline(tmp_path: Path, server, capsys) -> None:
    remote, requested = server
    write_tree(remote / "R2023b", TREE)
    world = world_file(tmp_path)
    assert main(["run", str(world), "--duration", "0.1", "--no-progress", "--offline"]) == 2
    assert "not tried, offline" in capsys.readouterr().err and requested == []
    home = write_tree(tmp_path / "webots", TREE)
    assert main(["run", str(world), "--duration", "0.1", "--no-progress", "--webots-home", str(home)]) == 0
    assert requested == []  # found in the Webots home: nothing downloaded


class _Truncating(http.server.BaseHTTPRequestHandler):
    """Announces 1000 bytes, sends 10 and closes: a download cut off midway."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        self.send_response(200)
        self.send_header("Content-Length", "1000")
        self.end_headers()
        self.wfile.write(b"#VRML_SIM ")
        self.wfile.flush()
        self.close_connection = True


def test_cut_off_download_is_listed_and_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Truncating)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        settings = AssetSettings(webots_home=None, cache_dir=tmp_path / "cache", offline=False,
                                 base_url=f"http://127.0.0.1:{httpd.server_address[1]}")
        with pytest.raises(WorldAssetError) as info:
            AssetResolver(settings, "R2023b").resolve("webots://a/B.proto", SourceLocation("w.wbt", 2, 13))
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert "/R2023b/a/B.proto: failed (incomplete download: 10 of 1000 bytes)" in info.value.message
    assert not (tmp_path / "cache").exists() or not any(p.is_file() for p in (tmp_path / "cache").rglob("*"))


def test_unreachable_server_costs_one_timeout_per_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A server that accepts connections and never answers: the first download times out, the others of the
    # same load are not tried (each would wait for the timeout again).
    import socket

    from wbsim.world import assets

    monkeypatch.setattr(assets, "_DOWNLOAD_TIMEOUT_S", 0.3)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    monkeypatch.setenv("WBSIM_WEBOTS_URL", f"http://127.0.0.1:{listener.getsockname()[1]}")
    monkeypatch.setenv("WBSIM_OFFLINE", "0")
    world = world_file(tmp_path, H + 'EXTERNPROTO "webots://p/A.proto"\nEXTERNPROTO "webots://p/B.proto"\n'
                                     "A { }\nB { }\n")
    try:
        with pytest.raises(WorldLoadError) as info:
            load_world_model(world)
    finally:
        listener.close()
        for connection in accepted:
            connection.close()
    first, second = info.value.errors
    assert "/R2023b/p/A.proto: failed (" in first.message and "timed out" in first.message
    assert "/R2023b/p/B.proto: not tried, an earlier download failed (" in second.message
    assert len(accepted) == 1
