"""The built-in node schemas: field tables of the Webots base nodes that wbsim reads.

Field names, types and defaults follow Webots' ``resources/nodes/*.wrl`` tables; the sanitising rules
(``on_violation="replace"``) are the ones Webots applies itself (see ``webots-behaviour.md`` §5.7 in the
shared reference).
Ranges that Webots documents but does not repair are errors here, so a typo cannot silently change
the physics. The schemas of device nodes (motors, sensors, ...) are declared by their device kinds
(:mod:`wbsim.devices.registry`) and merged into the same table.

Node kinds (where a node may be placed):

- ``solid``: Solid and derived nodes (may be children, endPoints, top-level nodes)
- ``group``: Group, Pose, Transform (grouping nodes for children and boundingObjects)
- ``shape``: Shape; ``geometry``: Box, Sphere, ...; ``light``: lights
- ``joint``; ``hinge_parameters``, ``hinge2_parameters``, ``slider_parameters``, ``ball_parameters``
- ``solid_reference``: SolidReference, only in a joint's ``endPoint``
- ``rotational_device`` / ``linear_device``: what a hinge / slider joint's ``device`` field accepts
- ``world``: nodes that only make sense at the top level (WorldInfo, Viewpoint, Background, Fog)
- single-purpose kinds such as ``physics``, ``damping``, ``appearance``, ``coordinate``
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType

from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.schema import Bounds, FieldSpec, NodeSchema
from wbsim.world.schema_kit import (
    BOUNDING_KINDS,
    CHILD_KINDS,
    INF,
    MINUS_ONE_OR_NON_NEGATIVE,
    MINUS_ONE_OR_POSITIVE,
    NON_NEGATIVE,
    POSITIVE,
    SOUNDS_URL,
    TOP_LEVEL_KINDS,
    UNIT,
    ignored_field as _ign,
    node_schema as _node,
    pose_fields as _pose_fields,
    simulated_field as _f,
    solid_fields as _solid_fields,
    visual_field as _vis,
)

__all__ = ["builtin_schemas", "CHILD_KINDS", "TOP_LEVEL_KINDS", "BOUNDING_KINDS"]

def _joint_position_fields(*names: str) -> list[FieldSpec]:
    """Hidden joint positions that Webots writes when saving a world (used when jointParameters is NULL)."""
    return [_f(name, T.SFFloat, 0.0) for name in names]


def _joint_parameter_fields(axis: tuple[float, float, float] | None, unit: str) -> list[FieldSpec]:
    fields = [_f("position", T.SFFloat, 0.0, unit=unit)]
    if axis is not None:
        fields.append(_f("axis", T.SFVec3f, axis))
    fields += [
        _f("minStop", T.SFFloat, 0.0, unit=unit),
        _f("maxStop", T.SFFloat, 0.0, unit=unit),
        _f("springConstant", T.SFFloat, 0.0, bounds=NON_NEGATIVE),
        _f("dampingConstant", T.SFFloat, 0.0, bounds=NON_NEGATIVE),
        _f("staticFriction", T.SFFloat, 0.0, bounds=NON_NEGATIVE),
    ]
    return fields


# A joint's endPoint: a Solid, or a SolidReference closing a kinematic loop onto an existing Solid.
_END_POINT_KINDS = frozenset({"solid", "solid_reference"})


def _light(name: str, extra: list[FieldSpec]) -> NodeSchema:
    common = [
        _vis("ambientIntensity", T.SFFloat, 0.0),
        _vis("color", T.SFColor, (1.0, 1.0, 1.0)),
        _vis("intensity", T.SFFloat, 1.0),
        _vis("on", T.SFBool, True),
        _vis("castShadows", T.SFBool, False),
    ]
    return _node(name, "light", common + extra, "visual")


# Known Webots nodes that wbsim does not simulate yet: accepted with a warning and skipped,
# so that worlds using them still load. Kinds say where they may appear.
_UNSUPPORTED: dict[str, str] = {
    **dict.fromkeys(
        "Camera Charger Display "
        "LightSensor Microphone Pen Radar Radio RangeFinder Speaker VacuumGripper "
        "Fluid DifferentialWheels".split(),
        "solid",
    ),
    "TransmissionJoint": "joint",
    "Brake": "rotational_device linear_device",
    **dict.fromkeys("Cone Mesh IndexedLineSet PointSet".split(), "geometry"),
    **dict.fromkeys("CadShape ColladaShape VisualShape".split(), "shape"),
    **dict.fromkeys("Billboard Slot".split(), "group"),
    "Muscle": "muscle",
    "ImmersionProperties": "immersion",
    **dict.fromkeys("Focus Lens LensFlare Recognition Zoom".split(), "camera_part"),
    "Cubemap": "cubemap",
    "VacuumCup": "vacuum_cup",
    "JointLink": "joint_link",
}


def _table() -> list[NodeSchema]:
    solid_fields = _solid_fields("solid")
    return [
        _node("WorldInfo", "world", [
            _ign("info", T.MFString, ()),
            _ign("title", T.SFString, ""),
            _ign("window", T.SFString, "<none>"),
            _f("gravity", T.SFFloat, 9.81, unit="m/s^2"),
            _f("CFM", T.SFFloat, 0.00001, bounds=POSITIVE, on_violation="replace", replacement=0.00001),
            _f("ERP", T.SFFloat, 0.2, bounds=UNIT, on_violation="replace", replacement=0.2),
            _f("physics", T.SFString, "<none>"),
            _f("basicTimeStep", T.SFFloat, 32.0, bounds=POSITIVE, on_violation="replace", replacement=32.0,
               unit="ms"),
            _ign("FPS", T.SFFloat, 60.0, bounds=POSITIVE, on_violation="replace", replacement=60.0),
            _ign("optimalThreadCount", T.SFInt32, 1),
            _f("physicsDisableTime", T.SFFloat, 1.0, bounds=NON_NEGATIVE, unit="s"),
            _f("physicsDisableLinearThreshold", T.SFFloat, 0.01, bounds=NON_NEGATIVE, unit="m/s"),
            _f("physicsDisableAngularThreshold", T.SFFloat, 0.01, bounds=NON_NEGATIVE, unit="rad/s"),
            _f("defaultDamping", T.SFNode, None, node_kinds=frozenset({"damping"})),
            _ign("inkEvaporation", T.SFFloat, 0.0),
            _f("coordinateSystem", T.SFString, "ENU", choices=("ENU", "NUE", "EUN")),
            _f("gpsCoordinateSystem", T.SFString, "local", choices=("local", "WGS84")),
            _f("gpsReference", T.SFVec3f, (0.0, 0.0, 0.0), unit="m, or deg deg m"),
            _ign("lineScale", T.SFFloat, 0.1),
            _ign("dragForceScale", T.SFFloat, 30.0),
            _ign("dragTorqueScale", T.SFFloat, 5.0),
            _f("randomSeed", T.SFInt32, 0, bounds=Bounds(0.0, INF, also=(-1.0,)), on_violation="replace",
               replacement=0),
            _f("contactProperties", T.MFNode, (), node_kinds=frozenset({"contact_properties"})),
            _ign("northDirection", T.SFVec3f, (0.0, 1.0, 0.0), deprecated=True),
            _ign("fast2d", T.SFString, "", deprecated=True),
        ]),
        _node("Viewpoint", "world", [
            _vis("fieldOfView", T.SFFloat, 0.785398),
            _vis("orientation", T.SFRotation, (0.0, 0.0, 1.0, 0.0)),
            _vis("position", T.SFVec3f, (0.0, 0.0, 10.0)),
            _vis("description", T.SFString, ""),
            _vis("near", T.SFFloat, 0.05),
            _vis("far", T.SFFloat, 0.0),
            _vis("exposure", T.SFFloat, 1.0),
            _vis("follow", T.SFString, ""),
            _vis("followType", T.SFString, "Tracking Shot",
                 choices=("None", "Tracking Shot", "Mounted Shot", "Pan and Tilt Shot")),
            _vis("followSmoothness", T.SFFloat, 0.5),
            _vis("lensFlare", T.SFNode, None, node_kinds=frozenset({"camera_part"})),
            _vis("ambientOcclusionRadius", T.SFFloat, 2.0),
            _vis("bloomThreshold", T.SFFloat, 21.0),
            _vis("followOrientation", T.SFBool, False, deprecated=True),
        ], "visual"),
        _node("Background", "world", [
            _vis("skyColor", T.MFColor, ((0.0, 0.0, 0.0),)),
            *[_vis(f"{side}Url", T.MFString, ()) for side in ("back", "bottom", "front", "left", "right", "top")],
            *[_vis(f"{side}IrradianceUrl", T.MFString, ())
              for side in ("back", "bottom", "front", "left", "right", "top")],
            _vis("luminosity", T.SFFloat, 1.0),
        ], "visual"),
        _node("Fog", "world", [
            _vis("color", T.SFColor, (1.0, 1.0, 1.0)),
            _vis("fogType", T.SFString, "LINEAR", choices=("LINEAR", "EXPONENTIAL", "EXPONENTIAL2")),
            _vis("visibilityRange", T.SFFloat, 0.0),
        ], "visual"),
        _light("DirectionalLight", [
            _vis("direction", T.SFVec3f, (0.0, 0.0, -1.0)),
            _vis("castLensFlares", T.SFBool, False),
        ]),
        _light("PointLight", [
            _vis("attenuation", T.SFVec3f, (1.0, 0.0, 0.0)),
            _vis("location", T.SFVec3f, (0.0, 0.0, 0.0)),
            _vis("radius", T.SFFloat, 100.0),
        ]),
        _light("SpotLight", [
            _vis("attenuation", T.SFVec3f, (1.0, 0.0, 0.0)),
            _vis("beamWidth", T.SFFloat, 1.570796),
            _vis("cutOffAngle", T.SFFloat, 0.785398),
            _vis("direction", T.SFVec3f, (0.0, 0.0, -1.0)),
            _vis("location", T.SFVec3f, (0.0, 0.0, 0.0)),
            _vis("radius", T.SFFloat, 100.0),
        ]),
        _node("Group", "group", [_f("children", T.MFNode, (), node_kinds=CHILD_KINDS)]),
        _node("Pose", "group", _pose_fields()),
        _node("Transform", "group", _pose_fields() + [
            _f("scale", T.SFVec3f, (1.0, 1.0, 1.0), bounds=Bounds(0.0, INF, lo_open=True)),
        ]),
        _node("Solid", "solid", solid_fields),
        _node("Robot", "solid robot", _solid_fields("robot") + [
            _f("controller", T.SFString, "<generic>"),
            _f("controllerArgs", T.MFString, ()),
            _f("customData", T.SFString, ""),
            _f("supervisor", T.SFBool, False),
            _f("synchronization", T.SFBool, True),
            _ign("battery", T.MFFloat, ()),
            _ign("cpuConsumption", T.SFFloat, 10.0),
            _f("selfCollision", T.SFBool, False),
            _ign("window", T.SFString, "<generic>"),
            _ign("remoteControl", T.SFString, "<none>"),
            _ign("data", T.SFString, "", deprecated=True),
        ]),
        _node("Shape", "shape", [
            _vis("appearance", T.SFNode, None, node_kinds=frozenset({"appearance"})),
            _f("geometry", T.SFNode, None, node_kinds=frozenset({"geometry"})),
            _vis("castShadows", T.SFBool, True),
            _vis("isPickable", T.SFBool, True),
        ]),
        _node("Appearance", "appearance", [
            _vis("material", T.SFNode, None, node_kinds=frozenset({"material"})),
            _vis("texture", T.SFNode, None, node_kinds=frozenset({"texture"})),
            _vis("textureTransform", T.SFNode, None, node_kinds=frozenset({"texture_transform"})),
            _vis("name", T.SFString, "appearance"),
        ], "visual"),
        _node("PBRAppearance", "appearance", [
            _vis("baseColor", T.SFColor, (1.0, 1.0, 1.0)),
            _vis("baseColorMap", T.SFNode, None, node_kinds=frozenset({"texture"})),
            _vis("transparency", T.SFFloat, 0.0),
            _vis("roughness", T.SFFloat, 0.0),
            _vis("roughnessMap", T.SFNode, None, node_kinds=frozenset({"texture"})),
            _vis("metalness", T.SFFloat, 1.0),
            _vis("metalnessMap", T.SFNode, None, node_kinds=frozenset({"texture"})),
            _vis("IBLStrength", T.SFFloat, 1.0),
            _vis("normalMap", T.SFNode, None, node_kinds=frozenset({"texture"})),
            _vis("normalMapFactor", T.SFFloat, 1.0),
            _vis("occlusionMap", T.SFNode, None, node_kinds=frozenset({"texture"})),
            _vis("occlusionMapStrength", T.SFFloat, 1.0),
            _vis("emissiveColor", T.SFColor, (0.0, 0.0, 0.0)),
            _vis("emissiveColorMap", T.SFNode, None, node_kinds=frozenset({"texture"})),
            _vis("emissiveIntensity", T.SFFloat, 1.0),
            _vis("textureTransform", T.SFNode, None, node_kinds=frozenset({"texture_transform"})),
            _vis("name", T.SFString, "PBRAppearance"),
        ], "visual"),
        _node("Material", "material", [
            _vis("ambientIntensity", T.SFFloat, 0.2),
            _vis("diffuseColor", T.SFColor, (0.8, 0.8, 0.8)),
            _vis("emissiveColor", T.SFColor, (0.0, 0.0, 0.0)),
            _vis("shininess", T.SFFloat, 0.2),
            _vis("specularColor", T.SFColor, (0.0, 0.0, 0.0)),
            _vis("transparency", T.SFFloat, 0.0),
        ], "visual"),
        _node("ImageTexture", "texture", [
            _vis("url", T.MFString, ()),
            _vis("repeatS", T.SFBool, True),
            _vis("repeatT", T.SFBool, True),
            _vis("filtering", T.SFInt32, 4),
        ], "visual"),
        _node("TextureTransform", "texture_transform", [
            _vis("center", T.SFVec2f, (0.0, 0.0)),
            _vis("rotation", T.SFFloat, 0.0),
            _vis("scale", T.SFVec2f, (1.0, 1.0)),
            _vis("translation", T.SFVec2f, (0.0, 0.0)),
        ], "visual"),
        _node("Box", "geometry", [_f("size", T.SFVec3f, (2.0, 2.0, 2.0), bounds=POSITIVE, unit="m")]),
        _node("Sphere", "geometry", [
            _f("radius", T.SFFloat, 1.0, bounds=POSITIVE, unit="m"),
            _vis("subdivision", T.SFInt32, 1),
            _vis("ico", T.SFBool, True),
        ]),
        _node("Cylinder", "geometry", [
            _vis("bottom", T.SFBool, True),
            _f("height", T.SFFloat, 2.0, bounds=POSITIVE, unit="m"),
            _f("radius", T.SFFloat, 1.0, bounds=POSITIVE, unit="m"),
            _vis("side", T.SFBool, True),
            _vis("top", T.SFBool, True),
            _vis("subdivision", T.SFInt32, 36),
        ]),
        _node("Capsule", "geometry", [
            _vis("bottom", T.SFBool, True),
            _f("height", T.SFFloat, 2.0, bounds=POSITIVE, unit="m"),
            _f("radius", T.SFFloat, 1.0, bounds=POSITIVE, unit="m"),
            _vis("side", T.SFBool, True),
            _vis("top", T.SFBool, True),
            _vis("subdivision", T.SFInt32, 12),
        ]),
        _node("Plane", "geometry", [_vis("size", T.SFVec2f, (1.0, 1.0), bounds=POSITIVE, unit="m")]),
        _node("IndexedFaceSet", "geometry", [
            _f("coord", T.SFNode, None, node_kinds=frozenset({"coordinate"})),
            _vis("normal", T.SFNode, None, node_kinds=frozenset({"normal"})),
            _vis("texCoord", T.SFNode, None, node_kinds=frozenset({"texture_coordinate"})),
            _f("ccw", T.SFBool, True),
            _f("convex", T.SFBool, True),
            _vis("normalPerVertex", T.SFBool, True),
            _f("coordIndex", T.MFInt32, (), bounds=Bounds(-1.0, INF)),
            _vis("normalIndex", T.MFInt32, ()),
            _vis("texCoordIndex", T.MFInt32, ()),
            _vis("creaseAngle", T.SFFloat, 0.0),
        ]),
        _node("Coordinate", "coordinate", [_f("point", T.MFVec3f, (), unit="m")]),
        _node("Normal", "normal", [_vis("vector", T.MFVec3f, ())], "visual"),
        _node("TextureCoordinate", "texture_coordinate", [_vis("point", T.MFVec2f, ())], "visual"),
        _node("Color", "color", [_vis("color", T.MFColor, ())], "visual"),
        _node("ElevationGrid", "geometry", [
            _f("height", T.MFFloat, (), unit="m"),
            _f("xDimension", T.SFInt32, 0, bounds=NON_NEGATIVE),
            _f("xSpacing", T.SFFloat, 1.0, bounds=POSITIVE, unit="m"),
            _f("yDimension", T.SFInt32, 0, bounds=NON_NEGATIVE),
            _f("ySpacing", T.SFFloat, 1.0, bounds=POSITIVE, unit="m"),
            _f("thickness", T.SFFloat, 1.0, bounds=NON_NEGATIVE, unit="m"),
        ]),
        _node("Physics", "physics", [
            _f("density", T.SFFloat, 1000.0, bounds=MINUS_ONE_OR_NON_NEGATIVE, unit="kg/m^3"),
            _f("mass", T.SFFloat, -1.0, bounds=MINUS_ONE_OR_POSITIVE, unit="kg"),
            _f("centerOfMass", T.MFVec3f, (), unit="m"),
            _f("inertiaMatrix", T.MFVec3f, (), unit="kg*m^2"),
            _f("damping", T.SFNode, None, node_kinds=frozenset({"damping"})),
        ]),
        _node("Damping", "damping", [
            _f("linear", T.SFFloat, 0.2, bounds=UNIT, unit="1/s fraction"),
            _f("angular", T.SFFloat, 0.2, bounds=UNIT, unit="1/s fraction"),
        ]),
        _node("ContactProperties", "contact_properties", [
            _f("material1", T.SFString, "default"),
            _f("material2", T.SFString, "default"),
            _f("coulombFriction", T.MFFloat, (1.0,), bounds=MINUS_ONE_OR_NON_NEGATIVE),
            _ign("frictionRotation", T.SFVec2f, (0.0, 0.0)),
            _f("rollingFriction", T.SFVec3f, (0.0, 0.0, 0.0), bounds=MINUS_ONE_OR_NON_NEGATIVE),
            _f("bounce", T.SFFloat, 0.5, bounds=UNIT),
            _f("bounceVelocity", T.SFFloat, 0.01, bounds=NON_NEGATIVE, unit="m/s"),
            _ign("forceDependentSlip", T.MFFloat, (0.0,)),
            _f("softERP", T.SFFloat, 0.2, bounds=UNIT),
            _f("softCFM", T.SFFloat, 0.001, bounds=POSITIVE),
            _ign("bumpSound", T.SFString, f"{SOUNDS_URL}bump.wav"),
            _ign("rollSound", T.SFString, f"{SOUNDS_URL}roll.wav"),
            _ign("slideSound", T.SFString, f"{SOUNDS_URL}slide.wav"),
            _f("maxContactJoints", T.SFInt32, 10, bounds=Bounds(1.0, INF)),
        ]),
        _node("HingeJoint", "joint", [
            _f("jointParameters", T.SFNode, None, node_kinds=frozenset({"hinge_parameters"})),
            _f("device", T.MFNode, (), node_kinds=frozenset({"rotational_device"})),
            _f("endPoint", T.SFNode, None, node_kinds=_END_POINT_KINDS),
            *_joint_position_fields("position"),
        ]),
        _node("HingeJointParameters", "hinge_parameters", _joint_parameter_fields((1.0, 0.0, 0.0), "rad") + [
            _f("anchor", T.SFVec3f, (0.0, 0.0, 0.0), unit="m"),
            # Simulated in a Hinge2Joint; a HingeJoint ignores them with a warning (wbsim.compile.builder).
            _f("suspensionSpringConstant", T.SFFloat, 0.0, unit="N/m"),
            _f("suspensionDampingConstant", T.SFFloat, 0.0, unit="N*s/m"),
            _f("suspensionAxis", T.SFVec3f, (1.0, 0.0, 0.0)),
            _ign("stopERP", T.SFFloat, -1.0),
            _ign("stopCFM", T.SFFloat, -1.0),
        ]),
        _node("Hinge2Joint", "joint", [
            _f("jointParameters", T.SFNode, None, node_kinds=frozenset({"hinge_parameters", "hinge2_parameters"})),
            _f("jointParameters2", T.SFNode, None, node_kinds=frozenset({"slider_parameters"})),
            _f("device", T.MFNode, (), node_kinds=frozenset({"rotational_device"})),
            _f("device2", T.MFNode, (), node_kinds=frozenset({"rotational_device"})),
            _f("endPoint", T.SFNode, None, node_kinds=_END_POINT_KINDS),
            *_joint_position_fields("position", "position2"),
        ]),
        # Deprecated by Webots (a warning when read), accepted in a Hinge2Joint's jointParameters only: a
        # HingeJointParameters whose suspension acts along its axis.
        _node("Hinge2JointParameters", "hinge2_parameters", _joint_parameter_fields((1.0, 0.0, 0.0), "rad") + [
            _f("anchor", T.SFVec3f, (0.0, 0.0, 0.0), unit="m"),
            _f("suspensionSpringConstant", T.SFFloat, 0.0, unit="N/m"),
            _f("suspensionDampingConstant", T.SFFloat, 0.0, unit="N*s/m"),
        ]),
        _node("SliderJoint", "joint", [
            _f("jointParameters", T.SFNode, None, node_kinds=frozenset({"slider_parameters"})),
            _f("device", T.MFNode, (), node_kinds=frozenset({"linear_device"})),
            _f("endPoint", T.SFNode, None, node_kinds=_END_POINT_KINDS),
            *_joint_position_fields("position"),
        ]),
        _node("JointParameters", "slider_parameters", _joint_parameter_fields((0.0, 0.0, 1.0), "m")),
        _node("BallJoint", "joint", [
            _f("jointParameters", T.SFNode, None, node_kinds=frozenset({"ball_parameters"})),
            _f("jointParameters2", T.SFNode, None, node_kinds=frozenset({"slider_parameters", "hinge_parameters"})),
            _f("jointParameters3", T.SFNode, None, node_kinds=frozenset({"slider_parameters", "hinge_parameters"})),
            _f("device", T.MFNode, (), node_kinds=frozenset({"rotational_device"})),
            _f("device2", T.MFNode, (), node_kinds=frozenset({"rotational_device"})),
            _f("device3", T.MFNode, (), node_kinds=frozenset({"rotational_device"})),
            _f("endPoint", T.SFNode, None, node_kinds=_END_POINT_KINDS),
            *_joint_position_fields("position", "position2", "position3"),
        ]),
        # Only in a joint's endPoint: closes a loop onto the Solid named solidName, or onto the static environment
        # with the name "<static environment>" (wbsim.compile.loops).
        _node("SolidReference", "solid_reference", [_f("solidName", T.SFString, "")]),
        _node("BallJointParameters", "ball_parameters", _joint_parameter_fields(None, "rad") + [
            _f("anchor", T.SFVec3f, (0.0, 0.0, 0.0), unit="m"),
        ]),
    ]


@functools.cache
def builtin_schemas() -> Mapping[str, NodeSchema]:
    """All built-in node schemas by type name, including known-but-unsupported Webots nodes.

    The mapping is read-only and built once on first use (not at import time).
    """
    from wbsim.devices.registry import device_kinds  # at call time: device kinds import the world stage

    table = {schema.name: schema for schema in _table()}
    for kind in device_kinds():
        for schema in kind.schemas():
            table[schema.name] = schema
    for name, kinds in _UNSUPPORTED.items():
        table.setdefault(name, NodeSchema(name, {}, frozenset(kinds.split()), "unsupported"))
    return MappingProxyType(table)
