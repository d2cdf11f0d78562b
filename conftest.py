"""Shared pytest fixtures: build small Webots projects (world + controllers) in a temporary folder."""

from __future__ import annotations

import textwrap
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

HEADER = "#VRML_SIM R2023b utf8\n"


def write_project(root: Path, world: str, controllers: dict[str, str] | None = None,
                  files: dict[str, str] | None = None, world_name: str = "test.wbt") -> Path:
    """Write ``worlds/<world_name>`` (header added if missing) and ``controllers/<name>/<name>.py`` files.

    Args:
        root: the project folder.
        world: the world text.
        controllers: controller name to Python source (dedented).
        files: extra files, relative path to content.

    Returns:
        The world file path.
    """
    worlds = root / "worlds"
    worlds.mkdir(parents=True, exist_ok=True)
    text = world if world.startswith("#VRML_SIM") else HEADER + textwrap.dedent(world)
    path = worlds / world_name
    path.write_text(text, encoding="utf-8")
    for name, source in (controllers or {}).items():
        folder = root / "controllers" / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    for relative, content in (files or {}).items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(content), encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path) -> Callable[..., Path]:
    """Factory: ``project(world_text, controllers={...}, files={...})`` returns the world path."""

    def make(world: str, controllers: dict[str, str] | None = None, files: dict[str, str] | None = None,
             world_name: str = "test.wbt") -> Path:
        return write_project(tmp_path, world, controllers, files, world_name)

    return make


@pytest.fixture
def load() -> Callable[..., object]:
    """Factory: ``load(path, **options)`` loads a world with warnings silenced and closes it after the test."""
    from wbsim.sim.simulation import load_world

    opened = []

    def make(path: Path, **options: object) -> object:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sim = load_world(path, **options)  # type: ignore[arg-type]
        opened.append(sim)
        return sim

    yield make
    for sim in opened:
        sim.close()


@pytest.fixture(autouse=True)
def _no_webots_assets(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Tests never see the user's Webots installation or cache, and never download (WBSIM_OFFLINE)."""
    monkeypatch.delenv("WEBOTS_HOME", raising=False)
    monkeypatch.delenv("WBSIM_WEBOTS_URL", raising=False)
    monkeypatch.setenv("WBSIM_OFFLINE", "1")
    monkeypatch.setenv("WBSIM_CACHE_DIR", str(tmp_path_factory.mktemp("wbsim-cache")))
