"""The changes the ledger store makes, each one object that a write makes again until it lands.

GitHub cannot make an edit conditional on the version read, so a write reads the ledger, makes
its change, writes, and reads again to see it landed (:mod:`~maple_adapters.github.writer`).
What a change fixes on the first read (the records' ids and stamps) it keeps as its own state,
so every retry applies the same change.
"""

from __future__ import annotations

import secrets
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from typing import Generic, TypeVar

from maple_adapters.github.claim_chain import ended_by_resolve
from maple_adapters.github.ledger import GitHubLedger, comment_identity, record_number
from maple_core.approvals import Approval, NewApproval
from maple_core.comments import Comment, NewComment, Resolution
from maple_core.conversation import ReplyKind, thread_of
from maple_core.cursor import format_js_timestamp, format_stamp, next_arrival_stamp
from maple_core.errors import NotFoundError
from maple_core.json_types import JsonObject
from maple_core.ports import Clock
from maple_core.statuses import CommentStatus
from maple_core.thread_events import EntryNote, ThreadEvent, apply_event
from maple_core.threads import activity_stamps

__all__ = [
    "Appending",
    "Approving",
    "Conversing",
    "LedgerEdit",
    "Marking",
    "StatusChange",
    "Withdrawing",
    "comment_in",
]

T = TypeVar("T")
Identity = tuple[str | None, str | None, str]


class LedgerEdit(ABC, Generic[T]):
    """One change to a pull request's ledger, and how to tell it landed.

    Attributes:
        operation: the store operation it is, for errors.
        branch: the branch the ledger is read as (``None``: as written).
        repost: written as a new ledger comment (an append, an approval), else in place.
        adds_words: it adds text (a comment, a reply, an approval), so it leaves room under
            GitHub's limit for status changes.
    """

    operation: str
    branch: str | None = None
    repost: bool = False
    adds_words: bool = False

    @abstractmethod
    def change(self, current: GitHubLedger) -> GitHubLedger:
        """The ledger with the change made on ``current`` (raise when it cannot be made)."""

    @abstractmethod
    def landed(self, merged: GitHubLedger) -> T | None:
        """What the change made, once ``merged`` (read back) shows it; ``None`` until then."""


@dataclass(eq=False)
class Marking(LedgerEdit[T]):
    """A change given as two functions: the review items' marks (``reviewMarks``), the claims.

    ``make`` makes it on the ledger as read; ``made`` says, of a ledger read back, what it made
    once it is there (``None`` until it is). It is made in place unless ``repost``.
    """

    operation: str
    make: Callable[[GitHubLedger], GitHubLedger]
    made: Callable[[GitHubLedger], T | None]
    _: KW_ONLY
    branch: str | None = None
    repost: bool = False

    def change(self, current: GitHubLedger) -> GitHubLedger:
        """The ledger with the change made."""
        return self.make(current)

    def landed(self, merged: GitHubLedger) -> T | None:
        """What the change made, once it is there."""
        return self.made(merged)


def comment_in(ledger: GitHubLedger, comment_id: str, store: str, operation: str) -> Comment:
    """The comment ``comment_id`` in ``ledger``, or ``NotFoundError`` naming the id."""
    found = next((c for c in ledger.comments if c.id == comment_id), None)
    if found is None:
        raise NotFoundError(
            f"No Maple record {comment_id} on this repository. "
            "List the branch's comments for the ids there are.",
            store=store,
            operation=operation,
        )
    return found


@dataclass(eq=False)
class Appending(LedgerEdit[list[Comment]]):
    """New comments as ``gh_<pull>_<n>``, stamped after every stamp in the ledger."""

    operation = "append"
    repost = True
    adds_words = True

    pull: int
    branch: str = field()  # no default: LedgerEdit's ``None`` is a class attribute's
    comments: Sequence[NewComment]
    clock: Clock
    author: Callable[[], JsonObject]
    _wanted: list[Comment] = field(init=False, default_factory=list)

    def change(self, current: GitHubLedger) -> GitHubLedger:
        """The comments appended with the next numbers and arrival stamps."""
        number = max((record_number(c.id) for c in current.comments), default=0)
        # After every stamp in the ledger, replies' included (a waiting agent's cursor).
        stamps: list[str | None] = list(activity_stamps(current.comments))
        wanted = []
        author = self.author()
        for offset, new in enumerate(self.comments, start=1):
            instant = next_arrival_stamp(self.clock.now(), stamps)
            stamp = format_stamp(instant)
            stamps = [stamp]
            stored = new.stored(
                f"gh_{self.pull}_{number + offset}", stamp, format_js_timestamp(instant), author
            )
            wanted.append(replace(stored, branch=self.branch or stored.branch))
        self._wanted = wanted
        branch = self.branch or current.branch
        return replace(current, branch=branch, comments=current.comments + tuple(wanted))

    def landed(self, merged: GitHubLedger) -> list[Comment] | None:
        """The comments as stored, once every one is there."""
        by_identity = {comment_identity(c): c for c in merged.comments}
        final = [by_identity.get(comment_identity(c)) for c in self._wanted]
        return None if any(c is None for c in final) else [c for c in final if c]


@dataclass(eq=False)
class StatusChange(LedgerEdit[Comment]):
    """A comment's status (and resolution) changed in place, stamped to win every merge."""

    operation = "set_status"

    comment_id: str
    status: CommentStatus
    resolution: Resolution | None
    clock: Clock
    store: str
    _target: tuple[Identity, str] | None = field(init=False, default=None)

    def _target_in(self, current: GitHubLedger) -> tuple[Identity, str]:
        """The comment's identity and the change's stamp, both fixed by the first read."""
        if self._target is None:
            found = comment_in(current, self.comment_id, self.store, self.operation)
            # Strictly later than the version it replaces, even on a clock that is behind, so
            # the change wins every merge with a stale copy of the comment.
            seen = (found.extra.get("updatedAt"), found.arrival)
            stamp = format_stamp(
                next_arrival_stamp(self.clock.now(), [s for s in seen if isinstance(s, str)])
            )
            self._target = (comment_identity(found), stamp)
        return self._target

    def change(self, current: GitHubLedger) -> GitHubLedger:
        """The ledger with the comment's status set and stamped."""
        key, stamp = self._target_in(current)
        versions = []
        for c in current.comments:
            if comment_identity(c) == key:
                changed = c.with_status(self.status, self.resolution)
                c = ended_by_resolve(c, changed, self.clock.now())
                c = replace(c, extra={**c.extra, "updatedAt": stamp})
            versions.append(c)
        return replace(current, comments=tuple(versions))

    def landed(self, merged: GitHubLedger) -> Comment | None:
        """The comment, once it has the status with this change's stamp."""
        if self._target is None:
            return None
        key, stamp = self._target
        now = next((c for c in merged.comments if comment_identity(c) == key), None)
        ok = now is not None and now.status is self.status and now.extra.get("updatedAt") == stamp
        return now if ok else None


class Conversing(LedgerEdit[Comment]):
    """A thread event applied to a comment in place, as the entry ``ghr_<pull>_<hex>``.

    The entry is stamped after every stamp in the ledger (replies' included) on the first read;
    a retry applies the same entry with the same stamps. An event that changes the status (a
    reopening, a first resolve) stamps the comment's ``updatedAt`` so it wins merges with stale
    copies; one that only adds to the thread does not, so a reply written on a stale read can
    never carry that read's old status over a reviewer's reopening.
    """

    operation = "converse"

    def __init__(
        self, pull: int, comment_id: str, event: ThreadEvent | EntryNote, clock: Clock, store: str
    ) -> None:
        self.adds_words = isinstance(event, ThreadEvent) and event.kind is ReplyKind.REPLY
        self._comment_id = comment_id
        self._event = event
        self._clock = clock
        self._store = store
        self._reply_id = f"ghr_{pull}_{secrets.token_hex(6)}"
        self._target: tuple[Identity, str, str] | None = None
        self._expected: Comment | None = None

    def _target_in(self, current: GitHubLedger) -> tuple[Identity, str, str]:
        """The comment's identity and the entry's stamps, all fixed by the first read."""
        if self._target is None:
            found = comment_in(current, self._comment_id, self._store, self.operation)
            # After every stamp in the ledger (so a waiting agent's cursor covers the reply) and
            # after the comment's last change (so this change wins every merge).
            updated = found.extra.get("updatedAt")
            instant = next_arrival_stamp(
                self._clock.now(),
                [*activity_stamps(current.comments), updated if isinstance(updated, str) else None],
            )
            stamps = (format_stamp(instant), format_js_timestamp(instant))
            self._target = (comment_identity(found), *stamps)
        return self._target

    def change(self, current: GitHubLedger) -> GitHubLedger:
        """The ledger with the event applied to the comment (once: its entry is its proof)."""
        key, stamp, at = self._target_in(current)
        versions = []
        for c in current.comments:
            if comment_identity(c) == key:
                if all(r.id != self._reply_id for r in thread_of(c)):
                    was = (c.status, c.resolution)
                    c = ended_by_resolve(
                        c, apply_event(c, self._event, self._reply_id, stamp, at), self._clock.now()
                    )
                    if (c.status, c.resolution) != was:
                        c = replace(c, extra={**c.extra, "updatedAt": stamp})
                self._expected = c
            versions.append(c)
        return replace(current, comments=tuple(versions))

    def landed(self, merged: GitHubLedger) -> Comment | None:
        """The comment, once the entry (or, for an entry-less event, its change) is there."""
        want = self._expected
        if self._target is None or want is None:
            return None
        key = self._target[0]
        now = next((c for c in merged.comments if comment_identity(c) == key), None)
        if now is None:
            return None
        if any(r.id == self._reply_id for r in thread_of(want)):
            # The entry is the event: once it is there it happened, and a status change someone
            # made after it (a resolve after a reopening) stands.
            return now if any(r.id == self._reply_id for r in thread_of(now)) else None
        ok = now.status is want.status and now.resolution == want.resolution
        return now if ok else None


class Approving(LedgerEdit[Approval]):
    """An approval stored as ``gha_<pull>_<n>`` (a repost, like an append)."""

    operation = "approve"
    repost = True
    adds_words = True

    def __init__(self, pull: int, approval: NewApproval) -> None:
        self.branch = approval.branch
        self._pull = pull
        self._approval = approval
        self._key = (approval.branch, approval.commit, approval.at)

    def change(self, current: GitHubLedger) -> GitHubLedger:
        """The ledger with the approval added under the next number."""
        number = max((record_number(a.id) for a in current.approvals), default=0) + 1
        stored = self._approval.stored(f"gha_{self._pull}_{number}")
        return replace(current, approvals=(*current.approvals, stored))

    def landed(self, merged: GitHubLedger) -> Approval | None:
        """The approval as stored, once it is there."""
        return next((a for a in merged.approvals if (a.branch, a.commit, a.at) == self._key), None)


class Withdrawing(LedgerEdit[bool]):
    """An approval withdrawn in place, and the withdrawal remembered."""

    operation = "unapprove"

    def __init__(self, approval_id: str, store: str) -> None:
        self._approval_id = approval_id
        self._store = store
        self._checked = False  # whether the first read held the approval

    def change(self, current: GitHubLedger) -> GitHubLedger:
        """The ledger without the approval; ``NotFoundError`` when the first read lacks it."""
        approval_id = self._approval_id
        if not self._checked and all(a.id != approval_id for a in current.approvals):
            raise NotFoundError(
                f"No approval with id {approval_id}.", store=self._store, operation=self.operation
            )
        self._checked = True
        kept = tuple(a for a in current.approvals if a.id != approval_id)
        withdrawn = tuple(dict.fromkeys((*current.withdrawn, approval_id)))
        return replace(current, approvals=kept, withdrawn=withdrawn)

    def landed(self, merged: GitHubLedger) -> bool | None:
        """True once the approval is gone."""
        return True if all(a.id != self._approval_id for a in merged.approvals) else None
