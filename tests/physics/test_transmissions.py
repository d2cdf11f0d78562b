"""ros2_control transmissions attached to mechanisms whose physics is the transmission's map.

Two mechanisms in the x-z plane (gravity along -z), closed with SolidReference loops; every joint is a
SliderJoint, so nothing turns and each loop-closure equation is linear, exactly (docs/transmissions.md,
"Mechanisms that are transmissions"):

- a **wedge** (SimpleTransmission): a LinearMotor slides a block along x; a slider along the wedge face
  (direction (2, 0, -1)) joins it to a carriage on a vertical slider. The loop gives ``x_motor = 2 z``: the
  reduction is 2, and the motor's initial ``position`` 0.1 gives the offset -0.05 (the carriage is at 0 when
  the motor reads 0.1);
- a **differential stage** (DifferentialTransmission, the kinematics of a CoreXY belt drive): two LinearMotors
  slide blocks along x; one is joined to the carriage by a slider along (1, 0, -1), the other along (1, 0, 1), so
  that ``a = x + z`` and ``b = x - z`` (x, z: the carriage's stage and lift sliders). It stands in for a
  pitch/roll differential wrist, which Webots' joints cannot build exactly (no gears or rolling contacts; see
  "Why no pitch/roll wrist" in docs/transmissions.md).

The physical forces are those of rigid, frictionless links, so the effort maps hold as well as the position
maps: a joint-space effort command holds a known load (the carriage's weight).
"""

from __future__ import annotations

import numpy as np
import pytest

from wbsim.transmission import DifferentialTransmission, SimpleTransmission, attach_transmissions

G = 9.81
CARRIAGE_KG = 2.0

WEDGE = """
WorldInfo { basicTimeStep 8 gravity 9.81 }
Robot { name "wedge" controller "<extern>" children [
  Solid { name "base" physics Physics { } boundingObject Box { size 0.02 0.02 0.02 } children [
    SliderJoint { jointParameters JointParameters { axis 0 0 1 }
      device [ PositionSensor { name "lift" } ]
      endPoint Solid { translation 0 0.1 0 name "carriage"
        physics Physics { density -1 mass 2 } boundingObject Box { size 0.05 0.05 0.05 } } }
    SliderJoint { jointParameters JointParameters { axis 1 0 0 position 0.1 }
      device [ LinearMotor { name "drive" maxForce 200 maxVelocity 2 } PositionSensor { name "drive sensor" } ]
      endPoint Solid { translation 0.1 0.2 0 name "slide" physics Physics { density -1 mass 0.5 }
        boundingObject Box { size 0.05 0.05 0.05 } children [
          SliderJoint { jointParameters JointParameters { axis 2 0 -1 }
            endPoint SolidReference { solidName "carriage" } }
        ] } }
  ] }
] }
"""

WEDGE_URDF = """<robot name="wedge">
  <ros2_control name="Wedge" type="system">
    <joint name="lift">
      <command_interface name="position"/><command_interface name="effort"/>
      <state_interface name="position"/><state_interface name="velocity"/><state_interface name="effort"/>
    </joint>
    <transmission name="wedge">
      <plugin>transmission_interface/SimpleTransmission</plugin>
      <actuator name="drive" role="actuator1"/>
      <joint name="lift" role="joint1"><mechanical_reduction>2</mechanical_reduction><offset>-0.05</offset></joint>
    </transmission>
  </ros2_control>
</robot>"""

STAGE = """
WorldInfo { basicTimeStep 8 gravity 9.81 }
Robot { name "stage" controller "<extern>" children [
  Solid { name "base" physics Physics { } boundingObject Box { size 0.02 0.02 0.02 } children [
    SliderJoint { jointParameters JointParameters { axis -1 0 0 }
      device [ PositionSensor { name "x" } ]
      endPoint Solid { translation 0 0.1 0 name "x stage" physics Physics { density -1 mass 1 }
        boundingObject Box { size 0.05 0.05 0.05 } children [
          SliderJoint { jointParameters JointParameters { axis 0 0 1 }
            device [ PositionSensor { name "z" } ]
            endPoint Solid { translation 0 0.1 0 name "carriage"
              physics Physics { density -1 mass 2 } boundingObject Box { size 0.05 0.05 0.05 } } }
        ] } }
    SliderJoint { jointParameters JointParameters { axis 1 0 0 position 0.05 }
      device [ LinearMotor { name "motor a" maxForce 200 maxVelocity 2 } PositionSensor { name "a sensor" } ]
      endPoint Solid { translation 0.05 0.3 0 name "belt a" physics Physics { density -1 mass 0.3 }
        boundingObject Box { size 0.05 0.05 0.05 } children [
          SliderJoint { jointParameters JointParameters { axis 1 0 -1 }
            endPoint SolidReference { solidName "carriage" } }
        ] } }
    SliderJoint { jointParameters JointParameters { axis 1 0 0 position -0.02 }
      device [ LinearMotor { name "motor b" maxForce 200 maxVelocity 2 } PositionSensor { name "b sensor" } ]
      endPoint Solid { translation -0.02 0.4 0 name "belt b" physics Physics { density -1 mass 0.3 }
        boundingObject Box { size 0.05 0.05 0.05 } children [
          SliderJoint { jointParameters JointParameters { axis 1 0 1 }
            endPoint SolidReference { solidName "carriage" } }
        ] } }
  ] }
] }
"""

# x' (axis -1 0 0) = -((a - 0.05) + (b + 0.02)) / 2, z = ((a - 0.05) - (b + 0.02)) / 2.
STAGE_MAP = DifferentialTransmission((1, 1), (-1, 1), (0.015, -0.035))

STAGE_URDF = """<robot name="stage">
  <ros2_control name="Stage" type="system">
    <joint name="x">
      <command_interface name="position"/><command_interface name="effort"/>
      <state_interface name="position"/><state_interface name="velocity"/><state_interface name="effort"/>
    </joint>
    <joint name="z">
      <command_interface name="position"/><command_interface name="effort"/>
      <state_interface name="position"/><state_interface name="velocity"/><state_interface name="effort"/>
    </joint>
    <transmission name="stage">
      <plugin>transmission_interface/DifferentialTransmission</plugin>
      <actuator name="motor a" role="actuator1"><mechanical_reduction>1</mechanical_reduction></actuator>
      <actuator name="motor b" role="actuator2"><mechanical_reduction>1</mechanical_reduction></actuator>
      <joint name="x" role="joint1"><mechanical_reduction>-1</mechanical_reduction><offset>0.015</offset></joint>
      <joint name="z" role="joint2"><mechanical_reduction>1</mechanical_reduction><offset>-0.035</offset></joint>
    </transmission>
  </ros2_control>
</robot>"""


def _setup(project, load, world: str, name: str, urdf: str, **options: object):  # noqa: ANN001, ANN202
    sim = load(project(world), **options)
    robot = sim.robot(name)
    hw = attach_transmissions(robot, urdf)
    sensors = {s: robot.getDevice(s) for s in hw.joint_names}
    for sensor in sensors.values():
        sensor.enable(8)
    return sim, robot, hw, sensors


def test_wedge_measured_joint_follows_the_simple_transmission_of_the_motor(project, load) -> None:
    sim, robot, hw, sensors = _setup(project, load, WEDGE, "wedge", WEDGE_URDF)
    expected_map = SimpleTransmission(2.0, -0.05)
    worst = 0.0
    for k in range(1250):  # 10 s of joint-space sine waves
        t = k * 0.008
        hw.command("lift", "position", 0.04 * np.sin(1.3 * t) + 0.02 * np.sin(3.1 * t))
        hw.write()
        robot.step(8)
        hw.read()
        motor = hw.actuator_states("position")
        measured = sensors["lift"].getValue()
        worst = max(worst, abs(measured - expected_map.actuator_to_joint_values("position", motor)[0]))
        assert hw.state("lift", "position") == pytest.approx(
            expected_map.actuator_to_joint_values("position", motor)[0], abs=1e-12)
    print(f"wedge: largest |sensor - transmission(motor)| over 10 s: {worst:.2e} m")
    assert worst < 5e-5  # the loops are soft constraints (docs/closed_loops.md): micrometres under load


def test_wedge_position_command_reaches_its_target_and_effort_state_is_the_load(project, load) -> None:
    sim, robot, hw, sensors = _setup(project, load, WEDGE, "wedge", WEDGE_URDF)
    hw.command("lift", "position", 0.03)
    hw.write()
    for _ in range(250):
        robot.step(8)
        hw.read()
    assert sensors["lift"].getValue() == pytest.approx(0.03, abs=1e-5)
    assert hw.state("lift", "position") == pytest.approx(0.03, abs=1e-5)
    assert abs(hw.state("lift", "velocity")) < 1e-3
    # Held still by the motor: the joint effort (motor force through the effort map) carries the weight.
    assert hw.state("lift", "effort") == pytest.approx(CARRIAGE_KG * G, rel=0.01)
    assert hw.actuator_states("effort")[0] == pytest.approx(CARRIAGE_KG * G / 2, rel=0.01)


def test_wedge_joint_effort_command_holds_and_lifts_the_load_as_the_power_conserving_map_predicts(
    project, load  # noqa: ANN001
) -> None:
    # One MuJoCo step per basic step: a torque then acts over the whole step, as in ODE. (With several, wbsim
    # front-loads the part of a motor torque that its own joint's bias force does not balance; a load carried
    # through a loop is not in that bias, so it would creep up by g h^2 / 2 per step: docs/transmissions.md.)
    sim, robot, hw, sensors = _setup(project, load, WEDGE, "wedge", WEDGE_URDF, max_physics_step_ms=8)
    robot.step(8)
    start = sensors["lift"].getValue()
    # The weight: the motor pushes with m g / 2, the wedge doubles it.
    for _ in range(125):
        hw.command("lift", "effort", CARRIAGE_KG * G)
        hw.write()
        robot.step(8)
    held = sensors["lift"].getValue() - start
    print(f"wedge held by a joint effort of m g: moved {held:.2e} m in 1 s")
    assert abs(held) < 2e-4
    # 20 % more: a = 0.2 m g / (m + n^2 m_slide) with the slide's mass seen through the reduction n = 2.
    begin = sensors["lift"].getValue()
    steps = 60
    for _ in range(steps):
        hw.command("lift", "effort", 1.2 * CARRIAGE_KG * G)
        hw.write()
        robot.step(8)
    rise = sensors["lift"].getValue() - begin
    acceleration = 0.2 * CARRIAGE_KG * G / (CARRIAGE_KG + 4 * 0.5)
    h = 0.008
    expected = acceleration * h * h * steps * (steps + 1) / 2  # semi-implicit Euler per basic step, as ODE
    print(f"wedge lifted by 1.2 m g: {rise:.5f} m, predicted {expected:.5f} m")
    assert rise == pytest.approx(expected, rel=2e-3)


def test_differential_stage_joints_follow_the_differential_transmission(project, load) -> None:
    sim, robot, hw, sensors = _setup(project, load, STAGE, "stage", STAGE_URDF)
    worst = 0.0
    for k in range(1250):  # 10 s
        t = k * 0.008
        hw.command("x", "position", 0.05 * np.sin(0.9 * t))
        hw.command("z", "position", 0.03 * np.sin(2.3 * t) - 0.01)
        hw.write()
        robot.step(8)
        hw.read()
        motors = hw.actuator_states("position")
        measured = np.array([sensors["x"].getValue(), sensors["z"].getValue()])
        worst = max(worst, float(np.abs(measured - STAGE_MAP.actuator_to_joint_values("position", motors)).max()))
    print(f"stage: largest |sensors - transmission(motors)| over 10 s: {worst:.2e} m")
    assert worst < 5e-5  # the loops are soft constraints (docs/closed_loops.md): micrometres under load
    hw.command("x", "position", 0.04)
    hw.command("z", "position", -0.02)
    hw.write()
    for _ in range(250):
        robot.step(8)
    hw.read()
    np.testing.assert_allclose([sensors["x"].getValue(), sensors["z"].getValue()], [0.04, -0.02], atol=1e-5)
    np.testing.assert_allclose(hw.states("position"), [0.04, -0.02], atol=1e-5)
    # Held still: the joint efforts are the loads, none along x, the carriage's weight along z.
    np.testing.assert_allclose(hw.states("effort"), [0.0, CARRIAGE_KG * G], atol=0.01 * CARRIAGE_KG * G)


def test_differential_stage_joint_effort_commands_hold_the_load(project, load) -> None:
    sim, robot, hw, sensors = _setup(project, load, STAGE, "stage", STAGE_URDF, max_physics_step_ms=8)  # see above
    robot.step(8)
    start = np.array([sensors["x"].getValue(), sensors["z"].getValue()])
    for _ in range(125):
        hw.command("x", "effort", 0.0)
        hw.command("z", "effort", CARRIAGE_KG * G)
        hw.write()
        robot.step(8)
    moved = np.array([sensors["x"].getValue(), sensors["z"].getValue()]) - start
    print(f"stage held by joint efforts (0, m g): moved {moved} m in 1 s")
    assert np.abs(moved).max() < 2e-4
    # The motors got the power-conserving map of the joint efforts: a = -b = m g / 2.
    bank = robot.getDevice("motor a")._core.bank
    rows = [robot.getDevice(n)._core.index for n in ("motor a", "motor b")]
    np.testing.assert_allclose(bank.torque[rows], STAGE_MAP.joint_to_actuator_values("effort", [0.0, CARRIAGE_KG * G]))
    np.testing.assert_allclose(bank.torque[rows], [CARRIAGE_KG * G / 2, -CARRIAGE_KG * G / 2])


FINGER_URDF = """<robot name="four bar finger">
  <ros2_control name="Finger" type="system">
    <joint name="motor 1"><command_interface name="position"/><state_interface name="position"/></joint>
    <joint name="distal joint"><command_interface name="position"/><state_interface name="position"/></joint>
    <transmission name="finger">
      <plugin>transmission_interface/FourBarLinkageTransmission</plugin>
      <actuator name="motor 1" role="actuator1"/>
      <actuator name="motor 2" role="actuator2"/>
      <joint name="motor 1" role="joint1"/>
      <joint name="distal joint" role="joint2"/>
    </transmission>
  </ros2_control>
</robot>"""


def test_four_bar_finger_demo_commanded_in_joint_space_through_attached_transmissions(project, load) -> None:
    # The demo world (examples/worlds/four_bar_finger.wbt) driven from here: its proximal joint is named after
    # its motor ("motor 1"), the distal one after its position sensor, as in Webots' URDF export.
    from pathlib import Path

    world = (Path(__file__).resolve().parents[2] / "examples" / "worlds" / "four_bar_finger.wbt").read_text()
    sim = load(project(world.replace('controller "four_bar_finger"', 'controller "<extern>"')))
    robot = sim.robot("four bar finger")
    hw = attach_transmissions(robot, FINGER_URDF)
    assert hw.joint_names == ["motor 1", "distal joint"]
    distal = robot.getDevice("distal joint")
    distal.enable(8)
    worst = 0.0
    for k in range(1250):  # 10 s
        t = k * 0.008
        hw.command("motor 1", "position", 0.5 * np.sin(2 * np.pi * 0.3 * t))
        hw.command("distal joint", "position", 0.6 * np.sin(2 * np.pi * 0.45 * t))
        hw.write()
        robot.step(8)
        hw.read()
        if k:
            worst = max(worst, abs(distal.getValue() - hw.state("distal joint", "position")))
    print(f"four-bar finger: distal sensor against the transmission of the motors over 10 s: {worst:.2e} rad")
    assert worst < 1e-3
    hw.command("motor 1", "position", 0.2)
    hw.command("distal joint", "position", -0.4)
    hw.write()
    for _ in range(250):
        robot.step(8)
    hw.read()
    np.testing.assert_allclose(hw.states("position"), [0.2, -0.4], atol=1e-4)
    assert distal.getValue() == pytest.approx(-0.4, abs=1e-4)


def test_four_bar_finger_effort_state_and_commands_match_the_gravity_load(project, load) -> None:
    # The demo finger on a base Solid with Physics (Webots gives force feedback only then); one MuJoCo step per
    # basic step for the effort commands (see the wedge). The known load: the joint torques that hold the
    # finger are the derivatives of its potential energy U(j1, j2) = sum m g z (virtual work), measured by
    # moving each joint by +-0.003 rad under position control.
    from pathlib import Path

    world = (Path(__file__).resolve().parents[2] / "examples" / "worlds" / "four_bar_finger.wbt").read_text()
    world = world.replace("  children [\n    Pose {",
                          '  children [ Solid { name "base" physics Physics { density -1 mass 1 } children [\n    Pose {', 1)
    world = world.replace('  ]\n  controller "four_bar_finger"', '  ] } ]\n  controller "<extern>"')
    sim = load(project(world), max_physics_step_ms=8)
    robot = sim.robot("four bar finger")
    interfaces = ('<command_interface name="position"/><command_interface name="effort"/>'
                  '<state_interface name="position"/><state_interface name="effort"/>')
    hw = attach_transmissions(robot, FINGER_URDF.replace(
        '<command_interface name="position"/><state_interface name="position"/>', interfaces))
    joints = hw.joint_names

    def hold(pose: tuple[float, float]) -> tuple[np.ndarray, np.ndarray, float]:
        for joint, value in zip(joints, pose):
            hw.command(joint, "position", value)
        hw.write()
        for _ in range(200):
            robot.step(8)
        hw.read()
        potential = float((sim.model.body_mass * sim.data.xipos[:, 2]).sum() * -sim.model.opt.gravity[2])
        return hw.states("position"), hw.states("effort"), potential

    pose = (0.3, -0.2)
    load_torque = []
    for k in range(2):
        plus, minus = list(pose), list(pose)
        plus[k] += 0.003
        minus[k] -= 0.003
        q_plus, _, u_plus = hold(tuple(plus))
        q_minus, _, u_minus = hold(tuple(minus))
        load_torque.append((u_plus - u_minus) / (q_plus[k] - q_minus[k]))
    _, effort, _ = hold(pose)
    print(f"four-bar finger at {pose}: effort state {effort}, dU/dj {load_torque}")
    np.testing.assert_allclose(effort, load_torque, rtol=1e-3)
    # Held by joint-space effort commands equal to that load (an unstable balance: errors grow, so 0.4 s);
    # 2 % less lets it fall many times further.
    moved = []
    for scale in (1.0, 0.98):
        hold(pose)
        start = hw.states("position")
        for _ in range(50):
            for joint, torque in zip(joints, load_torque):
                hw.command(joint, "effort", scale * torque)
            hw.write()
            robot.step(8)
        hw.read()
        moved.append(float(np.abs(hw.states("position") - start).max()))
    print(f"held by joint efforts dU/dj for 0.4 s: moved {moved[0]:.2e} rad (2 % less: {moved[1]:.2e} rad)")
    assert moved[0] < 5e-3 and moved[1] > 100 * moved[0]
