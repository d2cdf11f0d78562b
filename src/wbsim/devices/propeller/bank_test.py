"""The propeller bank at run time: coexistence with other users of ``xfrc_applied``, supervisor field writes,
resets, and the motor as controllers see it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wbsim.api.supervisor import Node
from wbsim.compile.builder import compile_world
from wbsim.devices.motor.api import RotationalMotor
from wbsim.sim.simulation import Simulation
from wbsim.world.loader import load_world_model_from_string

MASS, TS = 2.0, 0.032
WORLD = """#VRML_SIM R2023b utf8
WorldInfo { gravity 0 }
DEF DRONE Robot {
  translation 0 0 1
  name "drone"
  supervisor TRUE
  children [
    DEF P Propeller {
      shaftAxis 0 0 1 thrustConstants 0.001 0 torqueConstants 0 0
      device RotationalMotor { name "motor" maxVelocity 200 maxTorque 1e6 }
    }
  ]
  boundingObject Box { size 0.2 0.2 0.05 }
  physics Physics { density -1 mass 2 }
}
"""


@pytest.fixture
def sim() -> Simulation:
    return Simulation(compile_world(load_world_model_from_string(WORLD, "bank.wbt")))


def _spin(sim: Simulation, w: float = 100.0):
    robot = sim.robot("drone")
    motor = robot.getDevice("motor")
    motor.setPosition(math.inf)
    motor.setVelocity(w)
    return robot, motor


def test_supervisor_forces_and_user_xfrc_add_up_and_stay_untouched(sim) -> None:
    robot, _ = _spin(sim)  # thrust 10 N up
    body = sim.bindings.robots[0].solid.body_id
    sim.data.xfrc_applied[body] = [1.0, 0.0, 0.5, 0.0, 0.0, 0.0]  # someone's standing force
    sim.supervision.add_wrench(sim.bindings.robots[0].solid, np.array([0.0, 0.0, 3.0]), torque=False)
    robot.step(32)
    np.testing.assert_allclose(sim.data.qvel[:3], np.array([1.0, 0.0, 10.0 + 3.0 + 0.5]) / MASS * TS, rtol=1e-9)
    # The propeller's wrench and the supervisor's are gone; the standing force is bit-identical.
    assert sim.data.xfrc_applied[body].tolist() == [1.0, 0.0, 0.5, 0.0, 0.0, 0.0]
    sim.data.xfrc_applied[body] = 0.0
    robot.step(32)
    assert not sim.data.xfrc_applied.any()
    assert sim.data.qvel[2] == pytest.approx((2 * 10.0 + 3.0 + 0.5) / MASS * TS, rel=1e-9)


def test_supervisor_writes_on_propeller_fields_apply_from_the_next_step(sim) -> None:
    robot, _ = _spin(sim)
    robot.step(32)
    assert sim.banks["propeller"].thrust[0] == pytest.approx(10.0)
    propeller = robot.getFromDef("P")
    propeller.getField("thrustConstants").setSFVec2f([0.002, 0.0])
    propeller.getField("shaftAxis").setSFVec3f([0.0, 0.0, 0.0])  # Webots' repair: 0 1 0, with its warning
    before = sim.data.qvel[:3].copy()
    robot.step(32)
    assert sim.banks["propeller"].thrust[0] == pytest.approx(20.0)
    np.testing.assert_allclose(sim.data.qvel[:3] - before, np.array([0.0, 20.0, 0.0]) / MASS * TS, atol=1e-12)
    assert propeller.getField("shaftAxis").getSFVec3f() == [0.0, 1.0, 0.0]
    assert any("'shaftAxis'cannot be zero. Defaults to 0 1 0" in m for m in sim.messages.recent)


def test_reset_replays_bit_identically(sim) -> None:
    def run() -> np.ndarray:
        robot, motor = _spin(sim, 150.0)
        motor.setAcceleration(40.0)
        for _ in range(20):
            robot.step(32)
        return np.concatenate([sim.data.qpos, sim.data.qvel, sim.banks["propeller"].current_velocity])

    first = run()
    sim.reset()
    bank = sim.banks["propeller"]
    assert bank.current_velocity[0] == 0.0 and bank.target_position[0] == 0.0 and bank.target_velocity[0] == 200.0
    assert np.array_equal(run(), first)


def test_motor_api_of_a_propeller(sim, capfd) -> None:
    robot = sim.robot("drone")
    motor = robot.getDevice("motor")
    assert isinstance(motor, RotationalMotor) and motor.getNodeType() == Node.ROTATIONAL_MOTOR
    assert robot.getFromDevice(motor) == robot.getFromDef("P").getField("device").getSFNode()
    assert motor.getTargetPosition() == 0.0 and motor.getVelocity() == 200.0 and motor.getMaxTorque() == 1e6
    assert motor.getPositionSensor() is None and motor.getBrake() is None
    motor.setPosition(math.inf)
    motor.setVelocity(300.0)
    assert sim.banks["propeller"].target_velocity[0] == 200.0
    motor.enableTorqueFeedback(32)
    assert motor.getTorqueFeedbackSamplingPeriod() == 0
    assert list(sim.messages.recent)[-2:] == [
        "WARNING: motor: The requested velocity 300 exceeds 'maxVelocity' = 200 (rad/s).",
        "WARNING: motor: Feedback is available for motorized joints only"]
    motor.setTorque(5.0)  # Webots' propeller ignores torque control: still velocity-driven
    robot.step(32)
    assert sim.banks["propeller"].current_velocity[0] == 200.0


@pytest.mark.parametrize("reset", ["world reset", "reset"])
def test_the_motor_object_drives_its_propeller_after_a_reset(sim, reset) -> None:
    """The propeller's RotationalMotor object kept across a world reset or ``sim.reset()`` still sets its speed
    (the bank's target array, which resets update in place)."""
    robot, motor = _spin(sim)
    robot.step(32)
    if reset == "reset":
        sim.reset()
    else:
        sim.request_world_reset()
        robot.step(32)
    motor.setPosition(math.inf)
    motor.setVelocity(50.0)
    assert motor._core.bank.target_velocity[motor._core.index] == 50.0
