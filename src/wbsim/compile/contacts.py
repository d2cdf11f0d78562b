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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from wbsim.world.model import WbNode

__all__ = ["ContactParams", "contact_params", "ode_surface_params", "too_soft", "INFINITE_FRICTION",
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
