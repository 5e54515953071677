"""The MCP Tasks extension (``io.modelcontextprotocol/tasks``, 2026-07-28) for chosen tools.

The official SDK (mcp 2.3) knows the extension's name but has no task store and no ``tasks/get``
or ``tasks/cancel`` handlers, so this module is that plumbing, kept apart from the tools so it
can be dropped when the SDK grows its own. It is an SDK :class:`~mcp.server.extension.Extension`:

- the server declares ``capabilities.extensions["io.modelcontextprotocol/tasks"]`` (the SDK
  answers ``server/discover`` itself, which is how a client picks 2026-07-28);
- a ``tools/call`` of a tool named in ``tools``, from a client that declared the extension on
  that request (or its connection), is answered at once with ``{"resultType": "task", "taskId":
  ..., "status": "working", ...}`` while the tool runs in the background; any other call runs as
  before;
- ``tasks/get`` answers the task, with the tool's result inline once it completed (clients such
  as Claude Code never call ``tasks/result``); ``tasks/cancel`` stops the tool at once (its anyio
  task is cancelled, so whatever it holds is released) and the task reads ``cancelled``.

Bounds (all per server):

- at most ``max_live`` (:data:`MAX_LIVE_TASKS`) tasks run at once; one more is **refused** with a
  JSON-RPC error naming the bound (a running wait is never dropped to make room: the agent that
  started it is still relying on it, while the refused caller sees why at once);
- a tool running as a task reads its budget from :func:`task_budget_s` (:data:`MAX_TASK_WAIT_S`);
  should it overrun that by :data:`_GRACE_S` it is stopped and the task ``failed``;
- a finished task is kept for ``keep_s`` (:data:`KEEP_FINISHED_S`) for the client to read, and at
  most ``max_kept`` of them; then it is forgotten and ``tasks/get`` says it is unknown.

The background tasks run in a task group the server's lifespan opens (:meth:`TasksExtension.
lifespan`); without it, calls are never turned into tasks.
"""

from __future__ import annotations

import datetime
import secrets
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
import anyio.abc
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CLIENT_CAPABILITIES_META_KEY,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    CallToolRequestParams,
    RequestParams,
)
from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "KEEP_FINISHED_S",
    "MAX_LIVE_TASKS",
    "MAX_TASK_WAIT_S",
    "POLL_INTERVAL_MS",
    "TASKS_EXTENSION",
    "TasksExtension",
    "client_declares_tasks",
    "task_budget_s",
]

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
MAX_LIVE_TASKS = 32
"""Tasks running at once; one more is refused."""
MAX_TASK_WAIT_S = 3_600.0
"""The longest a tool running as a task may work (a wait then ends as a timeout)."""
KEEP_FINISHED_S = 600.0
"""How long a finished task stays readable by ``tasks/get``."""
MAX_KEPT = 256
"""Finished tasks kept at most; the oldest are forgotten first."""
POLL_INTERVAL_MS = 2_000
"""The poll interval advertised (Claude Code polls every 2 s whatever it is told)."""
_GRACE_S = 30.0

Status = Literal["working", "completed", "failed", "cancelled"]

_budget: ContextVar[float | None] = ContextVar("maple_task_budget_s", default=None)


def task_budget_s() -> float | None:
    """Inside a tool running as a task, how long it may work (seconds); ``None`` otherwise."""
    return _budget.get()


class TaskIdParams(RequestParams):
    """The params of ``tasks/get`` and ``tasks/cancel``."""

    model_config = ConfigDict(populate_by_name=True, extra="allow")
    task_id: str = Field(alias="taskId", min_length=1, max_length=128)


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")


@dataclass(eq=False)
class _Task:
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

    def finish(self, status: Status, message: str) -> None:
        if self.status == "working":
            self.status, self.message, self.updated_at = status, message, _now()
            self.finished_at = anyio.current_time()

    def wire(self, keep_s: float) -> dict[str, Any]:
        out: dict[str, Any] = {
            "taskId": self.task_id,
            "status": self.status,
            "statusMessage": self.message,
            "createdAt": self.created_at,
            "lastUpdatedAt": self.updated_at,
            "ttlMs": int(keep_s * 1000),
            "pollIntervalMs": POLL_INTERVAL_MS,
        }
        if self.result is not None:
            out["result"] = self.result
        if self.error is not None:
            out["error"] = self.error
        return out


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


class TasksExtension(Extension):
    """Run the tools named in ``tools`` as MCP tasks for clients that declare the extension."""

    identifier = TASKS_EXTENSION

    def __init__(
        self,
        tools: Collection[str],
        *,
        max_live: int = MAX_LIVE_TASKS,
        max_wait_s: float = MAX_TASK_WAIT_S,
        keep_s: float = KEEP_FINISHED_S,
        max_kept: int = MAX_KEPT,
        on_event: Callable[[str, str], None] | None = None,
    ) -> None:
        if max_live < 1 or max_kept < 0 or max_wait_s <= 0 or keep_s < 0:
            raise ValueError("the task bounds must be positive")
        self.task_tools = frozenset(tools)
        self.max_live = max_live
        self.max_wait_s = max_wait_s
        self.keep_s = keep_s
        self.max_kept = max_kept
        self._tasks: OrderedDict[str, _Task] = OrderedDict()
        self._group: anyio.abc.TaskGroup | None = None
        self._on_event = on_event or (lambda what, task_id: None)

    # -- what the SDK consumes -----------------------------------------------------------

    def methods(self) -> list[MethodBinding]:
        """``tasks/get`` and ``tasks/cancel``."""
        return [
            MethodBinding("tasks/get", TaskIdParams, self._get),
            MethodBinding("tasks/cancel", TaskIdParams, self._cancel),
        ]

    async def intercept_tool_call(
        self,
        params: CallToolRequestParams,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
    ) -> HandlerResult:
        """Answer a task at once for a task tool and a client that declared the extension."""
        if (
            params.name not in self.task_tools
            or self._group is None
            or not client_declares_tasks(ctx)
        ):
            return await call_next(ctx)
        self._forget_expired()
        if self.live >= self.max_live:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"Too many tasks running ({self.max_live}, the most this server keeps). "
                "Cancel one with tasks/cancel or wait for one to finish, then call again.",
            )
        now = _now()
        task = _Task(secrets.token_urlsafe(18), params.name, now, now, message="working")
        self._tasks[task.task_id] = task
        self._group.start_soon(self._run, task, ctx, call_next)
        self._on_event("started", task.task_id)
        return {"resultType": "task", **task.wire(self.keep_s)}

    @asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        """Open the task group the tasks run in; on exit every running task is cancelled."""
        async with anyio.create_task_group() as group:
            self._group = group
            try:
                yield
            finally:
                self._group = None
                for task in self._tasks.values():
                    task.finish("cancelled", "the server stopped")
                group.cancel_scope.cancel()

    # -- the registry ----------------------------------------------------------------------

    @property
    def live(self) -> int:
        """How many tasks are working."""
        return sum(1 for task in self._tasks.values() if task.status == "working")

    def status(self, task_id: str) -> Status | None:
        """A task's status, or ``None`` once forgotten (for tests and the server's log)."""
        task = self._tasks.get(task_id)
        return task.status if task is not None else None

    async def _run(
        self, task: _Task, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> None:
        token = _budget.set(self.max_wait_s)
        try:
            with task.scope:
                with anyio.fail_after(self.max_wait_s + _GRACE_S):
                    result = await call_next(ctx)
                dumped = _dumped(result)
                if task.status == "working":
                    task.result = dumped
                    task.finish("completed", "completed")
        except TimeoutError:
            task.error = {"code": INTERNAL_ERROR, "message": "The task ran past its bound."}
            task.finish("failed", "timed out")
        except MCPError as exc:
            task.error = {"code": exc.error.code, "message": exc.error.message}
            task.finish("failed", exc.error.message)
        except Exception as exc:  # a failing tool fails its task, not the server
            task.error = {"code": INTERNAL_ERROR, "message": f"{type(exc).__name__}: {exc}"}
            task.finish("failed", "failed")
        finally:
            _budget.reset(token)
            task.finish("cancelled", "cancelled")  # no-op unless the scope was cancelled
            self._on_event(task.status, task.task_id)

    def _forget_expired(self) -> None:
        now = anyio.current_time()
        done = [t for t in self._tasks.values() if t.finished_at is not None]
        for task in done:
            assert task.finished_at is not None
            if now - task.finished_at >= self.keep_s:
                del self._tasks[task.task_id]
        done = [t for t in self._tasks.values() if t.finished_at is not None]
        for task in done[: max(0, len(done) - self.max_kept)]:
            del self._tasks[task.task_id]

    def _find(self, task_id: str) -> _Task:
        self._forget_expired()
        task = self._tasks.get(task_id)
        if task is None:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown or expired task: {task_id}")
        return task

    async def _get(
        self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams
    ) -> dict[str, Any]:
        return {"resultType": "complete", **self._find(params.task_id).wire(self.keep_s)}

    async def _cancel(
        self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams
    ) -> dict[str, Any]:
        """Stop the task now; the answer is an empty acknowledgement, as the extension says."""
        self._forget_expired()
        task = self._tasks.get(params.task_id)
        if task is not None and task.status == "working":
            task.finish("cancelled", "cancelled by the client")
            task.scope.cancel()
            self._on_event("cancelled", task.task_id)
        return {}


def _dumped(result: HandlerResult) -> dict[str, Any]:
    if isinstance(result, BaseModel):
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dict(result or {})
