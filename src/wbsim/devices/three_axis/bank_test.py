"""The shared three-axis sampling (lookup table per enabled axis, resolution, NaN axes, bodiless sensors) on
a fake measurement, against a scalar transcription of Webots' ``WbGyro::computeValue`` /
``WbAccelerometer::computeValue`` after the measurement."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbsim.devices.kind import BankContext
from wbsim.devices.lookup_table import lookup_reference
from wbsim.devices.three_axis.bank import MeasurePlan, ThreeAxisBank, ThreeAxisDevice, local_vectors
from wbsim.devices.three_axis.compile import ThreeAxisBinding

Table = tuple[tuple[float, float, float], ...]


@dataclass
class _Core(ThreeAxisDevice):
    kind: str = "fake"


class _FakeBank(ThreeAxisBank):
    """Measures whatever the test puts in ``raw`` (one row per bank row)."""

    no_body_value = math.nan
    no_body_warning = "no body here."
    core_class = _Core
    raw: np.ndarray

    def measure(self, data, plan: MeasurePlan, step: int) -> np.ndarray:
        return self.raw[plan.rows]


@dataclass
class _Rig:
    bank: _FakeBank
    warnings: list[str] = field(default_factory=list)
    step: int = 0
    refreshes: int = 0

    def sample(self, raw: np.ndarray) -> np.ndarray:
        self.bank.raw = np.asarray(raw, dtype=float)
        self.step += 1
        self.bank.sample(None, self.step)  # type: ignore[arg-type]
        return self.bank.values.copy()


def _rig(tables: list[Table], axes: list[tuple[bool, bool, bool]], resolutions: list[float],
         bodies: list[int] | None = None, seed: int = 1) -> _Rig:
    n = len(tables)
    bodies = bodies if bodies is not None else [1] * n
    bindings = tuple(ThreeAxisBinding(node={"name": f"s{i}"}, site_id=i, body_id=bodies[i],  # type: ignore[arg-type]
                                      root_id=1 if bodies[i] >= 0 else -1, lookup_table=tables[i], axes=axes[i],
                                      resolution=resolutions[i], gravity=(0.0, 0.0, -9.81)) for i in range(n))
    generator = np.random.Generator(np.random.PCG64(seed))
    rig_holder: list[_Rig] = []

    def refresh() -> None:
        rig_holder[0].refreshes += 1

    context = BankContext(model=None, basic_time_step_ms=16.0, substeps=1,  # type: ignore[arg-type]
                          rng=lambda: generator, warn=lambda text: rig.warnings.append(text),
                          now_step=lambda: rig.step, refresh_kinematics=refresh)
    rig = _Rig(_FakeBank(bindings, context))
    rig_holder.append(rig)
    return rig


def _reference(table: Table, axes: tuple[bool, bool, bool], resolution: float, raw: np.ndarray) -> list[float]:
    """Webots, per axis: NaN if disabled, else lookup then ``(int)(v / r + 0.5) * r`` if r != -1."""
    out = []
    for enabled, value in zip(axes, raw):
        if not enabled:
            out.append(math.nan)
            continue
        v = lookup_reference(table, float(value))
        if resolution != -1.0:
            v = math.trunc(v / resolution + 0.5) * resolution
        out.append(v)
    return out


_values = st.floats(-1e3, 1e3, allow_nan=False)
_table = st.lists(st.tuples(_values, _values), min_size=0, max_size=5).map(
    lambda rows: tuple((float(i), o, 0.0) for i, o in sorted({r[0]: r for r in rows}.values())))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_table, st.tuples(st.booleans(), st.booleans(), st.booleans()),
                          st.sampled_from([-1.0, 0.01, 0.5, 3.0]), st.tuples(_values, _values, _values)),
                min_size=1, max_size=6))
def test_vectorised_values_equal_webots_scalar_computation(sensors):
    tables, axes, resolutions, raw = zip(*sensors)
    rig = _rig(list(tables), list(axes), list(resolutions))
    for row in range(len(sensors)):
        rig.bank.enable(row, 16, 0)
    values = rig.sample(np.array(raw))
    expected = np.array([_reference(t, a, r, np.array(v)) for t, a, r, v in sensors])
    np.testing.assert_array_equal(values, expected)


def test_sensors_without_body_read_the_kind_value_and_warn_once_without_noise_draws():
    table = ((-10.0, -10.0, 0.5), (10.0, 10.0, 0.5))
    rig = _rig([table, table], [(True, True, True)] * 2, [-1.0, -1.0], bodies=[-1, 3])
    rig.bank.enable(0, 16, 0)
    first = rig.sample(np.zeros((2, 3)))
    assert np.isnan(first[0]).all() and np.isnan(first[1]).all()  # row 1 not enabled yet
    rig.bank.enable(1, 16, rig.step)
    rig.sample(np.full((2, 3), 2.0))
    assert rig.warnings == ["s0: no body here."]
    # The draws only go to the sensor with a body: 3 per sample, in axis order.
    replay = np.random.Generator(np.random.PCG64(1)).standard_normal(3)
    np.testing.assert_allclose(rig.bank.values[1], 2.0 * (1.0 + 0.5 * replay), rtol=1e-15)
    assert rig.refreshes == 2


def test_no_refresh_when_nothing_is_due_and_nan_before_the_first_sample():
    rig = _rig([()], [(True, True, True)], [-1.0])
    rig.bank.enable(0, 48, 0)  # 3 basic steps
    for _ in range(2):
        assert np.isnan(rig.sample(np.ones((1, 3)))).all()
    assert rig.refreshes == 0
    assert rig.sample(np.ones((1, 3))).tolist() == [[1.0, 1.0, 1.0]]
    assert rig.refreshes == 1


def test_field_writes_apply_from_the_next_sample_and_resets_restore_them():
    rig = _rig([()], [(True, True, True)], [-1.0])
    bank, core = rig.bank, rig.bank.core(0)
    bank.enable(0, 16, 0)
    rig.sample([[1.26, 2.0, 3.0]])
    assert bank.field_changed(0, "xAxis", False) is False
    assert bank.field_changed(0, "resolution", 0.5) == 0.5
    assert bank.field_changed(0, "lookupTable", [[0, 0, 0], [10, 100, 0]]) == ((0.0, 0.0, 0.0), (10.0, 100.0, 0.0))
    assert bank.field_changed(0, "name", "x") is None
    assert np.isnan(rig.sample([[1.26, 2.0, 3.0]])[0, 0])
    assert bank.values[0, 1:].tolist() == [20.0, 30.0]
    assert bank.field_changed(0, "resolution", -2.0) == -1.0
    assert rig.warnings == ["s0: Invalid 'resolution' changed to -1. The value should be either -1 or positive."]
    assert (core.axes, core.resolution, core.lookup_table) == ((False, True, True), -1.0,
                                                                ((0.0, 0.0, 0.0), (10.0, 100.0, 0.0)))
    bank.restart()  # a world reset restores the fields, keeps the sensor enabled and its last values
    assert core.axes == (True, True, True) and core.lookup_table == () and core.period_ms == 16
    assert core.values[1:] == [20.0, 30.0]
    assert rig.sample([[1.26, 2.0, 3.0]]).tolist() == [[1.26, 2.0, 3.0]]
    bank.reset()  # as loaded: disabled, NaN
    assert core.period_ms == 0 and all(math.isnan(v) for v in core.values)


def test_local_vectors_express_world_vectors_in_each_frame():
    c, s = math.cos(0.3), math.sin(0.3)
    frames = np.array([np.eye(3), [[c, -s, 0], [s, c, 0], [0, 0, 1]]])
    world = np.array([[1.0, 2.0, 3.0], [1.0, 0.0, 0.0]])
    local = local_vectors(frames.reshape(2, 9), world)
    assert local[0].tolist() == [1.0, 2.0, 3.0]
    assert local[1] == pytest.approx([c, -s, 0.0])
