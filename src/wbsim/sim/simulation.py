"""The simulation: a compiled world, its MuJoCo state, devices, controllers and the step loop.

Everything a simulation needs is owned by its :class:`Simulation` object (MuJoCo data, random
generator, device state, controller greenlets), so several simulations can live in one process.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import sys
import warnings
import weakref
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from numbers import Real
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import mujoco
import numpy as np

from wbsim.bound import BoundToSimulation
from wbsim.compile.builder import CompiledWorld, CompileOptions, compile_world
from wbsim.collector import paused_collection
from wbsim.compile.loops import tie_loop_weights
from wbsim.devices.kind import BankContext, CoreDevice, DeviceBank
from wbsim.devices.registry import device_kinds
from wbsim.devices.sampling import NEVER
from wbsim.errors import ControllerError, SimulationError, WbsimError
from wbsim.plugins.mailbox import PluginMailbox
from wbsim.plugins.runtime import PluginRuntime
from wbsim.sim.controllers import ControllerFinder, ControllerProcess, find_controller
from wbsim.sim.messages import MessageLog
from wbsim.sim.phases import PHASE_ORDER, Hook, Phase
from wbsim.sim.rebuild import StateMap, copy_model_rows, copy_options, copy_state, map_state
from wbsim.sim.robot import RobotRuntime
from wbsim.sim.supervision import Supervision
from wbsim.sim.timers import TimerPause
from wbsim.world.loader import load_world_model
from wbsim.sim.battery import Batteries
from wbsim.sim.bounce import BounceThreshold
from wbsim.sim.c_steps import CallbackLost
from wbsim.sim.light_rows import LIGHT_SOLVER_TOLERANCE, LightContacts
from wbsim.sim.warning_relay import WarningRelay, warning_slot
from wbsim.world.model import WbNode, WorldModel, WorldWarning

if TYPE_CHECKING:
    from wbsim.api.robot import Robot
    from wbsim.recording import Recorder

__all__ = ["Simulation", "SimulationOptions", "load_world", "WbsimWarning"]

IMPORTED_NODE_FILE = "<imported node>"
"""The file name of the nodes a supervisor imports from a string (their warnings print when they are compiled)."""

_MUJOCO_MAX_VALUE = 1e10
"""MuJoCo's mjMAXVAL: positions, velocities and accelerations beyond it count as diverged (mju_isBad)."""


class WbsimWarning(UserWarning):
    """A world or compile warning (the world still loads).

    Attributes:
        world_warning: the located warning (file, line, column, node path), or None.
    """

    def __init__(self, text: str, world_warning: WorldWarning | None = None) -> None:
        super().__init__(text)
        self.world_warning = world_warning


@dataclass(frozen=True)
class SimulationOptions:
    """How to load and run a world.

    Attributes:
        seed: random seed overriding ``WorldInfo.randomSeed`` (-1: time-based), or None to use the file's.
        missing_controller: ``"error"`` to refuse a world whose controller file is missing,
            ``"warn"`` to run that robot without controller (Webots' behaviour).
        compile: compilation options (physics step size).
        start_controllers: False to run no controller files at all (every robot is driven from Python).
        mujoco_timers: True to keep MuJoCo's stage timers (``data.timer``, its profiling) running during the
            physics steps; by default they are paused there (:mod:`wbsim.sim.timers`: about 10 % of a small
            world's step; the physics is the same). The clock is process-wide: while another simulation's
            physics runs in another thread with its timers paused, MuJoCo records no durations here either.
    """

    seed: int | None = None
    missing_controller: Literal["error", "warn"] = "error"
    compile: CompileOptions = CompileOptions()
    start_controllers: bool = True
    mujoco_timers: bool = False




def _remove_finder(finder: ControllerFinder) -> None:
    try:
        sys.meta_path.remove(finder)
    except ValueError:
        pass


def _edit_contacts(banks: list[DeviceBank], bounce: BounceThreshold | None, model: mujoco.MjModel,
                   data: mujoco.MjData) -> None:
    """Inside one physics step, after collision detection: the bounce threshold (slow contacts get their
    resting solref), then ``banks`` edit the contacts; then recompute the constraint references from the
    edited contacts (what ``mj_step2``'s solver reads)."""
    edited = bounce.edit(model, data) if bounce is not None else False
    for bank in banks:
        edited = bank.edit_contacts(model, data) or edited
    if edited:
        mujoco.mj_referenceConstraint(model, data)


def _edited_steps(model: mujoco.MjModel, data: mujoco.MjData, count: int, edits: list[Callable[[], bool]],
                  substepping: tuple[DeviceBank, ...]) -> None:
    """``count`` physics steps, each split around the contact edits: collision detection and the constraint
    rows (``mj_step1``), ``edits`` in order (each True if it changed a row), the constraint references
    recomputed if one did, the solver and integration (``mj_step2``), then the substep-watching banks.
    The loop for a single edit (the bounce threshold alone, the usual case) makes one Python call per step
    besides MuJoCo's."""
    step1, step2, reference = mujoco.mj_step1, mujoco.mj_step2, mujoco.mj_referenceConstraint
    if len(edits) == 1 and not substepping:
        _bounced_steps(model, data, count, edits[0])
        return
    for _ in range(count):
        if edits:
            step1(model, data)
            edited = False
            for edit in edits:
                edited = edit() or edited
            if edited:
                reference(model, data)
            step2(model, data)
        else:
            mujoco.mj_step(model, data)
        for bank in substepping:
            bank.substep(data)


def _bounced_steps(model: mujoco.MjModel, data: mujoco.MjData, count: int, edit: Callable[[], bool]) -> None:
    """:func:`_edited_steps` with one edit and no substep-watching bank (the bounce threshold alone, the usual
    case): per MuJoCo step one Python call besides MuJoCo's two."""
    step1, step2, reference = mujoco.mj_step1, mujoco.mj_step2, mujoco.mj_referenceConstraint
    for _ in range(count):
        step1(model, data)
        if edit():
            reference(model, data)
        step2(model, data)


def _shutdown(finder: ControllerFinder, processes: list[ControllerProcess]) -> None:
    """Finalizer of a simulation dropped without ``close()``: stop its controllers, remove its finder.

    Suspended greenlet frames are invisible to Python's garbage collector, so a controller holding its
    Robot would otherwise keep everything alive; nothing here refers to the simulation itself.
    """
    for process in processes:
        try:
            process.terminate()
        except Exception:  # a controller's own cleanup failing must not break interpreter shutdown
            pass
    processes.clear()
    _remove_finder(finder)


class Simulation(BoundToSimulation):
    """A running world (copies and pickles raise :class:`~wbsim.errors.NotCopyableError`: :mod:`wbsim.bound`).

    Args:
        compiled: the compiled world.
        options: run options.

    Attributes:
        compiled: the compiled world (model, bindings).
        model: the MuJoCo model.
        data: the MuJoCo data (the live state). In a world with a bouncy surface its ``userdata`` words are
            wbsim's (the bounce threshold's control callback, :mod:`wbsim.sim.c_steps`), rewritten at each
            basic step: a user's own callback must not keep state there.
        step_count: basic time steps done since the start (or the last reset).
        ended: True once the simulation has ended (supervisor quit or :meth:`close`).
        exit_status: the status given to ``simulationQuit`` (0 otherwise).
        messages: simulator warnings and errors printed so far (the latest ones).
        removed_nodes: the nodes removed from the scene at run time, with their descendants, that supervisors
            had ``Node`` objects of (those answer as Webots' for an invalid node), held weakly.
        banks: the runtime bank of every registered device kind, by kind name (registry order).
        device_rows: each device node's bank and row.
    """

    def __init__(self, compiled: CompiledWorld, options: SimulationOptions | None = None) -> None:
        with paused_collection():  # see wbsim.collector: its passes made large set-ups superlinear
            self._set_up(compiled, options)

    def _set_up(self, compiled: CompiledWorld, options: SimulationOptions | None) -> None:
        """The whole of ``__init__`` (with the collector paused)."""
        self.options = options or SimulationOptions()
        self.compiled = compiled
        self.world: WorldModel = compiled.world
        self.model = compiled.model
        # The solver tolerance without the light parts' tighter one (sim/light_rows.py): restored when a world
        # stops having light parts.
        self._solver_tolerance = float(self.model.opt.tolerance)
        self.data = mujoco.MjData(self.model)
        self.bindings = compiled.bindings
        self.basic_time_step_ms = compiled.basic_time_step_ms
        self.substeps = compiled.substeps
        self.messages = MessageLog()
        info_seed = int(self.world.world_info["randomSeed"])  # type: ignore[arg-type]
        seed = self.options.seed if self.options.seed is not None else info_seed
        self.seed = int.from_bytes(os.urandom(4), "little") if seed == -1 else seed
        self._rng = np.random.Generator(np.random.PCG64(self.seed))
        self.step_count = 0
        self.ended = False
        self.exit_status = 0
        self._hooks: dict[Phase, list[Hook]] = {phase: [] for phase in PHASE_ORDER}
        # The same lists in phase order, so the step loop reads them without hashing enums.
        self._hook_lists = tuple(self._hooks[phase] for phase in PHASE_ORDER)
        # MuJoCo silently resets the whole state when it diverges; wbsim stops instead (see _unstable).
        self.model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_AUTORESET
        # Per warning kind, read as ints (cheaper than numpy's item or indexing).
        self._warning_counts = memoryview(self.data.warning.number)
        self._diverged_dof: int | None = None  # set by _on_mujoco_warning when the state diverges
        # _on_mujoco_warning as libmujoco's warning pointer around each physics phase (sim/warning_relay.py).
        self._warnings = WarningRelay(self._on_mujoco_warning, warning_slot())
        self._reset_requested = False
        self._load_requested: Path | None = None  # worldLoad / worldReload, applied at the end of the step
        self.recorder: Recorder | None = None  # the recording in progress (start_recording)
        self.world_resets = 0  # counts world resets (simulationReset and reset())
        self.restarts = 0  # counts reset() calls (controllers restarted, API caches configured again)
        # Nodes removed from the scene at run time (and their descendants), while Node objects of them live.
        self.removed_nodes: weakref.WeakSet[WbNode] = weakref.WeakSet()
        # Devices, robots and supervision refer back to the simulation weakly (see _shutdown).
        self_ref = weakref.ref(self)

        def now() -> int:
            sim = self_ref()
            return sim.step_count if sim is not None else 0

        def rng() -> np.random.Generator:
            sim = self_ref()
            if sim is None:
                raise SimulationError("The simulation of this device no longer exists.")
            return sim._rng

        def refresh_kinematics() -> None:
            sim = self_ref()
            if sim is not None:
                sim.supervision.refresh()

        def sampling_changed() -> None:
            sim = self_ref()
            if sim is not None:
                sim._sample_wake = 0  # the banks are asked again at the next sampling

        self.plugin_mailbox = PluginMailbox()
        self._context_functions = (rng, now, refresh_kinematics, sampling_changed)
        self._make_banks()
        self.robots: list[RobotRuntime] = []
        for robot_binding in compiled.bindings.robots:
            devices: list[CoreDevice] = [self.banks[ref.kind].core(ref.row) for ref in robot_binding.devices]
            runtime = RobotRuntime(self, robot_binding, devices)
            self._warn_duplicated_devices(runtime)
            self.robots.append(runtime)
        self._set_initial_velocities()
        try:
            mujoco.mj_forward(self.model, self.data)
        except mujoco.FatalError as error:  # the initial state cannot even be computed: a load error
            detail = " ".join(str(error).split())
            raise SimulationError(f"MuJoCo cannot compute the initial state of {self.world.file}: {detail}") from None
        self.batteries = Batteries.attach(self)  # None when no robot has a battery
        self.supervision = Supervision(self)
        self._initial_data = mujoco.MjData(self.model)
        mujoco.mj_copyData(self._initial_data, self.model, self.data)
        self._initial_model_arrays = self._mutable_model_arrays()
        # The physics plugin loads and initialises after the scene is built and before controllers start
        # (Webots' order); the initial state above is the one before its init (a reset runs init again).
        self.plugin: PluginRuntime | None = PluginRuntime.load(self)
        # The generator's state once the plugin has drawn what it draws at load: a reset returns to it.
        self._rng_after_load = self._rng.bit_generator.state
        # MuJoCo's stage timers are paused during the physics steps (None: kept, as asked or where not found).
        self._timer_pause = None if self.options.mujoco_timers else TimerPause.find()
        self._finder = ControllerFinder()
        self._processes: list[ControllerProcess] = []
        self._finalizer = weakref.finalize(self, _shutdown, self._finder, self._processes)
        self._controller_scripts = self._resolve_controllers()
        self._start_controllers()

    # -- set-up -----------------------------------------------------------------------------------------
    def _make_banks(self) -> None:
        """Build every kind's bank for the current model and data, and the per-phase lists."""
        rng, now, refresh_kinematics, sampling_changed = self._context_functions
        context = BankContext(self.model, self.basic_time_step_ms, self.substeps, rng, self.messages.warning, now,
                              refresh_kinematics, self.data, self.plugin_mailbox.post,
                              sampling_changed=sampling_changed)
        self.banks: dict[str, DeviceBank] = {
            kind.name: kind.bank(self.compiled.bindings.devices[kind.name], context) for kind in device_kinds()
        }
        # Only banks with devices and work in a phase run in it (registry order).
        table = self.compiled.bounce
        self._bounce = BounceThreshold(table, self.model) if table is not None and table.active else None
        self._actuating = tuple(b for b in self.banks.values() if b.n and b.actuates)
        self._sampling = tuple(b for b in self.banks.values() if b.n and b.samples)
        # The sampling banks called after each step (_plan_sampling): those with work due or unknown; the
        # others sleep until _sample_wake, the first step one of them said it has work (0: ask them again).
        self._sampling_awake: tuple[DeviceBank, ...] = ()
        self._sample_wake = 0
        # Banks that may watch substeps; whether they do is read every step (a bank may need it only at times).
        # Banks that can ever watch substeps or edit contacts: those with a substep or contact edit of their
        # own (or a flag other than the base's constant False); the others are not asked every step.
        self._substep_capable = tuple(
            b for b in self.banks.values()
            if b.n and (type(b).substep is not DeviceBank.substep or type(b).watches_substeps is not False
                        or type(b).edit_contacts is not DeviceBank.edit_contacts))
        self._install_light_rows()
        # Device node -> (its bank, its row): where supervisor field writes on devices go.
        self.device_rows: dict[WbNode, tuple[DeviceBank, int]] = {
            binding.node: (self.banks[kind], row)  # type: ignore[attr-defined]
            for kind, group in self.compiled.bindings.devices.items() for row, binding in enumerate(group)
        }

    def _install_light_rows(self) -> None:
        """Very light parts get ODE's force-space contact spring, edited like a bank's contacts
        (sim/light_rows.py), and the solver the tighter tolerance they need (:data:`LIGHT_SOLVER_TOLERANCE`;
        the tolerance the world was loaded with otherwise). Which parts are light follows MuJoCo's current inverse
        weights: called when the banks are made, and again after a supervisor's mass write or a reset recomputed
        them."""
        kept = tuple(b for b in self._substep_capable if not isinstance(b, LightContacts))
        tolerance = self._solver_tolerance
        if self.compiled.surfaces is not None and LightContacts.needed(self.model):
            light = LightContacts(self.compiled.surfaces, self.model, self.basic_time_step_ms / 1000.0)
            kept += (light,)  # type: ignore[assignment]
            tolerance = min(tolerance, LIGHT_SOLVER_TOLERANCE)  # the light parts' accelerations resolved
        self.model.opt.tolerance = tolerance
        self._substep_capable = kept

    def _recompute_mass_constants(self) -> None:
        """After the model's masses changed (a supervisor's write, a reset restoring them): MuJoCo's derived
        constants, the loop welds' softness tied to them (compile/loops.py), and which parts are very light."""
        mujoco.mj_setConst(self.model, mujoco.MjData(self.model))
        tie_loop_weights(self.model)
        self._install_light_rows()

    def _warn_duplicated_devices(self, runtime: RobotRuntime) -> None:
        """Webots' warning for device names used twice in a robot."""
        counts = Counter(d.name for d in runtime.devices)
        for duplicated in sorted(n for n, count in counts.items() if count > 1):
            self.messages.warning(
                f'Robot "{runtime.name}": at least two devices are sharing the same name ("{duplicated}") '
                "while unique names are required.")

    def _rebuild_banks(self, mapping: StateMap) -> None:
        """After :meth:`replace_root_nodes`: every kind's bank for the new model, with the fields supervisors
        wrote on the devices that stay applied again and their run-time state taken over (by node identity)."""
        old_banks, old_rows = self.banks, self.device_rows
        self._make_banks()
        for (node, name), value in self.supervision.overrides.items():
            target = self.device_rows.get(node) if node in old_rows else None
            if target is not None:
                target[0].field_changed(target[1], name, value)
        for kind, bank in self.banks.items():
            old = old_banks[kind]
            if not (bank.n and old.n):
                continue
            pairs = [(old_rows[b.node][1], row) for row, b in enumerate(bank.bindings)
                     if b.node in old_rows and old_rows[b.node][0] is old]
            rows = tuple(np.array([p[i] for p in pairs], dtype=np.int64) for i in (0, 1))
            bank.transfer_from(old, rows, mapping)  # type: ignore[arg-type]

    def _robot_devices(self, binding: object, old: list[CoreDevice]) -> list[CoreDevice]:
        """The core devices of a robot in the rebuilt banks: a device that stays keeps its core object (moved to
        its new bank and row), so that API objects holding it follow."""
        kept = {(core.kind, core.node): core for core in old}
        devices: list[CoreDevice] = []
        for ref in binding.devices:  # type: ignore[attr-defined]
            core = self.banks[ref.kind].core(ref.row)
            previous = kept.get((ref.kind, ref.node))
            if previous is not None:
                vars(previous).update(vars(core))
                core = previous
            devices.append(core)
        return devices

    def _rebuild_runtime(self, mapping: StateMap, scripts: dict[WbNode, Path]) -> None:
        """After :meth:`replace_root_nodes`: banks, robots and supervision for the new model (state kept).
        Removed robots' controllers end; added robots' controllers start with the next step."""
        self._warning_counts = memoryview(self.data.warning.number)
        self._rebuild_banks(mapping)
        runtimes = {r.node: r for r in self.robots}
        robots: list[RobotRuntime] = []
        for binding in self.bindings.robots:  # scene order
            runtime = runtimes.pop(binding.node, None)
            if runtime is not None:
                runtime.devices = self._robot_devices(binding, runtime.devices)
                runtime.devices_by_name = {}
                for device in runtime.devices:
                    runtime.devices_by_name.setdefault(device.name, device)
                for api_robot in list(runtime.api_robots):  # the controller keeps its objects
                    api_robot._rebind_devices()
            else:
                runtime = RobotRuntime(self, binding, self._robot_devices(binding, []))
                self._warn_duplicated_devices(runtime)
                runtime.wake_step = self.step_count
                script = scripts.get(binding.node)
                if script is not None:
                    self._controller_scripts[runtime] = script
                    args = [str(a) for a in binding.node["controllerArgs"]]  # type: ignore[union-attr]
                    runtime.controller = ControllerProcess(runtime, script, args, self._finder)
            runtime.binding = binding
            robots.append(runtime)
        for gone in runtimes.values():  # removed robots: their controllers end
            gone.removed = True
            if gone.controller is not None:
                gone.controller.terminate()
                gone.controller = None
            self._controller_scripts.pop(gone, None)
        self.robots = robots  # a new list: the controllers phase may be iterating the old one
        self.batteries = Batteries.rebuilt(self, self.batteries)
        self._processes[:] = [r.controller for r in self.robots if r.controller is not None]
        if self._processes and self._finder not in sys.meta_path:
            sys.meta_path.insert(0, self._finder)
        old = self.supervision
        self.supervision = Supervision(self)
        new = self.supervision
        new.overrides.update((key, value) for key, value in old.overrides.items() if key != (None, "children"))
        new.node_ids.update(old.node_ids)
        new.last_node_id = old.last_node_id
        new.masses_changed = old.masses_changed
        bodies = dict(zip(mapping.bodies[0].tolist(), mapping.bodies[1].tolist()))
        new.wrenches.update((bodies[b], w) for b, w in old.wrenches.items() if b in bodies)
        qpos_map = dict(zip(mapping.qpos[0].tolist(), mapping.qpos[1].tolist()))
        dof_map = dict(zip(mapping.dofs[0].tolist(), mapping.dofs[1].tolist()))
        for key, (qpos_rows, qpos, dofs, qvel) in old.saved_states.items():  # saveState snapshots of what stays
            if all(r in qpos_map for r in qpos_rows.tolist()) and all(d in dof_map for d in dofs.tolist()):
                new.saved_states[key] = (np.array([qpos_map[r] for r in qpos_rows.tolist()], dtype=np.int64), qpos,
                                         np.array([dof_map[d] for d in dofs.tolist()], dtype=np.int64), qvel)
        new.version = old.version + 1

    def _now(self) -> int:
        return self.step_count

    def _set_initial_velocities(self) -> None:
        model, data = self.model, self.data
        mujoco.mj_kinematics(model, data)
        mujoco.mj_comPos(model, data)
        for binding in self.bindings.solids:
            if binding.free_joint_id < 0:
                continue
            linear = np.asarray(binding.node["linearVelocity"], dtype=float)
            angular = np.asarray(binding.node["angularVelocity"], dtype=float)
            if not linear.any() and not angular.any():
                continue
            body = binding.body_id
            dof = model.jnt_dofadr[binding.free_joint_id]
            offset = data.xipos[body] - data.xpos[body]
            data.qvel[dof : dof + 3] = linear - np.cross(angular, offset)
            data.qvel[dof + 3 : dof + 6] = data.xmat[body].reshape(3, 3).T @ angular

    def _mutable_model_arrays(self) -> dict[str, np.ndarray]:
        # Model fields that wbsim changes at run time; restored on reset.
        return {name: getattr(self.model, name).copy()
                for name in ("body_pos", "body_quat", "tendon_frictionloss", "body_mass", "body_inertia")}

    def _resolve_controllers(self) -> dict[RobotRuntime, Path]:
        scripts: dict[RobotRuntime, Path] = {}
        if not self.options.start_controllers:
            return scripts
        for robot in self.robots:
            script, problem = find_controller(self.world.project_dir, robot.name, robot.controller_name)
            if problem is not None:
                if self.options.missing_controller == "error":
                    raise ControllerError(problem)
                self.messages.warning(problem + " The robot runs without controller.")
            if script is not None:
                scripts[robot] = script
        return scripts

    def _start_controllers(self) -> None:
        for robot in self.robots:
            robot.wake_step = 0
            robot.saw_end = False
            robot.exit_raised = False
            robot.created_robot = None
            script = self._controller_scripts.get(robot)
            args = [str(a) for a in robot.node["controllerArgs"]]  # type: ignore[union-attr]
            robot.controller = ControllerProcess(robot, script, args, self._finder) if script else None
        self._processes[:] = [r.controller for r in self.robots if r.controller is not None]
        if not self._finalizer.alive:  # close() ran it; reset() started controllers again
            self._finalizer = weakref.finalize(self, _shutdown, self._finder, self._processes)
        if self._processes and self._finder not in sys.meta_path:
            sys.meta_path.insert(0, self._finder)

    def restart_controller(self, robot: RobotRuntime) -> bool:
        """Webots' ``restartController``: end ``robot``'s controller and start it again from its first line
        (it runs with the next step). False if the robot has no controller file or it is the caller itself.
        """
        script = self._controller_scripts.get(robot)
        process = robot.controller
        if script is None or (process is not None and process.in_own_greenlet()):
            return False
        if process is not None:
            process.terminate()
        robot.wake_step = self.step_count
        robot.saw_end = False
        robot.created_robot = None
        args = [str(a) for a in robot.node["controllerArgs"]]  # type: ignore[union-attr]
        robot.controller = ControllerProcess(robot, script, args, self._finder)
        self._processes[:] = [r.controller for r in self.robots if r.controller is not None]
        return True

    # -- public API ------------------------------------------------------------------------------------
    @property
    def time_ms(self) -> float:
        """Simulated time in ms."""
        return self.step_count * self.basic_time_step_ms

    @property
    def time_s(self) -> float:
        """Simulated time in s."""
        return self.time_ms / 1000.0

    @property
    def rng(self) -> np.random.Generator:
        """The simulation's random generator (seeded from WorldInfo.randomSeed; re-seeded on reset)."""
        return self._rng

    def add_hook(self, phase: Phase, hook: Hook) -> None:
        """Run ``hook(simulation)`` in ``phase`` of every step, after the phase's built-in work."""
        self._hooks[phase].append(hook)

    def remove_hook(self, phase: Phase, hook: Hook) -> None:
        """Remove a hook added with :meth:`add_hook`."""
        self._hooks[phase].remove(hook)

    def _run_hooks(self, phase: Phase) -> None:
        for hook in self._hooks[phase]:
            hook(self)

    def step(self) -> bool:
        """Advance one basic time step through every phase; returns False once the simulation has ended."""
        if self.ended:
            return False
        self._controllers_phase()
        if self.ended:
            return False
        self._physics_phases()
        return not self.ended

    def _controllers_phase(self) -> None:
        # One bracket for the phase (controllers.ControllerFinder.run_turns): the working directory changes only
        # between folders, the host's (and its sys.argv and sys.path) comes back once, and os.chdir, os.fchdir and
        # os._exit are swapped once, not around each controller.
        self._finder.run_turns(self.robots, self)
        if self._hook_lists[0]:
            self._run_hooks(Phase.CONTROLLERS)

    def _physics_phases(self) -> None:
        hooks = self._hook_lists
        data = self.data
        plugin = self.plugin
        if plugin is not None and not plugin.enabled:
            plugin = None
        for bank in self._actuating:
            bank.actuate(data)
        if hooks[1]:
            self._run_hooks(Phase.DEVICES_ACTUATE)
        if plugin is not None:
            plugin.step()
        if hooks[2]:
            self._run_hooks(Phase.PLUGIN_STEP)
        supervision = self.supervision
        if supervision.static_dirty:  # supervisor moves of static bodies, applied once per step
            supervision.flush_static()
        wrenches = supervision.wrenches
        if wrenches:
            supervision.apply_wrenches()
        split = plugin.before_physics(data) if plugin is not None and plugin.enabled else False
        substepping: tuple[DeviceBank, ...] = ()
        editing: tuple[DeviceBank, ...] = ()
        for bank in self._substep_capable:  # usually none or one: a loop, not two list comprehensions
            if bank.watches_substeps:
                substepping += (bank,)
            if bank.edits_contacts:
                editing += (bank,)
        # MuJoCo reports a diverging state through its warning handler at the first bad value, before the
        # next substeps spread NaN to every degree of freedom: the handler sees which one diverged first.
        # The handler is written into libmujoco's pointer directly (sim/warning_relay.py), the binding's record
        # left as the user set it; through the binding's setter where the pointer was not found.
        relay = self._warnings
        previous_warning = relay.install()
        timers = self._timer_pause
        paused = timers.pause() if timers is not None else None
        try:
            # Bouncy surfaces: slow contacts get their resting solref in every physics step (sim/bounce.py).
            bounce = self._bounce
            if split:  # a plugin's contact joints: the plugin's step runs the bounce threshold on MuJoCo's
                # own contacts before it adds its joints (their surfaces differ), then the banks' edits.
                edit = functools.partial(_edit_contacts, editing, None) if editing else None
                for _ in range(self.substeps):
                    plugin.physics_step(self.model, data, edit, bounce)  # type: ignore[union-attr]
                    for bank in substepping:
                        bank.substep(data)
            elif bounce is not None and not substepping and not editing:
                # The bounce threshold alone (the usual world with a bouncy surface): once its compiled edit
                # is loaded, one mj_step call with the edit as MuJoCo's control callback (sim/c_steps.py);
                # before that, or while another control callback is set, _edited_steps' own loop.
                steps = bounce.one_call_steps(self.model, data)
                if steps is None or not steps(self.substeps):
                    _bounced_steps(self.model, data, self.substeps, bounce.step_edit(self.model, data))
            elif substepping or editing or bounce is not None:  # contacts are edited, or a bank must see
                # every physics step. The edits, in order: the bounce threshold, then the banks'.
                edits = [functools.partial(bank.edit_contacts, self.model, data) for bank in editing]
                if bounce is not None:
                    edits.insert(0, bounce.step_edit(self.model, data))
                _edited_steps(self.model, data, self.substeps, edits, substepping)
            else:
                mujoco.mj_step(self.model, data, nstep=self.substeps)
            if relay.failures:  # the handler raised inside MuJoCo (the exception could not cross its C frames)
                relay.raise_failure()
        except mujoco.FatalError as error:
            relay.failures.clear()  # the step's own error is the one reported
            self._fatal(error)
        except CallbackLost:
            relay.failures.clear()
            self.ended = True
            self.exit_status = 1
            raise
        except BaseException:  # e.g. a KeyboardInterrupt out of the MuJoCo call: no handler's error left over
            relay.failures.clear()
            raise
        finally:
            relay.restore(previous_warning)
            if paused is not None:
                timers.resume(paused)  # type: ignore[union-attr]
        if plugin is not None:
            plugin.after_physics(data)  # before the wrenches go: it restores xfrc_applied as it found it
        if wrenches:
            supervision.clear_wrenches()
        self.step_count += 1
        counts = self._warning_counts
        if counts[3] or counts[4] or counts[5]:  # mjWARN_BADQPOS, BADQVEL, BADQACC
            self._unstable()
        if counts[1] or counts[2]:  # mjWARN_CONTACTFULL, CNSTRFULL: MuJoCo dropped contacts or constraints
            self._arena_full()
        if hooks[3]:
            self._run_hooks(Phase.PHYSICS)
        if plugin is not None and plugin.enabled:
            plugin.collision_pass()
        if hooks[4]:
            self._run_hooks(Phase.COLLIDE)
        if plugin is not None and plugin.enabled:
            plugin.step_end()
        if hooks[5]:
            self._run_hooks(Phase.PLUGIN_STEP_END)
        step = self.step_count  # read again: a hook may have reset the simulation
        if step >= self._sample_wake:  # a sleeping bank has work, or a bank's answer may have come sooner
            self._plan_sampling(step)
        for bank in self._sampling_awake:
            bank.sample(data, step)
        if hooks[6]:
            self._run_hooks(Phase.DEVICES_SAMPLE)
        if self._reset_requested:
            self._reset_requested = False
            self._reset_world(restart_controllers=False)
        if self._load_requested is not None:
            path, self._load_requested = self._load_requested, None
            # Host work: in the host's directory with its os functions, also when run() holds the controllers'
            # bracket (the load reads paths relative to the working directory: WEBOTS_HOME, WBSIM_CACHE_DIR).
            finder = self._finder
            depth = finder.suspend()
            try:
                self._replace_world(path)
            finally:
                finder.reopen(depth)

    def _plan_sampling(self, step: int) -> None:
        """Which sampling banks the steps from ``step`` on call: those whose :meth:`DeviceBank.next_sample_step`
        has come (or is 0, every step); the others sleep until the first step one of them named, or until a bank
        calls ``BankContext.sampling_changed`` (a bank called stays called until then, due or not)."""
        awake: list[DeviceBank] = []
        wake = NEVER
        for bank in self._sampling:
            next_step = bank.next_sample_step()
            if next_step <= step:
                awake.append(bank)
            elif next_step < wake:
                wake = next_step
        self._sampling_awake = tuple(awake)
        self._sample_wake = wake

    def _arena_full(self) -> None:
        """MuJoCo's arena could not hold every contact or constraint and dropped some: stop, as the rest of
        the run would be wrong (bodies falling through each other) without any other sign."""
        self.ended = True
        self.exit_status = 1
        raise SimulationError(
            f"MuJoCo ran out of arena memory in the step ending at t = {self.time_s:.3f} s of {self.world.file} "
            f"(model.narena = {self.model.narena} bytes) and dropped contacts or constraints. Fewer bodies in "
            "contact at once, or a larger arena (the 'memory' of the compiled MjSpec), are needed."
        )

    def _fatal(self, error: mujoco.FatalError) -> None:
        """MuJoCo stopped with a fatal error (e.g. its arena ran out): end the run with a typed error."""
        self.ended = True
        self.exit_status = 1
        detail = " ".join(str(error).split())
        raise SimulationError(
            f"MuJoCo failed in the step ending at t = {(self.step_count + 1) * self.basic_time_step_ms / 1000.0:.3f} s "
            f"of {self.world.file}: {detail}"
        ) from None

    def _on_mujoco_warning(self, message: str) -> None:
        """MuJoCo's warning handler during this simulation's physics steps (called at a warning's first
        occurrence): remember which degree of freedom diverged first; other warnings print as MuJoCo prints."""
        if "The simulation is unstable" not in message:
            print(f"WARNING: {message}\n", flush=True)
            return
        if self._diverged_dof is None:
            self._diverged_dof = self._first_diverging_dof()

    def _first_diverging_dof(self) -> int | None:
        """The degree of freedom where the state first went bad, judged before the constraint solver mixes the
        robots: a bad position or velocity, else a bad force or unconstrained acceleration of its own (a motor
        or an applied force). The solver's NaN reaches every degree of freedom in contact, so MuJoCo's own index
        (the lowest bad acceleration) can name a robot merely touching the one that diverged."""
        model, data = self.model, self.data

        def first_bad(values: np.ndarray) -> int | None:
            bad = np.flatnonzero(~(np.abs(values) <= _MUJOCO_MAX_VALUE))  # NaN compares false
            return int(bad[0]) if bad.size else None

        qpos = first_bad(data.qpos)
        if qpos is not None:  # a qpos index: the joint holding it, then its first degree of freedom
            joint = int(np.searchsorted(model.jnt_qposadr, qpos, side="right")) - 1
            return int(model.jnt_dofadr[joint])
        for values in (data.qvel, data.qfrc_smooth, data.qacc_smooth, data.qacc):
            dof = first_bad(values)
            if dof is not None:
                return dof
        return None

    def _body_label(self, body: int) -> str:
        """The Solid a MuJoCo body came from, with its robot: the nearest ancestor body made from a Solid."""
        by_body = {b.body_id: b for b in self.bindings.solids}
        while body > 0 and body not in by_body:
            body = int(self.model.body_parentid[body])
        binding = by_body.get(body)
        if binding is None:
            name = mujoco.mj_id2name(self.model, mujoco.mjtObj.mjOBJ_BODY, body) or ""
            return self.compiled.body_names.get(name, name)
        robot = binding.robot_node
        if robot is None or robot is binding.node:
            return binding.node.path
        return f"{binding.node.path}, of Robot \"{robot['name']}\""

    def _unstable(self) -> None:
        """MuJoCo flagged a non-finite or huge position, velocity or acceleration: stop with a clear error."""
        data, model = self.data, self.model
        kind = [n for n, i in (("position", 3), ("velocity", 4), ("acceleration", 5)) if self._warning_counts[i]]
        dof = self._diverged_dof
        if dof is None:  # no handler call (another handler was installed): MuJoCo's last index, as a dof index
            dof = int(data.warning[5 if "acceleration" in kind else 4 if "velocity" in kind else 3].lastinfo)
            if "acceleration" not in kind and "velocity" not in kind:  # BADQPOS gives a qpos index
                dof = int(model.jnt_dofadr[int(np.searchsorted(model.jnt_qposadr, dof, side="right")) - 1])
        where = ""
        if 0 <= dof < model.nv:
            where = f" (degree of freedom {dof}, in {self._body_label(int(model.dof_bodyid[dof]))})"
        self.ended = True
        self.exit_status = 1
        raise SimulationError(
            f"The physics became unstable in the step ending at t = {self.time_s:.3f} s: non-finite or huge {' and '.join(kind)}"
            f"{where}. Check masses, inertias and joint limits, or use a smaller physics step "
            "(load_world(max_physics_step_ms=...))."
        )

    def run(self, duration_s: float | None = None, on_step: Callable[[Simulation], None] | None = None) -> int:
        """Step until ``duration_s`` of simulated time has passed, or the simulation ends.

        With no duration, run until every controller has ended (the step in which the last one ends
        does no physics) or a supervisor quits; immediately if no controller runs.

        Args:
            duration_s: simulated seconds, rounded up to whole basic time steps (``math.inf``: until the
                simulation ends, even after every controller has ended); None: see above.
            on_step: called after every completed step (progress display, pacing).

        Returns:
            The exit status (``simulationQuit`` status, else 0).

        Raises:
            SimulationError: for a negative or NaN duration.

        While it runs with nothing of the caller's between steps (no ``on_step``, no phase hook, no physics
        plugin), the controllers' bracket (:meth:`ControllerFinder.begin`) stays open from step to step: the
        working directory stays the last controller's folder (changed only when the next controller's differs)
        and the caller's comes back when ``run`` returns, instead of after every step. A world a supervisor loads
        (``worldLoad``) is read with the caller's directory back (:meth:`ControllerFinder.suspend`).
        """
        remaining = None
        if duration_s is not None:
            if not isinstance(duration_s, Real) or not duration_s >= 0:  # also refuses NaN
                raise SimulationError(f"duration must be a number of seconds >= 0, got {duration_s!r}.")
            # Counted in steps done here, so a world reset (time back to 0) does not extend the run.
            remaining = math.inf if math.isinf(duration_s) else math.ceil(
                duration_s * 1000.0 / self.basic_time_step_ms - 1e-9)
        held = self._finder if on_step is None and self.plugin is None and not any(self._hook_lists) else None
        if held is not None:
            held.begin()
        try:
            if remaining is not None:
                while remaining > 0 and self.step():
                    remaining -= 1
                    if on_step is not None:
                        on_step(self)
                    elif held is not None and (held is not self._finder or self.plugin is not None):
                        held.end()  # a supervisor loaded another world (with a plugin, perhaps): per step again
                        held = None
                return self.exit_status
            while not self.ended and self.controllers_running():
                self._controllers_phase()
                if self.ended or not self.controllers_running():
                    break
                self._physics_phases()
                if on_step is not None:
                    on_step(self)
                elif held is not None and (held is not self._finder or self.plugin is not None):
                    held.end()
                    held = None
            return self.exit_status
        finally:
            if held is not None:
                held.end()

    @property
    def failed(self) -> bool:
        """True if a controller crashed (raised) or the physics plugin raised and was disabled."""
        crashed = any(r.controller is not None and r.controller.crashed for r in self.robots)
        return crashed or (self.plugin is not None and self.plugin.failed)

    def controllers_running(self) -> bool:
        """True while at least one controller has not ended."""
        return any(r.controller is not None and not r.controller.finished for r in self.robots)

    def quit(self, status: int = 0) -> None:
        """End the simulation with ``status`` (Webots' ``simulationQuit``); controllers then see step() == -1."""
        if not self.ended:
            self.ended = True
            self.exit_status = int(status)

    def start_recording(self, path: str | os.PathLike[str]) -> Recorder:
        """Record the simulation into ``path`` (an ``.npz`` file, see :mod:`wbsim.recording`) from now on:
        a frame of the current state, then frames at Webots' animation rate (``WorldInfo.FPS``).

        The file is created at once and written by :meth:`stop_recording` (or :meth:`close`).

        Raises:
            SimulationError: a recording is already in progress.
            RecordingError: the file cannot be created.
        """
        from wbsim.recording import Recorder

        if self.recorder is not None:
            raise SimulationError(f"A recording into {os.fspath(self.recorder.path)!r} is already in progress.")
        recorder = Recorder(self, path)
        recorder.start()
        self.recorder = recorder
        return recorder

    def stop_recording(self) -> Path | None:
        """Stop the recording in progress and write its file; returns its path (None if nothing recorded).

        Raises:
            RecordingError: the file cannot be written.
        """
        recorder, self.recorder = self.recorder, None
        return recorder.stop() if recorder is not None else None

    def close(self) -> None:
        """End the simulation: waiting controllers get -1 from ``step`` and may clean up, then are stopped;
        the physics plugin's ``webots_physics_cleanup`` runs; a recording in progress is written."""
        self.ended = True
        if self.plugin is not None:
            self.plugin.close()
        for robot in self.robots:
            process = robot.controller
            if process is None or process.finished or process.greenlet is None:
                continue
            process.resume()  # its pending step() returns -1
            if not process.finished:
                process.terminate()
        self._finalizer()  # removes the import finder; nothing is left to stop
        self.stop_recording()

    def __enter__(self) -> Simulation:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def reset(self) -> None:
        """Restore the initial state and seed and restart the controllers; the next run is bit-identical."""
        for robot in self.robots:
            if robot.controller is not None:
                robot.controller.terminate()
        self.restarts += 1
        self._reset_world(restart_controllers=True)

    def _reseed(self) -> None:
        self._rng = np.random.Generator(np.random.PCG64(self.seed))

    def request_world_reset(self) -> None:
        """Webots' ``simulationReset``: at the end of the current step, reset the world; controllers keep running."""
        self._reset_requested = True

    def request_world_load(self, path: str | os.PathLike[str]) -> None:
        """Webots' ``worldLoad`` (and ``worldReload`` with the world's own file): at the end of the current step,
        replace the world by the one in ``path``, read and compiled afresh; every controller restarts."""
        # Resolved now, against the caller's working directory (a supervisor's worldLoad gives a name it made
        # absolute against its controller's folder), whatever the directory is when the step ends.
        self._load_requested = Path(os.path.abspath(path))

    def _replace_world(self, path: Path) -> None:
        """Load ``path`` in place of the current world: the controllers, the plugin and a recording in progress
        end as in :meth:`close`, then this object is set up again from the new world (the same ``Simulation``,
        so a run loop holding it goes on; API objects taken before belong to the old world, and phase hooks
        are dropped). A world that does not load leaves the current one running, with the error printed."""
        try:
            model = load_world_model(path)
            compiled = compile_world(model, self.options.compile)
        except WbsimError as error:
            self.messages.error(f"cannot load the world {os.fspath(path)!r}: {error}")
            return
        for warning in (*model.warnings, *compiled.warnings):
            _emit_warning(warning)
        self.close()
        self.__init__(compiled, self.options)  # type: ignore[misc]  # the same object, a new world

    def replace_root_nodes(self, nodes: tuple[WbNode, ...]) -> None:
        """Make ``nodes`` the world's top-level nodes, adding or removing Solids at run time.

        The world is compiled again and the state is carried over by node identity (see
        :mod:`wbsim.sim.rebuild`): every body that stays continues bit for bit (positions, velocities, the
        solver's warm start, supervisor edits, the time and the random generator); imported Solids start at
        rest from their fields (``linearVelocity``/``angularVelocity`` applied). A later reset returns the
        bodies that stay to their initial state and leaves the imported ones where they were imported.

        Robots added get their controllers started with the next step; removed ones' controllers end (their
        ``step`` returns -1 from then on). Device banks are built again and the devices that stay keep their
        state (sensor values and schedules, motor commands and control state, queues, fields supervisors
        wrote), their core objects and so the controllers' API objects; batteries keep their energy and
        sensor; a recording in progress follows the new Solids; ``saveState`` snapshots of the Solids that stay
        are kept. Not supported yet: a physics plugin and linked Connectors (see docs/controller_api.md).

        Raises:
            SimulationError: the change is not supported yet (nothing is changed), or the new world does not
                compile.
            ControllerError: an added Robot's controller file is missing (``missing_controller="error"``).
        """
        self._recompile(tuple(nodes), set(self.world.walk()))

    def replace_node_field(self, host: WbNode, name: str, value: object) -> None:
        """Give the SFNode or MFNode field ``name`` of ``host`` (a node of the world) the node(s) ``value``, adding
        or removing Solids, joints and devices inside the world at run time, as :meth:`replace_root_nodes`
        does at its top level (the world is recompiled, the state carried over by node identity). A robot
        whose devices change sees the new ones in ``getDevice`` from then on.

        Raises:
            SimulationError: the change is not supported (nothing is changed), e.g. it adds or removes nodes
                merged into an existing body (a Solid without Physics under one with Physics, a frame-only
                device).
        """
        before = set(self.world.walk())
        old, old_given = host.fields[name], host.given
        host.fields[name] = value
        host.given = host.given | {name}
        try:
            self._recompile(self.world.nodes, before)
        except BaseException:
            host.fields[name], host.given = old, old_given
            raise

    def replace_bounds_field(self, node: WbNode, name: str, value: object, solid: WbNode) -> None:
        """Give field ``name`` of ``node``, a node inside the ``boundingObject`` of ``solid``, the value
        ``value``: the world is compiled again with the state kept, ``solid`` getting its new collision shape
        and the mass properties of it (as Webots' geometry nodes do with ``applyToOdeData`` and
        ``applyToOdeMass``; a Physics ``mass`` written before is applied again). A value the new compilation refuses (a size of 0)
        is printed as an error and leaves everything unchanged."""
        from wbsim.api.device import print_error  # the API's error lines (wbsim.api imports the simulation)

        before = set(self.world.walk())
        old, old_given = node.fields[name], node.given
        node.fields[name] = value
        node.given = node.given | {name}
        try:
            self._recompile(self.world.nodes, before, refit={solid}, change="changing a boundingObject")
        except WbsimError as error:
            node.fields[name], node.given = old, old_given
            print_error(f"the {name!r} field of {node.path} cannot be changed at run time: {error}")
            return
        except BaseException:
            node.fields[name], node.given = old, old_given
            raise
        physics = solid["physics"]
        mass = self.supervision.overrides.get((physics, "mass")) if isinstance(physics, WbNode) else None
        if mass is not None:
            self.supervision._set_mass(physics, mass)  # type: ignore[arg-type]

    def _recompile(self, nodes: tuple[WbNode, ...], before: set[WbNode], refit: set[WbNode] | None = None,
                   change: str = "adding or removing Solids") -> None:
        """Compile the world made of ``nodes`` and carry the running state over to it (``before``: every node
        of the world before the change; ``refit``: Solids whose mass properties come from the new compilation
        rather than from the running model)."""
        unsupported = [what for what, used in (("a physics plugin", self.plugin is not None),) if used]
        unsupported += [reason for bank in self.banks.values() if bank.n and (reason := bank.transfer_refusal())]
        if unsupported:
            raise SimulationError(f"{change} at run time is not supported yet in a world with "
                                  + ", ".join(unsupported) + ".")
        self.supervision.refresh()  # apply pending static moves to the old model first
        world = dataclasses.replace(self.world, nodes=tuple(nodes))
        compiled = compile_world(world, self.options.compile)
        present = set(world.walk())
        scripts = self._check_robot_changes(compiled, present)
        kept = {b.node for b in self.bindings.solids if b.node in present}
        mapping = map_state(self.model, self.bindings, compiled.model, compiled.bindings, kept)
        model = compiled.model
        copy_options(self.model, model)  # the same options (AUTORESET off, and any a user changed)
        # A frame-only Solid (geoms on its parent's body) keeps the geom poses a supervisor may have moved.
        refitted = [b for b in self.bindings.solids if refit and b.node in refit and b.owns_body]
        refit_bodies = {b.body_id for b in refitted}
        copy_model_rows(mapping, self.model, model, skip_mass=refit_bodies,
                        skip_geoms={g for b in refitted for g in b.geom_ids})
        if self.supervision.masses_changed:
            mujoco.mj_setConst(model, mujoco.MjData(model))
            tie_loop_weights(model)  # loop welds keep their parents' softness (compile/loops.py)
        # The imported bodies' initial state: MuJoCo's default plus their fields' velocities.
        live = self.data
        self.compiled, self.world, self.model, self.bindings = compiled, world, model, compiled.bindings
        self.data = mujoco.MjData(model)
        self._set_initial_velocities()  # sets only the imported free bodies' velocities (the others are overwritten)
        initial = mujoco.MjData(model)
        mujoco.mj_copyData(initial, model, self.data)
        copy_state(mapping, self._initial_data, initial)
        copy_state(mapping, live, self.data)
        self._initial_data = initial
        # Initial model rows: the kept bodies' from before; the rest (imported bodies, tendons, whose ids shift) as
        # the new compilation made them, which is what they were at load for the devices that stay.
        arrays = {name: getattr(model, name).copy() for name in self._initial_model_arrays}
        bo, bn = mapping.bodies
        keep = ~np.isin(bo, list(refit_bodies))  # a refitted Solid's mass properties are its new ones
        for name, values in self._initial_model_arrays.items():
            if name.startswith("body_"):
                arrays[name][bn[keep]] = values[bo[keep]]
        self._initial_model_arrays = arrays
        self._rebuild_runtime(mapping, scripts)
        self.forget_removed_nodes([node for node in before if node not in present])
        if self.recorder is not None:
            self.recorder.rebind(self)
        for warning in compiled.warnings:  # those of the imported nodes (the others were printed at load)
            if warning.location is not None and warning.location.file == IMPORTED_NODE_FILE:
                self.messages.warning(f"{warning.node_path}: {warning.message}" if warning.node_path
                                      else warning.message)

    def forget_removed_nodes(self, nodes: Iterable[WbNode]) -> None:
        """Let go of ``nodes``, removed from the scene at run time (with their descendants): field values
        supervisors wrote move into the nodes themselves (their ``Field`` objects keep their last values),
        their ids and the supervisors' cached ``Node`` objects go, and those a controller still holds answer
        as Webots' for an invalid node (:attr:`removed_nodes` holds them weakly). So a reinforcement-learning
        loop that removes and imports a robot every episode keeps nothing of the removed ones."""
        gone = set(nodes)
        if not gone:
            return
        supervision = self.supervision
        for key in [key for key in supervision.overrides if key[0] in gone]:
            node, name = key
            value = supervision.overrides.pop(key)
            in_proto = node.proto_name is not None and name in node.proto_fields
            (node.proto_fields if in_proto else node.fields)[name] = value
        self.removed_nodes.update(gone)
        ids = [supervision.node_ids.pop(node) for node in gone if node in supervision.node_ids]
        if not ids:
            return
        for runtime in self.robots:
            for api in list(runtime.api_robots):
                cache = getattr(api, "_nodes", None)
                if cache is not None:
                    for node_id in ids:
                        cache.pop(node_id, None)

    def _check_robot_changes(self, compiled: CompiledWorld, present: set[WbNode]) -> dict[WbNode, Path]:
        """Check the Robots that a recompilation adds or removes (nothing changed yet); the controller files of
        the added ones (those that have one).

        Raises:
            SimulationError: the calling controller's own robot is removed.
            ControllerError: an added Robot's controller file is missing (``missing_controller="error"``).
        """
        old = {r.node: r for r in self.robots}
        for robot in self.robots:
            if robot.node not in present and robot.controller is not None and robot.controller.in_own_greenlet():
                raise SimulationError(f'the robot "{robot.name}" cannot remove itself at run time.')
        scripts: dict[WbNode, Path] = {}
        for binding in compiled.bindings.robots:
            if binding.node in old:
                continue
            if not self.options.start_controllers:
                continue
            probe = RobotRuntime(self, binding, [])
            script, problem = find_controller(self.world.project_dir, probe.name, probe.controller_name)
            if problem is not None:
                if self.options.missing_controller == "error":
                    raise ControllerError(problem)
                self.messages.warning(problem + " The robot runs without controller.")
            if script is not None:
                scripts[binding.node] = script
        return scripts

    def _reset_world(self, restart_controllers: bool) -> None:
        self.world_resets += 1
        if self.plugin is not None:
            self.plugin.before_reset()
        if not restart_controllers:  # what Webots reads from joint feedback, which survives its reset
            for bank in self._sampling:
                bank.before_world_reset(self.data)
        mujoco.mj_copyData(self.data, self.model, self._initial_data)
        masses_changed = self.supervision.masses_changed
        self._diverged_dof = None
        for name, values in self._initial_model_arrays.items():
            getattr(self.model, name)[...] = values
        if masses_changed:  # a supervisor wrote a mass: MuJoCo's derived constants follow the restored masses
            self._recompute_mass_constants()
        self.step_count = 0
        self._sample_wake = 0  # the sleeping banks' steps were counted from before the reset
        self.ended = False
        self.exit_status = 0
        self._reseed()
        for bank in self.banks.values():
            if restart_controllers:
                bank.reset()
            else:
                bank.restart()  # controllers keep running with their sensors enabled
        self.supervision.reset()
        if self.batteries is not None:
            self.batteries.reset(keep_sensors=not restart_controllers)
        self.plugin_mailbox.clear()
        for robot in self.robots:
            robot.custom_data = str(robot.node["customData"])
        if self.plugin is not None:
            self.plugin.after_reset(self._reseed)
        # Whatever the plugin drew in the reset's collision pass and init, the run goes on from the
        # generator's state after load: bit-identical to the first run.
        self._rng.bit_generator.state = self._rng_after_load
        if restart_controllers:
            self._start_controllers()
            return
        # Webots resets inside the step that requested it (``WbSimulationWorld::step``: the physics of the step,
        # the reset with the clock at 0, then ``increaseTime``), so that step ends at time = one basic step with
        # the initial state. Pending controller requests restart at time 0 (``WbController::resetRequestTime``),
        # so a controller's ``step(basicTimeStep)`` returns at the end of the reset step. Sensors, whose last
        # update the reset cleared, refresh in that step's answer from the initial state.
        self.step_count = 1
        for robot in self.robots:
            robot.wake_step = robot.last_duration_steps
        for bank in self._sampling:
            bank.sample(self.data, 1)

    # -- lookup -------------------------------------------------------------------------------------------
    def node(self, def_path: str) -> WbNode | None:
        """The node with DEF name or dotted DEF path ``def_path`` (Webots' plugin lookup rules)."""
        return self.world.find_def(def_path)

    def robot(self, name: str) -> Robot:
        """The Webots API ``Robot`` (or ``Supervisor``) object of the robot called ``name``.

        Use it to drive a robot from a script: ``robot.step(ms)`` advances this simulation.

        Raises:
            SimulationError: no robot has that name (the message lists the robot names).
        """
        from wbsim.api.robot import make_robot

        for runtime in self.robots:
            if runtime.name == name:
                return make_robot(runtime)
        names = ", ".join(repr(r.name) for r in self.robots) or "none"
        raise SimulationError(f"No robot named {name!r}; robots in this world: {names}.")

    def robot_runtime(self, name: str) -> RobotRuntime:
        """The core runtime of the robot called ``name`` (see :meth:`robot`)."""
        for runtime in self.robots:
            if runtime.name == name:
                return runtime
        raise SimulationError(f"No robot named {name!r}.")

    def iter_robots(self) -> Iterator[RobotRuntime]:
        """The robots in scene order."""
        return iter(self.robots)


def load_world(
    path: str | os.PathLike[str],
    *,
    seed: int | None = None,
    missing_controller: Literal["error", "warn"] = "error",
    max_physics_step_ms: float = 4.0,
    start_controllers: bool = True,
    webots_home: str | os.PathLike[str] | None = None,
    offline: bool | None = None,
    bounce_threshold: bool = True,
    mujoco_timers: bool = False,
) -> Simulation:
    """Load, check and compile a ``.wbt`` world and return a ready-to-run simulation.

    Args:
        path: the world file; controllers are looked up in ``controllers/`` next to its ``worlds/`` folder.
        seed: override ``WorldInfo.randomSeed`` (-1 for a time-based seed).
        missing_controller: ``"error"`` (default) or ``"warn"`` when a controller file is missing.
        max_physics_step_ms: largest MuJoCo step; basicTimeStep is split into equal physics steps.
        start_controllers: False to run no controller files (drive every robot with :meth:`Simulation.robot`).
        webots_home: a Webots installation or checkout for ``webots://`` assets (default: ``WEBOTS_HOME``).
        offline: True never downloads Webots' assets (default: ``WBSIM_OFFLINE``).
        bounce_threshold: False turns off the emulation of ODE's bounce threshold
            (:class:`~wbsim.compile.builder.CompileOptions`): faster, but resting contacts on bouncy surfaces
            keep their bouncy spring.
        mujoco_timers: True keeps MuJoCo's stage timers (``sim.data.timer``, its profiling) running during the
            physics steps (:attr:`SimulationOptions.mujoco_timers`; paused by default, the physics is the same).

    Raises:
        WorldLoadError: the world has errors (every one is listed, with file, line, column and node path).
        ControllerError: a controller file is missing (with ``missing_controller="error"``).
    """
    options = CompileOptions(max_physics_step_ms=max_physics_step_ms, bounce_threshold=bounce_threshold)
    with paused_collection():  # see wbsim.collector: large loads were superlinear in the collector's passes
        model = load_world_model(path, webots_home=webots_home, offline=offline)
        compiled = compile_world(model, options)
        for warning in (*model.warnings, *compiled.warnings):
            _emit_warning(warning)
        return Simulation(compiled, SimulationOptions(seed=seed, missing_controller=missing_controller,
                                                      start_controllers=start_controllers,
                                                      compile=options, mujoco_timers=mujoco_timers))


def _emit_warning(warning: WorldWarning) -> None:
    warnings.warn(WbsimWarning(str(warning), warning), stacklevel=3)
