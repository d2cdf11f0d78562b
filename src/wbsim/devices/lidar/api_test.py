"""The Webots Lidar API: names, getters, properties, and the error texts and returns of lidar.c / lidar.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

WORLD = """
WorldInfo { basicTimeStep 16 }
Solid { translation 1.1 0 0 name "wall" boundingObject Box { size 0.2 4 4 } }
Robot {
  name "r"
  controller "<extern>"
  children [
    Lidar { name "front" horizontalResolution 10 fieldOfView 1 numberOfLayers 2 verticalFieldOfView 0.3
            minRange 0.05 maxRange 3 }
    Lidar { name "spin" type "rotating" horizontalResolution 64 numberOfLayers 1 defaultFrequency 4
            minFrequency 2 maxFrequency 6 }
  ]
}
"""


@pytest.fixture
def robot(project, load):
    return load(project(WORLD)).robot("r")


def test_controller_module_exports_lidar_and_lidar_point():
    import controller
    from controller import Lidar, LidarPoint, Node

    assert {"Lidar", "LidarPoint"} <= set(controller.__all__)
    assert LidarPoint(1.0, 2.0, 3.0, 1, 0.5).layer == 1
    assert Node.LIDAR != Node.SOLID


def test_getters_and_properties(robot, capfd):
    from controller import Lidar, Node

    front, spin = robot.getDevice("front"), robot.getDevice("spin")
    assert isinstance(front, Lidar) and front.getNodeType() == Node.LIDAR
    assert (front.getHorizontalResolution(), front.getNumberOfLayers()) == (10, 2)
    assert (front.horizontal_resolution, front.number_of_layers) == (10, 2)
    assert (front.getFov(), front.getVerticalFov(), front.getMinRange(), front.getMaxRange()) == (1.0, 0.3, 0.05, 3.0)
    assert (front.fov, front.vertical_fov, front.min_range, front.max_range) == (1.0, 0.3, 0.05, 3.0)
    assert (spin.getMinFrequency(), spin.getMaxFrequency(), spin.getFrequency()) == (2.0, 6.0, 4.0)
    assert (spin.min_frequency, spin.max_frequency, spin.frequency) == (2.0, 6.0, 4.0)
    spin.frequency = 5.0
    assert spin.getFrequency() == 5.0
    spin.setFrequency(7.0)
    assert spin.getFrequency() == 5.0
    assert capfd.readouterr().err == "Error: wb_lidar_set_frequency() out of frequency range [2.000000, 6.000000].\n"
    assert robot.getLidar("front") is front
    assert "DEPRECATION: Robot.getLidar is deprecated, please use Robot.getDevice instead." in capfd.readouterr().err


def test_images_are_zero_before_the_first_sample_then_ranges(robot):
    front = robot.getDevice("front")
    front.enable(32)
    assert front.getSamplingPeriod() == 32 and front.sampling_period == 32
    robot.step(16)
    assert front.getRangeImage() == [0.0] * 20  # Webots' black image until the first sample
    robot.step(16)
    image = front.getRangeImage()
    assert len(image) == 20 and all(1.0 <= v < 1.3 for v in image) and image == front.range_image
    assert all(isinstance(v, float) and v == float(np.float32(v)) for v in image)  # float32 values, as Webots


def test_disabled_errors_and_bad_layers(robot, capfd):
    front = robot.getDevice("front")
    assert front.getRangeImage() == [0.0] * 20
    assert front.getLayerRangeImage(0) is None
    assert front.getNumberOfPoints() == 0
    assert front.getPointCloud() == []
    err = capfd.readouterr().err.splitlines()
    assert err == [
        "Error: wb_lidar_get_range_image() called for a disabled device! Please use: wb_lidar_enable().",
        "Error: wb_lidar_get_layer_range_image() called for a disabled device! Please use: wb_lidar_enable().",
        "Error: wb_lidar_get_number_of_points() called for a lidar with point cloud disabled! Please use: "
        "wb_lidar_enable_point_cloud().",
        "Error: wb_lidar_get_number_of_points() called for a lidar with point cloud disabled! Please use: "
        "wb_lidar_enable_point_cloud().",
        "Error: wb_lidar_get_point_cloud() called for a lidar with point cloud disabled. Please use: "
        "wb_lidar_enable_point_cloud().",
    ]
    front.enable(16)
    robot.step(16)
    assert front.getLayerRangeImage(2) is None and front.getLayerRangeImage(-1) is None
    assert capfd.readouterr().err.splitlines() == [
        "Error: wb_lidar_get_layer_range_image() called with a 'layer' argument (2) bigger or equal to the number "
        "of layers of this lidar (2).",
        "Error: wb_lidar_get_layer_range_image() called with a negative 'layer' argument.",
    ]
    front.enable(-1)
    assert capfd.readouterr().err == "Error: wb_lidar_enable() called with negative sampling period.\n"


def test_point_cloud_switch(robot):
    front = robot.getDevice("front")
    front.enable(16)
    front.enablePointCloud()
    robot.step(16)
    assert front.isPointCloudEnabled() and front.getNumberOfPoints() == 20 == front.number_of_points
    assert len(front.getPointCloud()) == 20 and len(front.getLayerPointCloud(1)) == 10
    assert len(front.getPointCloud(data_type="buffer")) == 20 * 20
    front.disablePointCloud()
    assert not front.isPointCloudEnabled()
    assert front.getPointCloud() == []  # after Webots' two errors
    assert math.isfinite(front.getRangeImage()[0])
