"""Transmission geometry against scalar transcriptions of Webots' code (``WbReceiver::checkApertureAndRange``,
``postPhysicsStep``, ``WbVector3::angle``), and infra-red line of sight against a brute-force march."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from wbsim.devices.radio.compile import RadioWorld
from wbsim.devices.radio.delivery import LineOfSight, in_cone, in_range, reception, webots_angle


def _angle_reference(u, v) -> float:
    """WbVector3::angle."""
    lu, lv = sum(x * x for x in u), sum(x * x for x in v)
    s = sum(a * b for a, b in zip(u, v)) / math.sqrt(lu * lv) if lu and lv else 0.0
    return 0.0 if s >= 1.0 else math.pi if s <= -1.0 else math.acos(s)


def _check_reference(e_pos, e_axis, e_range, e_aperture, r_pos, r_axis, r_aperture, range_only) -> bool:
    """WbReceiver::checkApertureAndRange, line by line."""
    if e_range != -1.0:
        if sum((a - b) ** 2 for a, b in zip(r_pos, e_pos)) > e_range * e_range:
            return False
    if range_only:
        return True
    if e_aperture > 0.0 and _angle_reference(e_axis, [a - b for a, b in zip(r_pos, e_pos)]) > e_aperture / 2.0:
        return False
    if r_aperture > 0.0 and _angle_reference(r_axis, [a - b for a, b in zip(e_pos, r_pos)]) > r_aperture / 2.0:
        return False
    return True


def test_range_is_inclusive_and_minus_one_is_infinite():
    e = np.zeros((4, 3))
    r = np.array([[1.0, 0, 0], [1.0 + 1e-12, 0, 0], [1e9, 0, 0], [0, 3, 4]])
    assert in_range(e, r, np.array([1.0, 1.0, -1.0, 5.0])).tolist() == [True, False, True, True]
    # A negative range Webots did not repair (world file) acts as its absolute value; NaN never excludes.
    assert in_range(e[:2], r[:2], np.array([-1.0 - 1e-9, math.nan])).tolist() == [True, True]


def test_angle_is_webots_with_zero_vectors_at_right_angle():
    u = np.array([[1.0, 0, 0], [0, 0, 0], [1, 0, 0], [1, 0, 0], [1, 1e-9, 0]])
    v = np.array([[-2.0, 0, 0], [1, 0, 0], [0, 0, 0], [3, 0, 0], [1, 0, 0]])
    expected = [_angle_reference(a, b) for a, b in zip(u.tolist(), v.tolist())]
    assert webots_angle(u, v) == pytest.approx(expected, abs=1e-15)
    assert webots_angle(u, v)[:3].tolist() == [math.pi, math.pi / 2, math.pi / 2]


def test_cone_edges_are_inclusive_and_non_positive_apertures_are_no_cone():
    axis = np.tile([1.0, 0.0, 0.0], (5, 1))
    half = 0.5
    inside = [math.cos(half - 1e-9), math.sin(half - 1e-9), 0.0]
    outside = [math.cos(half + 1e-9), math.sin(half + 1e-9), 0.0]
    towards = np.array([inside, outside, [-1.0, 0, 0], [-1.0, 0, 0], [-1.0, 0, 0]])
    aperture = np.array([1.0, 1.0, 0.0, -1.0, 2 * math.pi])
    assert in_cone(axis, towards, aperture).tolist() == [True, False, True, True, True]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(-2, 2), min_size=12, max_size=12), st.sampled_from([-1.0, 0.5, 1.0, 3.0]),
       st.sampled_from([-1.0, 0.0, 0.4, 1.5, 6.0]), st.sampled_from([-1.0, 0.0, 0.8, 3.1]), st.booleans())
def test_vectorised_checks_match_webots_line_by_line(coords, e_range, e_aperture, r_aperture, range_only):
    e_pos, e_axis, r_pos, r_axis = (coords[i:i + 3] for i in range(0, 12, 3))
    expected = _check_reference(e_pos, e_axis, e_range, e_aperture, r_pos, r_axis, r_aperture, range_only)
    E, R = np.array([e_pos]), np.array([r_pos])
    got = in_range(E, R, np.array([e_range]))
    if not range_only:
        got &= in_cone(np.array([e_axis]), R - E, np.array([e_aperture]))
        got &= in_cone(np.array([r_axis]), E - R, np.array([r_aperture]))
    assert bool(got[0]) == expected


def test_reception_without_noise_is_direction_in_receiver_frame_and_inverse_square():
    c, s = math.cos(0.7), math.sin(0.7)
    rot = np.array([[[c, -s, 0], [s, c, 0], [0, 0, 1]]])  # receiver turned 0.7 rad about z
    e, r = np.array([[3.0, 4.0, 0.0]]), np.array([[0.0, 0.0, 0.0]])
    direction, strength = reception(e, r, rot, np.zeros(1), np.zeros(1), None)
    local = rot[0].T @ np.array([3.0, 4.0, 0.0])
    assert direction[0] == pytest.approx(local / 5.0, abs=1e-15)
    assert strength[0] == 1.0 / 25.0
    d, s0 = reception(r, r, rot, np.zeros(1), np.zeros(1), None)  # same place: Webots divides by zero
    assert np.isnan(d).all() and s0[0] == math.inf


def test_noise_statistics_follow_webots_and_are_deterministic():
    k = 20000
    e = np.tile([0.0, 2.0, 0.0], (k, 1))
    r = np.zeros((k, 3))
    rot = np.tile(np.eye(3), (k, 1, 1))
    directions, strengths = reception(e, r, rot, np.full(k, 0.2), np.full(k, 0.1), np.random.default_rng(7))
    again = reception(e, r, rot, np.full(k, 0.2), np.full(k, 0.1), np.random.default_rng(7))
    assert np.array_equal(directions, again[0]) and np.array_equal(strengths, again[1])
    # strength = 0.25 (1 + 0.1 N): mean 0.25, sd 0.025 (clipping at 0 is 10 sigma away).
    assert strengths.mean() == pytest.approx(0.25, abs=4 * 0.025 / math.sqrt(k))
    assert strengths.std() == pytest.approx(0.025, rel=0.03)
    # direction: (0, 2, 0) + 2 * 0.2 * N per component, normalised: x/y has sd 0.2 for small noise.
    assert np.linalg.norm(directions, axis=1) == pytest.approx(np.ones(k))
    ratio = directions[:, 0] / directions[:, 1]
    assert np.median(np.abs(ratio)) == pytest.approx(0.2 * 0.6745, rel=0.1)  # median |N(0, 0.2)| ~ 0.135
    # A receiver with only one kind of noise keeps the other value exact.
    d1, s1 = reception(e[:5], r[:5], rot[:5], np.zeros(5), np.full(5, 0.1), np.random.default_rng(1))
    assert d1 == pytest.approx(np.tile([0.0, 1.0, 0.0], (5, 1)))
    d2, s2 = reception(e[:5], r[:5], rot[:5], np.full(5, 0.1), np.zeros(5), np.random.default_rng(1))
    assert (s2 == 0.25).all() and not np.allclose(d2, np.tile([0.0, 1.0, 0.0], (5, 1)))


def test_strength_noise_is_clipped_at_zero():
    k = 2000
    e = np.tile([1.0, 0.0, 0.0], (k, 1))
    _, strengths = reception(e, np.zeros((k, 3)), np.tile(np.eye(3), (k, 1, 1)), np.zeros(k), np.full(k, 2.0),
                             np.random.default_rng(3))
    assert strengths.min() == 0.0 and (strengths == 0.0).mean() == pytest.approx(0.31, abs=0.05)  # P(N < -0.5)


# -- line of sight ----------------------------------------------------------------------------------------------
# Robot 0 (the emitter's): a box around the origin and a thin plate at x = 1.3; robot 1 (the receiver's): a box
# around x = 2 and a plate at x = 0.7 (so the two robots interleave along the x axis); obstacles (no robot): a
# box at y = 1 and a sphere at x = 1 that can be moved.
_XML = """
<mujoco><worldbody>
  <geom name="floor" type="plane" size="10 10 .1"/>
  <body name="r0" pos="0 0 1"><geom name="r0_box" type="box" size=".2 .2 .2"/>
    <geom name="r0_plate" type="box" pos="1.3 0 0" size=".01 .3 .3"/></body>
  <body name="r1" pos="2 0 1"><geom name="r1_box" type="box" size=".2 .2 .2"/>
    <geom name="r1_plate" type="box" pos="-1.3 0 0" size=".01 .3 .3"/></body>
  <body name="obstacle" pos="0 1 1"><geom name="wall" type="box" size=".05 .05 .5"/></body>
  <body name="ball" mocap="true" pos="1 0 5"><geom name="ball" type="sphere" size=".05"/></body>
</worldbody></mujoco>
"""


def _scene(self_collision: bool = False):
    model = mujoco.MjModel.from_xml_string(_XML)
    data = mujoco.MjData(model)
    geom = {mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, i): i for i in range(model.ngeom)}
    owner = np.full(model.ngeom, -1, dtype=np.int64)
    owner[[geom["r0_box"], geom["r0_plate"]]] = 0
    owner[[geom["r1_box"], geom["r1_plate"]]] = 1
    world = RadioWorld(owner, (np.flatnonzero(owner == 0), np.flatnonzero(owner == 1)),
                       np.array([False, self_collision]))
    mujoco.mj_forward(model, data)
    return model, data, LineOfSight(model, world), world


def _brute_force(model, data, world, start, end, e_robot, r_robot) -> bool:
    """Blocked iff some geom outside the excluded set crosses the segment: every geom tested on its own, planes as
    ODE's ray sees them (infinite, either side), other geoms with MuJoCo's ray (a start inside meets the exit)."""
    vector = end - start
    length = float(np.linalg.norm(vector))
    unit = vector / length
    for g in range(model.ngeom):
        robot = world.geom_robot[g]
        if robot >= 0 and (robot == e_robot or (robot == r_robot and not world.self_collision[r_robot])):
            continue
        if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_PLANE:
            normal = data.geom_xmat[g].reshape(3, 3)[:, 2]
            k = float(normal @ unit)
            if k != 0.0 and 0.0 <= float(normal @ (data.geom_xpos[g] - start)) / k <= length:
                return True
            continue
        d = mujoco.mju_rayGeom(data.geom_xpos[g], data.geom_xmat[g], model.geom_size[g], start, unit,
                               int(model.geom_type[g]))
        if 0.0 <= d < length:
            return True
    return False


def _blocked(sight, data, start, end, robots=(0, 1)):
    start, end = np.atleast_2d(start), np.atleast_2d(end)
    k = len(start)
    return sight.blocked(data, start, end, np.zeros(k, dtype=np.int64), np.ones(k, dtype=np.int64),
                         np.full(k, robots[0]), np.full(k, robots[1]))


def test_own_robots_do_not_block_but_obstacles_do_and_groups_are_restored():
    model, data, sight, world = _scene()
    groups = model.geom_group.copy()
    start, end = np.array([0.0, 0, 1]), np.array([2.0, 0, 1])
    assert _blocked(sight, data, start, end).tolist() == [False]  # both robots' boxes and plates are theirs
    assert _blocked(sight, data, [0.0, 0.5, 1], [0.0, 1.5, 1]).tolist() == [True]  # through the wall
    data.mocap_pos[0] = [1.0, 0.0, 1.0]  # the ball moves between the interleaved plates: only the march sees it
    mujoco.mj_forward(model, data)
    assert _blocked(sight, data, start, end).tolist() == [True]
    assert np.array_equal(model.geom_group, groups)


def test_receiving_robot_blocks_when_it_has_self_collision():
    model, data, sight, _ = _scene(self_collision=True)
    assert _blocked(sight, data, [0.0, 0, 1], [2.0, 0, 1]).tolist() == [True]
    assert _blocked(sight, data, [0.0, 0, 1], [0.5, 0, 1]).tolist() == [False]  # before the receiver's plate


@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(-1.0, 3.0), min_size=6, max_size=6), st.lists(st.floats(-0.5, 2.5), min_size=3, max_size=3),
       st.booleans())
def test_batched_casts_match_brute_force(points, ball, self_collision):
    model, data, sight, world = _scene(self_collision)
    data.mocap_pos[0] = ball
    mujoco.mj_forward(model, data)
    start, end = np.array(points[:3]), np.array(points[3:])
    # Segments ending on the floor plane are decided by rounding (ODE counts a touch at the end).
    assume(np.linalg.norm(end - start) > 1e-6 and abs(start[2]) > 1e-9 and abs(end[2]) > 1e-9)
    expected = _brute_force(model, data, world, start, end, 0, 1)
    assert bool(_blocked(sight, data, start, end)[0]) == expected


def test_many_segments_in_one_batch_match_brute_force():
    model, data, sight, world = _scene()
    rng = np.random.default_rng(0)
    emitters, receivers = rng.uniform(-1, 3, (20, 3)), rng.uniform(-1, 3, (20, 3))
    emitter, receiver = (a.ravel() for a in np.meshgrid(np.arange(20), np.arange(20), indexing="ij"))
    k = len(emitter)  # every emitter to every receiver: one batch per device and direction
    got = sight.blocked(data, emitters[emitter], receivers[receiver], emitter, receiver + 20,
                        np.zeros(k, dtype=np.int64), np.ones(k, dtype=np.int64))
    expected = [_brute_force(model, data, world, emitters[e], receivers[r], 0, 1) for e, r in zip(emitter, receiver)]
    assert got.tolist() == expected
    assert 50 < sum(expected) < 350  # both outcomes are well represented


def test_planes_are_infinite_and_block_from_either_side():
    model, data, sight, _ = _scene()
    # The floor is 10 m wide for MuJoCo's rays; ODE's plane is infinite and crossed either way.
    assert _blocked(sight, data, [50.0, 0, 1], [50.0, 0, -1]).tolist() == [True]
    assert _blocked(sight, data, [50.0, 0, -1], [50.0, 0, 1]).tolist() == [True]
    assert _blocked(sight, data, [0.0, 3, -1], [5.0, 3, -1]).tolist() == [False]  # below it, parallel
    assert _blocked(sight, data, [0.0, 3, 0.5], [0.0, 3, 0.0]).tolist() == [True]  # ending on it (ODE: t <= length)
