"""Webots' ``Motion``: play a ``.motion`` file (timed joint poses) on the robot's motors.

File format (Webots' ``.motion``): a header line ``#WEBOTS_MOTION,V1.0,<motor name>,...``, then one line per
pose ``<time>,<pose name>,<position>,...`` with increasing times written ``[[minutes:]seconds:]milliseconds``
and ``*`` for "no position". While a motion plays, each ``robot.step(ms)`` first sets every listed motor's
target to the position interpolated linearly between the two poses around the motion's elapsed time (none
when either pose has ``*``; the first / last pose before / after them), then advances the elapsed time by
``ms`` (backwards when reversed). At the end it stops, or restarts from the other end when looping. Motors
not on the robot are ignored with a warning. This follows Webots' controller library (``motion.c``).
"""

from __future__ import annotations

import re
import sys
import weakref
from typing import TYPE_CHECKING

from wbsim.api.device import print_error
from wbsim.sim.controllers import current_robot

if TYPE_CHECKING:
    from wbsim.api.robot import Robot

__all__ = ["Motion", "parse_motion"]

_TIME = re.compile(r"^[0-9:]+$")


def _time_ms(token: str) -> int | None:
    """``[[minutes:]seconds:]milliseconds`` in ms, or None if malformed."""
    if not _TIME.match(token) or token.count(":") > 2:
        return None
    parts = token.split(":")
    if any(p == "" for p in parts):
        return None
    values = [0] * (3 - len(parts)) + [int(p) for p in parts]
    return values[0] * 60000 + values[1] * 1000 + values[2]


def parse_motion(text: str, filename: str) -> tuple[list[str], list[int], list[list[float | None]]]:
    """The motor names, pose times (ms) and positions (None for ``*``) of a ``.motion`` file.

    Raises:
        ValueError: with Webots' message, for a malformed file.
    """
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise ValueError(f"file '{filename}' is empty.")
    head = [t for t in lines[0].strip().split(",") if t]
    if not head or head[0] != "#WEBOTS_MOTION":
        raise ValueError(f"invalid motion file header in file '{filename}'.")
    if len(head) < 2 or head[1] != "V1.0":
        raise ValueError(f"unsupported version number in motion file '{filename}'.")
    names = head[2:]
    times: list[int] = []
    poses: list[list[float | None]] = []
    for number, line in enumerate(lines[1:], start=2):
        tokens = [t for t in line.strip().split(",") if t]
        if not tokens:
            break
        time = _time_ms(tokens[0])
        if time is None:
            raise ValueError(f"expected <time value> but found '{tokens[0]}', in file '{filename}', line {number}.")
        if times and time <= times[-1]:
            raise ValueError(f"illegal (non-increasing) time sequence detected in file '{filename}', line {number}.")
        if len(tokens) < 2:
            raise ValueError(f"pose name expected in file '{filename}', line {number}.")
        values = tokens[2:]
        if len(values) < len(names):
            raise ValueError(f"missing data in file '{filename}', line {number}.")
        if len(values) > len(names):
            raise ValueError(f"unexpected extra data '{values[len(names)]}', in file '{filename}', line {number}.")
        try:
            poses.append([None if v == "*" else float(v) for v in values])
        except ValueError:
            raise ValueError(f"expected <double value>, in file '{filename}', line {number}.") from None
        times.append(time)
    if not names or not times:
        raise ValueError(f"file '{filename}' must contain at least one joint and one pose.")
    return names, times, poses


class Motion:
    """A ``.motion`` file played on the motors of the robot of the running controller (Webots
    ``controller.Motion``).

    Args:
        filename: the ``.motion`` file (relative to the controller's folder, its working directory).
        robot: the robot to play it on (default: the Robot object of the running controller).
    """

    def __init__(self, filename: str, robot: Robot | None = None) -> None:
        self._valid = False
        self._elapsed = 0
        self._playing = False
        self._reverse = False
        self._loop = False
        self._times: list[int] = []
        self._poses: list[list[float | None]] = []
        self._motors: list[object | None] = []
        if robot is None:
            runtime = current_robot()
            robot = getattr(runtime, "api_robot", None) if runtime is not None else None
        if not filename:
            print_error("wbu_motion_new() called with NULL or empty 'filename' argument.")
            return
        try:
            with open(filename, encoding="utf-8") as file:
                text = file.read()
        except OSError:
            print_error(f"wbu_motion_new(): could not open '{filename}' file.")
            return
        try:
            names, self._times, self._poses = parse_motion(text, filename)
        except ValueError as error:
            print_error(f"wbu_motion_new(): {error}")
            return
        devices = robot.devices if robot is not None else {}
        for name in names:
            motor = devices.get(name)
            if motor is None or not hasattr(motor, "setPosition"):
                print(f"Warning: wbu_motion_new(): ignoring joint '{name}', specified in file '{filename}', but not "
                      "found in this robot.", file=sys.stderr)
                motor = None
            self._motors.append(motor)
        self._valid = True
        if robot is not None:
            step = weakref.WeakMethod(self._step)
            robot._add_step_hook(lambda ms: (lambda m: m(ms) if m is not None else None)(step()))

    # -- playing ----------------------------------------------------------------------------------------
    def _position(self, joint: int) -> float | None:
        times, poses, t = self._times, self._poses, self._elapsed
        if t <= times[0]:
            return poses[0][joint]
        if t >= times[-1]:
            return poses[-1][joint]
        for a in range(len(times) - 1):
            if times[a] <= t <= times[a + 1]:
                pa, pb = poses[a][joint], poses[a + 1][joint]
                if pa is None or pb is None:
                    return None
                return pa + (t - times[a]) * (pb - pa) / (times[a + 1] - times[a])
        return None

    def _step(self, ms: float) -> None:
        """One ``robot.step(ms)`` of a playing motion: set the targets, then advance the elapsed time."""
        if not self._playing or ms <= 0:
            return
        for joint, motor in enumerate(self._motors):
            if motor is not None:
                position = self._position(joint)
                if position is not None:
                    motor.setPosition(position)  # type: ignore[attr-defined]
        duration = self._times[-1]
        if self._reverse:
            if self._elapsed <= 0:
                if self._loop:
                    self._elapsed = duration
                else:
                    self._elapsed, self._playing = 0, False
            else:
                self._elapsed -= int(ms)
        elif self._elapsed >= duration:
            if self._loop:
                self._elapsed = 0
            else:
                self._elapsed, self._playing = duration, False
        else:
            self._elapsed += int(ms)

    def isValid(self) -> bool:
        """True if the file was loaded."""
        return self._valid

    def play(self) -> None:
        """Start (or resume) playing with the next steps; from the other end if it had reached one."""
        if not self._valid:
            return
        self._playing = True
        if self._reverse and self._elapsed <= 0:
            self._elapsed = self._times[-1]
        elif not self._reverse and self._elapsed >= self._times[-1]:
            self._elapsed = 0

    def stop(self) -> None:
        """Pause (the elapsed time is kept)."""
        self._playing = False

    def setLoop(self, loop: bool) -> None:
        """Restart from the other end when reaching one."""
        self._loop = bool(loop)

    def setReverse(self, reverse: bool) -> None:
        """Play backwards."""
        self._reverse = bool(reverse)

    def isOver(self) -> bool:
        """True when a non-looping motion has reached its end (its start when reversed)."""
        if not self._valid or self._loop:
            return False
        return (self._reverse and self._elapsed <= 0) or (not self._reverse and self._elapsed >= self._times[-1])

    def getDuration(self) -> int:
        """The time of the last pose (ms); -1 for an invalid motion."""
        return self._times[-1] if self._valid else -1

    def getTime(self) -> int:
        """The elapsed time (ms)."""
        return self._elapsed

    def setTime(self, time: int) -> None:
        """Jump to ``time`` ms (clamped to [0, duration])."""
        if self._valid:
            self._elapsed = max(0, min(int(time), self._times[-1]))

    time = property(getTime, setTime)
    duration = property(getDuration)
