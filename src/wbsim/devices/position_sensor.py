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
        self.any_noise = bool((self.noise > 0).any())
        self.any_resolution = bool((self.resolution > 0).any())
        self.all_have_joint = bool(self.has_joint.all())
        self.safe_adr = np.maximum(self.qpos_adr, 0)
        self.reset()

    def reset(self) -> None:
        """All sensors disabled with NaN values, as after loading."""
        n = self.n
        self.value = np.full(n, np.nan)
        self.every = np.zeros(n, dtype=np.int64)
        self.next_step = np.full(n, NEVER, dtype=np.int64)
        self.period_ms = np.zeros(n, dtype=np.int64)
        self.next_any = NEVER

    def enable(self, i: int, period_ms: int, now_step: int) -> None:
        """Enable (period > 0) or disable (0) sensor ``i`` at basic step ``now_step``."""
        self.period_ms[i] = period_ms
        if period_ms <= 0:
            self.every[i], self.next_step[i] = 0, NEVER
        else:
            self.every[i] = steps_for_period(period_ms, self.basic_ms)
            self.next_step[i] = now_step + self.every[i]
        self.next_any = int(self.next_step.min(initial=NEVER))

    def sample(self, data: mujoco.MjData, step: int) -> None:
        """Compute the values of the sensors due after basic step ``step``."""
        if step < self.next_any:
            return
        idx = np.flatnonzero(self.next_step <= step)
        raw = data.qpos[self.safe_adr[idx]]
        if not self.all_have_joint:
            raw = np.where(self.has_joint[idx], raw, self.initial[idx])
        if self.any_noise:
            sigma = self.noise[idx]
            noisy = sigma > 0
            if noisy.any():
                raw = raw + np.where(noisy, sigma * self.rng().standard_normal(len(idx)), 0.0)
        self.value[idx] = quantize(raw, self.resolution[idx]) if self.any_resolution else raw
        self.next_step[idx] = step + self.every[idx]
        self.next_any = int(self.next_step.min())


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
