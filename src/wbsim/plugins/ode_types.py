"""ODE's constants and structures, as a physics plugin ported from C uses them.

Plugins written for Webots are C over ODE; wbsim runs them ported to Python line by line, so the names,
flag values and structure fields are ODE's: ``contact.surface.mode = dContactBounce | dContactSoftCFM``,
``contact.geom.depth``, ``dSphereClass``... Vectors are lists of floats; a rotation (``dMatrix3``) is
ODE's 12 numbers (3 rows of 4, the 4th of each row 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "dInfinity",
    "dContactMu2", "dContactAxisDep", "dContactFDir1", "dContactBounce", "dContactSoftERP", "dContactSoftCFM",
    "dContactMotion1", "dContactMotion2", "dContactMotionN", "dContactSlip1", "dContactSlip2", "dContactRolling",
    "dContactApprox0", "dContactApprox1_1", "dContactApprox1_2", "dContactApprox1_N", "dContactApprox1",
    "dSphereClass", "dBoxClass", "dCapsuleClass", "dCylinderClass", "dPlaneClass", "dRayClass", "dConvexClass",
    "dGeomTransformClass", "dTriMeshClass", "dHeightfieldClass", "dFirstSpaceClass", "dSimpleSpaceClass",
    "dHashSpaceClass", "dSweepAndPruneSpaceClass", "dQuadTreeSpaceClass", "dLastSpaceClass",
    "dSurfaceParameters", "dContactGeom", "dContact", "dMass",
]

dInfinity = math.inf
"""ODE's infinity (an infinite friction coefficient, ...)."""

# dContact.surface.mode flags (ODE's contact.h).
dContactMu2 = 0x001
dContactAxisDep = 0x001
dContactFDir1 = 0x002
dContactBounce = 0x004
dContactSoftERP = 0x008
dContactSoftCFM = 0x010
dContactMotion1 = 0x020
dContactMotion2 = 0x040
dContactMotionN = 0x080
dContactSlip1 = 0x100
dContactSlip2 = 0x200
dContactRolling = 0x400
dContactApprox0 = 0x0000
dContactApprox1_1 = 0x1000
dContactApprox1_2 = 0x2000
dContactApprox1_N = 0x4000
dContactApprox1 = 0x7000

# Geom classes (ODE's collision.h enumeration).
dSphereClass = 0
dBoxClass = 1
dCapsuleClass = 2
dCylinderClass = 3
dPlaneClass = 4
dRayClass = 5
dConvexClass = 6
dGeomTransformClass = 7
dTriMeshClass = 8
dHeightfieldClass = 9
dFirstSpaceClass = 10
dSimpleSpaceClass = 10
dHashSpaceClass = 11
dSweepAndPruneSpaceClass = 12
dQuadTreeSpaceClass = 13
dLastSpaceClass = 13


def _zeros(n: int) -> Any:
    return field(default_factory=lambda: [0.0] * n)


@dataclass
class dSurfaceParameters:  # noqa: N801 (ODE's name)
    """ODE's contact surface parameters (``dContact.surface``).

    Attributes:
        mode: ``dContact*`` flags saying which of the fields below are used.
        mu: Coulomb friction (``dInfinity`` for no slip).
        mu2: friction along the second direction (with ``dContactMu2``).
        rho, rho2, rhoN: rolling and spinning friction (with ``dContactRolling``).
        bounce: restitution, 0..1 (with ``dContactBounce``).
        bounce_vel: minimum bouncing velocity, m/s (MuJoCo has no such threshold: ignored).
        soft_erp, soft_cfm: contact softness (with ``dContactSoftERP`` / ``dContactSoftCFM``).
        motion1, motion2, motionN, slip1, slip2: surface velocity and force-dependent slip (not simulated).
    """

    mode: int = 0
    mu: float = 0.0
    mu2: float = 0.0
    rho: float = 0.0
    rho2: float = 0.0
    rhoN: float = 0.0  # noqa: N815 (ODE's name)
    bounce: float = 0.0
    bounce_vel: float = 0.0
    soft_erp: float = 0.0
    soft_cfm: float = 0.0
    motion1: float = 0.0
    motion2: float = 0.0
    motionN: float = 0.0  # noqa: N815 (ODE's name)
    slip1: float = 0.0
    slip2: float = 0.0


@dataclass
class dContactGeom:  # noqa: N801 (ODE's name)
    """One contact point (``dContact.geom``), as ODE's collision functions fill it.

    Attributes:
        pos: contact position, world frame, m.
        normal: unit normal, world frame: moving ``g1`` along it by ``depth`` separates the two geoms.
        depth: penetration depth, m (for a ray: the distance from the ray's start).
        g1, g2: the two geoms.
        side1, side2: ODE's triangle indices (-1).
    """

    pos: list[float] = _zeros(3)
    normal: list[float] = _zeros(3)
    depth: float = 0.0
    g1: object = None
    g2: object = None
    side1: int = -1
    side2: int = -1


@dataclass
class dContact:  # noqa: N801 (ODE's name)
    """ODE's ``dContact``: surface parameters, the contact point and the first friction direction."""

    surface: dSurfaceParameters = field(default_factory=dSurfaceParameters)
    geom: dContactGeom = field(default_factory=dContactGeom)
    fdir1: list[float] = _zeros(3)


@dataclass
class dMass:  # noqa: N801 (ODE's name)
    """ODE's ``dMass``: total mass (kg), centre of mass in the body frame (m, always 0 for a body, whose
    origin is its centre of mass), inertia about it in the body frame (kg m^2, 12 numbers, ODE's 3x4)."""

    mass: float = 0.0
    c: list[float] = _zeros(3)
    I: list[float] = _zeros(12)  # noqa: E741 (ODE's name)
