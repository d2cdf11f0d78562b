"""Which connector a connector would dock with (Webots' ``WbConnector::detectPresence``), for many at once.

For the asking connector C and every other connector O of the world (outside Robots too), O is a
candidate if (``isReadyToAttachTo``, only C's tolerances count):

1. the types are compatible (symmetric-symmetric, active-passive, passive-active) and the ``model``
   strings are equal;
2. the x-axes (docking normals) are anti-parallel within C's ``axisTolerance``:
   ``angle(x_C, x_O) > pi - axisTolerance`` (strict);
3. the z-axes match one of C's docking rotations: with ``n = numberOfRotations`` (0: always) and
   ``alpha = angle(z_C, z_O)``, ``beta_i - t < alpha < beta_i + t`` for some ``i`` in ``0..n//2``,
   ``t = rotationTolerance`` (the z-axes are compared directly, not projected on the docking plane),
   where ``beta_i`` is ``2pi/n`` added ``i`` times to 0.0 as Webots' loop does (up to about ``n/11`` ulps
   from ``i * 2pi/n``; see :class:`DockingRotations`);
4. the origins are within C's ``distanceTolerance``: ``|p_C - p_O|^2 <= distanceTolerance^2`` (inclusive).

The closest candidate wins (the first one in scene order on a tie). Whether O is already linked does
not matter here.

:func:`find_peers` answers many queries in one vectorised pass: the connector origins are hashed into
a uniform grid whose cells are twice as large as the largest tolerance asked, so each query only meets
the connectors of the 8 cells around it (cost about linear in the number of connectors and queries,
never all pairs). :class:`PresenceSearch` keeps that result from step to step as a neighbour list with
a skin (a Verlet list): while no connector has moved more than half the skin, a step only re-tests the
listed pairs. :func:`find_peer_reference` is the plain loop over every connector, kept as the oracle the
tests compare both with.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from wbsim.devices.connector.schema import ACTIVE, PASSIVE, SYMMETRIC, UNKNOWN

__all__ = [
    "PresenceRules", "ConnectorFrames", "PresenceSearch", "find_peers", "find_peer_reference", "first_rotation_match",
    "compatible_types", "DockingRotations", "docking_rotations", "ROTATION_TABLE_LIMIT", "ROTATION_TABLES_BUDGET",
]

_FAR2 = 99999.9
"""Webots' initial ``min2``: a candidate must also be closer than sqrt(99999.9) m."""
_MIN_CELL = 1e-9
"""Grid cell size used when every tolerance asked is 0 (only coincident origins match)."""
_MIN_SKIN = 1e-3
"""The smallest skin of a neighbour list (m), for worlds whose tolerances are all 0."""
_WIDE = 0.05
"""A tolerance (m) under which a connector is never searched apart from the neighbour list."""


@functools.cache
def _partner_types() -> np.ndarray:
    """The type each type docks with (read only): symmetric-symmetric, active-passive, passive-active."""
    table = np.array([SYMMETRIC, PASSIVE, ACTIVE, UNKNOWN], dtype=np.int64)
    table.flags.writeable = False
    return table


@functools.cache
def compatible_types() -> np.ndarray:
    """A read-only (4, 4) table: ``[type_C, type_O]`` is True for the pairs that may dock."""
    table = np.zeros((4, 4), dtype=bool)
    table[SYMMETRIC, SYMMETRIC] = table[ACTIVE, PASSIVE] = table[PASSIVE, ACTIVE] = True
    table.flags.writeable = False
    return table


@functools.cache
def _octant_bits() -> np.ndarray:
    """Weights turning (upper half in x, in y, in z) into an octant number 0..7 (read only)."""
    bits = np.array([4, 2, 1], dtype=np.int64)
    bits.flags.writeable = False
    return bits


@functools.cache
def _octant_offsets() -> np.ndarray:
    """Key offsets of the 8 cells around the corner of a cell nearest to a point, by the point's octant in
    its cell (bit 2: upper half in x, bit 1: in y, bit 0: in z), read only, (8, 8)."""
    weights = _key_weights()
    table = np.zeros((8, 8), dtype=np.int64)
    for octant in range(8):
        toward = [1 if octant & bit else -1 for bit in (4, 2, 1)]
        for corner in range(8):
            table[octant, corner] = sum(toward[a] * weights[a] for a, bit in enumerate((4, 2, 1)) if corner & bit)
    table.flags.writeable = False
    return table


@functools.cache
def _key_weights() -> np.ndarray:
    """A grid cell's key is ``cells @ _key_weights()``: linear, so the key of a neighbouring cell is the key
    plus the offset's key and a true neighbour is never missed; beyond 2**19 cells from the origin two
    cells may share a key, which only adds candidates that the distance test removes. Read only."""
    weights = np.array([1 << 40, 1 << 20, 1], dtype=np.int64)
    weights.flags.writeable = False
    return weights


ROTATION_TABLE_LIMIT = 65_536
"""The largest ``numberOfRotations // 2`` given a table of Webots' docking rotations (512 KiB). Beyond it
``beta_i = i * 2pi/n`` is used instead of Webots' running sum. The sum drifts from ``i * 2pi/n`` by about ``n/11``
ulps of pi (one ulp for 30 rotations, 50 for 1000, 8503 at the limit; 3e-8 rad, ten steps, at 2**31 - 1), so
such counts can be answered differently from Webots for angles within that drift of a tolerance's edge (and
their rotations are at most 48 microradians apart, far below any physical meaning)."""

ROTATION_TABLES_BUDGET = 1 << 18
"""The most entries (2 MiB) of all the tables of one set of rules together: the smallest counts get theirs
first, the larger ones use ``i * 2pi/n`` as counts beyond :data:`ROTATION_TABLE_LIMIT` do (without it, 1000
distinct counts near the limit would make half a GiB of tables at every :meth:`PresenceRules.derive`)."""


def docking_rotations(rotations: int) -> np.ndarray | None:
    """Webots' docking rotations for ``numberOfRotations = rotations`` (rad, read only, (rotations//2 + 1,)), or
    None for ``rotations <= 0`` and for counts too large for a table (see :data:`ROTATION_TABLE_LIMIT`).

    ``findClosestRotationalAlignment`` starts at ``beta = 0.0`` and adds ``2pi/n`` once per index, so its
    ``beta_i`` are the sequential floating-point sums, which drift from ``i * 2pi/n`` by up to about ``n/11``
    ulps of pi (for ``n = 30``, ``beta_15`` is 3.1415926535897927, not pi): ``np.add.accumulate`` adds in the
    same order, bit for bit.
    """
    half = rotations // 2
    if rotations <= 0 or half > ROTATION_TABLE_LIMIT:
        return None
    steps = np.full(half + 1, 2.0 * math.pi / rotations)
    steps[0] = 0.0
    betas = np.add.accumulate(steps)
    betas.flags.writeable = False
    return betas


@dataclass(frozen=True, eq=False)
class DockingRotations:
    """Webots' docking rotations of every distinct ``numberOfRotations`` of a set of connectors, made once
    (:meth:`of`) where their rules are built, and looked up by count.

    Attributes:
        counts: the distinct counts > 0, sorted, int64 (c,).
        start: where each count's ``beta_0`` is in ``betas``; -1 for a count too large for a table, or beyond
            :data:`ROTATION_TABLES_BUDGET` (its rotations are ``i * 2pi/n``), int64 (c,).
        betas: the tables of the counts, one after the other, rad, (m,).
        complete: every count has a table.
        exact: every table is ``i * 2pi/n`` bit for bit (so are those of 1 to 11 rotations), which is then
            computed instead of looked up.
        deviation: the largest ``|beta_i - i * 2pi/n|`` of the tables, rad (0 if exact).
    """

    counts: np.ndarray
    start: np.ndarray
    betas: np.ndarray
    complete: bool
    exact: bool
    deviation: float

    @classmethod
    def of(cls, rotations: np.ndarray | list[int]) -> DockingRotations:
        """The tables of the distinct positive counts in ``rotations``, the smallest first while they fit in
        :data:`ROTATION_TABLES_BUDGET`."""
        counts = np.unique(np.asarray(rotations, dtype=np.int64))
        counts = counts[counts > 0]
        start = np.full(len(counts), -1, dtype=np.int64)
        tables, size, deviation = [], 0, 0.0
        for k, count in enumerate(counts.tolist()):  # ascending: the tables that fit are a prefix
            if size + count // 2 + 1 > ROTATION_TABLES_BUDGET:
                break
            table = docking_rotations(count)
            if table is not None:
                start[k] = size
                size += len(table)
                tables.append(table)
                direct = np.arange(len(table)) * (2.0 * math.pi / count)
                deviation = max(deviation, float(np.abs(table - direct).max()))
        betas = np.concatenate(tables) if tables else np.zeros(0)
        for array in (counts, start, betas):
            array.flags.writeable = False
        return cls(counts, start, betas, bool((start >= 0).all()), deviation == 0.0, deviation)

    def _missing(self, count: int) -> ValueError:
        return ValueError(f"no docking rotations for numberOfRotations {count}: call PresenceRules.derive() after "
                          "changing rotations")

    def table(self, count: int) -> np.ndarray | None:
        """The rotations of ``count`` (a view of ``betas``), or None if it has no table (``i * 2pi/n``).

        Raises:
            ValueError: ``count`` was not among the counts the tables were made for.
        """
        k = int(np.searchsorted(self.counts, count))
        if k == len(self.counts) or self.counts[k] != count:
            raise self._missing(count)
        start = int(self.start[k])
        return None if start < 0 else self.betas[start:start + count // 2 + 1]

    def starts(self, counts: np.ndarray) -> np.ndarray:
        """``start`` for each of ``counts`` (int64 (k,), each > 0), -1 where there is no table.

        Raises:
            ValueError: one of ``counts`` was not among the counts the tables were made for.
        """
        if len(self.counts) == 1:  # one count in the world (the usual case)
            if counts.min() != self.counts[0] or counts.max() != self.counts[0]:
                raise self._missing(int(counts[counts != self.counts[0]][0]))
            return np.full(len(counts), self.start[0])
        k = np.minimum(np.searchsorted(self.counts, counts), max(len(self.counts) - 1, 0))
        if not len(self.counts) or not np.array_equal(self.counts[k], counts):
            wrong = counts if not len(self.counts) else counts[self.counts[k] != counts]
            raise self._missing(int(wrong[0]))
        return self.start[k]


@dataclass
class PresenceRules:
    """What presence depends on besides the poses, one entry per connector (arrays updated in place).

    Attributes:
        type: face type codes (``SYMMETRIC``, ``ACTIVE``, ``PASSIVE``, ``UNKNOWN``), int64 (n,).
        model: an integer per distinct ``model`` string (equal codes = equal strings), int64 (n,).
        distance_tolerance: m, (n,).
        distance2: ``distance_tolerance ** 2`` as Webots computes it (``mMinDist2``), m^2, (n,).
        axis_tolerance: rad, in [0, pi], (n,).
        rotation_tolerance: rad, in [0, pi], (n,).
        rotations: ``numberOfRotations`` (>= 0), int64 (n,).
        family: derived from ``type`` and ``model`` by :meth:`derive` (call it after changing them): a
            code per (model, type), int64 (n,).
        partner: the ``family`` a connector can dock with (-1: none, e.g. an unknown type), int64 (n,).
        docking: Webots' docking rotations of every count in ``rotations``, made by :meth:`derive` (call it
            after changing ``rotations``; a search with a count it has no rotations for raises ValueError).
    """

    type: np.ndarray
    model: np.ndarray
    distance_tolerance: np.ndarray
    distance2: np.ndarray
    axis_tolerance: np.ndarray
    rotation_tolerance: np.ndarray
    rotations: np.ndarray
    family: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    partner: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    docking: DockingRotations = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.derive()

    def derive(self) -> None:
        """Recompute ``family`` and ``partner`` from ``type`` and ``model`` (in place once sized), and
        ``docking`` from ``rotations``."""
        self.docking = DockingRotations.of(self.rotations)
        family = self.model * 4 + self.type
        partner = np.where(self.type == UNKNOWN, -1, self.model * 4 + _partner_types()[self.type])
        if self.family.shape == family.shape:
            self.family[:], self.partner[:] = family, partner
        else:
            self.family, self.partner = family, partner


@dataclass(frozen=True)
class ConnectorFrames:
    """Where every connector is, in world coordinates.

    Attributes:
        position: origins, m, (n, 3).
        x_axis: docking normals (unit), (n, 3).
        z_axis: rotation references (unit), (n, 3).
    """

    position: np.ndarray
    x_axis: np.ndarray
    z_axis: np.ndarray


def _dots(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise dot products summed ``x + y + z`` in that order, as Webots and the reference loop do (einsum
    may sum in another order, and the tests at the tolerances' edges must give the same answer)."""
    return a[:, 0] * b[:, 0] + a[:, 1] * b[:, 1] + a[:, 2] * b[:, 2]


def _angles(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Angles (rad, in [0, pi]) between rows of unit vectors, as Webots' ``unitVectorsAngle`` (numpy's
    vectorised ``arccos``: it may differ from C's ``acos`` by an ulp, see :func:`_acos`)."""
    return np.arccos(np.clip(_dots(a, b), -1.0, 1.0))


def _acos(dots: np.ndarray) -> np.ndarray:
    """C's ``acos`` (``math.acos``) of a few values in [-1, 1], as Webots computes them: numpy's vectorised
    ``arccos`` differs from it by an ulp for about one value in ten, which decides tests at their edges."""
    return np.array([math.acos(d) for d in dots.tolist()])


_ALPHA_EDGE = 1e-12
"""Twist angles this close to an edge of an allowed interval are recomputed with C's ``acos``."""


def _grid_pairs(position: np.ndarray, queries: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """Every (query index, connector) pair whose connector lies in one of the grid cells that can hold points
    within ``radius`` of the query (a superset of the pairs within ``radius``; the asker itself included).

    The cells are ``2 * radius`` wide, so the ball around a query lies in the 2 x 2 x 2 cells around the
    corner of its cell nearest to it: 8 lookups per query in the sorted cell keys.

    Returns:
        ``query_index`` (into ``queries``) and ``candidate`` (row), int64 (k,) each.
    """
    scaled = position / max(2.0 * radius, _MIN_CELL)
    cells = np.floor(scaled).astype(np.int64)
    keys = cells @ _key_weights()
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    first = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    cell_keys = sorted_keys[first]
    cell_count = np.diff(np.r_[first, len(keys)])
    # Towards the nearer half of its cell on each axis: the 8 cells around that corner.
    octant = (scaled[queries] - cells[queries] >= 0.5) @ _octant_bits()
    around = (keys[queries][:, None] + _octant_offsets()[octant]).ravel()
    found = np.minimum(np.searchsorted(cell_keys, around), len(cell_keys) - 1)
    hits = np.flatnonzero(cell_keys[found] == around)
    counts = cell_count[found[hits]]
    # One pair per (query, connector in a cell around it): expand the sorted ranges of the cells hit.
    query_index = np.repeat(hits >> 3, counts)
    within = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    return query_index, order[np.repeat(first[found[hits]], counts) + within]


_BAND = 1e-9
"""Around ``cos(pi - axisTolerance)``, dot products this close are tested with Webots' ``acos`` itself (away
from it, comparing the cosine gives the same answer as comparing the angle)."""


def _anti_parallel(dots: np.ndarray, tolerance: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """Webots' ``angle(x_C, x_O) > pi - axisTolerance`` from the x-axes' dot products, (k,) bool.

    Args:
        dots: the dot products, clipped to [-1, 1].
        tolerance: the askers' axis tolerances (rad).
        limit: ``cos(pi - tolerance)``.
    """
    aligned = dots < limit
    near = np.flatnonzero(np.abs(dots - limit) <= _BAND)
    if len(near):  # at the edge: the exact test, as Webots computes it
        aligned[near] = _acos(dots[near]) > math.pi - tolerance[near]
    return aligned


@dataclass
class Guards:
    """How far the answer of :func:`_select` is from changing: it stays the same while every pair's distance
    changes by less than ``distance`` (m) and every angle between two connectors' axes by less than
    ``angle`` (rad). Both 0 when unknown.

    Attributes:
        distance: the smallest margin of a distance test, or half the gap between a query's two closest
            passing candidates, m.
        angle: the smallest margin of an angle test that decides a pair (rad; for the x-axes, a margin in
            cosine, which bounds the angle's: ``|d cos| <= |d angle|``).
    """

    distance: float = 0.0
    angle: float = 0.0


def _select(frames: ConnectorFrames, rules: PresenceRules, queries: np.ndarray, query_index: np.ndarray,
            candidate: np.ndarray, screened: bool = False, axis_limit: np.ndarray | None = None,
            guards: Guards | None = None) -> np.ndarray:
    """Apply Webots' tests to candidate pairs and keep the closest passing candidate of each query.

    Args:
        queries: the rows asking, (q,).
        query_index: for each pair, the index of its asker in ``queries``, (k,).
        candidate: for each pair, the other connector's row, (k,).
        screened: the pairs are known to be of compatible families and not the asker itself.
        axis_limit: ``cos(pi - axis_tolerance)`` per connector (n,), if already known.
        guards: if given, filled with how far the answer is from changing (see :class:`Guards`).

    Returns:
        The detected row for each query, -1 for none, int64 (q,).
    """
    result = np.full(len(queries), -1, dtype=np.int64)
    asker = queries[query_index]
    position = frames.position
    # Cheap tests first (most candidates are the asker itself or out of reach), then the angles. np.take
    # gathers rows several times faster than fancy indexing.
    offset = np.take(position, asker, axis=0) - np.take(position, candidate, axis=0)
    distance2 = _dots(offset, offset)
    near = (distance2 <= np.take(rules.distance2, asker)) & (distance2 < _FAR2)
    if not screened:
        near &= (rules.partner[asker] == rules.family[candidate]) & (candidate != asker)
    keep = np.flatnonzero(near)
    if guards is not None:
        # Pairs out of reach stay out while their distance changes by less than their margin; the kept ones
        # are guarded below by the tests that decide them.
        distance = np.sqrt(distance2)
        margin = np.minimum(np.abs(distance - np.sqrt(np.take(rules.distance2, asker))),
                            abs(distance - math.sqrt(_FAR2)))
        guards.distance = float(margin[~near].min()) if len(keep) < len(near) else math.inf
        guards.angle = math.inf
        reach = margin[keep]
    if not len(keep):
        return result
    query_index, candidate, asker, distance2 = query_index[keep], candidate[keep], asker[keep], distance2[keep]
    dots = _dots(np.take(frames.x_axis, asker, axis=0), np.take(frames.x_axis, candidate, axis=0))
    np.maximum(dots, -1.0, out=dots)
    np.minimum(dots, 1.0, out=dots)
    tolerance = np.take(rules.axis_tolerance, asker)
    limit = np.cos(math.pi - tolerance) if axis_limit is None else np.take(axis_limit, asker)
    aligned = _anti_parallel(dots, tolerance, limit)
    if guards is not None:  # every kept pair: its x-axes test decides it or must keep passing
        guards.angle = float(np.abs(dots - limit).min())
    n = np.take(rules.rotations, asker)
    twisted = np.flatnonzero(aligned & (n > 0))
    if len(twisted):
        z_dots = np.clip(_dots(np.take(frames.z_axis, asker[twisted], axis=0),
                               np.take(frames.z_axis, candidate[twisted], axis=0)), -1.0, 1.0)
        alpha = np.arccos(z_dots)
        matched, edge = _rotation_test(alpha, z_dots, n[twisted], np.take(rules.rotation_tolerance, asker[twisted]),
                                       rules.docking)
        aligned[twisted] = matched
        if guards is not None:
            # acos is ill-conditioned near 0 and pi: a rounding of the dot product (a few 1e-16) moves the
            # computed angle by up to about 1e-16 / sin(alpha), which the margin must leave room for.
            slack = 1e-15 / np.maximum(np.sin(alpha), 1e-8)
            # The nearest rotation is picked by i * 2pi/n: Webots' may be nearer by twice their deviation.
            guards.angle = min(guards.angle, float((edge - 2.0 * slack).min()) - 2.0 * rules.docking.deviation)
    if guards is not None and aligned.any():  # a passing pair must also stay within reach
        guards.distance = min(guards.distance, float(reach[aligned].min()))
    query_index, candidate, distance2 = query_index[aligned], candidate[aligned], distance2[aligned]
    if not len(candidate):
        return result
    if np.bincount(query_index).max() == 1:  # one candidate per query (the usual case): nothing to rank
        result[query_index] = candidate
        return result
    # The closest per query; on a tie the first in scene order (Webots keeps the first strictly closer one).
    ranked = np.lexsort((candidate, distance2, query_index))
    starts = np.r_[True, query_index[ranked][1:] != query_index[ranked][:-1]]
    first = ranked[starts]
    result[query_index[first]] = candidate[first]
    if guards is not None:  # the winner stays the closest while the gap to the runner-up holds
        runner = np.flatnonzero(~starts & np.r_[False, starts[:-1]])  # the second of each query with several
        if len(runner):
            gap = np.sqrt(distance2[ranked[runner]]) - np.sqrt(distance2[ranked[runner - 1]])
            guards.distance = min(guards.distance, float(gap.min()) / 2.0)
    return result


def _betas(docking: DockingRotations, start: np.ndarray, index: np.ndarray, step: np.ndarray) -> np.ndarray:
    """``beta_index`` (rad) of counts whose tables start at ``start`` (-1: none, then ``index * step``); the
    arrays broadcast together (``index``: whole numbers, float or int)."""
    direct = index * step  # also the rotations of counts too large for a table (see ROTATION_TABLE_LIMIT)
    if docking.exact:  # the usual counts: no lookup needed
        return direct
    index = np.fmax(index, 0.0).astype(np.int64)  # fmax: a NaN angle (a broken pose) looks up beta_0, no warning
    if docking.complete:
        return docking.betas[start + index]
    if not len(docking.betas):
        return direct
    return np.where(start >= 0, np.take(docking.betas, start + index, mode="clip"), direct)


_WIDE_ROTATION = 0.4995
"""A tolerance above this fraction of a step (half a step, less a margin far above rounding errors) makes the
intervals of neighbouring docking rotations reach the nearest rotation's: they are tested too."""


def _rotation_test(alpha: np.ndarray, z_dots: np.ndarray, n: np.ndarray, t: np.ndarray,
                   docking: DockingRotations) -> tuple[np.ndarray, np.ndarray]:
    """Webots' test of the docking rotations (rule 3) for pairs: whether some ``beta_i``, ``i`` in ``0..n//2``,
    has ``beta_i - t < alpha < beta_i + t``, and how far ``alpha`` is from changing that.

    Only ``beta_k``, ``k`` the index of the nearest ``i * 2pi/n``, can match when ``t`` is under half a step
    (its interval's edges are then also the nearest ones). Otherwise, if ``beta_k`` does not match,
    ``beta_(k-1)`` and ``beta_(k+1)`` are tested too, which suffices whatever the rounding: the matching
    indices form a run (``beta_i`` increases), and a run above ``k + 1`` would make ``beta_(k+1)``, which
    lies between ``alpha`` (at most about half a step above ``beta_k``) and that run, match too; likewise
    below.

    Args:
        alpha: numpy's ``arccos`` of ``z_dots`` (rad, (m,)); replaced in place by C's ``acos`` where it is
            within :data:`_ALPHA_EDGE` of an edge, as Webots computes it.
        z_dots: the z-axes' dot products, in [-1, 1], (m,).
        n: the askers' ``numberOfRotations`` (> 0), int64 (m,).
        t: the askers' ``rotationTolerance`` (rad), (m,).
        docking: the tables of those counts.

    Returns:
        ``matched`` (bool (m,)) and ``edge`` (rad, (m,)): a match holds while ``alpha`` moves by less than its
        ``edge`` (it stays inside a matching interval), a miss likewise (it stays out of the nearest ones;
        ``beta_k`` is picked by ``i * 2pi/n``, so the caller allows for :attr:`DockingRotations.deviation`).
    """
    half = n // 2
    step = 2.0 * math.pi / n
    nearest = np.minimum(np.rint(alpha / step), half)  # alpha >= 0: whole numbers in 0..n//2
    start = docking.starts(n)
    beta = _betas(docking, start, nearest, step)
    edge = np.minimum(np.abs(alpha - beta + t), np.abs(alpha - beta - t))
    close = np.flatnonzero(edge <= _ALPHA_EDGE)
    if len(close):  # at an edge: C's acos, as Webots
        alpha[close] = _acos(z_dots[close])
    matched = (alpha > beta - t) & (alpha < beta + t)
    # A match at the nearest rotation decides; a miss there with a wide tolerance asks the neighbours.
    wide = np.flatnonzero((t >= _WIDE_ROTATION * step) & ~matched)
    if len(wide):
        t_wide, k = t[wide], nearest[wide]
        sides = [_betas(docking, start[wide], index, step[wide])
                 for index in (np.maximum(k - 1.0, 0.0), np.minimum(k + 1.0, half[wide]))]
        a = alpha[wide]
        edges = [np.minimum(np.abs(a - b + t_wide), np.abs(a - b - t_wide)) for b in sides]
        near = np.flatnonzero(np.minimum(*edges) <= _ALPHA_EDGE)
        if len(near):  # at a neighbour's edge: C's acos (then the nearest rotation is tested again too)
            alpha[wide[near]] = a[near] = _acos(z_dots[wide[near]])
        within = [(a > b - t_wide) & (a < b + t_wide) for b in [beta[wide], *sides]]
        hit = within[0] | within[1] | within[2]
        matched[wide] = hit
        # A match holds while alpha stays inside a matching interval, a miss while it stays out of all three.
        inside = np.maximum(np.maximum(np.where(within[0], edge[wide], 0.0), np.where(within[1], edges[0], 0.0)),
                            np.where(within[2], edges[1], 0.0))
        edge[wide] = np.where(hit, inside, np.minimum(edge[wide], np.minimum(*edges)))
    return matched, edge


def find_peers(frames: ConnectorFrames, rules: PresenceRules, queries: np.ndarray) -> np.ndarray:
    """The connector each queried connector detects, or -1 (vectorised ``detectPresence``, no state).

    Args:
        frames: the poses of all connectors.
        rules: the types, models and tolerances of all connectors.
        queries: the rows asking, int64 (q,).

    Returns:
        The detected row for each query, -1 for none, int64 (q,).
    """
    queries = np.asarray(queries, dtype=np.int64)
    if not len(queries):
        return np.full(0, -1, dtype=np.int64)
    query_index, candidate = _grid_pairs(frames.position, queries, float(rules.distance_tolerance[queries].max()))
    return _select(frames, rules, queries, query_index, candidate)


class PresenceSearch:
    """:func:`find_peers` over a neighbour list kept from step to step (a Verlet list with a skin).

    The list holds every pair of compatible connectors closer than the asker's tolerance plus a skin
    when it was built; it stays valid while no connector has moved more than half the skin since, so a
    step where the connectors hardly move costs only the tests on the listed pairs. It is rebuilt (a
    grid search over all connectors) when one moved farther, and must be dropped (:meth:`invalidate`)
    when tolerances, types or models change. Connectors with a tolerance far above the others' (more
    than four times the median and 5 cm) are left out of the list and searched afresh each time, so one
    wide tolerance does not fill the list with every pair.

    Attributes:
        builds: how many times the list was built (for tests and benchmarks).
        reuses: how many answers were reused because no connector moved enough to change them.
    """

    def __init__(self) -> None:
        self._built_at: np.ndarray | None = None
        self._skin = 0.0
        self._asker = np.zeros(0, dtype=np.int64)
        self._candidate = np.zeros(0, dtype=np.int64)
        self._wide = np.zeros(0, dtype=bool)
        self._axis_limit = np.zeros(0)
        self._queries = np.zeros(0, dtype=np.int64)  # the last queries, and their listed pairs:
        self._pairs = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))  # (query index, candidate)
        # The last answer for those queries, the frames it was computed from and how far they may move.
        self._answer: np.ndarray | None = None
        self._answered_at: ConnectorFrames | None = None
        self._guards = Guards()
        self.builds = 0
        self.reuses = 0

    def invalidate(self) -> None:
        """Drop the list (the rules changed): the next search rebuilds it."""
        self._built_at = None
        self._answer = None

    def _still(self, frames: ConnectorFrames) -> bool:
        """True if no connector moved enough since the last answer to change it (see :class:`Guards`): every
        pair distance changed by at most twice the largest move, every angle between axes by at most twice
        the largest turn (a chord ``c`` of a unit vector spans an angle of at most ``c * pi / 2``)."""
        last = self._answered_at
        if self._answer is None or last is None:
            return False
        guards = self._guards
        if guards.distance <= 0.0 or guards.angle <= 0.0:
            return False
        moved = frames.position - last.position
        if 2.0 * math.sqrt(float(np.einsum("ij,ij->i", moved, moved).max())) >= guards.distance * (1.0 - 1e-9) - 1e-12:
            return False
        turn = 0.0
        for now, then in ((frames.x_axis, last.x_axis), (frames.z_axis, last.z_axis)):
            chord = now - then
            turn = max(turn, float(np.einsum("ij,ij->i", chord, chord).max()))
        return 2.0 * (math.pi / 2.0) * math.sqrt(turn) < guards.angle * (1.0 - 1e-9) - 1e-12

    def _stale(self, position: np.ndarray) -> bool:
        if self._built_at is None or self._built_at.shape != position.shape:
            return True
        moved = position - self._built_at
        return float(np.einsum("ij,ij->i", moved, moved).max()) > 0.25 * self._skin * self._skin

    def _build(self, frames: ConnectorFrames, rules: PresenceRules) -> None:
        position = frames.position
        tolerance = rules.distance_tolerance
        self._wide = tolerance > max(4.0 * float(np.median(tolerance)), _WIDE)
        rows = np.flatnonzero(~self._wide)
        widest = float(tolerance[rows].max()) if len(rows) else 0.0
        self._skin = max(3.0 * widest, _MIN_SKIN)
        query_index, candidate = _grid_pairs(position, rows, widest + self._skin)
        asker = rows[query_index]
        offset = position[candidate] - position[asker]
        reach = tolerance[asker] + self._skin
        keep = ((rules.partner[asker] == rules.family[candidate]) & (candidate != asker)
                & (np.einsum("ij,ij->i", offset, offset) <= reach * reach))
        self._asker, self._candidate = asker[keep], candidate[keep]
        self._axis_limit = np.cos(math.pi - rules.axis_tolerance)
        self._built_at = position.copy()
        self._queries = np.zeros(0, dtype=np.int64)
        self._answer = None
        self.builds += 1

    def find(self, frames: ConnectorFrames, rules: PresenceRules, queries: np.ndarray) -> np.ndarray:
        """Same answer as :func:`find_peers` (``queries``: int64 rows, (q,))."""
        queries = np.asarray(queries, dtype=np.int64)
        if not len(queries):
            return np.full(0, -1, dtype=np.int64)
        if self._stale(frames.position):
            self._build(frames, rules)
        if not np.array_equal(queries, self._queries):  # the same queries step after step: reuse their pairs
            slot = np.full(len(frames.position), -1, dtype=np.int64)
            slot[queries] = np.arange(len(queries))
            listed = np.flatnonzero(slot[self._asker] >= 0)
            self._queries, self._pairs = queries.copy(), (slot[self._asker[listed]], self._candidate[listed])
            self._answer = None
        if self._still(frames):  # nothing moved enough to change the answer: the usual case at rest
            result = self._answer.copy()  # type: ignore[union-attr]
            self.reuses += 1
        else:
            query_index, candidate = self._pairs
            result = _select(frames, rules, queries, query_index, candidate, screened=True,
                             axis_limit=self._axis_limit, guards=self._guards)
            self._answer = result.copy()
            self._answered_at = ConnectorFrames(frames.position.copy(), frames.x_axis.copy(), frames.z_axis.copy())
        wide = np.flatnonzero(self._wide[queries])
        if len(wide):
            result[wide] = find_peers(frames, rules, queries[wide])
        return result


def first_rotation_match(alpha: float, rotations: int, tolerance: float,
                         docking: DockingRotations | None = None) -> float:
    """Webots' ``findClosestRotationalAlignment``: the first docking rotation ``beta_i`` (rad), ``i = 0 ..
    n//2``, with ``beta_i - t < alpha < beta_i + t``, or -1.0 if none.

    ``beta_i`` is Webots' running sum of ``2pi/n`` (:func:`docking_rotations`), or ``i * 2pi/n`` for counts too
    large for a table. It is found directly, not by Webots' loop, so a huge ``numberOfRotations`` costs
    nothing: ``beta_i + t > alpha`` holds from some index on and ``beta_i - t < alpha`` up to some index
    (``beta_i`` increases, and rounding a sum keeps its order), so the first index of the first run is the
    answer if it also satisfies the second.

    Args:
        alpha: the angle between the z-axes, rad.
        rotations: ``numberOfRotations`` (> 0).
        tolerance: ``rotationTolerance``, rad.
        docking: tables holding ``rotations``' (:attr:`PresenceRules.docking`); made here if not given.

    Raises:
        ValueError: ``docking`` has no rotations for ``rotations``.
    """
    table = (docking if docking is not None else DockingRotations.of([rotations])).table(rotations)
    step = 2.0 * math.pi / rotations
    last = rotations // 2

    def beta(i: int) -> float:
        return float(table[i]) if table is not None else i * step

    # Start from the estimate of the first i with beta_i > alpha - t, then walk to the exact boundary of
    # the run of indices with beta_i + t > alpha (an index or two at most: beta_i is i * step within ulps).
    i = min(max(0, math.floor((alpha - tolerance) / step) + 1), last)
    while i > 0 and beta(i - 1) + tolerance > alpha:
        i -= 1
    while i <= last and not beta(i) + tolerance > alpha:
        i += 1
    if i <= last and beta(i) - tolerance < alpha:
        return beta(i)
    return -1.0


def _unit_angle(a: np.ndarray, b: np.ndarray) -> float:
    cos = float(a[0] * b[0] + a[1] * b[1] + a[2] * b[2])
    return 0.0 if cos >= 1.0 else math.pi if cos <= -1.0 else math.acos(cos)


def find_peer_reference(frames: ConnectorFrames, rules: PresenceRules, row: int) -> int:
    """The connector ``row`` detects, or -1: Webots' loop over every connector, one by one (the oracle)."""
    best, best2 = -1, _FAR2
    table = compatible_types()
    for other in range(len(rules.type)):
        if other == row or not table[rules.type[row], rules.type[other]] or rules.model[row] != rules.model[other]:
            continue
        if not _unit_angle(frames.x_axis[row], frames.x_axis[other]) > math.pi - float(rules.axis_tolerance[row]):
            continue
        n = int(rules.rotations[row])
        if n and first_rotation_match(_unit_angle(frames.z_axis[row], frames.z_axis[other]), n,
                                      float(rules.rotation_tolerance[row]), rules.docking) == -1.0:
            continue
        d = frames.position[row] - frames.position[other]
        distance2 = float(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
        if distance2 <= float(rules.distance2[row]) and distance2 < best2:
            best, best2 = other, distance2
    return best
