"""The motion kinds' fused call against each kind's own compiled path and the numpy reference: bit for bit (and the
generator's state) on a tumbling robot whose sensors change mid-run (periods per kind, a group absorbed by another,
noise, resolution and disabled axes written by a supervisor, disable and re-enable, a world reset)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from wbsim.devices.compiled import motion_kernels  # imports numba at its call only (bounce.py asks whether it is)
from wbsim.devices.motion_batch import MotionBatch
from wbsim.sim.phases import Phase

KINDS = ("accelerometer", "gyro", "inertial_unit", "compass", "gps")

WORLD = """
WorldInfo { basicTimeStep 8 }
Solid { boundingObject Plane { size 10 10 } }
Robot {
  translation 0 0 0.6
  rotation 1 2 3 0.8
  name "r"
  controller "<extern>"
  supervisor TRUE
  linearVelocity 0.4 -0.3 0.5
  angularVelocity 3 -2 5
  children [
    Accelerometer { translation 0.02 0.01 0 rotation 1 1 1 0.3 }
    Accelerometer { name "acc2" translation -0.05 0.02 0.01 }
    Gyro { rotation 0 1 1 2.1 }
    InertialUnit { rotation 1 0 0 0.4 }
    Compass { rotation 0 1 0 0.3 }
    GPS { translation 0.03 0 0 }
  ]
  boundingObject Box { size 0.2 0.1 0.05 }
  physics Physics { }
}
Robot {
  translation 1 1 0.2
  name "fixed"
  controller "<extern>"
  children [ InertialUnit { name "imu2" } Compass { name "compass2" } GPS { name "gps2" } ]
}
"""


def motion_arrays(banks) -> list[np.ndarray]:
    """What the motion kinds' banks sampled: each kind's values and the lists its API reads (as arrays), the
    InertialUnit's quaternions and angles and the GPS's speeds (also used by ``tests/test_benchmarks.py``)."""
    arrays = []
    for kind in ("accelerometer", "gyro", "compass", "gps"):
        arrays += [banks[kind].values, np.array(banks[kind].value_list)]
    unit, gps = banks["inertial_unit"], banks["gps"]
    arrays += [unit.quaternion, unit.roll_pitch_yaw, np.array(unit.fresh_quaternions()),
               np.array(unit.roll_pitch_yaw_list), gps.speed, gps.speed_vector, np.array(gps.speed_list),
               np.array(gps.fresh_speed_vectors())]
    return arrays


def _record(sim) -> bytes:
    banks = sim.banks
    arrays = [sim.data.qpos, banks["accelerometer"].velocity, banks["accelerometer"].last_step]
    return b"".join(np.ascontiguousarray(a, dtype=float).tobytes() for a in arrays + motion_arrays(banks))


def _own_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every kind samples on its own path (no fused call, so never a steady one either)."""
    monkeypatch.setattr(MotionBatch, "run", lambda batch, part, step: False)


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the fused calls: [all, steady ones] (checked ones: all - steady)."""
    fused = [0, 0]
    run, steady = MotionBatch.run, MotionBatch.steady

    def counting(batch, part, step):
        done = run(batch, part, step)
        fused[0] += done
        return done

    def counting_steady(batch, part, step, data):
        done = steady(batch, part, step, data)
        fused[0] += done
        fused[1] += done
        return done

    monkeypatch.setattr(MotionBatch, "run", counting)
    monkeypatch.setattr(MotionBatch, "steady", counting_steady)
    return fused


def _run(sim, mode: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list[bytes], list[int]]:
    """140 steps of the scenario; each step's record and the fused calls ([all, steady ones])."""
    if mode == "fused":
        fused = _counted(monkeypatch)
    else:
        fused = [0, 0]
        _own_paths(monkeypatch)
    for kind in KINDS:
        sim.banks[kind].compiled = mode != "numpy"
    robot, fixed = sim.robot("r"), sim.robot("fixed")
    acc, gyro, unit, compass, gps = (robot.getDevice(n) for n in ("accelerometer", "gyro", "inertial unit",
                                                                    "compass", "gps"))
    for device, period in ((acc, 8), (gyro, 8), (unit, 8), (compass, 16), (gps, 24)):  # other periods per kind
        device.enable(period)
    for name, period in (("imu2", 8), ("compass2", 16), ("gps2", 24)):  # one group per kind
        fixed.getDevice(name).enable(period)
    absorbing = [robot.getDevice("acc2")]

    def enable_in_the_sample_phase(sim) -> None:  # acc2's group takes acc's next key: acc's group is absorbed
        if absorbing and sim.step_count == 20:
            absorbing.pop().enable(8)

    sim.add_hook(Phase.PHYSICS, enable_in_the_sample_phase)
    records = []
    for step in range(1, 141):
        if step == 30:  # noise, a resolution and a disabled axis: those kinds sample on their own
            robot.getFromDevice(unit).getField("noise").setSFFloat(0.01)
            robot.getFromDevice(gyro).getField("zAxis").setSFBool(False)
            robot.getFromDevice(acc).getField("resolution").setSFFloat(0.01)
        if step == 45:
            robot.getFromDevice(gps).getField("accuracy").setSFFloat(0.1)
        if step == 55:  # back to the plain paths
            robot.getFromDevice(unit).getField("noise").setSFFloat(0.0)
            robot.getFromDevice(gyro).getField("zAxis").setSFBool(True)
            robot.getFromDevice(acc).getField("resolution").setSFFloat(-1.0)
        if step == 65:  # disabled, then enabled again on another schedule
            compass.enable(0)
            acc.enable(0)
        if step == 70:
            compass.enable(8)
            acc.enable(16)
        if step == 90:
            robot.simulationReset()
        robot.step(8)
        records.append(_record(sim))
    return records, fused


@pytest.mark.parametrize("packed", [True, False], ids=["packed", "arrays"])
def test_fused_call_gives_each_kinds_own_values_bit_for_bit(project, load, monkeypatch, packed):
    path = project(WORLD)
    runs = {}
    loops = set()
    for mode in ("fused", "own", "numpy"):
        if not packed:  # arrays that do not pack (wbsim.devices.packed): no fused call, each kind on its own
            monkeypatch.setattr("wbsim.devices.motion_batch.pack", lambda arguments, codes: None)
        sim = load(path)
        runs[mode] = (*_run(sim, mode, monkeypatch), sim._rng.bit_generator.state)
        batch = sim.banks["gyro"].context.shared.get("motion_batch")
        loops |= {call[0] for call in batch._calls.values() if call is not None} if batch is not None else set()
        monkeypatch.undo()
    (fused, calls, fused_rng), (own, _, own_rng), (reference, _, numpy_rng) = runs.values()
    # The fused call ran in most steps (not while the IMU and the GPS were noisy, nor at the first sample of a
    # group), some of them steady (the same kinds due as in the last fused call: the kinds' periods differ
    # here), and the runs differ in no bit; the noisy kinds drew the same numbers.
    if packed:
        assert calls[0] > 60 and 5 <= calls[1] < calls[0] - 40
        assert loops == {motion_kernels().fused_values}
    else:
        assert calls == [0, 0] and loops == set()
    assert len(fused) == len(own) == 140
    for step, (a, c) in enumerate(zip(fused, own)):
        assert a == c, f"step {step + 1} differs"
    assert fused_rng == own_rng == numpy_rng
    assert fused[10] != fused[20]  # the robot moved
    # The numpy reference: the same values to the last bits (roll, pitch and yaw: libm's atan2/asin).
    for step, (a, b) in enumerate(zip(fused, reference)):
        np.testing.assert_allclose(np.frombuffer(a), np.frombuffer(b), rtol=1e-12, atol=1e-12, equal_nan=True,
                                   err_msg=f"step {step + 1}")


def test_a_kind_joins_only_with_its_plain_path_and_one_group(project, load):
    sim = load(project(WORLD))
    robot = sim.robot("r")
    for name in ("accelerometer", "gyro", "inertial unit", "compass", "gps"):
        robot.getDevice(name).enable(8)
    sim.robot("fixed").getDevice("gps2").enable(16)  # the GPS devices: two groups
    robot.getFromDevice(robot.getDevice("compass")).getField("resolution").setSFFloat(0.1)  # not plain
    for _ in range(3):
        robot.step(8)
    batch = sim.banks["gyro"].context.shared["motion_batch"]
    assert sorted(batch.parts) == ["accelerometer", "gyro", "inertial_unit"]
    assert list(batch._calls) == [("inertial_unit", "accelerometer", "gyro")]  # one call prepared, reused
    assert batch._calls[("inertial_unit", "accelerometer", "gyro")] is not None  # packed (placeholders too)


# -- the batch across world replacements, resets, run-time imports and two simulations in one process ----------------

# The same robots after three free boxes: other MuJoCo ids, array sizes and addresses than WORLD's.
OTHER_WORLD = WORLD.replace("Robot {\n  translation 0 0 0.6", "".join(
    f"DEF B{i} Solid {{ translation {i} 3 0.3 name \"box{i}\" boundingObject Box {{ size 0.1 0.1 0.1 }} "
    f"physics Physics {{ }} }}\n" for i in range(3)) + "Robot {\n  translation 0 0 0.6", 1)

IMPORTED = ('Robot { translation 0 -1 0.4 rotation 0 1 0 0.5 name "new" controller "<extern>" '
            'angularVelocity 1 2 0 children [ Accelerometer { } Gyro { } InertialUnit { } Compass { } GPS { } ] '
            'boundingObject Sphere { radius 0.05 } physics Physics { } }')


def _enable_all(sim, periods=(8, 8, 8, 16, 24)) -> None:
    robot = sim.robot("r")
    for name, period in zip(("accelerometer", "gyro", "inertial unit", "compass", "gps"), periods):
        robot.getDevice(name).enable(period)
    for name, period in (("imu2", 8), ("compass2", 16), ("gps2", 24)):
        sim.robot("fixed").getDevice(name).enable(period)


def _steps(sim, count: int, reset_at: int | None = None) -> list[bytes]:
    records = []
    for step in range(1, count + 1):
        if step == reset_at:
            sim.robot("r").simulationReset()
        sim.robot("r").step(8)
        records.append(_record(sim))
    return records


def test_world_load_and_resets_give_a_fresh_simulations_values(project, load, monkeypatch):
    """The fused call prepared in one world is never used with another world's arrays: after worldLoad, a world
    reset and a full reset, every value is the one of a fresh simulation of that world (bit for bit)."""
    path = project(WORLD)
    other = project(OTHER_WORLD, world_name="other.wbt")
    fused = _counted(monkeypatch)
    sim = load(path)
    _enable_all(sim)
    _steps(sim, 30)
    sim.robot("r").worldLoad(str(other))
    sim.step()  # the world is replaced at the end of this step
    assert sim.node("B0") is not None
    _enable_all(sim, (8, 16, 8, 8, 8))
    loaded = _steps(sim, 40, reset_at=20)
    sim.reset()
    _enable_all(sim, (8, 16, 8, 8, 8))
    again = _steps(sim, 40, reset_at=20)
    ran = fused[0]
    assert ran > 50
    monkeypatch.undo()
    _own_paths(monkeypatch)
    fresh = load(other)
    _enable_all(fresh, (8, 16, 8, 8, 8))
    own = _steps(fresh, 40, reset_at=20)
    assert own[5] != own[30]
    for step, (a, b, c) in enumerate(zip(loaded, again, own)):
        assert a == b == c, f"step {step + 1} differs"


def test_run_time_import_and_two_simulations_match_each_kinds_own_path(project, load, monkeypatch):
    """Two simulations stepped in turn (each with its own batch) and a robot with the five kinds imported at run
    time (the banks rebuilt, the state carried over): the values of each kind's own path, bit for bit."""
    path = project(WORLD)

    def scenario(sims) -> list[list[bytes]]:
        records: list[list[bytes]] = [[] for _ in sims]
        for sim in sims:
            _enable_all(sim)
        for step in range(1, 61):
            for k, sim in enumerate(sims):
                if step == 25:
                    children = sim.robot("r").getRoot().getField("children")
                    children.importMFNodeFromString(-1, IMPORTED if k == 0 else IMPORTED.replace("0.5", "0.7"))
                    new = sim.robot("new")
                    for name, period in zip(("accelerometer", "gyro", "inertial unit", "compass", "gps"),
                                            (8, 8, 16, 8, 8)):
                        new.getDevice(name).enable(period)
                sim.robot("r").step(8)
                records[k].append(_record(sim) + np.array(sim.banks["gps"].value_list).tobytes())
        return records

    fused = _counted(monkeypatch)
    both = scenario([load(path), load(path)])
    assert fused[0] > 80
    monkeypatch.undo()
    _own_paths(monkeypatch)
    first, = scenario([load(path)])
    assert first[30] != first[50]
    assert both[0] == first
    assert both[1] != first  # the second simulation imported another robot
    second_alone = scenario([load(path), load(path)])[1]
    assert both[1] == second_alone


def test_enables_every_step_and_changes_in_a_step_where_other_kinds_sample(project, load, monkeypatch):
    """A controller re-enabling its sensors every step (no change), and groups emptied, grown or shrunk in steps
    where the other kinds sample in the fused call: each kind's own values, bit for bit."""
    path = project(WORLD)

    def scenario() -> list[bytes]:
        sim = load(path)
        _enable_all(sim, (8, 8, 16, 8, 24))
        robot, fixed = sim.robot("r"), sim.robot("fixed")
        acc, compass, gyro = (robot.getDevice(n) for n in ("accelerometer", "compass", "gyro"))
        records = []
        for step in range(1, 81):
            acc.enable(8)  # every step: nothing changes
            compass.enable(8)
            if step == 30:
                gyro.enable(0)  # its only group emptied while the others sample
            if step == 31:
                gyro.enable(16)
            if step == 40:
                robot.getDevice("acc2").enable(8)  # joins the accelerometer's group on its next step
            if step == 50:
                fixed.getDevice("compass2").enable(0)  # the compasses' group shrinks
            if step == 60:
                fixed.getDevice("compass2").enable(8)
            robot.step(8)
            records.append(_record(sim))
        return records

    fused = _counted(monkeypatch)
    with_batch = scenario()
    assert fused[0] > 50
    monkeypatch.undo()
    _own_paths(monkeypatch)
    own = scenario()
    for step, (a, b) in enumerate(zip(with_batch, own)):
        assert a == b, f"step {step + 1} differs"


def test_a_step_interrupted_after_the_fused_call_does_not_make_the_next_step_skip_its_samples(project, load,
                                                                                             monkeypatch):
    """A bank raising after the fused call ran (the compass, sampled between the InertialUnit that ran it and
    the GPS it computed); then the GPS leaves the fused path (a supervisor gives it noise): at the next step it
    samples on its own path, from that step's poses, not the interrupted step's values."""
    sim = load(project(WORLD))
    robot = sim.robot("r")
    for name in ("accelerometer", "gyro", "inertial unit", "compass", "gps"):
        robot.getDevice(name).enable(8)
    fused = _counted(monkeypatch)
    for _ in range(4):
        sim.step()
    assert fused[0] == 3  # from the second sample on (each kind joins at its first)
    compass = type(sim.banks["compass"])
    sample = compass.sample
    calls = [0]

    def failing(bank, data, step):
        calls[0] += 1
        if calls[0] == 1:
            raise RuntimeError("a bank failed")
        return sample(bank, data, step)

    monkeypatch.setattr(compass, "sample", failing)
    with pytest.raises(RuntimeError, match="a bank failed"):
        sim.step()
    assert fused[0] == 4
    robot.getFromDevice(robot.getDevice("gps")).getField("accuracy").setSFFloat(1e-9)  # not plain any more
    sim.step()
    gps = sim.banks["gps"]
    sim.supervision.refresh()
    position = sim.data.site_xpos[gps._sites[0]]
    np.testing.assert_allclose(gps.value_list[:3], position, rtol=0, atol=1e-6)  # the robot moves ~4 mm a step


def test_the_fused_call_applies_each_kinds_own_resolutions(project, load, monkeypatch):
    # The GPS's position and speed resolutions and the InertialUnit's resolution differ from one another (and
    # from device to device): the fused call reads each from its own packed entry (a swap of two float arrays of
    # the same shape passes the type codes), bit for bit as each kind's own path.
    world = (WORLD.replace("GPS { translation 0.03 0 0 }", "GPS { translation 0.03 0 0 resolution 0.001 "
                                                             "speedResolution 0.05 }")
             .replace('GPS { name "gps2" }', 'GPS { name "gps2" resolution 0.2 speedResolution 0.003 }')
             .replace("InertialUnit { rotation 1 0 0 0.4 }", "InertialUnit { rotation 1 0 0 0.4 resolution 0.01 }"))
    path = project(world)
    runs = {}
    for mode in ("fused", "own"):
        if mode == "fused":
            fused = _counted(monkeypatch)
        else:
            fused = [0, 0]
            _own_paths(monkeypatch)
        sim = load(path)
        robot, fixed = sim.robot("r"), sim.robot("fixed")
        for name in ("accelerometer", "gyro", "inertial unit", "gps"):
            robot.getDevice(name).enable(8)
        for name in ("imu2", "gps2"):
            fixed.getDevice(name).enable(8)
        records = []
        for _ in range(40):
            robot.step(8)
            records.append(_record(sim))
        runs[mode] = (records, fused[0], sim.banks["gps"], sim.banks["inertial_unit"])
        monkeypatch.undo()
    (fused, calls, gps, unit), (own, _, _, _) = runs["fused"], runs["own"]
    assert calls >= 35
    for step, (a, b) in enumerate(zip(fused, own)):
        assert a == b, f"step {step + 1} differs"
    # Webots rounds each value to its resolution: positions to 1 mm and 0.2 m, speeds to 0.05 and 0.003 m/s, the
    # InertialUnit's quaternion to 0.01.
    for values, resolution in ((gps.values[0], 0.001), (gps.values[1], 0.2), (gps.speed[:1], 0.05),
                               (gps.speed[1:], 0.003), (unit.quaternion[0], 0.01)):
        np.testing.assert_allclose(values / resolution, np.round(values / resolution), atol=1e-6)
    assert gps.speed[0] > 0.5 and abs(gps.values[0][2]) > 0.05  # the robot moves: none of them is trivially 0


def test_the_steady_fused_call_checks_every_part_again_after_each_change(project, load, monkeypatch):
    # Every kind every 8 ms: after the first checked fused call, the same call again without the parts' checks
    # (steady), until something changes what a check reads: a field written by a supervisor (noise: the
    # InertialUnit samples on its own, then joins again), a sensor enabled again on another period, a bank's
    # compiled flag switched, a sample on a kind's own path. Each step bit for bit as each kind's own path.
    path = project(WORLD)
    events = {10: "noise", 14: "quiet", 20: "period", 24: "back", 30: "numpy", 34: "compiled"}

    def scenario(sim, robot) -> list[bytes]:
        unit, gps = robot.getDevice("inertial unit"), robot.getDevice("gps")
        records = []
        for step in range(1, 41):
            event = events.get(step)
            if event == "noise":
                robot.getFromDevice(unit).getField("noise").setSFFloat(0.01)
            elif event == "quiet":
                robot.getFromDevice(unit).getField("noise").setSFFloat(0.0)
            elif event == "period":
                gps.enable(16)
            elif event == "back":
                gps.enable(8)
            elif event in ("numpy", "compiled"):
                sim.banks["compass"].compiled = event == "compiled"
            robot.step(8)
            records.append(_record(sim))
        return records

    runs, steady_steps = {}, []
    for mode in ("fused", "own"):
        if mode == "fused":
            fused = _counted(monkeypatch)
        else:
            _own_paths(monkeypatch)
        sim = load(path)
        robot = sim.robot("r")
        for name in ("accelerometer", "gyro", "inertial unit", "compass", "gps"):
            robot.getDevice(name).enable(8)
        steady = MotionBatch.steady

        def tracking(batch, part, step, data, steady=steady):
            done = steady(batch, part, step, data)
            if done:
                steady_steps.append(step)
            return done

        if mode == "fused":
            monkeypatch.setattr(MotionBatch, "steady", tracking)
        runs[mode] = scenario(sim, robot)
        monkeypatch.undo()
    for step, (a, b) in enumerate(zip(runs["fused"], runs["own"])):
        assert a == b, f"step {step + 1} differs"
    assert len(runs["fused"]) == 40 and runs["fused"][5] != runs["fused"][6]
    # Steady from the step after the first fused call, but not at the step right after each change (its call
    # checks every part again, or the changed kind samples on its own).
    assert len(steady_steps) > 20
    for step in events:
        assert step not in steady_steps, step
    assert {3, 4, 5, 6, 7, 8, 9} <= set(steady_steps)


def test_a_calling_kind_with_a_second_group_is_not_steady(project, load, monkeypatch):
    # The InertialUnit (the first motion kind of a step) calls the fused call for its joined group while a second
    # group of InertialUnits waits for its first sample (another period): the call is checked, not steady, and the
    # second group samples when due (a steady call would move the joined group on as the schedule's only one and
    # answer for the whole bank, so the second group would never sample).
    path = project(WORLD)

    def scenario() -> list[bytes]:
        sim = load(path)
        robot = sim.robot("r")
        robot.getDevice("inertial unit").enable(8)
        robot.getDevice("gyro").enable(8)
        records = []
        for step in range(1, 21):
            if step == 5:
                sim.robot("fixed").getDevice("imu2").enable(24)
            robot.step(8)
            records.append(_record(sim))
        assert not np.isnan(sim.banks["inertial_unit"].roll_pitch_yaw).any()  # imu2 sampled too
        return records

    fused = _counted(monkeypatch)
    with_batch = scenario()
    assert fused[0] > 5  # also after the second group came (checked calls while only the joined group is due)
    monkeypatch.undo()
    _own_paths(monkeypatch)
    own = scenario()
    for step, (a, b) in enumerate(zip(with_batch, own)):
        assert a == b, f"step {step + 1} differs"


def test_each_change_alone_ends_the_steady_call(project, load, monkeypatch):
    # Every kind every 8 ms (steady from the third step on), then one change at a time, each a few steady steps
    # apart, so no other change's report hides a missing one: a field of each kind's bank written by a supervisor
    # (the Accelerometer's resolution, a Compass axis, the GPS's accuracy, the InertialUnit's noise), a group emptied
    # and filled again, a group shrunk, a world reset. Each step bit for bit as each kind's own path.
    path = project(WORLD)

    def field(sim, name: str, field_name: str):
        return sim.robot("r").getFromDevice(sim.robot("r").getDevice(name)).getField(field_name)

    events = {
        6: lambda sim: field(sim, "accelerometer", "resolution").setSFFloat(0.01),
        10: lambda sim: field(sim, "accelerometer", "resolution").setSFFloat(-1.0),
        14: lambda sim: field(sim, "compass", "xAxis").setSFBool(False),
        18: lambda sim: field(sim, "compass", "xAxis").setSFBool(True),
        22: lambda sim: field(sim, "gps", "accuracy").setSFFloat(0.1),
        26: lambda sim: field(sim, "gps", "accuracy").setSFFloat(0.0),
        30: lambda sim: field(sim, "inertial unit", "noise").setSFFloat(0.01),
        34: lambda sim: field(sim, "inertial unit", "noise").setSFFloat(0.0),
        38: lambda sim: sim.robot("r").getDevice("gyro").enable(0),
        42: lambda sim: sim.robot("r").getDevice("gyro").enable(8),
        46: lambda sim: sim.robot("fixed").getDevice("imu2").enable(0),
        50: lambda sim: sim.robot("r").simulationReset(),
    }

    def scenario(sim) -> list[bytes]:
        robot = sim.robot("r")
        for name in ("accelerometer", "gyro", "inertial unit", "compass", "gps"):
            robot.getDevice(name).enable(8)
        for name in ("imu2", "compass2", "gps2"):
            sim.robot("fixed").getDevice(name).enable(8)
        records = []
        for step in range(1, 61):
            if step in events:
                events[step](sim)
            robot.step(8)
            records.append(_record(sim))
        return records

    steady_steps: list[int] = []
    steady = MotionBatch.steady

    def tracking(batch, part, step, data):
        done = steady(batch, part, step, data)
        if done and not sim.world_resets:  # (the steps count from 1 again after the reset)
            steady_steps.append(step)
        return done

    sim = load(path)
    monkeypatch.setattr(MotionBatch, "steady", tracking)
    with_batch = scenario(sim)
    monkeypatch.undo()
    _own_paths(monkeypatch)
    own = scenario(load(path))
    for step, (a, b) in enumerate(zip(with_batch, own)):
        assert a == b, f"step {step + 1} differs"
    # Never steady in the step of a change, steady in the step before each change that takes a kind off its plain
    # path, and again within three steps of each change back.
    for step in events:
        if step not in (42, 50):  # (the gyro enabled at 42 samples first at 43; the reset step is step 1 again)
            assert step not in steady_steps, step
    for step in (6, 14, 22, 30, 38, 46):
        assert step - 1 in steady_steps, step
    for step in (10, 18, 26, 34, 42, 46):
        assert {step + 1, step + 2, step + 3} & set(steady_steps), step
    assert sim.world_resets == 1 and with_batch[52] != with_batch[58]


def test_a_kind_joining_after_the_calling_kind_is_in_the_next_fused_call(project, load):
    # The InertialUnit and the Compass sample every step in the steady call the InertialUnit runs; the Gyro, later
    # in a step, joins at its first sample: its joining drops the kept call, so the next step's call is checked and
    # computes the Gyro too (kept, the steady call would leave it to sample on its own once more).
    sim = load(project(WORLD))
    robot = sim.robot("r")
    robot.getDevice("inertial unit").enable(8)
    robot.getDevice("compass").enable(8)
    for _ in range(4):
        robot.step(8)
    gyro = sim.banks["gyro"]
    robot.getDevice("gyro").enable(8)
    robot.step(8)  # the Gyro's first sample: its own path, then it joins
    assert gyro._part is not None and gyro._part.done_step == -1
    robot.step(8)
    assert gyro._part.done_step == sim.step_count  # computed by the InertialUnit's fused call
    assert sim.banks["inertial_unit"]._part.done_step == sim.step_count
