"""The demo project and the README's Python example run as documented."""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import wbsim

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "examples" / "worlds" / "demo.wbt"
MODULES = ROOT / "examples" / "worlds" / "modules.wbt"
FLYING = ROOT / "examples" / "worlds" / "flying.wbt"
FOUR_BAR = ROOT / "examples" / "worlds" / "four_bar_finger.wbt"


@pytest.fixture
def demo():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the demo world must load without warnings
        sim = wbsim.load_world(DEMO)
    yield sim
    sim.close()


def test_demo_drives_a_square_then_backs_off_and_turns_at_each_bump(demo, capsys):
    body = demo.bindings.robots[0].solid.body_id
    track: list[tuple[float, float, float, float]] = []  # t, x, y, heading

    def record(sim) -> None:
        rot = sim.data.xmat[body].reshape(3, 3)
        track.append((sim.time_s, sim.data.xpos[body][0], sim.data.xpos[body][1], math.atan2(rot[1, 0], rot[0, 0])))

    demo.run(on_step=record)
    out = capsys.readouterr().out
    assert "lap 1:" in out and "done after" in out
    assert not demo.controllers_running()
    t, xs, ys, heading = (np.array(column) for column in zip(*track))
    # The square: it really drove a ~0.5 m square by odometry and came back close to the start.
    lap_end = float(re.search(r"lap 1: .* at t=([0-9.]+) s", out).group(1))
    square = t <= lap_end
    assert 8.0 < lap_end < 20.0
    assert 0.4 < np.ptp(xs[square]) < 0.65 and 0.4 < np.ptp(ys[square]) < 0.65
    assert math.hypot(xs[square][-1], ys[square][-1]) < 0.15
    # The bumps: each one is against a wall or box (the bumper's front is 0.10 m ahead of the body's centre),
    # then the rover backs off and turns by about 110 degrees.
    bump_times = [float(v) for v in re.findall(r"bump \d: hit something .* at t=([0-9.]+) s", out)]
    assert len(bump_times) == 3
    obstacles = [(1.5, None), (-1.5, None), (None, 1.5), (None, -1.5), (1.2, 0.8), (-0.9, 1.1)]
    for when in bump_times:
        i = int(np.argmin(abs(t - when)))
        gaps = []
        for ox, oy in obstacles:
            if oy is None:
                gaps.append(abs(xs[i] - ox) - 0.025)  # wall half thickness
            elif ox is None:
                gaps.append(abs(ys[i] - oy) - 0.025)
            else:
                gaps.append(max(abs(xs[i] - ox), abs(ys[i] - oy)) - 0.1)  # box half size (axis-aligned start)
        assert 0.06 < min(gaps) < 0.15, (when, gaps)
        backed = int(np.argmin(abs(t - (when + 1.1))))  # 15 cm at 0.13 m/s
        turned_at = int(np.argmin(abs(t - (when + 2.5))))  # then 110 degrees at 1.9 rad/s
        moved_back = math.hypot(xs[backed] - xs[i], ys[backed] - ys[i])
        turned = abs((heading[turned_at] - heading[i] + math.pi) % (2 * math.pi) - math.pi)
        assert moved_back > 0.1 and math.radians(90) < turned < math.radians(130), (when, moved_back, turned)


def test_demo_is_deterministic(demo):
    first = [demo.step() and demo.data.qpos.copy() for _ in range(200)]
    demo.reset()
    second = [demo.step() and demo.data.qpos.copy() for _ in range(200)]
    assert all(np.array_equal(a, b) for a, b in zip(first, second))


def _load_modules(**options):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the modules world must load without warnings
        return wbsim.load_world(MODULES, **options)


def test_modules_leapfrog_along_the_floor(capsys):
    spacing, cube = 0.12, 0.08  # m between module centres (examples/worlds/modules.wbt), body edge
    with _load_modules() as sim:
        robots = sim.bindings.robots
        names = [str(r.node["name"]) for r in robots]
        bodies = [r.solid.body_id for r in robots]
        start = sim.data.xpos[bodies].copy()
        track: list[tuple[float, np.ndarray]] = []  # t, module positions (3, 3)
        clearance = [math.inf]  # the smallest gap between a vaulting body and a body below it
        tilt = [0.0]  # the largest tilt of any body, degrees

        def record(s) -> None:
            positions = s.data.xpos[bodies].copy()
            track.append((s.time_s, positions))
            tilt[0] = max(tilt[0], *(math.degrees(math.acos(min(1.0, s.data.xmat[b][8]))) for b in bodies))
            for i in range(3):
                for j in range(i + 1, 3):
                    if abs(positions[i][0] - positions[j][0]) < cube:  # one above the other
                        clearance[0] = min(clearance[0], abs(positions[i][2] - positions[j][2]) - cube)

        assert sim.run(on_step=record) == 0
        out = capsys.readouterr().out
        assert not sim.controllers_running()
        final = sim.data.xpos[bodies].copy()
        tilts = [math.degrees(math.acos(min(1.0, sim.data.xmat[b][8]))) for b in bodies]
    assert "no dock" not in out and "no module in front" not in out, out
    hops = [(m.group(1), float(m.group(2)), float(m.group(3)))
            for m in re.finditer(r"hop \d+: (module \w) landed at t=([0-9.]+) s, x=([-+0-9.]+) m", out)]
    # Every module hopped twice, the rear one each time: A, B, C, A, B, C.
    assert [name for name, _, _ in hops] == names * 2, out
    times = np.array([t for t, _ in track])
    before = {name: start[i][0] for i, name in enumerate(names)}
    for name, when, printed_x in hops:
        i = names.index(name)
        x = track[int(np.argmin(abs(times - when)))][1][i][0]
        assert abs(printed_x - x) < 0.001  # the printed x is the module's position
        assert abs(x - before[name] - 3 * spacing) < 0.005, (name, when, x - before[name])  # over two modules
        before[name] = x
    # Each vault cleared the modules it passed over (8 cm cubes), and the shoulders kept every body level.
    assert 0.01 < clearance[0] < 0.1 and tilt[0] < 3.0, (clearance, tilt)
    # All upright on the floor, still in a straight row 12 cm apart, in their starting order; the group
    # moved on by 6 spacings (each module by two hops of three spacings).
    assert np.allclose(final[:, 2], cube / 2, atol=0.001) and max(tilts) < 1.0, (final, tilts)
    assert np.allclose(np.diff(final[:, 0]), spacing, atol=0.002) and np.abs(final[:, 1]).max() < 0.01, final
    assert abs(final[:, 0].mean() - start[:, 0].mean() - 6 * spacing) < 0.01, final


def test_modules_runs_are_bit_identical_for_a_seed():
    finals = []
    for _ in range(2):
        with _load_modules(seed=7) as sim:
            sim.run()
            finals.append((sim.time_s, sim.data.qpos.copy(), sim.data.xpos.copy()))
    assert finals[0][0] == finals[1][0] > 40.0
    assert np.array_equal(finals[0][1], finals[1][1]) and np.array_equal(finals[0][2], finals[1][2])


def test_flying_robot_passes_two_obstacles_lands_and_takes_off_the_other_way(capsys):
    # examples/worlds/flying.wbt: the plugin lifts the robot with its weight (0.7 kg x 9.81 = 6.867 N),
    # 0.3 N more to climb, 0.3 N less to sink; randomSeed 21 makes it pass 2 obstacles first.
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the flying world must load without warnings
        sim = wbsim.load_world(FLYING)
    with sim:
        plugin = sim.plugin.file.namespace
        model, data = sim.model, sim.data
        body = plugin["robot_body"]
        wings = {leaf.geom_id for wing in plugin["wing_geoms"] for leaf in wing.leaves()}
        floor = {leaf.geom_id for leaf in plugin["floor_geom"].leaves()}
        robot_geoms = set(np.flatnonzero(model.geom_bodyid == body.root).tolist())
        led = sim.banks["led"]
        rows: list[tuple[float, str, float, float, float, float, int]] = []  # t, state, x, y, z, vz, LED
        floor_friction: set[tuple[float, float]] = set()

        def record(s) -> None:
            com = body.com()
            rows.append((s.time_s, plugin["state"], com[0], com[1], com[2], body.velocity()[0][2], int(led.value[0])))
            for contact in data.contact[: data.ncon]:
                pair = {int(contact.geom[0]), int(contact.geom[1])}
                assert not pair & wings  # the plugin returns 1 for every pair with a wing
                if pair & floor and pair & robot_geoms:
                    floor_friction.add((round(float(contact.friction[0]), 6), round(float(contact.friction[1]), 6)))

        sim.run(36.0, on_step=record)
    out = capsys.readouterr().out
    announced = re.findall(r"Avoiding (\d) obstacles when turning on the (left|right)", out)
    assert announced == [("2", "right"), ("5", "left")], out[:2000]
    t = np.array([r[0] for r in rows])
    states = [r[1] for r in rows]
    x, y, z, vz = (np.array([r[i] for r in rows]) for i in (2, 3, 4, 5))
    leds = [r[6] for r in rows]
    # Robot-floor contacts are the plugin's (mu 0.4, mu2 0.8), never the default ones.
    assert floor_friction == {(0.4, 0.8)}
    # It turns in place and stays below 16 cm.
    assert np.hypot(x, y).max() < 0.01 and z.max() < 0.16
    # Taking off: as in Webots' sample, 0.3 N more than the weight for one 64 ms step only (an impulse:
    # 0.3 / 0.7 x 0.064 = 27.4 mm/s up), then the weight is balanced and it climbs at that speed; at 1 cm
    # the opposite impulse stops it.
    dt = 0.064
    first = states.index("taking off")
    assert vz[first] - vz[first - 1] == pytest.approx(0.3 / 0.7 * dt, rel=0.02)
    climbing = [i for i, state in enumerate(states) if state == "taking off"][: 4]
    assert np.abs(np.diff(vz[climbing]) / dt).max() < 0.01  # m/s^2: hovering forces balance the weight
    searching = states.index("searching")
    assert states[searching - 1] == "taking off" and abs(vz[searching]) < 0.001
    # Passing an obstacle: its sensors just clear the 0.2 m boxes (they are 6.3 cm above the robot).
    starts = [i for i in range(1, len(states)) if states[i] == "passing" and states[i - 1] != "passing"]
    assert len(starts) == 2 and all(0.2 < z[i] + 0.063 < 0.21 for i in starts), [z[i] for i in starts]
    # The ray touches each obstacle it passes: obstacle messages at up to its length (0.4 m), LED red then.
    distances = [float(v) for v in re.findall(r"Obstacle detected at a distance of ([0-9.e-]+)", out)]
    assert distances and all(0.045 < d <= 0.4 for d in distances)
    assert 0xFF0000 in leds and 0x00FF00 in leds and set(leds) <= {0, 0xFF0000, 0x00FF00}
    # After the second obstacle it sinks, lands (on the floor: its box's bottom is 0.5 mm below its centre
    # of mass), waits and takes off turning left.
    landed = [i for i, state in enumerate(states) if state == "landing" and t[i] > 2.0]
    assert landed and z[landed].min() < 0.001
    assert t[landed[0]] < t[[i for i, state in enumerate(states) if state == "taking off" and t[i] > 2.0][0]]


def test_four_bar_finger_joints_follow_the_four_bar_transmission_of_the_motors(capsys):
    # The finger's distal joint is driven through a parallelogram closed with a SolidReference: the position
    # sensors on the physical joints must read ros2_control's FourBarLinkageTransmission of the motor sensors.
    from wbsim.transmission import FourBarLinkageTransmission

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the demo world must load without warnings
        sim = wbsim.load_world(FOUR_BAR)
    rows = {b.node["name"]: i for i, b in enumerate(sim.bindings.devices["position_sensor"])}
    values = sim.banks["position_sensor"].value
    samples = []

    def record(s) -> None:
        samples.append([values[rows[n]] for n in ("motor 1 sensor", "motor 2 sensor", "distal joint",
                                                  "closing joint")] + [s.time_s])

    try:
        sim.run(10.2, on_step=record)
    finally:
        sim.close()
    motor_1, motor_2, joint_2, closing, t = np.array([row for row in samples if not np.isnan(row[0])]).T
    assert len(motor_1) > 1200 and np.ptp(joint_2) > 1.1  # 10 s of motion, joint 2 through +-0.6 rad
    predicted = FourBarLinkageTransmission((1.0, 1.0), (1.0, 1.0)).actuator_to_joint_values(
        "position", np.stack([motor_1, motor_2], axis=-1))
    assert np.abs(predicted[:, 0] - motor_1).max() == 0.0  # joint 1 is motor 1's own joint
    assert np.abs(predicted[:, 1] - joint_2).max() < 1e-3  # measured 3.2e-6 rad at the default physics step
    assert np.abs(closing - joint_2).max() < 1e-3  # the closing joint turns with the distal joint (parallelogram)
    # The joint-space position commands reach their targets (the motors' P control lags by a few hundredths).
    moving = (t > 0.5) & (t < 10.0)
    assert np.abs(motor_1 - 0.5 * np.sin(2 * np.pi * 0.3 * t))[moving].max() < 0.05
    assert np.abs(joint_2 - 0.6 * np.sin(2 * np.pi * 0.45 * t))[moving].max() < 0.05
    out = capsys.readouterr().out
    assert re.search(r"joint 2 agrees with the transmission within [0-9.e+-]+ rad over 10 s", out)


def test_readme_python_example_runs(monkeypatch):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    monkeypatch.chdir(ROOT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(block, "README.md", "exec"), {})


def test_readme_commands_match_ci():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_command = "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest"
    assert test_command in readme and test_command in ci
    assert "wbsim run examples/worlds/demo.wbt" in readme
