"""Finding, parsing and expanding PROTO files for a world.

A PROTO type name is resolved, in order, from:

1. the ``EXTERNPROTO`` declaration of the file that uses it:
   - a path relative to that file, or an absolute path (inside a file of Webots' own tree, a relative
     path that is not there locally is looked up in Webots' tree like a ``webots://`` URL);
   - a ``webots://`` URL or Webots' GitHub raw address: a copy in ``<project>/protos/**/<Name>.proto``,
     else Webots' tree as :mod:`wbsim.world.assets` finds it (``WEBOTS_HOME``, cache, download);
2. ``<project>/protos/**/<Name>.proto`` (Webots' legacy lookup) when no declaration names it.

Parsed files are cached per library, so a PROTO used many times is parsed once. Procedural PROTOs are
expanded by :mod:`wbsim.world.templates`; expansions are cached by (PROTO file, values of the fields the
template reads), so identical instances expand once.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from wbsim.errors import SourceLocation, TemplateError, WorldAssetError, WorldSchemaError, WorldSyntaxError
from wbsim.world.assets import AssetResolver, webots_relative_path
from wbsim.world.checker import ProtoScope
from wbsim.world.parser import parse_generated_proto, parse_proto
from wbsim.world.syntax import ProtoSyntax
from wbsim.world.templates import TemplateEngine

__all__ = ["ProtoLibrary"]

_WEB_PREFIXES = ("http://", "https://")


class ProtoLibrary:
    """Resolves PROTO names to parsed PROTO files for one project, and expands procedural PROTOs.

    Args:
        project_dir: the project folder holding ``protos/``.
        assets: where Webots' own files are found; None finds only project files.
        templates: the template engine for procedural PROTOs; None refuses them with an error.
    """

    def __init__(self, project_dir: Path, assets: AssetResolver | None = None,
                 templates: TemplateEngine | None = None) -> None:
        self.project_dir = project_dir
        self.assets = assets
        self.templates = templates
        self._parsed: dict[Path, ProtoSyntax] = {}
        self._local_index: dict[str, Path] | None = None
        self._expanded: dict[tuple[str, str], tuple[ProtoSyntax, tuple[str, ...]]] = {}
        self._instances = 0

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
            WorldAssetError: a Webots PROTO found nowhere (the message lists every place looked).
            WorldSchemaError: a declared local file is missing.
            WorldSyntaxError: the PROTO file does not parse (located in the PROTO file).
        """
        extern = scope.externs.get(name)
        path: Path | None
        if extern is not None:
            path = self._declared(name, extern.url, scope, extern.location)
        else:
            path = self._local(name)
            if path is None:
                return None
        return self._parse(path.resolve(), name, extern.location if extern is not None else location)

    def _declared(self, name: str, url: str, scope: ProtoScope, location: SourceLocation) -> Path:
        local_copy = self.project_dir / "protos" / "**" / f"{name}.proto"
        named = webots_relative_path(url)
        if named is not None:
            path = self._local(name)
            if path is not None:
                return path
            if self.assets is None:
                raise WorldSchemaError(
                    f"PROTO {name} is declared from {url!r}; put a copy in {self.project_dir / 'protos'} or load "
                    "the world with Webots' assets (WEBOTS_HOME).",
                    location,
                )
            tag = named[0]
            origin = self.assets.webots_path_of(Path(scope.file))
            if tag is None and origin is not None:
                tag = origin[0]  # webots:// inside a file of Webots' tree: that file's release (as Webots does)
            return self.assets.resolve_path(tag or self.assets.release, named[1], url, location,
                                            what=f"PROTO {name}", looked=(f"project copy {local_copy}: none",),
                                            hint=f"by copying it to {self.project_dir / 'protos'}")
        if url.startswith(_WEB_PREFIXES):
            path = self._local(name)
            if path is None:
                raise WorldSchemaError(
                    f"PROTO {name} is declared from {url!r}, which is not in Webots' repository; wbsim fetches "
                    f"only Webots' own files. Put a copy in {self.project_dir / 'protos' / (name + '.proto')}.",
                    location,
                )
            return path
        base = Path(scope.file).parent
        path = Path(url) if Path(url).is_absolute() else (base / url)
        try:
            found = path.is_file()
        except OSError as error:  # e.g. a name too long for the file system
            raise WorldSchemaError(f"PROTO file cannot be opened: {path}: {error.strerror or error} "
                                   "(declared here).", location) from None
        if found:
            return path
        origin = self.assets.webots_path_of(Path(scope.file)) if self.assets is not None else None
        if origin is not None and not Path(url).is_absolute():
            # A relative reference inside Webots' own tree: the file sits next to its user in that tree.
            tag, declaring = origin
            relative = posixpath.normpath(posixpath.join(posixpath.dirname(declaring), url))
            return self.assets.resolve_path(tag, relative, url, location, what=f"PROTO {name}")  # type: ignore[union-attr]
        raise WorldSchemaError(f"PROTO file not found: {path} (declared here).", location)

    def find_file(self, url: str, written_in: str, location: SourceLocation) -> Path:
        """The local file of a non-PROTO asset (a boundingObject mesh) written as ``url`` in ``written_in``.

        A relative path is relative to the file that writes it (inside Webots' tree, looked up in that tree if
        missing); ``webots://`` and Webots' GitHub addresses go through :mod:`wbsim.world.assets`.

        Raises:
            WorldAssetError: found nowhere (every place looked is listed).
        """
        named = webots_relative_path(url)
        if named is not None and self.assets is not None:
            tag = named[0]
            origin = self.assets.webots_path_of(Path(written_in))
            if tag is None and origin is not None:
                tag = origin[0]
            return self.assets.resolve_path(tag or self.assets.release, named[1], url, location, what="mesh")
        if url.startswith(_WEB_PREFIXES) or named is not None:
            raise WorldAssetError(f"Cannot find mesh {url!r}: wbsim fetches only Webots' own files "
                                  "(webots:// with WEBOTS_HOME, the cache or a download).", location)
        path = Path(url) if Path(url).is_absolute() else Path(written_in).parent / url
        if path.is_file():
            return path
        origin = self.assets.webots_path_of(Path(written_in)) if self.assets is not None else None
        if origin is not None and not Path(url).is_absolute():
            tag, declaring = origin
            relative = posixpath.normpath(posixpath.join(posixpath.dirname(declaring), url))
            return self.assets.resolve_path(tag, relative, url, location, what="mesh",  # type: ignore[union-attr]
                                            looked=(f"next to its file: {path}: not there",))
        raise WorldAssetError(f"Cannot find mesh {url!r}. Looked in:\n    1. {path}: not there\n  "
                              "Put the file there or fix the url.", location)

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

    def expand(self, proto: ProtoSyntax, fields_js: str) -> tuple[ProtoSyntax, tuple[str, ...]]:
        """The concrete PROTO of one instance of a procedural PROTO, and its template's error output.

        Args:
            proto: a procedural PROTO (``proto.template`` set).
            fields_js: the template's ``fields`` object as JavaScript source; with the PROTO file, the cache key.

        Raises:
            TemplateError: JavaScript error (located at the PROTO file and template line), or no engine.
            WorldSyntaxError: the generated text does not parse.
        """
        template = proto.template
        assert template is not None, "expand() is for procedural PROTOs"
        self._instances += 1
        key = (proto.file, fields_js)
        if template.deterministic:
            cached = self._expanded.get(key)
            if cached is not None:
                return cached
        if self.templates is None:
            raise TemplateError(f"PROTO {proto.name} is procedural; this load has no template engine.",
                                proto.location)
        result = self.templates.expand(proto.file, template.content, template.line, proto.name, fields_js,
                                       tuple(d.name for d in proto.fields), self._instances)
        try:
            concrete = parse_generated_proto(proto, result.text)
        except WorldSyntaxError as error:
            raise WorldSyntaxError(
                f"{error.message} (in the text generated by the template of PROTO {proto.name}; lines count from "
                "the start of the template)",
                error.location,
                error.node_path,
            ) from None
        expanded = (concrete, result.errors)
        if template.deterministic:
            self._expanded[key] = expanded
        return expanded
