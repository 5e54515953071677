"""After a resolve: tell the merge gate, directly or through the route; never fail the resolve."""

from __future__ import annotations

from maple_core.ports import CommentStore, GatePublisher, GateRefresher
from maple_core.services import publish_gate
from maple_entrypoints.server_log import ServerLog

__all__ = ["report_resolve"]


def report_resolve(
    store: CommentStore,
    branch: str,
    log: ServerLog,
    *,
    gate: GatePublisher | None = None,
    refresher: GateRefresher | None = None,
    require_approval: bool = False,
) -> None:
    """Publish the gate (``MAPLE_GATE_TOKEN``) or ask the route to (``MAPLE_URL``); log failures."""
    if gate is not None:
        try:
            outcome = publish_gate(store, gate, branch, require_approval=require_approval)
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
