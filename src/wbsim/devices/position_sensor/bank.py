"""Position sensors with Webots semantics, vectorised over every sensor of a world.

The value is the joint position (rad or m) including the initial ``position`` of the joint. Noise is
additive Gaussian with standard deviation ``noise`` (same unit), drawn from the simulation's seeded
generator; then ``resolution`` quantises as Webots does: ``trunc(v / r + 0.5) * r`` (truncation toward
zero, so small negative values fall into a dead band, exactly like Webots). Values are NaN until the
first sample, which arrives one sampling period after ``enable``.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from wbsim.devices.kind import BankContext
from wbsim.devices.position_sensor.compile import PositionSensorBinding
from wbsim.devices.resolution import quantize
from wbsim.devices.sampling import SampledBank, SampledDevice, SampleGroup

__all__ = ["PositionSensorBank", "PositionSensor", "PLAIN_PYTHON_ROWS"]


@dataclass(frozen=True)
class _Gather:
    """What one sample group needs, precomputed when the group forms."""

    adr: np.ndarray
    has_joint: np.ndarray | None
    initial: np.ndarray
    noise: np.ndarray | None
    resolution: np.ndarray | None
    pairs: tuple[tuple[int, int], ...] | None = None  # (row, qpos address) when a plain copy of a few values


PLAIN_PYTHON_ROWS = 8
"""Up to this many sensors in a group with nothing but a copy to do, plain Python element copies replace
numpy's fancy indexing (whose dispatch costs more than the work on a few elements); same values."""


class PositionSensorBank(SampledBank):
    """State and sampling of all position sensors of one simulation (row ``i`` is ``bindings[i]``).

    Args:
        bindings: the sensors.
        context: the simulation's time step, generator and clock.
    """

    carried = ("value",)

    def __init__(self, bindings: tuple[PositionSensorBinding, ...], context: BankContext) -> None:
        super().__init__(bindings, context)
        self.bindings: tuple[PositionSensorBinding, ...] = bindings
        self.qpos_adr = np.array([b.joint.qpos_adr for b in bindings], dtype=np.int64)
        self.has_joint = self.qpos_adr >= 0
        self.initial = np.array([b.joint.initial_position for b in bindings], dtype=float)
        self.noise = np.array([float(b.node["noise"]) for b in bindings], dtype=float)
        self.resolution = np.array([float(b.node["resolution"]) for b in bindings], dtype=float)
        self.safe_adr = np.maximum(self.qpos_adr, 0)
        # (data, its qpos view, the same as a memoryview of doubles), made once per data.
        self._qpos: tuple[mujoco.MjData, np.ndarray, memoryview] | None = None
        self.value = np.full(self.n, np.nan)  # updated in place (API objects may keep a reference)
        # The plain copies' element reads and writes through memoryviews cost a third of numpy's (same doubles).
        self._value_view = memoryview(self.value)

    def core(self, row: int) -> PositionSensor:
        """The core position sensor of row ``row``."""
        binding = self.bindings[row]
        return PositionSensor(self, row, str(binding.node["name"]), self.context.now_step, binding.linear)

    def reset(self) -> None:
        """All sensors disabled with NaN values, as after loading."""
        self.value[:] = np.nan
        self.schedule.reset()

    def restart(self) -> None:
        """After a world reset (Webots' ``WbSensor::reset``): enabled sensors stay enabled and sample again
        at the end of the first step; the last values stay readable until then."""
        self.schedule.restart()

    def _gather(self, group: SampleGroup) -> _Gather:
        rows = group.rows
        noise, resolution, has_joint = self.noise[rows], self.resolution[rows], self.has_joint[rows]
        plain = has_joint.all() and not (noise > 0).any() and not (resolution > 0).any()
        return _Gather(
            adr=self.safe_adr[rows],
            has_joint=None if has_joint.all() else has_joint,
            initial=self.initial[rows],
            noise=noise if (noise > 0).any() else None,
            resolution=resolution if (resolution > 0).any() else None,
            pairs=(tuple(zip(rows.tolist(), self.safe_adr[rows].tolist()))
                   if plain and len(rows) <= PLAIN_PYTHON_ROWS else None),
        )

    def next_sample_step(self) -> int:
        """The schedule's next sampling step (its groups tell ``context.sampling_changed`` when one joins)."""
        return self.schedule.next_any

    def sample(self, data: mujoco.MjData, step: int) -> None:
        """Compute the values of the sensors due after basic step ``step``."""
        schedule = self.schedule
        if step < schedule.next_any:  # nothing due (the schedule's own first test, without its call)
            return
        views = self._qpos
        if views is None or views[0] is not data:  # one view of MjData.qpos, not one per access
            qpos = data.qpos
            views = self._qpos = (data, qpos, memoryview(qpos))
        for group in schedule.due(step):
            gather: _Gather | None = group.cache  # type: ignore[assignment]
            if gather is None:
                gather = group.cache = self._gather(group)
            pairs = gather.pairs
            if pairs is not None:
                value, positions = self._value_view, views[2]
                for row, adr in pairs:
                    value[row] = positions[adr]
                continue
            raw = views[1][gather.adr]
            if gather.has_joint is not None:
                raw = np.where(gather.has_joint, raw, gather.initial)
            if gather.noise is not None:
                raw = raw + gather.noise * self.context.rng().standard_normal(len(group.rows))
            if gather.resolution is not None:
                raw = quantize(raw, gather.resolution)
            self.value[group.rows] = raw


@dataclass
class PositionSensor(SampledDevice):
    """One position sensor (snake_case core API; the Webots ``PositionSensor`` class wraps it).

    Attributes:
        linear: True on a slider joint (m), False on a hinge (rad).
    """

    linear: bool = False
    kind: str = "position_sensor"

    @property
    def value(self) -> float:
        """The last sampled position (rad or m); NaN before the first sample."""
        return float(self.bank.value[self.index])
