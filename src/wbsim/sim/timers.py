"""MuJoCo's stage timers, off while a simulation's physics steps run.

MuJoCo times each stage of a step (``mjData.timer``: ``mjTIMER_STEP``, ``mjTIMER_POSITION``, ...) through the
process-wide clock callback ``mjcb_time``, which the Python binding sets when it is imported. That is two clock
reads per stage, about 20 per MuJoCo step: on the 1-robot benchmark world 2.6 us of a 27 us basic step of four
MuJoCo steps (paired blocks, 2026-11-27; the same with or without wbsim). wbsim reads no timer, so its physics
phase unsets the callback around its own steps (:class:`TimerPause`) and sets it back after (also after an
error), unless ``SimulationOptions.mujoco_timers`` asks to keep MuJoCo's profiling: the physics is the same
either way (the timers only record durations). While the callback is unset, MuJoCo code another thread runs
meanwhile (the binding releases the GIL in ``mj_step``) records no durations either.

The callback's pointer is written in libmujoco directly, found once in the library instance the binding uses
(:func:`wbsim.sim.c_steps.binding_slot`): the binding's ``set_mjcb_time`` would replace its own timer, which
``get_mjcb_time`` does not even report.
"""

from __future__ import annotations

import ctypes

from wbsim.sim.c_steps import binding_slot

__all__ = ["TimerPause"]


class TimerPause:
    """Unsets MuJoCo's ``mjcb_time`` for the span of a simulation's physics steps and sets it back after.

    Args:
        slot: libmujoco's ``mjcb_time`` pointer (:meth:`find`).
    """

    __slots__ = ("_slot",)

    def __init__(self, slot: ctypes.c_void_p) -> None:
        self._slot = slot

    @classmethod
    def find(cls) -> TimerPause | None:
        """The pause for the binding's libmujoco, or None where its ``mjcb_time`` cannot be found (another
        platform, not the binding's library instance): the timers then stay on."""
        slot = binding_slot("mjcb_time")
        return cls(slot) if slot is not None else None

    def pause(self) -> int | None:
        """Unset the callback; returns what was set (None if nothing: the timers were off already), for
        :meth:`resume`."""
        slot = self._slot
        saved = slot.value
        if saved is not None:
            slot.value = None
        return saved

    def resume(self, saved: int | None) -> None:
        """Set back the callback :meth:`pause` returned, unless another callback was set meanwhile (another
        thread's: it stays)."""
        if saved is not None:
            slot = self._slot
            if slot.value is None:
                slot.value = saved
