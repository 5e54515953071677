"""The ``sql`` store: a repository's comments, threads and approvals in PostgreSQL or SQLite.

Every write is one transaction (:func:`maple_adapters.sql.ledger.write`): it locks the repository's
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
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.sql import Select

from maple_adapters.sql.database import Database, Dialect
from maple_adapters.sql.ledger import LockedLedger, write
from maple_adapters.sql.reading import approvals_of, comments_of, parsed_comments, version_of
from maple_adapters.sql.records import new_id, record_text, stored_key
from maple_adapters.sql.schema import approvals, comments
from maple_adapters.sql.signals import PostgresChangeSignal, SqliteChangeSignal
from maple_core.approvals import Approval, NewApproval
from maple_core.claims import ClaimRequest, ClaimResult, apply_claim, apply_sweep
from maple_core.comments import Comment, NewComment, Resolution
from maple_core.conversation import thread_of
from maple_core.cursor import format_js_timestamp, format_stamp
from maple_core.errors import InvalidQueryError, NotFoundError
from maple_core.paging import CommentPage, ListQuery, decode_offset_cursor, encode_offset_cursor
from maple_core.ports import BranchState, Capability, ChangeSignal, Clock
from maple_core.statuses import CommentStatus
from maple_core.thread_events import EntryNote, ThreadEvent, apply_event

__all__ = ["SqlCommentStore"]

_CAPABILITIES = frozenset(Capability) - {Capability.HEAD}

T = TypeVar("T")


@dataclasses.dataclass(eq=False)
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

    database: Database
    clock: Clock
    repository: str = "default"
    _: dataclasses.KW_ONLY
    heads: Callable[[str], str | None] | None = None
    name: str = "sql"

    @property
    def capabilities(self) -> frozenset[Capability]:
        """Everything but ``head``, unless ``heads`` can name the commit a preview serves."""
        return _CAPABILITIES | {Capability.HEAD} if self.heads is not None else _CAPABILITIES

    # -- reads ---------------------------------------------------------------------------------

    def _read(self, operation: str, work: Callable[[Connection], T]) -> T:
        return self.database.transaction(operation, lambda connection, _: work(connection))

    def _mine(self, query: Select[Any], branch: str | None = None) -> Select[Any]:
        query = query.where(comments.c.repository == self.repository)
        if branch is not None:
            query = query.where(comments.c.branch == stored_key(branch))
        return query.order_by(comments.c.seq)

    def _parsed(self, rows: Sequence[Any], operation: str) -> builtins.list[Comment]:
        return parsed_comments(rows, self.database, self.name, operation)

    def _comments(
        self, connection: Connection, statement: Select[Any], operation: str
    ) -> builtins.list[Comment]:
        return comments_of(connection, self.database, statement, self.name, operation)

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
        return self.heads(branch) if self.heads is not None else None

    def approvals(self, branch: str) -> builtins.list[Approval] | None:
        """The branch's approvals, newest first."""
        return self._read("approvals", lambda c: approvals_of(c, self.repository, branch))

    def version(self) -> int:
        """The repository's change version: it moves on every write."""
        return self._read("changes", lambda c: version_of(c, self.repository))

    def state(self, branch: str) -> BranchState:
        """The branch's comments, approvals and change token, from one snapshot."""

        def read(connection: Connection) -> BranchState:
            token = version_of(connection, self.repository)
            statement = self._mine(select(comments.c.seq, comments.c.record), branch)
            kept = tuple(self._comments(connection, statement, "state"))
            approved = tuple(approvals_of(connection, self.repository, branch))
            return BranchState(branch, kept, approved, None, token)

        state = self._read("state", read)
        if self.heads is None:
            return state
        return dataclasses.replace(state, head=self.heads(branch))

    def changes(self, branch: str) -> ChangeSignal:
        """A signal that wakes when the repository's comments may have changed."""
        database = self.database
        if database.dialect is Dialect.POSTGRESQL:
            return PostgresChangeSignal(self.version, database.notifications(), self.repository)
        return SqliteChangeSignal(self.version, database.url.database or "")

    # -- the one write path (maple_adapters.sql.ledger) -----------------------------------------

    def _write(self, operation: str, change: Callable[[LockedLedger], T]) -> T:
        return write(self.database, self.repository, operation, change)

    def _row(self, comment: Comment) -> dict[str, str]:
        return {
            "repository": self.repository,
            "id": comment.id,
            "branch": stored_key(comment.branch),
            "status": comment.status.value,
            "record": record_text(comment.to_json()),
        }

    def _locked_comment(self, ledger: LockedLedger, comment_id: str, operation: str) -> Comment:
        row = ledger.connection.execute(
            select(comments.c.seq, comments.c.record)
            .where(comments.c.repository == self.repository)
            .where(comments.c.id == stored_key(comment_id))
        ).first()
        if row is None:
            raise NotFoundError(
                f"No comment with id {comment_id} in the database at {self.database.shown}. "
                "List the branch's comments for the ids there are.",
                store=self.name,
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
        ids = [new_id("sql_") for _ in new]

        def change(ledger: LockedLedger) -> builtins.list[Comment]:
            if ledger.retrying and (landed := self._landed(ledger.connection, ids)):
                return landed
            stored = []
            for comment_id, draft in zip(ids, new, strict=True):
                instant = ledger.next_stamp(self.clock.now())
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
        updated, decision = apply_claim(current, request, self.clock.now())
        if decision.write:
            self._save(ledger, updated)
        return ClaimResult(updated, decision)

    def sweep_claims(self, branch: str, request: ClaimRequest) -> builtins.list[Comment]:
        """Renew or end the session's live claims on ``branch`` in one transaction."""

        def change(ledger: LockedLedger) -> builtins.list[Comment]:
            statement = self._mine(select(comments.c.seq, comments.c.record), branch)
            mine = self._comments(ledger.connection, statement, "claim")
            changed = apply_sweep(mine, request, self.clock.now())
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
        reply_id = new_id("rep_")

        def change(ledger: LockedLedger) -> Comment:
            comment = self._locked_comment(ledger, comment_id, "converse")
            if ledger.retrying and any(r.id == reply_id for r in thread_of(comment)):
                return comment  # an earlier attempt landed
            instant = ledger.next_stamp(self.clock.now())
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
        stored = approval.stored(new_id("app_"))

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
                    record=record_text(stored.to_json()),
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
                    f"No approval with id {approval_id}.", store=self.name, operation="unapprove"
                )

        self._write("unapprove", change)
