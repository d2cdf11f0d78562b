"""The Webots Altimeter API and schema: names, defaults, getters, properties, repairs."""

from __future__ import annotations

import warnings

import pytest

from wbsim.world.builtin_nodes import builtin_schemas


def test_schema_has_webots_fields_and_defaults():
    schema = builtin_schemas()["Altimeter"]
    assert schema.support == "simulated" and schema.is_a("solid")
    assert {n: schema.fields[n].default for n in ("name", "accuracy", "resolution")} == \
        {"name": "altimeter", "accuracy": 0.0, "resolution": -1.0}


def test_invalid_resolution_is_repaired_at_load_and_negative_accuracy_is_an_error(project):
    from wbsim.errors import WorldLoadError
    from wbsim.sim.simulation import load_world

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim = load_world(project('Robot { children [ Altimeter { resolution -2 } ] }'))
    assert any("Invalid 'resolution' changed to -1. The value should be either -1 or positive." in str(w.message)
               for w in caught)
    assert sim.banks["altimeter"].resolution.tolist() == [-1.0]
    sim.close()
    with pytest.raises(WorldLoadError, match="out of range for field 'accuracy'"):
        load_world(project('Robot { children [ Altimeter { accuracy -1 } ] }'))


def test_controller_class_getters_and_properties(project, load, capfd):
    import controller
    from controller import Altimeter, Node

    assert "Altimeter" in controller.__all__
    robot = load(project('Robot { translation 0 0 2.5 name "r" controller "<extern>" '
                         'children [ Altimeter { name "alt" translation 0 0 0.5 } ] }')).robot("r")
    altimeter = robot.getDevice("alt")
    assert isinstance(altimeter, Altimeter) and altimeter.getNodeType() == Node.ALTIMETER
    assert robot.getAltimeter("alt") is altimeter
    assert "DEPRECATION: Robot.getAltimeter is deprecated, please use Robot.getDevice instead." in \
        capfd.readouterr().err
    altimeter.sampling_period = 32
    assert altimeter.getSamplingPeriod() == altimeter.sampling_period == 32
    robot.step(32)
    assert altimeter.getValue() == altimeter.value == pytest.approx(3.0, abs=1e-12)
    assert isinstance(altimeter.getValue(), float)
    altimeter.enable(-5)
    assert "Error: wb_altimeter_enable() called with negative sampling period." in capfd.readouterr().err
