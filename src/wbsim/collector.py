"""Python's cyclic garbage collector paused while a large world is built.

Loading a world allocates hundreds of thousands of long-lived objects (tokens, syntax nodes, checked nodes,
compile records) and almost no reference cycles that die. The collector's full passes walk every live
object, and their number grows with the world: at 1,000 robots they took about a third of parsing and
checking. Reference counting still frees what the load drops; cycles left, if any, are collected once the
collector runs again after the load.

After a large block, what survives it is handed to the collector's oldest generation directly, where the
passes of the younger generations would have moved it one pass at a time: left in the youngest generation,
all of it was walked by the first pass after the load (0.26 s after 1,000 robots) and again by the next
pass of the middle generation (0.24 s), then by full passes, which still walk it.
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
    """Move every object the collector tracks into its oldest generation without walking them.

    ``gc.freeze`` moves all generations into the permanent one and ``gc.unfreeze`` puts it back into the
    oldest generation: list splices, whatever their length. Nothing is done if the host has frozen objects
    itself, as the unfreeze would release them too.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


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
        if gc.get_count()[0] >= PROMOTED_FROM:
            promote_survivors()
        gc.enable()
