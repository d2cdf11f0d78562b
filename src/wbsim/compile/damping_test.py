"""Tests for wbsim.compile.damping: Webots damping as velocity actuators at the centre of mass."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbsim.compile.damping import DampedBody, _principal_frame, add_damping_actuators, allow_sleep_of_damped_trees


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0.1, 10.0), min_size=3, max_size=3),
       st.lists(st.floats(-1.0, 1.0), min_size=4, max_size=4).filter(lambda q: np.linalg.norm(q) > 0.1))
def test_principal_frame_diagonalises_the_tensor(moments: list[float], q: list[float]) -> None:
    rotation = np.zeros(9)
    mujoco.mju_quat2Mat(rotation, np.asarray(q) / np.linalg.norm(q))
    r = rotation.reshape(3, 3)
    tensor = r @ np.diag(moments) @ r.T
    found, quat = _principal_frame(np.array([tensor[0, 0], tensor[1, 1], tensor[2, 2], tensor[0, 1], tensor[0, 2],
                                             tensor[1, 2]]))
    axes = np.zeros(9)
    mujoco.mju_quat2Mat(axes, quat)
    a = axes.reshape(3, 3)
    np.testing.assert_allclose(a.T @ tensor @ a, np.diag(found), atol=1e-9 * max(moments))
    np.testing.assert_allclose(sorted(found), sorted(moments), rtol=1e-9)


def box_spec() -> mujoco.MjSpec:
    """A 2 kg free body with an off-origin centre of mass and a non-diagonal inertia, and a motor-driven arm."""
    spec = mujoco.MjSpec()
    spec.compiler.degree = False
    body = spec.worldbody.add_body(name="box", pos=[0, 0, 1])
    body.add_freejoint()
    body.explicitinertial = True
    body.mass = 2.0
    body.ipos = [0.0, 0.0, 0.1]
    body.fullinertia = [0.02, 0.03, 0.04, 0.001, 0.0, 0.002]
    arm = spec.worldbody.add_body(name="arm", pos=[1, 0, 1])
    arm.add_joint(name="hinge", type=mujoco.mjtJoint.mjJNT_HINGE, axis=[0, 0, 1])
    arm.add_geom(type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[0.1, 0, 0], pos=[0.3, 0, 0])
    spec.add_actuator(name="motor", target="hinge", trntype=mujoco.mjtTrn.mjTRN_JOINT)
    return spec


def test_actuators_of_a_free_body_and_zero_fractions() -> None:
    spec = box_spec()
    names = add_damping_actuators(spec, [DampedBody("box", 0.5, 0.0), DampedBody("arm", 0.0, 0.0)])
    assert len(names) == 3  # linear only; nothing for the undamped arm
    model = spec.compile()
    for name in names:
        a = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_ACTUATOR, name)
        assert model.actuator_gainprm[a, 0] == pytest.approx(-math.log(0.5) * 2.0)
        assert model.actuator_biasprm[a, 2] == pytest.approx(math.log(0.5) * 2.0)
    site = model.actuator_trnid[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_ACTUATOR, names[0]), 0]
    np.testing.assert_allclose(model.site_pos[site], [0, 0, 0.1])


def test_full_fraction_is_a_finite_rate() -> None:
    spec = box_spec()
    (name, *_) = add_damping_actuators(spec, [DampedBody("box", 1.0, 1.0)])
    model = spec.compile()
    gain = model.actuator_gainprm[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_ACTUATOR, name), 0]
    assert gain == pytest.approx(-math.log(1e-6) * 2.0)


def test_only_trees_without_other_actuators_may_sleep() -> None:
    spec = box_spec()
    names = add_damping_actuators(spec, [DampedBody("box", 0.2, 0.2), DampedBody("arm", 0.2, 0.2)])
    model = spec.compile()
    box_tree = model.body_treeid[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, "box")]
    arm_tree = model.body_treeid[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, "arm")]
    assert model.tree_sleep_policy[box_tree] == mujoco.mjtSleepPolicy.mjSLEEP_AUTO_NEVER
    allow_sleep_of_damped_trees(model, names)
    assert model.tree_sleep_policy[box_tree] == mujoco.mjtSleepPolicy.mjSLEEP_AUTO_ALLOWED
    assert model.tree_sleep_policy[arm_tree] == mujoco.mjtSleepPolicy.mjSLEEP_AUTO_NEVER  # its motor keeps it awake
