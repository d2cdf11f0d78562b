"""Documentation that is generated from code must match the code."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_node_reference_is_up_to_date():
    spec = importlib.util.spec_from_file_location("gen", ROOT / "docs" / "generate_node_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = (ROOT / "docs" / "nodes.md").read_text(encoding="utf-8")
    assert committed == module.render(), "run: python docs/generate_node_reference.py"
