"""Webots API classes of the inert devices, built once from :mod:`wbsim.devices.inert.spec`.

Each class derives from Webots' ``Device`` or ``Sensor`` and has every method and Python property of its
Webots class; a method accepts Webots' arguments and does what its spec entry says (a "no data" answer, a
field of the node, a value the controller set). The few static helpers of Webots' classes
(``Camera.imageGetRed`` ..., ``RangeFinder.rangeImageGetDepth``) compute as in Webots, since they only read
the arguments they are given.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from wbsim.api.device import Device, Sensor
from wbsim.devices.inert.spec import ARG, INERT_DEVICES, Answer, C, F, InertSpec, S, T, W
from wbsim.world.model import WbNode

__all__ = ["api_classes", "make_api", "CameraRecognitionObject", "RadarTarget"]


def _plain(value: object) -> object:
    """A field value as Webots' Python API returns it (lists for vectors)."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _field(node: WbNode, name: str) -> object:
    return _plain(node[name])


def _answer_of(name: str, answer: Answer) -> Callable[..., Any]:
    """The method ``name`` doing what ``answer`` says."""
    if isinstance(answer, C):
        value = answer.value
        if isinstance(value, list | tuple):
            def method(self: Device, *args: object, **kwargs: object) -> object:
                return list(value)  # type: ignore[arg-type]
        else:
            def method(self: Device, *args: object, **kwargs: object) -> object:
                return value
        what = f"returns {value!r} (not simulated)"
    elif isinstance(answer, F):
        def method(self: Device, *args: object, **kwargs: object) -> object:
            return _field(self._node, answer.field)
        what = f"returns the node's ``{answer.field}`` field"
    elif isinstance(answer, T):
        def method(self: Device, *args: object, **kwargs: object) -> object:
            return [float(x) for row in self._node[answer.field] for x in row]  # type: ignore[union-attr]
        what = f"returns the ``{answer.field}`` table flattened row by row"
    elif isinstance(answer, S):
        initial = _answer_of(name, answer.initial)

        def method(self: Device, *args: object, **kwargs: object) -> object:
            stored = self._core.stored
            return stored[answer.key] if answer.key in stored else initial(self)
        what = f"returns the value last set (``{answer.key}``), else what Webots starts with"
    elif isinstance(answer, W):
        def method(self: Device, *args: object, **kwargs: object) -> None:
            if answer.value is ARG:
                if not args and not kwargs:
                    raise TypeError(f"{name}() missing its argument")
                self._core.stored[answer.key] = args[0] if args else next(iter(kwargs.values()))
            else:
                self._core.stored[answer.key] = answer.value
        what = "records the request (read back by the matching getter); nothing is simulated"
    else:  # pragma: no cover - the spec's types are closed
        raise TypeError(answer)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"Webots' ``{name}``: {what}."
    return method


# -- Webots' static helpers and value classes (pure computations on their arguments) -----------------------
def _image_get(offset: int) -> Callable[[bytes, int, int, int], int]:
    def get(image: bytes, width: int, x: int, y: int) -> int:
        return image[4 * (y * width + x) + offset]
    return get


def _image_get_gray(image: bytes, width: int, x: int, y: int) -> float:
    """The mean of a BGRA pixel's three colour bytes (Webots' ``imageGetGray``)."""
    i = 4 * (y * width + x)
    return (image[i + 2] + image[i + 1] + image[i]) / 3


def _range_image_get_depth(image: list[float], width: int, x: int, y: int) -> float:
    """The depth at column ``x``, row ``y`` of a range image (Webots' ``rangeImageGetDepth``)."""
    return image[y * width + x]


def _play_sound(left: Any, right: Any, sound: str, volume: float, pitch: float, balance: float, loop: bool) -> None:
    """Webots' ``Speaker.playSound``: nothing is played in wbsim."""


_STATIC: Mapping[str, Mapping[str, Callable[..., Any]]] = {
    "Camera": {"imageGetRed": _image_get(2), "imageGetGreen": _image_get(1), "imageGetBlue": _image_get(0),
               "imageGetGray": _image_get_gray},
    "RangeFinder": {"rangeImageGetDepth": _range_image_get_depth},
    "Speaker": {"playSound": _play_sound},
}


@dataclass
class CameraRecognitionObject:
    """An object a recognition Camera sees (Webots' ``CameraRecognitionObject``; wbsim never returns one)."""

    id: int = 0
    position: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    orientation: list[float] = field(default_factory=lambda: [0.0, 0.0, 1.0, 0.0])
    size: list[float] = field(default_factory=lambda: [0.0, 0.0])
    position_on_image: list[int] = field(default_factory=lambda: [0, 0])
    size_on_image: list[int] = field(default_factory=lambda: [0, 0])
    number_of_colors: int = 0
    colors: list[float] = field(default_factory=list)
    model: str = ""

    def getId(self) -> int:
        """The object's node id."""
        return self.id

    def getPosition(self) -> list[float]:
        """Position in the camera frame (m)."""
        return self.position

    def getOrientation(self) -> list[float]:
        """Orientation in the camera frame (axis-angle)."""
        return self.orientation

    def getSize(self) -> list[float]:
        """Size (m)."""
        return self.size

    def getPositionOnImage(self) -> list[int]:
        """Position on the image (pixels)."""
        return self.position_on_image

    def getSizeOnImage(self) -> list[int]:
        """Size on the image (pixels)."""
        return self.size_on_image

    def getNumberOfColors(self) -> int:
        """Number of recognition colours."""
        return self.number_of_colors

    def getColors(self) -> list[float]:
        """Recognition colours, RGB flattened."""
        return self.colors

    def getModel(self) -> str:
        """The object's ``model`` field."""
        return self.model


@dataclass
class RadarTarget:
    """A target a Radar sees (Webots' ``RadarTarget``; wbsim never returns one)."""

    distance: float = 0.0
    receiver_power: float = 0.0
    speed: float = 0.0
    azimuth: float = 0.0


def _build(spec: InertSpec) -> type:
    base = Sensor if spec.sensor else Device
    namespace: dict[str, Any] = {
        "__doc__": f"Webots' ``{spec.api_class}``, not simulated by wbsim: {spec.not_simulated}.",
        "__module__": __name__,
        "_C_NAME": "wb_" + "".join("_" + c.lower() if c.isupper() else c for c in spec.node_type).lstrip("_"),
        **spec.constants,
    }
    for name, answer in spec.members.items():
        namespace[name] = _answer_of(name, answer)
    for name, function in _STATIC.get(spec.api_class, {}).items():
        namespace[name] = staticmethod(function)
    for prop, (getter, setter) in spec.properties.items():
        namespace[prop] = property(namespace[getter] if getter else None, namespace[setter] if setter else None,
                                   doc=f"Webots' ``{spec.api_class}.{prop}`` property.")
    return type(spec.api_class, (base,), namespace)


@functools.cache
def _classes() -> Mapping[str, type]:
    return MappingProxyType({spec.api_class: _build(spec) for spec in INERT_DEVICES.values() if spec.api_class})


def api_classes() -> dict[str, type]:
    """The classes the ``controller`` module exports for inert devices (and their value classes)."""
    return {**_classes(), "CameraRecognitionObject": CameraRecognitionObject, "RadarTarget": RadarTarget}


def make_api(core: Any, robot: Any) -> Device:
    """The Webots API object of the inert core device ``core`` (a plain ``Device`` for a Microphone)."""
    spec = INERT_DEVICES[core.node.type_name]
    return _classes().get(spec.api_class, Device)(core, robot)
