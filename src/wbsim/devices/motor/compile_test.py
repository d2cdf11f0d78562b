"""Tests for the motor compiler: reference armatures sized before compilation, without a second mj_setConst."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from wbsim.compile.builder import compile_world
from wbsim.devices.motor.compile import REFERENCE_ARMATURE_RATIO
from wbsim.devices.motor.motor_test import KINEMATIC, WORLD
from wbsim.world.loader import load_world_model_from_string

HEADER = "#VRML_SIM R2023b utf8\n"

# A two-link arm on a mobile base: the shoulder's subtree holds the elbow, its reference body and a welded
# tool; the links are rotated and their centres of mass off their origins.
ARM = """
WorldInfo { }
Robot {
  name "arm"
  controller "<extern>"
  physics Physics { density -1 mass 3 }
  boundingObject Box { size 0.3 0.2 0.1 }
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 1 1 anchor 0.1 0 0.05 position 0.2 }
      device [ RotationalMotor { name "shoulder" maxTorque 20 } ]
      endPoint Solid {
        translation 0.1 0.1 0.2
        rotation 1 2 3 0.7
        physics Physics { density -1 mass 1 centerOfMass [ 0.05 0 0.02 ] }
        boundingObject Box { size 0.2 0.04 0.04 }
        children [
          SliderJoint {
            jointParameters JointParameters { axis 1 0 0 }
            device [ LinearMotor { name "elbow" maxForce 50 } ]
            endPoint Solid {
              translation 0.2 0 0
              physics Physics { density -1 mass 0.5 }
              boundingObject Capsule { radius 0.02 height 0.1 }
              children [
                Solid {
                  translation 0.05 0.02 0
                  physics Physics { density -1 mass 0.2 }
                  boundingObject Sphere { radius 0.03 }
                }
              ]
            }
          }
        ]
      }
    }
  ]
}
"""


def _compiled_counting_set_const(monkeypatch, world: str):  # noqa: ANN001, ANN202
    calls = []
    original = mujoco.mj_setConst
    monkeypatch.setattr(mujoco, "mj_setConst", lambda *args: (calls.append(1), original(*args))[1])
    return compile_world(load_world_model_from_string(HEADER + world, "motors.wbt")), calls


@pytest.mark.parametrize("world", [WORLD, ARM], ids=["rig", "arm"])
def test_reference_armatures_are_final_at_compilation(monkeypatch, world) -> None:
    compiled, calls = _compiled_counting_set_const(monkeypatch, world)
    model = compiled.model
    motors = [b for b in compiled.bindings.devices["motor"] if b.reference_dof_adr >= 0]
    assert motors
    for binding in motors:
        exact = REFERENCE_ARMATURE_RATIO * float(model.dof_M0[binding.joint.dof_adr])
        assert model.dof_armature[binding.reference_dof_adr] == pytest.approx(exact, rel=1e-12)
    assert calls == []  # no second whole-model pass after MuJoCo's compile
    # The constants MuJoCo derived at compilation are those of the final armatures.
    invweight = np.array(model.dof_invweight0)
    mujoco.mj_setConst(model, mujoco.MjData(model))
    np.testing.assert_allclose(model.dof_invweight0, invweight, rtol=1e-12)


def test_kinematic_joints_still_refresh_constants(monkeypatch) -> None:
    # Kinematic armatures are known only after compilation (relative to the world's compiled inertias).
    compiled, calls = _compiled_counting_set_const(monkeypatch, KINEMATIC)
    assert len(calls) == 1
    model = compiled.model
    binding = compiled.bindings.devices["motor"][0]
    dof = binding.joint.dof_adr
    # Sized from the link's own inertia, as before the kinematic armature was added.
    exact = REFERENCE_ARMATURE_RATIO * float(model.dof_M0[dof] - model.dof_armature[dof])
    assert model.dof_armature[binding.reference_dof_adr] == pytest.approx(exact, rel=1e-6)  # exact - 1e8 rounding
