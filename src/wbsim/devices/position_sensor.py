"""Position sensors with Webots semantics, vectorised over every sensor of a world.

The value is the joint position (rad or m) including the initial ``position`` of the joint. Noise is
additive Gaussian with standard deviation ``noise`` (same unit), drawn from the simulation's seeded
generator; then ``resolution`` quantises as Webots does: ``trunc(v / r + 0.5) * r`` (truncation toward
zero, so small negative values fall into a dead band, exactly like Webots). Values are NaN until the
first sample, which arrives one sampling period after ``enable``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import mujoco
import numpy as np

from wbsim.compile.bindings import PositionSensorBinding
from wbsim.devices.sampling import NEVER, steps_for_period

__all__ = ["PositionSensorBank", "PositionSensor", "quantize"]


def quantize(values: np.ndarray, resolution: np.ndarray) -> np.ndarray:
    """Webots' ``(int)(v / r + 0.5) * r`` where ``r != -1``; unchanged elsewhere."""
    r = np.where(resolution > 0, resolution, 1.0)
    return np.where(resolution > 0, np.trunc(values / r + 0.5) * r, values)


class PositionSensorBank:
    """State and sampling of all position sensors of one simulation (row ``i`` is ``bindings[i]``).

    Args:
        bindings: the sensors.
        basic_ms: WorldInfo.basicTimeStep in ms.
        rng: the simulation's random generator (noise).
    """

    def __init__(self, bindings: tuple[PositionSensorBinding, ...], basic_ms: float,
                 rng: Callable[[], np.random.Generator]) -> None:
        self.bindings = bindings
        self.basic_ms = basic_ms
        self.rng = rng
        n = len(bindings)
        self.n = n
        self.qpos_adr = np.array([b.joint.qpos_adr for b in bindings], dtype=np.int64)
        self.has_joint = self.qpos_adr >= 0
        self.initial = np.array([b.joint.initial_position for b in bindings], dtype=float)
        self.noise = np.array([float(b.node["noise"]) for b in bindings], dtype=float)
        self.resolution = np.array([float(b.node["resolution"]) for b in bindings], dtype=float)
        self.safe_adr = np.maximum(self.qpos_adr, 0)
        self.reset()

    def reset(self) -> None:
        """All sensors disabled with NaN values, as after loading."""
        n = self.n
        self.value = np.full(n, np.nan)
        self.every = np.zeros(n, dtype=np.int64)
        self.next_step = np.full(n, NEVER, dtype=np.int64)
        self.period_ms = np.zeros(n, dtype=np.int64)
        self._groups: list[_Group] = []
        self.next_any = NEVER

    def restart_sampling(self) -> None:
        """After a world reset (Webots' ``WbSensor::reset``): enabled sensors stay enabled and sample again
        at the end of the first step (``lastUpdate = -inf``); the last values stay readable until then."""
        self._sync()
        self.next_step = np.where(self.every > 0, 1, NEVER).astype(np.int64)
        self._regroup()

    def enable(self, i: int, period_ms: int, now_step: int) -> None:
        """Enable (period > 0) or disable (0) sensor ``i`` at basic step ``now_step``."""
        self._sync()
        self.period_ms[i] = period_ms
        if period_ms <= 0:
            self.every[i], self.next_step[i] = 0, NEVER
        else:
            self.every[i] = steps_for_period(period_ms, self.basic_ms)
            self.next_step[i] = now_step + self.every[i]
        self._regroup()

    def _sync(self) -> None:
        for group in self._groups:
            self.next_step[group.idx] = group.next_step

    def _regroup(self) -> None:
        # Sensors sharing a period and a phase are sampled together with one gather per step.
        enabled = np.flatnonzero(self.every > 0)
        groups = []
        for next_step, every in sorted(set(zip(self.next_step[enabled].tolist(), self.every[enabled].tolist()))):
            idx = enabled[(self.next_step[enabled] == next_step) & (self.every[enabled] == every)]
            noise = self.noise[idx]
            resolution = self.resolution[idx]
            has_joint = self.has_joint[idx]
            groups.append(_Group(
                next_step=next_step,
                every=every,
                idx=idx,
                adr=self.safe_adr[idx],
                has_joint=None if has_joint.all() else has_joint,
                initial=self.initial[idx],
                noise=noise if (noise > 0).any() else None,
                resolution=resolution if (resolution > 0).any() else None,
            ))
        self._groups = groups
        self.next_any = min((g.next_step for g in groups), default=NEVER)

    def sample(self, data: mujoco.MjData, step: int) -> None:
        """Compute the values of the sensors due after basic step ``step``."""
        if step < self.next_any:
            return
        next_any = NEVER
        for group in self._groups:
            if group.next_step <= step:
                raw = data.qpos[group.adr]
                if group.has_joint is not None:
                    raw = np.where(group.has_joint, raw, group.initial)
                if group.noise is not None:
                    raw = raw + group.noise * self.rng().standard_normal(len(group.idx))
                if group.resolution is not None:
                    raw = quantize(raw, group.resolution)
                self.value[group.idx] = raw
                group.next_step = step + group.every
            next_any = min(next_any, group.next_step)
        self.next_any = next_any


@dataclass
class _Group:
    """Sensors sampled on the same steps, with what their sampling needs precomputed."""

    next_step: int
    every: int
    idx: np.ndarray
    adr: np.ndarray
    has_joint: np.ndarray | None
    initial: np.ndarray
    noise: np.ndarray | None
    resolution: np.ndarray | None


@dataclass
class PositionSensor:
    """One position sensor (snake_case core API; the Webots ``PositionSensor`` class wraps it)."""

    bank: PositionSensorBank
    index: int
    name: str
    linear: bool
    now_step: Callable[[], int]

    @property
    def binding(self) -> PositionSensorBinding:
        """The compiled binding."""
        return self.bank.bindings[self.index]

    def enable(self, period_ms: int) -> None:
        """Sample every ``period_ms`` (rounded up to whole basic steps); 0 disables."""
        self.bank.enable(self.index, period_ms, self.now_step())

    @property
    def period_ms(self) -> int:
        """The sampling period as requested (0 = disabled)."""
        return int(self.bank.period_ms[self.index])

    @property
    def value(self) -> float:
        """The last sampled position (rad or m); NaN before the first sample."""
        return float(self.bank.value[self.index])
