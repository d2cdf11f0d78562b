"""Webots' Python language example (projects/languages/python), as a local world.

The world and controllers here are wbsim's own, built like the example: a supervisor robot reads the
keyboard and sends orders ("avoid obstacles", "move forward", "stop", "turn") with an Emitter; two
two-wheeled robots with a Camera (inert in wbsim), a Receiver and two DistanceSensors obey them, printing
each order in red with ``AnsiCodes``. The supervisor teleports ROBOT1 on "R" and prints its position on
"G". Both controllers import a helper module that lives in the driver's folder; the slave finds it
through the ``PYTHONPATH`` of its ``runtime.ini`` (``../driver/``), as in the example. Keys are typed
with ``RobotRuntime.press_keys``, one per supervisor step.
"""

from __future__ import annotations

import math

from controller import AnsiCodes

WHEEL = """
HingeJoint {{
  jointParameters HingeJointParameters {{ axis 0 1 0 anchor 0 0 0.025 }}
  device [ RotationalMotor {{ name "{side} wheel motor" }} PositionSensor {{ name "{side} wheel sensor" }} ]
  endPoint Solid {{
    translation 0 {y} 0.025 rotation 1 0 0 1.5707963267948966 name "{side} wheel"
    boundingObject Cylinder {{ radius 0.025 height 0.01 }}
    physics Physics {{ density -1 mass 0.05 }}
  }}
}}
"""


def _slave(def_name: str, name: str, translation: str) -> str:
    eyes = "".join(
        f'DistanceSensor {{ name "ds{i}" translation 0.042 {y} 0.063 rotation 0 0 1 {a} numberOfRays 2 aperture 1 '
        f'lookupTable [ 0 1024 0, 0.05 1024 0, 0.15 0 0 ] }}\n'
        for i, (y, a) in enumerate(((0.02, 0.5), (-0.02, -0.5))))
    return f"""
DEF {def_name} Robot {{
  translation {translation}
  name "{name}"
  controller "slave"
  boundingObject Pose {{ translation 0 0 0.0415 children [ Cylinder {{ height 0.08 radius 0.045 }} ] }}
  physics Physics {{ density -1 mass 0.5 }}
  children [
    {WHEEL.format(side="left", y=0.045)}
    {WHEEL.format(side="right", y=-0.045)}
    {eyes}
    Receiver {{ }}
    Camera {{ translation 0.045 0 0.045 }}
  ]
}}
"""


WORLD = f"""
WorldInfo {{ basicTimeStep 32 }}
Solid {{ name "floor" boundingObject Plane {{ size 2 2 }} }}
Solid {{ translation 1 0 0.05 name "wall" boundingObject Box {{ size 0.02 2 0.1 }} }}
{_slave("ROBOT1", "robot1", "-0.14 0.36 0")}
{_slave("ROBOT2", "robot2", "-0.51 -0.29 0")}
Robot {{ name "supervisor" controller "driver" supervisor TRUE children [ Emitter {{ }} ] }}
"""

SHARED = """
def announce(caller):
    print(f"shared helper loaded by {caller}")
"""

DRIVER = """
from controller import Supervisor
from shared import announce

ORDERS = {ord("A"): "avoid obstacles", ord("F"): "move forward", ord("S"): "stop", ord("T"): "turn"}


class Commander(Supervisor):
    step_ms = 128
    home = [-0.3, -0.1, 0]

    def __init__(self):
        super().__init__()
        self.emitter = self.getDevice("emitter")
        self.target = self.getFromDef("ROBOT1").getField("translation")
        self.keyboard.enable(self.step_ms)
        self.keyboard = self.getKeyboard()

    def loop(self):
        last = ""
        while self.step(self.step_ms) != -1:
            key = self.keyboard.getKey()
            order = ORDERS.get(key, "")
            if key == ord("R"):
                print("teleporting ROBOT1")
                self.target.setSFVec3f(self.home)
            elif key == ord("G"):
                x, y, _ = self.target.getSFVec3f()
                print(f"ROBOT1 is at ({x:.2f}, {y:.2f})")
            if order and order != last:
                last = order
                print("Please, " + order)
                self.emitter.send(order.encode("utf-8"))


commander = Commander()
announce("driver")
commander.loop()
"""

SLAVE = """
from controller import AnsiCodes, Robot
from shared import announce


class Follower(Robot):
    step_ms = 32
    top_speed = 10.0
    mode = "avoid obstacles"  # a class attribute, as in the example: it hides Robot's read-only ``mode``

    def __init__(self):
        super().__init__()
        self.mode = "avoid obstacles"
        self.camera = self.getDevice("camera")
        self.camera.enable(4 * self.step_ms)
        self.receiver = self.getDevice("receiver")
        self.receiver.enable(self.step_ms)
        self.wheels = [self.getDevice("left wheel motor"), self.getDevice("right wheel motor")]
        for wheel in self.wheels:
            wheel.setPosition(float("inf"))
            wheel.setVelocity(0.0)
        self.eyes = [self.getDevice(f"ds{i}") for i in range(2)]
        for eye in self.eyes:
            eye.enable(self.step_ms)

    def clamp(self, speed):
        return max(-self.top_speed, min(self.top_speed, speed))

    def loop(self):
        while self.step(self.step_ms) != -1:
            while self.receiver.getQueueLength() > 0:
                self.mode = self.receiver.getString()
                self.receiver.nextPacket()
                print(f"{self.getName()}: I should " + AnsiCodes.RED_FOREGROUND + self.mode + AnsiCodes.RESET + "!")
            delta = self.eyes[0].getValue() - self.eyes[1].getValue()
            speeds = {
                "avoid obstacles": (self.clamp(5 + 0.1 * delta), self.clamp(5 - 0.1 * delta)),
                "move forward": (self.top_speed, self.top_speed),
                "turn": (5.0, -5.0),
            }.get(self.mode, (0.0, 0.0))
            for wheel, speed in zip(self.wheels, speeds):
                wheel.setVelocity(speed)


follower = Follower()
announce(follower.getName())
follower.loop()
"""


def test_python_language_example_runs_and_obeys_the_keyboard(project, load, capfd):
    path = project(WORLD, controllers={"driver": DRIVER, "slave": SLAVE},
                   files={"controllers/driver/shared.py": SHARED,
                          "controllers/slave/runtime.ini": "[environment variables with paths]\nPYTHONPATH=../driver/\n"})
    sim = load(path)
    sim.robot_runtime("supervisor").press_keys(ord("S"), ord("R"), ord("G"), ord("T"))
    sim.run(2.0)
    assert not sim.failed  # no controller raised
    out = capfd.readouterr().out
    # The helper module of the driver's folder, found by the slaves through runtime.ini.
    assert out.count("shared helper loaded by ") == 3
    assert "shared helper loaded by robot1" in out and "shared helper loaded by robot2" in out
    # Orders reach both slaves, in red, one per key press.
    for robot in ("robot1", "robot2"):
        for order in ("stop", "turn"):
            assert f"{robot}: I should {AnsiCodes.RED_FOREGROUND}{order}{AnsiCodes.RESET}!" in out
    assert out.index("Please, stop") < out.index("teleporting ROBOT1") < out.index("ROBOT1 is at (-0.30, -0.10)")
    # Turning on the spot since the teleport: ROBOT1 stays where it was put.
    x, y, _ = _position(sim, "ROBOT1")
    assert math.hypot(x + 0.3, y + 0.1) < 0.02


def _position(sim, def_name):
    from wbsim.api.supervisor import Supervisor

    return Supervisor(sim.robot_runtime("supervisor")).getFromDef(def_name).getPosition()
