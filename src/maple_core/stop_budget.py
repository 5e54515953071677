"""The block budget a client's stops are counted against: per session, or by its loop count.

Claude Code and Codex say whether a stop continues one the hook blocked
(``stop_hook_active``), so the hook keeps each session's count of blocks in a row itself and
says what to do with it (:class:`SessionStop`); Cursor counts its own follow-ups
(``loop_count``). Either way :func:`~maple_core.stop.decide_stop` gives up after
:data:`~maple_core.stop.MAX_BLOCKS`.
"""

from __future__ import annotations

from collections.abc import Sequence

from maple_core.frozen import Frozen
from maple_core.stop import MAX_BLOCKS, StopDecision, decide_stop
from maple_core.stop_payload import StopPayload

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_core.comments import Comment
    from maple_core.json_types import JsonObject

__all__ = ["CounterUpdate", "SessionStop", "decide_loop_count_stop", "decide_session_stop"]


class CounterUpdate:
    """What to do with the session's block counter after a stop."""

    KEEP = "keep"
    WRITE = "write"
    CLEAR = "clear"


class SessionStop(Frozen):
    """A stop decision plus what to do with the session's counter (``count`` for a write)."""

    __slots__ = ("count", "counter", "decision")
    decision: StopDecision
    counter: str
    count: int

    def __init__(self, decision: StopDecision, counter: str, count: int = 0) -> None:
        self._set(decision=decision, counter=counter, count=count)


def decide_loop_count_stop(
    open_comments: Sequence[Comment | JsonObject],
    payload: StopPayload,
    claimed: Sequence[Comment | JsonObject] = (),
) -> StopDecision:
    """Decide a stop for a client that counts its own follow-ups in ``loop_count`` (Cursor).

    A run the person stopped (``aborted``) or that failed (``error``) is not followed up.
    ``claimed`` are the comments other live sessions hold (see :func:`decide_stop`).
    """
    if payload.status not in (None, "completed"):
        return StopDecision()
    return decide_stop(open_comments, max(0, payload.loop_count or 0), claimed)


def decide_session_stop(
    open_comments: Sequence[Comment | JsonObject],
    payload: StopPayload,
    stored_blocks: int,
    claimed: Sequence[Comment | JsonObject] = (),
) -> SessionStop:
    """Decide a stop for a session whose counter holds ``stored_blocks``.

    A stop that is not a continuation (``stop_hook_active`` false) starts the count again; a
    continuation without a session id is assumed to have used the whole budget. ``claimed``
    are the comments other live sessions hold (see :func:`decide_stop`).
    """
    active = bool(payload.stop_hook_active)
    if not active:
        blocks = 0
    elif payload.session_id is None:
        blocks = MAX_BLOCKS
    else:
        blocks = stored_blocks
    decision = decide_stop(open_comments, blocks, claimed)
    if payload.session_id is None:
        return SessionStop(decision, CounterUpdate.KEEP)
    if decision.block:
        return SessionStop(decision, CounterUpdate.WRITE, blocks + 1)
    return SessionStop(decision, CounterUpdate.CLEAR)
