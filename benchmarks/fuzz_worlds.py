"""World fuzzer: mutated worlds must give a typed wbsim error or load, compile and step.

Each run takes a few small seed worlds (joints, motors, sensors, contacts, radio, connectors), applies
random token-level mutations (numbers replaced by extreme values, tokens dropped, duplicated or swapped,
the text cut short, stray characters inserted) and feeds every result to wbsim: parse and check, compile,
build the simulation and run one step. Every outcome is acceptable except an exception that is not a
:class:`wbsim.errors.WbsimError` (a Python traceback from inside wbsim) or a world that takes too long.

The suite runs the same mutator under hypothesis for a few seconds (``tests/test_fuzz_worlds.py``); this
script is the longer run::

    python benchmarks/fuzz_worlds.py --seconds 600 --seed 1 --out /tmp/fuzz-failures

It prints one line per failure (and writes the world that caused it to ``--out``), then a summary.
"""

from __future__ import annotations

import argparse
import random
import re
import signal
import sys
import time
import traceback
import warnings
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["SEED_WORLDS", "EXTREME_NUMBERS", "mutate", "run_world", "Outcome", "main"]

HEADER = "#VRML_SIM R2023b utf8\n"

SEED_WORLDS: tuple[str, ...] = (
    # A two-wheeled robot with motors, encoders, a bumper and a distance sensor, on a floor.
    """WorldInfo { basicTimeStep 16 contactProperties [ ContactProperties { material2 "rubber" coulombFriction [ 0.8 ]
  bounce 0.1 softERP 0.3 softCFM 0.0005 } ] }
Solid { boundingObject Plane { size 5 5 } }
Robot { translation 0 0 0.05 name "rover" controller "<none>" children [
  HingeJoint { jointParameters HingeJointParameters { axis 0 1 0 anchor 0 0.08 0 minStop -1 maxStop 1 position 0.1 }
    device [ RotationalMotor { name "left" maxVelocity 10 maxTorque 2 } PositionSensor { name "left enc" } ]
    endPoint Solid { translation 0 0.08 0 rotation 1 0 0 1.5708 contactMaterial "rubber"
      physics Physics { density 800 } boundingObject Cylinder { radius 0.04 height 0.02 } } }
  SliderJoint { jointParameters JointParameters { axis 0 0 1 minStop 0 maxStop 0.1 springConstant 5 dampingConstant 0.1 }
    device [ LinearMotor { name "lift" maxForce 20 } ]
    endPoint Solid { translation 0 0 0.06 physics Physics { mass 0.2 centerOfMass [ 0 0 0.01 ] }
      boundingObject Box { size 0.05 0.05 0.02 } } }
  TouchSensor { translation 0.1 0 0 name "bumper" boundingObject Box { size 0.02 0.1 0.04 } }
  DistanceSensor { translation 0.1 0 0.02 name "ds" numberOfRays 3 aperture 0.3
    lookupTable [ 0 0 0 0.5 1000 0.01 ] }
]
  boundingObject Box { size 0.2 0.12 0.05 } physics Physics { density -1 mass 1.5 } }
""",
    # Free bodies, a pendulum on a static Solid and a kinematic arm.
    """WorldInfo { basicTimeStep 8 gravity 9.81 physicsDisableTime 0.5 defaultDamping Damping { linear 0.1 } }
Solid { boundingObject Plane { } }
DEF BALL Solid { translation 0 0 1 physics Physics { density 500 } boundingObject Sphere { radius 0.1 }
  linearVelocity 0.5 0 0 angularVelocity 0 0 1 }
DEF PIVOT Solid { translation 1 0 2 children [
  HingeJoint { jointParameters HingeJointParameters { axis 1 0 0 dampingConstant 0.01 }
    endPoint Solid { translation 0 0 -0.5 physics Physics { mass 1 inertiaMatrix [ 0.01 0.01 0.01, 0 0 0 ] }
      boundingObject Capsule { radius 0.03 height 0.4 } } }
  BallJoint { jointParameters BallJointParameters { anchor 0 0 0 }
    endPoint Solid { translation 0.3 0 0 physics Physics { } boundingObject Box { size 0.1 0.1 0.1 } } }
  HingeJoint { device [ RotationalMotor { name "arm" } ]
    endPoint Solid { translation 0 0.4 0 boundingObject Box { size 0.05 0.3 0.05 } } }
] }
Pose { translation 0 2 0 rotation 0 0 1 0.5 children [
  Solid { name "mesh" boundingObject IndexedFaceSet { coord Coordinate { point [ 0 0 0, 1 0 0, 0 1 0, 0 0 1 ] }
    coordIndex [ 0 2 1 -1 0 1 3 -1 0 3 2 -1 1 2 3 -1 ] } physics Physics { } }
] }
""",
    # Sensors, radio, a connector pair and an LED on a supervisor robot.
    """WorldInfo { basicTimeStep 32 randomSeed 3 gpsCoordinateSystem "WGS84" gpsReference 46.5 6.6 400 }
Solid { boundingObject Plane { } }
Robot { name "probe" controller "<none>" supervisor TRUE translation 0 0 0.2 children [
  GPS { name "gps" accuracy 0.1 } Accelerometer { lookupTable [ -20 -20 0 20 20 0.01 ] } Gyro { }
  Compass { } InertialUnit { noise 0.01 } Altimeter { }
  Emitter { channel 1 range 10 } Receiver { channel 1 bufferSize 64 }
  LED { color [ 1 0 0 ] } Connector { translation 0 0 -0.1 type "active" isLocked TRUE autoLock TRUE }
  Lidar { horizontalResolution 64 fieldOfView 1.5 numberOfLayers 2 verticalFieldOfView 0.2 maxRange 5 }
]
  physics Physics { } boundingObject Box { size 0.2 0.2 0.1 } }
Robot { name "dock" controller "<none>" translation 0 0 0.05 children [
  Connector { translation 0 0 0.06 rotation 0 1 0 3.14159 type "passive" }
] }
""",
)

EXTREME_NUMBERS: tuple[str, ...] = (
    "0", "-0", "1", "-1", "2", "0.5", "-0.5", "3.14159", "-3.2", "6.3", "1e-9", "1e9", "1e12", "-1e9", "1e13",
    "1e100", "-1e100", "1e200", "1e300", "-1e300", "1.7976931348623157e308", "5e-324", "1e-310", "2.2e-308",
    "2147483647", "-2147483648", "4294967296", "nan", "inf", "-inf", "1e-15", "100000", "1e5", "0.001",
)
_STRAYS: tuple[str, ...] = ("{", "}", "[", "]", "\"", "#", "\x00", "USE", "DEF", "NULL", "IS", ",", "é", "\n",
                            "TRUE", "Solid { }", "Physics { }", "\\", "Robot { controller \"<none>\" }")
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[^\s{}\[\],"]+|[{}\[\],]')
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def _tokens(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _TOKEN.finditer(text)]


def mutate(text: str, rng: random.Random, count: int = 3) -> str:
    """``text`` after ``count`` random token-level mutations drawn from ``rng`` (deterministic for a seed).

    Mutations: a number replaced by an extreme value (most likely), a token deleted, duplicated or
    swapped with another, the text cut short, a stray character or snippet inserted.
    """
    header, body = (HEADER, text[len(HEADER):]) if text.startswith(HEADER) else ("", text)
    for _ in range(count):
        spans = _tokens(body)
        if not spans:
            break
        kind = rng.choices(("number", "delete", "duplicate", "swap", "truncate", "insert"),
                           weights=(6, 2, 2, 1, 1, 2))[0]
        start, end = spans[rng.randrange(len(spans))]
        if kind == "number":
            numbers = [s for s in spans if _NUMBER.match(body[s[0]:s[1]])]
            if numbers:
                start, end = numbers[rng.randrange(len(numbers))]
            body = body[:start] + rng.choice(EXTREME_NUMBERS) + body[end:]
        elif kind == "delete":
            body = body[:start] + body[end:]
        elif kind == "duplicate":
            body = body[:end] + " " + body[start:end] + body[end:]
        elif kind == "swap":
            other_start, other_end = spans[rng.randrange(len(spans))]
            if other_start > start:
                body = (body[:start] + body[other_start:other_end] + body[end:other_start] + body[start:end]
                        + body[other_end:])
        elif kind == "truncate":
            body = body[: rng.randrange(len(body) + 1)]
        else:
            at = rng.randrange(len(body) + 1)
            body = body[:at] + " " + rng.choice(_STRAYS) + " " + body[at:]
    return header + body


class Outcome:
    """What happened to one world: ``"loaded"`` (it compiled and stepped), ``"refused"`` (a typed wbsim
    error, the message in ``detail``) or ``"failed"`` (any other exception, its traceback in ``detail``)."""

    def __init__(self, kind: str, detail: str = "") -> None:
        self.kind = kind
        self.detail = detail

    def __repr__(self) -> str:
        return f"Outcome({self.kind!r})"


def run_world(text: str, file: str = "fuzz.wbt") -> Outcome:
    """Check, compile, build and step one world; never raises (except ``KeyboardInterrupt``)."""
    from wbsim.compile.builder import compile_world
    from wbsim.errors import WbsimError
    from wbsim.sim.simulation import Simulation, SimulationOptions
    from wbsim.world.loader import load_world_model_from_string

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = load_world_model_from_string(text, file)
            compiled = compile_world(model)
            sim = Simulation(compiled, SimulationOptions(start_controllers=False))
            try:
                sim.step()
            finally:
                sim.close()
    except WbsimError as error:
        return Outcome("refused", str(error))
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001 - every other exception is what the fuzzer looks for
        return Outcome("failed", traceback.format_exc())
    return Outcome("loaded")


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Raise TimeoutError in the block after ``seconds`` of wall time (POSIX main thread only)."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"the world took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def main(argv: list[str] | None = None) -> int:
    """Fuzz for ``--seconds``; returns 1 if any world failed (or hung), else 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="wall time to fuzz for")
    parser.add_argument("--seed", type=int, default=0, help="random seed (runs are reproducible)")
    parser.add_argument("--mutations", type=int, default=4, help="most mutations per world")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds one world may take")
    parser.add_argument("--out", type=Path, help="folder for the worlds that failed")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    counts: Counter[str] = Counter()
    failures = 0
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        seed_world = HEADER + rng.choice(SEED_WORLDS)
        text = mutate(seed_world, rng, rng.randint(1, args.mutations))
        try:
            with _deadline(args.timeout):
                outcome = run_world(text)
        except TimeoutError as error:
            outcome = Outcome("failed", f"hang: {error}")
        counts[outcome.kind] += 1
        if outcome.kind == "failed":
            failures += 1
            last = outcome.detail.strip().splitlines()[-1]
            print(f"FAILED #{failures}: {last}")
            if args.out is not None:
                args.out.mkdir(parents=True, exist_ok=True)
                (args.out / f"failure-{failures}.wbt").write_text(text, encoding="utf-8")
                (args.out / f"failure-{failures}.txt").write_text(outcome.detail, encoding="utf-8")
    total = sum(counts.values())
    print(f"{total} worlds: {counts['loaded']} loaded and stepped, {counts['refused']} refused with a typed error, "
          f"{counts['failed']} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
