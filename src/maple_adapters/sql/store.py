"""The ``sql`` store: a repository's comments, threads and approvals in PostgreSQL or SQLite.

Every write is one transaction (:meth:`SqlCommentStore._write`): it locks the repository's
ledger row, so writers in any number of processes and machines take turns, stamps arrivals
strictly later than the ledger's last stamp, bumps the change version, notifies the other
processes (PostgreSQL) and commits. A write asked again after a dropped connection finds what
its earlier attempt committed (the ids are chosen before the first attempt), so a retry never
stores a comment twice.
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import json
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Connection, Text, cast, delete, func, insert, literal, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.sql import Select

from maple_adapters.bulk import without_gc_pauses
from maple_adapters.sql.database import Database, Dialect
from maple_adapters.sql.schema import approvals, comments, ledgers
from maple_adapters.sql.signals import CHANNEL, PostgresChangeSignal, SqliteChangeSignal
from maple_core.approvals import Approval, NewApproval
from maple_core.claims import ClaimRequest, ClaimResult, apply_claim, apply_sweep
from maple_core.comments import Comment, NewComment, Resolution
from maple_core.conversation import thread_of
from maple_core.cursor import format_js_timestamp, format_stamp, next_arrival_stamp
from maple_core.errors import CorruptLedgerError, InvalidQueryError, NotFoundError
from maple_core.json_types import JsonObject
from maple_core.paging import CommentPage, ListQuery, decode_offset_cursor, encode_offset_cursor
from maple_core.ports import BranchState, Capability, ChangeSignal, Clock
from maple_core.statuses import CommentStatus
from maple_core.thread_events import EntryNote, ThreadEvent, apply_event

__all__ = ["LockedLedger", "SqlCommentStore", "stored_key"]

_CAPABILITIES = frozenset(Capability) - {Capability.HEAD}

T = TypeVar("T")


def _new_id(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:16]


def stored_key(text: str) -> str:
    """How a branch or an id is kept in a column: as its JSON string's inside.

    Plain names are unchanged; quotes, control characters and anything beyond ASCII (a lone
    surrogate a browser sent, a NUL PostgreSQL cannot hold) are escaped, so every name is
    kept, and two names never share a key.
    """
    return json.dumps(text)[1:-1]


def _record(value: JsonObject) -> str:
    return json.dumps(value, separators=(",", ":"))  # ASCII: every string survives every driver


_DECODER = json.JSONDecoder()


def _loaded(record: str) -> JsonObject:
    """A record as maple wrote it: one JSON object.

    Raises:
        ValueError: the record is not one JSON object.
    """
    value, end = _DECODER.raw_decode(record)  # json.loads without its checks and wrapping
    if end != len(record) or not isinstance(value, dict):
        raise ValueError("not one JSON object")
    return value


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


class SqlCommentStore:
    """Comments on one repository in a SQL database (``MAPLE_STORE=sql``).

    Args:
        database: the database, shared by every store and adapter of the process.
        clock: stamps arrivals.
        repository: the repository the comments are on (``owner/name``); one database holds
            many, each apart.
        heads: names the commit a branch's pull request is at (asked of GitHub by the route's
            gate App); with it the store declares ``head``, so the route can publish the gate.
        name: the store's name.
    """

    def __init__(
        self,
        database: Database,
        clock: Clock,
        repository: str = "default",
        *,
        heads: Callable[[str], str | None] | None = None,
        name: str = "sql",
    ) -> None:
        self._database = database
        self._clock = clock
        self.repository = repository
        self._heads = heads
        self._name = name

    @property
    def name(self) -> str:
        """``sql`` unless named otherwise."""
        return self._name

    @property
    def capabilities(self) -> frozenset[Capability]:
        """Everything but ``head``, unless ``heads`` can name the commit a preview serves."""
        return _CAPABILITIES | {Capability.HEAD} if self._heads is not None else _CAPABILITIES

    # -- reads ---------------------------------------------------------------------------------

    def _read(self, operation: str, work: Callable[[Connection], T]) -> T:
        return self._database.transaction(operation, lambda connection, _: work(connection))

    def _mine(self, query: Select[Any], branch: str | None = None) -> Select[Any]:
        query = query.where(comments.c.repository == self.repository)
        if branch is not None:
            query = query.where(comments.c.branch == stored_key(branch))
        return query.order_by(comments.c.seq)

    def _parsed(self, rows: Sequence[Any], operation: str) -> builtins.list[Comment]:
        parsed: builtins.list[Comment] = []
        with without_gc_pauses():
            for seq, record in rows:
                try:
                    parsed.append(Comment.from_json(_loaded(record)))
                except ValueError:  # not JSON, or not an object (InvalidRecordError)
                    raise CorruptLedgerError(
                        f"The database at {self._database.shown} holds a comment maple cannot "
                        f"read (maple_comments row {seq}); fix or delete that row. maple will "
                        "not overwrite it.",
                        store=self._name,
                        operation=operation,
                    ) from None
        return parsed

    def _comments(
        self, connection: Connection, statement: Select[Any], operation: str
    ) -> builtins.list[Comment]:
        """The comments ``statement`` selects (``seq, record``, in store order).

        On PostgreSQL the database joins the records into one JSON array: one value to fetch
        and one document to parse instead of a row and a parse per comment, which halves a
        long listing. A record that does not fit is found row by row, to be named.
        """
        if self._database.dialect is Dialect.POSTGRESQL:
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
        return self._parsed(connection.execute(statement).all(), operation)

    def list(self, query: ListQuery) -> CommentPage:
        """One page of the branch's comments in append order, offset cursors as Maple's."""
        if query.limit is not None and query.limit <= 0:
            raise InvalidQueryError(f"limit must be positive, received {query.limit}")
        offset = decode_offset_cursor(query.cursor) if query.cursor is not None else 0
        statement = self._mine(select(comments.c.seq, comments.c.record), query.branch)
        if query.statuses is not None:
            statement = statement.where(comments.c.status.in_([s.value for s in query.statuses]))
        statement = statement.offset(offset)
        if query.limit is not None:
            statement = statement.limit(query.limit + 1)
        page = self._read("list", lambda c: self._comments(c, statement, "list"))
        if query.limit is not None and len(page) > query.limit:
            cursor = encode_offset_cursor(offset + query.limit)
            return CommentPage(tuple(page[: query.limit]), cursor)
        return CommentPage(tuple(page))

    def head(self, branch: str) -> str | None:
        """The commit ``heads`` names for the branch; ``None`` without it (or a pull request)."""
        return self._heads(branch) if self._heads is not None else None

    def _approvals(self, connection: Connection, branch: str) -> builtins.list[Approval]:
        rows = connection.execute(
            select(approvals.c.record)
            .where(approvals.c.repository == self.repository)
            .where(approvals.c.branch == stored_key(branch))
            .order_by(approvals.c.seq)
        ).scalars()
        kept = [Approval.from_json(json.loads(record)) for record in rows]
        return sorted(kept, key=lambda a: a.at, reverse=True)

    def approvals(self, branch: str) -> builtins.list[Approval] | None:
        """The branch's approvals, newest first."""
        return self._read("approvals", lambda connection: self._approvals(connection, branch))

    def _version(self, connection: Connection) -> int:
        version = connection.execute(
            select(ledgers.c.version).where(ledgers.c.repository == self.repository)
        ).scalar()
        return int(version or 0)

    def version(self) -> int:
        """The repository's change version: it moves on every write."""
        return self._read("changes", self._version)

    def state(self, branch: str) -> BranchState:
        """The branch's comments, approvals and change token, from one snapshot."""

        def read(connection: Connection) -> BranchState:
            token = self._version(connection)
            statement = self._mine(select(comments.c.seq, comments.c.record), branch)
            kept = tuple(self._comments(connection, statement, "state"))
            approved = tuple(self._approvals(connection, branch))
            return BranchState(branch, kept, approved, None, token)

        state = self._read("state", read)
        if self._heads is None:
            return state
        return dataclasses.replace(state, head=self._heads(branch))

    def changes(self, branch: str) -> ChangeSignal:
        """A signal that wakes when the repository's comments may have changed."""
        database = self._database
        if database.dialect is Dialect.POSTGRESQL:
            return PostgresChangeSignal(self.version, database.notifications(), self.repository)
        return SqliteChangeSignal(self.version, database.url.database or "")

    # -- the one write path ----------------------------------------------------------------------

    def _write(self, operation: str, change: Callable[[LockedLedger], T]) -> T:
        """Run ``change`` in one transaction holding the repository's ledger row.

        The row is locked by the statement that counts the write in its change version (and,
        on PostgreSQL, notifies every listening process); the last arrival stamp ``change``
        gave is recorded before the commit. All of it happens only if the transaction
        commits: a ``change`` that raises leaves nothing behind, and nobody is woken. The lock
        is taken by the first statement, so every statement inside it is one round trip.
        """

        def work(connection: Connection, attempt: int) -> T:
            ledger = self._locked_ledger(connection, retrying=attempt > 1)
            result = change(ledger)
            if ledger.stamped:
                connection.execute(
                    update(ledgers)
                    .where(ledgers.c.repository == self.repository)
                    .values(last_stamp=ledger.last_stamp)
                )
            return result

        return self._database.transaction(operation, work, write=True)

    def _locked_ledger(self, connection: Connection, *, retrying: bool) -> LockedLedger:
        counted: builtins.list[Any] = [ledgers.c.last_stamp, ledgers.c.version]
        if self._database.dialect is Dialect.POSTGRESQL:  # delivered at commit, if it commits
            told = func.json_build_object("r", ledgers.c.repository, "v", ledgers.c.version)
            counted.append(func.pg_notify(CHANNEL, cast(told, Text)))
        claim = (
            update(ledgers)
            .where(ledgers.c.repository == self.repository)
            .values(version=ledgers.c.version + 1)
            .returning(*counted)
        )
        row = connection.execute(claim).first()
        if row is None:  # the repository's first write makes its row
            dialect = postgresql if self._database.dialect is Dialect.POSTGRESQL else sqlite
            connection.execute(
                dialect.insert(ledgers)
                .values(repository=self.repository, version=0)
                .on_conflict_do_nothing()
            )
            row = connection.execute(claim).one()
        return LockedLedger(connection, row.last_stamp, int(row.version), retrying)

    def _row(self, comment: Comment) -> dict[str, str]:
        return {
            "repository": self.repository,
            "id": comment.id,
            "branch": stored_key(comment.branch),
            "status": comment.status.value,
            "record": _record(comment.to_json()),
        }

    def _locked_comment(self, ledger: LockedLedger, comment_id: str, operation: str) -> Comment:
        row = ledger.connection.execute(
            select(comments.c.seq, comments.c.record)
            .where(comments.c.repository == self.repository)
            .where(comments.c.id == stored_key(comment_id))
        ).first()
        if row is None:
            raise NotFoundError(
                f"No comment with id {comment_id} in the database at {self._database.shown}. "
                "List the branch's comments for the ids there are.",
                store=self._name,
                operation=operation,
            )
        return self._parsed([row], operation)[0]

    def _save(self, ledger: LockedLedger, comment: Comment) -> None:
        row = self._row(comment)
        ledger.connection.execute(
            update(comments)
            .where(comments.c.repository == self.repository)
            .where(comments.c.id == row["id"])
            .values(branch=row["branch"], status=row["status"], record=row["record"])
        )

    # -- writes ----------------------------------------------------------------------------------

    def append(self, comment: NewComment) -> Comment:
        """Store one comment with a ``sql_`` id."""
        return self.append_many([comment])[0]

    def append_many(self, new: Sequence[NewComment]) -> builtins.list[Comment]:
        """Store comments in one transaction, in order, each with a strictly later stamp."""
        if not new:
            return []
        ids = [_new_id("sql_") for _ in new]

        def change(ledger: LockedLedger) -> builtins.list[Comment]:
            if ledger.retrying and (landed := self._landed(ledger.connection, ids)):
                return landed
            stored = []
            for comment_id, draft in zip(ids, new, strict=True):
                instant = ledger.next_stamp(self._clock.now())
                stored.append(
                    draft.stored(comment_id, format_stamp(instant), format_js_timestamp(instant))
                )
            ledger.connection.execute(insert(comments), [self._row(c) for c in stored])
            return stored

        return self._write("append", change)

    def _landed(self, connection: Connection, ids: Sequence[str]) -> builtins.list[Comment]:
        """The comments an earlier attempt stored under ``ids``, in order (none: it did not)."""
        rows = connection.execute(
            self._mine(select(comments.c.seq, comments.c.record)).where(comments.c.id.in_(ids))
        ).all()
        return self._parsed(rows, "append")

    def set_status(
        self, comment_id: str, status: CommentStatus, resolution: Resolution | None = None
    ) -> Comment:
        """Change a comment's status; an unknown id raises ``NotFoundError`` at once."""

        def change(ledger: LockedLedger) -> Comment:
            updated = self._locked_comment(ledger, comment_id, "set_status").with_status(
                status, resolution
            )
            self._save(ledger, updated)
            return updated

        return self._write("set_status", change)

    # -- claims: a row update under the ledger's lock ------------------------------------------

    def claim(self, comment_id: str, request: ClaimRequest) -> ClaimResult:
        """Apply a claim request under the lock; an unknown id raises ``NotFoundError``."""

        def change(ledger: LockedLedger) -> ClaimResult:
            current = self._locked_comment(ledger, comment_id, "claim")
            return self._claimed(ledger, current, request)

        return self._write("claim", change)

    def claim_many(
        self, comment_ids: Sequence[str], request: ClaimRequest
    ) -> builtins.list[ClaimResult]:
        """Apply a claim request to each comment in one transaction; unknown ids have none."""

        def change(ledger: LockedLedger) -> builtins.list[ClaimResult]:
            results: builtins.list[ClaimResult] = []
            for comment_id in comment_ids:
                with contextlib.suppress(NotFoundError):
                    current = self._locked_comment(ledger, comment_id, "claim")
                    results.append(self._claimed(ledger, current, request))
            return results

        return self._write("claim", change)

    def _claimed(
        self, ledger: LockedLedger, current: Comment, request: ClaimRequest
    ) -> ClaimResult:
        updated, decision = apply_claim(current, request, self._clock.now())
        if decision.write:
            self._save(ledger, updated)
        return ClaimResult(updated, decision)

    def sweep_claims(self, branch: str, request: ClaimRequest) -> builtins.list[Comment]:
        """Renew or end the session's live claims on ``branch`` in one transaction."""

        def change(ledger: LockedLedger) -> builtins.list[Comment]:
            statement = self._mine(select(comments.c.seq, comments.c.record), branch)
            mine = self._comments(ledger.connection, statement, "claim")
            changed = apply_sweep(mine, request, self._clock.now())
            for comment in changed.values():
                self._save(ledger, comment)
            return builtins.list(changed.values())

        return self._write("claim", change)

    def converse(self, comment_id: str, event: ThreadEvent | EntryNote) -> Comment:
        """Apply a thread event; the entry gets a ``rep_`` id and the next arrival stamp.

        A note (a reply's reading) is decided on the comment as the locked row holds it. A
        write asked again finds the entry its earlier attempt added; a note that added none
        is decided again, and a reading's note leaves an entry read already as it is.
        """
        reply_id = _new_id("rep_")

        def change(ledger: LockedLedger) -> Comment:
            comment = self._locked_comment(ledger, comment_id, "converse")
            if ledger.retrying and any(r.id == reply_id for r in thread_of(comment)):
                return comment  # an earlier attempt landed
            instant = ledger.next_stamp(self._clock.now())
            updated = apply_event(
                comment, event, reply_id, format_stamp(instant), format_js_timestamp(instant)
            )
            self._save(ledger, updated)
            return updated

        return self._write("converse", change)

    def edit(self, comment_id: str, body: str, check: Callable[[Comment], None]) -> Comment:
        """Replace a comment's body once ``check`` accepts it (unknown id: ``NotFoundError``)."""

        def change(ledger: LockedLedger) -> Comment:
            comment = self._locked_comment(ledger, comment_id, "edit")
            check(comment)
            updated = dataclasses.replace(comment, body=body)
            self._save(ledger, updated)
            return updated

        return self._write("edit", change)

    def delete(self, comment_id: str, check: Callable[[Comment], None]) -> None:
        """Remove a comment once ``check`` accepts it; an unknown id is ``NotFoundError``."""

        def change(ledger: LockedLedger) -> None:
            try:
                comment = self._locked_comment(ledger, comment_id, "delete")
            except NotFoundError:
                if ledger.retrying:  # an earlier attempt deleted it (a missing id fails at once)
                    return
                raise
            check(comment)
            ledger.connection.execute(
                delete(comments)
                .where(comments.c.repository == self.repository)
                .where(comments.c.id == stored_key(comment_id))
            )

        self._write("delete", change)

    def approve(self, approval: NewApproval) -> Approval:
        """Store an approval with an ``app_`` id."""
        stored = approval.stored(_new_id("app_"))

        def change(ledger: LockedLedger) -> Approval:
            exists = select(approvals.c.id).where(approvals.c.repository == self.repository)
            if (
                ledger.retrying
                and ledger.connection.execute(exists.where(approvals.c.id == stored.id)).first()
            ):
                return stored
            ledger.connection.execute(
                insert(approvals).values(
                    repository=self.repository,
                    id=stored.id,
                    branch=stored_key(stored.branch),
                    record=_record(stored.to_json()),
                )
            )
            return stored

        return self._write("approve", change)

    def unapprove(self, approval_id: str) -> None:
        """Withdraw an approval; an unknown id raises ``NotFoundError``."""

        def change(ledger: LockedLedger) -> None:
            removed = ledger.connection.execute(
                delete(approvals)
                .where(approvals.c.repository == self.repository)
                .where(approvals.c.id == stored_key(approval_id))
            )
            if removed.rowcount == 0 and not ledger.retrying:  # else an earlier attempt removed it
                raise NotFoundError(
                    f"No approval with id {approval_id}.", store=self._name, operation="unapprove"
                )

        self._write("unapprove", change)
