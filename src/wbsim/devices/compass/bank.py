"""Compasses with Webots semantics (``WbCompass::computeValue``), vectorised over every compass.

After a basic step, for the compasses due (Webots' ``WbSensor`` schedule, :mod:`wbsim.devices.sampling`):

1. the north direction in the sensor frame, ``R^T north`` with ``R`` the sensor's rotation in the world
   frame (``site_xmat`` of all the compasses due, one gather) and ``north`` the world axis named "N" by
   ``WorldInfo.coordinateSystem``, normalised as Webots does;
2. each enabled component through the lookup table (an empty table passes the value unchanged; table noise
   is relative, from the simulation's seeded generator, drawn in row then x, y, z order); a component whose
   ``xAxis``/``yAxis``/``zAxis`` is FALSE reads NaN;
3. the resolution.

Values are NaN until the first sample.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import mujoco
import numpy as np

from wbsim.devices.compass.compile import CompassBinding
from wbsim.devices.compiled import StateViews, motion_kernels, numba_installed
from wbsim.devices.kind import BankContext
from wbsim.devices.lookup_table import LookupPlan, LookupTables, lookup_warnings
from wbsim.devices.motion_batch import BatchMember
from wbsim.devices.resolution import quantize
from wbsim.devices.sampling import SampledBank, SampledDevice, SampleGroup
from wbsim.world.schema_kit import resolution_field

__all__ = ["CompassBank", "Compass"]

_AXES = {"xAxis": 0, "yAxis": 1, "zAxis": 2}


@dataclass(eq=False)
class _Plan:
    """One sample group: its rows, which components are looked up, and their tables (gathered once)."""

    rows: np.ndarray
    sites: np.ndarray
    enabled: np.ndarray  # (k, 3) bool
    lookups: LookupPlan  # one table per enabled component, in row-major order
    resolution: np.ndarray  # (k, 1)
    quantized: bool
    plain: bool  # every axis enabled, no table, no resolution: the values are the north vectors
    order: np.ndarray  # 0 .. k-1
    local: np.ndarray  # work space of the compiled north vectors, (k, 3)
    call: tuple | None = None  # a plain group's compiled sample: (data, its arguments), set at its first one


class CompassBank(BatchMember, SampledBank):
    """State and sampling of all Compasses of one simulation (row ``i`` is ``bindings[i]``).

    Args:
        bindings: the compasses, in scene order.
        context: the simulation's model, generator, clock and kinematics refresh.

    Attributes:
        values: the last sampled values, (n, 3); NaN before the first sample and for disabled axes (also as
            :attr:`value_list`, the Python floats the API returns, flat: compass ``i``'s at ``3 i .. 3 i + 2``).
        lookup_tables: the current (input, output, noise) rows of each compass.
        axes: the ``xAxis``, ``yAxis``, ``zAxis`` fields, (n, 3) bool.
        resolution: the ``resolution`` fields (-1: none), (n,).
        north: the world axis pointing north (0, 1 or 2).
    """

    carried = ("values",)  # value_list is rebuilt from values

    def __init__(self, bindings: tuple[CompassBinding, ...], context: BankContext) -> None:
        super().__init__(bindings, context)
        self.bindings: tuple[CompassBinding, ...] = bindings
        n = self.n
        self._sites = np.array([b.site_id for b in bindings], dtype=np.int64)
        self.north = int(bindings[0].north) if n else 1
        # Updated in place (never replaced), so API objects may keep references to them.
        self.values = np.full((n, 3), np.nan)
        self._flat_values = self.values.reshape(-1)  # a view: a flat list converts faster than nested ones
        self.value_list: list[float] = self._flat_values.tolist()  # the same as floats, for the API's reads
        self.axes = np.ones((n, 3), dtype=bool)
        self.resolution = np.full(n, -1.0)
        self.lookup_tables = [b.lookup_table for b in bindings]
        self.tables = LookupTables(self.lookup_tables)
        # Sample with the compiled loop of wbsim.devices.motion_kernel (numba) or with numpy (the reference).
        self.compiled = numba_installed()
        self._kernels: ModuleType | None = None  # motion_kernel, imported at the first compiled sample
        self._views: StateViews | None = None  # MuJoCo's arrays for the compiled loop
        self._restore_fields()

    def core(self, row: int) -> Compass:
        """The core Compass of row ``row``."""
        return Compass(self, row, str(self.bindings[row].node["name"]), self.context.now_step)

    # -- fields -------------------------------------------------------------------------------------
    def _restore_fields(self) -> None:
        """Every field back to the world file's values (a world reset restores what supervisors wrote)."""
        for row, binding in enumerate(self.bindings):
            node = binding.node
            self.axes[row] = [bool(node[name]) for name in _AXES]
            self.resolution[row] = float(node["resolution"])  # type: ignore[arg-type]
            if self.lookup_tables[row] != binding.lookup_table:
                self.lookup_tables[row] = binding.lookup_table
                self.tables.set_table(row, binding.lookup_table)
        for group in self.schedule.groups:
            group.cache = None

    def field_changed(self, row: int, name: str, value: object) -> object | None:
        """A supervisor wrote ``lookupTable``, an axis flag or ``resolution``: used from the next sample (with
        Webots' warnings and repair).

        Returns:
            The value the field now holds, or None for fields the sensor does not use.
        """
        self._batch_changed()  # what the fused call checked may differ now (motion_batch)
        applied: object
        if name == "lookupTable":
            table = tuple(tuple(float(v) for v in item) for item in value)  # type: ignore[union-attr]
            for message in lookup_warnings(table):
                self.context.warn(f"{self.bindings[row].node['name']}: {message}")
            self.lookup_tables[row] = table  # type: ignore[call-overload]
            self.tables.set_table(row, table)
            applied = table
        elif name in _AXES:
            self.axes[row, _AXES[name]] = bool(value)
            applied = bool(value)
        elif name == "resolution":
            number, message = resolution_field().repaired(float(value))  # type: ignore[arg-type]
            if message is not None:
                self.context.warn(f"{self.bindings[row].node['name']}: {message}")
            self.resolution[row] = number
            applied = number
        else:
            return None
        group = self.schedule.group_of(row)
        if group is not None:
            group.cache = None  # its plan holds the old fields
        return applied

    # -- resets ---------------------------------------------------------------------------------------

    def reset(self) -> None:
        """All compasses disabled, values NaN, fields as in the world file (as after loading)."""
        self._leave_batch()
        self.schedule.reset()
        self._restore_fields()
        self.values[:] = np.nan
        self._refresh_lists()

    def _refresh_lists(self) -> None:
        """:attr:`value_list` from the values."""
        self.value_list[:] = self._flat_values.tolist()

    def restart(self) -> None:
        """After a world reset: fields as in the world file; enabled compasses stay enabled and sample after
        the first step; the last values stay readable until then."""
        self._leave_batch()
        self.schedule.restart()
        self._restore_fields()

    # -- per step -----------------------------------------------------------------------------------
    def sample(self, data: mujoco.MjData, step: int) -> None:
        """Compute the values of the compasses due after basic step ``step`` (module docstring)."""
        groups = self._due_own(data, step)  # none when the motion kinds' fused call computed them
        if not groups:
            return
        self.context.refresh_kinematics()
        for group in groups:
            plan = self._plan(group)
            call = plan.call
            if call is not None and call[0] is data and self.compiled:
                self._kernels.compass_values(*call[1])  # type: ignore[union-attr]
                continue
            if self.compiled:
                if self._kernels is None:
                    self._kernels = motion_kernels()
                self._views = StateViews.of(self._views, data)
                site_xmat = self._views.site_xmat
                if plan.plain:  # the kernel writes the values themselves
                    plan.call = (data, (site_xmat, plan.sites, self.north, plan.rows, self.values))
                    self._join_batch(data, plan, group)
                    self._kernels.compass_values(*plan.call[1])
                    continue  # (value_list is refreshed after the loop)
                local = plan.local
                self._kernels.compass_values(site_xmat, plan.sites, self.north, plan.order, local)
            else:
                north = self.north
                local = data.site_xmat[plan.sites, 3 * north : 3 * north + 3]  # row `north` of R: R^T north
                length = np.sqrt(local[:, 0] * local[:, 0] + local[:, 1] * local[:, 1] + local[:, 2] * local[:, 2])
                with np.errstate(divide="ignore"):
                    local = local * np.where(length != 0.0, 1.0 / length, 1.0)[:, None]  # WbVector3::normalize
            values = np.full((len(plan.rows), 3), np.nan)
            noisy = plan.lookups.noisy
            values[plan.enabled] = plan.lookups.lookup(local[plan.enabled], self.context.rng() if noisy else None)
            if plan.quantized:
                values = quantize(values, plan.resolution)
            self.values[plan.rows] = values
        self._refresh_lists()

    def _join_batch(self, data: mujoco.MjData, plan: _Plan, group: SampleGroup) -> None:
        """Let the fused call of the motion kinds (:mod:`wbsim.devices.motion_batch`) sample the plain ``group``
        from its next sample on, while its prepared plain call holds."""

        def valid() -> bool:
            call = plan.call
            return self.compiled and group.cache is plan and call is not None and call[0] is data

        self._join_batch_part("compass", group, data, (plan.sites, plan.rows), (self.north, self.values), valid)

    def _plan(self, group: SampleGroup) -> _Plan:
        plan = group.cache
        if plan is None:
            rows = group.rows
            enabled = self.axes[rows].copy()
            resolution = self.resolution[rows][:, None].copy()
            quantized = bool((resolution > 0).any())
            plan = group.cache = _Plan(rows=rows, sites=self._sites[rows], enabled=enabled,
                                       lookups=self.tables.prepare(np.repeat(rows, 3)[enabled.ravel()]),
                                       resolution=resolution, quantized=quantized,
                                       plain=bool(enabled.all()) and bool(self.tables.empty[rows].all())
                                       and not quantized,
                                       order=np.arange(len(rows)), local=np.empty((len(rows), 3)))
        assert isinstance(plan, _Plan)
        return plan


@dataclass
class Compass(SampledDevice):
    """One Compass (snake_case core API; the Webots ``Compass`` class wraps it)."""

    kind: str = "compass"

    @property
    def values(self) -> list[float]:
        """The last north vector in the sensor frame, through the lookup table; NaN before the first sample."""
        return self.bank.values[self.index].tolist()

    @property
    def lookup_table(self) -> tuple[tuple[float, float, float], ...]:
        """The (input, output, noise) rows of the current lookup table."""
        return self.bank.lookup_tables[self.index]
