"""Webots' ``Skin`` API class over an inert core device.

wbsim reads no skinned mesh, so a skin has no bones: ``getBoneCount`` is 0 and every bone index is out of
Webots' bounds. The methods check their arguments in the order of Webots' ``skin.c`` and print its error
lines; where the C function returns NULL, the method returns None.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from wbsim.api.arguments import c_arguments
from wbsim.api.device import Device, print_error

__all__ = ["Skin", "api_classes", "make_api"]


@c_arguments(2, getBoneName="int", getBonePosition="int", getBoneOrientation="int", setBonePosition="int",
             setBoneOrientation="int")
class Skin(Device):
    """A Skin device (Webots' ``controller.Skin``): a skinned mesh, not simulated by wbsim (no bones)."""

    def getBoneCount(self) -> int:
        """The number of bones of the skin's skeleton: 0 (wbsim reads no mesh from ``modelUrl``)."""
        return 0

    bone_count = property(getBoneCount)

    def _in_bounds(self, index: int, function: str) -> bool:
        if 0 <= index < self.getBoneCount():
            return True
        print_error(f"The index of {function}() is out of the bounds.")
        return False

    def getBoneName(self, index: int) -> str | None:
        """The name of bone ``index``; None with Webots' error for an index out of bounds (always, in wbsim)."""
        self._in_bounds(index, "wb_skin_get_bone_name")
        return None

    def getBonePosition(self, index: int, absolute: bool = False) -> list[float] | None:
        """The position of bone ``index`` (m; in the skin's frame, or the world's if ``absolute``); None with
        Webots' error for an index out of bounds (always, in wbsim)."""
        self._in_bounds(index, "wb_skin_get_bone_position")
        return None

    def getBoneOrientation(self, index: int, absolute: bool = False) -> list[float] | None:
        """The orientation (axis-angle) of bone ``index``; None with Webots' error for an index out of bounds
        (always, in wbsim)."""
        self._in_bounds(index, "wb_skin_get_bone_orientation")
        return None

    def setBonePosition(self, index: int, position: Sequence[float], absolute: bool = False) -> None:
        """Ask to move bone ``index`` to ``position`` (m): checked as Webots does, then ignored (no bones)."""
        if any(math.isnan(float(v)) for v in position):
            print_error("wb_skin_set_bone_position() called with a NaN value.")
            return
        self._in_bounds(index, "wb_skin_set_bone_position")

    def setBoneOrientation(self, index: int, orientation: Sequence[float], absolute: bool = False) -> None:
        """Ask to turn bone ``index`` to ``orientation`` (axis-angle): checked as Webots does, then ignored."""
        values = [float(v) for v in orientation]
        if any(math.isnan(v) for v in values):
            print_error("wb_skin_set_bone_orientation() called with a NaN orientation value.")
            return
        if values[0] == 0.0 and values[1] == 0.0 and values[2] == 0.0:
            print_error("wb_skin_set_bone_orientation() called with invalid values for the [x y z] orientation axis.")
            return
        self._in_bounds(index, "wb_skin_set_bone_orientation")


def api_classes() -> dict[str, type]:
    """What the ``controller`` module exports for this kind."""
    return {"Skin": Skin}


def make_api(core: Any, robot: Any) -> Skin:
    """The Webots API object of the skin core device ``core``."""
    return Skin(core, robot)
