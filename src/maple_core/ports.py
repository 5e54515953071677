"""The ports: what the core needs from the outside world, as ``typing.Protocol`` classes.

Adapters in ``maple_adapters`` implement them; a missing capability is declared in
``capabilities`` and answered with an absent value (``None``) or a
:class:`~maple_core.errors.MissingCapabilityError`, never with an empty one.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Protocol, Unpack, runtime_checkable

from maple_core.agents import AgentRun, ProviderInfo, StartOptions
from maple_core.approvals import Approval, NewApproval
from maple_core.claims import ClaimRequest, ClaimResult
from maple_core.comments import Comment, NewComment, Resolution
from maple_core.feedback import HarnessAnswer
from maple_core.gate import GateReport, GateVerdict
from maple_core.json_types import JsonObject
from maple_core.media import MediaRef
from maple_core.paging import CommentPage, ListQuery
from maple_core.statuses import CommentStatus
from maple_core.tasks import TaskRecord, TaskStatus
from maple_core.thread_events import EntryNote, ThreadEvent
from maple_core.tokens import AccessToken, IssuedToken, TokenScope

__all__ = [
    "AgentPool",
    "AgentProvider",
    "AgentSession",
    "BranchState",
    "Capability",
    "ChangeSignal",
    "Clock",
    "CommentAmending",
    "CommentClaims",
    "CommentConversation",
    "CommentStore",
    "CommitCheck",
    "Commits",
    "FeedbackClassifier",
    "GatePublisher",
    "GateRefresher",
    "HeldComments",
    "MediaStore",
    "PushAccess",
    "PushAnswer",
    "TaskStore",
    "TokenStore",
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


class FeedbackClassifier(Protocol):
    """A harness that reads a reviewer's words and answers in a schema (Claude Code, Codex).

    maple implements no model protocol: the harness is the client, run headless with nothing
    it could run, each run bounded in time.
    """

    @property
    def name(self) -> str:
        """``claude`` or ``codex`` (``memory`` for the reference)."""
        ...

    def detect(self) -> ProviderInfo:
        """Whether the harness is installed and signed in, and what to do if not."""
        ...

    def classify(self, prompt: str, schema: JsonObject) -> HarnessAnswer:
        """Ask once: the answer in ``schema``'s place (unchecked), or why there is none."""
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


class CommitCheck(StrEnum):
    """What a checkout says of a commit a resolution names."""

    REACHABLE = "reachable"
    UNREACHABLE = "unreachable"
    UNKNOWN = "unknown"
    NO_CHECKOUT = "no-checkout"


class Commits(Protocol):
    """The git checkout the agent works in, asked about the commits it claims."""

    def check(self, sha: str) -> tuple[CommitCheck, str | None]:
        """Whether ``sha`` names a commit reachable from HEAD, and that commit's full sha."""
        ...

    def head(self) -> str | None:
        """The checkout's HEAD commit, or ``None`` outside a checkout."""
        ...


class GatePublisher(Protocol):
    """Shows the gate's verdict where the merge is decided (a GitHub check run, a route)."""

    @property
    def name(self) -> str:
        """A stable lowercase id such as ``memory``."""
        ...

    def publish(self, report: GateReport) -> None:
        """Show ``report``'s verdict on its commit, replacing what was shown before."""
        ...

    def read(self, branch: str, sha: str) -> GateVerdict | None:
        """The verdict last shown on ``sha``, or ``None`` when there is none."""
        ...


@runtime_checkable
class GateRefresher(Protocol):
    """Asks someone else to decide and publish the gate for a branch (a deployed route)."""

    @property
    def name(self) -> str:
        """A stable lowercase id such as ``route``."""
        ...

    def refresh(self, branch: str) -> None:
        """Ask for ``branch``'s gate to be published again; raise when that was refused."""
        ...


class PushAnswer(StrEnum):
    """What the forge said about a token and the repository."""

    PUSH = "push"
    DENIED = "denied"
    BAD_TOKEN = "bad-token"


class PushAccess(Protocol):
    """Says whether a caller's token can push to the repository (the route asks it)."""

    def __call__(self, token: str) -> PushAnswer:
        """The answer for ``token``; raise when the forge answered something else."""
        ...


class MediaStore(Protocol):
    """Where screenshots attached to comments are kept."""

    @property
    def name(self) -> str:
        """The connector name a ``MediaRef`` records, such as ``file``."""
        ...

    def put(self, data: bytes, content_type: str) -> MediaRef:
        """Keep a blob under a new key."""
        ...

    def get(self, key: str) -> tuple[bytes, str]:
        """A blob's bytes and content type; ``NotFoundError`` when nothing is held."""
        ...


class TokenStore(Protocol):
    """Where the access tokens maple issues are kept: their digests, never their secrets."""

    def issue(
        self, repository: str, scope: TokenScope, expires_at: datetime, label: str | None = None
    ) -> IssuedToken:
        """Make a new token for ``repository``; its secret is in the answer and nowhere else."""
        ...

    def tokens(self, repository: str | None = None) -> builtins.list[AccessToken]:
        """The tokens issued (for ``repository``, or all), oldest first, revoked ones included."""
        ...

    def revoke(self, token_id: str) -> AccessToken:
        """Stop the token ``token_id`` working now; an unknown id is ``NotFoundError``."""
        ...

    def find(self, secret: str) -> AccessToken | None:
        """The token whose secret is ``secret``, or ``None`` when none is (checked by digest)."""
        ...


class TaskStore(Protocol):
    """Where MCP tasks' records are kept, shared by every worker that may be asked about them.

    Times are maple's arrival-stamp strings (fixed width, so they compare as text). Every
    change is conditional on the task still working, so two workers never both end one task.
    """

    def create(self, record: TaskRecord) -> None:
        """Keep a new task's record."""
        ...

    def get(self, task_id: str) -> TaskRecord | None:
        """The task's record, or ``None`` when it is unknown (or forgotten)."""
        ...

    def finish(
        self,
        task_id: str,
        status: TaskStatus,
        message: str,
        at: str,
        finished_at: str,
        *,
        result: JsonObject | None = None,
        error: JsonObject | None = None,
    ) -> TaskRecord | None:
        """End a working task; ``None`` when it was not working any more (nothing changes)."""
        ...

    def renew(self, owner: str, task_ids: Sequence[str], lease_until: str) -> set[str]:
        """Extend ``owner``'s leases on its working tasks.

        Answers which of ``task_ids`` it no longer runs: ended elsewhere (a cancel through
        another worker), taken over, or forgotten.
        """
        ...

    def take_over(self, task_id: str, owner: str, now: str, lease_until: str) -> TaskRecord | None:
        """Claim a working task whose lease ran out before ``now``; ``None`` when it is not free."""
        ...

    def forget(self, finished_before: str) -> None:
        """Drop the records of tasks that stopped working before ``finished_before``."""
        ...


class AgentSession(Protocol):
    """One external agent: a thread of work in Codex or Claude Code, and its current turn."""

    @property
    def agent_id(self) -> str:
        """Maple's id for the agent (``codex-1``, ``claude-2``…)."""
        ...

    def snapshot(self) -> AgentRun:
        """The agent as it stands now."""
        ...

    def send(self, text: str) -> None:
        """Answer the pending question with ``text``, or start a new turn with it."""
        ...

    def wait(self, timeout: float | None = None) -> AgentRun:
        """Block until the turn is no longer running (or ``timeout`` seconds pass)."""
        ...

    def cancel(self) -> AgentRun:
        """Interrupt the turn, wait briefly, then end the agent's processes."""
        ...

    def close(self) -> None:
        """End every process the agent started; the thread stays on disk."""
        ...


class AgentProvider(Protocol):
    """A coding CLI maple can hand work to (``codex``, ``claude``)."""

    @property
    def name(self) -> str:
        """``codex`` or ``claude``."""
        ...

    def detect(self) -> ProviderInfo:
        """Whether it is installed, its version and sign-in status, and what to do if not."""
        ...

    def start(
        self, agent_id: str, briefing: str, cwd: str, **options: Unpack[StartOptions]
    ) -> AgentSession:
        """Start an agent on ``briefing`` in ``cwd``; its first turn begins at once."""
        ...

    def resume(self, agent_id: str, thread_id: str, text: str, cwd: str) -> AgentSession:
        """Resume the saved thread ``thread_id`` in a fresh process, a new turn on ``text``."""
        ...


class AgentPool(Protocol):
    """The agents one server started, with the providers it offers (``MAPLE_AGENTS``)."""

    @property
    def providers(self) -> Mapping[str, AgentProvider]:
        """The providers offered, by name."""
        ...

    def start(
        self,
        provider: str,
        briefing: str,
        *,
        cwd: str | None = None,
        **options: Unpack[StartOptions],
    ) -> AgentSession:
        """Start an agent; refused past the most a server starts, or for a provider not offered."""
        ...

    def get(self, provider: str, agent_id: str) -> AgentSession:
        """The agent ``agent_id`` of ``provider``; refused when there is none."""
        ...

    def close_all(self) -> None:
        """End every agent's processes."""
        ...
