"""Packed argument tables: what packs, the table's layout, and the compiled readers (same memory, checked types)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from wbsim.devices.packed import B1, B2, F1, F2, F3, I1, I2, SLOT, pack, type_code


def test_the_table_holds_each_arrays_address_type_and_shape_and_the_scalars_stay_in_order():
    a, b, c = np.zeros((4, 3)), np.arange(5), np.ones((2, 0, 7))
    packed = pack((a, 1.5, b, True, c, 7), (F2, I1, F3))
    assert packed is not None
    assert packed.scalars == (1.5, True, 7)
    assert packed.arrays == [a, b, c] and all(x is y for x, y in zip(packed.arrays, (a, b, c)))
    assert packed.table.dtype == np.int64 and packed.table.shape == (3 * SLOT,)
    assert packed.table.reshape(3, SLOT).tolist() == [
        [a.ctypes.data, F2, 4, 3, 0], [b.ctypes.data, I1, 5, 0, 0], [c.ctypes.data, F3, 2, 0, 7]]


@pytest.mark.parametrize("array", [
    np.zeros((4, 6))[:, ::2],  # not C-contiguous
    np.zeros(3, dtype=np.float32),  # another dtype
    np.zeros(3, dtype=np.int32),
    np.zeros((1, 1, 1, 1)),  # four dimensions
], ids=["strided", "float32", "int32", "4d"])
def test_arrays_that_cannot_be_read_in_place_do_not_pack(array):
    assert type_code(array) is None
    assert pack((np.zeros(2), array), (F1, F1)) is None


def test_arrays_of_other_codes_than_the_kernels_or_another_count_do_not_pack():
    a, b = np.zeros(3), np.zeros(3, dtype=bool)
    assert pack((a, b), (F1, B1)) is not None
    assert pack((a, b), (F1, B2)) is None  # a 1-D bool array where the kernel reads a 2-D one
    assert pack((a, b), (F1, B1, I2)) is None
    assert pack((a,), (F1, B1)) is None


def test_the_compiled_readers_see_the_callers_memory_and_refuse_another_type():
    pytest.importorskip("numba")
    from wbsim.devices import packed_kernel as k

    arrays = (np.arange(6.0).reshape(2, 3), np.arange(4), np.array([[True, False]]), np.arange(24.0).reshape(2, 3, 4),
              np.arange(6).reshape(3, 2), np.array([False, True]), np.array([0.5]))
    packed = pack(arrays, (F2, I1, B2, F3, I2, B1, F1))
    assert packed is not None
    table = packed.table
    readers = (k.f2, k.i1, k.b2, k.f3, k.i2, k.b1, k.f1)
    for index, (reader, array) in enumerate(zip(readers, arrays)):
        view = reader(table, index)
        assert view.dtype == array.dtype and view.shape == array.shape and np.array_equal(view, array)
        assert view.ctypes.data == array.ctypes.data  # in place: no copy
    k.f2(table, 0)[1, 2] = -1.0  # writes go to the caller's array
    assert arrays[0][1, 2] == -1.0
    with pytest.raises(ValueError, match="another type or dimension"):
        k.f1(table, 0)  # a 2-D float array read as 1-D
    with pytest.raises(ValueError, match="another type or dimension"):
        k.f1(table, 1)  # an int array read as float


def test_replacing_an_array_updates_its_entry_only_if_it_packs_as_the_old_one():
    a, b = np.zeros((4, 3)), np.arange(5)
    packed = pack((a, b), (F2, I1))
    before = packed.table.copy()
    bigger = np.ones((7, 3))
    assert packed.replace(0, bigger)
    assert packed.table[:SLOT].tolist() == [bigger.ctypes.data, F2, 7, 3, 0] and packed.arrays[0] is bigger
    assert (packed.table[SLOT:] == before[SLOT:]).all()
    for wrong in (np.ones(3), np.ones((2, 3), dtype=np.int64), np.ones((4, 6))[:, ::2]):
        assert not packed.replace(0, wrong)
    assert packed.table[:SLOT].tolist() == [bigger.ctypes.data, F2, 7, 3, 0] and packed.arrays[0] is bigger


def test_replacing_several_arrays_changes_all_of_them_or_none():
    # A caller replaces the entries of one argument list together (the caster: a broad phase's four pair arrays):
    # one array that does not pack leaves the table and the kept arrays as they were, never half of each list.
    a, b, c = np.zeros((3, 2), dtype=np.int64), np.zeros(2), np.zeros((2, 12))
    packed = pack((np.zeros(4), a, b, c), (F1, I2, F1, F2))
    before, kept = packed.table.copy(), list(packed.arrays)
    new_a, new_b, new_c = np.ones((3, 5), dtype=np.int64), np.ones(5), np.ones((5, 12))
    for wrong in ((new_a, new_b.astype(np.float32), new_c), (new_a, new_b, new_c[:, ::2]), (new_a, new_b, new_c, b)):
        assert not packed.replace(1, *wrong)
        assert (packed.table == before).all() and all(x is y for x, y in zip(packed.arrays, kept))
    assert packed.replace(1, new_a, new_b, new_c)
    assert packed.table.reshape(4, SLOT)[1:].tolist() == [
        [new_a.ctypes.data, I2, 3, 5, 0], [new_b.ctypes.data, F1, 5, 0, 0], [new_c.ctypes.data, F2, 5, 12, 0]]
    assert packed.arrays[1] is new_a and packed.arrays[2] is new_b and packed.arrays[3] is new_c
    assert (packed.table[:SLOT] == before[:SLOT]).all()


def test_setting_a_length_reads_a_prefix_of_the_kept_array_and_never_more_than_it():
    # A kernel's lasting output buffer (the caster's broad-phase pairs): the table describes its filled rows, at
    # the same address, from none to all of them; a length beyond the array, or a missing entry, changes nothing.
    rows, radii = np.arange(24, dtype=np.int64).reshape(8, 3), np.arange(8.0)
    packed = pack((rows, radii), (I2, F1))
    for length in (3, 0, 8, 5):
        assert packed.set_length(0, length) and packed.set_length(1, length)
        assert packed.table.reshape(2, SLOT).tolist() == [[rows.ctypes.data, I2, length, 3, 0],
                                                          [radii.ctypes.data, F1, length, 0, 0]]
    before = packed.table.copy()
    for k, length in ((0, 9), (1, -1), (2, 1), (-1, 1)):
        assert not packed.set_length(k, length)
        assert (packed.table == before).all()
    assert packed.arrays[0] is rows and packed.arrays[1] is radii


def test_the_compiled_readers_see_the_prefix_a_length_sets():
    pytest.importorskip("numba")
    from wbsim.devices import packed_kernel as k

    rows, radii = np.arange(24, dtype=np.int64).reshape(8, 3), np.arange(8.0)
    packed = pack((rows, radii), (I2, F1))
    packed.set_length(0, 5)
    packed.set_length(1, 0)
    view = k.i2(packed.table, 0)
    assert view.ctypes.data == rows.ctypes.data and view.shape == (5, 3)
    np.testing.assert_array_equal(view, rows[:5])
    assert k.f1(packed.table, 1).shape == (0,)


def _entries(packed) -> list[list[int]]:
    return packed.table.reshape(-1, SLOT).tolist()


@pytest.mark.parametrize("how", ["deepcopy", "pickle", "copy"])
def test_a_copy_or_an_unpickled_table_holds_the_addresses_of_its_own_arrays(how):
    # A table copied as it is would make the copy's kernel read and write the original's arrays (freed memory once
    # they are gone; another process's addresses after unpickling). Types, dimensions and a set length stay.
    rows, radii, flags = np.arange(24, dtype=np.int64).reshape(8, 3), np.arange(8.0), np.ones((2, 4), dtype=bool)
    packed = pack((rows, 0.25, radii, flags, "x"), (I2, F1, B2))
    packed.set_length(0, 5)
    copier = {"deepcopy": copy.deepcopy, "pickle": lambda p: pickle.loads(pickle.dumps(p)), "copy": copy.copy}[how]
    twin = copier(packed)
    assert twin.table is not packed.table and twin.arrays is not packed.arrays and twin.scalars == (0.25, "x")
    assert [entry[1:] for entry in _entries(twin)] == [entry[1:] for entry in _entries(packed)]  # codes, dims
    assert [entry[0] for entry in _entries(twin)] == [array.ctypes.data for array in twin.arrays]
    for mine, theirs in zip(twin.arrays, (rows, radii, flags)):
        np.testing.assert_array_equal(mine, theirs)
        assert (mine is theirs) == (how == "copy")  # a shallow copy shares the arrays, a deep one copies them
    before = packed.table.copy()
    assert twin.replace(1, np.zeros(3)) and twin.set_length(0, 2)
    assert (packed.table == before).all() and packed.arrays[1] is radii  # the original's table and list stay


def test_a_holder_deep_copied_with_its_packed_arrays_shares_them_with_its_copied_table():
    # copy.deepcopy keeps identities: the holder's copied array is the one the copied table points at, so a compiled
    # write through the copy's table lands in the copied holder's array, never in the original's.
    pytest.importorskip("numba")
    from wbsim.devices import packed_kernel as k

    values, pending = np.zeros((2, 3)), np.arange(4)
    holder = {"values": values, "call": pack((values, pending), (F2, I1))}
    twin = copy.deepcopy(holder)
    assert twin["call"].arrays[0] is twin["values"]
    k.f2(twin["call"].table, 0)[1, 2] = 7.0
    assert twin["values"][1, 2] == 7.0 and values[1, 2] == 0.0
    np.testing.assert_array_equal(k.i1(twin["call"].table, 1), pending)
    assert k.i1(twin["call"].table, 1).ctypes.data != pending.ctypes.data


@pytest.mark.parametrize("wrong", [
    lambda arrays: [arrays[0].astype(np.float32), arrays[1]],  # another type
    lambda arrays: [arrays[0][:4], arrays[1]],  # fewer rows than the entry reads (a set length of 5)
    lambda arrays: [arrays[0].reshape(4, 6), arrays[1]],  # other trailing dimensions
    lambda arrays: [arrays[0]],  # fewer arrays than entries
], ids=["type", "rows", "dims", "count"])
def test_a_table_is_not_rebuilt_at_arrays_that_do_not_fit_its_entries(wrong):
    packed = pack((np.arange(24.0).reshape(8, 3), np.arange(8)), (F2, I1))
    packed.set_length(0, 5)
    rebuild, (table, scalars, arrays) = packed.__reduce__()
    assert rebuild(table, scalars, [np.ones((5, 3)), np.ones(8, dtype=np.int64)]).table[2] == 5  # a prefix fits
    with pytest.raises(ValueError, match="packed table"):
        rebuild(table, scalars, wrong(arrays))
