"""Compile Connector nodes: their frames, the bodies a link joins, and the world's pool of links.

- **Frame.** A connector is only a frame (plus its boundingObject, if any): without Physics and
  without Solids below it, it is compiled as a site on the enclosing body (``BodyPlan.frame_only``),
  which is what Webots does in effect (its ODE geoms join the parent's body). Otherwise it keeps its
  own body and gets a site at its origin. The bank reads every connector's pose from ``site_xpos`` /
  ``site_xmat``.
- **Linked bodies.** Webots links the bodies of the connectors' *upper Solids*
  (``upperSolid()->bodyMerger()``: the nearest Solid above the connector, excluding the connector), so
  a Physics node in the connector itself gives it no separately linked body. The MuJoCo body of that
  Solid is recorded; it is *static* when it does not move (``body_weldid == 0``), which Webots calls a
  NULL body. A top-level connector has no upper Solid: it is static, or its own body if it has Physics
  (Webots would treat that one as static too; see ``docs/connector.md``).
- **Pool of links.** Links are made at run time between any two connectors, so no constraint is
  declared per pair: the compiler declares ``n // 2`` inactive MuJoCo welds for ``n`` connectors (each
  link holds two; inactive welds cost nothing per step), and the bank rewires one
  (``eq_obj1id``/``eq_obj2id``/``eq_data``) for each link made. Webots ignores contacts between bodies
  joined by a joint, so the compiler also declares a pool of body-pair exclusions, rewired with the
  welds (see :mod:`.links`).
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from wbsim.compile.context import CompileContext
from wbsim.compile.slots import BodyRequest, DeviceSlot, SolidSlot
from wbsim.devices.connector.schema import PASSIVE, UNKNOWN, type_code
from wbsim.devices.kind import BodyPlan, DeviceCompiler
from wbsim.world.model import WbNode

__all__ = ["ConnectorBinding", "LinkPool", "ConnectorCompiler", "WELD_SOLIMP"]

WELD_SOLIMP = (0.9999, 0.9999, 0.001, 0.5, 2.0)
"""Impedance of link welds: stiff (mujoco-notes §1.2: sub-millimetre sag of a cantilevered module)."""


@dataclass(frozen=True)
class LinkPool:
    """The MuJoCo elements reserved for connector links, shared by every connector of a world.

    Attributes:
        weld_ids: the MuJoCo equality ids of the pooled welds (inactive at load).
        exclude_count: the number of pooled body-pair exclusions.
        exclude_dummy: the signature the pooled exclusions were declared with (replaced at run time).
        weld_solref: the solver reference of a held link: (2 physics steps, critical damping).
    """

    weld_ids: tuple[int, ...]
    exclude_count: int
    exclude_dummy: int
    weld_solref: tuple[float, float]


@dataclass(frozen=True, slots=True)
class ConnectorBinding:
    """A Connector and the MuJoCo elements it uses.

    Attributes:
        node: the Connector node.
        site_id: the site at the connector's origin (its frame: x = docking normal, z = rotation reference).
        body_id: the MuJoCo body of the connector's upper Solid (what a link holds).
        dynamic: True if that body moves (False: Webots' NULL body, the static environment).
        contact_bodies: the bodies whose contacts with the peer's are ignored while linked: the bodies with
            geoms moving rigidly with ``body_id`` (or, when static, those of the upper Solid's static subtree).
        type: the face type code (``SYMMETRIC``, ``ACTIVE``, ``PASSIVE``, ``UNKNOWN``).
        initially_locked: ``isLocked`` from the file (False for a passive connector, as Webots repairs it).
        pool: the world's pool of link elements (the same object for every connector).
    """

    node: WbNode
    site_id: int
    body_id: int
    dynamic: bool
    contact_bodies: tuple[int, ...]
    type: int
    initially_locked: bool
    pool: LinkPool


@dataclass(eq=False)
class _Connector:
    node: WbNode
    slot: SolidSlot
    type: int
    site: str


class ConnectorCompiler(DeviceCompiler):
    """Claims Connector nodes (inside or outside Robots) and reserves the pool of links."""

    def __init__(self) -> None:
        self._connectors: list[_Connector] = []
        self._weld_names: list[str] = []
        self._exclude_count = 0
        self._dummy: tuple[str, str] = ("", "")

    def plan_body(self, node: WbNode, request: BodyRequest) -> BodyPlan:
        """A connector needs only its frame (a site) unless it has Physics or Solids below it."""
        return BodyPlan(frame_only=True)

    def add(self, ctx: CompileContext, node: WbNode, slot: DeviceSlot) -> bool:
        """Claim a Connector, with Webots' load-time warnings (``updateType``, ``updateIsLocked``)."""
        assert isinstance(slot, SolidSlot)
        value = str(node["type"])
        code = type_code(value)
        if code == UNKNOWN:
            ctx.warn(f"Unknown 'type' \"{value}\": locking disabled.", node, "type")
        if code == PASSIVE and bool(node["isLocked"]):
            ctx.warn("Passive connectors cannot be locked.", node, "isLocked")
        site = slot.site_name
        if not site:  # the connector kept a body of its own: mark its origin
            site = ctx.fresh_name("cs")
            slot.body_spec.add_site(name=site)
        self._connectors.append(_Connector(node, slot, code, site))
        return True

    def contribute(self, ctx: CompileContext) -> None:
        """Declare the pool: inactive welds and placeholder exclusions, rewired by the bank at run time.

        Each link holds two connectors and at least one moving side, so ``n // 2`` welds always suffice,
        even after supervisors change types or models; inactive welds cost MuJoCo nothing per step.
        """
        links = len(self._connectors) // 2
        moving = next((c for c in self._connectors if c.slot.dynamic), None)
        if not links or moving is None:  # a link needs a moving side
            return
        # Placeholders need two real bodies: the world and a moving body. The bank replaces them by the
        # never-tested signature 0 before the first step.
        anchor = moving.slot.body_name
        dt = ctx.dt_s
        for _ in range(links):
            name = ctx.fresh_name("cw")
            ctx.spec.add_equality(name=name, type=mujoco.mjtEq.mjEQ_WELD, objtype=mujoco.mjtObj.mjOBJ_BODY,
                                  name1="world", name2=anchor, active=False,
                                  data=[0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0],  # always pass data (mujoco-notes §1.5)
                                  solref=[2.0 * dt, 1.0], solimp=list(WELD_SOLIMP))
            self._weld_names.append(name)
        # Contacts ignored while linked: one exclusion per pair of bodies with geoms of the two sides, one of
        # which moves.
        widest_moving, widest = _widest_link_sides(ctx.solids, [c.slot for c in self._connectors])
        self._exclude_count = links * widest_moving * widest
        self._dummy = ("world", anchor)
        for _ in range(self._exclude_count):
            ctx.spec.add_exclude(bodyname1="world", bodyname2=anchor)

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[ConnectorBinding, ...]:
        """One :class:`ConnectorBinding` per Connector, in scene order."""
        weld_ids = tuple(ctx.element_id(model, mujoco.mjtObj.mjOBJ_EQUALITY, n) for n in self._weld_names)
        dummy = 0
        if self._exclude_count:
            a, b = (mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, n) for n in self._dummy)
            dummy = (min(a, b) << 16) + max(a, b)
        pool = LinkPool(weld_ids, self._exclude_count, dummy, (2.0 * float(model.opt.timestep), 1.0))
        geom_bodies = np.zeros(model.nbody, dtype=bool)
        geom_bodies[model.geom_bodyid[model.geom_contype | model.geom_conaffinity != 0]] = True
        result = []
        static_groups: dict[int, tuple[int, ...]] = {}
        for c in self._connectors:
            site_id = ctx.element_id(model, mujoco.mjtObj.mjOBJ_SITE, c.site)
            body = int(model.site_bodyid[site_id])
            if not c.slot.site_name and not c.slot.free_joint:
                # The connector's own body hangs from its upper Solid's (through a joint for an endPoint).
                body = int(model.body_parentid[body])
            dynamic = int(model.body_weldid[body]) != 0
            result.append(ConnectorBinding(
                node=c.node, site_id=site_id, body_id=body, dynamic=dynamic,
                contact_bodies=(_contact_bodies(model, body, True, geom_bodies) if dynamic else
                                static_groups.setdefault(body, _contact_bodies(model, body, False, geom_bodies))),
                type=c.type, initially_locked=bool(c.node["isLocked"]) and c.type != PASSIVE, pool=pool,
            ))
        return tuple(result)


def _contact_bodies(model: mujoco.MjModel, body: int, dynamic: bool, geom_bodies: np.ndarray) -> tuple[int, ...]:
    """Bodies with collision geoms that move rigidly with ``body`` (its weld group), or for a static body the
    static bodies of its subtree."""
    if dynamic:
        group = np.flatnonzero((model.body_weldid == model.body_weldid[body]) & geom_bodies)
        return tuple(int(b) for b in group)
    inside = np.zeros(model.nbody, dtype=bool)
    inside[body] = True
    for child in range(body + 1, model.nbody):  # MuJoCo numbers children after their parents
        parent = int(model.body_parentid[child])
        inside[child] = inside[parent] and parent != child and int(model.body_weldid[child]) == 0
    if body == 0:  # the world: only its own geoms, not every static body of the world
        inside[1:] = False
    return tuple(int(b) for b in np.flatnonzero(inside & geom_bodies))


def _widest_link_sides(solids: list[SolidSlot], slots: list[SolidSlot]) -> tuple[int, int]:
    """The most bodies with geoms one side of a link may hold, for a moving side and for any side (for
    sizing the pool): per connector, the bodies moving with its upper Solid, or for a static upper Solid
    the static bodies below it."""
    by_node = {s.node: s for s in solids}
    moving: dict[str, set[str]] = {}
    for s in solids:
        if s.geoms and s.dynamic:
            moving.setdefault(s.owner, set()).add(s.body_name)
    static_below: dict[int, int] = {}
    widest_moving = widest = 0
    for slot in slots:
        node = slot.node.parent
        while node is not None and node not in by_node:
            node = node.parent
        upper = by_node.get(node) if node is not None else slot  # a top-level connector holds itself
        if upper.dynamic:
            count = len(moving.get(upper.owner, ()))
            widest_moving = max(widest_moving, count)
        elif id(upper) in static_below:
            count = static_below[id(upper)]
        else:
            count = static_below[id(upper)] = len({
                s.body_name for s in solids if s.geoms and not s.dynamic and _below(s.node, upper.node)})
        widest = max(widest, count)
    return widest_moving, widest


def _below(node: WbNode | None, ancestor: WbNode) -> bool:
    while node is not None:
        if node is ancestor:
            return True
        node = node.parent
    return False
