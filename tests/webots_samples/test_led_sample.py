"""Webots' LED sample (projects/samples/devices: led), as a local world, recorded for later viewing.

The world and controller here are wbsim's own, built like the sample without Webots' PROTOs: a 1 m arena with
four boxes and the two-wheeled "MyBot" with two 2-ray distance sensors in front and three LEDs on top: ``led0``
(nine colours), ``led1`` (gradual, monochrome: the default red) and ``led2`` (gradual RGB, no colour). As in the
sample's controller (64 ms steps): led0 takes a random colour (0, off, to 9) and keeps it 4 to 7 steps, led1
glows up and down by 10 every step, led2 takes a random 0xRRGGBB value every 16 steps, and the robot avoids
obstacles. Webots' C controller draws with ``rand()``; the port draws from Python's ``random.Random(7)`` and prints
each value it sets with the controller's time.

What the sample shows, checked on the recording (``wbsim run --record``, read with ``wbsim.recording.load``): each
frame holds, for each LED, the value the controller set last before the frame's time and the colour Webots' rules
give it, and the robot's recorded pose is where it drove.
"""

from __future__ import annotations

import re

import numpy as np

from wbsim import recording
from wbsim.cli.main import main

WORLD = """
WorldInfo { info [ "Example use of a LED device." ] title "LED" }
Solid { name "floor" boundingObject Plane { size 1 1 } }
Solid { translation 0.505 0 0.05 name "east wall" boundingObject DEF WALL_X Box { size 0.01 1.02 0.1 } }
Solid { translation -0.505 0 0.05 name "west wall" boundingObject USE WALL_X }
Solid { translation 0 0.505 0.05 name "north wall" boundingObject DEF WALL_Y Box { size 1.02 0.01 0.1 } }
Solid { translation 0 -0.505 0.05 name "south wall" boundingObject USE WALL_Y }
DEF GREEN_BOX Solid { translation -0.05 0.25 0.05 name "green box" boundingObject Box { size 0.23 0.1 0.1 } }
DEF BLUE_BOX Solid { translation 0.2 -0.27 0.05 rotation 0 0 1 0.31 name "blue box"
                     boundingObject Box { size 0.1 0.1 0.1 } }
DEF YELLOW_BOX Solid { translation -0.2 -0.15 0.05 rotation 0 0 1 0.4 name "yellow box"
                       boundingObject Box { size 0.05 0.3 0.1 } }
DEF PINK_BOX Solid { translation 0.41 0.11 0.05 name "red box" boundingObject Box { size 0.15 0.08 0.1 } }
DEF MY_BOT Robot {
  translation 0.15 0 0
  rotation 0 0 1 2.5708
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 1 0 anchor 0 0 0.025 }
      device [ RotationalMotor { name "left wheel motor" } PositionSensor { name "left wheel sensor" } ]
      endPoint Solid {
        translation 0 0.045 0.025 rotation 1 0 0 1.5707963267948966 name "left wheel"
        boundingObject DEF WHEEL Cylinder { height 0.01 radius 0.025 }
        physics DEF PHYSICS_WHEEL Physics { density -1 mass 0.05 }
      }
    }
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 1 0 anchor 0 0 0.025 }
      device [ RotationalMotor { name "right wheel motor" } PositionSensor { name "right wheel sensor" } ]
      endPoint Solid {
        translation 0 -0.045 0.025 rotation 1 0 0 1.5707963267948966 name "right wheel"
        boundingObject USE WHEEL physics USE PHYSICS_WHEEL
      }
    }
    DistanceSensor {
      translation 0.042 0.02 0.063 rotation 0 0 1 0.5
      name "ds0" lookupTable [ 0 1024 0, 0.05 1024 0, 0.15 0 0 ] numberOfRays 2 aperture 1
    }
    DistanceSensor {
      translation 0.042 -0.02 0.063 rotation 0 0 1 -0.5
      name "ds1" lookupTable [ 0 1024 0, 0.05 1024 0, 0.15 0 0 ] numberOfRays 2 aperture 1
    }
    DEF LED0 LED {
      translation 0 -0.015 0.08
      children [ Group { children [
        Shape { appearance PBRAppearance { baseColor 0.75 0.75 0.75 } geometry DEF LED_SHAPE Sphere { radius 0.01 } }
        PointLight { attenuation 0 0 1 color 0 0 0 intensity 0.5 location 0 0 0.03 on FALSE }
      ] } ]
      name "led0"
      color [ 1 0 0, 0 1 0, 0 0 1, 1 1 0, 0 1 1, 1 0 1, 1 0.647059 0, 0.627451 0.12549 0.941176,
              0.545098 0.411765 0.0784314 ]
    }
    DEF LED1 LED {
      translation 0 0.015 0.08
      children [ Group { children [
        Shape { appearance PBRAppearance { baseColor 0.75 0.75 0.75 } geometry USE LED_SHAPE }
        PointLight { attenuation 0 0 1 color 0 0 0 intensity 0.5 location 0 0 0.03 on FALSE }
      ] } ]
      name "led1"
      gradual TRUE
    }
    DEF LED2 LED {
      translation -0.02 0 0.08
      children [ Group { children [
        Shape { appearance PBRAppearance { baseColor 0.75 0.75 0.75 } geometry USE LED_SHAPE }
        PointLight { attenuation 0 0 1 color 0 0 0 intensity 0.5 location 0 0 0.03 on FALSE }
      ] } ]
      name "led2"
      color [ ]
      gradual TRUE
    }
  ]
  name "MyBot"
  boundingObject Transform { translation 0 0 0.0415 rotation 0 0 1 -1.570796 children [ Cylinder { height 0.08 radius 0.045 } ] }
  physics Physics { density -1 mass 0.5 }
  controller "led"
}
"""

# The sample's controller, ported: the same LED patterns and obstacle avoidance, Python's seeded generator for
# C's rand(), and a line per LED value set.
CONTROLLER = """
import random

from controller import Robot

SPEED = 6
TIME_STEP = 64

robot = Robot()
draw = random.Random(7).random
ds0, ds1 = robot.getDevice("ds0"), robot.getDevice("ds1")
leds = [robot.getDevice(f"led{i}") for i in range(3)]
ds0.enable(TIME_STEP)
ds1.enable(TIME_STEP)
left_motor, right_motor = robot.getDevice("left wheel motor"), robot.getDevice("right wheel motor")
for motor in (left_motor, right_motor):
    motor.setPosition(float("inf"))
    motor.setVelocity(0.0)
counters = [0, 0, 0]
led1_increase = 10


def set_led(i, value):
    leds[i].set(value)
    print(f"set led{i} {value} at {robot.getTime():.3f}")


while robot.step(TIME_STEP) != -1:
    if counters[0] == 0:  # led0: a random colour (0 turns it off), kept for 4 to 7 steps
        set_led(0, int(10 * draw()))
        counters[0] = int(4 * draw()) + 4
    else:
        counters[0] -= 1
    set_led(1, counters[1])  # led1 glows up and down
    counters[1] += led1_increase
    if counters[1] > 255:
        counters[1], led1_increase = 255, -10
    elif counters[1] < 0:
        counters[1], led1_increase = 0, 10
    if counters[2] == 0:  # led2: a random RGB colour every 16 steps
        set_led(2, int(0xFFFFFF * draw()))
    counters[2] = (counters[2] + 1) % 16
    ds0_value, ds1_value = ds0.getValue(), ds1.getValue()
    if ds1_value > 500:
        if ds0_value > 200:
            left_speed, right_speed = -SPEED, -SPEED / 2
        else:
            left_speed, right_speed = -ds1_value / 100, ds0_value / 100 + 0.5
    elif ds0_value > 500:
        left_speed, right_speed = ds1_value / 100 + 0.5, -ds0_value / 100
    else:
        left_speed, right_speed = SPEED, SPEED
    left_motor.setVelocity(left_speed)
    right_motor.setVelocity(right_speed)
"""

COLORS = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0), (0, 1, 1), (1, 0, 1), (1, 0.647059, 0),
          (0.627451, 0.12549, 0.941176), (0.545098, 0.411765, 0.0784314)]


def expected_color(led: int, value: int) -> tuple[float, float, float]:
    """The colour the sample's LED shows for ``value`` (Webots' LED rules, single precision)."""
    f32 = np.float32
    if led == 0:
        return tuple(float(f32(c)) for c in COLORS[value - 1]) if 0 < value <= len(COLORS) else (0.0, 0.0, 0.0)
    if led == 1:  # monochrome with the default colour, red
        return (float(f32(float(f32(value) / f32(255.0)) * 1.0)), 0.0, 0.0)
    return tuple(float(f32((value >> shift) & 0xFF) / f32(255.0)) for shift in (16, 8, 0))


def test_led_sample_recorded_with_the_cli_and_read_back(project, tmp_path, capfd):
    world = project(WORLD, controllers={"led": CONTROLLER})
    target = tmp_path / "led_run.npz"
    assert main(["run", str(world), "--duration", "6.4", "--no-progress", "--record", str(target)]) == 0
    out = capfd.readouterr().out
    sets = [(int(i), int(v), float(t)) for i, v, t in re.findall(r"set led(\d) (-?\d+) at ([\d.]+)", out)]
    rec = recording.load(target)
    assert rec.world == str(world) and rec.basic_time_step_ms == 32 and rec.fps == 60 and rec.frame_steps == 1
    # 32 ms steps at 60 FPS: a frame when recording starts (t = 0) and after every step.
    assert len(rec) == 201 and np.array_equal(rec.step, np.arange(201))
    np.testing.assert_allclose(rec.time, rec.step * 0.032)
    leds = rec.devices["led"]
    assert leds.defs.tolist() == ["LED0", "LED1", "LED2"] and leds.paths.tolist() == [
        f'Robot "MyBot" > children[{i + 4}] > LED "led{i}"' for i in range(3)]
    value, color, on = leds.values["value"], leds.values["color"], leds.values["on"]
    assert value.shape == (201, 3) and color.shape == (201, 3, 3) and on.shape == (201, 3)
    checked = 0
    for i in range(3):
        column = leds.index(f"LED{i}")
        mine = [(v, t) for led, v, t in sets if led == i]
        assert len(mine) > (1 if i == 2 else 10)
        for frame, t in enumerate(rec.time):
            # A value set at controller time t_set is applied in that step: frames after it show it.
            before = [v for v, t_set in mine if t_set < t - 1e-9]
            shown = before[-1] if before else 0
            assert value[frame, column] == shown
            assert tuple(color[frame, column]) == expected_color(i, shown)
            assert on[frame, column] == (shown != 0)
            checked += 1
    assert checked == 603
    # The glow of led1 over time: 0, 10, ..., 250, 255, 245, ... (one value per 64 ms controller step).
    glow = value[3::2, leds.index("LED1")][:30]  # the controller sets from t = 0.064 on, every 64 ms
    assert glow[:27].tolist() == list(range(0, 260, 10)) + [255]
    assert glow[27:30].tolist() == [245, 235, 225]
    # The robot drove: its recorded pose moves on the floor and stays upright.
    bot = rec.body("MY_BOT")
    travelled = np.linalg.norm(np.diff(rec.positions[:, bot, :2], axis=0), axis=1).sum()
    assert travelled > 0.3 and np.abs(rec.positions[:, bot, 2]).max() < 0.01
    assert np.allclose(np.linalg.norm(rec.quaternions[:, bot], axis=1), 1.0)
