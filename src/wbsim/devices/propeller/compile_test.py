"""Propeller schema and compilation: fields, Webots' load rules, which Propellers are devices, and where."""

from __future__ import annotations


import numpy as np
import pytest

from wbsim.compile.builder import compile_world
from wbsim.devices.propeller.compile import DEFAULT_AXIS, normalized_axis
from wbsim.world.builtin_nodes import builtin_schemas
from wbsim.world.loader import load_world_model_from_string

HEADER = "#VRML_SIM R2023b utf8\nWorldInfo { }\n"


def compiled(body: str):
    return compile_world(load_world_model_from_string(HEADER + body, "p.wbt"))


def test_schema_is_webots_propeller_wrl() -> None:
    schema = builtin_schemas()["Propeller"]
    assert schema.support == "simulated" and schema.is_a("propeller") and not schema.is_a("solid")
    defaults = {name: spec.default for name, spec in schema.fields.items()}
    assert defaults == {"shaftAxis": (1.0, 0.0, 0.0), "centerOfThrust": (0.0, 0.0, 0.0), "thrustConstants": (1.0, 0.0),
                        "torqueConstants": (1.0, 0.0), "fastHelixThreshold": 75.4, "device": None, "fastHelix": None,
                        "slowHelix": None}
    assert builtin_schemas()["Solid"].fields["children"].node_kinds >= {"propeller"}


def test_zero_shaft_axis_gets_webots_default_and_text() -> None:
    assert normalized_axis((0.0, 0.0, 0.0)) == (DEFAULT_AXIS, "'shaftAxis'cannot be zero. Defaults to 0 1 0")
    axis, message = normalized_axis((0.0, 3.0, 4.0))
    assert message is None and axis == pytest.approx((0.0, 0.6, 0.8))
    world = compiled('Robot { children [ Propeller { shaftAxis 0 0 0 device RotationalMotor { name "m" } } ] '
                     'physics Physics { } boundingObject Sphere { radius 0.1 } }')
    assert [w.message for w in world.warnings] == ["'shaftAxis'cannot be zero. Defaults to 0 1 0"]
    assert world.bindings.devices["propeller"][0].axis == DEFAULT_AXIS


def test_binding_frame_body_and_thrust_condition() -> None:
    world = compiled("""
Robot {
  name "r"
  children [
    Pose { translation 0.1 0 0 rotation 0 1 0 1.5707963267948966 children [
      Propeller { centerOfThrust 0 0 0.2 device RotationalMotor { name "a" } } ] }
    Solid { name "plate" children [ Propeller { device RotationalMotor { name "b" } } ] }
  ]
  physics Physics { }
  boundingObject Sphere { radius 0.1 }
}""")
    a, b = world.bindings.devices["propeller"]
    robot = world.bindings.robots[0]
    assert a.body_id == robot.solid.body_id and a.thrusting
    np.testing.assert_allclose(a.frame_pos, (0.1, 0.0, 0.0))
    np.testing.assert_allclose(np.array(a.frame_rot) @ (0.0, 0.0, 1.0), (1.0, 0.0, 0.0), atol=1e-12)
    assert not b.thrusting  # the Solid "plate" has no Physics: Webots gives it no body (no solid merger)
    # Webots lists the Propeller's motor among the robot's devices where the Propeller is.
    assert [str(d.node["device"]["name"]) for d in robot.devices] == ["a", "b"]


def test_propellers_that_are_no_device() -> None:
    world = compiled("""
Robot {
  children [
    Propeller { }
    Propeller { device PositionSensor { name "ps" } }
  ]
}""")
    assert world.bindings.devices["propeller"] == () and world.bindings.robots[0].devices == ()
    assert [w.message for w in world.warnings] == [
        "A Propeller's 'device' must be a RotationalMotor: this PositionSensor is ignored."]


def test_propeller_outside_a_robot_and_helix_with_physics_warn() -> None:
    world = compiled("""
Solid {
  children [ Propeller {
    device RotationalMotor { name "m" }
    fastHelix Solid { boundingObject Box { size 0.1 0.1 0.01 } }
    slowHelix Solid { }
  } ]
  physics Physics { }
  boundingObject Sphere { radius 0.1 }
}""")
    messages = [w.message for w in world.warnings]
    assert messages == [
        "wbsim draws no helix and ignores the boundingObject and Physics of a Propeller's helix Solid (Webots moves "
        "it kinematically with the motor).",
        "RotationalMotor 'm' of this Propeller is not inside a Robot: no controller can use it."]
    assert len(world.bindings.devices["propeller"]) == 1 and world.model.nbody == 2  # no body for the helices
