"""Python's cyclic garbage collector paused while a large world is built.

Loading a world allocates hundreds of thousands of long-lived objects (tokens, syntax nodes, checked nodes,
compile records) and almost no reference cycles that die. The collector's full passes walk every live
object, and their number grows with the world: at 1,000 robots they took about a third of parsing and
checking. Reference counting still frees what the load drops; cycles left, if any, are collected once the
collector runs again after the load.

After a large block, one pass of the two younger generations moves what survives it to the oldest
generation: left in the youngest generation, all of it was walked by the first pass after the load (0.26 s
after 1,000 robots) and again by the next pass of the middle generation (0.24 s). That pass is also what
counts the survivors toward the collector's trigger for full passes (they run once the objects that reached
the oldest generation since the last one number a quarter of those it kept). Objects moved there without it
(``gc.freeze`` then ``gc.unfreeze``, list splices) were never counted: a host loading worlds in a loop and
dropping each (a world's nodes hold their parents: reference cycles) then had no full pass to free them, and
its memory grew with every load.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["PROMOTED_FROM", "paused_collection", "promote_survivors"]

PROMOTED_FROM = 50_000
"""Objects allocated and still tracked in the youngest generation from which a paused block that ends moves
them to the oldest one (about 100 demo robots; the youngest generation's next pass would walk them all,
tens of ms). Smaller blocks, such as a supervisor importing a node, leave the generations as they are."""


def promote_survivors() -> None:
    """Move the objects of the two younger generations that are not garbage to the oldest generation, with
    one pass over them (``gc.collect(1)``: counted toward the trigger of full passes as the collector's own
    passes count them), then let the collector's own check decide whether a full pass is due.

    The check runs when the youngest generation's count passes its threshold; the pass reset the count, and a
    host that loads worlds in a loop may allocate almost nothing between loads, so enough empty lists (tracked
    objects, freed at once; the first ones may come from the lists' free list, not counted) are made with the
    collector enabled to run it: a youngest-generation pass over them, or the full pass the collector's rule
    calls for. Objects the host froze are not touched.
    """
    gc.collect(1)
    threshold = gc.get_threshold()[0]
    if threshold > 0 and gc.isenabled():
        [[] for _ in range(threshold + 200)]  # noqa: B018 - allocated for the collector's check, then freed


@contextmanager
def paused_collection() -> Iterator[None]:
    """Disable the cyclic garbage collector for the block; it is enabled again at the end only if it was
    enabled at the start (nested blocks and a host that disabled it itself keep their state). A block that
    enables it again, ends without an error and leaves at least :data:`PROMOTED_FROM` objects in the youngest
    generation first moves the survivors to the oldest generation (:func:`promote_survivors`)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    except BaseException:
        if enabled:
            gc.enable()
        raise
    if enabled:
        gc.enable()
        if gc.get_count()[0] >= PROMOTED_FROM:
            promote_survivors()
