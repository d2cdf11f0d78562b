"""A simulation's MuJoCo warning handler, installed around each physics phase by writing libmujoco's
``mju_user_warning`` pointer directly.

The binding's ``get_mju_user_warning`` / ``set_mju_user_warning`` pair around every basic step cost about
0.27 us per step in the step loop (three binding calls; 1-robot benchmark world, 2026-11-27), a tenth of the
physics phase's Python. The pointer is a process-wide C global: :func:`warning_slot` finds it in the library
the binding loaded, after checking that a handler set through the binding shows in it (as
:func:`wbsim.sim.c_steps.control_slot` does for ``mjcb_control``), and the simulation writes the address of
its own ctypes callback there for the phase and puts back what it found afterwards (0.05 us for the three
accesses). The binding's record is never touched, so ``mujoco.get_mju_user_warning()`` keeps answering what
the user set, inside the step too, and a handler the user set through the binding (a Python callable: the
binding's trampoline; or a ctypes pointer) is in the library's pointer again after the step.

The callback is made once per simulation (:class:`WarningRelay`; nothing at module level, so simulations in
one process each have their own) and calls the simulation's handler through a weak reference: the relay holds
no reference cycle and does not keep the simulation alive. An exception raised by the handler cannot cross
MuJoCo's C frames (the binding's trampoline ends the process then; a ctypes callback would print and drop
it): the relay keeps the first one and the simulation raises it once the phase's MuJoCo call has returned.
Steps overlapping in threads may put a relay's address back into the pointer after its simulation is gone
(one began while the other's callback was installed and restores it when it ends): a relay that finds another
callback in the pointer at the end of its step is pinned (:meth:`WarningRelay.pin`), its callback never freed.
Where the pointer is not found (another platform, the library not the binding's instance), ``slot`` is None
and the simulation sets its handler through the binding as before.
"""

from __future__ import annotations

import ctypes
import weakref
from collections.abc import Callable

import mujoco

from wbsim.sim import c_steps

__all__ = ["WarningRelay", "warning_slot"]

_WARNING_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_char_p)
"""MuJoCo's ``void (*mju_user_warning)(const char* msg)``."""


def warning_slot() -> ctypes.c_void_p | None:
    """libmujoco's ``mju_user_warning`` pointer (:func:`wbsim.sim.c_steps.binding_slot`: call it outside any
    step); None if the binding's library is not found."""
    return c_steps.binding_slot("mju_user_warning")


def _release(slot: ctypes.c_void_p, address: int, callback: object) -> None:
    """When a relay is collected: if libmujoco's pointer still holds its callback (left there by another
    thread's step that had found it installed), clear it before the callback's code is freed."""
    if slot.value == address:
        slot.value = None
    del callback


class WarningRelay:
    """One simulation's warning callback for libmujoco's ``mju_user_warning`` pointer (see the module).

    Args:
        handler: the simulation's handler (a bound method, referenced weakly), called with MuJoCo's message.
        slot: libmujoco's pointer (:func:`warning_slot`), or None to use the binding's setter.

    Attributes:
        slot: the pointer, or None (:meth:`install` then sets ``handler`` through the binding).
        address: the callback's address (what :meth:`install` writes into ``slot``); 0 without a slot.
        failures: exceptions the handler raised inside MuJoCo, oldest first; the caller raises the first and
            clears them after the MuJoCo call (clears them when the call itself raised).
    """

    def __init__(self, handler: Callable[[str], None], slot: ctypes.c_void_p | None) -> None:
        self.slot = slot
        self.address = 0
        self.failures: list[BaseException] = []
        self._pinned = False  # the callback kept for the process (pin)
        method = self._method = weakref.WeakMethod(handler)  # type: ignore[arg-type]
        if slot is None:
            return
        failures = self.failures

        def relay(message: bytes | None) -> None:
            # Inside MuJoCo's C frames (ctypes took the GIL): nothing may propagate from here.
            try:
                target = method()
                if target is not None:
                    target((message or b"").decode("utf-8", "replace"))
            except BaseException as error:  # noqa: BLE001  # raised by the simulation after the MuJoCo call
                failures.append(error)

        self._callback = _WARNING_TYPE(relay)
        self.address = int(ctypes.cast(self._callback, ctypes.c_void_p).value or 0)
        weakref.finalize(self, _release, slot, self.address, self._callback)

    def install(self) -> object:
        """Make the simulation's handler MuJoCo's for a physics phase: its callback's address written into the
        pointer (the binding's record untouched), or the handler set through the binding where there is no
        pointer. Returns what was there, for :meth:`restore`."""
        slot = self.slot
        if slot is None:
            previous = mujoco.get_mju_user_warning()
            mujoco.set_mju_user_warning(self._method())
            return previous
        previous = slot.value
        slot.value = self.address
        return previous

    def restore(self, previous: object) -> None:
        """Put back what :meth:`install` found, unless another handler was written meanwhile (another thread's
        step, which may put this callback back later: then it is kept for the process, :meth:`pin`)."""
        slot = self.slot
        if slot is None:
            mujoco.set_mju_user_warning(previous)
        elif slot.value == self.address:
            slot.value = previous  # type: ignore[assignment]
        else:
            self.pin()

    def pin(self) -> None:
        """Keep the callback's code for the rest of the process (a deliberate leak of a few hundred bytes, once
        per relay): called when something else wrote the pointer during this relay's step (another thread's
        step, which kept this address to put back when it ends, maybe after this relay is collected; a probe).
        Freed, MuJoCo's next warning would jump into freed memory; kept, it calls nothing once the simulation
        is gone."""
        if self.address and not self._pinned:
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(self._callback))
            self._pinned = True

    def raise_failure(self) -> None:
        """Raise the first exception the handler raised inside MuJoCo (the others are dropped)."""
        failures, self.failures[:] = list(self.failures), []
        raise failures[0]
