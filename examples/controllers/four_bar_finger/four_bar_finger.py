"""Move the four-bar finger in joint space for 10 s through its ros2_control transmission.

``four_bar_finger.urdf`` declares ros2_control's FourBarLinkageTransmission between the two base motors and the
finger's two joints (unit reductions: the map the world's parallelogram realises exactly, see
four_bar_finger.wbt). ``attach_transmissions`` binds it to this robot like a ros2_control hardware component:
``command`` + ``write`` send joint-space targets to the motors, ``read`` + ``state`` give joint-space positions
from the motor encoders. The controller checks them against the distal joint's own position sensor.
A plain Webots Python controller plus wbsim's transmission library.
"""

import math
from pathlib import Path

from controller import Robot

from wbsim.transmission import attach_transmissions

DURATION_S = 10.0


def joint_targets(t: float) -> tuple[float, float]:
    """The finger's joint-space trajectory (rad): joint 1 (proximal), joint 2 (distal, relative to joint 1)."""
    return 0.5 * math.sin(2.0 * math.pi * 0.3 * t), 0.6 * math.sin(2.0 * math.pi * 0.45 * t)


robot = Robot()
timestep = int(robot.getBasicTimeStep())
hw = attach_transmissions(robot, Path(__file__).with_name("four_bar_finger.urdf"))
distal = robot.getDevice("distal joint")  # the physical joint's own sensor, outside the transmission
distal.enable(timestep)
robot.getDevice("closing joint").enable(timestep)  # the joint closing the loop: it turns with the distal joint

worst = 0.0
while robot.getTime() < DURATION_S:
    for joint, target in zip(hw.joint_names, joint_targets(robot.getTime())):
        hw.command(joint, "position", target)
    hw.write()
    if robot.step(timestep) == -1:
        break
    hw.read()
    worst = max(worst, abs(hw.state("distal joint", "position") - distal.getValue()))
print(f"four-bar finger: joint 2 agrees with the transmission within {worst:.2e} rad over {DURATION_S:g} s")
