"""How long a wait may last and how often it reports progress (the wait is ``wait_plan``)."""

from __future__ import annotations

import math

__all__ = [
    "DEFAULT_WAIT_MS",
    "MAX_WAIT_MS",
    "MIN_WAIT_MS",
    "PROGRESS_INTERVAL_MS",
    "clamp_wait_ms",
]

DEFAULT_WAIT_MS = 30_000
"""A wait's budget when none (or NaN, or an infinity) is asked for."""
MIN_WAIT_MS = 1_000
"""The shortest wait."""
MAX_WAIT_MS = 55_000
"""The longest wait: under every MCP client's tool-call ceiling of 60 s."""
PROGRESS_INTERVAL_MS = 15_000
"""How often a waiting tool reports progress."""


def clamp_wait_ms(requested: float | None) -> int:
    """Return the wait budget for a requested ``timeoutMs``.

    ``None``, NaN and ±∞ give the default; otherwise the value is truncated toward zero and held
    between :data:`MIN_WAIT_MS` and :data:`MAX_WAIT_MS`.
    """
    if requested is None or math.isnan(requested) or math.isinf(requested):
        return DEFAULT_WAIT_MS
    return max(MIN_WAIT_MS, min(MAX_WAIT_MS, math.trunc(requested)))
