"""Finding and parsing PROTO files for a world.

A PROTO type name is resolved, in order, from:

1. the ``EXTERNPROTO`` declaration of the file that uses it: a path relative to that file, or an
   absolute path;
2. ``<project>/protos/**/<Name>.proto`` (Webots' legacy lookup, also used as a local copy of a PROTO
   declared with a ``webots://`` or ``https://`` URL, which wbsim cannot fetch).

Parsed files are cached per library, so a PROTO used many times is parsed once.
"""

from __future__ import annotations

from pathlib import Path

from wbsim.errors import SourceLocation, WorldSchemaError, WorldSyntaxError
from wbsim.world.checker import ProtoScope
from wbsim.world.parser import parse_proto
from wbsim.world.syntax import ProtoSyntax

__all__ = ["ProtoLibrary"]

_REMOTE_PREFIXES = ("webots://", "http://", "https://")


class ProtoLibrary:
    """Resolves PROTO names to parsed PROTO files for one project.

    Args:
        project_dir: the project folder holding ``protos/``.
    """

    def __init__(self, project_dir: Path) -> None:
        self.project_dir = project_dir
        self._parsed: dict[Path, ProtoSyntax] = {}
        self._local_index: dict[str, Path] | None = None

    def _local(self, name: str) -> Path | None:
        if self._local_index is None:
            index: dict[str, Path] = {}
            root = self.project_dir / "protos"
            try:
                if root.is_dir():
                    for path in sorted(root.rglob("*.proto")):
                        if path.is_file():  # a folder called X.proto is no PROTO
                            index.setdefault(path.stem, path)
            except OSError:  # an unreadable folder below protos/: the PROTOs found so far are what there is
                pass
            self._local_index = index
        return self._local_index.get(name)

    def resolve(self, name: str, scope: ProtoScope, location: SourceLocation) -> ProtoSyntax | None:
        """The PROTO called ``name`` as seen from ``scope``; None if no declaration or local file names it.

        Raises:
            WorldSchemaError: the declared file is missing or cannot be fetched.
            WorldSyntaxError: the PROTO file does not parse (located in the PROTO file).
        """
        extern = scope.externs.get(name)
        path: Path | None
        if extern is not None:
            url = extern.url
            if url.startswith(_REMOTE_PREFIXES):
                path = self._local(name)
                if path is None:
                    raise WorldSchemaError(
                        f"PROTO {name} is declared from {url!r}, which wbsim cannot fetch (no network, no Webots "
                        f"library). Put a non-procedural copy in {self.project_dir / 'protos' / (name + '.proto')}.",
                        extern.location,
                    )
            else:
                base = Path(scope.file).parent
                path = Path(url) if Path(url).is_absolute() else (base / url)
                try:
                    found = path.is_file()
                except OSError as error:  # e.g. a name too long for the file system
                    raise WorldSchemaError(f"PROTO file cannot be opened: {path}: {error.strerror or error} "
                                           "(declared here).", extern.location) from None
                if not found:
                    raise WorldSchemaError(f"PROTO file not found: {path} (declared here).", extern.location)
        else:
            path = self._local(name)
            if path is None:
                return None
        return self._parse(path.resolve(), name, extern.location if extern is not None else location)

    def _parse(self, path: Path, name: str, used_at: SourceLocation) -> ProtoSyntax:
        cached = self._parsed.get(path)
        if cached is not None:
            return cached
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as error:
            raise WorldSyntaxError(f"PROTO file is not valid UTF-8: {error}.", SourceLocation(str(path), 1, 1)) from None
        except OSError as error:  # unreadable, a folder, vanished since the lookup
            raise WorldSchemaError(f"PROTO file {path} cannot be read: {error.strerror or error}.", used_at) from None
        proto = parse_proto(text, str(path))
        if proto.name != name:
            raise WorldSchemaError(
                f"File {path.name} defines PROTO {proto.name}, but it was looked up as {name}: the file name "
                "must match the PROTO name.",
                proto.location,
            )
        self._parsed[path] = proto
        return proto
