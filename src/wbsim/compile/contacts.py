"""Contact surface parameters: from Webots ContactProperties to MuJoCo friction, solref and solimp.

Mapping (documented in ``docs/differences.md``):

- ``coulombFriction[0]`` is the sliding friction; ``-1`` (infinite) becomes :data:`INFINITE_FRICTION`.
  Only the first value is used (anisotropic friction is not mapped).
- ``rollingFriction`` (rho, rho2, rhoN) enables MuJoCo's 6-dimensional contacts with rolling (rho, rho2)
  and torsional (rhoN) coefficients.
- ``softERP``/``softCFM`` set the contact time constant. ODE's equivalent contact stiffness is
  ``k = ERP / (CFM * dt)``; MuJoCo's stiffness scales as ``1 / timeconst**2``, so
  ``timeconst = 0.02 s * sqrt(k_default / k)`` where the Webots defaults (0.2, 0.001) give MuJoCo's own
  default 0.02 s.
- ``bounce`` (restitution e) sets the damping ratio of a linear spring-damper with that restitution:
  ``zeta = -ln(e) / sqrt(pi^2 + ln(e)^2)``, and 1 (critical damping, no bounce) for e = 0.
- ``bounceVelocity``: ODE bounces only when a contact approaches faster than it; slower contacts are its
  plain ERP/CFM spring-damper. Each bouncy surface therefore also has a resting ``solref``: critically
  damped, with the time constant of the same surface without bounce, but at most 1.3 times the bouncy
  ``timeconst * zeta`` (a stiffness at most 1.7 times lower; see :func:`contact_params`), which :mod:`wbsim.sim.bounce` gives, inside each physics step, to every contact whose normal
  velocity is at most ``bounceVelocity`` (:class:`BounceTable`). ``maxContactJoints`` is ignored.
- Stability: MuJoCo's contact stiffness is ``1 / (timeconst * zeta)**2`` (the damping ``2 / timeconst``
  does not depend on zeta), so a bouncy contact is much stiffer than a critically damped one with the
  same time constant. The time constant is kept at or above ``2 * dt / zeta`` so that the contact's
  natural period never drops below about 12 physics steps (MuJoCo's own two-step rule, which assumes
  zeta = 1). Without it, a bounce of 0.8 gains energy at every impact and objects fly off.
- Friction cone: elliptic (``CONE_IMPRATIO`` = 100), and ``condim`` 1 (no tangential force at all) for
  ``coulombFriction 0`` without rolling friction. MuJoCo's default pyramidal cone fails outside
  moderate coefficients: with mu 0 a resting box is thrown up, with mu 5 to 100 or -1 it sinks into or
  falls through the floor. MuJoCo's friction is a soft constraint, so a box held by friction creeps at a
  steady speed; ``impratio`` makes friction that much stiffer than the normal direction (creep / 100).
- Softness floor: ODE's contact is a spring ``ERP / (CFM dt)`` in parallel with a damper ``(1 - ERP) / CFM``;
  as ``softERP`` goes to 0 the spring vanishes but the damper stays, so bodies only creep into each other
  (about ``CFM m g`` m/s). The spring-only mapping above would let them sink through the floor instead, so
  the time constant is capped at :data:`MAX_TIMECONST` (1 s: a 1 kg box sinks 7 mm and rests, where ODE's
  creeps 2 cm in 2 s and keeps going), with a load warning (:func:`too_soft`); without bounce (damping ratio
  1, also a bouncy surface's resting contacts) at :data:`MAX_REST_TIMECONST`, the same stiffness floor.
- Impedance: ``solimp = (0.5, 0.95, 1 mm, 0.5, 2)``, a softer contact onset than MuJoCo's default
  (dmin 0.9). With zeta < 0.4 a box resting on its corners otherwise rocks in a limit cycle forever
  (Webots avoids it with ``bounceVelocity``, which MuJoCo lacks); impacts still bounce as mapped.
- Material pairs: per-geom parameters and MuJoCo priorities (:class:`MaterialPlan`), explicit pairs only
  for the material pairs that MuJoCo's mixing would get wrong (see ``docs/differences.md``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import mujoco
import numpy as np

from wbsim.world.model import WbNode

__all__ = ["BounceTable", "ContactParams", "MaterialPlan", "SurfaceTable", "contact_params", "find_pairs",
           "ode_surface_params", "too_soft",
           "INFINITE_FRICTION", "DEFAULT_WEBOTS_CONTACT", "CONE_IMPRATIO", "MAX_TIMECONST",
           "MAX_REST_TIMECONST", "BOUNCE_USERDATA_WORDS"]

BOUNCE_USERDATA_WORDS = 4
"""``nuserdata`` of a compiled model whose contacts may switch to their resting solref (a bounce table that
will be active): the bounce threshold's control callback finds its tables through these ``mjData.userdata``
words (:mod:`wbsim.sim.c_steps`); no physics reads them."""

INFINITE_FRICTION = 1.0e6
"""Friction coefficient standing for Webots' infinite friction (-1); stable in MuJoCo's solver."""

CONE_IMPRATIO = 100.0
"""MuJoCo's ``impratio`` with the elliptic cone: friction 100 times stiffer than the normal direction, so a
box held by friction on a 28 degree slope creeps at 5e-5 m/s instead of 5e-3 m/s (impratio 1); see
docs/differences.md."""

_DEFAULT_ERP = 0.2
_DEFAULT_CFM = 0.001
_DEFAULT_TIMECONST = 0.02
MAX_TIMECONST = 1.0
"""Softest contact time constant used (s): below ``softERP / softCFM = 0.08``, ODE's contact is mostly a damper."""
_REST_SOFTER = 1.3
"""A resting contact's time constant is at most this times the bouncy one's ``timeconst * zeta`` (see
contact_params)."""
_BOUNCE_0_5_ZETA = 0.2154  # the damping ratio of Webots' default bounce 0.5 (see _damping_ratio)
MAX_REST_TIMECONST = MAX_TIMECONST * _BOUNCE_0_5_ZETA
"""Softest time constant (s) of a contact without bounce (damping ratio 1): MuJoCo's stiffness is
``1 / (timeconst * zeta)^2``, so this keeps the stiffness floor of :data:`MAX_TIMECONST` with Webots' default
bounce (a 1 kg box on ``softERP 0`` rests 7 mm deep; with a 1 s time constant it sank 12 cm in 20 s)."""


@dataclass(frozen=True)
class ContactParams:
    """MuJoCo contact parameters for one material pair.

    Attributes:
        friction: (slide, slide, torsion, roll, roll) coefficients.
        condim: 1 (frictionless), 3 (sliding friction) or 6 (with rolling and torsional friction).
        solref: (timeconst s, damping ratio).
        solimp: MuJoCo's impedance parameters (dmin, dmax, width m, midpoint, power).
        rest_solref: the (timeconst s, damping ratio) of a contact slower than ``bounce_velocity``: the surface
            without bounce (ODE's spring-damper below its bounce threshold); None when it is ``solref``
            (no bounce).
        bounce_velocity: ODE's ``bounce_vel`` (m/s): contacts whose normal velocity is at most this get
            ``rest_solref``.
        soft_erp, soft_cfm: the surface's ODE ``softERP`` and ``softCFM`` themselves, for contacts of very light
            parts, which get ODE's spring-damper in force space (:class:`SurfaceTable`, ``wbsim.sim.light_rows``).
    """

    friction: tuple[float, float, float, float, float]
    condim: int
    solref: tuple[float, float]
    # dmin 0.5 instead of MuJoCo's 0.9: with bouncy contacts (damping ratio < 0.4, e.g. Webots' default
    # bounce 0.5) a box resting on its 4 corners otherwise rocks in a limit cycle at ~0.03 m/s forever
    # and reads 1.3 m*g; with a softer onset it settles to m*g exactly (measured, docs/differences.md).
    solimp: tuple[float, float, float, float, float] = (0.5, 0.95, 0.001, 0.5, 2.0)
    rest_solref: tuple[float, float] | None = None
    bounce_velocity: float = 0.0
    soft_erp: float = _DEFAULT_ERP
    soft_cfm: float = _DEFAULT_CFM

    @property
    def resting_solref(self) -> tuple[float, float]:
        """The solref of a contact slower than :attr:`bounce_velocity` (``solref`` without bounce)."""
        return self.solref if self.rest_solref is None else self.rest_solref


@dataclass(frozen=True)
class _Surface:
    coulomb: float
    rolling: tuple[float, float, float]
    bounce: float
    soft_erp: float
    soft_cfm: float
    bounce_velocity: float = 0.01


DEFAULT_WEBOTS_CONTACT = _Surface(1.0, (0.0, 0.0, 0.0), 0.5, _DEFAULT_ERP, _DEFAULT_CFM)
"""Webots' built-in surface when no ContactProperties matches: mu 1, bounce 0.5 above 0.01 m/s, softERP 0.2,
softCFM 0.001."""


def _damping_ratio(restitution: float) -> float:
    if restitution <= 0.0:
        return 1.0
    if restitution >= 1.0:
        return 0.01  # a lossless bounce would never settle; keep a trace of damping
    log_e = math.log(restitution)
    return max(0.01, -log_e / math.sqrt(math.pi**2 + log_e**2))


def _timeconst(soft: float, zeta: float, physics_dt_s: float) -> float:
    """The contact time constant for the ERP/CFM time constant ``soft`` and damping ratio ``zeta``: at most
    the softness cap (:data:`MAX_TIMECONST`, :data:`MAX_REST_TIMECONST` without bounce), at least
    ``2 dt / zeta`` (stability of bouncy contacts, module docstring)."""
    cap = MAX_REST_TIMECONST if zeta >= 1.0 else MAX_TIMECONST
    return max(min(soft, cap), 2.0 * physics_dt_s / min(zeta, 1.0))


def _condim(friction: tuple[float, ...]) -> int:
    """3, or 1 when both sliding coefficients are 0 (MuJoCo would still apply its minimum friction 1e-5)."""
    return 1 if friction[0] == 0.0 and friction[1] == 0.0 else 3


def _surface_of(node: WbNode | None) -> _Surface:
    if node is None:
        return DEFAULT_WEBOTS_CONTACT
    coulomb = tuple(node["coulombFriction"])  # type: ignore[arg-type]
    rolling = tuple(float(v) for v in node["rollingFriction"])  # type: ignore[union-attr]
    return _Surface(
        float(coulomb[0]) if coulomb else 1.0,
        (rolling[0], rolling[1], rolling[2]),
        float(node["bounce"]),  # type: ignore[arg-type]
        float(node["softERP"]),  # type: ignore[arg-type]
        float(node["softCFM"]),  # type: ignore[arg-type]
        float(node["bounceVelocity"]),  # type: ignore[arg-type]
    )


def ode_surface_params(mu: float, mu2: float, bounce: float, soft_erp: float, soft_cfm: float,
                       physics_dt_s: float) -> ContactParams:
    """The MuJoCo parameters of an ODE contact surface (a physics plugin's ``dContact.surface``).

    Args:
        mu, mu2: Coulomb friction in the first and second friction directions (``inf``: no slip; negative
            or NaN: 0, as ODE's contact joint clamps it; -1 means infinite only in ContactProperties).
        bounce: restitution (0: none).
        soft_erp, soft_cfm: the contact's ERP and CFM.
        physics_dt_s: the MuJoCo time step in seconds.
    """
    def clamp(value: float) -> float:
        if math.isinf(value) and value > 0:
            return INFINITE_FRICTION
        return value if value > 0 else 0.0  # negative and NaN: 0

    stiffness_ratio = (max(soft_erp, 1e-6) / max(soft_cfm, 1e-12)) / (_DEFAULT_ERP / _DEFAULT_CFM)
    zeta = _damping_ratio(bounce)
    timeconst = _timeconst(_DEFAULT_TIMECONST / math.sqrt(stiffness_ratio), zeta, physics_dt_s)
    friction = (clamp(mu), clamp(mu2), 0.0, 0.0, 0.0)
    return ContactParams(friction=friction, condim=_condim(friction), solref=(timeconst, zeta),
                         soft_erp=max(soft_erp, 0.0), soft_cfm=max(soft_cfm, 1e-12))


def contact_params(node: WbNode | None, physics_dt_s: float) -> ContactParams:
    """The MuJoCo parameters for a ContactProperties node (None: Webots' built-in defaults).

    Args:
        node: a checked ContactProperties node, or None.
        physics_dt_s: the MuJoCo time step in seconds (bounds the time constant from below).
    """
    surface = _surface_of(node)
    mu = INFINITE_FRICTION if surface.coulomb < 0 else max(surface.coulomb, 0.0)
    rolling = tuple(INFINITE_FRICTION if r < 0 else r for r in surface.rolling)
    condim = 6 if any(r > 0 for r in rolling) else _condim((mu, mu))
    erp = max(surface.soft_erp, 1e-6)
    stiffness_ratio = (erp / surface.soft_cfm) / (_DEFAULT_ERP / _DEFAULT_CFM)
    soft = _DEFAULT_TIMECONST / math.sqrt(stiffness_ratio)
    zeta = _damping_ratio(surface.bounce)
    timeconst = _timeconst(soft, zeta, physics_dt_s)
    # ODE bounces only above bounce_vel; below, its contact is the same spring without the bounce: the
    # resting solref is critically damped, with the bounce-0 surface's time constant but at most
    # _REST_SOFTER times the bouncy one's timeconst * zeta (MuJoCo's stiffness is 1 / (timeconst zeta)^2):
    # a contact switching between a stiff and a much softer spring pumps energy into a stack (the ten-log
    # pyramid fell within 0.5 s at 2 ms steps with the bounce-0 spring, 10 times softer), and one at the
    # bouncy stiffness sits on MuJoCo's two-step limit at 4 ms steps (it crept 26 mm in 60 s, fell at
    # 100 s); with 1.3 it stands at both (docs/differences.md).
    rest = None if surface.bounce <= 0.0 else (
        min(_timeconst(soft, 1.0, physics_dt_s), timeconst * zeta * _REST_SOFTER), 1.0)
    return ContactParams(
        friction=(mu, mu, rolling[2], rolling[0], rolling[1]),
        condim=condim,
        solref=(timeconst, zeta),
        rest_solref=rest,
        bounce_velocity=surface.bounce_velocity if rest is not None else 0.0,
        soft_erp=surface.soft_erp,
        soft_cfm=surface.soft_cfm,
    )


def too_soft(node: WbNode) -> bool:
    """True if a ContactProperties node is softer than wbsim's floor (:data:`MAX_TIMECONST`), e.g. ``softERP 0``."""
    surface = _surface_of(node)
    stiffness_ratio = (max(surface.soft_erp, 1e-6) / surface.soft_cfm) / (_DEFAULT_ERP / _DEFAULT_CFM)
    return _DEFAULT_TIMECONST / math.sqrt(stiffness_ratio) > MAX_TIMECONST


def _same(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return all(math.isclose(x, y, rel_tol=1e-12, abs_tol=0.0) for x, y in zip(a, b, strict=True))


class MaterialPlan:
    """Which contact parameters each material pair gets, and which pairs MuJoCo's per-geom rules get right.

    Webots looks the surface of a contact up per material pair: the first ContactProperties naming both
    materials (in either order), else its built-in surface. wbsim gives every geom per-geom parameters: a
    ``"default"`` geom the default/default surface (priority 0), a geom of material ``m`` the default/``m``
    surface (priority 1). MuJoCo then uses the higher-priority geom's parameters unmixed, so every contact
    with a ``"default"`` geom is exact; between two other materials it mixes them (same priority: largest
    friction and condim, mean solref and solimp). :meth:`needs_pairs` tells the material pairs where that mix
    differs from Webots' surface; only those get explicit MuJoCo pairs (chosen by the builder).

    Args:
        nodes: the world's ContactProperties nodes, in WorldInfo order.
        physics_dt_s: the MuJoCo time step in seconds.
    """

    def __init__(self, nodes: Iterable[WbNode], physics_dt_s: float) -> None:
        self._surfaces: dict[frozenset[str], ContactParams] = {}
        for node in nodes:
            key = frozenset((str(node["material1"]), str(node["material2"])))
            if key not in self._surfaces:  # Webots takes the first match
                self._surfaces[key] = contact_params(node, physics_dt_s)
        self._builtin = contact_params(None, physics_dt_s)

    def surface(self, material1: str, material2: str) -> ContactParams:
        """Webots' surface between two materials (first matching ContactProperties, else the built-in one)."""
        return self._surfaces.get(frozenset((material1, material2)), self._builtin)

    def geom_params(self, material: str) -> ContactParams:
        """The per-geom parameters of a geom of ``material``: its surface against ``"default"``."""
        return self.surface("default", material)

    @staticmethod
    def priority(material: str) -> int:
        """MuJoCo's geom priority for ``material``: 0 for ``"default"``, 1 for the others."""
        return 0 if material == "default" else 1

    def per_geom(self, material1: str, material2: str) -> ContactParams:
        """The parameters MuJoCo gives a contact between geoms of these materials from per-geom values alone
        (no explicit pair): the higher-priority geom's, else the mix (solmix 1 on both geoms)."""
        p1, p2 = self.priority(material1), self.priority(material2)
        a, b = self.geom_params(material1), self.geom_params(material2)
        if p1 != p2:
            return _as_geom(a if p1 > p2 else b)
        a, b = _as_geom(a), _as_geom(b)
        solref = _mix_solref(a.solref, b.solref)
        # The resting solref mixes the same way (wbsim.sim.bounce does it per contact at run time); the
        # threshold is the larger of the two (a side without bounce has 0).
        rest = (None if a.rest_solref is None and b.rest_solref is None
                else _mix_solref(a.resting_solref, b.resting_solref))
        return ContactParams(
            friction=tuple(map(max, a.friction, b.friction)),  # type: ignore[arg-type]
            condim=max(a.condim, b.condim),
            solref=solref,  # type: ignore[arg-type]
            solimp=tuple(0.5 * (x + y) for x, y in zip(a.solimp, b.solimp, strict=True)),  # type: ignore[arg-type]
            rest_solref=rest,  # type: ignore[arg-type]
            bounce_velocity=max(a.bounce_velocity, b.bounce_velocity),
            # wbsim's own mix (ODE has none: Webots takes the material pair's surface); only the contacts of
            # very light parts use it (SurfaceTable), so it does not make explicit pairs of its own.
            soft_erp=0.5 * (a.soft_erp + b.soft_erp),
            soft_cfm=0.5 * (a.soft_cfm + b.soft_cfm),
        )

    def needs_pairs(self, material1: str, material2: str) -> bool:
        """True if per-geom values give contacts between these materials other parameters than Webots'."""
        want, got = self.surface(material1, material2), self.per_geom(material1, material2)
        return not (want.condim == got.condim and _same(want.friction, got.friction)
                    and _same(want.solref, got.solref) and _same(want.solimp, got.solimp)
                    and _same(want.resting_solref, got.resting_solref)
                    and _same((want.bounce_velocity,), (got.bounce_velocity,)))


def _mix_solref(a: tuple[float, ...], b: tuple[float, ...]) -> tuple[float, ...]:
    """MuJoCo's mix of two equal-priority geoms' solref (solmix 1 on both): the mean, or the element-wise
    minimum if either is in the direct (non-positive) format."""
    if a[0] > 0 and b[0] > 0:
        return tuple(0.5 * (x + y) for x, y in zip(a, b, strict=True))
    return tuple(map(min, a, b))


def _as_geom(params: ContactParams) -> ContactParams:
    """What a geom can hold of ``params``: one sliding, one torsional and one rolling coefficient."""
    slide, _, torsion, roll, _ = params.friction
    return ContactParams((slide, slide, torsion, roll, roll), params.condim, params.solref, params.solimp,
                         params.rest_solref, params.bounce_velocity, params.soft_erp, params.soft_cfm)


def _keyed_pairs(model: mujoco.MjModel,
                 pairs: Iterable[tuple[str, str, ContactParams]]) -> list[tuple[int, ContactParams]]:
    """The explicit pairs as ``(key, params)`` sorted by key, ``key = min(g1, g2) * ngeom + max(g1, g2)`` of the
    pair's two geom ids: the order of the tables' ``pair_keys`` (see :func:`find_pairs`)."""
    rows = []
    for name1, name2, params in pairs:
        g1 = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, name1)
        g2 = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, name2)
        rows.append((min(g1, g2) * model.ngeom + max(g1, g2), params))
    rows.sort(key=lambda row: row[0])
    return rows


def find_pairs(pair_keys: np.ndarray, ngeom: int, g1: np.ndarray, g2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where contacts between geoms ``g1`` and ``g2`` (n,) sit in a table's sorted ``pair_keys`` (npair > 0).

    Returns:
        ``(at, hit)``, both (n,): the index into the pair rows, and whether the contact's two geoms form an
        explicit pair at all (``at`` is only meaningful where ``hit``).
    """
    keys = np.minimum(g1, g2) * ngeom + np.maximum(g1, g2)
    at = np.minimum(np.searchsorted(pair_keys, keys), len(pair_keys) - 1)
    return at, pair_keys[at] == keys


@dataclass(frozen=True)
class BounceTable:
    """Where contacts switch to their resting solref when slow (ODE's ``bounce_vel``), per geom and per pair.

    A contact's parameters come from its two geoms (the higher MuJoCo priority's, else their mix) or from
    its explicit pair; :mod:`wbsim.sim.bounce` combines these arrays the same way for each contact.

    Attributes:
        geom_rest: (ngeom, 2) the resting solref of each geom's parameters (its solref if it has no bounce).
        geom_velocity: (ngeom,) the bounce threshold in m/s (0 for geoms without bounce).
        geom_switches: (ngeom,) bool: the geom's parameters have a bounce (a resting solref of their own).
        pair_keys: (npair,) sorted keys ``min(g1, g2) * ngeom + max(g1, g2)`` of the explicit pairs.
        pair_rest: (npair, 2), pair_velocity: (npair,), pair_switches: (npair,): the same per pair, in key order.
    """

    geom_rest: np.ndarray
    geom_velocity: np.ndarray
    geom_switches: np.ndarray
    pair_keys: np.ndarray
    pair_rest: np.ndarray
    pair_velocity: np.ndarray
    pair_switches: np.ndarray

    @property
    def active(self) -> bool:
        """True if some contact of the world can switch (a geom or pair with a bounce)."""
        return bool(self.geom_switches.any() or self.pair_switches.any())

    @staticmethod
    def build(model: mujoco.MjModel, geoms: Iterable[tuple[str, ContactParams]],
              pairs: Iterable[tuple[str, str, ContactParams]]) -> BounceTable:
        """The table of a compiled model from the parameters given to its named geoms and explicit pairs
        (geoms not listed, e.g. devices' own, never switch)."""
        geom_rest = np.array(model.geom_solref, dtype=float).reshape(-1, 2)
        geom_velocity = np.zeros(model.ngeom)
        geom_switches = np.zeros(model.ngeom, dtype=bool)
        for name, params in geoms:
            if params.rest_solref is None:
                continue
            g = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, name)
            geom_rest[g] = params.rest_solref
            geom_velocity[g] = params.bounce_velocity
            geom_switches[g] = True
        rows = _keyed_pairs(model, pairs)
        return BounceTable(
            geom_rest=geom_rest,
            geom_velocity=geom_velocity,
            geom_switches=geom_switches,
            pair_keys=np.array([k for k, _ in rows], dtype=np.int64),
            pair_rest=np.array([p.resting_solref for _, p in rows], dtype=float).reshape(-1, 2),
            pair_velocity=np.array([p.bounce_velocity for _, p in rows], dtype=float),
            pair_switches=np.array([p.rest_solref is not None for _, p in rows], dtype=bool),
        )


@dataclass(frozen=True)
class SurfaceTable:
    """ODE's contact softness (``softERP``, ``softCFM``) of each geom and explicit pair of a compiled model.

    ``wbsim.sim.light_rows`` gives the contacts of very light parts ODE's own spring-damper from these values;
    a contact's values come from its explicit pair, else from the geom of higher MuJoCo priority, else the mean
    of its two geoms' (MuJoCo's mixing of the other contact parameters, see :class:`MaterialPlan`).

    Attributes:
        geom_erp, geom_cfm: (ngeom,) each geom's softERP and softCFM (Webots' defaults 0.2 and 0.001 for
            geoms without contact parameters of their own, e.g. devices' geoms).
        pair_keys: (npair,) sorted keys ``min(g1, g2) * ngeom + max(g1, g2)`` of the explicit pairs.
        pair_erp, pair_cfm: (npair,) the same per pair, in key order.
    """

    geom_erp: np.ndarray
    geom_cfm: np.ndarray
    pair_keys: np.ndarray
    pair_erp: np.ndarray
    pair_cfm: np.ndarray

    @staticmethod
    def build(model: mujoco.MjModel, geoms: Iterable[tuple[str, ContactParams]],
              pairs: Iterable[tuple[str, str, ContactParams]]) -> SurfaceTable:
        """The table of a compiled model from the parameters given to its named geoms and explicit pairs."""
        geom_erp = np.full(model.ngeom, _DEFAULT_ERP)
        geom_cfm = np.full(model.ngeom, _DEFAULT_CFM)
        for name, params in geoms:
            g = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, name)
            geom_erp[g], geom_cfm[g] = params.soft_erp, params.soft_cfm
        rows = _keyed_pairs(model, pairs)
        return SurfaceTable(
            geom_erp=geom_erp,
            geom_cfm=geom_cfm,
            pair_keys=np.array([k for k, _ in rows], dtype=np.int64),
            pair_erp=np.array([p.soft_erp for _, p in rows], dtype=float),
            pair_cfm=np.array([p.soft_cfm for _, p in rows], dtype=float),
        )
