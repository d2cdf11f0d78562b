"""Emitters and Receivers in whole simulations, through the Webots API: every delivery rule of Webots' code.

Robots are static boxes (no Physics) with ``<extern>`` controllers driven from the test; the expected values
are Webots' rules (``WbReceiver.cpp``, ``WbEmitter.cpp``, ``emitter.c``, ``receiver.c``; see
``docs/radio.md``). Basic time step 16 ms unless said.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from controller import Emitter
from wbsim import Phase


def robot(name: str, translation: str, children: str, rotation: str = "0 0 1 0", extra: str = "",
          body: str = "boundingObject Box { size 0.1 0.1 0.1 }") -> str:
    """A static Robot (a 0.1 m box) driven from the test."""
    return (f'DEF {name.upper()} Robot {{ translation {translation} rotation {rotation} name "{name}" '
            f'controller "<extern>" supervisor TRUE {extra} children [ {children} ] {body} }}')


def world(*parts: str, step: int = 16) -> str:
    return f"WorldInfo {{ basicTimeStep {step} }}\n" + "\n".join(parts)


def received(receiver) -> list[bytes]:
    """Empty a receiver's queue: the packets' bytes, head first."""
    packets = []
    while receiver.getQueueLength() > 0:
        packets.append(receiver.getBytes())
        receiver.nextPacket()
    return packets


@pytest.fixture
def two(project, load):
    """Robot "a" with a radio emitter on channel 1, robot "b" 1 m away (+x) with a receiver on channel 1."""
    sim = load(project(world(robot("a", "0 0 0", "Emitter { channel 1 }"),
                             robot("b", "1 0 0", "Receiver { channel 1 }"))))
    a, b = sim.robot("a"), sim.robot("b")
    return sim, a, b, a.getDevice("emitter"), b.getDevice("receiver")


# -- timing ------------------------------------------------------------------------------------------------------
def test_a_packet_is_readable_after_the_step_it_was_sent_in(two):
    _, a, _, emitter, receiver = two
    receiver.enable(16)
    emitter.send(b"hello")
    assert receiver.getQueueLength() == 0
    a.step(16)  # transmitted before this step's physics, handed over at the receiver's sample after it
    assert received(receiver) == [b"hello"]
    a.step(16)
    assert receiver.getQueueLength() == 0


def test_packets_wait_for_the_receivers_sample(two):
    _, a, _, emitter, receiver = two
    receiver.enable(64)  # samples after steps 4, 8, ...
    emitter.send(b"one")
    a.step(16)
    emitter.send(b"two")
    for _ in range(2):
        a.step(16)
        assert receiver.getQueueLength() == 0
    a.step(16)
    assert received(receiver) == [b"one", b"two"]


def test_a_disabled_receiver_gets_nothing_and_enabling_does_not_fetch_the_past(two):
    _, a, _, emitter, receiver = two
    emitter.send(b"lost")
    a.step(16)
    receiver.enable(16)
    a.step(16)
    assert receiver.getQueueLength() == 0
    emitter.send(b"kept")
    receiver.disable()  # packets are sent only to receivers enabled at transmission time
    a.step(16)
    receiver.enable(16)
    a.step(16)
    assert receiver.getQueueLength() == 0


# -- channels, robots, media ---------------------------------------------------------------------------------------
def test_channels_broadcast_and_exact_matches(project, load):
    receivers = " ".join(f'Receiver {{ name "r{c}" channel {c} }}' for c in (1, 2, -1))
    sim = load(project(world(robot("a", "0 0 0", "Emitter { channel 1 }"), robot("b", "1 0 0", receivers))))
    a, b = sim.robot("a"), sim.robot("b")
    emitter = a.getDevice("emitter")
    r1, r2, rall = (b.getDevice(f"r{c}") for c in (1, 2, -1))
    for r in (r1, r2, rall):
        r.enable(16)
    emitter.send(b"on 1")
    a.step(16)
    assert [received(r) for r in (r1, r2, rall)] == [[b"on 1"], [], [b"on 1"]]  # -1 listens to every channel
    emitter.setChannel(Emitter.CHANNEL_BROADCAST)
    emitter.send(b"everyone")
    a.step(16)
    assert [received(r) for r in (r1, r2, rall)] == [[b"everyone"]] * 3
    emitter.setChannel(7)
    emitter.send(b"on 7")
    a.step(16)
    assert [received(r) for r in (r1, r2, rall)] == [[], [], [b"on 7"]]


def test_a_robot_never_receives_its_own_packets(project, load):
    sim = load(project(world(robot("a", "0 0 0", 'Emitter { channel -1 } Receiver { channel -1 }'),
                             robot("b", "1 0 0", "Receiver { channel -1 }"))))
    a, b = sim.robot("a"), sim.robot("b")
    own, other = a.getDevice("receiver"), b.getDevice("receiver")
    own.enable(16)
    other.enable(16)
    a.getDevice("emitter").send(b"x")
    a.step(16)
    assert (own.getQueueLength(), other.getQueueLength()) == (0, 1)


@pytest.mark.parametrize(("emitter_type", "receiver_type", "delivered"), [
    ("radio", "radio", True), ("serial", "serial", True), ("infra-red", "infra-red", True),
    ("radio", "serial", False), ("serial", "radio", False), ("infra-red", "radio", False),
    ("radio", "infra-red", False),
])
def test_media_must_be_equal(project, load, emitter_type, receiver_type, delivered):
    sim = load(project(world(robot("a", "0 0 0", f'Emitter {{ type "{emitter_type}" channel 1 }}'),
                             robot("b", "1 0 0", f'Receiver {{ type "{receiver_type}" channel 1 }}'))))
    a, b = sim.robot("a"), sim.robot("b")
    b.getDevice("receiver").enable(16)
    a.getDevice("emitter").send(b"x")
    a.step(16)
    assert b.getDevice("receiver").getQueueLength() == int(delivered)


def test_allowed_channels_refuse_other_channels_in_the_library(project, load, capfd):
    sim = load(project(world(robot("a", "0 0 0", "Emitter { channel 1 allowedChannels [ 1 3 ] }"),
                             robot("b", "1 0 0", "Receiver { channel 1 allowedChannels [ 1 3 ] }"))))
    emitter, receiver = sim.robot("a").getDevice("emitter"), sim.robot("b").getDevice("receiver")
    emitter.setChannel(2)
    receiver.setChannel(2)
    err = capfd.readouterr().err
    assert ("Error: wb_emitter_set_channel() called with channel=2, which is not between allowed channels. "
            "Please use an allowed channel.") in err
    assert ("Error: wb_receiver_set_channel() called with channel=2, which is not between allowed channels. "
            "Please use an allowed channel.") in err
    assert (emitter.getChannel(), receiver.getChannel()) == (1, 1)
    emitter.setChannel(3)
    receiver.setChannel(3)
    assert (emitter.getChannel(), receiver.getChannel()) == (3, 3)


# -- range, strength, direction ----------------------------------------------------------------------------------
def test_radio_range_is_inclusive_and_apertures_are_ignored(project, load):
    receivers = (robot("at", "1 0 0", "Receiver { channel 1 aperture 0.1 rotation 0 0 1 3.14159 }")
                 + robot("beyond", "1.000001 0.5 0", "Receiver { channel 1 }"))
    emitter = 'Emitter { channel 1 range 1.118034 aperture 0.01 rotation 0 0 1 1 }'  # pointing away, narrow
    sim = load(project(world(robot("a", "0 0 0", emitter), receivers)))
    at, beyond = sim.robot("at").getDevice("receiver"), sim.robot("beyond").getDevice("receiver")
    at.enable(16)
    beyond.enable(16)
    sim.robot("a").getDevice("emitter").send(b"x")
    sim.robot("a").step(16)
    assert (at.getQueueLength(), beyond.getQueueLength()) == (1, 0)  # 1.1180339887 > 1.118034 only for "beyond"


def test_range_exactly_at_the_receiver_delivers(project, load):
    sim = load(project(world(robot("a", "0 0 0", "Emitter { channel 1 range 2 }"),
                             robot("b", "2 0 0", "Receiver { channel 1 }"),
                             robot("c", "0 2.0000001 0", "Receiver { channel 1 }"))))
    rb, rc = sim.robot("b").getDevice("receiver"), sim.robot("c").getDevice("receiver")
    rb.enable(16)
    rc.enable(16)
    sim.robot("a").getDevice("emitter").send(b"x")
    sim.robot("a").step(16)
    assert (rb.getQueueLength(), rc.getQueueLength()) == (1, 0)


def test_set_range_travels_with_the_packet_and_max_range_caps_it(project, load):
    sim = load(project(world(robot("a", "0 0 0", "Emitter { channel 1 range 2 maxRange 3 }"),
                             robot("b", "1 0 0", "Receiver { channel 1 }"))))
    a, b = sim.robot("a"), sim.robot("b")
    emitter, receiver = a.getDevice("emitter"), b.getDevice("receiver")
    receiver.enable(16)
    node = a.getFromDef("A").getField("children").getMFNode(0)
    emitter.setRange(5)
    assert emitter.getRange() == 3.0  # clipped to maxRange by the library
    emitter.setRange(-1)
    assert emitter.getRange() == 3.0  # -1 asks for maxRange
    emitter.setRange(0.5)
    assert node.getField("range").getSFFloat() == 2.0  # setRange alone does not reach the node
    emitter.send(b"short")
    a.step(16)
    assert receiver.getQueueLength() == 0 and node.getField("range").getSFFloat() == 0.5
    emitter.setRange(1.0)
    emitter.send(b"long")
    a.step(16)
    assert received(receiver) == [b"long"]


def test_radio_range_is_checked_again_until_the_sample(two, project, load):
    sim, a, b, emitter, receiver = two
    receiver.enable(64)
    emitter.send(b"x")
    a.step(16)  # in range when it arrives (infinite range)
    node = a.getFromDef("A").getField("children").getMFNode(0)
    node.getField("range").setSFFloat(0.5)  # the emitter's current range applies to waiting packets
    a.step(48)
    assert receiver.getQueueLength() == 0
    node.getField("range").setSFFloat(-1.0)
    emitter.send(b"y")  # the library still has 0.5 (echoed after the previous step): the packet sets it again
    a.step(64)
    assert receiver.getQueueLength() == 0
    node.getField("range").setSFFloat(-1.0)
    a.step(16)  # the library learns -1
    emitter.send(b"z")
    a.step(48)
    assert received(receiver) == [b"z"]


def test_signal_strength_is_inverse_square_and_direction_is_in_the_receiver_frame(project, load):
    # Receiver turned 90 deg about z at the origin; the emitter 2 m away along world +x: in the receiver's frame
    # the emitter is along -y.
    sim = load(project(world(robot("a", "2 0 0", "Emitter { channel 1 }"),
                             robot("b", "0 0 0", "Receiver { channel 1 }", rotation="0 0 1 1.5707963267948966"))))
    receiver = sim.robot("b").getDevice("receiver")
    receiver.enable(16)
    sim.robot("a").getDevice("emitter").send(b"x")
    sim.robot("a").step(16)
    assert receiver.getSignalStrength() == pytest.approx(0.25, rel=1e-12)
    assert receiver.getEmitterDirection() == pytest.approx([0.0, -1.0, 0.0], abs=1e-12)
    assert receiver.signal_strength == receiver.getSignalStrength()
    assert receiver.emitter_direction == receiver.getEmitterDirection()


def test_strength_and_direction_are_those_of_the_sample_for_radio_and_of_arrival_for_infra_red(project, load):
    # The receivers' robots move between arrival and sample: radio packets are measured at the sample (Webots
    # recomputes them after every step), infra-red ones once, when they arrive.
    sim = load(project(world(robot("a", "0 0 0", 'Emitter { channel 1 } Emitter { name "ir" type "infra-red" '
                                                 'channel 1 }'),
                             robot("b", "1 0 0", 'Receiver { channel 1 } Receiver { name "ir" type "infra-red" '
                                                 'channel 1 }'))))
    a, b = sim.robot("a"), sim.robot("b")
    radio, ir = b.getDevice("receiver"), b.getDevice("ir")
    radio.enable(32)
    ir.enable(32)
    a.getDevice("emitter").send(b"r")
    a.getDevice("ir").send(b"i")
    a.step(16)
    b.getSelf().getField("translation").setSFVec3f([2.0, 0.0, 0.0])
    a.step(16)
    assert radio.getSignalStrength() == pytest.approx(0.25)
    assert ir.getSignalStrength() == pytest.approx(1.0)


# -- infra-red ---------------------------------------------------------------------------------------------------
def _cone_world(emitter_aperture: float, receiver_aperture: float, angle: float) -> str:
    """An infra-red emitter at the origin facing +x; receivers 1 m away at +-``angle`` from its axis, facing it."""
    parts = [robot("a", "0 0 0", f'Emitter {{ type "infra-red" channel 1 aperture {emitter_aperture} }}')]
    for name, a in (("inside", angle - 1e-6), ("outside", -angle - 1e-6)):
        parts.append(robot(name, f"{math.cos(a)} {math.sin(a)} 0",
                           f'Receiver {{ type "infra-red" channel 1 aperture {receiver_aperture} }}',
                           rotation=f"0 0 1 {math.pi + a}"))
    return world(*parts)


@pytest.mark.parametrize("aperture", [0.3, 1.0, 2.5])
def test_infra_red_emitter_cone_edges(project, load, aperture):
    sim = load(project(_cone_world(aperture, -1, aperture / 2)))
    inside, outside = (sim.robot(n).getDevice("receiver") for n in ("inside", "outside"))
    inside.enable(16)
    outside.enable(16)
    sim.robot("a").getDevice("emitter").send(b"x")
    sim.robot("a").step(16)
    assert (inside.getQueueLength(), outside.getQueueLength()) == (1, 0)


def test_infra_red_receiver_cone_edges(project, load):
    # Both receivers face the origin exactly; the emitter sits 0.2 rad off the axis of a receiver with aperture
    # 0.4 +- epsilon.
    parts = [robot("a", "0 0 0", 'Emitter { type "infra-red" channel 1 }')]
    for name, aperture in (("wide", 0.4 + 2e-6), ("narrow", 0.4 - 2e-6)):
        y = 1.0 if name == "wide" else -1.0
        parts.append(robot(name, f"1 {y} 0", f'Receiver {{ type "infra-red" channel 1 aperture {aperture} }}',
                           rotation=f"0 0 1 {math.atan2(-y, -1.0) + 0.2}"))
    sim = load(project(world(*parts)))
    wide, narrow = (sim.robot(n).getDevice("receiver") for n in ("wide", "narrow"))
    wide.enable(16)
    narrow.enable(16)
    sim.robot("a").getDevice("emitter").send(b"x")
    sim.robot("a").step(16)
    assert (wide.getQueueLength(), narrow.getQueueLength()) == (1, 0)


def test_infra_red_range_and_aperture_zero_is_omnidirectional(project, load):
    sim = load(project(world(robot("a", "0 0 0", 'Emitter { type "infra-red" channel 1 range 1.5 aperture 0 }'),
                             robot("behind", "-1 0 0", 'Receiver { type "infra-red" channel 1 aperture 0 }'),
                             robot("far", "2 0 0", 'Receiver { type "infra-red" channel 1 }'))))
    behind, far = (sim.robot(n).getDevice("receiver") for n in ("behind", "far"))
    behind.enable(16)
    far.enable(16)
    sim.robot("a").getDevice("emitter").send(b"x")
    sim.robot("a").step(16)
    assert (behind.getQueueLength(), far.getQueueLength()) == (1, 0)


WALL = 'DEF WALL Solid { translation 0.5 0 0 name "wall" boundingObject Box { size 0.02 0.3 0.3 } }'


def test_infra_red_is_blocked_by_geometry_but_not_by_either_robot(project, load):
    # The emitter and the receiver sit inside their robots' boxes; only the wall between the robots blocks.
    radio = 'Emitter { name "radio" channel 1 }'
    sim = load(project(world(robot("a", "0 0 0", 'Emitter { type "infra-red" channel 1 } ' + radio),
                             robot("b", "1 0 0", 'Receiver { type "infra-red" channel 1 } '
                                                 'Receiver { name "radio" channel 1 }'), WALL)))
    a, b = sim.robot("a"), sim.robot("b")
    ir, radio_receiver = b.getDevice("receiver"), b.getDevice("radio")
    ir.enable(16)
    radio_receiver.enable(16)
    a.getDevice("emitter").send(b"ir")
    a.getDevice("radio").send(b"radio")
    a.step(16)
    assert (received(ir), received(radio_receiver)) == ([], [b"radio"])  # radio ignores obstacles
    a.getFromDef("WALL").getField("translation").setSFVec3f([0.5, 0.0, 1.0])  # lift the wall away
    a.getDevice("emitter").send(b"ir")
    a.step(16)
    assert received(ir) == [b"ir"]


def test_infra_red_is_blocked_by_the_receiving_robot_with_self_collision(project, load):
    sim = load(project(world(robot("a", "0 0 0", 'Emitter { type "infra-red" channel 1 }'),
                             robot("b", "1 0 0", 'Receiver { type "infra-red" channel 1 }', extra="selfCollision TRUE"),
                             robot("c", "0 1 0", 'Receiver { type "infra-red" channel 1 }'))))
    rb, rc = sim.robot("b").getDevice("receiver"), sim.robot("c").getDevice("receiver")
    rb.enable(16)
    rc.enable(16)
    sim.robot("a").getDevice("emitter").send(b"x")
    sim.robot("a").step(16)
    assert (rb.getQueueLength(), rc.getQueueLength()) == (0, 1)  # b's own box hides its receiver


def test_infra_red_through_a_third_robot_is_blocked(project, load):
    sim = load(project(world(robot("a", "0 0 0", 'Emitter { type "infra-red" channel 1 }'),
                             robot("b", "1 0 0", 'Receiver { type "infra-red" channel 1 }'),
                             robot("between", "0.5 0 0", ""))))
    receiver = sim.robot("b").getDevice("receiver")
    receiver.enable(16)
    sim.robot("a").getDevice("emitter").send(b"x")
    sim.robot("a").step(16)
    assert receiver.getQueueLength() == 0


# -- buffers and queues -------------------------------------------------------------------------------------------
def test_emitter_buffer_counts_bytes_not_yet_sent(project, load):
    sim = load(project(world(robot("a", "0 0 0", "Emitter { channel 1 bufferSize 10 }"),
                             robot("b", "1 0 0", "Receiver { channel 1 }"))))
    a, b = sim.robot("a"), sim.robot("b")
    emitter, receiver = a.getDevice("emitter"), b.getDevice("receiver")
    receiver.enable(16)
    assert emitter.getBufferSize() == emitter.buffer_size == 10
    assert emitter.send(b"123456") is None  # Webots' Python send returns nothing
    emitter.send(b"abcdef")  # 6 > 10 - 6: dropped silently
    emitter.send(b"ABCD")  # fits exactly
    a.step(16)
    emitter.send(b"0123456789")  # the buffer was emptied by the step
    emitter.send(b"0123456789X")  # never fits
    a.step(16)
    assert received(receiver) == [b"123456", b"ABCD", b"0123456789"]


def test_receiver_buffer_counts_unread_bytes(project, load):
    sim = load(project(world(robot("a", "0 0 0", "Emitter { channel 1 }"),
                             robot("b", "1 0 0", "Receiver { channel 1 bufferSize 10 }"))))
    a, b = sim.robot("a"), sim.robot("b")
    emitter, receiver = a.getDevice("emitter"), b.getDevice("receiver")
    receiver.enable(16)
    for payload in (b"123456", b"abcdef", b"ABCD"):
        emitter.send(payload)
    a.step(16)
    assert receiver.getQueueLength() == 2  # "abcdef" did not fit next to the unread "123456"
    emitter.send(b"xy")
    a.step(16)
    assert receiver.getQueueLength() == 2  # full: 10 bytes unread
    receiver.nextPacket()
    emitter.send(b"xyz")
    a.step(16)
    assert received(receiver) == [b"ABCD", b"xyz"]


def test_queue_order_is_emitters_in_scene_order_then_sending_order(project, load):
    emitters = 'Emitter { name "first" channel 1 } Emitter { name "second" channel 1 }'
    sim = load(project(world(robot("a", "0 0 0", emitters),
                             robot("b", "1 0 0", "Receiver { channel 1 }"))))
    a, receiver = sim.robot("a"), sim.robot("b").getDevice("receiver")
    receiver.enable(16)
    second, first = a.getDevice("second"), a.getDevice("first")
    second.send(b"s1")
    first.send(b"f1")
    second.send(b"s2")
    first.send(b"f2")
    a.step(16)
    assert received(receiver) == [b"f1", b"f2", b"s1", b"s2"]


def test_empty_queue_accessors_follow_webots(two, capfd):
    _, _, _, _, receiver = two
    receiver.enable(16)
    capfd.readouterr()
    assert receiver.getBytes() == b""
    assert receiver.getDataSize() == -1
    assert math.isnan(receiver.getSignalStrength())
    assert receiver.getFloats() == ()
    receiver.nextPacket()  # no error on an empty queue
    with pytest.raises(ValueError, match="NULL pointer access"):
        receiver.getEmitterDirection()
    err = capfd.readouterr().err.splitlines()
    assert err == [
        "Error: wb_receiver_get_data(): the receiver queue is empty.",
        "Error: wb_receiver_get_data_size(): the receiver queue is empty.",
        "Error: wb_receiver_get_data_size(): the receiver queue is empty.",
        "Error: wb_receiver_get_signal_strength(): the receiver queue is empty.",
        "Error: wb_receiver_get_data_size(): the receiver queue is empty.",
        "Error: wb_receiver_get_data(): the receiver queue is empty.",
        "Error: wb_receiver_get_data_size(): the receiver queue is empty.",
        "Error: wb_receiver_get_emitter_direction(): the receiver queue is empty.",
    ]


# -- baud rate -------------------------------------------------------------------------------------------------------
def test_baud_rate_delays_packets_by_whole_controller_steps(project, load):
    # 800 bit/s, 8 bits a byte: 0.1 byte/ms, credited at each step call with the step's duration.
    sim = load(project(world(robot("a", "0 0 0", "Emitter { channel 1 baudRate 800 }"),
                             robot("b", "1 0 0", "Receiver { channel 1 }"), step=32)))
    a, b = sim.robot("a"), sim.robot("b")
    emitter, receiver = a.getDevice("emitter"), b.getDevice("receiver")
    receiver.enable(32)
    emitter.send(b"0123456789")  # 10 bytes: 3.2 credited per 32 ms step, enough at the 4th step call
    arrivals = []
    for _ in range(6):
        a.step(32)
        arrivals.append(receiver.getQueueLength())
    assert arrivals == [0, 0, 0, 1, 1, 1]
    received(receiver)
    emitter.send(b"01234")  # the credit restarts at 0 for a packet entering an empty queue
    emitter.send(b"56789")
    a.step(64)  # 6.4 bytes: the first packet only
    assert received(receiver) == [b"01234"]
    a.step(64)  # 1.4 + 6.4 >= 5
    assert received(receiver) == [b"56789"]


def test_baud_rate_zero_never_sends_and_byte_size_scales_the_rate(project, load):
    sim = load(project(world(robot("a", "0 0 0", 'Emitter { channel 1 baudRate 0 } '
                                                 'Emitter { name "slow" channel 1 baudRate 1600 byteSize 16 }'),
                             robot("b", "1 0 0", "Receiver { channel 1 }"), step=32)))
    a, receiver = sim.robot("a"), sim.robot("b").getDevice("receiver")
    receiver.enable(32)
    a.getDevice("emitter").send(b"never")
    a.getDevice("slow").send(b"0123456789")  # 1600 / 16 / 1000 = 0.1 byte/ms, as 800 / 8
    counts = []
    for _ in range(5):
        a.step(32)
        counts.append(receiver.getQueueLength())
    assert counts == [0, 0, 0, 1, 1]
    assert received(receiver) == [b"0123456789"]


# -- noise -------------------------------------------------------------------------------------------------------
NOISY = world(robot("a", "0 0 0", "Emitter { channel 1 }"),
              robot("b", "2 0 0", "Receiver { channel 1 signalStrengthNoise 0.1 directionNoise 0.05 }"))


def _noisy_readings(project, load, seed: int, count: int = 400) -> np.ndarray:
    sim = load(project(NOISY), seed=seed)
    a, receiver = sim.robot("a"), sim.robot("b").getDevice("receiver")
    receiver.enable(16)
    rows = []
    for _ in range(count):
        a.getDevice("emitter").send(b"x")
        a.step(16)
        rows.append([receiver.getSignalStrength(), *receiver.getEmitterDirection()])
        receiver.nextPacket()
    return np.array(rows)


def test_noise_follows_webots_and_repeats_with_the_seed(project, load):
    first = _noisy_readings(project, load, seed=5)
    assert np.array_equal(first, _noisy_readings(project, load, seed=5))
    assert not np.array_equal(first, _noisy_readings(project, load, seed=6))
    strength, direction = first[:, 0], first[:, 1:]
    n = len(strength)
    assert strength.mean() == pytest.approx(0.25, abs=4 * 0.025 / math.sqrt(n))  # 1/2^2 (1 + 0.1 N)
    assert strength.std() == pytest.approx(0.025, rel=0.15)
    assert np.linalg.norm(direction, axis=1) == pytest.approx(np.ones(n))
    # The emitter is at -x in the receiver's frame: (-2, 0, 0) + 2 * 0.05 N per component, normalised.
    assert direction[:, 0].mean() == pytest.approx(-1.0, abs=0.01)
    assert (direction[:, 1] / -direction[:, 0]).std() == pytest.approx(0.05, rel=0.15)


# -- physics plugin wiring ----------------------------------------------------------------------------------------
def test_channel_zero_packets_reach_the_plugin_whatever_medium_range_or_aperture(project, load):
    ir = 'Emitter { type "infra-red" range 0.001 aperture 0.01 rotation 0 0 1 3.14 }'  # channel 0 (default)
    others = ' Emitter { name "b" channel -1 } Emitter { name "c" channel 2 }'
    sim = load(project(world(robot("a", "0 0 0", ir + others),
                             robot("b", "1 0 0", "Receiver { channel -1 }"))))
    sim.plugin_mailbox.open = True  # as while a plugin runs (without one, channel 0 keeps nothing)
    a = sim.robot("a")
    receiver = sim.robot("b").getDevice("receiver")
    receiver.enable(16)
    a.getDevice("emitter").send(b"to ")
    a.getDevice("emitter").send(b"plugin")
    a.getDevice("b").send(b"broadcast")
    a.getDevice("c").send(b"channel 2")
    a.step(16)
    assert sim.plugin_mailbox.receive() == b"to plugin"  # appended into one buffer
    assert received(receiver) == [b"broadcast", b"channel 2"]  # the infra-red packet reaches no receiver


def test_the_emitters_channel_field_at_transmission_decides_the_plugin(project, load):
    sim = load(project(world(robot("a", "0 0 0", "Emitter { }"))))
    sim.plugin_mailbox.open = True  # as while a plugin runs
    a = sim.robot("a")
    emitter = a.getDevice("emitter")
    emitter.setChannel(3)  # the library only: the field stays 0 until a packet is written
    emitter.setChannel(0)
    emitter.send(b"first")
    emitter.setChannel(2)
    emitter.send(b"second")  # the field becomes 2 before the emitter transmits both: neither goes to the plugin
    a.step(16)
    assert sim.plugin_mailbox.receive() is None
    emitter.setChannel(0)
    emitter.send(b"third")
    a.step(16)
    assert sim.plugin_mailbox.receive() == b"third"


def test_deliver_from_plugin_reaches_enabled_receivers_on_exactly_that_channel(project, load):
    receivers = ('Receiver { name "one" channel 1 } Receiver { name "any" channel -1 } '
                 'Receiver { name "ir" type "infra-red" channel 1 aperture 0.01 } Receiver { name "off" channel 1 } '
                 'Receiver { name "slow" channel 1 }')
    sim = load(project(world(robot("b", "1 0 0", receivers))))
    b = sim.robot("b")
    one, any_, ir, off, slow = (b.getDevice(n) for n in ("one", "any", "ir", "off", "slow"))
    for r in (one, any_, ir):
        r.enable(16)
    slow.enable(32)
    sim.add_hook(Phase.PLUGIN_STEP, lambda s: s.banks["radio"].deliver_from_plugin(1, bytearray(b"reply")))
    b.step(16)
    assert [r.getQueueLength() for r in (one, any_, ir, off, slow)] == [1, 0, 1, 0, 0]
    assert one.getString() == "reply" and ir.getBytes() == b"reply"
    assert one.getSignalStrength() == math.inf and all(math.isnan(v) for v in one.getEmitterDirection())
    b.step(16)
    assert slow.getQueueLength() == 2  # readable at its next sample


def test_plugin_packets_follow_radio_packets_and_precede_infra_red_ones_of_the_same_step(project, load):
    emitters = 'Emitter { channel 1 } Emitter { name "ir" type "infra-red" channel 1 }'
    sim = load(project(world(robot("a", "0 0 0", emitters),
                             robot("b", "1 0 0", 'Receiver { channel 1 } Receiver { name "ir" type "infra-red" '
                                                 'channel 1 }'))))
    a, b = sim.robot("a"), sim.robot("b")
    radio, ir = b.getDevice("receiver"), b.getDevice("ir")
    radio.enable(16)
    ir.enable(16)
    sim.add_hook(Phase.PLUGIN_STEP, lambda s: s.banks["radio"].deliver_from_plugin(1, b"plugin"))
    a.getDevice("emitter").send(b"radio")
    a.getDevice("ir").send(b"ir")
    a.step(16)
    assert received(radio) == [b"radio", b"plugin"]
    assert received(ir) == [b"plugin", b"ir"]  # infra-red packets enter the queue after the line-of-sight test


# -- supervisor writes and resets --------------------------------------------------------------------------------
def test_supervisor_field_writes_apply_with_webots_repairs(project, load, capfd):
    sim = load(project(world(robot("a", "0 0 0", "Emitter { channel 1 maxRange 2 }"),
                             robot("b", "1 0 0", "Receiver { channel 1 }"))))
    a, b = sim.robot("a"), sim.robot("b")
    emitter, receiver = a.getDevice("emitter"), b.getDevice("receiver")
    emitter_node = a.getFromDef("A").getField("children").getMFNode(0)
    receiver_node = a.getFromDef("B").getField("children").getMFNode(0)
    receiver.enable(16)
    receiver_node.getField("channel").setSFInt32(4)  # applies to the next transmissions
    emitter.send(b"on 1")
    a.step(16)
    assert receiver.getQueueLength() == 0 and receiver.getChannel() == 4  # configure message after the step
    capfd.readouterr()
    emitter_node.getField("range").setSFFloat(0.0)
    err = capfd.readouterr().err
    assert "WARNING: emitter: Invalid 'range' changed to -1. The value should be either -1 or positive." in err
    assert "WARNING: emitter: 'range' must be less than or equal to 'maxRange'." in err
    assert emitter_node.getField("range").getSFFloat() == 2.0
    assert emitter.getRange() == -1.0  # the library hears about it after the step
    a.step(16)
    assert emitter.getRange() == 2.0
    emitter_node.getField("channel").setSFInt32(4)
    a.step(16)
    assert emitter.getChannel() == 4
    emitter.send(b"on 4")
    a.step(16)
    assert received(receiver) == [b"on 4"]
    emitter_node.getField("type").setSFString("laser")
    assert "Invalid 'type' changed to \"radio\"." in capfd.readouterr().err
    assert emitter_node.getField("type").getSFString() == "radio"


def test_allowed_channels_written_at_run_time_move_the_channel(project, load, capfd):
    sim = load(project(world(robot("a", "0 0 0", "Emitter { channel 1 }"),
                             robot("b", "1 0 0", "Receiver { channel 1 }"))))
    a, b = sim.robot("a"), sim.robot("b")
    bank = sim.banks["radio"]
    emitter_node, receiver_node = (binding.node for binding in bank.bindings)
    sim.supervision.set_field_value(emitter_node, "allowedChannels", (5, 6))
    sim.supervision.set_field_value(receiver_node, "allowedChannels", (6,))
    err = capfd.readouterr().err
    assert "WARNING: emitter: 'allowedChannels' does not contain current 'channel'. Setting 'channel' to 5." in err
    assert "WARNING: receiver: 'allowedChannels' does not contain current 'channel'. Setting 'channel' to 6." in err
    a.step(16)
    emitter, receiver = a.getDevice("emitter"), b.getDevice("receiver")
    assert (emitter.getChannel(), receiver.getChannel()) == (5, 6)
    emitter.setChannel(1)
    assert "which is not between allowed channels" in capfd.readouterr().err


def test_a_setchannel_after_a_send_is_undone_by_the_simulators_echo(two):
    # emitter.c never sends a channel change: the packet carries it; the simulator echoes the changed field.
    sim, a, _, emitter, receiver = two
    node = a.getFromDef("A").getField("children").getMFNode(0)
    emitter.setChannel(2)
    assert node.getField("channel").getSFInt32() == 1
    emitter.send(b"x")
    emitter.setChannel(3)
    a.step(16)
    assert node.getField("channel").getSFInt32() == 2
    assert emitter.getChannel() == 2


def test_world_reset_empties_the_simulators_queues_and_keeps_the_libraries(two):
    sim, a, b, emitter, receiver = two
    receiver.enable(32)
    emitter.send(b"read")
    a.step(32)
    assert receiver.getQueueLength() == 1  # in the library
    emitter.send(b"waiting")
    a.step(16)  # arrived, waiting for the sample after the next step
    b.simulationReset()
    emitter.send(b"reset step")
    a.step(16)  # the world resets at the end of this step: what its sample handed over is taken back
    assert received(receiver) == [b"read"]
    assert receiver.getSamplingPeriod() == 32
    # That step call went on after the reset (a wait restarts from time 0): the first sample after the reset
    # (after its first step) is done; the next comes 32 ms later.
    emitter.send(b"after")
    a.step(32)
    assert received(receiver) == [b"after"]


def test_simulation_reset_restores_everything(two):
    sim, a, _, emitter, receiver = two
    receiver.enable(16)
    emitter.setChannel(5)
    emitter.send(b"x")
    a.step(16)
    sim.reset()
    assert receiver.getSamplingPeriod() == 0 and receiver.getQueueLength() == 0
    assert emitter.getChannel() == 1
    receiver.enable(16)
    emitter.send(b"y")
    a.step(16)
    assert received(receiver) == [b"y"]


def test_idle_devices_cost_no_kinematics_refresh(project, load, monkeypatch):
    emitters = " ".join(f'Emitter {{ name "e{i}" channel {i} }}' for i in range(50))
    receivers = " ".join(f'Receiver {{ name "r{i}" channel {i} type "infra-red" }}' for i in range(50))
    sim = load(project(world(robot("a", "0 0 0", emitters), robot("b", "1 0 0", receivers))))
    b = sim.robot("b")
    for i in range(50):
        b.getDevice(f"r{i}").enable(16)
    calls = []
    real = sim.supervision.refresh
    monkeypatch.setattr(sim.supervision, "refresh", lambda: (calls.append(1), real())[1])
    for _ in range(50):
        b.step(16)
    assert calls == []
    sim.robot("a").getDevice("e3").send(b"x")  # still wrong medium: nothing to measure
    b.step(16)
    assert calls == []
