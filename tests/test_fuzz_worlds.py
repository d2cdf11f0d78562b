"""Mutated worlds give a typed wbsim error or load, compile and step (issue 15's fuzz audit, kept as a test).

The mutator is the one of ``benchmarks/fuzz_worlds.py`` (the longer run); hypothesis draws the mutations
and shrinks a failing world to a small one. Bounded to a few seconds.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import fuzz_worlds  # noqa: E402


@pytest.mark.parametrize("seed_world", fuzz_worlds.SEED_WORLDS)
def test_seed_worlds_load_and_step(seed_world: str) -> None:
    outcome = fuzz_worlds.run_world(fuzz_worlds.HEADER + seed_world)
    assert outcome.kind == "loaded", outcome.detail


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(index=st.integers(0, len(fuzz_worlds.SEED_WORLDS) - 1), rng=st.randoms(use_true_random=False),
       count=st.integers(1, 4))
def test_mutated_worlds_give_a_typed_error_or_load_and_step(index: int, rng, count: int) -> None:  # noqa: ANN001
    text = fuzz_worlds.mutate(fuzz_worlds.HEADER + fuzz_worlds.SEED_WORLDS[index], rng, count)
    outcome = fuzz_worlds.run_world(text)
    assert outcome.kind in ("loaded", "refused"), f"{outcome.detail}\n--- world:\n{text}"


def test_run_world_reports_non_wbsim_exceptions_as_failures(monkeypatch: pytest.MonkeyPatch) -> None:
    # What the fuzzer looks for: any exception escaping wbsim that is not a WbsimError.
    import wbsim.compile.builder as builder

    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(builder, "compile_world", broken)
    outcome = fuzz_worlds.run_world(fuzz_worlds.HEADER + fuzz_worlds.SEED_WORLDS[0])
    assert outcome.kind == "failed" and "ZeroDivisionError" in outcome.detail
    assert fuzz_worlds.run_world(fuzz_worlds.HEADER + "Box {").kind == "refused"


def test_mutations_are_reproducible_for_a_seed() -> None:
    import random

    world = fuzz_worlds.HEADER + fuzz_worlds.SEED_WORLDS[1]
    first = fuzz_worlds.mutate(world, random.Random(7), 4)
    assert first == fuzz_worlds.mutate(world, random.Random(7), 4) and first != world
    assert first.startswith(fuzz_worlds.HEADER)
