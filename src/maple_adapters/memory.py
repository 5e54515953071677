"""The in-memory comment store: the reference every other store is compared with."""

from __future__ import annotations

import builtins
import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from maple_core.approvals import Approval, NewApproval
from maple_core.claims import ClaimRequest, ClaimResult, apply_claims, apply_sweep
from maple_core.comments import Comment, NewComment, Resolution
from maple_core.cursor import format_js_timestamp, format_stamp, next_arrival_stamp
from maple_core.errors import NotFoundError
from maple_core.paging import CommentPage, ListQuery, page_of
from maple_core.ports import BranchState, Capability, Clock
from maple_core.statuses import CommentStatus
from maple_core.thread_events import EntryNote, ThreadEvent, apply_event

__all__ = ["InMemoryCommentStore", "MemoryChangeSignal"]

_ALL = frozenset(Capability) - {Capability.HEAD}


class MemoryChangeSignal:
    """Wakes waiters when an in-memory store changes."""

    def __init__(self, condition: threading.Condition, version: list[int]) -> None:
        self._condition = condition
        self._version = version

    def token(self) -> Hashable:
        """The store's change count."""
        return self._version[0]

    def wait(self, token: Hashable, timeout: float) -> bool:
        """Block until the change count moves past ``token`` or ``timeout`` seconds pass."""
        with self._condition:
            return self._condition.wait_for(lambda: self._version[0] != token, timeout)


@dataclass
class _State:
    comments: list[Comment] = field(default_factory=list)
    approvals: list[Approval] = field(default_factory=list)
    next_comment: int = 1
    next_approval: int = 1
    next_reply: int = 1
    last_stamp: str | None = None  # the latest arrival stamp given, a comment's or a reply's


class InMemoryCommentStore:
    """Comments and approvals in a list, safe across threads (Maple's ``memoryStore``).

    Ids are ``mem_1``, ``mem_2``… and ``app_1``…; ``heads`` maps branches to commits and, when
    given, adds the ``head`` capability.
    """

    def __init__(self, clock: Clock, heads: Mapping[str, str] | None = None) -> None:
        self._clock = clock
        self._heads = dict(heads) if heads is not None else None
        self._state = _State()
        self._condition = threading.Condition()
        self._version = [0]

    @property
    def name(self) -> str:
        """``memory``."""
        return "memory"

    @property
    def capabilities(self) -> frozenset[Capability]:
        """Everything; ``head`` only when heads were given."""
        return _ALL | {Capability.HEAD} if self._heads is not None else _ALL

    def _changed(self) -> None:
        self._version[0] += 1
        self._condition.notify_all()

    def list(self, query: ListQuery) -> CommentPage:
        """One page of the branch's comments in append order."""
        with self._condition:
            comments = list(self._state.comments)
        return page_of(comments, query)

    def append(self, comment: NewComment) -> Comment:
        """Store one comment as ``mem_<n>``."""
        return self.append_many([comment])[0]

    def append_many(self, comments: Sequence[NewComment]) -> builtins.list[Comment]:
        """Store comments in order, each with a strictly later arrival stamp."""
        with self._condition:
            state = self._state
            stored: builtins.list[Comment] = []
            for new in comments:
                stamp = next_arrival_stamp(self._clock.now(), [state.last_stamp])
                state.last_stamp = format_stamp(stamp)
                comment = new.stored(
                    f"mem_{state.next_comment}", state.last_stamp, format_js_timestamp(stamp)
                )
                state.next_comment += 1
                state.comments.append(comment)
                stored.append(comment)
            if stored:
                self._changed()
            return stored

    def set_status(
        self, comment_id: str, status: CommentStatus, resolution: Resolution | None = None
    ) -> Comment:
        """Change a comment's status; an unknown id raises ``NotFoundError`` at once."""
        with self._condition:
            index = self._index_of(comment_id, "set_status")
            updated = self._state.comments[index].with_status(status, resolution)
            self._state.comments[index] = updated
            self._changed()
            return updated

    def converse(self, comment_id: str, event: ThreadEvent | EntryNote) -> Comment:
        """Apply a thread event; the entry is ``mrep_<n>``, stamped after every other stamp."""
        with self._condition:
            state = self._state
            index = self._index_of(comment_id, "converse")
            stamp = next_arrival_stamp(self._clock.now(), [state.last_stamp])
            updated = apply_event(
                state.comments[index],
                event,
                f"mrep_{state.next_reply}",
                format_stamp(stamp),
                format_js_timestamp(stamp),
            )
            state.last_stamp = format_stamp(stamp)
            state.next_reply += 1
            state.comments[index] = updated
            self._changed()
            return updated

    def claim(self, comment_id: str, request: ClaimRequest) -> ClaimResult:
        """Apply a claim request under the store's lock, at the clock's ``now``."""
        with self._condition:
            self._index_of(comment_id, "claim")
            return self.claim_many([comment_id], request)[0]

    def claim_many(
        self, comment_ids: Sequence[str], request: ClaimRequest
    ) -> builtins.list[ClaimResult]:
        """Apply a claim request to each comment under the store's lock; unknown ids skipped."""
        with self._condition:
            comments = self._state.comments
            where = {c.id: i for i, c in enumerate(comments)}
            results = apply_claims(
                {c.id: c for c in comments}, comment_ids, request, self._clock.now()
            )
            for result in results:
                comments[where[result.comment.id]] = result.comment
            if any(r.decision.write for r in results):
                self._changed()
            return results

    def sweep_claims(self, branch: str, request: ClaimRequest) -> builtins.list[Comment]:
        """Renew or end the session's live claims on ``branch`` under the store's lock."""
        with self._condition:
            comments = self._state.comments
            mine = [i for i, c in enumerate(comments) if c.branch == branch]
            changed = apply_sweep([comments[i] for i in mine], request, self._clock.now())
            for at, comment in changed.items():
                comments[mine[at]] = comment
            if changed:
                self._changed()
            return list(changed.values())

    def edit(self, comment_id: str, body: str, check: Callable[[Comment], None]) -> Comment:
        """Replace a comment's body once ``check`` accepts it (unknown id: ``NotFoundError``)."""
        with self._condition:
            index = self._index_of(comment_id, "edit")
            check(self._state.comments[index])
            updated = replace(self._state.comments[index], body=body)
            self._state.comments[index] = updated
            self._changed()
            return updated

    def delete(self, comment_id: str, check: Callable[[Comment], None]) -> None:
        """Remove a comment once ``check`` accepts it; an unknown id is ``NotFoundError``."""
        with self._condition:
            index = self._index_of(comment_id, "delete")
            check(self._state.comments[index])
            del self._state.comments[index]
            self._changed()

    def _index_of(self, comment_id: str, operation: str) -> int:
        for index, comment in enumerate(self._state.comments):
            if comment.id == comment_id:
                return index
        raise NotFoundError(
            f"No comment with id {comment_id}. List the branch's comments for the ids there are.",
            store=self.name,
            operation=operation,
        )

    def head(self, branch: str) -> str | None:
        """The commit given for ``branch``, or ``None``."""
        return self._heads.get(branch) if self._heads is not None else None

    def approvals(self, branch: str) -> builtins.list[Approval] | None:
        """The branch's approvals, newest first."""
        with self._condition:
            mine = [a for a in self._state.approvals if a.branch == branch]
        return sorted(mine, key=lambda a: a.at, reverse=True)

    def state(self, branch: str) -> BranchState:
        """The branch as it is now, read under the store's lock."""
        with self._condition:
            token = self._version[0]
            comments = page_of(self._state.comments, ListQuery(branch=branch)).comments
            approvals = tuple(self.approvals(branch) or ())
        return BranchState(branch, comments, approvals, self.head(branch), token)

    def approve(self, approval: NewApproval) -> Approval:
        """Store an approval as ``app_<n>``."""
        with self._condition:
            stored = approval.stored(f"app_{self._state.next_approval}")
            self._state.next_approval += 1
            self._state.approvals.append(stored)
            self._changed()
            return stored

    def unapprove(self, approval_id: str) -> None:
        """Withdraw an approval; an unknown id raises ``NotFoundError``."""
        with self._condition:
            kept = [a for a in self._state.approvals if a.id != approval_id]
            if len(kept) == len(self._state.approvals):
                raise NotFoundError(
                    f"No approval with id {approval_id}.", store=self.name, operation="unapprove"
                )
            self._state.approvals = kept
            self._changed()

    def changes(self, branch: str) -> MemoryChangeSignal:
        """A signal that wakes on any change to this store."""
        return MemoryChangeSignal(self._condition, self._version)
