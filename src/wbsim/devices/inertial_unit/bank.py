"""InertialUnits with Webots semantics (``WbInertialUnit::computeValue``), vectorised over every sensor.

After a basic step, for the sensors due (Webots' ``WbSensor`` schedule, :mod:`wbsim.devices.sampling`):

1. ``e`` is the sensor's rotation in the world frame (``site_xmat`` of all the sensors due, one gather);
2. with ``noise != 0``: ``e = e * Rx(a) Ry(b) Rz(c)`` with ``a, b, c`` drawn from ``N(0, (noise * pi)^2)``
   (the simulation's seeded generator, three draws per noisy sensor in row order);
3. with a disabled axis: ``e`` is rebuilt from its axis-angle with components zeroed
   (:func:`~wbsim.devices.inertial_unit.attitude.drop_axes`);
4. the quaternion of ``e`` (Webots' ``toQuaternion``), each component discretised by ``resolution``;
5. roll, pitch and yaw from that quaternion, as the controller library computes them (ENU or NUE).

Values are NaN until the first sample.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import ModuleType

import mujoco
import numpy as np

from wbsim.devices.inertial_unit.attitude import drop_axes, euler_matrices, product, quaternions, roll_pitch_yaw
from wbsim.devices.compiled import StateViews, motion_kernels, numba_installed
from wbsim.devices.inertial_unit.compile import InertialUnitBinding
from wbsim.devices.kind import BankContext
from wbsim.devices.resolution import quantize
from wbsim.devices.motion_batch import BatchMember
from wbsim.devices.sampling import SampledBank, SampledDevice, SampleGroup, rows_of
from wbsim.world.schema_kit import resolution_field

__all__ = ["InertialUnitBank", "InertialUnit"]

_AXES = {"xAxis": 0, "yAxis": 1, "zAxis": 2}


class InertialUnitBank(BatchMember, SampledBank):
    """State and sampling of all InertialUnits of one simulation (row ``i`` is ``bindings[i]``).

    Args:
        bindings: the sensors, in scene order.
        context: the simulation's model, generator, clock and kinematics refresh.

    Attributes:
        quaternion: the last sampled orientation of each sensor, (n, 4) ``[x, y, z, w]``; NaN before the first
            sample.
        roll_pitch_yaw: the angles derived from it (rad), (n, 3).
        quaternion_list, roll_pitch_yaw_list: the same as Python floats (what the API returns), refreshed with
            them.
        noise: the ``noise`` fields (units of pi rad), (n,).
        axes: the ``xAxis``, ``yAxis``, ``zAxis`` fields, (n, 3) bool.
        resolution: the ``resolution`` fields (-1: none), (n,).
        nue: the world is NUE (Webots' NUE angle convention).
    """

    carried = ("quaternion", "roll_pitch_yaw")  # the lists are rebuilt from them

    def __init__(self, bindings: tuple[InertialUnitBinding, ...], context: BankContext) -> None:
        super().__init__(bindings, context)
        self.bindings: tuple[InertialUnitBinding, ...] = bindings
        n = self.n
        self._sites = np.array([b.site_id for b in bindings], dtype=np.int64)
        self.nue = bool(bindings[0].nue) if n else False
        # Updated in place (never replaced), so API objects may keep references to them.
        self.quaternion = np.full((n, 4), np.nan)
        self.roll_pitch_yaw = np.full((n, 3), np.nan)
        # The same as lists of Python floats, for the API's reads (updated in place, with the arrays).
        # Flat (sensor i's at 4 i .. 4 i + 3 and 3 i .. 3 i + 2): they convert faster than nested lists.
        self.quaternion_list: list[float] = self.quaternion.reshape(-1).tolist()  # read: fresh_quaternions()
        self._quaternions_stale = False
        self._flat_angles = self.roll_pitch_yaw.reshape(-1)  # a view, made once (refreshed every sample)
        self.roll_pitch_yaw_list: list[float] = self._flat_angles.tolist()
        self.noise = np.zeros(n)
        self.axes = np.ones((n, 3), dtype=bool)
        self.resolution = np.full(n, -1.0)
        # Sample with the compiled loop of wbsim.devices.motion_kernel (numba) or with numpy (the reference).
        self.compiled = numba_installed()
        self._kernels: ModuleType | None = None  # motion_kernel, imported at the first compiled sample
        self._plain = True  # no sensor has noise or a disabled axis (kept by _fields_changed)
        self._views: StateViews | None = None  # MuJoCo's arrays for the compiled loop
        # The plain compiled sample of the last rows, its arguments gathered once: (rows, data, loop, arguments).
        self._call: tuple | None = None
        self._restore_fields()

    def core(self, row: int) -> InertialUnit:
        """The core InertialUnit of row ``row``."""
        return InertialUnit(self, row, str(self.bindings[row].node["name"]), self.context.now_step)

    # -- fields -------------------------------------------------------------------------------------
    def _restore_fields(self) -> None:
        """Every field back to the world file's values (a world reset restores what supervisors wrote)."""
        for row, binding in enumerate(self.bindings):
            node = binding.node
            self.noise[row] = float(node["noise"])  # type: ignore[arg-type]
            self.axes[row] = [bool(node[name]) for name in _AXES]
            self.resolution[row] = float(node["resolution"])  # type: ignore[arg-type]
        self._fields_changed()

    def _fields_changed(self) -> None:
        self._plain = not bool((self.noise != 0.0).any()) and bool(self.axes.all())

    def field_changed(self, row: int, name: str, value: object) -> object | None:
        """A supervisor wrote ``noise``, an axis flag or ``resolution``: used from the next sample (with
        Webots' repair of an invalid resolution).

        Returns:
            The value the field now holds, or None for fields the sensor does not use.
        """
        self._batch_changed()  # what the fused call checked may differ now (motion_batch)
        if name == "noise":
            self.noise[row] = float(value)  # type: ignore[arg-type]
            self._fields_changed()
            return float(value)  # type: ignore[arg-type]
        if name in _AXES:
            self.axes[row, _AXES[name]] = bool(value)
            self._fields_changed()
            return bool(value)
        if name == "resolution":
            number, message = resolution_field().repaired(float(value))  # type: ignore[arg-type]
            if message is not None:
                self.context.warn(f"{self.bindings[row].node['name']}: {message}")
            self.resolution[row] = number
            return number
        return None

    # -- resets ---------------------------------------------------------------------------------------
    def reset(self) -> None:
        """All sensors disabled, values NaN, fields as in the world file (as after loading)."""
        self._leave_batch()
        self.schedule.reset()
        self._restore_fields()
        self.quaternion[:] = np.nan
        self.roll_pitch_yaw[:] = np.nan
        self._refresh_lists()

    def _refresh_lists(self) -> None:
        self.roll_pitch_yaw_list[:] = self._flat_angles.tolist()
        self._quaternions_stale = True  # converted at the next read: controllers mostly read the angles only

    def fresh_quaternions(self) -> list[float]:
        """:attr:`quaternion_list`, brought up to date with :attr:`quaternion` if a sample changed it."""
        if self._quaternions_stale:
            self.quaternion_list[:] = self.quaternion.reshape(-1).tolist()
            self._quaternions_stale = False
        return self.quaternion_list


    def restart(self) -> None:
        """After a world reset: fields as in the world file; enabled sensors stay enabled and sample after the
        first step; the last values stay readable until then."""
        self._leave_batch()
        self.schedule.restart()
        self._restore_fields()

    # -- per step -----------------------------------------------------------------------------------
    def sample(self, data: mujoco.MjData, step: int) -> None:
        """Compute the attitude of the sensors due after basic step ``step`` (module docstring)."""
        due = self._due_own(data, step)  # none when the motion kinds' fused call computed them
        if not due:
            return
        rows = rows_of(due)
        self.context.refresh_kinematics()
        if self.compiled:
            call = self._call
            if call is not None and call[0] is rows and call[1] is data and self._plain:
                call[2](*call[3])  # the rows of the last sample (the schedule keeps each group's array)
            else:
                self._sample_compiled(data, rows, due[0] if len(due) == 1 else None)
            self._refresh_lists()
            return
        e = self._rotations(data, rows)
        q = quaternions(e)
        resolution = self.resolution[rows]
        if (resolution > 0.0).any():  # Webots: != -1 (other values are repaired to -1)
            q = quantize(q, resolution[:, None])
        self.quaternion[rows] = q
        self.roll_pitch_yaw[rows] = roll_pitch_yaw(q, self.nue)
        self._refresh_lists()

    def _rotations(self, data: mujoco.MjData, rows: np.ndarray) -> np.ndarray:
        """The rotations of sensors ``rows`` (k, 3, 3), with their noise (drawn now) and disabled axes."""
        e = data.site_xmat[self._sites[rows]].reshape(-1, 3, 3)  # a gathered copy
        noise = self.noise[rows]
        noisy = noise != 0.0
        if noisy.any():
            sigma = noise[noisy] * math.pi
            draws = self.context.rng().standard_normal((int(noisy.sum()), 3))
            e[noisy] = product(e[noisy], euler_matrices(sigma[:, None] * draws))
        axes = self.axes[rows]
        partial = ~axes.all(axis=1)
        if partial.any():
            e[partial] = drop_axes(e[partial], axes[partial])
        return e

    def _sample_compiled(self, data: mujoco.MjData, rows: np.ndarray, group: SampleGroup | None = None) -> None:
        """:meth:`sample`'s quaternions, resolution and angles as one compiled loop
        (:func:`wbsim.devices.motion_kernel.inertial_values`); noise and disabled axes (when some sensor has them)
        are applied to the rotations by the numpy code first. A plain ``group`` (the rows of one group) joins the
        motion kinds' fused call for its next samples (:mod:`wbsim.devices.motion_batch`)."""
        if self._kernels is None:
            self._kernels = motion_kernels()
        if self._plain:  # no noise, every axis: the kernel reads MuJoCo's rotations in place
            views = self._views = StateViews.of(self._views, data)
            arguments = (views.site_xmat, self._sites[rows], rows, self.resolution, self.nue, self.quaternion,
                         self.roll_pitch_yaw)
            self._call = (rows, data, self._kernels.inertial_values, arguments)
            if group is not None:
                self._join_batch(data, group, arguments)
            self._kernels.inertial_values(*arguments)
        else:
            e = self._rotations(data, rows).reshape(-1, 9)
            self._kernels.inertial_values(e, np.arange(len(rows)), rows, self.resolution, self.nue,
                                          self.quaternion,
                                          self.roll_pitch_yaw)

    def _join_batch(self, data: mujoco.MjData, group: SampleGroup, arguments: tuple) -> None:
        """The fused call samples ``group`` from its next sample on, while the plain call prepared for its rows
        holds."""

        def valid() -> bool:
            call = self._call
            return (self.compiled and self._plain and call is not None and call[0] is group.rows
                    and call[1] is data)

        _, sites, rows, resolution, nue, quaternion, roll_pitch_yaw = arguments
        self._join_batch_part("inertial_unit", group, data, (sites, rows), (resolution, nue, quaternion, roll_pitch_yaw),
                              valid)


@dataclass
class InertialUnit(SampledDevice):
    """One InertialUnit (snake_case core API; the Webots ``InertialUnit`` class wraps it)."""

    kind: str = "inertial_unit"

    @property
    def quaternion(self) -> list[float]:
        """The last sampled orientation ``[x, y, z, w]`` in the world frame; NaN before the first sample."""
        return self.bank.quaternion[self.index].tolist()

    @property
    def roll_pitch_yaw(self) -> list[float]:
        """The last roll, pitch and yaw (rad, Webots' convention for the world's coordinate system)."""
        return self.bank.roll_pitch_yaw[self.index].tolist()

    @property
    def noise(self) -> float:
        """The ``noise`` field (standard deviation in units of pi rad)."""
        return float(self.bank.noise[self.index])
