"""TouchSensor physics against analytic values and Webots' own test numbers, through the Webots API.

Forces: a "force"/"force-3d" sensor reads the force its body transmits to its parent (Webots' fixed-joint
feedback), so at rest under a robot of mass m it reads m g, in free fall 0, and under an accelerating
robot m (g + a); its own weight is not in the reading. Bumpers read 1 after any contact of their
boundingObject since the last sample.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

G = 9.81

FLOOR = 'Solid { name "floor" boundingObject Plane { size 20 20 } }'


def _run_until(robot, seconds: float, step_ms: int = 16) -> None:
    while robot.getTime() < seconds - 1e-9:
        assert robot.step(step_ms) != -1


def _world(robot_children: str, *, info: str = "basicTimeStep 16", translation: str = "0 0 0.5",
           rotation: str = "0 0 1 0", mass: float | None = 100.0, extra: str = "", floor: str = FLOOR) -> str:
    """A world with a robot "bot" (a 0.2 m box of ``mass`` kg; static, without Physics, for None)."""
    physics = f"physics Physics {{ density -1 mass {mass} }}" if mass is not None else ""
    return f"""
WorldInfo {{ {info} }}
{floor}
DEF BOT Robot {{
  translation {translation}
  rotation {rotation}
  name "bot"
  controller "<extern>"
  children [ {robot_children} ]
  boundingObject Box {{ size 0.2 0.2 0.2 }}
  {physics}
}}
{extra}
"""


FOOT = """
TouchSensor {{
  translation 0 0 -0.12
  rotation 0 1 0 1.5707963267948966
  name "foot"
  type "{type}"
  {table}
  boundingObject Box {{ size 0.04 0.1 0.1 }}
  physics Physics {{ density -1 mass {mass} }}
}}
"""


def foot(type_: str = "force", table: str = "lookupTable []", mass: float = 1.0) -> str:
    """A sensor under the robot's 0.2 m box, x-axis pointing down to the floor (rotation about y by +90 deg)."""
    return FOOT.format(type=type_, table=table, mass=mass)


# -- bumpers -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("physics", ["physics Physics { density -1 mass 0.1 }", ""], ids=["with-physics", "no-physics"])
def test_bumper_reads_0_falling_1_landed_and_asleep_0_after_a_supervisor_lifts_it(project, load, physics):
    bumper = f'TouchSensor {{ translation 0 0 -0.11 name "bumper" boundingObject Box {{ size 0.1 0.1 0.02 }} {physics} }}'
    lifter = 'Robot { name "lifter" controller "<extern>" supervisor TRUE }'
    sim = load(project(_world(bumper, extra=lifter)))
    bot, lifter = sim.robot("bot"), sim.robot("lifter")
    sensor = bot.getDevice("bumper")
    sensor.enable(16)
    readings = []
    while bot.getTime() < 0.26:  # still falling from 0.5 m (lands after 0.278 s)
        bot.step(16)
        readings.append(sensor.getValue())
    assert readings == [0.0] * len(readings)
    _run_until(bot, 2.0)  # with Webots' default bounce (0.5) it hops until ~1 s
    assert sensor.getValue() == 1.0
    _run_until(bot, 11.0)
    tree = sim.model.body_treeid[sim.bindings.robots[0].solid.body_id]
    assert sim.data.tree_asleep[tree] >= 0, "the resting robot should be asleep by now"
    assert sim.data.ncon == 0, "MuJoCo drops a sleeping tree's contacts"
    assert sensor.getValue() == 1.0  # still resting on its bumper
    lifter.getFromDef("BOT").getField("translation").setSFVec3f([0.0, 0.0, 1.0])
    bot.step(16)
    assert sensor.getValue() == 0.0
    bot.step(16)
    assert sensor.getValue() == 0.0


def test_bumper_ignores_its_own_robot_unless_self_collision(project, load):
    # A static robot's bumper overlaps the robot's own arm (a separate body on a hinge): that is a touch only
    # with selfCollision TRUE. (A bumper cannot touch the body it is fixed to, in Webots as here.)
    children = """
    TouchSensor { translation 0.3 0 0.3 name "bumper" boundingObject Box { size 0.1 0.1 0.1 } }
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 1 0 anchor 0.3 0 0.5 }
      endPoint Solid { translation 0.3 0 0.36 name "arm" boundingObject Box { size 0.05 0.05 0.05 } physics Physics { } }
    }
    """
    for self_collision, expected in (("FALSE", 0.0), ("TRUE", 1.0)):
        world = _world(children, translation="0 0 0", mass=None).replace(
            'controller "<extern>"', f'controller "<extern>" selfCollision {self_collision}')
        sim = load(project(world))
        bot = sim.robot("bot")
        sensor = bot.getDevice("bumper")
        sensor.enable(16)
        bot.step(16)
        assert sensor.getValue() == expected, self_collision


def test_bumper_detects_static_and_dynamic_solids(project, load):
    # The robot rests on the floor (a static Plane) on its "bottom" bumper, its "side" bumper against a static
    # wall (a Box), and a dynamic box falls onto its "roof" bumper after ~0.32 s.
    children = """
    TouchSensor { translation 0 0 -0.11 name "bottom" boundingObject Box { size 0.18 0.18 0.02 } }
    TouchSensor { translation 0.11 0 0 name "side" boundingObject Box { size 0.02 0.18 0.18 } }
    TouchSensor { translation 0 0 0.11 name "roof" boundingObject Box { size 0.18 0.18 0.02 } }
    """
    extra = """
    Solid { translation 0.169 0 0.12 name "wall" boundingObject Box { size 0.1 2 0.2 } }
    Solid { translation 0 0 0.8 name "box" boundingObject Box { size 0.1 0.1 0.1 } physics Physics { } }
    """
    sim = load(project(_world(children, translation="0 0 0.12", mass=1, extra=extra)))
    bot = sim.robot("bot")
    sensors = {name: bot.getDevice(name) for name in ("bottom", "side", "roof")}
    for sensor in sensors.values():
        sensor.enable(16)
    bot.step(16)
    # (The initial overlap then pushes the robot off the wall: only the first sample is about the wall.)
    assert {n: s.getValue() for n, s in sensors.items()} == {"bottom": 1.0, "side": 1.0, "roof": 0.0}
    first_roof_touch = None
    while bot.step(16) != -1 and bot.getTime() < 1.0:
        if first_roof_touch is None and sensors["roof"].getValue() == 1.0:
            first_roof_touch = bot.getTime()
    # The box bottom (0.75 m) falls onto the roof bumper's top (0.24 m).
    assert first_roof_touch == pytest.approx(math.sqrt(2 * (0.75 - 0.24) / G), abs=0.02)
    assert sensors["bottom"].getValue() == 1.0


@pytest.mark.parametrize("basic_ms", [4, 16])
def test_bumper_reports_a_touch_in_the_step_it_happens(project, load, basic_ms):
    # A box falls from 0.3 m onto a static bumper: the touch is reported at the end of the basic step in which
    # MuJoCo first sees it, at most one physics step (4 ms) after the geometries meet.
    children = 'TouchSensor { translation 0 0 0.11 name "pad" boundingObject Box { size 0.3 0.3 0.02 } }'
    extra = 'Solid { translation 0 0 0.47 name "box" boundingObject Box { size 0.1 0.1 0.1 } physics Physics { } }'
    sim = load(project(_world(children, info=f"basicTimeStep {basic_ms}", translation="0 0 0", mass=None,
                              extra=extra, floor="")))
    bot = sim.robot("bot")
    pad = bot.getDevice("pad")
    pad.enable(basic_ms)
    touch = math.sqrt(2 * (0.42 - 0.12) / G)  # the box bottom (0.42 m) reaches the pad top (0.12 m)
    while pad.getValue() != 1.0:
        assert bot.step(basic_ms) != -1 and bot.getTime() < 1.0
    assert touch <= bot.getTime() <= touch + basic_ms / 1000 + 0.004 + 1e-9


def test_every_short_bounce_inside_long_basic_steps_is_reported(project, load):
    # basicTimeStep 64 is 16 MuJoCo steps: a bounce of a few ms starts and ends inside one basic step, yet in
    # Webots every contact that acts exists at a step boundary; wbsim watches every MuJoCo step.
    children = 'TouchSensor { translation 0 0 0.05 name "pad" boundingObject Box { size 0.4 0.4 0.1 } }'
    info = "basicTimeStep 64 contactProperties [ ContactProperties { bounce 0.9 } ]"
    extra = ('DEF BALL Solid { translation 0 0 0.6 name "ball" boundingObject Sphere { radius 0.02 } '
             "physics Physics { density -1 mass 0.1 } }")
    sim = load(project(_world(children, info=info, translation="0 0 0", mass=None, extra=extra, floor="")))
    bot = sim.robot("bot")
    pad = bot.getDevice("pad")
    pad.enable(64)
    ball = sim.bindings.solid(sim.node("BALL"))
    dof = sim.model.jnt_dofadr[ball.free_joint_id] + 2
    falling, bounces, reported = True, 0, 0
    for _ in range(60):  # 3.84 s
        bot.step(64)
        rising = sim.data.qvel[dof] > 0
        if falling and rising:  # the ball bounced during this basic step
            bounces += 1
            reported += pad.getValue() == 1.0
        falling = not rising
    assert bounces >= 6 and reported == bounces


def test_a_bumpers_own_child_solid_does_not_trigger_it_and_two_robots_bump_each_other(project, load):
    # The bumper (on a post above the robot's side) carries a child Solid, a leg standing on the floor: only the
    # bumper's own boundingObject counts. A second robot's bumper presses on the first robot's body.
    children = """
    TouchSensor {
      translation 0.3 0 0.2 name "bumper" boundingObject Box { size 0.1 0.1 0.1 } physics Physics { density -1 mass 0.1 }
      children [ DEF LEG Solid { translation 0 0 -0.2 name "leg" boundingObject Box { size 0.05 0.05 0.2 } physics Physics { } } ]
    }"""
    other = """
    Robot {
      translation -0.2 0 0.1 name "other" controller "<extern>"
      children [ TouchSensor { translation 0.11 0 0 name "front" boundingObject Box { size 0.03 0.1 0.1 } } ]
      boundingObject Box { size 0.2 0.2 0.2 } physics Physics { density -1 mass 1 }
    }"""
    info = "basicTimeStep 16 physicsDisableTime 0"
    sim = load(project(_world(children, info=info, translation="0 0 0.1", mass=1.0, extra=other)))
    bot, second = sim.robot("bot"), sim.robot("other")
    bumper, front = bot.getDevice("bumper"), second.getDevice("front")
    bumper.enable(16)
    front.enable(16)
    bot.step(16)
    assert front.getValue() == 1.0  # touches the first robot's box
    _run_until(bot, 0.5)
    leg = sim.bindings.solid(sim.node("LEG")).geom_ids[0]
    floor = sim.bindings.solids[0].geom_ids[0]
    pairs = {frozenset(map(int, g)) for g in sim.data.contact.geom}
    assert frozenset((leg, floor)) in pairs  # the leg stands on the floor
    assert bumper.getValue() == 0.0


def test_bumper_latches_contacts_between_samples_and_while_disabled(project, load):
    # A ball bounces on a bumper plate: each touch lasts a few ms, far shorter than the 240 ms period.
    children = 'TouchSensor { translation 0 0 0.11 name "plate" boundingObject Box { size 0.2 0.2 0.02 } }'
    info = "basicTimeStep 8 contactProperties [ ContactProperties { bounce 0.9 } ]"
    extra = 'DEF BALL Solid { translation 0 0 0.6 name "ball" boundingObject Sphere { radius 0.03 } physics Physics { } }'
    sim = load(project(_world(children, info=info, translation="0 0 0", mass=None, extra=extra, floor="")))
    bot = sim.robot("bot")
    plate = bot.getDevice("plate")
    ball = sim.bindings.solid(sim.node("BALL"))
    plate.enable(240)  # samples at 0.24, 0.48, 0.72, 0.96 s; bounces touch at 0.312-0.328 and 0.888-0.904 s
    touching_steps, samples = 0, []
    while bot.getTime() < 0.96 - 1e-9:
        bot.step(8)
        touching_steps += bool(sim.banks["touch_sensor"].touching[plate._core.index])
        samples.append(plate.getValue())
    assert 0 < touching_steps <= 8, "each of the two bounces should touch the plate for a few steps only"
    assert samples[29::30] == [0.0, 1.0, 0.0, 1.0]  # each bounce is latched until the next sample
    assert sim.data.xpos[ball.body_id][2] > 0.2  # the ball bounced back up
    # While disabled the latch is kept: the next sample after enabling reports the old touch.
    plate.disable()
    _run_until(bot, 1.6, 8)  # the ball bounces again at ~1.42 s
    plate.enable(8)
    bot.step(8)
    assert plate.getValue() == 1.0
    bot.step(8)
    assert plate.getValue() == 0.0


def test_static_bumper_keeps_reading_a_box_asleep_on_it(project, load):
    # A bumper on a static robot (no Physics anywhere): a box lands on it and would fall asleep.
    children = 'TouchSensor { translation 0 0 0.11 name "pad" boundingObject Box { size 0.3 0.3 0.02 } }'
    extra = 'DEF BOX Solid { translation 0 0 0.4 name "box" boundingObject Box { size 0.1 0.1 0.1 } physics Physics { } }'
    sim = load(project(_world(children, translation="0 0 0", mass=None, extra=extra, floor="")))
    bot = sim.robot("bot")
    pad = bot.getDevice("pad")
    pad.enable(16)
    _run_until(bot, 12.0)
    assert pad.getValue() == 1.0
    box = sim.bindings.solid(sim.node("BOX"))
    assert sim.data.xpos[box.body_id][2] == pytest.approx(0.17, abs=2e-3)  # resting on the pad


def test_static_sensors_carrying_a_jointed_part_keep_reading_a_box_asleep_on_them(project, load):
    # A static bumper pad and a static force-3d plate, each with a pendulum hanging below it on a hinge.
    pendulum = """
    HingeJoint {
      jointParameters HingeJointParameters { axis 1 0 0 anchor 0 0 -0.5 }
      endPoint Solid { translation 0 0 -0.5 name "bob" boundingObject Sphere { radius 0.02 } physics Physics { density -1 mass 0.1 } }
    }"""
    children = f"""
    TouchSensor {{ translation 1 0 0.6 name "pad" boundingObject Box {{ size 0.4 0.4 0.1 }} children [ {pendulum} ] }}
    TouchSensor {{ translation -1 0 0.6 name "plate" type "force-3d" lookupTable [] boundingObject Box {{ size 0.4 0.4 0.1 }}
                   physics Physics {{ density -1 mass 2 }} children [ {pendulum} ] }}"""
    extra = """
    DEF BOX Solid { translation 1 0 0.9 name "box" boundingObject Box { size 0.1 0.1 0.1 } physics Physics { density -1 mass 5 } }
    Solid { translation -1 0 0.9 name "box 2" boundingObject Box { size 0.1 0.1 0.1 } physics Physics { density -1 mass 5 } }
    """
    sim = load(project(_world(children, translation="0 0 0", mass=None, extra=extra, floor="")))
    bot = sim.robot("bot")
    pad, plate = bot.getDevice("pad"), bot.getDevice("plate")
    pad.enable(16)
    plate.enable(16)
    _run_until(bot, 12.0)
    box = sim.bindings.solid(sim.node("BOX"))
    assert sim.data.xpos[box.body_id][2] == pytest.approx(0.7, abs=2e-3)  # resting on the pad
    assert pad.getValue() == 1.0
    # Box, plate and pendulum bob all hang on the plate's joint to the world: (5 + 2 + 0.1) g, upward.
    np.testing.assert_allclose(plate.getValues(), [0.0, 0.0, 7.1 * G], atol=7.1 * G * 1e-3)


# -- force sensors -----------------------------------------------------------------------------------------------
def test_force_sensor_reads_zero_in_free_fall_and_m_g_at_rest_also_ten_seconds_later(project, load):
    sim = load(project(_world(foot("force"))))
    bot = sim.robot("bot")
    sensor = bot.getDevice("foot")
    assert math.isnan(sensor.getValue())  # before the first sample (with Webots' disabled-device error)
    sensor.enable(16)
    while bot.getTime() < 0.2:  # falling: lands after ~0.27 s
        bot.step(16)
        assert sensor.getValue() == pytest.approx(0.0, abs=1e-3)
    _run_until(bot, 2.0)
    assert sensor.getValue() == pytest.approx(100 * G, rel=1e-3)
    _run_until(bot, 12.0)
    assert sensor.getValue() == pytest.approx(100 * G, rel=1e-3)


def test_default_lookup_table_reports_tenths_of_a_newton(project, load):
    sim = load(project(_world(foot("force", table=""))))
    bot = sim.robot("bot")
    sensor = bot.getDevice("foot")
    assert sensor.getLookupTable() == [0.0, 0.0, 0.0, 5000.0, 50000.0, 0.0]
    sensor.enable(16)
    _run_until(bot, 2.0)
    assert sensor.getValue() == pytest.approx(9810.0, rel=1e-3)


def test_force_sensor_excludes_its_own_weight(project, load):
    sim = load(project(_world(foot("force", mass=30.0), mass=10.0)))
    bot = sim.robot("bot")
    sensor = bot.getDevice("foot")
    sensor.enable(16)
    _run_until(bot, 2.0)
    assert sensor.getValue() == pytest.approx(10 * G, rel=1e-3)  # not (10 + 30) g


def test_force_sensor_shows_inertial_loads_on_an_accelerating_lift(project, load):
    # A platform on a vertical slider accelerates upward at 2 m/s^2; a 10 kg robot rests on it on its sensor.
    lift = """
    Robot {
      name "lift"
      controller "<extern>"
      children [
        SliderJoint {
          jointParameters JointParameters { axis 0 0 1 }
          device [ LinearMotor { name "lift motor" maxVelocity 5 maxForce 10000 acceleration 2 } ]
          endPoint Solid {
            translation 0 0 0.05
            name "platform"
            boundingObject Box { size 1 1 0.1 }
            physics Physics { density -1 mass 50 }
          }
        }
      ]
    }
    """
    sim = load(project(_world(foot("force"), translation="0 0 0.24", mass=10.0, extra=lift, floor="")))
    bot, lift_robot = sim.robot("bot"), sim.robot("lift")
    sensor = bot.getDevice("foot")
    sensor.enable(16)
    _run_until(bot, 1.0)
    assert sensor.getValue() == pytest.approx(10 * G, rel=1e-3)
    motor = lift_robot.getDevice("lift motor")
    motor.setPosition(math.inf)
    motor.setVelocity(1.0)  # ramps at 2 m/s^2 for 0.5 s
    _run_until(bot, 1.2)
    assert sensor.getValue() == pytest.approx(10 * (G + 2.0), rel=5e-3)
    _run_until(bot, 2.0)  # constant velocity again
    assert sensor.getValue() == pytest.approx(10 * G, rel=5e-3)


def _rotation_matrix(axis: np.ndarray, angle: float) -> np.ndarray:
    axis = axis / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


def test_force3d_reads_the_weight_vector_in_a_rotated_sensor_frame(project, load):
    # A thin disk-like sensor pad under the robot, turned about a skew axis: the force on the robot
    # (up, m g) appears rotated into the sensor frame: R^T (0, 0, m g).
    axis, angle = np.array([0.3, -0.5, 1.0]), 0.9
    pad = f"""
    TouchSensor {{
      translation 0 0 -0.13 rotation {axis[0]} {axis[1]} {axis[2]} {angle} name "pad" type "force-3d"
      lookupTable [] boundingObject Sphere {{ radius 0.03 }} physics Physics {{ density -1 mass 0.5 }}
    }}"""
    sim = load(project(_world(pad, translation="0 0 0.3", mass=20.0)))
    bot = sim.robot("bot")
    sensor = bot.getDevice("pad")
    sensor.enable(16)
    _run_until(bot, 3.0)
    expected = _rotation_matrix(axis, angle).T @ np.array([0.0, 0.0, 20 * G])
    np.testing.assert_allclose(sensor.getValues(), expected, atol=20 * G * 1e-3)


@pytest.mark.parametrize("type_", ["force", "force-3d"])
def test_enu_and_nue_worlds_read_the_same(project, load, type_):
    # The same robot and sensor, with gravity along -z (ENU) and along -y (NUE): the robot is turned so
    # that its own z-axis points up in both worlds.
    readings = []
    for system, rotation in (("ENU", "0 0 1 0"), ("NUE", "1 0 0 -1.5707963267948966")):
        translation = "0 0 0.5" if system == "ENU" else "0 0.5 0"
        info = f'basicTimeStep 16 coordinateSystem "{system}"'
        sim = load(project(_world(foot(type_), info=info, translation=translation, rotation=rotation,
                                  floor=FLOOR if system == "ENU" else
                                  'Solid { rotation 1 0 0 -1.5707963267948966 name "floor" boundingObject Plane { size 20 20 } }')))
        bot = sim.robot("bot")
        sensor = bot.getDevice("foot")
        sensor.enable(16)
        # At rest: the 100 kg robot lands on bouncy contacts and still rocks slightly at 2 s (tangential
        # readings of 1-2 N with the elliptic friction cone); by 3 s its speeds are below 1e-5 m/s.
        _run_until(bot, 3.0)
        readings.append(sensor.getValue() if type_ == "force" else sensor.getValues())
    np.testing.assert_allclose(readings[0], readings[1], atol=100 * G * 1e-4)
    if type_ == "force-3d":
        np.testing.assert_allclose(readings[0], [-100 * G, 0.0, 0.0], atol=100 * G * 1e-3)  # x points down


def test_webots_force3d_test_world_golden_values(project, load):
    # Webots' tests/api touch_sensor_force3d: in a y-up world, a force-3d sensor rotated 90 deg about x under a
    # 1 kg robot reads (0, 0, 0) in free fall (after 5 steps) and (0, 0, -9.81) +- 0.1 on the floor.
    world = """
    WorldInfo { basicTimeStep 16 coordinateSystem "NUE" }
    Solid { rotation 1 0 0 -1.5707963267948966 name "floor" boundingObject Plane { size 10 10 } }
    Robot {
      translation 0 0.2 0
      name "robot"
      controller "<extern>"
      children [
        TouchSensor {
          translation 0 -0.06 0
          rotation 1 0 0 1.5707963267948966
          name "touch sensor"
          type "force-3d"
          lookupTable []
          boundingObject Box { size 0.1 0.1 0.02 }
          physics Physics { density -1 mass 0.1 }
        }
      ]
      boundingObject Box { size 0.1 0.1 0.1 }
      physics Physics { density -1 mass 1 }
    }
    """
    sim = load(project(world))
    robot = sim.robot("robot")
    sensor = robot.getDevice("touch sensor")
    sensor.enable(16)
    for _ in range(5):
        robot.step(16)
    np.testing.assert_allclose(sensor.getValues(), [0.0, 0.0, 0.0], atol=1e-4)
    for _ in range(100):
        robot.step(16)
    np.testing.assert_allclose(sensor.getValues(), [0.0, 0.0, -9.81], atol=0.1)


def test_force_sensor_on_a_static_parent_reads_like_webots(project, load):
    # A force plate on a static robot: ODE makes the sensor the fixed joint's first body, so Webots reads the
    # force the world applies to the sensor: plate and box weights, upward, in the sensor frame; a "force"
    # sensor therefore reads 0 for a push. The box resting on the plate is kept awake: the value stays.
    children = """
    TouchSensor { translation 1 0 0.05 name "plate3d" type "force-3d" lookupTable []
                  boundingObject Box { size 0.4 0.4 0.1 } physics Physics { density -1 mass 2 } }
    TouchSensor { translation 2 0 0.05 rotation 0 1 0 -1.5707963267948966 name "plate1d" type "force"
                  lookupTable [] boundingObject Box { size 0.1 0.4 0.4 } physics Physics { density -1 mass 2 } }
    """
    extra = """
    DEF BOX Solid { translation 1 0 0.3 name "box" boundingObject Box { size 0.1 0.1 0.1 } physics Physics { density -1 mass 5 } }
    Solid { translation 2 0 0.3 name "box 2" boundingObject Box { size 0.1 0.1 0.1 } physics Physics { density -1 mass 5 } }
    """
    sim = load(project(_world(children, translation="0 0 0", mass=None, extra=extra, floor="")))
    bot = sim.robot("bot")
    plate3d, plate1d = bot.getDevice("plate3d"), bot.getDevice("plate1d")
    plate3d.enable(16)
    plate1d.enable(16)
    _run_until(bot, 2.0)
    np.testing.assert_allclose(plate3d.getValues(), [0.0, 0.0, 7 * G], atol=7 * G * 1e-3)
    assert plate1d.getValue() == 0.0
    _run_until(bot, 12.0)
    box = sim.bindings.solid(sim.node("BOX"))
    assert sim.data.tree_asleep[sim.model.body_treeid[box.body_id]] < 0  # kept awake by the sensor
    np.testing.assert_allclose(plate3d.getValues(), [0.0, 0.0, 7 * G], atol=7 * G * 1e-3)


def test_force_sensor_carries_its_child_solids(project, load):
    # A "scale" force sensor on the robot's roof (x-axis up) carrying a 2 kg payload Solid merged into it:
    # it reads the payload and its own weight pressing on the robot; the robot's sensor under it reads everything.
    children = f"""
    TouchSensor {{
      translation 0 0 0.11 rotation 0 1 0 -1.5707963267948966 name "scale" type "force" lookupTable []
      boundingObject Box {{ size 0.02 0.1 0.1 }} physics Physics {{ density -1 mass 0.5 }}
      children [ Solid {{ translation 0.06 0 0 name "payload" boundingObject Box {{ size 0.1 0.1 0.1 }}
                          physics Physics {{ density -1 mass 2 }} }} ]
    }}
    {foot("force")}"""
    sim = load(project(_world(children, mass=10.0)))
    bot = sim.robot("bot")
    scale, foot_sensor = bot.getDevice("scale"), bot.getDevice("foot")
    scale.enable(16)
    foot_sensor.enable(16)
    _run_until(bot, 2.0)
    assert scale.getValue() == pytest.approx(2.5 * G, rel=1e-3)
    assert foot_sensor.getValue() == pytest.approx(12.5 * G, rel=1e-3)


def test_simulation_reset_bumper_sees_the_contacts_of_the_initial_state(project, load):
    """Webots runs a collision pass right after a world reset (``WbSimulationWorld::reset``:
    ``handleInitialCollisions``), whose contacts set the bumpers' flags: a bumper touching the floor in the
    initial state reads 1 in the reset step, although it was in the air (and sampled 0) before the reset."""
    bumper = 'TouchSensor { translation 0 0 -0.11 name "bumper" boundingObject Box { size 0.1 0.1 0.02 } }'
    boss = 'Robot { name "boss" controller "<extern>" supervisor TRUE }'
    sim = load(project(_world(bumper, translation="0 0 0.119", extra=boss)))
    bot, boss = sim.robot("bot"), sim.robot("boss")
    sensor = bot.getDevice("bumper")
    sensor.enable(16)
    bot.step(16)
    assert sensor.getValue() == 1.0  # resting on its bumper
    boss.getFromDef("BOT").getField("translation").setSFVec3f([0.0, 0.0, 2.0])
    for _ in range(3):
        bot.step(16)
        assert sensor.getValue() == 0.0  # falling from 2 m
    boss.simulationReset()
    bot.step(16)  # the reset step
    assert sim.data.qpos[2] == pytest.approx(0.119)
    assert sensor.getValue() == 1.0


def test_simulation_reset_keeps_sensors_enabled_and_the_latch_as_webots(project, load):
    # Webots' simulationReset: sensors stay enabled and sample in the reset step (which ends at one basic step
    # with the initial state); a bumper's latch survives (WbTouchSensor keeps mIsTouching): the robot landed on
    # its bottom bumper before the reset, and the first sample after it, with the robot back in the air, still
    # reports that touch.
    children = f'{foot("force")} TouchSensor {{ translation 0.06 0 -0.12 name "bottom" boundingObject Box {{ size 0.04 0.04 0.04 }} }}'
    extra = 'Robot { name "boss" controller "<extern>" supervisor TRUE }'
    sim = load(project(_world(children, extra=extra)))
    bot, boss = sim.robot("bot"), sim.robot("boss")
    force, bottom = bot.getDevice("foot"), bot.getDevice("bottom")
    force.enable(16)
    bottom.enable(2000)
    _run_until(bot, 1.6)  # landed at ~0.28 s, hopped until ~1 s: latched, not yet sampled
    assert math.isnan(bottom.getValue())
    resting = force.getValue()  # the bottom bumper carries part of the weight too
    assert 0.3 * 100 * G < resting < 100 * G
    boss.simulationReset()
    bot.step(16)  # the reset happens at the end of this step, which ends at t = 16 ms; both sample then
    assert sim.time_s == pytest.approx(0.016)
    assert bottom.getSamplingPeriod() == 2000 and force.getSamplingPeriod() == 16
    assert sim.data.qpos[2] > 0.45  # back in the air
    # The force sensor's fixed joint survives the reset with the feedback of the last physics step before it.
    # (one basic step after `resting` was read: the robot still settles by a few tenths of a percent then)
    assert bottom.getValue() == 1.0 and force.getValue() == pytest.approx(resting, rel=1e-2)
    bot.step(16)
    assert bottom.getValue() == 1.0 and force.getValue() == pytest.approx(0.0, abs=1e-3)
    _run_until(bot, 1.616)  # the clock is one basic step ahead of the replayed motion since the reset
    assert force.getValue() == pytest.approx(resting, rel=1e-3)  # the same landing again


def test_force_sensors_without_fixed_joint_read_lookup_table_of_zero(project, load):
    # Webots: no Physics, a joint endPoint or a top-level TouchSensor has no fixed-joint feedback.
    table = "lookupTable [ -10 3 0, 10 7 0 ]"
    children = f"""
    TouchSensor {{ translation 0 0 -0.12 name "no physics" type "force" {table} boundingObject Box {{ size 0.05 0.05 0.05 }} }}
    HingeJoint {{
      endPoint TouchSensor {{ translation 0 0.2 0 name "end point" type "force-3d" {table} resolution 2
                              boundingObject Box {{ size 0.05 0.05 0.05 }} physics Physics {{ }} }}
    }}"""
    sim = load(project(_world(children)))
    bot = sim.robot("bot")
    no_physics, end_point = bot.getDevice("no physics"), bot.getDevice("end point")
    no_physics.enable(16)
    end_point.enable(16)
    _run_until(bot, 1.0)
    assert no_physics.getValue() == 5.0
    assert end_point.getValues() == [5.0, 5.0, 5.0]  # no resolution either (Webots returns before it)


# -- lookup table, noise, resolution -------------------------------------------------------------------------
def test_lookup_table_interpolates_clamps_and_may_decrease(project, load):
    # Two sensors carry half the robot each (490.5 N): inside a decreasing table, and beyond its last input.
    tables = {"mid": "lookupTable [ 0 30 0, 900 20 0, 1000 10 0 ]", "high": "lookupTable [ 0 30 0, 400 0 0 ]"}
    children = "".join(foot("force", table=t).replace('"foot"', f'"{n}"').replace("0 0 -0.12", f"{x} 0 -0.12")
                       for (n, t), x in zip(tables.items(), (-0.06, 0.06)))
    sim = load(project(_world(children)))
    bot = sim.robot("bot")
    sensors = {name: bot.getDevice(name) for name in tables}
    for sensor in sensors.values():
        sensor.enable(16)
    _run_until(bot, 2.0)
    # Each sensor carries half the robot: 490.5 N.
    assert sensors["mid"].getValue() == pytest.approx(30 - 490.5 / 900 * 10, rel=1e-3)
    assert sensors["high"].getValue() == 0.0


def test_noise_is_relative_gaussian_seeded_and_replayed_after_reset(project, load):
    table = "lookupTable [ 0 0 0.05, 2000 2000 0.05 ]"
    sim = load(project(_world(foot("force", table=table))))
    bot = sim.robot("bot")
    sensor = bot.getDevice("foot")
    sensor.enable(16)
    _run_until(bot, 2.0)

    def collect(count: int) -> np.ndarray:
        values = []
        for _ in range(count):
            bot.step(16)
            values.append(sensor.getValue())
        return np.array(values)

    first = collect(3000)
    assert first.mean() == pytest.approx(100 * G, rel=3e-3)
    assert first.std() == pytest.approx(0.05 * 100 * G, rel=0.1)
    sim.reset()
    bot = sim.robot("bot")
    sensor = bot.getDevice("foot")
    sensor.enable(16)
    _run_until(bot, 2.0)
    np.testing.assert_array_equal(collect(3000), first)  # the same seed replays the same noise


def test_same_seed_same_noise_and_other_seed_other_noise(project, load):
    table = "lookupTable [ 0 0 0.05, 2000 2000 0.05 ]"
    path = project(_world(foot("force", table=table)))

    def readings(seed: int) -> list[float]:
        sim = load(path, seed=seed)
        bot = sim.robot("bot")
        sensor = bot.getDevice("foot")
        sensor.enable(16)
        out = []
        for _ in range(200):
            bot.step(16)
            out.append(sensor.getValue())
        return out

    assert readings(5) == readings(5)
    assert readings(5) != readings(6)


def test_resolution_rounds_like_webots_after_the_table(project, load):
    # force-3d under a 100 kg robot, x down: f1 = (-981, 0, 0); resolution 100 -> (int)(-9.81 + 0.5) * 100 = -900.
    sim = load(project(_world(foot("force-3d", table="lookupTable [] resolution 100"))))
    bot = sim.robot("bot")
    sensor = bot.getDevice("foot")
    sensor.enable(16)
    _run_until(bot, 2.0)
    assert sensor.getValues() == [-900.0, 0.0, 0.0]
