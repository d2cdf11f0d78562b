"""Finding Webots' own assets (PROTO files, meshes) named by ``webots://`` or GitHub URLs.

A world written for Webots names the PROTOs of Webots' library as ``webots://projects/...`` (or as
``https://raw.githubusercontent.com/cyberbotics/webots/<tag>/projects/...``). wbsim looks such a file up,
in order:

1. the project's own ``protos/`` folder (done by :class:`~wbsim.world.protos.ProtoLibrary`, by PROTO name);
2. a Webots installation or checkout: ``webots_home`` (``--webots-home``, ``load_world(webots_home=)``)
   or the ``WEBOTS_HOME`` environment variable;
3. wbsim's cache, ``<cache>/<release>/<path>``, where ``<release>`` is the world's ``#VRML_SIM`` version
   (or the tag written in a GitHub URL) and ``<cache>`` is ``WBSIM_CACHE_DIR`` or the per-user cache folder
   (``$XDG_CACHE_HOME/wbsim``, else ``~/.cache/wbsim``);
4. unless offline (``offline=True``, ``--offline`` or ``WBSIM_OFFLINE=1``), a download from Webots' public
   repository at that release tag into the cache (the base URL is ``WBSIM_WEBOTS_URL`` or Webots' GitHub
   raw-content address), as Webots itself fetches remote assets.

A file found nowhere gives one :class:`~wbsim.errors.WorldAssetError` naming every place looked and how
to provide the file.
"""

from __future__ import annotations

import http.client
import os
import re
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from wbsim.errors import SourceLocation, WorldAssetError

__all__ = ["AssetSettings", "AssetResolver", "webots_relative_path", "DEFAULT_WEBOTS_URL"]

DEFAULT_WEBOTS_URL = "https://raw.githubusercontent.com/cyberbotics/webots"
"""Where Webots' files are downloaded from: ``<base>/<release tag>/<path>``."""

_GITHUB_RE = re.compile(r"^https://raw\.githubusercontent\.com/cyberbotics/webots/([^/]+)/(.+)$")
_TRUE = frozenset({"1", "true", "yes", "on"})
_DOWNLOAD_TIMEOUT_S = 30.0


def webots_relative_path(url: str) -> tuple[str | None, str] | None:
    """The release tag (None for ``webots://``) and path inside Webots' tree that ``url`` names.

    Returns None for a URL that does not name a file of Webots' repository (a relative or absolute path,
    another web address).
    """
    if url.startswith("webots://"):
        path = url[len("webots://"):].lstrip("/")
        return (None, path) if path else None
    match = _GITHUB_RE.match(url)
    if match is not None:
        return match.group(1), match.group(2)
    return None


def _user_cache_dir() -> Path:
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "wbsim"


@dataclass(frozen=True, slots=True)
class AssetSettings:
    """Where Webots' assets are looked up for one load.

    Attributes:
        webots_home: a Webots installation or source checkout (holding ``projects/``), or None.
        cache_dir: the root of wbsim's download cache (one sub-folder per Webots release).
        offline: True forbids downloads.
        base_url: download base; a file is fetched from ``<base_url>/<tag>/<path>``.
    """

    webots_home: Path | None
    cache_dir: Path
    offline: bool
    base_url: str = DEFAULT_WEBOTS_URL

    @classmethod
    def from_environment(
        cls,
        webots_home: str | os.PathLike[str] | None = None,
        offline: bool | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
    ) -> AssetSettings:
        """Settings from explicit arguments, falling back to the environment.

        Args:
            webots_home: overrides ``WEBOTS_HOME``.
            offline: overrides ``WBSIM_OFFLINE`` (``1``/``true``/``yes``/``on`` means offline).
            cache_dir: overrides ``WBSIM_CACHE_DIR`` (default: the per-user cache folder).
        """
        home = webots_home if webots_home is not None else os.environ.get("WEBOTS_HOME") or None
        if offline is None:
            offline = os.environ.get("WBSIM_OFFLINE", "").strip().lower() in _TRUE
        cache = cache_dir if cache_dir is not None else os.environ.get("WBSIM_CACHE_DIR") or None
        base = os.environ.get("WBSIM_WEBOTS_URL") or DEFAULT_WEBOTS_URL
        return cls(
            webots_home=Path(home).expanduser() if home is not None else None,
            cache_dir=Path(cache).expanduser() if cache is not None else _user_cache_dir(),
            offline=offline,
            base_url=base.rstrip("/"),
        )


@dataclass(slots=True)
class AssetResolver:
    """Resolves Webots asset URLs to local files for one world load.

    Args:
        settings: where to look.
        release: the world's ``#VRML_SIM`` version (e.g. ``R2023b``), the tag downloads are made at.
    """

    settings: AssetSettings
    release: str
    _found: dict[str, Path] = field(default_factory=dict)
    # The first download that could not reach the server: later ones in this load are not tried, so that an
    # unreachable host costs one timeout, not one per file.
    _unreachable: str | None = None

    def cache_root(self, tag: str | None = None) -> Path:
        """The cache folder of a release (the world's release by default)."""
        return self.settings.cache_dir / (tag or self.release)

    def webots_path_of(self, file: Path) -> tuple[str, str] | None:
        """(tag, path in Webots' tree) of a local file that came from Webots' tree (home or cache), else None.

        Used to resolve relative references written inside Webots' own files the same way.
        """
        resolved = file.resolve()
        home = self.settings.webots_home
        if home is not None:
            try:
                return self.release, resolved.relative_to(home.resolve()).as_posix()
            except ValueError:
                pass
        try:
            relative = resolved.relative_to(self.settings.cache_dir.resolve())
        except ValueError:
            return None
        parts = relative.parts
        if len(parts) < 2:
            return None
        return parts[0], PurePosixPath(*parts[1:]).as_posix()

    def resolve(self, url: str, location: SourceLocation | None, *, what: str = "file",
                looked: tuple[str, ...] = (), hint: str = "") -> Path:
        """The local file for a Webots URL (``webots://`` or Webots' GitHub raw address).

        Args:
            url: the URL as written.
            location: where it is written (for the error).
            what: what the file is, for the error (``"PROTO Name"``, ``"mesh"``).
            looked: places already looked at by the caller (listed first in the error).
            hint: how else the caller could find it (added to the error's advice).

        Raises:
            WorldAssetError: found nowhere; the message lists every place looked and how to provide it.
        """
        named = webots_relative_path(url)
        if named is None:
            raise ValueError(f"not a Webots asset URL: {url!r}")
        tag, path = named
        tag = tag or self.release
        return self.resolve_path(tag, path, url, location, what=what, looked=looked, hint=hint)

    def resolve_path(self, tag: str, path: str, url: str, location: SourceLocation | None, *, what: str = "file",
                     looked: tuple[str, ...] = (), hint: str = "") -> Path:
        """Like :meth:`resolve` for a path inside Webots' tree at release ``tag``."""
        key = f"{tag}/{path}"
        cached = self._found.get(key)
        if cached is not None:
            return cached
        places = list(looked)
        home = self.settings.webots_home
        if home is not None:
            candidate = home / path
            if candidate.is_file():
                self._found[key] = candidate
                return candidate
            places.append(f"Webots home {candidate} (WEBOTS_HOME / --webots-home): not there")
        else:
            places.append("Webots home: not set (WEBOTS_HOME or --webots-home)")
        cached_file = self.settings.cache_dir / tag / path
        if cached_file.is_file():
            self._found[key] = cached_file
            return cached_file
        places.append(f"wbsim cache {cached_file} (WBSIM_CACHE_DIR): not there")
        source = f"{self.settings.base_url}/{tag}/{path}"
        if self.settings.offline:
            places.append(f"download from {source}: not tried, offline (--offline / WBSIM_OFFLINE)")
        elif self._unreachable is not None:
            places.append(f"download from {source}: not tried, an earlier download failed ({self._unreachable})")
        else:
            problem, reached = _download(source, cached_file)
            if problem is None:
                self._found[key] = cached_file
                return cached_file
            if not reached:
                self._unreachable = problem
            places.append(f"download from {source}: {problem}")
        advice = (
            f"Provide it by pointing WEBOTS_HOME (or --webots-home) at a Webots {tag} installation or checkout, "
            f"by running once online to fill the cache, or by copying the file to {cached_file}"
        )
        if hint:
            advice += f", or {hint}"
        listed = "\n".join(f"    {i}. {place}" for i, place in enumerate(places, 1))
        raise WorldAssetError(f"Cannot find {what} {url!r}. Looked in:\n{listed}\n  {advice}.", location)


def _download(source: str, target: Path) -> tuple[str | None, bool]:
    """Fetch ``source`` into ``target`` atomically.

    Returns:
        (None on success, else what went wrong; whether the server answered).
    """
    try:
        with urllib.request.urlopen(source, timeout=_DOWNLOAD_TIMEOUT_S) as response:  # noqa: S310 (http(s) only)
            data = response.read()
    except urllib.error.HTTPError as error:
        return f"failed, HTTP {error.code} {error.reason}", True
    except http.client.IncompleteRead as error:  # the connection closed before the announced length
        expected = len(error.partial) + error.expected if error.expected is not None else None
        return f"failed (incomplete download: {len(error.partial)} of {expected} bytes)", True
    except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        return f"failed ({reason})", False
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # Write then rename, so that another process never reads a half-written file.
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".part-", suffix=target.suffix)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, target)
        except OSError:
            Path(temporary).unlink(missing_ok=True)  # a full disk must not leave partial files behind
            raise
    except OSError as error:
        return f"downloaded but not saved in the cache ({error})", True
    return None, True
