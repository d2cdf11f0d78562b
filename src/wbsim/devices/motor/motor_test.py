"""Motor behaviour against Webots' control law, driven through the Webots API from a script."""

from __future__ import annotations

import math

import numpy as np
import pytest

WORLD = """
WorldInfo { basicTimeStep 16 }
Robot {
  name "r"
  controller "<extern>"
  children [
    DEF WHEEL_JOINT HingeJoint {
      jointParameters HingeJointParameters { axis 0 0 1 }
      device [
        RotationalMotor { name "wheel" maxVelocity 10 maxTorque 100 }
        PositionSensor { name "wheel sensor" }
      ]
      endPoint Solid {
        physics Physics { density -1 mass 1 }
        boundingObject Cylinder { radius 0.1 height 0.02 }
      }
    }
    Solid {
      name "arm base"
      translation 0 -1 0
      # A Physics Solid under the static robot is welded to the world; feedback needs a Physics parent.
      physics Physics { density -1 mass 5 }
      boundingObject Box { size 0.05 0.05 0.05 }
      children [
        HingeJoint {
          jointParameters HingeJointParameters { axis 0 1 0 anchor 0 0 1 }
          device [
            RotationalMotor { name "arm" maxTorque 20 minPosition -1 maxPosition 1 }
            PositionSensor { name "arm sensor" }
          ]
          endPoint Solid {
            translation 0.5 0 1
            physics Physics { density -1 mass 1 centerOfMass [ 0 0 0 ] inertiaMatrix [ 1e-5 1e-5 1e-5, 0 0 0 ] }
            boundingObject Sphere { radius 0.02 }
          }
        }
      ]
    }
    SliderJoint {
      jointParameters JointParameters { axis 1 0 0 }
      device [ LinearMotor { name "slider" maxVelocity 2 maxForce 50 } ]
      endPoint Solid {
        translation 0 2 0
        physics Physics { density -1 mass 2 }
        boundingObject Box { size 0.1 0.1 0.1 }
      }
    }
  ]
}
"""
TS = 0.016
WHEEL_INERTIA = 0.5 * 1.0 * 0.1**2  # kg*m^2 about the cylinder axis


@pytest.fixture
def rig(project, load):
    sim = load(project(WORLD))
    robot = sim.robot("r")
    return sim, robot


def joint_state(sim, name: str) -> tuple[float, float]:
    for motor in sim.bindings.devices["motor"]:
        if motor.node["name"] == name:
            return float(sim.data.qpos[motor.joint.qpos_adr]), float(sim.data.qvel[motor.joint.dof_adr])
    raise KeyError(name)


def test_initial_state_matches_webots(rig):
    sim, robot = rig
    wheel = robot.getDevice("wheel")
    assert wheel.getTargetPosition() == 0.0  # the joint's initial position
    assert wheel.getVelocity() == 10.0  # maxVelocity until setVelocity is called
    assert wheel.getMaxTorque() == 100.0 and wheel.getAvailableTorque() == 100.0
    assert wheel.getAcceleration() == -1.0
    assert wheel.getType() == wheel.ROTATIONAL
    assert robot.getDevice("slider").getType() == wheel.LINEAR
    assert math.isnan(wheel.getTorqueFeedback())


def test_position_control_follows_webots_p_controller(rig):
    """Webots: v = clamp(P * (target - q), +/- target velocity); an unsaturated motor reaches v within the step."""
    sim, robot = rig
    wheel = robot.getDevice("wheel")
    wheel.setPosition(1.0)
    q, expected = 0.0, []
    for _ in range(40):
        v = max(-10.0, min(10.0, 10.0 * (1.0 - q)))
        q += v * TS
        expected.append(q)
    measured = []
    for _ in range(40):
        robot.step(16)
        measured.append(joint_state(sim, "wheel")[0])
    np.testing.assert_allclose(measured, expected, atol=2e-4)
    assert abs(measured[-1] - 1.0) < 1e-3


def test_position_control_respects_velocity_limit(rig):
    sim, robot = rig
    wheel = robot.getDevice("wheel")
    wheel.setVelocity(3.0)
    wheel.setPosition(100.0)
    speeds = []
    for _ in range(50):
        robot.step(16)
        speeds.append(joint_state(sim, "wheel")[1])
    assert max(speeds) <= 3.0 * (1 + 1e-3)
    assert speeds[-1] == pytest.approx(3.0, rel=1e-3)


def test_velocity_control_reaches_target_and_clamps_to_max_velocity(rig, capfd):
    sim, robot = rig
    wheel = robot.getDevice("wheel")
    wheel.setPosition(float("inf"))
    wheel.setVelocity(-4.0)
    robot.step(160)
    assert joint_state(sim, "wheel")[1] == pytest.approx(-4.0, rel=1e-3)
    wheel.setVelocity(25.0)
    assert "The requested velocity 25 exceeds 'maxVelocity' = 10" in capfd.readouterr().err
    assert wheel.getVelocity() == 25.0  # Webots' controller library returns the value as requested
    robot.step(160)
    assert joint_state(sim, "wheel")[1] == pytest.approx(10.0, rel=1e-3)  # the simulator clamped it


def test_negative_velocity_in_position_control_is_rejected(rig, capfd):
    sim, robot = rig
    wheel = robot.getDevice("wheel")
    wheel.setVelocity(-1.0)
    assert "called with negative 'velocity' argument in position control mode" in capfd.readouterr().err
    assert wheel.getVelocity() == 10.0


def test_acceleration_limit_ramps_commanded_velocity(rig):
    sim, robot = rig
    wheel = robot.getDevice("wheel")
    wheel.setPosition(float("inf"))
    wheel.setAcceleration(50.0)
    wheel.setVelocity(10.0)
    for n in range(1, 8):
        robot.step(16)
        assert joint_state(sim, "wheel")[1] == pytest.approx(50.0 * TS * n, rel=2e-3)


def test_acceleration_limit_ramps_from_the_previously_commanded_velocity(rig):
    """Webots ramps from the velocity commanded at the previous step, also when the limit and a new target
    velocity are set in the same step after plain velocity control."""
    sim, robot = rig
    wheel = robot.getDevice("wheel")
    wheel.setPosition(float("inf"))
    wheel.setVelocity(5.0)
    robot.step(160)
    assert joint_state(sim, "wheel")[1] == pytest.approx(5.0, rel=1e-3)
    wheel.setVelocity(10.0)
    wheel.setAcceleration(10.0)
    for n in range(1, 4):
        robot.step(16)
        assert joint_state(sim, "wheel")[1] == pytest.approx(5.0 + 10.0 * TS * n, rel=2e-3)


def test_pid_state_does_not_wind_up_while_no_torque_is_available(rig):
    sim, robot = rig
    wheel = robot.getDevice("wheel")
    wheel.setControlPID(10.0, 50.0, 0.0)
    wheel.setAvailableTorque(0.0)
    wheel.setPosition(1.0)
    robot.step(320)
    row = wheel._core.index
    assert sim.banks["motor"].integral[row] == 0.0 and sim.banks["motor"].previous_error[row] == 0.0


def test_torque_control_accelerates_at_torque_over_inertia(rig):
    sim, robot = rig
    wheel = robot.getDevice("wheel")
    wheel.setTorque(0.5)
    robot.step(160)
    assert joint_state(sim, "wheel")[1] == pytest.approx(0.5 / WHEEL_INERTIA * 0.16, rel=1e-3)


def test_torque_limited_motor_accelerates_at_max_torque(rig):
    """Like ODE's velocity motor: with too little torque to reach the target, it accelerates at torque/inertia."""
    sim, robot = rig
    wheel = robot.getDevice("wheel")
    wheel.setAvailableTorque(0.05)
    wheel.setPosition(float("inf"))
    wheel.setVelocity(10.0)
    robot.step(160)
    assert joint_state(sim, "wheel")[1] == pytest.approx(0.05 / WHEEL_INERTIA * 0.16, rel=1e-3)


def test_torque_is_clamped_to_available_torque_and_set_position_leaves_torque_mode(rig, capfd):
    sim, robot = rig
    wheel = robot.getDevice("wheel")
    wheel.setAvailableTorque(0.2)
    wheel.setTorque(0.3)
    assert "The requested motor torque 0.3 exceeds 'maxTorque' = 0.2" in capfd.readouterr().err
    robot.step(16)
    assert joint_state(sim, "wheel")[1] == pytest.approx(0.2 / WHEEL_INERTIA * TS, rel=1e-3)
    wheel.setPosition(float("inf"))
    wheel.setVelocity(0.0)
    robot.step(32)
    assert abs(joint_state(sim, "wheel")[1]) < 1e-3


def test_available_torque_limits_holding_against_gravity(rig):
    """A 1 kg mass at 0.5 m needs 4.905 N*m: held with 20 N*m, sags with 3 N*m."""
    sim, robot = rig
    arm = robot.getDevice("arm")
    arm.setPosition(0.0)
    arm.enableTorqueFeedback(16)
    robot.step(1000)
    q, _ = joint_state(sim, "arm")
    assert abs(q) < 1e-2
    # A positive motor torque turns the joint positively; gravity turns this arm positively about +y.
    assert arm.getTorqueFeedback() == pytest.approx(-0.5 * 9.81, rel=2e-2)
    arm.setAvailableTorque(3.0)
    robot.step(500)
    assert joint_state(sim, "arm")[0] > 0.3


def test_position_limits_clamp_target_with_warning(rig, capfd):
    sim, robot = rig
    arm = robot.getDevice("arm")
    arm.setPosition(2.0)
    assert "too big requested position: 2 > 1" in capfd.readouterr().err
    assert arm.getTargetPosition() == 2.0  # the controller library's cached request, as in Webots
    robot.step(1000)
    assert joint_state(sim, "arm")[0] == pytest.approx(1.0, abs=1e-2)  # the simulator clamped the target
    arm.setPosition(-3.0)
    assert "too low requested position: -3 < -1" in capfd.readouterr().err
    assert arm.getTargetPosition() == -3.0
    robot.step(1000)
    assert joint_state(sim, "arm")[0] == pytest.approx(-1.0, abs=1e-2)


def test_feedback_refused_without_physics_parent(rig, capfd):
    sim, robot = rig
    wheel = robot.getDevice("wheel")
    wheel.enableTorqueFeedback(16)
    assert "cannot be invoked because the parent Solid has no Physics node." in capfd.readouterr().err
    assert wheel.getTorqueFeedbackSamplingPeriod() == 0


def test_available_torque_above_max_is_clamped(rig, capfd):
    sim, robot = rig
    wheel = robot.getDevice("wheel")
    wheel.setAvailableTorque(150.0)
    assert "exceeds 'maxTorque' = 100" in capfd.readouterr().err
    assert wheel.getAvailableTorque() == 150.0  # cached as requested, like Webots' controller library
    assert sim.banks["motor"].available[wheel._core.index] == 100.0


MULTIPLIED = """
WorldInfo { basicTimeStep 16 }
Robot {
  name "r"
  controller "<extern>"
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 0 1 position 0.2 }
      device [ RotationalMotor { name "m" multiplier -2 maxVelocity 10 maxTorque 100 } PositionSensor { name "s" } ]
      endPoint Solid { rotation 0 0 1 0.2 physics Physics { density -1 mass 1 } boundingObject Cylinder { radius 0.1 height 0.02 } }
    }
  ]
}
"""


def test_multiplier_scales_commands_but_getters_return_the_request(project, load):
    """Webots multiplies position, velocity and torque in the simulator; the controller library caches the
    requested values (getTargetPosition starts as the joint's position from the configure message)."""
    sim = load(project(MULTIPLIED))
    robot = sim.robot("r")
    motor, sensor = robot.getDevice("m"), robot.getDevice("s")
    assert motor.getTargetPosition() == pytest.approx(0.2) and motor.getMultiplier() == -2.0
    sensor.enable(16)
    motor.setPosition(0.25)
    motor.setVelocity(3.0)
    assert motor.getTargetPosition() == 0.25 and motor.getVelocity() == 3.0
    speeds = []
    for _ in range(60):
        robot.step(16)
        speeds.append(abs(joint_state(sim, "m")[1]))
    assert max(speeds) == pytest.approx(6.0, rel=1e-3)  # |3 * -2|
    assert sensor.getValue() == pytest.approx(-0.5, abs=1e-4)  # sensors read the joint, no multiplier
    motor.setPosition(motor.getTargetPosition() + 0.05)
    robot.step(800)
    assert sensor.getValue() == pytest.approx(-0.6, abs=1e-4)
    sim.reset()  # a restarted world configures the cache again
    assert motor.getTargetPosition() == pytest.approx(0.2) and motor.getVelocity() == 10.0


def test_zero_available_torque_means_no_control(rig):
    sim, robot = rig
    wheel = robot.getDevice("wheel")
    wheel.setTorque(0.5)
    robot.step(160)
    spinning = joint_state(sim, "wheel")[1]
    wheel.setPosition(float("inf"))
    wheel.setVelocity(0.0)
    wheel.setAvailableTorque(0.0)
    robot.step(160)
    assert joint_state(sim, "wheel")[1] == pytest.approx(spinning, rel=1e-6)


def test_linear_motor_velocity_and_force(rig):
    sim, robot = rig
    slider = robot.getDevice("slider")
    slider.setPosition(float("inf"))
    slider.setVelocity(1.5)
    robot.step(160)
    assert joint_state(sim, "slider")[1] == pytest.approx(1.5, rel=1e-3)
    slider.setForce(10.0)
    before = joint_state(sim, "slider")[1]
    robot.step(160)
    assert joint_state(sim, "slider")[1] - before == pytest.approx(10.0 / 2.0 * 0.16, rel=1e-3)


def test_invalid_arguments_print_controller_library_errors(rig, capfd):
    sim, robot = rig
    wheel = robot.getDevice("wheel")
    wheel.setPosition(float("nan"))
    wheel.setAcceleration(-2.0)
    wheel.setAvailableTorque(-1.0)
    wheel.setControlPID(0.0, 0.0, 0.0)
    err = capfd.readouterr().err
    assert "wb_motor_set_position() called with an invalid 'position' argument (NaN)." in err
    assert "wb_motor_set_acceleration() called with negative 'acceleration' argument." in err
    assert "wb_motor_set_available_force() called with negative 'force' argument." in err
    assert "wb_motor_set_control_pid() called with negative or zero 'p' argument." in err
    assert wheel.getTargetPosition() == 0.0


def test_position_control_with_integral_and_derivative_follows_webots_recurrence(rig):
    """Webots' PID: out = P e + I sum(e ts) + D (e - e_prev) / ts, clamped to the set velocity; the integral
    winds up (overshoot) and the first derivative term is a kick."""
    sim, robot = rig
    wheel = robot.getDevice("wheel")
    p, i, d, limit = 8.0, 20.0, 0.02, 5.0
    wheel.setControlPID(p, i, d)
    wheel.setVelocity(limit)
    wheel.setPosition(1.0)
    q = integral = previous = 0.0
    expected = []
    for _ in range(60):
        error = 1.0 - q
        integral += error * TS
        out = p * error + i * integral + d * (error - previous) / TS
        previous = error
        q += (out if abs(out) < limit else math.copysign(limit, out)) * TS
        expected.append(q)
    measured = []
    for _ in range(60):
        robot.step(16)
        measured.append(joint_state(sim, "wheel")[0])
    np.testing.assert_allclose(measured, expected, atol=5e-4)
    assert max(measured) > 1.05  # the integral overshoots, which a P controller would not


def test_motor_and_sensor_siblings(rig):
    sim, robot = rig
    wheel = robot.getDevice("wheel")
    sensor = robot.getDevice("wheel sensor")
    assert wheel.getPositionSensor() is sensor
    assert sensor.getMotor() is wheel
    assert robot.getDevice("slider").getPositionSensor() is None


KINEMATIC = """
WorldInfo { basicTimeStep 10 }
Robot {
  name "k"
  controller "<extern>"
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 0 1 }
      device [ RotationalMotor { name "m" maxTorque 10 } ]
      endPoint Solid { boundingObject Box { size 0.1 0.1 0.1 } }
    }
  ]
}
"""


def test_kinematic_joint_ramps_velocity_at_available_torque(project, load):
    """Webots moves endPoints without Physics kinematically, accelerating at 'maxTorque' rad/s^2."""
    sim = load(project(KINEMATIC))
    robot = sim.robot("k")
    motor = robot.getDevice("m")
    motor.setPosition(1.0)
    q = v = 0.0
    expected = []
    for _ in range(30):
        v = min(v + 10.0 * 0.01, 10.0)
        q = min(q + v * 0.01, 1.0)
        expected.append(q)
    measured = []
    binding = sim.bindings.devices["motor"][0]
    for _ in range(30):
        robot.step(10)
        measured.append(float(sim.data.qpos[binding.joint.qpos_adr]))
    np.testing.assert_allclose(measured, expected, atol=1e-3)


# -- oracle: the vectorised law against a scalar transcription of Webots' computeCurrentDynamicVelocity ----
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from wbsim.devices.motor.bank import control_law  # noqa: E402


def webots_reference(q, target, vt, p, i, d, integral, previous, current, accel, available, ts):
    """One motor, one step, written as in Webots' WbMotor::computeCurrentDynamicVelocity."""
    if available == 0.0:
        return 0.0, integral, previous, 0.0
    v = vt
    if not math.isinf(target):
        error = target - q
        integral += error * ts
        derivative = (error - previous) / ts
        out = p * error + i * integral + d * derivative
        previous = error
        v = out if abs(out) < abs(vt) else (1.0 if out > 0 else -1.0) * abs(vt)
    if accel != -1.0:
        gap = v - current
        step = min(accel, abs(gap) / ts) * ts
        v = current + math.copysign(step, gap) if gap != 0 else current
    return v, integral, previous, v


finite = st.floats(-50, 50, allow_nan=False)
motor_state = st.tuples(
    finite,  # q
    st.one_of(finite, st.just(math.inf), st.just(-math.inf)),  # target
    st.floats(-20, 20, allow_nan=False),  # target velocity
    st.floats(0.01, 100), st.floats(0, 10), st.floats(0, 1),  # P I D
    finite, finite, finite,  # integral, previous error, current velocity
    st.one_of(st.just(-1.0), st.floats(0, 500)),  # acceleration
    st.one_of(st.just(0.0), st.floats(0.1, 100)),  # available
)


@settings(max_examples=200, deadline=None)
@given(st.lists(motor_state, min_size=1, max_size=12), st.sampled_from([0.001, 0.008, 0.016, 0.032]))
def test_vectorised_law_matches_scalar_webots_reference(states, ts):
    columns = [np.array(c, dtype=float) for c in zip(*states)]
    q, target, vt, p, i, d, integral, previous, current, accel, available = columns
    v, new_integral, new_previous, new_current = control_law(
        q, target, vt, np.stack([p, i, d], axis=1), integral, previous, current, accel, available, ts
    )
    for k, state in enumerate(states):
        ref = webots_reference(*state, ts)
        # Also without available torque: Webots then leaves the PID state untouched.
        np.testing.assert_allclose([v[k], new_integral[k], new_previous[k]], ref[:3], rtol=1e-12, atol=1e-12)
        assert new_current[k] == v[k]


def test_python_properties_torque_and_feedback_period(rig):
    sim, robot = rig
    wheel = robot.getDevice("wheel")
    wheel.torque = 0.5  # Webots' write-only property: setTorque
    robot.step(160)
    assert joint_state(sim, "wheel")[1] == pytest.approx(0.5 / WHEEL_INERTIA * 0.16, rel=1e-3)
    arm = robot.getDevice("arm")  # its parent Solid has Physics, so feedback can be enabled
    arm.torque_feedback_sampling_period = 32
    assert arm.getTorqueFeedbackSamplingPeriod() == arm.force_feedback_sampling_period == 32
    assert wheel.brake is None and wheel.getBrake() is None


def test_set_velocity_odd_values_types_reset_and_position_control_after_velocity_control(rig, capfd):
    """setVelocity (its inline cache check and one-double fast path): NaN is refused and changes nothing;
    +/-inf is kept as requested by the library and clamped by the simulator with Webots' warning; ints, bools
    and numpy floats arrive as Python floats; after ``sim.reset()`` the library's cache is configured again
    (position control again, so a negative velocity is refused); position control after velocity control
    moves to the target at the set speed limit."""
    sim, robot = rig
    wheel = robot.getDevice("wheel")
    bank, row = wheel._core.bank, wheel._core.index
    wheel.setPosition(float("inf"))
    wheel.setVelocity(float("nan"))
    assert "called with an invalid 'velocity' argument (NaN)" in capfd.readouterr().err
    assert wheel.getVelocity() == 10.0 and bank.target_velocity[row] == 10.0
    for value, clamped in ((float("inf"), 10.0), (float("-inf"), -10.0)):
        wheel.setVelocity(value)
        assert f"The requested velocity {value:g} exceeds 'maxVelocity' = 10" in capfd.readouterr().err
        assert wheel.getVelocity() == value and bank.target_velocity[row] == clamped
    for value in (3, True, np.float64(2.5)):
        wheel.setVelocity(value)
        assert type(wheel.getVelocity()) is float and wheel.getVelocity() == float(value)
    assert type(bank.target_velocity[row].item()) is float and bank.target_velocity[row] == 2.5
    robot.step(160)
    assert joint_state(sim, "wheel")[1] == pytest.approx(2.5, rel=1e-3)
    # Position control after velocity control: from where the wheel is, to 1 rad further, at most 4 rad/s.
    start = joint_state(sim, "wheel")[0]
    wheel.setVelocity(4.0)
    wheel.setPosition(start + 1.0)
    speeds = []
    for _ in range(100):
        robot.step(16)
        speeds.append(joint_state(sim, "wheel")[1])
    assert max(speeds) <= 4.0 * (1 + 1e-3) and max(speeds) == pytest.approx(4.0, rel=1e-3)
    assert joint_state(sim, "wheel")[0] == pytest.approx(start + 1.0, abs=1e-3)
    wheel.setPosition(float("inf"))
    sim.reset()
    capfd.readouterr()
    wheel.setVelocity(-1.0)  # after the reset the motor is in position control again: refused
    assert "negative 'velocity' argument in position control mode" in capfd.readouterr().err
    assert wheel.getVelocity() == 10.0 and bank.target_velocity[row] == 10.0


def test_set_velocity_inline_write_equals_the_core_motors_bit_for_bit(project, load, capfd):
    """The API's setVelocity writes an uncoupled motor's target itself when it is within maxVelocity (the core
    motor's computation, inline); for every value, type and multiplier it leaves exactly the target, and the
    warnings, that the core motor's ``set_velocity`` leaves (over maxVelocity the core's own path runs)."""
    sim = load(project(MULTIPLIED))
    robot = sim.robot("r")
    motor = robot.getDevice("m")
    core = motor._core
    bank, row = core.bank, core.index
    assert core.coupled_rows is None and bank.multiplier[row] == -2.0
    motor.setPosition(float("inf"))
    values = [0.0, -0.0, 1e-300, 3.0, -4.999999999999999, 5.0, -5.0, 5.000000000000001, 7.5, -1e9,
              float("inf"), float("-inf"), 1, True, np.float64(2.25), 0.1 + 0.2]
    for multiplier in (-2.0, 1.0, 0.3, 1e-308):
        bank.multiplier[row] = multiplier
        motor._bind()  # the API reads the multiplier at binding (fixed at load; a recompiled world binds again)
        for value in values:
            bank.target_velocity[row] = 123.0
            core.set_velocity(float(value))
            expected, expected_out = bank.target_velocity[row].tobytes(), capfd.readouterr().err
            bank.target_velocity[row] = 123.0
            motor.setVelocity(value)
            assert bank.target_velocity[row].tobytes() == expected, (multiplier, value)
            assert capfd.readouterr().err == expected_out


def test_set_velocity_inline_write_equals_the_core_motors_at_the_max_velocity_edges(project, load, capfd):
    """The inline write against the core motor's ``set_velocity`` where maxVelocity is 0, tiny, or infinite
    and where the multiplier is 0 (an infinite request then scales to NaN): the same doubles (NaN included)
    and the same warnings."""
    sim = load(project(MULTIPLIED))
    motor = sim.robot("r").getDevice("m")
    core = motor._core
    bank, row = core.bank, core.index
    motor.setPosition(float("inf"))
    values = [0.0, -0.0, 5e-324, -5e-324, 1e-300, 2.0, -2.0, 1e308, float("inf"), float("-inf")]
    for limit in (0.0, 5e-324, 1e-300, 10.0, float("inf")):
        bank.max_velocity[row] = limit
        for multiplier in (1.0, -2.0, 0.0, -0.0):
            bank.multiplier[row] = multiplier
            motor._bind()  # as above: read at binding
            for value in values:
                bank.target_velocity[row] = 123.0
                core.set_velocity(value)
                expected, expected_out = bank.target_velocity[row].tobytes(), capfd.readouterr().err
                bank.target_velocity[row] = 123.0
                motor.setVelocity(value)
                assert bank.target_velocity[row].tobytes() == expected, (limit, multiplier, value)
                assert capfd.readouterr().err == expected_out, (limit, multiplier, value)


@pytest.mark.parametrize("value", ["1.5", None, b"2", 1j, [1.0], 10**400, object()])
def test_set_velocity_refuses_what_the_bindings_c_double_refuses(project, load, value):
    """setVelocity converts its own argument (no c_arguments entry): an argument ``ctypes.c_double`` refuses
    raises the same exception with the same message, as Webots' binding would, and changes nothing."""
    import ctypes

    sim = load(project(MULTIPLIED))
    motor = sim.robot("r").getDevice("m")
    bank, row = motor._core.bank, motor._core.index
    motor.setPosition(float("inf"))
    motor.setVelocity(velocity=2)  # by keyword too, converted
    assert motor.getVelocity() == 2.0 and type(motor.getVelocity()) is float
    assert bank.target_velocity[row] == -4.0
    with pytest.raises(Exception) as binding:
        ctypes.c_double(value)
    with pytest.raises(binding.type) as ours:
        motor.setVelocity(value)
    assert str(ours.value) == str(binding.value)
    assert motor.getVelocity() == 2.0 and bank.target_velocity[row] == -4.0


@pytest.mark.parametrize("reset", ["world reset", "reset"])
def test_set_velocity_drives_the_motor_after_a_reset(rig, reset):
    """The Motor objects a controller keeps across a world reset (``simulationReset``, controllers running) or
    ``sim.reset()`` (an ``<extern>`` script's objects) still drive their motors: a reset gives the motors their
    initial state in the arrays the API objects write to (setVelocity keeps the bank's target array)."""
    sim, robot = rig
    wheel, slider = robot.getDevice("wheel"), robot.getDevice("slider")
    bank = wheel._core.bank
    for motor in (wheel, slider):
        motor.setPosition(float("inf"))
        motor.setVelocity(1.0)
    robot.step(16)
    if reset == "reset":
        sim.reset()
    else:
        sim.request_world_reset()
        robot.step(16)
    assert bank.target_velocity[wheel._core.index] == 10.0  # maxVelocity: the state after loading
    for motor, velocity in ((wheel, 3.0), (slider, -0.5)):
        motor.setPosition(float("inf"))
        motor.setVelocity(velocity)
        assert bank.target_velocity[motor._core.index] == velocity
    robot.step(320)
    assert joint_state(sim, "wheel")[1] == pytest.approx(3.0, rel=1e-3)
    assert joint_state(sim, "slider")[1] == pytest.approx(-0.5, rel=1e-3)
