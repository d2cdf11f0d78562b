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


def test_compiling_and_setting_up_a_simulation_pause_the_collector(project, monkeypatch):
    # The load benchmark and hosts call compile_world and Simulation directly, not only through load_world.
    import warnings

    from wbsim.compile import builder
    from wbsim.sim.simulation import Simulation
    from wbsim.world.loader import load_world_model

    seen = []
    compile_spec, make_banks = builder._compile_spec, Simulation._make_banks

    def spied_compile_spec(*args):  # noqa: ANN002, ANN202
        seen.append(("compile", gc.isenabled()))
        return compile_spec(*args)

    def spied_make_banks(self):  # noqa: ANN001, ANN202
        seen.append(("simulation", gc.isenabled()))
        return make_banks(self)

    monkeypatch.setattr(builder, "_compile_spec", spied_compile_spec)
    monkeypatch.setattr(Simulation, "_make_banks", spied_make_banks)
    path = project('Robot { name "r" controller "<none>" }')
    gc.enable()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = Simulation(builder.compile_world(load_world_model(path)))
    assert seen == [("compile", False), ("simulation", False)] and gc.isenabled()
    sim.step()
    sim.close()


class _Marker:
    """An object the collector tracks, found by identity in its generations."""


def _generation_of(marker: _Marker) -> int | None:
    for generation in range(3):
        if any(o is marker for o in gc.get_objects(generation=generation)):
            return generation
    return None


def test_a_large_block_leaves_its_survivors_in_the_oldest_generation():
    from wbsim.collector import PROMOTED_FROM

    gc.enable()
    with paused_collection():
        marker = _Marker()
        kept = [[] for _ in range(PROMOTED_FROM)]  # tracked objects, as a large load makes
    assert _generation_of(marker) == 2
    assert gc.isenabled() and gc.get_freeze_count() == 0
    del kept


def test_a_small_block_leaves_the_generations_as_they_are():
    gc.enable()
    gc.collect()
    with paused_collection():
        marker = _Marker()
    assert _generation_of(marker) == 0


def test_objects_the_host_froze_stay_frozen():
    from wbsim.collector import PROMOTED_FROM

    gc.enable()
    gc.freeze()
    frozen = gc.get_freeze_count()
    try:
        with paused_collection():
            marker = _Marker()
            kept = [[] for _ in range(PROMOTED_FROM)]
        assert gc.get_freeze_count() == frozen
        assert _generation_of(marker) == 2  # the survivors' pass leaves the frozen objects where they are
        del kept
    finally:
        gc.unfreeze()


def test_a_block_ended_by_an_error_promotes_nothing():
    from wbsim.collector import PROMOTED_FROM

    gc.enable()
    gc.collect()
    kept = []
    with pytest.raises(ValueError):
        with paused_collection():
            kept.append(_Marker())
            kept.extend([] for _ in range(PROMOTED_FROM))
            raise ValueError("boom")
    assert _generation_of(kept[0]) in (0, 1)  # the youngest generation's pass after the block may have run


def test_a_cycle_dropped_in_a_large_block_is_still_collected():
    import weakref

    from wbsim.collector import PROMOTED_FROM

    gc.enable()
    with paused_collection():
        cycle = _Marker()
        cycle.self = cycle  # type: ignore[attr-defined]
        watch = weakref.ref(cycle)
        del cycle
        kept = [[] for _ in range(PROMOTED_FROM)]
    assert watch() is None  # freed by the pass that moves the survivors
    del kept


def _cycle_of_lists(count: int) -> list[list]:
    """``count`` lists, each holding the next (the last the first): one reference cycle, as a world's tree
    with its parent links is."""
    lists: list[list] = [[] for _ in range(count)]
    for a, b in zip(lists, lists[1:] + lists[:1]):
        a.append(b)
    return lists


def test_large_blocks_whose_survivors_are_dropped_in_a_loop_do_not_grow_without_bound(monkeypatch):
    """A host loading worlds in a loop (each load a large block; the previous world, a reference cycle,
    dropped) with nothing else between: what the collector tracks stays bounded (full passes run, about every
    11 blocks by the collector's rule). Survivors moved to the oldest generation by gc.freeze and gc.unfreeze
    never counted toward the trigger of full passes, so the dropped worlds were never collected (40 blocks: 40
    worlds kept)."""
    from wbsim import collector

    monkeypatch.setattr(collector, "PROMOTED_FROM", 5_000)  # small blocks: the rule counts passes, not sizes
    gc.enable()
    gc.collect()
    baseline = len(gc.get_objects())
    sizes = []
    for _ in range(40):
        with paused_collection():
            world = _cycle_of_lists(6_000)
        del world
        sizes.append(len(gc.get_objects()) - baseline)
    assert max(sizes) < 20 * 6_000, sizes


def test_parsing_worlds_in_a_loop_does_not_grow_without_bound(project, monkeypatch):
    """The same with the loader itself: 40 loads of a world of 300 Solids, each dropped (its nodes hold their
    parents: cycles), parse and check only, as a tool checking worlds does (a large block from 5,000 objects
    here; 40 dropped worlds were kept)."""
    import warnings

    from wbsim import collector
    from wbsim.world.loader import load_world_model

    monkeypatch.setattr(collector, "PROMOTED_FROM", 5_000)
    solid = "Solid { children [ Shape { geometry Box { size 0.1 0.2 0.3 } } ] boundingObject Box { } }\n"
    path = project(solid * 300)
    gc.enable()
    gc.collect()
    baseline = len(gc.get_objects())
    sizes = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(40):
            model = load_world_model(path)
            del model
            sizes.append(len(gc.get_objects()) - baseline)
    assert sizes[0] > 5_000, sizes  # what one dropped world leaves to the collector
    assert max(sizes) < 20 * sizes[0], sizes
