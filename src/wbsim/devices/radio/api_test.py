"""The Webots Emitter and Receiver API: names, properties, what ``send`` accepts, error texts and return values
of ``emitter.c`` / ``receiver.c`` and Webots' Python classes."""

from __future__ import annotations

import ctypes
import math
import struct

import pytest

from wbsim.errors import ControllerError

WORLD = """
WorldInfo { basicTimeStep 16 }
Robot { name "a" controller "<extern>" children [ Emitter { channel 1 maxRange 4 } ] }
Robot { translation 2 0 0 name "b" controller "<extern>" children [ Receiver { channel 1 } ] }
"""


@pytest.fixture
def pair(project, load):
    sim = load(project(WORLD))
    a, b = sim.robot("a"), sim.robot("b")
    receiver = b.getDevice("receiver")
    receiver.enable(16)
    return a, a.getDevice("emitter"), receiver


def _transmit(a, emitter, message, *args):
    emitter.send(message, *args)
    a.step(16)


def test_controller_module_exports_both_classes_with_webots_names():
    import controller
    from controller import Emitter, Node, Receiver, Sensor

    assert {"Emitter", "Receiver"} <= set(controller.__all__)
    assert Emitter.CHANNEL_BROADCAST == -1
    assert issubclass(Receiver, Sensor) and not issubclass(Emitter, Sensor)
    for name in ("send", "getBufferSize", "getChannel", "setChannel", "getRange", "setRange", "buffer_size",
                 "channel", "range"):
        assert hasattr(Emitter, name), name
    for name in ("enable", "disable", "getSamplingPeriod", "getQueueLength", "nextPacket", "getBytes", "getString",
                 "getData", "getDataSize", "getFloats", "getInts", "getBools", "getSignalStrength",
                 "getEmitterDirection", "getChannel", "setChannel", "queue_length", "data", "data_size", "string",
                 "signal_strength", "emitter_direction", "channel", "sampling_period"):
        assert hasattr(Receiver, name), name
    assert Node.EMITTER != Node.RECEIVER


def test_get_device_and_deprecated_getters(pair, capfd):
    from controller import Emitter, Node, Receiver

    a, emitter, receiver = pair
    assert isinstance(emitter, Emitter) and isinstance(receiver, Receiver)
    assert emitter.getNodeType() == Node.EMITTER and receiver.getNodeType() == Node.RECEIVER
    assert a.getEmitter("emitter") is emitter
    assert "DEPRECATION: Robot.getEmitter is deprecated, please use Robot.getDevice instead." in capfd.readouterr().err


def test_library_values_come_from_the_node_before_the_first_step(pair):
    _, emitter, receiver = pair
    assert (emitter.getChannel(), emitter.channel, emitter.getRange(), emitter.getBufferSize()) == (1, 1, -1.0, -1)
    assert (receiver.getChannel(), receiver.channel) == (1, 1)
    assert (receiver.getSamplingPeriod(), receiver.sampling_period) == (16, 16)


@pytest.mark.parametrize(("message", "args", "expected"), [
    (b"bytes", (), b"bytes"),
    (b"bytes", (3,), b"byt"),
    (b"ab", (4,), b"ab\0\0"),  # C reads past the end of the buffer: zeros here
    ("text", (), b"text"),
    ("héllo", (), "héllo".encode()[:5]),  # Webots passes len(str) bytes of the UTF-8 encoding
    ([1.5, 2.0], (), struct.pack("2d", 1.5, 2.0)),
    ((1, 2, 3), (), struct.pack("3i", 1, 2, 3)),
    ([True, False], (), struct.pack("2i", 1, 0)),  # a bool is an int: packed as C ints, as in Webots
    ([1.0, 2], (), struct.pack("2d", 1.0, 2.0)),
])
def test_send_accepts_what_webots_python_class_accepts(pair, message, args, expected):
    a, emitter, receiver = pair
    assert emitter.send(message, *args) is None
    a.step(16)
    assert receiver.getBytes() == expected and receiver.getDataSize() == len(expected)


def test_send_refuses_with_webots_texts(pair, capfd):
    a, emitter, receiver = pair
    emitter.send([])
    emitter.send(["a"])
    emitter.send(bytearray(b"x"))
    emitter.send(b"")
    emitter.send("")
    emitter.send(b"abc", 0)
    emitter.send(b"abc", -2)
    with pytest.raises(struct.error):
        emitter.send([1, 2.5])  # an int list with a float, as struct.pack refuses it in Webots
    a.step(16)
    assert receiver.getQueueLength() == 0
    assert capfd.readouterr().err.splitlines() == [
        "Emitter.send(): empty list",
        "Emitter.send(): unsupported data type list: <class 'list'>",
        "Emitter.send(): unsupported data type: <class 'bytearray'>",
        "Error: wb_emitter_send(): invalid size=0 argument.",
        "Error: wb_emitter_send(): invalid size=0 argument.",
        "Error: wb_emitter_send(): invalid size=0 argument.",
        "Error: wb_emitter_send(): invalid size=-2 argument.",
    ]


def test_channel_and_range_setters_check_like_the_c_library(pair, capfd):
    _, emitter, receiver = pair
    emitter.setChannel(-2)
    receiver.setChannel(-3)
    emitter.setRange(-0.5)
    emitter.range = 10.0
    assert emitter.getRange() == 4.0  # clipped to maxRange
    emitter.range = 2.5
    emitter.channel = -1
    receiver.channel = 7
    assert (emitter.range, emitter.channel, receiver.channel) == (2.5, -1, 7)
    assert capfd.readouterr().err.splitlines() == [
        "Error: wb_emitter_set_channel() called with an invalid channel=-2. Please use a channel inside the range "
        "[-1,inf).",
        "Error: wb_receiver_set_channel() called with an invalid channel=-3. Please use a channel inside the range "
        "[-1,inf).",
        "Error: wb_emitter_set_range(): invalid range=-0.500000 argument.",
    ]


def test_receiver_sampling_errors(pair, capfd):
    _, _, receiver = pair
    receiver.enable(-1)
    receiver.disable()
    assert receiver.getQueueLength() == 0
    receiver.sampling_period = 32
    assert receiver.getSamplingPeriod() == 32
    assert capfd.readouterr().err.splitlines() == [
        "Error: wb_receiver_enable() called with negative sampling period.",
        "Error: wb_receiver_get_queue_length() called for a disabled device! Please use: wb_receiver_enable().",
    ]


def test_typed_readers_and_the_data_pointer(pair, capfd):
    a, emitter, receiver = pair
    _transmit(a, emitter, [0.5, -2.0])
    assert receiver.getFloats() == (0.5, -2.0)
    assert receiver.getInts() == struct.unpack("4i", struct.pack("2d", 0.5, -2.0))
    assert receiver.getBools() == struct.unpack("16?", struct.pack("2d", 0.5, -2.0))
    pointer = receiver.data
    assert isinstance(pointer, ctypes.POINTER(ctypes.c_ubyte))
    assert bytes(pointer[0:receiver.data_size]) == struct.pack("2d", 0.5, -2.0)
    receiver.nextPacket()
    _transmit(a, emitter, b"\x01\x02\x03")
    with pytest.raises(struct.error):
        receiver.getFloats()  # 3 bytes are not a whole number of doubles
    receiver.nextPacket()
    _transmit(a, emitter, "héllo wörld")
    assert receiver.getString() == receiver.string == "héllo wör"  # 11 characters: 11 of its 13 bytes
    assert receiver.getData() == "héllo wör"
    deprecation = "DEPRECATION: Receiver.getData is deprecated, please use Receiver.getString instead."
    assert deprecation in capfd.readouterr().err
    receiver.nextPacket()
    _transmit(a, emitter, b"\xff")
    with pytest.raises(UnicodeDecodeError):
        receiver.getString()


def test_get_string_on_an_empty_queue_stops_the_controller_as_webots_crashes(pair, capfd):
    _, _, receiver = pair
    assert not receiver.data  # a NULL pointer
    with pytest.raises(ControllerError, match="empty queue"):
        receiver.getString()
    err = capfd.readouterr().err
    assert err.count("Error: wb_receiver_get_data(): the receiver queue is empty.") == 2


def test_signal_strength_and_direction_properties(pair):
    a, emitter, receiver = pair
    _transmit(a, emitter, b"x")
    assert receiver.getSignalStrength() == receiver.signal_strength == pytest.approx(0.25)
    assert receiver.getEmitterDirection() == receiver.emitter_direction == pytest.approx([-1.0, 0.0, 0.0])
    assert receiver.queue_length == receiver.getQueueLength() == 1
    receiver.nextPacket()
    assert receiver.queue_length == 0
    assert math.isnan(receiver.signal_strength)
