"""A physics plugin running in a simulation: its callbacks in Webots' order, and what they act on.

Order (Webots' ``WbSimulationWorld``, see ``docs/physics_plugins.md``):

- load: the plugin file runs; ``webots_physics_init()`` (working directory: the plugin's folder; no
  contact joint group yet), then a first collision pass (``webots_physics_collide`` for each pair);
- each basic step: ``webots_physics_step()`` after the devices' ``prePhysicsStep`` (so a packet an
  emitter sent this step is readable), then the physics of the step (the forces the plugin added and
  its contact joints act during all of it), then the collision pass preparing the next step, then
  ``webots_physics_step_end()``;
- a world reset: ``webots_physics_cleanup()``, the world reset, a collision pass, ``webots_physics_init()``;
- closing: ``webots_physics_cleanup()``.

``dWebotsGetTime()`` gives the time at the start of the step, in ms. A callback that raises prints its
traceback and disables the plugin (the simulation goes on without it; ``Simulation.failed`` is set).
The utility functions (:mod:`wbsim.physics_plugin`) act on the simulation whose callback is running:
a context variable names it, so plugins of two simulations in one process never see each other.
"""

from __future__ import annotations

import contextvars
import numbers
import sys
import traceback
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import mujoco

from wbsim.errors import PluginError
from wbsim.plugins.bodies import ForceBuffer
from wbsim.plugins.collisions import Collisions, JointGroup
from wbsim.plugins.geoms import Geom
from wbsim.plugins.loader import MANDATORY, PluginFile, find_plugin
from wbsim.plugins.scene import PluginScene

if TYPE_CHECKING:
    from wbsim.sim.bounce import BounceThreshold
    from wbsim.sim.simulation import Simulation

__all__ = ["PluginRuntime", "current_plugin"]

_CURRENT: contextvars.ContextVar[PluginRuntime | None] = contextvars.ContextVar("wbsim_physics_plugin",
                                                                                default=None)


def current_plugin() -> PluginRuntime:
    """The plugin whose callback is running.

    Raises:
        PluginError: outside a plugin callback (the utility functions act on that plugin's simulation).
    """
    runtime = _CURRENT.get()
    if runtime is None:
        raise PluginError("wbsim.physics_plugin functions can only be called from a physics plugin's code "
                          "(its callbacks or its top level while it loads).")
    return runtime


class PluginRuntime:
    """One loaded physics plugin.

    Args:
        sim: the simulation (held weakly: it owns the plugin).
        name: ``WorldInfo.physics``.
        file: the loaded plugin file.

    Attributes:
        name: the plugin name.
        enabled: False once a callback raised, the file could not load, or the simulation closed.
        failed: True if a callback raised.
        scene: bodies and geoms as ODE handles.
        collisions: the collision pass and contact joints.
        forces: forces and torques added during the current basic step.
        phase: the callback running (``"init"``, ``"step"``, ``"collide"``, ``"step_end"``, ``"cleanup"``) or
            ``"load"``.
    """

    def __init__(self, sim: Simulation, name: str, file: PluginFile) -> None:
        self._sim_ref = weakref.ref(sim)
        self.name = name
        self.file = file
        self._mailbox = sim.plugin_mailbox
        self._mailbox.open = True  # channel 0 is kept only for a running plugin
        self.enabled = True
        self.failed = False
        self.phase = "load"
        self.scene = PluginScene(sim)
        info = sim.world.world_info
        self.collisions = Collisions(self.scene, float(info["ERP"]), float(info["CFM"]))  # type: ignore[arg-type]
        self.forces = ForceBuffer(sim.model)
        self.time_ms = sim.time_ms
        self._split = False

    @staticmethod
    def load(sim: Simulation) -> PluginRuntime | None:
        """The plugin ``WorldInfo.physics`` names, loaded and initialised; None for ``"<none>"`` or when it
        cannot load (with Webots' warnings; a plugin whose file raises prints its traceback)."""
        name = str(sim.world.world_info["physics"])
        if name in ("<none>", ""):
            return None
        proto_dirs = tuple(sorted({Path(node.location.file).parent for node in sim.world.walk()
                                   if node.location is not None and node.location.file.lower().endswith(".proto")}))
        script, searched = find_plugin(sim.world.project_dir, name, proto_dirs)
        if script is None:
            folders = "\n".join(f"  {folder}" for folder in searched)
            sim.messages.warning(f"Plugin '{name}' not found. Search in:\n{folders}")
            return None
        file = PluginFile(script)
        runtime = PluginRuntime(sim, name, file)
        with runtime._context("load"):
            try:
                file.load()
            except Exception:  # the plugin's own code: report and go on without it
                runtime._report("loading")
                return runtime
        missing = [callback for callback in MANDATORY if callback not in file.callbacks]
        if missing:
            for callback in missing:
                sim.messages.warning(f"Function {callback}() missing in '{script}'.")
            sim.messages.warning(f"You need to implement this function to activate the '{name}' plugin.")
            runtime.disable()
            return None
        if callable(file.namespace.get("webots_physics_draw")):
            sim.messages.warning(f"In plugin '{name}', webots_physics_draw(int, const char*) is deprecated.")
        runtime.init()
        return runtime

    def disable(self) -> None:
        """Call no callback any more (an error, or the simulation closes); channel 0 stops being kept."""
        self.enabled = False
        self._mailbox.open = False

    @property
    def sim(self) -> Simulation:
        """The simulation."""
        sim = self._sim_ref()
        if sim is None:
            raise PluginError(f"The simulation of plugin '{self.name}' no longer exists.")
        return sim

    # -- calling the plugin ---------------------------------------------------------------------------
    @contextmanager
    def _context(self, phase: str) -> Iterator[None]:
        token = _CURRENT.set(self)
        previous, self.phase = self.phase, phase
        try:
            yield
        finally:
            self.phase = previous
            _CURRENT.reset(token)

    def _report(self, where: str) -> None:
        self.disable()
        self.failed = True
        print(f"Physics plugin '{self.name}' raised in {where}; it is disabled:", file=sys.stderr)
        traceback.print_exc()
        sys.stderr.flush()
        self.sim.messages.error(f"physics plugin '{self.name}' disabled after an exception in {where}")

    def _call(self, callback: str, *args: object, phase: str, in_folder: bool = False) -> object:
        function = self.file.callbacks.get(callback)
        if function is None or not self.enabled:
            return None
        # Inline rather than context managers: the collide callback runs once per pair and step.
        token = _CURRENT.set(self)
        previous, self.phase = self.phase, phase
        state = self.file.enter(in_folder)
        try:
            return function(*args)
        except Exception:
            self._report(f"{callback}()")
            return None
        finally:
            self.file.leave(state)
            self.phase = previous
            _CURRENT.reset(token)

    @property
    def contact_group(self) -> JointGroup | None:
        """``dWebotsGetContactJointGroup()``: None inside ``init`` (Webots sets it after), else the group."""
        return None if self.phase == "init" else self.collisions.group

    def contact_lifetime(self) -> float:
        """How many basic steps a contact joint made now acts: the next one from the collision pass, two from
        ``step`` or ``step_end`` (Webots swaps its groups after the pass: they write into the group emptied
        only after the following pass)."""
        return 2.0 if self.phase in ("step", "step_end") else 1.0

    # -- Webots' sequence ------------------------------------------------------------------------------
    def init(self) -> None:
        """``webots_physics_init()``, then the first collision pass."""
        self.time_ms = self.sim.time_ms
        self._call("webots_physics_init", phase="init", in_folder=True)
        self.collision_pass()

    def step(self) -> None:
        """``webots_physics_step()`` (phase ``PLUGIN_STEP``)."""
        self.time_ms = self.sim.time_ms
        self._call("webots_physics_step", phase="step")

    def before_physics(self, data: mujoco.MjData) -> bool:
        """Apply the forces added and turn the contact joints into MuJoCo contacts.

        Returns:
            True if the MuJoCo steps of this basic step must be split (see :meth:`physics_step`).
        """
        if self.forces:
            self.forces.apply(data)
        self._split = self.collisions.prepare_step()
        return self._split

    def physics_step(self, model: mujoco.MjModel, data: mujoco.MjData,
                     edit: Callable[[mujoco.MjModel, mujoco.MjData], None] | None = None,
                     bounce: BounceThreshold | None = None) -> None:
        """One MuJoCo step honouring the suppressed pairs and contact joints; ``bounce`` (the bounce threshold)
        edits MuJoCo's own contacts first, ``edit`` (device banks' contact edits) runs once the contacts and
        constraints are final, before the solver."""
        self.collisions.split_step(model, data, edit, bounce)

    def after_physics(self, data: mujoco.MjData) -> None:
        """Remove the forces (they act for one basic step, as ODE's accumulators)."""
        self.forces.restore(data)
        self.collisions.end_step()

    def collision_pass(self) -> None:
        """Webots' collision pass (phase ``COLLIDE``): ``webots_physics_collide`` for each pair.

        The pass runs as one plugin call (one context switch, not one per pair): the callback is called
        directly; if it raises, the plugin is disabled and the remaining pairs get default handling.
        """
        function = self.file.callbacks.get("webots_physics_collide") if self.enabled else None
        if function is None:
            self.collisions.collision_pass(None)
            return

        def collide(g1: Geom, g2: Geom) -> int:
            if not self.enabled:
                return 0
            try:
                result = function(g1, g2)
            except Exception:
                self._report("webots_physics_collide()")
                return 0
            if type(result) is int:  # the usual case, before the slower ABC check
                return result
            if isinstance(result, numbers.Integral):
                return int(result)
            # C's int return cannot be anything else: a float, a string or a missing return (None) is a
            # bug of the port that would otherwise silently change the physics.
            try:
                raise PluginError(f"webots_physics_collide() must return an int (0, 1 or 2), not {result!r}.")
            except PluginError:
                self._report("webots_physics_collide()")
            return 0

        token = _CURRENT.set(self)
        previous, self.phase = self.phase, "collide"
        state = self.file.enter(False)
        try:
            self.collisions.collision_pass(collide)
        finally:
            self.file.leave(state)
            self.phase = previous
            _CURRENT.reset(token)

    def step_end(self) -> None:
        """``webots_physics_step_end()`` (phase ``PLUGIN_STEP_END``)."""
        self._call("webots_physics_step_end", phase="step_end")

    def cleanup(self) -> None:
        """``webots_physics_cleanup()``."""
        self._call("webots_physics_cleanup", phase="cleanup")

    def close(self) -> None:
        """The simulation closes: ``webots_physics_cleanup()`` once, then nothing more is called."""
        if self.enabled:
            self.cleanup()
        self.disable()

    def before_reset(self) -> None:
        """A world reset starts: ``webots_physics_cleanup()``."""
        self.cleanup()

    def after_reset(self, reseed: Callable[[], None]) -> None:
        """After the world reset: a collision pass, the random seed reset (``reseed``), then
        ``webots_physics_init()`` (Webots' order), so that init draws what it drew at load."""
        self.collisions.clear()
        self.forces.clear()
        self.time_ms = self.sim.time_ms
        self.collision_pass()
        reseed()
        self._call("webots_physics_init", phase="init", in_folder=True)
