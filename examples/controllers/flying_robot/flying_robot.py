"""Controller of the flying robot (a Python port of Webots' ``physics`` sample controller).

The robot does not fly by itself: its physics plugin (``plugins/physics/flying_robot``) pushes it. The
controller only reports what its two distance sensors see to the plugin (two floats on channel 0), spins
its two rotors for show, prints what the plugin announces on channel 1 (how many obstacles it will pass,
and which way it turns) and lights its LED red while the plugin's ray touches an obstacle (channel 2).
"""

import struct

from controller import Robot

TIME_STEP = 64

robot = Robot()
sensors = [robot.getDevice("ds0"), robot.getDevice("ds1")]
for sensor in sensors:
    sensor.enable(TIME_STEP)
emitter = robot.getDevice("emitter")
announcements = robot.getDevice("data_receiver")
ray_state = robot.getDevice("color_receiver")
announcements.enable(TIME_STEP)
ray_state.enable(TIME_STEP)
led = robot.getDevice("led")
robot.getDevice("lower_rotor").setPosition(float("-inf"))  # turn endlessly (the sign of an infinite target
robot.getDevice("upper_rotor").setPosition(float("inf"))  # does not matter in Webots: both turn one way)

while robot.step(TIME_STEP) != -1:
    emitter.send(struct.pack("2f", sensors[0].getValue(), sensors[1].getValue()))
    while announcements.getQueueLength() > 0:
        count, side = struct.unpack("2i", announcements.getBytes()[:8])
        print(f"Avoiding {count} obstacles when turning on the {'left' if side == 0 else 'right'}")
        announcements.nextPacket()
    while ray_state.getQueueLength() > 0:
        touching = struct.unpack("i", ray_state.getBytes()[:4])[0] != 0
        ray_state.nextPacket()
        led.set(0xFF0000 if touching else 0x00FF00)
