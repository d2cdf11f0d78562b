"""LEDs: Webots' colour rules, set/get, what supervisors read, warnings and resets."""

from __future__ import annotations

import ctypes
import warnings

import numpy as np
import pytest

from wbsim.devices.led.bank import led_color
from wbsim.devices.led.compile import driven_fields
from wbsim.world.builtin_nodes import builtin_schemas

WORLD = """
WorldInfo { basicTimeStep 16 }
Robot {
  name "r"
  controller "<extern>"
  supervisor TRUE
  children [
    LED { name "plain" color [ 1 0 0, 0 1 0, 0.2 0.4 0.6 ]
          children [ Shape { appearance Appearance { material DEF MAT Material { emissiveColor 1 1 1 } } } ] }
    LED { name "mono" gradual TRUE color [ 0 0.5 1 ]
          children [ Group { children [ Shape { appearance DEF PBR PBRAppearance { } } DEF LIGHT PointLight { } ] } ] }
    LED { name "rgb" gradual TRUE color [] children [ Pose { children [ DEF SPOT SpotLight { } ] } ] }
    LED { name "dark" children [ Shape { } ] }
  ]
}
"""


def test_schema_fields_and_defaults():
    schema = builtin_schemas()["LED"]
    assert schema.support == "simulated" and schema.is_a("solid")
    assert schema.fields["color"].default == ((1.0, 0.0, 0.0),)
    assert schema.fields["gradual"].default is False
    assert schema.fields["name"].default == "led"


def test_colour_rules_follow_webots_in_single_precision():
    colors = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.2, 0.4, 0.6))
    assert led_color(0, colors, False) == (0.0, 0.0, 0.0)
    assert led_color(2, colors, False) == (0.0, 1.0, 0.0)
    assert led_color(3, colors, False) == tuple(float(np.float32(c)) for c in colors[2])
    assert led_color(4, colors, False) == (0.0, 0.0, 0.0)  # beyond the list: black (but on)
    assert led_color(-1, colors, False) == (0.0, 0.0, 0.0)
    assert led_color(0x804020, (), True) == tuple(float(np.float32(b) / np.float32(255)) for b in (0x80, 0x40, 0x20))
    assert led_color(51, ((0.0, 0.5, 1.0),), True) == tuple(float(np.float32(np.float32(0.2) * c))
                                                            for c in (0.0, 0.5, 1.0))


def test_load_warnings_and_driven_nodes(project):
    from wbsim.sim.simulation import load_world

    world = WORLD.replace('LED { name "mono" gradual TRUE color [ 0 0.5 1 ]',
                          'LED { name "mono" gradual TRUE color [ 0 0.5 1, 1 1 1 ]')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim = load_world(project(world))
    messages = [str(w.message) for w in caught]
    assert any("Too many colors defined for a gradual LED." in m and 'LED "mono"' in m for m in messages)
    assert any("No PBRAppearance, Material and no Light found. The first child of a LED should be either a Shape, "
               "a Light or a Group containing Shape and Light nodes." in m and 'LED "dark"' in m for m in messages)
    leds = [b.node for b in sim.bindings.devices["led"][:4]]
    assert [[(n.type_name, f) for n, f in driven_fields(led)] for led in leds] == [
        [("Material", "emissiveColor")],
        [("PBRAppearance", "emissiveColor"), ("PointLight", "color")],
        [("SpotLight", "color")],
        [],
    ]
    sim.close()


def test_set_applies_with_the_next_step_and_get_returns_the_last_set(project, load):
    sim = load(project(WORLD))
    robot = sim.robot("r")
    plain, mono, rgb, dark = (robot.getDevice(n) for n in ("plain", "mono", "rgb", "dark"))
    bank = sim.banks["led"]
    assert plain.get() == 0 and plain.value == 0
    plain.set(2)
    assert plain.get() == 2 and bank.value[0] == 0  # sent with the next step
    plain.set(3)  # the last call wins
    robot.step(16)
    assert bank.value[0] == 3 and bank.on[0]
    mono.value = 51
    rgb.set(0xFF8000)
    dark.set(True)
    robot.step(16)
    assert bank.color[1] == pytest.approx([0.0, 0.1, 0.2])
    assert bank.color[2] == pytest.approx([1.0, 128 / 255, 0.0])
    assert dark.get() == 1 and bank.value[3] == 0 and not bank.on[3]  # nothing to colour: ignored
    plain.set(False)
    robot.step(16)
    assert not bank.on[0] and bank.color[0].tolist() == [0.0, 0.0, 0.0]


def test_values_are_c_ints(project, load):
    sim = load(project(WORLD))
    led = sim.robot("r").getDevice("rgb")
    led.set(2**32 + 5)
    assert led.get() == 5
    led.set(2**31)
    assert led.get() == -2**31
    with pytest.raises(ctypes.ArgumentError, match="Don't know how to convert parameter 2"):
        led.set(1.5)


def test_supervisors_read_the_colour_on_the_driven_fields(project, load):
    sim = load(project(WORLD))
    robot = sim.robot("r")
    material = robot.getFromDef("MAT").getField("emissiveColor")
    pbr = robot.getFromDef("PBR").getField("emissiveColor")
    light = robot.getFromDef("LIGHT").getField("color")
    assert material.getSFColor() == [0.0, 0.0, 0.0]  # Webots turns an LED's materials black at load
    robot.getDevice("plain").set(1)
    robot.getDevice("mono").set(255)
    robot.step(16)
    assert material.getSFColor() == [1.0, 0.0, 0.0]
    assert pbr.getSFColor() == pytest.approx([0.0, 0.5, 1.0]) and light.getSFColor() == pbr.getSFColor()
    # A supervisor's value holds until the LED changes colour.
    material.setSFColor([0.5, 0.5, 0.5])
    robot.getDevice("plain").set(1)  # the same value: no change
    robot.step(16)
    assert material.getSFColor() == [0.5, 0.5, 0.5]
    robot.getDevice("plain").set(2)
    robot.step(16)
    assert material.getSFColor() == [0.0, 1.0, 0.0]


def test_supervisors_read_the_on_field_of_the_driven_lights(project, load):
    # Webots' WbLed switches each light it drives with WbLight::toggleOn, which writes the light's `on` field:
    # FALSE at load (whatever the world file says), value != 0 after each change, FALSE after a reset; a
    # supervisor's write holds until the LED changes value.
    world = WORLD.replace("DEF LIGHT PointLight { }", "DEF LIGHT PointLight { on TRUE }")
    sim = load(project(world))
    robot = sim.robot("r")
    mono_on, spot_on = robot.getFromDef("LIGHT").getField("on"), robot.getFromDef("SPOT").getField("on")
    assert mono_on.getSFBool() is False and spot_on.getSFBool() is False
    robot.getDevice("mono").set(128)
    robot.step(16)
    assert mono_on.getSFBool() is True and spot_on.getSFBool() is False
    mono_on.setSFBool(False)
    robot.getDevice("mono").set(128)  # the same value: no change
    robot.step(16)
    assert mono_on.getSFBool() is False
    robot.getDevice("mono").set(200)
    robot.getDevice("rgb").set(0x102030)
    robot.step(16)
    assert mono_on.getSFBool() is True and spot_on.getSFBool() is True
    robot.getDevice("rgb").set(0)
    robot.step(16)
    assert spot_on.getSFBool() is False
    robot.simulationReset()
    robot.step(16)
    assert mono_on.getSFBool() is False


def test_color_and_gradual_writes_apply_from_the_next_change(project, load):
    sim = load(project(WORLD))
    robot = sim.robot("r")
    led = robot.getDevice("plain")
    node = robot.getFromDevice(led)
    led.set(1)
    robot.step(16)
    node.getField("gradual").setSFBool(True)
    assert sim.banks["led"].color[0].tolist() == [1.0, 0.0, 0.0]  # Webots reads it at the next change only
    led.set(255)
    robot.step(16)
    assert sim.banks["led"].color[0].tolist() == [1.0, 0.0, 0.0]  # mono: 255 / 255 times the first colour
    led.set(0x0000FF)  # still monochrome: an intensity, clamped by nothing (Webots asserts it)
    robot.step(16)
    assert sim.banks["led"].color[0][0] == pytest.approx(1.0)


def test_resets_turn_leds_off(project, load):
    world = WORLD.replace('controller "<extern>"', 'controller "<extern>"')
    sim = load(project(world))
    robot = sim.robot("r")
    led = robot.getDevice("plain")
    led.set(1)
    robot.step(16)
    robot.simulationReset()
    robot.step(16)
    bank = sim.banks["led"]
    assert bank.value[0] == 0 and led.get() == 1  # the controller library keeps its state
    assert robot.getFromDef("MAT").getField("emissiveColor").getSFColor() == [0.0, 0.0, 0.0]
    sim.reset()
    assert not bank.on.any()


def test_controller_module_exports_led_and_the_core_object(project, load):
    import controller
    from controller import LED, Node

    assert "LED" in controller.__all__
    sim = load(project(WORLD))
    robot = sim.robot("r")
    led = robot.getDevice("rgb")
    assert isinstance(led, LED) and led.getNodeType() == Node.LED
    core = sim.robots[0].devices[2]
    assert core.kind == "led" and core.name == "rgb" and core.drives
    core.set(0x00FF00)
    robot.step(16)
    assert core.value == 0x00FF00 and core.on and core.color == (0.0, 1.0, 0.0)
