"""Write ``webots_members.txt``: the public members of Webots' Python ``controller`` package, as data.

Usage: ``python tests/webots_api/extract_members.py FOLDER`` where FOLDER holds Webots'
``lib/controller/python/controller/*.py`` (or an outline of them with the same class bodies). The files
are parsed, never imported (they need Webots' C library). Each line of the output is
``Class member kind [value]``:

- kinds: ``method``, ``staticmethod``, ``property`` (``@property`` or ``x = property(...)``),
  ``constant`` (an UPPER_CASE class attribute), ``attribute`` (an instance attribute set in ``__init__``
  of a plain value class, e.g. ``LidarPoint.x``);
- ``value``: the integer a constant has when Webots writes it literally (``Node.ROBOT = 34`` for a
  value read from the C enum is written so in the folder);
- the first lines, ``controller NAME export``, are the names ``from controller import ...`` gives.

Private names (leading ``_``) and ctypes set-up statements are skipped. The test
``members_test.py`` checks wbsim's ``controller`` module against this file.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

__all__ = ["extract", "main"]


def _literal(node: ast.expr) -> int | None:
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _is_property(decorators: list[ast.expr]) -> str | None:
    for decorator in decorators:
        if isinstance(decorator, ast.Name) and decorator.id in ("property", "staticmethod"):
            return decorator.id
        if isinstance(decorator, ast.Attribute) and decorator.attr in ("setter", "getter"):
            return "setter"
    return None


def _class_members(cls: ast.ClassDef) -> dict[str, tuple[str, int | None]]:
    members: dict[str, tuple[str, int | None]] = {}
    for item in cls.body:
        if isinstance(item, ast.FunctionDef):
            decorated = _is_property(item.decorator_list)
            if decorated == "setter":
                continue
            if item.name == "__init__":
                for sub in ast.walk(item):  # self.x = ... in __init__: public instance attributes
                    if isinstance(sub, ast.Assign):
                        for target in sub.targets:
                            if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                                    and target.value.id == "self" and not target.attr.startswith("_")):
                                members.setdefault(target.attr, ("attribute", None))
                continue
            if item.name.startswith("_"):
                continue
            kind = {"property": "property", "staticmethod": "staticmethod"}.get(decorated or "", "method")
            members[item.name] = (kind, None)
        elif isinstance(item, ast.Assign):
            for target in item.targets:
                if not isinstance(target, ast.Name) or target.id.startswith("_"):
                    continue
                if isinstance(item.value, ast.Call) and getattr(item.value.func, "id", "") == "property":
                    members[target.id] = ("property", None)
                elif target.id.isupper() or target.id[0].isupper():
                    members[target.id] = ("constant", _literal(item.value))
                else:
                    members[target.id] = ("attribute", None)
    return members


def extract(folder: Path) -> list[str]:
    """The lines of ``webots_members.txt`` for the Webots Python files in ``folder``."""
    classes: dict[str, dict[str, tuple[str, int | None]]] = {}
    exports: list[str] = []
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for item in tree.body:
            if isinstance(item, ast.ClassDef):
                classes.setdefault(item.name, {}).update(_class_members(item))
            elif isinstance(item, ast.ImportFrom) and path.name == "__init__.py":
                exports.extend(alias.asname or alias.name for alias in item.names)
            elif isinstance(item, ast.Assign):  # Node.X = ..., Supervisor.Y = ..., Speaker.playSound = staticmethod(...)
                for target in item.targets:
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                        owner, name = target.value.id, target.attr
                        if isinstance(item.value, ast.Call) and getattr(item.value.func, "id", "") == "staticmethod":
                            classes.setdefault(owner, {})[name] = ("staticmethod", None)
                        elif name.isupper():
                            classes.setdefault(owner, {})[name] = ("constant", _literal(item.value))
                        else:
                            classes.setdefault(owner, {})[name] = ("method", None)
    lines = [f"controller {name} export" for name in sorted(set(exports))]
    for owner in sorted(classes):
        for name, (kind, value) in sorted(classes[owner].items()):
            lines.append(f"{owner} {name} {kind}" + ("" if value is None else f" {value}"))
    return lines


def main(argv: list[str]) -> int:
    """Write ``webots_members.txt`` next to this script from the folder ``argv[1]``."""
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(__file__).with_name("webots_members.txt")
    lines = extract(Path(argv[1]))
    out.write_text("# Public members of Webots' Python controller package: Class member kind [value].\n"
                   "# Generated by extract_members.py; do not edit by hand.\n" + "\n".join(lines) + "\n")
    print(f"{out}: {sum(1 for line in lines if not line.startswith('controller '))} members")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
