"""Move the four-bar finger in joint space for 10 s: two sine waves, mapped to the two base motors.

The finger's joints are commanded in joint space; ros2_control's FourBarLinkageTransmission (unit reductions, the
map the world's parallelogram realises exactly, see four_bar_finger.wbt) turns them into motor positions.
A plain Webots Python controller plus wbsim's transmission library (``pip install wbsim`` next to Webots).
"""

import math

from controller import Robot

from wbsim.transmission import FourBarLinkageTransmission

DURATION_S = 10.0


def joint_targets(t: float) -> tuple[float, float]:
    """The finger's joint-space trajectory (rad): joint 1 (proximal), joint 2 (distal, relative to joint 1)."""
    return 0.5 * math.sin(2.0 * math.pi * 0.3 * t), 0.6 * math.sin(2.0 * math.pi * 0.45 * t)


robot = Robot()
timestep = int(robot.getBasicTimeStep())
motors = [robot.getDevice("motor 1"), robot.getDevice("motor 2")]
sensors = {name: robot.getDevice(name) for name in ("joint 1 sensor", "joint 2 sensor", "motor 2 sensor",
                                                    "closing joint sensor")}
for sensor in sensors.values():
    sensor.enable(timestep)
transmission = FourBarLinkageTransmission((1.0, 1.0), (1.0, 1.0))

worst = 0.0
while robot.step(timestep) != -1 and robot.getTime() < DURATION_S:
    t = robot.getTime()
    for motor, target in zip(motors, transmission.joint_to_actuator_values("position", joint_targets(t))):
        motor.setPosition(float(target))
    # What the transmission predicts for joint 2 from the motor encoders, against its own position sensor.
    actuators = (sensors["joint 1 sensor"].getValue(), sensors["motor 2 sensor"].getValue())
    predicted = transmission.actuator_to_joint_values("position", actuators)
    worst = max(worst, abs(float(predicted[1]) - sensors["joint 2 sensor"].getValue()))
print(f"four-bar finger: joint 2 agrees with the transmission within {worst:.2e} rad over {DURATION_S:g} s")
