"""Names of the interfaces a transmission maps, and how each one is mapped.

The names are ros2_control's (``hardware_interface/types/hardware_interface_type_values.hpp`` plus
``transmission_interface::HW_IF_ABSOLUTE_POSITION``). Every interface is mapped with one of three formulas:

- position-like (``position``, ``absolute_position``): the velocity map plus the joint offsets;
- velocity: the linear velocity map;
- effort-like (``effort``, ``torque``, ``force``): the effort map.

``absolute_position`` is sensor-like: it is mapped from actuator to joint only.
"""

from __future__ import annotations

from typing import Final, Literal

__all__ = [
    "POSITION",
    "VELOCITY",
    "EFFORT",
    "TORQUE",
    "FORCE",
    "ABSOLUTE_POSITION",
    "ALL_INTERFACES",
    "POSITION_LIKE",
    "EFFORT_LIKE",
    "ACTUATOR_TO_JOINT_ONLY",
    "MapKind",
    "map_kind",
    "interface_label",
]

POSITION: Final = "position"
VELOCITY: Final = "velocity"
EFFORT: Final = "effort"
TORQUE: Final = "torque"
FORCE: Final = "force"
ABSOLUTE_POSITION: Final = "absolute_position"

#: Canonical order, as returned by ``get_supported_*_interfaces()`` and used in ``get_handles_info()``.
ALL_INTERFACES: Final[tuple[str, ...]] = (POSITION, VELOCITY, EFFORT, TORQUE, FORCE, ABSOLUTE_POSITION)

#: Interfaces mapped with the position formula (velocity map plus offsets).
POSITION_LIKE: Final[tuple[str, ...]] = (POSITION, ABSOLUTE_POSITION)

#: Interfaces mapped with the effort formula.
EFFORT_LIKE: Final[tuple[str, ...]] = (EFFORT, TORQUE, FORCE)

#: Interfaces that are only mapped from actuator to joint (never written to actuators).
ACTUATOR_TO_JOINT_ONLY: Final[tuple[str, ...]] = (ABSOLUTE_POSITION,)

MapKind = Literal["position", "velocity", "effort"]


def map_kind(interface: str) -> MapKind:
    """Return which formula maps ``interface``: ``"position"``, ``"velocity"`` or ``"effort"``.

    Raises:
        KeyError: if ``interface`` is not one of :data:`ALL_INTERFACES` (callers turn this into a
            :class:`~wbsim.errors.TransmissionError` with the list of valid names).
    """
    if interface in POSITION_LIKE:
        return "position"
    if interface == VELOCITY:
        return "velocity"
    if interface in EFFORT_LIKE:
        return "effort"
    raise KeyError(interface)


def interface_label(interface: str) -> str:
    """Return the name as upstream's messages print it (``absolute_position``: ``absolute position``)."""
    return interface.replace("_", " ")
