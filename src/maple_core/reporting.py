"""After a change: publish the merge gate, or ask the route to, and never fail the change.

Every entrypoint that changes a comment (the MCP server, the CLI, the route) reports through
these, and ``maple gate`` decides the same policy (:func:`decide_branch_gate`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from maple_core.comments import Comment
from maple_core.conversation import ThreadEvent
from maple_core.cursor import newest_first
from maple_core.errors import CorruptLedgerError
from maple_core.gate import (
    GatePolicy,
    GateReport,
    GateVerdict,
    decide_gate,
    unreadable_ledger_verdict,
)
from maple_core.json_types import JsonObject
from maple_core.ports import (
    BranchState,
    Capability,
    Clock,
    CommentStore,
    Commits,
    GatePublisher,
    GateRefresher,
)
from maple_core.services import converse, resolve_comment, usable

__all__ = [
    "GateLog",
    "PublishOutcome",
    "converse_and_report",
    "decide_branch_gate",
    "publish_gate",
    "report_to_gate",
    "resolve_and_report",
]


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
    return decide_gate(
        newest_first(usable(state.comments, state.branch, None)),
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
