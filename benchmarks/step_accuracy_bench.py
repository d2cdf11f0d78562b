"""Speed against accuracy of the physics step: the demo rover (benchmark controller driving its wheels at
about 6 rad/s, ``sim_bench.make_project``) run with ``max_physics_step_ms`` 2, 4, 8 and 16 (basicTimeStep 16
ms: 8, 4, 2 and 1 MuJoCo steps per basic step). Printed: CPU time per simulated second, the wheels' velocity
tracking error (mean |joint velocity - commanded velocity| over the run, rad/s) and the resting penetration
(mean contact depth of the rover's contacts with the floor, mm).

Run: ``python benchmarks/step_accuracy_bench.py``.
"""

from __future__ import annotations

import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sim_bench import make_project  # noqa: E402


def measure(path: Path, max_step_ms: float, seconds: float = 3.0) -> tuple[float, float, float]:
    """(CPU s per simulated s, mean wheel velocity error rad/s, mean contact depth mm) of one run."""
    from wbsim.sim.simulation import load_world

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = load_world(path, max_physics_step_ms=max_step_ms)
    sim.run(0.5)  # controllers started, the rover landed and moving
    bank = sim.banks["motor"]
    dofs = np.array([b.joint.dof_adr for b in sim.bindings.devices["motor"]])
    errors, depths = [], []
    steps = int(seconds * 1000 / sim.basic_time_step_ms)
    start = time.process_time()
    for _ in range(steps):
        sim.step()
        errors.append(np.abs(sim.data.qvel[dofs] - bank.target_velocity).mean())
        ncon = sim.data.ncon
        if ncon:
            depths.append(-np.minimum(sim.data.contact.dist[:ncon], 0.0).mean())
    cpu = time.process_time() - start
    sim.close()
    return cpu / seconds, float(np.mean(errors)), 1000.0 * float(np.mean(depths))


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        path = make_project(Path(tmp), 1)
        print(f"{'max_physics_step_ms':>20}{'CPU s / sim s':>16}{'wheel vel. error rad/s':>26}{'contact depth mm':>20}")
        for step in (2.0, 4.0, 8.0, 16.0):
            cpu, error, depth = measure(path, step)
            print(f"{step:>20g}{cpu:>16.4f}{error:>26.5f}{depth:>20.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
