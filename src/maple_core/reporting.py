"""After a change: publish the merge gate, or ask the route to, and never fail the change.

Every entrypoint that changes a comment (the MCP server, the CLI, the route) reports through
these; the gate itself is decided and published by :mod:`~maple_core.branch_gate`.
"""

from __future__ import annotations

from datetime import datetime

from maple_core.branch_gate import publish_gate
from maple_core.comments import Comment
from maple_core.gate_ports import Commits, GateRefresher
from maple_core.ports import Clock, CommentStore
from maple_core.resolving import converse, resolve_comment
from maple_core.targets import Fix, GateTarget, NotPublished
from maple_core.thread_events import ThreadEvent

__all__ = [
    "converse_and_report",
    "report_to_gate",
    "resolve_and_report",
]


def report_to_gate(
    store: CommentStore, branch: str, target: GateTarget, now: datetime | None = None
) -> None:
    """After a change on ``branch``: publish the gate, or ask the route to, as ``target`` says.

    Neither ever fails the change that was saved: a failure is logged, and so is a gate that
    could not be published on a named commit. ``now`` is for the summary's presence (see
    :func:`~maple_core.branch_gate.publish_gate`).
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
        outcome = publish_gate(store, gate, branch, target.rules, now)
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
        store, comment_id, fix.sha, fix.note, clock, commits=commits, author=fix.author, by=fix.by
    )
    report_to_gate(store, resolved.branch, target, clock.now())
    return resolved


def converse_and_report(
    store: CommentStore,
    comment_id: str,
    event: ThreadEvent,
    target: GateTarget,
    now: datetime | None = None,
) -> Comment:
    """Apply ``event`` to the comment's thread (:func:`converse`), then report it to ``target``.

    Every event can change what the gate shows: a reopen blocks it, a confirmation may clear
    it, a question is listed in its summary.
    """
    changed = converse(store, comment_id, event)
    report_to_gate(store, changed.branch, target, now)
    return changed
