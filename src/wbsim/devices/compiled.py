"""Whether the compiled loops (numba) are available, and the motion sensors' kernels, imported on demand.

Importing numba takes about half a second (more on a loaded machine; its first compilation, without a cache,
several seconds): banks ask :func:`numba_installed` at load (without importing it) and call
:func:`motion_kernels` at their first sample, so ``import wbsim`` and worlds without enabled motion sensors never
import numba.
"""

from __future__ import annotations

import importlib.util
from types import ModuleType

__all__ = ["numba_installed", "motion_kernels"]


def numba_installed() -> bool:
    """numba can be imported (checked without importing it)."""
    return importlib.util.find_spec("numba") is not None


def motion_kernels() -> ModuleType:
    """:mod:`wbsim.devices.motion_kernel` (imports numba; its loops compile, or load from numba's cache, at their
    first call)."""
    from wbsim.devices import motion_kernel

    return motion_kernel
