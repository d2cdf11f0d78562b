"""GPS devices with Webots semantics (``WbGps``), vectorised over every GPS of a world.

After each basic step, every GPS due (Webots' sampling rules, :mod:`wbsim.devices.sampling`) is sampled at
once from MuJoCo's current state:

- **Position.** Its origin's world position ``p`` (``site_xpos``), plus the reference of the world's
  :class:`~wbsim.devices.gps.geo.GpsFrame` (``gpsReference``; for ``WGS84`` the reference's UTM east/north
  and altitude on the world's E/N/U axes), plus ``accuracy * n`` per axis, then the ``resolution``
  (Webots' discretisation), then for ``WGS84`` the projection back to (latitude, longitude, altitude).
- **Noise** (a Gauss-Markov process per axis): ``n <- r n + sqrt(1 - r^2) g`` with ``g`` standard normal from
  the simulation's seeded generator and ``r = noiseCorrelation ** (dt / 1 s)``, ``dt`` the time since the
  last sample (``r = 0`` when ``noiseCorrelation`` is 0); ``n`` starts at 0, so a correlation of 1 keeps
  it at 0, as in Webots.
- **Speed vector.** For a GPS on a body moving under physics, the velocity of its origin point
  (``v + w x (p - c)`` from MuJoCo's ``cvel`` about the tree's centre of mass ``c``, Webots'
  ``dBodyGetPointVel``); otherwise ``(p - p_prev) / dt``, NaN at the first sample (no previous position).
- **Speed.** The vector's norm, times ``1 + speedNoise * g`` when ``speedNoise > 0``, then ``speedResolution``.

Values are NaN until the first sample, one period after ``enable``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import ModuleType

import mujoco
import numpy as np

from wbsim.devices.compiled import StateViews, motion_kernels, numba_installed
from wbsim.devices.gps.compile import GpsBinding
from wbsim.devices.gps.geo import WGS84, GpsFrame
from wbsim.devices.gps.schema import repaired_fields
from wbsim.devices.kind import BankContext
from wbsim.devices.resolution import quantize
from wbsim.devices.motion_batch import BatchMember
from wbsim.devices.sampling import SampledBank, SampledDevice, SampleGroup, rows_of

__all__ = ["GpsBank", "GPS", "FIELDS"]

FIELDS = {"accuracy": "accuracy", "noiseCorrelation": "noise_correlation", "resolution": "resolution",
          "speedNoise": "speed_noise", "speedResolution": "speed_resolution"}
"""The GPS fields the bank uses: Webots field name -> bank attribute (one value per GPS)."""


class GpsBank(BatchMember, SampledBank):
    """State and sampling of all GPS devices of one simulation (row ``i`` is ``bindings[i]``).

    Args:
        bindings: the devices, in scene order.
        context: the simulation's model, data, generator, clock and kinematics refresh.

    Attributes:
        values: the last measured positions, (n, 3): world x, y, z (m) for ``LOCAL``, (latitude deg,
            longitude deg, altitude m) for ``WGS84``; NaN before the first sample.
        speed: the last measured speeds (m/s), (n,).
        speed_vector: the last measured velocities in world axes (m/s), (n, 3).
        accuracy, noise_correlation, resolution, speed_noise, speed_resolution: the fields, (n,).
        noise: the current Gauss-Markov noise state of each axis, (n, 3) (in units of ``accuracy``).
        frame: the world's GPS frame; ``coordinate_system``: ``LOCAL`` or ``WGS84``.
        value_list, speed_list, speed_vector_list: ``values``, ``speed`` and ``speed_vector`` as Python floats
            (what the API returns), refreshed with them.
    """

    carried = ("values", "speed", "speed_vector", "noise", "_previous", "_last")  # the lists: rebuilt from them

    def __init__(self, bindings: tuple[GpsBinding, ...], context: BankContext) -> None:
        super().__init__(bindings, context)
        self.bindings: tuple[GpsBinding, ...] = bindings
        n = self.n
        model = context.model
        self.frame = bindings[0].frame if bindings else GpsFrame()
        self.coordinate_system = self.frame.system
        self._reference = self.frame.metric_reference()
        self._sites = np.array([b.site_id for b in bindings], dtype=np.int64)
        bodies = np.array([b.body_id for b in bindings], dtype=np.int64)
        self._bodies = bodies
        self._roots = np.asarray(model.body_rootid)[bodies] if n else bodies
        self._dynamic = np.array([b.dynamic for b in bindings], dtype=bool)
        # Updated in place (never replaced), so API objects may keep references to them.
        self.values = np.full((n, 3), np.nan)
        self.speed = np.full(n, np.nan)
        self.speed_vector = np.full((n, 3), np.nan)
        # The same as Python floats, for the API's reads (updated in place, with the arrays).
        # Flat lists (device i's at 3 i .. 3 i + 2): they convert faster than nested ones.
        self._flat_values = self.values.reshape(-1)  # a view, made once (the lists are refreshed every sample)
        self.value_list: list[float] = self._flat_values.tolist()
        self.speed_list: list[float] = self.speed.tolist()
        self.speed_vector_list: list[float] = self.speed_vector.reshape(-1).tolist()  # fresh_speed_vectors()
        self._speed_vectors_stale = False
        self.noise = np.zeros((n, 3))
        self.accuracy = np.zeros(n)
        self.noise_correlation = np.zeros(n)
        self.resolution = np.full(n, -1.0)
        self.speed_noise = np.zeros(n)
        self.speed_resolution = np.full(n, -1.0)
        self._previous = np.full((n, 3), np.nan)  # the origin at the last sample (world, m)
        self._last = np.full(n, -math.inf)  # the basic step of the last sample or enable (Webots' lastUpdate)
        # Sample with the compiled loop of wbsim.devices.motion_kernel (numba) or with numpy (the reference).
        self.compiled = numba_installed()
        self._kernels: ModuleType | None = None  # motion_kernel, imported at the first compiled sample
        self._plans: dict[int, tuple[np.ndarray, ...]] = {}  # the gathered ids of the last rows sampled
        self._views: StateViews | None = None  # MuJoCo's arrays for the compiled loop
        self._no_offset, self._no_factor = np.empty((0, 3)), np.empty(0)  # no noise
        self._basic_s = context.basic_time_step_ms / 1000.0
        self._quiet = True  # no device has accuracy or speedNoise (kept by _fields_changed)
        self._reference = np.asarray(self._reference, dtype=float)
        # The quiet compiled sample of the last rows, its arguments gathered once: (rows, data, loop, arguments
        # before the step, arguments after it).
        self._call: tuple | None = None
        self._restore_fields()

    def core(self, row: int) -> GPS:
        """The core GPS of row ``row``."""
        return GPS(self, row, str(self.bindings[row].node["name"]), self.context.now_step)

    # -- fields -------------------------------------------------------------------------------------
    def _restore_fields(self) -> None:
        """Every field back to the world file's values (a world reset restores what supervisors wrote)."""
        for row, binding in enumerate(self.bindings):
            for name, attribute in FIELDS.items():
                getattr(self, attribute)[row] = float(binding.node[name])  # type: ignore[arg-type]
        self._fields_changed()

    def _fields_changed(self) -> None:
        self._quiet = not bool((self.accuracy != 0.0).any()) and not bool((self.speed_noise > 0.0).any())

    def field_changed(self, row: int, name: str, value: object) -> object | None:
        """A supervisor wrote a field: used from the next sample, with Webots' repairs and warnings.

        Returns:
            The value the field now holds, or None for fields the GPS does not use.
        """
        self._batch_changed()  # what the fused call checked may differ now (motion_batch)
        if name not in FIELDS:
            return None
        number = float(value)  # type: ignore[arg-type]
        if name in repaired_fields():
            number, message = repaired_fields()[name].repaired(number)  # type: ignore[assignment]
            if message is not None:
                self.context.warn(f"{self.bindings[row].node['name']}: {message}")
        getattr(self, FIELDS[name])[row] = number
        self._fields_changed()
        return number

    def enable(self, row: int, period_ms: int, now_step: int) -> None:
        """Enable (period > 0) or disable (0) GPS ``row`` at basic step ``now_step`` (its timer restarts)."""
        super().enable(row, period_ms, now_step)
        self._last[row] = now_step

    # -- resets ---------------------------------------------------------------------------------------
    def reset(self) -> None:
        """All devices disabled, values NaN, noise 0, fields as in the world file (as after loading)."""
        self._leave_batch()
        self.schedule.reset()
        self._restore_fields()
        for array in (self.values, self.speed, self.speed_vector, self._previous):
            array[...] = np.nan
        self._refresh_lists()
        self.noise[...] = 0.0
        self._last[:] = -math.inf

    def restart(self) -> None:
        """After a world reset (``WbGps::reset``, ``WbSensor::reset``): fields as in the world file; enabled
        devices stay enabled and sample in the reset step (from the initial state), with no previous position
        and an infinite time since the last sample."""
        self._leave_batch()
        self.schedule.restart()
        self._restore_fields()
        self._previous[...] = np.nan
        self._last[:] = -math.inf

    # -- per step -----------------------------------------------------------------------------------
    def sample(self, data: mujoco.MjData, step: int) -> None:
        """Measure the devices due after basic step ``step``."""
        due = self._due_own(data, step)  # none when the motion kinds' fused call computed them
        if not due:
            return
        rows = rows_of(due)
        self.context.refresh_kinematics()
        if self.compiled:
            call = self._call
            if call is not None and call[0] is rows and call[1] is data and self._quiet:
                call[2](*call[3], step, *call[4])  # the rows of the last sample (each group keeps its array)
            else:
                self._sample_compiled(data, rows, step, due[0] if len(due) == 1 else None)
            self._refresh_lists()
            return
        position = data.site_xpos[self._sites[rows]]
        elapsed_s = (step - self._last[rows]) * (self.context.basic_time_step_ms / 1000.0)
        rng = None
        metric = position + self._reference
        accuracy = self.accuracy[rows]
        noisy = accuracy != 0.0
        if noisy.any():
            rng = self.context.rng()
            metric[noisy] += self._noise_offsets(rng, rows, noisy, elapsed_s)
        metric = quantize(metric, self.resolution[rows, None])
        self.values[rows] = self.frame.geodetic(metric) if self.coordinate_system == WGS84 else metric
        velocity = self._velocity(data, rows, position, elapsed_s)
        self._previous[rows] = position
        self.speed_vector[rows] = velocity
        speed = np.linalg.norm(velocity, axis=1)
        speed_noise = self.speed_noise[rows]
        shaken = speed_noise > 0.0
        if shaken.any():
            if rng is None:
                rng = self.context.rng()
            speed[shaken] *= 1.0 + speed_noise[shaken] * rng.standard_normal(int(shaken.sum()))
        self.speed[rows] = quantize(speed, self.speed_resolution[rows])
        self._last[rows] = step
        self._refresh_lists()

    def _refresh_lists(self) -> None:
        self.value_list[:] = self._flat_values.tolist()
        self.speed_list[:] = self.speed.tolist()
        self._speed_vectors_stale = True  # converted at the next read (getSpeedVector is the rarest read)

    def fresh_speed_vectors(self) -> list[float]:
        """:attr:`speed_vector_list`, brought up to date with :attr:`speed_vector` if a sample changed it."""
        if self._speed_vectors_stale:
            self.speed_vector_list[:] = self.speed_vector.reshape(-1).tolist()
            self._speed_vectors_stale = False
        return self.speed_vector_list


    def _noise_offsets(self, rng: np.random.Generator, rows: np.ndarray, noisy: np.ndarray,
                       elapsed_s: np.ndarray) -> np.ndarray:
        """Advance the Gauss-Markov noise of the devices ``rows[noisy]`` (three draws each, in row order) and
        return what it adds to their positions (m), (k_noisy, 3)."""
        noisy_rows = rows[noisy]
        correlation = self.noise_correlation[noisy_rows]
        with np.errstate(over="ignore", invalid="ignore"):
            ratio = np.where(correlation != 0.0, correlation ** elapsed_s[noisy], 0.0)
        draws = rng.standard_normal((len(noisy_rows), 3))
        state = ratio[:, None] * self.noise[noisy_rows] + np.sqrt(1.0 - ratio**2)[:, None] * draws
        self.noise[noisy_rows] = state
        return self.accuracy[noisy_rows, None] * state

    def _sample_compiled(self, data: mujoco.MjData, rows: np.ndarray, step: int,
                         group: SampleGroup | None = None) -> None:
        """:meth:`sample` as one compiled loop (:func:`wbsim.devices.motion_kernel.gps_values`); the noise (when
        some device has some) is drawn first, in the numpy path's order. A quiet ``LOCAL`` ``group`` (the rows of
        one group) joins the motion kinds' fused call for its next samples (:mod:`wbsim.devices.motion_batch`)."""
        if self._kernels is None:
            self._kernels = motion_kernels()
        plan = self._plans.get(id(rows))
        if plan is None or plan[0] is not rows:  # a new group of rows (the schedule keeps each group's array)
            plan = (rows, self._sites[rows], self._bodies[rows], self._roots[rows], self._dynamic[rows],
                    np.empty((len(rows), 3)), np.arange(len(rows)))
            self._plans = {id(rows): plan}
        _, sites, bodies, roots, dynamic, scratch, order = plan
        offset, speed_factor = self._no_offset, self._no_factor
        if not self._quiet:
            rng = None
            accuracy = self.accuracy[rows]
            noisy = accuracy != 0.0
            elapsed_s = (step - self._last[rows]) * (self.context.basic_time_step_ms / 1000.0)
            if noisy.any():
                rng = self.context.rng()
                offset = np.zeros((len(rows), 3))
                offset[noisy] = self._noise_offsets(rng, rows, noisy, elapsed_s)
            speed_noise = self.speed_noise[rows]
            shaken = speed_noise > 0.0
            if shaken.any():
                if rng is None:
                    rng = self.context.rng()
                speed_factor = np.ones(len(rows))
                speed_factor[shaken] = 1.0 + speed_noise[shaken] * rng.standard_normal(int(shaken.sum()))
        local = self.coordinate_system != WGS84  # the positions are the values: the loop writes them
        views = self._views = StateViews.of(self._views, data)
        before = (views.site_xpos, views.cvel, views.subtree_com, sites, bodies, roots, dynamic, rows,
                  self._reference, offset, self.resolution, speed_factor, self.speed_resolution, self._previous,
                  self._last)
        after = (self._basic_s, rows if local else order, self.values if local else scratch, self.speed_vector,
                 self.speed)
        if self._quiet and local:  # the same arguments for the next samples of these rows
            self._call = (rows, data, self._kernels.gps_values, before, after)
            if group is not None:
                self._join_batch(data, group, plan)
        self._kernels.gps_values(*before, step, *after)
        if not local:
            self.values[rows] = self.frame.geodetic(scratch)

    def _join_batch(self, data: mujoco.MjData, group: SampleGroup, plan: tuple[np.ndarray, ...]) -> None:
        """The fused call samples ``group`` from its next sample on, while the quiet call prepared for its rows
        holds."""

        def valid() -> bool:
            call = self._call
            return (self.compiled and self._quiet and call is not None and call[0] is group.rows
                    and call[1] is data)

        rows, sites, bodies, roots, dynamic = plan[:5]
        pieces = (sites, bodies, roots, dynamic.astype(np.int64), rows)
        self._join_batch_part("gps", group, data, pieces,
                              (self._reference, self._no_offset, self.resolution, self._no_factor,
                               self.speed_resolution, self._previous, self._last, self._basic_s, self.values,
                               self.speed_vector, self.speed), valid)

    def _velocity(self, data: mujoco.MjData, rows: np.ndarray, position: np.ndarray,
                  elapsed_s: np.ndarray) -> np.ndarray:
        """The velocity (m/s, world) of each device origin in ``rows``: the point velocity on a moving body,
        else the displacement since the last sample over its interval."""
        dynamic = self._dynamic[rows]
        with np.errstate(invalid="ignore", divide="ignore"):
            velocity = (position - self._previous[rows]) / elapsed_s[:, None]
        if dynamic.any():
            bodies = self._bodies[rows[dynamic]]
            twist = data.cvel[bodies]  # [angular; linear at the tree's centre of mass], world axes
            lever = position[dynamic] - data.subtree_com[self._roots[rows[dynamic]]]
            velocity[dynamic] = twist[:, 3:] + np.cross(twist[:, :3], lever)
        return velocity


@dataclass
class GPS(SampledDevice):
    """One GPS (snake_case core API; the Webots ``GPS`` class wraps it)."""

    kind: str = "gps"

    @property
    def values(self) -> list[float]:
        """The last measured position (``LOCAL``: world x, y, z in m; ``WGS84``: latitude, longitude in deg and
        altitude in m); NaN before the first sample."""
        return self.bank.values[self.index].tolist()

    @property
    def speed(self) -> float:
        """The last measured speed (m/s)."""
        return float(self.bank.speed[self.index])

    @property
    def speed_vector(self) -> list[float]:
        """The last measured velocity of the GPS origin in world axes (m/s)."""
        return self.bank.speed_vector[self.index].tolist()

    @property
    def coordinate_system(self) -> int:
        """``LOCAL`` (0) or ``WGS84`` (1), from WorldInfo ``gpsCoordinateSystem``."""
        return int(self.bank.coordinate_system)

