"""InertialUnit nodes at load time: schema defaults, Webots' repair of ``resolution``, frames."""

from __future__ import annotations

import warnings

from wbsim.world.builtin_nodes import builtin_schemas


def test_schema_has_webots_fields_and_defaults():
    schema = builtin_schemas()["InertialUnit"]
    assert schema.support == "simulated" and schema.is_a("solid")
    assert {n: schema.fields[n].default for n in ("name", "noise", "xAxis", "yAxis", "zAxis", "resolution")} == {
        "name": "inertial unit", "noise": 0.0, "xAxis": True, "yAxis": True, "zAxis": True, "resolution": -1.0}
    assert schema.fields["lookupTable"].deprecated


def test_invalid_resolution_is_repaired_with_webots_warning(project):
    from wbsim.sim.simulation import load_world

    world = 'Robot { name "r" controller "<extern>" children [ InertialUnit { name "u" resolution -2 } ] }'
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim = load_world(project(world))
    assert any("Invalid 'resolution' changed to -1. The value should be either -1 or positive." in str(w.message)
               for w in caught)
    assert sim.bindings.devices["inertial_unit"][0].node["resolution"] == -1.0
    sim.close()


def test_units_are_sites_unless_they_have_physics_and_know_the_coordinate_system(project, load):
    robot = 'Robot {{ name "r" controller "<extern>" children [ InertialUnit {{ {} }} ] physics Physics {{ }} ' \
            'boundingObject Box {{ size 0.1 0.1 0.1 }} }}'
    plain = load(project("WorldInfo { }" + robot.format("")))
    heavy = load(project('WorldInfo { coordinateSystem "NUE" }' + robot.format(
        "physics Physics { } boundingObject Sphere { radius 0.01 }"), world_name="heavy.wbt"))
    assert heavy.model.nbody == plain.model.nbody + 1
    assert not plain.bindings.devices["inertial_unit"][0].nue and heavy.bindings.devices["inertial_unit"][0].nue
    assert all(sim.bindings.devices["inertial_unit"][0].site_id >= 0 for sim in (plain, heavy))
