"""Leapfrog gait of the hopping modules of examples/worlds/modules.wbt; all three modules run this script.

A plain Webots Python controller: it runs unchanged in Webots and in wbsim. The modules do not talk to
each other: they follow one timetable. Hop k (k = 0, 1, ...) starts at START + k * HOP_PERIOD and is
made by module k mod N, which is then the rear one; the next two modules (k + 1 and k + 2 mod N) are the
middle and the front one. During a hop:

- the hopper raises its arm by 15 degrees (shoulder), from its resting pose to straight forward: its hand
  lies on the dock of the middle module, and it locks the hand's connector;
- the middle module's front connector is locked to the front module's rear one: the two are one rigid
  base, wide enough to carry the hopper;
- the hopper turns its wrist by -180 degrees and its shoulder by +180 degrees together: the arm swings
  about the wrist, held by the dock, while the shoulder keeps the body level, so the body vaults over
  the two other modules and lands three spacings (36 cm) further on, 12 cm in front of the group;
- the (former) front module locks its front connector to the rear of the hopper, which has just landed
  in front of it (this will be the base of the next hop), the hopper unlocks its hand and swings its arm
  back over the top to its resting pose (shoulder +195 degrees), pointing forward and 15 degrees down,
  while the three modules are still one rigid chain; then the middle module unlocks its front connector
  and is free to make the next hop.

The hopper prints one line per hop: which module, the time, its new x position (read as a supervisor).
Arguments (Robot.controllerArgs): --index I (0: the rear module at the start), --modules N (3),
--hops H (hops per module, 2).
"""

import argparse
import math

from controller import Supervisor

AIM = math.radians(-15)  # shoulder turn from the resting pose to pointing forward
RETURN = math.radians(195)  # shoulder turn from pointing backward, over the top, to the resting pose
START = 0.5  # s, start of the first hop
HOP_PERIOD = 7.0  # s per hop; times below are from the start of a hop
FIRST_BASE_LOCK = 0.2  # the first hop's base; later ones are locked when the previous hop lands
AIM_END = 1.0
HAND_LOCK = 1.2
SWING_START, SWING_END = 1.5, 5.0
NEXT_BASE_LOCK = 5.1
HAND_UNLOCK = 5.2
RETURN_START, RETURN_END = 5.3, 6.9
BASE_UNLOCK = 6.95
CONTROL_P = 10.0  # the motors' controlPID P (Webots' default): velocity command = P * position error

parser = argparse.ArgumentParser()
parser.add_argument("--index", type=int, required=True)
parser.add_argument("--modules", type=int, default=3)
parser.add_argument("--hops", type=int, default=2)
args = parser.parse_args()

robot = Supervisor()
timestep = int(robot.getBasicTimeStep())
name = robot.getName()
shoulder = robot.getDevice("shoulder motor")
wrist = robot.getDevice("wrist motor")
shoulder_sensor = robot.getDevice("shoulder sensor")
wrist_sensor = robot.getDevice("wrist sensor")
hand = robot.getDevice("hand")
front = robot.getDevice("front")
joints = ((shoulder, shoulder_sensor), (wrist, wrist_sensor))
for _, sensor in joints:
    sensor.enable(timestep)
for connector in (hand, front):
    connector.enablePresence(timestep)
body = robot.getSelf()


def smoothstep(u: float) -> tuple[float, float]:
    """The smoothstep profile at u (0 before 0, 1 after 1, zero slope at both ends) and its slope."""
    u = min(max(u, 0.0), 1.0)
    return u * u * (3.0 - 2.0 * u), 6.0 * u * (1.0 - u)


def wait_until(t: float) -> None:
    """Step until the simulated time reaches ``t``; end the controller if the simulation ends."""
    while robot.getTime() < t - 1e-9:
        if robot.step(timestep) == -1:
            raise SystemExit(0)


angles = {shoulder: 0.0, wrist: 0.0}  # the commanded joint angles; 0: the resting pose of the world file


def turn(t0: float, t1: float, shoulder_turn: float = 0.0, wrist_turn: float = 0.0) -> None:
    """Turn the joints by the given angles along a smooth profile from time t0 to time t1.

    Each step's target is where the profile will be at the end of the step, plus its velocity / P: the
    motor's position controller then commands exactly the profile's velocity, with no lag behind it.
    """
    wait_until(t0)
    turns = {shoulder: shoulder_turn, wrist: wrist_turn}
    while True:
        s, slope = smoothstep((robot.getTime() + timestep / 1000.0 - t0) / (t1 - t0))
        lead = slope / (t1 - t0) / CONTROL_P
        for motor, angle in turns.items():
            motor.setPosition(angles[motor] + (s + lead) * angle)
        if s >= 1.0:
            break
        if robot.step(timestep) == -1:
            raise SystemExit(0)
    for motor, angle in turns.items():
        angles[motor] += angle


def lock_front() -> None:
    """Lock the front connector to the rear connector of the module ahead."""
    if front.getPresence() != 1:
        print(f"{name}: no module in front to lock to at t={robot.getTime():.2f} s")
    front.lock()


for k in range(args.modules * args.hops):
    t = START + k * HOP_PERIOD
    role = (args.index - k) % args.modules  # 0: hopper (rear), 1: middle, 2: front
    if role == 1:  # the middle module: one rigid base with the front module while the hopper vaults
        if k == 0:
            wait_until(t + FIRST_BASE_LOCK)
            lock_front()
        wait_until(t + BASE_UNLOCK)
        front.unlock()
    elif role == 2:  # the front module: locks to the hopper once it has landed in front of it
        wait_until(t + NEXT_BASE_LOCK)
        lock_front()
    elif role == 0:  # the hopper
        turn(t, t + AIM_END, shoulder_turn=AIM)
        wait_until(t + HAND_LOCK)
        if hand.getPresence() != 1:
            print(f"{name}: hand found no dock at t={robot.getTime():.2f} s; hop {k + 1} skipped")
            turn(t + RETURN_START, t + RETURN_END, shoulder_turn=-AIM)
            continue
        hand.lock()
        turn(t + SWING_START, t + SWING_END, shoulder_turn=math.pi, wrist_turn=-math.pi)
        wait_until(t + HAND_UNLOCK)
        lag = max(abs(sensor.getValue() - angles[motor]) for motor, sensor in joints)
        if lag > math.radians(2):
            print(f"{name}: the swing is {math.degrees(lag):.1f} degrees short at t={robot.getTime():.2f} s")
        hand.unlock()
        print(f"hop {k + 1}: {name} landed at t={robot.getTime():.2f} s, x={body.getPosition()[0]:+.3f} m")
        turn(t + RETURN_START, t + RETURN_END, shoulder_turn=RETURN)
wait_until(START + args.modules * args.hops * HOP_PERIOD)
front.unlock()
robot.step(timestep)
