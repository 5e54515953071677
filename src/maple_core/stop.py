"""The Stop hook's decision: let the agent stop, or hand it the open comments as a worklist.

A hook that blocks forever traps the agent, so blocks are counted per session and the hook gives
up after :data:`MAX_BLOCKS` in a row.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from maple_core.comments import Anchor, Comment
from maple_core.statuses import CommentStatus

__all__ = [
    "CounterUpdate",
    "MAX_BLOCKS",
    "SessionStop",
    "StopDecision",
    "StopPayload",
    "decide_session_stop",
    "decide_stop",
    "parse_stop_payload",
    "worklist",
]

MAX_BLOCKS = 8
"""Consecutive blocks after which the hook lets the session end."""

_LINE_LIMIT = 120
_LINE_KEEP = 117
_QUOTE_KEEP = 24


@dataclass(frozen=True, slots=True)
class StopDecision:
    """What the hook answers: block with a worklist, let go with a reason, or say nothing."""

    block: bool = False
    reason: str | None = None

    def to_json(self) -> dict[str, str]:
        """Claude Code's and Codex's shape: ``{}``, ``{"reason"}`` or ``{"decision","reason"}``."""
        out: dict[str, str] = {}
        if self.block:
            out["decision"] = "block"
        if self.reason is not None:
            out["reason"] = self.reason
        return out


def _member_name(anchor: Anchor) -> str | None:
    if not anchor.members:
        return None
    first = anchor.members[0].anchor
    exact = first.quote_exact
    quoted = f"“{exact.strip()[:_QUOTE_KEEP]}”" if exact is not None else None
    name = first.component or quoted or first.source or first.selector
    if name is None:
        return None
    more = len(anchor.members) - 1
    return f"{name} +{more}" if more else name


def _first_line(body: str) -> str:
    line = body.split("\n", 1)[0]
    return line[:_LINE_KEEP] + "…" if len(line) > _LINE_LIMIT else line


def worklist(comments: Sequence[Comment]) -> str:
    """The message that keeps the agent working: a header, then one line per open comment."""
    lines = [
        f"{len(comments)} Maple review comment(s) are still open. "
        "Address or reply to each, then resolve it with resolve_comment."
    ]
    for i, comment in enumerate(comments, start=1):
        anchor = comment.anchor
        where = _member_name(anchor) or anchor.source or anchor.component or anchor.selector or "?"
        orphan = (
            " (orphaned: the location is stale)" if comment.status is CommentStatus.ORPHANED else ""
        )
        lines.append(f"{i}. [{comment.id}] {where}{orphan} — {_first_line(comment.body)}")
    return "\n".join(lines)


def decide_stop(open_comments: Sequence[Comment], blocks: int) -> StopDecision:
    """Decide one stop given the comments still open and the blocks already made in a row."""
    if not open_comments:
        return StopDecision()
    if blocks >= MAX_BLOCKS:
        return StopDecision(
            reason=(
                f"{len(open_comments)} Maple comment(s) are still open after {MAX_BLOCKS} "
                "attempts. Letting the session end; say what is left rather than resolving "
                "them silently."
            )
        )
    return StopDecision(block=True, reason=worklist(open_comments))


@dataclass(frozen=True, slots=True)
class StopPayload:
    """The three fields the hook reads from the client's Stop payload."""

    session_id: str | None = None
    cwd: str | None = None
    stop_hook_active: bool | None = None


def parse_stop_payload(text: str) -> StopPayload:
    """Read the client's payload; bad JSON, a non-object or a mistyped field reads as absent."""
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError:
        return StopPayload()
    if not isinstance(data, dict):
        return StopPayload()
    session_id = data.get("session_id")
    cwd = data.get("cwd")
    active = data.get("stop_hook_active")
    return StopPayload(
        session_id=session_id if isinstance(session_id, str) else None,
        cwd=cwd if isinstance(cwd, str) else None,
        stop_hook_active=active if isinstance(active, bool) else None,
    )


class CounterUpdate(StrEnum):
    """What to do with the session's block counter after a stop."""

    KEEP = "keep"
    WRITE = "write"
    CLEAR = "clear"


@dataclass(frozen=True, slots=True)
class SessionStop:
    """A stop decision plus what to do with the session's counter (``count`` for a write)."""

    decision: StopDecision
    counter: CounterUpdate
    count: int = 0


def decide_session_stop(
    open_comments: Sequence[Comment], payload: StopPayload, stored_blocks: int
) -> SessionStop:
    """Decide a stop for a session whose counter holds ``stored_blocks``.

    A stop that is not a continuation (``stop_hook_active`` false) starts the count again; a
    continuation without a session id is assumed to have used the whole budget.
    """
    active = bool(payload.stop_hook_active)
    if not active:
        blocks = 0
    elif payload.session_id is None:
        blocks = MAX_BLOCKS
    else:
        blocks = stored_blocks
    decision = decide_stop(open_comments, blocks)
    if payload.session_id is None:
        return SessionStop(decision, CounterUpdate.KEEP)
    if decision.block:
        return SessionStop(decision, CounterUpdate.WRITE, blocks + 1)
    return SessionStop(decision, CounterUpdate.CLEAR)
