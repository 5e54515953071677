"""How a tool call becomes an MCP task: who asked for one, its params, its budget, its result.

A call runs as a task only for a client that declared the extension on the request or its
connection (:func:`client_declares_tasks`); while it runs, the tool reads how long it may work
(:func:`task_budget_s`); its result is kept as JSON, and an id this server does not know is one
clear error.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from mcp.server.context import HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import CLIENT_CAPABILITIES_META_KEY, INVALID_PARAMS, RequestParams
from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "TASKS_EXTENSION",
    "TaskIdParams",
    "client_declares_tasks",
    "dumped_result",
    "task_budget",
    "task_budget_s",
    "unknown_task",
]

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
"""The extension's identifier, in ``capabilities.extensions``."""

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
