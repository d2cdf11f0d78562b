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
  ``bounceVelocity`` and ``maxContactJoints`` have no MuJoCo counterpart and are ignored.
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
  creeps 2 cm in 2 s and keeps going), with a load warning (:func:`too_soft`).
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

from wbsim.world.model import WbNode

__all__ = ["ContactParams", "MaterialPlan", "contact_params", "ode_surface_params", "too_soft", "INFINITE_FRICTION",
           "DEFAULT_WEBOTS_CONTACT", "CONE_IMPRATIO", "MAX_TIMECONST"]

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


@dataclass(frozen=True)
class ContactParams:
    """MuJoCo contact parameters for one material pair.

    Attributes:
        friction: (slide, slide, torsion, roll, roll) coefficients.
        condim: 1 (frictionless), 3 (sliding friction) or 6 (with rolling and torsional friction).
        solref: (timeconst s, damping ratio).
        solimp: MuJoCo's impedance parameters (dmin, dmax, width m, midpoint, power).
    """

    friction: tuple[float, float, float, float, float]
    condim: int
    solref: tuple[float, float]
    # dmin 0.5 instead of MuJoCo's 0.9: with bouncy contacts (damping ratio < 0.4, e.g. Webots' default
    # bounce 0.5) a box resting on its 4 corners otherwise rocks in a limit cycle at ~0.03 m/s forever
    # and reads 1.3 m*g; with a softer onset it settles to m*g exactly (measured, docs/differences.md).
    solimp: tuple[float, float, float, float, float] = (0.5, 0.95, 0.001, 0.5, 2.0)


@dataclass(frozen=True)
class _Surface:
    coulomb: float
    rolling: tuple[float, float, float]
    bounce: float
    soft_erp: float
    soft_cfm: float


DEFAULT_WEBOTS_CONTACT = _Surface(1.0, (0.0, 0.0, 0.0), 0.5, _DEFAULT_ERP, _DEFAULT_CFM)
"""Webots' built-in surface when no ContactProperties matches: mu 1, bounce 0.5, softERP 0.2, softCFM 0.001."""


def _damping_ratio(restitution: float) -> float:
    if restitution <= 0.0:
        return 1.0
    if restitution >= 1.0:
        return 0.01  # a lossless bounce would never settle; keep a trace of damping
    log_e = math.log(restitution)
    return max(0.01, -log_e / math.sqrt(math.pi**2 + log_e**2))


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
    timeconst = max(min(_DEFAULT_TIMECONST / math.sqrt(stiffness_ratio), MAX_TIMECONST),
                    2.0 * physics_dt_s / min(zeta, 1.0))
    friction = (clamp(mu), clamp(mu2), 0.0, 0.0, 0.0)
    return ContactParams(friction=friction, condim=_condim(friction), solref=(timeconst, zeta))


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
    zeta = _damping_ratio(surface.bounce)
    timeconst = max(min(_DEFAULT_TIMECONST / math.sqrt(stiffness_ratio), MAX_TIMECONST),
                    2.0 * physics_dt_s / min(zeta, 1.0))
    return ContactParams(
        friction=(mu, mu, rolling[2], rolling[0], rolling[1]),
        condim=condim,
        solref=(timeconst, zeta),
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
        solref = (tuple(0.5 * (x + y) for x, y in zip(a.solref, b.solref, strict=True))
                  if a.solref[0] > 0 and b.solref[0] > 0 else tuple(map(min, a.solref, b.solref)))
        return ContactParams(
            friction=tuple(map(max, a.friction, b.friction)),  # type: ignore[arg-type]
            condim=max(a.condim, b.condim),
            solref=solref,  # type: ignore[arg-type]
            solimp=tuple(0.5 * (x + y) for x, y in zip(a.solimp, b.solimp, strict=True)),  # type: ignore[arg-type]
        )

    def needs_pairs(self, material1: str, material2: str) -> bool:
        """True if per-geom values give contacts between these materials other parameters than Webots'."""
        want, got = self.surface(material1, material2), self.per_geom(material1, material2)
        return not (want.condim == got.condim and _same(want.friction, got.friction)
                    and _same(want.solref, got.solref) and _same(want.solimp, got.solimp))


def _as_geom(params: ContactParams) -> ContactParams:
    """What a geom can hold of ``params``: one sliding, one torsional and one rolling coefficient."""
    slide, _, torsion, roll, _ = params.friction
    return ContactParams((slide, slide, torsion, roll, roll), params.condim, params.solref, params.solimp)
