"""What a device kind is: one registered unit spanning the compile stage, the runtime and the Webots API.

A kind (motor, position sensor, touch sensor, ...) provides, in its own package under
:mod:`wbsim.devices`:

- **node schemas** for its Webots node types (data, checked by the world stage);
- a **compiler** (:class:`DeviceCompiler`), one instance per compilation: it claims device nodes while
  the builder walks the scene tree, adds the MuJoCo elements they need (sites, sensors, tendons,
  actuators), and after ``MjSpec.compile`` returns one immutable binding per device (MuJoCo ids);
- a **bank** (:class:`DeviceBank`): the vectorised runtime state of every device of the kind in the
  world, with its work in the named phases (actuate before physics, sample after it) and its reset
  rules; a bank row is one device;
- a **core device** (:class:`CoreDevice`): the snake_case per-device facade over one bank row;
- its **Webots API** classes (camelCase) and the factory that wraps a core device for a controller.

The builder, the simulation loop, the robot runtime, ``Robot.getDevice`` and the ``controller``
module only iterate over the registry (:mod:`wbsim.devices.registry`); a kind that needs nothing beyond
the hooks below (body plans, substep watching, field writes) touches its own package and one line of
the registry. See ``docs/architecture.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

import importlib

import numpy as np

from wbsim.bound import BoundToSimulation

if TYPE_CHECKING:
    import mujoco

    from wbsim.compile.context import CompileContext
    from wbsim.compile.slots import BodyRequest, DeviceSlot
    from wbsim.world.model import WbNode
    from wbsim.world.schema import NodeSchema

__all__ = [
    "upper_solid",
    "DeviceKind",
    "DeviceCompiler",
    "DeviceBank",
    "BankContext",
    "CoreDevice",
    "BankDevice",
    "BodyPlan",
    "Placement",
    "lazy",
]

Placement = Literal["joint", "solid", "child"]
"""Where a kind's nodes sit: in a joint's ``device`` field, as Solid-derived nodes in the tree, or as
non-Solid nodes in a ``children`` field (``"child"``: a Propeller; handed over with a ``ChildSlot``)."""


@dataclass(frozen=True)
class BodyPlan:
    """How the builder must shape the MuJoCo body of a Solid-derived device.

    Attributes:
        mocap: make the (static) body a MuJoCo mocap body hung from the world at its world pose: it then
            keeps every tree touching it awake (MuJoCo drops the contacts of sleeping trees with static
            bodies) and reads the full support force.
        allow_no_physics_in_dynamic_parent: do not warn about a boundingObject without Physics under a
            dynamic parent (normal for bumpers).
        frame_only: the device needs no MuJoCo body of its own, only its frame: if the node has no
            Physics, is not a joint's endPoint and holds no Solid, the builder makes it a site on the
            enclosing body (its boundingObject geoms go to that body, as Webots merges such a Solid
            into its parent's body), which spares MuJoCo one body per device in every physics step.
            The slot then has ``site_name``; the Solid binding has ``site_id``.
    """

    mocap: bool = False
    allow_no_physics_in_dynamic_parent: bool = False
    frame_only: bool = False


class DeviceCompiler:
    """The compile contribution of one device kind, for one compilation.

    The builder calls, in this order: :meth:`plan_body` (Solid devices, before their body is made),
    :meth:`add` for each device node met in scene order, :meth:`contribute` once after the tree walk
    (add MuJoCo elements), :meth:`finish_spec` once the spec is complete, :meth:`bindings` once after
    ``MjSpec.compile``, then :meth:`tune`.
    """

    def plan_body(self, node: WbNode, request: BodyRequest) -> BodyPlan:
        """How to build the body of a Solid-derived device ``node`` (default: like any Solid)."""
        return BodyPlan()

    def add(self, ctx: CompileContext, node: WbNode, slot: DeviceSlot) -> bool:
        """Claim the device ``node`` placed at ``slot``; False (after ``ctx.error``) to reject it."""
        raise NotImplementedError

    def listed_devices(self, node: WbNode) -> tuple[WbNode, ...]:
        """The nodes a claimed ``node`` adds to its robot's devices, in Webots' order (default: itself).

        A node that is not itself a controller device but holds some (a Track and its ``device`` field)
        lists those instead; each listed node must be the ``node`` of one of :meth:`bindings`.
        """
        return (node,)

    def contribute(self, ctx: CompileContext) -> None:
        """Add the MuJoCo elements of every claimed device to ``ctx.spec``."""

    def finish_spec(self, ctx: CompileContext) -> None:
        """Last edits of the complete spec before it is compiled (every kind has contributed): values that
        depend on the whole tree, set here rather than in :meth:`tune`, where changing a value MuJoCo
        derives constants from costs a whole-model ``mj_setConst``."""

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[Any, ...]:
        """One binding per claimed device, in the order of :meth:`add` (MuJoCo ids resolved)."""
        raise NotImplementedError

    def tune(self, ctx: CompileContext, model: mujoco.MjModel) -> bool:
        """Edit the compiled model (e.g. armatures known only after compilation).

        Returns:
            True if MuJoCo's derived constants must be recomputed (``mj_setConst``).
        """
        return False


@dataclass(frozen=True)
class BankContext:
    """What a bank may use from its simulation (never the simulation itself, which it must not keep alive).

    Attributes:
        model: the compiled MuJoCo model.
        basic_time_step_ms: WorldInfo.basicTimeStep in ms.
        substeps: MuJoCo steps per basic time step.
        rng: returns the simulation's current seeded generator (replaced on reset).
        warn: prints a Webots-style warning line and records it.
        now_step: returns the number of basic steps done (the current simulated time in steps).
        refresh_kinematics: makes the poses in ``mjData`` (``xpos``, ``site_xpos``, ...) those of the
            current state; after ``mj_step`` they describe the state before the last integration. Cached:
            the first call after a step pays, the others are free.
        data: the simulation's MuJoCo data (the same object for the whole run; resets copy into it), for
            banks that act between steps (e.g. a connector locking when its controller asks).
        plugin_post: hands a packet to the physics plugin's receiver (``dWebotsReceive``): what an
            emitter on channel 0 sends goes there too, as in Webots.
        shared: objects the banks of one simulation share, by name (e.g. the motion kinds' compiled
            sampling batch, :mod:`wbsim.devices.motion_batch`); one dict per set of banks.
        sampling_changed: a bank calls it when its :meth:`DeviceBank.next_sample_step` may have come sooner
            (a device enabled, a value kept for the next sample): the simulation then asks the banks again.
    """

    model: mujoco.MjModel
    basic_time_step_ms: float
    substeps: int
    rng: Callable[[], np.random.Generator]
    warn: Callable[[str], None]
    now_step: Callable[[], int]
    refresh_kinematics: Callable[[], None] = lambda: None
    data: mujoco.MjData | None = None
    plugin_post: Callable[[bytes], None] = lambda data: None
    shared: dict[str, Any] = field(default_factory=dict)
    sampling_changed: Callable[[], None] = lambda: None


class DeviceBank(BoundToSimulation):
    """Vectorised runtime state of every device of one kind in a simulation (row ``i`` = ``bindings[i]``).

    Subclasses set :attr:`actuates` / :attr:`samples` to take part in the ``DEVICES_ACTUATE`` /
    ``DEVICES_SAMPLE`` phases; the loop calls only banks that have devices and work in a phase. A bank
    that must see every MuJoCo step of a basic step (e.g. bumpers: a contact may come and go between two
    basic steps) sets :attr:`watches_substeps`; the ``PHYSICS`` phase then steps MuJoCo one physics step
    at a time and calls :meth:`substep` after each (otherwise it runs all of them in one C call). The
    flag is read every step, so a bank may raise it only while it needs it (e.g. a connector's snap).
    A bank that must change MuJoCo's contacts inside every physics step (after collision detection, before
    the constraint solver; e.g. a track's belt velocity) sets :attr:`edits_contacts` (read every step too)
    and implements :meth:`edit_contacts`. A bank belongs to its simulation: copies and pickles raise
    :class:`~wbsim.errors.NotCopyableError` (:mod:`wbsim.bound`).

    Args:
        bindings: the compiled bindings of the devices, in scene order.
        context: what the bank may use from the simulation.
    """

    actuates = False
    samples = False
    watches_substeps = False
    edits_contacts = False
    carried: tuple[str, ...] = ()
    """Attributes holding run-time state with one entry per row (numpy arrays indexed by row on their first
    axis, or lists), which :meth:`transfer_from` carries over a recompilation; fields a supervisor wrote are
    applied again through :meth:`field_changed` by the simulation, and MuJoCo ids are never carried."""

    def __init__(self, bindings: tuple[Any, ...], context: BankContext) -> None:
        self.bindings = bindings
        self.context = context
        self.n = len(bindings)

    def transfer_from(self, old: DeviceBank, rows: tuple[np.ndarray, np.ndarray], state: Any) -> None:
        """Take over the run-time state of the devices that stay when the world is recompiled (Solids imported
        or removed at run time, :mod:`wbsim.sim.rebuild`); the other rows keep their state after loading.

        The default copies the :attr:`carried` attributes row by row (list entries are moved, not copied, so
        objects that API objects hold, such as a receiver's queue, stay the same). A bank with state of another
        shape (per-step caches, rows of other devices, MuJoCo ids) extends it.

        Args:
            old: the bank of the same kind in the model before the recompilation.
            rows: (old rows, new rows) of the devices in both models, int64 (k,) each, same order.
            state: the :class:`wbsim.sim.rebuild.StateMap` of the recompilation (old to new MuJoCo ids).
        """
        old_rows, new_rows = rows
        for name in self.carried:
            source, target = getattr(old, name), getattr(self, name)
            if isinstance(target, np.ndarray):
                target[new_rows] = source[old_rows]
            else:
                for o, n in zip(old_rows.tolist(), new_rows.tolist()):
                    target[n] = source[o]

    def transfer_refusal(self) -> str | None:
        """Why the current state cannot be carried over a recompilation (e.g. a locked connector), or None."""
        return None

    def core(self, row: int) -> CoreDevice:
        """The snake_case core device of row ``row``."""
        raise NotImplementedError

    def actuate(self, data: mujoco.MjData) -> None:
        """Write this step's commands into MuJoCo before the physics step."""

    def substep(self, data: mujoco.MjData) -> None:
        """After each MuJoCo step within the ``PHYSICS`` phase (only if :attr:`watches_substeps`)."""

    def edit_contacts(self, model: mujoco.MjModel, data: mujoco.MjData) -> bool:
        """Inside each physics step (only if :attr:`edits_contacts`): edit ``data.contact`` after MuJoCo's
        collision detection and constraint set-up, before the solver.

        Only fields read by the velocity stage may change (e.g. ``surfacevel``); the loop then recomputes
        the constraint references (``mj_referenceConstraint``).

        Returns:
            True if a contact was changed.
        """
        return False

    def sample(self, data: mujoco.MjData, step: int) -> None:
        """After the physics of basic step ``step``: refresh what is due (sensors, feedback)."""

    def next_sample_step(self) -> int:
        """The first basic step after which :meth:`sample` may have work, as far as the bank knows now; 0 (the
        default): every step. Until that step the simulation need not call :meth:`sample`, so a bank that says
        more than 0 must call ``context.sampling_changed()`` whenever the answer may have come sooner."""
        return 0

    def reset(self) -> None:
        """``Simulation.reset()``: the state right after loading (everything disabled, values NaN)."""

    def restart(self) -> None:
        """Webots' world reset with controllers running (``simulationReset``): devices go back to their
        initial state, but enabled sensors stay enabled; the simulation then samples every bank for the
        reset step (Webots ends that step at one basic step with the initial state), so schedules restarted
        at step 1 (``SampleSchedule.restart``) refresh from the initial state."""
        self.reset()

    def before_world_reset(self, data: mujoco.MjData) -> None:
        """Webots' world reset (``simulationReset``) is about to restore the initial state; ``data`` still
        holds the last physics step. Webots keeps its ODE joints through the reset, so a value it reads from
        joint feedback in the reset step is that step's: a bank sampling such a value keeps it here for its
        sample of the reset step (nothing by default)."""

    def reset_physics(self, dofs: np.ndarray | None) -> None:
        """A supervisor zeroed the velocities of ``dofs`` (all of them if None)."""

    def field_changed(self, row: int, name: str, value: object) -> object | None:
        """A supervisor wrote field ``name`` of device ``row``.

        Returns:
            The value the field now holds if the bank applied it (possibly repaired, as Webots writes a
            repaired value back into the field), or None if the bank ignores this field (the value is
            then only stored and read back by supervisors).
        """
        return None

    def field_value(self, row: int, name: str) -> object | None:
        """The live value of field ``name`` of device ``row`` when the device itself changes it at run time
        (e.g. a connector's ``isLocked`` after ``lock()``), or None to read the stored value."""
        return None

    def recorded_nodes(self) -> tuple[WbNode, ...]:
        """The device nodes whose visual state a recording keeps (:mod:`wbsim.recording`), in the order of
        the rows of :meth:`recorded_state`; empty (the default) for kinds that show nothing."""
        return ()

    def recorded_state(self) -> dict[str, np.ndarray]:
        """What the :meth:`recorded_nodes` show now, one array per quantity with one row per node (e.g. an
        LED's colour, (k, 3)); the recorder copies them. Called only while recording, once per frame."""
        return {}


class CoreDevice(Protocol):
    """The snake_case core object of one device (what the Webots API class wraps)."""

    name: str
    node: WbNode
    kind: str


@dataclass
class BankDevice:
    """Base of core devices: one row of a bank.

    Attributes:
        bank: the bank holding the device's state (it has ``bindings``).
        index: the device's row in the bank.
        name: the device name.
        now_step: returns the current basic step.
    """

    bank: Any
    index: int
    name: str
    now_step: Callable[[], int]

    @property
    def binding(self) -> Any:
        """The compiled binding of the device."""
        return self.bank.bindings[self.index]

    @property
    def node(self) -> WbNode:
        """The device node."""
        return self.bank.bindings[self.index].node


@dataclass(frozen=True)
class DeviceKind:
    """One kind of Webots device, registered once in :mod:`wbsim.devices.registry`.

    Attributes:
        name: the snake_case key, e.g. ``"touch_sensor"`` (``Bindings.devices[name]``,
            ``Simulation.banks[name]``).
        node_types: the Webots node types this kind simulates.
        placement: ``"joint"`` (in a joint's ``device`` field), ``"solid"`` (Solid-derived nodes) or
            ``"child"`` (non-Solid nodes in a ``children`` field, e.g. Propeller).
        schemas: returns the node schemas of ``node_types``.
        compiler: makes the per-compilation :class:`DeviceCompiler`.
        bank: makes the runtime bank: ``bank(bindings, context)``.
        api: wraps a core device for a controller: ``api(core, robot)`` returns the Webots API object.
        api_classes: the Webots API classes the ``controller`` module exports for this kind, by name.
        deprecated_getters: Webots' deprecated ``Robot.getX(name)`` aliases of ``getDevice`` for this kind,
            as (method name, name printed in the DEPRECATION line).
        outside_robot: True if a device of this kind is useful outside any Robot (no warning then).
    """

    name: str
    node_types: tuple[str, ...]
    placement: Placement
    schemas: Callable[[], Sequence[NodeSchema]]
    compiler: Callable[[], DeviceCompiler]
    bank: Callable[[tuple[Any, ...], BankContext], DeviceBank]
    api: Callable[[Any, Any], Any]
    api_classes: Callable[[], Mapping[str, type]]
    deprecated_getters: tuple[tuple[str, str], ...] = field(default=())
    outside_robot: bool = False


def lazy(target: str) -> Callable[..., Any]:
    """A callable standing for ``"package.module:attribute"``, imported on its first call.

    Kinds name their schema, compiler, bank and API factories this way, so registering a kind imports
    nothing heavy and the world stage can read schemas without import cycles.
    """
    module_name, _, attribute = target.partition(":")
    resolved: list[Callable[..., Any]] = []

    def call(*args: Any, **kwargs: Any) -> Any:
        if not resolved:
            resolved.append(getattr(importlib.import_module(module_name), attribute))
        return resolved[0](*args, **kwargs)

    call.__qualname__ = call.__name__ = f"lazy({target})"
    return call


def upper_solid(node: WbNode) -> WbNode | None:
    """The nearest Solid-derived node above ``node`` (Webots' ``upperSolid()``), or None at the top level."""
    parent = node.parent
    while parent is not None and not parent.is_a("solid"):
        parent = parent.parent
    return parent
