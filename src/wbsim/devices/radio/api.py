"""Webots' ``Emitter`` and ``Receiver`` API over the core devices.

The methods compose as in Webots' Python classes (``emitter.py``, ``receiver.py``) over the C functions of
``emitter.c`` / ``receiver.c``, whose checks, error texts and return values are reproduced here
(``Error: ...`` on stderr). What the C library returns through ctypes is returned the same way: ``data``
is a ``ctypes.POINTER(c_ubyte)`` (NULL when the queue is empty), ``send`` returns None (the Python class
drops the C result), ``getEmitterDirection`` on an empty queue raises ``ValueError("NULL pointer access")``
as ctypes does. ``getString`` on an empty queue, which crashes a Webots controller (``ctypes.string_at`` on
NULL), raises :class:`~wbsim.errors.ControllerError`.
"""

from __future__ import annotations

import ctypes
import operator
import struct
import sys
from typing import TYPE_CHECKING

from wbsim.api.arguments import c_arguments
from wbsim.api.device import Device, Sensor, print_error
from wbsim.devices.radio.bank import Emitter as CoreEmitter
from wbsim.devices.radio.bank import Packet
from wbsim.devices.radio.bank import Receiver as CoreReceiver
from wbsim.errors import ControllerError

if TYPE_CHECKING:
    from wbsim.api.robot import Robot

__all__ = ["Emitter", "Receiver", "make_api", "api_classes"]

_UBYTE_P = ctypes.POINTER(ctypes.c_ubyte)


@c_arguments(2, setChannel="int", setRange="double")
class Emitter(Device):
    """A radio, serial or infra-red emitter (Webots ``controller.Emitter``)."""

    CHANNEL_BROADCAST = -1
    _core: CoreEmitter

    def __init__(self, core: CoreEmitter, robot: Robot) -> None:
        super().__init__(core, robot)
        if core.bank.lib_byte_rate[core.index] != -1.0:
            # With a baud rate the library writes packets when its controller steps (emitter_write_request).
            robot._add_step_hook(core.write_request)

    def send(self, message: str | bytes | list | tuple, length: int | None = None) -> None:
        """Queue a packet: bytes (the first ``length``), a str (UTF-8, cut to ``len(message)`` bytes as Webots
        does), or a list/tuple of floats, ints or bools (packed as C doubles or ints). A full buffer drops the
        packet silently (Webots' C function returns 0, its Python class nothing)."""
        if isinstance(message, bytes):
            self._send(message, len(message) if length is None else length)
        elif isinstance(message, str):
            self._send(str.encode(message), len(message))
        elif isinstance(message, (list, tuple)):
            count = len(message)
            if count == 0:
                print("Emitter.send(): empty list", file=sys.stderr)
                return
            # Webots tests float, then int (which bools are too), then bool: a bool list is packed as ints.
            if isinstance(message[0], float):
                code = "d"
            elif isinstance(message[0], int):
                code = "i"
            else:
                print(f"Emitter.send(): unsupported data type list: {type(message)}", file=sys.stderr)
                return
            packed = struct.pack(f"{count}{code}", *message)
            self._send(packed, len(packed))
        else:
            print(f"Emitter.send(): unsupported data type: {type(message)}", file=sys.stderr)

    def _send(self, data: bytes, size: int) -> int:
        """``wb_emitter_send(tag, data, size)``: 1 if queued, 0 if not."""
        size = operator.index(size)
        if size < 1:
            print_error(f"wb_emitter_send(): invalid size={size} argument.")
            return 0
        # C reads ``size`` bytes from the buffer; past the end of a Python bytes object that is undefined (zeros here).
        payload = data[:size] if size <= len(data) else data + bytes(size - len(data))
        return int(self._core.send(payload))

    def getBufferSize(self) -> int:
        """The emission buffer size in bytes (-1: unlimited)."""
        return self._core.buffer_size

    def getChannel(self) -> int:
        """The channel the next packet will be sent on."""
        return self._core.channel

    def setChannel(self, channel: int) -> None:
        """Send the next packets on ``channel`` (-1: every channel); it must be in ``allowedChannels``."""
        if channel < -1:
            print_error(f"wb_emitter_set_channel() called with an invalid channel={channel}. Please use a channel "
                        "inside the range [-1,inf).")
            return
        allowed = self._core.allowed_channels
        if allowed and channel not in allowed:
            print_error(f"wb_emitter_set_channel() called with channel={channel}, which is not between allowed "
                        "channels. Please use an allowed channel.")
            return
        self._core.set_channel(channel)

    def getRange(self) -> float:
        """The emission range in m (-1: infinite)."""
        return self._core.range

    def setRange(self, range: float) -> None:  # noqa: A002 (Webots' parameter name)
        """Set the emission range in m: -1 means ``maxRange``; larger values are clipped to ``maxRange``."""
        value = range
        if value < 0.0 and value != -1.0:
            print_error(f"wb_emitter_set_range(): invalid range={value:f} argument.")
            return
        self._core.set_range(value)

    buffer_size = property(getBufferSize)
    channel = property(getChannel, setChannel)
    range = property(getRange, setRange)


@c_arguments(2, setChannel="int")
class Receiver(Sensor):
    """A radio, serial or infra-red receiver (Webots ``controller.Receiver``)."""

    _C_NAME = "wb_receiver"
    _core: CoreReceiver

    def _bind(self) -> None:
        super()._bind()
        self._queue = self._core.queue  # read directly: controllers poll the queue every step

    def _head(self, function: str) -> Packet | None:
        """The head packet, or None after Webots' empty-queue error for ``function``."""
        if self._queue:
            return self._queue[0]
        print_error(f"{function}(): the receiver queue is empty.")
        return None

    # -- C-level accessors (Webots' ctypes calls) --------------------------------------------------------
    def _get_data(self) -> ctypes._Pointer:  # type: ignore[name-defined]
        head = self._head("wb_receiver_get_data")
        if head is None:
            return _UBYTE_P()
        buffer = (ctypes.c_ubyte * len(head.data)).from_buffer_copy(head.data)
        return ctypes.cast(buffer, _UBYTE_P)  # the cast keeps the buffer alive

    def _get_data_size(self) -> int:
        head = self._head("wb_receiver_get_data_size")
        return -1 if head is None else len(head.data)

    # -- Webots' Python methods ------------------------------------------------------------------------------
    def getQueueLength(self) -> int:
        """The number of packets received and not yet dropped with ``nextPacket``."""
        if self._periods[self._row] <= 0:
            self._disabled_error("get_queue_length")
        return len(self._queue)

    def nextPacket(self) -> None:
        """Drop the head packet (nothing happens on an empty queue)."""
        self._core.next_packet()

    def getDataSize(self) -> int:
        """The size in bytes of the head packet (-1 with an error if the queue is empty)."""
        return self._get_data_size()

    def getBytes(self) -> bytes:
        """The head packet's bytes (``b''`` with errors if the queue is empty)."""
        if self._queue:
            return self._queue[0].data
        data = self._get_data()
        size = self._get_data_size()
        return bytes(data[0:size])

    def getString(self) -> str:
        """The head packet's bytes decoded as UTF-8.

        Raises:
            ControllerError: the queue is empty (Webots' controller crashes there: a NULL pointer is read).
            UnicodeDecodeError: the bytes are not UTF-8, as in Webots.
        """
        if self._queue:
            return self._queue[0].data.decode()
        data = self._get_data()
        size = self._get_data_size()
        if not data:
            raise ControllerError("Receiver.getString() called on an empty queue: a Webots controller crashes here "
                                  "(ctypes.string_at reads a NULL pointer). Check getQueueLength() first.")
        return ctypes.string_at(data, size).decode()

    def getData(self) -> str:
        """Deprecated: ``getString``."""
        print("DEPRECATION: Receiver.getData is deprecated, please use Receiver.getString instead.", file=sys.stderr)
        return self.getString()

    def getFloats(self) -> tuple[float, ...]:
        """The head packet as C doubles (``struct.error`` if its size is not a multiple of 8)."""
        return struct.unpack(f"{int(self._get_data_size() / 8)}d", self.getBytes())

    def getInts(self) -> tuple[int, ...]:
        """The head packet as C ints (``struct.error`` if its size is not a multiple of 4)."""
        return struct.unpack(f"{int(self._get_data_size() / 4)}i", self.getBytes())

    def getBools(self) -> tuple[bool, ...]:
        """The head packet as C bools, one per byte."""
        return struct.unpack(f"{self._get_data_size()}?", self.getBytes())

    def getSignalStrength(self) -> float:
        """The head packet's signal strength, ``1 / distance^2`` (+inf from the physics plugin; NaN with an
        error if the queue is empty)."""
        head = self._head("wb_receiver_get_signal_strength")
        return float("nan") if head is None else head.signal_strength

    def getEmitterDirection(self) -> list[float]:
        """The head packet's emitter direction, a unit vector in the receiver's frame (NaNs from the physics
        plugin).

        Raises:
            ValueError: the queue is empty (after Webots' error; ctypes' NULL pointer access).
        """
        head = self._head("wb_receiver_get_emitter_direction")
        if head is None:
            raise ValueError("NULL pointer access")
        return list(head.direction)

    def getChannel(self) -> int:
        """The reception channel (-1: every channel)."""
        return self._core.channel

    def setChannel(self, channel: int) -> None:
        """Listen on ``channel`` (-1: every channel); it must be in ``allowedChannels``."""
        if channel < -1:
            print_error(f"wb_receiver_set_channel() called with an invalid channel={channel}. Please use a channel "
                        "inside the range [-1,inf).")
            return
        if channel == self._core.channel:
            return
        allowed = self._core.allowed_channels
        if allowed and channel not in allowed:
            print_error(f"wb_receiver_set_channel() called with channel={channel}, which is not between allowed "
                        "channels. Please use an allowed channel.")
            return
        self._core.set_channel(channel)

    queue_length = property(getQueueLength)
    data = property(_get_data)
    data_size = property(getDataSize)
    signal_strength = property(getSignalStrength)
    emitter_direction = property(getEmitterDirection)
    channel = property(getChannel, setChannel)

    @property
    def string(self) -> str:
        """The head packet as a string (see :meth:`getString`)."""
        return self.getString()


def make_api(core: CoreEmitter | CoreReceiver, robot: Robot) -> Emitter | Receiver:
    """The Webots API object of a core Emitter or Receiver."""
    if isinstance(core, CoreReceiver):
        return Receiver(core, robot)
    return Emitter(core, robot)


def api_classes() -> dict[str, type]:
    """The classes the ``controller`` module exports for emitters and receivers."""
    return {"Emitter": Emitter, "Receiver": Receiver}
