"""Messages between controllers and a physics plugin: emitters on channel 0 reach the plugin
(``dWebotsReceive``) whatever their medium, range or aperture; ``dWebotsSend(channel, ...)`` reaches the
enabled receivers on exactly that channel, with an infinite signal strength and no direction, and never
the plugin itself.
"""

from __future__ import annotations

import math
import struct
import textwrap

PLUGIN = """
import struct
from wbsim.physics_plugin import *

received = []  # (time in ms, the doubles received)

def webots_physics_init():
    dWebotsSend(0, b"to no one")  # channel 0 from the plugin: no receiver is on it, and never back to the plugin

def webots_physics_step():
    data = dWebotsReceive()
    if data is None:
        return
    values = struct.unpack(f"{len(data) // 8}d", data)
    received.append((dWebotsGetTime(), values))
    dWebotsSend(1, struct.pack("2d", *(2 * v for v in values[:2])))

def webots_physics_cleanup():
    pass
"""

CONTROLLER = """
import math
import struct
from controller import Robot

robot = Robot()
to_plugin = robot.getDevice("to plugin")      # channel 0, infra-red, tiny range and aperture
broadcast = robot.getDevice("broadcast")      # channel -1
other = robot.getDevice("other channel")      # channel 3
replies = {name: robot.getDevice(name) for name in ("channel 1", "channel 2", "any channel")}
for receiver in replies.values():
    receiver.enable(16)
step = 0
while robot.step(16) != -1:
    step += 1
    if step == 1:
        to_plugin.send(struct.pack("2d", 1.25, -4.5))
        broadcast.send(struct.pack("2d", 100.0, 100.0))
        other.send(struct.pack("2d", 300.0, 300.0))
    for name, receiver in replies.items():
        while receiver.getQueueLength() > 0:
            values = struct.unpack("2d", receiver.getBytes())
            direction = receiver.getEmitterDirection()
            print(f"{name} at step {step}: {values} strength {receiver.getSignalStrength()} "
                  f"direction nan {all(math.isnan(v) for v in direction)}")
            receiver.nextPacket()
    if step == 6:
        break
"""

WORLD = """
WorldInfo { basicTimeStep 16 physics "relay" }
Robot {
  name "talker"
  controller "talker"
  children [
    Emitter { name "to plugin" type "infra-red" channel 0 range 0.001 aperture 0.01 }
    Emitter { name "broadcast" channel -1 }
    Emitter { name "other channel" channel 3 }
    Receiver { name "channel 1" channel 1 }
    Receiver { name "channel 2" channel 2 }
    Receiver { name "any channel" channel -1 }
  ]
}
"""


def test_the_plugin_hears_channel_0_only_and_answers_only_receivers_on_its_channel(project, load, capsys):
    path = project(WORLD, controllers={"talker": CONTROLLER}, files={"plugins/physics/relay/relay.py": PLUGIN})
    sim = load(path)
    sim.run()
    received = sim.plugin.file.namespace["received"]
    # Sent during the controller's first step: the plugin has it in the next step's webots_physics_step.
    assert received == [(16.0, (1.25, -4.5))]
    out = capsys.readouterr().out
    replies = [line for line in out.splitlines() if " at step " in line]
    # The reply, sent in that step's physics, is read by the controller after its next step; only the
    # receiver on channel 1 gets it (not the one on channel -1, which takes every emitter's channel).
    assert replies == ["channel 1 at step 2: (2.5, -9.0) strength inf direction nan True"]
    assert not sim.failed
