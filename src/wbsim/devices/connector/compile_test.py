"""Connector nodes at load time: Webots' repairs and warnings, frames, linked bodies and the pool of links."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from wbsim.devices.connector.schema import ACTIVE, PASSIVE, SYMMETRIC, UNKNOWN


def _load_with_warnings(project, world: str):
    from wbsim.sim.simulation import load_world

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim = load_world(project(world))
    return sim, [str(w.message) for w in caught]


def _robot(children: str, physics: str = "physics Physics { }", translation: str = "0 0 0") -> str:
    return (f'Robot {{ translation {translation} name "r" controller "<extern>" children [ {children} ] '
            f'boundingObject Box {{ size 0.1 0.1 0.1 }} {physics} }}')


@pytest.mark.parametrize(("field", "value", "message", "repaired"), [
    ("distanceTolerance", "-0.5", "'distanceTolerance' must be positive or zero.", 0.0),
    ("axisTolerance", "4", "'axisTolerance' must be between 0 and pi.", math.pi),
    ("axisTolerance", "-1", "'axisTolerance' must be between 0 and pi.", 0.0),
    ("rotationTolerance", "7", "'rotationTolerance' must between 0 and pi.", math.pi),
    ("numberOfRotations", "-2", "'numberOfRotations' must be positive or zero.", 0),
    ("tensileStrength", "-3", "'tensileStrength' must be positive or -1 (infinite).", -1.0),
    ("shearStrength", "-0.5", "'shearStrength' must be positive or -1 (infinite).", -1.0),
])
def test_invalid_fields_are_repaired_with_webots_warnings(project, field, value, message, repaired):
    sim, messages = _load_with_warnings(project, _robot(f'Connector {{ name "c" {field} {value} }}'))
    assert any(message in m and "test.wbt:" in m for m in messages), messages
    bank = sim.banks["connector"]
    values = {"distanceTolerance": bank.rules.distance_tolerance, "axisTolerance": bank.rules.axis_tolerance,
              "rotationTolerance": bank.rules.rotation_tolerance, "numberOfRotations": bank.rules.rotations,
              "tensileStrength": bank.tensile_strength, "shearStrength": bank.shear_strength}
    assert values[field][0] == pytest.approx(repaired)
    sim.close()


def test_unknown_type_disables_locking_and_passive_cannot_start_locked(project):
    sim, messages = _load_with_warnings(project, _robot(
        'Connector { name "a" type "plug" } Connector { name "b" type "passive" isLocked TRUE }'))
    assert any("Unknown 'type' \"plug\": locking disabled." in m for m in messages)
    assert any("Passive connectors cannot be locked." in m for m in messages)
    bindings = sim.bindings.devices["connector"]
    assert [b.type for b in bindings] == [UNKNOWN, PASSIVE]
    assert [b.initially_locked for b in bindings] == [False, False]
    sim.close()


def test_a_connector_needs_no_body_of_its_own_unless_it_has_physics(project):
    world = _robot('Pose { translation 0 0 0.02 children [ Connector { translation 0.05 0 0 rotation 0 0 1 1 '
                   'name "light" } ] } Connector { translation -0.05 0 0 name "heavy" physics Physics { } }')
    sim, _ = _load_with_warnings(project, world)
    light, heavy = sim.bindings.devices["connector"]
    robot_body = sim.bindings.robots[0].solid.body_id
    assert sim.model.nbody == 3  # world, robot, the heavy connector
    assert light.body_id == robot_body and sim.model.site_bodyid[light.site_id] == robot_body
    assert heavy.body_id == robot_body and sim.model.site_bodyid[heavy.site_id] != robot_body
    sim.supervision.refresh()
    assert np.allclose(sim.data.site_xpos[light.site_id], [0.05, 0, 0.02])
    assert np.allclose(sim.data.site_xmat[light.site_id].reshape(3, 3)[:, 0], [math.cos(1), math.sin(1), 0])
    assert light.dynamic and heavy.dynamic
    sim.close()


def test_linked_bodies_are_the_upper_solids(project):
    # In a joint chain the link holds the endPoint Solid's body; a connector that is itself an endPoint links
    # the joint's parent (Webots' upperSolid); outside robots, a static dock links the static environment.
    world = _robot("""
      HingeJoint { endPoint Solid { name "arm" children [ Connector { name "tip" } ] physics Physics { }
                                    boundingObject Box { size 0.01 0.01 0.01 } } }
      HingeJoint { endPoint Connector { name "end" physics Physics { } } }
    """) + 'Solid { translation 1 0 0 name "dock" children [ Connector { name "d" } ] }'
    sim, _ = _load_with_warnings(project, world)
    tip, end, dock = sim.bindings.devices["connector"]
    arm = sim.bindings.solid(sim.world.nodes[-2].fields["children"][0].fields["endPoint"])
    assert tip.body_id == arm.body_id and tip.dynamic
    assert end.body_id == sim.bindings.robots[0].solid.body_id
    assert dock.body_id == sim.bindings.solid(sim.world.nodes[-1]).body_id and not dock.dynamic
    sim.close()


def test_the_pool_has_a_weld_for_every_two_connectors_and_no_live_placeholder(project):
    kinds = ['type "active"'] * 2 + ['type "passive"'] * 3 + [""] * 5 + ['model "other"'] * 2
    children = " ".join(f'Connector {{ name "c{i}" {k} }}' for i, k in enumerate(kinds))
    sim, _ = _load_with_warnings(project, _robot(children))
    pool = sim.bindings.devices["connector"][0].pool
    # Supervisors may change types and models at run time: n // 2 welds always suffice.
    assert len(pool.weld_ids) == 12 // 2
    assert not sim.data.eq_active[list(pool.weld_ids)].any()
    assert sim.model.nexclude == pool.exclude_count >= len(pool.weld_ids)
    assert not (sim.model.exclude_signature == pool.exclude_dummy).any()  # placeholders never act
    assert (sim.model.exclude_signature == 0).all()
    assert [b.type for b in sim.bindings.devices["connector"][:3]] == [ACTIVE, ACTIVE, PASSIVE]
    assert sim.bindings.devices["connector"][5].type == SYMMETRIC
    sim.close()


def test_static_connectors_alone_reserve_nothing_and_need_no_robot(project):
    sim, messages = _load_with_warnings(project, 'Solid { name "a" children [ Connector { name "c1" } ] } '
                                                 'Solid { name "b" children [ Connector { name "c2" } ] }')
    assert sim.model.neq == 0 and sim.model.nexclude == 0
    assert not any("not inside a Robot" in m for m in messages)
    sim.close()


def test_supervisor_writes_are_repaired_like_the_file(project):
    sim, _ = _load_with_warnings(project, _robot('Connector { name "c" }'))
    bank = sim.banks["connector"]
    assert bank.field_changed(0, "axisTolerance", 5.0) == pytest.approx(math.pi)
    assert bank.field_changed(0, "numberOfRotations", -1) == 0
    assert bank.field_changed(0, "numberOfRotations", 30) == 30  # its docking rotations made at once:
    assert bank.rules.docking.table(30)[15] == 3.1415926535897927  # Webots' running sum, 1 ulp below pi
    assert bank.field_changed(0, "distanceTolerance", 0.02) == 0.02 and bank.rules.distance2[0] == 0.02 * 0.02
    assert bank.field_changed(0, "type", "active") == "active" and bank.rules.type[0] == ACTIVE
    assert bank.field_changed(0, "autoLock", True) is True and bank.auto_lock[0]
    assert bank.field_changed(0, "model", "x") == "x"
    assert bank.field_changed(0, "children", ()) is None
    text = "\n".join(sim.messages.recent)
    assert "c: 'axisTolerance' must be between 0 and pi." in text
    assert "c: 'numberOfRotations' must be positive or zero." in text
    sim.reset()
    assert bank.rules.axis_tolerance[0] == pytest.approx(0.2) and bank.rules.type[0] == SYMMETRIC
    # The file's count again, and only its docking rotations: the written count's are gone with it.
    assert bank.rules.rotations[0] == 4 and bank.rules.docking.counts.tolist() == [4]
    with pytest.raises(ValueError, match="numberOfRotations 30"):
        bank.rules.docking.table(30)
    sim.close()
