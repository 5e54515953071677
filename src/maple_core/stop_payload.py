"""What the Stop hook reads from a client's Stop payload (Claude Code's, Codex's or Cursor's).

On the hook's fast path: standard library and the light JSON reader only.
"""

from __future__ import annotations

from maple_core.frozen import Frozen
from maple_core.quickjson import loads

__all__ = ["StopPayload", "parse_stop_payload"]


class StopPayload(Frozen):
    """What the hook reads from the client's Stop payload.

    Claude Code and Codex: ``session_id``, ``cwd``, ``stop_hook_active``. Cursor: its
    ``conversation_id`` (as the session), ``loop_count`` and first ``workspace_roots`` entry.
    """

    __slots__ = (
        "client_counts_loops",
        "cwd",
        "loop_count",
        "session_id",
        "status",
        "stop_hook_active",
    )
    session_id: str | None
    cwd: str | None
    stop_hook_active: bool | None
    loop_count: int | None
    client_counts_loops: bool
    status: str | None

    def __init__(
        self,
        session_id: str | None = None,
        cwd: str | None = None,
        stop_hook_active: bool | None = None,
        loop_count: int | None = None,
        client_counts_loops: bool = False,
        status: str | None = None,
    ) -> None:
        self._set(
            session_id=session_id,
            cwd=cwd,
            stop_hook_active=stop_hook_active,
            loop_count=loop_count,
            client_counts_loops=client_counts_loops,
            status=status,
        )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def parse_stop_payload(text: str) -> StopPayload:
    """Read the client's payload; bad JSON, a non-object or a mistyped field reads as absent.

    A payload carrying Cursor's ``loop_count`` or ``conversation_id``, or naming the event
    ``stop`` in lowercase, is read as Cursor's.
    """
    try:
        data = loads(text) if text.strip() else {}
    except ValueError:
        return StopPayload()
    if not isinstance(data, dict):
        return StopPayload()
    active = data.get("stop_hook_active")
    loop_count = data.get("loop_count")
    if isinstance(loop_count, bool) or not isinstance(loop_count, int):
        loop_count = None
    cursor_editor = (
        loop_count is not None or "conversation_id" in data or data.get("hook_event_name") == "stop"
    )
    roots = data.get("workspace_roots")
    first_root = _text(roots[0]) if isinstance(roots, list) and roots else None
    session = _text(data.get("session_id"))
    return StopPayload(
        session_id=session or (_text(data.get("conversation_id")) if cursor_editor else None),
        cwd=_text(data.get("cwd")) or (first_root if cursor_editor else None),
        stop_hook_active=active if isinstance(active, bool) else None,
        loop_count=loop_count,
        client_counts_loops=cursor_editor,
        status=_text(data.get("status")) if cursor_editor else None,
    )
