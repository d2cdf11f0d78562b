"""attach_transmissions: binding, reading, commanding and bad bindings, on a robot whose joints are independent.

The joints here are not coupled physically (the physical agreement is in tests/physics/test_transmissions.py):
these tests check that the hardware layer reads the right sensors, maps with the transmission's own formulas
and sends the right motor commands.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from wbsim.errors import TransmissionError
from wbsim.transmission import DifferentialTransmission, SimpleTransmission, attach_transmissions

BENCH = """
WorldInfo { basicTimeStep 8 }
Robot { name "bot" controller "<extern>" supervisor TRUE children [
  DEF BASE Solid { physics Physics { } boundingObject Box { size 0.1 0.1 0.1 } children [
    HingeJoint { jointParameters HingeJointParameters { axis 0 0 1 anchor 1 0 0 }
      device [ RotationalMotor { name "m1" maxTorque 50 } PositionSensor { name "m1 sensor" } ]
      endPoint Solid { translation 1.1 0 0 physics Physics { density -1 mass 1 } boundingObject Box { size 0.2 0.02 0.02 } } }
    HingeJoint { jointParameters HingeJointParameters { axis 0 0 1 anchor 2 0 0 }
      device [ RotationalMotor { name "m2" maxTorque 50 } PositionSensor { name "m2 sensor" } ]
      endPoint Solid { translation 2.1 0 0 physics Physics { density -1 mass 1 } boundingObject Box { size 0.2 0.02 0.02 } } }
    HingeJoint { jointParameters HingeJointParameters { axis 0 0 1 anchor 3 0 0 }
      device [ PositionSensor { name "pitch" } ]
      endPoint Solid { translation 3.1 0 0 physics Physics { density -1 mass 1 } boundingObject Box { size 0.2 0.02 0.02 } } }
    HingeJoint { jointParameters HingeJointParameters { axis 0 0 1 anchor 4 0 0 }
      device [ PositionSensor { name "roll" } ]
      endPoint Solid { translation 4.1 0 0 physics Physics { density -1 mass 1 } boundingObject Box { size 0.2 0.02 0.02 } } }
    HingeJoint { jointParameters HingeJointParameters { axis 0 0 1 anchor 5 0 0 }
      device [ RotationalMotor { name "elbow" maxTorque 50 } PositionSensor { name "elbow sensor" } ]
      endPoint Solid { translation 5.1 0 0 physics Physics { density -1 mass 1 } boundingObject Box { size 0.2 0.02 0.02 } } }
    SliderJoint { jointParameters JointParameters { axis 1 0 0 }
      device [ LinearMotor { name "lift" maxForce 50 } PositionSensor { name "lift sensor" } ]
      endPoint Solid { translation 6 0 0 physics Physics { density -1 mass 1 } boundingObject Box { size 0.1 0.1 0.1 } } }
    HingeJoint { jointParameters HingeJointParameters { axis 0 0 1 anchor 7 0 0 }
      device [ RotationalMotor { name "bare" } ]
      endPoint Solid { translation 7.1 0 0 physics Physics { density -1 mass 1 } boundingObject Box { size 0.2 0.02 0.02 } } }
  ] }
] }
"""

INTERFACES = """<command_interface name="position"/><command_interface name="velocity"/>
      <command_interface name="effort"/>
      <state_interface name="position"/><state_interface name="velocity"/><state_interface name="effort"/>"""


def urdf(transmissions: str, joints: dict[str, str] | None = None) -> str:
    """A URDF whose ros2_control block declares ``joints`` (name -> interface XML) and ``transmissions``."""
    joints = joints if joints is not None else {"pitch": INTERFACES, "roll": INTERFACES, "elbow": INTERFACES}
    declared = "\n".join(f'    <joint name="{n}">{x}</joint>' for n, x in joints.items())
    return f"""<robot name="bot">
  <ros2_control name="Hw" type="system">
{declared}
{transmissions}
  </ros2_control>
</robot>"""


WRIST = """    <transmission name="wrist">
      <plugin>transmission_interface/DifferentialTransmission</plugin>
      <actuator name="m1" role="actuator1"><mechanical_reduction>2</mechanical_reduction></actuator>
      <actuator name="m2" role="actuator2"><mechanical_reduction>-3</mechanical_reduction></actuator>
      <joint name="pitch" role="joint1"><mechanical_reduction>1.5</mechanical_reduction><offset>0.1</offset></joint>
      <joint name="roll" role="joint2"><mechanical_reduction>0.5</mechanical_reduction><offset>-0.2</offset></joint>
    </transmission>"""
ELBOW = """    <transmission name="elbow_drive">
      <plugin>transmission_interface/SimpleTransmission</plugin>
      <actuator name="elbow" role="actuator1"/>
      <joint name="elbow" role="joint1"><mechanical_reduction>-4</mechanical_reduction><offset>0.3</offset></joint>
    </transmission>"""
WRIST_MAP = DifferentialTransmission((2, -3), (1.5, 0.5), (0.1, -0.2))
ELBOW_MAP = SimpleTransmission(-4, 0.3)


@pytest.fixture
def bench(project, load):  # noqa: ANN001, ANN201
    """(sim, robot, hw) with the wrist and the elbow transmissions attached."""
    sim = load(project(BENCH))
    robot = sim.robot("bot")
    return sim, robot, attach_transmissions(robot, urdf(WRIST + ELBOW))


def motor_positions(robot, names=("m1", "m2", "elbow")) -> np.ndarray:  # noqa: ANN001
    return np.array([robot.getDevice(f"{n} sensor").getValue() for n in names])


def test_names_are_in_urdf_and_role_order_and_sensors_are_enabled_at_attach(bench) -> None:  # noqa: ANN001
    _, robot, hw = bench
    assert hw.joint_names == ["pitch", "roll", "elbow"]
    assert hw.actuator_names == ["m1", "m2", "elbow"]
    for name in hw.actuator_names:
        assert robot.getDevice(f"{name} sensor").getSamplingPeriod() == 8
        assert robot.getDevice(name).getTorqueFeedbackSamplingPeriod() == 8
    hw.read()
    assert math.isnan(hw.state("pitch", "position"))  # no sample before the first step, as the sensors


def test_read_maps_the_motor_sensors_through_each_transmission(bench) -> None:  # noqa: ANN001
    _, robot, hw = bench
    for name, speed in (("m1", 1.0), ("m2", -2.0), ("elbow", 0.5)):
        robot.getDevice(name).setPosition(math.inf)
        robot.getDevice(name).setVelocity(speed)
    for _ in range(20):
        robot.step(8)
        hw.read()
    a = motor_positions(robot)
    expected_pos = np.concatenate([WRIST_MAP.actuator_to_joint_values("position", a[:2]),
                                   ELBOW_MAP.actuator_to_joint_values("position", a[2:])])
    np.testing.assert_allclose(hw.states("position"), expected_pos, rtol=1e-12, atol=1e-12)
    assert hw.state("roll", "position") == pytest.approx(expected_pos[1], rel=1e-12)
    # Velocity: position differences over one 8 ms step; the motors turn at 1, -2, 0.5 rad/s.
    expected_vel = np.concatenate([WRIST_MAP.actuator_to_joint_values("velocity", [1.0, -2.0]),
                                   ELBOW_MAP.actuator_to_joint_values("velocity", [0.5])])
    np.testing.assert_allclose(hw.states("velocity"), expected_vel, rtol=1e-6)
    # Effort: the motors' torque feedback through the effort maps.
    feedback = np.array([robot.getDevice(n).getTorqueFeedback() for n in ("m1", "m2", "elbow")])
    expected_eff = np.concatenate([WRIST_MAP.actuator_to_joint_values("effort", feedback[:2]),
                                   ELBOW_MAP.actuator_to_joint_values("effort", feedback[2:])])
    np.testing.assert_allclose(hw.states("effort"), expected_eff, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(hw.actuator_states("position"), a)


def test_position_commands_reach_their_joint_targets(bench) -> None:  # noqa: ANN001
    _, robot, hw = bench
    targets = {"pitch": 0.4, "roll": -0.3, "elbow": 0.2}
    for joint, value in targets.items():
        hw.command(joint, "position", value)
    hw.write()
    assert robot.getDevice("m1").getTargetPosition() == 0.0  # sent at the step, as Webots' library does
    robot.step(8)
    expected = np.concatenate([WRIST_MAP.joint_to_actuator_values("position", [0.4, -0.3]),
                               ELBOW_MAP.joint_to_actuator_values("position", [0.2])])
    got = [robot.getDevice(n).getTargetPosition() for n in ("m1", "m2", "elbow")]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    for _ in range(400):
        robot.step(8)
    hw.read()
    for joint, value in targets.items():
        assert hw.state(joint, "position") == pytest.approx(value, abs=1e-6)


def test_velocity_commands_put_the_motors_in_velocity_control(bench) -> None:  # noqa: ANN001
    _, robot, hw = bench
    hw.command("pitch", "velocity", 0.2)
    hw.command("roll", "velocity", -0.1)
    hw.write()
    robot.step(8)
    m1 = robot.getDevice("m1")
    assert m1.getTargetPosition() == math.inf
    assert m1.getVelocity() == pytest.approx(WRIST_MAP.joint_to_actuator_values("velocity", [0.2, -0.1])[0])
    assert robot.getDevice("elbow").getTargetPosition() == 0.0  # never commanded: untouched
    for _ in range(10):
        robot.step(8)
        hw.read()
    assert hw.state("pitch", "velocity") == pytest.approx(0.2, rel=1e-6)
    assert hw.state("roll", "velocity") == pytest.approx(-0.1, rel=1e-6)
    # A position and a velocity in one write: the velocity is the speed limit of the position control.
    hw.command("pitch", "position", 0.0)
    hw.command("roll", "position", 0.0)
    hw.command("pitch", "velocity", 0.2)
    hw.command("roll", "velocity", -0.1)
    hw.write()
    robot.step(8)
    assert m1.getTargetPosition() == pytest.approx(WRIST_MAP.joint_to_actuator_values("position", [0, 0])[0])
    assert m1.getVelocity() == pytest.approx(abs(WRIST_MAP.joint_to_actuator_values("velocity", [0.2, -0.1])[0]))


def test_effort_commands_set_the_motor_torques(bench) -> None:  # noqa: ANN001
    sim, robot, hw = bench
    hw.command("pitch", "effort", 3.0)
    hw.command("roll", "effort", -1.0)
    hw.command("elbow", "effort", 8.0)
    hw.write()
    robot.step(8)
    bank = robot.getDevice("m1")._core.bank
    rows = [robot.getDevice(n)._core.index for n in ("m1", "m2", "elbow")]
    expected = np.concatenate([WRIST_MAP.joint_to_actuator_values("effort", [3.0, -1.0]),
                               ELBOW_MAP.joint_to_actuator_values("effort", [8.0])])
    np.testing.assert_allclose(bank.torque[rows], expected, rtol=1e-12, atol=1e-12)
    assert (bank.mode[rows] == 1).all()  # torque control


def test_a_transmission_with_a_joint_never_commanded_sends_nothing(bench) -> None:  # noqa: ANN001
    _, robot, hw = bench
    hw.command("pitch", "position", 0.5)  # roll has no position command yet
    hw.write()
    robot.step(8)
    assert robot.getDevice("m1").getTargetPosition() == 0.0
    hw.command("roll", "position", 0.0)
    hw.write()
    robot.step(8)
    assert robot.getDevice("m1").getTargetPosition() == pytest.approx(
        WRIST_MAP.joint_to_actuator_values("position", [0.5, 0.0])[0])


def test_velocity_is_unknown_after_a_reset(bench) -> None:  # noqa: ANN001
    sim, robot, hw = bench
    robot.getDevice("m1").setPosition(math.inf)
    robot.getDevice("m1").setVelocity(1.0)
    for _ in range(3):
        robot.step(8)
        hw.read()
    assert math.isfinite(hw.state("pitch", "velocity"))
    sim.reset()
    robot.step(8)
    hw.read()
    assert math.isnan(hw.state("pitch", "velocity"))


def test_attach_inside_a_controller_with_a_urdf_file(project, load) -> None:  # noqa: ANN001
    controller = f'''
from controller import Robot
from wbsim.transmission import attach_transmissions
robot = Robot()
hw = attach_transmissions(robot, "wrist.urdf")
while robot.step(8) != -1:
    hw.read()
    hw.command("pitch", "position", 0.25)
    hw.command("roll", "position", -0.15)
    hw.write()
'''
    world = BENCH.replace('controller "<extern>" supervisor TRUE', 'controller "wrist"')
    path = project(world, controllers={"wrist": controller})
    (path.parent.parent / "controllers" / "wrist" / "wrist.urdf").write_text(urdf(WRIST))
    sim = load(path)
    sim.run(3.0)
    sensors = [sim.robot("bot").getDevice(n) for n in ("m1 sensor", "m2 sensor")]
    bank = sensors[0]._core.bank
    a = [float(sim.data.qpos[bank.qpos_adr[s._core.index]]) for s in sensors]
    np.testing.assert_allclose(WRIST_MAP.actuator_to_joint_values("position", a), [0.25, -0.15], atol=1e-6)


@pytest.mark.parametrize(
    ("transmissions", "joints", "message"),
    [
        (WRIST.replace('name="m2"', 'name="m3"'), None,
         "transmission 'wrist': actuator 'm3' is not a motor of robot 'bot'; its joint motors are 'bare', "
         "'elbow', 'lift', 'm1', 'm2'."),
        (WRIST.replace('name="roll"', 'name="yaw"'), {"pitch": INTERFACES, "yaw": INTERFACES},
         "transmission 'wrist': joint 'yaw' is not a joint of robot 'bot'; its joints (named after their motor, "
         "else their position sensor) are 'bare', 'elbow', 'lift', 'm1', 'm2', 'pitch', 'roll'."),
        (WRIST + ELBOW.replace('name="elbow" role="actuator1"', 'name="m1" role="actuator1"'), None,
         "transmission 'elbow_drive': actuator 'm1' is already driven by transmission 'wrist'"),
        (WRIST + ELBOW.replace('<joint name="elbow"', '<joint name="roll"'), None,
         "transmission 'elbow_drive': joint 'roll' is already driven by transmission 'wrist'"),
        (WRIST, {"pitch": INTERFACES + '<command_interface name="acceleration"/>', "roll": INTERFACES},
         "transmission 'wrist': joint 'pitch' declares the command interface 'acceleration', which a motor "
         "cannot serve through a transmission; valid command interfaces are 'position', 'velocity', 'effort', "
         "'torque', 'force'."),
        (WRIST, {"pitch": '<state_interface name="current"/>', "roll": INTERFACES},
         "declares the state interface 'current'"),
        (WRIST, {"pitch": '<command_interface name="force"/>', "roll": INTERFACES},
         "joint 'pitch' declares the command interface 'force', but motor 'm1', 'm2' is rotational"),
        (ELBOW.replace('name="elbow" role="actuator1"', 'name="lift" role="actuator1"'),
         {"elbow": '<state_interface name="torque"/>'},
         "joint 'elbow' declares the state interface 'torque', but motor 'lift' is linear"),
        (ELBOW.replace('name="elbow" role="actuator1"', 'name="bare" role="actuator1"'),
         {"elbow": '<state_interface name="position"/>'},
         "transmission 'elbow_drive': actuator 'bare' has no PositionSensor in its joint, needed for the joints' "
         "position or velocity state; motors with a position sensor are 'elbow', 'lift', 'm1', 'm2'."),
    ],
)
def test_bad_bindings_fail_at_attach_naming_the_transmission_element_and_valid_names(
    project, load, transmissions: str, joints: dict[str, str] | None, message: str  # noqa: ANN001
) -> None:
    robot = load(project(BENCH)).robot("bot")
    with pytest.raises(TransmissionError) as error:
        attach_transmissions(robot, urdf(transmissions, joints))
    assert message in str(error.value)
    assert str(error.value).startswith("<string>:")  # located in the URDF


def test_bare_motor_serves_effort_commands_without_a_sensor(project, load) -> None:  # noqa: ANN001
    robot = load(project(BENCH)).robot("bot")
    hw = attach_transmissions(robot, urdf(ELBOW.replace('name="elbow" role="actuator1"', 'name="bare" role="actuator1"'),
                                          {"elbow": '<command_interface name="effort"/><state_interface name="effort"/>'}))
    hw.command("elbow", "effort", 2.0)
    hw.write()
    robot.step(8)
    core = robot.getDevice("bare")._core
    assert core.bank.torque[core.index] == pytest.approx(2.0 / -4)


def test_command_and_state_refuse_unknown_joints_and_undeclared_interfaces(bench) -> None:  # noqa: ANN001
    _, _, hw = bench
    with pytest.raises(TransmissionError, match=r"Unknown joint 'wrist'; the joints of these transmissions are "
                                                r"'pitch', 'roll', 'elbow'\."):
        hw.command("wrist", "position", 0.0)
    with pytest.raises(TransmissionError, match=r"Joint 'pitch' has no command interface 'torque'; its command "
                                                r"interfaces are 'position', 'velocity', 'effort'\."):
        hw.command("pitch", "torque", 1.0)
    with pytest.raises(TransmissionError, match="has no state interface 'absolute_position'"):
        hw.state("pitch", "absolute_position")
    with pytest.raises(TransmissionError, match="must be a real number"):
        hw.command("pitch", "position", "up")


def test_attach_refuses_what_is_not_a_robot() -> None:
    with pytest.raises(TransmissionError, match="needs a Webots Robot or Supervisor object"):
        attach_transmissions(object(), urdf(WRIST))  # type: ignore[arg-type]


def test_robots_attached_at_different_times_and_a_dropped_one_share_the_simulations_maps(project, load) -> None:  # noqa: ANN001
    second = BENCH.replace('name "bot"', 'name "other" translation 0 5 0')
    sim = load(project(BENCH + second))
    bot, other = sim.robot("bot"), sim.robot("other")
    first = attach_transmissions(bot, urdf(WRIST))
    first.command("pitch", "position", 0.2)
    first.command("roll", "position", 0.1)
    first.write()
    late = attach_transmissions(other, urdf(ELBOW))  # joins before the pending write is sent
    late.command("elbow", "position", -0.3)
    late.write()
    for _ in range(300):
        sim.step()
    first.read()
    late.read()
    assert first.state("pitch", "position") == pytest.approx(0.2, abs=1e-6)
    assert first.state("roll", "position") == pytest.approx(0.1, abs=1e-6)
    assert late.state("elbow", "position") == pytest.approx(-0.3, abs=1e-6)
    pool = late._pool
    assert first._pool is pool and pool.n_joints == 3
    del first  # a controller that ended: its slots go at the next step, the others keep their commands
    import gc

    gc.collect()
    late.command("elbow", "position", 0.25)
    late.write()
    for _ in range(300):
        sim.step()
    late.read()
    assert pool.n_joints == 1 and late._j0 == 0
    assert late.state("elbow", "position") == pytest.approx(0.25, abs=1e-6)
    np.testing.assert_allclose(late.commands("position"), [0.25])


def test_motor_rules_apply_to_transmitted_commands(project, load, capsys) -> None:  # noqa: ANN001
    # The elbow motor limited to [-1, 1] rad; the fast path sets what is inside, the API clamps what is not.
    world = BENCH.replace('RotationalMotor { name "elbow" maxTorque 50 }',
                          'RotationalMotor { name "elbow" maxTorque 50 minPosition -1 maxPosition 1 }')
    robot = load(project(world)).robot("bot")
    hw = attach_transmissions(robot, urdf(ELBOW))
    elbow = robot.getDevice("elbow")
    hw.command("elbow", "position", 0.2)  # actuator (0.2 - 0.3) * -4 = 0.4: inside
    hw.write()
    robot.step(8)
    assert elbow.getTargetPosition() == pytest.approx(0.4)
    assert elbow._core.bank.target_position[elbow._core.index] == pytest.approx(0.4)
    hw.command("elbow", "position", -0.1)  # actuator 1.6: clamped to 1 with Webots' warning
    hw.write()
    robot.step(8)
    assert "WARNING: elbow: too big requested position: 1.6 > 1" in capsys.readouterr().err
    assert elbow.getTargetPosition() == pytest.approx(1.6)  # the library keeps the value requested
    assert elbow._core.bank.target_position[elbow._core.index] == pytest.approx(1.0)


def test_a_controller_run_is_bit_identical_after_a_reset(project, load) -> None:  # noqa: ANN001
    controller = '''
import math
from controller import Robot
from wbsim.transmission import attach_transmissions
robot = Robot()
hw = attach_transmissions(robot, "wrist.urdf")
while robot.step(8) != -1:
    hw.read()
    t = robot.getTime()
    hw.command("pitch", "position", 0.3 * math.sin(3 * t))
    hw.command("roll", "velocity", 0.2 * math.cos(2 * t))
    hw.command("roll", "position", 0.1)
    hw.write()
'''
    world = BENCH.replace('controller "<extern>" supervisor TRUE', 'controller "wrist"')
    path = project(world, controllers={"wrist": controller})
    (path.parent.parent / "controllers" / "wrist" / "wrist.urdf").write_text(urdf(WRIST))
    sim = load(path)
    sim.run(1.0)
    first = sim.data.qpos.copy()
    assert np.abs(first).max() > 0.01
    sim.reset()
    sim.run(1.0)
    np.testing.assert_array_equal(sim.data.qpos, first)
    assert sim._transmission_pool.n_joints == 2  # the ended controller's hardware was dropped
