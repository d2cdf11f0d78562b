"""Held poses and snap ramps: the docked pose is exact, the ramp starts and ends at rest."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbsim.compile.frames import Frame, quat_from_axis_angle, quat_to_matrix
from wbsim.devices.connector.presence import DockingRotations, docking_rotations
from wbsim.devices.connector.weld import Ramp, WeldPose, current_pose, docked_pose


def frame(position: tuple[float, ...], rotation: tuple[float, ...]) -> Frame:
    return Frame(np.asarray(position, dtype=float), quat_to_matrix(quat_from_axis_angle(rotation)))


def held_body2(body1: Frame, pose: WeldPose) -> Frame:
    """Where the weld puts body 2 given body 1 (zero residual)."""
    rot = body1.rot @ quat_to_matrix(pose.quat)
    return Frame(body1.apply(pose.anchor_in_body1) - rot @ pose.anchor_in_body2, rot)


def twist_between(own: Frame, peer: Frame) -> float:
    """Signed angle (rad) from own z to peer z about own x."""
    z1, z2, x = own.rot[:, 2], peer.rot[:, 2], own.rot[:, 0]
    return math.atan2(float(np.dot(np.cross(z1, z2), x)), float(np.dot(z1, z2)))


rotations_st = st.tuples(st.floats(-1, 1), st.floats(-1, 1), st.floats(0.1, 1), st.floats(-math.pi, math.pi))


@settings(max_examples=200, deadline=None)
@given(b1=rotations_st, b2=rotations_st, c_local=rotations_st, o_local=rotations_st,
       error=st.tuples(st.floats(-0.2, 0.2), st.floats(-0.2, 0.2), st.floats(-0.2, 0.2)),
       k=st.integers(-3, 3), small=st.floats(-0.2, 0.2), n=st.integers(0, 6), offset=st.floats(-0.01, 0.01))
def test_docked_pose_superimposes_the_faces(b1, b2, c_local, o_local, error, k, small, n, offset) -> None:
    # The twist is near a docking rotation (within the tolerance), as when a lock finds a peer.
    twist = (k * 2 * math.pi / n if n else 0.0) + small
    body1 = frame((0.1, -0.2, 0.3), b1)
    own = body1 @ frame((0.05, 0.0, 0.02), c_local)
    # Put the peer nearly docked: opposite x, some twist, a small tilt and offset.
    exact = own @ frame((0, 0, 0), (0, 0, 1, math.pi)) @ frame((0, 0, 0), (1, 0, 0, twist))
    peer = Frame(exact.pos + offset, quat_to_matrix(quat_from_axis_angle((*error, float(np.linalg.norm(error)))))
                 @ exact.rot if np.linalg.norm(error) > 0 else exact.rot)
    o_in_body2 = frame((0.0, 0.05, -0.01), o_local)
    body2 = peer @ o_in_body2.inverse()
    tolerance = 0.6  # wider than any twist error drawn here
    pose = docked_pose(body1, body2, own, peer, n, tolerance)
    placed = held_body2(body1, pose) @ o_in_body2
    assert np.allclose(placed.pos, own.pos, atol=1e-12)
    assert np.allclose(placed.rot[:, 0], -own.rot[:, 0], atol=1e-9)
    if n:
        remaining = twist_between(own, placed)
        step = 2 * math.pi / n
        assert min(abs(remaining - k * step) for k in range(-n, n + 1)) < 1e-9


def test_docked_pose_keeps_the_twist_without_rotations() -> None:
    body1 = frame((0, 0, 0), (0, 0, 1, 0))
    own = frame((0.05, 0, 0), (0, 0, 1, 0))
    peer = own @ frame((0.003, 0.002, 0), (0, 0, 1, math.pi)) @ frame((0, 0, 0), (1, 0, 0, 0.7))
    body2 = peer @ frame((-0.05, 0, 0), (0, 0, 1, 0.1))
    pose = docked_pose(body1, body2, own, peer, 0, 0.2)
    placed = held_body2(body1, pose) @ (body2.inverse() @ peer)
    assert np.allclose(placed.pos, own.pos, atol=1e-12)
    assert twist_between(own, placed) == pytest.approx(-0.7, abs=1e-12)  # own z to peer z about own x


def test_docked_pose_takes_webots_first_rotation_match() -> None:
    body1 = frame((0, 0, 0), (0, 0, 1, 0))
    own = frame((0, 0, 0), (0, 0, 1, 0))
    peer = own @ frame((0, 0, 0), (0, 0, 1, math.pi)) @ frame((0, 0, 0), (1, 0, 0, 1.4))
    body2 = peer
    wide = held_body2(body1, docked_pose(body1, body2, own, peer, 4, 3.14))
    narrow = held_body2(body1, docked_pose(body1, body2, own, peer, 4, 0.2))
    assert abs(twist_between(own, wide)) == pytest.approx(0.0, abs=1e-12)
    assert abs(twist_between(own, narrow)) == pytest.approx(math.pi / 2, abs=1e-12)


def _facing(alpha: float) -> Frame:
    """A connector facing one with the identity frame (x-axes opposite), its z-axis at ``alpha`` from it."""
    x, z = np.array([-1.0, 0.0, 0.0]), np.array([0.0, -math.sin(alpha), math.cos(alpha)])
    return Frame(np.zeros(3), np.column_stack([x, np.cross(z, x), z]))


def test_docked_pose_takes_the_rotation_webots_loop_reaches() -> None:
    # n = 17: Webots' beta_7 (2pi/17 added 7 times) is 1 ulp below 7 * 2pi/17. With the twist at the upper
    # edge of beta_7's interval by that ulp, Webots' first match is beta_8, a whole step (21 degrees) further.
    n, own = 17, Frame(np.zeros(3), np.eye(3))
    betas = docking_rotations(n)
    assert betas is not None and betas[7] < 7 * (2 * math.pi / n)
    peer = _facing(float(betas[7]) + 0.53 * (2 * math.pi / n))
    alpha = abs(twist_between(own, peer))
    t = alpha - float(betas[7])
    while betas[7] + t > alpha:  # not within beta_7's interval as Webots computes it...
        t = math.nextafter(t, 0.0)
    assert 7 * (2 * math.pi / n) + t > alpha  # ...though within 7 * 2pi/n's
    held = held_body2(own, docked_pose(own, peer, own, peer, n, t, DockingRotations.of([n])))
    assert abs(twist_between(own, held)) == pytest.approx(float(betas[8]), abs=1e-12)
    default = held_body2(own, docked_pose(own, peer, own, peer, n, t))  # the tables made on the spot
    assert abs(twist_between(own, default)) == pytest.approx(float(betas[8]), abs=1e-12)


def test_docked_pose_uses_the_docking_rotations_it_is_given() -> None:
    own = Frame(np.zeros(3), np.eye(3))
    peer = _facing(1.05)
    made_up = DockingRotations(np.array([4]), np.array([0]), np.array([0.0, 1.0, 2.0]), True, False, 0.6)
    held = held_body2(own, docked_pose(own, peer, own, peer, 4, 0.2, made_up))
    assert abs(twist_between(own, held)) == pytest.approx(1.0, abs=1e-12)
    fallback = held_body2(own, docked_pose(own, peer, own, peer, 4, 0.01, made_up))  # none within: the nearest
    assert abs(twist_between(own, fallback)) == pytest.approx(1.0, abs=1e-12)


def test_current_pose_holds_the_bodies_where_they_are() -> None:
    body1 = frame((0.3, 0.1, 0.2), (0.2, 0.3, 1, 0.4))
    body2 = frame((0.5, -0.1, 0.25), (1, 0.3, 0.2, 2.0))
    peer = body2 @ frame((0.01, 0.02, 0.03), (0, 1, 0, 0.3))
    held = held_body2(body1, current_pose(body1, body2, peer))
    assert np.allclose(held.pos, body2.pos, atol=1e-12) and np.allclose(held.rot, body2.rot, atol=1e-12)


def test_weld_data_layout() -> None:
    pose = WeldPose(np.array([1.0, 2, 3]), np.array([4.0, 5, 6]), np.array([1.0, 0, 0, 0]))
    assert pose.data().tolist() == [1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0]


def test_ramp_eases_from_start_to_end() -> None:
    start = WeldPose(np.zeros(3), np.zeros(3), np.array([1.0, 0, 0, 0]))
    end = WeldPose(np.zeros(3), np.array([0.01, 0, 0]), quat_from_axis_angle((0, 0, 1, 0.2)))
    duration = Ramp.duration(start, end)
    assert duration == pytest.approx(max(0.01 / 0.05, 0.2 / 0.5))
    ramp = Ramp()
    ramp.add(3, start, end, 1.0, duration)
    times = np.linspace(1.0, 1.0 + duration, 101)
    positions = np.array([ramp.targets(t)[1][0, 0] for t in times])
    assert positions[0] == 0.0 and positions[-1] == pytest.approx(0.01, abs=1e-15)
    assert np.all(np.diff(positions) >= 0)
    speeds = np.diff(positions) / np.diff(times)
    assert speeds[0] < 0.002 and speeds[-1] < 0.002  # starts and ends at rest
    assert speeds.max() == pytest.approx(1.5 * 0.01 / duration, rel=1e-3)  # smoothstep peak
    slots, _, quat, done = ramp.targets(1.0 + duration * (1 + 1e-12))
    assert slots.tolist() == [3] and done.tolist() == [True]
    assert np.allclose(quat[0], end.quat, atol=1e-12)
    ramp.remove(3)
    assert len(ramp) == 0
