"""The named phases of one basic time step, in order, and the hooks that run in them.

One call to :meth:`wbsim.sim.simulation.Simulation.step` runs, in this order:

``CONTROLLERS``
    every controller whose ``robot.step(ms)`` has elapsed runs until its next ``step`` call;
    supervisor requests take effect immediately.
``DEVICES_ACTUATE``
    motors compute their commands (Webots' ``prePhysicsStep``).
``PLUGIN_STEP``
    physics-plugin ``webots_physics_step`` hooks.
``PHYSICS``
    MuJoCo advances one basic time step (``substeps`` MuJoCo steps in one C call, or one at a time when
    a device bank watches every physics step, e.g. bumpers); time advances.
``COLLIDE``
    collision hooks (the contacts of the new state, preparing the next step, as Webots' collide pass).
``PLUGIN_STEP_END``
    physics-plugin ``webots_physics_step_end`` hooks (constraint forces of this step are valid).
``DEVICES_SAMPLE``
    sensors whose sampling period elapsed take their value at the new time.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wbsim.sim.simulation import Simulation

__all__ = ["Phase", "PHASE_ORDER", "Hook"]


class Phase(enum.Enum):
    """The phases of a basic time step."""

    CONTROLLERS = "controllers"
    DEVICES_ACTUATE = "devices_actuate"
    PLUGIN_STEP = "plugin_step"
    PHYSICS = "physics"
    COLLIDE = "collide"
    PLUGIN_STEP_END = "plugin_step_end"
    DEVICES_SAMPLE = "devices_sample"


PHASE_ORDER: tuple[Phase, ...] = tuple(Phase)
"""The phases in the order they run within one step."""

Hook = Callable[["Simulation"], None]
"""A phase hook: called with the simulation, at the end of its phase's built-in work."""
