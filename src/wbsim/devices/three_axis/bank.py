"""The sampling of three-axis sensors (Accelerometer, Gyro), vectorised over every sensor of a kind.

After each basic step (``DEVICES_SAMPLE`` phase), for the sensors due on Webots' ``WbSensor`` schedule
(:mod:`wbsim.devices.sampling`), in one pass per sample group:

1. the poses and velocities of the state reached by the step (``refresh_kinematics``: Webots reads its
   ODE bodies after the physics step), once per step;
2. the measured vector in the sensor frame, for the sensors whose body exists (:meth:`ThreeAxisBank.measure`,
   the kind's part);
3. each *enabled* axis through the sensor's lookup table (clamped, interpolated, relative Gaussian noise from
   the simulation's seeded generator, drawn in sensor then axis order), then the resolution
   (``(int)(v / r + 0.5) * r``); a disabled axis reads NaN (``WbAccelerometer::computeValue``,
   ``WbGyro::computeValue``);
4. sensors without a body read the kind's :attr:`ThreeAxisBank.no_body_value`, with the kind's warning once.

Values are NaN until the first sample (the controller library's initial values).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import mujoco
import numpy as np

from wbsim.devices.compiled import StateViews, motion_kernels, numba_installed
from wbsim.devices.kind import BankContext
from wbsim.devices.lookup_table import LookupPlan, LookupTables, lookup_warnings
from wbsim.devices.motion_batch import BatchMember
from wbsim.devices.resolution import quantize
from wbsim.devices.sampling import SampledBank, SampledDevice, SampleGroup
from wbsim.devices.three_axis.compile import ThreeAxisBinding
from wbsim.devices.three_axis.schema import AXIS_FIELDS, repaired_fields

__all__ = ["ThreeAxisBank", "ThreeAxisDevice", "MeasurePlan", "local_vectors"]


def local_vectors(rotations: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """World vectors expressed in rotated frames: ``R_k^T v_k`` (Webots' ``vector * matrix()``).

    Args:
        rotations: frame orientations, (k, 9) row-major as MuJoCo's ``site_xmat`` (or (k, 3, 3)).
        vectors: world-frame vectors, (k, 3).

    Returns:
        (k, 3): each vector's components along its frame's x, y and z axes.
    """
    return np.einsum("kji,kj->ki", rotations.reshape(-1, 3, 3), vectors)


@dataclass(frozen=True, eq=False)
class MeasurePlan:
    """The sensors of one sample group that have a body, with their MuJoCo ids gathered once.

    Attributes:
        rows: their bank rows, (k,).
        sites: their frame sites, (k,).
        bodies: the bodies they read, (k,).
        roots: those bodies' tree roots (``cvel`` reference point ``subtree_com[root]``), (k,).
    """

    rows: np.ndarray
    sites: np.ndarray
    bodies: np.ndarray
    roots: np.ndarray


@dataclass(eq=False)
class _Plan:
    """One sample group: what is measured, where the enabled axes go, their tables and resolutions."""

    measure: MeasurePlan
    no_body: np.ndarray  # bank rows without a body
    inputs: np.ndarray  # flat indices into the (k, 3) measurement of the enabled axes
    out_rows: np.ndarray  # bank row of each input
    out_cols: np.ndarray  # axis of each input
    lookups: LookupPlan
    identity: bool  # every table is empty: the outputs are the inputs (Webots' default)
    resolution: np.ndarray  # of each input
    quantized: bool
    disabled_rows: np.ndarray  # bank row and axis of the disabled axes of sensors with a body
    disabled_cols: np.ndarray
    plain: bool  # every axis enabled, no table, no resolution: the values are the measurement
    raw: np.ndarray  # work space of the compiled measurement, (k, 3)
    order: np.ndarray  # 0 .. k-1: the rows of ``raw``
    # A plain group's compiled sample, its arguments gathered once: (data, loop, arguments before the step,
    # arguments after it or None when the loop takes no step); set at the group's first compiled sample.
    call: tuple | None = None


class ThreeAxisBank(BatchMember, SampledBank):
    """State and sampling of every sensor of one three-axis kind (row ``i`` is ``bindings[i]``).

    Subclasses implement :meth:`measure` and set :attr:`no_body_value` and :attr:`no_body_warning`.

    Args:
        bindings: the sensors, in scene order.
        context: the simulation's model, time step, generator, clock and kinematics refresh.

    Attributes:
        values: the last sampled values, (n, 3); NaN before the first sample and for disabled axes (also as
            :attr:`value_list`, the Python floats the API returns, flat: sensor ``i``'s at ``3 i .. 3 i + 2``).
        axes: ``xAxis``, ``yAxis``, ``zAxis`` of each sensor, (n, 3) bool.
        resolution: each sensor's resolution (-1: infinite), (n,).
        lookup_tables: the current (input, output, noise) rows of each sensor.
        gravity: the world's gravity vector (m/s^2, world frame), (3,).
    """

    no_body_value = float("nan")
    """What a sensor without a body reads on every axis."""
    no_body_warning = ""
    """Webots' warning for a sensor without a body (printed once per sensor)."""
    core_class: type[ThreeAxisDevice]
    """The kind's core device class (set by the subclass)."""
    batch_slot = ""
    """The kind's slot in the motion kinds' fused call (:data:`wbsim.devices.motion_batch.SLOTS`; set with
    :meth:`batch_part`)."""

    carried = ("values", "_warned")  # value_list is rebuilt from values

    def __init__(self, bindings: tuple[ThreeAxisBinding, ...], context: BankContext) -> None:
        super().__init__(bindings, context)
        self.bindings: tuple[ThreeAxisBinding, ...] = bindings
        self._sites = np.array([b.site_id for b in bindings], dtype=np.int64)
        self._bodies = np.array([b.body_id for b in bindings], dtype=np.int64)
        self._roots = np.array([b.root_id for b in bindings], dtype=np.int64)
        self.gravity = np.array(bindings[0].gravity if bindings else (0.0, 0.0, 0.0), dtype=float)
        # Updated in place (never replaced), so API objects may keep references to them.
        self.values = np.full((self.n, 3), np.nan)
        self._flat_values = self.values.reshape(-1)  # a view: a flat list converts faster than nested ones
        self.value_list: list[float] = self._flat_values.tolist()  # the same as floats, for the API's reads
        self.axes = np.ones((self.n, 3), dtype=bool)
        self.resolution = np.full(self.n, -1.0)
        self.lookup_tables = [b.lookup_table for b in bindings]
        self.tables = LookupTables(self.lookup_tables)
        self._warned = np.zeros(self.n, dtype=bool)
        # Measure with the compiled loops of wbsim.devices.motion_kernel (numba) or with numpy (the reference).
        self.compiled = numba_installed()
        self._kernels: ModuleType | None = None  # motion_kernel, imported at the first compiled sample
        self._views: StateViews | None = None  # MuJoCo's arrays for the compiled loops
        self._restore_fields()

    def core(self, row: int) -> ThreeAxisDevice:
        """The core device of row ``row``."""
        return self.core_class(self, row, self._name(row), self.context.now_step)

    def _name(self, row: int) -> str:
        return str(self.bindings[row].node["name"])

    # -- fields -------------------------------------------------------------------------------------
    def _restore_fields(self) -> None:
        """Every field back to the world file's values (a world reset restores what supervisors wrote)."""
        for row, binding in enumerate(self.bindings):
            if self.lookup_tables[row] != binding.lookup_table:
                self.lookup_tables[row] = binding.lookup_table
                self.tables.set_table(row, binding.lookup_table)
        self.axes[:] = [b.axes for b in self.bindings] if self.n else np.ones((0, 3), dtype=bool)
        self.resolution[:] = [b.resolution for b in self.bindings]
        self._forget_plans()

    def _forget_plans(self) -> None:
        for group in self.schedule.groups:
            group.cache = None

    def field_changed(self, row: int, name: str, value: object) -> object | None:
        """A supervisor wrote ``lookupTable``, ``resolution`` (repaired as Webots does, with its warning) or an
        axis field: applied from the next sample (Webots reads them when it computes a value).

        Returns:
            The value the field now holds, or None for fields the sensor does not use.
        """
        self._batch_changed()  # what the fused call checked may differ now (motion_batch)
        applied: object
        if name == "lookupTable":
            table = tuple(tuple(float(v) for v in item) for item in value)  # type: ignore[union-attr]
            for message in lookup_warnings(table):
                self.context.warn(f"{self._name(row)}: {message}")
            self.lookup_tables[row] = table  # type: ignore[call-overload]
            self.tables.set_table(row, table)
            applied = table
        elif name == "resolution":
            number, message = repaired_fields()["resolution"].repaired(float(value))  # type: ignore[arg-type]
            if message is not None:
                self.context.warn(f"{self._name(row)}: {message}")
            self.resolution[row] = number
            applied = float(number)
        elif name in AXIS_FIELDS:
            self.axes[row, AXIS_FIELDS.index(name)] = bool(value)
            applied = bool(value)
        else:
            return None
        group = self.schedule.group_of(row)
        if group is not None:
            group.cache = None  # its plan holds the old table, resolution or axes
        return applied

    # -- resets -------------------------------------------------------------------------------------
    def reset(self) -> None:
        """All sensors disabled, values NaN, fields as loaded (as right after loading)."""
        self._leave_batch()
        self._restore_fields()
        self.values[:] = np.nan
        self._refresh_lists()
        self._warned[:] = False
        self.schedule.reset()

    def _refresh_lists(self) -> None:
        """:attr:`value_list` from the values."""
        self.value_list[:] = self._flat_values.tolist()

    def restart(self) -> None:
        """After a world reset (``simulationReset``): enabled sensors stay enabled and sample in the reset
        step (from the initial state); written fields are restored."""
        self._leave_batch()
        self._restore_fields()
        self.schedule.restart()

    # -- per step -----------------------------------------------------------------------------------
    def sample(self, data: mujoco.MjData, step: int) -> None:
        """Compute the values of the sensors due after basic step ``step``."""
        due = self._due_own(data, step)  # none when the motion kinds' fused call computed them
        if not due:
            return
        self.context.refresh_kinematics()
        for group in due:
            plan = group.cache
            if plan is None:
                plan = group.cache = self._plan(group)
            assert isinstance(plan, _Plan)
            call = plan.call
            if call is not None and call[0] is data and self.compiled:  # the loop writes the values directly
                if call[3] is None:
                    call[1](*call[2])
                else:
                    call[1](*call[2], step, *call[3])
            else:
                self._compute(data, plan, step, group)
        self._refresh_lists()


    def measure(self, data: mujoco.MjData, plan: MeasurePlan, step: int) -> np.ndarray:
        """The raw vectors of the sensors of ``plan`` in their own frames, (k, 3), from the current state.

        Called once per sample of each group, with the kinematics refreshed; ``step`` is the basic step
        after which they sample.
        """
        raise NotImplementedError

    def measure_compiled(self, kernels: ModuleType, data: mujoco.MjData, plan: MeasurePlan, step: int,
                         out_rows: np.ndarray, out: np.ndarray) -> None:
        """:meth:`measure` with the compiled loops of ``kernels`` (:mod:`wbsim.devices.motion_kernel`), into
        ``out`` (m, 3) at ``out_rows`` (k,); a kind without one measures with numpy."""
        call = self.compiled_call(kernels, data, plan, out_rows, out)
        if call is None:
            out[out_rows] = self.measure(data, plan, step)
            return
        loop, before, after = call
        if after is None:
            loop(*before)
        else:
            loop(*before, step, *after)

    def compiled_call(self, kernels: ModuleType, data: mujoco.MjData, plan: MeasurePlan, out_rows: np.ndarray,
                      out: np.ndarray) -> tuple | None:
        """The kind's compiled measurement of ``plan`` into ``out`` at ``out_rows`` as ``(loop, arguments before
        the step, arguments after it)`` (None after: the loop takes no step), with the arrays it reads gathered
        once (numba unboxes each argument at every call: the tuples are built once per sample group); None for
        a kind measured with numpy only."""
        return None

    def views(self, data: mujoco.MjData) -> StateViews:
        """MuJoCo's arrays of ``data`` for the compiled loops (made once per MjData)."""
        views = self._views
        if views is None or views.data is not data:
            views = self._views = StateViews(data)
        return views

    def batch_part(self, data: mujoco.MjData, plan: MeasurePlan) -> tuple[tuple[np.ndarray, ...], tuple] | None:
        """The kind's index arrays and arguments in :func:`wbsim.devices.motion_kernel.fused_values` for the plain
        group ``plan`` (writing the values at its rows), or None for a kind not in the fused call."""
        return None

    def _join_batch(self, data: mujoco.MjData, plan: _Plan, group: SampleGroup) -> None:
        """Let the fused call of the motion kinds sample ``group`` from its next sample on (its plain compiled
        call is prepared; only when the kind has one group, the common case: else the parts would alternate)."""
        contribution = self.batch_part(data, plan.measure)
        if contribution is None:
            return
        pieces, arrays = contribution

        def valid() -> bool:
            call = plan.call
            return self.compiled and group.cache is plan and call is not None and call[0] is data

        self._join_batch_part(self.batch_slot, group, data, pieces, arrays, valid)

    def _compute(self, data: mujoco.MjData, plan: _Plan, step: int, group: SampleGroup | None = None) -> None:
        values = self.values
        if len(plan.no_body):
            values[plan.no_body] = self.no_body_value
            fresh = plan.no_body[~self._warned[plan.no_body]]
            for row in fresh.tolist():
                self.context.warn(f"{self._name(row)}: {self.no_body_warning}")
            self._warned[fresh] = True
        if not len(plan.measure.rows):
            return
        if self.compiled:
            if self._kernels is None:
                self._kernels = motion_kernels()
            if plan.plain:  # the loop writes the values themselves
                call = self.compiled_call(self._kernels, data, plan.measure, plan.measure.rows, values)
                if call is not None and not len(plan.no_body):
                    plan.call = (data, *call)  # the next samples of the group call it directly
                    if group is not None:
                        self._join_batch(data, plan, group)
                self.measure_compiled(self._kernels, data, plan.measure, step, plan.measure.rows, values)
                return
            raw = plan.raw
            self.measure_compiled(self._kernels, data, plan.measure, step, plan.order, raw)
        else:
            raw = self.measure(data, plan.measure, step)
        if plan.plain:
            values[plan.measure.rows] = raw
            return
        if len(plan.inputs):
            outputs = raw.reshape(-1)[plan.inputs]
            if not plan.identity:
                outputs = plan.lookups.lookup(outputs, self.context.rng() if plan.lookups.noisy else None)
            if plan.quantized:
                outputs = quantize(outputs, plan.resolution)
            values[plan.out_rows, plan.out_cols] = outputs
        if len(plan.disabled_rows):
            values[plan.disabled_rows, plan.disabled_cols] = np.nan

    def _plan(self, group: SampleGroup) -> _Plan:
        rows = group.rows
        has_body = self._bodies[rows] >= 0
        measured = rows[has_body]
        axes = self.axes[measured]  # (k, 3)
        inputs = np.flatnonzero(axes.reshape(-1))
        out_rows = measured[inputs // 3]
        resolution = self.resolution[out_rows]
        disabled = np.flatnonzero(~axes.reshape(-1))
        return _Plan(
            measure=MeasurePlan(rows=measured, sites=self._sites[measured], bodies=self._bodies[measured],
                                roots=self._roots[measured]),
            no_body=rows[~has_body],
            inputs=inputs,
            out_rows=out_rows,
            out_cols=inputs % 3,
            lookups=self.tables.prepare(out_rows),
            identity=bool(self.tables.empty[out_rows].all()),
            resolution=resolution,
            quantized=bool((resolution > 0).any()),
            disabled_rows=measured[disabled // 3],
            disabled_cols=disabled % 3,
            plain=bool(axes.all()) and bool(self.tables.empty[out_rows].all())
            and not bool((resolution > 0).any()),
            raw=np.empty((len(measured), 3)),
            order=np.arange(len(measured)),
        )


@dataclass
class ThreeAxisDevice(SampledDevice):
    """One Accelerometer or Gyro (snake_case core API; the Webots API class wraps it). Each kind subclasses it
    to set :attr:`kind`."""

    kind: str = ""

    @property
    def values(self) -> list[float]:
        """The last sampled vector [x, y, z] in the sensor frame (lookup table and resolution applied); NaN
        before the first sample and for disabled axes."""
        return self.bank.values[self.index].tolist()

    @property
    def lookup_table(self) -> tuple[tuple[float, float, float], ...]:
        """The (input, output, noise) rows of the current lookup table (empty: raw values)."""
        return self.bank.lookup_tables[self.index]

    @property
    def axes(self) -> tuple[bool, bool, bool]:
        """Which axes are computed (``xAxis``, ``yAxis``, ``zAxis``)."""
        return tuple(bool(a) for a in self.bank.axes[self.index])  # type: ignore[return-value]

    @property
    def resolution(self) -> float:
        """The ``resolution`` field (-1: infinite)."""
        return float(self.bank.resolution[self.index])

    @property
    def has_body(self) -> bool:
        """Whether Webots has a body for the sensor to read (else it reads the kind's no-body value)."""
        return bool(self.bank.bindings[self.index].body_id >= 0)
