"""Bench rows for ``maple-mcp``: wake-up after an append by another process, and start-up time."""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import anyio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from contract_tests.support import make_repo
from maple_adapters.files.store import FileCommentStore
from maple_adapters.system import SystemClock
from maple_core.cursor import select_fresh
from maple_core.listing import list_all

BIN = Path(sys.executable).parent
APPEND = """
import sys, time
from pathlib import Path
from maple_adapters.files.store import FileCommentStore
from maple_adapters.system import SystemClock
from maple_core.comments import NewComment
store = FileCommentStore(SystemClock(), Path(sys.argv[1]))
store.append(NewComment(branch="feat/wake", body="wake"))
print(time.monotonic())
"""
EMPTY_SERVER = """
from mcp.server import MCPServer
server = MCPServer(name="empty", log_level="WARNING")
@server.tool()
def ping() -> str:
    return "pong"
server.run("stdio")
"""
TRIALS = 9


def append_from_another_process(repo: Path) -> float:
    """Append one comment in a new process; return the monotonic time its append finished."""
    done = subprocess.run(
        [sys.executable, "-c", APPEND, str(repo)], capture_output=True, text=True, check=True
    )
    return float(done.stdout.strip())


async def maple_wakeups(repo: Path) -> list[float]:
    params = StdioServerParameters(
        command=str(BIN / "maple-mcp"), cwd=repo, env={"MAPLE_STORE": "file"}
    )
    delays: list[float] = []
    async with Client(params) as client:
        first = await client.call_tool(
            "wait_for_comments", {"branch": "feat/wake", "timeoutMs": 1000}
        )
        cursor = first.structured_content["cursor"] if first.structured_content else None
        for _ in range(TRIALS):
            appended: list[float] = []

            async def append_soon(into: list[float]) -> None:
                await anyio.sleep(0.3)
                into.append(await anyio.to_thread.run_sync(append_from_another_process, repo))

            async with anyio.create_task_group() as tg:
                tg.start_soon(append_soon, appended)
                result = await client.call_tool(
                    "wait_for_comments",
                    {"branch": "feat/wake", "cursor": cursor, "timeoutMs": 20000},
                )
                woke = time.monotonic()
            assert result.structured_content is not None
            assert result.structured_content["status"] == "comments"
            cursor = result.structured_content["cursor"]
            delays.append(woke - appended[0])
    return delays


def polling_wakeups(repo: Path, interval: float = 2.0) -> list[float]:
    """Maple's loop: list every ``interval`` seconds until something is fresh."""
    store = FileCommentStore(SystemClock(), repo)
    cursor = select_fresh(list_all(store, "feat/wake"), None).cursor
    delays: list[float] = []
    for _ in range(TRIALS):
        appended: list[float] = []
        writer = threading.Timer(
            0.3, lambda into=appended: into.append(append_from_another_process(repo))
        )
        writer.start()
        while True:
            found = select_fresh(list_all(store, "feat/wake"), cursor)
            if found.comments:
                woke = time.monotonic()
                break
            time.sleep(interval)
        writer.join()
        cursor = found.cursor
        delays.append(woke - appended[0])
    return delays


def wake_row() -> tuple[str, str, str, float, str, bool]:
    with tempfile.TemporaryDirectory(prefix="maple-wake-") as tmp:
        ours = anyio.run(maple_wakeups, make_repo(Path(tmp) / "ours", "feat/wake"))
        polled = polling_wakeups(make_repo(Path(tmp) / "poll", "feat/wake"))
    median, anchor = statistics.median(ours), statistics.median(polled)
    return (
        "wait_for_comments wake-up after another process appends (median)",
        f"{median * 1000:.1f} ms",
        f"2 s polling loop, same harness: {anchor * 1000:.0f} ms",
        median / anchor,
        "≤ 50 ms",
        median <= 0.050,
    )


async def start_to_list(command: list[str], cwd: Path) -> float:
    started = time.monotonic()
    params = StdioServerParameters(
        command=command[0], args=command[1:], cwd=cwd, env={"MAPLE_STORE": "file"}
    )
    async with Client(params) as client:
        await client.list_tools()
        return time.monotonic() - started


def startup_row() -> tuple[str, str, str, float, str, bool]:
    with tempfile.TemporaryDirectory(prefix="maple-start-") as tmp:
        repo = make_repo(Path(tmp) / "repo", "feat/start")
        ours, empty = [], []
        for _ in range(TRIALS):
            ours.append(anyio.run(start_to_list, [str(BIN / "maple-mcp")], repo))
            empty.append(anyio.run(start_to_list, [sys.executable, "-c", EMPTY_SERVER], repo))
    median, anchor = statistics.median(ours), statistics.median(empty)
    return (
        "maple-mcp start to first tools/list answer (median)",
        f"{median * 1000:.0f} ms",
        f"an empty MCPServer, same harness: {anchor * 1000:.0f} ms",
        median / anchor,
        "≤ 1.0 s",
        median <= 1.0,
    )
