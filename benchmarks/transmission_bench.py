"""Benchmark: joint-from-actuator maps per second, vectorised functional API vs. a Python loop over handles.

Run from the repository root::

    python benchmarks/transmission_bench.py

For each transmission and batch size (1, 1 000 and 1 000 000 robots) it times the ``position`` map from
actuator to joint space:

- functional: one call ``actuator_to_joint_values("position", values)`` on a float64 array of shape
  (robots, n_actuators);
- handle loop (the baseline): one configured transmission with one handle per joint and actuator, and a
  plain Python loop that, for every robot, writes its actuator values into the handles, calls
  ``actuator_to_joint()`` and reads the joint values back into a list. Reusing one transmission is the
  cheapest way to use the handle API (one transmission per robot would add the cost of touching a million
  objects), so the baseline is, if anything, flattering. Its cost is linear in the number of robots, so for
  large batches the loop is timed on the first ``LOOP_SAMPLE`` robots only and reported per robot.

Each figure is the median of ``REPEATS`` timings with :func:`time.perf_counter`; every timing runs the
operation often enough to last at least ``MIN_TIME`` seconds, so it measures warm, repeated calls: for the
simple transmission the 1 000 000-robot arrays (8 MB in, 8 MB out) can stay in a large L3 cache, and a single
cold call (fresh pages) can be several times slower. The whole run takes well under a minute.
"""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable

import numpy as np

from wbsim.transmission import (
    ActuatorHandle,
    DifferentialTransmission,
    FourBarLinkageTransmission,
    JointHandle,
    SimpleTransmission,
    Transmission,
)

BATCHES = (1, 1_000, 1_000_000)
LOOP_SAMPLE = 20_000  # robots timed in the handle loop for larger batches
REPEATS = 7
MIN_TIME = 0.1  # seconds per timing
INTERFACE = "position"


def median_seconds(operation: Callable[[], object]) -> float:
    """Median wall time of one ``operation()`` call, over REPEATS timings of at least MIN_TIME each."""
    calls = 1
    while True:  # calibrate: double the number of calls until one timing lasts MIN_TIME
        start = time.perf_counter()
        for _ in range(calls):
            operation()
        if time.perf_counter() - start >= MIN_TIME:
            break
        calls *= 2
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(calls):
            operation()
        samples.append((time.perf_counter() - start) / calls)
    return statistics.median(samples)


def functional_rate(trans: Transmission, values: np.ndarray) -> float:
    """Maps per second (robots per second) of one vectorised call on ``values`` (robots, n_actuators)."""
    seconds = median_seconds(lambda: trans.actuator_to_joint_values(INTERFACE, values))
    return len(values) / seconds


def handle_loop_rate(trans: Transmission, values: np.ndarray) -> float:
    """Maps per second of a Python loop over robots through the handle API (see the module docstring)."""
    actuators = [ActuatorHandle(f"act{k + 1}", INTERFACE) for k in range(trans.num_actuators())]
    joints = [JointHandle(f"joint{k + 1}", INTERFACE) for k in range(trans.num_joints())]
    trans.configure(joints, actuators)
    rows = values[:LOOP_SAMPLE].tolist()

    def loop() -> list[list[float]]:
        out = []
        for row in rows:
            for handle, value in zip(actuators, row, strict=True):
                handle.set_value(value)
            trans.actuator_to_joint()
            out.append([handle.get_value() for handle in joints])
        return out

    # Sanity check: both paths compute the same numbers.
    assert np.array_equal(np.array(loop()), trans.actuator_to_joint_values(INTERFACE, values[: len(rows)]))
    return len(rows) / median_seconds(loop)


def main() -> None:
    rng = np.random.default_rng(1234)
    transmissions: list[tuple[str, Transmission]] = [
        ("simple", SimpleTransmission(50.0, 0.5)),
        ("differential", DifferentialTransmission((50.0, -50.0), (2.0, -2.0), (0.5, -0.5))),
        ("four-bar", FourBarLinkageTransmission((50.0, -50.0), (2.0, -2.0), (0.5, -0.5))),
    ]
    print(f"Python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    print(f"actuator_to_joint ({INTERFACE}), median of {REPEATS}; maps/s = robots mapped per second")
    header = (
        f"{'transmission':<13}{'robots':>10}{'functional maps/s':>20}{'handle loop maps/s':>21}{'ratio':>10}"
    )
    print(header)
    print("-" * len(header))
    started = time.perf_counter()
    for name, trans in transmissions:
        for batch in BATCHES:
            values = rng.uniform(-10.0, 10.0, (batch, trans.num_actuators()))
            fast = functional_rate(trans, values)
            slow = handle_loop_rate(trans, values)
            print(f"{name:<13}{batch:>10,}{fast:>20,.0f}{slow:>21,.0f}{fast / slow:>9,.1f}x")
    print(
        f"(handle loop timed on at most {LOOP_SAMPLE:,} robots; total {time.perf_counter() - started:.0f} s)"
    )


if __name__ == "__main__":
    main()
