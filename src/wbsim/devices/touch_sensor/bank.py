"""TouchSensors with Webots semantics, vectorised over every TouchSensor of a world.

After every basic step (``DEVICES_SAMPLE`` phase):

1. **Bumper contacts.** After every MuJoCo step of the basic step (``substep``), one pass over
   MuJoCo's contact list marks the bumpers whose boundingObject touches a geom of another body (cost
   linear in contacts, whatever the number of bumpers): a short contact inside a basic step counts, as
   every contact that acts in Webots exists at one of its step boundaries. A bumper whose body sleeps
   keeps its last state: MuJoCo drops the contacts of sleeping trees, while the touch they stood for is
   still there. Webots' flag *latches*: it is set by any contact since the last sample of that bumper,
   also while the sensor is disabled, and cleared only when a sample is taken
   (``WbTouchSensor::computeValue``).
2. **Samples due** (Webots' ``WbSensor`` schedule, see :mod:`wbsim.devices.sampling`):

   - bumper: 1.0 if the latch is set, else 0.0;
   - force: ``f1`` is the force through the sensor's fixed joint in the sensor frame (see
     :mod:`wbsim.devices.touch_sensor.compile`), averaged over the physics steps of the basic step
     (Webots' one ODE step per basic step reports that average); Webots keeps only a push into the
     sensor along its x-axis, ``max(-f1.x, 0)``, then applies the lookup table (with noise) and the
     resolution;
   - force-3d: each component of ``f1`` through the lookup table and the resolution, unclamped;
   - a force sensor without feedback reads ``lookupTable(0)`` per component, without resolution.

Values are NaN until the first sample. Noise comes from the simulation's seeded generator.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from wbsim.devices.kind import BankContext
from wbsim.devices.lookup_table import LookupPlan, LookupTables, lookup_warnings
from wbsim.devices.resolution import quantize
from wbsim.devices.sampling import SampledBank, SampledDevice, SampleGroup
from wbsim.devices.touch_sensor.compile import BUMPER, FORCE, TouchSensorBinding

__all__ = ["TouchSensorBank", "TouchSensor"]


@dataclass(frozen=True)
class _Plan:
    """How one sample group is computed, precomputed when the group forms.

    ``inputs`` are the values looked up in one vectorised call: one per force sensor, three per force-3d
    sensor, ``lookupTable(0)`` for sensors without feedback; ``out_rows``/``out_cols`` say where each
    output goes in ``values``.
    """

    bumpers: np.ndarray
    force_rows: np.ndarray  # index into `inputs` of each "force" reading
    force_idx: np.ndarray  # (k, samples, 3) history indices of the force readings
    force_sign: np.ndarray  # (k,)
    force3d_rows: np.ndarray  # index into `inputs` of the first of the 3 components of each "force-3d" reading
    force3d_idx: np.ndarray  # (m, samples, 3)
    force3d_sign: np.ndarray  # (m,)
    n_inputs: int
    lookups: LookupPlan  # the table of each input, gathered
    resolution: np.ndarray  # resolution of each input (-1: none); patched in place by field writes
    feedback: np.ndarray  # the input is a force reading (resolution applies), not lookupTable(0)
    out_rows: np.ndarray
    out_cols: np.ndarray


class TouchSensorBank(SampledBank):
    """State and sampling of all TouchSensors of one simulation (row ``i`` is ``bindings[i]``).

    Args:
        bindings: the sensors.
        context: the simulation's model, time step, generator and clock.

    Attributes:
        values: the last sampled values, (n, 3); NaN before the first sample (column 0 for bumper and force).
        touching: whether each bumper touches something now (after the last step), (n,).
        latched: Webots' ``mIsTouching``: a contact since the bumper's last sample, (n,).
    """

    carried = ("values", "touching", "latched")

    def __init__(self, bindings: tuple[TouchSensorBinding, ...], context: BankContext) -> None:
        super().__init__(bindings, context)
        self.bindings: tuple[TouchSensorBinding, ...] = bindings
        model = context.model
        self.type = np.array([b.type for b in bindings], dtype=np.int64)
        self.lookup_tables = [b.lookup_table for b in bindings]  # current tables (supervisors may write them)
        self.tables = LookupTables(self.lookup_tables)
        self.resolution = np.array([b.resolution for b in bindings], dtype=float)
        self._quantized = bool((self.resolution > 0).any())  # some sensor has a resolution
        self.force_adr = np.array([b.force_adr for b in bindings], dtype=np.int64)
        self.force_sign = np.array([b.force_sign for b in bindings], dtype=float)
        self.history_samples = context.substeps  # force samples per basic step (one per physics step)
        self._bumpers = np.flatnonzero(self.type == BUMPER)
        self._bumper_bodies = np.array([bindings[i].body_id for i in self._bumpers], dtype=np.int64)
        # Which bumper (row) each geom belongs to, n for other geoms: one gather per physics step finds the
        # touches. The extra last entry maps geom id -1 (contacts without a geom, e.g. flex) to no bumper;
        # row n is a scratch slot of `_seen`, so no filtering is needed.
        self._geom_row = np.full(model.ngeom + 1, self.n, dtype=np.int64)
        for row in self._bumpers:
            self._geom_row[list(bindings[row].geom_ids)] = row
        self._seen = np.zeros(self.n + 1, dtype=bool)  # bumpers touching in some physics step of this step
        self._kept_history: np.ndarray | None = None  # the last physics step's forces, through a world reset
        self._initial_collisions = False  # a world reset's collision pass is still to be seen by the bumpers
        self.watches_substeps = bool(len(self._bumpers))
        self._sleeping = bool(model.opt.enableflags & mujoco.mjtEnableBit.mjENBL_SLEEP)
        # Updated in place (never replaced), so API objects may keep references to them.
        self.values = np.full((self.n, 3), np.nan)
        self.touching = np.zeros(self.n, dtype=bool)
        self.latched = np.zeros(self.n, dtype=bool)

    def core(self, row: int) -> TouchSensor:
        """The core TouchSensor of row ``row``."""
        return TouchSensor(self, row, str(self.bindings[row].node["name"]), self.context.now_step)

    def _restore_fields(self) -> None:
        """Lookup tables and resolutions back to the world file's (a world reset restores written fields)."""
        for row, binding in enumerate(self.bindings):
            if self.lookup_tables[row] != binding.lookup_table:
                self.lookup_tables[row] = binding.lookup_table
                self.tables.set_table(row, binding.lookup_table)
        self.resolution[:] = [b.resolution for b in self.bindings]
        self._quantized = bool((self.resolution > 0).any())
        for group in self.schedule.groups:
            group.cache = None

    def reset(self) -> None:
        """All sensors disabled, values NaN, no touch latched (as after loading)."""
        self._kept_history = None
        self._initial_collisions = False
        self._restore_fields()
        self.values[:] = np.nan
        self.touching[:] = False
        self.latched[:] = False
        self._seen[:] = False
        self.schedule.reset()

    def restart(self) -> None:
        """After a world reset (``simulationReset``): enabled sensors stay enabled and sample in the reset
        step (forces: those of the last physics step before the reset, :meth:`before_world_reset`); a latched
        touch is kept, as Webots keeps ``mIsTouching`` (``WbTouchSensor`` has no reset of its own), and the
        contacts of the initial state count too (Webots runs a collision pass after the reset,
        ``handleInitialCollisions``, whose contacts set the bumpers' flags before the reset step's answer)."""
        self._restore_fields()
        self.touching[:] = False
        self._seen[:] = False
        self._initial_collisions = True
        self.schedule.restart()

    def field_changed(self, row: int, name: str, value: object) -> object | None:
        """A supervisor wrote ``lookupTable`` or ``resolution``: applied from the next sample, as Webots
        (``updateLookupTable``, ``updateResolution`` with its repair of invalid values); ``type`` is not.

        Returns:
            The value the field now holds, or None for fields not applied.
        """
        name_of = self.bindings[row].node["name"]
        if name == "lookupTable":
            table = tuple(tuple(float(v) for v in item) for item in value)  # type: ignore[union-attr]
            for message in lookup_warnings(table):
                self.context.warn(f"{name_of}: {message}")
            self.lookup_tables[row] = table  # type: ignore[call-overload]
            self.tables.set_table(row, table)
            applied: object = table
        elif name == "resolution":
            resolution = float(value)  # type: ignore[arg-type]
            if resolution <= 0 and resolution != -1:
                self.context.warn(f"{name_of}: Invalid 'resolution' changed to -1. The value should be either -1 or "
                                  "positive.")
                resolution = -1.0
            self.resolution[row] = resolution
            self._quantized = bool((self.resolution > 0).any())
            plan = getattr(self.schedule.group_of(row), "cache", None)
            if isinstance(plan, _Plan):  # patch the sample group's plan in place: one write stays O(1)
                plan.resolution[(plan.out_rows == row) & plan.feedback] = resolution
            return resolution
        else:
            if name == "type":
                self.context.warn(f"{name_of}: changing the 'type' of a TouchSensor while the simulation runs is not "
                                  "simulated by wbsim; reload the world.")
            return None
        group = self.schedule.group_of(row)
        if group is not None:
            group.cache = None  # its plan holds the old table and resolution
        return applied

    # -- per step -------------------------------------------------------------------------------------
    def substep(self, data: mujoco.MjData) -> None:
        """Mark the bumpers touching something in the contacts of the MuJoCo step just done."""
        if data.ncon:
            self._seen[self._geom_row[data.contact.geom]] = True

    def before_world_reset(self, data: mujoco.MjData) -> None:
        """Keep the force samples of the last basic step: a force sensor's fixed joint survives Webots' world
        reset with its feedback, which the sample of the reset step reads."""
        if len(self._bumpers) < self.n:
            self._kept_history = data.history.copy()

    def sample(self, data: mujoco.MjData, step: int) -> None:
        """Update the bumper latches, then compute the values of the sensors due after basic step ``step``."""
        if len(self._bumpers):
            if self._initial_collisions:  # the reset step: the initial state's contacts (MuJoCo's, from load)
                self.substep(data)
            self._watch_contacts(data)
        self._initial_collisions = False
        history = data.history if self._kept_history is None else self._kept_history
        self._kept_history = None
        for group in self.schedule.due(step):
            plan = group.cache
            if plan is None:
                plan = group.cache = self._plan(group)
            assert isinstance(plan, _Plan)
            self._compute(history, plan)

    def _watch_contacts(self, data: mujoco.MjData) -> None:
        now = self._seen[: self.n].copy()
        self._seen[:] = False
        if self._sleeping:
            # MuJoCo drops a sleeping tree's contacts: a sleeping bumper still touches what it touched.
            asleep = data.body_awake[self._bumper_bodies] == 0
            if asleep.any():
                held = self._bumpers[asleep]
                now[held] = self.touching[held]
        self.touching[:] = now
        self.latched |= now

    def _compute(self, history: np.ndarray, plan: _Plan) -> None:
        values = self.values
        if len(plan.bumpers):
            values[plan.bumpers, 0] = self.latched[plan.bumpers]
            self.latched[plan.bumpers] = False
        if not plan.n_inputs:
            return
        inputs = np.zeros(plan.n_inputs)
        if len(plan.force_rows):
            f1_x = history[plan.force_idx[:, :, 0]].mean(axis=1) * plan.force_sign
            inputs[plan.force_rows] = np.where(f1_x < 0.0, -f1_x, 0.0)  # only a push into the sensor counts
        if len(plan.force3d_rows):
            f1 = history[plan.force3d_idx].mean(axis=1) * plan.force3d_sign[:, None]
            inputs[plan.force3d_rows[:, None] + np.arange(3)] = f1
        outputs = plan.lookups.lookup(inputs, self.context.rng() if plan.lookups.noisy else None)
        if self._quantized:
            outputs = quantize(outputs, plan.resolution)
        values[plan.out_rows, plan.out_cols] = outputs

    def _plan(self, group: SampleGroup) -> _Plan:
        rows = group.rows
        kinds, adr = self.type[rows], self.force_adr[rows]
        tables: list[int] = []
        resolution: list[float] = []
        feedback: list[bool] = []
        out_rows: list[int] = []
        out_cols: list[int] = []
        force_rows, force_at, force3d_rows, force3d_at = [], [], [], []
        for row, kind, a in zip(rows.tolist(), kinds.tolist(), adr.tolist()):
            if kind == BUMPER:
                continue
            columns = 1 if kind == FORCE else 3
            if a >= 0:
                (force_rows if kind == FORCE else force3d_rows).append(len(tables))
                (force_at if kind == FORCE else force3d_at).append(row)
            for column in range(columns):
                tables.append(row)
                # Webots returns lookupTable(0) before applying the resolution when there is no feedback.
                resolution.append(float(self.resolution[row]) if a >= 0 else -1.0)
                feedback.append(a >= 0)
                out_rows.append(row)
                out_cols.append(column)
        table_rows = np.array(tables, dtype=np.int64)
        # History index of component c of sample k of a sensor: adr + 3 k + c.
        offsets = 3 * np.arange(self.history_samples)[:, None] + np.arange(3)
        return _Plan(
            bumpers=rows[kinds == BUMPER],
            force_rows=np.array(force_rows, dtype=np.int64),
            force_idx=(self.force_adr[force_at][:, None, None] + offsets).reshape(-1, self.history_samples, 3),
            force_sign=self.force_sign[force_at],
            force3d_rows=np.array(force3d_rows, dtype=np.int64),
            force3d_idx=(self.force_adr[force3d_at][:, None, None] + offsets).reshape(-1, self.history_samples, 3),
            force3d_sign=self.force_sign[force3d_at],
            n_inputs=len(tables),
            lookups=self.tables.prepare(table_rows),
            resolution=np.array(resolution, dtype=float),
            feedback=np.array(feedback, dtype=bool),
            out_rows=np.array(out_rows, dtype=np.int64),
            out_cols=np.array(out_cols, dtype=np.int64),
        )


@dataclass
class TouchSensor(SampledDevice):
    """One TouchSensor (snake_case core API; the Webots ``TouchSensor`` class wraps it)."""

    kind: str = "touch_sensor"

    @property
    def type(self) -> int:
        """0 (bumper), 1 (force) or 2 (force-3d)."""
        return int(self.bank.type[self.index])

    @property
    def value(self) -> float:
        """The last bumper (0 or 1) or force value; NaN before the first sample."""
        return float(self.bank.values[self.index, 0])

    @property
    def values(self) -> list[float]:
        """The last force-3d vector in the sensor frame (through the lookup table); NaN before the first sample."""
        return self.bank.values[self.index].tolist()

    @property
    def lookup_table(self) -> tuple[tuple[float, float, float], ...]:
        """The (input, output, noise) rows of the current lookup table."""
        return self.bank.lookup_tables[self.index]
