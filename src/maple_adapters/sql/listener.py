"""PostgreSQL's ``LISTEN``/``NOTIFY``: one listening connection per process wakes its waiters.

Every write to the SQL store on PostgreSQL notifies the channel :data:`CHANNEL` in its own
transaction, so the notification is delivered when, and only if, the write commits, to every
process listening on that database: every route worker on every machine. A process holds one
:class:`Notifications`: a thread with its own connection that keeps, per repository, the newest
change version it was told of, and wakes the waiters of this process.

The connection can drop (a restart, a fail-over, a proxy's idle timeout). The thread then
reconnects with a growing pause (50 ms to 2 s) and counts a new *epoch* each time it loses or
regains the channel, so a waiter knows that notifications may have been missed and asks the
database instead; while the channel is down a waiter asks the database every
:data:`POLL_S`. No change is slept through either way.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import psycopg

from maple_adapters.sql.signals import CHANNEL, POLL_S, told_change

__all__ = ["Notifications"]

_CHECK_S = 5.0  # a connection silent this long is asked whether it is still there


class Notifications:
    """The process's one listener on :data:`CHANNEL`, and what it was told.

    Args:
        connect: opens a new autocommit connection to the database.
        name: the listening thread's name.
    """

    def __init__(self, connect: Callable[[], psycopg.Connection], name: str = "maple-listen"):
        self._connect = connect
        self._name = name
        self._condition = threading.Condition()
        self._versions: dict[str, int] = {}
        self._epoch = 0
        self._connected = False
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._connection: psycopg.Connection | None = None

    # -- what waiters read -------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """Whether the channel is being listened to now."""
        return self._connected

    @property
    def epoch(self) -> int:
        """Counts each time the channel was lost or regained."""
        return self._epoch

    def wait(self, repository: str, above: int, epoch: int, timeout: float) -> bool:
        """Block until a version above ``above`` is told for ``repository`` (True).

        ``False`` when ``timeout`` seconds pass or the epoch moves past ``epoch``: the waiter asks
        the database then. While the channel is down it returns after :data:`POLL_S` at most,
        for the same reason.
        """
        deadline = time.monotonic() + timeout
        with self._condition:
            while True:
                if self._versions.get(repository, above) > above:
                    return True
                remaining = deadline - time.monotonic()
                if self._epoch != epoch or remaining <= 0:
                    return False
                self._condition.wait(remaining if self._connected else min(remaining, POLL_S))
                if not self._connected and self._epoch == epoch:
                    return False

    # -- the thread --------------------------------------------------------------------------

    def start(self) -> None:
        """Start listening (once; later calls do nothing)."""
        with self._condition:
            if self._thread is not None:
                return
            self._stopping.clear()
            self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop listening and close the connection (waiters fall back to asking the database)."""
        with self._condition:
            thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stopping.set()
        thread.join(timeout)

    def wait_until_listening(self, timeout: float) -> bool:
        """Block until the channel is listened to (for start-up checks and tests)."""
        deadline = time.monotonic() + timeout
        with self._condition:
            while not self._connected:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._condition.wait(remaining)
        return True

    def _changed_channel(self, connected: bool) -> None:
        with self._condition:
            self._connected = connected
            self._epoch += 1
            self._condition.notify_all()

    def _told(self, payload: str) -> None:
        parsed = told_change(payload)
        if parsed is None:
            return
        repository, version = parsed
        with self._condition:
            if version > self._versions.get(repository, -1):
                self._versions[repository] = version
                self._condition.notify_all()

    def _run(self) -> None:
        pause = 0.05
        while not self._stopping.is_set():
            try:
                connection = self._connect()
            except psycopg.Error:
                self._stopping.wait(pause)
                pause = min(pause * 2, 2.0)
                continue
            pause = 0.05
            try:
                self._listen(connection)
            except psycopg.Error:
                pass  # dropped: reconnect
            finally:
                connection.close()
                if self._connected:
                    self._changed_channel(False)

    def _listen(self, connection: psycopg.Connection) -> None:
        connection.execute(f"LISTEN {CHANNEL}")
        self._changed_channel(True)
        quiet_since = time.monotonic()
        while not self._stopping.is_set():
            for note in connection.notifies(timeout=0.5):
                self._told(note.payload)
                quiet_since = time.monotonic()
            if time.monotonic() - quiet_since > _CHECK_S:
                connection.execute("SELECT 1")  # raises if the server went away silently
                quiet_since = time.monotonic()
