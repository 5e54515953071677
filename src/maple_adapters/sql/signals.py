"""The SQL store's change signals: a repository's change version, and what wakes a waiter.

Every write bumps the repository's ``version`` in ``maple_ledgers`` in its own transaction; a
signal's token is that version as a read found it, and a wait ends once the database holds
another. What tells a waiter to look again differs:

- on PostgreSQL, the process's :class:`~maple_adapters.sql.listener.Notifications` (one
  ``LISTEN`` connection), so a write through any worker on any machine wakes it within
  milliseconds, and the database is asked directly while that channel is down;
- on SQLite (one box), the database file and its write-ahead log are watched with a 5 ms
  ``stat`` loop, as the file store watches its ledger: any commit by any process changes the
  log, and only then is the version read. Every wait also reads it once when it begins.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Hashable

from maple_adapters.sql.listener import Notifications

__all__ = ["PostgresChangeSignal", "SqliteChangeSignal"]

_STEP_S = 0.005


def _identity(path: str) -> Hashable:
    found: list[tuple[int, int, int] | None] = []
    for name in (path, path + "-wal"):
        try:
            stat = os.stat(name)
        except OSError:
            found.append(None)
        else:
            found.append((stat.st_ino, stat.st_size, stat.st_mtime_ns))
    return tuple(found)


class SqliteChangeSignal:
    """Wakes when another commit changed the repository's version (the file watched by stat)."""

    def __init__(self, version: Callable[[], int], path: str) -> None:
        self._version = version
        self._path = path

    def token(self) -> Hashable:
        """The repository's change version now."""
        return self._version()

    def wait(self, token: Hashable, timeout: float) -> bool:
        """Block until the version differs from ``token`` (True) or ``timeout`` seconds pass."""
        deadline = time.monotonic() + timeout
        seen: Hashable = object()
        while True:
            identity = _identity(self._path)
            if identity != seen:
                seen = identity
                if self._version() != token:
                    return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            time.sleep(min(_STEP_S, remaining))


class PostgresChangeSignal:
    """Wakes when a notification (or, with the channel down, the database) tells of a change."""

    def __init__(
        self, version: Callable[[], int], notifications: Notifications, repository: str
    ) -> None:
        self._version = version
        self._notifications = notifications
        self._repository = repository

    def token(self) -> Hashable:
        """The repository's change version now."""
        return self._version()

    def wait(self, token: Hashable, timeout: float) -> bool:
        """Block until the version differs from ``token`` (True) or ``timeout`` seconds pass.

        The epoch is read before the database, so a change committed after that read is either
        told by the channel or, if the channel was lost meanwhile, found by asking again.
        """
        if not isinstance(token, int):
            return True  # not a token of ours: look again
        notifications = self._notifications
        deadline = time.monotonic() + timeout
        while True:
            epoch = notifications.epoch
            if self._version() != token:
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if notifications.wait(self._repository, token, epoch, remaining):
                return True
