"""The benchmark scripts still run: their worlds load and their measured blocks execute (tiny sizes).

The figures themselves are measured by running the scripts (see the README), not in the test suite.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bounce_bench  # noqa: E402
import connector_bench  # noqa: E402
import distance_sensor_bench  # noqa: E402
import lidar_bench  # noqa: E402
import paired  # noqa: E402
import plugin_bench  # noqa: E402
import recording_bench  # noqa: E402
import sim_bench  # noqa: E402
import touch_sensor_bench  # noqa: E402
import transmission_bench  # noqa: E402


def test_paired_ratios_alternate_and_report_b_over_a():
    calls: list[str] = []
    result = paired.paired_ratios(lambda: calls.append("a"), lambda: calls.append("b"), 4)
    assert calls == ["a", "b", "b", "a", "a", "b", "b", "a"]
    assert len(result.ratios) == 4 and all(r > 0 for r in result.ratios)
    assert result.percentile(0) <= result.median <= result.percentile(100)
    assert "B/A = " in result.describe()


def test_sim_bench_worlds_and_blocks_run(tmp_path):
    path = sim_bench.make_project(tmp_path, 2)
    text = path.read_text()
    assert "TouchSensor {" not in text and "WALL" not in text  # motors and encoders only, open floor
    sim, wbsim_run = sim_bench.wbsim_block(path, 3)
    # Warmed up to a long run's steady state: the compiled bounce edit (numpy for good without numba).
    assert (sim._bounce._raw is not None) == (importlib.util.find_spec("numba") is not None)
    baseline_run = sim_bench.baseline_block(path, 3)
    before = sim.time_s
    wbsim_run()
    baseline_run()
    assert sim.time_s == pytest.approx(before + 3 * sim.basic_time_step_ms / 1000)
    sim.close()
    stepped, stepped_run = sim_bench.wbsim_block(path, 3, step_loop=True)
    before = stepped.step_count
    stepped_run()
    assert stepped.step_count == before + 3
    stepped.close()
    assert sim._bounce is not None  # the demo's default surfaces bounce: the edit runs normally
    off, off_run = sim_bench.wbsim_block(path, 3, bounce_emulation=False)
    off_run()
    assert off._bounce is None and off.step_count > 3
    off.close()


def test_sim_bench_greenlet_floor_does_the_controllers_work(tmp_path):
    # The bare greenlet layer of --floor runs one greenlet per robot doing the benchmark controller's work: its
    # MuJoCo state advances as the hand-written loop's does, bit for bit (same reads, same writes, same order).
    path = sim_bench.make_project(tmp_path, 2)
    floor_run = sim_bench.greenlet_floor_block(path, 5)
    baseline_run = sim_bench.baseline_block(path, 5)
    floor_run()
    baseline_run()
    floor_data = floor_run.data
    assert floor_data.time == pytest.approx(baseline_run.data.time) and floor_data.time > 0
    assert np.array_equal(floor_data.qpos, baseline_run.data.qpos)
    assert np.array_equal(floor_data.qvel, baseline_run.data.qvel)


def test_sim_bench_loop_without_timers_steps_the_same_physics(tmp_path):
    # The "loop, no timers" row: the same hand-written loop, bit for bit, with MuJoCo's stage timers paused
    # during its block only (none recorded there; the binding's clock callback back after it).
    import ctypes

    from wbsim.sim.c_steps import binding_library

    path = sim_bench.make_project(tmp_path, 2)
    timed, untimed = sim_bench.baseline_block(path, 5), sim_bench.baseline_block(path, 5, timers=False)
    library = binding_library()
    clock = ctypes.c_void_p.in_dll(library, "mjcb_time").value if library is not None else None
    step_timer = int(sim_bench.mujoco.mjtTimer.mjTIMER_STEP)
    timed_before = timed.data.timer[step_timer].duration
    untimed_before = untimed.data.timer[step_timer].duration  # its set-up's own steps were timed
    timed()
    untimed()
    assert np.array_equal(timed.data.qpos, untimed.data.qpos) and untimed.data.time > 0
    assert np.array_equal(timed.data.qvel, untimed.data.qvel)
    assert timed.data.timer[step_timer].duration > timed_before
    if library is not None:
        assert untimed.data.timer[step_timer].duration == untimed_before
        assert ctypes.c_void_p.in_dll(library, "mjcb_time").value == clock


def test_touch_sensor_bench_worlds_have_four_sensors_per_rover_or_none(tmp_path):
    on = touch_sensor_bench.load_warm(touch_sensor_bench.make_project(tmp_path / "on", 2, plain=False, sensors="on"))
    plain = touch_sensor_bench.load_warm(touch_sensor_bench.make_project(tmp_path / "plain", 2, plain=True, sensors="off"))
    touch = on.banks["touch_sensor"]
    assert touch.n == 8 and (touch.period_ms > 0).all()
    assert sorted(touch.type.tolist()) == [0, 0, 0, 0, 1, 1, 2, 2]
    assert plain.banks["touch_sensor"].n == 0
    assert plain.model.nbody == on.model.nbody and plain.model.ngeom == on.model.ngeom  # same bodies
    on.close()
    plain.close()


def test_connector_bench_worlds_differ_only_by_their_connectors(tmp_path):
    for name, make in connector_bench.SCENARIOS.items():
        with_connectors = connector_bench.load(connector_bench.write_world(tmp_path, f"{name}_on", make(8, True)), True)
        without = connector_bench.load(connector_bench.write_world(tmp_path, f"{name}_off", make(8, False)), False)
        bank = with_connectors.banks["connector"]
        assert bank.n == 32 and (bank.period_ms == 16).all()
        assert without.banks["connector"].n == 0
        assert with_connectors.model.nbody == without.model.nbody  # connectors are frames, not bodies
        with_connectors.step()
        without.step()
        with_connectors.close()
        without.close()
    raft = connector_bench.load(connector_bench.write_world(tmp_path, "raft", connector_bench.raft_world(4, True)), True)
    assert (raft.banks["connector"].presence == 1).sum() == 8  # the inner faces of a 2 x 2 raft see each other
    raft.close()


def test_plugin_bench_worlds_push_every_rover_and_offer_pile_pairs(tmp_path):
    with_plugin = plugin_bench.load(plugin_bench.force_project(tmp_path / "a", 2, True), 0.05)
    without = plugin_bench.load(plugin_bench.force_project(tmp_path / "b", 2, False), 0.05)
    assert without.plugin is None
    assert len(with_plugin.plugin.file.namespace["bodies"]) == 2 and with_plugin.plugin.enabled
    pile = plugin_bench.load(plugin_bench.pile_project(tmp_path / "c", 10, True), 0.2)
    plain = plugin_bench.load(plugin_bench.pile_project(tmp_path / "d", 10, False), 0.2)
    assert pile.plugin.file.namespace["pairs"] > 0
    assert "webots_physics_collide" not in plain.plugin.file.callbacks
    for sim in (with_plugin, without, pile, plain):
        sim.close()


def test_distance_sensor_bench_worlds_have_eight_sensors_per_rover_enabled_or_not(tmp_path):
    on = distance_sensor_bench.load_warm(distance_sensor_bench.make_project(tmp_path / "on", 2, "on", reach=1.0))
    off = distance_sensor_bench.load_warm(distance_sensor_bench.make_project(tmp_path / "off", 2, "off", "infra-red", 0.25))
    bank = on.banks["distance_sensor"]
    assert bank.n == 16 and (bank.period_ms > 0).all() and (bank.ray_count == 3).all()
    assert (bank.type == 0).all() and (off.banks["distance_sensor"].type == 1).all()
    assert (off.banks["distance_sensor"].period_ms == 0).all()
    assert on.model.nbody == off.model.nbody  # the sensors are frames, not bodies
    assert (bank.values > 0).sum() >= 12  # the floor or the other rover, within 1 m
    on.step()
    off.step()
    on.close()
    off.close()


def test_distance_sensor_bench_imu_worlds_enable_the_imu_set_and_gps(tmp_path):
    on = distance_sensor_bench.load_warm(distance_sensor_bench.make_project(tmp_path / "on", 2, "on", imu=True))
    off = distance_sensor_bench.load_warm(distance_sensor_bench.make_project(tmp_path / "off", 2, "off", imu=True))
    for kind in distance_sensor_bench.IMU_KINDS:
        assert on.banks[kind].n == 2 and (on.banks[kind].period_ms > 0).all(), kind
        assert (off.banks[kind].period_ms == 0).all(), kind
    on.step()
    off.step()
    assert np.isfinite(on.banks["gps"].values).all() and np.isnan(off.banks["gps"].values).all()
    on.close()
    off.close()


def test_distance_sensor_bench_no_read_worlds_sample_sensors_their_controllers_never_read(tmp_path):
    # --no-read: the same sensing (enabled, sampled every step), but the controllers make no reading call; the
    # controller's read lines are what differ (a patched getValue counts the calls).
    from wbsim.devices.distance_sensor.api import DistanceSensor

    calls = []
    original = DistanceSensor.getValue
    for read in (False, True):
        sim = distance_sensor_bench.load_warm(
            distance_sensor_bench.make_project(tmp_path / str(read), 2, "on", imu=True, read=read))
        DistanceSensor.getValue = lambda self: calls.append(self) or original(self)
        try:
            for _ in range(3):
                sim.step()
        finally:
            DistanceSensor.getValue = original
        assert (sim.banks["distance_sensor"].period_ms > 0).all()
        assert np.isfinite(sim.banks["distance_sensor"].values).all() and np.isfinite(sim.banks["gps"].values).all()
        assert len(calls) == (3 * 2 * 8 if read else 0)
        calls.clear()
        sim.close()


def _sensor_run(path, general: bool, steps: int) -> tuple[list[bytes], object]:
    """Run the ``--imu`` benchmark world ``steps`` steps; each step's qpos and every sensor value (arrays and
    the lists the API returns) as bytes. ``general``: without the sampling shortcuts (prepared kernel calls
    dropped before every sample, distances combined with numpy)."""
    from wbsim.devices.motion_batch_test import motion_arrays
    from wbsim.sim.phases import Phase

    sim = distance_sensor_bench.load_warm(path, seconds=0.0)
    banks = sim.banks

    def forget_prepared_calls(sim) -> None:  # as if every sample were a group's first one
        for kind in ("accelerometer", "gyro", "compass"):
            for group in banks[kind].schedule.groups:
                if group.cache is not None:
                    group.cache.call = None
        banks["inertial_unit"]._call = banks["gps"]._call = None

    if general:
        sim.add_hook(Phase.PHYSICS, forget_prepared_calls)
    records = []
    for _ in range(steps):
        sim.step()
        arrays = [sim.data.qpos, banks["distance_sensor"].values, banks["distance_sensor"].distance,
                  np.array(banks["distance_sensor"].value_list)] + motion_arrays(banks)
        unit, gps = banks["inertial_unit"], banks["gps"]
        robot = sim.robots[0].created_robot  # what a controller reads (lists refreshed at or after samples)
        if robot is not None:
            unit_api, gps_api = robot.getDevice("inertial unit"), robot.getDevice("gps")
            arrays += [np.array(unit_api.getQuaternion()), np.array(unit_api.getRollPitchYaw()),
                       np.array(gps_api.getSpeedVector()), np.array(gps_api.getValues())]
            row = unit_api._row
            if not np.isnan(unit.quaternion[row]).any():
                assert unit_api.getQuaternion() == unit.quaternion[row].tolist()
                assert gps_api.getSpeedVector() == gps.speed_vector[gps_api._row].tolist()
        records.append(b"".join(np.ascontiguousarray(a, dtype=float).tobytes() for a in arrays))
    return records, sim


def test_distance_sensor_bench_imu_shortcuts_give_bit_identical_runs(tmp_path, monkeypatch):
    # The compiled sampling shortcuts (prepared kernel calls, compiled ray combination and lookups with the
    # cast, lists converted on read) change no bit of the run: the same qpos and sensor values at every step
    # as the general compiled paths.
    pytest.importorskip("numba")
    from wbsim.devices.distance_sensor import bank as distance_bank

    path = distance_sensor_bench.make_project(tmp_path, 4, "on", imu=True)
    fast, fast_sim = _sensor_run(path, general=False, steps=60)
    cast = next(iter(fast_sim.banks["distance_sensor"].schedule.groups)).cache.ode
    assert cast.combined is not None and fast_sim.banks["gps"]._call is not None  # the shortcuts were taken
    assert fast_sim.banks["inertial_unit"]._call is not None
    assert all(g.cache.call is not None for g in fast_sim.banks["gyro"].schedule.groups)
    fast_sim.close()
    monkeypatch.setattr(distance_bank, "COMBINED_RAYS", 0)  # every sensor combined by numpy
    general, general_sim = _sensor_run(path, general=True, steps=60)
    assert next(iter(general_sim.banks["distance_sensor"].schedule.groups)).cache.ode.combined is None
    general_sim.close()
    assert len(fast) == len(general) == 60
    for step, (a, b) in enumerate(zip(fast, general)):
        assert a == b, f"step {step + 1} differs"
    # The rovers saw each other and moved: the comparison covered hits and motion.
    assert fast[0] != fast[-1]


def test_lidar_bench_world_has_a_360_by_4_lidar_and_its_blocks_run(tmp_path):
    path = lidar_bench.make_project(tmp_path)
    on_sim, on = lidar_bench.block(path, True, 2)
    off_sim, off = lidar_bench.block(path, False, 2)
    on()
    off()
    on_bank, off_bank = on_sim.banks["lidar"], off_sim.banks["lidar"]
    assert on_bank.images[0].shape == (1440,) and (on_bank.period_ms > 0).all() and (off_bank.period_ms == 0).all()
    assert np.isfinite(on_bank.images[0]).mean() > 0.9  # the floor, the obstacles, the walls (upper rays pass over
    # the corners)
    assert (off_bank.images[0] == 0).all()
    on_sim.close()
    off_sim.close()


def test_recording_bench_world_records_every_rover_and_its_led(tmp_path):
    sim = recording_bench.load_warm(recording_bench.make_project(tmp_path, 2), 0.1)
    recorder = sim.start_recording(tmp_path / "r.npz")
    for _ in range(4):
        sim.step()
    assert recorder.frames == 3  # the start, the first step, then every 2 steps (60 FPS, 16 ms): steps 1 and 3
    sim.close()
    from wbsim import recording

    rec = recording.load(tmp_path / "r.npz")
    assert len(rec.devices["led"].paths) == 2 and rec.devices["led"].values["value"][-1].tolist() == [1, 1]



@pytest.mark.parametrize(("mechanism", "joints"), [("four-bar", 4), ("differential", 4)])
def test_transmission_bench_worlds_move_alike_with_and_without_the_transmission_layer(tmp_path, mechanism, joints):
    make = transmission_bench.make_project
    direct_sim, direct = transmission_bench.sim_block(make(tmp_path / "d", 2, False, mechanism), 5)
    attached_sim, attached = transmission_bench.sim_block(make(tmp_path / "a", 2, True, mechanism), 5)
    direct()
    attached()
    assert attached_sim._transmission_pool.n_joints == joints  # both robots attached
    np.testing.assert_array_equal(attached_sim.data.qpos, direct_sim.data.qpos)  # the same commands
    assert np.abs(direct_sim.data.qpos).max() > 0.01  # and they move
    direct_sim.close()
    attached_sim.close()


def test_bounce_bench_worlds_run_with_the_threshold_compiled_numpy_or_off(tmp_path):
    pytest.importorskip("numba")  # the compiled loop (the numpy path runs without it)
    path = bounce_bench.boxes_world(tmp_path, 4)
    sims = {mode: bounce_bench.load(path, mode) for mode in ("off", "numpy", "compiled")}
    assert sims["off"]._bounce is None
    assert sims["numpy"]._bounce._kernel is None and sims["compiled"]._bounce._kernel is not None
    assert sims["compiled"].data.ncon == 16  # four boxes resting on their four corners
    assert "16 contacts; per MuJoCo step: edit" in bounce_bench.edit_times(sims["compiled"])
    assert bounce_bench.iterations(sims["off"], 2) >= 0
    for sim in sims.values():
        sim.close()


_TABLE = "lookupTable [ 0 1000 0, 1 0 0 ]"  # the benchmark sensors' table
# Sensor type, the table of every sensor and that of the first rover's first sensor (None: the benchmark's).
_SENSOR_VARIANTS = {
    "generic": ("generic", None, None),
    "laser": ("laser", None, None),
    "sonar": ("sonar", None, None),
    "infra-red": ("infra-red", None, None),
    "tables": ("generic", "resolution 7 lookupTable [ 0 1000 0, 0.6 300 0, 1 0 0 ]", "lookupTable [ ]"),
    "noisy": ("generic", "lookupTable [ 0 1000 0.05, 1 0 0 ]", None),
}


def _distance_run(path, compiled: bool, steps: int) -> tuple[list[bytes], object]:
    """Each step's qpos and distance-sensor arrays and list (bytes) of the benchmark world at ``path``."""
    sim = distance_sensor_bench.load_warm(path, seconds=0.0)
    bank = sim.banks["distance_sensor"]
    bank.caster.compiled = compiled
    records = []
    for _ in range(steps):
        sim.step()
        arrays = (sim.data.qpos, bank.values, bank.distance, np.array(bank.value_list))
        records.append(b"".join(np.ascontiguousarray(a, dtype=float).tobytes() for a in arrays))
    return records, sim


@pytest.mark.parametrize("variant", list(_SENSOR_VARIANTS))
def test_distance_sensor_bench_runs_as_the_numpy_path_bit_for_bit(tmp_path, variant):
    # The benchmark world with sensors of each type, several tables (a resolution, an empty one) and noise:
    # the compiled path (its usual step: distances and lookups computed with the cast, published by the
    # sample) gives the numpy path's qpos, distances and values to the last bit at every step.
    pytest.importorskip("numba")
    kind, table, first = _SENSOR_VARIANTS[variant]
    path = distance_sensor_bench.make_project(tmp_path, 4, "on", kind)
    if table is not None:
        world = next(path.rglob("*.wbt")) if path.is_dir() else path
        text = world.read_text().replace(_TABLE, table)
        world.write_text(text.replace(table, first, 1) if first is not None else text)
    compiled, compiled_sim = _distance_run(path, True, 80)
    bank = compiled_sim.banks["distance_sensor"]
    plan = next(iter(bank.schedule.groups)).cache
    # The one-call step is taken where it applies: generic and laser sensors without noise.
    assert bool(plan.pending_arguments) == (variant in ("generic", "laser", "tables"))
    values = np.array(bank.values)
    compiled_sim.close()
    reference, reference_sim = _distance_run(path, False, 80)
    reference_sim.close()
    for step, (a, b) in enumerate(zip(compiled, reference)):
        assert a == b, f"step {step + 1} differs"
    assert compiled[0] != compiled[-1]  # motion
    # Sensors reading differently (the sonars hear no echo within PI_OVER_8 in this world: all read 0).
    assert (values != values[0]).any() or variant == "sonar"


def test_sim_bench_warm_up_ends_when_the_compiled_bounce_edit_never_comes(tmp_path, monkeypatch):
    """wbsim_block warms up until the bounce threshold edits with its compiled loop, which never happens without
    numba (or when MuJoCo's struct layout does not check out): the warm-up then stops once the load was tried
    instead of looping for ever."""
    from wbsim.sim import bounce
    from wbsim.sim.bounce import BounceThreshold
    from wbsim.sim.simulation import Simulation

    def without_numba(self: BounceThreshold) -> bool:  # what _load_kernel does when numba is not installed
        self._numpy_left = -1.0
        return False

    monkeypatch.setattr(BounceThreshold, "_load_kernel", without_numba)
    monkeypatch.setattr(bounce, "_numba_imported", lambda: True)  # the load is tried at the first edit
    real_run, runs = Simulation.run, []

    def counted(self, *args, **kwargs):
        runs.append(args)
        if len(runs) > 200:
            raise AssertionError("the warm-up does not end")
        return real_run(self, *args, **kwargs)

    monkeypatch.setattr(Simulation, "run", counted)
    path = sim_bench.make_project(tmp_path, 1)
    sim, run = sim_bench.wbsim_block(path, 3)
    assert sim._bounce is not None and sim._bounce._raw is None
    before = sim.step_count
    run()
    assert sim.step_count == before + 3
    sim.close()


def test_cold_start_times_a_block_after_its_own_and_after_the_foreign_one_in_flipping_order(monkeypatch):
    # Each pair: one block of the side right after one of its own, one right after the foreign block; the ratio is
    # after-foreign / after-own. On a fake clock, a side taking 3 units right after the foreign block and 1 after
    # its own reads 3.0 in every pair; the order flips every pair, so neither timing always comes first.
    calls: list[str] = []
    clock = [0.0]
    state = {"after_foreign": False}
    monkeypatch.setattr(sim_bench.time, "perf_counter", lambda: clock[0])

    def side() -> None:
        calls.append("side")
        clock[0] += 3.0 if state["after_foreign"] else 1.0
        state["after_foreign"] = False

    def foreign() -> None:
        calls.append("foreign")
        clock[0] += 100.0
        state["after_foreign"] = True

    result = sim_bench.cold_start(side, foreign, 4)
    assert calls == ["side", "side", "foreign", "side"] + ["foreign", "side", "side"] + \
        ["side", "side", "foreign", "side"] + ["foreign", "side", "side"]
    assert result.ratios == (3.0, 3.0, 3.0, 3.0)
    assert result.seconds_a == (1.0,) * 4 and result.seconds_b == (3.0,) * 4


def test_sim_bench_blocks_are_about_20_ms_by_default_and_scale_with_block_ms():
    assert [sim_bench.block_steps(n) for n in (1, 20, 100)] == [300, 28, 5]
    assert [sim_bench.block_steps(n, 400.0) for n in (1, 20, 100)] == [6000, 571, 118]
    assert sim_bench.block_steps(1000) == 3  # never fewer than 3
