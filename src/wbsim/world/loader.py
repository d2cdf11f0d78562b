"""Load a world file into the checked world model: read, parse, resolve PROTOs, check.

Nothing is half-loaded: either every check passes and a :class:`~wbsim.world.model.WorldModel` is
returned, or a :class:`~wbsim.errors.WorldLoadError` lists every problem found.
"""

from __future__ import annotations

import os
from pathlib import Path

from wbsim.errors import SourceLocation, WorldError, WorldLoadError, WorldSyntaxError
from wbsim.collector import paused_collection
from wbsim.recursion import raised_recursion_limit
from wbsim.world.assets import AssetResolver, AssetSettings
from wbsim.world.checker import Checker
from wbsim.world.model import WorldModel
from wbsim.world.parser import parse_world
from wbsim.world.protos import ProtoLibrary
from wbsim.world.syntax import Atom, NodeSyntax, ValueSyntax, WorldSyntax
from wbsim.world.templates import TemplateContext, TemplateEngine

__all__ = ["load_world_model", "load_world_model_from_string", "project_dir_of"]



def project_dir_of(world_path: Path) -> Path:
    """The project folder of a world: the parent of ``worlds/`` if the world is in one, else its folder."""
    folder = world_path.parent
    return folder.parent if folder.name == "worlds" else folder


def _coordinate_system(syntax: WorldSyntax) -> str:
    """``WorldInfo.coordinateSystem`` as written (templates read it before the world is checked)."""
    for node in syntax.nodes:
        if isinstance(node, NodeSyntax) and node.type_name == "WorldInfo":
            for entry in node.fields:
                value = entry.value
                if (entry.name == "coordinateSystem" and isinstance(value, ValueSyntax) and len(value.items) == 1
                        and isinstance(value.items[0], Atom) and isinstance(value.items[0].value, str)):
                    return value.items[0].value
            break
    return "ENU"


def load_world_model_from_string(
    text: str,
    file: str = "<string>",
    project_dir: str | os.PathLike[str] = ".",
    *,
    assets: AssetSettings | None = None,
) -> WorldModel:
    """Check world text that is not in a file (tests, generated worlds).

    Args:
        text: the world file content, header included.
        file: the name used in error messages and as the base for relative EXTERNPROTO paths.
        project_dir: where ``protos/`` and ``controllers/`` are looked up.
        assets: where Webots' own PROTOs and meshes are found (default: from the environment, see
            :class:`~wbsim.world.assets.AssetSettings`).

    Raises:
        WorldLoadError: listing every problem found.
    """
    project = Path(project_dir)
    settings = assets if assets is not None else AssetSettings.from_environment()
    # Parsing and checking recurse once per nesting level (a few frames each); long kinematic chains
    # (a Solid > HingeJoint > endPoint > Solid > ... rope) need more than Python's default 1000 frames.
    try:
        # Paused collector: its full passes over the growing object graph made large loads superlinear.
        with raised_recursion_limit(), paused_collection():
            try:
                syntax = parse_world(text, file)
            except WorldSyntaxError as error:
                raise WorldLoadError([error]) from None
            resolver = AssetResolver(settings, syntax.version)
            engine = TemplateEngine(TemplateContext(
                world=str(Path(file).resolve()) if file != "<string>" else file,
                project_path=str(project.resolve()),
                webots_home=str(settings.webots_home or ""),
                release=syntax.version,
                coordinate_system=_coordinate_system(syntax),
            ))
            library = ProtoLibrary(project, resolver, engine)
            checker = Checker(library.resolve, library.expand, library.find_file)
            model = checker.check_world(syntax, project)
    except RecursionError:
        message = "The world is nested too deeply for wbsim to load."
        raise WorldLoadError([WorldSyntaxError(message, SourceLocation(file, 1, 1))]) from None
    if model is None:
        raise WorldLoadError(checker.errors)
    return model


def load_world_model(
    path: str | os.PathLike[str],
    *,
    webots_home: str | os.PathLike[str] | None = None,
    offline: bool | None = None,
) -> WorldModel:
    """Read and check a ``.wbt`` file.

    Args:
        path: the world file.
        webots_home: a Webots installation or checkout for ``webots://`` assets (default: ``WEBOTS_HOME``).
        offline: True forbids downloading Webots' assets (default: ``WBSIM_OFFLINE``).

    Raises:
        WorldLoadError: the file is missing or unreadable, or has syntax or schema errors (all listed).
    """
    file = os.fspath(path)  # str(path) of a generic os.PathLike is its repr, not the path
    world_path = Path(file)
    try:
        text = world_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise WorldLoadError([WorldError(f"World file not found: {world_path}")]) from None
    except IsADirectoryError:
        raise WorldLoadError([WorldError(f"Expected a .wbt file, got a directory: {world_path}")]) from None
    except UnicodeDecodeError as error:
        raise WorldLoadError(
            [WorldSyntaxError(f"World file is not valid UTF-8: {error}.", SourceLocation(file, 1, 1))]
        ) from None
    except OSError as error:  # permission denied, name too long, ...
        raise WorldLoadError([WorldError(f"World file cannot be read: {world_path}: {error.strerror or error}")]) from None
    settings = AssetSettings.from_environment(webots_home=webots_home, offline=offline)
    return load_world_model_from_string(text, file, project_dir_of(world_path.resolve()), assets=settings)
