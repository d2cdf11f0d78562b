"""Accelerometers with Webots semantics (``WbAccelerometer``), vectorised over every Accelerometer of a world.

Webots does not read an instantaneous acceleration: at each sample it differentiates the velocity of the
sensor's position (as a point of its upper Solid's body, world frame) since its previous sample,

    a = -gravity + (v - v_prev) * 1000 / elapsed_ms,

expresses ``a`` in the sensor frame, then applies the lookup table to each enabled axis and the resolution
(:mod:`wbsim.devices.three_axis.bank`). ``elapsed_ms`` is the time since the last sample or since ``enable``
(``WbSensor::elapsedTime``), ``v_prev`` the velocity at the last sample (0 until the first one, kept
while the sensor is disabled). So, as in Webots:

- at rest the sensor reads the opposite of gravity (1 g up), in free fall 0, under a force F on a body of
  mass m ``F / m - gravity``, averaged over the sample period;
- a sensor enabled on a moving body reads ``v / period`` more in its first sample (``v_prev`` is 0), and a
  sensor re-enabled later the velocity change since its last sample over one period;
- the first sample after a world reset reads ``-gravity`` only (Webots' ``lastUpdate`` is -inf then).

The velocity is the one reached by the physics step (MuJoCo's ``cvel`` after refreshing the kinematics),
the state Webots reads after its ODE step; MuJoCo's built-in ``accelerometer`` sensor is not used: it gives
the instantaneous acceleration at the start of the last physics step, which differs from Webots' average
over the sample period (impacts, periods of several steps, the first sample).

An Accelerometer whose upper Solid has no body (no Physics there or above) reads NaN, with Webots' warning
once.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import mujoco
import numpy as np

from wbsim.devices.kind import BankContext
from wbsim.devices.three_axis.bank import MeasurePlan, ThreeAxisBank, ThreeAxisDevice, local_vectors
from wbsim.devices.three_axis.compile import ThreeAxisBinding

__all__ = ["AccelerometerBank", "Accelerometer"]

_LEVI_CIVITA = np.zeros((3, 3, 3))
_LEVI_CIVITA[0, 1, 2] = _LEVI_CIVITA[1, 2, 0] = _LEVI_CIVITA[2, 0, 1] = 1.0
_LEVI_CIVITA[0, 2, 1] = _LEVI_CIVITA[2, 1, 0] = _LEVI_CIVITA[1, 0, 2] = -1.0
"""``eps[i, j, k]``: ``(a x b)_i = eps[i, j, k] a_j b_k`` in one ``einsum`` (a quarter of ``np.cross``'s time on
small arrays)."""


@dataclass
class Accelerometer(ThreeAxisDevice):
    """One Accelerometer (snake_case core API; the Webots ``Accelerometer`` class wraps it).

    ``values`` are in m/s^2 (before the lookup table), in the sensor frame.
    """

    kind: str = "accelerometer"


class AccelerometerBank(ThreeAxisBank):
    """State and sampling of all Accelerometers of one simulation (row ``i`` is ``bindings[i]``).

    Attributes:
        velocity: each sensor's point velocity at its last sample (m/s, world frame), (n, 3); Webots'
            ``mVelocity``, 0 at load.
        last_step: the basic step of each sensor's last sample or ``enable`` (-inf after a world reset), (n,).
    """

    no_body_value = float("nan")
    no_body_warning = "Parent of Accelerometer node has no physics: measurements may be wrong."
    core_class = Accelerometer
    batch_slot = "accelerometer"
    carried = ("values", "_warned", "velocity", "last_step")

    def __init__(self, bindings: tuple[ThreeAxisBinding, ...], context: BankContext) -> None:
        super().__init__(bindings, context)
        self.velocity = np.zeros((self.n, 3))
        self.last_step = np.zeros(self.n)

    def enable(self, row: int, period_ms: int, now_step: int) -> None:
        """Enable (period > 0) or disable (0) sensor ``row``; as Webots (``WbSensor::setRefreshRate``) its
        elapsed time restarts now."""
        super().enable(row, period_ms, now_step)
        self.last_step[row] = now_step

    def reset(self) -> None:
        """As after loading: disabled, values NaN, remembered velocities 0."""
        super().reset()
        self.velocity[:] = 0.0
        self.last_step[:] = 0.0

    def restart(self) -> None:
        """After a world reset: enabled sensors sample in the reset step with an infinite elapsed time (they
        read ``-gravity`` only); the remembered velocities are kept (Webots keeps ``mVelocity``)."""
        super().restart()
        self.last_step[:] = -np.inf

    def measure(self, data: mujoco.MjData, plan: MeasurePlan, step: int) -> np.ndarray:
        """``-gravity + (v - v_prev) / elapsed`` in each sensor frame, (k, 3) m/s^2; remembers ``v``."""
        rows = plan.rows
        cvel = data.cvel[plan.bodies]  # (k, 6): angular, then linear velocity at the tree's subtree_com
        offset = data.site_xpos[plan.sites] - data.subtree_com[plan.roots]
        velocity = cvel[:, 3:] + np.einsum("ijk,nj,nk->ni", _LEVI_CIVITA, cvel[:, :3], offset)
        elapsed_ms = (step - self.last_step[rows]) * self.context.basic_time_step_ms
        rate = 1000.0 / elapsed_ms  # 0 after a world reset (infinite elapsed time)
        acceleration = -self.gravity + (velocity - self.velocity[rows]) * rate[:, None]
        self.velocity[rows] = velocity
        self.last_step[rows] = step
        return local_vectors(data.site_xmat[plan.sites], acceleration)

    def compiled_call(self, kernels: ModuleType, data: mujoco.MjData, plan: MeasurePlan, out_rows: np.ndarray,
                      out: np.ndarray) -> tuple:
        """:meth:`measure` as one compiled loop (:func:`wbsim.devices.motion_kernel.accelerometer_values`)."""
        views = self.views(data)
        return (kernels.accelerometer_values,
                (views.site_xmat, views.site_xpos, views.cvel, views.subtree_com, plan.sites, plan.bodies,
                 plan.roots, plan.rows, self.velocity, self.last_step),
                (float(self.context.basic_time_step_ms), self.gravity, out_rows, out))

    def batch_part(self, data: mujoco.MjData, plan: MeasurePlan) -> tuple[tuple[np.ndarray, ...], tuple]:
        """:func:`~wbsim.devices.motion_kernel.accelerometer_values`'s arguments in the fused call (values at the
        rows)."""
        return ((plan.sites, plan.bodies, plan.roots, plan.rows),
                (self.velocity, self.last_step, float(self.context.basic_time_step_ms), self.gravity, self.values))
