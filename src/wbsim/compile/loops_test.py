"""Unit tests of the SolidReference lookup (Webots' rules) and of the helpers of compile/loops.py."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from wbsim.compile.frames import Frame
from wbsim.compile.loops import STATIC_ENVIRONMENT, body_world_frame, loop_solref, resolve_reference
from wbsim.world.loader import load_world_model_from_string
from wbsim.world.model import WbNode

TREE = """#VRML_SIM R2023b utf8
Robot {{
  name "top"
  physics Physics {{ }}
  children [
    Pose {{ children [ Solid {{ name "twin" physics Physics {{ }}
      children [ Solid {{ name "deep" physics Physics {{ }} }} Solid {{ name "bare" }} ] }} ] }}
    HingeJoint {{
      endPoint DEF UPPER Solid {{
        name "{upper}"
        physics Physics {{ }}
        children [
          Solid {{ name "twin" physics Physics {{ }} }}
          HingeJoint {{ endPoint DEF REF SolidReference {{ solidName "{name}" }} }}
        ]
      }}
    }}
    Group {{ children [ SliderJoint {{ endPoint Solid {{ name "via joint" physics Physics {{ }} }} }} ] }}
  ]
}}
Solid {{ name "elsewhere" physics Physics {{ }} }}
"""


def reference(name: str, upper: str = "upper") -> WbNode:
    model = load_world_model_from_string(TREE.format(name=name, upper=upper), "tree.wbt")
    node = model.find_def("REF")
    assert node is not None
    return node


def test_the_first_solid_in_pre_order_from_the_top_solid_wins() -> None:
    # Two Solids are called "twin": the one in the top Solid's first child (through a Pose) comes first.
    found = resolve_reference(reference("twin"))
    assert found.target is not None and found.target.parent.type_name == "Pose"


@pytest.mark.parametrize("name", ["top", "deep", "via joint"])
def test_the_search_covers_the_top_solid_children_through_groups_and_joint_end_points(name: str) -> None:
    found = resolve_reference(reference(name))
    assert found.target is not None and found.target["name"] == name and not found.problem


def test_a_solid_without_physics_is_found_but_closes_nothing() -> None:
    found = resolve_reference(reference("bare"))  # Webots finds it, then attaches no joint (setJoint fails)
    assert found.target is None and "'bare' refers to a Solid without Physics" in found.problem


def test_the_closest_upper_solid_is_skipped_but_its_children_are_searched() -> None:
    # The upper Solid is named "twin" too: the search skips it, yet still finds the first other "twin".
    found = resolve_reference(reference("twin", upper="twin"))
    assert found.target is not None and found.target["name"] == "twin" and found.target.parent.type_name == "Pose"
    alone = resolve_reference(reference("upper"))
    assert alone.target is None and "refers to its closest upper solid" in alone.problem


def test_solids_outside_the_top_solid_are_not_found() -> None:
    found = resolve_reference(reference("elsewhere"))
    assert found.target is None and "invalid 'elsewhere' name" in found.problem


def test_the_static_environment_and_an_empty_name() -> None:
    assert resolve_reference(reference(STATIC_ENVIRONMENT)).static
    assert "without solidName" in resolve_reference(reference("")).problem


def test_body_world_frame_composes_the_chain_of_poses() -> None:
    spec = mujoco.MjSpec()
    a = spec.worldbody.add_body(name="a", pos=[1.0, 0.0, 0.0], quat=[math.cos(math.pi / 4), 0.0, 0.0,
                                                                   math.sin(math.pi / 4)])
    b = a.add_body(name="b", pos=[0.5, 0.0, 0.0])
    frame = body_world_frame(b)
    np.testing.assert_allclose(frame.pos, [1.0, 0.5, 0.0], atol=1e-12)
    np.testing.assert_allclose(frame.rot @ np.array([1.0, 0.0, 0.0]), [0.0, 1.0, 0.0], atol=1e-12)
    assert isinstance(body_world_frame(spec.worldbody), Frame)


def test_the_weld_time_constant_is_two_physics_steps() -> None:
    assert loop_solref(0.004) == (0.008, 1.0)
