"""Accelerometer and Gyro nodes at load time: Webots' fields and defaults, repairs, frames and the body each
sensor reads (Webots' ``upperSolid()->bodyMerger()`` / ``body()``)."""

from __future__ import annotations

import warnings

import pytest

from wbsim.devices.three_axis.compile import upper_solid
from wbsim.devices.three_axis.schema import repaired_fields
from wbsim.world.builtin_nodes import builtin_schemas


def _load_with_warnings(project, world: str):
    from wbsim.sim.simulation import load_world

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim = load_world(project(world))
    return sim, [str(w.message) for w in caught]


def _robot(children: str, physics: str = "physics Physics { }", name: str = "r") -> str:
    return (f'Robot {{ name "{name}" controller "<extern>" children [ {children} ] '
            f'boundingObject Box {{ size 0.1 0.1 0.1 }} {physics} }}')


@pytest.mark.parametrize(("node", "name"), [("Accelerometer", "accelerometer"), ("Gyro", "gyro")])
def test_schemas_have_webots_fields_and_defaults(node, name):
    schema = builtin_schemas()[node]
    assert schema.support == "simulated" and schema.is_a("solid")
    defaults = {f: schema.fields[f].default for f in ("name", "lookupTable", "xAxis", "yAxis", "zAxis", "resolution")}
    assert defaults == {"name": name, "lookupTable": (), "xAxis": True, "yAxis": True, "zAxis": True,
                        "resolution": -1.0}
    assert {"physics", "boundingObject", "translation", "rotation", "children"} <= set(schema.fields)


@pytest.mark.parametrize("node", ["Accelerometer", "Gyro"])
def test_invalid_resolution_and_unsorted_tables_get_webots_warnings(project, node):
    message = "Invalid 'resolution' changed to -1. The value should be either -1 or positive."
    sim, messages = _load_with_warnings(project, _robot(
        f'{node} {{ name "s" resolution 0 lookupTable [ 0 0 0, 2 1 0, 1 2 0 ] }}'))
    assert any(message in m and f'{node} "s"' in m for m in messages), messages
    assert any("The input values of a lookup table must be sorted in increasing order." in m for m in messages)
    kind = node.lower()
    binding = sim.bindings.devices[kind][0]
    assert binding.resolution == -1.0
    assert binding.lookup_table == ((0.0, 0.0, 0.0), (2.0, 1.0, 0.0), (1.0, 2.0, 0.0))
    assert repaired_fields()["resolution"].repaired(-3.0) == (-1.0, message)
    assert repaired_fields()["resolution"].repaired(0.5) == (0.5, None)
    sim.close()


def test_bindings_read_the_upper_solid_body_or_the_gyro_own_body(project, load):
    world = (
        _robot('Accelerometer { translation 0.1 0 0 rotation 0 0 1 1 xAxis FALSE } Gyro { } '
               'Pose { children [ Gyro { name "heavy" physics Physics { } } ] } '
               'Accelerometer { name "heavy acc" physics Physics { } }', name="dynamic")
        + _robot('Accelerometer { } Gyro { } Gyro { name "heavy" physics Physics { } }', physics="", name="static")
        + 'Solid { translation 5 0 0 children [ Accelerometer { } ] physics Physics { } }'
    )
    sim = load(project(world))
    model = sim.model
    solids = {binding.node["name"]: binding for binding in sim.bindings.solids}
    robot_body = solids["dynamic"].body_id
    acc, acc_heavy, acc_static, acc_in_solid = sim.bindings.devices["accelerometer"]
    gyro, gyro_heavy, gyro_static, gyro_static_heavy = sim.bindings.devices["gyro"]
    # Frame-only sensors are sites on their robot's body and read it.
    assert model.site_bodyid[acc.site_id] == robot_body and acc.body_id == robot_body
    assert gyro.body_id == robot_body and acc.axes == (False, True, True)
    assert acc.root_id == model.body_rootid[robot_body]
    # A sensor with Physics has a body of its own: a gyro reads it, an accelerometer its upper Solid's.
    assert gyro_heavy.body_id == model.site_bodyid[gyro_heavy.site_id] != robot_body
    assert model.site_bodyid[acc_heavy.site_id] != robot_body and acc_heavy.body_id == robot_body
    # Without Physics above them Webots has no body: -1; a gyro with Physics under a static robot has its own.
    assert acc_static.body_id == -1 and acc_static.root_id == -1 and gyro_static.body_id == -1
    assert gyro_static_heavy.body_id >= 0
    assert acc_in_solid.body_id == solids["solid"].body_id
    assert acc.gravity == pytest.approx((0.0, 0.0, -9.81))


def test_upper_solid_looks_through_poses_and_groups(project, load):
    sim = load(project(_robot('Pose { children [ Group { children [ Gyro { } ] } ] }')))
    gyro = sim.bindings.devices["gyro"][0].node
    assert upper_solid(gyro).type_name == "Robot"
    assert upper_solid(upper_solid(gyro)) is None
