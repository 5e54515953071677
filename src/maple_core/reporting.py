"""After a change: publish the merge gate, or ask the route to, and never fail the change.

Every entrypoint that changes a comment (the MCP server, the CLI, the route) reports through
these, and ``maple gate`` decides the same policy (:func:`decide_branch_gate`).
"""

from __future__ import annotations

from maple_core.comments import Comment
from maple_core.cursor import newest_first
from maple_core.errors import CorruptLedgerError
from maple_core.gate import (
    DEFAULT_RULES,
    GatePolicy,
    GateReport,
    GateRules,
    GateVerdict,
    decide_gate,
    unreadable_ledger_verdict,
)
from maple_core.ports import (
    BranchState,
    Capability,
    Clock,
    CommentStore,
    Commits,
    GatePublisher,
    GateRefresher,
)
from maple_core.resolving import converse, resolve_comment
from maple_core.services import usable
from maple_core.targets import Fix, GateTarget, NotPublished, Published, PublishOutcome
from maple_core.thread_events import ThreadEvent

__all__ = [
    "converse_and_report",
    "decide_branch_gate",
    "publish_gate",
    "report_to_gate",
    "resolve_and_report",
]


def publish_gate(
    store: CommentStore, gate: GatePublisher, branch: str, rules: GateRules = DEFAULT_RULES
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
        return NotPublished(
            f'Store "{store.name}" cannot name a head commit, so no gate was published.'
        )
    try:
        state = store.state(branch)
    except CorruptLedgerError as exc:  # fail closed: the gate never passes what it cannot read
        sha, verdict = store.head(branch), unreadable_ledger_verdict(str(exc))
    else:
        sha = state.head
        verdict = _verdict(store, state, sha, rules)
    if sha is None:
        return NotPublished(f'No head commit for "{branch}", so no gate was published.')
    report = GateReport(branch=branch, sha=sha, verdict=verdict, review_url=rules.review_url)
    gate.publish(report)
    return Published(report)


def decide_branch_gate(
    store: CommentStore, branch: str, commit: str | None, rules: GateRules = DEFAULT_RULES
) -> GateVerdict:
    """The gate policy for ``branch`` at ``commit``, from the store's comments and approvals.

    A store that cannot change a status counts comments rather than open ones; approvals count
    only on ``commit``. Errors from the store propagate: the caller decides whether an unread
    ledger fails closed (:func:`~maple_core.gate.unreadable_ledger_verdict`) or fails the call.
    """
    return _verdict(store, store.state(branch), commit, rules)


def _verdict(
    store: CommentStore, state: BranchState, commit: str | None, rules: GateRules
) -> GateVerdict:
    """The gate policy, written once: what one read of a branch decides at ``commit``."""
    return decide_gate(
        newest_first(usable(state.comments, state.branch, None)),
        GatePolicy(
            status_tracked=Capability.SET_STATUS in store.capabilities,
            commit=commit,
            require_approval=rules.require_approval,
            approvals=state.approvals,
            require_confirmation=rules.require_confirmation,
            pushed=state.pushed,
        ),
    )


def report_to_gate(store: CommentStore, branch: str, target: GateTarget) -> None:
    """After a change on ``branch``: publish the gate, or ask the route to, as ``target`` says.

    Neither ever fails the change that was saved: a failure is logged, and so is a gate that
    could not be published on a named commit.
    """
    gate, log = target.gate, target.log
    if isinstance(gate, GateRefresher):
        try:
            gate.refresh(branch)
        except Exception as exc:
            log.error(
                "Maple could not refresh the merge gate through the route; the change was saved.",
                exc,
            )
        return
    if gate is None:
        return
    try:
        outcome = publish_gate(store, gate, branch, target.rules)
    except Exception as exc:
        log.error(
            "Maple could not publish the merge gate; the change was saved.", exc, gate=gate.name
        )
        return
    if isinstance(outcome, NotPublished):
        log.warn(outcome.reason)


def resolve_and_report(
    store: CommentStore,
    comment_id: str,
    fix: Fix,
    clock: Clock,
    target: GateTarget,
    commits: Commits | None = None,
) -> Comment:
    """Resolve a comment with ``fix`` (:func:`resolve_comment`), then report it to ``target``.

    With ``commits`` (the checkout the agent works in), the fix's commit must be one HEAD
    reaches.

    Raises:
        MissingCapabilityError: the store cannot change a status.
        UnverifiedCommitError: ``commits`` cannot reach the commit the fix names.
    """
    resolved = resolve_comment(
        store, comment_id, fix.sha, fix.note, clock, commits=commits, author=fix.author
    )
    report_to_gate(store, resolved.branch, target)
    return resolved


def converse_and_report(
    store: CommentStore, comment_id: str, event: ThreadEvent, target: GateTarget
) -> Comment:
    """Apply ``event`` to the comment's thread (:func:`converse`), then report it to ``target``.

    Every event can change what the gate shows: a reopen blocks it, a confirmation may clear
    it, a question is listed in its summary.
    """
    changed = converse(store, comment_id, event)
    report_to_gate(store, changed.branch, target)
    return changed
