"""Tests of the built-in node schemas against the Webots base-node tables (reference §5.7)."""

from __future__ import annotations

import math

import pytest

from wbsim.world.builtin_nodes import BOUNDING_KINDS, CHILD_KINDS, TOP_LEVEL_KINDS, builtin_schemas
from wbsim.world.fieldtypes import FieldType
from wbsim.world.schema import Bounds, FieldSpec, NodeSchema

SOUNDS = "webots://projects/default/worlds/sounds/"

# -- reference tables (webots-behaviour.md §5.7), as (type, default) per field, in Webots' order -----------

SOLID = {
    "translation": ("SFVec3f", (0, 0, 0)),
    "rotation": ("SFRotation", (0, 0, 1, 0)),
    "children": ("MFNode", ()),
    "name": ("SFString", "solid"),
    "model": ("SFString", ""),
    "description": ("SFString", ""),
    "contactMaterial": ("SFString", "default"),
    "immersionProperties": ("MFNode", ()),
    "boundingObject": ("SFNode", None),
    "physics": ("SFNode", None),
    "locked": ("SFBool", False),
    "radarCrossSection": ("SFFloat", 0.0),
    "recognitionColors": ("MFColor", ()),
    "translationStep": ("SFFloat", 0.01),
    "rotationStep": ("SFFloat", 0.261799387),
    "linearVelocity": ("SFVec3f", (0, 0, 0)),
    "angularVelocity": ("SFVec3f", (0, 0, 0)),
}
POSE = {
    "translation": ("SFVec3f", (0, 0, 0)),
    "rotation": ("SFRotation", (0, 0, 1, 0)),
    "children": ("MFNode", ()),
    "translationStep": ("SFFloat", 0.01),
    "rotationStep": ("SFFloat", 0.261799387),
}


def _motor(name: str, force: str) -> dict[str, tuple[str, object]]:
    return {
        "name": ("SFString", name),
        "acceleration": ("SFFloat", -1),
        "consumptionFactor": ("SFFloat", 10),
        "controlPID": ("SFVec3f", (10, 0, 0)),
        "maxVelocity": ("SFFloat", 10),
        "minPosition": ("SFFloat", 0),
        "maxPosition": ("SFFloat", 0),
        force: ("SFFloat", 10),
        "multiplier": ("SFFloat", 1),
        "sound": ("SFString", SOUNDS + name.replace(" ", "_") + ".wav"),
        "muscles": ("MFNode", ()),
    }


def _joint(*positions: str) -> dict[str, tuple[str, object]]:
    fields: dict[str, tuple[str, object]] = {
        "jointParameters": ("SFNode", None), "device": ("MFNode", ()), "endPoint": ("SFNode", None),
    }
    fields.update({p: ("SFFloat", 0) for p in positions})
    return fields


JOINT_PARAMETERS = {
    "position": ("SFFloat", 0),
    "axis": ("SFVec3f", (0, 0, 1)),
    "minStop": ("SFFloat", 0),
    "maxStop": ("SFFloat", 0),
    "springConstant": ("SFFloat", 0),
    "dampingConstant": ("SFFloat", 0),
    "staticFriction": ("SFFloat", 0),
}

REFERENCE: dict[str, dict[str, tuple[str, object]]] = {
    "Solid": SOLID,
    "Robot": {
        **SOLID,
        "name": ("SFString", "robot"),
        "controller": ("SFString", "<generic>"),
        "controllerArgs": ("MFString", ()),
        "customData": ("SFString", ""),
        "supervisor": ("SFBool", False),
        "synchronization": ("SFBool", True),
        "battery": ("MFFloat", ()),
        "cpuConsumption": ("SFFloat", 10),
        "selfCollision": ("SFBool", False),
        "window": ("SFString", "<generic>"),
        "remoteControl": ("SFString", "<none>"),
        "data": ("SFString", ""),
    },
    "Pose": POSE,
    "Transform": {**POSE, "scale": ("SFVec3f", (1, 1, 1))},
    "Group": {"children": ("MFNode", ())},
    "Shape": {
        "appearance": ("SFNode", None), "geometry": ("SFNode", None), "castShadows": ("SFBool", True),
        "isPickable": ("SFBool", True),
    },
    "Box": {"size": ("SFVec3f", (2, 2, 2))},
    "Sphere": {"radius": ("SFFloat", 1), "subdivision": ("SFInt32", 1), "ico": ("SFBool", True)},
    "Cylinder": {
        "bottom": ("SFBool", True), "height": ("SFFloat", 2), "radius": ("SFFloat", 1), "side": ("SFBool", True),
        "top": ("SFBool", True), "subdivision": ("SFInt32", 36),
    },
    "Capsule": {
        "bottom": ("SFBool", True), "height": ("SFFloat", 2), "radius": ("SFFloat", 1), "side": ("SFBool", True),
        "top": ("SFBool", True), "subdivision": ("SFInt32", 12),
    },
    "Plane": {"size": ("SFVec2f", (1, 1))},
    "ElevationGrid": {
        "height": ("MFFloat", ()), "xDimension": ("SFInt32", 0), "xSpacing": ("SFFloat", 1),
        "yDimension": ("SFInt32", 0), "ySpacing": ("SFFloat", 1), "thickness": ("SFFloat", 1),
    },
    "IndexedFaceSet": {
        "coord": ("SFNode", None), "normal": ("SFNode", None), "texCoord": ("SFNode", None), "ccw": ("SFBool", True),
        "convex": ("SFBool", True), "normalPerVertex": ("SFBool", True), "coordIndex": ("MFInt32", ()),
        "normalIndex": ("MFInt32", ()), "texCoordIndex": ("MFInt32", ()), "creaseAngle": ("SFFloat", 0),
    },
    "Coordinate": {"point": ("MFVec3f", ())},
    "Physics": {
        "density": ("SFFloat", 1000), "mass": ("SFFloat", -1), "centerOfMass": ("MFVec3f", ()),
        "inertiaMatrix": ("MFVec3f", ()), "damping": ("SFNode", None),
    },
    "Damping": {"linear": ("SFFloat", 0.2), "angular": ("SFFloat", 0.2)},
    "HingeJoint": _joint("position"),
    "HingeJointParameters": {
        "position": ("SFFloat", 0), "axis": ("SFVec3f", (1, 0, 0)), "anchor": ("SFVec3f", (0, 0, 0)),
        "minStop": ("SFFloat", 0), "maxStop": ("SFFloat", 0), "springConstant": ("SFFloat", 0),
        "dampingConstant": ("SFFloat", 0), "staticFriction": ("SFFloat", 0),
        "suspensionSpringConstant": ("SFFloat", 0), "suspensionDampingConstant": ("SFFloat", 0),
        "suspensionAxis": ("SFVec3f", (1, 0, 0)), "stopERP": ("SFFloat", -1), "stopCFM": ("SFFloat", -1),
    },
    "SliderJoint": _joint("position"),
    "JointParameters": JOINT_PARAMETERS,
    "BallJoint": {
        **_joint("position", "position2", "position3"),
        "jointParameters2": ("SFNode", None), "jointParameters3": ("SFNode", None),
        "device2": ("MFNode", ()), "device3": ("MFNode", ()),
    },
    "BallJointParameters": {
        "position": ("SFFloat", 0), "anchor": ("SFVec3f", (0, 0, 0)), "minStop": ("SFFloat", 0),
        "maxStop": ("SFFloat", 0), "springConstant": ("SFFloat", 0), "dampingConstant": ("SFFloat", 0),
        "staticFriction": ("SFFloat", 0),
    },
    "RotationalMotor": _motor("rotational motor", "maxTorque"),
    "LinearMotor": _motor("linear motor", "maxForce"),
    "PositionSensor": {"name": ("SFString", "position sensor"), "noise": ("SFFloat", 0), "resolution": ("SFFloat", -1)},
    "WorldInfo": {
        "info": ("MFString", ()), "title": ("SFString", ""), "window": ("SFString", "<none>"),
        "gravity": ("SFFloat", 9.81), "CFM": ("SFFloat", 0.00001), "ERP": ("SFFloat", 0.2),
        "physics": ("SFString", "<none>"), "basicTimeStep": ("SFFloat", 32), "FPS": ("SFFloat", 60),
        "optimalThreadCount": ("SFInt32", 1), "physicsDisableTime": ("SFFloat", 1),
        "physicsDisableLinearThreshold": ("SFFloat", 0.01), "physicsDisableAngularThreshold": ("SFFloat", 0.01),
        "defaultDamping": ("SFNode", None), "inkEvaporation": ("SFFloat", 0),
        "coordinateSystem": ("SFString", "ENU"), "gpsCoordinateSystem": ("SFString", "local"),
        "gpsReference": ("SFVec3f", (0, 0, 0)), "lineScale": ("SFFloat", 0.1), "dragForceScale": ("SFFloat", 30.0),
        "dragTorqueScale": ("SFFloat", 5.0), "randomSeed": ("SFInt32", 0), "contactProperties": ("MFNode", ()),
        "northDirection": ("SFVec3f", (0, 1, 0)), "fast2d": ("SFString", ""),
    },
    "ContactProperties": {
        "material1": ("SFString", "default"), "material2": ("SFString", "default"),
        "coulombFriction": ("MFFloat", (1,)), "frictionRotation": ("SFVec2f", (0, 0)),
        "rollingFriction": ("SFVec3f", (0, 0, 0)), "bounce": ("SFFloat", 0.5), "bounceVelocity": ("SFFloat", 0.01),
        "forceDependentSlip": ("MFFloat", (0,)), "softERP": ("SFFloat", 0.2), "softCFM": ("SFFloat", 0.001),
        "bumpSound": ("SFString", SOUNDS + "bump.wav"), "rollSound": ("SFString", SOUNDS + "roll.wav"),
        "slideSound": ("SFString", SOUNDS + "slide.wav"), "maxContactJoints": ("SFInt32", 10),
    },
}

REQUIRED_NODES = [
    "WorldInfo", "Viewpoint", "Background", "DirectionalLight", "PointLight", "SpotLight", "Solid", "Robot", "Pose",
    "Transform", "Group", "Shape", "Appearance", "PBRAppearance", "Material", "Box", "Sphere", "Cylinder", "Capsule",
    "Plane", "IndexedFaceSet", "Coordinate", "ElevationGrid", "Physics", "Damping", "HingeJoint",
    "HingeJointParameters", "SliderJoint", "JointParameters", "BallJoint", "BallJointParameters", "RotationalMotor",
    "LinearMotor", "PositionSensor", "ContactProperties",
]


def _same(value: object, expected: object) -> bool:
    if isinstance(expected, tuple):
        return isinstance(value, tuple) and len(value) == len(expected) and all(map(_same, value, expected))
    if isinstance(expected, bool) or expected is None or isinstance(expected, str):
        return value is expected or (isinstance(value, str) and value == expected)
    assert isinstance(expected, (int, float))
    return not isinstance(value, bool) and isinstance(value, (int, float)) and value == expected


@pytest.mark.parametrize("name", REQUIRED_NODES)
def test_required_nodes_are_simulated_or_visual(name: str) -> None:
    schema = builtin_schemas()[name]
    assert schema.name == name == schema.base
    assert schema.support in ("simulated", "visual")
    assert schema.fields and not schema.proto


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_fields_types_and_defaults_match_webots(name: str) -> None:
    schema = builtin_schemas()[name]
    reference = REFERENCE[name]
    assert set(schema.fields) == set(reference), f"{name}: fields differ"
    for field_name, (type_name, default) in reference.items():
        spec = schema.fields[field_name]
        assert spec.name == field_name
        assert spec.type is FieldType(type_name), f"{name}.{field_name}"
        assert _same(spec.default, default), f"{name}.{field_name}: {spec.default!r} != {default!r}"


def test_field_order_follows_webots_for_pose() -> None:
    # (Solid keeps translationStep/rotationStep right after the Pose fields, unlike Solid.wrl; order is not used.)
    assert builtin_schemas()["Pose"].field_names == tuple(POSE)
    assert builtin_schemas()["Transform"].field_names == (*POSE, "scale")


def test_deprecated_fields() -> None:
    schemas = builtin_schemas()
    deprecated = {(n, f) for n, s in schemas.items() for f, spec in s.fields.items() if spec.deprecated}
    assert {("WorldInfo", "northDirection"), ("WorldInfo", "fast2d"), ("Robot", "data")} <= deprecated


@pytest.mark.parametrize(
    ("field", "bad", "replacement", "good"),
    [
        ("basicTimeStep", [0.0, -1.0, -32.0], 32.0, [0.001, 1.0, 64.0]),
        ("FPS", [0.0, -5.0], 60.0, [1.0, 120.0]),
        ("CFM", [0.0, -1e-5], 1e-5, [1e-10, 1.0]),
        ("ERP", [-0.01, 1.01, 2.0], 0.2, [0.0, 0.5, 1.0]),
        ("randomSeed", [-2.0, -5.0], 0, [-1.0, 0.0, 42.0]),
    ],
)
def test_worldinfo_sanitising_rules(field: str, bad: list[float], replacement: object, good: list[float]) -> None:
    spec = builtin_schemas()["WorldInfo"].fields[field]
    assert spec.on_violation == "replace"
    assert spec.replacement == replacement and type(spec.replacement) is type(spec.default)
    assert spec.bounds is not None
    assert not any(spec.bounds.contains(v) for v in bad)
    assert all(spec.bounds.contains(v) for v in good)


def test_coordinate_system_choices() -> None:
    spec = builtin_schemas()["WorldInfo"].fields["coordinateSystem"]
    assert spec.choices == ("ENU", "NUE", "EUN")
    assert spec.on_violation == "error"


@pytest.mark.parametrize(
    ("node", "field", "bad", "good"),
    [
        ("Box", "size", [0.0, -1.0], [1e-6]),
        ("Sphere", "radius", [0.0, -1.0], [0.01]),
        ("Cylinder", "height", [0.0], [0.1]),
        ("Cylinder", "radius", [-1.0], [0.1]),
        ("Capsule", "radius", [0.0], [0.1]),
        ("Physics", "density", [-0.5, -2.0], [-1.0, 0.0, 1000.0]),
        ("Physics", "mass", [0.0, -2.0], [-1.0, 0.5]),
        ("Damping", "linear", [-0.1, 1.1], [0.0, 1.0]),
        ("ContactProperties", "coulombFriction", [-2.0], [-1.0, 0.0, 5.0]),
        ("ContactProperties", "bounce", [1.5], [0.0, 1.0]),
        ("RotationalMotor", "maxVelocity", [-1.0], [0.0]),
        ("RotationalMotor", "acceleration", [-0.5], [-1.0, 0.0]),
        ("PositionSensor", "resolution", [0.0, -2.0], [-1.0, 0.001]),
        ("ElevationGrid", "xDimension", [-1.0], [0.0, 2.0]),
        ("Transform", "scale", [0.0, -1.0], [0.5]),
    ],
)
def test_range_errors(node: str, field: str, bad: list[float], good: list[float]) -> None:
    spec = builtin_schemas()[node].fields[field]
    assert spec.on_violation == "error"
    assert spec.bounds is not None
    assert not any(spec.bounds.contains(v) for v in bad)
    assert all(spec.bounds.contains(v) for v in good)


def _check_default(spec: FieldSpec) -> None:
    t = spec.type
    default = spec.default
    if t.is_node:
        assert default == (() if t.is_multiple else None)
        assert spec.node_kinds, f"{spec.name}: node field without node kinds"
        return
    items = default if t.is_multiple else (default,)
    assert isinstance(items, tuple)
    single = t.single
    for item in items:
        if single is FieldType.SFBool:
            assert isinstance(item, bool)
        elif single is FieldType.SFInt32:
            assert type(item) is int
        elif single is FieldType.SFFloat:
            assert type(item) is float
        elif single is FieldType.SFString:
            assert isinstance(item, str)
        else:
            n = {"SFVec2f": 2, "SFVec3f": 3, "SFColor": 3, "SFRotation": 4}[single.value]
            assert isinstance(item, tuple) and len(item) == n and all(type(c) is float for c in item)
        if spec.choices is not None:
            assert item in spec.choices
    if spec.bounds is not None:
        numbers = [c for item in items for c in (item if isinstance(item, tuple) else (item,))]
        assert all(spec.bounds.contains(float(c)) for c in numbers), f"default of {spec.name} is out of bounds"


@pytest.mark.parametrize("name", sorted(builtin_schemas()))
def test_every_default_has_the_python_type_of_its_field_and_respects_its_constraints(name: str) -> None:
    for spec in builtin_schemas()[name].fields.values():
        _check_default(spec)
        if spec.on_violation == "replace":
            # A replaced value is itself valid: inside the bounds, or one of the choices.
            assert (spec.bounds is not None or spec.choices is not None) and spec.replacement is not None
            if spec.choices is not None:
                assert spec.replacement in spec.choices
            if spec.bounds is not None:
                assert spec.bounds.contains(float(spec.replacement))  # type: ignore[arg-type]


def test_node_kinds_referenced_by_fields_exist() -> None:
    schemas = builtin_schemas()
    provided = {kind for s in schemas.values() for kind in s.kinds}
    wanted = {kind for s in schemas.values() for f in s.fields.values() for kind in f.node_kinds}
    assert wanted <= provided, wanted - provided


def test_kind_groups() -> None:
    assert CHILD_KINDS == {"solid", "group", "shape", "joint", "light", "propeller", "skin"}
    assert TOP_LEVEL_KINDS == CHILD_KINDS | {"world"}
    assert BOUNDING_KINDS == {"geometry", "shape", "group"}
    schemas = builtin_schemas()
    assert schemas["Robot"].kinds == {"solid", "robot"}
    assert schemas["PositionSensor"].kinds == {"rotational_device", "linear_device"}
    for name in ("WorldInfo", "Viewpoint", "Background"):
        assert schemas[name].is_a("world")
    for name in ("DirectionalLight", "PointLight", "SpotLight"):
        assert schemas[name].is_a("light")
    for name in ("Box", "Sphere", "Cylinder", "Capsule", "Plane", "IndexedFaceSet", "ElevationGrid"):
        assert schemas[name].is_a("geometry")
    for name in ("HingeJoint", "SliderJoint", "BallJoint"):
        assert schemas[name].is_a("joint")
    assert schemas["HingeJoint"].fields["device"].node_kinds == {"rotational_device"}
    assert schemas["SliderJoint"].fields["device"].node_kinds == {"linear_device"}
    assert schemas["HingeJoint"].fields["jointParameters"].node_kinds == {"hinge_parameters"}
    assert schemas["SliderJoint"].fields["jointParameters"].node_kinds == {"slider_parameters"}
    assert schemas["BallJoint"].fields["jointParameters"].node_kinds == {"ball_parameters"}
    assert schemas["Solid"].fields["boundingObject"].node_kinds == BOUNDING_KINDS
    assert schemas["Solid"].fields["children"].node_kinds == CHILD_KINDS


def test_hinge2_joint_schema() -> None:
    # Webots' Hinge2Joint.wrl: HingeJointParameters (or the deprecated Hinge2JointParameters) for axis 1,
    # JointParameters (default axis 0 0 1) for axis 2, a device list per axis, two hidden positions.
    schemas = builtin_schemas()
    hinge2 = schemas["Hinge2Joint"]
    assert hinge2.support == "simulated" and hinge2.is_a("joint")
    assert list(hinge2.fields) == ["jointParameters", "jointParameters2", "device", "device2", "endPoint",
                                   "position", "position2"]
    assert hinge2.fields["jointParameters"].node_kinds == {"hinge_parameters", "hinge2_parameters"}
    assert hinge2.fields["jointParameters2"].node_kinds == {"slider_parameters"}
    assert hinge2.fields["device2"].node_kinds == {"rotational_device"}
    assert schemas["JointParameters"].fields["axis"].default == (0.0, 0.0, 1.0)
    deprecated = schemas["Hinge2JointParameters"]
    assert deprecated.kinds == {"hinge2_parameters"}
    assert "suspensionAxis" not in deprecated.fields and "stopERP" not in deprecated.fields
    assert deprecated.fields["suspensionSpringConstant"].effect != "ignored"
    # Only a Hinge2Joint takes the deprecated node.
    assert "hinge2_parameters" not in schemas["HingeJoint"].fields["jointParameters"].node_kinds


def test_visual_nodes() -> None:
    schemas = builtin_schemas()
    for name in ("Viewpoint", "Background", "DirectionalLight", "Appearance", "PBRAppearance", "Material"):
        assert schemas[name].support == "visual"
        assert all(spec.effect == "visual" for spec in schemas[name].fields.values())


@pytest.mark.parametrize("name", ["Charger",
                                  "Mesh", "Cone", "Fluid", "TransmissionJoint", "Slot", "Focus", "Muscle"])
def test_known_unsupported_nodes(name: str) -> None:
    schema = builtin_schemas()[name]
    assert schema.support == "unsupported"
    assert schema.fields == {}
    assert schema.kinds


def test_solid_reference_is_an_end_point_only_node() -> None:
    schemas = builtin_schemas()
    reference = schemas["SolidReference"]
    assert reference.support == "simulated" and reference.kinds == frozenset({"solid_reference"})
    assert reference.fields["solidName"].default == ""
    for joint in ("HingeJoint", "SliderJoint", "BallJoint", "Hinge2Joint"):
        assert schemas[joint].fields["endPoint"].node_kinds == frozenset({"solid", "solid_reference"})
    assert "solid_reference" not in schemas["Solid"].fields["children"].node_kinds


def test_builtin_schemas_is_cached_and_read_only() -> None:
    schemas = builtin_schemas()
    assert schemas is builtin_schemas()
    assert all(isinstance(s, NodeSchema) and s.name == n for n, s in schemas.items())
    with pytest.raises(TypeError):
        schemas["X"] = schemas["Box"]  # type: ignore[index]


def test_light_and_material_defaults() -> None:
    schemas = builtin_schemas()
    assert schemas["DirectionalLight"].fields["direction"].default == (0.0, 0.0, -1.0)
    material = schemas["Material"].fields
    assert material["diffuseColor"].default == (0.8, 0.8, 0.8)
    assert material["ambientIntensity"].default == 0.2
    pbr = schemas["PBRAppearance"].fields
    assert pbr["baseColor"].default == (1.0, 1.0, 1.0)
    assert pbr["metalness"].default == 1.0 and pbr["roughness"].default == 0.0
    assert math.isclose(schemas["Viewpoint"].fields["fieldOfView"].default, 0.785398)  # type: ignore[arg-type]


def test_bounds_type_used_for_ranges() -> None:
    spec = builtin_schemas()["WorldInfo"].fields["randomSeed"]
    assert spec.bounds == Bounds(0.0, math.inf, also=(-1.0,))
