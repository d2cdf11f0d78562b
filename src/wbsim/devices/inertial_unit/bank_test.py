"""InertialUnit values in worlds: known poses in ENU and NUE worlds (also at gimbal lock), disabled axes,
resolution, noise statistics and determinism, sampling times, supervisor writes and resets.

Expected values come from formulas derived from Webots' code (``WbInertialUnit::computeValue``, ``WbMatrix3``,
``wb_inertial_unit_get_roll_pitch_yaw``): the quaternion is the sensor's world orientation with Webots' sign
(``w > 0`` while the rotation's trace is non-negative, else the component of the largest diagonal term is
positive); ENU angles are the x-y-z extrinsic sequence ``Rz(yaw) Ry(pitch) Rx(roll)``, NUE angles the x-z-y one
``Ry(yaw) Rz(pitch) Rx(roll)``.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest


def _rot(axis: str, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return {"x": np.array([[1, 0, 0], [0, c, -s], [0, s, c]]), "y": np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]),
            "z": np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])}[axis]


def _field(m: np.ndarray) -> str:
    """A Webots ``rotation`` field value (axis, angle) for rotation matrix ``m``."""
    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, m.ravel())
    angle = 2 * math.atan2(np.linalg.norm(q[1:]), q[0])
    axis = q[1:] / np.linalg.norm(q[1:]) if angle else np.array([0.0, 0.0, 1.0])
    return " ".join(repr(float(v)) for v in (*axis, angle))


def _webots_quaternion(m: np.ndarray) -> np.ndarray:
    """[x, y, z, w] of ``m`` with Webots' sign rule."""
    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, m.ravel())
    q = np.array([q[1], q[2], q[3], q[0]])
    if np.trace(m) >= 0:
        return q if q[3] >= 0 else -q
    largest = int(np.argmax(np.diag(m)))
    return q if q[largest] >= 0 else -q


def _zyx(m: np.ndarray) -> list[float]:
    """(roll, pitch, yaw) with ``m = Rz(yaw) Ry(pitch) Rx(roll)``, |pitch| < pi / 2."""
    return [math.atan2(m[2, 1], m[2, 2]), math.asin(-m[2, 0]), math.atan2(m[1, 0], m[0, 0])]


def _world(units: str, system: str = "ENU", seed: int = 1) -> str:
    return f"""
WorldInfo {{ basicTimeStep 16 coordinateSystem "{system}" randomSeed {seed} }}
Robot {{ name "r" controller "<extern>" children [ {units} ] }}
"""


def _read(sim, count: int, period: int = 16) -> tuple[np.ndarray, np.ndarray]:
    robot = sim.robot("r")
    units = [robot.getDeviceByIndex(i) for i in range(count)]
    for unit in units:
        unit.enable(period)
    robot.step(period)
    return np.array([u.getRollPitchYaw() for u in units]), np.array([u.getQuaternion() for u in units])


ENU_POSES = [(0.3, -0.4, 1.2), (-2.5, 1.0, -3.0), (3.0, -1.2, 2.9), (0.0, 0.0, 0.0), (-0.1, 0.05, -1.7)]


def test_enu_roll_pitch_yaw_and_quaternion_of_known_poses(project, load):
    matrices = [_rot("z", y) @ _rot("y", p) @ _rot("x", r) for r, p, y in ENU_POSES]
    units = " ".join(f'InertialUnit {{ name "u{i}" rotation {_field(m)} }}' for i, m in enumerate(matrices))
    units += ' InertialUnit { name "half" rotation 0.6 0 -0.8 2.5 }'
    sim = load(project(_world(units)))
    rpy, q = _read(sim, len(matrices) + 1)
    assert rpy[:-1] == pytest.approx(np.array(ENU_POSES), abs=1e-12)
    assert q[:-1] == pytest.approx(np.array([_webots_quaternion(m) for m in matrices]), abs=1e-12)
    # Past 2 pi / 3 the trace is negative: Webots makes the largest diagonal term's component (z) positive, so a
    # 2.5 rad turn about (0.6, 0, -0.8) reads as the opposite of (sin(1.25) axis, cos(1.25)).
    s, c = math.sin(1.25), math.cos(1.25)
    assert q[-1] == pytest.approx([-0.6 * s, 0.0, 0.8 * s, -c], abs=1e-12)
    m = np.array([[0.36 * (1 - math.cos(2.5)) + math.cos(2.5), 0.8 * math.sin(2.5), -0.48 * (1 - math.cos(2.5))],
                  [-0.8 * math.sin(2.5), math.cos(2.5), -0.6 * math.sin(2.5)],
                  [-0.48 * (1 - math.cos(2.5)), 0.6 * math.sin(2.5), 0.64 * (1 - math.cos(2.5)) + math.cos(2.5)]])
    assert rpy[-1] == pytest.approx(_zyx(m), abs=1e-12)


def test_nue_roll_pitch_yaw_follow_the_x_z_y_sequence(project, load):
    poses = [(0.3, -0.4, 1.2), (-2.5, 1.0, -3.0), (1.0, 0.2, 0.1)]
    matrices = [_rot("y", y) @ _rot("z", p) @ _rot("x", r) for r, p, y in poses]
    units = " ".join(f'InertialUnit {{ name "u{i}" rotation {_field(m)} }}' for i, m in enumerate(matrices))
    sim = load(project(_world(units, "NUE")))
    rpy, q = _read(sim, len(matrices))
    assert rpy == pytest.approx(np.array(poses), abs=1e-12)
    assert q == pytest.approx(np.array([_webots_quaternion(m) for m in matrices]), abs=1e-12)
    # The same sensor in an ENU world reads ENU's angles: only yaw about +y of the NUE world is now a pitch.
    sim = load(project(_world(units, "ENU"), world_name="enu.wbt"))
    enu, _ = _read(sim, len(matrices))
    m = matrices[2]
    assert enu[2] == pytest.approx([math.atan2(m[2, 1], m[2, 2]), math.asin(-m[2, 0]), math.atan2(m[1, 0], m[0, 0])])


def test_near_and_at_gimbal_lock(project, load):
    near = math.pi / 2 - 1e-6
    matrices = [_rot("z", -0.4) @ _rot("y", near) @ _rot("x", 0.7), _rot("z", 0.5) @ _rot("y", math.pi / 2) @ _rot("x", 0.2),
                _rot("z", 0.5) @ _rot("y", -math.pi / 2) @ _rot("x", 0.2)]
    units = " ".join(f'InertialUnit {{ name "u{i}" rotation {_field(m)} }}' for i, m in enumerate(matrices))
    sim = load(project(_world(units)))
    rpy, q = _read(sim, 3)
    # 1e-6 from the lock, roll and yaw lose about eps / cos(pitch) = 1e-10 rad.
    assert rpy[0] == pytest.approx([0.7, near, -0.4], abs=1e-8)
    # At the lock Webots clamps the asin argument, so pitch is +-pi/2 (asin near 1 turns the argument's rounding,
    # 1e-16, into sqrt(2e-16) = 1.5e-8 rad); roll and yaw are then atan2 of two rounding residues (only yaw -+ roll
    # is defined): finite angles, as in Webots, whose documentation points to the quaternion.
    assert rpy[1, 1] == pytest.approx(math.pi / 2, abs=3e-8) and rpy[2, 1] == pytest.approx(-math.pi / 2, abs=3e-8)
    assert np.isfinite(rpy).all() and np.abs(rpy).max() <= math.pi
    assert q == pytest.approx(np.array([_webots_quaternion(m) for m in matrices]), abs=1e-12)


def test_disabled_axes_rebuild_the_rotation_from_its_axis_angle(project, load):
    diagonal = "0.7071067811865476 0 0.7071067811865476 0.6"
    units = " ".join([
        'InertialUnit { name "a" rotation 0 0 1 0.7 xAxis FALSE }',  # a yaw keeps its axis
        'InertialUnit { name "b" rotation 0 0 1 0.7 yAxis FALSE }',  # yAxis switches yaw: the axis vanishes
        f'InertialUnit {{ name "c" rotation {diagonal} xAxis FALSE }}',  # the axis turns to +z, same angle
        'InertialUnit { name "d" rotation 0 0 1 0.004 xAxis FALSE }',  # Webots takes this as the identity
        f'InertialUnit {{ name "e" rotation {diagonal} zAxis FALSE }}',  # zAxis zeroes y: nothing to drop
        'InertialUnit { name "f" rotation 0 0 1 2.5 yAxis FALSE }',  # a zero axis past a quarter turn
    ])
    sim = load(project(_world(units)))
    rpy, q = _read(sim, 6)
    s, c = math.sin(0.35), math.cos(0.35)
    assert q[0] == pytest.approx([0, 0, s, c], abs=1e-12) and rpy[0] == pytest.approx([0, 0, 0.7], abs=1e-12)
    # A zero axis rebuilds cos(angle) * I (not a rotation): Webots' quaternion is then not a unit one.
    assert q[1] == pytest.approx([0, 0, 0, 0.5 * math.sqrt(1 + 3 * math.cos(0.7))], abs=1e-12)
    assert rpy[1] == pytest.approx([0, 0, 0], abs=1e-12)
    assert rpy[2] == pytest.approx([0, 0, 0.6], abs=1e-12)
    assert q[3].tolist() == [0.0, 0.0, 0.0, 1.0] and rpy[3].tolist() == [0.0, 0.0, 0.0]
    h = math.sin(0.3) / math.sqrt(2)
    assert q[4] == pytest.approx([h, 0, h, math.cos(0.3)], abs=1e-12)
    assert q[5] == pytest.approx([0, 0, 0.5 * math.sqrt(1 - math.cos(2.5)), 0], abs=1e-12)
    assert rpy[5] == pytest.approx([0, 0, 0], abs=1e-12)


def test_resolution_discretises_the_quaternion_then_the_angles_follow(project, load, capfd):
    units = 'InertialUnit { name "a" rotation 0 0 1 0.7 resolution 0.01 } InertialUnit { name "b" resolution 0 }'
    sim = load(project(_world(units)))
    rpy, q = _read(sim, 2)
    assert q[0] == pytest.approx([0.0, 0.0, 0.34, 0.94], abs=1e-12)
    assert rpy[0, 2] == pytest.approx(math.atan2(2 * 0.94 * 0.34, 1 - 2 * 0.34 ** 2), abs=1e-12)
    assert sim.banks["inertial_unit"].resolution.tolist() == [0.01, -1.0]  # 0 repaired to -1 at load


def _noisy(project, load, seed: int, world_name: str = "noise.wbt"):
    units = " ".join(f'InertialUnit {{ name "u{i}" noise 0.02 }}' for i in range(40))
    return load(project(_world(units, seed=seed), world_name=world_name))


def _collect(sim, steps: int) -> np.ndarray:
    robot = sim.robot("r")
    units = [robot.getDeviceByIndex(i) for i in range(40)]
    for unit in units:
        unit.enable(16)
    samples = []
    for _ in range(steps):
        robot.step(16)
        samples.append([u.getRollPitchYaw() for u in units])
    return np.array(samples).reshape(-1, 3)


def test_noise_is_gaussian_with_sigma_noise_times_pi_per_axis(project, load):
    sim = _noisy(project, load, seed=5)
    rpy = _collect(sim, 50)  # 2000 samples per angle
    sigma = 0.02 * math.pi
    # Small rotations Rx(a) Ry(b) Rz(c) read (a, b, c) to first order. Standard error of the sample standard
    # deviation: sigma / sqrt(2 N) = 1.6 %; of the mean: sigma / sqrt(N) = 0.0014 rad; bounds at 4 of them.
    assert np.std(rpy, axis=0) == pytest.approx([sigma] * 3, rel=0.065)
    assert np.abs(np.mean(rpy, axis=0)).max() < 4 * sigma / math.sqrt(len(rpy))
    assert sim.robot("r").getDeviceByIndex(0).getNoise() == 0.02


def test_noise_is_deterministic_per_seed_and_replayed_after_reset(project, load):
    first = _collect(_noisy(project, load, seed=5), 5)
    sim = _noisy(project, load, seed=5, world_name="again.wbt")
    again = _collect(sim, 5)
    assert np.array_equal(first, again)
    sim.reset()
    assert np.array_equal(_collect(sim, 5), first)
    other = _collect(_noisy(project, load, seed=6, world_name="other.wbt"), 5)
    assert not np.array_equal(other, first)


def test_first_value_one_period_after_enable_and_nan_before(project, load):
    sim = load(project(_world('InertialUnit { rotation 0 0 1 0.5 }')))
    robot = sim.robot("r")
    unit = robot.getDevice("inertial unit")
    unit.enable(48)
    for _ in range(2):
        robot.step(16)
        assert all(math.isnan(v) for v in unit.getRollPitchYaw() + unit.getQuaternion())
    robot.step(16)
    assert unit.getRollPitchYaw() == pytest.approx([0, 0, 0.5])


def test_supervisor_writes_and_world_reset(project, load, capfd):
    world = _world('InertialUnit { rotation 0 0 1 0.7 }').replace('controller "<extern>"',
                                                                 'controller "<extern>" supervisor TRUE')
    sim = load(project(world))
    robot = sim.robot("r")
    unit = robot.getDevice("inertial unit")
    unit.enable(16)
    node = sim.banks["inertial_unit"].bindings[0].node
    sim.supervision.set_field_value(node, "yAxis", False)
    robot.step(16)
    assert unit.getRollPitchYaw() == pytest.approx([0, 0, 0])
    sim.supervision.set_field_value(node, "resolution", -3.0)
    assert "Invalid 'resolution' changed to -1. The value should be either -1 or positive." in capfd.readouterr().err
    sim.supervision.set_field_value(node, "noise", 0.5)
    assert unit.getNoise() == 0.5
    robot.simulationReset()
    robot.step(16)
    # A world reset restores the fields; the unit stays enabled and samples in the reset step.
    assert unit.getSamplingPeriod() == 16 and unit.getNoise() == 0.0
    assert unit.getRollPitchYaw() == pytest.approx([0, 0, 0.7])
    sim.reset()
    bank = sim.banks["inertial_unit"]
    assert np.isnan(bank.quaternion).all() and bank.period_ms[0] == 0


def test_a_unit_with_physics_reads_its_own_body(project, load):
    world = """
WorldInfo { basicTimeStep 8 }
Robot { name "r" controller "<extern>" children [
  HingeJoint { jointParameters HingeJointParameters { axis 1 0 0 }
    endPoint InertialUnit { rotation 0 0 1 0.3 physics Physics { } boundingObject Box { size 0.1 0.1 0.1 } } } ] }
"""
    sim = load(project(world))
    robot = sim.robot("r")
    unit = robot.getDevice("inertial unit")
    unit.enable(8)
    sim.data.qpos[0] = 0.4  # turn the hinge by hand
    mujoco.mj_forward(sim.model, sim.data)
    robot.step(8)
    m = _rot("x", float(sim.data.qpos[0])) @ _rot("z", 0.3)  # the hinge's angle after the step, then the unit's
    assert unit.getQuaternion() == pytest.approx(_webots_quaternion(m), abs=1e-12)
    assert unit.getRollPitchYaw() == pytest.approx(_zyx(m), abs=1e-12)


def test_values_follow_the_pose_after_the_physics_step(project, load):
    # A hinge spinning freely at 2 rad/s (zero gravity): after every step yaw and the compass heading equal the
    # hinge angle of that step (read after the physics, not one physics step late).
    world = """
WorldInfo { basicTimeStep 16 gravity 0 }
Robot { name "r" controller "<extern>" children [
  HingeJoint { jointParameters HingeJointParameters { axis 0 0 1 }
    endPoint Solid { children [ InertialUnit { } Compass { } ] physics Physics { }
                     boundingObject Box { size 0.1 0.1 0.1 } } } ] }
"""
    sim = load(project(world))
    robot = sim.robot("r")
    unit, compass = robot.getDevice("inertial unit"), robot.getDevice("compass")
    unit.enable(16)
    compass.enable(16)
    sim.data.qvel[0] = 2.0
    for _ in range(3):
        robot.step(16)
        angle = float(sim.data.qpos[0])
        assert unit.getRollPitchYaw()[2] == pytest.approx(angle, abs=1e-12)
        north = compass.getValues()  # north (+y) in the sensor frame, turned by -angle
        assert north[:2] == pytest.approx([math.sin(angle), math.cos(angle)], abs=1e-12)


def test_noise_turns_the_sensor_frame_by_seeded_gaussian_angles(project, load):
    # Webots: e = R * Rx(a) Ry(b) Rz(c), with a, b, c = noise * pi * N(0, 1) drawn in that order.
    world = ('WorldInfo { basicTimeStep 16 randomSeed 7 } Robot { name "r" controller "<extern>" children [ '
             'InertialUnit { rotation 0 1 0 1.2 noise 0.1 } ] }')
    sim = load(project(world))
    robot = sim.robot("r")
    unit = robot.getDevice("inertial unit")
    unit.enable(16)
    draws = np.random.Generator(np.random.PCG64())
    draws.bit_generator.state = sim.rng.bit_generator.state
    robot.step(16)
    a, b, c = 0.1 * math.pi * draws.standard_normal(3)
    m = _rot("y", 1.2) @ _rot("x", a) @ _rot("y", b) @ _rot("z", c)
    expected = [math.atan2(m[2, 1], m[2, 2]), math.asin(-m[2, 0]), math.atan2(m[1, 0], m[0, 0])]
    assert unit.getRollPitchYaw() == pytest.approx(expected, abs=1e-12)


def test_eun_worlds_use_the_enu_formulas_as_webots(project, load):
    # Webots' controller library has formulas for NUE and, for any other system, ENU's: in an EUN world a turn
    # about y (up) reads as pitch.
    world = ('WorldInfo { basicTimeStep 16 coordinateSystem "EUN" } Robot { name "r" controller "<extern>" '
             'rotation 0 1 0 0.5 children [ InertialUnit { } ] }')
    sim = load(project(world))
    robot = sim.robot("r")
    unit = robot.getDevice("inertial unit")
    unit.enable(16)
    robot.step(16)
    assert unit.getRollPitchYaw() == pytest.approx([0.0, 0.5, 0.0], abs=1e-12)
