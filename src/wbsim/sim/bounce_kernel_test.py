"""Tests for wbsim.sim.bounce_kernel's compiled loops on hand-made contact arrays (and a hand-made struct
for the loop reading ``mjData`` in place); their agreement with the numpy edit on MuJoCo's data is tested
in ``bounce_test.py``."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from wbsim.sim import bounce_kernel as k  # noqa: E402


def entries_table(threshold: float) -> np.ndarray:
    """One class pair's entry: ``threshold``, resting (0.02, 1), bouncy (0.02, 0.2), K 100, B 7."""
    entries = np.zeros((1, 7))
    entries[0, k.THRESHOLD] = threshold
    entries[0, k.REST:k.REST + 2] = (0.02, 1.0)
    entries[0, k.BOUNCY:k.BOUNCY + 2] = (0.02, 0.2)
    entries[0, k.STIFFNESS], entries[0, k.DAMPING] = 100.0, 7.0
    return entries


def fake_data(geom: tuple[int, int], address: int, efc_vel: np.ndarray, kbip: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A stand-in ``mjData`` of one contact for :func:`~wbsim.sim.bounce_kernel.rest_slow_contacts_at`: a
    struct (``ncon``, ``nefc``, then pointers to the contact, ``efc_vel`` and ``efc_KBIP``) and a contact
    (``geom``, ``efc_address``, ``solref``, ``solreffriction``); the layout's 10 offsets. Returns the struct,
    the contact and the layout (keep them alive while the loop runs)."""
    struct = np.zeros(4, dtype=np.int64)
    struct[0] = 1 | (len(efc_vel) << 32)  # ncon = 1, nefc (little-endian int32 pair)
    # 64 bytes: geom (at 0), efc_address (8), solref (16), solreffriction (32).
    contact = np.zeros(8, dtype=np.int64)
    contact[0] = geom[0] | (geom[1] << 32)
    contact[1] = address
    struct[1], struct[2], struct[3] = contact.ctypes.data, efc_vel.ctypes.data, kbip.ctypes.data
    layout = np.array([0, 4, 8, 16, 24, 64, 0, 8, 16, 32], dtype=np.int64)
    return struct, contact, layout


@pytest.mark.parametrize("in_place", [False, True])
def test_friction_rows_beyond_the_constraint_rows_are_never_touched(in_place: bool) -> None:
    """A slow contact whose table dimension (3) exceeds its rows (a model changed after the threshold was
    built: condim 1, one row, the last one): the loop must neither read past ``efc_vel`` nor write past
    ``efc_KBIP``; the normal row is still edited."""
    velocity = np.zeros(3)  # rows beyond the contact's one row: what the arena holds next (slow, sticking)
    kbip = np.zeros((3, 4))
    entries, dims = entries_table(1.0), np.array([3], dtype=np.int64)
    geom_class, pair_keys = np.zeros(2, dtype=np.int64), np.zeros(0, dtype=np.int64)
    solref, friction = np.zeros((1, 2)), np.zeros((1, 2))
    if in_place:
        struct, contact, layout = fake_data((0, 1), 0, velocity[:1], kbip[:1])
        tables = k.pack_tables(layout, geom_class, pair_keys, dims, 1, 2)
        changed = k.rest_slow_contacts_at(struct.ctypes.data, tables, entries)
        solref[0] = contact[2:4].view(np.float64)
    else:
        changed = k.rest_slow_contacts(np.array([[0, 1]], dtype=np.int32), np.zeros(1, dtype=np.int32),
                                       solref, friction, velocity[:1], kbip[:1], geom_class, pair_keys,
                                       entries, dims, 1, 2)
    assert changed
    np.testing.assert_array_equal(solref[0], (0.02, 1.0))
    np.testing.assert_array_equal(kbip[0, :2], (100.0, 7.0))
    np.testing.assert_array_equal(kbip[1:], 0.0)  # nothing written past the rows


@pytest.mark.parametrize("in_place", [False, True])
def test_a_sticking_contact_gets_the_resting_damping_on_its_friction_rows(in_place: bool) -> None:
    """The same contact with its three rows: slow and sticking, all three get the resting damping."""
    velocity = np.array([0.5, 0.3, 0.4])  # normal 0.5, slide hypot(0.3, 0.4) = 0.5: both within 0.5
    kbip = np.zeros((3, 4))
    entries, dims = entries_table(0.5), np.array([3], dtype=np.int64)
    geom_class, pair_keys = np.zeros(2, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if in_place:
        struct, contact, layout = fake_data((0, 1), 0, velocity, kbip)
        tables = k.pack_tables(layout, geom_class, pair_keys, dims, 1, 2)
        assert k.rest_slow_contacts_at(struct.ctypes.data, tables, entries)
        np.testing.assert_array_equal(contact[4:6].view(np.float64), (0.02, 0.2))  # solreffriction: bouncy
    else:
        assert k.rest_slow_contacts(np.array([[0, 1]], dtype=np.int32), np.zeros(1, dtype=np.int32),
                                    np.zeros((1, 2)), np.zeros((1, 2)), velocity, kbip, geom_class, pair_keys,
                                    entries, dims, 1, 2)
    np.testing.assert_array_equal(kbip[:, 1], 7.0)
    assert kbip[0, 0] == 100.0 and (kbip[1:, 0] == 0.0).all()


@pytest.mark.parametrize("in_place", [False, True])
def test_contacts_without_rows_are_skipped_and_pairs_found_from_unordered_geoms(in_place: bool) -> None:
    """Three contacts of geoms 0, 1, 2 (one class whose contacts never switch; one explicit pair, geoms 0 and
    2, that does): the first has no constraint rows (skipped, the loop goes on); the second is the pair listed
    (2, 0) and slow (its pair's resting solref and rows); the third (1, 2) is slow too but no pair (its key
    lies beyond the last pair's): its class leaves it alone."""
    velocity, kbip = np.zeros(2), np.zeros((2, 4))
    entries = np.vstack([entries_table(-np.inf), entries_table(1.0)])
    entries[1, k.REST:k.REST + 2] = (0.03, 1.0)
    entries[1, k.STIFFNESS], entries[1, k.DAMPING] = 50.0, 5.0
    dims = np.array([1, 1], dtype=np.int64)
    geom_class, pair_keys = np.zeros(3, dtype=np.int64), np.array([0 * 3 + 2], dtype=np.int64)
    geoms, addresses = [(2, 1), (2, 0), (1, 2)], [-1, 0, 1]
    if in_place:
        struct, _, layout = fake_data((0, 0), 0, velocity, kbip)
        struct[0] = len(geoms) | (len(velocity) << 32)
        contacts = np.zeros((len(geoms), 8), dtype=np.int64)  # 64 bytes each, as fake_data's
        for i, (geom, address) in enumerate(zip(geoms, addresses)):
            contacts[i, 0] = geom[0] | (geom[1] << 32)
            contacts[i, 1] = address
        struct[1] = contacts.ctypes.data
        tables = k.pack_tables(layout, geom_class, pair_keys, dims, 1, 3)
        changed = k.rest_slow_contacts_at(struct.ctypes.data, tables, entries)
        solref = contacts[:, 2:4].copy().view(np.float64)
    else:
        solref = np.zeros((len(geoms), 2))
        changed = k.rest_slow_contacts(np.array(geoms, dtype=np.int32), np.array(addresses, dtype=np.int32),
                                       solref, np.zeros((len(geoms), 2)), velocity, kbip, geom_class,
                                       pair_keys, entries, dims, 1, 3)
    assert changed
    np.testing.assert_array_equal(solref, [(0.0, 0.0), (0.03, 1.0), (0.0, 0.0)])
    np.testing.assert_array_equal(kbip, [(50.0, 5.0, 0.0, 0.0), (0.0, 0.0, 0.0, 0.0)])
