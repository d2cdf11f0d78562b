"""Lidar nodes at load time: schema defaults, Webots' repairs and warnings, frames and what rays leave out."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from wbsim.devices.lidar.schema import LidarSettings, repair
from wbsim.world.builtin_nodes import builtin_schemas


def _load(project, world: str):
    from wbsim.sim.simulation import load_world

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim = load_world(project(world))
    return sim, [str(w.message) for w in caught]


def test_schema_has_webots_fields_and_defaults():
    schema = builtin_schemas()["Lidar"]
    assert schema.support == "simulated" and schema.is_a("solid")
    defaults = {name: spec.default for name, spec in schema.fields.items() if name in (
        "tiltAngle", "horizontalResolution", "fieldOfView", "verticalFieldOfView", "numberOfLayers", "near",
        "minRange", "maxRange", "type", "projection", "noise", "resolution", "defaultFrequency", "minFrequency",
        "maxFrequency", "rotatingHead", "spherical", "name")}
    assert defaults == {"tiltAngle": 0.0, "horizontalResolution": 512, "fieldOfView": 1.5708,
                        "verticalFieldOfView": 0.2, "numberOfLayers": 4, "near": 0.01, "minRange": 0.01,
                        "maxRange": 1.0, "type": "fixed", "projection": "cylindrical", "noise": 0.0,
                        "resolution": -1.0, "defaultFrequency": 10.0, "minFrequency": 1.0, "maxFrequency": 25.0,
                        "rotatingHead": None, "spherical": True, "name": "lidar"}


def test_defaults_need_no_repair():
    assert repair(LidarSettings(), "fixed") == (LidarSettings(), [])


@pytest.mark.parametrize(("fields", "expected", "texts"), [
    (dict(near=0.0), dict(near=0.01), ["Invalid 'near' changed to 0.01. The value should be positive."]),
    (dict(near=0.5, min_range=0.2), dict(near=0.2), ["'near' is greater than to 'minRange'. Setting 'near' to 0.2."]),
    # Webots' order: updateNear first (near follows the invalid minRange), then updateMinRange.
    (dict(min_range=-1.0), dict(min_range=0.01, near=-1.0),
     ["'near' is greater than to 'minRange'. Setting 'near' to -1.",
      "Invalid 'minRange' changed to 0.01. The value should be positive."]),
    (dict(min_range=2.0, max_range=1.5, near=0.01), dict(max_range=3.0),
     ["'minRange' is greater or equal to 'maxRange'. Setting 'maxRange' to 3."]),
    (dict(resolution=0.0), dict(resolution=-1.0),
     ["Invalid 'resolution' changed to -1. The value should be either -1 or positive."]),
    (dict(min_frequency=30.0), dict(min_frequency=25.0, default_frequency=25.0),
     ["'minFrequency' should be smaller or equal to 'maxFrequency'.",
      "'defaultFrequency' should be bigger or equal to 'minFrequency'."]),
    (dict(default_frequency=40.0), dict(default_frequency=25.0),
     ["'defaultFrequency' should be bigger or equal to 'maxFrequency'."]),
    (dict(vertical_field_of_view=4.0), dict(vertical_field_of_view=math.pi),
     ["Invalid 'verticalFieldOfView' changed to 3.14159. The value should be 3.14159 or less."]),
    (dict(noise=-0.1), dict(noise=0.0), ["Invalid 'noise' changed to 0. The value should be non-negative."]),
    # WbAbstractCamera's rules, before the lidar's (a zero field of view would leave no pixel).
    (dict(field_of_view=0.0), dict(field_of_view=0.7854),
     ["Invalid 'fieldOfView' changed to 0.7854. The value should be positive."]),
    (dict(field_of_view=4.0, planar=True), dict(field_of_view=0.7854),
     ["Invalid 'fieldOfView' changed to 0.7854. The field of view is limited to pi if the 'projection' field is "
      "\"planar\"."]),
    (dict(field_of_view=4.0), dict(field_of_view=4.0), []),  # cylindrical: up to a full turn
])
def test_repairs_follow_webots_order_and_texts(fields, expected, texts):
    repaired, messages = repair(LidarSettings(**fields), "fixed")
    for name, value in expected.items():
        assert getattr(repaired, name) == pytest.approx(value)
    assert [m for _, m in messages] == texts


def test_too_many_layers_for_the_pixel_rows_are_reduced():
    # 8 columns over 1 rad: rows of 0.125 rad; a vertical field of 0.2 holds 3 rows, not 6 layers.
    repaired, messages = repair(LidarSettings(horizontal_resolution=8, field_of_view=1.0, number_of_layers=6), "fixed")
    # horizontalResolution: ceil(6 layers * 1 rad / (3 rows * 1 rad / 8)) = 16; still 5 rows < 6: the vertical field
    # becomes 6 * 1 rad / 16 = 0.375 (7 rows).
    assert (repaired.horizontal_resolution, repaired.vertical_field_of_view, repaired.number_of_layers) == (16, 0.375, 6)
    assert [name for name, _ in messages] == ["horizontalResolution", "verticalFieldOfView"]
    assert messages[0][1].endswith("'horizontalResolution' set to 16.")
    assert messages[1][1].endswith("'verticalFieldOfView' set to 0.375.")


def test_unknown_type_is_fixed_with_webots_warning(project):
    sim, messages = _load(project, 'Robot { children [ Lidar { type "spinning" } ] }')
    assert any("'type' should either be 'fixed' or 'rotating', reset to 'fixed'" in m for m in messages)
    assert not sim.bindings.devices["lidar"][0].settings.rotating
    sim.close()


def test_spherical_false_means_planar(project):
    sim, messages = _load(project, 'Robot { children [ Lidar { spherical FALSE } ] }')
    assert any("Deprecated 'spherical' field, please use the 'projection' field instead." in m for m in messages)
    assert sim.bindings.devices["lidar"][0].settings.planar
    sim.close()


def test_frames_own_bodies_and_the_rotating_head(project):
    world = """
    Solid { translation 1 0 0 name "wall" boundingObject Box { size 0.2 4 4 } }
    Robot { name "r" controller "<extern>" children [
      Lidar { name "bare" translation 0 -0.5 0 horizontalResolution 4 numberOfLayers 1 maxRange 5 }
      Lidar { name "shelled" translation 0 0.5 0 horizontalResolution 4 numberOfLayers 1 maxRange 5
              boundingObject Sphere { radius 0.05 } }
      Lidar { name "spinner" type "rotating" numberOfLayers 1 maxRange 5
              rotatingHead Solid { name "head" boundingObject Box { size 0.5 0.5 0.5 } } }
    ] boundingObject Pose { translation 0 0 -0.5 children [ Box { size 0.02 0.02 0.02 } ] } physics Physics { } }
    """
    sim, _ = _load(project, world)
    bare, shelled, spinner = sim.bindings.devices["lidar"]
    assert bare.exclude_body == -1 and bare.site_id >= 0
    assert shelled.exclude_body == sim.model.site_bodyid[shelled.site_id] != sim.model.site_bodyid[bare.site_id]
    assert spinner.settings.rotating
    assert all(s.node["name"] != "head" for s in sim.bindings.solids), "the rotating head is not built"
    robot = sim.robot("r")
    for name in ("bare", "shelled"):
        robot.getDevice(name).enable(16)
    robot.step(16)
    # The shelled lidar does not see its own sphere (Webots' camera sits inside its shape); both see the wall.
    np.testing.assert_allclose(robot.getDevice("shelled").getRangeImage(), robot.getDevice("bare").getRangeImage())
    assert min(robot.getDevice("bare").getRangeImage()) > 0.8
    sim.close()
