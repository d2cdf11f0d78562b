"""Webots' ``Lidar`` and ``LidarPoint`` API over the core lidar (texts and return values of ``lidar.c`` and
the Python ``lidar.py`` / ``lidar_point.py``)."""

from __future__ import annotations

from wbsim.api.arguments import c_arguments
from wbsim.api.device import Sensor, print_error
from wbsim.devices.lidar.bank import Lidar as CoreLidar

__all__ = ["Lidar", "LidarPoint", "api_classes"]


class LidarPoint:
    """One point of a lidar point cloud (Webots' ``LidarPoint``): ``x``, ``y``, ``z`` (m, lidar frame, float32
    values), ``layer_id`` (also ``layer``, the attribute name of Webots' Python class) and ``time`` (s)."""

    __slots__ = ("x", "y", "z", "layer_id", "time")

    def __init__(self, x: float, y: float, z: float, layer_id: int, time: float) -> None:
        self.x = x
        self.y = y
        self.z = z
        self.layer_id = layer_id
        self.time = time

    @property
    def layer(self) -> int:
        """The layer of the point (Webots' Python name for ``layer_id``)."""
        return self.layer_id

    def __repr__(self) -> str:
        return f"LidarPoint(x={self.x}, y={self.y}, z={self.z}, layer_id={self.layer_id}, time={self.time})"


@c_arguments(2, setFrequency="double", getLayerRangeImage="int", getLayerPointCloud="int")
class Lidar(Sensor):
    """A fixed or rotating lidar (Webots ``controller.Lidar``).

    The range image holds ``horizontalResolution * numberOfLayers`` ranges (m, float32 values), layer after
    layer, each from left to right (a rotating lidar: a full turn starting behind); inf where nothing lies
    within ``[minRange, maxRange)``.
    """

    _C_NAME = "wb_lidar"
    _core: CoreLidar

    def __init__(self, core: CoreLidar, robot: object) -> None:
        super().__init__(core, robot)  # type: ignore[arg-type]
        self._settings = core.settings
        # The controller library's own flag (lidar.c): only this controller's calls change it, so after a world
        # reset, which stops the simulator's point cloud, it still reads True and the last points stay readable.
        self._cloud_enabled = core.point_cloud_enabled
        self._restarts = self._robot._runtime.sim.restarts

    def _library_cloud_flag(self) -> bool:
        if self._restarts != self._robot._runtime.sim.restarts:  # sim.reset(): configured again (flag off)
            self._restarts = self._robot._runtime.sim.restarts
            self._cloud_enabled = self._core.point_cloud_enabled
        return self._cloud_enabled

    # -- configuration ------------------------------------------------------------------------------
    def getFov(self) -> float:
        """The horizontal field of view of the depth camera (rad)."""
        return self._settings.field_of_view

    def getVerticalFov(self) -> float:
        """The angle between the first and the last layer (rad)."""
        return self._settings.vertical_field_of_view

    def getMinFrequency(self) -> float:
        """The smallest rotation frequency of the head (Hz)."""
        return self._settings.min_frequency

    def getMaxFrequency(self) -> float:
        """The largest rotation frequency of the head (Hz)."""
        return self._settings.max_frequency

    def getMinRange(self) -> float:
        """The minimum range (m): nearer objects read inf."""
        return self._settings.min_range

    def getMaxRange(self) -> float:
        """The maximum range (m): objects at or beyond it read inf."""
        return self._settings.max_range

    def getHorizontalResolution(self) -> int:
        """Points per layer."""
        return self._settings.horizontal_resolution

    def getNumberOfLayers(self) -> int:
        """Number of layers."""
        return self._settings.number_of_layers

    def getFrequency(self) -> float:
        """The current rotation frequency of the head (Hz)."""
        return self._core.frequency

    def setFrequency(self, frequency: float) -> None:
        """Set the head's rotation frequency (Hz), within ``[minFrequency, maxFrequency]``."""
        low, high = self._settings.min_frequency, self._settings.max_frequency
        if frequency < low or frequency > high:
            print_error(f"wb_lidar_set_frequency() out of frequency range [{low:f}, {high:f}].")
            return
        self._core.set_frequency(float(frequency))

    # -- range image --------------------------------------------------------------------------------
    def getRangeImage(self) -> list[float]:
        """The range image as one list (layer after layer); a disabled lidar prints Webots' error and returns
        its last image."""
        self._disabled_error("get_range_image")
        return self._core.bank.images[self._row].tolist()

    def getRangeImageArray(self) -> list[list[float]] | None:
        """The range image as one list per layer."""
        if self._periods[self._row] <= 0:
            self._disabled_error("get_layer_range_image")
            return None
        image = self._core.range_image
        return [image[i].tolist() for i in range(len(image))]

    defRangeImageArray = getRangeImageArray  # the (misspelt) name in Webots' lidar.py

    def getLayerRangeImage(self, layer: int) -> list[float] | None:
        """The ranges of one layer (None, after Webots' error, for a disabled lidar or a bad layer)."""
        if self._periods[self._row] <= 0:
            self._disabled_error("get_layer_range_image")
            return None
        if not self._layer_ok("wb_lidar_get_layer_range_image", layer):
            return None
        return self._core.range_image[layer].tolist()

    def _layer_ok(self, function: str, layer: int) -> bool:
        layers = self._settings.number_of_layers
        if layer >= layers:
            print_error(f"{function}() called with a 'layer' argument ({layer}) bigger or equal to the number of "
                        f"layers of this lidar ({layers}).")
            return False
        if layer < 0:
            print_error(f"{function}() called with a negative 'layer' argument.")
            return False
        return True

    # -- point cloud --------------------------------------------------------------------------------
    def enablePointCloud(self) -> None:
        """Compute the point cloud at each sample (the lidar must be enabled too)."""
        self._cloud_enabled = True
        self._core.enable_point_cloud(True)

    def disablePointCloud(self) -> None:
        """Stop computing the point cloud."""
        self._cloud_enabled = False
        self._core.enable_point_cloud(False)

    def isPointCloudEnabled(self) -> bool:
        """True if this controller enabled the point cloud (the controller library's flag, which a world reset
        leaves as it is although the simulator stops computing the cloud until ``enablePointCloud``)."""
        return self._library_cloud_flag()

    def _cloud_ok(self, function: str, bang: str = "") -> bool:
        if not self._library_cloud_flag():
            print_error(f"{function}() called for a lidar with point cloud disabled{bang or '.'} Please use: "
                        "wb_lidar_enable_point_cloud().")
            return False
        if self._periods[self._row] <= 0:
            print_error(f"{function}() called for a disabled device! Please use: wb_lidar_enable().")
            return False
        return True

    def getNumberOfPoints(self) -> int:
        """``horizontalResolution * numberOfLayers``, or 0 after Webots' error when the point cloud or the lidar
        is disabled."""
        if not self._cloud_ok("wb_lidar_get_number_of_points", "!"):
            return 0
        return self._settings.horizontal_resolution * self._settings.number_of_layers

    def getPointCloud(self, data_type: str = "list") -> list[LidarPoint] | bytearray:
        """Every point, layer after layer: a list of :class:`LidarPoint` (``data_type="list"``) or the raw 20-byte
        records (``"buffer"``); empty after Webots' errors when the point cloud or the lidar is disabled."""
        count = self.getNumberOfPoints()
        if not self._cloud_ok("wb_lidar_get_point_cloud"):
            return bytearray() if data_type == "buffer" else []
        return self._points(self._core.point_cloud[:count], data_type)

    def getLayerPointCloud(self, layer: int, data_type: str = "list") -> list[LidarPoint] | bytearray:
        """The points of one layer (empty after Webots' errors)."""
        count = self.getNumberOfPoints()
        if not self._cloud_ok("wb_lidar_get_layer_point_cloud") or not count or \
                not self._layer_ok("wb_lidar_get_layer_point_cloud", layer):
            return bytearray() if data_type == "buffer" else []
        res = self._settings.horizontal_resolution
        return self._points(self._core.point_cloud[layer * res:(layer + 1) * res], data_type)

    @staticmethod
    def _points(records: object, data_type: str) -> list[LidarPoint] | bytearray:
        if data_type == "buffer":
            return bytearray(records.tobytes())  # type: ignore[attr-defined]
        return [LidarPoint(*p) for p in records.tolist()]  # type: ignore[attr-defined]

    fov = property(getFov)
    vertical_fov = property(getVerticalFov)
    min_frequency = property(getMinFrequency)
    max_frequency = property(getMaxFrequency)
    min_range = property(getMinRange)
    max_range = property(getMaxRange)
    horizontal_resolution = property(getHorizontalResolution)
    number_of_layers = property(getNumberOfLayers)
    frequency = property(getFrequency, setFrequency)
    number_of_points = property(getNumberOfPoints)
    range_image = property(getRangeImage)


def api_classes() -> dict[str, type]:
    """The classes the ``controller`` module exports for lidars."""
    return {"Lidar": Lidar, "LidarPoint": LidarPoint}
