"""Expanding procedural PROTOs: Webots' JavaScript template language on an embedded QuickJS engine.

A procedural PROTO body mixes PROTO text with template statements:

- ``%< statements >%``: JavaScript run where it stands (loops and conditions wrap the text between them);
- ``%<= expression >%``: the expression's value, converted to a string as JavaScript's ``+`` does;
- ``import * as wbX from 'wbX.js'`` (or ``import {f, g as h} from 'wbX.js'``) anywhere in a statement:
  one of Webots' template modules, here wbsim's own implementations (``template_modules/*.js``);
- ``fields.<name>.value`` / ``.defaultValue``: the instance's field values (SFVec3f as ``{x, y, z}``,
  SFRotation ``{x, y, z, a}``, SFColor ``{r, g, b}``, SFVec2f ``{x, y}``, SFNode ``{node_name, fields}`` or
  ``undefined`` for NULL, MF fields as arrays); ``context``: paths, Webots version, coordinate system, id;
  ``wbfile``: ``fileExists``, ``readTextFile``, ``writeTextFile`` (global, as in Webots).

The body becomes one JavaScript function, compiled once per PROTO file; each expansion calls it with the
instance's fields, in strict mode, with fresh module state (so ``wbrandom`` restarts from seed 0). The
template's lines keep their numbers in the generated JavaScript (shifted by a fixed offset that tells them
apart from the runtime's own code), so a JavaScript error names the PROTO file and line.
"""

from __future__ import annotations

import json
import math
import re
import tempfile
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from wbsim.errors import SourceLocation, TemplateError

__all__ = ["TemplateEngine", "TemplateContext", "TemplateResult", "MODULE_NAMES", "js_literal"]

MODULE_NAMES = ("wbcore", "wbgeometry", "wbmath", "wbrandom", "wbrotation", "wbutility", "wbvector2", "wbvector3")
"""Webots' importable template modules; ``wbfile`` is global and must not be imported."""

# JavaScript line numbers of template code start here; the runtime's own code stays far below.
_LINE_OFFSET = 100_000
# A template that runs longer than this (an endless loop) is stopped with an error instead of hanging the load.
_TIME_LIMIT_S = 60
# A template is run again each time it reads files wbfile has not read yet; past this many runs it is an error.
_MAX_FILE_RUNS = 1000
_IMPORT_RE = re.compile(
    r"""\bimport\s*(?:\*\s*as\s+(?P<alias>[A-Za-z_$][\w$]*)|\{(?P<names>[^}]*)\})\s*from\s*(?P<q>['"])(?P<module>[^'"]+)(?P=q)\s*;?"""
)
_FRAME_RE = re.compile(r"<input>:(\d+)")
_FIELD_USE_RE = re.compile(r"(?<![\w$.])fields\.([A-Za-z_$][\w$]*)")

_RUNTIME = r"""
globalThis.__wbsim = (function () {
  const factories = __FACTORIES__;
  const templates = [];
  // wbfile: files are read by Python between runs (QuickJS cannot call Python under a time limit). A run
  // that asks for a file not read yet records it and stops; Python reads it and runs the template again.
  const files = {};  // path -> text, or null when there is no such file
  let needed = [];
  let written = {};  // path -> text written by this run (saved by Python when the run succeeds)
  function known(path) {
    path = String(path);
    if (path in written) return written[path];
    if (!(path in files)) {
      needed.push(path);
      throw new Error("wbsim: file " + path + " is read before the template runs");
    }
    return files[path];
  }
  globalThis.wbfile = Object.freeze({
    fileExists(path) { return known(path) !== null; },
    readTextFile(path) { const text = known(path); return text === null ? "" : text; },
    writeTextFile(name, content) {
      const base = String(name).split("/").pop();
      if (!base) return false;
      written[__TEMPORARY__ + base] = String(content);
      return true;
    }
  });
  // Templates see a clock and Math.random that are the same on every load (a template seeding wbrandom
  // with Date.now() still loads the same world every time): the clock starts at a fixed date and moves
  // 1 ms per reading; Math.random is a fixed-seed generator. Both carry on across the load's expansions.
  const RealDate = Date;
  let clock = 1577836800000;  // 2020-01-01T00:00:00Z
  function now() { return clock++; }
  function FixedDate(...args) {
    if (!new.target) return new RealDate(now()).toString();
    return args.length === 0 ? new RealDate(now()) : new RealDate(...args);
  }
  FixedDate.prototype = RealDate.prototype;
  FixedDate.now = now;
  FixedDate.parse = RealDate.parse;
  FixedDate.UTC = RealDate.UTC;
  globalThis.Date = FixedDate;
  let randomState = 0x9e3779b9;
  Math.random = function () {  // mulberry32
    randomState = (randomState + 0x6d2b79f5) | 0;
    let t = randomState;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  function hideUnknown(object, names, protoName) {
    const known = new Set(names);
    return new Proxy(object, {
      get(target, key, receiver) {
        if (typeof key === 'string' && !(key in target) && !known.has(key) && !(key in Object.prototype) &&
            key !== 'toJSON' && key !== 'then')
          throw new Error("PROTO " + protoName + " has no field '" + key + "'");
        return Reflect.get(target, key, receiver);
      }
    });
  }
  function run(index, fields, context, names, protoName) {
    const streams = {out: [], err: []};
    const text = (args) => Array.prototype.map.call(args, String).join(' ');
    globalThis.console = {
      log() { streams.out.push(text(arguments)); },
      info() { streams.out.push(text(arguments)); },
      debug() { streams.out.push(text(arguments)); },
      warn() { streams.err.push(text(arguments)); },
      error() { streams.err.push(text(arguments)); }
    };
    const loaded = {};
    function load(name) {
      if (!(name in loaded)) {
        loaded[name] = null;  // a module loading itself gets null rather than looping
        loaded[name] = factories[name](load);
      }
      return loaded[name];
    }
    needed = [];
    written = {};
    const clockBefore = clock, randomBefore = randomState;
    let vrml;
    try {
      vrml = templates[index](hideUnknown(fields, names, protoName), context, load);
    } catch (error) {
      if (needed.length === 0) throw error;
    }
    if (needed.length > 0) {  // run again once the files are read: the rerun must see the same clock
      clock = clockBefore;
      randomState = randomBefore;
      return JSON.stringify({need: needed});
    }
    return JSON.stringify({vrml: vrml, out: streams.out, err: streams.err, written: written});
  }
  function provide(found) { Object.assign(files, found); }
  return {templates, run, provide};
})();
"""


@dataclass(frozen=True, slots=True)
class TemplateContext:
    """What a template sees as ``context`` (besides the PROTO path and the instance id).

    Attributes:
        world: absolute path of the world file.
        project_path: absolute path of the project folder.
        webots_home: the Webots installation in use, or ``""``.
        release: the world's Webots release (``webots_version.major``), e.g. ``R2023b``.
        coordinate_system: ``WorldInfo.coordinateSystem`` (``ENU`` by default).
        temporary_files_path: the folder ``wbfile.writeTextFile`` writes to.
    """

    world: str
    project_path: str
    webots_home: str
    release: str
    coordinate_system: str = "ENU"
    temporary_files_path: str = field(default_factory=lambda: str(Path(tempfile.gettempdir()) / "wbsim"))


@dataclass(frozen=True, slots=True)
class TemplateResult:
    """One expansion: the generated body text and what the template printed.

    Attributes:
        text: the generated PROTO body.
        errors: lines written to the error stream (``console.error``/``warn``, ``wbutility.error``/``assert``).
    """

    text: str
    errors: tuple[str, ...]


def js_literal(value: object) -> str:
    """JavaScript source for a Python value: None is ``undefined``, dicts are objects, tuples/lists arrays."""
    if value is None:
        return "undefined"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {js_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(js_literal(v) for v in value) + "]"
    raise TypeError(f"no JavaScript form for {type(value).__name__}")


class TemplateEngine:
    """Evaluates procedural PROTO templates for one world load (one QuickJS context, compiled templates).

    Args:
        context: what templates see as ``context``.
        time_limit_s: a template running longer (an endless loop) is stopped with an error.
    """

    def __init__(self, context: TemplateContext, time_limit_s: int = _TIME_LIMIT_S) -> None:
        self.context = context
        self.time_limit_s = time_limit_s
        self._js: object | None = None
        self._compiled: dict[str, int] = {}

    def _engine(self) -> object:
        if self._js is None:
            try:
                import quickjs
            except ImportError:  # pragma: no cover - a declared dependency
                raise TemplateError("Procedural PROTOs need the 'quickjs' package (pip install quickjs).") from None
            js = quickjs.Context()
            package = resources.files("wbsim.world.template_modules")
            factories = ", ".join(
                f"{name}: {package.joinpath(name + '.js').read_text(encoding='utf-8')}" for name in MODULE_NAMES
            )
            temporary = self.context.temporary_files_path.rstrip("/") + "/"
            js.eval(_RUNTIME.replace("__FACTORIES__", "{" + factories + "}").replace(
                "__TEMPORARY__", json.dumps(temporary)))
            js.set_time_limit(self.time_limit_s)  # type: ignore[attr-defined]
            self._js = js
        return self._js

    def _read_files(self, paths: list[str]) -> dict[str, str | None]:
        """What ``wbfile`` sees of ``paths``: a file's text ("" if unreadable), None where there is no file."""
        found: dict[str, str | None] = {}
        for path in paths:
            file = Path(path)
            if not file.is_file():
                found[path] = None
                continue
            try:
                found[path] = file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                found[path] = ""
        return found

    def _save_written(self, written: dict[str, str]) -> None:
        """Write the files a successful run gave to ``wbfile.writeTextFile`` (into the temporary folder)."""
        saved: dict[str, str | None] = {}
        for path, text in written.items():
            try:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
                Path(path).write_text(text, encoding="utf-8")
            except OSError:
                continue
            saved[path] = text
        if saved:
            self._engine().eval(f"__wbsim.provide({json.dumps(saved, ensure_ascii=False)})")  # type: ignore[attr-defined]

    def translate(self, content: str, line: int, file: str, field_names: tuple[str, ...] | None = None,
                  proto_name: str = "") -> str:
        """The JavaScript function for a template body starting at ``line`` of ``file`` (source text).

        Args:
            field_names: the PROTO's fields; a statement reading ``fields.<other>`` is an error (None: no check).

        Raises:
            TemplateError: an unclosed ``%<``, an import of an unknown module or of ``wbfile``, a field the
                PROTO does not declare.
        """
        imports: list[str] = []
        parts: list[str] = []
        position = 0
        while True:
            start = content.find("%<", position)
            if start < 0:
                break
            end = content.find(">%", start + 2)
            if end < 0:
                where = line + content.count("\n", 0, start)
                raise TemplateError("Template statement '%<' is never closed with '>%'.",
                                    SourceLocation(file, where, 1))
            parts.append(self._text(content[position:start]))
            statement = content[start + 2:end]
            if field_names is not None:
                for used in _FIELD_USE_RE.finditer(statement):
                    if used.group(1) not in field_names:
                        where = line + content.count("\n", 0, start + 2 + used.start())
                        raise TemplateError(
                            f"The template reads fields.{used.group(1)}, but PROTO {proto_name} has no field "
                            f"'{used.group(1)}' (its fields: {', '.join(field_names) or 'none'}).",
                            SourceLocation(file, where, 1),
                        )
            if statement.startswith("="):
                parts.append(f"__vrml += ({statement[1:]});")
            else:
                parts.append(self._hoist_imports(statement, imports, file, line + content.count("\n", 0, start)))
            position = end + 2
        parts.append(self._text(content[position:]))
        head = (
            "(function (fields, context, __load) { 'use strict'; "
            + " ".join(imports)
            + " let __vrml = '';"
        )
        return "\n" * (_LINE_OFFSET + line - 1) + head + "".join(parts) + "\nreturn __vrml; })"

    @staticmethod
    def _text(text: str) -> str:
        # Plain PROTO text is appended verbatim; the newlines after it keep the template's line numbers.
        if not text:
            return ""
        return f"__vrml += {json.dumps(text, ensure_ascii=False)};" + "\n" * text.count("\n")

    @staticmethod
    def _hoist_imports(statement: str, imports: list[str], file: str, line: int) -> str:
        def hoist(match: re.Match[str]) -> str:
            module = match.group("module")
            name = module[:-3] if module.endswith(".js") else module
            where = SourceLocation(file, line + statement.count("\n", 0, match.start()), 1)
            if name == "wbfile":
                raise TemplateError("'wbfile' is global in templates and must not be imported (as in Webots).", where)
            if name not in MODULE_NAMES:
                raise TemplateError(
                    f"Unknown template module {module!r}: the modules are {', '.join(m + '.js' for m in MODULE_NAMES)}.",
                    where,
                )
            if match.group("alias"):
                imports.append(f"const {match.group('alias')} = __load({json.dumps(name)});")
            else:
                names = []
                for item in match.group("names").split(","):
                    pieces = item.split(" as ")
                    if pieces[0].strip():
                        names.append(pieces[0].strip() + (f": {pieces[1].strip()}" if len(pieces) == 2 else ""))
                imports.append(f"const {{{', '.join(names)}}} = __load({json.dumps(name)});")
            # Keep the line count so that later lines keep their numbers.
            return "\n" * match.group().count("\n")

        return _IMPORT_RE.sub(hoist, statement)

    def compile(self, file: str, content: str, line: int, field_names: tuple[str, ...] | None = None,
                proto_name: str = "") -> int:
        """Compile a template body once per PROTO file; returns its index in the engine.

        Raises:
            TemplateError: JavaScript syntax error (located at the template line) or bad imports.
        """
        index = self._compiled.get(file)
        if index is not None:
            return index
        js = self._engine()
        source = self.translate(content, line, file, field_names, proto_name)
        try:
            function = js.eval(source)  # type: ignore[attr-defined]
        except Exception as error:  # quickjs.JSException
            raise self._located(error, file, line) from None
        js.set("__wbsim_new_template", function)  # type: ignore[attr-defined]
        index = js.eval("__wbsim.templates.push(__wbsim_new_template) - 1")  # type: ignore[attr-defined]
        self._compiled[file] = index
        return index

    def expand(self, file: str, content: str, line: int, proto_name: str, fields_js: str,
               field_names: tuple[str, ...], instance_id: int) -> TemplateResult:
        """Run a PROTO's template for one instance.

        Args:
            file: the PROTO file (absolute path).
            content: its template body; ``line``: the file line where the body starts.
            proto_name: the PROTO's name (for error messages).
            fields_js: the ``fields`` object as JavaScript source (see :func:`js_literal`).
            field_names: every field the PROTO declares (reading another name is an error).
            instance_id: ``context.id``.

        Raises:
            TemplateError: a JavaScript exception or syntax error, located in the PROTO file.
        """
        index = self.compile(file, content, line, field_names, proto_name)
        js = self._engine()
        ctx = self.context
        project = ctx.project_path.rstrip("/") + "/"
        context = {
            "os": "linux",
            "world": ctx.world,
            "proto": file,
            "webots_home": ctx.webots_home,
            "project_path": project,
            "temporary_files_path": ctx.temporary_files_path.rstrip("/") + "/",
            "id": str(instance_id),
            "coordinate_system": ctx.coordinate_system,
            "webots_version": {"major": ctx.release, "revision": "0"},
        }
        call = (f"__wbsim.run({index}, {fields_js}, {js_literal(context)}, {js_literal(list(field_names))}, "
                f"{json.dumps(proto_name)})")
        # Every run is under the time limit; a run that reads files not read yet is run again once Python has
        # read them (wbfile), so the number of runs is bounded by the number of distinct files read, and the
        # runs of one expansion together by the time limit too.
        started = time.process_time()
        for _ in range(_MAX_FILE_RUNS):
            try:
                raw = js.eval(call)  # type: ignore[attr-defined]
            except Exception as error:  # quickjs.JSException
                raise self._located(error, file, line, self.time_limit_s) from None
            result = json.loads(raw)
            if "need" not in result:
                break
            if time.process_time() - started > self.time_limit_s:
                raise TemplateError("JavaScript error in the PROTO template: InternalError: interrupted (the "
                                    f"template ran for more than {self.time_limit_s} s)", SourceLocation(file, line, 1))
            found = json.dumps(self._read_files(result["need"]), ensure_ascii=False)
            js.eval(f"__wbsim.provide({found})")  # type: ignore[attr-defined]
        else:
            raise TemplateError(f"The template reads more than {_MAX_FILE_RUNS} files with wbfile.",
                                SourceLocation(file, line, 1))
        self._save_written(result["written"])
        return TemplateResult(str(result["vrml"]), tuple(result["err"]))

    @staticmethod
    def _located(error: Exception, file: str, line: int, time_limit_s: int = _TIME_LIMIT_S) -> TemplateError:
        text = str(error)
        message = text.split("\n", 1)[0].strip()
        if message == "InternalError: interrupted":
            message += f" (the template ran for more than {time_limit_s} s)"
        where = SourceLocation(file, line, 1)
        for match in _FRAME_RE.finditer(text):
            number = int(match.group(1))
            if number > _LINE_OFFSET:  # the innermost frame in the template itself
                where = SourceLocation(file, number - _LINE_OFFSET, 1)
                break
        return TemplateError(f"JavaScript error in the PROTO template: {message}", where)
