"""Fixtures for the physics tests: worlds written inline (or read from tests/data/physics), run by Simulation.

Each test compares a simulated quantity with an analytic value; the fixtures only build simulations and
read MuJoCo state, so the tests themselves show the physics.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import mujoco
import numpy as np
import pytest

from wbsim.compile.bindings import JointBinding, SolidBinding
from wbsim.compile.builder import compile_world
from wbsim.sim.simulation import Simulation
from wbsim.world.loader import load_world_model, load_world_model_from_string

HEADER = "#VRML_SIM R2023b utf8\n"
DATA = Path(__file__).resolve().parent.parent / "data" / "physics"


@pytest.fixture
def make_sim() -> Callable[..., Simulation]:
    """``make_sim(body, info="WorldInfo { }")``: a Simulation of a world written inline (no controllers)."""

    def make(body: str, info: str = "WorldInfo { }") -> Simulation:
        model = load_world_model_from_string(HEADER + info + "\n" + body, "physics.wbt")
        return Simulation(compile_world(model))

    return make


@pytest.fixture
def load_sim() -> Callable[[str], Simulation]:
    """``load_sim(name)``: a Simulation of ``tests/data/physics/<name>``."""

    def load(name: str) -> Simulation:
        return Simulation(compile_world(load_world_model(DATA / name)))

    return load


@pytest.fixture
def solid_of() -> Callable[[Simulation, str], SolidBinding]:
    """``solid_of(sim, "DEF")``: the binding of the Solid with that DEF name."""

    def find(sim: Simulation, def_name: str) -> SolidBinding:
        node = sim.node(def_name)
        assert node is not None, def_name
        binding = sim.bindings.solid(node)
        assert binding is not None, def_name
        return binding

    return find


@pytest.fixture
def first_joint() -> Callable[[Simulation], JointBinding]:
    """``first_joint(sim)``: the first joint binding of the world."""

    def find(sim: Simulation) -> JointBinding:
        return sim.bindings.joints[0]

    return find


@pytest.fixture
def contact_normal_force() -> Callable[[Simulation, int], float]:
    """``contact_normal_force(sim, body_id)``: the summed normal force of the contacts touching a body's tree."""

    def total(sim: Simulation, body_id: int) -> float:
        model, data = sim.model, sim.data
        root = model.body_rootid[body_id]
        force = np.zeros(6)
        result = 0.0
        for i in range(data.ncon):
            contact = data.contact[i]
            bodies = (model.geom_bodyid[contact.geom[0]], model.geom_bodyid[contact.geom[1]])
            if root in (model.body_rootid[bodies[0]], model.body_rootid[bodies[1]]):
                mujoco.mj_contactForce(model, data, i, force)
                result += force[0]
        return result

    return total


def zero_crossings(times: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Times where ``values`` changes sign, linearly interpolated between samples."""
    index = np.where(np.signbit(values[:-1]) != np.signbit(values[1:]))[0]
    t0, t1, v0, v1 = times[index], times[index + 1], values[index], values[index + 1]
    return t0 - v0 * (t1 - t0) / (v1 - v0)


@pytest.fixture
def period_of() -> Callable[[np.ndarray, np.ndarray], float]:
    """``period_of(times, values)``: the mean period from the zero crossings (first to last, whole half-periods)."""

    def period(times: np.ndarray, values: np.ndarray) -> float:
        crossings = zero_crossings(times, values)
        assert len(crossings) >= 5, "not enough oscillations"
        return 2.0 * (crossings[-1] - crossings[0]) / (len(crossings) - 1)

    return period


@pytest.fixture
def record() -> Callable[[Simulation, float, Callable[[Simulation], float]], tuple[np.ndarray, np.ndarray]]:
    """``record(sim, duration_s, read)``: (times, values) of ``read(sim)`` after every basic time step."""

    def run(sim: Simulation, duration_s: float, read: Callable[[Simulation], float]) -> tuple[np.ndarray, np.ndarray]:
        times, values = [0.0], [read(sim)]
        steps = round(duration_s * 1000.0 / sim.basic_time_step_ms)
        for _ in range(steps):
            sim.step()
            times.append(sim.time_s)
            values.append(read(sim))
        return np.asarray(times), np.asarray(values)

    return run
