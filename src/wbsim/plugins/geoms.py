"""ODE geoms (``dGeomID``) over MuJoCo: the structure Webots gives a Solid's boundingObject, and rays.

Webots builds each boundingObject as ODE objects (``structure-of-ode-objects.md``): a Group becomes a
``dSimpleSpace`` holding its children, a Pose (or Transform) a ``dGeomTransform`` holding its child, a
Capsule or Cylinder a transform around the primitive, Box, Sphere, Plane, IndexedFaceSet (trimesh) and
ElevationGrid (heightfield) primitives. wbsim builds the same tree of handles over the MuJoCo geoms the
compiler made, so ``dWebotsGetGeomFromDEF`` returns the same top-level object and the collide callback
gets the same pairs. A plugin may also create rays (``dCreateRay``); wbsim casts them with MuJoCo.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import mujoco
import numpy as np

from wbsim.compile.frames import Frame
from wbsim.plugins.ode_types import (
    dBoxClass,
    dCapsuleClass,
    dCylinderClass,
    dGeomTransformClass,
    dHeightfieldClass,
    dPlaneClass,
    dRayClass,
    dSimpleSpaceClass,
    dSphereClass,
    dTriMeshClass,
)
from wbsim.world.model import WbNode

if TYPE_CHECKING:
    from wbsim.plugins.bodies import Body
    from wbsim.plugins.scene import PluginScene

__all__ = ["Geom", "Primitive", "GeomTransform", "Space", "Ray", "build_geoms", "GEOM_CLASSES"]

GEOM_CLASSES: dict[int, int] = {
    int(mujoco.mjtGeom.mjGEOM_SPHERE): dSphereClass,
    int(mujoco.mjtGeom.mjGEOM_BOX): dBoxClass,
    int(mujoco.mjtGeom.mjGEOM_CAPSULE): dCapsuleClass,
    int(mujoco.mjtGeom.mjGEOM_CYLINDER): dCylinderClass,
    int(mujoco.mjtGeom.mjGEOM_PLANE): dPlaneClass,
    int(mujoco.mjtGeom.mjGEOM_MESH): dTriMeshClass,
    int(mujoco.mjtGeom.mjGEOM_HFIELD): dHeightfieldClass,
}
"""ODE class of each MuJoCo geom type the compiler makes."""


class Geom:
    """Base of the geom handles.

    Attributes:
        scene: the plugin's view of the simulation.
        body: the ODE body the geom moves with (None: the static environment, or a body-less user geom).
        space: the space holding it (the world space for top-level geoms), or None.
        parent: the transform or space it is part of, or None for a top-level geom.
        solid: the Solid node whose boundingObject it belongs to (None for user geoms).
        local: its frame relative to that Solid's frame.
    """

    geom_class = -1

    def __init__(self, scene: PluginScene, body: Body | None, solid: WbNode | None, local: Frame) -> None:
        self.scene = scene
        self.body = body
        self.space: Space | None = None
        self.parent: Geom | None = None
        self.solid = solid
        self.local = local

    @property
    def top(self) -> Geom:
        """The top-level object of its boundingObject (what ``dWebotsGetGeomFromDEF`` returns)."""
        geom = self
        while geom.parent is not None:
            geom = geom.parent
        return geom

    def world_frame(self) -> Frame:
        """The geom's frame in the world (for a space: its Solid's)."""
        solid_frame = self.scene.solid_frame(self.solid) if self.solid is not None else Frame.identity()
        return solid_frame @ self.local

    def leaves(self) -> list[Primitive]:
        """The MuJoCo-backed primitives below (itself for a primitive)."""
        return []

    def is_space(self) -> bool:
        """True for spaces."""
        return False

    def __repr__(self) -> str:
        where = f" of {self.solid.path}" if self.solid is not None else ""
        return f"<dGeomID {type(self).__name__}{where}>"


class Primitive(Geom):
    """A boundingObject primitive: one MuJoCo geom."""

    def __init__(self, scene: PluginScene, body: Body | None, solid: WbNode, local: Frame, geom_id: int) -> None:
        super().__init__(scene, body, solid, local)
        self.geom_id = geom_id
        self.geom_class = GEOM_CLASSES.get(int(scene.model.geom_type[geom_id]), -1)

    def world_frame(self) -> Frame:
        """The MuJoCo geom's current frame."""
        data = self.scene.data
        return Frame(data.geom_xpos[self.geom_id].copy(), data.geom_xmat[self.geom_id].reshape(3, 3).copy())

    def leaves(self) -> list[Primitive]:
        """Itself."""
        return [self]


class GeomTransform(Geom):
    """ODE's ``dGeomTransform``: one geom placed in a frame (a Pose, or Webots' wrapper of a Capsule or
    Cylinder)."""

    geom_class = dGeomTransformClass

    def __init__(self, scene: PluginScene, body: Body | None, solid: WbNode, local: Frame, child: Geom) -> None:
        super().__init__(scene, body, solid, local)
        self.child = child
        child.parent = self

    def leaves(self) -> list[Primitive]:
        """The primitives of its child."""
        return self.child.leaves()


class Space(Geom):
    """ODE's ``dSimpleSpace``: a Group of a boundingObject, or the world space (top-level geoms)."""

    geom_class = dSimpleSpaceClass

    def __init__(self, scene: PluginScene, body: Body | None, solid: WbNode | None, local: Frame,
                 children: list[Geom] | None = None, world: bool = False) -> None:
        super().__init__(scene, body, solid, local)
        self.children: list[Geom] = []
        self.world = world
        for child in children or []:
            self.add(child)

    def add(self, child: Geom) -> None:
        """Put ``child`` in this space."""
        self.children.append(child)
        child.space = self
        if not self.world:
            child.parent = self

    def remove(self, child: Geom) -> None:
        """Take ``child`` out of this space."""
        if child in self.children:
            self.children.remove(child)
            child.space = None

    def leaves(self) -> list[Primitive]:
        """The primitives of every child."""
        return [leaf for child in self.children for leaf in child.leaves()]

    def is_space(self) -> bool:
        """True."""
        return True


class Ray(Geom):
    """A ray a plugin created (``dCreateRay``): from ``start`` along ``direction`` (unit), ``length`` m."""

    geom_class = dRayClass

    def __init__(self, scene: PluginScene, length: float) -> None:
        super().__init__(scene, None, None, Frame.identity())
        self.start = np.zeros(3)
        self.direction = np.array([0.0, 0.0, 1.0])
        self.length = float(length)

    def world_frame(self) -> Frame:
        """A frame at the ray's start whose z-axis is the ray's direction (ODE's convention)."""
        z = self.direction
        helper = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
        x = np.cross(helper, z)
        x /= np.linalg.norm(x)
        return Frame(self.start.copy(), np.column_stack([x, np.cross(z, x), z]))

    def hit(self, leaf: Primitive) -> tuple[float, np.ndarray] | None:
        """Where the ray first meets ``leaf``: (distance from the start, m; outward surface normal), or None."""
        scene = self.scene
        model, data = scene.model, scene.data
        g = leaf.geom_id
        normal = np.zeros(3)
        kind = int(model.geom_type[g])
        start, vec = self.start, self.direction
        if kind == int(mujoco.mjtGeom.mjGEOM_MESH):
            distance = mujoco.mj_rayMesh(model, data, g, start, vec, normal)
        elif kind == int(mujoco.mjtGeom.mjGEOM_HFIELD):
            distance = mujoco.mj_rayHfield(model, data, g, start, vec, normal)
        else:
            distance = mujoco.mju_rayGeom(data.geom_xpos[g], data.geom_xmat[g], model.geom_size[g], start, vec, kind,
                                          normal)
        if distance < 0 or distance > self.length:
            return None
        return float(distance), normal


def build_geoms(scene: PluginScene, solid: WbNode, body: Body | None, geom_ids: tuple[int, ...],
                geom_nodes: tuple[WbNode, ...]) -> Geom | None:
    """The ODE structure of a Solid's boundingObject over its MuJoCo geoms (None without any).

    Args:
        scene: the plugin's view of the simulation.
        solid: the Solid node.
        body: its ODE body (None if static).
        geom_ids: the MuJoCo geoms the compiler made for the boundingObject.
        geom_nodes: the geometry node of each (to match the tree's leaves).
    """
    bounding = solid["boundingObject"]
    if not isinstance(bounding, WbNode) or not geom_ids:
        return None
    pending = list(zip(geom_nodes, geom_ids))

    def take(node: WbNode) -> int | None:
        # The compiler adds geoms in the order of the boundingObject walk (a geometry may appear twice by
        # USE, so match by order, not by node alone); geoms it dropped (e.g. a moving Plane) are skipped.
        for index, (geometry, geom_id) in enumerate(pending):
            if geometry is node:
                del pending[index]
                return geom_id
        return None

    def visit(node: WbNode, frame: Frame) -> Geom | None:
        if node.is_a("geometry"):
            geom_id = take(node)
            if geom_id is None:
                return None
            leaf_local = frame  # the primitive's own frame is its parent's here: it sits at the origin
            leaf = Primitive(scene, body, solid, leaf_local, geom_id)
            if node.type_name in ("Capsule", "Cylinder"):  # Webots wraps them in a transform
                return GeomTransform(scene, body, solid, frame, leaf)
            return leaf
        if node.type_name == "Shape":
            geometry = node["geometry"]
            return visit(geometry, frame) if isinstance(geometry, WbNode) else None
        if node.type_name in ("Pose", "Transform"):
            inner = frame @ Frame.from_webots(node["translation"], node["rotation"])  # type: ignore[arg-type]
            children = [g for g in (visit(c, inner) for c in node["children"]) if g is not None]  # type: ignore[union-attr]
            if len(children) == 1:
                return GeomTransform(scene, body, solid, inner, children[0])
            return Space(scene, body, solid, inner, children) if children else None
        children = [g for g in (visit(c, frame) for c in node.get("children", ())) if g is not None]  # type: ignore[union-attr]
        return Space(scene, body, solid, frame, children) if children else None

    return visit(bounding, Frame.identity())
