"""Physics plugins: loading, Webots' callback order, forces, collide return values, contact joints, rays,
errors and isolation. Each test writes a small project with its plugin (``plugins/physics/<name>/<name>.py``)."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from pathlib import Path

import mujoco
import numpy as np
import pytest

from wbsim.errors import PluginError

FLOOR = 'DEF FLOOR Solid { name "floor" boundingObject Plane { size 20 20 } }'


def box(name: str = "BOX", translation: str = "0 0 0.05", mass: float = 1.0, extra: str = "",
        size: str = "0.1 0.1 0.1") -> str:
    return (f'DEF {name} Robot {{ translation {translation} name "{name.lower()}" controller "<extern>" supervisor TRUE {extra} '
            f'boundingObject Box {{ size {size} }} physics Physics {{ density -1 mass {mass} }} }}')


def plugin_project(project, world_body: str, source: str, name: str = "plug", info: str = "basicTimeStep 16"):
    """A project whose world uses plugin ``name`` with ``source``."""
    world = f'WorldInfo {{ {info} physics "{name}" }}\n{world_body}'
    return project(world, files={f"plugins/physics/{name}/{name}.py": plugin_source(source)})


def plugin_source(source: str) -> str:
    """``HEADER`` followed by an indented body, made valid Python."""
    if source.startswith(HEADER):
        return HEADER + textwrap.dedent(source[len(HEADER):])
    return textwrap.dedent(source)


HEADER = """
from wbsim.physics_plugin import *
events = []
"""


# -- forces -------------------------------------------------------------------------------------------------------
def test_a_constant_force_on_a_body_found_by_a_dotted_path_accelerates_it_by_f_over_m(project, load):
    child = ("children [ Solid { translation 0.2 0 0 physics Physics { density -1 mass 0.5 } "
             "boundingObject Sphere { radius 0.02 } } ]")
    world = f"DEF GROUP Pose {{ children [ {box('BOT', '0 0 1', 1.5, extra=child)} ] }}"
    source = HEADER + """
    body = None
    def webots_physics_init():
        global body
        body = dWebotsGetBodyFromDEF("GROUP.BOT")
    def webots_physics_step():
        dBodyAddForce(body, 0.0, 4.0, 0.0)  # across the offset between the Solid's and the group's centres
    def webots_physics_cleanup():
        pass
    """
    sim = load(plugin_project(project, world, source, info="basicTimeStep 16 gravity 0"))
    body = sim.plugin.file.namespace["body"]
    assert body.mass == pytest.approx(2.0)  # the robot and the Solid merged into it
    sim.run(1.0)
    velocity = sim.robot("bot").getSelf().getVelocity()
    acceleration = velocity[1] / sim.time_s
    assert acceleration == pytest.approx(4.0 / 2.0, rel=0.01)
    assert abs(velocity[0]) < 1e-9 and abs(velocity[5]) < 1e-9  # at the centre of mass: no turn


def test_relative_forces_torques_and_forces_at_points(project, load):
    source = HEADER + """
    body = None
    mode = "torque"
    def webots_physics_init():
        global body
        body = dWebotsGetBodyFromDEF("BOX")
    def webots_physics_step():
        if mode == "torque":
            dBodyAddRelTorque(body, 0.0, 0.0, 0.01)
        elif mode == "offset":
            p = dBodyGetPosition(body)
            dBodyAddForceAtPos(body, 0.0, 1.0, 0.0, p[0] + 0.1, p[1], p[2])
    def webots_physics_cleanup():
        pass
    """
    sim = load(plugin_project(project, box("BOX", "0 0 1"), source, info="basicTimeStep 16 gravity 0"))
    inertia = 1.0 * (0.1 ** 2 + 0.1 ** 2) / 12
    sim.run(0.5)
    omega = sim.robot("box").getSelf().getVelocity()[5]
    assert omega / sim.time_s == pytest.approx(0.01 / inertia, rel=0.01)
    sim.reset()
    sim.plugin.file.namespace["mode"] = "offset"
    sim.run(0.2)  # 1 N along y at 0.1 m along x: linear 1 m/s^2 and a torque of 0.1 N m about z
    velocity = sim.robot("box").getSelf().getVelocity()
    assert velocity[1] / sim.time_s == pytest.approx(1.0, rel=0.01)
    assert velocity[5] / sim.time_s == pytest.approx(0.1 / inertia, rel=0.02)


def test_body_queries_follow_ode_conventions(project, load):
    source = HEADER + """
    def webots_physics_init():
        b = dWebotsGetBodyFromDEF("BOX")
        events.append(("pos", dBodyGetPosition(b)))
        events.append(("rot", dBodyGetRotation(b)))
        events.append(("quat", dBodyGetQuaternion(b)))
        events.append(("rel", dBodyGetRelPointPos(b, 0.1, 0.0, 0.0)))
        events.append(("world", dBodyVectorToWorld(b, 1.0, 0.0, 0.0)))
        events.append(("from", dBodyVectorFromWorld(b, 0.0, 1.0, 0.0)))
        m = dMass()
        dBodyGetMass(b, m)
        events.append(("mass", m.mass, m.I))
        events.append(("static", dWebotsGetBodyFromDEF("FLOOR"), dWebotsGetBodyFromDEF("NOPE"), dWebotsGetBodyFromDEF("")))
    def webots_physics_step():
        pass
    def webots_physics_cleanup():
        pass
    """
    sim = load(plugin_project(project, FLOOR + box("BOX", "1 2 3", 2.0, extra="rotation 0 0 1 1.5707963267948966"),
                              source, info="basicTimeStep 16 gravity 0"))
    events = dict((e[0], e[1:]) for e in sim.plugin.file.namespace["events"])
    assert events["pos"][0] == pytest.approx([1, 2, 3])
    rot = events["rot"][0]
    assert len(rot) == 12 and rot[3] == rot[7] == rot[11] == 0.0
    assert rot[0] == pytest.approx(0, abs=1e-9) and rot[4] == pytest.approx(1)  # x-axis along world y
    assert events["quat"][0] == pytest.approx([math.cos(math.pi / 4), 0, 0, math.sin(math.pi / 4)])
    assert events["rel"][0] == pytest.approx([1, 2.1, 3])
    assert events["world"][0] == pytest.approx([0, 1, 0], abs=1e-9)
    assert events["from"][0] == pytest.approx([1, 0, 0], abs=1e-9)
    mass, inertia = events["mass"]
    assert mass == pytest.approx(2.0) and inertia[0] == pytest.approx(2.0 * 0.02 / 12)
    assert events["static"] == (None, None, None)
    assert "dWebotsGetBodyFromDEF(): invalid NULL or empty DEF argument." in "\n".join(sim.messages.recent)


# -- callback order and time ---------------------------------------------------------------------------------------
ORDER = HEADER + """
def webots_physics_init():
    events.append(("init", dWebotsGetTime(), dWebotsGetContactJointGroup() is None))
def webots_physics_step():
    events.append(("step", dWebotsGetTime()))
def webots_physics_collide(g1, g2):
    if not events or events[-1][0] != "collide":
        events.append(("collide", dWebotsGetTime()))
    return 0
def webots_physics_step_end():
    events.append(("step_end", dWebotsGetTime()))
def webots_physics_cleanup():
    events.append(("cleanup",))
"""


def test_callbacks_come_in_webots_order_over_steps_and_a_reset(project, load):
    sim = load(plugin_project(project, FLOOR + box(), ORDER))
    events = sim.plugin.file.namespace["events"]
    for _ in range(3):
        sim.step()
    sim.reset()
    sim.step()
    sim.close()
    assert events == [
        ("init", 0.0, True), ("collide", 0.0),  # load: init, then the first collision pass
        ("step", 0.0), ("collide", 0.0), ("step_end", 0.0),  # dWebotsGetTime: the time at the step's start
        ("step", 16.0), ("collide", 16.0), ("step_end", 16.0),
        ("step", 32.0), ("collide", 32.0), ("step_end", 32.0),
        ("cleanup",), ("collide", 0.0), ("init", 0.0, True),  # reset: cleanup, collision pass, init
        ("step", 0.0), ("collide", 0.0), ("step_end", 0.0),
        ("cleanup",),  # closing
    ]


def test_the_step_callback_runs_after_the_controllers_and_devices_of_its_step(project, load):
    controller = """
    from controller import Robot
    robot = Robot()
    motor = robot.getDevice("m")
    while robot.step(16) != -1:
        robot.setCustomData(str(robot.getTime()))
    """
    source = HEADER + """
    def webots_physics_init():
        pass
    def webots_physics_step():
        events.append(float(dWebotsGetTime()))
    def webots_physics_cleanup():
        pass
    """
    world = ('WorldInfo { basicTimeStep 16 physics "plug" }\n'
             'Robot { name "r" controller "c" children [ HingeJoint { device [ RotationalMotor { name "m" } ] } ] }')
    path = project(world, controllers={"c": controller}, files={"plugins/physics/plug/plug.py": plugin_source(source)})
    sim = load(path)
    sim.run(0.048)
    assert sim.plugin.file.namespace["events"] == [0.0, 16.0, 32.0]


# -- collide return values and contact joints ---------------------------------------------------------------------
FRICTION = HEADER + """
MODE = "default"
floor = box = box_body = None
def webots_physics_init():
    global floor, box, box_body
    floor = dWebotsGetGeomFromDEF("FLOOR")
    box = dWebotsGetGeomFromDEF("BOX")
    box_body = dWebotsGetBodyFromDEF("BOX")
def webots_physics_step():
    pass
def webots_physics_collide(g1, g2):
    if {g1, g2} != {floor, box}:
        return 0
    if MODE in ("default", "three"):
        return 0 if MODE == "default" else 3
    if MODE in ("none", "marked"):
        return 1 if MODE == "none" else 2
    contacts = [dContact() for _ in range(10)]
    n = dCollide(g1, g2, 10, contacts)
    world, group = dBodyGetWorld(box_body), dWebotsGetContactJointGroup()
    for c in contacts[:n]:
        c.surface.mode = dContactSoftCFM | dContactBounce
        c.surface.mu = 0.1
        c.surface.bounce = 0.0
        c.surface.soft_cfm = 0.001
        joint = dJointCreateContact(world, group, c)
        # body 1 is pushed along the normal, which points from g2 towards g1
        if g1 is box:
            dJointAttach(joint, box_body, None)
        else:
            dJointAttach(joint, None, box_body)
    return 1
def webots_physics_cleanup():
    pass
"""


def friction_plugin(mode: str) -> str:
    """The FRICTION plugin in ``mode`` from the start (its first collision pass runs while it loads)."""
    return FRICTION.replace('MODE = "default"', f'MODE = "{mode}"')


def test_contacts_made_by_the_plugin_replace_the_default_ones(project, load):
    slides = {}
    for mode in ("default", "three", "friction"):
        # A flat box: a cube with mu 1 is at its tipping limit (mu = half-width / centre height), where the
        # rigid-body stopping distance v^2 / (2 mu g) does not hold for soft contacts (it pitches onto its edge).
        sim = load(plugin_project(project, FLOOR + box(extra="linearVelocity 1 0 0", size="0.3 0.3 0.1"),
                                  friction_plugin(mode), name=mode,
                                  info="basicTimeStep 16 physicsDisableTime 0"))
        sim.run(2.0)
        position = sim.robot("box").getSelf().getPosition()
        assert position[2] == pytest.approx(0.05, abs=0.002)  # on the floor, not in it
        slides[mode] = position[0]
    assert slides["three"] == slides["default"]  # other values: Webots' default contacts, as for 0
    assert slides["default"] == pytest.approx(1 / (2 * 1.0 * 9.81), rel=0.08)  # v^2 / (2 mu g), MuJoCo's mu 1
    assert slides["friction"] == pytest.approx(1 / (2 * 0.1 * 9.81), rel=0.03)  # the plugin's mu 0.1


@pytest.mark.parametrize("mode", ["none", "marked"])
def test_returning_1_or_2_without_contacts_lets_the_box_fall_through(project, load, mode):
    sim = load(plugin_project(project, FLOOR + box(), friction_plugin(mode)))
    sim.run(1.0)
    assert sim.robot("box").getSelf().getPosition()[2] < -1.0


def test_a_box_resting_on_plugin_contacts_neither_sinks_nor_jitters(project, load):
    reference = load(plugin_project(project, FLOOR + box("BOX", "0 0 0.06"), FRICTION, name="ref",
                                    info="basicTimeStep 32 physicsDisableTime 0"))
    sim = load(plugin_project(project, FLOOR + box("BOX", "0 0 0.06"), friction_plugin("friction"),
                              info="basicTimeStep 32 physicsDisableTime 0"))
    heights, resting = [], []
    for _ in range(200):
        sim.step()
        reference.step()
        heights.append(sim.robot("box").getSelf().getPosition()[2])
        resting.append(reference.robot("box").getSelf().getPosition()[2])
    settled = np.array(heights[60:])
    assert settled.max() - settled.min() < 1e-5  # no jitter (contacts rebuilt only once per 32 ms step)
    assert settled[-1] == pytest.approx(resting[-1], abs=0.001)  # as deep as on MuJoCo's own contacts


@pytest.mark.parametrize("bounding", ["Box { size 0.1 0.1 0.1 }",
                                      "Group { children [ Pose { translation 0 0 -0.025 children [ Box { size 0.1 0.1 0.05 } ] } "
                                      "Pose { translation 0 0 0.025 children [ Box { size 0.1 0.1 0.05 } ] } ] }"])
def test_a_body_landing_in_the_middle_of_a_step_gets_only_the_plugins_contacts(project, load, bounding):
    # Falling at 3 m/s, the box crosses ~10 cm per 32 ms step and meets the floor between two collision
    # passes: the pair must already be offered at the pass before (Webots collides once per step, so it
    # never makes a default contact the plugin has not seen), for a single geom and for a Group's space.
    robot = (f'DEF BOX Robot {{ translation 0 0 0.2 name "box" controller "<extern>" supervisor TRUE '
             f'linearVelocity 0 0 -3 boundingObject {bounding} physics Physics {{ density -1 mass 1 }} }}')
    sim = load(plugin_project(project, FLOOR + robot, friction_plugin("friction"),
                              info="basicTimeStep 32 physicsDisableTime 0"))
    model, data = sim.model, sim.data
    box_geoms = set(np.flatnonzero(model.geom_bodyid == sim.plugin.file.namespace["box_body"].root).tolist())
    frictions = set()
    for _ in range(20):
        sim.step()
        for contact in data.contact[: data.ncon]:
            if {int(contact.geom[0]), int(contact.geom[1])} & box_geoms:
                frictions.add(round(float(contact.friction[0]), 6))
    assert frictions == {0.1}  # the plugin's mu, never MuJoCo's default 1
    assert sim.robot("box").getSelf().getPosition()[2] == pytest.approx(0.05, abs=0.003)


def test_suppressed_contacts_do_not_touch_bumpers(project, load):
    bumper = 'children [ TouchSensor { translation 0 0 -0.045 name "bumper" boundingObject Box { size 0.09 0.09 0.01 } } ]'
    source = HEADER + """
    MODE = 0
    def webots_physics_init():
        pass
    def webots_physics_step():
        pass
    def webots_physics_collide(g1, g2):
        return MODE
    def webots_physics_cleanup():
        pass
    """
    for mode, touched in ((0, 1.0), (2, 0.0)):
        sim = load(plugin_project(project, FLOOR + box(extra=bumper), source, name=f"p{mode}"))
        sim.plugin.file.namespace["MODE"] = mode
        robot = sim.robot("box")
        sensor = robot.getDevice("bumper")
        sensor.enable(16)
        robot.step(16)
        robot.step(16)
        assert sensor.getValue() == touched, mode


def test_group_bounding_objects_are_spaces_and_their_children_are_offered_after_0(project, load):
    robot = ('DEF BOT Robot { translation 0 0 0.05 controller "<extern>" boundingObject Group { children [ '
             'Pose { translation 0.03 0 0 children [ Box { size 0.04 0.1 0.1 } ] } '
             'Pose { translation -0.03 0 0 children [ Box { size 0.04 0.1 0.1 } ] } ] } '
             'physics Physics { density -1 mass 1 } }')
    source = HEADER + """
    def webots_physics_init():
        g = dWebotsGetGeomFromDEF("BOT")
        events.append(("top", dGeomGetClass(g), dGeomIsSpace(g), dSpaceGetNumGeoms(g),
                       dGeomGetClass(dSpaceGetGeom(g, 0)), dGeomGetClass(dGeomTransformGetGeom(dSpaceGetGeom(g, 0))),
                       dGeomGetBody(dSpaceGetGeom(g, 1)) is dWebotsGetBodyFromDEF("BOT"),
                       dGeomGetSpace(g) is dGeomGetSpace(dWebotsGetGeomFromDEF("FLOOR"))))
    def webots_physics_step():
        pass
    def webots_physics_collide(g1, g2):
        events.append(("pair", dGeomGetClass(g1), dGeomGetClass(g2)))
        return 0
    def webots_physics_cleanup():
        pass
    """
    sim = load(plugin_project(project, FLOOR + robot, source))
    events = sim.plugin.file.namespace["events"]
    assert events[0] == ("top", dSimpleSpaceClass(), 1, 2, dGeomTransformClass(), dBoxClass(), True, True)
    # The robot's space with the floor, then each child transform with the floor (moving geom first).
    assert events[1:4] == [("pair", 10, 4), ("pair", 7, 4), ("pair", 7, 4)]


def dSimpleSpaceClass() -> int:  # noqa: N802 (the constants, read without a plugin running)
    from wbsim.plugins.ode_types import dSimpleSpaceClass as value
    return value


def dGeomTransformClass() -> int:  # noqa: N802
    from wbsim.plugins.ode_types import dGeomTransformClass as value
    return value


def dBoxClass() -> int:  # noqa: N802
    from wbsim.plugins.ode_types import dBoxClass as value
    return value


def test_a_world_whose_plugin_has_no_collide_pays_nothing_for_it(project, load):
    source = HEADER + """
    def webots_physics_init():
        pass
    def webots_physics_step():
        pass
    def webots_physics_cleanup():
        pass
    """
    sim = load(plugin_project(project, FLOOR + box(), source))
    sim.run(0.5)
    assert sim.plugin.collisions._probe_at is None  # no collision pass was ever computed


# -- rays ------------------------------------------------------------------------------------------------------------
def test_dcollide_reports_exact_cylinder_floor_points_and_nothing_for_distant_pairs(project, load):
    # An upright cylinder 2 mm above the floor, one resting 1 mm into it, and a ball far from both.
    world = (FLOOR + 'DEF UP Solid { translation 0 0 0.052 name "up" boundingObject Cylinder { height 0.1 radius 0.05 } }'
             'DEF IN Solid { translation 1 0 0.049 name "in" boundingObject Cylinder { height 0.1 radius 0.05 } }'
             'DEF FAR Solid { translation 0 3 1 name "far" boundingObject Sphere { radius 0.1 } }')
    source = HEADER + """
    def webots_physics_init():
        floor = dWebotsGetGeomFromDEF("FLOOR")
        for name in ("UP", "IN", "FAR"):
            contacts = [dContactGeom() for _ in range(10)]
            n = dCollide(dWebotsGetGeomFromDEF(name), floor, 10, contacts)
            events.append((name, [(c.pos, c.normal, c.depth) for c in contacts[:n]]))
        contacts = [dContactGeom() for _ in range(10)]
        n = dCollide(floor, dWebotsGetGeomFromDEF("IN"), 10, contacts)
        events.append(("IN reversed", [c.normal for c in contacts[:n]]))
        events.append(("FAR-UP", dCollide(dWebotsGetGeomFromDEF("FAR"), dWebotsGetGeomFromDEF("UP"), 10, contacts)))
    def webots_physics_step():
        pass
    def webots_physics_cleanup():
        pass
    """
    sim = load(plugin_project(project, world, source))
    events = dict(sim.plugin.file.namespace["events"])
    assert events["UP"] == [] and events["FAR"] == [] and events["FAR-UP"] == 0
    touching = events["IN"]
    assert len(touching) == 3  # MuJoCo's layout: three rim points of the bottom cap
    for pos, normal, depth in touching:
        assert depth == pytest.approx(0.001, abs=1e-9)
        assert normal == pytest.approx([0.0, 0.0, 1.0])  # from the floor (o2) towards the cylinder (o1)
        assert math.hypot(pos[0] - 1.0, pos[1]) == pytest.approx(0.05, abs=1e-9)
        assert pos[2] == pytest.approx(-0.0005, abs=1e-9)  # halfway between the two surfaces
    assert events["IN reversed"] == [pytest.approx([0.0, 0.0, -1.0])] * 3


def test_rays_are_offered_against_what_they_cross_and_measure_distances(project, load):
    wall = 'DEF WALL Solid { translation 1 0 0.5 name "wall" boundingObject Box { size 0.2 2 1 } }'
    source = HEADER + """
    ray = None
    def webots_physics_init():
        global ray
        ray = dCreateRay(dGeomGetSpace(dWebotsGetGeomFromDEF("BOT")), 2.0)
    def webots_physics_step():
        p = dBodyGetPosition(dWebotsGetBodyFromDEF("BOT"))
        dGeomRaySet(ray, p[0], p[1], p[2], 1.0, 0.0, 0.0)
    def webots_physics_collide(g1, g2):
        if ray in (g1, g2):
            other = g2 if g1 is ray else g1
            contacts = [dContact()]
            n = dCollide(ray, other, 1, contacts)
            name = "wall" if other is dWebotsGetGeomFromDEF("WALL") else "bot"
            events.append((name, n, contacts[0].geom.depth if n else None, contacts[0].geom.normal if n else None))
            return 1
        return 0
    def webots_physics_cleanup():
        dGeomDestroy(ray)
    """
    sim = load(plugin_project(project, wall + box("BOT", "0 0 0.5"), source, info="basicTimeStep 16 gravity 0"))
    sim.step()
    events = sim.plugin.file.namespace["events"]
    walls = [e for e in events if e[0] == "wall"]  # after the first step's ray placement
    assert len(walls) == 1 and walls[0][1] == 1 and walls[0][2] == pytest.approx(0.9, abs=1e-9)  # 1 - 0.1 m
    assert walls[0][3] == pytest.approx([1, 0, 0])  # the wall's face normal (-x), turned to separate the ray (g1)
    assert any(e[0] == "bot" for e in events)  # the ray starts inside the robot's own box, offered too


# -- errors, lookup and isolation --------------------------------------------------------------------------------------
def test_a_raising_callback_prints_its_traceback_and_the_run_goes_on_without_the_plugin(project, load, capsys):
    source = HEADER + """
    body = None
    def webots_physics_init():
        global body
        body = dWebotsGetBodyFromDEF("BOX")
    def webots_physics_step():
        events.append(dWebotsGetTime())
        if dWebotsGetTime() >= 32:
            raise ValueError("boom")
        dBodyAddForce(body, 0, 0, 100)
    def webots_physics_cleanup():
        events.append("cleanup")
    """
    sim = load(plugin_project(project, box("BOX", "0 0 1"), source))
    sim.run(0.2)
    err = capsys.readouterr().err
    assert "ValueError: boom" in err and "webots_physics_step()" in err
    assert sim.plugin.file.namespace["events"] == [0.0, 16.0, 32.0]  # disabled after the error
    assert sim.failed and not sim.plugin.enabled
    assert sim.time_s == pytest.approx(0.208)  # the simulation went on
    sim.close()
    assert "cleanup" not in sim.plugin.file.namespace["events"]


def test_a_raising_collide_callback_disables_the_plugin_and_pairs_get_default_contacts(project, load, capsys):
    source = HEADER + """
    def webots_physics_init():
        pass
    def webots_physics_step():
        pass
    def webots_physics_collide(g1, g2):
        events.append(dWebotsGetTime())
        raise KeyError("collide")
    def webots_physics_cleanup():
        pass
    """
    sim = load(plugin_project(project, FLOOR + box("BOX", "0 0 0.05"), source))
    sim.run(0.5)
    err = capsys.readouterr().err
    assert "KeyError: 'collide'" in err and "webots_physics_collide()" in err
    assert sim.plugin.file.namespace["events"] == [0.0]  # the first pair of the first pass, then disabled
    assert sim.failed and not sim.plugin.enabled
    assert sim.robot("box").getSelf().getPosition()[2] == pytest.approx(0.05, abs=1e-3)  # still on the floor


def test_the_cli_exit_status_says_the_plugin_failed(project):
    source = HEADER + """
    def webots_physics_init():
        pass
    def webots_physics_step():
        raise RuntimeError("plugin failure")
    def webots_physics_cleanup():
        pass
    """
    path = plugin_project(project, box(), source)
    result = subprocess.run([sys.executable, "-m", "wbsim", "run", str(path), "--duration", "0.1", "--no-progress"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert "RuntimeError: plugin failure" in result.stderr


def test_missing_plugins_and_callbacks_give_webots_warnings(project, load):
    sim = load(project('WorldInfo { physics "ghost" }\n' + box()))
    text = "\n".join(sim.messages.recent)
    assert "Plugin 'ghost' not found. Search in:" in text and sim.plugin is None
    incomplete = HEADER + """
    def webots_physics_step():
        pass
    def webots_physics_draw(a, b):
        pass
    """
    sim = load(plugin_project(project, box(), incomplete, name="half"))
    text = "\n".join(sim.messages.recent)
    assert "Function webots_physics_init() missing in" in text and "Function webots_physics_cleanup() missing" in text
    assert "You need to implement this function to activate the 'half' plugin." in text
    assert sim.plugin is None


def test_utility_functions_need_a_running_plugin():
    from wbsim import physics_plugin

    with pytest.raises(PluginError, match="only be called from a physics plugin"):
        physics_plugin.dWebotsGetTime()


def test_two_simulations_of_one_world_keep_their_plugins_apart(project, load):
    source = HEADER + """
    count = 0
    body = None
    def webots_physics_init():
        global body
        body = dWebotsGetBodyFromDEF("BOX")
    def webots_physics_step():
        global count
        count += 1
        dBodyAddForce(body, 0, 0, 20.0 if count % 2 else 0.0)
    def webots_physics_cleanup():
        pass
    """
    path = plugin_project(project, FLOOR + box(), source)
    a, b = load(path), load(path)
    a.run(0.16)
    b.run(0.32)
    assert a.plugin.file.namespace["count"] == 10 and b.plugin.file.namespace["count"] == 20
    assert a.plugin.file.namespace is not b.plugin.file.namespace
    assert a.robot("box").getSelf().getPosition() != b.robot("box").getSelf().getPosition()


def test_a_plugin_imports_its_own_helper_modules_privately(project, load):
    source = HEADER + """
    import helper
    def webots_physics_init():
        events.append(helper.VALUE)
    def webots_physics_step():
        pass
    def webots_physics_cleanup():
        pass
    """
    path = project('WorldInfo { physics "plug" }\n' + box(), files={
        "plugins/physics/plug/plug.py": plugin_source(source),
        "plugins/physics/plug/helper.py": "VALUE = 42\n"})
    sim = load(path)
    assert sim.plugin.file.namespace["events"] == [42]
    assert "helper" not in sys.modules


def test_runs_with_a_plugin_are_bit_identical_for_a_seed_and_after_reset(project, load):
    source = friction_plugin("friction").replace(
        "def webots_physics_step():\n    pass",
        "def webots_physics_step():\n    dBodyAddForce(box_body, rand() / RAND_MAX, 0, 0)")
    path = plugin_project(project, FLOOR + box(extra="linearVelocity 1 0 0"), source)

    def trajectory(sim) -> np.ndarray:
        rows = []
        for _ in range(60):
            sim.step()
            rows.append(sim.data.qpos.copy())
        return np.array(rows)

    a = load(path, seed=3)
    first = trajectory(a)
    a.reset()
    assert np.array_equal(trajectory(a), first)
    assert np.array_equal(trajectory(load(path, seed=3)), first)


def test_random_draws_in_init_and_collide_repeat_after_a_reset(project, load):
    # Webots resets the seed after the reset's collision pass and before init: init draws again what it
    # drew at load, and the run goes on from the generator's state after load.
    source = friction_plugin("friction").replace(
        "def webots_physics_init():\n", "def webots_physics_init():\n    events.append(rand())\n").replace(
        "def webots_physics_collide(g1, g2):\n", "def webots_physics_collide(g1, g2):\n    dRandReal()\n").replace(
        "def webots_physics_step():\n    pass",
        "def webots_physics_step():\n    dBodyAddForce(box_body, rand() / RAND_MAX, 0, 0)")
    path = plugin_project(project, FLOOR + box(extra="linearVelocity 1 0 0"), source)

    def trajectory(sim) -> np.ndarray:
        rows = []
        for _ in range(40):
            sim.step()
            rows.append(sim.data.qpos.copy())
        return np.array(rows)

    sim = load(path, seed=5)
    first = trajectory(sim)
    sim.reset()
    assert np.array_equal(trajectory(sim), first)
    draws = sim.plugin.file.namespace["events"]
    assert len(draws) == 2 and draws[0] == draws[1]


def test_any_other_collide_value_on_a_space_makes_no_contact(project, load):
    # Webots' odeNearCallback: a value other than 0, 1, 2 does not recurse into a space, and it makes no
    # contacts for a pair with a space; for two plain geoms it means the default contacts.
    group = ('Group { children [ Pose { translation 0 0 -0.025 children [ Box { size 0.1 0.1 0.05 } ] } '
             'Pose { translation 0 0 0.025 children [ Box { size 0.1 0.1 0.05 } ] } ] }')
    robot = (f'DEF BOX Robot {{ translation 0 0 0.05 name "box" controller "<extern>" supervisor TRUE '
             f'boundingObject {group} physics Physics {{ density -1 mass 1 }} }}')
    sim = load(plugin_project(project, FLOOR + robot, friction_plugin("three")))
    sim.run(1.0)
    assert sim.robot("box").getSelf().getPosition()[2] < -1.0  # fell through
    sim = load(plugin_project(project, FLOOR + box(), friction_plugin("three"), name="plain"))
    sim.run(1.0)
    assert sim.robot("box").getSelf().getPosition()[2] == pytest.approx(0.05, abs=0.002)  # default contacts


@pytest.mark.parametrize("value", ["1", 2.0, None, [1]])
def test_a_collide_value_that_is_not_an_int_is_an_error(project, load, capsys, value):
    source = friction_plugin("default").replace("    if MODE in (\"default\", \"three\"):",
                                                f"    return {value!r}\n    if MODE in (\"default\", \"three\"):")
    sim = load(plugin_project(project, FLOOR + box(), source))
    sim.run(0.5)
    err = capsys.readouterr().err
    assert "webots_physics_collide() must return an int (0, 1 or 2)" in err and repr(value) in err
    assert sim.failed and not sim.plugin.enabled
    assert sim.robot("box").getSelf().getPosition()[2] == pytest.approx(0.05, abs=0.002)  # default contacts


def test_channel_0_keeps_nothing_without_a_running_plugin(project, load):
    controller = """
    from controller import Robot
    robot = Robot()
    emitter = robot.getDevice("emitter")
    while robot.step(16) != -1:
        emitter.send(bytes(1000))
    """
    world = 'Robot { name "talker" controller "talker" children [ Emitter { channel 0 } ] }'
    sim = load(project(world, controllers={"talker": controller}))
    sim.run(0.5)
    assert sim.plugin is None and sim.plugin_mailbox.receive() is None


def test_the_cli_exit_status_says_the_plugins_cleanup_failed(project):
    source = HEADER + """
    def webots_physics_init():
        pass
    def webots_physics_step():
        pass
    def webots_physics_cleanup():
        raise RuntimeError("cleanup failure")
    """
    path = plugin_project(project, box(), source)
    result = subprocess.run([sys.executable, "-m", "wbsim", "run", str(path), "--duration", "0.1", "--no-progress"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert "RuntimeError: cleanup failure" in result.stderr


def test_contact_joints_made_in_step_end_hold_for_two_steps(project, load):
    # Joints made after Webots' buffer swap go in the group emptied only after the next pass: a box on
    # the floor whose contacts are made in step_end every other step stays up (one step's joints carry
    # it through the step with none).
    source = HEADER + """
    floor = box = box_body = None
    count = 0
    def webots_physics_init():
        global floor, box, box_body
        floor, box = dWebotsGetGeomFromDEF("FLOOR"), dWebotsGetGeomFromDEF("BOX")
        box_body = dWebotsGetBodyFromDEF("BOX")
    def webots_physics_step():
        pass
    def webots_physics_collide(g1, g2):
        return 1 if {g1, g2} == {floor, box} else 0
    def webots_physics_step_end():
        global count
        count += 1
        if count % 2:
            return
        contacts = [dContact() for _ in range(4)]
        n = dCollide(box, floor, 4, contacts)
        for c in contacts[:n]:
            c.surface.mode = dContactSoftCFM
            c.surface.mu = 1.0
            c.surface.soft_cfm = 0.001
            dJointAttach(dJointCreateContact(dBodyGetWorld(box_body), dWebotsGetContactJointGroup(), c), box_body, None)
    def webots_physics_cleanup():
        pass
    """
    sim = load(plugin_project(project, FLOOR + box("BOX", "0 0 0.0495"), source, info="basicTimeStep 16 physicsDisableTime 0"))
    sim.run(1.0)
    assert sim.robot("box").getSelf().getPosition()[2] == pytest.approx(0.05, abs=0.003)


def test_a_negative_friction_in_a_plugin_contact_is_zero_as_in_ode(project, load):
    # ODE's contact joint clamps mu < 0 to 0 (only ContactProperties' -1 means infinite): the box slides on.
    source = friction_plugin("friction").replace("c.surface.mu = 0.1", "c.surface.mu = -1.0")
    sim = load(plugin_project(project, FLOOR + box(extra="linearVelocity 1 0 0"), source,
                              info="basicTimeStep 16 physicsDisableTime 0"))
    sim.run(0.5)
    position = sim.robot("box").getSelf().getPosition()
    assert position[0] == pytest.approx(sim.time_s, rel=0.01) and position[2] == pytest.approx(0.05, abs=0.002)  # 1 m/s on


def test_wrong_argument_types_raise_plugin_errors(project, load, capsys):
    calls = [
        'dBodyAddForce(box_body, "x", 0, 0)', 'dWebotsGetBodyFromDEF(5)', 'dBodySetRotation(box_body, [1.0] * 9)',
        'dJointGroupEmpty(None)', 'dBodyGetMass(box_body, 5)', 'dSpaceGetGeom(space, "0")', 'dRandInt("a")',
        'dBodyGetRelPointPos(box_body, 0, 0, 0, (0, 0, 0))', 'dWebotsSend(1, 5)', 'dWebotsConsolePrintf("%d %d", 1)',
    ]
    for i, call in enumerate(calls):
        source = HEADER + f"""
        from wbsim.errors import PluginError
        box_body = space = None
        def webots_physics_init():
            global box_body, space
            box_body = dWebotsGetBodyFromDEF("BOX")
            space = dWebotsGetGeomFromDEF("BOT")
        def webots_physics_step():
            try:
                {call}
            except PluginError as error:
                events.append(str(error))
        def webots_physics_cleanup():
            pass
        """
        bot = ('DEF BOT Solid { translation 2 0 0.05 name "bot" boundingObject Group { children [ '
               'Box { size 0.1 0.1 0.1 } ] } }')
        sim = load(plugin_project(project, FLOOR + box() + bot, source, name=f"p{i}"))
        sim.step()
        assert len(sim.plugin.file.namespace["events"]) == 1, (call, capsys.readouterr().err)
        assert not sim.failed


def test_console_printf_always_formats_as_printf(project, load, capsys):
    source = HEADER + """
    def webots_physics_init():
        dWebotsConsolePrintf("100%%\\n")
        dWebotsConsolePrintf("%d obstacles at %g m\\n", 3, 0.25)
    def webots_physics_step():
        pass
    def webots_physics_cleanup():
        pass
    """
    load(plugin_project(project, box(), source))
    assert capsys.readouterr().out.splitlines()[:2] == ["100%", "3 obstacles at 0.25 m"]


def test_a_plugin_name_too_long_for_the_file_system_is_not_found_not_a_crash(project, load):
    # Issue 15: Path.is_dir raised OSError (File name too long) from the plugin lookup.
    name = "p" * 3000
    sim = load(project(f'WorldInfo {{ physics "{name}" }}\n' + box()))
    assert sim.plugin is None
    assert f"Plugin '{name}' not found. Search in:" in "\n".join(sim.messages.recent)


def test_the_bounce_edit_inside_a_plugins_split_step_reads_mujocos_structs_as_numpy_does(project, load):
    """With contact joints the plugin's step runs the bounce threshold on MuJoCo's own contacts (here a box
    the plugin leaves to the default contacts, bouncing then resting): the compiled edit reading the mjData
    struct in place and the numpy edit give bit-identical runs."""
    from wbsim.sim.bounce import BounceThreshold

    other = ('DEF OTHER Solid { translation 0.5 0 0.3 name "other" boundingObject Box { size 0.1 0.1 0.1 } '
             'physics Physics { density -1 mass 1 } }')
    runs = []
    for compiled in (False, True):
        sim = load(plugin_project(project, FLOOR + box() + other, friction_plugin("friction"),
                                  name=f"p{compiled:d}", info="basicTimeStep 8 physicsDisableTime 0"))
        sim._bounce = BounceThreshold(sim.compiled.bounce, sim.model, compiled=compiled)
        sim.run(1.5)
        assert (sim._bounce._raw is not None) == compiled  # the struct reader ran in the split step
        runs.append(sim)
    body = runs[0].bindings.solid(runs[0].node("OTHER")).body_id
    assert runs[0].data.xpos[body, 2] == pytest.approx(0.05, abs=0.002)  # it fell and rests on the floor
    np.testing.assert_array_equal(runs[0].data.qpos, runs[1].data.qpos)
    np.testing.assert_array_equal(runs[0].data.qvel, runs[1].data.qvel)


def _settled_box_beside_the_plugins(project, load):  # noqa: ANN001, ANN202
    """The friction plugin's world with a second 1 kg box (DEF OTHER) resting 0.5 m from its box, awake
    (physicsDisableTime 0), after 1 s: settled on the floor."""
    other = ('DEF OTHER Solid { translation 0.5 0 0.049 name "other" boundingObject Box { size 0.1 0.1 0.1 } '
             'physics Physics { density -1 mass 1 } }')
    sim = load(plugin_project(project, FLOOR + box() + other, friction_plugin("friction"),
                              info="basicTimeStep 8 physicsDisableTime 0"))
    sim.run(1.0)
    return sim


def test_a_resting_contact_keeps_its_resting_friction_damping_when_the_plugin_rebuilds_the_rows(project, load,
                                                                                               monkeypatch):
    """The plugin's contact joints make the split step rebuild the constraint rows after the bounce threshold's
    edit; a box the plugin leaves to MuJoCo's contacts, resting and sticking on the floor, must still have the
    resting damping on its friction rows (its normal row's), as without a plugin (sim/bounce.py)."""
    sim = _settled_box_beside_the_plugins(project, load)
    body = sim.bindings.solid(sim.node("OTHER")).body_id
    seen = []
    real_step2 = mujoco.mj_step2

    def spy(model, data):  # noqa: ANN001, ANN202
        rows = [(int(c.efc_address), int(c.dim)) for c in (data.contact[i] for i in range(data.ncon))
                if body in (model.geom_bodyid[c.geom1], model.geom_bodyid[c.geom2]) and c.efc_address >= 0]
        seen.append([data.efc_KBIP[row: row + dim, 1].copy() for row, dim in rows])
        real_step2(model, data)

    monkeypatch.setattr(mujoco, "mj_step2", spy)
    sim.run(0.1)
    monkeypatch.undo()
    damping = [rows for step in seen for rows in step]
    assert len(damping) >= 4 * len(seen)  # the box's four corner contacts in every physics step
    for rows in damping:
        assert len(rows) == 3
        np.testing.assert_array_equal(rows[1:], rows[0])  # friction rows damped as the resting normal row


def test_the_rebuilt_rows_second_bounce_edit_leaves_the_plugins_contact_joints_alone(project, load, monkeypatch):
    """After the plugin's rows are rebuilt, the bounce threshold's second edit covers MuJoCo's own contacts only:
    the contact joints (a slow box resting on the floor, both of Webots' bouncy default surface) keep the solref
    of their own surface (the plugin's soft CFM 0.001, no bounce), not the geoms' resting solref."""
    sim = _settled_box_beside_the_plugins(project, load)
    box_body = sim.bindings.solid(sim.node("BOX")).body_id
    other_body = sim.bindings.solid(sim.node("OTHER")).body_id
    collisions = sim.plugin.collisions
    seen = []
    real_step2 = mujoco.mj_step2

    def spy(model, data):  # noqa: ANN001, ANN202
        bodies = [{int(model.geom_bodyid[c.geom1]), int(model.geom_bodyid[c.geom2])}
                  for c in (data.contact[i] for i in range(data.ncon))]
        joints = [c.solref.copy() for c in collisions._injected.contacts]  # noqa: SLF001  # as injected
        solref = [data.contact[i].solref.copy() for i in range(data.ncon) if box_body in bodies[i]]
        resting = [data.contact[i].solref.copy() for i in range(data.ncon) if other_body in bodies[i]]
        seen.append((joints, solref, resting))
        real_step2(model, data)

    monkeypatch.setattr(mujoco, "mj_step2", spy)
    sim.run(0.1)
    monkeypatch.undo()
    assert seen
    for joints, solref, resting in seen:
        assert len(joints) >= 4 and len(solref) == len(joints) and len(resting) >= 4
        np.testing.assert_array_equal(solref, joints)  # the plugin's surface, untouched
        assert not np.array_equal(resting[0], joints[0])  # the resting solref differs: the test can tell


def test_a_plugin_is_compiled_with_no_future_feature_of_wbsim(project, load):
    """The plugin file is compiled as Python would compile it on its own: no ``from __future__`` feature of
    wbsim's loader leaks into it (its annotations are evaluated, not strings)."""
    source = HEADER + """
    def typed(x: int) -> None:
        pass
    seen = typed.__annotations__["x"]
    def webots_physics_init():
        pass
    def webots_physics_step():
        pass
    def webots_physics_cleanup():
        pass
    """
    sim = load(plugin_project(project, box(), source))
    assert sim.plugin.file.namespace["seen"] is int
