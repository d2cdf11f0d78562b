"""The paused garbage collector during loads."""

from __future__ import annotations

import gc

import pytest

from wbsim.collector import paused_collection


@pytest.fixture(autouse=True)
def _restore_collector():
    enabled = gc.isenabled()
    yield
    if enabled:
        gc.enable()
    else:
        gc.disable()


def test_the_collector_is_paused_inside_and_enabled_again_after():
    gc.enable()
    with paused_collection():
        assert not gc.isenabled()
        with paused_collection():  # nested: the inner block does not enable it early
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_an_error_inside_enables_it_again():
    gc.enable()
    with pytest.raises(ValueError):
        with paused_collection():
            raise ValueError("boom")
    assert gc.isenabled()


def test_a_collector_the_host_disabled_stays_disabled():
    gc.disable()
    with paused_collection():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_loading_a_world_pauses_the_collector_and_leaves_it_enabled(project, load, monkeypatch):
    from wbsim.world import checker

    seen = []
    original = checker.Checker.check_world

    def check_world(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        seen.append(gc.isenabled())
        return original(self, *args, **kwargs)

    monkeypatch.setattr(checker.Checker, "check_world", check_world)
    gc.enable()
    sim = load(project('Robot { name "r" controller "<none>" }'))
    assert seen == [False] and gc.isenabled()
    sim.step()
