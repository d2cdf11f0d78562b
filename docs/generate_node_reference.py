"""Write docs/nodes.md from the node schemas (the schemas are the single source of truth).

Run: ``python docs/generate_node_reference.py`` (a test checks the committed file is up to date).
"""

from __future__ import annotations

import sys
from pathlib import Path

from wbsim.world.builtin_nodes import builtin_schemas
from wbsim.world.schema import FieldSpec

OUTPUT = Path(__file__).with_name("nodes.md")


def _value(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple):
        if value and isinstance(value[0], tuple):
            return "[ " + ", ".join(_value(v) for v in value) + " ]"
        if not value:
            return "[]"
        return " ".join(_value(v) for v in value)
    return str(value)


def _accepted(spec: FieldSpec) -> str:
    parts = []
    if spec.choices is not None:
        rule = f" (other -> {_value(spec.replacement)}, warning)" if spec.on_violation == "replace" else ""
        parts.append("{" + ", ".join(_value(c) for c in spec.choices) + "}" + rule)
    if spec.bounds is not None:
        rule = {"error": "error outside", "replace": f"outside -> {_value(spec.replacement)} (warning)",
                "clamp": "clamped (warning)", "negate": "negative -> its opposite (warning)"}[spec.on_violation]
        parts.append(f"{spec.bounds} ({rule})")
    if spec.node_kinds:
        parts.append("nodes: " + ", ".join(sorted(spec.node_kinds)))
    return "; ".join(parts)


def render() -> str:
    """The Markdown text of the node reference."""
    schemas = builtin_schemas()
    lines = [
        "# Supported nodes and fields",
        "",
        "Generated from the node schemas (`wbsim.world.builtin_nodes` and the device kinds) by `docs/generate_node_reference.py`; do not edit by hand.",
        "",
        "Effect: **sim** = used by the simulation; **visual** = accepted, no effect (no rendering in wbsim);",
        "**ignored** = accepted for compatibility, no effect. Accepted values outside the given range are an",
        "error unless a Webots sanitising rule applies (then the value is replaced or clamped with a warning).",
        "",
    ]
    simulated = [s for s in schemas.values() if s.support != "unsupported"]
    unsupported = sorted(s.name for s in schemas.values() if s.support == "unsupported")
    for schema in sorted(simulated, key=lambda s: s.name):
        kinds = ", ".join(sorted(schema.kinds))
        lines += [f"## {schema.name}", "", f"Kind: {kinds}. Support: {schema.support}.", ""]
        if not schema.fields:
            lines += ["(no fields)", ""]
            continue
        lines += ["| field | type | default | accepted | unit | effect |", "|---|---|---|---|---|---|"]
        for spec in schema.fields.values():
            effect = {"simulated": "sim", "visual": "visual", "ignored": "ignored"}[spec.effect]
            if spec.deprecated:
                effect += " (deprecated)"
            lines.append(f"| {spec.name} | {spec.type.value} | {_value(spec.default)} | {_accepted(spec)} | "
                         f"{spec.unit} | {effect} |")
        lines.append("")
    lines += [
        "## Known Webots nodes not simulated yet",
        "",
        "These load with a warning and are skipped together with everything inside them:",
        "",
        ", ".join(unsupported) + ".",
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    OUTPUT.write_text(render(), encoding="utf-8")
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
