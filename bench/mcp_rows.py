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
from maple_adapters.files import FileCommentStore
from maple_adapters.system import SystemClock
from maple_core.cursor import select_fresh
from maple_core.services import list_all

BIN = Path(sys.executable).parent
APPEND = """
import sys, time
from pathlib import Path
from maple_adapters.files import FileCommentStore
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


PEER = Path(__file__).with_name("peers") / "agentation"
PEER_CLI = PEER / "node_modules" / "agentation-mcp" / "dist" / "cli.js"
ROUNDS = 11
"""Interleaved rounds of the start-up rows (each round starts every server once)."""


async def start_to_list(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    started = time.monotonic()
    params = StdioServerParameters(
        command=command[0], args=command[1:], cwd=cwd, env=env or {"MAPLE_STORE": "file"}
    )
    async with Client(params) as client:
        await client.list_tools()
        return time.monotonic() - started


async def start_to_call(
    command: list[str], cwd: Path, env: dict[str, str], tool: str, arguments: dict[str, str]
) -> tuple[float, float]:
    """Seconds from the process's start to the first ``tools/list`` answer and ``tool``'s."""
    started = time.monotonic()
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=cwd, env=env)
    async with Client(params) as client:
        await client.list_tools()
        listed = time.monotonic() - started
        result = await client.call_tool(tool, arguments)
        assert not result.is_error, result.content
        return listed, time.monotonic() - started


def peer_command() -> list[str]:
    """Agentation's MCP server on ``node``, alone (``--mcp-only``), installed from its lockfile."""
    installed = PEER / "node_modules" / ".package-lock.json"
    lock = PEER / "package-lock.json"
    if not installed.exists() or installed.stat().st_mtime < lock.stat().st_mtime:
        npm = ["npm", "ci", "--no-audit", "--no-fund", "--silent"]
        subprocess.run(npm, cwd=PEER, check=True)
    return ["node", str(PEER_CLI), "server", "--mcp-only", "--http-url", "http://127.0.0.1:9"]


def _median_ms(samples: list[float]) -> str:
    low, high = min(samples) * 1000, max(samples) * 1000
    return f"{statistics.median(samples) * 1000:.0f} ms ({low:.0f}–{high:.0f})"


def startup_rows() -> list[tuple[str, str, str, float, str, bool]]:
    """maple-mcp's start against Node's Agentation server and an empty server on the same SDK.

    Each round starts, in turn: the peer, maple-mcp with the handshake recorded (the usual
    start), an empty ``MCPServer``, and maple-mcp with nothing recorded (a fresh cache folder:
    the first start after an install, an upgrade or a changed setting). One start before the
    rounds records the handshake for the warm starts.
    """
    with tempfile.TemporaryDirectory(prefix="maple-start-") as tmp:
        repo = make_repo(Path(tmp) / "repo", "feat/start")
        warm_env = {"MAPLE_STORE": "file", "XDG_CACHE_HOME": str(Path(tmp) / "cache")}
        ours, empty = [str(BIN / "maple-mcp")], [sys.executable, "-c", EMPTY_SERVER]
        peer = peer_command()
        call = ("list_comments", {"branch": "feat/start"})
        anyio.run(start_to_call, ours, repo, warm_env, *call)  # records the handshake
        samples: dict[str, list[tuple[float, float]]] = {"peer": [], "warm": [], "empty": []}
        samples["cold"] = []
        for round_ in range(ROUNDS):
            cold_env = {**warm_env, "XDG_CACHE_HOME": str(Path(tmp) / f"cold-{round_}")}
            samples["peer"].append((anyio.run(start_to_list, peer, repo), 0.0))
            samples["warm"].append(anyio.run(start_to_call, ours, repo, warm_env, *call))
            samples["empty"].append(anyio.run(start_to_call, empty, repo, warm_env, "ping", {}))
            samples["cold"].append(anyio.run(start_to_call, ours, repo, cold_env, *call))
    listed = {name: [s[0] for s in runs] for name, runs in samples.items()}
    called = {name: [s[1] for s in runs] for name, runs in samples.items()}
    median = {name: statistics.median(runs) for name, runs in listed.items()}
    first_call = {name: statistics.median(runs) for name, runs in called.items()}
    against_peer = median["warm"] / median["peer"]
    against_empty = median["warm"] / median["empty"]
    call_ratio = first_call["warm"] / first_call["empty"]
    cold_ratio = first_call["cold"] / first_call["empty"]
    return [
        (
            "maple-mcp start to first tools/list answer vs Node (median, range)",
            _median_ms(listed["warm"]),
            f"agentation-mcp 1.3.2 on node, interleaved: {_median_ms(listed['peer'])}",
            against_peer,
            "≤ 1.0×",
            against_peer <= 1.0,
        ),
        (
            "maple-mcp start to first tools/list answer (median)",
            f"{median['warm'] * 1000:.0f} ms",
            f"an empty MCPServer, same harness: {median['empty'] * 1000:.0f} ms",
            against_empty,
            "≤ 1.0 s",
            median["warm"] <= 1.0,
        ),
        (
            "maple-mcp start to first tools/call answer (median, range)",
            _median_ms(called["warm"]),
            f"an empty MCPServer's first tools/call: {_median_ms(called['empty'])}",
            call_ratio,
            "≤ 1.25×",
            call_ratio <= 1.25,
        ),
        (
            "maple-mcp first start of a configuration, to first tools/call (median, range)",
            _median_ms(called["cold"]),
            f"an empty MCPServer's first tools/call: {_median_ms(called['empty'])}",
            cold_ratio,
            "≤ 1.25×",
            cold_ratio <= 1.25,
        ),
    ]
