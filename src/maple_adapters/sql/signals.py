"""The SQL store's change signals: a repository's change version, and what wakes a waiter.

Every write bumps the repository's ``version`` in ``maple_ledgers`` in its own transaction; a
signal's token is that version as a read found it, and a wait ends once the database holds
another. What tells a waiter to look again differs:

- on PostgreSQL, the process's :class:`~maple_adapters.sql.listener.Notifications` (one
  ``LISTEN`` connection), so a write through any worker on any machine wakes it within
  milliseconds, and the database is asked directly while that channel is down;
- on SQLite (one box), ``PRAGMA data_version`` on a connection of the wait's own, read every
  5 ms: it moves when any other connection, in any process, commits, and only then is the
  version read. (A ``stat`` of the write-ahead log would see a commit's frames before they are
  visible to a reader.)
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Hashable
from contextlib import closing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_adapters.sql.listener import Notifications

__all__ = [
    "CHANNEL",
    "POLL_S",
    "PostgresChangeSignal",
    "SqliteChangeSignal",
    "told_change",
]

CHANNEL = "maple_changes"
"""The PostgreSQL notification channel every write notifies, with ``{"r": repository, "v":
version}``."""
POLL_S = 0.1
"""How often a waiter asks the database while the channel is down."""
_STEP_S = 0.005
_MAX_PAYLOAD = 1_000


def told_change(payload: str) -> tuple[str, int] | None:
    """The repository and version a notification tells of, or ``None`` when it is not ours.

    Anyone who may connect to the database can notify the channel, so the payload is checked.
    """
    if len(payload) > _MAX_PAYLOAD:
        return None
    try:
        data = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    repository, version = data.get("r"), data.get("v")
    if not isinstance(repository, str) or type(version) is not int:
        return None
    return repository, version


def _data_version(connection: sqlite3.Connection) -> int:
    return int(connection.execute("PRAGMA data_version").fetchone()[0])


class SqliteChangeSignal:
    """Wakes when another commit changed the repository's version (seen by ``data_version``)."""

    def __init__(self, version: Callable[[], int], path: str) -> None:
        self._version = version
        self._path = path

    def token(self) -> Hashable:
        """The repository's change version now."""
        return self._version()

    def wait(self, token: Hashable, timeout: float) -> bool:
        """Block until the version differs from ``token`` (True) or ``timeout`` seconds pass.

        ``data_version`` is read before the version, so a commit after that read moves it.
        """
        deadline = time.monotonic() + timeout
        watcher = sqlite3.connect(self._path, timeout=1.0, isolation_level=None)
        with closing(watcher):
            seen = _data_version(watcher)
            if self._version() != token:
                return True
            while (remaining := deadline - time.monotonic()) > 0:
                time.sleep(min(_STEP_S, remaining))
                now = _data_version(watcher)
                if now != seen:
                    seen = now
                    if self._version() != token:
                        return True
        return False


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
