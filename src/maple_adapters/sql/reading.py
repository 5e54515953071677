"""How the ``sql`` store reads records back: comments, approvals and the change version.

A record maple cannot read is named by its row (``CorruptLedgerError``), never skipped or
overwritten.
"""

from __future__ import annotations

import builtins
import contextlib
import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, func, literal, select
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.sql import Select

from maple_adapters.bulk import without_gc_pauses
from maple_adapters.sql.database import Database, Dialect
from maple_adapters.sql.records import loaded_record, stored_key
from maple_adapters.sql.schema import approvals, ledgers
from maple_core.approvals import Approval
from maple_core.comments import Comment
from maple_core.errors import CorruptLedgerError

__all__ = ["approvals_of", "comments_of", "parsed_comments", "version_of"]


def parsed_comments(
    rows: Sequence[Any], database: Database, store: str, operation: str
) -> builtins.list[Comment]:
    """The comments of ``rows`` (``seq, record``); one maple cannot read is named by its row."""
    parsed: builtins.list[Comment] = []
    with without_gc_pauses():
        for seq, record in rows:
            try:
                parsed.append(Comment.from_json(loaded_record(record)))
            except ValueError:  # not JSON, or not an object (InvalidRecordError)
                raise CorruptLedgerError(
                    f"The database at {database.shown} holds a comment maple cannot "
                    f"read (maple_comments row {seq}); fix or delete that row. maple will "
                    "not overwrite it.",
                    store=store,
                    operation=operation,
                ) from None
    return parsed


def comments_of(
    connection: Connection,
    database: Database,
    statement: Select[Any],
    store: str,
    operation: str,
) -> builtins.list[Comment]:
    """The comments ``statement`` selects (``seq, record``, in store order).

    On PostgreSQL the database joins the records into one JSON array: one value to fetch
    and one document to parse instead of a row and a parse per comment, which halves a
    long listing. A record that does not fit is found row by row, to be named.
    """
    if database.dialect is Dialect.POSTGRESQL:
        rows = statement.subquery()
        joined = select(
            func.count(),
            func.string_agg(rows.c.record, aggregate_order_by(literal(","), rows.c.seq)),
        )
        count, records = connection.execute(joined).one()
        if not count:
            return []
        with without_gc_pauses(), contextlib.suppress(ValueError):
            values = json.loads(f"[{records}]")
            if len(values) == count:
                return [Comment.from_json(value) for value in values]
    return parsed_comments(connection.execute(statement).all(), database, store, operation)


def approvals_of(connection: Connection, repository: str, branch: str) -> builtins.list[Approval]:
    """The branch's approvals, newest first."""
    rows = connection.execute(
        select(approvals.c.record)
        .where(approvals.c.repository == repository)
        .where(approvals.c.branch == stored_key(branch))
        .order_by(approvals.c.seq)
    ).scalars()
    kept = [Approval.from_json(json.loads(record)) for record in rows]
    return sorted(kept, key=lambda a: a.at, reverse=True)


def version_of(connection: Connection, repository: str) -> int:
    """The repository's change version (0 before its first write)."""
    version = connection.execute(
        select(ledgers.c.version).where(ledgers.c.repository == repository)
    ).scalar()
    return int(version or 0)
