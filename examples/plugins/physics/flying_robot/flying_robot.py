"""A physics plugin that makes a small robot fly around obstacles (a Python port of the logic of Webots'
``flying_mybot`` sample plugin, projects/samples/howto/physics).

The robot has no propellers that lift it: each step the plugin pushes its two "wings" up with a force
that balances its weight (0.7 kg: 6.867 N), a little more to climb and a little less to sink, and sideways
in opposite directions to turn it. A small state machine:

1. on the ground: wait 10 steps, draw how many obstacles to pass (1 to 6, from the seeded generator), flip
   the turning direction, tell the controller on channel 1, and take off;
2. at 1 cm: hover and turn until the distance sensor on the turning side sees an obstacle;
3. climb until that sensor no longer sees it;
4. keep turning slowly until the ray in front of the robot has crossed the obstacle and left it;
5. sink back to 1 cm; then search the next obstacle, or land when enough have been passed.

The distance sensor values come from the robot's controller through its Emitter on channel 0
(``dWebotsReceive``); the ray is a plugin geom, and whether it touches something goes back to the
controller on channel 2 (the controller lights its LED red or green). Collisions of the wings are
ignored, and contacts between the robot's body and the floor are made by the plugin, without bounce.
"""

import struct

from wbsim.physics_plugin import *

HOVER_FORCE = 6.867  # N: 0.7 kg x 9.81 m/s^2
FORCE_STEP = 0.3  # N: the climb or sink impulse
TURN_FORCE = 0.01  # N: sideways force on each wing while turning
RAY_LENGTH = 0.4  # m
LEFT, RIGHT = 0, 1

robot_geom = floor_geom = ray = robot_body = None
wing_geoms: list = []
wing_bodies: list = []
state = "landing"
direction = LEFT
obstacles_left = 0
pause = 0
turn_steps = 0
ray_hit_steps = 0  # > 0 while the ray touches an obstacle (kept one more step)
saw_obstacle = False


def webots_physics_init():
    global robot_geom, floor_geom, ray, robot_body, wing_geoms, wing_bodies
    global state, direction, pause, turn_steps, ray_hit_steps, saw_obstacle
    robot_geom = dWebotsGetGeomFromDEF("ROBOT")  # a space: the robot's boundingObject is a Group
    floor_geom = dWebotsGetGeomFromDEF("FLOOR")
    wing_geoms = [dWebotsGetGeomFromDEF("LEFT_WING"), dWebotsGetGeomFromDEF("RIGHT_WING")]
    if robot_geom is not None:
        robot_body = dGeomGetBody(dSpaceGetGeom(robot_geom, 0))  # every geom of the space moves with it
    dWebotsConsolePrintf("flying_robot: robot %s, body %s\n", robot_geom, robot_body)
    ray = dCreateRay(dGeomGetSpace(robot_geom), RAY_LENGTH)
    dGeomSetDynamicFlag(ray)
    wing_bodies = [dGeomGetBody(g) for g in wing_geoms] if all(wing_geoms) else []
    state, direction, pause = "landing", LEFT, 10
    turn_steps, ray_hit_steps, saw_obstacle = 0, 0, False


def webots_physics_step():
    global state, direction, obstacles_left, pause, turn_steps, ray_hit_steps, saw_obstacle
    position = dBodyGetPosition(robot_body)
    rotation = dBodyGetRotation(robot_body)
    message = dWebotsReceive()
    sensors = struct.unpack("2f", message[:8]) if message and len(message) >= 8 else None

    lift = HOVER_FORCE
    turn = TURN_FORCE if direction == RIGHT else -TURN_FORCE
    next_state = state

    if state == "landing":
        turn = 0.0
        if pause == 0:
            pause = 20
            obstacles_left = int(6 * (rand() / RAND_MAX) + 1)
            direction = RIGHT if direction == LEFT else LEFT
            dWebotsSend(1, struct.pack("2i", obstacles_left, direction))
            lift += FORCE_STEP
            next_state = "taking off"
        else:
            lift = 6.0  # less than the weight: stay on the ground
            if position[2] < 0.001:
                pause -= 1
    elif state == "taking off":
        turn = 0.0
        if position[2] > 0.01:
            lift -= FORCE_STEP
            next_state = "searching"
    elif state == "searching":
        if sensors is not None and sensors[direction] != 0:
            next_state = "climbing"
            lift += FORCE_STEP
            turn *= -turn_steps  # cancel the turning speed built up so far
            turn_steps = 0
        else:
            turn_steps += 1
    elif state == "climbing":
        turn = 0.0
        if sensors is not None and sensors[direction] == 0:
            lift -= FORCE_STEP
            next_state = "passing"
    elif state == "passing":
        if ray_hit_steps == 0 and saw_obstacle:
            saw_obstacle = False
            turn *= -(turn_steps // 10)  # C's integer division, as in the original
            turn_steps = 0
            next_state = "sinking"
            lift -= FORCE_STEP
        else:
            if ray_hit_steps > 0:
                saw_obstacle = True
            turn /= 10
            turn_steps += 1
    elif state == "sinking":
        if position[2] <= 0.01:
            obstacles_left -= 1
            if obstacles_left == 0:
                next_state = "landing"
                lift = 6.0
            else:
                next_state = "searching"
                lift += FORCE_STEP
        turn = 0.0

    state = next_state
    dBodyAddRelForce(wing_bodies[0], turn, 0.0, lift / 2)
    dBodyAddRelForce(wing_bodies[1], -turn, 0.0, lift / 2)
    # The ray starts at the robot and points along its x-axis (the original reads the first row of ODE's
    # rotation matrix, flipping the sign of its second number).
    dGeomRaySet(ray, position[0], position[1], position[2], rotation[0], -rotation[1], rotation[2])
    if ray_hit_steps > 0:
        ray_hit_steps -= 1


def _touches_robot(geom):
    return dSpaceQuery(robot_geom, geom) == 1 or dGeomIsSpace(geom)


def webots_physics_collide(g1, g2):
    global ray_hit_steps
    if dAreGeomsSame(g1, ray) or dAreGeomsSame(g2, ray):
        other = g1 if dAreGeomsSame(g2, ray) else g2
        if _touches_robot(other):
            dWebotsSend(2, struct.pack("i", 0))
            return 1  # the ray starts inside the robot: ignore it
        contacts = [dContact() for _ in range(10)]
        if dCollide(g1, g2, 10, contacts) == 0:
            dWebotsSend(2, struct.pack("i", 0))
            return 1
        start, _ = dGeomRayGet(ray)
        hit = contacts[0].geom.pos
        distance = sum((start[i] - hit[i]) ** 2 for i in range(3)) ** 0.5
        dWebotsConsolePrintf("Obstacle detected at a distance of %g after %g s\n", distance, dWebotsGetTime() / 1000)
        ray_hit_steps = 2
        dWebotsSend(2, struct.pack("i", ray_hit_steps))
        return 2  # handled, and marked as a collision
    if any(dAreGeomsSame(g, wing) for g in (g1, g2) for wing in wing_geoms):
        return 1  # the wings never collide
    if (dAreGeomsSame(g1, floor_geom) and dSpaceQuery(robot_geom, g2) == 1) or (
            dSpaceQuery(robot_geom, g1) == 1 and dAreGeomsSame(g2, floor_geom)):
        contacts = [dContact() for _ in range(10)]
        n = dCollide(g1, g2, 10, contacts)
        if n == 0:
            return 1
        body = dGeomGetBody(g1) or dGeomGetBody(g2)
        if body is None:
            return 0
        world, group = dBodyGetWorld(body), dWebotsGetContactJointGroup()
        for contact in contacts[:n]:  # no bounce, more friction sideways than forwards
            contact.surface.mode = dContactMu2 | dContactBounce | dContactApprox1 | dContactSoftCFM
            contact.surface.mu = 0.4
            contact.surface.mu2 = 0.8
            contact.surface.bounce = 0.0
            contact.surface.bounce_vel = 0.0
            contact.surface.soft_cfm = 0.001
            dJointAttach(dJointCreateContact(world, group, contact), robot_body, None)
        return 1
    return 0


def webots_physics_cleanup():
    dGeomDestroy(ray)
    dWebotsConsolePrintf("flying_robot: clean up\n")
