"""Tests of the world model: WbNode access and traversal, DEF dotted-path lookup (reference §3.6)."""

from __future__ import annotations

import pytest

from wbsim.errors import SourceLocation
from wbsim.world.loader import load_world_model_from_string
from wbsim.world.model import WbNode, WorldModel, WorldWarning, find_node_by_def_path

H = "#VRML_SIM R2023b utf8\n"


def load(body: str) -> WorldModel:
    return load_world_model_from_string(H + body, "w.wbt")


WORLD = """
WorldInfo { }
DEF ROOT Robot {
  name "root"
  children [
    DEF A Pose { children [
      DEF SHAPE Shape { geometry DEF GEOM Box { } }
      DEF X Solid { name "x-in-A" }
    ] }
    DEF J HingeJoint {
      jointParameters DEF JP HingeJointParameters { }
      device [ DEF MOTOR RotationalMotor { } ]
      endPoint DEF END_POINT_SOLID_1 Solid {
        name "end"
        children [ DEF B Transform { children [ DEF X Solid { name "x-in-B" } ] } ]
        boundingObject DEF BO Group { children [ DEF HIDDEN_IN_BO Shape { } ] }
        physics DEF PH Physics { }
      }
    }
    DEF A Group { children [ DEF C Solid { name "c" } ] }
  ]
}
DEF SECOND Solid { name "second" children [ DEF X Solid { name "x-second" } DEF CAPSULE Solid { name "cap" } ] }
"""


@pytest.fixture(scope="module")
def model() -> WorldModel:
    return load(WORLD)


def name_of(node: WbNode | None) -> object:
    assert node is not None
    return node.get("name", node.type_name)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("ROOT", "root"),
        ("SECOND", "second"),
        ("CAPSULE", "cap"),
        ("END_POINT_SOLID_1", "end"),  # a DEF on a joint endPoint
        ("X", "x-in-A"),  # first match in pre-order DFS
        ("ROOT.X", "x-in-A"),
        ("ROOT.J.X", "x-in-B"),  # from the joint, only its endPoint is searched
        ("ROOT.B.X", "x-in-B"),  # a dot skips any number of nodes, named or not
        ("B.X", "x-in-B"),
        ("END_POINT_SOLID_1.X", "x-in-B"),
        ("SECOND.X", "x-second"),
        ("ROOT.ROOT", "root"),  # the node itself is tested first
        ("X.X", "x-in-A"),
        ("ROOT.A.SHAPE", "Shape"),
        ("SHAPE", "Shape"),
        ("J", "HingeJoint"),
        ("ROOT.C", "c"),
        ("C", "c"),
    ],
)
def test_find_def(model: WorldModel, path: str, expected: str) -> None:
    assert name_of(model.find_def(path)) == expected


@pytest.mark.parametrize(
    "path",
    [
        "GEOM",  # Shape.geometry is not searched
        "BO", "HIDDEN_IN_BO",  # nor boundingObject
        "PH",  # nor physics
        "MOTOR",  # nor device
        "JP",  # nor jointParameters
        "ROOT.SECOND",  # SECOND is not below ROOT
        "A.C",  # the first A (a Pose) wins; the second A holding C is never tried
        "X.C",
        "NOPE",
        "ROOT.NOPE",
        "NOPE.ROOT",
        "",
        ".ROOT",
        "ROOT.",
        "ROOT..X",
    ],
)
def test_find_def_not_found(model: WorldModel, path: str) -> None:
    assert model.find_def(path) is None


def test_find_def_returns_the_very_node(model: WorldModel) -> None:
    root = model.nodes[1]
    assert model.find_def("ROOT") is root
    joint = root["children"][1]  # type: ignore[index]
    assert model.find_def("ROOT.J") is joint
    assert model.find_def("J.END_POINT_SOLID_1") is joint["endPoint"]


def test_find_node_by_def_path_on_roots() -> None:
    model = load("Solid { children [ DEF A Solid { } ] }\nDEF A Solid { name \"later\" }")
    assert find_node_by_def_path(model.nodes, "A") is model.nodes[0]["children"][0]  # type: ignore[index]
    assert find_node_by_def_path((model.nodes[1],), "A") is model.nodes[1]
    assert find_node_by_def_path((), "A") is None


def test_use_copies_have_no_def_name() -> None:
    model = load("Group { children [ DEF S Shape { } ] }\nGroup { children [ USE S ] }")
    first, second = model.nodes
    assert model.find_def("S") is first["children"][0]  # type: ignore[index]
    assert second["children"][0].def_name is None  # type: ignore[index]


def test_joint_itself_is_matched_before_its_end_point() -> None:
    model = load("DEF J HingeJoint { endPoint DEF J Solid { } }")
    assert model.find_def("J") is model.nodes[0]
    assert model.find_def("J.J") is model.nodes[0]


def test_slider_and_ball_joint_end_points_are_searched() -> None:
    model = load(
        "SliderJoint { endPoint Solid { children [ DEF S Solid { } ] } }\n"
        "BallJoint { endPoint DEF B Solid { } }"
    )
    assert model.find_def("S") is not None and model.find_def("B") is not None


# -- WbNode API ------------------------------------------------------------------------------------------------------


def test_node_accessors(model: WorldModel) -> None:
    root = model.nodes[1]
    assert root["name"] == "root"
    assert root.get("name") == "root"
    assert root.get("nosuch", 7) == 7
    with pytest.raises(KeyError):
        root["nosuch"]
    assert root.is_a("solid") and root.is_a("robot") and not root.is_a("joint")
    assert root.type_name == root.display_type == "Robot"
    assert root.def_name == "ROOT"
    assert root.location_of("name") == SourceLocation("w.wbt", 5, 3)
    assert root.location_of("translation") == root.location == SourceLocation("w.wbt", 4, 10)
    assert repr(root) == '<WbNode Robot "root">'


def test_child_nodes_in_field_order(model: WorldModel) -> None:
    joint = model.find_def("ROOT.J")
    assert joint is not None
    assert [(f, i, n.type_name) for f, i, n in joint.child_nodes()] == [
        ("jointParameters", None, "HingeJointParameters"),
        ("device", 0, "RotationalMotor"),
        ("endPoint", None, "Solid"),
    ]


def test_walk_is_depth_first_in_field_order(model: WorldModel) -> None:
    names = [n.def_name for n in model.walk() if n.def_name]
    assert names == [
        "ROOT", "A", "SHAPE", "GEOM", "X", "J", "JP", "MOTOR", "END_POINT_SOLID_1", "B", "X", "BO", "HIDDEN_IN_BO", "PH",
        "A", "C", "SECOND", "X", "CAPSULE",
    ]
    root = model.nodes[1]
    assert next(root.walk()) is root
    assert all(n.parent is not None for n in root.walk() if n is not root)


def test_parent_links(model: WorldModel) -> None:
    x = model.find_def("ROOT.B.X")
    assert x is not None and x.parent is not None
    assert x.parent.def_name == "B" and x.parent_field == "children" and x.index == 0
    end_point = model.find_def("END_POINT_SOLID_1")
    assert end_point is not None and end_point.parent is not None
    assert end_point.parent_field == "endPoint" and end_point.index is None
    assert end_point.parent.def_name == "J"


def test_world_model_attributes(model: WorldModel) -> None:
    assert model.file == "w.wbt" and model.version == "R2023b"
    assert model.world_info is model.nodes[0]
    assert [n.type_name for n in model.nodes] == ["WorldInfo", "Robot", "Solid"]


def test_world_warning_str() -> None:
    assert str(WorldWarning("careful", SourceLocation("a.wbt", 2, 3), "Solid")) == "a.wbt:2:3: warning: careful [in Solid]"
    assert str(WorldWarning("careful")) == "warning: careful"


def test_walk_and_ancestors_end_on_a_tree_broken_at_run_time() -> None:
    # A checked world is a tree (USE makes copies); a tree edited at run time could hold a node twice or hold
    # one of its own ancestors: every walk still ends and meets each node once.
    model = load("DEF P Pose { children [ DEF Q Pose { children [ DEF S Shape { } ] } ] }")
    p, q, s = (model.find_def(name) for name in ("P", "Q", "S"))
    q.fields["children"] = (s, s, p)  # S twice, and P (an ancestor) below Q
    assert [n.def_name for n in p.walk()] == ["P", "Q", "S"]
    p.parent = s  # and a parent chain that loops
    assert [n.def_name for n in s.ancestors()] == ["Q", "P"]
    assert find_node_by_def_path((p,), "MISSING") is None  # the DEF search ends too
