"""An MCP task as this server holds it and as the wire shows it.

A task running here (:class:`LocalTask`) and a shared store's record of one
(:func:`record_wire`) answer ``tasks/get`` in the same shape; times are ISO 8601 on the wire and
maple's fixed-width stamps in the store. How a tool call becomes a task is
``mcp_task_calls.py``, and the extension itself ``mcp_tasks.py``.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio

from maple_core.cursor import format_stamp
from maple_core.tasks import TaskRecord

__all__ = ["LocalTask", "POLL_INTERVAL_MS", "Status", "now_iso", "record_wire", "stamp_after"]

POLL_INTERVAL_MS = 2_000
"""The poll interval advertised (Claude Code polls every 2 s whatever it is told)."""

Status = Literal["working", "completed", "failed", "cancelled"]
"""A task's status on the wire."""


def now_iso() -> str:
    """The wall-clock time now, as the wire shows a task's times (ISO 8601, milliseconds)."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")


def stamp_after(after_s: float = 0.0) -> str:
    """The wall-clock time ``after_s`` from now in maple's fixed-width stamp (compares as text)."""
    moment = datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=after_s)
    return format_stamp(moment)


def record_wire(record: TaskRecord, keep_s: float) -> dict[str, Any]:
    """A shared store's record of a task, as ``tasks/get`` answers it."""
    return _wire(
        record.task_id,
        record.status.value,
        record.message,
        (record.created_at, record.updated_at),
        keep_s,
        record.result,
        record.error,
    )


def _wire(
    task_id: str,
    status: str,
    message: str,
    times: tuple[str, str],
    keep_s: float,
    result: dict[str, Any] | None,
    error: dict[str, Any] | None,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "taskId": task_id,
        "status": status,
        "statusMessage": message,
        "createdAt": times[0],
        "lastUpdatedAt": times[1],
        "ttlMs": int(keep_s * 1000),
        "pollIntervalMs": POLL_INTERVAL_MS,
    }
    if result is not None:
        out["result"] = result
    if error is not None:
        out["error"] = error
    return out


@dataclass(eq=False)
class LocalTask:
    """A task running (or finished) on this worker, with the cancel scope that stops it."""

    task_id: str
    tool: str
    created_at: str
    updated_at: str
    status: Status = "working"
    message: str = ""
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    finished_at: float | None = None  # anyio.current_time() when it stopped working
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)

    def finish(self, status: Status, message: str) -> bool:
        """End the task as ``status``; ``False`` when it had already ended (its word stands)."""
        if self.status != "working":
            return False
        self.status, self.message, self.updated_at = status, message, now_iso()
        self.finished_at = anyio.current_time()
        return True

    def wire(self, keep_s: float) -> dict[str, Any]:
        """The task as ``tasks/get`` answers it."""
        times = (self.created_at, self.updated_at)
        return _wire(
            self.task_id, self.status, self.message, times, keep_s, self.result, self.error
        )
