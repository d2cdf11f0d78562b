"""Webots' DistanceSensor and LED samples (projects/samples/devices: distance_sensor, led), as local worlds.

The worlds and controllers here are wbsim's own, built like the samples without Webots' PROTOs: a small
two-wheeled robot in a 1 m arena with four boxes (and a lying cylinder), eight generic distance sensors
around its body (1 ray, 8 cm range, Webots' noisy table) driving a Braitenberg controller; and the same
robot with two 2-ray sensors in front and three LEDs on top (9 colours; monochrome gradual; RGB gradual).
The tests check what the samples' documentation says: the robot avoids the obstacles (it wanders the
arena without ever touching a box or a wall); the LEDs' materials and lights take the colours set, and the
colour choices are printed.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

ARENA = """
WorldInfo { basicTimeStep 16 randomSeed 7 }
Solid { name "floor" boundingObject Plane { size 1 1 } }
Solid { translation 0.505 0 0.05 name "east wall" boundingObject DEF WALL_X Box { size 0.01 1.02 0.1 } }
Solid { translation -0.505 0 0.05 name "west wall" boundingObject USE WALL_X }
Solid { translation 0 0.505 0.05 name "north wall" boundingObject DEF WALL_Y Box { size 1.02 0.01 0.1 } }
Solid { translation 0 -0.505 0.05 name "south wall" boundingObject USE WALL_Y }
Solid { translation 0.25 0.05 0.05 name "green box"
        children [ Shape { appearance PBRAppearance { baseColor 0 1 0 } geometry DEF B0 Box { size 0.1 0.23 0.1 } } ]
        boundingObject USE B0 }
Solid { translation -0.27 -0.2 0.05 rotation 0 0 1 0.31 name "blue box" boundingObject Box { size 0.1 0.1 0.1 } }
Solid { translation -0.15 0.2 0.05 rotation 0 0 1 0.4 name "yellow box" boundingObject Box { size 0.3 0.05 0.1 } }
Solid { translation 0.1 -0.42 0.05 name "red box" boundingObject Box { size 0.08 0.15 0.1 } }
Solid { translation -0.12 -0.42 0.05 rotation 1 0 0 1.5707963267948966 name "violet cylinder"
        boundingObject Cylinder { radius 0.05 height 0.1 } }
"""

WHEEL = """
HingeJoint {{
  jointParameters HingeJointParameters {{ axis 0 1 0 anchor 0 {y} 0.025 }}
  device [ RotationalMotor {{ name "{side} wheel motor" }} PositionSensor {{ name "{side} wheel sensor" }} ]
  endPoint Solid {{
    translation 0 {y} 0.025 rotation 1 0 0 1.5707963267948966 name "{side} wheel"
    boundingObject Cylinder {{ radius 0.025 height 0.01 }}
    physics Physics {{ density -1 mass 0.05 }}
  }}
}}
"""

SENSOR_TABLE = "lookupTable [ 0 1024 0, 0.02 1024 0.1, 0.08 0 0.3 ]"


def _robot(devices: str, controller: str, translation: str = "0 -0.15 0", heading: float = 1.0) -> str:
    return f"""
DEF MYBOT Robot {{
  translation {translation}
  rotation 0 0 1 {heading}
  name "MyBot"
  controller "{controller}"
  children [
    {WHEEL.format(side="left", y=0.045)}
    {WHEEL.format(side="right", y=-0.045)}
    {devices}
  ]
  boundingObject Pose {{ translation 0 0 0.0415 children [ Cylinder {{ radius 0.045 height 0.08 }} ] }}
  physics Physics {{ density -1 mass 0.5 centerOfMass [ 0 0 0 ] }}
}}
"""


# Eight sensors around the body, 45 degrees apart, the first one 22.5 degrees right of the front.
RING = "\n".join(
    f'DistanceSensor {{ translation {0.0465 * math.cos(a):.5f} {0.0465 * math.sin(a):.5f} 0.063 rotation 0 0 1 {a:.6f} '
    f'name "ds{i}" {SENSOR_TABLE} aperture 1 }}'
    for i, a in enumerate([-math.pi / 8 - k * math.pi / 4 for k in range(4)] + [math.pi - math.pi / 8 - k * math.pi / 4
                                                                               for k in range(4)]))

# A Braitenberg vehicle: each wheel's speed is a weighted sum of how free each sensor's side is.
BRAITENBERG = """
from controller import Robot

robot = Robot()
step = 64
sensors = [robot.getDevice("ds%d" % i) for i in range(8)]
for sensor in sensors:
    sensor.enable(step)
left, right = robot.getDevice("left wheel motor"), robot.getDevice("right wheel motor")
for motor in (left, right):
    motor.setPosition(float("inf"))
left.setVelocity(0.5)  # the sample's controller starts turning on the spot
right.setVelocity(-0.5)
weights = ((11, 12, 8, -2, -3, -5, -7, -9), (-9, -8, -5, -1, -2, 6, 12, 11))
while robot.step(step) != -1:
    free = [1.0 - sensor.getValue() / 512.0 for sensor in sensors]  # 1: nothing seen, -1: touching
    left.setVelocity(0.2 * sum(w * f for w, f in zip(weights[0], free)))
    right.setVelocity(0.2 * sum(w * f for w, f in zip(weights[1], free)))
"""


def _obstacle_contacts(sim, robot_geoms: set[int], obstacle_geoms: set[int]) -> int:
    data = sim.data
    count = 0
    for i in range(data.ncon):
        pair = {int(data.contact.geom1[i]), int(data.contact.geom2[i])}
        if pair & robot_geoms and pair & obstacle_geoms:
            count += 1
    return count


def test_distance_sensor_sample_robot_avoids_every_obstacle(project, load):
    sim = load(project(ARENA + _robot(RING, "braitenberg"), controllers={"braitenberg": BRAITENBERG}))
    body = sim.bindings.robots[0].solid.body_id
    robot_geoms = {g for s in sim.bindings.solids if s.robot_node is not None for g in s.geom_ids}
    obstacle_geoms = {g for s in sim.bindings.solids if s.robot_node is None and s.node["name"] != "floor"
                      for g in s.geom_ids}
    bank = sim.banks["distance_sensor"]
    track, touches, seen = [], 0, np.zeros(8, dtype=bool)

    def record(s) -> None:
        nonlocal touches
        track.append(s.data.xpos[body][:2].copy())
        touches += _obstacle_contacts(s, robot_geoms - {g for g in robot_geoms if s.model.geom_bodyid[g] != body},
                                      obstacle_geoms)
        seen[:] |= bank.values > 100

    sim.run(60.0, on_step=record)
    track = np.array(track)
    assert touches == 0, "the body never touches a box or a wall"
    assert np.all(np.abs(track) < 0.5)
    assert seen.sum() >= 6, "most sensors see an obstacle at some point"
    travelled = np.linalg.norm(np.diff(track, axis=0), axis=1).sum()
    assert travelled > 1.0  # it wanders, at about 2 cm/s
    cells = {(int(x // 0.2), int(y // 0.2)) for x, y in track}
    assert len(cells) >= 4  # of the 25 cells of 20 cm in the arena


LED_DEVICES = f"""
DistanceSensor {{ translation 0.042 0.02 0.063 rotation 0 0 1 0.5 name "ds0"
                  lookupTable [ 0 1024 0, 0.05 1024 0, 0.15 0 0 ] numberOfRays 2 aperture 1 }}
DistanceSensor {{ translation 0.042 -0.02 0.063 rotation 0 0 1 -0.5 name "ds1"
                  lookupTable [ 0 1024 0, 0.05 1024 0, 0.15 0 0 ] numberOfRays 2 aperture 1 }}
LED {{ translation 0 -0.015 0.08 name "led0"
       color [ 1 0 0, 0 1 0, 0 0 1, 1 1 0, 0 1 1, 1 0 1, 1 0.647059 0, 0.627451 0.12549 0.941176, 0.545098 0.411765 0.0784314 ]
       children [ Group {{ children [ Shape {{ appearance DEF LED0 PBRAppearance {{ }} geometry Sphere {{ radius 0.01 }} }}
                                     DEF LIGHT0 PointLight {{ color 0 0 0 on FALSE }} ] }} ] }}
LED {{ translation 0 0.015 0.08 name "led1" gradual TRUE
       children [ Group {{ children [ Shape {{ appearance DEF LED1 PBRAppearance {{ }} geometry Sphere {{ radius 0.01 }} }}
                                     DEF LIGHT1 PointLight {{ color 0 0 0 on FALSE }} ] }} ] }}
LED {{ translation -0.02 0 0.08 name "led2" color [] gradual TRUE
       children [ Group {{ children [ Shape {{ appearance DEF LED2 PBRAppearance {{ }} geometry Sphere {{ radius 0.01 }} }}
                                     DEF LIGHT2 PointLight {{ color 0 0 0 on FALSE }} ] }} ] }}
"""

# LED 0 takes a random colour (0: off) every 4 to 7 control steps, LED 1 glows up and down, LED 2 takes a random
# RGB value every 16 steps; the two front sensors steer away from obstacles. Every choice is printed.
LED_CONTROLLER = """
import random
from controller import Robot

random.seed(3)
robot = Robot()
step = 64
front_left, front_right = robot.getDevice("ds0"), robot.getDevice("ds1")
front_left.enable(step)
front_right.enable(step)
leds = [robot.getDevice("led%d" % i) for i in range(3)]
left, right = robot.getDevice("left wheel motor"), robot.getDevice("right wheel motor")
for motor in (left, right):
    motor.setPosition(float("inf"))
    motor.setVelocity(0.0)
wait, glow, rise, tick = 0, 0, 10, 0
while robot.step(step) != -1:
    if wait == 0:
        colour = random.randrange(10)
        leds[0].set(colour)
        print("led0", colour)
        wait = random.randrange(4, 8)
    else:
        wait -= 1
    leds[1].set(glow)
    print("led1", glow)
    glow += rise
    if not 0 <= glow <= 255:
        glow = max(0, min(255, glow))
        rise = -rise
    if tick % 16 == 0:
        value = random.randrange(0xFFFFFF)
        leds[2].set(value)
        print("led2", value)
    tick += 1
    a, b = front_left.getValue(), front_right.getValue()
    if b > 500:
        speeds = (-6, -3) if a > 200 else (-b / 100, a / 100 + 0.5)
    elif a > 500:
        speeds = (b / 100 + 0.5, -a / 100)
    else:
        speeds = (6, 6)
    left.setVelocity(speeds[0])
    right.setVelocity(speeds[1])
"""


def test_led_sample_leds_show_the_colours_set_and_the_robot_roams(project, load, capfd):
    sim = load(project(ARENA + _robot(LED_DEVICES, "blinker", "0.15 0 0", 2.5708),
                       controllers={"blinker": LED_CONTROLLER}), start_controllers=True)
    # What a supervisor reads: the LEDs' PBRAppearances and PointLights (DEF LEDk, LIGHTk).
    supervisor_view = {b.node.def_name: b.node for b in sim.banks["led"].bindings if b.node.def_name}
    colours0 = [(0.0, 0.0, 0.0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0), (0, 1, 1), (1, 0, 1), (1, 0.647059, 0),
                (0.627451, 0.12549, 0.941176), (0.545098, 0.411765, 0.0784314)]
    shown: dict[str, list] = {"led0": [], "led1": [], "led2": []}
    body = sim.bindings.robots[0].solid.body_id
    track = []

    def field(name: str, field_name: str) -> list[float]:
        return list(sim.supervision.field_value(supervisor_view[name], field_name))

    def record(s) -> None:
        if s.step_count % 4 == 1 and s.step_count > 1:  # the step after each control step
            shown["led0"].append(field("LED0", "emissiveColor"))
            shown["led1"].append(field("LED1", "emissiveColor"))
            shown["led2"].append(field("LED2", "emissiveColor"))
            assert field("LIGHT0", "color") == shown["led0"][-1]
        track.append(s.data.xpos[body][:2].copy())

    sim.run(30.0, on_step=record)
    printed = re.findall(r"(led\d) (\d+)", capfd.readouterr().out)
    requests: dict[str, list[int]] = {"led0": [], "led1": [], "led2": []}
    for name, value in printed:
        requests[name].append(int(value))
    # Each control step's last request is shown from the next basic step on.
    led1 = [tuple(np.float32(np.float32(v) / np.float32(255)) * np.float32(c) for c in (1.0, 0.0, 0.0))
            for v in requests["led1"]]
    assert [tuple(np.float32(c) for c in rgb) for rgb in shown["led1"]] == led1[: len(shown["led1"])]
    assert len(set(map(tuple, shown["led0"]))) >= 5  # several colours (and off)
    for rgb in shown["led0"]:
        assert any(np.allclose(rgb, c, atol=1e-6) for c in colours0)
    last_rgb = requests["led2"][-1]
    assert shown["led2"][-1] == pytest.approx([((last_rgb >> s) & 0xFF) / 255 for s in (16, 8, 0)], abs=1e-6)
    track = np.array(track)
    assert np.all(np.abs(track) < 0.5)
    assert np.linalg.norm(np.diff(track, axis=0), axis=1).sum() > 1.0
