"""Webots' coupled motors: motors named ``<group>::<member>`` in one robot act as one.

A command given to one member (position, velocity, torque) goes to every member of its group, each scaling
it by its own ``multiplier`` field (Webots' ``WbMotor::handleMessage`` relays; see ``docs/motors.md``).
At load Webots makes the limits of a group consistent: each member in scene order imposes its
``minPosition``/``maxPosition`` (scaled by the multipliers' ratio, swapped when the ratio is negative; an
unlimited member makes the others unlimited) and its ``maxVelocity`` (scaled by the multipliers' magnitude
ratio) on the others, with Webots' warnings. In practice the first member of a group dictates.

This module holds the load-time part, on plain numbers (no nodes), so that it is testable alone.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

__all__ = ["MotorLimits", "couple_motors", "coupling_key"]


@dataclass(slots=True)
class MotorLimits:
    """The coupling-relevant fields of one motor (rad or m, rad/s or m/s); adjusted in place at load."""

    multiplier: float
    min_position: float
    max_position: float
    max_velocity: float

    def unlimited(self) -> bool:
        """Webots' rule: both position limits 0 means no limit."""
        return self.min_position == 0.0 and self.max_position == 0.0


def coupling_key(name: str) -> str | None:
    """The group name of a motor called ``name``: the part before ``::`` when the name has exactly one ``::``
    (Webots splits on ``::`` and requires two chunks), else None (not coupled)."""
    chunks = name.split("::")
    return chunks[0] if len(chunks) == 2 else None


def couple_motors(
    names: Sequence[str],
    robots: Sequence[Hashable],
    limits: Sequence[MotorLimits],
    warn: Callable[[int, str, str | None], None],
) -> list[int]:
    """Group the motors and make each group's limits consistent as Webots does at load.

    Args:
        names: the motors' ``name`` fields, in scene order.
        robots: for each motor, a key of the robot that owns it (coupling never crosses robots).
        limits: the motors' fields; multipliers of 0 become 1 and limits are adjusted in place.
        warn: ``warn(motor index, message, field name or None)`` for each of Webots' load warnings.

    Returns:
        For each motor, its group id (0, 1, ... in order of first member), or -1 when it has no sibling.
    """
    for i, motor in enumerate(limits):
        if motor.multiplier == 0.0:
            warn(i, "The value of 'multiplier' cannot be 0. Value reverted to 1.", "multiplier")
            motor.multiplier = 1.0
    members: dict[tuple[Hashable, str], list[int]] = {}
    for i, (name, robot) in enumerate(zip(names, robots)):
        key = coupling_key(name)
        if key is not None:
            members.setdefault((robot, key), []).append(i)
    group = [-1] * len(names)
    next_id = 0
    for rows in members.values():
        if len(rows) == 1:
            i = rows[0]
            warn(i, f"Motor '{names[i]}' uses the coupled motor name structure but does not have any siblings.", "name")
            continue
        for i in rows:
            group[i] = next_id
        next_id += 1
        # Each member, in scene order, imposes its limits on its siblings (Webots' postFinalize order).
        for k in rows:
            _impose(k, [i for i in rows if i != k], names, limits, warn)
    return group


def _impose(k: int, siblings: list[int], names: Sequence[str], limits: Sequence[MotorLimits],
            warn: Callable[[int, str, str | None], None]) -> None:
    me = limits[k]
    for i in siblings:
        other = limits[i]
        if me.unlimited() and not other.unlimited():
            warn(k, "For coupled motors, if one has unlimited position, its siblings must have unlimited position as "
                 f"well. Adjusting 'minPosition' and 'maxPosition' to 0 for motor '{names[k]}'.", None)
            other.min_position = other.max_position = 0.0
    if not me.unlimited():
        for i in siblings:
            other = limits[i]
            low = me.min_position * other.multiplier / me.multiplier
            high = me.max_position * other.multiplier / me.multiplier
            if high < low:
                low, high = high, low
            if other.min_position != low:
                warn(k, "When using coupled motors, 'minPosition' must be consistent across devices. Adjusting "
                     f"'minPosition' from {other.min_position:g} to {low:g} for motor '{names[k]}'.", "minPosition")
                other.min_position = low
            if other.max_position != high:
                warn(k, "When using coupled motors, 'maxPosition' must be consistent across devices. Adjusting "
                     f"'maxPosition' from {other.max_position:g} to {high:g} for motor '{names[k]}'.", "maxPosition")
                other.max_position = high
    for i in siblings:
        other = limits[i]
        velocity = me.max_velocity * abs(other.multiplier) / abs(me.multiplier)
        if other.max_velocity != velocity:
            warn(k, "When using coupled motors, velocity limits must be consistent across devices. Adjusted "
                 f"'maxVelocity' from {other.max_velocity:g} to {velocity:g} for motor '{names[k]}'.", "maxVelocity")
            other.max_velocity = velocity
