"""run_many and the seed lists of ``wbsim run --seeds``: one record per seed, deterministic per seed, failures
reported in their records."""

from __future__ import annotations

import json

import pytest

from wbsim.batch import LOAD_FAILED, RUN_FAILED, RunRecord, parse_seeds, run_many

# A robot reading a noisy encoder (the simulation's seeded generator): it reports the reading in customData
# and prints it; a negative first reading makes the controller crash (a failing run, decided by the seed).
WORLD = """
WorldInfo { basicTimeStep 8 }
Robot { name "r" controller "noisy" children [
  HingeJoint { endPoint Solid { } device [ PositionSensor { name "enc" noise 1 } ] } ] }
"""
NOISY = """
from controller import Robot
robot = Robot()
enc = robot.getDevice("enc")
enc.enable(8)
robot.step(8)
value = enc.getValue()
print(f"reading {value!r}")
robot.setCustomData(repr(value))
if value < 0:
    raise RuntimeError("negative reading")
robot.step(8)
"""


def _without_wall_time(record: RunRecord) -> tuple[object, ...]:
    return (record.seed, record.exit_status, record.sim_time_s, record.custom_data, record.output, record.error)


def test_records_are_per_seed_in_seed_order_deterministic_and_failures_do_not_stop_others(project):
    path = project(WORLD, controllers={"noisy": NOISY})
    seeds = [3, 1, 2, 3, 4, 5, 1]
    seen = []
    records = run_many(path, seeds, duration_s=0.1, workers=2, on_result=seen.append)
    assert [r.seed for r in records] == seeds and len(seen) == len(seeds)
    # The same seed gives the same record (wall time aside), whichever worker ran it and when.
    assert _without_wall_time(records[0]) == _without_wall_time(records[3])
    assert _without_wall_time(records[1]) == _without_wall_time(records[6])
    readings = {r.seed: float(r.custom_data["r"]) for r in records}
    assert len(set(readings.values())) == 5  # other seeds, other noise
    crashed = [r for r in records if float(r.custom_data["r"]) < 0]
    fine = [r for r in records if float(r.custom_data["r"]) >= 0]
    assert crashed and fine  # seeds on both sides (the generator's normal draws for seeds 1-5)
    for record in crashed:
        assert record.exit_status == RUN_FAILED and "RuntimeError: negative reading" in record.output
        assert record.sim_time_s == pytest.approx(0.104)  # the world ran on to its duration without the controller
    for record in fine:
        assert record.exit_status == 0 and record.error is None
        assert record.output == f"reading {readings[record.seed]!r}\n"
        assert record.sim_time_s == pytest.approx(0.104)  # 0.1 s rounded up to whole 8 ms steps
    assert all(r.wall_time_s > 0 for r in records)
    line = json.loads(records[0].to_json())
    assert list(line) == ["seed", "exit_status", "sim_time_s", "custom_data", "output", "error", "wall_time_s"]


def test_a_world_that_does_not_load_is_reported_per_run(project):
    path = project('WorldInfo { basicTimeStep 8 }\nRobot { name "r" controller "missing" }')
    records = run_many(path, [0, 1], duration_s=0.1, workers=1)
    assert [r.exit_status for r in records] == [LOAD_FAILED, LOAD_FAILED]
    assert all('controller "missing" not found' in (r.error or "") for r in records)


def test_bad_arguments_are_refused_before_any_run(project):
    path = project(WORLD, controllers={"noisy": NOISY})
    with pytest.raises(ValueError, match="seeds must be ints"):
        run_many(path, [1, "2"], duration_s=1)  # type: ignore[list-item]
    with pytest.raises(ValueError, match="duration_s"):
        run_many(path, [1], duration_s=float("nan"))
    with pytest.raises(ValueError, match="workers"):
        run_many(path, [1], duration_s=1, workers=0)
    assert run_many(path, [], duration_s=1) == []


@pytest.mark.parametrize(("text", "seeds"), [("0-3", [0, 1, 2, 3]), ("5", [5]), ("0-1,7,9-10", [0, 1, 7, 9, 10]),
                                             ("-2", [-2])])
def test_parse_seeds(text, seeds):
    assert parse_seeds(text) == seeds


@pytest.mark.parametrize("text", ["", "3-1", "a", "1,,2"])
def test_parse_seeds_refuses_malformed_lists(text):
    with pytest.raises(ValueError):
        parse_seeds(text)
