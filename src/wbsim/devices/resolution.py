"""Webots' sensor resolution: ``(int)(v / r + 0.5) * r`` (``WbMathsUtilities::discretize``).

The C cast truncates toward zero, so small negative values fall into a dead band (-1.2 with r = 1
gives 0, -1.6 gives -1), exactly as in Webots. ``r = -1`` means infinite resolution.
"""

from __future__ import annotations

import numpy as np

__all__ = ["quantize"]


def quantize(values: np.ndarray, resolution: np.ndarray) -> np.ndarray:
    """Webots' discretisation where ``resolution > 0``; values unchanged elsewhere (same shapes, broadcast)."""
    r = np.where(resolution > 0, resolution, 1.0)
    return np.where(resolution > 0, np.trunc(values / r + 0.5) * r, values)
