"""Whether the compiled loops (numba) are available, and the motion sensors' kernels, imported on demand.

Importing numba takes about half a second (more on a loaded machine; its first compilation, without a cache,
several seconds): banks ask :func:`numba_installed` at load (without importing it) and call
:func:`motion_kernels` at their first sample, so ``import wbsim`` and worlds without enabled motion sensors never
import numba.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from types import ModuleType
from typing import Any

__all__ = ["numba_installed", "motion_kernels", "cached_njit", "StateViews"]


def numba_installed() -> bool:
    """numba can be imported (checked without importing it)."""
    return importlib.util.find_spec("numba") is not None


class StateViews:
    """The MjData arrays the motion kernels read, as numpy views made once (each attribute access of an
    ``MjData`` builds a new view, about 0.5 us). Views follow the data in place; a bank keeps one per MjData.

    Args:
        data: the simulation's MuJoCo data.
    """

    __slots__ = ("data", "site_xmat", "site_xpos", "cvel", "subtree_com")

    def __init__(self, data: Any) -> None:
        self.data = data
        self.site_xmat = data.site_xmat
        self.site_xpos = data.site_xpos
        self.cvel = data.cvel
        self.subtree_com = data.subtree_com

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Copies and pickles are views of the copied data, made again: ``copy.deepcopy`` copies each view into an
        array of its own, which :meth:`of` would take for the copied data's views (poses that never move)."""
        return StateViews, (self.data,)

    @staticmethod
    def of(cache: StateViews | None, data: Any) -> StateViews:
        """``cache`` if it holds the views of ``data``, else new views of ``data``."""
        return cache if cache is not None and cache.data is data else StateViews(data)


def motion_kernels() -> ModuleType:
    """:mod:`wbsim.devices.motion_kernel` (imports numba; its loops compile, or load from numba's cache, at their
    first call)."""
    from wbsim.devices import motion_kernel

    return motion_kernel


def cached_njit(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """A decorator compiling a function with ``numba.njit(cache=True, **options)`` (called by kernel modules only:
    it imports numba).

    numba stores the machine code next to the module (``__pycache__``), or in its user cache (``~/.cache/numba``,
    ``$XDG_CACHE_HOME/numba``) when that folder is read-only, or in ``NUMBA_CACHE_DIR``; when none of them is
    writable it refuses ``cache=True`` with a ``RuntimeError`` at decoration time. The function is then compiled
    without a cache (in memory, again in every process) instead of failing the import.
    """
    import numba

    def decorate(function: Callable[..., Any]) -> Any:
        try:
            return numba.njit(cache=True, **options)(function)
        except RuntimeError:  # "cannot cache function ...: no locator available": nowhere to write
            return numba.njit(**options)(function)

    return decorate
