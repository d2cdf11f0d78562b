"""Node schemas of RotationalMotor and LinearMotor (Webots' ``RotationalMotor.wrl`` / ``LinearMotor.wrl``)."""

from __future__ import annotations

from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.schema import FieldSpec, NodeSchema
from wbsim.world.schema_kit import (
    MINUS_ONE_OR_NON_NEGATIVE,
    NON_NEGATIVE,
    SOUNDS_URL,
    ignored_field,
    node_schema,
    simulated_field,
)

__all__ = ["schemas"]


def _motor_fields(name: str, force_field: str, unit: str) -> list[FieldSpec]:
    return [
        simulated_field("name", T.SFString, name),
        simulated_field("acceleration", T.SFFloat, -1.0, bounds=MINUS_ONE_OR_NON_NEGATIVE, unit=f"{unit}/s^2"),
        ignored_field("consumptionFactor", T.SFFloat, 10.0),
        simulated_field("controlPID", T.SFVec3f, (10.0, 0.0, 0.0), bounds=NON_NEGATIVE),
        simulated_field("maxVelocity", T.SFFloat, 10.0, bounds=NON_NEGATIVE, unit=f"{unit}/s"),
        simulated_field("minPosition", T.SFFloat, 0.0, unit=unit),
        simulated_field("maxPosition", T.SFFloat, 0.0, unit=unit),
        simulated_field(force_field, T.SFFloat, 10.0, bounds=NON_NEGATIVE, unit="N*m" if unit == "rad" else "N"),
        simulated_field("multiplier", T.SFFloat, 1.0),
        ignored_field("sound", T.SFString, f"{SOUNDS_URL}{name.replace(' ', '_')}.wav"),
        ignored_field("muscles", T.MFNode, (), node_kinds=frozenset({"muscle"})),
    ]


def schemas() -> list[NodeSchema]:
    """The RotationalMotor (in hinge joints) and LinearMotor (in slider joints) schemas."""
    return [
        node_schema("RotationalMotor", "rotational_device", _motor_fields("rotational motor", "maxTorque", "rad")),
        node_schema("LinearMotor", "linear_device", _motor_fields("linear motor", "maxForce", "m")),
    ]
