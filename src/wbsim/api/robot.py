"""Webots' ``Robot`` API over the core robot runtime.

Inside a controller, ``Robot()`` binds to the robot running that controller. From a script, get the
object from the simulation: ``sim.robot("name")``; its ``step`` then advances the simulation.
"""

from __future__ import annotations

import functools
import math
import sys
from pathlib import Path
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from wbsim.api.arguments import ArgumentChecked, as_c_int, c_arguments
from wbsim.api.device import Device, print_error
from wbsim.api.urdf import robot_urdf
from wbsim.api.user_input import Joystick, Keyboard, Mouse
from wbsim.devices.registry import device_kinds, kind_named
from wbsim.errors import ControllerError
from wbsim.sim.controllers import current_robot
from wbsim.world.model import WbNode

if TYPE_CHECKING:
    from wbsim.sim.robot import RobotRuntime

__all__ = ["Robot", "make_robot"]


class _Created:
    """Webots' ``Robot.created``: the first Robot object its controller made (None before the first ``Robot()``).

    Webots keeps it in a class attribute, one per controller process; wbsim runs every controller in one
    process, so the value is looked up per controller: on the class, the calling controller's robot; on an
    object, its robot's.
    """

    def __get__(self, instance: Robot | None, owner: type) -> Robot | None:
        runtime = current_robot() if instance is None else instance._runtime
        return None if runtime is None else runtime.created_robot  # type: ignore[return-value]


@c_arguments(1, getDeviceByIndex="int", waitForUserInputEvent=("int", "int"), setCustomData="text", getUrdf="text",
             setMode="int", wwiSendText="text", batterySensorEnable="int")
class Robot(ArgumentChecked):
    """A robot seen from its controller (Webots ``controller.Robot``).

    Args:
        runtime: the robot to bind; inside a controller leave it out (the running robot is used).

    Raises:
        ControllerError: ``Robot()`` called outside a controller run by wbsim without a runtime.
    """

    EVENT_QUIT = -1
    EVENT_NO_EVENT = 0
    EVENT_MOUSE_CLICK = 1
    EVENT_MOUSE_MOVE = 2
    EVENT_KEYBOARD = 4
    EVENT_JOYSTICK_BUTTON = 8
    EVENT_JOYSTICK_AXIS = 16
    EVENT_JOYSTICK_POV = 32
    MODE_SIMULATION = 0
    MODE_CROSS_COMPILATION = 1
    MODE_REMOTE_CONTROL = 2
    created = _Created()

    def __init__(self, runtime: RobotRuntime | None = None) -> None:
        runtime = runtime if runtime is not None else current_robot()
        if runtime is None:
            raise ControllerError(
                "Robot() must be created inside a controller started by wbsim. To drive a robot from a script, "
                "use sim.robot('<robot name>') on the simulation returned by wbsim.load_world()."
            )
        if runtime.created_robot is None:
            runtime.created_robot = self
        elif runtime.controller is not None and runtime.controller.in_own_greenlet():
            # Webots refuses a second Robot in a controller (its object stays unusable); wbsim prints the same
            # line and lets the object work, so the controller runs on but the portability problem shows.
            print("Error: only one Robot instance can be created per controller process.", file=sys.stderr)
        self._runtime = runtime
        runtime.api_robots.add(self)
        runtime.api_robot = self  # what Motion plays on (Webots' controller library has one robot per process)
        self._step_hooks: list[Callable[[float], None]] = []
        self.devices: dict[str, Device] = {}
        self.keyboard = Keyboard(runtime)
        self.mouse = Mouse(runtime)
        self.joystick = Joystick(runtime)
        self._step_begun: float | None = None
        self._ordered: list[Device] = []
        for core in runtime.devices:
            device: Device = kind_named(core.kind).api(core, self)
            self._ordered.append(device)
            self.devices.setdefault(device.getName(), device)

    # -- stepping and time ------------------------------------------------------------------------------
    def step(self, time_step: int | None = None) -> int:
        """Run the simulation for ``time_step`` ms (default: basicTimeStep); 0, or -1 when the simulation ends.

        ``time_step`` is passed to C as Webots' binding passes it (an ``int``; a ``float`` raises
        ``ctypes.ArgumentError`` as there, see :mod:`wbsim.api.arguments`)."""
        if type(time_step) is not int or not -2147483648 <= time_step <= 2147483647:  # else as_c_int's value
            time_step = self._runtime.sim.basic_time_step_ms if time_step is None else as_c_int(time_step, 1)
        if self._step_hooks:
            for hook in self._step_hooks:
                hook(time_step)
        return self._runtime.step(time_step)

    def _advance(self, duration: float) -> int:
        """The step itself, for a duration already converted (or the basic time step, which may be fractional)."""
        for hook in self._step_hooks:
            hook(duration)
        return self._runtime.step(duration)

    def stepBegin(self, time_step: int | None = None) -> int:
        """Start a step of ``time_step`` ms (Webots' asynchronous step); :meth:`stepEnd` completes it. wbsim
        runs the step in ``stepEnd``, so work done in between happens before the simulation advances."""
        duration = self._runtime.sim.basic_time_step_ms if time_step is None else as_c_int(time_step, 1)
        if self._runtime.sim.ended:
            return -1
        self._step_begun = duration
        return 0

    def stepEnd(self) -> int:
        """Complete the step started by :meth:`stepBegin`: 0, or -1 when the simulation ends."""
        duration, self._step_begun = self._step_begun, None
        if duration is None:
            print_error("wb_robot_step_end() called without a previous call to wb_robot_step_begin().")
            return -1
        return self._advance(duration)

    def waitForUserInputEvent(self, event_type: int, timeout: int) -> int:
        """Wait for a user input event: headless, returns at once, ``EVENT_KEYBOARD`` if ``event_type`` asks
        for keyboard events and typed keys are pending (:meth:`RobotRuntime.press_keys`), else
        ``EVENT_NO_EVENT``."""
        if event_type & Robot.EVENT_KEYBOARD and self._runtime.pending_keys:
            return Robot.EVENT_KEYBOARD
        return Robot.EVENT_NO_EVENT

    def getSkin(self, name: str) -> Device | None:
        """Deprecated Webots alias of getDevice."""
        print("DEPRECATION: Robot.getSkin is deprecated, please use Robot.getDevice instead.", file=sys.stderr)
        return self.getDevice(name)

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
        self._runtime.custom_data = data
        self._runtime.sim.supervision.overrides[(self._runtime.node, "customData")] = data

    def getProjectPath(self) -> str:
        """The absolute path of the project folder (the parent of ``worlds/``)."""
        return str(self._runtime.sim.world.project_dir.resolve())

    def getUrdf(self, prefix: str = "") -> str:
        """The URDF of this robot's tree as Webots writes it (links, fixed/revolute/continuous/prismatic joints
        with limits and origins from the current poses); ``prefix`` is prepended to every link and joint name.
        See :mod:`wbsim.api.urdf`."""
        sim = self._runtime.sim
        node = self._runtime.node
        return robot_urdf(node, sim.supervision.field_value, prefix,
                          lambda text: sim.messages.warning(f"{node.path}: {text}"))

    def getWorldPath(self) -> str:
        """The absolute path of the world file."""
        return str(Path(self._runtime.sim.world.file).resolve())

    def getSynchronization(self) -> bool:
        """The robot's ``synchronization`` field (wbsim always runs controllers synchronously)."""
        return bool(self._runtime.node.get("synchronization", True))

    def setMode(self, mode: int, arg: str | None = None) -> None:
        """Only ``MODE_SIMULATION`` exists in wbsim; other modes print Webots' error."""
        if mode != Robot.MODE_SIMULATION:
            print_error("wb_robot_set_mode(): cross-compilation and remote control are not available in wbsim.")

    def getKeyboard(self) -> Keyboard:
        """The keyboard (headless: no key unless a script types with ``RobotRuntime.press_keys``)."""
        return self.keyboard

    def getMouse(self) -> Mouse:
        """The mouse (headless: no pointer)."""
        return self.mouse

    def getJoystick(self) -> Joystick:
        """The joystick (headless: never connected)."""
        return self.joystick

    def wwiSendText(self, text: str) -> None:
        """Send text to the robot window: there is none headless, so it is dropped."""

    def wwiReceiveText(self) -> str | None:
        """Text from the robot window: None (no robot window headless)."""
        return None

    # -- battery ------------------------------------------------------------------------------------------
    def _battery(self, function: str) -> bool:
        batteries = self._runtime.sim.batteries
        if batteries is None or id(self._runtime) not in batteries.row:
            print_error(f"{function}(): the robot has no battery (its 'battery' field is empty).")
            return False
        return True

    def batterySensorEnable(self, samplingPeriod: int) -> None:
        """Sample the battery's current energy every ``samplingPeriod`` ms (first value one period later)."""
        if samplingPeriod < 0:
            print_error("wb_robot_battery_sensor_enable() called with negative sampling period.")
        elif self._battery("wb_robot_battery_sensor_enable"):
            self._runtime.sim.batteries.enable(self._runtime, int(samplingPeriod))  # type: ignore[union-attr]

    def batterySensorDisable(self) -> None:
        """Stop sampling the battery."""
        if self._battery("wb_robot_battery_sensor_disable"):
            self._runtime.sim.batteries.enable(self._runtime, 0)  # type: ignore[union-attr]

    def batterySensorGetSamplingPeriod(self) -> int:
        """The battery sensor's period in ms (0 = disabled)."""
        batteries = self._runtime.sim.batteries
        if batteries is None or id(self._runtime) not in batteries.row:
            return 0
        return int(batteries.period_ms[batteries.row[id(self._runtime)]])

    def batterySensorGetValue(self) -> float:
        """The battery's energy (J) at the last sample; NaN before the first one or without a battery."""
        batteries = self._runtime.sim.batteries
        if batteries is None or id(self._runtime) not in batteries.row:
            return math.nan
        return float(batteries.value[batteries.row[id(self._runtime)]])

    def _set_battery_period(self, period: int | None) -> None:
        self.batterySensorEnable(int(self.getBasicTimeStep()) if period is None else period)

    battery_sensor_sampling_period = property(batterySensorGetSamplingPeriod, _set_battery_period)

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

    def _rebind_devices(self) -> None:
        """The world was recompiled at run time (Solids imported or removed): this robot's devices that stay
        keep their API objects, which re-read what they keep of their bank; devices added inside the robot get
        new ones, removed ones leave ``getDevice`` (objects already held keep their last values)."""
        held = {id(device._core): device for device in self._ordered}
        ordered: list[Device] = []
        for core in self._runtime.devices:
            device = held.get(id(core))
            if device is None:
                device = kind_named(core.kind).api(core, self)
            else:
                device._bind()
            ordered.append(device)
        self._ordered = ordered
        self.devices = {}
        for device in ordered:
            self.devices.setdefault(device.getName(), device)

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
    project_path = property(getProjectPath)
    world_path = property(getWorldPath)
    synchronization = property(getSynchronization)
    mode = property(getMode)
    number_of_devices = property(getNumberOfDevices)

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
