"""Named mutable value cells that transmissions read and write.

A handle stands for one interface of one joint or actuator, e.g. ``joint1/position``. It owns its value
(ros2_control's handles point at a ``double`` owned elsewhere); ``value=None`` makes an *invalid* handle, the
stand-in for ros2_control's null pointer: it is false in a boolean test and reading or writing it raises.

The module also holds the small name helpers the 2x2 transmissions use (upstream's ``accessor.hpp``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

from wbsim.errors import TransmissionError

__all__ = [
    "Handle",
    "JointHandle",
    "ActuatorHandle",
    "get_names",
    "get_ordered_handles",
    "to_string",
]


def _as_value(value: object, what: str) -> float:
    """Convert a user value to float; TransmissionError for non-numbers (str is refused on purpose)."""
    if isinstance(value, (str, bytes)):
        raise TransmissionError(f"{what} must be a real number, got {value!r}.")
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise TransmissionError(f"{what} must be a real number, got {value!r}.") from None


class Handle:
    """One interface of one joint or actuator: a name and a mutable float value.

    Args:
        prefix_name: the joint or actuator name, e.g. ``"joint1"`` or ``"act1"``.
        interface_name: the interface, e.g. ``"position"`` (see :mod:`wbsim.transmission.interfaces`).
        value: the initial value (SI units of the interface: m or rad, m/s or rad/s, N or N m), or None for an
            invalid handle.

    An invalid handle keeps its names (``get_name()`` works) but ``get_value()`` and ``set_value()`` raise
    :class:`~wbsim.errors.TransmissionError`. Validity never changes after construction.
    """

    __slots__ = ("_prefix_name", "_interface_name", "_value")

    def __init__(self, prefix_name: str, interface_name: str, value: float | None = 0.0) -> None:
        if not isinstance(prefix_name, str) or not isinstance(interface_name, str):
            raise TransmissionError(
                f"Handle names must be strings, got prefix_name={prefix_name!r}, "
                f"interface_name={interface_name!r}."
            )
        self._prefix_name = prefix_name
        self._interface_name = interface_name
        self._value: float | None = (
            None if value is None else _as_value(value, f"Value of handle '{self.get_name()}'")
        )

    def __bool__(self) -> bool:
        """True iff the handle is valid (has a value), like upstream's ``operator bool``."""
        return self._value is not None

    def get_name(self) -> str:
        """Return ``"<prefix>/<interface>"``, e.g. ``"joint1/position"``."""
        return f"{self._prefix_name}/{self._interface_name}"

    def get_prefix_name(self) -> str:
        """Return the joint or actuator name."""
        return self._prefix_name

    def get_interface_name(self) -> str:
        """Return the interface name."""
        return self._interface_name

    def get_value(self) -> float:
        """Return the value.

        Raises:
            TransmissionError: if the handle is invalid.
        """
        value = self._value
        if value is None:
            raise TransmissionError(
                f"get_value() failed: handle '{self.get_name()}' is invalid (it has no value)."
            )
        return value

    def set_value(self, value: float) -> None:
        """Set the value (a real number; NaN and infinities are stored as given).

        Raises:
            TransmissionError: if the handle is invalid or ``value`` is not a real number.
        """
        if self._value is None:
            raise TransmissionError(
                f"set_value() failed: handle '{self.get_name()}' is invalid (it has no value)."
            )
        self._value = _as_value(value, f"Value of handle '{self.get_name()}'")

    def __repr__(self) -> str:
        shown = "None" if self._value is None else repr(self._value)
        return f"{type(self).__name__}({self._prefix_name!r}, {self._interface_name!r}, {shown})"


class JointHandle(Handle):
    """A handle on a joint interface (joint space: what controllers command)."""

    __slots__ = ()


class ActuatorHandle(Handle):
    """A handle on an actuator interface (actuator space: what motors and encoders see)."""

    __slots__ = ()


H = TypeVar("H", bound=Handle)


def get_names(handles: Iterable[Handle]) -> list[str]:
    """Return the distinct prefix names of ``handles``, sorted (code-point order, i.e. UTF-8 byte order).

    Invalid handles count, as upstream's ``get_names`` does; so ``"joint10"`` sorts before ``"joint2"``.
    """
    return sorted({h.get_prefix_name() for h in handles})


def get_ordered_handles(handles: Sequence[H], names: Sequence[str], interface_name: str) -> list[H]:
    """Return the valid handles of ``interface_name``, grouped in the order of ``names``.

    For each name in turn, every valid handle with that prefix and interface is appended (duplicates
    included), like upstream's ``get_ordered_handles``; invalid handles are dropped.
    """
    return [
        h
        for name in names
        for h in handles
        if h.get_prefix_name() == name and h.get_interface_name() == interface_name and h
    ]


def to_string(items: Sequence[str]) -> str:
    """Format a list as upstream's ``to_string`` does: ``"[a, b] "`` (trailing space kept) or ``"[]"``."""
    if not items:
        return "[]"
    return "[" + ", ".join(items) + "] "
