"""The ``sql`` store's one write path: a transaction holding the repository's ledger row.

Every write is one transaction (:func:`write`): it locks the repository's ledger row, so writers
in any number of processes and machines take turns, stamps arrivals strictly later than the
ledger's last stamp, bumps the change version, notifies the other processes (PostgreSQL) and
commits.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Connection, Text, cast, func, update
from sqlalchemy.dialects import postgresql, sqlite

from maple_adapters.sql.database import Database, Dialect
from maple_adapters.sql.schema import ledgers
from maple_adapters.sql.signals import CHANNEL
from maple_core.cursor import format_stamp, next_arrival_stamp

__all__ = ["LockedLedger", "write"]

T = TypeVar("T")


@dataclass
class LockedLedger:
    """The repository's ledger row, locked for one write transaction.

    Attributes:
        connection: the transaction's connection.
        last_stamp: the latest arrival stamp given; :meth:`next_stamp` moves it.
        version: the change version this write leaves (counted when the row was locked).
        retrying: an earlier attempt of this write may have committed before its answer was lost.
        stamped: whether this write gave arrival stamps (the last one is then recorded).
    """

    connection: Connection
    last_stamp: str | None
    version: int
    retrying: bool
    stamped: bool = False

    def next_stamp(self, now: datetime) -> datetime:
        """An arrival instant strictly later than every one given in the repository."""
        instant = next_arrival_stamp(now, [self.last_stamp])
        self.last_stamp = format_stamp(instant)
        self.stamped = True
        return instant


def write(
    database: Database, repository: str, operation: str, change: Callable[[LockedLedger], T]
) -> T:
    """Run ``change`` in one transaction holding ``repository``'s ledger row.

    The row is locked by the statement that counts the write in its change version (and,
    on PostgreSQL, notifies every listening process); the last arrival stamp ``change``
    gave is recorded before the commit. All of it happens only if the transaction
    commits: a ``change`` that raises leaves nothing behind, and nobody is woken. The lock
    is taken by the first statement, so every statement inside it is one round trip.
    """

    def work(connection: Connection, attempt: int) -> T:
        ledger = _locked(database.dialect, connection, repository, retrying=attempt > 1)
        result = change(ledger)
        if ledger.stamped:
            connection.execute(
                update(ledgers)
                .where(ledgers.c.repository == repository)
                .values(last_stamp=ledger.last_stamp)
            )
        return result

    return database.transaction(operation, work, write=True)


def _locked(
    dialect: Dialect, connection: Connection, repository: str, *, retrying: bool
) -> LockedLedger:
    counted: builtins.list[Any] = [ledgers.c.last_stamp, ledgers.c.version]
    if dialect is Dialect.POSTGRESQL:  # delivered at commit, if it commits
        told = func.json_build_object("r", ledgers.c.repository, "v", ledgers.c.version)
        counted.append(func.pg_notify(CHANNEL, cast(told, Text)))
    claim = (
        update(ledgers)
        .where(ledgers.c.repository == repository)
        .values(version=ledgers.c.version + 1)
        .returning(*counted)
    )
    row = connection.execute(claim).first()
    if row is None:  # the repository's first write makes its row
        insert = (postgresql if dialect is Dialect.POSTGRESQL else sqlite).insert
        connection.execute(
            insert(ledgers).values(repository=repository, version=0).on_conflict_do_nothing()
        )
        row = connection.execute(claim).one()
    return LockedLedger(connection, row.last_stamp, int(row.version), retrying)
