"""Whether the database is usable: reachable, at this maple's schema, and notifying.

``maple doctor`` and the route's health endpoint ask :func:`check_database`. The notification
check sends a probe on the store's channel and waits to hear it on a connection of its own; a
probe is not a change, so no waiter anywhere wakes for it.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass

from sqlalchemy import text

from maple_adapters.sql.database import SCHEMA_REVISION, Database, Dialect
from maple_adapters.sql.migrate import schema_revision
from maple_adapters.sql.signals import CHANNEL
from maple_core.errors import MapleError

__all__ = ["DatabaseHealth", "check_database"]


@dataclass(frozen=True, slots=True)
class DatabaseHealth:
    """What one check of the database found.

    Attributes:
        database: the database, as shown (never its password).
        reachable: a connection was made and answered.
        revision: the schema's revision, or ``None`` before the first upgrade (or unreached).
        wanted: the revision this maple reads and writes.
        notifications: ``True`` when a probe was heard back, ``False`` when it was not, ``None``
            where none are used (SQLite, one machine).
        problem: what is wrong and the fix, or ``None`` when nothing is.
    """

    database: str
    reachable: bool
    revision: str | None
    wanted: str
    notifications: bool | None
    problem: str | None

    @property
    def ok(self) -> bool:
        """Nothing is wrong."""
        return self.problem is None

    def to_json(self) -> dict[str, object]:
        """The health endpoint's ``database`` object."""
        return {
            "database": self.database,
            "reachable": self.reachable,
            "schema": self.revision,
            "wanted": self.wanted,
            "notifications": self.notifications,
            "ok": self.ok,
            "problem": self.problem,
        }


def _heard(database: Database, timeout: float) -> bool:
    """Whether a probe notified on the channel comes back to a listener within ``timeout``."""
    probe = json.dumps({"probe": secrets.token_hex(8)})
    listener = database.listening_connection()
    try:
        listener.execute(f"LISTEN {CHANNEL}")
        with database.engine.begin() as connection:
            connection.execute(
                text("SELECT pg_notify(:channel, :probe)"), {"channel": CHANNEL, "probe": probe}
            )
        deadline = time.monotonic() + timeout
        while (remaining := deadline - time.monotonic()) > 0:
            for note in listener.notifies(timeout=remaining):
                if note.payload == probe:
                    return True
        return False
    finally:
        listener.close()


def check_database(database: Database, timeout: float = 2.0) -> DatabaseHealth:
    """Check ``database``: reachable, migrated, and notifying (PostgreSQL)."""
    shown = database.shown
    try:
        revision = schema_revision(database)
    except MapleError as exc:
        return DatabaseHealth(shown, False, None, SCHEMA_REVISION, None, str(exc))
    if revision != SCHEMA_REVISION:
        found = f"at revision {revision}" if revision else "not migrated"
        fix = "upgrade maple here" if (revision or "") > SCHEMA_REVISION else "run maple db upgrade"
        problem = f"The database is {found}; this maple needs {SCHEMA_REVISION}: {fix}."
        return DatabaseHealth(shown, True, revision, SCHEMA_REVISION, None, problem)
    if database.dialect is Dialect.SQLITE:
        return DatabaseHealth(shown, True, revision, SCHEMA_REVISION, None, None)
    try:
        heard = _heard(database, timeout)
    except Exception as exc:  # a notification check never fails the check itself
        heard, why = False, database.scrubbed(f"{type(exc).__name__}: {exc}".splitlines()[0])
    else:
        why = f"nothing came back within {timeout:.0f} s"
    if heard:
        return DatabaseHealth(shown, True, revision, SCHEMA_REVISION, True, None)
    problem = (
        f"Notifications on {CHANNEL} do not come back ({why}); waits on other workers then wake "
        "only every few seconds. Check that no proxy in front of PostgreSQL (a transaction "
        "pooler) drops LISTEN."
    )
    return DatabaseHealth(shown, True, revision, SCHEMA_REVISION, False, problem)
