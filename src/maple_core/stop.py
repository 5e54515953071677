"""The Stop hook's decision: let the agent stop, or hand it the open comments as a worklist.

A hook that blocks forever traps the agent, so blocks are counted per session and the hook gives
up after :data:`MAX_BLOCKS` in a row. This module works on comments in Maple's JSON shape (a
:class:`~maple_core.comments.Comment` is accepted too) and imports almost nothing, so the hook
that uses it starts nearly as fast as a bare interpreter. The worklist's text is
``worklist.py`` (reviewers' words made inert in ``inert_text.py``), and which comments another
session claimed ``stop_claims.py``, and each client's count of blocks ``stop_budget.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

from maple_core.frozen import Frozen
from maple_core.worklist import claimed_note, record_of, waiting_for_reviewer, worklist

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_core.comments import Comment
    from maple_core.json_types import JsonObject

__all__ = [
    "CLAIM_HORIZON_S",
    "LAST_BLOCK",
    "MAX_BLOCKS",
    "StopDecision",
    "decide_stop",
]

MAX_BLOCKS = 8
"""Consecutive blocks after which the hook lets the session end."""

CLAIM_HORIZON_S = 3600
"""The longest lease a claim may have: none is live further ahead of now than this
(``maple_core.claims.MAX_LEASE_S``)."""

LAST_BLOCK = (
    "This is the last time the Stop hook holds you: if you stop again, the session ends with "
    "these still open, so say what is left rather than resolving them silently."
)
"""What the eighth block in a row adds, since not every client shows the give-up that follows."""


class StopDecision(Frozen):
    """What the hook answers: block with a worklist, let go with a reason, or say nothing."""

    __slots__ = ("block", "reason")
    block: bool
    reason: str | None

    def __init__(self, block: bool = False, reason: str | None = None) -> None:
        self._set(block=block, reason=reason)

    def to_json(self) -> dict[str, str]:
        """Claude Code's and Codex's shape: ``{}``, ``{"reason"}`` or ``{"decision","reason"}``."""
        out: dict[str, str] = {}
        if self.block:
            out["decision"] = "block"
        if self.reason is not None:
            out["reason"] = self.reason
        return out


def decide_stop(
    all_open: Sequence[Comment | JsonObject],
    blocks: int,
    claimed: Sequence[Comment | JsonObject] = (),
) -> StopDecision:
    """Decide one stop given the comments still open and the blocks already made in a row.

    A comment that only waits for the reviewer's answer to the agent's question does not hold
    the agent; when nothing else is open it may stop, and is told which ones wait. Comments
    another live session claimed (``claimed``, kept apart from ``all_open``) never hold it:
    they are named, so it knows someone is on them.
    """
    open_comments = [c for c in all_open if not waiting_for_reviewer(record_of(c))]
    waiting = [c for c in all_open if waiting_for_reviewer(record_of(c))]
    if not open_comments:
        parts: list[str] = []
        if waiting:
            parts.append(
                f"{len(waiting)} Maple comment(s) wait for the reviewer to answer your "
                "question; wait_for_comments returns each one when they do."
            )
        if claimed:
            parts.append("\n".join(claimed_note(claimed)))
        return StopDecision(reason="\n".join(parts)) if parts else StopDecision()
    if blocks >= MAX_BLOCKS:
        return StopDecision(
            reason=(
                f"{len(open_comments)} Maple comment(s) are still open after {MAX_BLOCKS} "
                "attempts. Letting the session end; say what is left rather than resolving "
                "them silently."
            )
        )
    reason = worklist(open_comments, waiting, claimed)
    if blocks == MAX_BLOCKS - 1:
        # Codex shows nobody the give-up text that follows, so the last block says it ahead.
        reason += f"\n{LAST_BLOCK}"
    return StopDecision(block=True, reason=reason)
