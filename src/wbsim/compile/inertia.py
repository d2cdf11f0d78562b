"""Mass properties of bounding-object primitives and their composition.

Webots computes a Solid's mass from the volumes of its boundingObject primitives (overlaps counted
twice, as ODE's ``dMassAdd`` does) and its inertia from the same primitives; this module does the same
so that the compiled MuJoCo bodies get explicit, Webots-consistent inertials.

Units: metres, kilograms, kg*m^2. Inertia tensors are 3x3 about the centre of mass, in the frame the
properties are expressed in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np
from numpy.typing import NDArray

from wbsim.compile.frames import Frame, quat_to_matrix

__all__ = ["MassProperties", "box", "sphere", "cylinder", "capsule", "mesh", "combine", "joint_inertia_at_rest"]

Vec = NDArray[np.float64]


@dataclass(frozen=True)
class MassProperties:
    """Mass, centre of mass and inertia tensor of a rigid body.

    Attributes:
        mass: kg (for unit density: the volume in m^3).
        com: centre of mass, shape (3,), m, in the expressing frame.
        inertia: inertia tensor about ``com``, shape (3, 3), kg*m^2, in the expressing frame's axes.
    """

    mass: float
    com: Vec
    inertia: Vec

    @property
    def volume_at_unit_density(self) -> float:
        """The mass when computed at density 1, i.e. the volume in m^3."""
        return self.mass

    def scaled(self, factor: float) -> MassProperties:
        """The same shape with its mass (and inertia) multiplied by ``factor``."""
        return MassProperties(self.mass * factor, self.com.copy(), self.inertia * factor)

    def transformed(self, frame: Frame) -> MassProperties:
        """The properties expressed in the parent frame of ``frame``."""
        return MassProperties(self.mass, frame.apply(self.com), frame.rot @ self.inertia @ frame.rot.T)

    def about_point(self, point: Vec) -> Vec:
        """Inertia tensor about ``point`` (parallel-axis theorem), shape (3, 3)."""
        d = self.com - np.asarray(point, dtype=float)
        return self.inertia + self.mass * (np.dot(d, d) * np.eye(3) - np.outer(d, d))


def _diag(mass: float, ixx: float, iyy: float, izz: float) -> MassProperties:
    return MassProperties(mass, np.zeros(3), np.diag([ixx, iyy, izz]))


def box(size: tuple[float, float, float], density: float = 1.0) -> MassProperties:
    """A box with full edge lengths ``size`` (m), centred at the origin."""
    a, b, c = size
    m = density * a * b * c
    return _diag(m, m * (b * b + c * c) / 12, m * (a * a + c * c) / 12, m * (a * a + b * b) / 12)


def sphere(radius: float, density: float = 1.0) -> MassProperties:
    """A solid sphere centred at the origin."""
    m = density * 4.0 / 3.0 * np.pi * (radius * radius * radius)  # float products overflow to inf; ** raises
    i = 0.4 * m * radius * radius
    return _diag(m, i, i, i)


def cylinder(radius: float, height: float, density: float = 1.0) -> MassProperties:
    """A solid cylinder along z, centred at the origin (``height`` is the full length)."""
    m = density * np.pi * radius * radius * height
    i = m * (3 * radius * radius + height * height) / 12
    return _diag(m, i, i, 0.5 * m * radius * radius)


def capsule(radius: float, height: float, density: float = 1.0) -> MassProperties:
    """A capsule along z centred at the origin: a cylinder of length ``height`` plus two hemispherical caps."""
    r, h = radius, height
    m_cyl = density * np.pi * r * r * h
    m_hemi = density * 2.0 / 3.0 * np.pi * (r * r * r)
    # Each cap's own centre of mass sits 3r/8 beyond the cylinder end.
    ixx = m_cyl * (h * h / 12 + r * r / 4) + 2 * m_hemi * (2 * r * r / 5 + h * h / 4 + 3 * h * r / 8)
    izz = m_cyl * r * r / 2 + 2 * m_hemi * 2 * r * r / 5
    return _diag(m_cyl + 2 * m_hemi, ixx, ixx, izz)


def mesh(vertices: Vec, triangles: NDArray[np.int64], density: float = 1.0) -> MassProperties:
    """A closed triangle mesh (outward counter-clockwise triangles), by the divergence theorem.

    Args:
        vertices: shape (n, 3), m.
        triangles: shape (t, 3), vertex indices, counter-clockwise seen from outside.
        density: kg/m^3.

    Returns:
        The properties; mass is negative if the triangles face inward (callers check the sign).
    """
    v = np.asarray(vertices, dtype=float)
    tri = np.asarray(triangles, dtype=np.int64)
    a, b, c = v[tri[:, 0]], v[tri[:, 1]], v[tri[:, 2]]
    det = np.einsum("ij,ij->i", a, np.cross(b, c))  # 6 x signed tetrahedron volume (apex at origin)
    volume = det.sum() / 6.0
    if abs(volume) < 1e-300:
        return MassProperties(0.0, np.zeros(3), np.zeros((3, 3)))
    com = ((a + b + c) * det[:, None]).sum(axis=0) / 24.0 / volume
    # Second moment of each tetrahedron about the origin: det/120 * (sum of outer products with doubled diagonal).
    s = a + b + c
    second = (np.einsum("i,ij,ik->jk", det, s, s) + np.einsum("i,ij,ik->jk", det, a, a)
              + np.einsum("i,ij,ik->jk", det, b, b) + np.einsum("i,ij,ik->jk", det, c, c)) / 120.0
    inertia_origin = np.trace(second) * np.eye(3) - second
    m = density * volume
    inertia_com = density * inertia_origin - m * (np.dot(com, com) * np.eye(3) - np.outer(com, com))
    return MassProperties(m, com, inertia_com)


def combine(parts: list[MassProperties]) -> MassProperties:
    """Sum rigidly attached parts expressed in one frame; overlapping volumes count twice, as in ODE."""
    total = sum(p.mass for p in parts)
    if total <= 0.0:
        return MassProperties(0.0, np.zeros(3), np.zeros((3, 3)))
    com = sum(p.mass * p.com for p in parts) / total
    inertia = sum(p.about_point(com) for p in parts)
    return MassProperties(total, com, np.asarray(inertia))


def _spec_body_inertia(body: mujoco.MjsBody) -> tuple[float, Vec, Vec] | None:
    """Mass, centre of mass (3,) and inertia tensor (3, 3) about it, in ``body``'s own frame, as MuJoCo
    compiles them with ``inertiafromgeom="false"``: ``fullinertia`` when given, else ``inertia`` along
    ``iquat``. MuJoCo reads an unset ``ipos`` as the body's own ``pos`` and ``iquat`` as its ``quat``
    (measured); a ``fullinertia`` then loses its principal axes, so only an isotropic one is known here
    (others give None)."""
    full = np.asarray(body.fullinertia, dtype=float)
    com = np.asarray(body.ipos, dtype=float)
    iquat = np.asarray(body.iquat, dtype=float)
    if np.isnan(com[0]):
        com = np.asarray(body.pos, dtype=float)
        iquat = np.asarray(body.quat, dtype=float)
        if not np.isnan(full[0]) and (full[3:].any() or not full[0] == full[1] == full[2]):
            return None
    if np.isnan(full[0]):
        rot = quat_to_matrix(iquat)
        tensor = rot @ np.diag(np.asarray(body.inertia, dtype=float)) @ rot.T
    else:
        tensor = np.array([[full[0], full[3], full[4]], [full[3], full[1], full[5]], [full[4], full[5], full[2]]])
    return float(body.mass), com, tensor


def joint_inertia_at_rest(joint: mujoco.MjsJoint) -> float | None:
    """The inertia a hinge or slide joint of an MjSpec moves, as MuJoCo's compiler puts it in ``dof_M0``.

    That is the joint's ``armature`` plus, for a hinge, the moment of inertia (kg*m^2) of its body and
    every body below it about the joint's axis line (through ``joint.pos``), or, for a slide, their
    total mass (kg); bodies in their spec poses, which are the poses at ``qpos0`` (joint ``ref``).
    Computed from the spec before compiling, so that values derived from it need no second
    ``mj_setConst`` (a whole-model pass whose cost grows with bodies x degrees of freedom). Linear in
    the size of the joint's subtree. ``None`` for other joint types and for subtrees whose compiled
    inertia this does not predict (see :func:`_spec_body_inertia`). Bodies must carry their inertia
    explicitly (the builder compiles with ``inertiafromgeom="false"``).
    """
    if joint.type == mujoco.mjtJoint.mjJNT_SLIDE:
        hinge = False
    elif joint.type == mujoco.mjtJoint.mjJNT_HINGE:
        hinge = True
    else:
        return None
    axis = np.asarray(joint.axis, dtype=float)
    axis = axis / np.linalg.norm(axis)
    point = np.asarray(joint.pos, dtype=float)
    total = 0.0
    # Depth-first over the subtree, each body with its frame in the joint body's frame.
    stack: list[tuple[mujoco.MjsBody, Vec, Vec]] = [(joint.parent, np.eye(3), np.zeros(3))]
    while stack:
        body, rot, origin = stack.pop()
        props = _spec_body_inertia(body)
        if props is None:
            return None
        mass, com, tensor = props
        if hinge:
            offset = np.cross(axis, rot @ com + origin - point)
            total += float(axis @ (rot @ tensor @ rot.T) @ axis) + mass * float(offset @ offset)
        else:
            total += mass
        if not math.isfinite(total):
            return None
        for child in body.bodies:
            stack.append((child, rot @ quat_to_matrix(np.asarray(child.quat, dtype=float)),
                          rot @ np.asarray(child.pos, dtype=float) + origin))
    return float(joint.armature) + total
