"""Webots' Lidar sample (projects/samples/devices/worlds/lidar.wbt: "Example use of a rotating Lidar in
point-cloud mode"), as a local world.

The world and controller are wbsim's own, built like the sample without Webots' PROTOs: a 10 m arena
(floor, 1.4 m walls) with green boxes, blue balls and pink cylinders, and "MyBot", a two-wheeled robot
with two front sonars (20 rays) steering it away from obstacles (the sample's coefficients) and, 45 cm
above its base, a rotating lidar (256 points per turn, 6 layers, 1.57 rad head camera, tilted 0.1 rad down,
8 m range, noise 0.1, 2 Hz) with its point cloud enabled. The tests check what the sample shows: the head
turns at 2 Hz and fills the whole image in half a second, the point cloud follows the image, the ranges are
the distances to the walls and objects with Gaussian noise of 0.8 m (0.1 x maxRange) and the robot drives
around the arena.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from wbsim.devices.lidar.rays import ray_layout, sweep_columns

BOX = "Box { size 0.4 0.8 0.4 }"
BALL = "Sphere { radius 0.35 }"
CYLINDER = "Cylinder { height 0.8 radius 0.3 }"
OBJECTS = [
    ("green object 1", "3.0466 1.1512 0.2", "0 0 1 3.13621", BOX),
    ("green object 2", "3.0576 0.5008 0.56", "0 0 1 3.13621", BOX),
    ("green object 3", "3.0481 -0.2017 0.2", "0 0 1 3.13621", BOX),
    ("green object 4", "3.0766 -2.9043 0.3", "0 0 1 3.13621", BOX),
    ("green object 5", "-2.7202 -1.5167 0.3", "0 0 1 -2.623375", BOX),
    ("blue object 1", "1.7069 3.5213 0.37", "0 0 1 0", BALL),
    ("blue object 2", "1.1936 -1.2416 0.27", "0 0 1 0", BALL),
    ("blue object 3", "-2.8124 1.527 0.27", "0 0 1 0", BALL),
    ("pink object 1", "1.8848 1.5955 0.55", "0 0 1 0", CYLINDER),
    ("pink object 2", "-0.3676 3.1247 0.47", "0 0 1 0", CYLINDER),
    ("pink object 3", "-0.5829 -2.5176 0.54", "0 0 1 0", CYLINDER),
]

WHEEL = """
HingeJoint {{
  jointParameters HingeJointParameters {{ axis 0 1 0 anchor 0 {y} 0.075 }}
  device [ RotationalMotor {{ name "{side} wheel motor" consumptionFactor 70 maxVelocity 100 }}
           PositionSensor {{ name "{side} wheel sensor" }} ]
  endPoint Solid {{ translation 0 {y} 0.075 rotation 1 0 0 1.5707963267948966 name "{side} wheel"
                   boundingObject Cylinder {{ height 0.03 radius 0.075 }} physics Physics {{ density -1 mass 0.05 }} }}
}}
"""

WORLD = "WorldInfo { basicTimeStep 8 randomSeed 5 }\n" + """
Solid { name "floor" boundingObject Plane { size 10 10 } }
Solid { translation 5.25 0 0.7 name "east wall" boundingObject DEF WX Box { size 0.5 11 1.4 } }
Solid { translation -5.25 0 0.7 name "west wall" boundingObject USE WX }
Solid { translation 0 5.25 0.7 name "north wall" boundingObject DEF WY Box { size 11 0.5 1.4 } }
Solid { translation 0 -5.25 0.7 name "south wall" boundingObject USE WY }
""" + "".join(f'Solid {{ translation {t} rotation {r} name "{n}" boundingObject {g} }}\n' for n, t, r, g in OBJECTS) + f"""
DEF ROBOT Robot {{
  name "MyBot"
  controller "lidar"
  children [
    {WHEEL.format(side="left", y=0.135)}
    {WHEEL.format(side="right", y=-0.135)}
    DistanceSensor {{ translation 0.115 0.07 0.189 rotation 0 0 1 0.499205 name "us0"
                      lookupTable [ 0 0.7 0.01, 2 0 0 ] type "sonar" numberOfRays 20 }}
    DistanceSensor {{ translation 0.115 -0.07 0.189 rotation 0 0 1 -0.500795 name "us1"
                      lookupTable [ 0 0.7 0.1, 2 0 0 ] type "sonar" numberOfRays 20 }}
    Lidar {{
      translation 0 0 0.45
      tiltAngle -0.1 horizontalResolution 256 fieldOfView 1.57 numberOfLayers 6 near 0.05 minRange 0.05 maxRange 8
      type "rotating" noise 0.1 defaultFrequency 2
      rotatingHead Solid {{ children [ Shape {{ geometry Cylinder {{ height 0.06 radius 0.024 }} }} ] }}
    }}
  ]
  boundingObject Pose {{ translation 0 0 0.1245 children [ Cylinder {{ height 0.24 radius 0.135 }} ] }}
  physics Physics {{ density -1 mass 1.5 centerOfMass [ 0 0 0.15 ] }}
}}
"""

# The sample's controller (lidar.py), ported: enable the lidar and its point cloud, steer with the sonars.
CONTROLLER = """
from controller import Robot


class Controller(Robot):
    def __init__(self):
        super(Controller, self).__init__()
        self.timeStep = 32
        self.lidar = self.getDevice('lidar')
        self.lidar.enable(self.timeStep)
        self.lidar.enablePointCloud()
        self.us0 = self.getDevice('us0')
        self.us0.enable(self.timeStep)
        self.us1 = self.getDevice('us1')
        self.us1.enable(self.timeStep)
        self.left_motor = self.getDevice('left wheel motor')
        self.right_motor = self.getDevice('right wheel motor')
        self.left_motor.setPosition(float('inf'))
        self.right_motor.setPosition(float('inf'))
        self.left_motor.setVelocity(0)
        self.right_motor.setVelocity(0)

    def run(self):
        coefficients = [[12.0, -6.0], [-10.0, 8.0]]
        base_speed = 6.0
        speed = [0, 0]
        us_value = [0, 0]
        while self.step(self.timeStep) != -1:
            us_value[0] = self.us0.getValue()
            us_value[1] = self.us1.getValue()
            for i in range(2):
                speed[i] = 0
                for k in range(2):
                    speed[i] += us_value[k] * coefficients[i][k]
            self.left_motor.setVelocity(base_speed + speed[0])
            self.right_motor.setVelocity(base_speed + speed[1])
            if self.getTime() > 3.9 and self.getTime() <= 3.932:
                cloud = self.lidar.getPointCloud()
                print("points", len(cloud), "layers", sorted({p.layer_id for p in cloud}))


controller = Controller()
controller.run()
"""


def test_lidar_sample_scans_the_arena_while_the_robot_drives(project, load, capfd):
    sim = load(project(WORLD, controllers={"lidar": CONTROLLER}))
    bank = sim.banks["lidar"]
    core = bank.core(0)
    binding = sim.bindings.devices["lidar"][0]
    settings = binding.settings
    directions = ray_layout(settings).directions
    body = sim.bindings.robots[0].solid.body_id
    dt = 0.008
    errors: list[float] = []
    truths: list[float] = []
    track: list[np.ndarray] = []
    geom = np.zeros(1, dtype=np.int32)
    own = {int(g) for g in np.flatnonzero(sim.model.geom_bodyid == body)}

    def check(s) -> None:
        track.append(s.data.xpos[body][:2].copy())
        if core.period_ms == 0:
            return
        current = core.head_angle
        columns = sweep_columns(settings, current + 2 * math.pi * 2 * dt, current)
        origin = s.data.site_xpos[binding.site_id]
        rotation = s.data.site_xmat[binding.site_id].reshape(3, 3)
        image = bank.images[0].reshape(6, 256)
        for layer in range(6):
            for column in columns.tolist():
                ray = rotation @ directions[layer, column]
                true = mujoco.mj_ray(s.model, s.data, origin, ray, None, 1, -1, geom)
                if 0.5 < true < 5.0 and int(geom[0]) not in own and np.isfinite(image[layer, column]):
                    errors.append(float(image[layer, column]) - true)
                    truths.append(true)

    sim.run(4.0, on_step=check)
    # The head turned at 2 Hz (clockwise: Webots' negative yaw) in each of the 500 steps (enabled before the first).
    assert len(track) == 500 and abs(core.head_angle + 2 * math.pi * 2 * 4.0) < 1e-9
    image = bank.images[0]
    assert (image != 0).all(), "after 8 turns every column of every layer was written"
    # Ranges: the true distances plus Gaussian noise of sigma 0.1 * 8 m.
    errors_a = np.array(errors)
    assert len(errors_a) > 3000
    # Readings the noise pushed below minRange (0.05 m) are inf and left out: the kept ones of a ray at
    # distance t have the mean of a Gaussian truncated at 0.05, t + sigma phi(a) / (1 - Phi(a)), a = (0.05 - t) / sigma.
    a = (0.05 - np.array(truths)) / 0.8
    phi = np.exp(-a * a / 2) / math.sqrt(2 * math.pi)
    tail = 0.5 * np.array([math.erfc(v / math.sqrt(2)) for v in a])
    truncation_bias = 0.8 * phi / tail
    assert abs((errors_a - truncation_bias).mean()) < 4 * 0.8 / math.sqrt(len(errors_a))
    assert abs(errors_a.std() - 0.8) < 0.05
    # The point cloud follows the image (Webots' formula, checked in tests/physics) and the controller reads it.
    points = core.point_cloud
    finite = np.isfinite(image)
    assert np.allclose(np.sqrt(points["x"] ** 2 + points["y"] ** 2 + points["z"] ** 2)[finite], image[finite],
                       rtol=1e-5)
    assert "points 1536 layers [0, 1, 2, 3, 4, 5]" in capfd.readouterr().out
    # The robot drives around inside the arena.
    path = np.array(track)
    assert np.linalg.norm(np.diff(path, axis=0), axis=1).sum() > 1.0
    assert np.all(np.abs(path) < 5.0)
