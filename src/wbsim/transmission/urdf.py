"""Load transmissions from the ``<ros2_control>`` blocks of a URDF.

The element and attribute names are ros2_control's (``hardware_interface/src/component_parser.cpp``)::

    <ros2_control name="Hw" type="system">
      <joint name="joint2"> <command_interface name="velocity"/> <state_interface name="position"/> </joint>
      ...
      <transmission name="four_bar_transmission">
        <plugin>transmission_interface/FourBarLinkageTransmission</plugin>
        <actuator name="joint2_motor" role="actuator1">
          <mechanical_reduction>50</mechanical_reduction>
        </actuator>
        <joint name="joint2" role="joint1" read_only="false">
          <offset>0.5</offset> <mechanical_reduction>2.0</mechanical_reduction>
        </joint>
        <param name="key">value</param>
      </transmission>
    </ros2_control>

Two modes:

- **strict** (default): joints and actuators are bound by ``role`` (``joint1``/``joint2``,
  ``actuator1``/``actuator2``), and the 2x2 transmissions are built with ``joint_names``/``actuator_names`` so
  that the binding survives :meth:`~wbsim.transmission.Transmission.configure`. A missing, duplicate or
  unknown role, an unparsable or non-finite number, a repeated ``<mechanical_reduction>``/``<offset>`` element
  and a zero reduction are :class:`~wbsim.errors.TransmissionError` naming the transmission, the element, the
  bad text and the line.
- **lenient** (``lenient=True``): upstream's behaviour. Document order gives the indices (and configure sorts
  handle names), unparsable numbers silently become 1.0 (reduction) / 0.0 (offset), and a transmission that
  cannot be constructed (zero reduction, too few joints or actuators) is returned with ``transmission=None``
  after a ``logging`` warning ``Failed to construct transmission '<name>': <reason>``.

In both modes XML errors, missing required attributes or ``<plugin>``, a bad ``read_only``, a transmission
joint missing from its ``<ros2_control>`` block and unknown plugins raise
:class:`~wbsim.errors.TransmissionError`.
"""

from __future__ import annotations

import logging
import math
import os
import re
from dataclasses import dataclass, replace
from typing import Final

from lxml import etree

from wbsim.errors import TransmissionError
from wbsim.transmission.base import Transmission
from wbsim.transmission.differential import DifferentialTransmission
from wbsim.transmission.four_bar import FourBarLinkageTransmission
from wbsim.transmission.simple import SimpleTransmission

__all__ = [
    "SIMPLE_TRANSMISSION_PLUGIN",
    "DIFFERENTIAL_TRANSMISSION_PLUGIN",
    "FOUR_BAR_LINKAGE_TRANSMISSION_PLUGIN",
    "TRANSMISSION_PLUGINS",
    "JointInfo",
    "ActuatorInfo",
    "LoadedTransmission",
    "load_transmissions",
]

_logger = logging.getLogger(__name__)

SIMPLE_TRANSMISSION_PLUGIN: Final = "transmission_interface/SimpleTransmission"
DIFFERENTIAL_TRANSMISSION_PLUGIN: Final = "transmission_interface/DifferentialTransmission"
FOUR_BAR_LINKAGE_TRANSMISSION_PLUGIN: Final = "transmission_interface/FourBarLinkageTransmission"

#: The plugin names :func:`load_transmissions` resolves.
TRANSMISSION_PLUGINS: Final[tuple[str, ...]] = (
    SIMPLE_TRANSMISSION_PLUGIN,
    DIFFERENTIAL_TRANSMISSION_PLUGIN,
    FOUR_BAR_LINKAGE_TRANSMISSION_PLUGIN,
)

_REDUCTION_TAG: Final = "mechanical_reduction"
_OFFSET_TAG: Final = "offset"

# hardware_interface::stod after stripping whitespace: decimal numbers only (no hex, '_' or inf/nan words).
_NUMBER: Final = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_XML_POSITION: Final = re.compile(r", line \d+, column \d+$")


@dataclass(frozen=True)
class _MemberInfo:
    name: str
    role: str
    mechanical_reduction: float = 1.0
    offset: float = 0.0
    read_only: bool = False
    state_interfaces: tuple[str, ...] = ()
    command_interfaces: tuple[str, ...] = ()


@dataclass(frozen=True)
class JointInfo(_MemberInfo):
    """A ``<joint>`` of a ``<transmission>`` (upstream ``hardware_interface::JointInfo``).

    Attributes:
        name: the joint name.
        role: the ``role`` attribute (``joint1``, ``joint2``).
        mechanical_reduction: dimensionless, default 1.0.
        offset: joint position offset (rad or m), default 0.0.
        read_only: the ``read_only`` attribute (parsed, informational).
        state_interfaces: state interface names copied from the ``<ros2_control>`` ``<joint>`` of that name.
        command_interfaces: command interface names copied likewise.
    """


@dataclass(frozen=True)
class ActuatorInfo(_MemberInfo):
    """An ``<actuator>`` of a ``<transmission>`` (upstream ``hardware_interface::ActuatorInfo``).

    Same fields as :class:`JointInfo`; role is ``actuator1`` or ``actuator2``. Interfaces are only filled
    for the actuator that upstream auto-adds to ``type="actuator"`` hardware. The actuator offset is parsed
    but, as upstream, not used by any transmission.
    """


@dataclass(frozen=True)
class LoadedTransmission:
    """One ``<transmission>`` read from a URDF.

    Attributes:
        name: the ``name`` attribute.
        plugin: the ``<plugin>`` text, e.g. ``transmission_interface/DifferentialTransmission``.
        transmission: the constructed (not yet configured) transmission, or None in lenient mode when
            upstream's loader would have returned a null pointer.
        joints: joint infos, in role order (strict) or document order (lenient).
        actuators: actuator infos, ordered likewise.
        parameters: the ``<param name="...">`` values (stripped text).
        hardware_name: the ``name`` of the enclosing ``<ros2_control>``.
        hardware_type: its ``type`` (``system``, ``actuator``, ...).
        source: the file path, or ``<string>``.
        line: the line of the ``<transmission>`` element.
    """

    name: str
    plugin: str
    transmission: Transmission | None
    joints: tuple[JointInfo, ...]
    actuators: tuple[ActuatorInfo, ...]
    parameters: dict[str, str]
    hardware_name: str
    hardware_type: str
    source: str
    line: int

    @property
    def joint_names(self) -> tuple[str, ...]:
        """The joint names, index order of the transmission (role order in strict mode)."""
        return tuple(j.name for j in self.joints)

    @property
    def actuator_names(self) -> tuple[str, ...]:
        """The actuator names, index order of the transmission (role order in strict mode)."""
        return tuple(a.name for a in self.actuators)


@dataclass(frozen=True)
class _Source:
    """Where the document came from, for ``file:line`` (lines shifted by stripped leading blank lines)."""

    name: str
    line_offset: int

    def where(self, element: etree._Element) -> str:
        return f"{self.name}:{(element.sourceline or 0) + self.line_offset}"

    def line(self, element: etree._Element) -> int:
        return (element.sourceline or 0) + self.line_offset


@dataclass
class _Member:
    """A parsed ``<joint>``/``<actuator>`` with its element, before role binding."""

    info: JointInfo | ActuatorInfo
    element: etree._Element


def _stod(text: str) -> float | None:
    """Upstream's ``hardware_interface::stod``: strip whitespace, whole string a finite decimal, else None."""
    stripped = text.strip(" \t\n\r\f\v")
    if not _NUMBER.fullmatch(stripped):
        return None
    value = float(stripped)
    return value if math.isfinite(value) else None


def _read_document(urdf: str | bytes | os.PathLike[str]) -> tuple[etree._Element, _Source]:
    """Parse a URDF given as a path or XML text, wrapping every failure in TransmissionError."""
    from_text = False
    looks_like_xml = isinstance(urdf, str) and (not urdf.strip() or urdf.lstrip().startswith("<"))
    if isinstance(urdf, os.PathLike) or (isinstance(urdf, str) and not looks_like_xml):
        name = os.fspath(urdf)
        try:
            with open(name, "rb") as stream:
                data = stream.read()
        except OSError as exc:
            raise TransmissionError(f"Cannot read URDF file '{name}': {exc.strerror or exc}") from None
    elif isinstance(urdf, str):
        name, data, from_text = "<string>", urdf.encode("utf-8"), True
    elif isinstance(urdf, bytes):
        name, data = "<string>", urdf
    else:
        raise TransmissionError(f"urdf must be a file path or an XML string, got {type(urdf).__name__}.")
    # ros2_control's own test assets start with a newline before '<?xml ...?>', which libxml2 refuses.
    stripped = data.lstrip()
    source = _Source(name, data[: len(data) - len(stripped)].count(b"\n"))
    parser = etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        remove_comments=True,
        remove_pis=True,
        encoding="utf-8" if from_text else None,
    )
    try:
        root = etree.fromstring(stripped, parser)
    except etree.XMLSyntaxError as exc:
        line, column = exc.position if exc.position else (exc.lineno or 0, 0)
        message = _XML_POSITION.sub("", exc.msg or "syntax error")
        raise TransmissionError(
            f"{name}:{line + source.line_offset}:{column}: invalid XML: {message}"
        ) from None
    if root is None:
        raise TransmissionError(f"{name}: invalid XML: the document has no root element")
    return root, source


def _children(element: etree._Element, tag: str) -> list[etree._Element]:
    """Direct child elements with the given tag, in document order."""
    return [child for child in element if child.tag == tag]


def _required(element: etree._Element, attribute: str, source: _Source, name: str | None = None) -> str:
    """Read a required attribute, raising with upstream's message format."""
    value = element.get(attribute)
    if value is None:
        with_name = f" with name '{name}'" if name is not None else ""
        raise TransmissionError(
            f"{source.where(element)}: no attribute '{attribute}' in '{element.tag}' tag{with_name}"
        )
    return value


class _TransmissionParser:
    """Parses one ``<transmission>`` element in the chosen mode."""

    def __init__(self, element: etree._Element, source: _Source, lenient: bool) -> None:
        self.element = element
        self.source = source
        self.lenient = lenient
        self.name = _required(element, "name", source)

    def fail(self, element: etree._Element, message: str) -> TransmissionError:
        return TransmissionError(f"{self.source.where(element)}: transmission '{self.name}': {message}")

    def plugin(self) -> str:
        plugins = _children(self.element, "plugin")
        if not plugins:
            raise TransmissionError(
                f"{self.source.where(self.element)}: Missing <plugin> tag of <transmission> element for "
                f"'{self.name}' in your URDF."
            )
        return (plugins[0].text or "").strip()

    def members(self) -> tuple[list[_Member], list[_Member]]:
        """Parse the ``<joint>`` and ``<actuator>`` children in one pass, so errors come in document order."""
        joints: list[_Member] = []
        actuators: list[_Member] = []
        for child in self.element:
            if child.tag not in ("joint", "actuator"):
                continue
            kind = child.tag
            name = _required(child, "name", self.source)
            role = _required(child, "role", self.source, name)
            info = (JointInfo if kind == "joint" else ActuatorInfo)(
                name=name,
                role=role,
                mechanical_reduction=self.number(child, kind, name, _REDUCTION_TAG, 1.0),
                offset=self.number(child, kind, name, _OFFSET_TAG, 0.0),
                read_only=self.read_only(child, kind, name),
            )
            (joints if kind == "joint" else actuators).append(_Member(info, child))
        return joints, actuators

    def read_only(self, child: etree._Element, kind: str, name: str) -> bool:
        text = child.get("read_only")
        if text is None:
            return False
        if text.lower() in ("true", "false"):
            return text.lower() == "true"
        raise self.fail(
            child, f"attribute 'read_only' of {kind} '{name}' is {text!r}; expected 'true' or 'false'."
        )

    def number(self, child: etree._Element, kind: str, name: str, tag: str, default: float) -> float:
        elements = _children(child, tag)
        if self.lenient:
            # Upstream: the first element with text decides; unparsable text silently gives the default.
            for element in elements:
                if element.text is not None:
                    value = _stod(element.text)
                    return default if value is None else value
            return default
        if not elements:
            return default
        if len(elements) > 1:
            raise self.fail(elements[1], f"{kind} '{name}' has more than one <{tag}> element.")
        text = elements[0].text or ""
        value = _stod(text)
        if value is None:
            raise self.fail(elements[0], f"<{tag}> of {kind} '{name}' is not a finite number: {text!r}.")
        if tag == _REDUCTION_TAG and value == 0.0:
            raise self.fail(
                elements[0],
                f"<{tag}> of {kind} '{name}' is zero ({text!r}); a reduction ratio cannot be zero.",
            )
        return value

    def parameters(self) -> dict[str, str]:
        result: dict[str, str] = {}
        for param in _children(self.element, "param"):
            key = param.get("name")
            if key is None:
                raise TransmissionError(
                    f"{self.source.where(param)}: "
                    f"no parameter name attribute set in param tag for '{self.name}'"
                )
            result[key] = (param.text or "").strip()
        return result

    def bind_roles(
        self, members: list[_Member], roles: tuple[str, ...], kind: str, required: bool
    ) -> list[_Member]:
        """Strict mode: order members by role; every role at most once, known, and present if required."""
        by_role: dict[str, _Member] = {}
        for member in members:
            role = member.info.role
            if role not in roles:
                raise self.fail(
                    member.element,
                    f"unknown {kind} role '{role}' for {kind} '{member.info.name}'; expected "
                    f"{' or '.join(repr(r) for r in roles)}.",
                )
            if role in by_role:
                raise self.fail(
                    member.element,
                    f"{kind} role '{role}' is given to both '{by_role[role].info.name}' "
                    f"and '{member.info.name}'.",
                )
            by_role[role] = member
        missing = [r for r in roles if r not in by_role]
        if missing and (required or by_role):
            raise self.fail(self.element, f"no {kind} with role '{missing[0]}'.")
        return [by_role[r] for r in roles if r in by_role]


def _component_joints(
    hardware: etree._Element, source: _Source
) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Map each ``<ros2_control>`` ``<joint>`` name to its (state, command) interface names."""
    result = {}
    for joint in _children(hardware, "joint"):
        name = _required(joint, "name", source)
        state = tuple(_required(e, "name", source) for e in _children(joint, "state_interface"))
        command = tuple(_required(e, "name", source) for e in _children(joint, "command_interface"))
        result[name] = (state, command)
    return result


def _construct_strict(
    parser: _TransmissionParser, plugin: str, joints: list[_Member], actuators: list[_Member]
) -> Transmission:
    j = [m.info for m in joints]
    a = [m.info for m in actuators]
    try:
        if plugin == SIMPLE_TRANSMISSION_PLUGIN:
            return SimpleTransmission(j[0].mechanical_reduction, j[0].offset)
        cls = (
            DifferentialTransmission
            if plugin == DIFFERENTIAL_TRANSMISSION_PLUGIN
            else FourBarLinkageTransmission
        )
        return cls(
            [x.mechanical_reduction for x in a],
            [x.mechanical_reduction for x in j],
            [x.offset for x in j],
            joint_names=[x.name for x in j],
            actuator_names=[x.name for x in a],
        )
    except TransmissionError as exc:
        raise parser.fail(
            parser.element, f"Failed to construct transmission '{parser.name}': {exc}"
        ) from None


def _construct_lenient(
    name: str, plugin: str, joints: list[_Member], actuators: list[_Member]
) -> Transmission | None:
    """Upstream's loaders: document order, and None (with a logged warning) instead of an exception."""
    j = [m.info for m in joints]
    a = [m.info for m in actuators]
    try:
        if plugin == SIMPLE_TRANSMISSION_PLUGIN:
            return SimpleTransmission(j[0].mechanical_reduction, j[0].offset)
        cls = (
            DifferentialTransmission
            if plugin == DIFFERENTIAL_TRANSMISSION_PLUGIN
            else FourBarLinkageTransmission
        )
        return cls(
            [a[0].mechanical_reduction, a[1].mechanical_reduction],
            [j[0].mechanical_reduction, j[1].mechanical_reduction],
            [j[0].offset, j[1].offset],
        )
    except (TransmissionError, IndexError) as exc:
        _logger.warning("Failed to construct transmission '%s': %s", name, exc)
        return None


def _load_one(
    element: etree._Element,
    source: _Source,
    lenient: bool,
    hardware_name: str,
    hardware_type: str,
    component_joints: dict[str, tuple[tuple[str, ...], tuple[str, ...]]],
) -> LoadedTransmission:
    parser = _TransmissionParser(element, source, lenient)
    plugin = parser.plugin()
    joints, actuators = parser.members()
    parameters = parser.parameters()

    # Upstream's auto_fill_transmission_interfaces.
    for member in joints:
        if member.info.name not in component_joints:
            raise TransmissionError(
                f"{source.where(member.element)}: Error while parsing '{hardware_name}'. Transmission "
                f"'{parser.name}' declared joint '{member.info.name}' is not available in component "
                f"'{hardware_name}'."
            )
        state, command = component_joints[member.info.name]
        member.info = replace(member.info, state_interfaces=state, command_interfaces=command)
    if hardware_type == "actuator":
        if len(joints) != 1:
            raise TransmissionError(
                f"{source.where(element)}: Error while parsing '{hardware_name}'. There should be exactly "
                f"one joint defined in this component but found {len(joints)}."
            )
        # Upstream appends 'actuator1' even when actuators are declared; strict mode only when none is.
        if lenient or not actuators:
            first = joints[0].info
            auto = ActuatorInfo(
                name="actuator1",
                role="actuator1",
                state_interfaces=first.state_interfaces,
                command_interfaces=first.command_interfaces,
            )
            actuators.append(_Member(auto, element))

    if plugin not in TRANSMISSION_PLUGINS:
        raise parser.fail(
            element, f"unknown plugin '{plugin}'; valid plugins are {', '.join(TRANSMISSION_PLUGINS)}."
        )
    if lenient:
        transmission = _construct_lenient(parser.name, plugin, joints, actuators)
    else:
        simple = plugin == SIMPLE_TRANSMISSION_PLUGIN
        joints = parser.bind_roles(joints, ("joint1",) if simple else ("joint1", "joint2"), "joint", True)
        actuators = parser.bind_roles(
            actuators, ("actuator1",) if simple else ("actuator1", "actuator2"), "actuator", not simple
        )
        transmission = _construct_strict(parser, plugin, joints, actuators)
    return LoadedTransmission(
        name=parser.name,
        plugin=plugin,
        transmission=transmission,
        joints=tuple(m.info for m in joints),  # type: ignore[misc]
        actuators=tuple(m.info for m in actuators),  # type: ignore[misc]
        parameters=parameters,
        hardware_name=hardware_name,
        hardware_type=hardware_type,
        source=source.name,
        line=source.line(element),
    )


def load_transmissions(
    urdf: str | bytes | os.PathLike[str], *, lenient: bool = False
) -> list[LoadedTransmission]:
    """Read every ``<transmission>`` that is a direct child of a ``<ros2_control>`` block of a URDF.

    Args:
        urdf: a path (``str`` or path-like) to an existing file, or the XML text itself (``bytes``, or a
            ``str`` that is blank or whose first non-blank character is ``<``).
        lenient: False (default) for strict role-bound parsing, True for upstream-identical parsing (see the
            module docstring).

    Returns:
        One :class:`LoadedTransmission` per ``<transmission>``, in document order. ROS 1 style
        ``<transmission>`` elements directly under ``<robot>`` are ignored, like upstream.

    Raises:
        TransmissionError: for unreadable files, invalid XML (with the line), a root other than ``<robot>``,
            missing ``name``/``role`` attributes or ``<plugin>``, unknown plugins, and, in strict mode, bad
            numbers, zero reductions and role errors.
    """
    root, source = _read_document(urdf)
    if root.tag != "robot":
        raise TransmissionError(f"{source.where(root)}: the robot tag is not root element in URDF")
    result = []
    for hardware in _children(root, "ros2_control"):
        hardware_name = _required(hardware, "name", source)
        hardware_type = _required(hardware, "type", source, hardware_name)
        component_joints = _component_joints(hardware, source)
        for element in _children(hardware, "transmission"):
            result.append(_load_one(element, source, lenient, hardware_name, hardware_type, component_joints))
    return result
