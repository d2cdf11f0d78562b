"""Compiled readers of :mod:`wbsim.devices.packed` tables, and raw addresses as pointers.

``f2(table, k)`` is the ``k``-th packed array as a 2-D float64 array over the caller's memory (no copy), after
checking its type code: a table whose ``k``-th array is of another kind or dimension raises ``ValueError``
rather than reading memory as the wrong type. The readers are inlined into the kernels that use them.

This module imports numba: only kernel modules import it.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from wbsim.devices.packed import B1, B2, F1, F2, F3, I1, I2, SLOT

__all__ = ["pointer", "word", "f1", "f2", "f3", "i1", "i2", "b1", "b2"]


@intrinsic
def pointer(typingctx, address):  # noqa: ANN001, ANN202, ARG001
    """The int64 ``address`` as a ``void*`` (for :func:`numba.carray`)."""

    def codegen(context, builder, signature, args):  # noqa: ANN001, ANN202, ARG001
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return types.voidptr(types.int64), codegen


@numba.njit(cache=True, error_model="numpy", nogil=True, inline="always")
def word(address: int) -> int:
    """The 64-bit word at ``address`` (a pointer field of a C struct), as int64."""
    return numba.carray(pointer(address), 1, np.int64)[0]


@numba.njit(cache=True, nogil=True, inline="always")
def _at(table: np.ndarray, k: int, code: int) -> int:
    """Where the ``k``-th array's entries start in ``table``, once its type code is checked."""
    at = SLOT * k
    if table[at + 1] != code:
        raise ValueError("a packed array has another type or dimension than the kernel reads")
    return at


@numba.njit(cache=True, nogil=True, inline="always")
def f1(table: np.ndarray, k: int) -> np.ndarray:
    """The ``k``-th packed array, 1-D float64."""
    at = _at(table, k, F1)
    return numba.carray(pointer(table[at]), table[at + 2], np.float64)


@numba.njit(cache=True, nogil=True, inline="always")
def f2(table: np.ndarray, k: int) -> np.ndarray:
    """The ``k``-th packed array, 2-D float64."""
    at = _at(table, k, F2)
    return numba.carray(pointer(table[at]), (table[at + 2], table[at + 3]), np.float64)


@numba.njit(cache=True, nogil=True, inline="always")
def f3(table: np.ndarray, k: int) -> np.ndarray:
    """The ``k``-th packed array, 3-D float64."""
    at = _at(table, k, F3)
    return numba.carray(pointer(table[at]), (table[at + 2], table[at + 3], table[at + 4]), np.float64)


@numba.njit(cache=True, nogil=True, inline="always")
def i1(table: np.ndarray, k: int) -> np.ndarray:
    """The ``k``-th packed array, 1-D int64."""
    at = _at(table, k, I1)
    return numba.carray(pointer(table[at]), table[at + 2], np.int64)


@numba.njit(cache=True, nogil=True, inline="always")
def i2(table: np.ndarray, k: int) -> np.ndarray:
    """The ``k``-th packed array, 2-D int64."""
    at = _at(table, k, I2)
    return numba.carray(pointer(table[at]), (table[at + 2], table[at + 3]), np.int64)


@numba.njit(cache=True, nogil=True, inline="always")
def b1(table: np.ndarray, k: int) -> np.ndarray:
    """The ``k``-th packed array, 1-D bool."""
    at = _at(table, k, B1)
    return numba.carray(pointer(table[at]), table[at + 2], np.bool_)


@numba.njit(cache=True, nogil=True, inline="always")
def b2(table: np.ndarray, k: int) -> np.ndarray:
    """The ``k``-th packed array, 2-D bool."""
    at = _at(table, k, B2)
    return numba.carray(pointer(table[at]), (table[at + 2], table[at + 3]), np.bool_)
