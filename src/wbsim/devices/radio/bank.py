"""Emitters and Receivers with Webots semantics, for every one of a world in one bank (one row per device).

Each device has two sides, as in Webots: the **simulator's** (the node's fields, ``WbEmitter`` /
``WbReceiver``) and the **controller library's** (``emitter.c`` / ``receiver.c``: its own copies of
channel, range, buffer size, allowed channels, and its queues). The API classes read the library side.

**Sending** (``emitter.c``). ``send`` puts the packet, with the library's channel and range at that time,
in the library queue if ``bufferSize`` allows (the bytes waiting there count). The library writes the
queue to the simulator with the controller's next step: all of it for ``baudRate -1``; otherwise
``baudRate / byteSize / 1000`` bytes per ms of that step are credited (the credit restarts at 0 when a
packet enters an empty queue) and packets leave in order while the head fits. Each packet written sets
the Emitter's ``channel`` and ``range`` fields to the packet's (``WbEmitter::handleMessage``, with the
repairs of ``updateChannel`` / ``updateRange``) and enters the simulator queue with the channel field's
value. So ``setChannel``/``setRange`` alone never reach the simulator, and the simulator echoes a field
it changed back to the library after the step (``C_EMITTER_SET_*``), which can undo a later
``setChannel``.

**Transmission** (``DEVICES_ACTUATE``, Webots' emitter ``prePhysicsStep`` then
``WbReceiver::transmitPacket``, emitters in scene order). A packet goes to every *enabled* receiver of
the same medium, on a matching channel (equal, or either side -1), in another robot. Radio and serial
packets enter the receiver's waiting queue; infra-red ones wait for the line-of-sight test. If the
emitter's ``channel`` field is 0 at that moment (the last packet's channel), the packet also goes to the
physics plugin (``BankContext.plugin_post``), whatever its medium, range or aperture.

**After physics** (``DEVICES_SAMPLE``, Webots' receiver ``postPhysicsStep`` then its sample):

1. infra-red: each new packet passes if the receiver is within the emitter's range, each is within the
   other's aperture cone (+x axis, aperture > 0), and no geometry blocks the segment
   (:class:`~wbsim.devices.radio.delivery.LineOfSight`); its direction and signal strength are computed
   now, once;
2. radio and serial: every waiting packet is dropped if the receiver is out of the emitter's *current*
   range (checked after every step until the sample; apertures are ignored);
3. receivers whose sample is due (Webots' ``WbSensor`` schedule) hand their waiting packets to the library,
   radio and serial ones with the direction and strength of this step; the library keeps a packet if
   the receiver's ``bufferSize`` allows (the unread bytes count), else drops it silently.

Physics-plugin packets (:meth:`RadioBank.deliver_from_plugin`) wait like radio packets but are never
range-checked: signal strength +inf, direction (NaN, NaN, NaN). Gaussian noise comes from the
simulation's seeded generator.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Real

import mujoco
import numpy as np

from wbsim.devices.kind import BankContext, BankDevice, DeviceBank
from wbsim.devices.radio.compile import RadioBinding
from wbsim.devices.radio.delivery import LineOfSight, in_cone, in_range, reception
from wbsim.devices.radio.schema import (
    INFRA_RED, RUNTIME_REPAIRS, TYPE_MESSAGE, TYPES, allowed_channel, emitter_repairs, medium_code,
    receiver_repairs,
)
from wbsim.devices.sampling import SampledBank, SampledDevice, SampleGroup

__all__ = ["RadioBank", "Packet", "Emitter", "Receiver", "NO_DIRECTION"]

NO_DIRECTION = (math.nan, math.nan, math.nan)
"""The emitter direction of a packet without emitter (sent by the physics plugin)."""

# Library news the simulator sends after a step (Webots' writeAnswer), as bit flags per row.
_RANGE, _CHANNEL, _BUFFER, _ALLOWED, _CONFIGURE = 1, 2, 4, 8, 16

_INT_FIELDS = ("channel", "baudRate", "byteSize", "bufferSize")
_EMITTER_ONLY = ("range", "maxRange")
_RECEIVER_ONLY = ("signalStrengthNoise", "directionNoise")


@dataclass(slots=True, eq=False)
class Packet:
    """A packet on its way to, or in, a receiver.

    Attributes:
        data: the bytes sent.
        emitter: the bank row of the emitter, -1 for the physics plugin.
        direction: the emitter's direction in the receiver's frame (unit vector), NaN until computed.
        signal_strength: ``1 / distance^2`` (with noise), +inf until computed or without emitter.
    """

    data: bytes
    emitter: int
    direction: tuple[float, float, float] = NO_DIRECTION
    signal_strength: float = math.inf


class RadioBank(SampledBank):
    """Fields, queues and delivery of all Emitters and Receivers of one simulation (row ``i`` is ``bindings[i]``).

    Args:
        bindings: the devices, in scene order.
        context: the simulation's model, data, clock, generator, warnings and physics-plugin receiver.

    Attributes:
        is_receiver: True for Receivers, (n,).
        medium, range, max_range, aperture, channel, baud_rate, byte_size, buffer_size, signal_noise,
            direction_noise, allowed: the fields as the simulator holds them now (repaired).
        lib_channel, lib_range, lib_max_range, lib_buffer_size, lib_byte_rate, lib_allowed: the controller
            library's copies (``lib_byte_rate``: bytes per ms, -1 for infinite; fixed at configure).
        lib_queue: the library queues: an Emitter's packets not yet written to the simulator, as
            (channel, range, data); a Receiver's received packets (:class:`Packet`), head first.
        lib_used: bytes in each library queue (Webots' ``buffer_used``).
    """

    actuates = True
    carried = ("lib_channel", "lib_range", "lib_max_range", "lib_buffer_size", "lib_byte_rate", "lib_allowed",
               "lib_queue", "lib_used", "_credit")

    def __init__(self, bindings: tuple[RadioBinding, ...], context: BankContext) -> None:
        super().__init__(bindings, context)
        self.bindings: tuple[RadioBinding, ...] = bindings
        n = self.n
        self.is_receiver = np.array([b.receiver for b in bindings], dtype=bool)
        self._receivers = np.flatnonzero(self.is_receiver)
        self._sites = np.array([b.site_id for b in bindings], dtype=np.int64)
        self.robot = np.array([b.robot for b in bindings], dtype=np.int64)
        self._sight = LineOfSight(context.model, bindings[0].world) if n else None
        # Simulator side: the fields (updated in place).
        self.type_name: list[str] = ["radio"] * n
        self.medium = np.zeros(n, dtype=np.int64)
        self.range = np.full(n, -1.0)
        self.max_range = np.full(n, -1.0)
        self.aperture = np.full(n, -1.0)
        self.channel = np.zeros(n, dtype=np.int64)
        self.baud_rate = np.full(n, -1, dtype=np.int64)
        self.byte_size = np.full(n, 8, dtype=np.int64)
        self.buffer_size = np.full(n, -1, dtype=np.int64)
        self.signal_noise = np.zeros(n)
        self.direction_noise = np.zeros(n)
        self.allowed: list[tuple[int, ...]] = [()] * n
        self._fields = {"range": self.range, "maxRange": self.max_range, "aperture": self.aperture,
                        "signalStrengthNoise": self.signal_noise, "directionNoise": self.direction_noise,
                        "channel": self.channel, "baudRate": self.baud_rate, "byteSize": self.byte_size,
                        "bufferSize": self.buffer_size}  # the numeric fields, by name
        # Controller library side.
        self.lib_channel = np.zeros(n, dtype=np.int64)
        self.lib_range = np.full(n, -1.0)
        self.lib_max_range = np.full(n, -1.0)
        self.lib_buffer_size = np.full(n, -1, dtype=np.int64)
        self.lib_byte_rate = np.full(n, -1.0)
        self.lib_allowed: list[tuple[int, ...]] = [()] * n
        self.lib_queue: list[deque] = [deque() for _ in range(n)]
        self.lib_used = np.zeros(n, dtype=np.int64)
        self._credit = np.zeros(n)  # emitter.c's bytes_to_send
        # Simulator queues.
        self._to_write: set[int] = set()  # emitters (baudRate -1) whose library queue is written at the next step
        self._outgoing: dict[int, list[tuple[int, bytes]]] = {}  # WbEmitter::mQueue: (channel, data)
        self._infra_red: list[tuple[int, int, bytes]] = []  # (emitter, receiver, data) awaiting line of sight
        self._waiting: dict[int, list[Packet]] = {}  # WbReceiver::mWaitingQueue of receivers holding packets
        self._news: dict[int, int] = {}  # library updates due after the step, by row
        self._delivered: list[tuple[int, Packet]] = []  # handed to libraries by the last sample (see restart)
        self._restore_fields()
        self._configure()

    def transfer_from(self, old: DeviceBank, rows: tuple[np.ndarray, np.ndarray], state: object) -> None:
        """The library sides (queues, copies of the fields) and the simulator's queues of the devices that stay;
        packets in transit from a removed emitter arrive without a direction, as the physics plugin's."""
        super().transfer_from(old, rows, state)
        assert isinstance(old, RadioBank)
        row_map = dict(zip(rows[0].tolist(), rows[1].tolist()))
        for packets in old._waiting.values():
            for packet in packets:
                packet.emitter = row_map.get(packet.emitter, -1)
        self._to_write = {row_map[r] for r in old._to_write if r in row_map}
        self._outgoing = {row_map[r]: q for r, q in old._outgoing.items() if r in row_map}
        self._infra_red = [(row_map[e], row_map[r], d) for e, r, d in old._infra_red if e in row_map and r in row_map]
        self._waiting = {row_map[r]: q for r, q in old._waiting.items() if r in row_map}
        self._news = {row_map[r]: v for r, v in old._news.items() if r in row_map}
        self._delivered = [(row_map[r], p) for r, p in old._delivered if r in row_map]

    # -- fields ---------------------------------------------------------------------------------------------
    def _name(self, row: int) -> str:
        return str(self.bindings[row].node["name"])

    def _warn(self, row: int, text: str) -> None:
        self.context.warn(f"{self._name(row)}: {text}")

    def _restore_fields(self) -> None:
        """Every field back to the world file's value, repaired as at load (silently: the load warned)."""
        for row, binding in enumerate(self.bindings):
            node = binding.node
            repairs = receiver_repairs() if binding.receiver else emitter_repairs()
            kind = str(node["type"])
            self.type_name[row] = kind
            self.medium[row] = medium_code(kind)
            self.channel[row] = binding.channel
            self.allowed[row] = tuple(int(c) for c in node["allowedChannels"])  # type: ignore[union-attr]
            for name in ("aperture", "baudRate", "byteSize", "bufferSize") + (
                    _RECEIVER_ONLY if binding.receiver else _EMITTER_ONLY):
                value = float(node[name])  # type: ignore[arg-type]
                if name in repairs:
                    value = float(repairs[name].repaired(value)[0])  # type: ignore[arg-type]
                self._fields[name][row] = value

    def _byte_rate(self, row: int) -> float:
        """Bytes per ms an emitter may send (``WbEmitter::updateTransmissionSetup``), -1 for infinite."""
        baud = int(self.baud_rate[row])
        return -1.0 if baud < 0 else baud / int(self.byte_size[row]) / 1000.0

    def _configure(self) -> None:
        """The library's copies, as the configure message of a controller's start gives them."""
        np.copyto(self.lib_channel, self.channel)
        np.copyto(self.lib_range, self.range)
        np.copyto(self.lib_max_range, self.max_range)
        np.copyto(self.lib_buffer_size, self.buffer_size)
        self.lib_allowed[:] = self.allowed
        for row in range(self.n):
            self.lib_byte_rate[row] = -1.0 if self.is_receiver[row] else self._byte_rate(row)

    def _tell(self, row: int, news: int) -> None:
        self._news[row] = self._news.get(row, 0) | news

    def _set_channel(self, row: int, value: int) -> None:
        """Write the ``channel`` field; on a change Webots checks it against ``allowedChannels``
        (``WbEmitter::updateChannel``; a Receiver runs its whole ``updateTransmissionSetup``)."""
        if value == self.channel[row]:
            return
        self.channel[row] = value
        if self.is_receiver[row]:
            self._receiver_setup(row)
            return
        repaired = allowed_channel(value, self.allowed[row])
        if repaired is not None:
            self._warn(row, f"'channel' is not included in 'allowedChannels'. Setting 'channel' to {repaired}")
            self.channel[row] = repaired
        self._tell(row, _CHANNEL)

    def _set_range(self, row: int, value: float) -> None:
        """Write an Emitter's ``range``; on a change Webots repairs it and caps it by ``maxRange``
        (``WbEmitter::updateRange``) and tells the library."""
        if value == self.range[row]:
            return
        if not math.isnan(value):  # Webots' test (value <= 0 and not -1) lets NaN through
            value, message = RUNTIME_REPAIRS["range"].repaired(value)
            if message is not None:
                self._warn(row, message)
        limit = float(self.max_range[row])
        if limit != -1.0 and (value > limit or value == -1.0):
            self._warn(row, "'range' must be less than or equal to 'maxRange'.")
            value = limit
        self.range[row] = value
        self._tell(row, _RANGE)

    def _receiver_setup(self, row: int) -> None:
        """``WbReceiver::updateTransmissionSetup`` after a field change: the channel against
        ``allowedChannels``, then a configure message to the library (the other repairs happened when their
        field was written)."""
        repaired = allowed_channel(int(self.channel[row]), self.allowed[row])
        if repaired is not None:
            self._warn(row, f"'channel' is not included in 'allowedChannels'. Setting 'channel' to {repaired}")
            self.channel[row] = repaired
        self._tell(row, _CONFIGURE)

    def field_changed(self, row: int, name: str, value: object) -> object | None:
        """A supervisor wrote a field: applied at once with Webots' repairs, warnings and library updates.

        Emitter: ``range`` (``updateRange``), ``channel`` (``updateChannel``), ``bufferSize``
        (``updateBufferSize``) and ``allowedChannels`` (``updateAllowedChannels``) are echoed to the
        controller library; ``type``, ``maxRange``, ``aperture``, ``baudRate`` and ``byteSize``
        (``updateTransmissionSetup``) change the simulator only (the library keeps the ``maxRange`` and byte
        rate of its configure message). Receiver: every field, then a configure message (buffer size,
        channel, allowed channels) to the library.

        Returns:
            The value the field now holds, or None for fields the device does not use.
        """
        receiver = bool(self.is_receiver[row])
        if name == "type":
            text = str(value)
            if text not in TYPES:
                self._warn(row, TYPE_MESSAGE)
                text = "radio"
            self.type_name[row] = text
            self.medium[row] = medium_code(text)
            if receiver:
                self._receiver_setup(row)
            return text
        if name == "allowedChannels":
            self.allowed[row] = tuple(int(c) for c in value)  # type: ignore[union-attr]
            repaired = allowed_channel(int(self.channel[row]), self.allowed[row])
            if repaired is not None:
                self._warn(row, "'allowedChannels' does not contain current 'channel'. Setting 'channel' to "
                                f"{repaired}.")
                self.channel[row] = repaired
                self._tell(row, _CHANNEL)
            self._tell(row, _CONFIGURE if receiver else _ALLOWED)
            return self.allowed[row]
        if name == "channel":
            self._set_channel(row, int(value))  # type: ignore[call-overload]
            return int(self.channel[row])
        if name == "range" and not receiver:
            self._set_range(row, float(value))  # type: ignore[arg-type]
            return float(self.range[row])
        repairs = receiver_repairs() if receiver else emitter_repairs()
        fields = (("aperture", "baudRate", "byteSize", "bufferSize", "signalStrengthNoise", "directionNoise")
                  if receiver else ("maxRange", "aperture", "baudRate", "byteSize", "bufferSize"))
        if name not in fields:
            return None
        number = float(value)  # type: ignore[arg-type]
        spec = repairs.get(name) or (RUNTIME_REPAIRS["bufferSize"] if name == "bufferSize" else None)
        if spec is not None:
            number, message = spec.repaired(number)
            if message is not None:
                self._warn(row, message)
        self._fields[name][row] = number
        if receiver:
            self._receiver_setup(row)
        elif name == "bufferSize":
            self._tell(row, _BUFFER)
        return int(number) if name in _INT_FIELDS else float(number)

    def field_value(self, row: int, name: str) -> object | None:
        """The live value of a field (the controller's packets change an Emitter's ``channel`` and ``range``)."""
        if name == "type":
            return self.type_name[row]
        if name == "allowedChannels":
            return self.allowed[row]
        receiver = bool(self.is_receiver[row])
        if name not in self._fields or name in (_EMITTER_ONLY if receiver else _RECEIVER_ONLY):
            return None
        value = self._fields[name][row]
        return int(value) if name in _INT_FIELDS else float(value)

    # -- controller library: emitters ---------------------------------------------------------------------
    def send(self, row: int, data: bytes) -> bool:
        """``wb_emitter_send`` past its argument checks: queue ``data`` (at least 1 byte) with the library's
        channel and range if the buffer has room for it; True if queued."""
        size = len(data)
        limit = int(self.lib_buffer_size[row])
        if limit != -1 and size > limit - int(self.lib_used[row]):
            return False
        queue = self.lib_queue[row]
        if not queue:
            self._credit[row] = 0.0
        queue.append((int(self.lib_channel[row]), float(self.lib_range[row]), data))
        self.lib_used[row] += size
        if self.lib_byte_rate[row] == -1.0:
            self._to_write.add(row)
        return True

    def write_request(self, row: int, duration_ms: float) -> None:
        """The library's ``emitter_write_request`` when the controller calls ``step(duration_ms)``: write as
        many queued packets as the baud rate allows to the simulator (all of them for -1)."""
        queue = self.lib_queue[row]
        if not queue:
            return
        rate = float(self.lib_byte_rate[row])
        if rate != -1.0:
            self._credit[row] += rate * duration_ms
        while queue and (rate == -1.0 or len(queue[0][2]) <= self._credit[row]):
            channel, reach, data = queue.popleft()
            self.lib_used[row] -= len(data)
            self._credit[row] -= len(data)
            self._handle_send(row, channel, reach, data)

    def _handle_send(self, row: int, channel: int, reach: float, data: bytes) -> None:
        """``WbEmitter::handleMessage(C_EMITTER_SEND)``: the packet's channel and range become the fields', then
        it waits for the emitter's transmission with the channel field's value."""
        self._set_channel(row, channel)
        self._set_range(row, reach)
        self._outgoing.setdefault(row, []).append((int(self.channel[row]), data))

    def set_library_range(self, row: int, value: float) -> None:
        """``wb_emitter_set_range`` past its argument check: -1 means ``maxRange``; clipped to ``maxRange``."""
        limit = float(self.lib_max_range[row])
        if value == -1.0:
            value = limit
        elif limit != -1.0 and value > limit:
            value = limit
        self.lib_range[row] = value

    # -- controller library: receivers --------------------------------------------------------------------
    def receiver_channel(self, row: int, channel: int) -> None:
        """A controller's ``wb_receiver_set_channel`` reaching the simulator: the ``channel`` field changes
        (Webots applies it before the next transmissions, as here)."""
        self.lib_channel[row] = channel
        self._set_channel(row, channel)

    def next_packet(self, row: int) -> None:
        """``wb_receiver_next_packet``: drop the head packet, if any."""
        queue = self.lib_queue[row]
        if queue:
            self.lib_used[row] -= len(queue.popleft().data)

    # -- physics plugin -----------------------------------------------------------------------------------
    def deliver_from_plugin(self, channel: int, data: bytes) -> None:
        """A physics plugin's ``dWebotsSend(channel, data)`` (``WbReceiver::transmitData``).

        A copy goes to every enabled Receiver whose ``channel`` field equals ``channel`` exactly (no broadcast
        matching, no medium, range, aperture or robot check), with signal strength +inf and emitter direction
        (NaN, NaN, NaN); it is readable after that receiver's next sample.
        """
        receivers = self._receivers
        if not len(receivers):
            return
        hits = receivers[(self.schedule.every[receivers] > 0) & (self.channel[receivers] == channel)]
        payload = bytes(data)
        for row in hits.tolist():
            self._waiting.setdefault(row, []).append(Packet(payload, -1))

    # -- per step -------------------------------------------------------------------------------------------
    def actuate(self, data: mujoco.MjData) -> None:
        """Before physics: write the library queues of emitters without baud rate, then every emitter (scene
        order) transmits its packets to the receivers and, on channel 0, to the physics plugin."""
        if self._to_write:
            rows, self._to_write = sorted(self._to_write), set()
            for row in rows:
                self.write_request(row, 0.0)
        if self._outgoing:
            outgoing, self._outgoing = self._outgoing, {}
            self._transmit(outgoing)

    def _transmit(self, outgoing: dict[int, list[tuple[int, bytes]]]) -> None:
        """``WbReceiver::transmitPacket`` for every packet, vectorised over packets x receivers."""
        rows = sorted(outgoing)
        packets = [(row, channel, payload) for row in rows for channel, payload in outgoing[row]]
        receivers = self._receivers
        if len(receivers):
            sender = np.array([p[0] for p in packets], dtype=np.int64)
            channel = np.array([p[1] for p in packets], dtype=np.int64)
            enabled = self.schedule.every[receivers] > 0
            r_channel = self.channel[receivers]
            match = (enabled[None, :]
                     & (self.medium[sender][:, None] == self.medium[receivers][None, :])
                     & ((channel[:, None] == r_channel[None, :]) | (channel[:, None] == -1)
                        | (r_channel[None, :] == -1))
                     & (self.robot[sender][:, None] != self.robot[receivers][None, :]))
            for p, r in zip(*np.nonzero(match)):
                row, payload = int(receivers[r]), packets[p][2]
                if self.medium[row] == INFRA_RED:
                    self._infra_red.append((packets[p][0], row, payload))
                else:
                    self._waiting.setdefault(row, []).append(Packet(payload, packets[p][0]))
        post = self.context.plugin_post
        for row in rows:
            if self.channel[row] == 0:  # the emitter's own channel now (Webots: e->channel() == 0)
                for _, payload in outgoing[row]:
                    post(payload)

    def sample(self, data: mujoco.MjData, step: int) -> None:
        """After physics: infra-red line of sight, radio range checks, deliveries of receivers due, then the
        library updates the simulator sends after a step."""
        due = self.schedule.due(step)
        if self._delivered:
            self._delivered = []
        if self._infra_red:
            self._receive_infra_red()
        if self._waiting:
            self._check_ranges()
            if due:
                self._deliver(due)
        if self._news:
            self._tell_controllers()

    def _poses(self) -> tuple[np.ndarray, np.ndarray]:
        """Every device's world position (n, 3) and rotation (n, 3, 3), from fresh kinematics."""
        self.context.refresh_kinematics()
        data = self.context.data
        if data is None:
            raise RuntimeError("a radio bank needs the simulation's MjData (BankContext.data)")
        return data.site_xpos[self._sites], data.site_xmat[self._sites].reshape(-1, 3, 3)

    def _receive_infra_red(self) -> None:
        """Infra-red packets of this step: range, both aperture cones, line of sight; survivors wait with the
        direction and strength of now (``WbReceiver::postPhysicsStep``, infra-red branch)."""
        pending, self._infra_red = self._infra_red, []
        sender = np.array([p[0] for p in pending], dtype=np.int64)
        target = np.array([p[1] for p in pending], dtype=np.int64)
        pos, rot = self._poses()
        e_pos, r_pos = pos[sender], pos[target]
        ok = (in_range(e_pos, r_pos, self.range[sender])
              & in_cone(rot[sender][:, :, 0], r_pos - e_pos, self.aperture[sender])
              & in_cone(rot[target][:, :, 0], e_pos - r_pos, self.aperture[target]))
        check = np.flatnonzero(ok)
        if len(check) and self._sight is not None:
            data = self.context.data
            assert data is not None  # _poses checked it
            ok[check] = ~self._sight.blocked(data, e_pos[check], r_pos[check], sender[check], target[check],
                                             self.robot[sender[check]], self.robot[target[check]])
        keep = np.flatnonzero(ok)
        if not len(keep):
            return
        direction, strength = reception(e_pos[keep], r_pos[keep], rot[target[keep]],
                                        self.direction_noise[target[keep]], self.signal_noise[target[keep]],
                                        self.context.rng())
        for i, k in enumerate(keep.tolist()):
            emitter, receiver, payload = pending[k]
            self._waiting.setdefault(receiver, []).append(
                Packet(payload, emitter, tuple(direction[i].tolist()), float(strength[i])))

    def _radio_packets(self, rows: Sequence[int]) -> list[tuple[int, Packet]]:
        """The waiting packets from emitters of radio and serial receivers among ``rows``."""
        return [(row, p) for row in rows if self.medium[row] != INFRA_RED for p in self._waiting[row]
                if p.emitter >= 0]

    def _check_ranges(self) -> None:
        """Drop the radio and serial packets whose receiver is out of their emitter's current range (Webots
        checks them after every physics step until the sample)."""
        pairs = self._radio_packets(list(self._waiting))
        pairs = [(row, p) for row, p in pairs if self.range[p.emitter] != -1.0]
        if not pairs:
            return
        sender = np.array([p.emitter for _, p in pairs], dtype=np.int64)
        target = np.array([row for row, _ in pairs], dtype=np.int64)
        pos, _ = self._poses()
        out = ~in_range(pos[sender], pos[target], self.range[sender])
        if not out.any():
            return
        dropped = {id(pairs[i][1]) for i in np.flatnonzero(out).tolist()}
        for row in {int(target[i]) for i in np.flatnonzero(out).tolist()}:
            kept = [p for p in self._waiting[row] if id(p) not in dropped]
            if kept:
                self._waiting[row] = kept
            else:
                del self._waiting[row]

    def _deliver(self, due: list[SampleGroup]) -> None:
        """Receivers sampled now hand their waiting packets to the library (``refreshSensorIfNeeded``)."""
        rows = [row for row in self._waiting if any(row in group.members for group in due)]
        if not rows:
            return
        radio = self._radio_packets(rows)
        if radio:
            sender = np.array([p.emitter for _, p in radio], dtype=np.int64)
            target = np.array([row for row, _ in radio], dtype=np.int64)
            pos, rot = self._poses()
            direction, strength = reception(pos[sender], pos[target], rot[target], self.direction_noise[target],
                                            self.signal_noise[target], self.context.rng())
            for i, (_, packet) in enumerate(radio):
                packet.direction = tuple(direction[i].tolist())
                packet.signal_strength = float(strength[i])
        for row in rows:
            queue = self.lib_queue[row]
            limit = int(self.lib_buffer_size[row])
            for packet in self._waiting.pop(row):
                size = len(packet.data)
                if limit == -1 or size <= limit - int(self.lib_used[row]):
                    queue.append(packet)
                    self.lib_used[row] += size
                    self._delivered.append((row, packet))
            self.lib_channel[row] = self.channel[row]  # C_RECEIVER_RECEIVE carries the receiver's channel

    def _tell_controllers(self) -> None:
        """What the simulator writes to the libraries after a step: changed Emitter fields (``writeAnswer``),
        Receiver configure messages."""
        news, self._news = self._news, {}
        for row, flags in news.items():
            if flags & _RANGE:
                self.lib_range[row] = self.range[row]
            if flags & _CHANNEL:
                self.lib_channel[row] = self.channel[row]
            if flags & _BUFFER:
                self.lib_buffer_size[row] = self.buffer_size[row]
            if flags & _ALLOWED:
                self.lib_allowed[row] = self.allowed[row]
            if flags & _CONFIGURE:
                self.lib_buffer_size[row] = self.buffer_size[row]
                self.lib_channel[row] = self.channel[row]
                self.lib_allowed[row] = self.allowed[row]

    # -- resets ---------------------------------------------------------------------------------------------
    def _clear_simulator_queues(self) -> None:
        self._outgoing.clear()
        self._infra_red.clear()
        self._waiting.clear()
        self._delivered = []

    def reset(self) -> None:
        """As after loading: fields from the file, every queue empty, receivers disabled, libraries configured
        afresh (controllers restart)."""
        self._clear_simulator_queues()
        self._to_write.clear()
        self._news.clear()
        for queue in self.lib_queue:
            queue.clear()
        self.lib_used[:] = 0
        self._credit[:] = 0.0
        self._restore_fields()
        self._configure()
        self.schedule.reset()

    def restart(self) -> None:
        """Webots' world reset with controllers running: the simulator's queues are emptied
        (``WbEmitter::reset``, ``WbReceiver::reset``), fields go back to the file's values (a changed field is
        echoed to the library as after a write), enabled receivers stay enabled; the libraries keep their
        queues. Packets handed to a library by this step's sample are taken back: Webots resets the world before
        it answers the controllers, so they were still in the receiver's waiting queue."""
        for row, packet in reversed(self._delivered):
            queue = self.lib_queue[row]
            if queue and queue[-1] is packet:
                queue.pop()
                self.lib_used[row] -= len(packet.data)
        self._clear_simulator_queues()
        before = [self._snapshot(row) for row in range(self.n)]
        self._restore_fields()
        for row in range(self.n):
            old, new = before[row], self._snapshot(row)
            if self.is_receiver[row]:
                if old != new:
                    self._tell(row, _CONFIGURE)
                continue
            news = ((_RANGE if old[0] != new[0] else 0) | (_CHANNEL if old[1] != new[1] else 0)
                    | (_BUFFER if old[2] != new[2] else 0) | (_ALLOWED if old[3] != new[3] else 0))
            if news:
                self._tell(row, news)
        self.schedule.restart()

    def _snapshot(self, row: int) -> tuple[object, ...]:
        """The fields of a device (an Emitter's first four are those its library is told about)."""
        return (float(self.range[row]), int(self.channel[row]), int(self.buffer_size[row]), self.allowed[row],
                self.type_name[row], float(self.aperture[row]), int(self.baud_rate[row]), int(self.byte_size[row]),
                float(self.max_range[row]), float(self.signal_noise[row]), float(self.direction_noise[row]))

    def core(self, row: int) -> Emitter | Receiver:
        """The core Emitter or Receiver of row ``row``."""
        cls = Receiver if self.is_receiver[row] else Emitter
        return cls(self, row, self._name(row), self.context.now_step)


@dataclass
class Emitter(BankDevice):
    """One Emitter (snake_case core of Webots' ``Emitter``), seen from its controller library."""

    bank: RadioBank
    kind: str = "radio"

    @property
    def channel(self) -> int:
        """The library's channel (the field's after each step in which the simulator changed it)."""
        return int(self.bank.lib_channel[self.index])

    def set_channel(self, channel: int) -> None:
        """Set the library's channel (used by the next ``send``; checks are the API's)."""
        self.bank.lib_channel[self.index] = channel

    @property
    def range(self) -> float:
        """The library's range (m, -1 for infinite)."""
        return float(self.bank.lib_range[self.index])

    def set_range(self, value: float) -> None:
        """Set the library's range: -1 means ``maxRange``; clipped to ``maxRange``."""
        self.bank.set_library_range(self.index, value)

    @property
    def max_range(self) -> float:
        """The ``maxRange`` the library was configured with (m, -1 for infinite)."""
        return float(self.bank.lib_max_range[self.index])

    @property
    def buffer_size(self) -> int:
        """The library's buffer size (bytes, -1 for unlimited)."""
        return int(self.bank.lib_buffer_size[self.index])

    @property
    def allowed_channels(self) -> tuple[int, ...]:
        """The library's allowed channels (empty: any)."""
        return self.bank.lib_allowed[self.index]

    def send(self, data: bytes) -> bool:
        """Queue ``data`` (>= 1 byte) for the next step if the buffer has room; True if queued."""
        return self.bank.send(self.index, data)

    def write_request(self, duration_ms: float) -> None:
        """What the library writes when its controller calls ``step(duration_ms)`` (packets the baud rate allows)."""
        if isinstance(duration_ms, Real) and 0.0 <= duration_ms < math.inf:
            self.bank.write_request(self.index, float(duration_ms))


@dataclass
class Receiver(SampledDevice):
    """One Receiver (snake_case core of Webots' ``Receiver``), seen from its controller library."""

    bank: RadioBank
    kind: str = "radio"

    @property
    def queue(self) -> deque:
        """The received packets (:class:`Packet`), head first."""
        return self.bank.lib_queue[self.index]

    def next_packet(self) -> None:
        """Drop the head packet, if any."""
        self.bank.next_packet(self.index)

    @property
    def channel(self) -> int:
        """The library's channel (the field's, from the last configure or received packet)."""
        return int(self.bank.lib_channel[self.index])

    def set_channel(self, channel: int) -> None:
        """Listen on ``channel`` from the next transmissions on (checks are the API's)."""
        self.bank.receiver_channel(self.index, channel)

    @property
    def allowed_channels(self) -> tuple[int, ...]:
        """The library's allowed channels (empty: any)."""
        return self.bank.lib_allowed[self.index]

    @property
    def buffer_size(self) -> int:
        """The library's buffer size (bytes, -1 for unlimited)."""
        return int(self.bank.lib_buffer_size[self.index])
