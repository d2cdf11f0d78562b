"""Python's cyclic garbage collector paused while a large world is built.

Loading a world allocates hundreds of thousands of long-lived objects (tokens, syntax nodes, checked nodes,
compile records) and almost no reference cycles that die. The collector's full passes walk every live
object, and their number grows with the world: at 1,000 robots they took about a third of parsing and
checking. Reference counting still frees what the load drops; cycles left, if any, are collected once the
collector runs again after the load.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused_collection"]


@contextmanager
def paused_collection() -> Iterator[None]:
    """Disable the cyclic garbage collector for the block; it is enabled again at the end only if it was
    enabled at the start (nested blocks and a host that disabled it itself keep their state)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
