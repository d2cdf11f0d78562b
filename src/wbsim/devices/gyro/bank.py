"""Gyros with Webots semantics (``WbGyro``), vectorised over every Gyro of a world.

At each sample a Gyro reads the angular velocity of its body (world frame; MuJoCo's ``cvel`` after
refreshing the kinematics: the state reached by the physics step, which Webots reads with
``dBodyGetAngularVel`` after its ODE step), expresses it in the sensor frame, then applies the lookup table
to each enabled axis and the resolution (:mod:`wbsim.devices.three_axis.bank`). MuJoCo's built-in ``gyro``
sensor is not used: it is evaluated at the start of the last physics step, one physics step behind Webots.

A Gyro without a body (no Physics in it or above it) reads 0 on every axis, as Webots sends its initial
values, with Webots' warning (once per sensor in wbsim).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import mujoco
import numpy as np

from wbsim.devices.three_axis.bank import MeasurePlan, ThreeAxisBank, ThreeAxisDevice, local_vectors

__all__ = ["GyroBank", "Gyro"]


@dataclass
class Gyro(ThreeAxisDevice):
    """One Gyro (snake_case core API; the Webots ``Gyro`` class wraps it).

    ``values`` are in rad/s (before the lookup table), about the sensor's axes.
    """

    kind: str = "gyro"


class GyroBank(ThreeAxisBank):
    """State and sampling of all Gyros of one simulation (row ``i`` is ``bindings[i]``)."""

    no_body_value = 0.0
    no_body_warning = "this node or its parents requires a 'physics' field to be functional."
    core_class = Gyro
    batch_slot = "gyro"

    def measure(self, data: mujoco.MjData, plan: MeasurePlan, step: int) -> np.ndarray:
        """The angular velocity of each sensor's body in its own frame, (k, 3) rad/s."""
        return local_vectors(data.site_xmat[plan.sites], data.cvel[plan.bodies, :3])

    def compiled_call(self, kernels: ModuleType, data: mujoco.MjData, plan: MeasurePlan, out_rows: np.ndarray,
                      out: np.ndarray) -> tuple:
        """:meth:`measure` as one compiled loop (:func:`wbsim.devices.motion_kernel.gyro_values`)."""
        views = self.views(data)
        return kernels.gyro_values, (views.site_xmat, views.cvel, plan.sites, plan.bodies, out_rows, out), None

    def batch_part(self, data: mujoco.MjData, plan: MeasurePlan) -> tuple[tuple[np.ndarray, ...], tuple]:
        """:func:`~wbsim.devices.motion_kernel.gyro_values`'s arguments in the fused call (values at the rows)."""
        return (plan.sites, plan.bodies, plan.rows), (self.values,)
