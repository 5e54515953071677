"""The ports of comments: what the core needs of a store that keeps them, and of the clock.

Adapters in ``maple_adapters`` implement them; a missing capability is declared in
``capabilities`` and answered with an absent value (``None``) or a
:class:`~maple_core.errors.MissingCapabilityError`, never with an empty one. The other ports sit
beside this module: the gate's (``gate_ports.py``), what is kept besides comments
(``storage_ports.py``), and the agents' and the classifier's (``agent_ports.py``).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Protocol, runtime_checkable

from maple_core.approvals import Approval, NewApproval
from maple_core.claims import ClaimRequest, ClaimResult
from maple_core.comments import Comment, NewComment, Resolution
from maple_core.paging import CommentPage, ListQuery
from maple_core.statuses import CommentStatus
from maple_core.thread_events import EntryNote, ThreadEvent

__all__ = [
    "BranchState",
    "Capability",
    "ChangeSignal",
    "Clock",
    "CommentAmending",
    "CommentClaims",
    "CommentConversation",
    "CommentStore",
    "HeldComments",
]


class Capability(StrEnum):
    """Operations a comment store may or may not support.

    Maple's nine, and ours: ``watch``, ``amend``, ``converse`` and ``claim``.
    """

    LIST = "list"
    APPEND = "append"
    APPEND_MANY = "append_many"
    SET_STATUS = "set_status"
    HEAD = "head"
    WATCH = "watch"
    APPROVALS = "approvals"
    APPROVE = "approve"
    UNAPPROVE = "unapprove"
    AMEND = "amend"
    CONVERSE = "converse"
    NOTE = "note"
    CLAIM = "claim"


class Clock(Protocol):
    """Tells the time and waits; the core takes one instead of reading the clock itself."""

    def now(self) -> datetime:
        """The current UTC time."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never goes backwards, for deadlines."""
        ...

    def sleep(self, seconds: float) -> None:
        """Pause the calling thread for ``seconds`` (a test clock may pass it its own way)."""
        ...


@dataclass(frozen=True, slots=True)
class BranchState:
    """A branch as one read of its store found it.

    Attributes:
        branch: the branch read.
        comments: every comment on it, in store order.
        approvals: its approvals newest first, or ``None`` when the store keeps none.
        head: the commit its pull request points at, or ``None`` when unknown.
        token: a :class:`ChangeSignal` token for exactly this read, to wait for the next change.
        pushed: the commits the branch's pull request holds, or ``None`` when unknown.
        gated: the comments the merge gate decides from, when not all of them (a pull
            request's own review reaches the agent, not always the gate).
    """

    branch: str
    comments: tuple[Comment, ...]
    approvals: tuple[Approval, ...] | None
    head: str | None
    token: Hashable
    pushed: frozenset[str] | None = None
    gated: tuple[Comment, ...] | None = None


class ChangeSignal(Protocol):
    """Wakes a waiter when a store's comments may have changed.

    Take a :meth:`token` *before* reading, then :meth:`wait` with it, so a change that lands
    between the read and the wait is not slept through.
    """

    def token(self) -> Hashable:
        """An opaque mark of the store's current state."""
        ...

    def wait(self, token: Hashable, timeout: float) -> bool:
        """Block until the state differs from ``token`` (True) or ``timeout`` seconds pass."""
        ...


class CommentStore(Protocol):
    """Where review comments and approvals live. Implemented by every store adapter.

    ``set_status``, ``approve`` and ``unapprove`` raise ``MissingCapabilityError`` on a store
    without them; ``head`` and ``approvals`` answer ``None``.
    """

    @property
    def name(self) -> str:
        """A stable lowercase id such as ``file``."""
        ...

    @property
    def capabilities(self) -> frozenset[Capability]:
        """The operations this store supports."""
        ...

    def list(self, query: ListQuery) -> CommentPage:
        """One page of the comments on a branch, in store order."""
        ...

    def append(self, comment: NewComment) -> Comment:
        """Store one comment; the store assigns its id and arrival stamp."""
        ...

    def append_many(self, comments: Sequence[NewComment]) -> builtins.list[Comment]:
        """Store several comments in one write, in order."""
        ...

    def set_status(
        self, comment_id: str, status: CommentStatus, resolution: Resolution | None = None
    ) -> Comment:
        """Change a comment's status (and its resolution, when one is given)."""
        ...

    def head(self, branch: str) -> str | None:
        """The commit the branch's pull request points at, or ``None`` when unknown."""
        ...

    def approvals(self, branch: str) -> builtins.list[Approval] | None:
        """The branch's approvals newest first, or ``None`` when the store keeps none."""
        ...

    def state(self, branch: str) -> BranchState:
        """The branch's comments, approvals, head and change token, as one read finds them."""
        ...

    def approve(self, approval: NewApproval) -> Approval:
        """Store an approval; the store assigns its id."""
        ...

    def unapprove(self, approval_id: str) -> None:
        """Withdraw an approval."""
        ...

    def changes(self, branch: str) -> ChangeSignal:
        """A signal that wakes when the branch's comments may have changed."""
        ...


@runtime_checkable
class CommentAmending(Protocol):
    """A store that can change a comment's body or delete it (``Capability.AMEND``; ours).

    ``check`` is called with the comment as stored, under the store's write lock, and refuses
    the change by raising; nothing is written then, and nothing changes between the check and
    the write.
    """

    def edit(self, comment_id: str, body: str, check: Callable[[Comment], None]) -> Comment:
        """Replace a comment's body; an unknown id raises ``NotFoundError``."""
        ...

    def delete(self, comment_id: str, check: Callable[[Comment], None]) -> None:
        """Remove a comment; an unknown id raises ``NotFoundError``."""
        ...


@runtime_checkable
class HeldComments(Protocol):
    """A store that holds some words apart (a pull request's strangers': see ``trust``).

    Held comments are never listed, waited for or gated; reviewers see them with
    ``maple comments list --all``.
    """

    def held(self, branch: str) -> builtins.list[Comment]:
        """The branch's held comments, each saying why under ``github.heldBecause``."""
        ...


@runtime_checkable
class CommentConversation(Protocol):
    """A store that keeps comments' threads (``Capability.CONVERSE``; ours).

    The store applies the event with :func:`~maple_core.conversation.apply_event` under its write
    lock, giving the entry a new id and an arrival stamp strictly later than every stamp it
    holds (comments' and replies'), so a waiting agent's cursor never skips a reply.
    """

    def converse(self, comment_id: str, event: ThreadEvent | EntryNote) -> Comment:
        """Apply ``event`` to the comment's thread; an unknown id raises ``NotFoundError``.

        An :class:`~maple_core.thread_events.EntryNote` (a note on an entry already there, such
        as its classification) is decided under the same lock. A store that cannot keep notes
        (a route, which keeps them where it runs) raises ``MissingCapabilityError``.

        Raises:
            ConversationError: the comment cannot take the event (reopening an open one…).
        """
        ...


@runtime_checkable
class CommentClaims(Protocol):
    """A store that keeps claims on comments (``Capability.CLAIM``; ours).

    The store reads the comment's claim and applies :func:`~maple_core.claims.apply_claim` at
    its own clock's ``now`` atomically (under its write lock, a row update, or a
    compare-and-swap), so of any number of racing claimants exactly one is granted the claim
    and every other is answered ``held``, naming the holder. Nothing is written for a refusal.
    """

    def claim(self, comment_id: str, request: ClaimRequest) -> ClaimResult:
        """Apply ``request`` to one comment; an unknown id raises ``NotFoundError``."""
        ...

    def claim_many(
        self, comment_ids: Sequence[str], request: ClaimRequest
    ) -> builtins.list[ClaimResult]:
        """Apply ``request`` to each comment in one write (``maple watch``'s batch).

        The results are in the order asked, each decided as :meth:`claim` would; an id that
        names no comment (deleted since it was listed) has no result.
        """
        ...

    def sweep_claims(self, branch: str, request: ClaimRequest) -> builtins.list[Comment]:
        """Renew (``claim``) or end (``release``) the session's live claims on ``branch``.

        One write; returns the comments that changed (see
        :func:`~maple_core.claims.apply_sweep`).
        """
        ...
