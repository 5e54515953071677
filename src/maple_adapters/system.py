"""The real clock: the only place maple reads the time."""

from __future__ import annotations

import time
from datetime import UTC, datetime

__all__ = ["SystemClock"]


class SystemClock:
    """The system's UTC wall clock and monotonic clock."""

    def now(self) -> datetime:
        """The current UTC time."""
        return datetime.now(UTC)

    def monotonic(self) -> float:
        """Seconds on the monotonic clock."""
        return time.monotonic()
