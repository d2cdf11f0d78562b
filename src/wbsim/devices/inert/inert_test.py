"""Inert devices: the Webots class and "no data" answers, one located warning each, and the Solid part kept."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from wbsim.devices.inert import KIND
from wbsim.devices.inert.spec import INERT_DEVICES, C, F, S, T, W
from wbsim.world.builtin_nodes import builtin_schemas

WORLD = """
WorldInfo { basicTimeStep 16 gravity 0 }
Robot {
  name "r"
  controller "<extern>"
  supervisor TRUE
  boundingObject Box { size 0.2 0.2 0.2 }
  physics Physics { mass 1 }
  children [
    Camera { width 32 height 24 fieldOfView 0.5
             physics Physics { mass 2 } boundingObject Box { size 0.1 0.1 0.1 }
             children [
               HingeJoint {
                 device [ RotationalMotor { name "pan" } PositionSensor { name "pan sensor" } ]
                 endPoint Solid { translation 0 0 0.1 physics Physics { mass 0.5 } boundingObject Sphere { radius 0.02 } }
               }
             ] }
    RangeFinder { minRange 0.1 maxRange 5 }
    Radar { }
    LightSensor { lookupTable [ 0 0 0, 10 20 0.1 ] }
    Speaker { }
    Pen { }
    Display { width 10 height 20 }
    VacuumGripper { isOn TRUE translation 0 0 -0.1 boundingObject Box { size 0.05 0.05 0.01 } }
    Microphone { }
    Radio { }
  ]
}
"""


@pytest.fixture
def sim(project, load):
    return load(project(WORLD))


def test_spec_covers_the_kind_and_schemas_are_solids():
    assert set(INERT_DEVICES) == set(KIND.node_types)
    for node_type, spec in INERT_DEVICES.items():
        schema = builtin_schemas()[node_type]
        assert schema.support == "simulated" and schema.is_a("solid")
        assert schema.fields["name"].default == spec.default_name
        for answer in spec.members.values():  # F and T answers name fields the node has
            field = answer.field if isinstance(answer, F | T) else answer.initial.field if (
                isinstance(answer, S) and isinstance(answer.initial, F)) else None
            assert field is None or field in schema.fields, (node_type, field)


def test_one_located_warning_per_device(project):
    from wbsim.sim.simulation import load_world

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim = load_world(project(WORLD))
    messages = [str(w.message) for w in caught if "not simulated by wbsim yet" in str(w.message)]
    assert len(messages) == len(INERT_DEVICES)
    camera = next(m for m in messages if m.startswith("Camera") or "Camera devices" in m)
    assert "test.wbt:11:5" in camera and "images, recognition and segmentation are not rendered" in camera
    assert 'Robot "r" > children[0] > Camera' in camera
    sim.close()


def test_classes_and_no_data_answers(sim):
    import controller

    robot = sim.robot("r")
    camera = robot.getDevice("camera")
    assert type(camera) is controller.Camera and isinstance(camera, controller.Sensor)
    assert camera.getNodeType() == controller.Node.CAMERA == 38
    assert (camera.getWidth(), camera.getHeight(), camera.width, camera.getFov(), camera.getNear()) == (32, 24, 32, 0.5, 0.01)
    assert camera.getImage() is None and camera.image is None and camera.getImageArray() is None
    assert camera.getRecognitionObjects() == [] and camera.saveImage("x.png", 90) == -1
    camera.enable(32)
    assert camera.getSamplingPeriod() == 32 and camera.sampling_period == 32
    camera.setFov(0.3)
    camera.exposure = 2.0
    assert (camera.getFov(), camera.fov, camera.getExposure()) == (0.3, 0.3, 2.0)
    assert controller.Camera.imageGetRed(bytes([1, 2, 3, 4, 5, 6, 7, 8]), 2, 1, 0) == 7  # BGRA, second pixel
    assert controller.Camera.imageGetGray(bytes([3, 6, 9, 0]), 1, 0, 0) == 6

    finder = robot.getDevice("range-finder")
    assert type(finder) is controller.RangeFinder
    assert (finder.getMinRange(), finder.getMaxRange(), finder.getRangeImage(), finder.range_image) == (0.1, 5.0, [], [])
    assert controller.RangeFinder.rangeImageGetDepth([1.0, 2.0, 3.0, 4.0], 2, 1, 1) == 4.0

    radar = robot.getDevice("radar")
    assert (radar.getNumberOfTargets(), radar.getTargets(), radar.getMaxRange()) == (0, [], 50.0)

    light = robot.getDevice("light sensor")
    assert math.isnan(light.getValue()) and light.getLookupTable() == [0.0, 0.0, 0.0, 10.0, 20.0, 0.1]

    speaker = robot.getDevice("speaker")
    assert speaker.isSpeaking() is False and speaker.speak("hello", 1.0) is None
    controller.Speaker.playSound(speaker, speaker, "sound.wav", 1.0, 1.0, 0.0, False)

    display = robot.getDevice("display")
    assert (display.getWidth(), display.height, controller.Display.RGBA) == (10, 20, 4)
    assert display.drawText("x", 1, 2) is None and display.imageNew(b"", controller.Display.RGB, 1, 1) is None
    display.color = 0xFF0000

    gripper = robot.getDevice("vacuum gripper")
    assert gripper.isOn() is True and gripper.getPresence() is False
    gripper.turnOff()
    gripper.enablePresence(64)
    assert (gripper.isOn(), gripper.on, gripper.getPresenceSamplingPeriod()) == (False, False, 64)

    robot.getDevice("pen").write(False)
    microphone = robot.getDevice("microphone")
    assert type(microphone) is controller.Device and microphone.getNodeType() == controller.Node.MICROPHONE
    assert robot.getDevice("radio").getNodeType() == controller.Node.RADIO


def test_reset_forgets_what_controllers_set(sim):
    camera = sim.robot("r").getDevice("camera")
    camera.enable(16)
    camera.setFov(0.2)
    sim.reset()
    camera = sim.robot("r").getDevice("camera")
    assert (camera.getSamplingPeriod(), camera.getFov()) == (0, 0.5)


def test_solid_part_is_kept(sim):
    model, data = sim.model, sim.data
    robot_body = sim.bindings.solids[0].body_id
    assert sim.bindings.solids[0].node.type_name == "Robot"
    # Robot 1 kg + Camera 2 kg + the pan link 0.5 kg hang together; the camera's and gripper's boxes collide.
    assert model.body_subtreemass[robot_body] == pytest.approx(3.5)
    sizes = {tuple(np.round(model.geom_size[g], 3)) for g in range(model.ngeom)}
    assert (0.05, 0.05, 0.05) in sizes and (0.025, 0.025, 0.005) in sizes
    # The motor inside the camera drives its joint.
    robot = sim.robot("r")
    motor, sensor = robot.getDevice("pan"), robot.getDevice("pan sensor")
    sensor.enable(16)
    motor.setPosition(0.4)
    robot.step(2000)
    assert sensor.getValue() == pytest.approx(0.4, abs=1e-3)


def test_answers_are_typed_as_specified():
    # Every answer is one of the spec's kinds and W answers have a matching S or a property setter.
    for spec in INERT_DEVICES.values():
        for name, answer in spec.members.items():
            assert isinstance(answer, C | F | T | S | W), name
