"""The merge gate for a branch: decided from one read of the store, and published on its head.

The same policy everywhere: a resolve's report, the route, ``maple gate decide`` and
``maple gate publish`` all decide it here.
"""

from __future__ import annotations

from datetime import datetime

from maple_core.cursor import newest_first
from maple_core.errors import CorruptLedgerError
from maple_core.gate import (
    GatePolicy,
    GateReport,
    GateVerdict,
    decide_gate,
    unreadable_ledger_verdict,
)
from maple_core.gate_ports import GatePublisher
from maple_core.gate_rules import DEFAULT_RULES, GateRules
from maple_core.listing import usable
from maple_core.ports import BranchState, Capability, CommentStore
from maple_core.targets import NotPublished, Published, PublishOutcome

__all__ = ["decide_branch_gate", "publish_gate"]


def publish_gate(
    store: CommentStore,
    gate: GatePublisher,
    branch: str,
    rules: GateRules = DEFAULT_RULES,
    now: datetime | None = None,
) -> PublishOutcome:
    """Decide the gate for ``branch``'s head commit and publish it (Maple's ``publishGate``).

    The head, the comments and the approvals come from one read of the store
    (:meth:`~maple_core.ports.CommentStore.state`). A store that cannot name the head commit
    publishes nothing: publishing on a guessed commit is worse than not publishing. A ledger
    that cannot be read is published as blocked (``ledger-unreadable``), never neutral. Other
    errors from the store or the publisher propagate; the caller decides that a publish
    failure never fails a resolve. With ``now``, the summary names the comments an agent is on.
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
        verdict = _verdict(store, state, sha, rules, now)
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
    store: CommentStore,
    state: BranchState,
    commit: str | None,
    rules: GateRules,
    now: datetime | None = None,
) -> GateVerdict:
    """The gate policy, written once: what one read of a branch decides at ``commit``."""
    gated = state.gated if state.gated is not None else state.comments
    return decide_gate(
        newest_first(usable(gated, state.branch, None)),
        GatePolicy(
            status_tracked=Capability.SET_STATUS in store.capabilities,
            commit=commit,
            require_approval=rules.require_approval,
            approvals=state.approvals,
            require_confirmation=rules.require_confirmation,
            pushed=state.pushed,
            now=now,
        ),
    )
