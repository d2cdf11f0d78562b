"""A raised recursion limit for walking deeply nested scene trees."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["raised_recursion_limit", "DEEP_RECURSION_LIMIT"]

DEEP_RECURSION_LIMIT = 20_000
"""Enough for kinematic chains of several thousand links (a few frames per nesting level)."""


@contextmanager
def raised_recursion_limit(limit: int = DEEP_RECURSION_LIMIT) -> Iterator[None]:
    """Raise Python's recursion limit to at least ``limit`` for the duration of the block."""
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)
