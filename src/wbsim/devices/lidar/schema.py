"""Node schema of Lidar (Webots' ``Lidar.wrl``) and Webots' load-time repairs of its fields.

Most Lidar fields depend on each other (``near <= minRange < maxRange``, the frequencies, at least one
pixel row per layer), so their repairs are not per-field bounds but :func:`repair`, a transcription of
the order and texts of ``WbLidar::preFinalize`` (``updateNear`` ... ``updateNumberOfLayers``); each update
runs once, as in Webots' first pass (the field-change signals are connected only afterwards).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.schema import NodeSchema
from wbsim.world.schema_kit import node_schema, simulated_field, solid_fields, visual_field

__all__ = ["schemas", "LidarSettings", "repair", "image_width", "image_height"]


@dataclass(frozen=True)
class LidarSettings:
    """The fields of a Lidar that shape its scan, as Webots uses them after its repairs.

    Attributes:
        tilt_angle: ``tiltAngle`` (rad, positive up).
        horizontal_resolution: points per layer (per revolution for a rotating lidar).
        field_of_view: horizontal field of view of the depth camera (rad).
        vertical_field_of_view: angle between the first and the last layer (rad).
        number_of_layers: number of layers.
        near: the depth camera's near clipping distance (m).
        min_range, max_range: the range limits (m).
        rotating: ``type`` is "rotating".
        planar: ``projection`` is "planar" (else cylindrical).
        noise: the noise's standard deviation relative to ``max_range``.
        resolution: range resolution (m; -1: infinite).
        default_frequency, min_frequency, max_frequency: head rotation frequencies (Hz).
    """

    tilt_angle: float = 0.0
    horizontal_resolution: int = 512
    field_of_view: float = 1.5708
    vertical_field_of_view: float = 0.2
    number_of_layers: int = 4
    near: float = 0.01
    min_range: float = 0.01
    max_range: float = 1.0
    rotating: bool = False
    planar: bool = False
    noise: float = 0.0
    resolution: float = -1.0
    default_frequency: float = 10.0
    min_frequency: float = 1.0
    max_frequency: float = 25.0


def image_width(settings: LidarSettings) -> int:
    """Webots' ``WbLidar::width()``: pixel columns of the depth camera (a rotating head sees only ``fov``)."""
    if settings.rotating:
        return math.ceil(settings.horizontal_resolution * (settings.field_of_view / (2.0 * math.pi)))
    return settings.horizontal_resolution


def image_height(settings: LidarSettings) -> int:
    """Webots' ``WbLidar::height()``: pixel rows of the depth camera, so that the centres of the first and last
    rows lie on the first and last layers (1 for a single layer)."""
    if settings.number_of_layers == 1:
        return 1
    width = image_width(settings)
    fov = settings.field_of_view
    return math.ceil((settings.vertical_field_of_view + fov / width) * (width / fov))


def _pixel_vertical_fov(s: LidarSettings) -> float:
    """Webots' private ``WbLidar::verticalFieldOfView()``: the rows' vertical span, ``fov * height / width``."""
    return s.field_of_view * image_height(s) / image_width(s)


def _invalid(name: str, value: float, rule: str) -> str:
    return f"Invalid '{name}' changed to {value:g}. The value should be {rule}."


def repair(s: LidarSettings, type_value: str) -> tuple[LidarSettings, list[tuple[str, str]]]:
    """Webots' repairs of a Lidar's fields, in ``WbLidar::preFinalize`` order, with its warning texts.

    Args:
        s: the fields as written (``rotating`` already decided: ``type`` is "rotating" without case).
        type_value: the ``type`` string as written.

    Returns:
        The repaired settings and the warnings as (field name, Webots' text).
    """
    out: list[tuple[str, str]] = []
    # WbAbstractCamera::updateFieldOfView (before the Lidar's own repairs)
    if s.field_of_view <= 0:
        out.append(("fieldOfView", _invalid("fieldOfView", 0.7854, "positive")))
        s = replace(s, field_of_view=0.7854)
    elif s.planar and s.field_of_view > math.pi:
        out.append(("fieldOfView", "Invalid 'fieldOfView' changed to 0.7854. The field of view is limited to pi if "
                                   "the 'projection' field is \"planar\"."))
        s = replace(s, field_of_view=0.7854)
    # updateNear
    if s.near <= 0:
        out.append(("near", _invalid("near", 0.01, "positive")))
        s = replace(s, near=0.01)
    elif s.near > s.min_range:
        out.append(("near", f"'near' is greater than to 'minRange'. Setting 'near' to {s.min_range:g}."))
        s = replace(s, near=s.min_range)
    # updateMinRange
    if s.min_range <= 0:
        out.append(("minRange", _invalid("minRange", 0.01, "positive")))
        s = replace(s, min_range=0.01)
    elif s.min_range < s.near:
        out.append(("minRange", f"'minRange' is less than 'near'. Setting 'minRange' to {s.near:g}."))
        s = replace(s, min_range=s.near)
    elif s.min_range >= s.max_range:
        out.append(("minRange", f"'minRange' is greater or equal to 'maxRange'. Setting 'maxRange' to "
                                f"{s.min_range + 1.0:g}."))
        s = replace(s, max_range=s.min_range + 1.0)
    # updateMaxRange
    if s.max_range <= s.min_range:
        out.append(("maxRange", f"'maxRange' is less or equal to 'minRange'. Setting 'maxRange' to "
                                f"{s.min_range + 1.0:g}."))
        s = replace(s, max_range=s.min_range + 1.0)
    # updateResolution
    if s.resolution <= 0 and s.resolution != -1.0:
        out.append(("resolution", "Invalid 'resolution' changed to -1. The value should be either -1 or positive."))
        s = replace(s, resolution=-1.0)
    # updateType
    if type_value.casefold() not in ("fixed", "rotating"):
        out.append(("type", "'type' should either be 'fixed' or 'rotating', reset to 'fixed'"))
    # updateMinFrequency, updateMaxFrequency, updateDefaultFrequency
    if s.min_frequency <= 0:
        out.append(("minFrequency", _invalid("minFrequency", 0.01, "positive")))
        s = replace(s, min_frequency=0.01)
    if s.min_frequency > s.max_frequency:
        out.append(("minFrequency", "'minFrequency' should be smaller or equal to 'maxFrequency'."))
        s = replace(s, min_frequency=s.max_frequency)
    if s.max_frequency <= 0:
        out.append(("maxFrequency", _invalid("maxFrequency", s.min_frequency, "positive")))
        s = replace(s, max_frequency=s.min_frequency)
    if s.max_frequency < s.min_frequency:
        out.append(("maxFrequency", "'maxFrequency' should be bigger or equal to 'minFrequency'."))
        s = replace(s, max_frequency=s.min_frequency)
    if s.default_frequency <= 0:
        out.append(("defaultFrequency", _invalid("defaultFrequency", s.min_frequency, "positive")))
        s = replace(s, default_frequency=s.min_frequency)
    if s.default_frequency < s.min_frequency:
        out.append(("defaultFrequency", "'defaultFrequency' should be bigger or equal to 'minFrequency'."))
        s = replace(s, default_frequency=s.min_frequency)
    elif s.default_frequency > s.max_frequency:
        out.append(("defaultFrequency", "'defaultFrequency' should be bigger or equal to 'maxFrequency'."))  # sic
        s = replace(s, default_frequency=s.max_frequency)
    # updateHorizontalResolution
    if s.horizontal_resolution <= 0:
        out.append(("horizontalResolution", _invalid("horizontalResolution", 1, "positive")))
        s = replace(s, horizontal_resolution=1)
    # (Skipped for a non-positive verticalFieldOfView, repaired just below: Webots' formula gives a negative
    # resolution there.)
    if s.vertical_field_of_view > 0 and image_height(s) < s.number_of_layers:
        required = math.ceil(s.number_of_layers * s.field_of_view / _pixel_vertical_fov(s))
        if s.rotating:
            required = int(required * (2.0 * math.pi / s.field_of_view))
            text = ("Impossible to have a so small 'horizontalResolution' using this 'numberOfLayers' and "
                    "'verticalFieldOfView'. 'horizontalResolution' should be bigger or equal to 2.0 * M_PI * "
                    "numberOfLayers  / verticalFieldOfView. ")
        else:
            text = ("Impossible to have a so small 'horizontalResolution' using this 'fieldOfView', 'numberOfLayers' "
                    "and 'verticalFieldOfView'. 'horizontalResolution' should be bigger or equal to numberOfLayers * "
                    "fieldOfView / verticalFieldOfView. ")
        out.append(("horizontalResolution", text + f"'horizontalResolution' set to {required}."))
        s = replace(s, horizontal_resolution=required)
    # updateVerticalFieldOfView
    if s.vertical_field_of_view <= 0:
        out.append(("verticalFieldOfView", _invalid("verticalFieldOfView", 0.1, "positive")))
        s = replace(s, vertical_field_of_view=0.1)
    if s.vertical_field_of_view > math.pi:
        out.append(("verticalFieldOfView", f"Invalid 'verticalFieldOfView' changed to {math.pi:g}. The value should "
                                           f"be {math.pi:g} or less."))
        s = replace(s, vertical_field_of_view=math.pi)
    if image_height(s) < s.number_of_layers:
        required_fov = s.number_of_layers * s.field_of_view / image_width(s)
        if s.rotating:
            text = ("Impossible to have a so small 'verticalFieldOfView' using this 'numberOfLayers' and "
                    "'horizontalResolution'. 'verticalFieldOfView' should be bigger or equal to 2.0 * M_PI * "
                    "numberOfLayers / horizontalResolution. ")
        else:
            text = ("Impossible to have a so small 'verticalFieldOfView' using this 'fieldOfView', 'numberOfLayers' "
                    "and 'horizontalResolution'. 'verticalFieldOfView' should be bigger or equal to numberOfLayers * "
                    "fieldOfView / horizontalResolution. ")
        out.append(("verticalFieldOfView", text + f"'verticalFieldOfView' set to {required_fov:g}."))
        s = replace(s, vertical_field_of_view=required_fov)
    # updateNumberOfLayers
    if s.number_of_layers <= 0:
        out.append(("numberOfLayers", _invalid("numberOfLayers", 1, "positive")))
        s = replace(s, number_of_layers=1)
    if image_height(s) < s.number_of_layers:
        layers = image_height(s)
        if s.rotating:
            text = ("Impossible to have a so big 'numberOfLayers' using this 'verticalFieldOfView' and "
                    "'horizontalResolution'. 'numberOfLayers' should be smaller or equal to verticalFieldOfView * "
                    "actualHorizontalResolution() / (2.0 * M_PI). ")
        else:
            text = ("Impossible to have a so big 'numberOfLayers' using this 'fieldOfView', 'verticalFieldOfView' and "
                    "'horizontalResolution'. 'numberOfLayers' should be smaller or equal to verticalFieldOfView * "
                    "horizontalResolution / fieldOfView. ")
        out.append(("numberOfLayers", text + f"'numberOfLayers' set to {layers}."))
        s = replace(s, number_of_layers=layers)
    if s.noise < 0:
        out.append(("noise", _invalid("noise", 0.0, "non-negative")))
        s = replace(s, noise=0.0)
    return s, out


def schemas() -> list[NodeSchema]:
    """The Lidar schema (Webots R2023b's fields; ``spherical`` is Webots' deprecated switch)."""
    return [
        node_schema("Lidar", "solid", solid_fields("lidar") + [
            simulated_field("tiltAngle", T.SFFloat, 0.0, unit="rad"),
            simulated_field("horizontalResolution", T.SFInt32, 512),
            simulated_field("fieldOfView", T.SFFloat, 1.5708, unit="rad"),
            simulated_field("verticalFieldOfView", T.SFFloat, 0.2, unit="rad"),
            simulated_field("numberOfLayers", T.SFInt32, 4),
            simulated_field("near", T.SFFloat, 0.01, unit="m"),
            simulated_field("minRange", T.SFFloat, 0.01, unit="m"),
            simulated_field("maxRange", T.SFFloat, 1.0, unit="m"),
            simulated_field("type", T.SFString, "fixed"),
            simulated_field("projection", T.SFString, "cylindrical", choices=("planar", "cylindrical"),
                            on_violation="replace", replacement="cylindrical"),
            simulated_field("noise", T.SFFloat, 0.0, unit="x maxRange"),
            simulated_field("resolution", T.SFFloat, -1.0, unit="m"),
            simulated_field("defaultFrequency", T.SFFloat, 10.0, unit="Hz"),
            simulated_field("minFrequency", T.SFFloat, 1.0, unit="Hz"),
            simulated_field("maxFrequency", T.SFFloat, 25.0, unit="Hz"),
            visual_field("rotatingHead", T.SFNode, None, node_kinds=frozenset({"solid"})),
            simulated_field("spherical", T.SFBool, True, deprecated=True),
        ]),
    ]
