"""TouchSensorBank without MuJoCo worlds: fake bindings, model and data against a scalar transcription of
Webots' ``WbTouchSensor::computeValue``; the bumper latch, sleeping bodies, reset/restart and schedules."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import mujoco
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbsim.devices.kind import BankContext
from wbsim.devices.lookup_table import lookup_reference
from wbsim.devices.resolution import quantize
from wbsim.devices.touch_sensor.bank import TouchSensorBank
from wbsim.devices.touch_sensor.compile import BUMPER, FORCE, FORCE3D, TouchSensorBinding

Table = tuple[tuple[float, float, float], ...]
NAN = math.nan
SLEEP = int(mujoco.mjtEnableBit.mjENBL_SLEEP)


# -- fakes ---------------------------------------------------------------------------------------------------
@dataclass
class Clock:
    """The simulation's basic-step counter, as BankContext.now_step reads it."""

    step: int = 0


@dataclass
class Rig:
    """A bank over fake MuJoCo model/data."""

    bank: TouchSensorBank
    data: SimpleNamespace
    clock: Clock
    warnings: list[str] = field(default_factory=list)

    def contacts(self, *pairs: tuple[int, int]) -> None:
        """Set MuJoCo's contact list to these geom pairs."""
        self.data.contact.geom = np.array(pairs, dtype=np.int32).reshape(-1, 2)
        self.data.ncon = len(pairs)

    def step(self, *pairs: tuple[int, int], substeps: int = 1) -> np.ndarray:
        """One basic step with these contacts in each of its ``substeps`` physics steps (as the simulation's
        PHYSICS phase calls ``substep``): advance the clock, sample, return a copy of the values."""
        self.contacts(*pairs)
        if self.bank.watches_substeps:
            for _ in range(substeps):
                self.bank.substep(self.data)  # type: ignore[arg-type]
        self.clock.step += 1
        self.bank.sample(self.data, self.clock.step)  # type: ignore[arg-type]
        return self.bank.values.copy()


def binding(kind: int, *, name: str = "ts", body_id: int = 1, geom_ids: tuple[int, ...] = (),
            force_adr: int = -1, samples: int = 1, force_sign: float = -1.0, table: Table = (),
            resolution: float = -1.0) -> TouchSensorBinding:
    """A TouchSensorBinding whose node is a plain dict (only ``node["name"]`` is used)."""
    node: Any = {"name": name}
    return TouchSensorBinding(node=node, type=kind, body_id=body_id, geom_ids=geom_ids,
                              force_adr=force_adr, samples=samples, force_sign=force_sign,
                              lookup_table=table, resolution=resolution)


def make_rig(bindings: Sequence[TouchSensorBinding], *, ngeom: int = 8, nbody: int = 4, history: int = 0,
             substeps: int = 1, basic_ms: float = 16.0, sleep: bool = False, seed: int = 0) -> Rig:
    """A bank over a fake model (``ngeom``, ``opt.enableflags``) and fake data (history, contacts,
    body_awake)."""
    model = SimpleNamespace(ngeom=ngeom, opt=SimpleNamespace(enableflags=SLEEP if sleep else 0))
    data = SimpleNamespace(history=np.zeros(history), ncon=0,
                           contact=SimpleNamespace(geom=np.zeros((0, 2), np.int32)),
                           body_awake=np.ones(nbody, dtype=np.int32))
    clock = Clock()
    generator = np.random.default_rng(seed)
    rig_warnings: list[str] = []
    context = BankContext(model=model,  # type: ignore[arg-type]
                          basic_time_step_ms=basic_ms, substeps=substeps,
                          rng=lambda: generator, warn=rig_warnings.append, now_step=lambda: clock.step)
    return Rig(TouchSensorBank(tuple(bindings), context), data, clock, rig_warnings)


# -- the reference: Webots' computeValue for one sensor ------------------------------------------------------
def quantize_ref(value: float, resolution: float) -> float:
    """``(int)(v / r + 0.5) * r`` (C truncation toward zero); unchanged for r <= 0."""
    return value if resolution <= 0 else int(value / resolution + 0.5) * resolution


def compute_value_ref(b: TouchSensorBinding, history: np.ndarray, latched: bool, samples: int,
                      gaussians: Sequence[float] = (0.0, 0.0, 0.0)) -> list[float]:
    """One sensor's (3,) value row after a sample; NaN where the sensor defines nothing."""
    table = list(b.lookup_table)
    if b.type == BUMPER:
        return [1.0 if latched else 0.0, NAN, NAN]
    if b.force_adr < 0:  # no feedback: lookupTable(0), no resolution
        if b.type == FORCE:
            return [lookup_reference(table, 0.0, gaussians[0]), NAN, NAN]
        return [lookup_reference(table, 0.0, g) for g in gaussians[:3]]
    f1 = []
    for c in range(3):
        total = 0.0
        for k in range(samples):
            total += float(history[b.force_adr + 3 * k + c])
        f1.append(b.force_sign * (total / samples))
    if b.type == FORCE:
        s = f1[0]
        force = -s if s < 0 else 0.0
        return [quantize_ref(lookup_reference(table, force, gaussians[0]), b.resolution), NAN, NAN]
    return [quantize_ref(lookup_reference(table, f1[c], gaussians[c]), b.resolution) for c in range(3)]


def test_scalar_quantize_reference_agrees_with_quantize() -> None:
    """The bank's vectorised resolution is C's truncating discretisation (dead band for small negatives)."""
    values = np.array([-1.6, -1.2, -0.5, -0.49, 0.0, 0.49, 0.5, 1.2, 1.6, 2.5, 7.3])
    for r in (-1.0, 0.0, 1.0, 0.25, 3.0):
        expected = [quantize_ref(v, r) for v in values.tolist()]
        assert quantize(values, np.full(values.shape, r)).tolist() == expected
    assert quantize(np.array([-1.2, -1.6]), np.array([1.0, 1.0])).tolist() == [0.0, -1.0]


# -- property: random banks against the reference ------------------------------------------------------------
_VAL = st.sampled_from([-2.0, -1.0, -0.25, 0.0, 0.25, 1.0, 3.0]) | st.floats(-50.0, 50.0)


@st.composite
def noiseless_tables(draw: st.DrawFn, max_rows: int = 5) -> Table:
    """0..max_rows rows, inputs sorted or not (repeats likely), no noise."""
    n = draw(st.integers(0, max_rows))
    inputs = draw(st.lists(_VAL, min_size=n, max_size=n))
    if draw(st.booleans()):
        inputs.sort()
    outputs = draw(st.lists(_VAL, min_size=n, max_size=n))
    return tuple((x, y, 0.0) for x, y in zip(inputs, outputs))


@st.composite
def sensor_specs(draw: st.DrawFn, max_rows: int = 5) -> dict:
    """One sensor's type, feedback, table, resolution, sign and bumper geoms (drawn from 6 geoms)."""
    return {
        "kind": draw(st.sampled_from([BUMPER, FORCE, FORCE3D])),
        "feedback": draw(st.booleans()),
        "table": draw(noiseless_tables(max_rows)),
        "resolution": draw(st.just(-1.0) | st.sampled_from([0.1, 0.25, 1.0, 3.0]) | st.floats(0.01, 10.0)),
        "sign": draw(st.sampled_from([1.0, -1.0])),
        "geoms": tuple(draw(st.sets(st.integers(0, 5), max_size=2))),
    }


@settings(max_examples=120, deadline=None)
@given(specs=st.sampled_from([2, 5]).flatmap(lambda n: st.lists(sensor_specs(n), min_size=1, max_size=6)),
       samples=st.integers(1, 4), data=st.data())
def test_bank_matches_compute_value_reference(specs: list[dict], samples: int, data: st.DataObject) -> None:
    """Random mixes of bumpers / force / force-3d (with and without feedback) over 1..3 sampled steps.

    All tables of a bank have at most 2 rows, or at most 5 (a lookup may specialise on short tables).
    """
    bindings, adr = [], 0
    for i, s in enumerate(specs):
        feedback = s["kind"] != BUMPER and s["feedback"]
        gap = data.draw(st.integers(0, 2))
        force_adr = adr + gap if feedback else -1
        if feedback:
            adr = force_adr + 3 * samples
        # Bumper geoms are distinct across bumpers (each geom belongs to one body).
        geoms = tuple(g for g in s["geoms"] if all(g not in b.geom_ids for b in bindings))
        bindings.append(binding(s["kind"], name=f"ts{i}", geom_ids=geoms if s["kind"] == BUMPER else (),
                                force_adr=force_adr, samples=samples, force_sign=s["sign"], table=s["table"],
                                resolution=s["resolution"]))
    rig = make_rig(bindings, ngeom=8, history=adr + 2, substeps=samples)
    for row in range(len(bindings)):
        rig.bank.enable(row, 16, now_step=0)
    assert np.isnan(rig.bank.values).all()
    for _ in range(data.draw(st.integers(1, 3))):
        size = adr + 2
        rig.data.history = np.array(data.draw(st.lists(_VAL, min_size=size, max_size=size)), dtype=float)
        pairs = data.draw(st.lists(st.tuples(st.integers(-1, 7), st.integers(-1, 7)), max_size=4))
        touched = {g for pair in pairs for g in pair}
        got = rig.step(*pairs)
        expected = np.array([compute_value_ref(b, rig.data.history, bool(touched & set(b.geom_ids)), samples)
                             for b in bindings])
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0.0, equal_nan=True)
        # Bumpers' latches are consumed by the sample; other sensors never latch; sampling never warns.
        assert not rig.bank.latched.any()
        assert rig.warnings == []


# -- focused: force readings ---------------------------------------------------------------------------------
def test_force_keeps_only_a_push_along_x_and_applies_table_then_resolution() -> None:
    """f1 = sign * mean; force = max(-f1.x, 0) through the table, then the resolution."""
    table = ((0.0, 0.0, 0.0), (10.0, 100.0, 0.0))
    rig = make_rig([
        binding(FORCE, force_adr=0, samples=2, force_sign=1.0, table=table, resolution=3.0),
        binding(FORCE, force_adr=0, samples=2, force_sign=-1.0, table=table, resolution=3.0),
        binding(FORCE, force_adr=6, samples=2, force_sign=1.0, table=table),
    ], history=12, substeps=2)
    # Samples of sensors 0/1 (adr 0): x = -2, -4 -> mean -3. Sensor 2 (adr 6): x = +1, +3 -> mean 2 (a pull).
    rig.data.history[:] = [-2.0, 9.0, 9.0, -4.0, 9.0, 9.0, 1.0, 0.0, 0.0, 3.0, 0.0, 0.0]
    for row in range(3):
        rig.bank.enable(row, 16, now_step=0)
    values = rig.step()
    assert values[0, 0] == 30.0  # force 3 -> 30 -> resolution 3 keeps 30
    assert values[1, 0] == 0.0  # f1.x = +3: a pull reads lookup(0)
    assert values[2, 0] == 0.0
    assert np.isnan(values[:, 1:]).all()
    rig.data.history[0] = -2.5  # mean -3.25 -> 32.5 -> (int)(10.833 + 0.5) * 3 = 33
    assert rig.step()[0, 0] == 33.0


def test_force3d_components_are_unclamped_and_quantized() -> None:
    """Each component of f1 (either sign) through the table, then the resolution."""
    table = ((-10.0, -100.0, 0.0), (10.0, 100.0, 0.0))
    rig = make_rig([binding(FORCE3D, force_adr=1, samples=1, force_sign=-1.0, table=table, resolution=4.0)],
                   history=4)
    rig.data.history[:] = [99.0, 1.25, -0.1, 20.0]  # f1 = (-1.25, 0.1, -20) -> (-12.5, 1, -100)
    rig.bank.enable(0, 16, now_step=0)
    # (int)(-3.125 + 0.5) = -2 -> -8; (int)(0.25 + 0.5) = 0 -> 0; (int)(-25 + 0.5) = -24 -> -96.
    assert rig.step()[0].tolist() == [-8.0, 0.0, -96.0]


def test_without_feedback_reads_lookup_of_zero_without_resolution() -> None:
    """force / force-3d with force_adr -1: lookupTable(0) per component, the resolution is not applied."""
    table = ((-1.0, 0.37, 0.0), (1.0, 2.37, 0.0))  # lookup(0) = 1.37
    rig = make_rig([binding(FORCE, table=table, resolution=1.0),
                    binding(FORCE3D, table=table, resolution=1.0),
                    binding(FORCE, resolution=0.5)])  # empty table: lookup(0) = 0
    for row in range(3):
        rig.bank.enable(row, 16, now_step=0)
    values = rig.step()
    assert values[0, 0] == pytest.approx(1.37) and np.isnan(values[0, 1:]).all()
    assert values[1] == pytest.approx([1.37, 1.37, 1.37])
    assert values[2, 0] == 0.0


def test_noisy_force_uses_the_context_generator() -> None:
    """A noisy table draws from ``context.rng()``: the same seed reproduces the values."""
    table = ((0.0, 0.0, 0.1), (10.0, 100.0, 0.1))
    rig = make_rig([binding(FORCE3D, force_adr=0, force_sign=1.0, table=table)], history=3, seed=99)
    rig.data.history[:] = [1.0, 2.0, -20.0]
    rig.bank.enable(0, 16, now_step=0)
    got = rig.step()[0]
    g = np.random.default_rng(99).standard_normal(3)
    expected = compute_value_ref(rig.bank.bindings[0], rig.data.history, False, 1, g.tolist())
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert got.tolist() != [10.0, 20.0, 0.0] and got[2] == 0.0  # noise is relative: 0 stays 0


# -- focused: bumpers ----------------------------------------------------------------------------------------
def test_bumper_latch_set_by_contact_kept_while_disabled_cleared_by_sample() -> None:
    """Webots' mIsTouching: latched by any contact since the last sample, even while disabled."""
    rig = make_rig([binding(BUMPER, geom_ids=(3, 4))], ngeom=6)
    assert np.isnan(rig.step((3, 5))[0, 0])  # disabled: no value, but the touch is latched
    assert rig.bank.latched[0] and rig.bank.touching[0]
    assert np.isnan(rig.step()[0, 0])  # contact gone, latch kept
    assert rig.bank.latched[0] and not rig.bank.touching[0]
    rig.bank.enable(0, 16, now_step=rig.clock.step)
    assert rig.step()[0, 0] == 1.0  # the first sample reports the touch from before enabling
    assert not rig.bank.latched[0]
    assert rig.step()[0, 0] == 0.0
    assert rig.step((5, 4))[0, 0] == 1.0  # either side of the pair
    assert rig.step()[0, 0] == 0.0


def test_bumper_latches_a_contact_between_two_samples() -> None:
    """With a 2-step period, a contact during the unsampled step is reported by the next sample."""
    rig = make_rig([binding(BUMPER, geom_ids=(2,)), binding(BUMPER, geom_ids=(5,))], ngeom=6)
    rig.bank.enable(0, 32, now_step=0)
    rig.bank.enable(1, 32, now_step=0)
    assert np.isnan(rig.step((2, 0))[:, 0]).all()  # step 1: not due
    assert rig.step()[:, 0].tolist() == [1.0, 0.0]  # step 2: due, sensor 0 touched at step 1
    rig.step((5, 1))
    assert rig.step()[:, 0].tolist() == [0.0, 1.0]


def test_geom_minus_one_marks_no_bumper() -> None:
    """Contacts without a geom (-1) must not wrap around to the last geom's bumper."""
    rig = make_rig([binding(BUMPER, geom_ids=(5,)), binding(BUMPER, geom_ids=(0,))], ngeom=6)
    rig.bank.enable(0, 16, now_step=0)
    rig.bank.enable(1, 16, now_step=0)
    assert rig.step((-1, 2), (3, -1), (-1, -1))[:, 0].tolist() == [0.0, 0.0]
    assert not rig.bank.touching.any()
    assert rig.step((-1, 5))[:, 0].tolist() == [1.0, 0.0]


def test_sleeping_bumper_keeps_its_touching_state() -> None:
    """With sleeping enabled, a bumper whose body sleeps keeps its state (MuJoCo drops its contacts)."""
    rig = make_rig([binding(BUMPER, body_id=2, geom_ids=(3,)), binding(BUMPER, body_id=1, geom_ids=(4,))],
                   ngeom=6, nbody=3, sleep=True)
    rig.bank.enable(0, 16, now_step=0)
    rig.bank.enable(1, 16, now_step=0)
    assert rig.step((3, 0), (4, 0))[:, 0].tolist() == [1.0, 1.0]
    rig.data.body_awake[2] = 0
    assert rig.step()[:, 0].tolist() == [1.0, 0.0]  # asleep: still touching; the awake one lost its contact
    assert rig.step()[:, 0].tolist() == [1.0, 0.0]
    rig.data.body_awake[2] = 1
    assert rig.step()[:, 0].tolist() == [0.0, 0.0]  # awake again: the contact list decides
    rig.data.body_awake[2] = 0
    # Asleep and not touching: a listed contact is ignored.
    assert rig.step((3, 0))[:, 0].tolist() == [0.0, 0.0]
    assert not rig.bank.touching[0]


def test_body_awake_is_ignored_when_sleeping_is_disabled() -> None:
    """Without mjENBL_SLEEP the contact list alone decides, whatever body_awake says."""
    rig = make_rig([binding(BUMPER, body_id=2, geom_ids=(3,))], ngeom=6, nbody=3, sleep=False)
    rig.bank.enable(0, 16, now_step=0)
    rig.data.body_awake[:] = 0
    assert rig.step((3, 1))[0, 0] == 1.0
    assert rig.step()[0, 0] == 0.0


# -- focused: lifecycle and schedules ------------------------------------------------------------------------
def _mixed_rig() -> Rig:
    table = ((0.0, 0.0, 0.0), (10.0, 10.0, 0.0))
    rig = make_rig([binding(BUMPER, geom_ids=(1,)), binding(FORCE, force_adr=0, force_sign=1.0, table=table)],
                   ngeom=4, history=3)
    rig.data.history[:] = [-4.0, 0.0, 0.0]
    rig.bank.enable(0, 32, now_step=0)
    rig.bank.enable(1, 16, now_step=0)
    return rig


def test_reset_restores_nan_no_latch_and_disabled() -> None:
    """reset(): as after loading."""
    rig = _mixed_rig()
    rig.step((1, 0))
    rig.step()
    rig.step((1, 2))
    assert not np.isnan(rig.bank.values[:, 0]).any() and rig.bank.latched[0]
    rig.bank.reset()
    assert np.isnan(rig.bank.values).all()
    assert not rig.bank.latched.any() and not rig.bank.touching.any()
    assert rig.bank.period_ms.tolist() == [0, 0]
    for _ in range(3):
        assert np.isnan(rig.step((1, 0))).all()  # nothing samples any more (the contact only latches)
    assert rig.bank.latched[0]


def test_restart_keeps_periods_values_and_latches() -> None:
    """restart(): enabled sensors stay enabled and sample after step 1; a latched touch is kept (Webots keeps
    mIsTouching across simulationReset)."""
    rig = _mixed_rig()
    rig.step()
    values = rig.step()
    assert values[:, 0].tolist() == [0.0, 4.0]
    rig.step((1, 3))  # latched, not yet sampled (bumper period 2 steps)
    assert rig.bank.latched[0]
    rig.bank.restart()
    assert rig.bank.latched[0] and not rig.bank.touching.any()
    assert rig.bank.period_ms.tolist() == [32, 16]
    np.testing.assert_array_equal(rig.bank.values, values)  # still readable after the restart
    rig.clock.step = 0
    rig.data.history[0] = -7.0
    assert rig.step()[:, 0].tolist() == [1.0, 7.0]  # both sample after the first step; the kept latch shows
    rig.data.history[0] = -8.0
    assert rig.step()[:, 0].tolist() == [1.0, 8.0]  # the bumper is back to its 2-step period: no sample
    rig.data.history[0] = -9.0
    assert rig.step()[:, 0].tolist() == [0.0, 9.0]  # its sample at step 3: the latch was cleared at step 1


def test_a_contact_in_any_physics_step_of_the_basic_step_counts() -> None:
    """The contacts of every MuJoCo step are watched, not only the last one's."""
    rig = make_rig([binding(BUMPER, geom_ids=(1,))])
    rig.bank.enable(0, 16, 0)
    rig.contacts((1, 3))
    rig.bank.substep(rig.data)  # type: ignore[arg-type]
    rig.contacts()  # gone again in the last physics step
    rig.bank.substep(rig.data)  # type: ignore[arg-type]
    rig.clock.step += 1
    rig.bank.sample(rig.data, 1)  # type: ignore[arg-type]
    assert rig.bank.values[0, 0] == 1.0


def test_each_period_samples_on_its_own_steps() -> None:
    """Periods of 16, 32, 40 ms (basic 16 ms) and a late enable sample on their own steps."""
    # Identity tables: a force sensor reads -f1.x = the step number written into the history below.
    rig = make_rig([binding(FORCE, force_adr=0, force_sign=1.0) for _ in range(4)], history=3)
    rig.bank.enable(0, 16, now_step=0)  # every step: 1, 2, 3, ...
    rig.bank.enable(1, 32, now_step=0)  # every 2: 2, 4, 6
    rig.bank.enable(2, 40, now_step=0)  # ceil(40/16) = 3: 3, 6
    seen: list[list[float]] = []
    for step in range(1, 8):
        if step == 2:
            rig.bank.enable(3, 32, now_step=1)  # enabled after step 1: samples after 3, 5, 7
        rig.data.history[0] = -float(step)
        seen.append(rig.step()[:, 0].tolist())
    nan = NAN
    expected = [
        [1.0, nan, nan, nan],
        [2.0, 2.0, nan, nan],
        [3.0, 2.0, 3.0, 3.0],
        [4.0, 4.0, 3.0, 3.0],
        [5.0, 4.0, 3.0, 5.0],
        [6.0, 6.0, 6.0, 5.0],
        [7.0, 6.0, 6.0, 7.0],
    ]
    np.testing.assert_array_equal(np.array(seen), np.array(expected))
    assert rig.bank.period_ms.tolist() == [16, 32, 40, 32]


def test_disabling_keeps_the_last_value_and_stops_sampling() -> None:
    """enable(row, 0) stops the samples; the last value stays."""
    rig = make_rig([binding(FORCE, force_adr=0, force_sign=1.0)], history=3)
    rig.bank.enable(0, 16, now_step=0)
    rig.data.history[0] = -2.0
    assert rig.step()[0, 0] == 2.0
    rig.bank.enable(0, 0, now_step=rig.clock.step)
    rig.data.history[0] = -5.0
    assert rig.step()[0, 0] == 2.0 and rig.bank.period_ms[0] == 0


def test_core_device_reads_its_row_and_enables_at_the_current_step() -> None:
    """bank.core(row): name from node["name"], enable at context.now_step(), value/values of the row."""
    rig = make_rig([binding(BUMPER, name="left", geom_ids=(1,)),
                    binding(FORCE3D, name="foot", table=((0.0, 5.0, 0.0),))])
    left, foot = rig.bank.core(0), rig.bank.core(1)
    assert (left.name, foot.name, left.type, foot.type) == ("left", "foot", BUMPER, FORCE3D)
    rig.clock.step = 4
    foot.enable(32)
    assert foot.period_ms == 32 and left.period_ms == 0
    assert math.isnan(foot.value)
    rig.step()  # step 5: not due (4 + 2 = 6)
    assert math.isnan(foot.value)
    rig.step()
    assert foot.values == [5.0, 5.0, 5.0] and foot.lookup_table == ((0.0, 5.0, 0.0),)
    assert math.isnan(left.value)


def test_bank_keeps_its_phase_flag_whatever_the_substeps() -> None:
    """``samples`` is the flag the step loop reads to call the bank; the history length has its own name."""
    rig = make_rig([binding(FORCE, force_adr=0, samples=3)], history=9, substeps=3)
    assert rig.bank.samples is True and rig.bank.history_samples == 3
