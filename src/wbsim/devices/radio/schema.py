"""Node schemas of Emitter and Receiver (Webots' ``Emitter.wrl`` / ``Receiver.wrl``: Solid fields plus their own).

Repairs at load are the ones Webots applies when a node is finalized (``preFinalize``), as data, so the
world checker warns with Webots' texts:

- ``type`` outside {"infra-red", "radio", "serial"} is reset to "radio" by the field restriction of the
  ``.wrl`` file (``WbField::checkValueIsAccepted``);
- ``aperture`` outside {-1, [0, 2 pi]}, ``maxRange`` <= 0 (not -1) and ``byteSize`` < 8
  (``WbEmitter::updateTransmissionSetup``, ``WbReceiver::updateTransmissionSetup``); for a Receiver also
  ``bufferSize`` and ``baudRate`` <= 0 (not -1), negative noises.

An Emitter's ``range`` and ``bufferSize`` are repaired only when they change at run time
(``updateRange``, ``updateBufferSize`` are not called at load): :data:`RUNTIME_REPAIRS`. The
``channel``/``allowedChannels`` check involves two fields: :func:`allowed_channel`, applied by the compiler
(with the load warning) and by the bank.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from wbsim.world.fieldtypes import FieldType as T
from wbsim.world.schema import Bounds, FieldSpec, NodeSchema
from wbsim.world.schema_kit import MINUS_ONE_OR_POSITIVE, NON_NEGATIVE, node_schema, simulated_field, solid_fields

__all__ = [
    "schemas", "TYPES", "RADIO", "SERIAL", "INFRA_RED", "medium_code", "RUNTIME_REPAIRS", "emitter_repairs",
    "receiver_repairs", "allowed_channel", "TYPE_MESSAGE",
]

TYPES = ("infra-red", "radio", "serial")
"""The values of ``type``, in the order of the restriction in Webots' ``.wrl`` files."""

RADIO, SERIAL, INFRA_RED = 0, 1, 2
"""Medium codes (Webots' ``WbDataPacket`` medium types): only equal media communicate."""

TYPE_MESSAGE = ("Invalid 'type' changed to \"radio\". The value should be in the list: "
                "{\"infra-red\", \"radio\", \"serial\"}.")
"""Webots' warning for a ``type`` outside the field's restriction (``WbField::checkValueIsAccepted``)."""


def medium_code(value: str) -> int:
    """The medium code of a ``type`` value (``WbDataPacket::decodeMediumType``; anything else is radio)."""
    return {"serial": SERIAL, "infra-red": INFRA_RED}.get(value, RADIO)


def _reset(name: str, type_: T, default: object, bounds: Bounds, replacement: object, should: str,
           unit: str = "") -> FieldSpec:
    """A field Webots resets to ``replacement`` with ``Invalid '<name>' changed to ... The value should be ...``."""
    message = f"Invalid '{name}' changed to {replacement}. The value should be {should}."
    return simulated_field(name, type_, default, bounds=bounds, on_violation="replace", replacement=replacement,
                           violation_message=message, unit=unit)


def _type() -> FieldSpec:
    # The checker formats the message (``{value}``): the braces of Webots' list are doubled.
    return simulated_field("type", T.SFString, "radio", choices=TYPES, on_violation="replace", replacement="radio",
                           violation_message=TYPE_MESSAGE.replace("{", "{{").replace("}", "}}"))


def _aperture() -> FieldSpec:
    # resetDoubleIfNotInRangeWithIncludedBoundsAndNotDisabled(aperture, 0, 2 pi, -1, -1); Qt prints 2 pi as 6.28319.
    return _reset("aperture", T.SFFloat, -1.0, Bounds(0.0, 2.0 * math.pi, also=(-1.0,)), -1,
                  "in either -1 or in range [0, 6.28319]", unit="rad")


def _byte_size() -> FieldSpec:
    return _reset("byteSize", T.SFInt32, 8, Bounds(8.0, math.inf), 8, "8 or greater", unit="bit")


def _positive_or_disabled(name: str, type_: T, unit: str) -> FieldSpec:
    default = -1.0 if type_ is T.SFFloat else -1
    return _reset(name, type_, default, MINUS_ONE_OR_POSITIVE, -1, "either -1 or positive", unit=unit)


def _noise(name: str) -> FieldSpec:
    return _reset(name, T.SFFloat, 0.0, NON_NEGATIVE, 0, "non-negative")


def _emitter_fields() -> list[FieldSpec]:
    return [
        _type(),
        # Not repaired at load: Webots calls updateRange only when the field changes (RUNTIME_REPAIRS).
        simulated_field("range", T.SFFloat, -1.0, unit="m"),
        _positive_or_disabled("maxRange", T.SFFloat, "m"),
        _aperture(),
        simulated_field("channel", T.SFInt32, 0),
        # An emitter's baudRate is not checked: a negative one means infinite, 0 sends nothing.
        simulated_field("baudRate", T.SFInt32, -1, unit="bit/s"),
        _byte_size(),
        simulated_field("bufferSize", T.SFInt32, -1, unit="byte"),  # see RUNTIME_REPAIRS
        simulated_field("allowedChannels", T.MFInt32, ()),
    ]


def _receiver_fields() -> list[FieldSpec]:
    return [
        _type(),
        _aperture(),
        simulated_field("channel", T.SFInt32, 0),
        _positive_or_disabled("baudRate", T.SFInt32, "bit/s"),
        _byte_size(),
        _positive_or_disabled("bufferSize", T.SFInt32, "byte"),
        _noise("signalStrengthNoise"),
        _noise("directionNoise"),
        simulated_field("allowedChannels", T.MFInt32, ()),
    ]


RUNTIME_REPAIRS: Mapping[str, FieldSpec] = MappingProxyType({
    "range": _positive_or_disabled("range", T.SFFloat, "m"),
    "bufferSize": _positive_or_disabled("bufferSize", T.SFInt32, "byte"),
})
"""The Emitter fields Webots repairs only when they change at run time (``updateRange``, ``updateBufferSize``)."""


@functools.cache
def emitter_repairs() -> Mapping[str, FieldSpec]:
    """The Emitter fields repaired at load and whenever they change (``updateTransmissionSetup``), by name."""
    return MappingProxyType({s.name: s for s in _emitter_fields() if s.on_violation == "replace"})


@functools.cache
def receiver_repairs() -> Mapping[str, FieldSpec]:
    """The Receiver fields repaired at load and whenever they change (``updateTransmissionSetup``), by name."""
    return MappingProxyType({s.name: s for s in _receiver_fields() if s.on_violation == "replace"})


def allowed_channel(channel: int, allowed: Sequence[int]) -> int | None:
    """The channel Webots sets when ``channel`` is not in a non-empty ``allowedChannels`` (its first item),
    or None if ``channel`` is allowed (``isChannelAllowed``)."""
    if not allowed or channel in allowed:
        return None
    return int(allowed[0])


def schemas() -> list[NodeSchema]:
    """The Emitter and Receiver schemas."""
    return [
        node_schema("Emitter", "solid", solid_fields("emitter") + _emitter_fields()),
        node_schema("Receiver", "solid", solid_fields("receiver") + _receiver_fields()),
    ]
