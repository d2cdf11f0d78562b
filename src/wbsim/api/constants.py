"""Node-type constants of the Webots Python API (``Node.ROBOT``, ...).

The numbers are Webots' (the order of ``WbNodeType`` in Webots' ``nodes.h``, where ``WB_NODE_PROPELLER``
has a number although Webots' Python ``Node`` class names no constant for it).
"""

from __future__ import annotations

import re

__all__ = ["NODE_TYPE_NAMES", "node_type_of"]

NODE_TYPE_NAMES: tuple[str, ...] = (
    "NO_NODE", "APPEARANCE", "BACKGROUND", "BILLBOARD", "BOX", "CAD_SHAPE", "CAPSULE", "COLOR", "CONE",
    "COORDINATE", "CYLINDER", "DIRECTIONAL_LIGHT", "ELEVATION_GRID", "FOG", "GROUP", "IMAGE_TEXTURE",
    "INDEXED_FACE_SET", "INDEXED_LINE_SET", "MATERIAL", "MESH", "MUSCLE", "NORMAL", "PBR_APPEARANCE", "PLANE",
    "POINT_LIGHT", "POINT_SET", "POSE", "SHAPE", "SPHERE", "SPOT_LIGHT", "TEXTURE_COORDINATE",
    "TEXTURE_TRANSFORM", "TRANSFORM", "VIEWPOINT", "ROBOT", "ACCELEROMETER", "ALTIMETER", "BRAKE", "CAMERA",
    "COMPASS", "CONNECTOR", "DISPLAY", "DISTANCE_SENSOR", "EMITTER", "GPS", "GYRO", "INERTIAL_UNIT", "LED",
    "LIDAR", "LIGHT_SENSOR", "LINEAR_MOTOR", "PEN", "POSITION_SENSOR", "PROPELLER", "RADAR", "RANGE_FINDER", "RECEIVER",
    "ROTATIONAL_MOTOR", "SKIN", "SPEAKER", "TOUCH_SENSOR", "VACUUM_GRIPPER", "BALL_JOINT",
    "BALL_JOINT_PARAMETERS", "CHARGER", "CONTACT_PROPERTIES", "DAMPING", "FLUID", "FOCUS", "HINGE_JOINT",
    "HINGE_JOINT_PARAMETERS", "HINGE_2_JOINT", "IMMERSION_PROPERTIES",
    "JOINT_PARAMETERS", "LENS", "LENS_FLARE", "PHYSICS", "RECOGNITION", "SLIDER_JOINT", "SLOT", "SOLID",
    "SOLID_REFERENCE", "TRACK", "TRACK_WHEEL", "WORLD_INFO", "ZOOM", "MICROPHONE", "RADIO",
)


def node_type_of(type_name: str) -> int:
    """The ``Node.X`` constant of a Webots node type name, e.g. ``"HingeJoint"`` -> ``Node.HINGE_JOINT``."""
    constant = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", type_name).upper()
    constant = {"PBRAPPEARANCE": "PBR_APPEARANCE", "GPS": "GPS", "LED": "LED"}.get(constant, constant)
    constant = constant.replace("HINGE2", "HINGE_2")
    if constant == "HINGE_2_JOINT_PARAMETERS":  # no number of its own in Webots' enum
        constant = "HINGE_JOINT_PARAMETERS"
    try:
        return NODE_TYPE_NAMES.index(constant)
    except ValueError:
        return 0
