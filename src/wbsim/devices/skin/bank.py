"""Runtime state of the skins: the inert bank (nothing is simulated), with this kind's core devices."""

from __future__ import annotations

from wbsim.devices.inert.bank import InertBank, InertDevice

__all__ = ["SkinBank"]


class SkinBank(InertBank):
    """Every Skin of one simulation (row = skin); nothing to do in any phase."""

    def core(self, row: int) -> InertDevice:
        """The core device of row ``row`` (kind ``"skin"``, so the robot wraps it in the ``Skin`` class)."""
        return InertDevice(self, row, str(self.bindings[row].node["name"]), self.context.now_step, "skin")
