"""Webots' ``Robot`` API over the core robot runtime.

Inside a controller, ``Robot()`` binds to the robot running that controller. From a script, get the
object from the simulation: ``sim.robot("name")``; its ``step`` then advances the simulation.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from wbsim.api.arguments import ArgumentChecked, c_arguments
from wbsim.api.device import Device
from wbsim.devices.registry import device_kinds, kind_named
from wbsim.errors import ControllerError
from wbsim.sim.controllers import current_robot
from wbsim.world.model import WbNode

if TYPE_CHECKING:
    from wbsim.sim.robot import RobotRuntime

__all__ = ["Robot", "make_robot"]


@c_arguments(1, getDeviceByIndex="int")
class Robot(ArgumentChecked):
    """A robot seen from its controller (Webots ``controller.Robot``).

    Args:
        runtime: the robot to bind; inside a controller leave it out (the running robot is used).

    Raises:
        ControllerError: ``Robot()`` called outside a controller run by wbsim without a runtime.
    """

    EVENT_QUIT = -1
    EVENT_NO_EVENT = 0
    MODE_SIMULATION = 0
    MODE_CROSS_COMPILATION = 1
    MODE_REMOTE_CONTROL = 2

    def __init__(self, runtime: RobotRuntime | None = None) -> None:
        runtime = runtime if runtime is not None else current_robot()
        if runtime is None:
            raise ControllerError(
                "Robot() must be created inside a controller started by wbsim. To drive a robot from a script, "
                "use sim.robot('<robot name>') on the simulation returned by wbsim.load_world()."
            )
        self._runtime = runtime
        self._step_hooks: list[Callable[[float], None]] = []
        self.devices: dict[str, Device] = {}
        self._ordered: list[Device] = []
        for core in runtime.devices:
            device: Device = kind_named(core.kind).api(core, self)
            self._ordered.append(device)
            self.devices.setdefault(device.getName(), device)

    # -- stepping and time ------------------------------------------------------------------------------
    def step(self, time_step: int | float | None = None) -> int:
        """Run the simulation for ``time_step`` ms (default: basicTimeStep); 0, or -1 when the simulation ends."""
        duration = self._runtime.sim.basic_time_step_ms if time_step is None else time_step
        for hook in self._step_hooks:
            hook(duration)
        return self._runtime.step(duration)

    def _add_step_hook(self, hook: Callable[[float], None]) -> None:
        """Call ``hook(duration_ms)`` at each ``step`` call, before the simulation runs: controller-library work
        Webots does when a controller steps (``write_request``), e.g. an emitter with a baud rate."""
        self._step_hooks.append(hook)

    def getTime(self) -> float:
        """Simulated time in seconds."""
        return self._runtime.sim.time_s

    def getBasicTimeStep(self) -> float:
        """WorldInfo.basicTimeStep in ms."""
        return self._runtime.sim.basic_time_step_ms

    # -- identity -----------------------------------------------------------------------------------------
    def getName(self) -> str:
        """The robot's ``name`` field."""
        return self._runtime.name

    def getModel(self) -> str:
        """The robot's ``model`` field."""
        return str(self._runtime.node["model"])

    def getCustomData(self) -> str:
        """The ``customData`` field."""
        return self._runtime.custom_data

    def setCustomData(self, data: str) -> None:
        """Write the ``customData`` field."""
        self._runtime.custom_data = str(data)
        self._runtime.sim.supervision.overrides[(self._runtime.node, "customData")] = str(data)

    def getSupervisor(self) -> bool:
        """True if the robot's ``supervisor`` field is TRUE."""
        return self._runtime.supervisor

    def getMode(self) -> int:
        """Always ``Robot.MODE_SIMULATION``."""
        return Robot.MODE_SIMULATION

    # -- devices ----------------------------------------------------------------------------------------
    def getDevice(self, name: str) -> Device | None:
        """The device called ``name``, or None (with a message on stderr) if the robot has none."""
        device = self.devices.get(name)
        if device is None:
            print(f'Device "{name}" was not found on robot "{self.getName()}"', file=sys.stderr, flush=True)
        return device

    def getNumberOfDevices(self) -> int:
        """The number of devices of the robot."""
        return len(self._ordered)

    def getDeviceByIndex(self, index: int) -> Device:
        """The device at ``index`` in Webots' device order (depth-first in the scene tree).

        Raises:
            IndexError: if ``index`` is out of range (after printing Webots' error message).
            ctypes.ArgumentError: if ``index`` is not an int (as Webots' binding raises).
        """
        if not 0 <= index < len(self._ordered):
            print("Error: The index of wb_robot_get_device_by_index() is out of the bounds.", file=sys.stderr)
            raise IndexError(f"device index {index} out of range 0..{len(self._ordered) - 1}")
        return self._ordered[index]

    def __getattr__(self, attribute: str) -> Callable[[str], Device | None]:
        # Webots' deprecated getX(name) aliases of getDevice, one per device kind (getMotor, getTouchSensor...).
        shown = _deprecated_getters().get(attribute)
        if shown is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {attribute!r}")

        def getter(name: str) -> Device | None:
            print(f"DEPRECATION: Robot.{shown} is deprecated, please use Robot.getDevice instead.", file=sys.stderr)
            return self.getDevice(name)

        getter.__name__ = attribute
        getter.__doc__ = "Deprecated Webots alias of getDevice."
        return getter

    def _device_in_joint(self, node: WbNode, kind: str) -> Device | None:
        """This robot's device of kind ``kind`` next to the joint device ``node`` (a motor's sensor, a sensor's
        motor): in the same joint and the same device field (a Hinge2Joint's ``device2`` is its second axis)."""
        for device in self._ordered:
            if (device._node.parent is node.parent and device._node.parent_field == node.parent_field
                    and device._core.kind == kind):
                return device
        return None

    # -- properties -----------------------------------------------------------------------------------------
    name = property(getName)
    model = property(getModel)
    custom_data = property(getCustomData, setCustomData)
    time = property(getTime)
    basic_time_step = property(getBasicTimeStep)
    supervisor = property(getSupervisor)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.getName()!r}>"


@functools.cache
def _deprecated_getters() -> Mapping[str, str]:
    """Deprecated ``Robot.getX`` method names of every device kind, with the name Webots prints."""
    return MappingProxyType({method: shown for kind in device_kinds() for method, shown in kind.deprecated_getters})


def make_robot(runtime: RobotRuntime) -> Robot:
    """The API object for a runtime: a ``Supervisor`` for supervisor robots, else a ``Robot``."""
    if runtime.supervisor:
        from wbsim.api.supervisor import Supervisor

        return Supervisor(runtime)
    return Robot(runtime)
