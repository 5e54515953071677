"""Use cases written against the ports: list everything, wait for fresh comments, resolve."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from maple_core.comments import Comment, Resolution
from maple_core.cursor import FreshComments, format_js_timestamp, newest_first, select_fresh
from maple_core.errors import CorruptLedgerError, MissingCapabilityError
from maple_core.gate import GatePolicy, GateReport, decide_gate, unreadable_ledger_verdict
from maple_core.paging import ListQuery
from maple_core.ports import Capability, Clock, CommentStore, GatePublisher
from maple_core.statuses import CommentStatus

__all__ = [
    "PublishOutcome",
    "list_all",
    "publish_gate",
    "resolve_comment",
    "wait_for_comments",
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


def wait_for_comments(
    store: CommentStore,
    branch: str,
    cursor: str | None,
    budget_ms: int,
    clock: Clock,
    *,
    report: Callable[[str], None] | None = None,
) -> FreshComments:
    """Wait up to ``budget_ms`` for comments on ``branch`` newer than ``cursor``.

    The first look happens at once, so a call without a cursor drains what is waiting. Between
    looks it sleeps on the store's change signal. Nothing fresh by the deadline is a normal
    result with no comments and the cursor unchanged.

    Records in a bad shape are left out or read in part, and described to ``report`` (see
    :func:`list_all`).

    Raises:
        InvalidCursorError: ``cursor`` is not a timestamp.
    """
    deadline = clock.monotonic() + budget_ms / 1000
    changes = store.changes(branch)
    while True:
        state = store.state(branch)  # the comments and the change token in one read
        found = select_fresh(newest_first(_usable(state.comments, branch, report)), cursor)
        remaining = deadline - clock.monotonic()
        if found.comments or remaining <= 0:
            return found
        changes.wait(state.token, remaining)


def resolve_comment(
    store: CommentStore, comment_id: str, sha: str, note: str | None, clock: Clock
) -> Comment:
    """Mark a comment resolved, recording the commit that addressed it and when.

    Raises:
        MissingCapabilityError: the store cannot change a status.
    """
    if Capability.SET_STATUS not in store.capabilities:
        raise MissingCapabilityError(
            f"The {store.name} store cannot change a status; resolve the comment where it lives.",
            store=store.name,
            operation="set_status",
        )
    resolution = Resolution(sha=sha, note=note, at=format_js_timestamp(clock.now()))
    return store.set_status(comment_id, CommentStatus.RESOLVED, resolution)


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
        verdict = decide_gate(
            newest_first(_usable(state.comments, branch, None)),
            GatePolicy(
                status_tracked=Capability.SET_STATUS in store.capabilities,
                commit=sha,
                require_approval=require_approval,
                approvals=state.approvals,
            ),
        )
    if sha is None:
        return PublishOutcome(skipped=f'No head commit for "{branch}", so no gate was published.')
    report = GateReport(branch=branch, sha=sha, verdict=verdict, review_url=review_url)
    gate.publish(report)
    return PublishOutcome(report=report)
