"""Where simulator messages go: Webots-style warnings and errors, printed and kept for inspection."""

from __future__ import annotations

import sys
from collections import deque

__all__ = ["MessageLog"]


class MessageLog:
    """Prints simulator messages to the current ``sys.stderr`` and keeps the latest ones.

    Args:
        keep: how many recent messages to keep in :attr:`recent` (bounded so long runs use constant memory).
    """

    def __init__(self, keep: int = 1000) -> None:
        self.recent: deque[str] = deque(maxlen=keep)

    def warning(self, text: str) -> None:
        """Print ``WARNING: text`` (the Webots console style for simulator-side warnings)."""
        self._emit(f"WARNING: {text}")

    def error(self, text: str) -> None:
        """Print ``Error: text`` (the controller library's style)."""
        self._emit(f"Error: {text}")

    def info(self, text: str) -> None:
        """Print an informational line."""
        self._emit(f"INFO: {text}")

    def _emit(self, line: str) -> None:
        self.recent.append(line)
        print(line, file=sys.stderr, flush=True)
