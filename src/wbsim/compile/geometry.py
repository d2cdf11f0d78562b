"""BoundingObject geometry: from Webots geometry nodes to collision-geom descriptions.

Webots conventions kept here: Box ``size`` is the full edge lengths; Cylinder and Capsule lie along the
local z axis (as in MuJoCo); Capsule ``height`` excludes the caps; Plane is an infinite half-space with
its normal along local z; ElevationGrid heights are along z over the xy grid with
``P[i, j] = (xSpacing*i, ySpacing*j, height[i + j*xDimension])``. IndexedFaceSet becomes a mesh, which
MuJoCo collides by its convex hull (a warning is given for non-convex meshes).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mujoco
import numpy as np
from numpy.typing import NDArray

from wbsim.compile import inertia
from wbsim.compile.frames import Frame
from wbsim.errors import CompileError
from wbsim.world.model import WbNode, WorldWarning

__all__ = ["GeomDescription", "bounding_geoms", "triangulate"]


@dataclass
class GeomDescription:
    """One collision geometry of a Solid, in the Solid's frame.

    Attributes:
        kind: ``"box"``, ``"sphere"``, ``"cylinder"``, ``"capsule"``, ``"plane"``, ``"mesh"`` or ``"hfield"``.
        size: MuJoCo size parameters (half-sizes, radius and half-length, ...).
        frame: the geom frame relative to the Solid frame.
        node: the Webots geometry node (for error locations and the binding table).
        unit_mass: mass properties at density 1 in the Solid frame, or None for volume-less geometry
            (plane, elevation grid).
        mesh_vertices: (n, 3) for meshes.
        mesh_faces: (t, 3) for meshes.
        hfield: (nrow, ncol, size (4,), normalised data (nrow*ncol,)) for height fields.
    """

    kind: str
    size: tuple[float, ...]
    frame: Frame
    node: WbNode
    unit_mass: inertia.MassProperties | None
    mesh_vertices: NDArray[np.float64] | None = None
    mesh_faces: NDArray[np.int64] | None = None
    hfield: tuple[int, int, tuple[float, float, float, float], NDArray[np.float64]] | None = None
    extra: dict[str, object] = field(default_factory=dict)


def triangulate(coord_index: tuple[int, ...], n_points: int, node: WbNode, ccw: bool) -> NDArray[np.int64]:
    """Fan-triangulate the -1-separated polygons of an IndexedFaceSet ``coordIndex``.

    Raises:
        CompileError: an index refers to no point, or a polygon has fewer than 3 vertices.
    """
    triangles: list[tuple[int, int, int]] = []
    polygon: list[int] = []
    for index in (*coord_index, -1):
        if index == -1:
            if polygon:
                if len(polygon) < 3:
                    raise CompileError(
                        f"IndexedFaceSet face {polygon} has fewer than 3 vertices.", node.location_of("coordIndex"),
                        node.path,
                    )
                for k in range(1, len(polygon) - 1):
                    tri = (polygon[0], polygon[k], polygon[k + 1])
                    triangles.append(tri if ccw else (tri[0], tri[2], tri[1]))
                polygon = []
            continue
        if index >= n_points:
            raise CompileError(
                f"IndexedFaceSet coordIndex {index} is out of range: the Coordinate node has {n_points} point(s).",
                node.location_of("coordIndex"),
                node.path,
            )
        polygon.append(index)
    return np.asarray(triangles, dtype=np.int64).reshape(-1, 3)


def _is_convex(vertices: NDArray[np.float64], faces: NDArray[np.int64]) -> bool:
    """True if every vertex lies on the inner side of every face plane (within a size-relative tolerance)."""
    a, b, c = vertices[faces[:, 0]], vertices[faces[:, 1]], vertices[faces[:, 2]]
    normals = np.cross(b - a, c - a)
    lengths = np.linalg.norm(normals, axis=1)
    keep = lengths > 1e-15
    normals, a = normals[keep] / lengths[keep, None], a[keep]
    scale = float(np.ptp(vertices, axis=0).max()) or 1.0
    offsets = np.einsum("ij,ij->i", normals, a)
    for start in range(0, len(normals), 512):  # chunks keep memory bounded for large meshes
        heights = normals[start : start + 512] @ vertices.T - offsets[start : start + 512, None]
        if heights.max(initial=-np.inf) > 1e-6 * scale:
            return False
    return True


def _is_closed_manifold(points: NDArray[np.float64], faces: NDArray[np.int64]) -> bool:
    """True if the triangles form a closed, consistently oriented surface.

    Points at the same position count as one vertex (exported meshes often repeat them per face), and
    triangles that collapse to an edge are ignored; then every directed edge must appear once and its
    reverse once.
    """
    scale = float(np.ptp(points, axis=0).max()) or 1.0
    _, weld = np.unique(np.round(points / (1e-9 * scale)), axis=0, return_inverse=True)
    welded = weld.reshape(-1)[faces]
    welded = welded[(welded[:, 0] != welded[:, 1]) & (welded[:, 1] != welded[:, 2]) & (welded[:, 2] != welded[:, 0])]
    edges = np.concatenate([welded[:, [0, 1]], welded[:, [1, 2]], welded[:, [2, 0]]])
    directed = {(int(a), int(b)) for a, b in edges}
    if len(directed) != len(edges):  # an edge used twice in the same direction: inconsistent orientation
        return False
    return all((b, a) in directed for a, b in directed)


def _hull_mass(points: NDArray[np.float64]) -> inertia.MassProperties:
    """Unit-density mass properties of the convex hull of ``points``, computed by MuJoCo (qhull)."""
    spec = mujoco.MjSpec()
    spec.compiler.inertiafromgeom = mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_TRUE
    mesh = spec.add_mesh(name="hull")
    mesh.uservert = np.asarray(points, dtype=float).ravel().tolist()
    mesh.inertia = mujoco.mjtMeshInertia.mjMESH_INERTIA_CONVEX
    body = spec.worldbody.add_body(name="b")
    body.add_freejoint()
    body.add_geom(type=mujoco.mjtGeom.mjGEOM_MESH, meshname="hull", density=1.0)
    model = spec.compile()
    rot = np.zeros(9)
    mujoco.mju_quat2Mat(rot, model.body_iquat[1])
    rot = rot.reshape(3, 3)
    return inertia.MassProperties(float(model.body_mass[1]), model.body_ipos[1].copy(),
                                  rot @ np.diag(model.body_inertia[1]) @ rot.T)


def _primitive(node: WbNode, frame: Frame, warnings: list[WorldWarning]) -> GeomDescription | None:
    kind = node.type_name
    if kind == "Box":
        size = tuple(float(v) for v in node["size"])  # type: ignore[union-attr]
        return GeomDescription("box", tuple(s / 2 for s in size), frame, node,
                               inertia.box(size).transformed(frame))  # type: ignore[arg-type]
    if kind == "Sphere":
        r = float(node["radius"])  # type: ignore[arg-type]
        return GeomDescription("sphere", (r,), frame, node, inertia.sphere(r).transformed(frame))
    if kind == "Cylinder":
        r, h = float(node["radius"]), float(node["height"])  # type: ignore[arg-type]
        return GeomDescription("cylinder", (r, h / 2), frame, node, inertia.cylinder(r, h).transformed(frame))
    if kind == "Capsule":
        r, h = float(node["radius"]), float(node["height"])  # type: ignore[arg-type]
        return GeomDescription("capsule", (r, h / 2), frame, node, inertia.capsule(r, h).transformed(frame))
    if kind == "Plane":
        return GeomDescription("plane", (0.0, 0.0, 1.0), frame, node, None)
    if kind == "IndexedFaceSet":
        coord = node["coord"]
        points = np.asarray(coord["point"] if isinstance(coord, WbNode) else (), dtype=float).reshape(-1, 3)
        if len(points) < 4:
            raise CompileError(
                "IndexedFaceSet used as a boundingObject needs a Coordinate node with at least 4 points.",
                node.location_of("coord"),
                node.path,
            )
        faces = triangulate(node["coordIndex"], len(points), node, bool(node["ccw"]))  # type: ignore[arg-type]
        if len(faces) == 0:
            raise CompileError("IndexedFaceSet used as a boundingObject has no faces (empty coordIndex).",
                               node.location_of("coordIndex"), node.path)
        used = np.unique(faces)
        # Flat within the tolerance used to weld coincident vertices (thinner shapes only upset qhull).
        spread = np.linalg.svd(points[used] - points[used].mean(axis=0), compute_uv=False) if len(used) >= 4 else None
        if spread is None or spread[2] <= 1e-9 * spread[0]:
            raise CompileError("IndexedFaceSet used as a boundingObject is flat: it encloses no volume.",
                               node.location, node.path)
        closed = _is_closed_manifold(points, faces)
        props = inertia.mesh(points, faces) if closed else None
        if props is not None and props.mass < 0:
            # A closed surface whose faces all point inward: the same solid with the other orientation.
            warnings.append(WorldWarning(
                f"IndexedFaceSet faces are oriented inward (ccw {'TRUE' if node['ccw'] else 'FALSE'} does not match "
                "the vertex order); its mass uses the volume it encloses.", node.location_of("ccw"), node.path))
            faces = faces[:, ::-1].copy()
            props = inertia.mesh(points, faces)
        if props is None or props.mass <= 0:
            warnings.append(WorldWarning(
                "IndexedFaceSet is not a closed, consistently oriented surface, so it encloses no definite volume; "
                "its mass and inertia use its convex hull instead.", node.location, node.path))
            props = _hull_mass(points[used])
            hull = True
        else:
            hull = False
            if not _is_convex(points[used], faces):
                warnings.append(WorldWarning(
                    "IndexedFaceSet is not convex: MuJoCo collides meshes by their convex hull, so concave parts "
                    "will not be hollow. Split it into convex pieces for exact collisions.", node.location, node.path))
        description = GeomDescription("mesh", (), frame, node, props.transformed(frame),
                                      mesh_vertices=points, mesh_faces=faces)
        description.extra["hull_mass"] = hull
        return description
    if kind == "ElevationGrid":
        nx, ny = int(node["xDimension"]), int(node["yDimension"])  # type: ignore[arg-type]
        heights = np.asarray(node["height"], dtype=float)
        if nx < 2 or ny < 2:
            raise CompileError("ElevationGrid needs xDimension >= 2 and yDimension >= 2.", node.location, node.path)
        if len(heights) < nx * ny:
            raise CompileError(
                f"ElevationGrid has {len(heights)} height value(s) but xDimension*yDimension = {nx * ny}.",
                node.location_of("height"),
                node.path,
            )
        heights = heights[: nx * ny]
        dx, dy = float(node["xSpacing"]), float(node["ySpacing"])  # type: ignore[arg-type]
        lo, hi = float(heights.min()), float(heights.max())
        span = max(hi - lo, 1e-9)
        rx, ry = dx * (nx - 1) / 2, dy * (ny - 1) / 2
        thickness = max(float(node["thickness"]), 1e-3)  # type: ignore[arg-type]
        # MuJoCo height fields are centred on the geom and rise from its z; Webots grids start at the origin.
        hf_frame = frame @ Frame(np.array([rx, ry, lo]), np.eye(3))
        data = (heights - lo) / span
        return GeomDescription("hfield", (), hf_frame, node, None,
                               hfield=(ny, nx, (rx, ry, span, thickness), data))
    raise CompileError(f"{kind} cannot be used as a boundingObject.", node.location, node.path)


def bounding_geoms(bounding: WbNode | None, warnings: list[WorldWarning]) -> list[GeomDescription]:
    """All collision geometries of a Solid's ``boundingObject``, in the Solid's frame.

    Pose/Transform/Group nodes compose frames; a Shape contributes its geometry.

    Raises:
        CompileError: a Transform with a scale other than 1 1 1, or an invalid geometry.
    """
    result: list[GeomDescription] = []
    if bounding is not None:
        _visit_bounding(bounding, Frame.identity(), warnings, result)
    return result


def _visit_bounding(node: WbNode, frame: Frame, warnings: list[WorldWarning],
                    result: list[GeomDescription]) -> None:
    """Append the geometries of ``node`` (in ``frame``) and of the nodes below it to ``result``.

    A module function rather than a closure: a recursive closure refers to itself through its cell, a
    reference cycle per Solid that only the cyclic collector frees.
    """
    if node.is_a("geometry"):
        geom = _primitive(node, frame, warnings)
        if geom is not None:
            result.append(geom)
        return
    if node.type_name == "Shape":
        geometry = node["geometry"]
        if isinstance(geometry, WbNode):
            _visit_bounding(geometry, frame, warnings, result)
        return
    if not node.is_a("group"):
        raise CompileError(
            f"A {node.type_name} node cannot be part of a boundingObject: only geometries, Shape, Pose, "
            "Transform and Group are allowed.",
            node.location,
            node.path,
        )
    if node.type_name == "Transform" and tuple(node["scale"]) != (1.0, 1.0, 1.0):  # type: ignore[arg-type]
        raise CompileError(
            "A Transform with a scale other than 1 1 1 cannot be used in a boundingObject (as in Webots); "
            "scale the geometry's own fields instead.",
            node.location_of("scale"),
            node.path,
        )
    if node.type_name in ("Pose", "Transform"):
        frame = frame @ Frame.from_webots(node["translation"], node["rotation"])  # type: ignore[arg-type]
    for child in node.get("children", ()):  # type: ignore[union-attr]
        _visit_bounding(child, frame, warnings, result)
