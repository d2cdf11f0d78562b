"""Byte offsets of the few ``mjData`` and ``mjContact`` fields that compiled code reads straight from MuJoCo's
structs, found once and verified against the Python binding's own views.

The bounce threshold's compiled edit (:mod:`wbsim.sim.bounce_kernel`) runs in every physics step. Handing it
the binding's views (``data.contact.geom``, ``data.efc_vel``, ...) costs more than its work: each view is a
new numpy object (MuJoCo's arena moves the contact and constraint arrays whenever their counts change, so
views cannot be kept), and numba unboxes every array argument. Given the ``mjData`` struct's address instead,
the kernel reads the counts and the arrays' current addresses from the struct itself.

The offsets come from the struct declarations MuJoCo's Python package ships (``mujoco.introspect``, laid out
with C's rules) and from the binding's contact views (strides and addresses), and are checked against a live
``mjData`` with contacts and constraint rows: the counts against the binding's, every pointer against the
address of the binding's view of the same array. Any mismatch (another MuJoCo version with another layout)
gives None, and the caller keeps the view-based path.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import mujoco
import numpy as np

__all__ = ["DataLayout", "control_offsets", "data_layout", "option_offsets"]

# Sizes of the scalar types in MuJoCo's struct declarations (LP64, double-precision mjtNum).
_SCALARS = {"int": 4, "mjtBool": 1, "mjtByte": 1, "mjtNum": 8, "mjtSize": 8, "size_t": 8, "uintptr_t": 8,
            "float": 4, "double": 8, "int64_t": 8, "uint64_t": 8, "int32_t": 4, "uint32_t": 4, "uint8_t": 1,
            "char": 1, "unsigned char": 1, "unsigned int": 4}


@dataclass(frozen=True)
class DataLayout:
    """Byte offsets in ``mjData`` (``ncon`` ... ``efc_kbip``: int counts and array pointers) and in one
    ``mjContact`` (``geom`` ... ``solreffriction``), and ``sizeof(mjContact)``."""

    ncon: int
    nefc: int
    contact: int
    efc_vel: int
    efc_kbip: int
    contact_size: int
    geom: int
    efc_address: int
    solref: int
    solreffriction: int

    def as_array(self) -> np.ndarray:
        """The ten offsets in field order, as int64 (the kernel's layout argument)."""
        return np.array([self.ncon, self.nefc, self.contact, self.efc_vel, self.efc_kbip, self.contact_size,
                         self.geom, self.efc_address, self.solref, self.solreffriction], dtype=np.int64)


def _size_align(type_: object) -> tuple[int, int] | None:
    """(size, alignment) in bytes of an introspected C type; None for a type this module does not know."""
    from mujoco.introspect import ast_nodes, structs

    if isinstance(type_, ast_nodes.PointerType):
        return 8, 8
    if isinstance(type_, ast_nodes.ArrayType):
        inner = _size_align(type_.inner_type)
        if inner is None:
            return None
        count = int(np.prod(type_.extents))
        return inner[0] * count, inner[1]
    if isinstance(type_, ast_nodes.ValueType):
        if type_.name in _SCALARS:
            size = _SCALARS[type_.name]
            return size, size
        struct = structs.STRUCTS.get(type_.name)
        if struct is not None:
            offsets = _offsets(struct)
            return None if offsets is None else offsets[1]
    return None


def _offsets(struct: object, until: str | None = None) -> tuple[dict[str, int], tuple[int, int]] | None:
    """Field offsets of an introspected struct and its (size, alignment), by C's layout rules; with ``until``,
    the fields up to that one only (its size and alignment then those of that prefix)."""
    from mujoco.introspect import ast_nodes

    offset, align, fields = 0, 1, {}
    for field in struct.fields:  # type: ignore[attr-defined]
        if not isinstance(field, ast_nodes.StructFieldDecl):
            return None  # anonymous structs or unions: not in the fields this module needs
        size_align = _size_align(field.type)
        if size_align is None:
            return None
        size, field_align = size_align
        offset = (offset + field_align - 1) // field_align * field_align
        fields[field.name] = offset
        offset += size
        align = max(align, field_align)
        if field.name == until:
            break
    return fields, ((offset + align - 1) // align * align, align)


def _int(address: int) -> int:
    return ctypes.c_int32.from_address(address).value


def _pointer(address: int) -> int:
    return ctypes.c_uint64.from_address(address).value


def data_layout(data: mujoco.MjData) -> DataLayout | None:
    """The offsets the kernel reads, checked on ``data`` (which must hold contacts with constraint rows:
    ``data.ncon > 0`` and ``data.nefc > 0``, e.g. right after ``mj_step1``).

    Returns:
        The verified layout, or None if ``data`` has no contact row yet or any check fails.
    """
    if data.ncon == 0 or data.nefc == 0:
        return None
    try:
        from mujoco.introspect import structs

        found = _offsets(structs.STRUCTS["mjData"])
    except (ImportError, KeyError, AttributeError, ValueError):
        return None
    if found is None:
        return None
    offsets = found[0]
    base = int(data._address)  # noqa: SLF001  # the binding's pointer to the mjData struct
    # Counts: the binding's values at the computed offsets (their neighbours too, a check of the section).
    for name in ("ncon", "ne", "nf", "nl", "nefc", "nJ", "nisland"):
        if name not in offsets or _int(base + offsets[name]) != int(getattr(data, name)):
            return None
    contact = data.contact
    views = {"qpos": data.qpos, "efc_vel": data.efc_vel, "efc_KBIP": data.efc_KBIP, "contact": contact.dist}
    for name, view in views.items():
        if name not in offsets or _pointer(base + offsets[name]) != view.ctypes.data:
            return None
    # mjContact: its size and field offsets from the binding's strided views into the contact array.
    first = contact.dist.ctypes.data
    size = contact.geom.strides[0]
    fields = {}
    for name, dtype, width, item in (("geom", np.int32, 2, 4), ("efc_address", np.int32, 1, 4),
                                     ("solref", np.float64, 2, 8), ("solreffriction", np.float64, 2, 8)):
        view = getattr(contact, name)
        shape = (data.ncon, width) if width > 1 else (data.ncon,)
        if view.dtype != dtype or view.shape != shape or view.strides[0] != size:
            return None
        if width > 1 and view.strides[1] != item:
            return None
        fields[name] = view.ctypes.data - first
        if not 0 <= fields[name] <= size - width * item:
            return None
    if data.efc_vel.dtype != np.float64 or data.efc_KBIP.strides != (32, 8):
        return None
    return DataLayout(offsets["ncon"], offsets["nefc"], offsets["contact"], offsets["efc_vel"],
                      offsets["efc_KBIP"], size, fields["geom"], fields["efc_address"], fields["solref"],
                      fields["solreffriction"])


def control_offsets(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[int, int] | None:
    """The byte offsets of the ``userdata`` pointer and of ``time`` in ``mjData``, checked on ``data`` (of
    ``model``, which must have ``nuserdata > 0``): the pointer there is the binding's ``data.userdata`` view's
    address, and the double there follows ``data.time`` (read back after setting two values; restored).
    None if a check fails."""
    if model.nuserdata <= 0 or data.userdata.shape != (model.nuserdata,):
        return None
    try:
        from mujoco.introspect import structs

        found = _offsets(structs.STRUCTS["mjData"])
    except (ImportError, KeyError, AttributeError, ValueError):
        return None
    if found is None or "userdata" not in found[0] or "time" not in found[0]:
        return None
    base = int(data._address)  # noqa: SLF001
    userdata, time = found[0]["userdata"], found[0]["time"]
    if _pointer(base + userdata) != data.userdata.ctypes.data:
        return None
    saved = data.time
    try:
        for probe in (1.25, -3.5):
            data.time = probe
            if ctypes.c_double.from_address(base + time).value != probe:
                return None
    finally:
        data.time = saved
    return userdata, time


def option_offsets(model: mujoco.MjModel) -> tuple[int, int] | None:
    """The byte offsets of ``opt.integrator`` and ``opt.disableflags`` in ``mjModel`` (int fields of its
    embedded ``mjOption``), checked on ``model``: two values set through the binding are read back at each
    (then the model's own restored). None if a check fails."""
    try:
        from mujoco.introspect import structs

        # Up to ``opt`` only: mjVisual, after it, holds anonymous structs.
        found_model = _offsets(structs.STRUCTS["mjModel"], until="opt")
        found_option = _offsets(structs.STRUCTS["mjOption"])
    except (ImportError, KeyError, AttributeError, ValueError):
        return None
    if (found_model is None or found_option is None or "opt" not in found_model[0]
            or not {"integrator", "disableflags"} <= found_option[0].keys()):
        return None
    base = int(model._address)  # noqa: SLF001
    offsets = []
    options = model.opt
    for name in ("integrator", "disableflags"):
        at = found_model[0]["opt"] + found_option[0][name]
        saved = getattr(options, name)
        try:
            for probe in (1, 2):  # valid for both (Euler/RK4 is 0/1, implicit 2; flag bits)
                setattr(options, name, probe)
                if _int(base + at) != probe:
                    return None
        finally:
            setattr(options, name, saved)
        offsets.append(at)
    return offsets[0], offsets[1]
