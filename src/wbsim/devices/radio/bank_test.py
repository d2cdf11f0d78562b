"""RadioBank directly: supervisor writes on every field (Webots' update* functions), the library echoes,
field reads, world resets, the physics-plugin interface, and the cost of idle devices."""

from __future__ import annotations

import math

import pytest

WORLD = """
WorldInfo { basicTimeStep 16 }
Robot { name "a" controller "<extern>" children [ Emitter { channel 1 maxRange 3 range 2 } ] }
Robot { translation 1 0 0 name "b" controller "<extern>" children [ Receiver { channel 1 } ] }
"""


@pytest.fixture
def rig(project, load):
    sim = load(project(WORLD))
    bank = sim.banks["radio"]
    return sim, bank, sim.robot("a"), sim.robot("b")


EMITTER, RECEIVER = 0, 1


@pytest.mark.parametrize(("row", "name", "value", "stored", "message"), [
    (EMITTER, "maxRange", -4.0, -1.0, "Invalid 'maxRange' changed to -1. The value should be either -1 or positive."),
    (EMITTER, "aperture", 9.0, -1.0, "Invalid 'aperture' changed to -1. The value should be in either -1 or in range "
                                     "[0, 6.28319]."),
    (EMITTER, "byteSize", 3, 8, "Invalid 'byteSize' changed to 8. The value should be 8 or greater."),
    (EMITTER, "bufferSize", 0, -1, "Invalid 'bufferSize' changed to -1. The value should be either -1 or positive."),
    (EMITTER, "baudRate", -9, -9, None),  # not checked for an emitter
    (RECEIVER, "bufferSize", -3, -1, "Invalid 'bufferSize' changed to -1. The value should be either -1 or positive."),
    (RECEIVER, "baudRate", 0, -1, "Invalid 'baudRate' changed to -1. The value should be either -1 or positive."),
    (RECEIVER, "signalStrengthNoise", -1.0, 0.0, "Invalid 'signalStrengthNoise' changed to 0. The value should be "
                                                 "non-negative."),
    (RECEIVER, "directionNoise", 0.25, 0.25, None),
    (RECEIVER, "aperture", 1.5, 1.5, None),
])
def test_field_writes_are_repaired_like_webots(rig, capfd, row, name, value, stored, message):
    _, bank, _, _ = rig
    capfd.readouterr()
    assert bank.field_changed(row, name, value) == stored
    assert bank.field_value(row, name) == stored
    err = capfd.readouterr().err
    if message is None:
        assert "Invalid" not in err
    else:
        assert f"WARNING: {'receiver' if row else 'emitter'}: {message}" in err


def test_fields_a_device_does_not_have_are_not_applied(rig):
    _, bank, _, _ = rig
    assert bank.field_changed(RECEIVER, "range", 1.0) is None and bank.field_value(RECEIVER, "range") is None
    assert bank.field_changed(EMITTER, "directionNoise", 1.0) is None
    assert bank.field_changed(EMITTER, "name", "x") is None and bank.field_value(EMITTER, "translation") is None


def test_emitter_fields_echoed_to_the_library_after_the_step(rig):
    _, bank, a, _ = rig
    emitter = a.getDevice("emitter")
    bank.field_changed(EMITTER, "bufferSize", 12)
    bank.field_changed(EMITTER, "maxRange", 1.0)  # the library keeps the maxRange of its configure message
    bank.field_changed(EMITTER, "baudRate", 8)  # and its byte rate
    assert emitter.getBufferSize() == -1
    a.step(16)
    assert emitter.getBufferSize() == 12
    emitter.setRange(2.5)
    assert emitter.getRange() == 2.5  # still capped by the configured 3, not the new 1
    assert bank.lib_byte_rate[EMITTER] == -1.0


def test_receiver_writes_send_a_configure_message(rig):
    _, bank, _, b = rig
    receiver = b.getDevice("receiver")
    bank.field_changed(RECEIVER, "allowedChannels", (4, 5))  # channel 1 is not allowed any more: it becomes 4
    bank.field_changed(RECEIVER, "bufferSize", 20)
    assert (receiver.getChannel(), bank.channel[RECEIVER]) == (1, 4)
    b.step(16)
    assert (receiver.getChannel(), bank.lib_buffer_size[RECEIVER], bank.lib_allowed[RECEIVER]) == (4, 20, (4, 5))
    assert bank.field_value(RECEIVER, "allowedChannels") == (4, 5)


def test_emitter_type_write_changes_the_medium(rig):
    _, bank, a, b = rig
    receiver = b.getDevice("receiver")
    receiver.enable(16)
    assert bank.field_changed(EMITTER, "type", "serial") == "serial"
    a.getDevice("emitter").send(b"x")
    a.step(16)
    assert receiver.getQueueLength() == 0
    bank.field_changed(RECEIVER, "type", "serial")
    a.getDevice("emitter").send(b"x")
    a.step(16)
    assert receiver.getQueueLength() == 1


def test_world_reset_restores_fields_and_echoes_the_changed_ones(rig):
    sim, bank, a, b = rig
    emitter = a.getDevice("emitter")
    emitter.setChannel(6)
    emitter.send(b"x")
    bank.field_changed(RECEIVER, "channel", 6)
    a.step(16)
    assert (emitter.getChannel(), b.getDevice("receiver").getChannel()) == (6, 6)
    sim.request_world_reset()
    a.step(16)
    assert (bank.channel[EMITTER], bank.channel[RECEIVER]) == (1, 1)
    assert (emitter.getChannel(), b.getDevice("receiver").getChannel()) == (1, 1)


def test_world_reset_keeps_a_library_channel_the_simulator_never_saw(rig):
    sim, bank, a, _ = rig
    emitter = a.getDevice("emitter")
    emitter.setChannel(9)  # library only: the field did not change, so the reset does not echo it
    sim.request_world_reset()
    a.step(16)
    assert emitter.getChannel() == 9 and bank.channel[EMITTER] == 1


def test_the_emitter_library_queue_survives_a_world_reset_but_not_a_simulation_reset(project, load):
    sim = load(project(WORLD.replace("range 2 }", "range 2 baudRate 80 }")))
    bank = sim.banks["radio"]
    a, b = sim.robot("a"), sim.robot("b")
    receiver = b.getDevice("receiver")
    receiver.enable(16)
    a.getDevice("emitter").send(b"0123")  # 0.01 byte/ms: 400 ms
    a.step(16)
    sim.request_world_reset()
    a.step(16)
    assert len(bank.lib_queue[EMITTER]) == 1
    for _ in range(30):
        a.step(16)
    assert receiver.getQueueLength() == 1
    a.getDevice("emitter").send(b"0123")
    sim.reset()
    assert len(bank.lib_queue[EMITTER]) == 0 and bank.lib_used[EMITTER] == 0


def test_deliver_from_plugin_copies_the_data_and_ignores_everything_but_the_channel(rig):
    _, bank, _, b = rig
    receiver = b.getDevice("receiver")
    receiver.enable(16)
    data = bytearray(b"abc")
    bank.deliver_from_plugin(1, data)
    data[0] = ord("x")  # the packet is a copy
    bank.deliver_from_plugin(2, b"other channel")
    bank.deliver_from_plugin(-1, b"not broadcast")
    b.step(16)
    assert receiver.getBytes() == b"abc" and receiver.getQueueLength() == 1
    assert receiver.getSignalStrength() == math.inf
    bank.field_changed(EMITTER, "channel", 0)
    bank.deliver_from_plugin(0, b"never to the plugin")
    b.step(16)
    assert b.getDevice("receiver").getQueueLength() == 1


def test_a_world_without_receivers_accepts_plugin_packets(project, load):
    sim = load(project('Robot { name "a" controller "<extern>" children [ Emitter { } ] }'))
    sim.banks["radio"].deliver_from_plugin(0, b"nobody")
    sim.robot("a").step(32)
