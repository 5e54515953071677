"""The official MCP client, speaking the tasks extension as Claude Code does (2026-07-28).

The SDK's client can declare an extension and accept its ``resultType`` (a ``ResultClaim``), and
send any request through its session; what it lacks is the extension's methods, which are here:
``tasks/get`` and ``tasks/cancel`` as Claude Code sends them, and a poll every 2 s as it does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Literal, cast

import anyio
from mcp.client import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.server import MCPServer
from mcp_types import CallToolResult, Request, RequestParams, Result
from pydantic import ConfigDict, TypeAdapter

from maple_entrypoints.mcp_tasks import TasksExtension

TASKS = "io.modelcontextprotocol/tasks"
CLAUDE_POLL_S = 2.0
"""How often Claude Code 2.1.332 polls ``tasks/get`` (whatever the server advertises)."""

_ANY = TypeAdapter(dict[str, Any])


class TaskHandle(Result):
    """A ``tools/call`` answered with a task."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = "task"

    @property
    def task(self) -> dict[str, Any]:
        """The task's fields (``taskId``, ``status``, ...)."""
        return dict(self.model_extra or {})


async def _never(handle: TaskHandle, ctx: ClaimContext) -> CallToolResult:
    raise AssertionError("tests read tasks with tasks/get, as Claude Code does")


class TasksClient(ClientExtension):
    """Declares the tasks extension and accepts ``resultType: "task"``."""

    identifier = TASKS

    def claims(self) -> list[ResultClaim[Any]]:
        """The task handle on ``tools/call``."""
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=_never)]


class _Params(RequestParams):
    model_config = ConfigDict(extra="allow")


class _Raw(Request[_Params, str]):
    method: str
    params: _Params


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> TaskHandle | Any:
    """``tools/call``, returning the task handle (or the plain result when none was made)."""
    return await client.session.call_tool(tool, arguments, allow_claimed=True)


async def request(client: Client, method: str, **params: Any) -> dict[str, Any]:
    """Any request, its raw result."""
    raw = _Raw(method=method, params=_Params(**params))
    return cast(dict[str, Any], await client.session.send_request(raw, _ANY))


async def task_get(client: Client, task_id: str) -> dict[str, Any]:
    """``tasks/get``."""
    return await request(client, "tasks/get", taskId=task_id)


async def task_cancel(client: Client, task_id: str) -> dict[str, Any]:
    """``tasks/cancel``."""
    return await request(client, "tasks/cancel", taskId=task_id)


async def poll_until_done(
    client: Client, task_id: str, every_s: float = CLAUDE_POLL_S, limit_s: float = 60.0
) -> dict[str, Any]:
    """Poll ``tasks/get`` every ``every_s`` until the task is no longer working."""
    with anyio.fail_after(limit_s):
        while True:
            got = await task_get(client, task_id)
            if got["status"] != "working":
                return got
            await anyio.sleep(every_s)


def tasks_server(name: str, tasks: TasksExtension) -> MCPServer:
    """An MCP server with ``tasks`` as its one extension, running while the server runs; the
    test adds its tools."""

    @asynccontextmanager
    async def lifespan(server: MCPServer) -> AsyncIterator[None]:
        async with tasks.lifespan():
            yield

    return MCPServer(name=name, extensions=[tasks], lifespan=lifespan)
