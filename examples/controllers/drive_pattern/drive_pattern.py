"""Drive a square by wheel odometry, then explore: back off and turn whenever the front bumper hits something.

A plain Webots Python controller: it runs unchanged in Webots and in wbsim.
Arguments (Robot.controllerArgs): --side METRES, --laps N, --speed RAD_PER_S, --bumps N (0: no exploring).
"""

import argparse
import math

from controller import Robot

WHEEL_RADIUS = 0.033  # m
AXLE_LENGTH = 0.14  # m, distance between the wheels

parser = argparse.ArgumentParser()
parser.add_argument("--side", type=float, default=0.5)
parser.add_argument("--laps", type=int, default=1)
parser.add_argument("--speed", type=float, default=8.0)
parser.add_argument("--bumps", type=int, default=0)
args = parser.parse_args()

robot = Robot()
timestep = int(robot.getBasicTimeStep())
left_motor = robot.getDevice("left wheel motor")
right_motor = robot.getDevice("right wheel motor")
left_sensor = robot.getDevice("left wheel sensor")
right_sensor = robot.getDevice("right wheel sensor")
bumper = robot.getDevice("bumper")
for motor in (left_motor, right_motor):
    motor.setPosition(float("inf"))  # velocity control
    motor.setVelocity(0.0)
left_sensor.enable(timestep)
right_sensor.enable(timestep)
bumper.enable(timestep)
robot.step(timestep)  # first sensor values arrive after one period

x = y = heading = 0.0
previous = (left_sensor.getValue(), right_sensor.getValue())


def update_odometry() -> None:
    """Integrate the wheel angles into the pose estimate."""
    global x, y, heading, previous
    current = (left_sensor.getValue(), right_sensor.getValue())
    d_left = (current[0] - previous[0]) * WHEEL_RADIUS
    d_right = (current[1] - previous[1]) * WHEEL_RADIUS
    previous = current
    distance = (d_left + d_right) / 2
    x += distance * math.cos(heading)
    y += distance * math.sin(heading)
    heading += (d_right - d_left) / AXLE_LENGTH


def drive(left: float, right: float, until) -> bool:
    """Run the wheels at the given speeds until ``until()`` is true; False if the simulation ends."""
    left_motor.setVelocity(left)
    right_motor.setVelocity(right)
    while robot.step(timestep) != -1:
        update_odometry()
        if until():
            return True
    return False


def stop() -> None:
    """Stop both wheels."""
    left_motor.setVelocity(0.0)
    right_motor.setVelocity(0.0)
    robot.step(timestep)


for lap in range(args.laps):
    for side in range(4):
        start_x, start_y = x, y
        if not drive(args.speed, args.speed, lambda: math.hypot(x - start_x, y - start_y) >= args.side):
            raise SystemExit(0)
        target = heading + math.pi / 2
        if not drive(-args.speed / 2, args.speed / 2, lambda: heading >= target):
            raise SystemExit(0)
    print(f"lap {lap + 1}: odometry says x={x:+.3f} m, y={y:+.3f} m, heading={math.degrees(heading):.1f} deg "
          f"at t={robot.getTime():.2f} s")

for bump in range(args.bumps):
    give_up = robot.getTime() + 30.0
    if not drive(args.speed, args.speed, lambda: bumper.getValue() == 1.0 or robot.getTime() > give_up):
        raise SystemExit(0)
    if bumper.getValue() != 1.0:
        print("nothing to bump into")
        break
    print(f"bump {bump + 1}: hit something at x={x:+.2f} m, y={y:+.2f} m (odometry) at t={robot.getTime():.2f} s")
    start_x, start_y = x, y  # back off 15 cm, then turn about 110 degrees to the left
    if not drive(-args.speed / 2, -args.speed / 2, lambda: math.hypot(x - start_x, y - start_y) >= 0.15):
        raise SystemExit(0)
    target = heading + math.radians(110)
    if not drive(-args.speed / 2, args.speed / 2, lambda: heading >= target):
        raise SystemExit(0)

stop()
print(f"done after {robot.getTime():.2f} s of simulated time")
