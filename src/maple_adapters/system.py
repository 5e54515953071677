"""The real clock: the only place maple reads the time (and sleeps on it)."""

from __future__ import annotations

import time
from datetime import UTC, datetime

__all__ = ["SystemClock"]


class SystemClock:
    """The system's UTC wall clock and monotonic clock, and ``time.sleep``."""

    def now(self) -> datetime:
        """The current UTC time."""
        return datetime.now(UTC)

    def monotonic(self) -> float:
        """Seconds on the monotonic clock."""
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        """Pause the calling thread for ``seconds``."""
        time.sleep(seconds)
