"""The physics plugin's receiver: what emitters on channel 0 sent it (Webots' ``WbPhysicsPlugin`` buffer).

In Webots every world has this receiver. An Emitter whose own ``channel`` field is 0 forwards every
packet it sends to it, whatever its medium, range or aperture, in the emitter's ``prePhysicsStep``;
packets are appended to one byte buffer. ``dWebotsReceive`` returns the whole buffer and raises a flag;
the next post or read after that starts from an empty buffer, so the data can be read once, and unread
data accumulates across steps.
"""

from __future__ import annotations

__all__ = ["PluginMailbox"]


class PluginMailbox:
    """The byte buffer of the physics plugin's receiver (one per simulation)."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._read = False
        self.open = False  # True while a plugin runs: without one, nothing is kept (Webots connects none)

    def post(self, data: bytes) -> None:
        """Append a packet sent by an emitter on channel 0 (dropped while no plugin runs)."""
        if not self.open:
            return
        if self._read:
            self._buffer.clear()
            self._read = False
        self._buffer += data

    def receive(self) -> bytes | None:
        """Everything posted since the last read (concatenated), or None if nothing was."""
        if self._read:
            self._buffer.clear()
            self._read = False
        if not self._buffer:
            return None
        self._read = True
        return bytes(self._buffer)

    def clear(self) -> None:
        """Forget everything (a reset)."""
        self._buffer.clear()
        self._read = False
