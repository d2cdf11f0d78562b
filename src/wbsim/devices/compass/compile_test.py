"""Compass nodes at load time: schema defaults, Webots' warnings and repairs, frames and north."""

from __future__ import annotations

import warnings

import pytest

from wbsim.devices.compass.compile import north_axis
from wbsim.world.builtin_nodes import builtin_schemas


def test_schema_has_webots_fields_and_defaults():
    schema = builtin_schemas()["Compass"]
    assert schema.support == "simulated" and schema.is_a("solid")
    assert {n: schema.fields[n].default for n in ("name", "lookupTable", "xAxis", "yAxis", "zAxis", "resolution")} == {
        "name": "compass", "lookupTable": (), "xAxis": True, "yAxis": True, "zAxis": True, "resolution": -1.0}


@pytest.mark.parametrize(("system", "axis"), [("ENU", 1), ("NUE", 0), ("EUN", 2)])
def test_north_is_the_axis_named_n(system, axis):
    assert north_axis(system) == axis


def test_load_warnings_and_repairs(project):
    from wbsim.sim.simulation import load_world

    world = ('Robot { name "r" controller "<extern>" children [ Compass { name "c" resolution 0 '
             'lookupTable [ 1 0 0, 0 1 0 ] } ] }')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim = load_world(project(world))
    messages = [str(w.message) for w in caught]
    assert any("Invalid 'resolution' changed to -1. The value should be either -1 or positive." in m for m in messages)
    assert any("The input values of a lookup table must be sorted in increasing order." in m for m in messages)
    binding = sim.bindings.devices["compass"][0]
    assert binding.node["resolution"] == -1.0 and binding.site_id >= 0 and binding.north == 1
    sim.close()
