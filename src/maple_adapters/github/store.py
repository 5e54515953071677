"""The ``github`` store: a pull request's ledger comment, over either transport (behaviour §4)."""

from __future__ import annotations

import builtins
import contextlib
import re
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from typing import TypeVar

from maple_adapters.github.claim_notes import Note
from maple_adapters.github.claim_state import thread_records
from maple_adapters.github.edits import (
    Appending,
    Approving,
    Conversing,
    Marking,
    StatusChange,
    Withdrawing,
    comment_in,
)
from maple_adapters.github.ledger import GitHubLedger
from maple_adapters.github.ledger_claims import LedgerClaims
from maple_adapters.github.pulls import Pull, PullRequests, fingerprint
from maple_adapters.github.repository import Repository
from maple_adapters.github.signal import GitHubChangeSignal
from maple_adapters.github.transport import GitHubError, GitHubTransport
from maple_adapters.github.trust import Ledgers, WriterTrust
from maple_adapters.github.writer import LedgerWriter
from maple_core.approvals import Approval, NewApproval
from maple_core.claims import Claim, Claimant, ClaimRequest, ClaimResult
from maple_core.comments import Comment, NewComment, Resolution
from maple_core.conversation import ConversationError
from maple_core.errors import (
    MapleError,
    NotFoundError,
    StoreError,
    StoreRejectedError,
    StoreUnavailableError,
)
from maple_core.json_types import JsonObject, JsonValue
from maple_core.paging import CommentPage, ListQuery, decode_decimal_cursor, page_of
from maple_core.ports import BranchState, Capability, Clock
from maple_core.statuses import CommentStatus
from maple_core.thread_events import EntryNote, ThreadEvent

__all__ = ["GitHubLedgerStore"]

T = TypeVar("T")

_CAPABILITIES = frozenset(Capability) - {Capability.AMEND}
_COMMENT_ID = re.compile(r"gh_(\d+)_(\d+)")
_APPROVAL_ID = re.compile(r"gha_(\d+)_(\d+)")


class GitHubLedgerStore:
    """Comments and approvals in one issue comment per pull request (Maple's ``githubStore``).

    Reading merges every ledger found, so two writers racing on one pull request lose nothing;
    a write consolidates them into one. Every GET is conditional (see ``ConditionalTransport``).
    Only a ledger its writers wrote is read (:mod:`~maple_adapters.github.trust`); a write is
    made again until it lands (:mod:`~maple_adapters.github.writer`).

    Args:
        transport: how to reach GitHub (``api`` or ``cli``), already resilient and conditional.
        owner: the repository's owner.
        repo: the repository's name.
        clock: stamps arrivals.
        app_id: the GitHub App whose bot writes ledgers too (``MAPLE_GATE_APP_ID``), if any.
    """

    name = "github"
    capabilities = _CAPABILITIES
    """Everything, ``head`` and ``watch`` included."""

    def __init__(
        self,
        transport: GitHubTransport,
        owner: str,
        repo: str,
        clock: Clock,
        *,
        app_id: str | int | None = None,
    ) -> None:
        self._transport = transport
        self._clock = clock
        place = Repository(transport, owner, repo, self.name)
        self._pulls = PullRequests(place)
        self._trust = WriterTrust(place, app_id)
        self._writer = LedgerWriter(place, clock, self._pulls, self._trust)
        self._place = place
        self._claims = LedgerClaims(self)
        self._writer.before_write = self._claims.forget

    @property
    def transport(self) -> GitHubTransport:
        """The transport this store talks through."""
        return self._transport

    @contextlib.contextmanager
    def _failing(
        self, operation: str, passing: tuple[type[MapleError], ...] = ()
    ) -> Iterator[None]:
        """Translate what goes wrong inside into the store's errors, in this one place.

        Errors of the ``passing`` types (the caller's own mistakes) propagate unchanged.
        """
        try:
            yield
        except passing:
            raise
        except MapleError as exc:
            raise self._fail(exc, operation) from exc

    def _fail(self, exc: MapleError, operation: str) -> StoreError:
        if isinstance(exc, StoreError):  # already says what is wrong with the store
            return exc
        if isinstance(exc, GitHubError) and exc.rejected:  # a bad token, no access: not a retry
            return StoreRejectedError(str(exc), store=self.name, operation=operation)
        return StoreUnavailableError(str(exc), store=self.name, operation=operation)

    # -- reading ---------------------------------------------------------------------------

    def find_pull(self, branch: str) -> int | None:
        """The pull request whose head is ``branch``: an open one, else the newest of any."""
        pull = self._pulls.find(branch)
        return pull.number if pull is not None else None

    def issue_comments(self, pull: int) -> builtins.list[JsonObject]:
        """Every issue comment on the pull request, all pages, oldest first."""
        return self._pulls.issue_comments(pull)

    def _ledgers(self, pull: int, branch: str | None, operation: str = "list") -> Ledgers | None:
        return self._trust.ledgers_in(pull, self.issue_comments(pull), branch, operation)

    def list(self, query: ListQuery) -> CommentPage:
        """One page of the branch's comments; no pull request means none.

        The read stands in for a claim's own read just after it (``ledger_claims``).
        """
        with self._failing("list"):
            pull = self.find_pull(query.branch)
            found = None
            if pull is not None:
                read = self.issue_comments(pull)
                self.seen(pull, read)
                found = self._trust.ledgers_in(pull, read, query.branch, "list")
        comments = found.merged.comments if found else ()
        return page_of(comments, query, encode=str, decode=decode_decimal_cursor)

    def seen(self, pull: int, comments: Sequence[JsonObject]) -> None:
        """A fresh read of the pull request's comments, which a claim just after it reuses."""
        self._claims.seen(pull, comments)

    def head(self, branch: str) -> str | None:
        """The head commit of the branch's pull request, asked every time; ``None`` without one."""
        with self._failing("head"):
            pull = self._pulls.find(branch)
        return pull.head if pull is not None else None

    def approvals(self, branch: str) -> builtins.list[Approval] | None:
        """The branch's approvals, newest first; no pull request means none."""
        with self._failing("approvals"):
            pull = self.find_pull(branch)
            found = self._ledgers(pull, branch, "approvals") if pull is not None else None
        return _newest_first(found.merged.approvals if found else ())

    def state(self, branch: str) -> BranchState:
        """The branch's pull request (its head with it) and its ledgers: two requests.

        The ledger read for a write is the one the verdict is decided from: asked within 2 s of
        this store's own write to the same pull request, the comments the write was read back
        from (after it landed) stand in for a fresh listing, once.

        ``pushed`` (the pull request's commits, for the gate's "not pushed" evidence) costs a
        third request only when some resolved comment names a commit other than the head, and
        only once per head (see :meth:`PullRequests.pushed`).
        """
        with self._failing("state"):
            pull = self._pulls.find(branch)
            if pull is None:
                return BranchState(branch, (), (), None, None)
            comments = self._writer.read_back(pull.number)
            if comments is None:
                comments = tuple(self.issue_comments(pull.number))
            found = self._trust.ledgers_in(pull.number, comments, branch, "state")
            merged = found.merged if found is not None else GitHubLedger(branch)
            pushed = self._pulls.pushed(pull, merged.comments)
        return BranchState(
            branch,
            merged.comments,
            tuple(_newest_first(merged.approvals)),
            pull.head,
            fingerprint(comments),
            pushed,
        )

    def changes(self, branch: str) -> GitHubChangeSignal:
        """A signal that polls the pull request's comments with conditional requests."""
        return GitHubChangeSignal(self, branch, self._clock)

    # -- what the pull request's review reads and writes through (see ``pull_store``) -------

    def pull_of(self, branch: str) -> tuple[int, str | None] | None:
        """The branch's pull request: its number and head commit (one request)."""
        pull = self._pulls.find(branch)
        return (pull.number, pull.head) if pull is not None else None

    def branch_of(self, pull: int) -> str | None:
        """The head branch of pull request ``pull``, or ``None`` when there is none."""
        return self._pulls.branch_of(pull)

    def read_back(self, pull: int) -> tuple[JsonObject, ...] | None:
        """The issue comments this store's last write was read back from, once, within 2 s."""
        return self._writer.read_back(pull)

    def ledger_in(
        self, pull: int, comments: Sequence[JsonObject], branch: str, operation: str
    ) -> GitHubLedger:
        """The trusted ledgers among ``comments``, merged (an empty ledger when there is none)."""
        found = self._trust.ledgers_in(pull, comments, branch, operation)
        return found.merged if found is not None else GitHubLedger(branch)

    def writer_logins(self) -> frozenset[str]:
        """The logins this store writes as."""
        return self._trust.writer_logins()

    @staticmethod
    def fingerprint(comments: Sequence[JsonObject]) -> Hashable:
        """A change token for a pull request's issue comments."""
        return fingerprint(comments)

    def pushed(
        self, pull: int, head: str | None, comments: Sequence[Comment]
    ) -> frozenset[str] | None:
        """The pull request's commits, as far as ``comments``' resolutions ask (see ``state``)."""
        return self._pulls.pushed(Pull(pull, head), comments)

    def on_pull(self, pull: int, sha: str) -> bool | None:
        """Whether ``sha`` (7 characters or more) is on the pull request; ``None`` if unknown."""
        return self._pulls.on_pull(pull, sha)

    def write_marks(
        self,
        pull: int,
        operation: str,
        change: Callable[[GitHubLedger], GitHubLedger],
        landed: Callable[[GitHubLedger], bool | None],
    ) -> None:
        """Change the ledger's records of review items in place, as a resolve edits a comment."""
        with self._failing(operation):
            self._writer.write(pull, Marking(operation, change, landed))

    # -- writing ---------------------------------------------------------------------------

    def append(self, comment: NewComment) -> Comment:
        """Store one comment as ``gh_<pull>_<n>``."""
        return self.append_many([comment])[0]

    def append_many(self, comments: Sequence[NewComment]) -> builtins.list[Comment]:
        """Store comments in one new ledger (one POST), then delete the old ones."""
        if not comments:
            return []
        branch = comments[0].branch
        with self._failing("append"):
            pull = self.find_pull(branch)
            if pull is None:
                raise NotFoundError(
                    f"No pull request for branch {branch}; Maple has nowhere to post. "
                    "Open a pull request for the branch, or use MAPLE_STORE=file.",
                    store=self.name,
                    operation="append",
                )
            edit = Appending(pull, branch, comments, self._clock, self._trust.author)
            return self._writer.write(pull, edit)

    def _by_id(self, pattern: re.Pattern[str], record_id: str, kind: str, operation: str) -> int:
        match = pattern.fullmatch(record_id)
        if match is None:
            raise NotFoundError(
                f"Not a GitHub {kind} id: {record_id}. GitHub {kind} ids look like "
                f"{'gh' if kind == 'comment' else 'gha'}_<pull>_<n>.",
                store=self.name,
                operation=operation,
            )
        return int(match.group(1))

    def set_status(
        self, comment_id: str, status: CommentStatus, resolution: Resolution | None = None
    ) -> Comment:
        """Change a comment's status in place (PATCH); an unknown id is ``NotFoundError``."""
        pull = self._by_id(_COMMENT_ID, comment_id, "comment", "set_status")
        edit = StatusChange(comment_id, status, resolution, self._clock, self.name)
        with self._failing("set_status"):
            return self._resolving(pull, comment_id, lambda: self._writer.write(pull, edit))

    def converse(self, comment_id: str, event: ThreadEvent | EntryNote) -> Comment:
        """Apply a thread event to a comment in place (PATCH), as :meth:`set_status` changes one.

        See :class:`~maple_adapters.github.edits.Conversing`. An unknown id is
        ``NotFoundError``; an event the comment cannot take raises
        :class:`~maple_core.conversation.ConversationError` unchanged.
        """
        pull = self._by_id(_COMMENT_ID, comment_id, "comment", "converse")
        edit = Conversing(pull, comment_id, event, self._clock, self.name)
        with self._failing("converse", passing=(ConversationError,)):
            return self._resolving(pull, comment_id, lambda: self._writer.write(pull, edit))

    def _resolving(self, pull: int, comment_id: str, write: Callable[[], Comment]) -> Comment:
        """Run a status write; if it resolved the comment, the claim note it ended goes too.

        The write ends the comment's claim in the ledger (``claim_chain.ended_by_resolve``);
        the note that granted it is asked for first, as the write forgets the claims' read.
        """
        notes = self._claims.notes_on(pull, comment_id)
        written = write()
        if notes and written.status is CommentStatus.RESOLVED:
            self._claims.drop(pull, comment_id, notes)
        return written

    def claim(self, comment_id: str, request: ClaimRequest) -> ClaimResult:
        """Apply a claim request; GitHub's order arbitrates a new claim (``ledger_claims``)."""
        pull = self._by_id(_COMMENT_ID, comment_id, "comment", "claim")
        found = self._claims.claim(pull, [comment_id], request)
        if not found:
            comment_in(GitHubLedger(""), comment_id, self.name, "claim")  # raises NotFoundError
        return found[0]

    def claim_holder(self, comment_id: str, claimant: Claimant) -> Claim | None:
        """The live claim another session holds on the comment, as a resolve asks it.

        Resolving ends the comment's claim in the resolve's own edit, so a resolve asks this
        instead of claiming first (:func:`maple_core.claiming.claim_for_resolve`).
        """
        pull = self._by_id(_COMMENT_ID, comment_id, "comment", "claim")
        return self._claims.holder(pull, comment_id, claimant)

    def claim_threads(
        self, pull: int, threads: Mapping[str, Comment], request: ClaimRequest
    ) -> builtins.list[ClaimResult]:
        """Apply a claim request to review threads, kept in claim notes as comments' are.

        ``threads`` are each thread's bare record, for a thread the ledger keeps no record of.
        """
        with self._failing("claim"):
            return self._claims.claim(pull, builtins.list(threads), request, threads)

    def thread_holder(self, pull: int, thread_id: str, claimant: Claimant) -> Claim | None:
        """The live claim another session holds on a review thread (see :meth:`claim_holder`)."""
        return self._claims.holder(pull, thread_id, claimant)

    def claim_many(
        self, comment_ids: Sequence[str], request: ClaimRequest
    ) -> builtins.list[ClaimResult]:
        """Apply a claim request to each comment, one write per pull request they are on."""
        by_pull: dict[int, builtins.list[str]] = {}
        for comment_id in comment_ids:
            match = _COMMENT_ID.fullmatch(comment_id)
            if match is not None:
                by_pull.setdefault(int(match.group(1)), []).append(comment_id)
        done: dict[str, ClaimResult] = {}
        for pull, ids in by_pull.items():
            for result in self._claims.claim(pull, ids, request):
                done[result.comment.id] = result
        return [done[i] for i in comment_ids if i in done]

    def sweep_claims(self, branch: str, request: ClaimRequest) -> builtins.list[Comment]:
        """Renew or end the session's live claims on ``branch`` in one checked edit."""
        with self._failing("claim"):
            pull = self.find_pull(branch)
            if pull is None:
                return []
            return self._claims.sweep(pull, branch, request)

    def list_branch(self, branch: str) -> builtins.list[Comment]:
        """Every comment on ``branch`` (all pages), as :meth:`list` gives them."""
        return builtins.list(self.state(branch).comments)

    # -- what the ledger's claims work through (``ledger_claims``, a part of this store) -----

    @property
    def _base(self) -> str:
        return self._place.base

    def _ledgers_in(
        self, pull: int, comments: Sequence[JsonObject], branch: str | None, operation: str
    ) -> Ledgers | None:
        return self._trust.ledgers_in(pull, comments, branch, operation)

    def _notes_in(self, comments: Sequence[JsonObject]) -> tuple[Note, ...]:
        return self._trust.notes_in(comments)

    def claim_marks(
        self, comments: Sequence[JsonObject], merged: GitHubLedger
    ) -> builtins.list[Comment]:
        """``merged``'s records of review items, and a bare one per thread only a note claims."""
        return thread_records(self._trust.notes_in(comments), merged)

    def _body(self, ledger: GitHubLedger, operation: str, *, adds_words: bool) -> str:
        return self._writer.body(ledger, operation, adds_words=adds_words)

    def _learn_writer(self, created: JsonValue) -> None:
        self._trust.learn(created)

    def _forget_read_back(self) -> None:
        self._writer.forget_read_back()

    def _write(
        self,
        pull: int,
        branch: str | None,
        operation: str,
        change: Callable[[GitHubLedger], GitHubLedger],
        landed: Callable[[GitHubLedger], T | None],
        *,
        repost: bool,
    ) -> T:
        return self._writer.write(
            pull, Marking(operation, change, landed, branch=branch, repost=repost)
        )

    def approve(self, approval: NewApproval) -> Approval:
        """Store an approval as ``gha_<pull>_<n>`` (a repost, like an append)."""
        with self._failing("approve"):
            pull = self.find_pull(approval.branch)
            if pull is None:
                raise NotFoundError(
                    f"No pull request for branch {approval.branch}; Maple has nowhere to post.",
                    store=self.name,
                    operation="approve",
                )
            return self._writer.write(pull, Approving(pull, approval))

    def unapprove(self, approval_id: str) -> None:
        """Withdraw an approval, editing the ledger in place (and remembering the withdrawal)."""
        pull = self._by_id(_APPROVAL_ID, approval_id, "approval", "unapprove")
        with self._failing("unapprove"):
            self._writer.write(pull, Withdrawing(approval_id, self.name))


def _newest_first(approvals: Sequence[Approval]) -> builtins.list[Approval]:
    return sorted(approvals, key=lambda a: a.at, reverse=True)
