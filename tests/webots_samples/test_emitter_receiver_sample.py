"""Webots' Emitter/Receiver sample (projects/samples/devices: emitter_receiver), as a local world.

The world and controller here are wbsim's own, built like the sample: a 1 m arena with four boxes and two
small two-wheeled robots, "MyBot emitter" with an infra-red Emitter (range 0.4 m, channel 1) and "MyBot
receiver" with an infra-red Receiver (channel 1), both 6 cm below the robot's origin (as in the sample,
so under the floor: the boxes and walls never block them, and the floor plane is parallel to the ray).
One controller runs both robots with a 64 ms step: the emitter sends "Hello!" every step; the receiver,
enabled at 64 ms, prints ``Communicating: received "Hello!"`` when a packet is waiting and
``Communication broken!`` when none is, each only when the state changes, and drops one packet per step.

Webots' robots wander and avoid obstacles with two DistanceSensors, which wbsim does not simulate yet; here
the receiver robot (facing east, between the boxes, instead of the sample's 1 rad) drives straight away
from the emitter robot for 2 s and back for 2 s, so the link breaks when the devices are more than 0.4 m
apart and comes back with them.
"""

from __future__ import annotations

import math
import re

import numpy as np

WORLD = """
WorldInfo { info [ "Example use of an Emitter and a Receiver device." ] title "Emitter - Receiver" }
Solid { name "floor" boundingObject Plane { size 1 1 } }
Solid { translation 0.505 0 0.05 name "east wall" boundingObject DEF WALL_X Box { size 0.01 1.02 0.1 } }
Solid { translation -0.505 0 0.05 name "west wall" boundingObject USE WALL_X }
Solid { translation 0 0.505 0.05 name "north wall" boundingObject DEF WALL_Y Box { size 1.02 0.01 0.1 } }
Solid { translation 0 -0.505 0.05 name "south wall" boundingObject USE WALL_Y }
Solid { translation 0.25 0.05 0.05 name "green box" boundingObject Box { size 0.1 0.23 0.1 } }
Solid { translation -0.27 -0.2 0.05 rotation 0 0 1 0.31 name "blue box" boundingObject Box { size 0.1 0.1 0.1 } }
Solid { translation -0.15 0.2 0.05 rotation 0 0 1 0.4 name "yellow box" boundingObject Box { size 0.3 0.05 0.1 } }
Solid { translation 0.1 -0.42 0.05 name "red box" boundingObject Box { size 0.08 0.15 0.1 } }
"""

WHEEL = """
HingeJoint {{
  jointParameters HingeJointParameters {{ axis 0 1 0 anchor 0 {y} 0.025 }}
  device [
    RotationalMotor {{ name "{side} wheel motor" maxVelocity 100 }}
    PositionSensor {{ name "{side} wheel sensor" }}
  ]
  endPoint Solid {{
    translation 0 {y} 0.025 rotation 1 0 0 1.5707963267948966 name "{side} wheel"
    boundingObject Cylinder {{ radius 0.025 height 0.01 }}
    physics Physics {{ density -1 mass 0.05 }}
  }}
}}
"""

# The sample's device pose: 6 cm below the robot's origin, turned so that its x-axis points down.
DEVICE_POSE = "translation 0 0 -0.06 rotation 0 0.7071067811865476 0.7071067811865476 3.141527"


def _robot(name: str, translation: str, heading: float, device: str) -> str:
    return f"""
Robot {{
  translation {translation}
  rotation 0 0 1 {heading}
  name "{name}"
  controller "emitter_receiver"
  children [
    {WHEEL.format(side="left", y=0.045)}
    {WHEEL.format(side="right", y=-0.045)}
    {device}
  ]
  boundingObject Pose {{ translation 0 0 0.0415 children [ Cylinder {{ radius 0.045 height 0.08 }} ] }}
  physics Physics {{ density -1 mass 0.5 }}
}}
"""


WORLD += _robot("MyBot receiver", "0 -0.15 0", 0.0, f'Receiver {{ {DEVICE_POSE} type "infra-red" channel 1 }}')
WORLD += _robot("MyBot emitter", "-0.1285 -0.2029 0", 3.12642,
                f'Emitter {{ {DEVICE_POSE} type "infra-red" range 0.4 channel 1 }}')

CONTROLLER = """
from controller import Robot


class Controller(Robot):
    SPEED = 6
    COMMUNICATION_CHANNEL = 1
    timeStep = 64

    def __init__(self):
        super().__init__()
        self.left_motor = self.getDevice('left wheel motor')
        self.right_motor = self.getDevice('right wheel motor')
        self.left_motor.setPosition(float('inf'))
        self.right_motor.setPosition(float('inf'))
        self.left_motor.setVelocity(0.0)
        self.right_motor.setVelocity(0.0)
        if self.getName() == 'MyBot emitter':
            self.robot_type = 'EMITTER'
            self.communication = self.getDevice('emitter')
            if self.communication.getChannel() != self.COMMUNICATION_CHANNEL:
                self.communication.setChannel(self.COMMUNICATION_CHANNEL)
        else:
            self.robot_type = 'RECEIVER'
            self.communication = self.getDevice('receiver')
            self.communication.enable(self.timeStep)

    def run(self):
        message_printed = 0
        while self.step(self.timeStep) != -1:
            if self.robot_type == 'EMITTER':
                self.communication.send("Hello!")
            else:
                # Away from the emitter for 2 s, back for 2 s (Webots' sample steers with distance sensors).
                t = self.getTime()
                speed = self.SPEED if t < 2.0 else -self.SPEED if t < 4.0 else 0.0
                self.left_motor.setVelocity(speed)
                self.right_motor.setVelocity(speed)
                if self.communication.getQueueLength() > 0:
                    buffer = self.communication.getString()
                    if message_printed != 1:
                        print(f'Communicating: received "{buffer}"')
                        message_printed = 1
                    self.communication.nextPacket()
                elif message_printed != 2:
                    print('Communication broken!')
                    message_printed = 2


controller = Controller()
controller.run()
"""

RANGE = 0.4


def _run(project, load, capfd, seconds: float = 5.0):
    """Run the sample; returns the printed lines with the time they were printed at, and the distance
    between the two devices after every basic step, by time."""
    sim = load(project(WORLD, controllers={"emitter_receiver": CONTROLLER}))
    bank = sim.banks["radio"]
    sites = [binding.site_id for binding in bank.bindings]  # receiver, emitter (scene order)
    distance: dict[int, float] = {}
    lines: list[tuple[int, str]] = []

    def record(s) -> None:
        s.supervision.refresh()
        now = round(s.time_ms)
        distance[now] = float(np.linalg.norm(s.data.site_xpos[sites[0]] - s.data.site_xpos[sites[1]]))
        # The controllers ran at the start of this step, at the previous time.
        lines.extend((now - 32, text) for text in capfd.readouterr().out.splitlines())

    capfd.readouterr()
    sim.run(seconds, on_step=record)
    return lines, distance, sim


def test_emitter_receiver_sample_communicates_within_range_only(project, load, capfd):
    lines, distance, _ = _run(project, load, capfd)
    texts = [text for _, text in lines]
    assert texts == ["Communication broken!", 'Communicating: received "Hello!"', "Communication broken!",
                     'Communicating: received "Hello!"']
    # At 64 ms nothing was sent yet (the emitter sends after its first step); its first packet, sent at 64 ms,
    # is transmitted in the step ending at 96 ms and read at 128 ms.
    assert [t for t, _ in lines[:2]] == [64, 128]
    # A packet sent at T reaches the receiver read at T + 64 if the devices were within range after the step
    # in which it travelled (T + 32). The receiver prints exactly where that changes.
    expected = []
    state = 0
    for t in range(64, 5000, 64):
        now = 1 if t >= 128 and distance[t - 32] <= RANGE else 2
        if now != state:
            expected.append((t, 'Communicating: received "Hello!"' if now == 1 else "Communication broken!"))
            state = now
    assert lines == expected
    broken, back = lines[2][0], lines[3][0]
    assert distance[broken - 32] > RANGE >= distance[broken - 96]
    assert 1.5 < broken / 1000 < 2.5 and 2.0 < back / 1000 < 4.0


def test_emitter_receiver_sample_robots_stay_upright_and_on_track(project, load, capfd):
    _, distance, sim = _run(project, load, capfd)
    emitter = sim.robot_runtime("MyBot emitter").binding.solid.body_id
    receiver = sim.robot_runtime("MyBot receiver").binding.solid.body_id
    assert sim.data.xmat[emitter, 8] > 0.999 and sim.data.xmat[receiver, 8] > 0.999
    assert max(distance.values()) > RANGE + 0.02  # it really left the range
    assert distance[max(distance)] < 0.2  # and came back next to the receiver
    assert math.isfinite(sum(distance.values()))


def test_emitter_receiver_sample_output_is_deterministic(project, load, capfd):
    first = _run(project, load, capfd)[1]
    second = _run(project, load, capfd)[1]
    assert first == second
    assert not re.search("Error|Traceback", capfd.readouterr().err)
