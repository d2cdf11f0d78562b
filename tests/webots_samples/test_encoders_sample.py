"""Webots' encoders sample (projects/samples/devices: encoders), as a local world using ``webots://`` PROTOs.

The sample's world declares Webots' TexturedBackground, TexturedBackgroundLight and RectangleArena with
``EXTERNPROTO "webots://..."``; all three are procedural. Here a Webots-like tree (``WEBOTS_HOME``) holds
wbsim's own procedural PROTOs at the same paths (written for this test, not Webots' files): the arena builds
its floor and four walls with a JavaScript loop from ``floorSize``, ``wallThickness`` and ``wallHeight``,
the light turns its direction for the world's coordinate system, the background names its skybox files.

The robot is the sample's "MyBot" (two wheels of 2.5 cm radius on hinge joints with position sensors). Its
controller, ported from the sample, drives each wheel at 4 rad/s (40 * SPEED_UNIT 0.1) towards an encoder
goal (ENCODER_UNIT 0.25 per radian, truncated) and stops it there; the sample draws goals at random, the port
takes them from a fixed list so that the run can be checked: a goal g needs 4 |g| rad, that is |g| s at
4 rad/s, so each pair of goals is reached after max(|g_left|, |g_right|) s, counted in 64 ms steps.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

H = "#VRML_SIM R2023b utf8\n# template language: javascript\n"

ARENA = H + """
PROTO RectangleArena [
  field SFVec3f    translation   0 0 0
  field SFRotation rotation      0 0 1 0
  field SFString   name          "rectangle arena"
  field SFVec2f    floorSize     1 1
  field SFFloat    wallThickness 0.01
  field SFFloat    wallHeight    0.1
]
{
  %<
    import * as wbvector2 from 'wbvector2.js';
    const half = wbvector2.multiply(fields.floorSize.value, 0.5);
    const t = fields.wallThickness.value;
    const h = fields.wallHeight.value;
    // four walls: centre x, centre y, length along x, length along y
    const walls = [
      [half.x + t / 2, 0, t, 2 * half.y], [-(half.x + t / 2), 0, t, 2 * half.y],
      [0, half.y + t / 2, 2 * half.x + 2 * t, t], [0, -(half.y + t / 2), 2 * half.x + 2 * t, t]
    ];
  >%
  Solid {
    translation IS translation
    rotation IS rotation
    name IS name
    children [
      Solid { name "floor" boundingObject Plane { size %<= 2 * half.x >% %<= 2 * half.y >% } locked TRUE }
      %< walls.forEach((w, i) => { >%
        Solid {
          translation %<= w[0] >% %<= w[1] >% %<= h / 2 >%
          name "wall %<= i + 1 >%"
          boundingObject Box { size %<= w[2] >% %<= w[3] >% %<= h >% }
        }
      %< }); >%
    ]
  }
}
"""

LIGHT = H + """
PROTO TexturedBackgroundLight [ field SFString texture "mountains" field SFFloat luminosity 1 ] {
  %< let d = [-0.6, -1, 0.55];  // y-up direction
     if (context.coordinate_system === 'ENU') d = [d[2], d[0], d[1]]; >%
  DirectionalLight {
    direction %<= d.join(' ') >%
    intensity %<= 2.7 * Math.max(fields.luminosity.value, 0) >%
  }
}
"""

BACKGROUND = H + """
PROTO TexturedBackground [ field SFString texture "mountains" ] {
  Background {
    %< for (const side of ['back', 'bottom', 'front', 'left', 'right', 'top']) { >%
      %<= side >%Url [ "webots://projects/default/worlds/textures/cubic/%<= fields.texture.value + '_' + side >%.jpg" ]
    %< } >%
  }
}
"""

TREE = {
    "projects/objects/floors/protos/RectangleArena.proto": ARENA,
    "projects/objects/backgrounds/protos/TexturedBackgroundLight.proto": LIGHT,
    "projects/objects/backgrounds/protos/TexturedBackground.proto": BACKGROUND,
}

WORLD = """
EXTERNPROTO "webots://projects/objects/backgrounds/protos/TexturedBackground.proto"
EXTERNPROTO "webots://projects/objects/backgrounds/protos/TexturedBackgroundLight.proto"
EXTERNPROTO "webots://projects/objects/floors/protos/RectangleArena.proto"
WorldInfo { info [ "Example use of the Encoders of a Robot robot." ] title "Encoders" }
TexturedBackground { }
TexturedBackgroundLight { }
RectangleArena { }
DEF GREEN_BOX Solid { translation 0.25 0.05 0.05 name "green box" boundingObject Box { size 0.1 0.23 0.1 } }
DEF BLUE_BOX Solid { translation -0.27 -0.2 0.05 rotation 0 0 1 0.31 name "blue box"
                     boundingObject Box { size 0.1 0.1 0.1 } }
DEF YELLOW_BOX Solid { translation -0.15 0.2 0.05 rotation 0 0 1 0.4 name "yellow box"
                       boundingObject Box { size 0.3 0.05 0.1 } }
DEF PINK_BOX Solid { translation 0.1 -0.42 0.05 name "red box" boundingObject Box { size 0.08 0.15 0.1 } }
Robot {
  translation 0 -0.15 0
  rotation 0 0 1 1
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 1 0 anchor 0 0 0.025 }
      device [ RotationalMotor { name "left wheel motor" consumptionFactor 70 } PositionSensor { name "left wheel sensor" } ]
      endPoint Solid {
        translation 0 0.045 0.025 rotation 1 0 0 1.5707963267948966 name "left wheel"
        boundingObject DEF WHEEL Cylinder { height 0.01 radius 0.025 }
        physics DEF PHYSICS_WHEEL Physics { density -1 mass 0.05 }
      }
    }
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 1 0 anchor 0 0 0.025 }
      device [ RotationalMotor { name "right wheel motor" consumptionFactor 70 } PositionSensor { name "right wheel sensor" } ]
      endPoint Solid {
        translation 0 -0.045 0.025 rotation 1 0 0 1.5707963267948966 name "right wheel"
        boundingObject USE WHEEL physics USE PHYSICS_WHEEL
      }
    }
  ]
  name "MyBot"
  boundingObject Pose { translation 0 0 0.0415 children [ Cylinder { height 0.08 radius 0.045 } ] }
  physics Physics { density -1 mass 0.5 }
  controller "encoders"
}
"""

# The sample's controller, with the random goals replaced by a fixed list and the time printed with each goal.
CONTROLLER = """
from controller import Robot

GOALS = [(3, -2), (-1, 4), (2, 2), (-3, 0)]


class Controller(Robot):
    timeStep = 64

    def __init__(self):
        super().__init__()
        self.left_motor = self.getDevice('left wheel motor')
        self.right_motor = self.getDevice('right wheel motor')
        for motor in (self.left_motor, self.right_motor):
            motor.setPosition(float('inf'))
            motor.setVelocity(0.0)
        self.left_sensor = self.getDevice('left wheel sensor')
        self.right_sensor = self.getDevice('right wheel sensor')
        self.left_sensor.enable(self.timeStep)
        self.right_sensor.enable(self.timeStep)

    def run(self):
        speed_unit, encoder_unit = 0.1, 0.25
        goal = [0, 0]
        offsets = [0.0, 0.0]
        goals = iter(GOALS)
        while self.step(self.timeStep) != -1:
            positions = [self.left_sensor.getValue(), self.right_sensor.getValue()]
            encoders = [int(encoder_unit * (p - o)) for p, o in zip(positions, offsets)]
            if encoders != goal:
                speeds = [0 if g == e else (40 if g > e else -40) for g, e in zip(goal, encoders)]
                self.left_motor.setVelocity(speed_unit * speeds[0])
                self.right_motor.setVelocity(speed_unit * speeds[1])
            else:
                goal = list(next(goals, (0, 0)))
                offsets = positions
                print(f'Goal position for the encoders: {goal[0]} {goal[1]} at {self.getTime():.3f}')


Controller().run()
"""


def test_encoders_sample_with_webots_procedural_protos(project, load, capfd, tmp_path: Path) -> None:
    home = tmp_path / "webots"
    for relative, text in TREE.items():
        (home / relative).parent.mkdir(parents=True, exist_ok=True)
        (home / relative).write_text(text, encoding="utf-8")
    sim = load(project(WORLD, controllers={"encoders": CONTROLLER}), webots_home=home)
    sim.run(14.0)
    out = capfd.readouterr().out
    goals = [(int(a), int(b), float(t)) for a, b, t in
             re.findall(r"Goal position for the encoders: (-?\d+) (-?\d+) at ([\d.]+)", out)][:5]
    # (then the goal list is exhausted: goal (0, 0) again and again, reached at once)
    assert [(a, b) for a, b, _ in goals] == [(3, -2), (-1, 4), (2, 2), (-3, 0), (0, 0)]
    # Each pair of goals takes max(|g|) s at 4 rad/s (4 rad per encoder unit): the wheels start one 64 ms
    # step after the goal is set (the controller sets the speeds when it next runs) and the goal is seen at
    # the first step end past it; a wheel's motor may lag its speed by a fraction of a step under load.
    steps = np.round(np.diff([t for _, _, t in goals]) / 0.064)
    expected = np.array([np.ceil(max(abs(a), abs(b)) / 0.064) + 1 for a, b, _ in goals[:-1]])
    assert np.all((steps >= expected) & (steps <= expected + 1)), (steps, expected)


def test_encoders_sample_arena_is_generated_from_its_fields(project, tmp_path: Path) -> None:
    from wbsim.world.loader import load_world_model

    home = tmp_path / "webots"
    for relative, text in TREE.items():
        (home / relative).parent.mkdir(parents=True, exist_ok=True)
        (home / relative).write_text(text, encoding="utf-8")
    model = load_world_model(project(WORLD.replace("RectangleArena { }", "RectangleArena { floorSize 2 1 }"),
                                     controllers={"encoders": CONTROLLER}), webots_home=home)
    arena = model.nodes[3]
    walls = [(n["name"], n["translation"], n["boundingObject"]["size"]) for n in arena["children"][1:]]
    assert walls == [
        ("wall 1", (1.005, 0.0, 0.05), (0.01, 1.0, 0.1)), ("wall 2", (-1.005, 0.0, 0.05), (0.01, 1.0, 0.1)),
        ("wall 3", (0.0, 0.505, 0.05), (2.02, 0.01, 0.1)), ("wall 4", (0.0, -0.505, 0.05), (2.02, 0.01, 0.1)),
    ]
    assert arena["children"][0]["boundingObject"]["size"] == (2.0, 1.0)
    light = model.nodes[2]
    assert light["direction"] == (0.55, -0.6, -1.0)  # turned into ENU, the default coordinate system
    background = model.nodes[1]
    assert background["topUrl"] == ("webots://projects/default/worlds/textures/cubic/mountains_top.jpg",)
