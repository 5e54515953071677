"""Use cases written against the ports: list, wait, resolve and tell the gate, decide the gate.

Every entrypoint (the MCP server, the CLI, the route, the Stop hook) calls these; none repeats
them. Progress, cancellation and logging come in as callbacks, so the use cases stay free of
any transport.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, cast

from maple_core.comments import Comment, Resolution
from maple_core.conversation import ThreadEvent
from maple_core.cursor import FreshComments, format_js_timestamp, newest_first, select_fresh
from maple_core.errors import CorruptLedgerError, MissingCapabilityError, UnverifiedCommitError
from maple_core.gate import (
    GatePolicy,
    GateReport,
    GateVerdict,
    decide_gate,
    unreadable_ledger_verdict,
)
from maple_core.json_types import JsonObject
from maple_core.paging import ListQuery
from maple_core.ports import (
    BranchState,
    Capability,
    Clock,
    CommentConversation,
    CommentStore,
    CommitCheck,
    Commits,
    GatePublisher,
    GateRefresher,
)
from maple_core.statuses import CommentStatus

__all__ = [
    "GateLog",
    "Look",
    "Progress",
    "PublishOutcome",
    "Sleep",
    "WaitPlan",
    "advance",
    "converse",
    "converse_and_report",
    "conversing",
    "decide_branch_gate",
    "list_all",
    "look",
    "publish_gate",
    "report_to_gate",
    "resolve_and_report",
    "resolve_comment",
    "stamped_resolution",
    "verified_commit",
    "wait_for_comments",
    "wait_plan",
]

_MAX_COMMENTS = 10_000


def list_all(
    store: CommentStore,
    branch: str,
    statuses: Iterable[CommentStatus] | None = None,
    *,
    report: Callable[[str], None] | None = None,
) -> list[Comment]:
    """Every comment on ``branch`` (optionally only some statuses), newest first.

    A stored record in a bad shape never breaks the listing: one without a string id (nobody
    could resolve it) is left out, one with other fields maple cannot read is kept with those
    fields read as absent, and each is described to ``report``.
    """
    wanted = frozenset(statuses) if statuses is not None else None
    gathered: list[Comment] = []
    cursor: str | None = None
    while True:
        page = store.list(ListQuery(branch=branch, statuses=wanted, cursor=cursor))
        gathered += _usable(page.comments, branch, report)
        cursor = page.cursor
        if cursor is None or len(gathered) >= _MAX_COMMENTS:
            return newest_first(gathered)


def look(
    store: CommentStore, branch: str, *, report: Callable[[str], None] | None = None
) -> tuple[list[Comment], Hashable]:
    """The usable comments on ``branch`` newest first, and the change token of that same read.

    One read of the store (:meth:`~maple_core.ports.CommentStore.state`): a wait's look, after
    which it sleeps on the token. Records in a bad shape are handled as :func:`list_all` does.
    """
    state = store.state(branch)
    return newest_first(_usable(state.comments, branch, report)), state.token


def _usable(
    comments: Iterable[Comment], branch: str, report: Callable[[str], None] | None
) -> list[Comment]:
    """The comments that have an id, each one in a bad shape described to ``report``."""
    kept: list[Comment] = []
    for comment in comments:
        if comment.problems and report is not None:
            report(_described_problems(comment, branch))
        if comment.id:
            kept.append(comment)
    return kept


def _described_problems(comment: Comment, branch: str) -> str:
    fields = ", ".join(comment.problems)
    if not comment.id:
        return (
            f"A comment on {branch} has no readable id ({fields} cannot be read), so it is left "
            "out; fix or remove it where the store keeps it."
        )
    return (
        f"Comment {comment.id} on {branch} has fields maple cannot read ({fields}); they are "
        "left out of what is shown."
    )


@dataclass(frozen=True, slots=True)
class Look:
    """A wait's step: list the branch now and send back its comments.

    The driver notes the branch's change signal just before it lists, so a change between the
    listing and the next :class:`Sleep` is never slept through.
    """


@dataclass(frozen=True, slots=True)
class Sleep:
    """A wait's step: sleep until the branch changes or ``seconds`` pass; send back if it did."""

    seconds: float


@dataclass(frozen=True, slots=True)
class Progress:
    """A wait's step: report that ``elapsed`` of ``total`` seconds have passed; send back None."""

    elapsed: float
    total: float


WaitPlan = Generator[Look | Sleep | Progress, Sequence[Comment] | bool | None, FreshComments]
"""A wait written once, without I/O: its driver lists, sleeps and reports as the steps say."""


def wait_plan(
    cursor: str | None,
    budget_ms: int,
    now: Callable[[], float],
    *,
    relist_s: float | None = None,
    progress_s: float | None = None,
) -> WaitPlan:
    """The wait for comments newer than ``cursor``, up to ``budget_ms``, as steps to drive.

    The first :class:`Look` comes at once, so a wait without a cursor drains what is waiting.
    After that it looks again only when a :class:`Sleep` says the branch changed, or every
    ``relist_s`` seconds as a safety net under the change signal; every ``progress_s`` seconds
    it asks for a :class:`Progress` report. Nothing fresh by the deadline is a normal result
    with no comments and the cursor unchanged. ``now`` is a monotonic clock in seconds; the
    budget starts when the plan is made. Cancelling is the driver's: it stops driving.

    Raises:
        InvalidCursorError: ``cursor`` is not a timestamp (at the first look).
    """
    return _planned(cursor, now(), budget_ms / 1000, now, relist_s, progress_s)


def _planned(
    cursor: str | None,
    start: float,
    budget_s: float,
    now: Callable[[], float],
    relist_s: float | None,
    progress_s: float | None,
) -> WaitPlan:
    deadline = start + budget_s
    next_progress = start + progress_s if progress_s else math.inf
    found = select_fresh(_listed((yield Look())), cursor)
    next_relist = now() + relist_s if relist_s else math.inf
    while not found.comments:
        moment = now()
        if moment >= deadline:
            break
        if progress_s and moment >= next_progress:
            yield Progress(round(moment - start, 3), budget_s)
            next_progress += progress_s
        changed = yield Sleep(min(deadline, next_progress, next_relist) - moment)
        if changed or now() >= next_relist:
            found = select_fresh(_listed((yield Look())), cursor)
            next_relist = now() + relist_s if relist_s else math.inf
    return found


def advance(
    plan: WaitPlan, reply: Sequence[Comment] | bool | None
) -> Look | Sleep | Progress | FreshComments:
    """Send ``reply`` to the last step of ``plan``: the next step, or what the wait found."""
    try:
        return plan.send(reply)
    except StopIteration as done:
        return cast(FreshComments, done.value)


def _listed(sent: Sequence[Comment] | bool | None) -> Sequence[Comment]:
    if isinstance(sent, bool) or sent is None:
        raise TypeError("a Look is answered with the branch's comments")
    return sent


def wait_for_comments(
    store: CommentStore,
    branch: str,
    cursor: str | None,
    budget_ms: int,
    clock: Clock,
    *,
    report: Callable[[str], None] | None = None,
) -> FreshComments:
    """Wait up to ``budget_ms`` for comments on ``branch`` newer than ``cursor`` (blocking).

    Drives :func:`wait_plan` with the store: it sleeps on the store's change signal between
    looks. Records in a bad shape are left out or read in part, and described to ``report``
    (see :func:`list_all`).

    Raises:
        InvalidCursorError: ``cursor`` is not a timestamp.
    """
    plan = wait_plan(cursor, budget_ms, clock.monotonic)
    changes = store.changes(branch)
    token: Hashable = None
    reply: Sequence[Comment] | bool | None = None
    while not isinstance(step := advance(plan, reply), FreshComments):
        if isinstance(step, Look):
            reply, token = look(store, branch, report=report)
        else:
            assert isinstance(step, Sleep)  # no progress was asked for
            reply = changes.wait(token, step.seconds)
    return step


def resolve_comment(
    store: CommentStore,
    comment_id: str,
    sha: str,
    note: str | None,
    clock: Clock,
    *,
    commits: Commits | None = None,
    author: JsonObject | None = None,
) -> Comment:
    """Mark a comment resolved, recording the commit that addressed it and when.

    With ``commits`` (the checkout the agent works in), ``sha`` must name a commit HEAD can
    reach; the full sha is recorded (see :func:`verified_commit`). On a store that keeps threads,
    a comment already resolved keeps its first resolution and the thread records this one.

    Raises:
        MissingCapabilityError: the store cannot change a status.
        UnverifiedCommitError: ``sha`` is not a commit the checkout's HEAD can reach.
    """
    if Capability.SET_STATUS not in store.capabilities:
        raise MissingCapabilityError(
            f"The {store.name} store cannot change a status; resolve the comment where it lives.",
            store=store.name,
            operation="set_status",
        )
    if commits is not None:
        sha = verified_commit(commits, sha)
    resolution = stamped_resolution(sha, note, clock)
    if Capability.CONVERSE in store.capabilities and isinstance(store, CommentConversation):
        return store.converse(comment_id, ThreadEvent.resolve(resolution, author))
    return store.set_status(comment_id, CommentStatus.RESOLVED, resolution)


def verified_commit(commits: Commits, sha: str) -> str:
    """``sha`` as the full commit it names, once the checkout shows HEAD can reach it.

    Outside a git checkout nothing can be checked and ``sha`` is taken as given.

    Raises:
        UnverifiedCommitError: saying what was expected and how to get it.
    """
    answer, full = commits.check(sha)
    if answer is CommitCheck.NO_CHECKOUT:
        return sha
    if answer is CommitCheck.REACHABLE and full is not None:
        return full
    head = commits.head()
    hint = f" HEAD is {head}." if head else ""
    shown_sha = sha[:64].encode("ascii", "replace").decode()
    if answer is CommitCheck.UNREACHABLE:
        raise UnverifiedCommitError(
            f"{shown_sha!r} is a commit, but HEAD cannot reach it, so it cannot have addressed "
            f"the comment here.{hint} Commit the fix on this branch and pass that commit's sha "
            "(git rev-parse HEAD)."
        )
    raise UnverifiedCommitError(
        f"{shown_sha!r} names no commit in this checkout; a resolution needs the sha of the "
        f"commit that addressed the comment.{hint} Commit the fix, then pass its sha "
        "(git rev-parse HEAD)."
    )


def conversing(store: CommentStore) -> CommentConversation:
    """The store as one that keeps threads.

    Raises:
        MissingCapabilityError: it keeps none (a deployed Maple route, for one).
    """
    if Capability.CONVERSE in store.capabilities and isinstance(store, CommentConversation):
        return store
    raise MissingCapabilityError(
        f"The {store.name} store keeps no replies; reply where the comment lives, or use a "
        "maple store (file, github or a maple route).",
        store=store.name,
        operation="converse",
    )


def converse(store: CommentStore, comment_id: str, event: ThreadEvent) -> Comment:
    """Apply ``event`` to the comment's thread (:meth:`CommentConversation.converse`).

    Raises:
        MissingCapabilityError: the store keeps no threads.
        ConversationError: the comment cannot take the event.
    """
    return conversing(store).converse(comment_id, event)


def converse_and_report(
    store: CommentStore,
    comment_id: str,
    event: ThreadEvent,
    log: GateLog,
    *,
    gate: GatePublisher | None = None,
    refresher: GateRefresher | None = None,
    require_approval: bool = False,
    require_confirmation: bool = False,
) -> Comment:
    """Apply ``event`` (:func:`converse`), then tell the gate (:func:`report_to_gate`).

    Every event can change what the gate shows: a reopen blocks it, a confirmation may clear
    it, a question is listed in its summary.
    """
    changed = converse(store, comment_id, event)
    report_to_gate(
        store,
        changed.branch,
        log,
        gate=gate,
        refresher=refresher,
        require_approval=require_approval,
        require_confirmation=require_confirmation,
    )
    return changed


def stamped_resolution(sha: str, note: str | None, clock: Clock) -> Resolution:
    """The resolution of a comment by ``sha``, stamped now: the one place a resolve is dated."""
    return Resolution(sha=sha, note=note, at=format_js_timestamp(clock.now()))


@dataclass(frozen=True, slots=True)
class PublishOutcome:
    """What :func:`publish_gate` did: the report it published, or why it published none."""

    report: GateReport | None = None
    skipped: str | None = None


def publish_gate(
    store: CommentStore,
    gate: GatePublisher,
    branch: str,
    *,
    require_approval: bool = False,
    require_confirmation: bool = False,
    review_url: str | None = None,
) -> PublishOutcome:
    """Decide the gate for ``branch``'s head commit and publish it (Maple's ``publishGate``).

    The head, the comments and the approvals come from one read of the store
    (:meth:`~maple_core.ports.CommentStore.state`). A store that cannot name the head commit
    publishes nothing: publishing on a guessed commit is worse than not publishing. A ledger
    that cannot be read is published as blocked (``ledger-unreadable``), never neutral. Other
    errors from the store or the publisher propagate; the caller decides that a publish
    failure never fails a resolve.
    """
    if Capability.HEAD not in store.capabilities:
        return PublishOutcome(
            skipped=f'Store "{store.name}" cannot name a head commit, so no gate was published.'
        )
    try:
        state = store.state(branch)
    except CorruptLedgerError as exc:  # fail closed: the gate never passes what it cannot read
        sha, verdict = store.head(branch), unreadable_ledger_verdict(str(exc))
    else:
        sha = state.head
        verdict = _verdict(store, state, sha, require_approval, require_confirmation)
    if sha is None:
        return PublishOutcome(skipped=f'No head commit for "{branch}", so no gate was published.')
    report = GateReport(branch=branch, sha=sha, verdict=verdict, review_url=review_url)
    gate.publish(report)
    return PublishOutcome(report=report)


def decide_branch_gate(
    store: CommentStore,
    branch: str,
    commit: str | None,
    *,
    require_approval: bool,
    require_confirmation: bool = False,
) -> GateVerdict:
    """The gate policy for ``branch`` at ``commit``, from the store's comments and approvals.

    A store that cannot change a status counts comments rather than open ones; approvals count
    only on ``commit``. Errors from the store propagate: the caller decides whether an unread
    ledger fails closed (:func:`~maple_core.gate.unreadable_ledger_verdict`) or fails the call.
    """
    return _verdict(store, store.state(branch), commit, require_approval, require_confirmation)


def _verdict(
    store: CommentStore,
    state: BranchState,
    commit: str | None,
    require_approval: bool,
    require_confirmation: bool,
) -> GateVerdict:
    """The gate policy, written once: what one read of a branch decides at ``commit``."""
    gated = state.gated if state.gated is not None else state.comments
    return decide_gate(
        newest_first(_usable(gated, state.branch, None)),
        GatePolicy(
            status_tracked=Capability.SET_STATUS in store.capabilities,
            commit=commit,
            require_approval=require_approval,
            approvals=state.approvals,
            require_confirmation=require_confirmation,
            pushed=state.pushed,
        ),
    )


class GateLog(Protocol):
    """Where :func:`report_to_gate` records what did not happen (a server's log)."""

    def warn(self, message: str, **fields: str) -> None:
        """Record something that did not happen as hoped."""
        ...

    def error(self, message: str, error: BaseException | None = None, **fields: str) -> None:
        """Record a failure and the error behind it."""
        ...


def report_to_gate(
    store: CommentStore,
    branch: str,
    log: GateLog,
    *,
    gate: GatePublisher | None = None,
    refresher: GateRefresher | None = None,
    require_approval: bool = False,
    require_confirmation: bool = False,
) -> None:
    """After a status change: publish the gate (``gate``) or ask the route to (``refresher``).

    Neither ever fails the change that was saved: a failure is logged, and so is a gate that
    could not be published on a named commit.
    """
    if gate is not None:
        try:
            outcome = publish_gate(
                store,
                gate,
                branch,
                require_approval=require_approval,
                require_confirmation=require_confirmation,
            )
        except Exception as exc:
            log.error(
                "Maple could not publish the merge gate; the comment's status was saved.",
                exc,
                gate=gate.name,
            )
        else:
            if outcome.skipped:
                log.warn(outcome.skipped)
    if refresher is not None:
        try:
            refresher.refresh(branch)
        except Exception as exc:
            log.error(
                "Maple could not refresh the merge gate through the route; the comment's status "
                "was saved.",
                exc,
            )


def resolve_and_report(
    store: CommentStore,
    comment_id: str,
    sha: str,
    note: str | None,
    clock: Clock,
    log: GateLog,
    *,
    gate: GatePublisher | None = None,
    refresher: GateRefresher | None = None,
    require_approval: bool = False,
    require_confirmation: bool = False,
    commits: Commits | None = None,
    author: JsonObject | None = None,
) -> Comment:
    """Resolve a comment (:func:`resolve_comment`), then tell the gate (:func:`report_to_gate`).

    Raises:
        MissingCapabilityError: the store cannot change a status.
        UnverifiedCommitError: ``commits`` cannot reach the commit ``sha`` names.
    """
    resolved = resolve_comment(store, comment_id, sha, note, clock, commits=commits, author=author)
    report_to_gate(
        store,
        resolved.branch,
        log,
        gate=gate,
        refresher=refresher,
        require_approval=require_approval,
        require_confirmation=require_confirmation,
    )
    return resolved
