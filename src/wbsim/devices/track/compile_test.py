"""Track and TrackWheel schemas and compilation: the devices a Track lists, Webots' load rules, body plans."""

from __future__ import annotations

import mujoco
import pytest

from wbsim.compile.builder import compile_world
from wbsim.errors import WorldLoadError
from wbsim.world.builtin_nodes import builtin_schemas
from wbsim.world.loader import load_world_model_from_string

HEADER = "#VRML_SIM R2023b utf8\nWorldInfo { }\n"


def compiled(body: str):
    return compile_world(load_world_model_from_string(HEADER + body, "t.wbt"))


def test_schemas_are_webots_track_and_trackwheel_wrl() -> None:
    track = builtin_schemas()["Track"]
    assert track.support == "simulated" and track.is_a("solid")
    assert {name: track.fields[name].default for name in ("device", "textureAnimation", "animatedGeometry",
                                                          "geometriesCount")} == {
        "device": (), "textureAnimation": (0.0, 0.0), "animatedGeometry": None, "geometriesCount": 10}
    assert "track_wheel" in track.fields["children"].node_kinds
    wheel = builtin_schemas()["TrackWheel"]
    assert {name: spec.default for name, spec in wheel.fields.items()} == {
        "position": (0.0, 0.0), "radius": 0.1, "inner": True, "children": ()}
    # Webots accepts a TrackWheel only among a Track's children.
    assert "track_wheel" not in builtin_schemas()["Solid"].fields["children"].node_kinds


def test_trackwheel_outside_a_track_is_an_error() -> None:
    with pytest.raises(WorldLoadError, match="TrackWheel"):
        compiled("Robot { children [ TrackWheel { } ] }")


ROBOT = """
Robot {
  name "r"
  children [
    Track { name "t" boundingObject Box { size 0.3 0.05 0.1 } physics Physics { }
      device [ PositionSensor { name "s" } LinearMotor { name "m" } LinearMotor { name "m2" } ]
      children [ TrackWheel { position 0.1 0 radius 0.05 } ] }
    Track { name "bare" boundingObject Box { size 0.3 0.05 0.1 } physics Physics { } }
  ]
  boundingObject Box { size 0.2 0.2 0.05 }
  physics Physics { density -1 mass 4 }
}
"""


def test_track_lists_its_first_motor_and_sensor_in_field_order() -> None:
    world = compiled(ROBOT)
    refs = world.bindings.robots[0].devices
    assert [(ref.kind, ref.node["name"]) for ref in refs] == [("track", "s"), ("track", "m")]
    bindings = world.bindings.devices["track"]
    assert [(b.role, b.track_index) for b in bindings] == [("position_sensor", 0), ("motor", 0)]
    track = bindings[0].track
    assert track.motor["name"] == "m" and track.sensor["name"] == "s" and track.dynamic
    # Webots' dBodyGetMass of a Track merged into its Robot: the merged body (4 kg and two 1.5 kg Tracks).
    assert track.mass == pytest.approx(7.0)
    assert track.up == (0.0, 0.0, 1.0)
    assert [w.message for w in world.warnings] == [
        "Only the first LinearMotor of a Track is used; this one is ignored."]
    assert world.model.flg_surfacevel == 1


def test_track_without_motor_moves_no_contact() -> None:
    world = compiled('Robot { children [ Track { boundingObject Box { size 1 1 1 } physics Physics { } '
                     'device [ PositionSensor { } ] } ] }')
    assert world.model.flg_surfacevel == 0
    assert world.bindings.devices["track"][0].track.motor is None


def test_static_track_is_a_mocap_body_and_needs_its_bounding_object() -> None:
    world = compiled('Robot { children [ Track { device [ LinearMotor { } ] } ] }')
    binding = world.bindings.devices["track"][0].track
    assert not binding.dynamic
    assert world.model.body_mocapid[binding.body_id] >= 0
    assert [w.message for w in world.warnings] == [
        "A Track needs a boundingObject and a Physics node: its belt moves only what touches its "
        "boundingObject."]


def test_nue_worlds_have_y_up() -> None:
    world = compile_world(load_world_model_from_string(
        '#VRML_SIM R2023b utf8\nWorldInfo { coordinateSystem "NUE" }\nRobot { children [ Track { '
        'boundingObject Box { size 1 1 1 } physics Physics { } device [ LinearMotor { } ] } ] }', "t.wbt"))
    assert world.bindings.devices["track"][0].track.up == (0.0, 1.0, 0.0)
    geom = world.bindings.devices["track"][0].track.geom_ids[0]
    assert world.model.geom_type[geom] == int(mujoco.mjtGeom.mjGEOM_BOX)
