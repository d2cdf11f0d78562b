"""Emitter and Receiver nodes at load time: Webots' repairs and warnings, frames, robots, the geom map."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from wbsim.devices.radio.schema import INFRA_RED, RADIO, SERIAL, TYPE_MESSAGE


def _load(project, world: str):
    from wbsim.sim.simulation import load_world

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim = load_world(project("WorldInfo { basicTimeStep 16 }\n" + world))
    return sim, [str(w.message) for w in caught]


def _robot(children: str, name: str = "r", extra: str = "") -> str:
    return (f'Robot {{ name "{name}" controller "<extern>" {extra} children [ {children} ] '
            'boundingObject Box { size 0.1 0.1 0.1 } physics Physics { } }')


@pytest.mark.parametrize(("node", "field", "value", "message", "repaired"), [
    ("Emitter", "aperture", "7", "Invalid 'aperture' changed to -1. The value should be in either -1 or in range "
                                 "[0, 6.28319].", -1.0),
    ("Receiver", "aperture", "-0.5", "Invalid 'aperture' changed to -1. The value should be in either -1 or in range "
                                     "[0, 6.28319].", -1.0),
    ("Emitter", "maxRange", "0", "Invalid 'maxRange' changed to -1. The value should be either -1 or positive.", -1.0),
    ("Emitter", "byteSize", "7", "Invalid 'byteSize' changed to 8. The value should be 8 or greater.", 8),
    ("Receiver", "byteSize", "2", "Invalid 'byteSize' changed to 8. The value should be 8 or greater.", 8),
    ("Receiver", "bufferSize", "0", "Invalid 'bufferSize' changed to -1. The value should be either -1 or positive.",
     -1),
    ("Receiver", "baudRate", "-5", "Invalid 'baudRate' changed to -1. The value should be either -1 or positive.", -1),
    ("Receiver", "signalStrengthNoise", "-0.1",
     "Invalid 'signalStrengthNoise' changed to 0. The value should be non-negative.", 0.0),
    ("Receiver", "directionNoise", "-2", "Invalid 'directionNoise' changed to 0. The value should be non-negative.",
     0.0),
])
def test_invalid_fields_are_repaired_at_load_with_webots_warnings(project, node, field, value, message, repaired):
    sim, messages = _load(project, _robot(f"{node} {{ {field} {value} }}"))
    assert any(message in m and "test.wbt:" in m for m in messages), messages
    assert sim.banks["radio"].field_value(0, field) == pytest.approx(repaired)
    sim.close()


def test_an_emitters_range_and_buffer_size_are_not_repaired_at_load(project):
    # Webots calls updateRange and updateBufferSize only when the field changes: a world file keeps its values.
    sim, messages = _load(project, _robot("Emitter { range -3 maxRange 2 bufferSize 0 baudRate -7 }"))
    assert not any("range" in m or "bufferSize" in m or "baudRate" in m for m in messages), messages
    bank = sim.banks["radio"]
    assert (bank.range[0], bank.buffer_size[0], bank.baud_rate[0]) == (-3.0, 0, -7)
    emitter = sim.robot("r").getDevice("emitter")
    assert (emitter.getRange(), emitter.getBufferSize()) == (-3.0, 0)
    assert bank.lib_byte_rate[0] == -1.0  # a negative baud rate is infinite
    sim.close()


def test_unknown_type_becomes_radio_with_the_field_restriction_warning(project):
    sim, messages = _load(project, _robot('Emitter { type "laser" } Receiver { type "serial" } '
                                          'Receiver { name "ir" type "infra-red" }'))
    assert any(TYPE_MESSAGE in m for m in messages), messages
    assert TYPE_MESSAGE == ("Invalid 'type' changed to \"radio\". The value should be in the list: "
                            "{\"infra-red\", \"radio\", \"serial\"}.")
    assert sim.banks["radio"].medium.tolist() == [RADIO, SERIAL, INFRA_RED]
    sim.close()


def test_channel_outside_allowed_channels_takes_the_first_with_each_nodes_text(project):
    sim, messages = _load(project, _robot("Emitter { channel 3 allowedChannels [ 5 6 ] } "
                                          "Receiver { channel 4 allowedChannels [ 7 ] } "
                                          'Receiver { name "ok" channel 7 allowedChannels [ 1 7 ] }'))
    assert any("'allowedChannels' does not contain current 'channel'. Setting 'channel' to 5." in m for m in messages)
    assert any(m.endswith("'channel' is not included in 'allowedChannels'. Setting 'channel' to 7 "
                          "[in Robot \"r\" > children[1] > Receiver > channel]") for m in messages)  # no final period
    assert sum("allowedChannels" in m for m in messages) == 2
    assert [b.channel for b in sim.bindings.devices["radio"]] == [5, 7, 7]
    robot = sim.robot("r")
    assert robot.getDevice("emitter").getChannel() == 5 and robot.getDevice("receiver").getChannel() == 7
    sim.close()


def test_defaults_and_frames(project):
    world = (_robot('Pose { translation 0 0 0.02 children [ Emitter { translation 0.05 0 0 rotation 0 0 1 1.5707963 '
                    '} ] } Receiver { physics Physics { } boundingObject Sphere { radius 0.01 } translation 0 0.1 0 }')
             + "\n" + _robot("", name="empty"))
    sim, _ = _load(project, world)
    bank = sim.banks["radio"]
    assert bank.is_receiver.tolist() == [False, True]
    assert [b.node["name"] for b in bank.bindings] == ["emitter", "receiver"]
    assert (bank.range[0], bank.max_range[0], bank.aperture[0], bank.channel[0], bank.baud_rate[0],
            bank.byte_size[0], bank.buffer_size[0], bank.allowed[0]) == (-1.0, -1.0, -1.0, 0, -1, 8, -1, ())
    assert (bank.signal_noise[1], bank.direction_noise[1], bank.buffer_size[1]) == (0.0, 0.0, -1)
    sim.supervision.refresh()
    emitter_site, receiver_site = (b.site_id for b in bank.bindings)
    assert sim.data.site_xpos[emitter_site] == pytest.approx([0.05, 0, 0.02])
    assert sim.data.site_xmat[emitter_site].reshape(3, 3)[:, 0] == pytest.approx([0, 1, 0], abs=1e-7)  # +x turned to +y
    assert sim.data.site_xpos[receiver_site] == pytest.approx([0, 0.1, 0])
    # The emitter needs no body of its own (a site on the robot's); the receiver with Physics keeps one.
    solids = {b.node["name"]: b for b in sim.bindings.solids}
    assert solids["emitter"].site_id >= 0 and solids["receiver"].site_id < 0
    sim.close()


def test_robots_and_geoms_for_line_of_sight(project):
    inner = ('Robot { name "inner" controller "<extern>" selfCollision TRUE translation 0 0 1 '
             'children [ Receiver { } ] boundingObject Box { size 0.1 0.1 0.1 } }')
    world = (_robot(f"Emitter {{ }} {inner}", name="outer")
             + '\nSolid { name "wall" translation 3 0 0 boundingObject Box { size 0.1 1 1 } }'
             + '\nSolid { name "floor" boundingObject Plane { } }')
    sim, _ = _load(project, world)
    emitter, receiver = sim.bindings.devices["radio"]
    world_map = emitter.world
    assert receiver.world is world_map
    assert emitter.robot != receiver.robot and min(emitter.robot, receiver.robot) >= 0  # the nearest Robot above each
    assert world_map.self_collision[receiver.robot] and not world_map.self_collision[emitter.robot]
    # The outer robot's box, the inner robot's box, then the wall and the floor (no robot).
    assert sorted(world_map.geom_robot.tolist()) == sorted([emitter.robot, receiver.robot, -1, -1])
    assert [len(g) for g in world_map.robot_geoms] == [1, 1]
    sim.close()


def test_outside_a_robot_warns_and_never_sends(project):
    sim, messages = _load(project, 'Emitter { } Robot { name "r" controller "<extern>" children [ Receiver { } ] }')
    assert any("Emitter 'emitter' is not inside a Robot: no controller can use it." in m for m in messages)
    assert sim.bindings.devices["radio"][0].robot == -1
    sim.close()


def test_a_world_without_radio_devices_has_an_empty_bank(project):
    sim, _ = _load(project, _robot(""))
    bank = sim.banks["radio"]
    assert bank.n == 0 and sim.bindings.devices["radio"] == ()
    assert bank not in sim._actuating and bank not in sim._sampling
    sim.close()


def test_aperture_bounds_include_two_pi(project):
    sim, messages = _load(project, _robot(f"Emitter {{ aperture {2 * math.pi} }} Receiver {{ aperture 0 }}"))
    assert not any("aperture" in m for m in messages)
    assert sim.banks["radio"].aperture.tolist() == pytest.approx([2 * math.pi, 0.0])
    assert np.all(sim.banks["radio"].aperture >= 0)
    sim.close()
