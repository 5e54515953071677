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

A task and its wire form are in ``mcp_task_values.py``, how a call becomes one in
``mcp_task_calls.py``. The background tasks run in a
task group the server's lifespan opens (:meth:`TasksExtension.
lifespan`); without it, calls are never turned into tasks.

Behind a balancer (the route's ``/mcp`` on many workers) the tasks' state lives in a shared
:class:`~maple_core.storage_ports.TaskStore` (``store``), so any worker answers ``tasks/get`` and
``tasks/cancel`` for any task. The worker running a task renews its lease every third of
:data:`LEASE_S`; a cancel through another worker reaches it at the next renewal. When a worker
dies mid-wait, its lease runs out, and the next worker asked about the task takes it over and
runs the same call again (``resume``): a wait is judged on the agent's cursor, so nothing is
missed. A worker that stops leaves its running tasks to be taken over the same way.
"""

from __future__ import annotations

import os
import secrets
import socket
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.abc
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, CallToolRequestParams

from maple_core.storage_ports import TaskStore
from maple_core.tasks import TaskEnd, TaskRecord, TaskStatus
from maple_entrypoints.mcp_task_calls import (
    TASKS_EXTENSION,
    TaskIdParams,
    client_declares_tasks,
    dumped_result,
    task_budget,
    unknown_task,
)
from maple_entrypoints.mcp_task_values import LocalTask, Status, now_iso, record_wire, stamp_after

__all__ = [
    "KEEP_FINISHED_S",
    "LEASE_S",
    "MAX_LIVE_TASKS",
    "MAX_TASK_WAIT_S",
    "TasksExtension",
]

MAX_LIVE_TASKS = 32
"""Tasks running at once; one more is refused."""
MAX_TASK_WAIT_S = 3_600.0
"""The longest a tool running as a task may work (a wait then ends as a timeout)."""
KEEP_FINISHED_S = 600.0
"""How long a finished task stays readable by ``tasks/get``."""
MAX_KEPT = 256
"""Finished tasks kept at most; the oldest are forgotten first."""
LEASE_S = 10.0
"""How long a worker's claim on a task it runs holds unrenewed; then another may take it over."""
_GRACE_S = 30.0

Resume = Callable[[str, dict[str, Any]], Awaitable[HandlerResult]]
"""Runs a tool by name with the recorded arguments (a task taken over from another worker)."""


def _worker_name() -> str:
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(3)}"


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
        store: TaskStore | None = None,
        resume: Resume | None = None,
        lease_s: float = LEASE_S,
    ) -> None:
        if max_live < 1 or max_kept < 0 or max_wait_s <= 0 or keep_s < 0 or lease_s <= 0:
            raise ValueError("the task bounds must be positive")
        self.store = store
        self.resume = resume
        self.lease_s = lease_s
        self.worker = _worker_name()
        self.task_tools = frozenset(tools)
        self.max_live = max_live
        self.max_wait_s = max_wait_s
        self.keep_s = keep_s
        self.max_kept = max_kept
        self._tasks: OrderedDict[str, LocalTask] = OrderedDict()
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
        now = now_iso()
        task = LocalTask(secrets.token_urlsafe(18), params.name, now, now, message="working")
        if self.store is not None:
            record = TaskRecord(
                task.task_id,
                task.tool,
                now,
                now,
                arguments=dict(params.arguments or {}),
                owner=self.worker,
                lease_until=stamp_after(self.lease_s),
            )
            await anyio.to_thread.run_sync(self.store.create, record)
        self._tasks[task.task_id] = task
        self._group.start_soon(self._run, task, lambda: call_next(ctx))
        self._on_event("started", task.task_id)
        return {"resultType": "task", **task.wire(self.keep_s)}

    @asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        """Open the task group the tasks run in; on exit every running task is cancelled.

        With a shared store it also renews this worker's leases; a task still running when the
        worker stops is left working in the store, for another worker to take over.
        """
        async with anyio.create_task_group() as group:
            self._group = group
            if self.store is not None:
                group.start_soon(self._renew_leases, self.store)
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
        """How many tasks are working here."""
        return sum(1 for task in self._tasks.values() if task.status == "working")

    def status(self, task_id: str) -> Status | None:
        """A task's status here, or ``None`` once forgotten (for tests and the server's log)."""
        task = self._tasks.get(task_id)
        return task.status if task is not None else None

    async def _run(self, task: LocalTask, invoke: Callable[[], Awaitable[HandlerResult]]) -> None:
        try:
            with task_budget(self.max_wait_s), task.scope:
                with anyio.fail_after(self.max_wait_s + _GRACE_S):
                    result = await invoke()
                dumped = dumped_result(result)
                if task.status == "working":
                    task.result = dumped
                    await self._ended(task, "completed", "completed")
        except TimeoutError:
            task.error = {"code": INTERNAL_ERROR, "message": "The task ran past its bound."}
            await self._ended(task, "failed", "timed out")
        except MCPError as exc:
            task.error = {"code": exc.error.code, "message": exc.error.message}
            await self._ended(task, "failed", exc.error.message)
        except Exception as exc:  # a failing tool fails its task, not the server
            task.error = {"code": INTERNAL_ERROR, "message": f"{type(exc).__name__}: {exc}"}
            await self._ended(task, "failed", "failed")
        finally:
            task.finish("cancelled", "cancelled")  # no-op unless the scope was cancelled
            self._on_event(task.status, task.task_id)

    async def _ended(self, task: LocalTask, status: Status, message: str) -> None:
        """Record how a task ended, here and in the shared store.

        Another worker may have ended it in the store already (a cancel); then its word stands.
        """
        if not task.finish(status, message) or self.store is None:
            return
        store = self.store
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(
                lambda: store.finish(
                    task.task_id,
                    TaskEnd(
                        TaskStatus(status),
                        message,
                        task.updated_at,
                        stamp_after(),
                        result=task.result,
                        error=task.error,
                    ),
                )
            )

    async def _renew_leases(self, store: TaskStore) -> None:
        """Keep this worker's claims on its running tasks, and stop the ones it lost.

        A task it no longer holds was cancelled through another worker, or taken over after a
        renewal came too late; either way its answer is another's to give. Finished tasks past
        their keeping are dropped from the store on the way.
        """
        while True:
            await anyio.sleep(self.lease_s / 3)
            running = [t.task_id for t in self._tasks.values() if t.status == "working"]
            try:
                lost = await anyio.to_thread.run_sync(
                    store.renew, self.worker, running, stamp_after(self.lease_s)
                )
                await anyio.to_thread.run_sync(store.forget, stamp_after(-self.keep_s))
            except Exception:  # the store is down: keep running, try again at the next turn
                continue
            for task_id in lost:
                task = self._tasks.get(task_id)
                if task is not None and task.finish("cancelled", "ended through another worker"):
                    task.scope.cancel()
                    self._on_event("cancelled", task_id)

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

    def _find(self, task_id: str) -> LocalTask:
        self._forget_expired()
        task = self._tasks.get(task_id)
        if task is None:
            raise unknown_task(task_id)
        return task

    async def _get(
        self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams
    ) -> dict[str, Any]:
        if self.store is None:
            return {"resultType": "complete", **self._find(params.task_id).wire(self.keep_s)}
        record = await anyio.to_thread.run_sync(self.store.get, params.task_id)
        if record is None:
            raise unknown_task(params.task_id)
        if record.status is TaskStatus.WORKING and record.task_id not in self._tasks:
            record = await self._take_over(self.store, record)
        return {"resultType": "complete", **record_wire(record, self.keep_s)}

    async def _take_over(self, store: TaskStore, record: TaskRecord) -> TaskRecord:
        """Run a task whose worker stopped renewing its lease here, from its arguments."""
        resume, group = self.resume, self._group
        if resume is None or group is None or self.live >= self.max_live:
            return record
        taken = await anyio.to_thread.run_sync(
            store.take_over, record.task_id, self.worker, stamp_after(), stamp_after(self.lease_s)
        )
        if taken is None:
            return record
        task = LocalTask(taken.task_id, taken.tool, taken.created_at, taken.updated_at, "working")
        task.message = "working (taken over)"
        self._tasks[task.task_id] = task
        group.start_soon(self._run, task, lambda: resume(taken.tool, dict(taken.arguments)))
        self._on_event("taken over", task.task_id)
        return taken

    async def _cancel(
        self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams
    ) -> dict[str, Any]:
        """Stop the task now; the answer is an empty acknowledgement, as the extension says."""
        self._forget_expired()
        task = self._tasks.get(params.task_id)
        if task is not None and task.status == "working":
            await self._ended(task, "cancelled", "cancelled by the client")
            task.scope.cancel()
            self._on_event("cancelled", task.task_id)
        elif self.store is not None:  # running on another worker: it stops at its next renewal
            store = self.store
            await anyio.to_thread.run_sync(
                lambda: store.finish(
                    params.task_id,
                    TaskEnd(
                        TaskStatus.CANCELLED, "cancelled by the client", now_iso(), stamp_after()
                    ),
                )
            )
        return {}
