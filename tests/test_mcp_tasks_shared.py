"""MCP tasks whose state lives in a shared store: two servers (two route workers) on one database.

A task started through one worker is read, cancelled or taken over through the other, with the
official client in-process as Claude Code speaks the extension (``tests/mcp_tasks_support.py``).
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.server import MCPServer
from mcp.shared.exceptions import MCPError

from maple_adapters.sql.database import Database
from maple_adapters.sql.tasks import SqlTaskStore
from maple_entrypoints.mcp_tasks import TasksExtension
from tests.mcp_support import EVENT_S
from tests.mcp_tasks_support import (
    TaskHandle,
    TasksClient,
    call,
    task_cancel,
    task_get,
    tasks_server,
)
from tests.sql_support import fresh_repository

pytestmark = pytest.mark.anyio
LEASE_S = 0.6


class Gates:
    """What the tiny tool waits for, per key, and how many times each key's tool ran."""

    def __init__(self) -> None:
        self.opened: dict[str, anyio.Event] = {}
        self.runs: dict[str, int] = {}
        self.cancelled: list[str] = []

    def gate(self, key: str) -> anyio.Event:
        return self.opened.setdefault(key, anyio.Event())


def worker(store: SqlTaskStore, gates: Gates) -> MCPServer:
    """A server whose ``slow`` tool runs as a task recorded in ``store``."""

    def resume(tool: str, arguments: dict[str, Any]) -> Any:
        return server.call_tool(tool, arguments)

    tasks = TasksExtension(["slow"], store=store, resume=resume, lease_s=LEASE_S)

    server = tasks_server("worker", tasks)

    @server.tool()
    async def slow(key: str) -> str:
        gates.runs[key] = gates.runs.get(key, 0) + 1
        try:
            await gates.gate(key).wait()
        except anyio.get_cancelled_exc_class():
            gates.cancelled.append(key)
            raise
        return f"done {key}"

    return server


@pytest.fixture(params=["sqlite_database", "postgres_database"], ids=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest) -> SqlTaskStore:
    database: Database = request.getfixturevalue(request.param)
    return SqlTaskStore(database, fresh_repository())


async def start(client: Client, key: str) -> str:
    handle = await call(client, "slow", {"key": key})
    assert isinstance(handle, TaskHandle), handle
    return str(handle.task["taskId"])


async def status_becomes(client: Client, task_id: str, status: str) -> dict[str, Any]:
    with anyio.fail_after(EVENT_S):
        while (got := await task_get(client, task_id))["status"] != status:
            await anyio.sleep(0.05)
    return got


async def test_a_task_started_on_one_worker_is_answered_by_the_other(store: SqlTaskStore) -> None:
    gates = Gates()
    async with (
        Client(worker(store, gates), extensions=[TasksClient()]) as first,
        Client(worker(store, gates), extensions=[TasksClient()]) as second,
    ):
        task_id = await start(first, "a")
        assert (await task_get(second, task_id))["status"] == "working"
        gates.gate("a").set()
        got = await status_becomes(second, task_id, "completed")
        assert got["result"]["content"][0]["text"] == "done a"
        assert got["resultType"] == "complete"
        assert gates.runs == {"a": 1}
        with pytest.raises(MCPError, match="Unknown or expired task"):
            await task_get(second, "no-such-task")


async def test_a_cancel_through_the_other_worker_stops_the_running_tool(
    store: SqlTaskStore,
) -> None:
    gates = Gates()
    async with (
        Client(worker(store, gates), extensions=[TasksClient()]) as first,
        Client(worker(store, gates), extensions=[TasksClient()]) as second,
    ):
        task_id = await start(first, "b")
        await task_cancel(second, task_id)
        assert (await task_get(second, task_id))["status"] == "cancelled"
        with anyio.fail_after(EVENT_S):  # at the running worker's next renewal
            while "b" not in gates.cancelled:
                await anyio.sleep(0.02)
        gates.gate("b").set()
        await anyio.sleep(LEASE_S)
        assert (await task_get(first, task_id))["status"] == "cancelled"  # not resurrected


async def test_a_task_whose_worker_stopped_is_taken_over_and_completed_by_another(
    store: SqlTaskStore,
) -> None:
    gates = Gates()
    async with Client(worker(store, gates), extensions=[TasksClient()]) as second:
        async with Client(worker(store, gates), extensions=[TasksClient()]) as first:
            task_id = await start(first, "c")
            with anyio.fail_after(EVENT_S):
                while gates.runs.get("c") != 1:
                    await anyio.sleep(0.02)
        # The first worker is gone, its lease unrenewed: the task is still working in the store.
        assert (await task_get(second, task_id))["status"] == "working"
        with anyio.fail_after(EVENT_S):
            while gates.runs.get("c") != 2:  # taken over once the lease ran out
                await task_get(second, task_id)
                await anyio.sleep(0.1)
        gates.gate("c").set()
        got = await status_becomes(second, task_id, "completed")
        assert got["result"]["content"][0]["text"] == "done c"
