"""EXPERIMENTAL, off by default: a basic step's MuJoCo steps and their bounce edits in one compiled call.

The physics loop of a world with the bounce threshold (:mod:`wbsim.sim.bounce`) splits every MuJoCo step into
``mj_step1``, the edit and ``mj_step2``: three Python calls per MuJoCo step where a world without the edit makes
one call per basic step (``mj_step`` with ``nstep``). :func:`mujoco_functions` finds libmujoco's C entry points
(the library the binding already loaded, next to ``mujoco/__init__.py``) so that
:func:`wbsim.sim.bounce_kernel.bounce_steps` runs all of a basic step's MuJoCo steps in one call. Same
functions, same order, same data: bit-identical to the Python loop (tested).

Why it is off (``Simulation.experimental_c_steps``): the binding turns MuJoCo's fatal errors (e.g. its arena
running out in a step) into ``mujoco.FatalError`` by intercepting them around each of its calls. Called from
compiled code, a fatal error meets no interception and MuJoCo's default handler **exits the process** (after
writing ``MUJOCO_LOG.TXT``), where the Python loop raises ``SimulationError``. Warnings (divergence) do reach
the simulation's handler (tested).
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

import mujoco
import numpy as np

__all__ = ["mujoco_functions"]


def _library() -> ctypes.CDLL | None:
    """The libmujoco the binding loaded (``RTLD_NOLOAD``: never a second copy, whose globals, such as the
    warning handler, would differ); None if it cannot be found."""
    if not sys.platform.startswith("linux"):
        return None
    folder = Path(mujoco.__file__).parent
    candidates = sorted(folder.glob("libmujoco.so*"))
    for path in candidates:
        try:
            return ctypes.CDLL(str(path), mode=os.RTLD_NOLOAD)
        except OSError:
            continue
    return None


def mujoco_functions() -> np.ndarray | None:
    """Addresses of ``mj_step1``, ``mj_step2`` and ``mj_referenceConstraint`` (int64, the ``functions``
    argument of :func:`~wbsim.sim.bounce_kernel.bounce_steps`), after checking that the library is the
    binding's own: a warning handler set through the binding shows in the library's ``mju_user_warning``.

    Returns:
        The addresses, or None (other platform, library not found, or not the binding's instance).
    """
    library = _library()
    if library is None:
        return None
    try:
        slot = ctypes.c_void_p.in_dll(library, "mju_user_warning")
        previous = mujoco.get_mju_user_warning()
        try:
            mujoco.set_mju_user_warning(None)
            unset = slot.value
            mujoco.set_mju_user_warning(lambda message: None)
            probe = slot.value
        finally:
            mujoco.set_mju_user_warning(previous)
        if unset == probe or probe is None:
            return None
        return np.array([ctypes.cast(getattr(library, name), ctypes.c_void_p).value
                         for name in ("mj_step1", "mj_step2", "mj_referenceConstraint")], dtype=np.int64)
    except (AttributeError, ValueError, TypeError):
        return None
