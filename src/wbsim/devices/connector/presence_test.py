"""Presence detection: Webots' rules on hand-built cases, and the vectorised search against the plain loop."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from wbsim.compile.frames import quat_from_axis_angle, quat_to_matrix
from wbsim.devices.connector.presence import (
    ROTATION_TABLE_LIMIT,
    ROTATION_TABLES_BUDGET,
    ConnectorFrames,
    DockingRotations,
    PresenceRules,
    PresenceSearch,
    docking_rotations,
    find_peer_reference,
    find_peers,
    first_rotation_match,
)
from wbsim.devices.connector.schema import ACTIVE, PASSIVE, SYMMETRIC, UNKNOWN


def rules(n: int, type_: int = SYMMETRIC, model: int = 0, distance: float = 0.01, axis: float = 0.2,
          rotation: float = 0.2, rotations: int = 4) -> PresenceRules:
    """The same rules for ``n`` connectors (edit the arrays for per-connector values)."""
    return PresenceRules(
        type=np.full(n, type_, dtype=np.int64), model=np.full(n, model, dtype=np.int64),
        distance_tolerance=np.full(n, distance), distance2=np.full(n, distance * distance),
        axis_tolerance=np.full(n, axis), rotation_tolerance=np.full(n, rotation),
        rotations=np.full(n, rotations, dtype=np.int64))


def frames_of(poses: list[tuple[tuple[float, float, float], tuple[float, float, float, float]]]) -> ConnectorFrames:
    """Frames from (position, Webots axis-angle rotation) pairs."""
    rotations = [quat_to_matrix(quat_from_axis_angle(r)) for _, r in poses]
    return ConnectorFrames(np.array([p for p, _ in poses], dtype=float), np.array([r[:, 0] for r in rotations]),
                           np.array([r[:, 2] for r in rotations]))


FACING = (0.0, 0.0, 1.0, math.pi)  # x-axis along -x: faces a connector at the origin looking along +x


def pair(twist: float = 0.0, gap: float = 0.0, tilt: float = 0.0) -> ConnectorFrames:
    """Connector 0 at the origin facing +x; connector 1 at ``gap`` along x facing it, twisted by ``twist``
    about its x-axis and tilted by ``tilt`` about z."""
    r1 = quat_to_matrix(quat_from_axis_angle((0.0, 0.0, 1.0, math.pi + tilt))) @ \
        quat_to_matrix(quat_from_axis_angle((1.0, 0.0, 0.0, twist)))
    return ConnectorFrames(np.array([[0.0, 0.0, 0.0], [gap, 0.0, 0.0]]), np.array([[1.0, 0.0, 0.0], r1[:, 0]]),
                           np.array([[0.0, 0.0, 1.0], r1[:, 2]]))


def both(frames: ConnectorFrames, r: PresenceRules, row: int) -> int:
    """The vectorised answer, checked equal to the reference loop."""
    fast = int(find_peers(frames, r, np.array([row]))[0])
    assert fast == find_peer_reference(frames, r, row)
    return fast


@pytest.mark.parametrize(("twist_deg", "present"), [(0, True), (90, True), (180, True), (270, True), (45, False),
                                                    (11, True), (12, False), (-11, True), (101, True), (135, False)])
def test_four_rotations(twist_deg: float, present: bool) -> None:
    frames = pair(twist=math.radians(twist_deg))
    assert both(frames, rules(2, rotations=4), 0) == (1 if present else -1)


@pytest.mark.parametrize("twist_deg", [0, 17, 45, 90, 133, 180])
def test_no_rotation_rule_with_zero_rotations(twist_deg: float) -> None:
    assert both(pair(twist=math.radians(twist_deg)), rules(2, rotations=0), 0) == 1


@pytest.mark.parametrize(("n", "twist_deg", "present"), [(1, 0, True), (1, 180, False), (2, 180, True), (2, 90, False),
                                                         (3, 120, True), (3, 180, False), (3, 240, True)])
def test_other_rotation_counts(n: int, twist_deg: float, present: bool) -> None:
    assert both(pair(twist=math.radians(twist_deg)), rules(2, rotations=n), 0) == (1 if present else -1)


def test_first_rotation_match_is_webots_first_not_nearest() -> None:
    # With a tolerance wider than half a step, Webots returns the first match, not the nearest one.
    assert first_rotation_match(1.4, 4, 3.14) == 0.0
    assert first_rotation_match(1.4, 4, 0.2) == pytest.approx(math.pi / 2)
    assert first_rotation_match(0.8, 4, 0.2) == -1.0


def test_axis_tolerance_is_strict_and_only_the_askers_counts() -> None:
    frames = pair(tilt=0.15)
    r = rules(2, axis=0.2)
    r.axis_tolerance[1] = 0.1
    assert both(frames, r, 0) == 1  # 0 tolerates 0.2 rad
    assert both(frames, r, 1) == -1  # 1 tolerates only 0.1 rad
    r.axis_tolerance[:] = 0.0
    assert both(pair(), r, 0) == -1  # angle > pi - 0 never holds


def test_distance_is_inclusive_and_only_the_askers_counts() -> None:
    frames = pair(gap=0.01)
    r = rules(2, distance=0.01)
    r.distance_tolerance[1], r.distance2[1] = 0.005, 0.005 ** 2
    assert both(frames, r, 0) == 1
    assert both(frames, r, 1) == -1
    r.distance_tolerance[:], r.distance2[:] = 0.0, 0.0
    assert both(pair(gap=0.0), r, 0) == 1  # coincident origins with zero tolerance


@pytest.mark.parametrize(("a", "b", "present"), [
    (SYMMETRIC, SYMMETRIC, True), (ACTIVE, PASSIVE, True), (PASSIVE, ACTIVE, True), (ACTIVE, ACTIVE, False),
    (PASSIVE, PASSIVE, False), (SYMMETRIC, ACTIVE, False), (SYMMETRIC, PASSIVE, False), (UNKNOWN, UNKNOWN, False),
    (UNKNOWN, SYMMETRIC, False),
])
def test_type_compatibility(a: int, b: int, present: bool) -> None:
    r = rules(2)
    r.type[:] = (a, b)
    r.derive()
    assert both(pair(), r, 0) == (1 if present else -1)


def test_model_must_match() -> None:
    r = rules(2)
    r.model[1] = 7
    r.derive()
    assert both(pair(), r, 0) == -1


def test_closest_wins_and_ties_go_to_the_first_in_scene_order() -> None:
    frames = frames_of([((0, 0, 0), (0, 0, 1, 0)), ((0.006, 0, 0), FACING), ((0.004, 0, 0), FACING),
                        ((0.004, 0, 0), FACING)])
    assert both(frames, rules(4), 0) == 2


def test_many_queries_at_once_match_one_by_one() -> None:
    frames = frames_of([((0, 0, 0), (0, 0, 1, 0)), ((0.005, 0, 0), FACING), ((1, 1, 1), (0, 0, 1, 0)),
                        ((1.003, 1, 1), FACING), ((5, 5, 5), (0, 0, 1, 0))])
    r = rules(5)
    assert find_peers(frames, r, np.arange(5)).tolist() == [1, 0, 3, 2, -1]
    assert find_peers(frames, r, np.array([], dtype=np.int64)).tolist() == []


def test_far_cells_sharing_a_key_are_told_apart() -> None:
    # 2**20 cells of 2 cm apart along y: the linear cell key of the far one collides with a neighbour's.
    far = 0.02 * (1 << 20)
    frames = frames_of([((0, 0, 0), (0, 0, 1, 0)), ((0.005, far, 0), FACING), ((0.004, 0, 0), FACING)])
    assert find_peers(frames, rules(3), np.array([0])).tolist() == [2]


@st.composite
def worlds(draw: st.DrawFn) -> tuple[ConnectorFrames, PresenceRules]:
    """Connectors clustered in a small box (so many are near each other), random axes, types and rules."""
    n = draw(st.integers(2, 25))
    scale = draw(st.sampled_from([0.005, 0.02, 0.1]))
    floats = st.floats(-1.0, 1.0, allow_nan=False)
    positions = np.array([[draw(floats) * scale for _ in range(3)] for _ in range(n)])
    axes = []
    for _ in range(n):
        rotation = (draw(floats), draw(floats), draw(floats) + 1.5, draw(st.floats(0, 2 * math.pi)))
        axes.append(quat_to_matrix(quat_from_axis_angle(rotation)))
    flip = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    # Make about half face each other along x so that x-alignment passes often.
    matrices = [m if not f else quat_to_matrix(quat_from_axis_angle((0, 0, 1, math.pi))) @ axes[0]
                for m, f in zip(axes, flip)]
    frames = ConnectorFrames(positions, np.array([m[:, 0] for m in matrices]), np.array([m[:, 2] for m in matrices]))
    r = rules(n)
    r.type[:] = draw(st.lists(st.sampled_from([SYMMETRIC, ACTIVE, PASSIVE, UNKNOWN]), min_size=n, max_size=n))
    r.model[:] = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    r.derive()
    tolerance = draw(st.lists(st.sampled_from([0.0, 0.002, 0.01, 0.05]), min_size=n, max_size=n))
    r.distance_tolerance[:] = tolerance
    r.distance2[:] = np.square(tolerance)
    r.axis_tolerance[:] = draw(st.lists(st.floats(0, math.pi), min_size=n, max_size=n))
    r.rotation_tolerance[:] = draw(st.lists(st.floats(0, math.pi), min_size=n, max_size=n))
    # Counts 1..11 have docking rotations i * 2pi/n bit for bit; 12, 17, 30 do not (Webots' running sums).
    r.rotations[:] = draw(st.lists(st.one_of(st.integers(0, 6), st.sampled_from([12, 17, 30])), min_size=n,
                                   max_size=n))
    r.derive()  # the docking rotations of those counts
    return frames, r


@settings(max_examples=300, deadline=None)
@given(worlds())
def test_vectorised_search_matches_the_reference_loop(world: tuple[ConnectorFrames, PresenceRules]) -> None:
    frames, r = world
    n = len(r.type)
    expected = [find_peer_reference(frames, r, row) for row in range(n)]
    assert find_peers(frames, r, np.arange(n)).tolist() == expected
    subset = np.arange(0, n, 2)
    assert find_peers(frames, r, subset).tolist() == [expected[row] for row in subset]


@settings(max_examples=150, deadline=None)
@given(worlds(), st.lists(st.tuples(st.floats(0.0, 0.02), st.booleans(), st.integers(0, 2 ** 31)), min_size=1,
                          max_size=8))
def test_neighbour_list_matches_the_reference_as_connectors_move(world, moves) -> None:
    frames, r = world
    n = len(r.type)
    search = PresenceSearch()
    position = frames.position.copy()
    for size, jump, seed in moves:
        rng = np.random.default_rng(seed)
        position = position + rng.normal(0.0, size, position.shape)  # small drifts...
        if jump:  # ...and a teleport of one connector
            position[rng.integers(n)] += rng.normal(0.0, 0.05, 3)
        moved = ConnectorFrames(position, frames.x_axis, frames.z_axis)
        queries = np.flatnonzero(rng.random(n) < 0.7)
        expected = [find_peer_reference(moved, r, row) for row in queries]
        assert search.find(moved, r, queries).tolist() == expected


def test_neighbour_list_is_reused_while_nothing_moves_far() -> None:
    frames = pair(gap=0.004)
    r = rules(2)
    search = PresenceSearch()
    for _ in range(5):
        assert search.find(frames, r, np.array([0, 1])).tolist() == [1, 0]
    assert search.builds == 1
    nudged = ConnectorFrames(frames.position + [[0.0, 0.004, 0.0], [0, 0, 0]], frames.x_axis, frames.z_axis)
    assert search.find(nudged, r, np.array([0])).tolist() == [1] and search.builds == 1  # within half the skin
    far = ConnectorFrames(frames.position + [[0.0, 0.02, 0.0], [0, 0, 0]], frames.x_axis, frames.z_axis)
    assert search.find(far, r, np.array([0])).tolist() == [-1] and search.builds == 2
    r.distance_tolerance[:], r.distance2[:] = 0.05, 0.05 ** 2
    search.invalidate()
    assert search.find(far, r, np.array([0])).tolist() == [1] and search.builds == 3


def test_distance_at_exactly_the_tolerance_is_inside_like_webots() -> None:
    # Webots sums x*x + y*y + z*z in that order and compares with <=: a candidate whose squared distance is
    # exactly the squared tolerance is present, whatever order another summation would round in.
    rng = np.random.default_rng(3)
    for _ in range(200):
        offset = rng.normal(0.0, 0.004, 3)
        squared = offset[0] * offset[0] + offset[1] * offset[1] + offset[2] * offset[2]
        frames = ConnectorFrames(np.array([[0.0, 0.0, 0.0], -offset]), np.array([[1.0, 0, 0], [-1.0, 0, 0]]),
                                 np.array([[0.0, 0, 1], [0.0, 0, 1]]))
        r = rules(2)
        r.distance_tolerance[:], r.distance2[:] = math.sqrt(squared), squared
        assert find_peers(frames, r, np.array([0])).tolist() == [1] == [find_peer_reference(frames, r, 0)]
        assert PresenceSearch().find(frames, r, np.array([0])).tolist() == [1]


def _first_rotation_loop(alpha: float, n: int, t: float) -> float:
    """Webots' loop, literally (beta accumulated step by step)."""
    step, beta = 2.0 * math.pi / n, 0.0
    for _ in range(n // 2 + 1):
        if beta - t < alpha < beta + t:
            return beta
        beta += step
    return -1.0


@settings(max_examples=500, deadline=None)
@given(st.floats(0, math.pi), st.integers(1, 40), st.floats(0, math.pi))
@example(alpha=3.1415926535897927, n=30, t=2.220446049250313e-16)  # beta_15 is pi - 1 ulp in Webots' loop
def test_first_rotation_match_agrees_with_webots_loop(alpha: float, n: int, t: float) -> None:
    assert first_rotation_match(alpha, n, t) == _first_rotation_loop(alpha, n, t)  # bit for bit


def test_docking_rotations_are_webots_running_sums_bit_for_bit() -> None:
    for n in [*range(1, 200), 1001, 2 * ROTATION_TABLE_LIMIT, 2 * ROTATION_TABLE_LIMIT + 1]:
        step, beta, sums = 2.0 * math.pi / n, 0.0, []
        for _ in range(n // 2 + 1):
            sums.append(beta)
            beta += step
        assert docking_rotations(n).tolist() == sums  # type: ignore[union-attr]
    assert docking_rotations(30)[15] == 3.1415926535897927 != math.pi  # type: ignore[index]
    assert docking_rotations(0) is None and docking_rotations(2 * ROTATION_TABLE_LIMIT + 2) is None


def test_first_rotation_match_is_direct_for_huge_counts() -> None:
    n = 10 ** 12
    assert DockingRotations.of([n]).table(n) is None  # no table of 5e11 rotations: i * 2pi/n, found directly
    assert first_rotation_match(0.3, n, 0.2) == pytest.approx(0.1, abs=1e-9)  # the first above 0.1, not 0
    assert first_rotation_match(0.0, n, 0.0) == -1.0
    # Just beyond the table limit: i * step (Webots' loop sums drift from it by about n/11 ulps, see below).
    n = 2 * ROTATION_TABLE_LIMIT + 2
    assert first_rotation_match(1.0, n, 0.5 * math.pi / n) == pytest.approx(1.0, abs=math.pi / n)


def _drift_ulps(n: int) -> float:
    """The largest distance, in ulps of pi, between Webots' running sums and ``i * 2pi/n`` (a C-style loop)."""
    step, beta, worst = 2.0 * math.pi / n, 0.0, 0.0
    for i in range(n // 2 + 1):
        worst = max(worst, abs(beta - i * step))
        beta += step
    return worst / math.ulp(math.pi)


def test_running_sums_drift_from_i_step_as_the_docs_say() -> None:
    # docs/connector.md, point 3: exact up to 11 rotations, one ulp for 30, tens of ulps for 1000, thousands at
    # the table limit and beyond it (so counts without a table are answered as i * 2pi/n, not within ulps).
    assert all(_drift_ulps(n) == 0.0 for n in range(1, 12))
    assert _drift_ulps(30) == 1.0 and _drift_ulps(1000) == 50.0
    assert _drift_ulps(2 * ROTATION_TABLE_LIMIT + 1) == 8503.0  # the largest count with a table
    assert _drift_ulps(2 * ROTATION_TABLE_LIMIT + 2) == 1288.0  # the smallest without
    assert DockingRotations.of([2 * ROTATION_TABLE_LIMIT + 1]).deviation == 8503.0 * math.ulp(math.pi)


def test_tables_of_many_large_counts_stay_within_the_budget() -> None:
    # 1000 distinct counts just under the table limit: half a GiB of tables (and 2 s at every derive()) unless the
    # tables share a budget; the smallest counts get theirs first, the others use i * 2pi/n.
    counts = np.arange(2 * ROTATION_TABLE_LIMIT - 1998, 2 * ROTATION_TABLE_LIMIT + 2)
    docking = DockingRotations.of(counts)
    assert len(docking.betas) <= ROTATION_TABLES_BUDGET
    smallest, largest = int(counts[0]), int(counts[-1])
    assert docking.table(smallest).tolist() == docking_rotations(smallest).tolist()  # type: ignore[union-attr]
    assert docking.table(largest) is None and not docking.complete
    assert (docking.start >= 0).tolist() == sorted((docking.start >= 0).tolist(), reverse=True)  # a prefix
    # Every count of a world with that many still answers as the reference (each its table or i * 2pi/n).
    r = rules(4, rotation=0.3 * math.pi / smallest)
    r.rotations[:] = [smallest, smallest, largest, largest]
    r.derive()
    frames = ConnectorFrames(np.array([[0.0, 0.0, 0.0], [0.004, 0.0, 0.0], [1.0, 0.0, 0.0], [1.004, 0.0, 0.0]]),
                             np.array([[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]] * 2),
                             np.array([[0.0, 0.0, 1.0], [0.0, -math.sin(1.0), math.cos(1.0)]] * 2))
    for row in range(4):
        assert find_peers(frames, r, np.array([row])).tolist() == [find_peer_reference(frames, r, row)]


def test_rotations_without_their_table_are_refused() -> None:
    r = rules(2, rotations=4)
    r.rotations[0] = 30  # changed without derive()
    with pytest.raises(ValueError, match="numberOfRotations 30"):
        find_peer_reference(pair(), r, 0)
    with pytest.raises(ValueError, match="numberOfRotations 30"):
        find_peers(pair(), r, np.array([0]))
    r.derive()
    assert both(pair(), r, 0) == 1


def test_anti_parallel_z_axes_miss_webots_last_rotation_by_its_ulp() -> None:
    # n = 30: Webots' beta_15 is pi - 1 ulp, so z-axes exactly opposite (alpha = pi) with a tolerance of one ulp
    # are not docked (beta + t rounds to pi, and pi < pi is false), while i * 2pi/n = pi would dock them.
    ulp = math.pi - 3.1415926535897927
    x = np.array([[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]])
    frames = _two(x, np.array([[0.0, 0.0, 1.0], [0.0, 0.0, -1.0]]))
    for t, present in ((ulp, False), (2 * ulp, True)):
        r = rules(2, rotation=t, rotations=30)
        expected = 1 if present else -1
        assert find_peer_reference(frames, r, 0) == expected
        assert find_peers(frames, r, np.array([0])).tolist() == [expected]
        assert PresenceSearch().find(frames, r, np.array([0])).tolist() == [expected]


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.integers(1, 60), st.sampled_from([1000, 2 * ROTATION_TABLE_LIMIT, 2 * ROTATION_TABLE_LIMIT + 2,
                                                      10 ** 9])), st.data())
def test_vectorised_search_agrees_with_the_reference_at_rotation_edges(n: int, data: st.DataObject) -> None:
    # The twist angle put on an edge of a docking rotation's interval (Webots' beta_i +- t), to within a few
    # ulps: the oracle follows Webots' loop literally (counts with a table), and the grid search and the
    # neighbour list follow the oracle (i * 2pi/n beyond the table limit).
    betas = docking_rotations(n)
    i = data.draw(st.integers(0, n // 2))
    beta = float(betas[i]) if betas is not None else i * (2.0 * math.pi / n)
    offset = data.draw(st.one_of(st.sampled_from([0.0, 1e-16, 1e-12, 1e-6]), st.floats(0.0, 2.0 * math.pi / n),
                                 st.floats(0.0, math.pi)))
    angle = min(max(beta + data.draw(st.sampled_from([-1.0, 1.0])) * offset, 0.0), math.pi)
    z = np.array([[0.0, 0.0, 1.0], [0.0, -math.sin(angle), math.cos(angle)]])
    frames = _two(np.array([[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]]), z)
    dot = float(z[0, 0] * z[1, 0] + z[0, 1] * z[1, 1] + z[0, 2] * z[1, 2])
    alpha = 0.0 if dot >= 1.0 else math.pi if dot <= -1.0 else math.acos(dot)  # as Webots computes it
    ulps = data.draw(st.integers(-3, 3))
    t = min(max(abs(alpha - beta) + ulps * 2.0 ** -52, 0.0), math.pi)
    r = rules(2, rotation=t, rotations=n)
    expected = find_peer_reference(frames, r, 0)
    if betas is not None:
        assert expected == (1 if _first_rotation_loop(alpha, n, t) != -1.0 else -1)
    assert find_peers(frames, r, np.array([0])).tolist() == [expected]
    search = PresenceSearch()
    assert search.find(frames, r, np.array([0])).tolist() == [expected]
    for turn in (1e-15, -3e-15, 1e-12, -1e-9, 1e-6):  # tiny turns: the last answer is reused only if it holds
        turned = angle + turn
        frames = _two(frames.x_axis, np.array([[0.0, 0.0, 1.0], [0.0, -math.sin(turned), math.cos(turned)]]))
        assert search.find(frames, r, np.array([0])).tolist() == [find_peer_reference(frames, r, 0)]


def test_one_wide_tolerance_does_not_fill_the_neighbour_list() -> None:
    rng = np.random.default_rng(5)
    n = 400
    frames = ConnectorFrames(rng.uniform(0, 2, (n, 3)), np.tile([1.0, 0, 0], (n, 1)), np.tile([0.0, 0, 1], (n, 1)))
    frames.x_axis[::2] *= -1  # half of them face the other way
    r = rules(n, rotations=0)
    r.distance_tolerance[7], r.distance2[7] = 2.0, 4.0
    search = PresenceSearch()
    found = search.find(frames, r, np.arange(n))
    assert found.tolist() == [find_peer_reference(frames, r, row) for row in range(n)]
    assert found[7] >= 0 and len(search._asker) < 10 * n  # not every pair


def _turned(axes: np.ndarray, angles: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each unit row turned by its angle (rad) about a random axis (Rodrigues)."""
    k = rng.normal(size=axes.shape)
    k /= np.linalg.norm(k, axis=1, keepdims=True)
    c, s = np.cos(angles)[:, None], np.sin(angles)[:, None]
    return axes * c + np.cross(k, axes) * s + k * (np.einsum("ij,ij->i", k, axes)[:, None]) * (1 - c)


@settings(max_examples=150, deadline=None)
@given(worlds(), st.lists(st.tuples(st.sampled_from([0.0, 1e-9, 1e-6, 1e-4, 3e-3]), st.integers(0, 2 ** 31)),
                          min_size=2, max_size=10))
def test_answers_reused_at_rest_match_the_reference_as_connectors_jitter(world, moves) -> None:
    # Small moves and turns of every connector (rest jitter up to a few mm and mrad): whether the last answer
    # is reused or recomputed, it is the reference loop's.
    frames, r = world
    n = len(r.type)
    search = PresenceSearch()
    position, x_axis, z_axis = frames.position.copy(), frames.x_axis.copy(), frames.z_axis.copy()
    queries = np.arange(n)
    for size, seed in moves:
        rng = np.random.default_rng(seed)
        position = position + rng.normal(0.0, size, position.shape)
        turn = np.abs(rng.normal(0.0, size, n))
        x_axis = _turned(x_axis, turn, rng)
        z_axis = _turned(z_axis, turn, rng)
        moved = ConnectorFrames(position, x_axis, z_axis)
        expected = [find_peer_reference(moved, r, row) for row in queries]
        assert search.find(moved, r, queries).tolist() == expected


def test_a_resting_raft_reuses_its_answer_until_a_connector_turns_out_of_tolerance() -> None:
    frames = pair(gap=0.004)
    r = rules(2)
    search = PresenceSearch()
    jitter = np.array([[1e-9, -2e-9, 0.0], [0.0, 1e-9, 3e-9]])
    for k in range(6):
        still = ConnectorFrames(frames.position + (k % 2) * jitter, frames.x_axis, frames.z_axis)
        assert search.find(still, r, np.array([0, 1])).tolist() == [1, 0]
    assert search.reuses == 5 and search.builds == 1
    tilted = pair(gap=0.004, tilt=0.25)  # beyond the axis tolerance (0.2 rad): recomputed, no peer
    assert search.find(tilted, r, np.array([0, 1])).tolist() == [-1, -1] == [
        find_peer_reference(tilted, r, 0), find_peer_reference(tilted, r, 1)]
    assert search.reuses == 5


def _two(x_axis: np.ndarray, z_axis: np.ndarray, gap: float = 0.004) -> ConnectorFrames:
    return ConnectorFrames(np.array([[0.0, 0.0, 0.0], [gap, 0.0, 0.0]]), x_axis, z_axis)


def test_tolerances_exactly_at_the_angle_use_c_acos_as_webots() -> None:
    # numpy's vectorised arccos differs from C's acos by an ulp for some inputs: at an edge that decides.
    rng = np.random.default_rng(1)
    cases = 0
    for _ in range(20000):
        theta = rng.uniform(0.05, 1.0)
        x = np.array([[1.0, 0.0, 0.0], [-math.cos(theta), math.sin(theta), 0.0]])
        dot = float(x[0, 0] * x[1, 0] + x[0, 1] * x[1, 1] + x[0, 2] * x[1, 2])
        if np.arccos(np.array([dot, dot]))[0] == math.acos(dot) or math.pi - (math.pi - math.acos(dot)) != math.acos(dot):
            continue
        r = rules(2, axis=math.pi - math.acos(dot), rotations=0)
        frames = _two(x, np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]))
        assert find_peers(frames, r, np.array([0])).tolist() == [find_peer_reference(frames, r, 0)]
        assert PresenceSearch().find(frames, r, np.array([0])).tolist() == [find_peer_reference(frames, r, 0)]
        cases += 1
        if cases == 3:
            break
    for _ in range(20000):
        alpha = rng.uniform(0.05, 0.7)
        z = np.array([[0.0, 0.0, 1.0], [0.0, -math.sin(alpha), math.cos(alpha)]])
        dot = float(z[0, 2] * z[1, 2] + z[0, 1] * z[1, 1])
        if np.arccos(np.array([dot, dot]))[0] == math.acos(dot):
            continue
        r = rules(2, rotation=math.acos(dot), rotations=4)
        frames = _two(np.array([[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]]), z)
        assert find_peers(frames, r, np.array([0])).tolist() == [find_peer_reference(frames, r, 0)]
        cases += 1
        if cases == 6:
            break
    assert cases == 6


def test_a_tiny_rotation_tolerance_near_zero_twist_is_not_reused_past_acos_rounding() -> None:
    # Near alpha = 0, one ulp of the dot product moves acos by ~1e-8 rad: a 1e-13 rad turn can flip the answer.
    a1 = 1e-6
    while math.cos(a1) == math.cos(a1 + 1e-13):
        a1 += 3.7e-14
    a2 = a1 + 1e-13
    t = (math.acos(math.cos(a1)) + math.acos(math.cos(a2))) / 2
    r = rules(2, rotation=t, rotations=4)
    search = PresenceSearch()
    for alpha in (a2, a1):
        frames = _two(np.array([[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]]),
                      np.array([[0.0, 0.0, 1.0], [0.0, -math.sin(alpha), math.cos(alpha)]]))
        assert search.find(frames, r, np.array([0])).tolist() == [find_peer_reference(frames, r, 0)]


def test_webots_far_limit_is_a_distance_edge_too() -> None:
    # With tolerances above sqrt(99999.9) m, Webots' initial min2 decides: the answer must follow it.
    r = rules(2, distance=400.0)
    search = PresenceSearch()
    answers = []
    for gap in (316.3, 316.25, 316.2):
        frames = _two(np.array([[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]]), np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]), gap)
        answers.append(search.find(frames, r, np.array([0])).tolist()[0])
        assert answers[-1] == find_peer_reference(frames, r, 0)
    assert answers == [-1, -1, 1]
