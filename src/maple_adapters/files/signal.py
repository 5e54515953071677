"""Wake a waiter when a ledger file changes, by watching its identity with a cheap stat loop."""

from __future__ import annotations

import os
import time
from collections.abc import Hashable
from pathlib import Path

__all__ = ["FileChangeSignal"]

_STEP_S = 0.005


def _identity(path: Path) -> Hashable:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


class FileChangeSignal:
    """Wakes when the ledger at ``path`` is written (every write replaces it atomically).

    A stat costs microseconds, so checking every 5 ms wakes a waiter within a few milliseconds of
    a write by any process, with no watcher threads to leak.
    """

    def __init__(self, path: Path) -> None:
        self._path = path

    def token(self) -> Hashable:
        """The file's inode, size and times (``None`` while it does not exist)."""
        return _identity(self._path)

    def wait(self, token: Hashable, timeout: float) -> bool:
        """Block until the file's identity differs from ``token`` or ``timeout`` seconds pass."""
        deadline = time.monotonic() + timeout
        while _identity(self._path) == token:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            time.sleep(min(_STEP_S, remaining))
        return True
