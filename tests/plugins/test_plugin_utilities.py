"""Physics plugin utility functions against analytic physics and Webots/ODE semantics: forces and torques in
world and body frames, velocities (get and set), geom poses, the plugin's receive buffer, errors in every
callback, plugin lookup and the working directory, and isolation of two simulations.

Conventions checked (ODE): a body's position is its centre of mass; "Rel" means in the body's axes with the
centre of mass as origin; torques are about the centre of mass. Each world turns off gravity where the
motion must be the plugin's alone, so the expected motion is the textbook one (a = F / m, alpha = tau / I,
x = v t, x = F t^2 / (2 m)).

The small helpers of ``test_physics_plugins.py`` are copied here (``tests`` is not a package).
"""

from __future__ import annotations

import math
import os
import textwrap
from pathlib import Path

import numpy as np
import pytest

HALF_PI = "1.5707963267948966"
FLOOR = 'DEF FLOOR Solid { name "floor" boundingObject Plane { size 20 20 } }'
HEADER = """
from wbsim.physics_plugin import *
events = []
"""

# Mass 2 kg with different principal moments (kg m^2) about the body's x, y and z axes.
MASS, IXX, IYY, IZZ = 2.0, 0.02, 0.03, 0.04
ASYMMETRIC = f"density -1 mass {MASS} centerOfMass [ 0 0 0 ] inertiaMatrix [ {IXX} {IYY} {IZZ}, 0 0 0 ]"
# The same, with the centre of mass 5 cm along the body's x-axis from the Solid's origin.
OFFSET_COM = f"density -1 mass {MASS} centerOfMass [ 0.05 0 0 ] inertiaMatrix [ {IXX} {IYY} {IZZ}, 0 0 0 ]"


def plugin_source(source: str) -> str:
    """``HEADER`` followed by an indented body, made valid Python."""
    if source.startswith(HEADER):
        return HEADER + textwrap.dedent(source[len(HEADER):])
    return textwrap.dedent(source)


def plugin_project(project, world_body: str, source: str, name: str = "plug",
                   info: str = "basicTimeStep 16 gravity 0", files: dict[str, str] | None = None):
    """A project whose world uses plugin ``name`` with ``source``."""
    world = f'WorldInfo {{ {info} physics "{name}" }}\n{world_body}'
    return project(world, files={f"plugins/physics/{name}/{name}.py": plugin_source(source), **(files or {})})


def body(name: str, translation: str = "0 0 1", rotation: str = "0 0 1 0", physics: str = ASYMMETRIC,
         bounding: str = "Box { size 0.1 0.1 0.1 }", extra: str = "") -> str:
    """A free supervisor robot (its supervisor API measures what the plugin did)."""
    return (f'DEF {name} Robot {{ translation {translation} rotation {rotation} name "{name.lower()}" '
            f'controller "<extern>" supervisor TRUE {extra} boundingObject {bounding} '
            f'physics Physics {{ {physics} }} }}')


def write(root: Path, files: dict[str, str]) -> None:
    for relative, content in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")


def rot_x(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def rot_z(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def matrix12(rot: np.ndarray) -> list[float]:
    """ODE's 12 numbers of a rotation (3 rows of 4, the fourth 0)."""
    return [float(v) for row in rot for v in (*row, 0.0)]


def velocity(sim, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(linear, angular) velocity of a robot, world frame, from the supervisor API."""
    values = sim.robot(name.lower()).getSelf().getVelocity()
    return np.array(values[:3]), np.array(values[3:])


# -- forces and torques --------------------------------------------------------------------------------------
def test_world_and_relative_torques_turn_bodies_by_torque_over_the_inertia_about_that_axis(project, load):
    # WORLD is turned 90 deg about x: its y-axis is the world z-axis, so a world z torque meets I_yy.
    # REL is turned 90 deg about z: a torque about its own x-axis (I_xx) is a torque about world y.
    # Both turn about a principal axis, so alpha stays constant (no gyroscopic coupling).
    source = HEADER + """
    def webots_physics_init():
        pass
    def webots_physics_step():
        dBodyAddTorque(dWebotsGetBodyFromDEF("WORLD"), 0.0, 0.0, 0.006)
        dBodyAddRelTorque(dWebotsGetBodyFromDEF("REL"), 0.006, 0.0, 0.0)
    def webots_physics_cleanup():
        pass
    """
    world = body("WORLD", "0 0 1", f"1 0 0 {HALF_PI}") + body("REL", "2 0 1", f"0 0 1 {HALF_PI}")
    sim = load(plugin_project(project, world, source))
    sim.run(0.48)
    t = sim.time_s
    linear, angular = velocity(sim, "WORLD")
    assert angular == pytest.approx([0, 0, 0.006 / IYY * t], rel=0.01, abs=1e-9)
    assert linear == pytest.approx([0, 0, 0], abs=1e-9)
    linear, angular = velocity(sim, "REL")
    assert angular == pytest.approx([0, 0.006 / IXX * t, 0], rel=0.01, abs=1e-9)
    assert linear == pytest.approx([0, 0, 0], abs=1e-9)


def test_a_world_force_at_a_body_point_pushes_by_f_over_m_and_turns_by_r_cross_f_over_i(project, load):
    # AT is turned 90 deg about z: its point (0.1, 0, 0) is 0.1 m along world y from its centre of mass, so a
    # world force (0, 0, 0.2) there gives r x F = (0.02, 0, 0) about world x = -(its y-axis): I_yy.
    # (With the point taken in world axes, the torque would be about world y instead.)
    source = HEADER + """
    def webots_physics_init():
        pass
    def webots_physics_step():
        dBodyAddForceAtRelPos(dWebotsGetBodyFromDEF("AT"), 0.0, 0.0, 0.2, 0.1, 0.0, 0.0)
    def webots_physics_cleanup():
        pass
    """
    sim = load(plugin_project(project, body("AT", "0 0 1", f"0 0 1 {HALF_PI}"), source))
    sim.run(0.24)  # turns by alpha t^2 / 2 = 0.02 rad: the lever arm stays within 0.02 % of 0.1 m
    t = sim.time_s
    linear, angular = velocity(sim, "AT")
    assert linear == pytest.approx([0, 0, 0.2 / MASS * t], rel=0.01, abs=1e-9)
    assert angular == pytest.approx([0.02 / IYY * t, 0, 0], rel=0.01, abs=1e-9)


def test_relative_forces_follow_the_turned_axes_and_act_at_the_centre_of_mass(project, load):
    # OFF is turned 90 deg about z and its centre of mass is 5 cm along its x-axis (world y) from its origin.
    # Its y-axis is world -x: a relative force (0, 1, 0) pushes along world -x. Both forces act at the centre
    # of mass (a relative point (0, 0, 0) is the centre of mass, not the Solid's origin), so it must not turn:
    # at the origin they would give a torque (0, -0.05, 0) x F.
    source = HEADER + """
    def webots_physics_init():
        pass
    def webots_physics_step():
        off = dWebotsGetBodyFromDEF("OFF")
        dBodyAddRelForce(off, 0.0, 1.0, 0.0)
        dBodyAddForceAtRelPos(off, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)
    def webots_physics_cleanup():
        pass
    """
    sim = load(plugin_project(project, body("OFF", "0 0 1", f"0 0 1 {HALF_PI}", physics=OFFSET_COM), source))
    sim.run(0.32)
    t = sim.time_s
    linear, angular = velocity(sim, "OFF")
    assert linear == pytest.approx([-1.0 / MASS * t, 0, 1.0 / MASS * t], rel=0.01, abs=1e-9)
    assert angular == pytest.approx([0, 0, 0], abs=1e-9)


# -- velocities ----------------------------------------------------------------------------------------------
def test_body_velocities_are_those_of_the_centre_of_mass_after_a_force_and_a_torque(project, load):
    # SPIN is turned 90 deg about z, its centre of mass 5 cm along its x-axis (world y). A force at the centre
    # of mass and a torque about world x (= -its y-axis: I_yy): the centre of mass moves with v = F t / m and
    # the body spins with w = tau t / I about it, both in world axes (in its own axes w would be along -y).
    # The Solid's origin moves differently (v + w x r, along z): dBodyGetLinearVel is the centre of mass's.
    source = HEADER + """
    def webots_physics_init():
        pass
    def webots_physics_step():
        b = dWebotsGetBodyFromDEF("SPIN")
        events.append((dWebotsGetTime() / 1000.0, dBodyGetLinearVel(b), dBodyGetAngularVel(b)))
        dBodyAddForce(b, 0.4, 0.0, 0.0)
        dBodyAddTorque(b, 0.012, 0.0, 0.0)
    def webots_physics_cleanup():
        pass
    """
    sim = load(plugin_project(project, body("SPIN", "0 0 1", f"0 0 1 {HALF_PI}", physics=OFFSET_COM), source))
    sim.run(0.8)
    events = sim.plugin.file.namespace["events"]
    assert len(events) == 50
    for t, linear, angular in events:
        assert linear == pytest.approx([0.4 / MASS * t, 0, 0], rel=0.01, abs=1e-6), t
        assert angular == pytest.approx([0.012 / IYY * t, 0, 0], rel=0.01, abs=1e-6), t
    assert events[-1][2][0] * 0.05 > 0.09 * events[-1][1][0]  # the origin's velocity differs by 10 %


def test_set_velocities_move_a_free_body_by_v_t_about_its_centre_of_mass(project, load):
    # Set at the first step: the centre of mass then moves in a straight line at v while the body spins at w
    # about it, gravity off. FREE is turned 90 deg about z; w is about world x (= -its y-axis, a principal
    # axis, so w stays constant): its rotation at t is Rx(w t) Rz(90 deg). Its centre of mass is 5 cm along
    # its x-axis (world y), off the spin axis.
    source = HEADER + """
    def webots_physics_init():
        pass
    def webots_physics_step():
        b = dWebotsGetBodyFromDEF("FREE")
        if dWebotsGetTime() == 0:
            dBodySetLinearVel(b, 0.3, -0.2, 0.1)
            dBodySetAngularVel(b, 2.0, 0.0, 0.0)
        events.append((dWebotsGetTime() / 1000.0, dBodyGetPosition(b), dBodyGetRotation(b),
                       dBodyGetLinearVel(b), dBodyGetAngularVel(b)))
    def webots_physics_cleanup():
        pass
    """
    sim = load(plugin_project(project, body("FREE", "1 2 3", f"0 0 1 {HALF_PI}", physics=OFFSET_COM), source))
    sim.run(0.48)
    events = sim.plugin.file.namespace["events"]
    start = np.array([1.0, 2.05, 3.0])  # the centre of mass: the origin + Rz(90 deg) (0.05, 0, 0)
    assert events[0][1] == pytest.approx(start)
    # MuJoCo integrates the Solid's origin, not the centre of mass: with the centre of mass 5 cm off the spin
    # axis, the straight line is kept to O(step) (0.2 mm here); the origin's velocity instead of the centre of
    # mass's, in either direction, would be off by w x r = 0.1 m/s (5 cm after 0.48 s).
    for t, position, rotation, linear, angular in events[1:]:
        assert position == pytest.approx(start + np.array([0.3, -0.2, 0.1]) * t, abs=1e-3), t
        assert rotation == pytest.approx(matrix12(rot_x(2.0 * t) @ rot_z(math.pi / 2)), abs=1e-9), t
        assert linear == pytest.approx([0.3, -0.2, 0.1], abs=2e-3), t
        assert angular == pytest.approx([2.0, 0, 0], abs=1e-9), t
    assert not sim.messages.recent


def test_set_velocities_on_a_body_held_by_a_joint_warn_and_change_nothing(project, load):
    arm = ('Robot { name "base" children [ HingeJoint { jointParameters HingeJointParameters { axis 0 0 1 } '
           'endPoint DEF ARM Solid { translation 0.2 0 1 boundingObject Box { size 0.1 0.1 0.1 } '
           f'physics Physics {{ {ASYMMETRIC} }} }} }} ] }}')
    source = HEADER + """
    def webots_physics_init():
        pass
    def webots_physics_step():
        b = dWebotsGetBodyFromDEF("ARM")
        if dWebotsGetTime() == 0:
            dBodySetLinearVel(b, 0.0, 1.0, 0.0)
            dBodySetAngularVel(b, 0.0, 0.0, 5.0)
        events.append((dBodyGetPosition(b), dBodyGetLinearVel(b), dBodyGetAngularVel(b)))
    def webots_physics_cleanup():
        pass
    """
    sim = load(plugin_project(project, arm, source))
    sim.run(0.32)
    events = sim.plugin.file.namespace["events"]
    assert len(events) == 20
    for position, linear, angular in events:
        assert position == pytest.approx([0.2, 0, 1], abs=1e-12)
        assert linear == pytest.approx([0, 0, 0], abs=1e-12)
        assert angular == pytest.approx([0, 0, 0], abs=1e-12)
    warnings = [m for m in sim.messages.recent if m.startswith("WARNING:")]
    assert len(warnings) == 2
    assert "dBodySetLinearVel()" in warnings[0] and "dBodySetAngularVel()" in warnings[1]
    assert not sim.failed and sim.plugin.enabled


# -- geoms ---------------------------------------------------------------------------------------------------
def test_geom_poses_are_their_world_poses_inside_turned_poses_of_turned_solids(project, load):
    # MOVER (turned 90 deg about z, moving at 0.5 m/s along x) holds a Box in a Pose at (0.1, 0.2, 0.3) turned
    # 90 deg about x: the box is at (1, 2, 3) + Rz (0.1, 0.2, 0.3) = (0.8, 2.1, 3.3), turned Rz Rx, which maps
    # x -> y, y -> z, z -> x (a third of a turn about (1, 1, 1): quaternion (0.5, 0.5, 0.5, 0.5)).
    # STILL (static, the same frames) holds a Cylinder, which Webots wraps in a transform of its own.
    pose = f"Pose {{ translation 0.1 0.2 0.3 rotation 1 0 0 {HALF_PI} children [ GEOMETRY ] }}"
    mover = (f'DEF MOVER Solid {{ translation 1 2 3 rotation 0 0 1 {HALF_PI} name "mover" '
             f'linearVelocity 0.5 0 0 boundingObject {pose.replace("GEOMETRY", "Box { size 0.1 0.2 0.3 }")} '
             'physics Physics { } }')
    still = (f'DEF STILL Solid {{ translation -1 0 0 rotation 0 0 1 {HALF_PI} name "still" '
             f'boundingObject {pose.replace("GEOMETRY", "Cylinder { height 0.2 radius 0.05 }")} }}')
    source = HEADER + """
    def innermost(g):
        while dGeomGetClass(g) == dGeomTransformClass:
            g = dGeomTransformGetGeom(g)
        return g
    def record():
        box, cylinder = innermost(dWebotsGetGeomFromDEF("MOVER")), innermost(dWebotsGetGeomFromDEF("STILL"))
        events.append((dWebotsGetTime() / 1000.0, dGeomGetClass(box), dGeomGetPosition(box),
                       dGeomGetRotation(box), dGeomGetQuaternion(box), dGeomGetClass(cylinder),
                       dGeomGetPosition(cylinder), dGeomGetRotation(cylinder),
                       dGeomGetBody(box) is dWebotsGetBodyFromDEF("MOVER"), dGeomGetBody(cylinder)))
    def webots_physics_init():
        ray = dCreateRay(dGeomGetSpace(dWebotsGetGeomFromDEF("MOVER")), 1.0)
        assert dGeomSetDynamicFlag(ray) is None
        assert dGeomSetDynamicFlag(dWebotsGetGeomFromDEF("STILL")) is None
        record()
    def webots_physics_step():
        if dWebotsGetTime() == 320:
            record()
    def webots_physics_cleanup():
        pass
    """
    sim = load(plugin_project(project, mover + still, source))
    sim.run(0.4)
    assert not sim.failed and sim.plugin.enabled  # dGeomSetDynamicFlag is harmless
    turned = np.array([[0, 0, 1], [1, 0, 0], [0, 1, 0]], dtype=float)  # Rz(90 deg) @ Rx(90 deg)
    assert np.allclose(rot_z(math.pi / 2) @ rot_x(math.pi / 2), turned)
    events = sim.plugin.file.namespace["events"]
    assert [e[0] for e in events] == [0.0, 0.32]
    from wbsim.plugins.ode_types import dBoxClass, dCylinderClass

    for t, box_class, position, rotation, quat, cyl_class, cyl_position, cyl_rot, on_body, static in events:
        assert box_class == dBoxClass and cyl_class == dCylinderClass
        assert position == pytest.approx([0.8 + 0.5 * t, 2.1, 3.3], abs=1e-9), t
        assert rotation == pytest.approx(matrix12(turned), abs=1e-9)
        assert abs(np.dot(quat, [0.5, 0.5, 0.5, 0.5])) == pytest.approx(1.0, abs=1e-9)
        assert cyl_position == pytest.approx([-1.2, 0.1, 0.3], abs=1e-9)
        assert cyl_rot == pytest.approx(matrix12(turned), abs=1e-9)
        assert on_body and static is None


# -- the plugin's receive buffer -----------------------------------------------------------------------------
def test_the_receive_buffer_is_read_once_and_accumulates_what_was_not_read(project, load):
    controller = """
    from controller import Robot
    robot = Robot()
    emitter = robot.getDevice("e")
    i = 0
    while True:
        if i < 6:
            emitter.send(f"<{i}>".encode())  # before the step: in the plugin's buffer during that step
        if robot.step(16) == -1:
            break
        i += 1
    """
    source = HEADER + """
    SKIP = (1, 2)  # steps whose webots_physics_step reads nothing
    def webots_physics_init():
        pass
    def webots_physics_step():
        step = int(dWebotsGetTime()) // 16
        if step in SKIP:
            return
        first = dWebotsReceive()
        events.append((step, first, dWebotsReceive()))
    def webots_physics_cleanup():
        pass
    """
    world = 'Robot { name "talker" controller "talker" children [ Emitter { name "e" channel 0 } ] }'
    files = {"controllers/talker/talker.py": textwrap.dedent(controller)}
    sim = load(plugin_project(project, world, source, files=files))
    sim.run(0.112)
    assert sim.plugin.file.namespace["events"] == [
        (0, b"<0>", None),  # a second read in the same step gets nothing
        (3, b"<1><2><3>", None),  # unread packets accumulate, concatenated
        (4, b"<4>", None),  # what was read is not returned again
        (5, b"<5>", None),
        (6, None, None),  # nothing sent
    ]
    assert not sim.failed


# -- errors --------------------------------------------------------------------------------------------------
RECORDING = HEADER + """
def webots_physics_init():
    events.append("init")
    INIT
def webots_physics_step():
    events.append(("step", dWebotsGetTime()))
def webots_physics_collide(g1, g2):
    if events[-1][0] != "collide":
        events.append(("collide", dWebotsGetTime()))
    return 0
def webots_physics_step_end():
    events.append(("step_end", dWebotsGetTime()))
    STEP_END
def webots_physics_cleanup():
    events.append("cleanup")
    CLEANUP
"""


def recording(init: str = "pass", step_end: str = "pass", cleanup: str = "pass") -> str:
    return RECORDING.replace("INIT", init).replace("STEP_END", step_end).replace("CLEANUP", cleanup)


def test_an_exception_in_init_disables_the_plugin_before_any_other_callback(project, load, capsys):
    before = os.getcwd()
    source = recording(init='raise ValueError("bad init")')
    path = plugin_project(project, FLOOR + body("BOX", "0 0 0.05"), source, info="basicTimeStep 16")
    sim = load(path)
    assert os.getcwd() == before  # the working directory is restored after init, even when it raises
    sim.run(0.1)
    sim.close()
    err = capsys.readouterr().err
    assert "ValueError: bad init" in err and "webots_physics_init()" in err and "Traceback" in err
    assert sim.plugin.file.namespace["events"] == ["init"]  # no collision pass, step, step_end nor cleanup
    assert sim.failed and not sim.plugin.enabled
    assert sim.time_s == pytest.approx(0.112)  # the simulation went on
    # on the floor: default contacts
    assert sim.robot("box").getSelf().getPosition()[2] == pytest.approx(0.05, abs=1e-3)


def test_an_exception_in_step_end_disables_the_plugin(project, load, capsys):
    source = recording(step_end='if dWebotsGetTime() == 32:\n        raise KeyError("step end")')
    sim = load(plugin_project(project, FLOOR + body("BOX", "0 0 0.05"), source, info="basicTimeStep 16"))
    sim.run(0.16)
    sim.close()
    err = capsys.readouterr().err
    assert "KeyError: 'step end'" in err and "webots_physics_step_end()" in err and "Traceback" in err
    assert sim.plugin.file.namespace["events"] == [
        "init", ("collide", 0.0),
        ("step", 0.0), ("collide", 0.0), ("step_end", 0.0),
        ("step", 16.0), ("collide", 16.0), ("step_end", 16.0),
        ("step", 32.0), ("collide", 32.0), ("step_end", 32.0),  # raised: nothing more, no cleanup at close
    ]
    assert sim.failed and not sim.plugin.enabled
    assert sim.time_s == pytest.approx(0.16)


def test_a_plugin_file_with_a_syntax_error_is_reported_and_the_world_runs_without_it(project, load, capsys):
    source = HEADER + """
    def webots_physics_init(:
        pass
    """
    sim = load(plugin_project(project, FLOOR + body("BOX", "0 0 0.05"), source, info="basicTimeStep 16"))
    err = capsys.readouterr().err
    assert "SyntaxError" in err and "plug.py" in err and "Traceback" in err
    assert sim.failed and not sim.plugin.enabled
    sim.run(0.1)
    assert sim.time_s == pytest.approx(0.112)
    assert sim.robot("box").getSelf().getPosition()[2] == pytest.approx(0.05, abs=1e-3)


def test_an_exception_in_cleanup_at_close_is_reported_and_fails_the_simulation(project, load, capsys):
    source = recording(cleanup='raise RuntimeError("bad cleanup")')
    sim = load(plugin_project(project, body("BOX"), source))
    sim.run(0.05)
    assert not sim.failed
    sim.close()
    err = capsys.readouterr().err
    assert "RuntimeError: bad cleanup" in err and "webots_physics_cleanup()" in err and "Traceback" in err
    assert sim.plugin.file.namespace["events"][-1] == "cleanup"
    assert sim.failed


# -- lookup and working directory ----------------------------------------------------------------------------
def test_none_loads_nothing_and_warns_nothing(project, load, capsys):
    trap = plugin_source(HEADER + """
    raise RuntimeError("this file must not run")
    """)
    for name in ("<none>", ""):
        path = project(f'WorldInfo {{ basicTimeStep 16 physics "{name}" }}\n' + body("BOX"),
                       files={f"plugins/physics/{name or 'empty'}/{name or 'empty'}.py": trap})
        sim = load(path)
        sim.run(0.05)
        assert sim.plugin is None and not sim.failed, name
        assert list(sim.messages.recent) == [], name
    assert capsys.readouterr().err == ""


def proto_project(root: Path, project_plugins: bool) -> Path:
    """A world in ``root/app`` using an EXTERNPROTO of ``root/lib/protos``, whose project has plugin ``pp``;
    the world's project has an empty ``plugins/physics/pp`` folder with ``project_plugins``."""
    source = plugin_source(HEADER + """
    import os
    events.append(os.getcwd())
    def webots_physics_init():
        events.append(os.getcwd())
        with open("gain.txt") as file:  # relative to the plugin's folder
            events.append(float(file.read()))
    def webots_physics_step():
        events.append(os.getcwd())
    def webots_physics_cleanup():
        pass
    """)
    proto = ('#VRML_SIM R2023b utf8\nPROTO Pusher [ field SFVec3f translation 0 0 1 ] {\n'
             '  Solid { translation IS translation boundingObject Box { size 0.1 0.1 0.1 }\n'
             '          physics Physics { } }\n}\n')
    world = ('#VRML_SIM R2023b utf8\nEXTERNPROTO "../../lib/protos/Pusher.proto"\n'
             'WorldInfo { basicTimeStep 16 gravity 0 physics "pp" }\nDEF PUSHER Pusher { }\n')
    write(root, {"lib/protos/Pusher.proto": proto, "lib/plugins/physics/pp/pp.py": source,
                 "lib/plugins/physics/pp/gain.txt": "2.5", "app/worlds/w.wbt": world})
    if project_plugins:
        (root / "app" / "plugins" / "physics" / "pp").mkdir(parents=True)
    return root / "app" / "worlds" / "w.wbt"


def test_the_plugin_of_a_protos_project_runs_with_its_folder_as_working_directory(tmp_path, load):
    path = proto_project(tmp_path, project_plugins=False)
    before = os.getcwd()
    sim = load(path)
    assert os.getcwd() == before  # restored after init
    sim.step()
    sim.reset()  # init again, in the plugin's folder again
    assert os.getcwd() == before
    folder = os.path.realpath(tmp_path / "lib" / "plugins" / "physics" / "pp")
    events = sim.plugin.file.namespace["events"]
    assert sim.plugin.file.script.resolve() == Path(folder) / "pp.py"
    assert [os.path.realpath(e) if isinstance(e, str) else e for e in events] == [
        os.path.realpath(before),  # the file's top level: not moved
        folder, 2.5,  # init
        os.path.realpath(before),  # step
        folder, 2.5,  # init after the reset
    ]
    assert not sim.failed and not sim.messages.recent


def test_an_existing_project_plugin_folder_wins_over_a_protos_even_without_the_file(tmp_path, load):
    sim = load(proto_project(tmp_path, project_plugins=True))
    assert sim.plugin is None
    text = "\n".join(sim.messages.recent)
    assert "Plugin 'pp' not found. Search in:" in text
    assert str(tmp_path / "app" / "plugins" / "physics" / "pp") in text


# -- isolation -----------------------------------------------------------------------------------------------
def test_two_simulations_stepped_alternately_each_push_only_their_own_body(tmp_path, load):
    # The same world text in two projects whose plugins (same name, same helper module name) push the box
    # +x in one and -x in the other: stepped in turn, each box moves by F t^2 / (2 m) its own way.
    world = ('#VRML_SIM R2023b utf8\nWorldInfo { basicTimeStep 16 gravity 0 physics "push" }\n'
             + body("BOX", "0 0 1", physics="density -1 mass 1") + "\n")
    source = HEADER + """
    import tally
    PUSH = FORCE
    box = None
    def webots_physics_init():
        global box
        box = dWebotsGetBodyFromDEF("BOX")
    def webots_physics_step():
        import tally as helper  # the module of this plugin's folder, at every callback
        helper.steps.append(dBodyGetPosition(box)[0])
        dBodyAddForce(box, PUSH, 0.0, 0.0)
    def webots_physics_cleanup():
        pass
    """
    sims = {}
    for name, force in (("a", 0.5), ("b", -0.5)):
        write(tmp_path / name, {"worlds/w.wbt": world, "plugins/physics/push/push.py":
                                plugin_source(source.replace("FORCE", repr(force))),
                                "plugins/physics/push/tally.py": "steps = []\n"})
        sims[name] = load(tmp_path / name / "worlds" / "w.wbt")
    for _ in range(30):
        sims["a"].step()
        sims["b"].step()
    t = 0.48
    for name, sign in (("a", 1.0), ("b", -1.0)):
        sim = sims[name]
        assert sim.time_s == pytest.approx(t)
        x = sim.robot("box").getSelf().getPosition()[0]
        assert x == pytest.approx(sign * 0.5 * t * t / 2.0, rel=0.02), name
        steps = sim.plugin.file.namespace["tally"].steps
        assert len(steps) == 30 and all(sign * v >= 0 for v in steps) and sign * steps[-1] > 0, name
    assert sims["a"].plugin.file.namespace["tally"] is not sims["b"].plugin.file.namespace["tally"]
