"""An MCP task as this server holds it and as the wire shows it, and who asked for one.

The values the Tasks extension (``mcp_tasks.py``) works with: a task running here
(:class:`LocalTask`), its wire form and a shared record's (:func:`record_wire`), the params of
``tasks/get`` and ``tasks/cancel``, whether a client declared the extension, and the budget a
tool running as a task reads (:func:`task_budget_s`).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
from mcp.server.context import HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import CLIENT_CAPABILITIES_META_KEY, INVALID_PARAMS, RequestParams
from pydantic import BaseModel, ConfigDict, Field

from maple_core.cursor import format_stamp
from maple_core.tasks import TaskRecord

__all__ = [
    "LocalTask",
    "POLL_INTERVAL_MS",
    "Status",
    "TASKS_EXTENSION",
    "TaskIdParams",
    "client_declares_tasks",
    "dumped_result",
    "now_iso",
    "record_wire",
    "stamp_after",
    "task_budget",
    "task_budget_s",
    "unknown_task",
]

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
"""The extension's identifier, in ``capabilities.extensions``."""
POLL_INTERVAL_MS = 2_000
"""The poll interval advertised (Claude Code polls every 2 s whatever it is told)."""

Status = Literal["working", "completed", "failed", "cancelled"]
"""A task's status on the wire."""

_budget: ContextVar[float | None] = ContextVar("maple_task_budget_s", default=None)


def task_budget_s() -> float | None:
    """Inside a tool running as a task, how long it may work (seconds); ``None`` otherwise."""
    return _budget.get()


@contextmanager
def task_budget(seconds: float) -> Iterator[None]:
    """Run the ``with`` body as a task that may work ``seconds`` (:func:`task_budget_s`)."""
    token = _budget.set(seconds)
    try:
        yield
    finally:
        _budget.reset(token)


class TaskIdParams(RequestParams):
    """The params of ``tasks/get`` and ``tasks/cancel``."""

    model_config = ConfigDict(populate_by_name=True, extra="allow")
    task_id: str = Field(alias="taskId", min_length=1, max_length=128)


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


def client_declares_tasks(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether the client declared the tasks extension on this request (or its connection)."""
    meta = ctx.meta if isinstance(ctx.meta, Mapping) else None
    declared = meta.get(CLIENT_CAPABILITIES_META_KEY) if meta is not None else None
    if isinstance(declared, Mapping):
        extensions = declared.get("extensions")
        return isinstance(extensions, Mapping) and TASKS_EXTENSION in extensions
    capabilities = ctx.session.client_capabilities
    extensions = capabilities.extensions if capabilities is not None else None
    return bool(extensions) and TASKS_EXTENSION in (extensions or {})


def unknown_task(task_id: str) -> MCPError:
    """The error for a task id this server does not know (never had, or forgot)."""
    return MCPError(code=INVALID_PARAMS, message=f"Unknown or expired task: {task_id}")


def dumped_result(result: HandlerResult) -> dict[str, Any]:
    """A tool's result as the JSON a task carries."""
    if isinstance(result, BaseModel):
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dict(result or {})
