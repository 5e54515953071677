"""Wake a waiter when a ledger file changes, by watching its identity with a cheap stat loop."""

from __future__ import annotations

import os
import time
from collections.abc import Hashable
from pathlib import Path

__all__ = ["FileChangeSignal"]

_STEP_S = 0.005
_CONTENT_BYTES = 65_536


def _identity(path: Path) -> Hashable:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def _content(path: Path) -> Hashable:
    """A small file written in place: its status and its bytes.

    Two writes in one tick of the file system's clock can leave the same size and times; a
    write read half-way only wakes a waiter early.
    """
    try:
        with open(path, "rb") as handle:
            return (_identity(path), handle.read(_CONTENT_BYTES))
    except OSError:
        return None


class FileChangeSignal:
    """Wakes when the ledger at ``path`` (or a small file in ``also``) is written.

    Every write replaces the ledger atomically, so its status names it; a file in ``also`` (the
    claims, written in place) is told by its bytes too. A stat costs microseconds, so checking
    every 5 ms wakes a waiter within a few milliseconds of a write by any process, with no
    watcher threads to leak.
    """

    def __init__(self, path: Path, *also: Path) -> None:
        self._path = path
        self._also = also

    def _identities(self) -> Hashable:
        return (_identity(self._path), *(_content(p) for p in self._also))

    def token(self) -> Hashable:
        """The files' inodes, sizes and times (``None`` for one that does not exist)."""
        return self._identities()

    def wait(self, token: Hashable, timeout: float) -> bool:
        """Block until the files' identities differ from ``token`` or ``timeout`` seconds pass."""
        deadline = time.monotonic() + timeout
        while self._identities() == token:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            time.sleep(min(_STEP_S, remaining))
        return True
