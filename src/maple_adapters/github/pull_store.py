"""The ``github`` store with the pull request's own review beside maple's ledger.

Two sources behind one :class:`~maple_core.ports.CommentStore`: the ledger
(:class:`~maple_adapters.github.store.GitHubLedgerStore`, maple's own comments and approvals,
and its records of review items) and the review
(:class:`~maple_adapters.github.review_source.ReviewSource`: threads, reviews and the
conversation, judged by the trust policy). Listing, waiting and the state the gate decides
from see both; what a trusted person did not write or endorse is held apart (:meth:`held`).
Acting goes where the words are: a thread is answered and resolved on GitHub, a review or a
conversation comment is answered in the conversation and resolved in the ledger. Reading
trusted replies into outcomes is :mod:`~maple_adapters.github.pull_readings`'s, a review
thread's claims :mod:`~maple_adapters.github.thread_claims`', and waking
:mod:`~maple_adapters.github.pull_signal`'s.
"""

from __future__ import annotations

import builtins
import secrets
import threading
from collections.abc import Callable, Hashable, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from enum import StrEnum

from maple_adapters.github.ledger import GitHubLedger
from maple_adapters.github.pull_readings import READINGS, note_reading, read_awaiting
from maple_adapters.github.pull_signal import PullRequestChangeSignal
from maple_adapters.github.review_source import ReviewSource
from maple_adapters.github.shared_transport import SharedTransport
from maple_adapters.github.store import GitHubLedgerStore
from maple_adapters.github.thread_claims import claim_thread, claimed, unreact_swept
from maple_adapters.github.transport import GitHubError, GitHubTransport
from maple_core.approvals import Approval, NewApproval
from maple_core.claims import (
    Claim,
    Claimant,
    ClaimRequest,
    ClaimResult,
)
from maple_core.classifier_ports import FeedbackClassifier
from maple_core.comments import Comment, NewComment, Resolution
from maple_core.conversation import (
    ConversationError,
    ReplyKind,
    Role,
    thread_of,
)
from maple_core.cursor import format_js_timestamp, format_stamp, next_arrival_stamp
from maple_core.errors import (
    MapleError,
    NotFoundError,
    StoreRejectedError,
    StoreUnavailableError,
    UnverifiedCommitError,
)
from maple_core.paging import CommentPage, ListQuery, decode_decimal_cursor, page_of
from maple_core.ports import BranchState, Capability, Clock
from maple_core.pull_review import (
    GITHUB,
    Mark,
    ReviewKind,
    ReviewReading,
    ReviewRef,
    review_ref,
)
from maple_core.statuses import CommentStatus
from maple_core.thread_events import EntryNote, ThreadEvent, apply_event
from maple_core.threads import activity_stamps

__all__ = ["PrReview", "PullRequestStore", "gate_covers"]


class PrReview(StrEnum):
    """``MAPLE_PR_REVIEW``: how far the pull request's own review reaches."""

    OFF = "off"  # the ledger only, as before
    AGENT = "agent"  # the agent sees and resolves it; the gate ignores it
    GATE = "gate"  # the gate also holds on open trusted threads and requested changes


def gate_covers(comment: Comment, mode: PrReview) -> bool:
    """Whether the gate counts ``comment``: every ledger comment; review items only in ``gate``.

    In ``gate`` mode a review thread counts, and so does a "changes requested" review that is
    still its author's latest decision; other reviews and conversation comments never do.
    """
    if review_ref(comment.id) is None:
        return True
    details = comment.extra.get(GITHUB)
    return mode is PrReview.GATE and isinstance(details, dict) and details.get("gate") is True


@dataclass(frozen=True, slots=True)
class _Read:
    """One read of a branch: its pull request, the ledger, the review."""

    pull: int
    head: str | None
    issue_comments: tuple[object, ...]
    ledger: GitHubLedger
    review: ReviewReading
    token: Hashable


@dataclass(eq=False)
class PullRequestStore:
    """Comments from the ledger and from the pull request's own review (see the module).

    Args:
        ledger: the pull request's ledger store.
        source: the pull request's review.
        clock: stamps the ledger's records of review items.
        mode: ``agent`` or ``gate`` (``off`` is the ledger store alone).
        classifier: reads a trusted reviewer's reply in a thread maple resolved
            (``MAPLE_CLASSIFIER``), the first time a read sees it; without one such a reply
            reopens the thread, as before.
        report: hears what a reading could not do (its remarks not opened, the harness failed).
    """

    ledger: GitHubLedgerStore
    source: ReviewSource
    clock: Clock
    mode: PrReview = PrReview.AGENT
    _: KW_ONLY
    classifier: FeedbackClassifier | None = None
    report: Callable[[str], None] | None = None
    # a reading's own reads never start another
    _reading: threading.local = field(default_factory=threading.local, init=False, repr=False)

    @property
    def name(self) -> str:
        """``github``."""
        return "github"

    @property
    def capabilities(self) -> frozenset[Capability]:
        """The ledger store's: everything but ``amend``."""
        return self.ledger.capabilities

    @property
    def transport(self) -> GitHubTransport:
        """The transport both sources talk through."""
        return self.ledger.transport

    def _fail(self, exc: MapleError, operation: str) -> MapleError:
        if isinstance(exc, GitHubError) and exc.rejected:
            return StoreRejectedError(str(exc), store=self.name, operation=operation)
        if isinstance(exc, GitHubError):
            return StoreUnavailableError(str(exc), store=self.name, operation=operation)
        return exc

    # -- reading ---------------------------------------------------------------------------

    def _read(self, branch: str, operation: str) -> _Read | None:
        ledger = self.ledger
        try:
            pull = ledger.pull_of(branch)
            if pull is None:
                return None
            number, head = pull
            comments = ledger.read_back(number)
            if not comments:
                comments = tuple(ledger.issue_comments(number))
                ledger.seen(number, comments)
            merged = ledger.ledger_in(number, comments, branch, operation)
            review = self.source.read(
                number,
                branch,
                list(comments),
                ledger.writer_logins(),
                when=self.clock.now(),
                floor=list(activity_stamps(merged.comments)),
                marks=_marks(merged.marks),
                reading=self.classifier is not None,
            )
        except GitHubError as exc:
            raise self._fail(exc, operation) from exc
        token = (ledger.fingerprint(comments), self.source.last_token(number))
        marks = ledger.claim_marks(comments, merged)
        return _Read(number, head, comments, merged, claimed(review, marks), token)

    def _read_read(self, branch: str, operation: str) -> _Read | None:
        """:meth:`_read`, once the trusted replies awaiting their reading are read."""
        read = self._read(branch, operation)
        if read is not None and read_awaiting(self, read.review):
            return self._read(branch, operation)
        return read

    def list(self, query: ListQuery) -> CommentPage:
        """One page of the branch's comments: the ledger's, then the review's (held left out)."""
        read = self._read_read(query.branch, "list")
        comments = (*read.ledger.comments, *read.review.comments) if read else ()
        return page_of(comments, query, encode=str, decode=decode_decimal_cursor)

    def held(self, branch: str) -> builtins.list[Comment]:
        """What strangers wrote on the pull request: held apart from the agent and the gate."""
        read = self._read(branch, "list")
        return list(read.review.held) if read else []

    def state(self, branch: str) -> BranchState:
        """The branch in one read: both sources, the head, and what the gate decides from."""
        read = self._read_read(branch, "state")
        if read is None:
            return BranchState(branch, (), (), None, None)
        comments = (*read.ledger.comments, *read.review.comments)
        gated = tuple(c for c in comments if gate_covers(c, self.mode))
        approvals = tuple(sorted(read.ledger.approvals, key=lambda a: a.at, reverse=True))
        pushed = self.ledger.pushed(read.pull, read.head, gated)
        return BranchState(branch, comments, approvals, read.head, read.token, pushed, gated)

    def head(self, branch: str) -> str | None:
        """The head commit of the branch's pull request."""
        return self.ledger.head(branch)

    def approvals(self, branch: str) -> builtins.list[Approval] | None:
        """The branch's approvals, newest first."""
        return self.ledger.approvals(branch)

    def changes(self, branch: str) -> PullRequestChangeSignal:
        """A signal polling both sources with conditional (shared) requests."""
        return PullRequestChangeSignal(self, branch, self.clock)

    # -- the ledger's own ------------------------------------------------------------------

    def append(self, comment: NewComment) -> Comment:
        """Store one comment in the ledger."""
        return self.ledger.append(comment)

    def append_many(self, comments: Sequence[NewComment]) -> builtins.list[Comment]:
        """Store comments in the ledger, in one write."""
        return self.ledger.append_many(comments)

    def claim(self, comment_id: str, request: ClaimRequest) -> ClaimResult:
        """Claim a ledger comment, or a review thread (kept in the ledger's record of it).

        A thread claimed gets the token's 👀 on its first comment; released, it loses it.

        Raises:
            MissingCapabilityError: it is a review or a conversation comment, which keep no
                claims.
            NotFoundError: no comment, or no thread the agent can work on, has that id.
        """
        ref = review_ref(comment_id)
        if ref is None:
            return self.ledger.claim(comment_id, request)
        return claim_thread(self, ref, request)

    def claim_holder(self, comment_id: str, claimant: Claimant) -> Claim | None:
        """The live claim another session holds on a comment or a review thread, if any."""
        ref = review_ref(comment_id)
        if ref is None:
            return self.ledger.claim_holder(comment_id, claimant)
        if ref.kind is not ReviewKind.THREAD:
            return None
        return self.ledger.thread_holder(ref.pull, ref.id, claimant)

    def claim_many(
        self, comment_ids: Sequence[str], request: ClaimRequest
    ) -> builtins.list[ClaimResult]:
        """Claim ledger comments in one write; a review item has no result."""
        ours = [i for i in comment_ids if review_ref(i) is None]
        return self.ledger.claim_many(ours, request) if ours else []

    def sweep_claims(self, branch: str, request: ClaimRequest) -> builtins.list[Comment]:
        """Renew or end the session's claims on the branch (its review threads' too).

        A thread whose claim the sweep ended loses its 👀.
        """
        changed = self.ledger.sweep_claims(branch, request)
        unreact_swept(self, changed)
        return changed

    def approve(self, approval: NewApproval) -> Approval:
        """Store an approval in the ledger."""
        return self.ledger.approve(approval)

    def unapprove(self, approval_id: str) -> None:
        """Withdraw an approval from the ledger."""
        self.ledger.unapprove(approval_id)

    # -- acting on review items ------------------------------------------------------------

    def set_status(
        self, comment_id: str, status: CommentStatus, resolution: Resolution | None = None
    ) -> Comment:
        """A ledger comment's, or a review item's status (a thread only resolves on GitHub)."""
        ref = review_ref(comment_id)
        if ref is None:
            return self.ledger.set_status(comment_id, status, resolution)
        if ref.kind is ReviewKind.THREAD:
            if status is not CommentStatus.RESOLVED or resolution is None:
                raise ConversationError(
                    f"{comment_id} is a review thread on GitHub: only a resolve (with its commit) "
                    "is made from here; reopen it on GitHub (reply in it, or unresolve it)."
                )
            return self._resolve_thread(ref, resolution)
        return self._mark(ref, lambda mark, _: mark.with_status(status, resolution), "set_status")

    def converse(self, comment_id: str, event: ThreadEvent | EntryNote) -> Comment:
        """Apply a thread event: where the reviewer wrote, or in the ledger's record of it.

        A note (a reply's reading) on a review thread is kept in the ledger's record of it.
        """
        ref = review_ref(comment_id)
        if ref is None:
            return self.ledger.converse(comment_id, event)
        if isinstance(event, EntryNote):
            return note_reading(self, ref, event)
        if event.kind is ReplyKind.RESOLVE:
            assert event.resolution is not None  # checked by ThreadEvent
            if ref.kind is ReviewKind.THREAD:
                return self._resolve_thread(ref, event.resolution)
        elif event.kind is ReplyKind.REPLY and event.role is Role.AGENT:
            self._current(ref, "converse")  # the item must be there, and be work
            try:
                self.source.reply(ref, event.body, question=event.question)
            except GitHubError as exc:
                raise self._fail(exc, "converse") from exc
            return self._current(ref, "converse")
        elif ref.kind is ReviewKind.THREAD or event.kind is ReplyKind.REPLY:
            raise ConversationError(
                f"{comment_id} is on GitHub: a reviewer answers it there (reply in the thread "
                "or the conversation, or unresolve the thread), not through maple."
            )
        entry = f"ghr_{ref.pull}_{secrets.token_hex(6)}"

        def applied(mark: Comment, stamp: str) -> Comment:
            return apply_event(mark, event, entry, stamp, format_js_timestamp(self.clock.now()))

        return self._mark(ref, applied, "converse")

    def _current(self, ref: ReviewRef, operation: str) -> Comment:
        """The review item as the agent sees it, or ``NotFoundError`` (held ones are not there)."""
        branch = self.ledger.branch_of(ref.pull)
        read = self._read(branch, operation) if branch is not None else None
        found = next((c for c in (read.review.comments if read else ()) if c.id == ref.id), None)
        if found is None:
            raise NotFoundError(
                f"No review item {ref.id} the agent can work on: it is not on pull request "
                f"#{ref.pull}, or a stranger wrote it and nobody trusted has endorsed it yet.",
                store=self.name,
                operation=operation,
            )
        return found

    def _resolve_thread(self, ref: ReviewRef, resolution: Resolution) -> Comment:
        current = self._current(ref, "set_status")
        self._check_pushed(ref.pull, resolution.sha)
        done = current.resolution
        if (
            current.status is CommentStatus.RESOLVED
            and done is not None
            and done.sha == resolution.sha
        ):
            return current  # resolved by this very commit already: nothing new to say
        try:
            self.source.resolve_thread(ref, resolution.sha, resolution.note)
        except GitHubError as exc:
            raise self._fail(exc, "set_status") from exc
        return self._current(ref, "set_status")

    def _check_pushed(self, pull: int, sha: str) -> None:
        """A thread is resolved on GitHub, where only a pushed commit can have addressed it.

        A "no" from the shared answers is asked again fresh: the push may be a moment old.
        """
        if self.ledger.on_pull(pull, sha) is False:
            transport = self.transport
            if isinstance(transport, SharedTransport):
                transport.cache.invalidate()
                if self.ledger.on_pull(pull, sha) is not False:
                    return
            raise UnverifiedCommitError(
                f"{sha[:40]} is not on pull request #{pull} yet, so the reviewer cannot see the "
                "fix: git push, then resolve the thread again."
            )

    def _mark(
        self,
        ref: ReviewRef,
        change: Callable[[Comment, str], Comment],
        operation: str,
        current: Comment | None = None,
    ) -> Comment:
        """Change the ledger's record of a review or conversation item, then read it back.

        ``change`` gets the record (the item's status and resolution as the agent sees them,
        and the thread the ledger keeps) and the change's stamp, strictly after everything the
        ledger and the item hold, so a waiting agent's cursor covers a reviewer's reopening.
        """
        current = current or self._current(ref, operation)  # as the agent sees it (given: read)
        first: list[str] = []

        def changed(ledger: GitHubLedger) -> GitHubLedger:
            if not first:
                seen = [*activity_stamps([*ledger.comments, *ledger.marks]), current.received_at]
                first.append(format_stamp(next_arrival_stamp(self.clock.now(), seen)))
            stamp = first[0]
            marks = {m.id: m for m in ledger.marks}
            base = marks.get(ref.id) or Comment(id=ref.id, branch=current.branch, body="")
            base = replace(base, status=current.status, resolution=current.resolution)
            updated = change(base, stamp)
            marks[ref.id] = replace(updated, extra={**updated.extra, "updatedAt": stamp})
            return replace(ledger, marks=tuple(marks.values()))

        def landed(ledger: GitHubLedger) -> bool | None:
            mark = next((m for m in ledger.marks if m.id == ref.id), None)
            return True if mark is not None and mark.extra.get("updatedAt") == first[0] else None

        try:
            self.ledger.write_marks(ref.pull, operation, changed, landed)
        except GitHubError as exc:
            raise self._fail(exc, operation) from exc
        return self._current(ref, operation)


def _marks(marks: Sequence[Comment]) -> dict[str, Mark]:
    """The ledger's records of review items, as the review's mapping takes them."""
    found: dict[str, Mark] = {}
    for mark in marks:
        replies = tuple(r.to_json() for r in thread_of(mark))
        raw = mark.extra.get(READINGS)
        readings = (
            {k: v for k, v in raw.items() if isinstance(v, dict)} if isinstance(raw, dict) else {}
        )
        found[mark.id] = Mark(mark.status, mark.resolution, replies, readings)
    return found
