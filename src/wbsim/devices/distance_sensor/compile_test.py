"""DistanceSensor nodes at load time: defaults, Webots' repairs and warnings, frames, targets and surfaces."""

from __future__ import annotations

import math
import warnings

import pytest

from wbsim.devices.distance_sensor.compile import infra_red_factor
from wbsim.devices.distance_sensor.schema import (DEFAULT_LOOKUP_TABLE, GENERIC, INFRA_RED, LASER, SONAR,
                                                   repaired_fields, type_code)
from wbsim.world.builtin_nodes import builtin_schemas


def _load_with_warnings(project, world: str):
    from wbsim.sim.simulation import load_world

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim = load_world(project(world))
    return sim, [str(w.message) for w in caught]


def _robot(children: str, extra: str = "") -> str:
    return (f'Robot {{ name "r" controller "<extern>" {extra} children [ {children} ] '
            'boundingObject Box { size 0.1 0.1 0.1 } physics Physics { } }')


def test_schema_has_webots_fields_and_defaults():
    schema = builtin_schemas()["DistanceSensor"]
    assert schema.support == "simulated" and schema.is_a("solid")
    defaults = {name: schema.fields[name].default for name in
                ("lookupTable", "type", "numberOfRays", "aperture", "gaussianWidth", "resolution",
                 "redColorSensitivity", "name")}
    assert defaults == {"lookupTable": DEFAULT_LOOKUP_TABLE, "type": "generic", "numberOfRays": 1, "aperture": 1.5708,
                        "gaussianWidth": 1.0, "resolution": -1.0, "redColorSensitivity": 1.0,
                        "name": "distance sensor"}
    assert "boundingObject" in schema.fields and "physics" in schema.fields


@pytest.mark.parametrize(("value", "code"), [
    ("generic", GENERIC), ("Generic", GENERIC), ("infra-red", INFRA_RED), ("INFRARED", INFRA_RED),
    ("sonar", SONAR), ("laser", LASER), ("LASER", LASER), ("radar", SONAR), ("", SONAR),
])
def test_type_names_are_compared_without_case_and_unknown_ones_are_sonars(value, code):
    assert type_code(value) == code


@pytest.mark.parametrize(("field", "bad", "repaired", "message"), [
    ("aperture", -0.5, 0.5, "Invalid 'aperture' changed to 0.5. The value should be non-negative."),
    ("numberOfRays", 0, 1, "Invalid 'numberOfRays' changed to 1. The value should be 1 or greater."),
    ("gaussianWidth", 0, 1.0, "Invalid 'gaussianWidth' changed to 1. The value should be positive."),
    ("resolution", 0, -1.0, "Invalid 'resolution' changed to -1. The value should be either -1 or positive."),
    ("redColorSensitivity", -2, 2.0, "Invalid 'redColorSensitivity' changed to 2. The value should be non-negative."),
])
def test_invalid_fields_are_repaired_with_webots_warnings(project, field, bad, repaired, message):
    sim, messages = _load_with_warnings(project, _robot(f'DistanceSensor {{ name "d" {field} {bad} }}'))
    assert any(message in m and 'DistanceSensor "d"' in m for m in messages), messages
    node = sim.bindings.devices["distance_sensor"][0].node
    assert node[field] == repaired
    assert repaired_fields()[field].repaired(float(bad)) == (repaired, message)
    sim.close()


def test_a_laser_has_one_ray_and_unknown_types_are_reported(project):
    sim, messages = _load_with_warnings(project, _robot(
        'DistanceSensor { name "laser" type "laser" numberOfRays 3 } DistanceSensor { name "odd" type "radar" } '
        'DistanceSensor { name "table" lookupTable [ 0 0 0, 2 1 0, 1 2 0 ] }', 'supervisor TRUE'))
    assert any("'type' \"laser\" must have one single ray." in m for m in messages)
    assert any('Unknown \'type\' "radar": Webots simulates it as a "sonar" sensor' in m for m in messages)
    assert any("The input values of a lookup table must be sorted in increasing order." in m for m in messages)
    laser, odd, _ = sim.bindings.devices["distance_sensor"]
    assert laser.type == LASER and laser.number_of_rays == 1 and odd.type == SONAR
    robot = sim.robot("r")
    node = robot.getFromDevice(robot.getDevice("laser"))
    assert node.getField("numberOfRays").getSFInt32() == 1  # Webots writes the repair back
    assert sim.banks["distance_sensor"].ray_count.tolist() == [1, 1, 1]
    sim.close()


def test_sensors_are_frames_unless_they_have_physics(project, load):
    plain = load(project(_robot('DistanceSensor { name "d" }')))
    heavy = load(project(_robot('DistanceSensor { name "d" physics Physics { } boundingObject Sphere { radius 0.01 } }'),
                         world_name="heavy.wbt"))
    assert heavy.model.nbody == plain.model.nbody + 1
    for sim in (plain, heavy):
        binding = sim.bindings.devices["distance_sensor"][0]
        assert binding.site_id >= 0


def test_targets_know_their_robots_and_surfaces(project, load):
    world = """
    Solid { translation 2 0 0 name "red" children [ Shape { appearance PBRAppearance { baseColor 1 0 0 roughness 1 }
            geometry DEF R Box { size 1 1 1 } } ] boundingObject USE R }
    Solid { translation 4 0 0 name "glass" boundingObject Shape { appearance PBRAppearance { transparency 1 }
            geometry Sphere { } } }
    Solid { name "floor" boundingObject Plane { size 6 4 } }
    """ + _robot('DistanceSensor { name "d" }')
    sim = load(project(world))
    binding = sim.bindings.devices["distance_sensor"][0]
    targets = binding.targets
    by_geom = dict(zip(targets.geom_ids, range(len(targets.geom_ids))))
    ids = {s.node["name"]: s.geom_ids[0] for s in sim.bindings.solids if s.geom_ids}
    red, glass, floor, robot = (by_geom[ids[n]] for n in ("red", "glass", "floor", "r"))
    assert targets.robots[red] == targets.robots[glass] == -1 and targets.robots[robot] == binding.robot >= 0
    assert targets.infra_red[red] == pytest.approx(infra_red_factor(1.0, 1.0)) == pytest.approx(0.6)
    assert targets.transparent[glass] and not targets.transparent[red]
    assert targets.infra_red[glass] == pytest.approx(0.2)  # (1 - transparency) times white
    assert targets.plane_half[floor] == (3.0, 2.0) and math.isinf(targets.plane_half[red][0])
    assert not binding.self_collision
