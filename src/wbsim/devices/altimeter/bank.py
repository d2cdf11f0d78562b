"""Altimeters with Webots semantics (``WbAltimeter``), vectorised over every altimeter of a world.

After each basic step, every altimeter due (Webots' sampling rules) reads, from MuJoCo's current state, its
origin's world coordinate along the up axis of WorldInfo ``coordinateSystem`` (z in ``"ENU"``, y in ``"NUE"``
and ``"EUN"``), plus the reference altitude (``gpsReference``'s altitude for ``WGS84``, its up coordinate
otherwise), plus ``accuracy * g`` (``g`` standard normal from the simulation's seeded generator, drawn anew
each sample), then its ``resolution``. Values are NaN until the first sample, one period after ``enable``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from wbsim.devices.altimeter.compile import AltimeterBinding
from wbsim.devices.altimeter.schema import RESOLUTION
from wbsim.devices.gps.geo import GpsFrame
from wbsim.devices.kind import BankContext
from wbsim.devices.resolution import quantize
from wbsim.devices.sampling import SampledBank, SampledDevice

__all__ = ["AltimeterBank", "Altimeter"]


class AltimeterBank(SampledBank):
    """State and sampling of all Altimeters of one simulation (row ``i`` is ``bindings[i]``).

    Args:
        bindings: the devices, in scene order.
        context: the simulation's model, data, generator, clock and kinematics refresh.

    Attributes:
        values: the last measured altitudes (m), (n,); NaN before the first sample (also as :attr:`value_list`).
        accuracy, resolution: the fields, (n,).
        frame: the world's GPS frame (up axis, reference altitude).
    """

    carried = ("values", "value_list")

    def __init__(self, bindings: tuple[AltimeterBinding, ...], context: BankContext) -> None:
        super().__init__(bindings, context)
        self.bindings: tuple[AltimeterBinding, ...] = bindings
        n = self.n
        self.frame = bindings[0].frame if bindings else GpsFrame()
        self._up = self.frame.up
        self._reference = self.frame.altitude_reference()
        self._sites = np.array([b.site_id for b in bindings], dtype=np.int64)
        # Updated in place (never replaced), so API objects may keep references to them.
        self.values = np.full(n, np.nan)
        self.value_list: list[float] = [math.nan] * n
        self.accuracy = np.zeros(n)
        self.resolution = np.full(n, -1.0)
        self._restore_fields()

    def core(self, row: int) -> Altimeter:
        """The core Altimeter of row ``row``."""
        return Altimeter(self, row, str(self.bindings[row].node["name"]), self.context.now_step)

    def _restore_fields(self) -> None:
        for row, binding in enumerate(self.bindings):
            self.accuracy[row] = float(binding.node["accuracy"])  # type: ignore[arg-type]
            self.resolution[row] = float(binding.node["resolution"])  # type: ignore[arg-type]

    def field_changed(self, row: int, name: str, value: object) -> object | None:
        """A supervisor wrote ``accuracy`` or ``resolution`` (repaired as Webots does): used from the next sample.

        Returns:
            The value the field now holds, or None for fields the altimeter does not use.
        """
        number = float(value)  # type: ignore[arg-type]
        if name == "accuracy":
            self.accuracy[row] = number
        elif name == "resolution":
            number, message = RESOLUTION.repaired(number)  # type: ignore[assignment]
            if message is not None:
                self.context.warn(f"{self.bindings[row].node['name']}: {message}")
            self.resolution[row] = number
        else:
            return None
        return number

    def reset(self) -> None:
        """All devices disabled, values NaN, fields as in the world file (as after loading)."""
        self.schedule.reset()
        self._restore_fields()
        self.values[:] = np.nan
        self.value_list[:] = [math.nan] * self.n

    def restart(self) -> None:
        """After a world reset: fields as in the world file; enabled devices stay enabled and sample after the
        first step; the last values stay readable until then."""
        self.schedule.restart()
        self._restore_fields()

    def sample(self, data: mujoco.MjData, step: int) -> None:
        """Measure the altimeters due after basic step ``step``."""
        rows = self.schedule.due_rows(step)
        if rows is None:
            return
        self.context.refresh_kinematics()
        altitude = data.site_xpos[self._sites[rows], self._up] + self._reference
        accuracy = self.accuracy[rows]
        noisy = accuracy != 0.0
        if noisy.any():
            altitude[noisy] += accuracy[noisy] * self.context.rng().standard_normal(int(noisy.sum()))
        self.values[rows] = quantize(altitude, self.resolution[rows])
        self.value_list[:] = self.values.tolist()


@dataclass
class Altimeter(SampledDevice):
    """One Altimeter (snake_case core API; the Webots ``Altimeter`` class wraps it)."""

    kind: str = "altimeter"

    @property
    def value(self) -> float:
        """The last measured altitude (m); NaN before the first sample."""
        return float(self.bank.values[self.index])
