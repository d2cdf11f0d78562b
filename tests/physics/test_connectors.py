"""Connectors in whole simulations, through the Webots API: locking, holding, snapping, breaking, presence.

Scenes are small modules (Robots with a 0.1 m box body) with connectors on their faces, docks (static
Solids with a connector, outside any Robot), and pulls applied by a supervisor. Expected values are
Webots' rules (``../shared/reference/webots-behaviour.md`` §1) and analytic statics.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

FLOOR = 'Solid { name "floor" boundingObject Plane { size 20 20 } }'
FACE_MINUS_X = "rotation 0 0 1 3.141592653589793"  # a connector whose x-axis points to -x


def module(name: str, translation: str, children: str, mass: float = 0.5, size: str = "0.1 0.1 0.1",
           rotation: str = "0 0 1 0", extra: str = "") -> str:
    """A Robot "name": a box of ``mass`` kg with ``children`` (connectors), driven from the test."""
    return f"""
DEF {name.upper()} Robot {{
  translation {translation}
  rotation {rotation}
  name "{name}"
  controller "<extern>"
  supervisor TRUE
  {extra}
  children [ {children} ]
  boundingObject Box {{ size {size} }}
  physics Physics {{ density -1 mass {mass} }}
}}
"""


def dock(translation: str = "0 0 1", connector: str = 'type "passive"', name: str = "dock") -> str:
    """A static 0.1 m box (no Physics, outside any Robot) with a connector on its +x face."""
    return f"""
DEF {name.upper()} Solid {{
  translation {translation}
  name "{name}"
  children [ Connector {{ translation 0.05 0 0 name "{name} connector" {connector} }} ]
  boundingObject Box {{ size 0.1 0.1 0.1 }}
}}
"""


def world(*parts: str, info: str = "basicTimeStep 16 physicsDisableTime 0") -> str:
    return f"WorldInfo {{ {info} }}\n" + "\n".join(parts)


def run(robot, seconds: float, step_ms: int = 16, each=None) -> None:
    """Step ``robot`` until its clock reaches ``seconds``; ``each()`` after every step."""
    while robot.getTime() < seconds - 1e-9:
        assert robot.step(step_ms) != -1
        if each is not None:
            each()


def site_frame(sim, connector_node):
    """A connector's world position (3,) and rotation (3, 3) from the live state."""
    sim.supervision.refresh()
    bank, row = sim.device_rows[connector_node]
    site = bank.bindings[row].site_id
    return sim.data.site_xpos[site].copy(), sim.data.site_xmat[site].reshape(3, 3).copy()


def docking_error(sim, a, b) -> tuple[float, float, float]:
    """(distance m, x-axes angle from opposite deg, z-axes angle deg) between two connector nodes."""
    pa, ra = site_frame(sim, a)
    pb, rb = site_frame(sim, b)
    angle = lambda u, v: math.degrees(math.acos(max(-1.0, min(1.0, float(np.dot(u, v))))))  # noqa: E731
    return float(np.linalg.norm(pa - pb)), angle(ra[:, 0], -rb[:, 0]), angle(ra[:, 2], rb[:, 2])


def connector_node(sim, robot_or_def: str, name: str):
    """The Connector node called ``name`` below the node with DEF ``robot_or_def``."""
    root = sim.node(robot_or_def)
    return next(n for n in root.walk() if n.type_name == "Connector" and n["name"] == name)


# -- holding -----------------------------------------------------------------------------------------------------
PILLAR = 'Solid { translation 0 0 0.5 name "pillar" boundingObject Box { size 0.2 0.2 1 } }'


def test_modules_locked_at_start_hold_the_overhang_until_both_unlock(project, load):
    # A (1 kg) rests on the pillar; B (0.5 kg) sticks out entirely beyond the pillar's edge, held by the link.
    a = module("a", "0.05 0 1.05", 'Connector { translation 0.05 0 0 name "c" isLocked TRUE }', mass=1.0)
    b = module("b", "0.15 0 1.05", f'Connector {{ translation -0.05 0 0 {FACE_MINUS_X} name "c" isLocked TRUE }}')
    sim = load(project(world(FLOOR, PILLAR, a, b)))
    ra, rb = sim.robot("a"), sim.robot("b")
    ca, cb = ra.getDevice("c"), rb.getDevice("c")
    assert (ca.isLocked(), cb.isLocked()) == (False, False)  # the controller library learns it after a step
    ca.enablePresence(16)
    cb.enablePresence(16)
    node_b = rb.getSelf()
    heights = []
    run(ra, 3.0, each=lambda: heights.append(node_b.getPosition()[2]))
    assert (ca.isLocked(), cb.isLocked()) == (True, True)
    assert (ca.getPresence(), cb.getPresence()) == (1, 1)
    assert 1.05 - min(heights) < 0.001  # it stays up (A's contact with the pillar gives a little)
    ca.unlock()
    assert ca.isLocked() is False and ca.getPresence() == 1  # presence is the last sample
    cb.unlock()
    run(ra, 4.0)
    assert node_b.getPosition()[2] < 0.2  # it fell to the floor
    assert (ca.getPresence(), cb.getPresence()) == (0, 0)


def test_cantilever_sags_under_half_a_millimetre_and_never_drifts(project, load):
    # 0.5 kg bar whose centre is 0.2 m from the connector holding it to a static dock.
    bar = module("bar", "0.25 0 1", f'Connector {{ translation -0.2 0 0 {FACE_MINUS_X} name "c" type "active" '
                                     'isLocked TRUE }', size="0.4 0.05 0.05")
    sim = load(project(world(dock(), bar)))
    robot = sim.robot("bar")
    node = robot.getSelf()
    sags = {}
    for minutes in (0.05, 1, 10):
        run(robot, minutes * 60)
        sags[minutes] = 1.0 - node.getPosition()[2]
    assert 0 < sags[10] < 0.0005
    assert abs(sags[10] - sags[1]) < 1e-9 and abs(sags[1] - sags[0.05]) < 1e-7


# -- breaking ----------------------------------------------------------------------------------------------------
def _pull_until_break(project, load, mover_connector: str, dock_connector: str, direction=(1.0, 0.0, 0.0),
                      rate: float = 0.5, limit_s: float = 20.0, unlock_first: bool = False
                      ) -> tuple[float, object, object]:
    """A module docked (locked at start) to a static dock is pulled with a force growing at ``rate`` N/s along
    ``direction``; returns the applied force when the link broke, the robot and the simulation."""
    mover = module("m", "0.1 0 1", f'Connector {{ translation -0.05 0 0 {FACE_MINUS_X} name "c" {mover_connector} }}')
    sim = load(project(world(dock(connector=dock_connector), mover, info="basicTimeStep 16 physicsDisableTime 0 "
                             "gravity 0")))
    robot = sim.robot("m")
    node = robot.getSelf()
    connector = robot.getDevice("c")
    if unlock_first:
        robot.step(16)
        connector.unlock()
    broke_at = None
    while robot.getTime() < limit_s:
        force = rate * robot.getTime()
        node.addForce([force * d for d in direction], False)
        robot.step(16)
        if broke_at is None and robot.getTime() > 0.05 and sim.banks["connector"].peer[1] < 0:
            broke_at = force
            break
    assert broke_at is not None, "the link never broke"
    assert connector.isLocked() != unlock_first  # breaking does not unlock the latch
    return broke_at, robot, sim


def test_tensile_strength_of_the_active_side_breaks_an_active_passive_link(project, load):
    broke_at, robot, sim = _pull_until_break(project, load, 'type "active" isLocked TRUE tensileStrength 1',
                                             'type "passive" tensileStrength 1000')
    assert broke_at == pytest.approx(1.0, rel=0.05)  # the passive side is never locked: it adds nothing
    start = robot.getSelf().getPosition()[0]
    run(robot, robot.getTime() + 0.5)
    assert robot.getSelf().getPosition()[0] > start + 0.01  # the bodies separate


def test_locked_sides_add_their_tensile_strengths(project, load):
    # Symmetric pair, both locked: 1 N + 2 N.
    broke_at, *_ = _pull_until_break(project, load, 'isLocked TRUE tensileStrength 1',
                                     'isLocked TRUE tensileStrength 2', rate=1.0)
    assert broke_at == pytest.approx(3.0, rel=0.05)


def test_push_never_breaks_on_tension(project, load):
    mover = module("m", "0.1 0 1", f'Connector {{ translation -0.05 0 0 {FACE_MINUS_X} name "c" type "active" '
                                   'isLocked TRUE tensileStrength 1 }')
    sim = load(project(world(dock(), mover, info="basicTimeStep 16 physicsDisableTime 0 gravity 0")))
    robot = sim.robot("m")
    run(robot, 1.0, each=lambda: robot.getSelf().addForce([-20.0, 0, 0], False))  # pushes into the dock
    assert sim.banks["connector"].peer[1] == 0


def test_shear_strength_breaks_a_sideways_pull(project, load):
    broke_at, *_ = _pull_until_break(project, load, 'type "active" isLocked TRUE shearStrength 2',
                                     'type "passive"', direction=(0.0, 0.0, 1.0))
    assert broke_at == pytest.approx(2.0, rel=0.05)


def test_auto_lock_relinks_the_step_after_a_break(project, load):
    mover = module("m", "0.1 0 1", f'Connector {{ translation -0.05 0 0 {FACE_MINUS_X} name "c" type "active" '
                                   'isLocked TRUE autoLock TRUE tensileStrength 1 }')
    sim = load(project(world(dock(), mover, info="basicTimeStep 16 physicsDisableTime 0 gravity 0")))
    robot = sim.robot("m")
    bank = sim.banks["connector"]
    run(robot, 0.1)
    robot.getSelf().addForce([5.0, 0, 0], False)
    robot.step(16)  # the force acts: the link carries 5 N
    robot.step(16)  # checked before the next physics step: broken; not re-linked in that step
    assert bank.peer[1] < 0
    robot.step(16)  # still present (moved less than 1 cm): auto-locks again
    assert bank.peer[1] == 0


# -- presence and compatibility -------------------------------------------------------------------------------
def _facing_pair(twist_deg: float, mover: str, fixed: str, gap: float = 0.0) -> str:
    """A module facing a dock along x, twisted about the docking axis by ``twist_deg``."""
    twist = math.radians(twist_deg)
    # Module rotation: pi about z (to face -x), then the twist about the module's x-axis.
    rotation = f"0 0 1 {math.pi}" if twist == 0 else None
    if rotation is None:
        # Compose R = Rz(pi) Rx(twist) as axis-angle.
        from wbsim.compile.frames import axis_angle_from_quat, matrix_to_quat, quat_from_axis_angle, quat_to_matrix

        matrix = quat_to_matrix(quat_from_axis_angle((0, 0, 1, math.pi))) @ quat_to_matrix(
            quat_from_axis_angle((1, 0, 0, twist)))
        rotation = " ".join(f"{v:.17g}" for v in axis_angle_from_quat(matrix_to_quat(matrix)))
    m = module("m", f"{0.1 + gap} 0 1", f'Connector {{ translation 0.05 0 0 name "c" {mover} }}',
               rotation=rotation)
    return world(dock(connector=fixed), m, info="basicTimeStep 16 physicsDisableTime 0 gravity 0")


@pytest.mark.parametrize(("twist", "rotations", "present"), [
    (0, 4, 1), (90, 4, 1), (180, 4, 1), (270, 4, 1), (45, 4, 0), (45, 0, 1), (137, 0, 1), (180, 1, 0), (180, 2, 1),
])
def test_presence_depends_on_the_docking_rotations(project, load, twist, rotations, present):
    sim = load(project(_facing_pair(twist, f'type "active" numberOfRotations {rotations}', 'type "passive"')))
    robot = sim.robot("m")
    connector = robot.getDevice("c")
    connector.enablePresence(16)
    robot.step(16)
    assert connector.getPresence() == present
    connector.lock()
    assert sim.banks["connector"].peer[1] < 0  # a controller's request goes with its next step
    robot.step(16)
    assert (sim.banks["connector"].peer[1] >= 0) == bool(present)


@pytest.mark.parametrize(("mover", "fixed"), [
    ('type "active"', 'type "passive" model "magnetic"'),
    ('type "active"', 'type "active"'),
    ('type "symmetric"', 'type "passive"'),
    ('type "plug"', 'type "passive"'),
])
def test_incompatible_connectors_are_never_present_and_never_lock(project, load, mover, fixed):
    sim = load(project(_facing_pair(0, mover + " autoLock TRUE isLocked TRUE", fixed + " autoLock TRUE")))
    robot = sim.robot("m")
    connector = robot.getDevice("c")
    connector.enablePresence(16)
    run(robot, 0.2)
    connector.lock()
    robot.step(16)
    assert connector.getPresence() == 0
    assert sim.banks["connector"].peer.tolist() == [-1, -1]


def test_passive_connectors_report_minus_one_and_cannot_lock(project, load, capsys):
    sim = load(project(_facing_pair(0, 'type "passive"', 'type "active"')))
    robot = sim.robot("m")
    connector = robot.getDevice("c")
    connector.enablePresence(16)
    robot.step(16)
    assert connector.getPresence() == -1
    connector.lock()
    assert connector.isLocked() is True  # the controller library's own copy...
    robot.step(16)
    assert connector.isLocked() is True  # ...is not corrected: the simulator's value did not change
    assert sim.banks["connector"].locked.tolist() == [False, False]
    assert "c: Passive connectors cannot lock." in "\n".join(sim.messages.recent)


def test_presence_is_sampled_on_the_sensor_schedule(project, load, capsys):
    sim = load(project(_facing_pair(0, 'type "active"', 'type "passive"')))
    robot = sim.robot("m")
    connector = robot.getDevice("c")
    assert connector.getPresence() == 0  # disabled: an error, then the (never sampled) value
    assert "wb_connector_get_presence() called for a disabled device!" in capsys.readouterr().err
    connector.enablePresence(64)
    assert connector.getPresenceSamplingPeriod() == 64 and connector.presence_sampling_period == 64
    for _ in range(3):
        robot.step(16)
        assert connector.getPresence() == 0  # the first sample comes one period after enabling
    robot.step(16)
    assert connector.presence == 1
    connector.enablePresence(-1)
    assert "wb_connector_enable_presence() called with negative sampling period." in capsys.readouterr().err
    connector.disablePresence()
    assert connector.getPresenceSamplingPeriod() == 0


# -- lock rules ----------------------------------------------------------------------------------------------------
def test_without_unilateral_lock_the_second_connector_to_lock_makes_the_link(project, load):
    sim = load(project(_facing_pair(0, "unilateralLock FALSE", "unilateralLock FALSE")))
    robot = sim.robot("m")
    bank = sim.banks["connector"]
    robot.getDevice("c").lock()
    robot.step(16)
    assert bank.peer.tolist() == [-1, -1] and bank.locked.tolist() == [False, True]
    robot.getFromDef("DOCK").getField("children").getMFNode(0).getField("isLocked").setSFBool(True)
    assert bank.peer.tolist() == [1, 0]
    assert robot.getFromDef("DOCK").getField("children").getMFNode(0).getField("isLocked").getSFBool() is True


def test_without_unilateral_unlock_both_sides_must_unlock(project, load):
    sim = load(project(_facing_pair(0, "isLocked TRUE unilateralUnlock FALSE",
                                    "isLocked TRUE unilateralUnlock FALSE")))
    robot = sim.robot("m")
    bank = sim.banks["connector"]
    robot.step(16)
    assert bank.peer.tolist() == [1, 0]
    robot.getDevice("c").unlock()
    robot.step(16)
    assert bank.peer.tolist() == [1, 0] and bank.locked.tolist() == [True, False]  # the dock still holds
    robot.getFromDef("DOCK").getField("children").getMFNode(0).getField("isLocked").setSFBool(False)
    assert bank.peer.tolist() == [-1, -1]


def test_a_supervisor_writing_is_locked_locks_and_unlocks(project, load):
    sim = load(project(_facing_pair(0, 'type "active"', 'type "passive"')))
    robot = sim.robot("m")
    field = robot.getSelf().getField("children").getMFNode(0).getField("isLocked")
    bank = sim.banks["connector"]
    field.setSFBool(True)
    assert bank.peer.tolist() == [1, 0] and field.getSFBool() is True
    field.setSFBool(False)
    assert bank.peer.tolist() == [-1, -1] and field.getSFBool() is False
    robot.getDevice("c").lock()
    robot.step(16)
    assert field.getSFBool() is True  # the field shows the latch the controller closed
    passive = robot.getFromDef("DOCK").getField("children").getMFNode(0).getField("isLocked")
    passive.setSFBool(True)
    assert passive.getSFBool() is False
    assert "Passive connectors cannot be locked." in "\n".join(sim.messages.recent)


def test_locked_module_ignores_contacts_with_its_peer(project, load):
    sim = load(project(_facing_pair(0, 'type "active" isLocked TRUE', 'type "passive"')))
    robot = sim.robot("m")
    run(robot, 0.5)
    module_body = robot.getSelf()
    bodies = {sim.bindings.solid(sim.node("M")).body_id, sim.bindings.solid(sim.node("DOCK")).body_id}
    touching = [c for c in sim.data.contact[: sim.data.ncon]
                if {int(sim.model.geom_bodyid[c.geom1]), int(sim.model.geom_bodyid[c.geom2])} == bodies]
    assert sim.banks["connector"].peer[1] == 0 and not touching
    robot.getDevice("c").unlock()
    module_body.setVelocity([-0.05, 0, 0, 0, 0, 0])  # pressed into the dock once unlocked: they collide
    robot.step(16)
    robot.step(16)
    touching = [c for c in sim.data.contact[: sim.data.ncon]
                if {int(sim.model.geom_bodyid[c.geom1]), int(sim.model.geom_bodyid[c.geom2])} == bodies]
    assert touching


# -- snapping ------------------------------------------------------------------------------------------------------
def test_auto_lock_docks_a_slow_module_and_snap_aligns_it_smoothly(project, load):
    # The module approaches the dock at 5 cm/s, 4 mm off the axis and turned by 0.12 rad.
    mover = module("m", "0.3 0.004 0.05", f'Connector {{ translation -0.05 0 0 {FACE_MINUS_X} name "c" '
                                          'type "active" isLocked TRUE autoLock TRUE }', rotation="0 0 1 0.12")
    sim = load(project(world(FLOOR, dock("0 0 0.05"), mover)))
    robot = sim.robot("m")
    node = robot.getSelf()
    connector = robot.getDevice("c")
    connector.enablePresence(16)
    bank = sim.banks["connector"]
    linked_at = None
    speeds = []
    while robot.getTime() < 8.0:
        if bank.peer[1] < 0:
            vz = node.getVelocity()[2]
            node.setVelocity([-0.05, 0, vz, 0, 0, 0])
        robot.step(16)
        if linked_at is None and bank.peer[1] >= 0:
            linked_at = robot.getTime()
        elif linked_at is not None:
            speeds.append(node.getVelocity())
    assert linked_at is not None
    assert connector.isLocked() and connector.getPresence() == 1
    distance, x_angle, z_angle = docking_error(sim, connector_node(sim, "M", "c"), connector_node(sim, "DOCK",
                                                                                                  "dock connector"))
    assert distance < 0.001 and x_angle < 0.5 and z_angle < 0.5
    speeds = np.array(speeds)
    # Eased: the turn of 0.12 rad takes 0.24 s (0.5 rad/s on average, 1.5 times that at the peak), no jump.
    assert np.linalg.norm(speeds[:, :3], axis=1).max() < 0.1
    assert np.linalg.norm(speeds[:, 3:], axis=1).max() < 0.8


def test_snap_between_two_free_modules_moves_both_and_lands_them_exactly(project, load):
    a = module("a", "0 0 1", 'Connector { translation 0.05 0 0 name "c" isLocked TRUE }')
    b = module("b", "0.106 0.004 1.003", f'Connector {{ translation -0.05 0 0 {FACE_MINUS_X} name "c" '
                                         'isLocked TRUE }', rotation="0.3 0.2 1 0.15")
    sim = load(project(world(a, b, info="basicTimeStep 16 physicsDisableTime 0 gravity 0")))
    ra = sim.robot("a")
    start_a = np.array(ra.getSelf().getPosition())
    run(ra, 2.0)
    distance, x_angle, z_angle = docking_error(sim, connector_node(sim, "A", "c"), connector_node(sim, "B", "c"))
    assert distance < 1e-4 and x_angle < 0.05 and z_angle < 0.05
    moved_a = np.linalg.norm(np.array(ra.getSelf().getPosition()) - start_a)
    assert 0.001 < moved_a < 0.01  # both bodies moved towards each other (equal masses: about half each)
    moved_b = np.linalg.norm(np.array(sim.robot("b").getSelf().getPosition()) - [0.106, 0.004, 1.003])
    assert moved_a == pytest.approx(moved_b, rel=0.1)  # equal masses: they meet half way
    velocity = np.array(ra.getSelf().getVelocity())
    assert np.abs(velocity).max() < 1e-3  # at rest again


def test_snap_false_holds_the_pose_found(project, load):
    # About 6 mm from the dock and turned by 0.06 rad, under gravity: held there, not pulled into alignment.
    b = module("b", "0.105 0 1", 'Connector { translation 0.05 0 0 name "c" type "active" isLocked TRUE snap FALSE '
               'distanceTolerance 0.02 }', rotation="0 0 1 3.2")
    sim = load(project(world(dock(), b)))
    robot = sim.robot("b")
    pair = connector_node(sim, "B", "c"), connector_node(sim, "DOCK", "dock connector")
    start, error = np.array(robot.getSelf().getPosition()), docking_error(sim, *pair)
    run(robot, 2.0)
    assert sim.banks["connector"].peer[1] == 0
    assert np.linalg.norm(np.array(robot.getSelf().getPosition()) - start) < 2e-5  # held (a stiff weld's sag)
    now = docking_error(sim, *pair)
    assert abs(now[0] - error[0]) < 2e-5 and abs(now[1] - error[1]) < 0.001 and abs(now[2] - error[2]) < 0.001
    assert error[0] > 0.005 and error[1] > 3.0  # not snapped


def test_snap_with_a_wide_axis_tolerance_still_lands_on_a_docking_rotation(project, load):
    # axisTolerance 1: the x-axes are 0.87 rad from opposite and the z-axes 1.44 rad apart (a docking rotation,
    # pi/2, within 0.2 rad), but once the x-axes are turned opposite the twist is 1.23 rad, 0.34 rad from any
    # docking rotation: the snap uses the nearest (pi/2), as Webots cannot (it asserts).
    b = module("b", "0.08213211 -0.03161864 0.97837157", 'Connector { translation 0.05 0 0 name "c" type "active" '
               'isLocked TRUE axisTolerance 1 }',
               rotation="0.40086344460246515 0.53022459926662846 0.7471080063243799 2.8477482248879733")
    sim = load(project(world(dock(), b, info="basicTimeStep 16 physicsDisableTime 0 gravity 0")))
    robot = sim.robot("b")
    run(robot, 6.0)
    assert sim.banks["connector"].peer[1] == 0
    distance, x_angle, z_angle = docking_error(sim, connector_node(sim, "B", "c"), connector_node(sim, "DOCK",
                                                                                                  "dock connector"))
    assert distance < 1e-4 and x_angle < 0.01 and z_angle == pytest.approx(90.0, abs=0.01)


def test_a_huge_number_of_rotations_costs_nothing(project, load):
    sim = load(project(_facing_pair(0.001, 'type "active" isLocked TRUE numberOfRotations 100000000', 'type "passive"')))
    robot = sim.robot("m")
    robot.step(16)
    assert sim.banks["connector"].peer[1] == 0


# -- connectors outside robots, sleep, reset ------------------------------------------------------------------------
def test_a_robot_grasps_a_free_object_by_its_passive_connector(project, load):
    gripper = module("g", "0 0 0.5", 'Connector { translation 0.05 0 0 name "c" type "active" }', mass=5.0)
    payload = f"""
DEF PAYLOAD Solid {{
  translation 0.1 0 0.5
  name "payload"
  children [ Connector {{ translation -0.05 0 0 {FACE_MINUS_X} name "handle" type "passive" }} ]
  boundingObject Box {{ size 0.1 0.1 0.1 }}
  physics Physics {{ density -1 mass 0.2 }}
}}
"""
    sim = load(project(world(payload, gripper, info="basicTimeStep 16 physicsDisableTime 0 gravity 0")))
    robot = sim.robot("g")
    robot.getDevice("c").lock()
    robot.step(16)
    assert sim.banks["connector"].peer.tolist() == [1, 0]
    node = robot.getSelf()
    run(robot, 1.0, each=lambda: node.setVelocity([0, 0.2, 0, 0, 0, 0]))
    payload_y = robot.getFromDef("PAYLOAD").getPosition()[1]
    assert payload_y == pytest.approx(node.getPosition()[1], abs=1e-3)  # carried along
    assert payload_y > 0.15


def test_unlocking_wakes_a_sleeping_overhang(project, load):
    a = module("a", "0.05 0 1.05", 'Connector { translation 0.05 0 0 name "c" isLocked TRUE }', mass=1.0)
    b = module("b", "0.15 0 1.05", f'Connector {{ translation -0.05 0 0 {FACE_MINUS_X} name "c" isLocked TRUE }}')
    sim = load(project(world(FLOOR, PILLAR, a, b, info="basicTimeStep 16")))  # sleeping enabled (1 s)
    ra = sim.robot("a")
    run(ra, 5.0)
    tree = sim.model.body_treeid[sim.bindings.solid(sim.node("B")).body_id]
    assert sim.data.tree_asleep[tree] >= 0, "the resting pair should be asleep"
    ra.getDevice("c").unlock()
    run(ra, 6.0)
    assert ra.getFromDef("B").getPosition()[2] < 0.2


def _trajectory(sim, robot, seconds: float) -> np.ndarray:
    positions = []
    run(robot, seconds, each=lambda: positions.append(sim.data.qpos.copy()))
    return np.array(positions)


def test_runs_with_links_are_bit_identical_after_reset(project, load):
    a = module("a", "0 0 1", 'Connector { translation 0.05 0 0 name "c" isLocked TRUE tensileStrength 5 }')
    b = module("b", "0.104 0.003 1.002", f'Connector {{ translation -0.05 0 0 {FACE_MINUS_X} name "c" '
                                         'autoLock TRUE isLocked TRUE }', rotation="0 0 1 0.1")
    sim = load(project(world(FLOOR, a, b)))
    first = _trajectory(sim, sim.robot("a"), 3.0)
    links = sim.banks["connector"].peer.tolist()
    sim.reset()
    second = _trajectory(sim, sim.robot("a"), 3.0)
    assert np.array_equal(first, second)
    assert sim.banks["connector"].peer.tolist() == links


def test_simulation_reset_restores_is_locked_and_links_again_at_startup(project, load):
    sim = load(project(_facing_pair(0, 'type "active" isLocked TRUE', 'type "passive"')))
    robot = sim.robot("m")
    connector = robot.getDevice("c")
    robot.step(16)
    connector.unlock()
    robot.step(16)
    assert sim.banks["connector"].peer[1] < 0 and connector.isLocked() is False
    robot.simulationReset()
    robot.step(16)
    robot.step(16)
    assert sim.banks["connector"].peer[1] == 0
    assert connector.isLocked() is True  # told after the step in which the reset changed it


def test_two_static_connectors_are_present_but_cannot_link(project, load):
    # Both sides static (no Physics anywhere): presence works, locking warns once per pair, auto-lock too.
    left = dock("0 0 1", connector='isLocked TRUE autoLock TRUE', name="left")
    right = f"""
DEF RIGHT Robot {{
  translation 0.1 0 1
  name "right"
  controller "<extern>"
  supervisor TRUE
  children [ Connector {{ translation -0.05 0 0 {FACE_MINUS_X} name "c" }} ]
  boundingObject Box {{ size 0.1 0.1 0.1 }}
}}
"""
    sim = load(project(world(left, right)))
    robot = sim.robot("right")
    connector = robot.getDevice("c")
    connector.enablePresence(16)
    run(robot, 0.2)
    connector.lock()
    robot.step(16)
    assert connector.getPresence() == 1
    assert sim.banks["connector"].peer.tolist() == [-1, -1]
    text = "\n".join(sim.messages.recent)
    warning = "Connectors could not be attached because none of their parent nodes have Physics nodes."
    assert text.count(warning) == 2  # once for the dock's auto-lock, once for the robot's lock()


def test_writing_the_value_a_field_already_has_does_nothing(project, load):
    sim = load(project(_facing_pair(0, 'type "active"', 'type "passive"')))
    robot = sim.robot("m")
    passive = robot.getFromDef("DOCK").getField("children").getMFNode(0).getField("isLocked")
    passive.setSFBool(False)
    own = robot.getSelf().getField("children").getMFNode(0).getField("isLocked")
    own.setSFBool(False)
    assert not any("Passive" in line for line in sim.messages.recent)
    assert sim.banks["connector"].locked.tolist() == [False, False]


# -- review follow-ups: orders, pools, plates, wakes ------------------------------------------------------------
def test_a_module_resting_on_a_top_level_connector_plate_does_not_fall_through(project, load):
    # A top-level Connector's boundingObject is a geom of the world body: it must collide from the start.
    plate = 'Connector { translation 0 0 0.005 name "plate" type "passive" boundingObject Box { size 0.3 0.3 0.01 } }'
    resting = module("m", "0 0 0.06", 'Connector { translation 0 0 -0.05 rotation 0 1 0 1.5707963267948966 '
                                      'name "c" type "active" }')
    sim = load(project(world(plate, resting)))
    robot = sim.robot("m")
    run(robot, 1.0)
    assert robot.getSelf().getPosition()[2] == pytest.approx(0.06, abs=0.002)


@pytest.mark.parametrize(("calls", "linked"), [(("lock", "unlock"), False), (("unlock", "lock"), True)])
def test_only_the_last_request_of_a_step_counts(project, load, calls, linked):
    # Webots' library sends one LOCK or UNLOCK per step: the final state. The dock is locked and does not let
    # a single side unlock, so "lock then unlock" in one step would otherwise leave a link.
    sim = load(project(_facing_pair(0, 'isLocked TRUE unilateralUnlock FALSE', 'isLocked TRUE')))
    robot = sim.robot("m")
    robot.step(16)
    connector, bank = robot.getDevice("c"), sim.banks["connector"]
    if not linked:
        connector.unlock()
        robot.getFromDef("DOCK").getField("children").getMFNode(0).getField("isLocked").setSFBool(False)
        robot.step(16)
        assert bank.peer.tolist() == [-1, -1]
    owner_before = int(bank.links.owner[bank._link_of[1]]) if linked else -1
    for call in calls:
        getattr(connector, call)()
    robot.step(16)
    assert bool(bank.peer[1] >= 0) is linked
    if linked:  # "unlock then lock" is just "lock": the link made at startup stays, with its owner
        assert int(bank.links.owner[bank._link_of[1]]) == owner_before


def test_a_supervisor_may_change_types_and_links_still_form(project, load):
    sim = load(project(_facing_pair(0, 'type "active"', 'type "active"')))
    robot = sim.robot("m")
    robot.getFromDef("DOCK").getField("children").getMFNode(0).getField("type").setSFString("passive")
    robot.getDevice("c").lock()
    robot.step(16)
    assert sim.banks["connector"].peer.tolist() == [1, 0]


def test_a_body_woken_by_an_unlock_with_a_torque_sleeps_again(project, load):
    a = module("a", "0.05 0 1.05", 'Connector { translation 0.05 0 0 name "c" isLocked TRUE }', mass=1.0)
    b = module("b", "0.15 0 1.05", f'Connector {{ translation -0.05 0 0 {FACE_MINUS_X} name "c" isLocked TRUE }}')
    sim = load(project(world(FLOOR, PILLAR, a, b, info="basicTimeStep 16")))
    ra = sim.robot("a")
    run(ra, 3.0)
    ra.getFromDef("B").addTorque([0, 0, 0.3], False)
    ra.getDevice("c").unlock()
    run(ra, 12.0)
    assert not sim.data.qfrc_applied.any() and not sim.data.xfrc_applied.any()
    tree = sim.model.body_treeid[sim.bindings.solid(sim.node("B")).body_id]
    assert sim.data.tree_asleep[tree] >= 0, "B fell and came to rest: it should sleep again"


def test_a_peer_freed_by_an_earlier_owner_relinks_in_the_same_step(project, load):
    # Scene order: the owner (the dock, first) breaks the link in its turn; the module (later), with autoLock and
    # isLocked, then sees no link at its own turn and links again in the same step, as in Webots.
    mover = module("m", "0.1 0 1", f'Connector {{ translation -0.05 0 0 {FACE_MINUS_X} name "c" isLocked TRUE '
                                   'autoLock TRUE tensileStrength 1 }')
    sim = load(project(world(dock(connector="isLocked TRUE tensileStrength 1"), mover,
                             info="basicTimeStep 16 physicsDisableTime 0 gravity 0")))
    robot = sim.robot("m")
    bank = sim.banks["connector"]
    robot.step(16)
    assert bank.links.owner[bank._link_of[0]] == 0  # the dock locked first (startup, scene order)
    robot.getSelf().addForce([5.0, 0, 0], False)
    robot.step(16)  # the link carries 5 N, more than 1 N + 1 N
    made = int(bank.links.made_at[bank._link_of[0]])
    robot.step(16)  # broken before physics and re-linked at once by the module
    assert bank.peer.tolist() == [1, 0] and bank.links.owner[bank._link_of[1]] == 1
    assert int(bank.links.made_at[bank._link_of[1]]) > made


def test_a_linked_peer_is_not_taken_by_a_third_connector(project, load):
    # A third module floats just above the linked one, its connector (on a stalk) on the dock's face.
    third = module("t", "0.1 0 1.12", f'Connector {{ translation -0.05 0 -0.12 {FACE_MINUS_X} name "c" '
                                      'type "active" }')
    sim = load(project(_facing_pair(0, 'type "active" isLocked TRUE', 'type "passive"').replace(
        "WorldInfo", third + "\nWorldInfo", 1)))
    robot = sim.robot("t")
    robot.step(16)
    bank = sim.banks["connector"]
    linked = bank.peer.tolist()
    assert linked == [-1, 2, 1]  # rows: the third module (first in the file), the dock, the linked module
    robot.getDevice("c").enablePresence(16)
    robot.getDevice("c").lock()
    robot.step(16)
    assert robot.getDevice("c").getPresence() == 1  # it sees the dock...
    assert bank.peer.tolist() == linked  # ...already linked: attachTo gives up


def test_auto_lock_without_is_locked_does_nothing(project, load):
    sim = load(project(_facing_pair(0, 'type "active" autoLock TRUE', 'type "passive"')))
    robot = sim.robot("m")
    run(robot, 0.5)
    assert sim.banks["connector"].peer.tolist() == [-1, -1]


def test_a_linked_connector_reports_presence_even_out_of_tolerance(project, load):
    sim = load(project(_facing_pair(0, 'type "active" isLocked TRUE snap FALSE', 'type "passive"', gap=0.008)))
    robot = sim.robot("m")
    connector = robot.getDevice("c")
    connector.enablePresence(16)
    robot.step(16)
    robot.getSelf().getField("children").getMFNode(0).getField("distanceTolerance").setSFFloat(0.001)
    robot.step(16)
    assert sim.banks["connector"].peer[1] == 0 and connector.getPresence() == 1


def test_an_unlocked_side_held_by_its_peer_adds_no_strength(project, load):
    # The module unlocks but its peer does not let go (unilateralUnlock FALSE): the link now has only the dock's
    # 2 N, not 2 + 1000.
    broke_at, *_ = _pull_until_break(
        project, load, 'isLocked TRUE unilateralUnlock FALSE tensileStrength 1000',
        'isLocked TRUE tensileStrength 2', unlock_first=True)
    assert broke_at == pytest.approx(2.0, rel=0.05)


@pytest.mark.parametrize(("field", "value"), [("rotationTolerance", 0.1), ("axisTolerance", 0.0),
                                              ("distanceTolerance", 0.0)])
def test_a_supervisor_tightening_a_tolerance_changes_presence_at_rest(project, load, field, value):
    # At rest the last answer is reused (nothing moves): a supervisor's write must still take effect at once.
    sim = load(project(_facing_pair(10, 'type "active"', 'type "passive"', gap=0.001)))
    robot = sim.robot("m")
    connector = robot.getDevice("c")
    connector.enablePresence(16)
    for _ in range(5):
        robot.step(16)
    assert connector.getPresence() == 1
    node = robot.getFromDef("M").getField("children").getMFNode(0)
    field_ref = node.getField(field)
    field_ref.setSFFloat(value)
    robot.step(16)
    robot.step(16)
    assert connector.getPresence() == 0
