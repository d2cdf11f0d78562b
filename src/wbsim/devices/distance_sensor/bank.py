"""DistanceSensors with Webots semantics (``WbDistanceSensor``), vectorised over every sensor of a world.

**Rays.** Each sensor casts ``numberOfRays`` rays (one if the aperture is 0) laid out and weighted as
Webots does (:mod:`.rays`), of length ``L``, the last input of its lookup table. They hit collision
geoms (:mod:`.caster`); ODE rays (generic, sonar, laser) ignore the sensor's own robot unless it has
``selfCollision``, and laser rays ignore transparent geoms.

**When.** As in Webots, a sensor due after a basic step casts its generic, sonar and laser rays at the
start of that step (Webots collides its ODE rays with the poses the physics step starts from), and its
infra-red rays after the step (Webots ray-traces the scene when it computes the value). All rays of all
sensors due are cast together, once before the physics step and once after it. On the usual step (one
sample group, generic and laser sensors of few rays, no noise, compiled) the values are computed with the
cast and published by the sample (unless a write or enable in between replaced the group's plan).

**Value** (``WbDistanceSensor::computeValue``), from the distances ``t_i`` of the rays that hit (``L``
for the others) and the weights ``w_i``:

- generic: ``d = sum w_i t_i``;
- infra-red: ``d = sum w_i t_i``, ``f = sum w_i f_i`` with ``f_i`` the reflection factor of the surface
  hit (1 for a miss), then ``d + (d / f - d) * redColorSensitivity``;
- sonar: the smallest ``t_i`` of a ray hitting a surface at an incidence under pi/8 (``PI_OVER_8``),
  else ``L``; the weights are ignored;
- laser: ``t_0`` (one ray);

then the lookup table (with its noise, from the simulation's seeded generator) and the resolution. An
empty lookup table reads 0. Values are NaN until the first sample (one period after ``enable``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import ModuleType

import mujoco
import numpy as np

from wbsim.devices.distance_sensor.caster import RayBatch, RayCaster, RayHits
from wbsim.devices.distance_sensor.compile import DistanceSensorBinding
from wbsim.devices.distance_sensor.rays import effective_ray_count, ray_directions, ray_weights
from wbsim.devices.distance_sensor.schema import INFRA_RED, LASER, SONAR, repaired_fields, type_code
from wbsim.devices.kind import BankContext
from wbsim.devices.lookup_table import LookupPlan, LookupTables, lookup_warnings
from wbsim.devices.packed import pack
from wbsim.devices.resolution import quantize
from wbsim.devices.sampling import SampledBank, SampledDevice, SampleGroup

__all__ = ["DistanceSensorBank", "DistanceSensor", "PI_OVER_8", "COMBINED_RAYS"]

PI_OVER_8 = 0.392699082
"""Webots' sonar reflection limit (its literal, rad): a ray hitting a surface at a larger incidence is lost."""

_NONE = -2  # "no robot": a sensor excluding nothing

COMBINED_RAYS = 8
"""The most rays of a sensor whose distance the compiled path combines (:func:`.kernel.combine_distances`):
numpy's ``add.reduceat`` adds the terms after a segment's first in one plain loop when they are fewer than 8
(pairwise from 8 on), and the compiled sum repeats the plain loop only. Sensors with more rays combine with
numpy."""


@dataclass(frozen=True, eq=False)
class _Cast:
    """The rays of some sensors of a sample group and how their distances combine (precomputed).

    ``rows`` are bank rows; ``batch`` their rays; per ray ``weights`` and ``lengths``; per row ``kind``;
    whether some rows are sonars (``normals``), infra-red (``rendering``), lasers (``laser``).
    """

    rows: np.ndarray
    batch: RayBatch
    weights: np.ndarray
    ray_lengths: np.ndarray
    kind: np.ndarray
    sensitivity: np.ndarray
    normals: bool
    rendering: bool
    laser: bool
    combined: tuple | None = None  # compiled combination's arguments (generic and laser rows of few rays)


@dataclass(frozen=True, eq=False)
class _Plan:
    """One sample group: its ODE and rendering casts, its lookups and resolutions."""

    rows: np.ndarray
    ode: _Cast | None
    rendering: _Cast | None
    lookups: LookupPlan
    resolution: np.ndarray  # per row (-1: none)
    empty: np.ndarray  # per row: the lookup table is empty (the value is 0)
    quantized: bool  # some row has a resolution
    any_empty: bool
    lookup_arguments: tuple = ()  # the compiled lookup's arguments (the plan's tables, the bank's arrays)
    full: bool = False  # the rows are every row of the bank
    # The usual step's one compiled call at actuate time (:func:`.kernel.combine_and_lookup`): the
    # combination's and the lookup's arrays packed (wbsim.devices.packed; the values go to the bank's pending
    # array) and its scalars (empty: not for this plan).
    pending_arguments: tuple = ()


class DistanceSensorBank(SampledBank):
    """State and sampling of all DistanceSensors of one simulation (row ``i`` is ``bindings[i]``).

    Args:
        bindings: the sensors, in scene order.
        context: the simulation's model, data, generator, clock and kinematics refresh.

    Attributes:
        values: the last sampled values, (n,); NaN before the first sample (also as :attr:`value_list`).
        distance: the distance (m) each sensor measured at its last sample, before the lookup table, (n,).
        type: the type codes, (n,).
        number_of_rays, aperture, gaussian_width, resolution, red_color_sensitivity: the fields, (n,).
        lookup_tables: the current (input, output, noise) rows of each sensor.
        min_value, max_value: the smallest and largest output of each table (0 for an empty one), (n,).
        ray_length: the last input of each table (m; 0 for an empty one), (n,).
        ray_start, ray_count: each sensor's rays in :attr:`directions` / :attr:`weights`, (n,).
        directions: every ray's unit direction in its sensor's frame, (total rays, 3).
        weights: every ray's weight (they sum to 1 per sensor), (total rays,).
    """

    actuates = True  # ODE rays are cast before the physics step (see the module docstring)

    carried = ("values", "distance", "value_list", "period_list")

    def __init__(self, bindings: tuple[DistanceSensorBinding, ...], context: BankContext) -> None:
        super().__init__(bindings, context)
        self.bindings: tuple[DistanceSensorBinding, ...] = bindings
        n = self.n
        self.caster = RayCaster(context.model, bindings[0].targets) if n else None
        self._sites = np.array([b.site_id for b in bindings], dtype=np.int64)
        self._robot = np.array([b.robot for b in bindings], dtype=np.int64)
        self._self_collision = np.array([b.self_collision for b in bindings], dtype=bool)
        # Updated in place (never replaced), so API objects may keep references to them.
        self.values = np.full(n, np.nan)
        self.distance = np.full(n, np.nan)
        self.type = np.zeros(n, dtype=np.int64)
        self.number_of_rays = np.ones(n, dtype=np.int64)
        self.aperture = np.zeros(n)
        self.gaussian_width = np.ones(n)
        self.resolution = np.full(n, -1.0)
        self.red_color_sensitivity = np.ones(n)
        self.min_value = np.zeros(n)
        self.max_value = np.zeros(n)
        self.ray_length = np.zeros(n)
        self.lookup_tables = [b.lookup_table for b in bindings]
        self.tables = LookupTables(self.lookup_tables)
        # Python copies of the values and periods, for API reads (a list item is cheaper to read than a numpy
        # scalar, and controllers read every sensor every step); updated in place.
        self.value_list: list[float] = [math.nan] * n
        self.period_list: list[int] = [0] * n
        self._cast_for = -1  # the step whose ODE rays were cast before its physics
        self._cast_plans: list[_Plan] = []  # the plans whose ODE rays were cast then
        # Values computed at actuate time for the plan ``_pending_plan`` (the usual step), published by its
        # sample.
        self._pending = np.full(n, np.nan)
        self._pending_plan: _Plan | None = None
        self._kernel_module: ModuleType | None = None  # .kernel, imported at the first compiled sample
        self._restore_fields()

    def core(self, row: int) -> DistanceSensor:
        """The core DistanceSensor of row ``row``."""
        return DistanceSensor(self, row, str(self.bindings[row].node["name"]), self.context.now_step)

    # -- fields -------------------------------------------------------------------------------------
    def _restore_fields(self) -> None:
        """Every field back to the world file's values (a world reset restores what supervisors wrote)."""
        for row, binding in enumerate(self.bindings):
            node = binding.node
            self.type[row] = binding.type
            self.number_of_rays[row] = binding.number_of_rays
            self.aperture[row] = float(node["aperture"])  # type: ignore[arg-type]
            self.gaussian_width[row] = float(node["gaussianWidth"])  # type: ignore[arg-type]
            self.resolution[row] = float(node["resolution"])  # type: ignore[arg-type]
            self.red_color_sensitivity[row] = float(node["redColorSensitivity"])  # type: ignore[arg-type]
            if self.lookup_tables[row] != binding.lookup_table:
                self.lookup_tables[row] = binding.lookup_table
                self.tables.set_table(row, binding.lookup_table)
            self._table_ranges(row)
        self._layout_rays()

    def _table_ranges(self, row: int) -> None:
        table = self.lookup_tables[row]
        outputs = [r[1] for r in table]
        self.min_value[row] = min(outputs) if outputs else 0.0
        self.max_value[row] = max(outputs) if outputs else 0.0
        self.ray_length[row] = table[-1][0] if table else 0.0  # WbLookupTable::maxMetricsRange

    def _layout_rays(self) -> None:
        """Every sensor's ray directions and weights, flattened (sensor rows in order); sample plans reset."""
        layouts: dict[tuple[int, float, float], tuple[np.ndarray, np.ndarray]] = {}
        directions, weights, counts = [], [], []
        for row in range(self.n):
            count = effective_ray_count(int(self.number_of_rays[row]), float(self.aperture[row]))
            key = (count, float(self.aperture[row]), float(self.gaussian_width[row]))
            if key not in layouts:
                rays = ray_directions(count, key[1])
                layouts[key] = (rays, ray_weights(rays, key[1], key[2]))
            directions.append(layouts[key][0])
            weights.append(layouts[key][1])
            counts.append(count)
        self.ray_count = np.array(counts, dtype=np.int64)
        self.ray_start = np.cumsum(self.ray_count) - self.ray_count
        self.directions = np.concatenate(directions) if directions else np.zeros((0, 3))
        self.weights = np.concatenate(weights) if weights else np.zeros(0)
        for group in self.schedule.groups:
            group.cache = None

    def _name(self, row: int) -> str:
        return str(self.bindings[row].node["name"])

    def field_changed(self, row: int, name: str, value: object) -> object | None:
        """A supervisor wrote a field: applied from the next sample, with Webots' repairs and warnings
        (``WbDistanceSensor::updateRaySetup`` runs on every change of these fields).

        Returns:
            The value the field now holds, or None for fields the sensor does not use.
        """
        warn = self.context.warn
        applied: object
        if name == "lookupTable":
            table = tuple(tuple(float(v) for v in item) for item in value)  # type: ignore[union-attr]
            for message in lookup_warnings(table):
                warn(f"{self._name(row)}: {message}")
            self.lookup_tables[row] = table  # type: ignore[call-overload]
            self.tables.set_table(row, table)
            self._table_ranges(row)
            applied = table
        elif name == "type":
            self.type[row] = type_code(str(value))
            applied = str(value)
        elif name in repaired_fields():
            number, message = repaired_fields()[name].repaired(float(value))  # type: ignore[arg-type]
            if message is not None:
                warn(f"{self._name(row)}: {message}")
            if name == "numberOfRays":
                self.number_of_rays[row] = int(number)
                applied = int(number)
            else:
                getattr(self, {"aperture": "aperture", "gaussianWidth": "gaussian_width", "resolution": "resolution",
                               "redColorSensitivity": "red_color_sensitivity"}[name])[row] = number
                applied = float(number)
        else:
            return None
        if self.type[row] == LASER and self.number_of_rays[row] > 1:
            warn(f"{self._name(row)}: 'type' \"laser\" must have one single ray.")
            self.number_of_rays[row] = 1
            if name == "numberOfRays":
                applied = 1
        self._layout_rays()
        return applied

    def field_value(self, row: int, name: str) -> object | None:
        """``numberOfRays`` as the sensor uses it (Webots writes 1 back for a laser with several rays)."""
        return int(self.number_of_rays[row]) if name == "numberOfRays" else None

    def enable(self, row: int, period_ms: int, now_step: int) -> None:
        """Enable (period > 0) or disable (0) sensor ``row`` at basic step ``now_step``."""
        super().enable(row, period_ms, now_step)
        self.period_list[row] = int(period_ms)

    # -- resets ---------------------------------------------------------------------------------------
    def reset(self) -> None:
        """All sensors disabled, values NaN, fields as in the world file (as after loading)."""
        self.schedule.reset()
        self._restore_fields()
        self.values[:] = np.nan
        self.value_list[:] = [math.nan] * self.n
        self.period_list[:] = [0] * self.n
        self.distance[:] = np.nan
        self._cast_for = -1
        self._pending_plan = None

    def restart(self) -> None:
        """After a world reset (``simulationReset``): fields as in the world file; enabled sensors stay enabled
        and sample in the reset step, from the initial state (the simulation samples it)."""
        self.schedule.restart()
        self._restore_fields()
        self._cast_for = -1
        self._pending_plan = None

    # -- per step -----------------------------------------------------------------------------------
    def actuate(self, data: mujoco.MjData) -> None:
        """Cast the generic, sonar and laser rays of the sensors due after this step, from the poses the
        physics step starts from (as Webots' ODE rays)."""
        upcoming = self.context.now_step() + 1
        if self.schedule.next_any > upcoming:
            return
        self._pending_plan = None
        plans = [self._plan(g) for g in self.schedule.groups if g.next_step <= upcoming]
        casts = [plan.ode for plan in plans if plan.ode is not None]
        self._cast_for = upcoming
        self._cast_plans = plans
        if not casts:
            return
        self.context.refresh_kinematics()
        plan = plans[0]
        if len(plans) == 1 and plan.pending_arguments and self.caster is not None and self.caster.compiled:
            # The usual step: the cast, then the distances and their lookups in one compiled call; the values
            # wait in the pending array for the sample (supervisors read the last sample's until then).
            self._kernels().combine_and_lookup(self.caster.cast_distances(data, plan.ode.batch),
                                               plan.pending_arguments[0].table, *plan.pending_arguments[1])
            self._pending_plan = plan
            return
        self._measure(data, casts)

    def sample(self, data: mujoco.MjData, step: int) -> None:
        """Compute the values of the sensors due after basic step ``step`` (infra-red rays are cast now)."""
        groups = self.schedule.due(step)
        if not groups:
            return
        if len(groups) == 1:  # the usual case: one group, its rays cast before the step, compiled lookups
            plan = groups[0].cache
            if plan is self._pending_plan and plan is not None and self._cast_for == step:
                # Its values were computed with the cast (same plan: no field, table or membership changed).
                self._pending_plan = None
                if plan.full:
                    self.values[:] = self._pending
                else:
                    self.values[plan.rows] = self._pending[plan.rows]
                self._finish_compiled(plan)
                self.value_list[:] = self.values.tolist()
                return
            if (isinstance(plan, _Plan) and plan.rendering is None and self._cast_for == step
                    and self.caster is not None and self.caster.compiled and not plan.lookups.noisy):
                self._lookup_compiled(plan)
                self.value_list[:] = self.values.tolist()
                return
        plans = [self._plan(group) for group in groups]
        casts = [p.rendering for p in plans if p.rendering is not None]
        if self._cast_for != step:  # not cast before this step's physics (cannot happen in the step loop)
            casts += [p.ode for p in plans if p.ode is not None]
        else:
            late = self._uncast_rows(plans)
            extra = self._make_cast(late, False) if late is not None else None
            if extra is not None:
                casts.append(extra)
        if casts:
            self.context.refresh_kinematics()
            self._measure(data, casts)
        rng = None
        for plan in plans:
            if self.caster is not None and self.caster.compiled and not plan.lookups.noisy:
                self._lookup_compiled(plan)
                continue
            distance = self.distance[plan.rows]
            if plan.lookups.noisy and rng is None:
                rng = self.context.rng()
            values = plan.lookups.lookup(distance, rng if plan.lookups.noisy else None)
            if plan.quantized:
                values = quantize(values, plan.resolution)
            if plan.any_empty:
                values = np.where(plan.empty, 0.0, values)  # Webots: no table, no value
                self.distance[plan.rows[plan.empty]] = math.inf
            self.values[plan.rows] = values
        self.value_list[:] = self.values.tolist()

    def _uncast_rows(self, plans: list[_Plan]) -> np.ndarray | None:
        """The rows of ``plans`` with ODE rays that the cast before the physics step did not cover (None if
        none): a hook between the cast and the sample enabled them, or made an infra-red sensor generic.

        Their rays are cast at the sample, from the poses after the step (the only ones left), rather than
        their values being looked up from distances of an earlier sample.
        """
        cast = self._cast_plans
        fresh = [p for p in plans if p.ode is not None and p not in cast]  # (plans compare by identity)
        if not fresh:  # the usual case: the plans cast before the step
            return None
        covered = [q.ode.rows for q in cast if q.ode is not None]
        wanted = np.concatenate([p.ode.rows for p in fresh])  # type: ignore[union-attr]
        late = wanted[~np.isin(wanted, np.concatenate(covered))] if covered else wanted
        return np.unique(late) if len(late) else None

    def _lookup_compiled(self, plan: _Plan) -> None:
        """The sample of ``plan`` without noise, its lookups compiled (:func:`.kernel.lookup_values`): the same
        values as the numpy path."""
        self._kernels().lookup_values(*plan.lookup_arguments)
        self._finish_compiled(plan)

    def _finish_compiled(self, plan: _Plan) -> None:
        """The resolutions and empty tables of ``plan``'s rows, after their compiled lookups."""
        if plan.quantized:
            self.values[plan.rows] = quantize(self.values[plan.rows], plan.resolution)
        if plan.any_empty:
            self.values[plan.rows[plan.empty]] = 0.0  # Webots: no table, no value
            self.distance[plan.rows[plan.empty]] = math.inf

    def _kernels(self) -> ModuleType:
        """The compiled kernels (:mod:`.kernel`, importing numba: only for worlds whose sensors sample)."""
        if self._kernel_module is None:
            from wbsim.devices.distance_sensor import kernel

            self._kernel_module = kernel
        return self._kernel_module

    def _measure(self, data: mujoco.MjData, casts: list[_Cast]) -> None:
        """Cast ``casts`` together and store each sensor's combined distance in :attr:`distance`."""
        assert self.caster is not None
        if len(casts) == 1 and casts[0].combined is not None and self.caster.compiled:
            # Generic and laser sensors of few rays: the cast and the combination compiled, no new arrays.
            cast = casts[0]
            self._kernels().combine_distances(self.caster.cast_distances(data, cast.batch), *cast.combined)
            return
        batch = casts[0].batch if len(casts) == 1 else RayBatch.concatenate(self.context.model,
                                                                            [c.batch for c in casts])
        hits = self.caster.cast(data, batch, normals=any(c.normals for c in casts))
        if len(casts) == 1:
            self.distance[casts[0].rows] = self._combine(casts[0], hits)
            return
        start = 0
        for cast in casts:
            count = len(cast.batch.ray_sensor)
            part = RayHits(hits.distance[start : start + count], hits.target[start : start + count],
                           hits.normal[start : start + count], hits.direction[start : start + count])
            self.distance[cast.rows] = self._combine(cast, part)
            start += count

    def _combine(self, cast: _Cast, hits: RayHits) -> np.ndarray:
        """Webots' distance of each sensor of ``cast`` from its rays' hits (see the module docstring)."""
        assert self.caster is not None
        starts = cast.batch.ray_start
        lengths = cast.batch.lengths
        # A ray's distance, or its length if it hit nothing (hits are never farther than the length).
        t = np.minimum(hits.distance, cast.ray_lengths)
        kind = cast.kind
        result = np.add.reduceat(cast.weights * t, starts)  # generic and infra-red: the weighted mean
        if cast.rendering or cast.normals:
            hit = np.isfinite(hits.distance)
        if cast.rendering:
            factor = np.where(hit, self.caster.infra_red[np.maximum(hits.target, 0)], 1.0)
            reflection = np.add.reduceat(cast.weights * factor, starts)
            with np.errstate(divide="ignore", invalid="ignore"):
                result = result + (result / reflection - result) * cast.sensitivity
        if cast.normals:  # sonar: the nearest echo within the reflection cone
            cosine = -np.einsum("ij,ij->i", hits.normal, hits.direction)
            echo = hit & (np.arccos(np.clip(cosine, -1.0, 1.0)) < PI_OVER_8)
            nearest = np.minimum.reduceat(np.where(echo, hits.distance, np.inf), starts)
            result = np.where(kind == SONAR, np.minimum(nearest, lengths), result)
        return np.where(kind == LASER, t[starts], result) if cast.laser else result

    def _plan(self, group: SampleGroup) -> _Plan:
        plan = group.cache
        if plan is None:
            plan = group.cache = self._make_plan(group.rows)
        assert isinstance(plan, _Plan)
        return plan

    def _make_plan(self, rows: np.ndarray) -> _Plan:
        rendering = self.type[rows] == INFRA_RED
        look = self.tables.prepare(rows)
        ode = self._make_cast(rows[~rendering], False)
        pending: tuple = ()
        if (ode is not None and ode.combined is not None and not rendering.any() and not look.noisy
                and self.caster is not None and self.caster.compiled):
            ray_lengths, weights, starts, counts, laser, cast_rows, distance = ode.combined
            tables = pack((np.array([ray_lengths, weights], dtype=float).reshape(2, -1),
                           np.array([starts, counts, cast_rows], dtype=np.int64).reshape(3, -1), laser, distance,
                           np.array([look.first_input, look.last_input, look.first_output, look.last_output,
                                     look.span], dtype=float).reshape(5, -1),
                           look.inputs, look.outputs, look.counted, look.last, look.empty, self._pending),
                          self._kernels().LOOKUP_CODES)
            if tables is not None:  # (else no usual step: the cast and the lookups at the sample)
                pending = (tables, (look.linear, look.increasing, look.steps))
        return _Plan(
            rows=rows,
            ode=ode,
            rendering=self._make_cast(rows[rendering], True),
            lookups=look,
            resolution=self.resolution[rows].copy(),
            empty=self.tables.empty[rows].copy(),
            quantized=bool((self.resolution[rows] > 0).any()),
            any_empty=bool(self.tables.empty[rows].any()),
            lookup_arguments=(self.distance, rows, look.linear, look.increasing, look.steps, look.first_input,
                              look.last_input, look.first_output, look.last_output, look.span, look.inputs,
                              look.outputs, look.counted, look.last, look.empty, self.values),
            full=len(rows) == self.n,
            pending_arguments=pending,
        )

    def _make_cast(self, rows: np.ndarray, rendering: bool) -> _Cast | None:
        if not len(rows):
            return None
        counts = self.ray_count[rows]
        rays = np.repeat(self.ray_start[rows] - (np.cumsum(counts) - counts), counts) + np.arange(int(counts.sum()))
        kind = self.type[rows]
        robot = self._robot[rows]
        sees_robot = self._self_collision[rows] | rendering | (robot < 0)  # infra-red rays see every Shape
        lengths = self.ray_length[rows].copy()
        batch = RayBatch.build(self.context.model, self._sites[rows], counts, self.directions[rays], lengths,
                               np.where(sees_robot, _NONE, robot), kind == LASER, np.full(len(rows), rendering))
        weights, ray_lengths = self.weights[rays], np.repeat(lengths, counts)
        normals = bool((kind == SONAR).any())
        combined = None
        if not rendering and not normals and int(counts.max()) <= COMBINED_RAYS:
            combined = (ray_lengths, weights, np.ascontiguousarray(batch.ray_start, dtype=np.int64),
                        counts.astype(np.int64), kind == LASER, rows.astype(np.int64), self.distance)
        return _Cast(rows=rows, batch=batch, weights=weights, ray_lengths=ray_lengths, kind=kind,
                     sensitivity=self.red_color_sensitivity[rows].copy(), normals=normals,
                     rendering=rendering, laser=bool((kind == LASER).any()), combined=combined)


@dataclass
class DistanceSensor(SampledDevice):
    """One DistanceSensor (snake_case core API; the Webots ``DistanceSensor`` class wraps it)."""

    kind: str = "distance_sensor"

    @property
    def value(self) -> float:
        """The last sampled value (through the lookup table); NaN before the first sample."""
        return float(self.bank.values[self.index])

    @property
    def distance(self) -> float:
        """The distance (m) measured at the last sample, before the lookup table (inf with an empty table)."""
        return float(self.bank.distance[self.index])

    @property
    def type(self) -> int:
        """``GENERIC`` (0), ``INFRA_RED`` (1), ``SONAR`` (2) or ``LASER`` (3)."""
        return int(self.bank.type[self.index])

    @property
    def lookup_table(self) -> tuple[tuple[float, float, float], ...]:
        """The (input, output, noise) rows of the current lookup table."""
        return self.bank.lookup_tables[self.index]

    @property
    def min_value(self) -> float:
        """The smallest output of the lookup table (0 for an empty table)."""
        return float(self.bank.min_value[self.index])

    @property
    def max_value(self) -> float:
        """The largest output of the lookup table (0 for an empty table)."""
        return float(self.bank.max_value[self.index])

    @property
    def aperture(self) -> float:
        """The ``aperture`` field (rad; the laser spot radius in m for a laser)."""
        return float(self.bank.aperture[self.index])

    @property
    def rays(self) -> tuple[np.ndarray, np.ndarray]:
        """The rays cast: unit directions in the sensor frame (k, 3) and their weights (k,)."""
        start, count = int(self.bank.ray_start[self.index]), int(self.bank.ray_count[self.index])
        return self.bank.directions[start : start + count].copy(), self.bank.weights[start : start + count].copy()
