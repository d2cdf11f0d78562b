"""Tests for wbsim.sim.mjlayout: struct offsets found from MuJoCo's declarations and checked on live data."""

from __future__ import annotations

import ctypes

import mujoco
import numpy as np
import pytest

from wbsim.sim import mjlayout
from wbsim.sim.mjlayout import data_layout

BOXES = """<mujoco><option cone="elliptic"/><worldbody><geom type="plane" size="1 1 1"/>
  <body pos="0 0 0.1"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
  <body pos="0.5 0 0.05"><freejoint/><geom type="sphere" size=".05" condim="6"/></body></worldbody></mujoco>"""


def settled() -> tuple[mujoco.MjModel, mujoco.MjData]:
    """Two bodies resting on a plane, after ``mj_step1``: contacts with constraint rows."""
    model = mujoco.MjModel.from_xml_string(BOXES)
    data = mujoco.MjData(model)
    for _ in range(20):
        mujoco.mj_step(model, data)
    mujoco.mj_step1(model, data)
    assert data.ncon >= 2 and data.nefc > 0
    return model, data


def test_offsets_read_what_the_binding_shows() -> None:
    """Reading the struct at the offsets gives the binding's counts, array addresses and contact fields."""
    _, data = settled()
    layout = data_layout(data)
    assert layout is not None
    base = data._address
    assert ctypes.c_int32.from_address(base + layout.ncon).value == data.ncon
    assert ctypes.c_int32.from_address(base + layout.nefc).value == data.nefc
    assert ctypes.c_uint64.from_address(base + layout.efc_vel).value == data.efc_vel.ctypes.data
    assert ctypes.c_uint64.from_address(base + layout.efc_kbip).value == data.efc_KBIP.ctypes.data
    contact = ctypes.c_uint64.from_address(base + layout.contact).value
    for i in range(data.ncon):
        at = contact + i * layout.contact_size
        geom = (ctypes.c_int32 * 2).from_address(at + layout.geom)
        assert list(geom) == list(data.contact.geom[i])
        assert ctypes.c_int32.from_address(at + layout.efc_address).value == data.contact.efc_address[i]
        assert list((ctypes.c_double * 2).from_address(at + layout.solref)) == list(data.contact.solref[i])
        friction = (ctypes.c_double * 2).from_address(at + layout.solreffriction)
        assert list(friction) == list(data.contact.solreffriction[i])
    assert layout.as_array().dtype == np.int64 and len(layout.as_array()) == 10


def test_no_contact_rows_no_layout() -> None:
    """A fresh data has no contact to check the offsets against: None (the caller tries again later)."""
    model = mujoco.MjModel.from_xml_string(BOXES)
    assert data_layout(mujoco.MjData(model)) is None


@pytest.mark.parametrize("scalar", ["int", "mjtBool", "mjtNum"])
def test_a_wrong_layout_is_refused(monkeypatch: pytest.MonkeyPatch, scalar: str) -> None:
    """Offsets computed with a wrong type size (another MuJoCo's layout) fail the checks: None, never a
    layout that would read the wrong bytes."""
    _, data = settled()
    monkeypatch.setitem(mjlayout._SCALARS, scalar, mjlayout._SCALARS[scalar] * 2)
    assert data_layout(data) is None


def test_an_unknown_field_type_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    _, data = settled()
    monkeypatch.delitem(mjlayout._SCALARS, "uint64_t")
    assert data_layout(data) is None


def with_userdata() -> tuple[mujoco.MjModel, mujoco.MjData]:
    model = mujoco.MjModel.from_xml_string(BOXES.replace("<worldbody>", '<size nuserdata="3"/><worldbody>'))
    return model, mujoco.MjData(model)


def test_control_offsets_read_the_userdata_pointer_and_the_time() -> None:
    model, data = with_userdata()
    offsets = mjlayout.control_offsets(model, data)
    assert offsets is not None
    userdata, time = offsets
    assert ctypes.c_uint64.from_address(data._address + userdata).value == data.userdata.ctypes.data
    data.time = 0.375
    assert ctypes.c_double.from_address(data._address + time).value == 0.375
    assert data.time == 0.375  # the check restored what it changed


def test_control_offsets_need_userdata_and_refuse_a_wrong_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    model = mujoco.MjModel.from_xml_string(BOXES)
    assert mjlayout.control_offsets(model, mujoco.MjData(model)) is None  # nuserdata 0
    model, data = with_userdata()
    monkeypatch.setitem(mjlayout._SCALARS, "mjtNum", 16)
    assert mjlayout.control_offsets(model, data) is None


def test_option_offsets_read_the_integrator_and_the_disable_flags() -> None:
    """The offsets read what the binding's ``model.opt`` shows, also after later changes, and the check left the
    model's own values in place."""
    model = mujoco.MjModel.from_xml_string(BOXES.replace("<option ", '<option integrator="implicitfast" '))
    model.opt.disableflags = int(mujoco.mjtDisableBit.mjDSBL_WARMSTART)
    offsets = mjlayout.option_offsets(model)
    assert offsets is not None
    integrator, flags = (ctypes.c_int32.from_address(model._address + at) for at in offsets)
    assert integrator.value == model.opt.integrator == mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    assert flags.value == model.opt.disableflags == mujoco.mjtDisableBit.mjDSBL_WARMSTART
    model.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_ACTUATION
    assert integrator.value == mujoco.mjtIntegrator.mjINT_RK4 and flags.value == model.opt.disableflags


@pytest.mark.parametrize("scalar", ["int", "mjtNum"])
def test_option_offsets_refuse_a_wrong_layout(monkeypatch: pytest.MonkeyPatch, scalar: str) -> None:
    model = mujoco.MjModel.from_xml_string(BOXES)
    monkeypatch.setitem(mjlayout._SCALARS, scalar, mjlayout._SCALARS[scalar] * 2)
    assert mjlayout.option_offsets(model) is None
    assert model.opt.integrator == mujoco.mjtIntegrator.mjINT_EULER and model.opt.disableflags == 0
