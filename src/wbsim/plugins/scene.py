"""The plugin's view of one simulation: ODE-style bodies and geoms over the compiled MuJoCo model.

Built once when the plugin loads (names and ids resolved then, never per step): an ODE body per rigid
group of MuJoCo bodies, the geom tree of every Solid's boundingObject, the world space holding the
top-level geoms and the rays a plugin creates.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

import mujoco
import numpy as np

from wbsim.compile.frames import Frame
from wbsim.plugins.bodies import Body
from wbsim.plugins.geoms import Geom, Primitive, Space, build_geoms
from wbsim.world.model import WbNode

if TYPE_CHECKING:
    from wbsim.sim.simulation import Simulation

__all__ = ["PluginScene"]


class PluginScene:
    """Bodies and geoms of a simulation as ODE handles.

    Args:
        sim: the simulation (held weakly: it owns the plugin).

    Attributes:
        model, data: the MuJoCo model and data.
        world_space: the space of every top-level geom (and of the rays plugins put there).
        geom_of: the primitive handle of each MuJoCo geom (None for geoms of no boundingObject).
    """

    def __init__(self, sim: Simulation) -> None:
        self._sim_ref = weakref.ref(sim)
        self.model = sim.model
        self.data = sim.data
        self._bodies: dict[int, Body] = {}
        self.world_space = Space(self, None, None, Frame.identity(), world=True)
        self.geom_of: list[Primitive | None] = [None] * self.model.ngeom
        self._top_of_solid: dict[WbNode, Geom] = {}
        for binding in sim.bindings.solids:
            if not binding.geom_ids:
                continue
            top = build_geoms(self, binding.node, self.body_of_mujoco(binding.body_id), binding.geom_ids,
                              binding.geom_nodes)
            if top is None:
                continue
            self._top_of_solid[binding.node] = top
            self.world_space.add(top)
            for leaf in top.leaves():
                self.geom_of[leaf.geom_id] = leaf
        # Geoms that injected contacts can name for the static environment.
        static = np.flatnonzero(self.model.body_weldid[self.model.geom_bodyid] == 0)
        self.static_geom = int(static[0]) if len(static) else -1

    @property
    def sim(self) -> Simulation:
        """The simulation."""
        sim = self._sim_ref()
        if sim is None:
            raise RuntimeError("the simulation of this plugin no longer exists")
        return sim

    # -- bodies ----------------------------------------------------------------------------------------
    def body_of_mujoco(self, body_id: int) -> Body | None:
        """The ODE body a MuJoCo body moves with (None if it is static)."""
        root = int(self.model.body_weldid[body_id])
        if root == 0:
            return None
        body = self._bodies.get(root)
        if body is None:
            body = self._bodies[root] = Body(self, root)
        return body

    def body_of_solid(self, node: WbNode) -> Body | None:
        """Webots' ``bodyMerger()`` of a Solid: the body it moves with, None without Physics or if static."""
        binding = self.sim.bindings.solid(node)
        if binding is None or not isinstance(node["physics"], WbNode):
            return None
        return self.body_of_mujoco(binding.body_id)

    def geom_of_solid(self, node: WbNode) -> Geom | None:
        """The top-level geom of a Solid's boundingObject (None without one)."""
        return self._top_of_solid.get(node)

    def body_name(self, body_id: int) -> str:
        """The node path a MuJoCo body came from (for messages)."""
        name = mujoco.mj_id2name(self.model, mujoco.mjtObj.mjOBJ_BODY, body_id) or str(body_id)
        return self.sim.compiled.body_names.get(name, name)

    def representative_geom(self, body: Body | None) -> int:
        """A MuJoCo geom on ``body`` (or on the static environment for None) that an injected contact can
        name, -1 if there is none."""
        if body is None:
            return self.static_geom
        for member in body.members.tolist():
            count = int(self.model.body_geomnum[member])
            if count:
                return int(self.model.body_geomadr[member])
        return -1

    # -- frames --------------------------------------------------------------------------------------
    def solid_frame(self, node: WbNode) -> Frame:
        """A Solid's current world frame."""
        frame = self.sim.supervision.world_frame(node)
        return frame if frame is not None else Frame.identity()

    def refresh(self) -> None:
        """Make the poses in ``data`` current (after a physics step they are one MuJoCo step old)."""
        self.sim.supervision.refresh()

    def changed(self) -> None:
        """``qpos``/``qvel`` were edited: derived quantities are stale."""
        self.sim.supervision.invalidate()

    def find_solid(self, def_path: str) -> WbNode | None:
        """The Solid with DEF name or dotted DEF path ``def_path`` (Webots' ``findSolidByDef``), or None."""
        node = self.sim.node(def_path)
        if node is None or not node.is_a("solid"):
            return None
        return node
