"""The .wbt writer: Webots' layout, and a written world reads back to the same model."""

from __future__ import annotations

from wbsim.world.loader import load_world_model_from_string
from wbsim.world.model import WbNode
from wbsim.world.writer import format_number, node_text, world_text

TEXT = """#VRML_SIM R2023b utf8
WorldInfo { basicTimeStep 8 contactProperties [ ContactProperties { coulombFriction [ 0.5 0.25 ] } ] }
DEF BOX Solid {
  translation 0 0 1.5
  rotation 0 1 0 0.25
  children [
    DEF SHAPE Shape { geometry Box { size 0.1 0.2 0.3 } }
    Pose { translation 0.1 0 0 children [ USE SHAPE ] }
  ]
  name "box \\"one\\""
  boundingObject Box { size 0.1 0.2 0.3 }
  physics Physics { density -1 mass 2 }
  locked TRUE
}
"""


def test_layout_is_webots() -> None:
    model = load_world_model_from_string(TEXT, "w.wbt")
    box = model.nodes[1]
    assert node_text(box) == """DEF BOX Solid {
  translation 0 0 1.5
  rotation 0 1 0 0.25
  children [
    DEF SHAPE Shape {
      geometry Box {
        size 0.1 0.2 0.3
      }
    }
    Pose {
      translation 0.1 0 0
      children [
        USE SHAPE
      ]
    }
  ]
  name "box \\"one\\""
  boundingObject Box {
    size 0.1 0.2 0.3
  }
  physics Physics {
    density -1
    mass 2
  }
  locked TRUE
}"""
    # Numbers of an MFFloat share one line.
    assert "coulombFriction [\n        0.5, 0.25\n      ]" in node_text(model.nodes[0])


def test_world_reads_back_to_the_same_model() -> None:
    model = load_world_model_from_string(TEXT, "w.wbt")
    again = load_world_model_from_string(world_text(model), "w.wbt")

    def fields(node: WbNode) -> list[tuple[str, object]]:
        return [(node.type_name, node.def_name)] + [
            (k, fields(v) if isinstance(v, WbNode) else tuple(fields(n) for n in v)
             if isinstance(v, tuple) and v and isinstance(v[0], WbNode) else v) for k, v in node.fields.items()]

    assert [fields(n) for n in again.nodes] == [fields(n) for n in model.nodes]


def test_numbers_read_back_exactly() -> None:
    for value in (0.1, 1.0, -0.0, 1e-05, 2.5e300, 1 / 3, -7.0):
        text = format_number(value)
        assert float(text) == value and text != "-0"
    assert format_number(3.0) == "3" and format_number(0.1) == "0.1"


def test_a_tree_broken_at_run_time_is_written_once_per_node() -> None:
    # A node held twice, or below itself (never in a checked world; a run-time edit could do it), is written
    # once; met again, a DEF node becomes its USE and another node is left out, so the export ends.
    model = load_world_model_from_string(
        "#VRML_SIM R2023b utf8\nDEF P Pose { children [ Pose { children [ DEF S Shape { } ] } ] }", "w.wbt")
    p = model.nodes[0]
    q = p["children"][0]
    s = q["children"][0]
    q.fields["children"] = (s, s, p)
    text = node_text(p)
    assert text.count("Shape {") == 1 and text.count("USE S") == 1 and "USE P" in text
