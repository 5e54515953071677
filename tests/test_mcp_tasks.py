"""``wait_for_comments`` as an MCP task (the tasks extension, 2026-07-28), with the official client.

The client declares ``io.modelcontextprotocol/tasks`` and reads tasks with ``tasks/get`` and
``tasks/cancel`` as Claude Code does (``tests/mcp_tasks_support.py``). In-process for the bounds
(which ``build_server`` takes), over stdio against ``maple-mcp`` for the real wire.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.server import MCPServer
from mcp.shared.exceptions import MCPError

from contract_tests.support import FakeClock
from maple_adapters.files.store import FileCommentStore
from maple_adapters.memory import InMemoryCommentStore, MemoryChangeSignal
from maple_adapters.system import SystemClock
from maple_core.comments import NewComment
from maple_core.wait import DEFAULT_WAIT_MS
from maple_entrypoints.mcp_server import build_server
from maple_entrypoints.mcp_task_calls import task_budget_s
from maple_entrypoints.mcp_tasks import MAX_LIVE_TASKS, MAX_TASK_WAIT_S, TasksExtension
from tests.mcp_support import EVENT_S, structured, text_json
from tests.mcp_tasks_support import (
    TASKS,
    TaskHandle,
    TasksClient,
    call,
    poll_until_done,
    task_cancel,
    task_get,
    tasks_server,
)

pytestmark = pytest.mark.anyio
BRANCH = "feat/tasks"


class _CountingSignal:
    def __init__(self, inner: MemoryChangeSignal, store: CountingStore) -> None:
        self._inner, self._store = inner, store

    def token(self) -> Hashable:
        return self._inner.token()

    def wait(self, token: Hashable, timeout: float) -> bool:
        with self._store.lock:
            self._store.waiting += 1
        try:
            return self._inner.wait(token, timeout)
        finally:
            with self._store.lock:
                self._store.waiting -= 1


class CountingStore(InMemoryCommentStore):
    """A memory store that counts the waits on its change signal in flight."""

    def __init__(self) -> None:
        super().__init__(FakeClock())
        self.lock = threading.Lock()
        self.waiting = 0

    def changes(self, branch: str) -> Any:
        return _CountingSignal(super().changes(branch), self)


def add(store: Any, body: str) -> str:
    return str(store.append(NewComment(branch=BRANCH, body=body)).id)


async def started(client: Client, **arguments: Any) -> dict[str, Any]:
    """Start a wait and check it came back as a working task, at once."""
    # "At once" is the task's status: a wait the call had held would come back completed.
    handle = await call(client, "wait_for_comments", {"branch": BRANCH, **arguments})
    assert isinstance(handle, TaskHandle), handle
    task = handle.task
    assert task["status"] == "working"
    assert task["taskId"]
    return task


def completed(got: dict[str, Any]) -> dict[str, Any]:
    """The wait's result carried inline on a completed task."""
    assert got["status"] == "completed", got
    assert got["resultType"] == "complete"
    result = got["result"]
    assert result["isError"] is False
    data = text_json(result["content"][0]["text"])
    assert {k: v for k, v in result["structuredContent"].items() if k != "notice"} == data
    return dict(data)


async def until(check: Any, limit_s: float = EVENT_S) -> None:
    with anyio.fail_after(limit_s):
        while not check():
            await anyio.sleep(0.02)


async def test_the_server_declares_the_extension_and_the_defaults_are_documented() -> None:
    async with Client(
        build_server(InMemoryCommentStore(FakeClock())), extensions=[TasksClient()]
    ) as client:
        assert client.protocol_version == "2026-07-28"
        capabilities = client.session.server_capabilities
        assert capabilities is not None
        assert TASKS in (capabilities.extensions or {})
    assert (MAX_LIVE_TASKS, MAX_TASK_WAIT_S) == (32, 3600.0)


async def test_a_wait_is_a_task_that_a_comment_completes_with_the_comment_inline() -> None:
    store = InMemoryCommentStore(FakeClock())
    old = add(store, "already there")
    async with Client(build_server(store), extensions=[TasksClient()]) as client:
        drained = completed(await poll_until_done(client, (await started(client))["taskId"], 0.05))
        assert [c["id"] for c in drained["comments"]] == [old]
        task = await started(client, cursor=drained["cursor"])
        await anyio.sleep(0.5)
        assert (await task_get(client, task["taskId"]))["status"] == "working"
        new = add(store, "please rename foo")
        got = completed(await poll_until_done(client, task["taskId"], 0.05))
    assert got["status"] == "comments"
    assert [c["id"] for c in got["comments"]] == [new]  # the cursor rules: only what is newer
    assert got["cursor"] > drained["cursor"]


async def test_cancel_stops_the_wait_at_once_and_a_later_comment_does_not_resurrect_it() -> None:
    store = CountingStore()
    async with Client(build_server(store, max_tasks=1), extensions=[TasksClient()]) as client:
        task = await started(client, cursor="2020-01-01T00:00:00.000Z")
        await until(lambda: store.waiting > 0)  # the wait holds the branch's watch
        assert await task_cancel(client, task["taskId"]) == {
            "resultType": "complete",
            **_meta(client),
        }
        got = await task_get(client, task["taskId"])
        assert got["status"] == "cancelled"
        assert "result" not in got
        # the watch is released: well before the wait's own 30 s timeout could have released it
        await until(lambda: store.waiting == 0, DEFAULT_WAIT_MS / 2000)
        add(store, "too late")
        await anyio.sleep(0.5)
        assert (await task_get(client, task["taskId"]))["status"] == "cancelled"
        assert store.waiting == 0
        second = await started(client, cursor="2020-01-01T00:00:00.000Z")  # its slot is free
        assert completed(await poll_until_done(client, second["taskId"], 0.05))["comments"]


def _meta(client: Client) -> dict[str, Any]:
    """The ``_meta`` stamp every 2026-era result carries."""
    assert client.server_info is not None
    info = {"name": "maple", "version": client.server_info.version}
    return {"_meta": {"io.modelcontextprotocol/serverInfo": info}}


async def test_the_live_task_bound_refuses_one_more_until_one_ends() -> None:
    store = InMemoryCommentStore(FakeClock())
    async with Client(build_server(store, max_tasks=2), extensions=[TasksClient()]) as client:
        first = await started(client, cursor="2030-01-01T00:00:00.000Z")
        await started(client, cursor="2030-01-01T00:00:00.000Z")
        with pytest.raises(MCPError, match=r"Too many tasks running \(2"):
            await call(client, "wait_for_comments", {"branch": BRANCH})
        await task_cancel(client, first["taskId"])
        await started(client, cursor="2030-01-01T00:00:00.000Z")
        # other tools still answer plainly while the tasks wait
        assert structured(await client.call_tool("list_comments", {"branch": BRANCH})) == []


async def test_a_task_that_waits_past_its_bound_completes_as_a_timeout_with_the_cursor_kept() -> (
    None
):
    store = InMemoryCommentStore(FakeClock())
    cursor = "2030-01-01T00:00:00.000000Z"
    async with Client(
        build_server(store, max_task_wait_s=1.5), extensions=[TasksClient()]
    ) as client:
        task = await started(client, cursor=cursor, timeoutMs=1000)  # a task ignores the 55 s clamp
        await anyio.sleep(1.1)
        assert (await task_get(client, task["taskId"]))["status"] == "working"
        got = completed(await poll_until_done(client, task["taskId"], 0.05, limit_s=10))
    assert got == {"status": "timeout", "cursor": cursor, "comments": []}


async def test_an_unknown_task_is_an_error() -> None:
    async with Client(
        build_server(InMemoryCommentStore(FakeClock())), extensions=[TasksClient()]
    ) as client:
        with pytest.raises(MCPError, match="Unknown or expired task"):
            await task_get(client, "nope")
        assert (await task_cancel(client, "nope"))["resultType"] == "complete"  # acknowledged


async def test_a_client_without_the_extension_gets_the_plain_long_poll() -> None:
    store = InMemoryCommentStore(FakeClock())
    async with Client(build_server(store)) as client:
        began = time.monotonic()
        result = await client.call_tool(
            "wait_for_comments",
            {"branch": BRANCH, "cursor": "2030-01-01T00:00:00.000Z", "timeoutMs": 1000},
        )
        assert time.monotonic() - began > 0.9  # and it came back: its own timeout, not ours
        assert structured(result)["status"] == "timeout"
        async with anyio.create_task_group() as group:
            waited: list[Any] = []

            async def wait() -> None:
                waited.append(
                    await client.call_tool(
                        "wait_for_comments",
                        {
                            "branch": BRANCH,
                            "cursor": "2020-01-01T00:00:00.000Z",
                            "timeoutMs": 55_000,
                        },
                    )
                )

            group.start_soon(wait)
            await anyio.sleep(0.3)
            new = add(store, "a plain wait sees it")
        assert [c["id"] for c in structured(waited[0])["comments"]] == [new]


async def test_over_stdio_a_file_comment_completes_the_task(repo: Path) -> None:
    from mcp.client.stdio import StdioServerParameters

    from tests.support import MAPLE_MCP, clean_env

    params = StdioServerParameters(command=str(MAPLE_MCP), cwd=repo, env=clean_env())
    async with Client(params, extensions=[TasksClient()]) as client:
        assert client.protocol_version == "2026-07-28"
        capabilities = client.session.server_capabilities
        assert capabilities is not None
        assert TASKS in (capabilities.extensions or {})
        task = await started(client, cursor="2020-01-01T00:00:00.000Z")
        assert (await task_get(client, task["taskId"]))["status"] == "working"
        new = (
            FileCommentStore(SystemClock(), repo)
            .append(NewComment(branch=BRANCH, body="over the wire"))
            .id
        )
        got = completed(await poll_until_done(client, task["taskId"]))
        assert [c["id"] for c in got["comments"]] == [new]
        cancelled = await started(client, cursor=got["cursor"])
        await task_cancel(client, cancelled["taskId"])
        assert (await task_get(client, cancelled["taskId"]))["status"] == "cancelled"


def tiny_server(tasks: TasksExtension, gate: anyio.Event) -> MCPServer:
    """The extension alone, on a server with one task tool and one plain tool."""

    server = tasks_server("tiny", tasks)

    @server.tool()
    async def slow(fail: bool = False) -> str:
        await gate.wait()
        if fail:
            raise RuntimeError("it broke")
        return f"done within {task_budget_s()} s"

    @server.tool()
    async def quick() -> str:
        return f"budget {task_budget_s()}"

    return server


async def test_the_extension_forgets_finished_tasks_after_a_while_and_beyond_its_bound() -> None:
    gate = anyio.Event()
    tasks = TasksExtension(["slow"], max_wait_s=7.0, keep_s=0.5, max_kept=1)
    async with Client(tiny_server(tasks, gate), extensions=[TasksClient()]) as client:
        plain = await call(client, "quick", {})
        assert not isinstance(plain, TaskHandle)
        assert plain.content[0].text == "budget None"  # only task tools become tasks
        first, second = [(await call(client, "slow", {})).task["taskId"] for _ in range(2)]
        assert tasks.live == 2
        gate.set()
        got = await poll_until_done(client, second, 0.02)
        assert got["result"]["content"][0]["text"] == "done within 7.0 s"
        await until(lambda: tasks.live == 0)
        await anyio.sleep(0.01)
        with pytest.raises(MCPError, match="Unknown or expired task"):
            await task_get(client, first)  # at most one finished task is kept
        assert (await task_get(client, second))["status"] == "completed"
        await anyio.sleep(0.6)
        with pytest.raises(MCPError, match="Unknown or expired task"):
            await task_get(client, second)  # kept for keep_s only


async def test_a_tool_that_raises_fails_its_task_not_the_server() -> None:
    gate = anyio.Event()
    gate.set()
    tasks = TasksExtension(["slow"])
    async with Client(tiny_server(tasks, gate), extensions=[TasksClient()]) as client:
        handle = await call(client, "slow", {"fail": True})
        got = await poll_until_done(client, handle.task["taskId"], 0.02)
        assert got["status"] == "completed"  # the SDK turns the exception into a tool error
        assert got["result"]["isError"] is True
        assert got["result"]["content"][0]["text"] == "Error executing tool slow"
        assert (await call(client, "quick", {})).content[0].text == "budget None"


async def test_maple_doctor_says_how_each_connected_client_waits(repo: Path) -> None:
    """Issue 19, point 3: the server notes whether the client waited as a task (it wakes by
    itself) or by polling, and ``maple doctor`` says so, with ``maple watch`` as the fix."""
    from mcp.client.stdio import StdioServerParameters

    from tests.mcp_support import stdio_server
    from tests.support import MAPLE_MCP, clean_env, maple

    params = StdioServerParameters(command=str(MAPLE_MCP), cwd=repo, env=clean_env())
    async with Client(params, extensions=[TasksClient()]) as client:
        task = await started(client, cursor="2020-01-01T00:00:00.000Z")
        await task_cancel(client, task["taskId"])
    async with stdio_server(repo) as plain:
        await plain.call_tool(
            "wait_for_comments",
            {"branch": BRANCH, "cursor": "2020-01-01T00:00:00.000Z", "timeoutMs": 1},
        )
    doctor = maple(repo, "doctor")
    lines = [line for line in doctor.stdout.splitlines() if "connected client wake" in line]
    assert len(lines) == 2, doctor.stdout
    tasked = [line for line in lines if "as an MCP task" in line]
    polled = [line for line in lines if "without the MCP tasks extension" in line]
    assert len(tasked) == 1, lines
    assert "wakes by itself" in tasked[0]
    assert len(polled) == 1, lines
    assert "maple watch" in doctor.stdout


def test_a_hostile_or_broken_clients_file_is_read_inert_or_as_nothing(repo: Path) -> None:
    """``.maple/clients.json`` is written by maple-mcp but lies in the checkout: anything there
    reaches maple doctor's terminal as one plain, capped line, or not at all."""
    from maple_adapters.files.clients import read_clients

    notes = repo / ".maple" / "clients.json"
    notes.parent.mkdir()
    for broken in ("not json", '{"clients": "nope"}', "[1, 2]", '{"clients": [3, null]}'):
        notes.write_text(broken)
        assert read_clients(repo) == []
    hostile = {"name": "\x1b]8;;http://evil\x07Claude\x1b[2J" + "x" * 500, "tasks": "yes"}
    notes.write_text(json.dumps({"clients": [hostile]}))
    [seen] = read_clients(repo)
    assert seen.name.isprintable()
    assert len(seen.name) <= 80
    assert seen.tasks is False  # only a true boolean says it wakes
    notes.unlink()
    (repo / "elsewhere.json").write_text(json.dumps({"clients": [hostile]}))
    notes.symlink_to(repo / "elsewhere.json")
    assert read_clients(repo) == []  # a link there is not followed
