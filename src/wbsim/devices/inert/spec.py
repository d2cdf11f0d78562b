"""What each inert device is, as data: its fields, what wbsim does not simulate, and what its Webots API
methods answer.

Each entry of :data:`INERT_DEVICES` describes one Webots node type. Its ``members`` map a Webots method
name to what the method does in wbsim:

- ``C(value)``: returns ``value`` (a fresh copy for lists), Webots' "no data" answer (NaN, ``[]``, -1,
  ``None`` for images and image handles, False);
- ``F(field)``: returns the node's field (static device properties such as ``width``, ``fieldOfView``);
- ``T(field)``: returns a lookup table field flattened row by row, as Webots' ``getLookupTable``;
- ``S(key, initial)``: returns the value a controller last set under ``key`` (``initial`` is a ``C`` or
  ``F`` giving the value before any set);
- ``W(key)``: stores its first argument under ``key`` (setters: the value is kept for the getters,
  nothing is simulated).

``properties`` map Webots' Python property names to (getter, setter or None) member names. The
numbers and names come from Webots' node definitions (``resources/nodes/*.wrl``) and Python API.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from wbsim.world.fieldtypes import FieldType as T_
from wbsim.world.schema import FieldSpec
from wbsim.world.schema_kit import ignored_field

__all__ = ["ARG", "C", "F", "T", "S", "W", "Answer", "InertSpec", "INERT_DEVICES", "INERT_NODE_TYPES"]

NAN = math.nan


@dataclass(frozen=True)
class C:
    """A constant answer (lists and tuples are copied on each call)."""

    value: object


@dataclass(frozen=True)
class F:
    """The value of the device node's field ``field``."""

    field: str


@dataclass(frozen=True)
class T:
    """A lookup table field, flattened (``[x0, y0, noise0, x1, ...]``)."""

    field: str


@dataclass(frozen=True)
class S:
    """The value last stored under ``key`` by a ``W`` member, else ``initial``."""

    key: str
    initial: C | F


ARG = object()
"""``W``'s default: store the method's first argument."""


@dataclass(frozen=True)
class W:
    """Store ``value`` (by default the method's first argument) under ``key``; returns None."""

    key: str
    value: object = ARG


Answer = C | F | T | S | W
"""What an inert API method does."""

NONE = C(None)


@dataclass(frozen=True)
class InertSpec:
    """One inert Webots device type.

    Attributes:
        node_type: the Webots node type (``"Camera"``).
        default_name: the default of the ``name`` field.
        api_class: the Webots Python class name, or "" when Webots' Python API has none (a Microphone is
            then a plain ``Device``).
        sensor: the class derives from ``Sensor`` (``enable``, ``disable``, ``getSamplingPeriod``).
        not_simulated: what wbsim does not simulate, for the load warning.
        fields: the node's own fields (after the Solid fields), accepted and ignored.
        members: Webots method name -> what it does (see the module docstring).
        properties: Webots Python property -> (getter member, setter member or None).
        constants: class constants.
    """

    node_type: str
    default_name: str
    api_class: str
    sensor: bool
    not_simulated: str
    fields: tuple[FieldSpec, ...]
    members: Mapping[str, Answer]
    properties: Mapping[str, tuple[str, str | None]] = field(default_factory=dict)
    constants: Mapping[str, int] = field(default_factory=dict)


def _f(name: str, type_: T_, default: object, **kw: object) -> FieldSpec:
    return ignored_field(name, type_, default, **kw)


_CAMERA_PARTS = frozenset({"camera_part"})

_CAMERA = InertSpec(
    node_type="Camera", default_name="camera", api_class="Camera", sensor=True,
    not_simulated="images, recognition and segmentation are not rendered (getImage returns None)",
    fields=(
        _f("fieldOfView", T_.SFFloat, 0.785398), _f("width", T_.SFInt32, 64), _f("height", T_.SFInt32, 64),
        _f("spherical", T_.SFBool, False), _f("projection", T_.SFString, "planar"), _f("near", T_.SFFloat, 0.01),
        _f("far", T_.SFFloat, 0.0), _f("exposure", T_.SFFloat, 1.0), _f("antiAliasing", T_.SFBool, False),
        _f("ambientOcclusionRadius", T_.SFFloat, 0.0), _f("bloomThreshold", T_.SFFloat, -1.0),
        _f("motionBlur", T_.SFFloat, 0.0), _f("noise", T_.SFFloat, 0.0), _f("noiseMaskUrl", T_.SFString, ""),
        _f("lens", T_.SFNode, None, node_kinds=_CAMERA_PARTS), _f("focus", T_.SFNode, None, node_kinds=_CAMERA_PARTS),
        _f("zoom", T_.SFNode, None, node_kinds=_CAMERA_PARTS),
        _f("recognition", T_.SFNode, None, node_kinds=_CAMERA_PARTS),
        _f("lensFlare", T_.SFNode, None, node_kinds=_CAMERA_PARTS),
        _f("windowPosition", T_.SFVec2f, (0.0, 0.0)), _f("pixelSize", T_.SFFloat, 1.0),
        _f("type", T_.SFString, "color"), _f("colorNoise", T_.SFFloat, 0.0),  # deprecated, still accepted
    ),
    members={
        "getExposure": S("exposure", F("exposure")), "setExposure": W("exposure"),
        "getFocalDistance": S("focal_distance", C(0.0)), "setFocalDistance": W("focal_distance"),
        "getFocalLength": C(0.0), "getMaxFocalDistance": C(0.0), "getMinFocalDistance": C(0.0),
        "getFov": S("fov", F("fieldOfView")), "setFov": W("fov"),
        "getMaxFov": F("fieldOfView"), "getMinFov": F("fieldOfView"),
        "getHeight": F("height"), "getWidth": F("width"), "getNear": F("near"),
        "getImage": NONE, "getImageArray": NONE, "saveImage": C(-1),
        "getRecognitionNumberOfObjects": C(0), "getRecognitionObjects": C([]),
        "getRecognitionSamplingPeriod": S("recognition_period", C(0)), "recognitionEnable": W("recognition_period"),
        "recognitionDisable": W("recognition_period", 0), "hasRecognition": C(False),
        "enableRecognitionSegmentation": NONE, "disableRecognitionSegmentation": NONE,
        "hasRecognitionSegmentation": C(False), "isRecognitionSegmentationEnabled": C(False),
        "getRecognitionSegmentationImage": NONE, "getRecognitionSegmentationImageArray": NONE,
        "saveRecognitionSegmentationImage": C(-1),
    },
    properties={
        "image": ("getImage", None), "segmentation_image": ("getRecognitionSegmentationImage", None),
        "exposure": ("getExposure", "setExposure"), "focal_distance": ("getFocalDistance", "setFocalDistance"),
        "focal_length": ("getFocalLength", None), "max_focal_distance": ("getMaxFocalDistance", None),
        "min_focal_distance": ("getMinFocalDistance", None), "fov": ("getFov", "setFov"),
        "height": ("getHeight", None), "width": ("getWidth", None), "min_fov": ("getMinFov", None),
        "max_fov": ("getMaxFov", None), "near": ("getNear", None),
    },
)

_RANGE_FINDER = InertSpec(
    node_type="RangeFinder", default_name="range-finder", api_class="RangeFinder", sensor=True,
    not_simulated="depth images are not rendered (getRangeImage returns an empty list)",
    fields=(
        _f("fieldOfView", T_.SFFloat, 0.785398), _f("width", T_.SFInt32, 64), _f("height", T_.SFInt32, 64),
        _f("projection", T_.SFString, "planar"), _f("spherical", T_.SFBool, False), _f("near", T_.SFFloat, 0.01),
        _f("minRange", T_.SFFloat, 0.01), _f("maxRange", T_.SFFloat, 1.0), _f("motionBlur", T_.SFFloat, 0.0),
        _f("noise", T_.SFFloat, 0.0), _f("resolution", T_.SFFloat, -1.0),
        _f("lens", T_.SFNode, None, node_kinds=_CAMERA_PARTS),
    ),
    members={
        "getFov": F("fieldOfView"), "getWidth": F("width"), "getHeight": F("height"),
        "getMaxRange": F("maxRange"), "getMinRange": F("minRange"),
        "getRangeImage": C([]), "getRangeImageArray": C([]), "saveImage": C(-1),
    },
    properties={
        "range_image": ("getRangeImage", None), "fov": ("getFov", None), "width": ("getWidth", None),
        "height": ("getHeight", None), "max_range": ("getMaxRange", None), "min_range": ("getMinRange", None),
    },
)

_RADAR = InertSpec(
    node_type="Radar", default_name="radar", api_class="Radar", sensor=True,
    not_simulated="no targets are detected (getTargets returns an empty list)",
    fields=tuple(_f(n, T_.SFFloat, d) for n, d in (
        ("minRange", 1.0), ("maxRange", 50.0), ("horizontalFieldOfView", 0.78), ("verticalFieldOfView", 0.1),
        ("minAbsoluteRadialSpeed", 0.0), ("minRadialSpeed", 0.0), ("maxRadialSpeed", 0.0), ("cellDistance", 0.0),
        ("cellSpeed", 0.0), ("rangeNoise", 0.0), ("speedNoise", 0.0), ("angularNoise", 0.0), ("antennaGain", 20.0),
        ("frequency", 24.0), ("transmittedPower", 20.0), ("minDetectableSignal", -100.0),
    )) + (_f("occlusion", T_.SFBool, False),),
    members={
        "getMaxRange": F("maxRange"), "getMinRange": F("minRange"), "getHorizontalFov": F("horizontalFieldOfView"),
        "getVerticalFov": F("verticalFieldOfView"), "getNumberOfTargets": C(0), "getTargets": C([]),
    },
    properties={
        "max_range": ("getMaxRange", None), "min_range": ("getMinRange", None),
        "horizontal_fov": ("getHorizontalFov", None), "vertical_fov": ("getVerticalFov", None),
        "number_of_targets": ("getNumberOfTargets", None),
    },
)

_LIGHT_SENSOR = InertSpec(
    node_type="LightSensor", default_name="light sensor", api_class="LightSensor", sensor=True,
    not_simulated="irradiance is not computed (getValue returns NaN)",
    fields=(
        _f("lookupTable", T_.MFVec3f, ((0.0, 0.0, 0.0), (1.0, 1000.0, 0.0))),
        _f("colorFilter", T_.SFColor, (1.0, 1.0, 1.0)), _f("occlusion", T_.SFBool, False),
        _f("resolution", T_.SFFloat, -1.0),
    ),
    members={"getValue": C(NAN), "getLookupTable": T("lookupTable")},
    properties={"value": ("getValue", None), "lookup_table": ("getLookupTable", None)},
)

_SPEAKER = InertSpec(
    node_type="Speaker", default_name="speaker", api_class="Speaker", sensor=False,
    not_simulated="no sound is played or spoken",
    fields=(),
    members={
        "stop": NONE, "isSoundPlaying": C(False), "setEngine": C(False), "setLanguage": C(False),
        "getLanguage": C(""), "getEngine": C(""), "isSpeaking": C(False), "speak": NONE,
    },
)

_PEN = InertSpec(
    node_type="Pen", default_name="pen", api_class="Pen", sensor=False,
    not_simulated="no ink is drawn",
    fields=(
        _f("inkColor", T_.SFColor, (0.0, 0.0, 0.0)), _f("inkDensity", T_.SFFloat, 0.5),
        _f("leadSize", T_.SFFloat, 0.002), _f("maxDistance", T_.SFFloat, 0.0), _f("write", T_.SFBool, True),
    ),
    members={"write": W("write"), "setInkColor": W("ink_color")},
)

_DISPLAY = InertSpec(
    node_type="Display", default_name="display", api_class="Display", sensor=False,
    not_simulated="nothing is drawn (image handles are None)",
    fields=(
        _f("width", T_.SFInt32, 64), _f("height", T_.SFInt32, 64),
        _f("windowPosition", T_.SFVec2f, (0.0, 0.0)), _f("pixelSize", T_.SFFloat, 1.0),
    ),
    members={
        **dict.fromkeys(("attachCamera", "detachCamera", "drawLine", "drawOval", "drawPixel", "drawPolygon",
                         "drawRectangle", "drawText", "fillOval", "fillPolygon", "fillRectangle", "imageDelete",
                         "imagePaste", "imageSave", "setFont"), NONE),
        "imageCopy": NONE, "imageNew": NONE, "imageLoad": NONE,
        "setAlpha": W("alpha"), "setColor": W("color"), "setOpacity": W("opacity"),
        "getWidth": F("width"), "getHeight": F("height"),
    },
    properties={
        "width": ("getWidth", None), "height": ("getHeight", None),
        "alpha": ("", "setAlpha"), "color": ("", "setColor"), "opacity": ("", "setOpacity"),
    },
    constants={"RGB": 3, "RGBA": 4, "ARGB": 5, "BGRA": 6, "ABGR": 7},
)

_VACUUM_GRIPPER = InertSpec(
    node_type="VacuumGripper", default_name="vacuum gripper", api_class="VacuumGripper", sensor=False,
    not_simulated="it grips nothing (getPresence returns False; turnOn only records the request)",
    fields=(
        _f("isOn", T_.SFBool, False), _f("tensileStrength", T_.SFFloat, -1.0), _f("shearStrength", T_.SFFloat, -1.0),
        _f("contactPoints", T_.SFInt32, 3),
    ),
    members={
        "enablePresence": W("presence_period"), "disablePresence": W("presence_period", 0),
        "getPresence": C(False), "getPresenceSamplingPeriod": S("presence_period", C(0)),
        "isOn": S("on", F("isOn")), "turnOn": W("on", True), "turnOff": W("on", False),
    },
    properties={
        "on": ("isOn", None), "presence": ("getPresence", None),
        "presence_sampling_period": ("getPresenceSamplingPeriod", None),
    },
)

_MICROPHONE = InertSpec(
    node_type="Microphone", default_name="microphone", api_class="", sensor=False,
    not_simulated="no sound is recorded (Webots' Python API has no Microphone class: a plain Device)",
    fields=(_f("aperture", T_.SFFloat, -1.0), _f("sensitivity", T_.SFFloat, -50.0)),
    members={},
)

_RADIO = InertSpec(
    node_type="Radio", default_name="radio", api_class="", sensor=False,
    not_simulated="nothing is transmitted (Webots' Python API has no Radio class: a plain Device)",
    fields=(
        _f("protocol", T_.SFString, "802.11b"), _f("txPowerMin", T_.SFFloat, -10.0), _f("txPowerMax", T_.SFFloat, 10.0),
        _f("address", T_.SFString, ""), _f("rxSensitivity", T_.SFFloat, -100.0), _f("txPower", T_.SFFloat, 5.0),
        _f("frequency", T_.SFFloat, 2400000000.0), _f("channel", T_.SFInt32, 0), _f("bitrate", T_.SFInt32, 1000000),
    ),
    members={},
)

INERT_DEVICES: Mapping[str, InertSpec] = MappingProxyType({spec.node_type: spec for spec in (
    _CAMERA, _RANGE_FINDER, _RADAR, _LIGHT_SENSOR, _SPEAKER, _PEN, _DISPLAY, _VACUUM_GRIPPER, _MICROPHONE, _RADIO,
)})
"""Every inert device type by Webots node type."""

INERT_NODE_TYPES: tuple[str, ...] = tuple(INERT_DEVICES)
"""The node types of the inert kind."""
