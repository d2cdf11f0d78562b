"""A basic step's MuJoCo steps with the bounce edit in ONE binding call: ``mj_step(nstep)`` with the edit as
MuJoCo's control callback.

The physics loop of a world with the bounce threshold (:mod:`wbsim.sim.bounce`) otherwise splits every MuJoCo
step into ``mj_step1``, the edit, ``mj_referenceConstraint`` and ``mj_step2``: three or four Python calls per
MuJoCo step where a world without the edit makes one call per basic step (on the 1-robot benchmark world, four
MuJoCo steps per basic step, the split loop took 31.8-32.9 us per basic step, this one call 29.0-30.2 us,
``mj_step`` without the edit 28.0-29.0 us; paired blocks, 2026-11-27). MuJoCo calls ``mjcb_control(m, d)``
at the end of ``mj_step1`` (in ``mj_step``: after the velocity stage of ``mj_forward``), exactly where the
split loop edits, and ``mj_step`` is ``mj_step1`` then ``mj_step2`` for the Euler and implicit integrators
(wbsim compiles implicitfast; not RK4): so the edit, compiled as a C callback
(:func:`wbsim.sim.bounce_kernel.control_edit`, which calls ``mj_referenceConstraint`` itself when it changed a
row), gives the same doubles in one ``mj_step`` call (tested bit for bit).

Safety. ``mj_step`` is a binding call: the binding intercepts MuJoCo's fatal errors around it (setjmp/longjmp
in its error handler), also those raised while the callback runs, and raises ``mujoco.FatalError``, which the
simulation turns into :class:`~wbsim.errors.SimulationError` as for the split loop; the process lives. (The
earlier experimental loop called ``mj_step1``/``mj_step2`` from compiled code, where a fatal error met no
interception and exited the process.) MuJoCo's warning handler, set around each physics phase, still runs.

MuJoCo's callbacks are process-wide. :func:`one_call_steps` sets ``mjcb_control`` only around its own
``mj_step`` call and sets it back to None in ``finally`` (also after an error; not if another thread's
callback has replaced it meanwhile); if a callback is already set (a user's own), it steps nothing and returns
False, and the caller runs the split loop, in which MuJoCo keeps calling the user's callback. It writes
libmujoco's ``mjcb_control`` pointer itself (:func:`control_slot`, 0.05 us per set and reset where the
binding's ``set_mjcb_control`` pair costs 0.95 us, half of what the one call adds to ``mj_step`` on the
1-robot benchmark world), after checking once that the binding's own setter writes that very pointer; the
binding's record stays None throughout, so ``mujoco.get_mjcb_control()`` says None inside the step too. The
callback has no user pointer: it finds its tables through the data's ``userdata`` (the compiled model of a
world with a bouncy surface has :data:`~wbsim.compile.contacts.BOUNCE_USERDATA_WORDS` words of it): a mark and
the address of a small int64 block (:func:`~wbsim.sim.bounce_kernel.control_block`: the tables' addresses,
``mj_referenceConstraint``'s), written before every call (about 0.1 us; a reset or ``mj_copyData`` may have
replaced them). The mark is cleared after the call, so only data inside its own one-call step carries it;
other data (another program's model, a copy of a simulation's data, another simulation's split loop, stepped
in another thread while the callback is set) is not edited. Several simulations in one process each write
their own data's words, so they may step in turn. The binding releases the GIL inside ``mj_step``, so another
thread may run meanwhile: a wbsim simulation there finds the callback set and runs its split loop, unedited by
the callback (no mark); but a thread that unsets or replaces the callback meanwhile would leave MuJoCo steps
unedited: the callback counts its edits (the fourth word) and a step with fewer edits than MuJoCo steps raises
:class:`CallbackLost` rather than going on with a silently different run.

MuJoCo also calls the control callback when it recomputes a step's velocity and acceleration stages after
putting trees to sleep (in ``mj_step2``'s integration, before the time advances), where the split loop does
not edit: the callback keeps the time of its last edit (the third ``userdata`` word) and does nothing when
called again at the same time, so the two loops stay bit-identical in sleeping worlds too (tested).

Where the offsets of ``userdata`` and ``time`` come from: :func:`wbsim.sim.mjlayout.control_offsets` (checked
against the binding's views). They are closure constants of the compiled callback, not globals: numba keys
its disk cache on closure values, while a global would stay frozen in cached code if another MuJoCo moved the
fields. The callback is made at the first basic step after the compiled edit has loaded (never at import):
loading it from numba's disk cache then takes about 3 ms (compiling it without a cache about 0.4 s), so each
threshold makes its own and nothing is kept at module level.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np

from wbsim.compile.contacts import BOUNCE_USERDATA_WORDS
from wbsim.errors import SimulationError

__all__ = ["CallbackLost", "ControlCallback", "binding_library", "binding_slot", "control_callback", "control_slot",
           "one_call_steps", "reference_constraint_address"]

_NAN_BITS = 0x7FF8_0000_0000_0000
"""A quiet NaN's bits: the last-edit time of data not edited yet (equal to no time)."""


def _library() -> ctypes.CDLL | None:
    """The libmujoco the binding loaded (``RTLD_NOLOAD``: never a second copy, whose globals, such as the
    warning handler, would differ); None if it cannot be found."""
    if not sys.platform.startswith("linux"):
        return None
    folder = Path(mujoco.__file__).parent
    for path in sorted(folder.glob("libmujoco.so*")):
        try:
            return ctypes.CDLL(str(path), mode=os.RTLD_NOLOAD)
        except OSError:
            continue
    return None


class CallbackLost(SimulationError):
    """Some MuJoCo step of a one-call step ran without the edit: the control callback was unset or replaced
    while ``mj_step`` ran (the binding releases the GIL there: another thread setting or resetting MuJoCo's
    process-wide callbacks). The state has advanced without the edit, so the run cannot go on."""


def _probed_slot(library: ctypes.CDLL, name: str, setter: Callable[[object], None],
                 getter: Callable[[], object], probe: object) -> ctypes.c_void_p | None:
    """libmujoco's global callback pointer ``name`` if setting ``probe`` through the binding (``setter``)
    shows in it (the library is the binding's own instance); the binding's previous value is restored (so the
    pointer holds the binding's record afterwards, not what may have been written into it directly)."""
    slot = ctypes.c_void_p.in_dll(library, name)
    previous = getter()
    try:
        setter(None)
        unset = slot.value
        setter(probe)
        probed = slot.value
    finally:
        setter(previous)
    return slot if probed is not None and probed != unset else None


def _no_control(model: int, data: int) -> None:  # noqa: ARG001
    """A probe: never called."""


_CONTROL_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)


def reference_constraint_address() -> int | None:
    """The address of libmujoco's ``mj_referenceConstraint``, after checking that the library is the binding's
    own instance: a control callback set through the binding shows in the library's ``mjcb_control``. Not the
    warning handler's pointer: this runs in a simulation's physics phase (a bounce threshold's first one-call
    step), where that pointer holds the simulation's handler written in place (:mod:`wbsim.sim.warning_relay`),
    which a probe through the binding would replace by the binding's record for the rest of the step.

    Returns:
        The address, or None (another platform, library not found, or not the binding's instance).
    """
    library = binding_library()
    if library is None:
        return None
    try:
        return ctypes.cast(library.mj_referenceConstraint, ctypes.c_void_p).value
    except (AttributeError, ValueError, TypeError):
        return None


def binding_library() -> ctypes.CDLL | None:
    """The libmujoco instance the binding uses, checked: a control callback set through the binding shows in the
    library's ``mjcb_control`` (the probe sets the binding's record back). None on another platform, if the
    library is not found, or if it is not the binding's instance."""
    library = _library()
    if library is None:
        return None
    try:
        # The control probe, not the warning handler's: this runs inside the physics phase too (the first one-call
        # step makes the callback), where the simulation's warning relay is in the warning pointer.
        slot = _probed_slot(library, "mjcb_control", mujoco.set_mjcb_control, mujoco.get_mjcb_control,
                            _CONTROL_TYPE(_no_control))
    except (AttributeError, ValueError, TypeError):
        return None
    return library if slot is not None else None


def binding_slot(name: str) -> ctypes.c_void_p | None:
    """libmujoco's global pointer ``name`` (``mjcb_control``, ``mjcb_time``, ``mju_user_warning``, ...) as a
    ctypes object, in the library instance the binding uses (:func:`binding_library`, whose check briefly resets
    the control callback through the binding: call it outside any MuJoCo call); None if that library is not
    found. Reading and writing it costs about 0.03 us, where the binding's setters cost 0.45 us."""
    library = binding_library()
    if library is None:
        return None
    try:
        return ctypes.c_void_p.in_dll(library, name)
    except ValueError:
        return None


def control_slot() -> ctypes.c_void_p | None:
    """libmujoco's ``mjcb_control`` pointer (:func:`binding_slot`; called when a threshold makes its callback, in
    the physics phase but outside any MuJoCo call)."""
    return binding_slot("mjcb_control")


@dataclass(frozen=True)
class ControlCallback:
    """The compiled control callback of a pair of ``mjData`` offsets, where to install it, and the
    ``mj_referenceConstraint`` address its blocks carry. Immutable: a deep copy (of a bounce threshold)
    shares it.

    Attributes:
        function: the numba cfunc object (:func:`wbsim.sim.bounce_kernel.control_edit`); keeps the code alive.
        pointer: its ctypes function pointer (what ``mujoco.set_mjcb_control`` would be given).
        address: its address.
        slot: libmujoco's ``mjcb_control`` pointer (:func:`control_slot`).
        reference: the address of ``mj_referenceConstraint``.
    """

    function: object
    pointer: object
    address: int
    slot: ctypes.c_void_p
    reference: int

    def __deepcopy__(self, memo: dict) -> ControlCallback:
        """The same callback (compiled code and library slots hold no per-simulation state)."""
        return self


def control_callback(model: mujoco.MjModel, data: mujoco.MjData) -> ControlCallback | None:
    """The bounce edit as a control callback for ``model``'s data (imports numba; compiles or loads the
    callback): None if the model has too few ``userdata`` words, the offsets do not check out on ``data``, or
    libmujoco's ``mj_referenceConstraint`` or ``mjcb_control`` is not found (the caller keeps the split
    loop)."""
    if model.nuserdata < BOUNCE_USERDATA_WORDS:
        return None
    from wbsim.sim.mjlayout import control_offsets

    offsets = control_offsets(model, data)
    reference = reference_constraint_address() if offsets is not None else None
    slot = control_slot() if reference is not None else None
    if offsets is None or reference is None or slot is None:
        return None
    from wbsim.sim.bounce_kernel import control_edit

    function = control_edit(*offsets)
    pointer = function.ctypes
    return ControlCallback(function, pointer, ctypes.cast(pointer, ctypes.c_void_p).value, slot, reference)


def _int_fields(model: mujoco.MjModel, offsets: tuple[int, int]) -> tuple[memoryview, int, int]:
    """One memoryview of the int32 words of the ``mjModel`` struct spanning two int fields at byte ``offsets``
    (4-byte aligned, in either order: :func:`~wbsim.sim.mjlayout.option_offsets` checks each field, not which
    comes first), and the two fields' indices in it."""
    low = min(offsets)
    at = int(model._address) + low  # noqa: SLF001
    view = (ctypes.c_int32 * ((max(offsets) - low) // 4 + 1)).from_address(at)
    return memoryview(view).cast("B").cast("i"), (offsets[0] - low) // 4, (offsets[1] - low) // 4


def one_call_steps(model: mujoco.MjModel, data: mujoco.MjData, callback: ControlCallback, block: np.ndarray,
                   owners: tuple = ()) -> Callable[[int], bool]:
    """``steps(count)``: ``count`` MuJoCo steps of ``model`` and ``data`` with the callback's edit, in one
    ``mj_step`` call; False, stepping nothing, if another ``mjcb_control`` is set, the integrator is RK4 or
    actuation is disabled (the caller then runs the split loop). ``block``
    (:func:`~wbsim.sim.bounce_kernel.control_block`) and ``owners`` (the arrays its addresses point into) are
    kept alive with ``steps``; ``steps.bound_to`` is ``(model, data)``; ``model.nuserdata`` must be at least
    :data:`BOUNCE_USERDATA_WORDS`.

    Raises (from ``steps``):
        mujoco.FatalError: MuJoCo's fatal error in the step (the callback is unset first).
        CallbackLost: a MuJoCo step ran without the edit (another thread changed the callback meanwhile).
    """
    if model.nuserdata < BOUNCE_USERDATA_WORDS:
        raise ValueError(f"the model needs {BOUNCE_USERDATA_WORDS} userdata words for the control callback")
    from wbsim.sim.bounce_kernel import CONTROL_MARK

    from wbsim.sim.mjlayout import option_offsets

    # userdata lies in mjData's fixed buffer (the closure keeps ``data`` alive): its bytes and its words as
    # memoryviews (item reads and writes cost a third of numpy's), and the four words each call writes first
    # (mark, block, no edit time yet, no edit) as bytes, written in one slice assignment.
    userdata = memoryview(data.userdata).cast("B")
    words = userdata.cast("q")
    first = np.array([CONTROL_MARK, int(block.ctypes.data), _NAN_BITS, 0], dtype=np.int64).tobytes()
    size = len(first)
    get, step = mujoco.get_mjcb_control, mujoco.mj_step
    slot, address = callback.slot, callback.address
    rk4, no_actuation = int(mujoco.mjtIntegrator.mjINT_RK4), int(mujoco.mjtDisableBit.mjDSBL_ACTUATION)
    # The integrator and the disable flags, read per call (a user may change them between steps): from the
    # mjModel struct itself where their offsets check out (two memoryview reads, 0.04 us, where the binding's
    # model.opt properties cost 0.2 us); else through the binding.
    offsets = option_offsets(model)
    options = model.opt  # the binding hands out the same object each time
    ints, at_integrator, at_flags = None, 0, 0
    if offsets is not None:
        ints, at_integrator, at_flags = _int_fields(model, offsets)

    def steps(count: int) -> bool:
        # A user's callback (through the binding or not) keeps running in the split loop. mj_step differs
        # from mj_step1 + mj_step2 with RK4 (more forward passes), and skips the control callback when
        # actuation is disabled: the split loop then too.
        if get() is not None or slot.value is not None:
            return False
        if ints is not None:
            if ints[at_integrator] == rk4 or ints[at_flags] & no_actuation:
                return False
        elif options.integrator == rk4 or options.disableflags & no_actuation:
            return False
        userdata[:size] = first
        slot.value = address
        try:
            step(model, data, nstep=count)
        finally:
            if slot.value == address:  # not a callback another thread set meanwhile (CallbackLost follows)
                slot.value = None
            words[0] = 0  # the mark only during this call: copies of the data made between steps carry none
        if words[3] != count:
            raise CallbackLost(f"{words[3]} of the {count} MuJoCo steps ran with the bounce threshold's "
                               "edit: MuJoCo's control callback was unset or replaced during the step (by "
                               "another thread?). Step simulations with bouncy surfaces in one thread at a "
                               "time, or in processes (wbsim.batch).")
        return True

    steps.keep = (block, owners)  # type: ignore[attr-defined]  # what the callback reads, alive with the call
    # The model and data the call steps (its closure's): a deep copy of whoever keeps the call copies neither the
    # call nor these, so a cache can tell its own data and model by identity alone.
    steps.bound_to = (model, data)  # type: ignore[attr-defined]
    return steps
