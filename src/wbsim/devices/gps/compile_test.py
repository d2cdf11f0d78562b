"""GPS nodes at load time: schema and defaults, Webots' repairs, frames, speed source, the world's GPS frame."""

from __future__ import annotations

import warnings

import pytest

from wbsim.devices.gps.geo import LOCAL, WGS84, GpsFrame
from wbsim.devices.gps.schema import repaired_fields
from wbsim.world.builtin_nodes import builtin_schemas


def _load_with_warnings(project, world: str):
    from wbsim.sim.simulation import load_world

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim = load_world(project(world))
    return sim, [str(w.message) for w in caught]


def test_schema_has_webots_fields_and_defaults():
    schema = builtin_schemas()["GPS"]
    assert schema.support == "simulated" and schema.is_a("solid")
    defaults = {name: schema.fields[name].default for name in
                ("name", "type", "accuracy", "noiseCorrelation", "resolution", "speedNoise", "speedResolution")}
    assert defaults == {"name": "gps", "type": "satellite", "accuracy": 0.0, "noiseCorrelation": 0.0,
                        "resolution": -1.0, "speedNoise": 0.0, "speedResolution": -1.0}
    assert schema.fields["type"].effect == "ignored" and schema.fields["type"].choices == ("satellite", "laser")
    info = builtin_schemas()["WorldInfo"].fields
    assert info["gpsCoordinateSystem"].effect == "simulated" and info["gpsReference"].effect == "simulated"


@pytest.mark.parametrize(("field", "bad", "repaired", "message"), [
    ("noiseCorrelation", 1.5, 0.0, "Invalid 'noiseCorrelation' changed to 0. The value should be in range [0, 1]."),
    ("noiseCorrelation", -0.1, 0.0, "Invalid 'noiseCorrelation' changed to 0. The value should be in range [0, 1]."),
    ("resolution", 0, -1.0, "Invalid 'resolution' changed to -1. The value should be either -1 or positive."),
    ("speedNoise", -0.5, 0.0, "Invalid 'speedNoise' changed to 0. The value should be non-negative."),
    ("speedResolution", -3, -1.0, "Invalid 'speedResolution' changed to -1. The value should be either -1 or "
                                  "positive."),
])
def test_invalid_fields_are_repaired_with_webots_warnings(project, field, bad, repaired, message):
    sim, messages = _load_with_warnings(project, f'Robot {{ name "r" children [ GPS {{ {field} {bad} }} ] }}')
    assert any(message in m and f"GPS > {field}" in m for m in messages), messages
    assert sim.bindings.devices["gps"][0].node[field] == repaired
    assert repaired_fields()[field].repaired(float(bad)) == (repaired, message)
    assert sim.banks["gps"].__getattribute__({"noiseCorrelation": "noise_correlation", "resolution": "resolution",
                                              "speedNoise": "speed_noise",
                                              "speedResolution": "speed_resolution"}[field])[0] == repaired
    sim.close()


def test_negative_accuracy_and_unknown_types_are_errors(project):
    from wbsim.errors import WorldLoadError
    from wbsim.sim.simulation import load_world

    for bad, text in (("accuracy -1", "out of range for field 'accuracy'"), ('type "radio"', "expected one of")):
        with pytest.raises(WorldLoadError, match=text):
            load_world(project(f'Robot {{ children [ GPS {{ {bad} }} ] }}'))


def test_frames_and_speed_sources(project):
    world = """
    WorldInfo { coordinateSystem "NUE" gpsCoordinateSystem "WGS84" gpsReference 46.5 6.6 372 }
    Robot { name "moving" children [ GPS { name "on body" } Pose { translation 1 0 0 children [ GPS { name "posed" } ] }
                                     GPS { name "own body" physics Physics { } boundingObject Sphere { radius 0.01 } } ]
            physics Physics { } boundingObject Box { size 0.1 0.1 0.1 } }
    Robot { name "static" translation 5 0 0 children [ GPS { } ] }
    """
    sim, _ = _load_with_warnings(project, world)
    on_body, posed, own, static = sim.bindings.devices["gps"]
    robot_body = sim.bindings.robots[0].solid.body_id
    assert on_body.body_id == posed.body_id == robot_body
    # A GPS with Physics has its own body (its site is there) but reads its upper Solid's, as WbGps does.
    assert sim.model.site_bodyid[own.site_id] != robot_body and own.body_id == robot_body
    assert on_body.dynamic and posed.dynamic and own.dynamic and not static.dynamic
    assert sim.model.site_pos[posed.site_id].tolist() == [1.0, 0.0, 0.0]
    assert on_body.frame == GpsFrame("NUE", WGS84, (46.5, 6.6, 372.0)) and on_body.frame is static.frame
    sim.close()
    sim, _ = _load_with_warnings(project, 'Robot { children [ GPS { } ] }')
    assert sim.bindings.devices["gps"][0].frame == GpsFrame("ENU", LOCAL, (0.0, 0.0, 0.0))
    sim.close()
