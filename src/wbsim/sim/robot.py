"""The core (snake_case) runtime of one robot: its devices, custom data and stepping.

``step(duration_ms)`` follows Webots: the duration is rounded up to whole basic time steps; it returns
0, or -1 once the simulation is ending. Called from the robot's controller greenlet it hands control to
the simulation; called from a script (an ``<extern>`` robot driven from Python) it advances the
simulation itself, running the other controllers as it goes.
"""

from __future__ import annotations

import math
import weakref
from collections import deque
from numbers import Real
from typing import TYPE_CHECKING

from greenlet import getcurrent as _getcurrent

from wbsim.compile.bindings import RobotBinding
from wbsim.devices.kind import CoreDevice
from wbsim.errors import ControllerError, SimulationError
from wbsim.sim.controllers import RUNNING, _Terminate

if TYPE_CHECKING:
    from wbsim.sim.controllers import ControllerProcess
    from wbsim.sim.simulation import Simulation

__all__ = ["RobotRuntime"]


class RobotRuntime:
    """One Robot node at run time.

    Attributes:
        sim: the simulation.
        binding: the compiled robot binding.
        name: the robot's ``name`` field.
        supervisor: True if the robot has ``supervisor TRUE``.
        devices: core devices in Webots' device order.
        custom_data: the ``customData`` string.
        controller: the controller process, or None (``<none>``, ``<extern>``, ``<generic>``).
        wake_step: the basic-step index at which a waiting controller resumes.
        pending_keys: key codes typed by :meth:`press_keys` that the keyboard has not returned yet.
        input_periods: sampling periods of the user input devices (``"keyboard"``, ``"mouse"``, ...), ms.
        created_robot: the first API ``Robot`` made for this robot since its controller (re)started.
        api_robots: the API ``Robot`` objects made for this robot (weakly held).
        removed: True once the robot was removed from the world at run time.
    """

    def __init__(self, sim: Simulation, binding: RobotBinding, devices: list[CoreDevice]) -> None:
        self._sim_ref = weakref.ref(sim)  # weak: controllers hold robots, and greenlet frames defeat the GC
        self.binding = binding
        self.node = binding.node
        self.name = str(binding.node["name"])
        self.supervisor = bool(binding.node["supervisor"])
        self.devices = devices
        self.devices_by_name: dict[str, CoreDevice] = {}
        for device in devices:
            self.devices_by_name.setdefault(device.name, device)
        self.custom_data = str(binding.node["customData"])
        self.controller: ControllerProcess | None = None
        self.wake_step = 0
        self.last_duration_steps = 0
        self.saw_end = False
        self.exit_raised = False  # step() raised the SystemExit ending the controller
        self.pending_keys: deque[int] = deque()
        self.input_periods: dict[str, int] = {}
        self.api_robot: object | None = None  # the Robot object of its controller (for Motion)
        self.created_robot: object | None = None  # the first Robot object of its controller (Robot.created)
        self.api_robots: weakref.WeakSet[object] = weakref.WeakSet()  # its API Robot objects (rebound on recompiles)
        self.removed = False  # removed from the world at run time: step() returns -1
        self._last_ms: float | None = None  # the last valid step duration (ms) and its basic steps
        self._last_steps = 0

    def press_keys(self, *codes: int) -> None:
        """Type keys for this robot's controller (headless runs have no keyboard): its enabled ``Keyboard``
        returns ``codes`` one per ``getKey()`` call, in order, then -1. Codes are Webots' (``ord("A")``,
        ``Keyboard.UP``, ``Keyboard.SHIFT + ord("A")``)."""
        self.pending_keys.extend(int(code) for code in codes)

    @property
    def sim(self) -> Simulation:
        """The simulation this robot belongs to.

        Raises:
            SimulationError: the simulation no longer exists (it was garbage collected).
        """
        sim = self._sim_ref()
        if sim is None:
            raise SimulationError(f"The simulation of robot {self.name!r} no longer exists.")
        return sim

    def _steps_of(self, duration_ms: float, basic_ms: float) -> int:
        """Basic steps for a ``step(duration_ms)`` call (0 for 0 ms), remembered for the next call."""
        # type() first: the ABC check alone costs more than the rest of a step call.
        if not (type(duration_ms) in (float, int) or isinstance(duration_ms, Real)) or not 0 <= duration_ms < math.inf:
            raise ControllerError(f"robot.step() called with an invalid duration {duration_ms!r} "
                                  "(must be a finite number of ms >= 0).")  # also refuses NaN
        steps = 0 if duration_ms == 0 else max(1, math.ceil(duration_ms / basic_ms - 1e-9))
        if type(duration_ms) in (float, int):
            self._last_ms, self._last_steps = duration_ms, steps
        return steps

    @property
    def controller_name(self) -> str:
        """The ``controller`` field."""
        return str(self.node["controller"])

    def step(self, duration_ms: float) -> int:
        """Let ``duration_ms`` of simulated time pass (rounded up to basic steps); 0, or -1 when ending.

        Raises:
            ControllerError: for a negative duration.
        """
        process = self.controller
        # The usual call, from the robot's own controller with the same duration (and type) as last time, in a
        # running simulation: straight to the yield. Anything else takes the full path (_step).
        if (process is not None and duration_ms == self._last_ms and type(duration_ms) is type(self._last_ms)
                and self._last_steps and not self.removed and _getcurrent() is process.greenlet):
            sim = self._sim_ref()
            if sim is not None and not sim.ended:
                # _wait and ControllerProcess.yield_to_simulation inline (the same statements): two frames less in
                # every step of every controller.
                steps = self.last_duration_steps = self._last_steps
                self.wake_step = sim.step_count + steps
                del sim  # no strong reference in the suspended frame (see _wait)
                resumed = process.resumer.switch()  # type: ignore[union-attr]
                if process._terminating:  # noqa: SLF001
                    raise _Terminate()
                if resumed is RUNNING:  # a usual turn of the controllers phase: it runs on
                    return 0
                return self._woken()
        return self._step(duration_ms)

    def _wait(self, process: ControllerProcess, steps: int, step_count: int) -> int:
        """Suspend the robot's own controller for ``steps`` basic steps from ``step_count``; -1 if the
        simulation ended meanwhile, else 0. Neither this frame nor its callers' may hold a strong reference to
        the simulation while suspended (the GC cannot see greenlet frames, so it would keep a dropped
        simulation alive): callers pass the step count and drop theirs first."""
        self.last_duration_steps = steps
        self.wake_step = step_count + steps
        process.yield_to_simulation()
        return self._woken()

    def _woken(self) -> int:
        """The answer of a ``step`` whose wait just ended (resumed otherwise than by a running controllers
        phase): -1 if the simulation has ended, else 0."""
        sim = self._sim_ref()
        if (sim if sim is not None else self.sim).ended:
            self.saw_end = True
            return -1
        return 0

    def _step(self, duration_ms: float) -> int:
        """:meth:`step`, every case."""
        sim = self._sim_ref()
        if sim is None:
            sim = self.sim  # raises the typed error
        process = self.controller
        own = process is not None and process.in_own_greenlet()
        if self.removed:  # its node left the world: as a controller whose robot is gone, it gets -1
            return -1
        if sim.ended:
            if own:
                assert process is not None
                if self.exit_raised:  # it caught that SystemExit and stepped again: Webots would kill it now
                    process.force_end()
                if self.saw_end:
                    self.exit_raised = True
                    raise SystemExit(0)  # Webots exits a controller that steps again after -1
                self.saw_end = True
            return -1
        # The usual case: the same duration (and type, so that only checked values match) as last time.
        if duration_ms == self._last_ms and type(duration_ms) is type(self._last_ms):
            steps = self._last_steps
        else:
            steps = self._steps_of(duration_ms, sim.basic_time_step_ms)
        if steps == 0:
            return 0
        if own:
            assert process is not None
            step_count = sim.step_count
            del sim  # no strong reference in the suspended frame (see _wait)
            return self._wait(process, steps, step_count)
        # Driven from a script: advance the simulation here. The robot's own controller, if it runs one, keeps
        # its own wake-up time. A world reset (simulationReset) during the wait restarts the wait from time 0,
        # as Webots resets pending request times.
        target = sim.step_count + steps
        resets = sim.world_resets
        while not sim.ended:
            if sim.world_resets != resets:
                resets, target = sim.world_resets, steps
            if sim.step_count >= target:
                break
            sim.step()
        return -1 if sim.ended else 0
