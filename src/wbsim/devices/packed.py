"""The array arguments of a compiled call packed into one int64 table of addresses and shapes.

numba checks and unboxes every array argument at each call: about 0.1 us each on hot caches, but right after a
MuJoCo step and the controllers (where the sensors' calls run) a 30-argument call costs about 12 us before its
first instruction, against 3 us for one argument (measured in the 20-rover benchmark step). So the hot calls
that run every step with the same arrays take a :class:`Packed` table instead: five int64 per array (its
address, a type code, up to three dimensions), made once when the arrays are chosen; the kernel rebuilds each
array in place (:mod:`wbsim.devices.packed_kernel`, which checks each type code, so a table never makes a
kernel read memory as another type).

The table holds addresses: a :class:`Packed` keeps its arrays alive, and callers pack again, or
:meth:`Packed.replace` the entries, whenever an argument array is replaced (the arrays' contents may change
freely; :meth:`Packed.set_length` reads a prefix of a kept array). A copy (``copy.deepcopy``, ``copy.copy``) or
an unpickled :class:`Packed` has a table of its own at the addresses of the arrays it holds, never the
original's (a deep copy's arrays are copies: a holder deep-copied with the same arrays shares them with its
copied :class:`Packed`, as ``copy.deepcopy`` keeps identities; arrays that were views of an ``MjData`` become
standalone copies, so holders of such views prepare their calls again on a copy). Only C-contiguous arrays of float64,
int64 or bool with at most three dimensions pack; :func:`pack` returns None otherwise and the caller takes
another path (the packed form is each kernel's only form: the motion kinds sample on their own, a distance
sensor plan casts and looks up at the sample, the caster raises: its arrays always pack).

This module does not import numba.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["Packed", "pack", "type_code", "SLOT", "F1", "F2", "F3", "I1", "I2", "B1", "B2"]

_FLOAT, _INT, _BOOL = 0, 1, 2  # the element kinds: float64, int64, bool
F1, F2, F3 = 4 * _FLOAT + 1, 4 * _FLOAT + 2, 4 * _FLOAT + 3
"""Type codes (``4 * kind + ndim``) of float64 arrays of 1, 2, 3 dimensions."""
I1, I2 = 4 * _INT + 1, 4 * _INT + 2
"""Type codes of int64 arrays of 1, 2 dimensions."""
B1, B2 = 4 * _BOOL + 1, 4 * _BOOL + 2
"""Type codes of bool arrays of 1, 2 dimensions."""
SLOT = 5
"""int64 entries per array in a table: address, type code, three dimensions (unused ones 0)."""

_KINDS = {np.dtype(np.float64): _FLOAT, np.dtype(np.int64): _INT, np.dtype(np.bool_): _BOOL}


class Packed:
    """A packed argument list.

    Attributes:
        table: :data:`SLOT` int64 per array, in argument order, (SLOT * arrays,).
        scalars: the non-array arguments, in argument order (passed to the kernel as they are).
        arrays: the packed arrays (kept alive for as long as the table is used).
    """

    __slots__ = ("table", "scalars", "arrays")

    def __init__(self, table: np.ndarray, scalars: tuple[Any, ...], arrays: list[np.ndarray]) -> None:
        self.table = table
        self.scalars = scalars
        self.arrays = arrays

    def replace(self, k: int, *arrays: np.ndarray) -> bool:
        """The ``k``-th array and those after it become ``arrays``, in order (their addresses and shapes in the
        table; kept alive here): all of them or none, so that the table never mixes arrays of two argument
        lists (the pairs and their radii of two broad phases, read with one's lengths and the other's memory).

        Returns:
            False, with nothing changed, if one of ``arrays`` does not pack with the type code of the array it
            replaces (or there are fewer entries).
        """
        if k < 0 or k + len(arrays) > len(self.arrays):
            return False
        for j, array in enumerate(arrays):
            code = type_code(array)
            if code is None or code != self.table[SLOT * (k + j) + 1]:
                return False
        for j, array in enumerate(arrays):
            _put(self.table, k + j, array, int(self.table[SLOT * (k + j) + 1]))
            self.arrays[k + j] = array
        return True

    def set_length(self, k: int, length: int) -> bool:
        """The ``k``-th array is read as its first ``length`` rows (a prefix of the array kept here: C-contiguous,
        so at the same address), without packing anything: a kernel's output buffer, kept from call to call, whose
        filled part changes.

        Returns:
            False, with nothing changed, if there is no ``k``-th array or ``length`` is not within its first
            dimension (the table never describes more memory than the array it keeps).
        """
        if not 0 <= k < len(self.arrays):
            return False
        array = self.arrays[k]
        if array.ndim == 0 or not 0 <= length <= array.shape[0]:
            return False
        self.table[SLOT * k + 2] = length
        return True

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Copies and pickles rebuild the table at the addresses of the arrays they hold (:func:`_rebuilt`): a table
        copied as it is would make the copy's kernel read and write this object's arrays (freed memory once they
        are gone; another process's addresses after unpickling)."""
        return _rebuilt, (self.table, self.scalars, self.arrays)


def _rebuilt(table: np.ndarray, scalars: tuple[Any, ...], arrays: list[np.ndarray]) -> Packed:
    """A :class:`Packed` of ``arrays`` with ``table``'s entries (type codes, dimensions: a length set with
    :meth:`Packed.set_length` stays) at those arrays' addresses, in a table of its own (a shallow copy's
    :meth:`Packed.replace` leaves the original's table as it is).

    Raises:
        ValueError: an array does not fit its entry (another type code, fewer rows than the entry reads, other
            trailing dimensions), or the table has another number of entries.
    """
    table = np.array(table, dtype=np.int64)
    arrays = list(arrays)
    if table.shape != (SLOT * len(arrays),):
        raise ValueError(f"a packed table of shape {table.shape} does not hold {len(arrays)} arrays")
    for k, array in enumerate(arrays):
        entry = table[SLOT * k:SLOT * (k + 1)]
        dims = entry[2:2 + array.ndim].tolist()
        code = type_code(array)
        if code is None or code != entry[1] or (dims and not (0 <= dims[0] <= array.shape[0]
                                                              and tuple(dims[1:]) == array.shape[1:])):
            raise ValueError(f"array {k} of a packed table does not fit its entry {entry.tolist()}")
        entry[0] = array.ctypes.data
    return Packed(table, tuple(scalars), arrays)


def _put(table: np.ndarray, k: int, array: np.ndarray, code: int) -> None:
    """Write the ``k``-th entry of ``table``: ``array``'s address, ``code`` and shape (unused dimensions 0)."""
    table[SLOT * k:SLOT * (k + 1)] = (array.ctypes.data, code, *array.shape, 0, 0, 0)[:SLOT]


def type_code(array: np.ndarray) -> int | None:
    """``4 * kind + ndim`` of a packable array; None if it cannot be packed (dtype, more than three dimensions,
    not C-contiguous)."""
    kind = _KINDS.get(array.dtype)
    if kind is None or array.ndim > 3 or not array.flags.c_contiguous:
        return None
    return 4 * kind + array.ndim


def pack(arguments: tuple[Any, ...], codes: tuple[int, ...]) -> Packed | None:
    """Pack the arrays of ``arguments`` (numpy arrays; everything else is a scalar kept in order).

    Args:
        arguments: a kernel's arguments, in order.
        codes: the type codes the kernel reads, one per array, in order (``F2``, ``I1``, ...).

    Returns:
        The :class:`Packed` arguments, or None if an array cannot be packed (:func:`type_code`) or the arrays'
        codes are not ``codes`` (the caller then takes another path).
    """
    arrays = tuple(a for a in arguments if isinstance(a, np.ndarray))
    if len(arrays) != len(codes):
        return None
    table = np.zeros(SLOT * len(arrays), dtype=np.int64)
    for k, array in enumerate(arrays):
        code = type_code(array)
        if code is None or code != codes[k]:
            return None
        _put(table, k, array, code)
    return Packed(table, tuple(a for a in arguments if not isinstance(a, np.ndarray)), list(arrays))
