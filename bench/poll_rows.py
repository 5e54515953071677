"""Bench rows for one poll per pull request per machine, with real ``maple-mcp`` processes.

Every process runs with the same token and the same cache folder (``XDG_CACHE_HOME``), as the
MCP servers of several worktrees on one machine do, against the fake GitHub over TLS.

- ``shared_poll_row``: five ``maple-mcp`` with 20 waiters in all (4 each) make at most 1.2 times
  the requests a minute of one ``maple-mcp`` with one waiter, measured in the same run over the
  same stretch of idle waiting (every request counted, 304s too).
- ``takeover_row``: with those five waiting, the process that polled last is killed with SIGKILL;
  a new comment still wakes every other waiter within two poll intervals (4 s).
- ``reserve_row``: with 20% of the rate limit left, an idle wait makes no counted request until
  the reset, says so in its progress, and polls again after it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import tempfile
import time
from collections.abc import Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from contract_tests.support import make_repo
from tests.github.fake_github import FakeGitHub, Served, serve

TOKEN = "ghp_bench_shared_poll"
BRANCH = "feat/shared"
WINDOW_S = 30.0
POLL_S = 2.0
MAPLE_MCP = Path(sys.executable).with_name("maple-mcp")


def _env(served: Served, cache: Path, **extra: str) -> dict[str, str]:
    return {
        "GITHUB_TOKEN": TOKEN,
        "MAPLE_GITHUB_OWNER": "acme",
        "MAPLE_GITHUB_REPO": "web",
        "MAPLE_GITHUB_API": served.base_url,
        "REQUESTS_CA_BUNDLE": served.ca_file,
        "XDG_CACHE_HOME": str(cache),
        "HOME": str(cache.parent),
        "PATH": os.environ.get("PATH", ""),
        **extra,
    }


def _seeded(fake: FakeGitHub) -> None:
    fake.open_pull(BRANCH)
    fake.repo().associations["rev"] = "COLLABORATOR"
    root = fake.add_review_comment(1, "rev", "An old thread.")
    fake.reply_review_comment(1, root["id"], "rev", "Still open.")
    fake.add_review(1, "rev", "COMMENTED", "An old review.")


async def _servers(
    stack: AsyncExitStack, repo: Path, env: dict[str, str], count: int
) -> list[Client]:
    clients = []
    for _ in range(count):
        params = StdioServerParameters(command=str(MAPLE_MCP), cwd=repo, env=env)
        clients.append(await stack.enter_async_context(Client(params)))
    return clients


def _wait_args(timeout_s: float) -> dict[str, Any]:
    return {"branch": BRANCH, "cursor": "2999-01-01T00:00:00Z", "timeoutMs": int(timeout_s * 1000)}


async def _waiting(clients: Sequence[Client], per_client: int, timeout_s: float) -> None:
    async with anyio.create_task_group() as group:
        for client in clients:
            for _ in range(per_client):
                group.start_soon(client.call_tool, "wait_for_comments", _wait_args(timeout_s))


def _requests(fake: FakeGitHub) -> int:
    return fake.requests_by_token.get(TOKEN, 0)


def _measure(served: Served, root: Path, processes: int, per_client: int) -> float:
    """Requests a minute while ``processes`` servers hold ``per_client`` idle waits each."""
    fake = served.fake
    repo = make_repo(root / f"repo-{processes}", BRANCH)
    env = _env(served, root / f"cache-{processes}" / ".cache")

    async def run() -> float:
        async with AsyncExitStack() as stack:
            clients = await _servers(stack, repo, env, processes)
            await _waiting(clients, 1, 3.0)  # every first look, before the clock starts
            before, began = _requests(fake), time.monotonic()
            await _waiting(clients, per_client, WINDOW_S)
            return (_requests(fake) - before) / ((time.monotonic() - began) / 60)

    return anyio.run(run)


def shared_poll_row() -> tuple[str, str, str, float, str, bool]:
    fake = FakeGitHub(tokens={TOKEN: 1})
    with tempfile.TemporaryDirectory(prefix="maple-poll-bench-") as tmp:
        served = serve(fake, Path(tmp))
        try:
            _seeded(fake)
            one = _measure(served, Path(tmp), 1, 1)
            five = _measure(served, Path(tmp), 5, 4)
        finally:
            served.stop()
    ratio = five / max(one, 1e-9)
    return (
        f"5 maple-mcp, 20 idle waiters on one pull request, {WINDOW_S:.0f} s",
        f"{five:.0f} requests a minute (304s too)",
        f"1 maple-mcp, 1 waiter, same run: {one:.0f} a minute",
        ratio,
        "≤ 1.2×",
        ratio <= 1.2,
    )


def takeover_row() -> tuple[str, str, str, float, str, bool]:
    fake = FakeGitHub(tokens={TOKEN: 1})
    with tempfile.TemporaryDirectory(prefix="maple-takeover-bench-") as tmp:
        served = serve(fake, Path(tmp))
        try:
            _seeded(fake)
            repo = make_repo(Path(tmp) / "repo", BRANCH)
            cache = Path(tmp) / "cache" / ".cache"
            delays, victim = anyio.run(_takeover, repo, _env(served, cache), fake, cache)
        finally:
            served.stop()
    worst = max(delays, default=float("inf"))
    limit = 2 * POLL_S
    return (
        "a comment after the last poller was killed (SIGKILL): 4 maple-mcp × 4 waiters left",
        f"{len(delays)} of 16 woke, the last {worst:.2f} s after the comment ({victim})",
        f"two poll intervals: {limit:.0f} s",
        worst / limit,
        "≤ 1.0, all 16",
        worst <= limit and len(delays) == 16,
    )


def _maple_servers() -> list[int]:
    """The ``maple-mcp`` processes this process started (its children running it)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read()
        except (OSError, ValueError, IndexError):
            continue
        if parent == os.getpid() and b"maple-mcp" in command:
            found.append(int(entry))
    return found


def _last_poller(cache: Path, servers: Sequence[int]) -> int:
    """The server that refreshed an answer last (each answer's meta names who checked it)."""
    latest = (0.0, servers[0])
    for meta in cache.glob("maple/github/*/a-*.meta"):
        try:
            data = json.loads(meta.read_text())
        except (OSError, ValueError):
            continue
        if data.get("by") in servers and float(data.get("checked", 0)) > latest[0]:
            latest = (float(data["checked"]), int(data["by"]))
    return latest[1]


async def _takeover(
    repo: Path, env: dict[str, str], fake: FakeGitHub, cache: Path
) -> tuple[list[float], str]:
    woke: list[float] = []
    added: list[float] = []
    stack = AsyncExitStack()
    clients = await _servers(stack, repo, env, 5)
    try:
        drained = await clients[0].call_tool(
            "wait_for_comments", {"branch": BRANCH, "timeoutMs": 0}
        )
        cursor = (drained.structured_content or {}).get("cursor")

        async def wait_one(client: Client) -> None:
            args = {"branch": BRANCH, "cursor": cursor, "timeoutMs": 60_000}
            try:
                result = await client.call_tool("wait_for_comments", args)
            except Exception:
                return  # the killed server's waiters
            content = result.structured_content or {}
            if content.get("status") == "comments" and added:
                woke.append(time.monotonic() - added[0])

        async with anyio.create_task_group() as group:
            for client in clients:
                for _ in range(4):
                    group.start_soon(wait_one, client)
            await anyio.sleep(3 * POLL_S)  # they poll, sharing the folder
            servers = _maple_servers()
            victim = _last_poller(cache, servers)
            os.kill(victim, signal.SIGKILL)
            await anyio.sleep(0.1)
            added.append(time.monotonic())
            fake.add_review_comment(1, "rev", "A new thread, after the poller died.")
    finally:
        with contextlib.suppress(Exception):
            await stack.aclose()
    return woke, f"killed pid {victim}, the last to poll"


def reserve_row() -> tuple[str, str, str, float, str, bool]:
    fake = FakeGitHub(tokens={TOKEN: 1})
    with tempfile.TemporaryDirectory(prefix="maple-reserve-bench-") as tmp:
        served = serve(fake, Path(tmp))
        try:
            _seeded(fake)
            # one counted request short of the 20% reserve: the first look brings it there
            fake.core_window.used = fake.core_window.limit * 4 // 5 - 1
            fake.core_window.reset = float(int(time.time()) + 25)  # whole seconds, as GitHub says
            repo = make_repo(Path(tmp) / "repo", BRANCH)
            env = _env(served, Path(tmp) / "cache" / ".cache")
            paused, after, said = anyio.run(_reserve, repo, env, fake)
        finally:
            served.stop()
    return (
        "idle wait with 20% of the rate limit left, until the reset and after",
        f"{paused} requests while paused; progress said: {said[:90]!r}",
        f"after the reset, same span: {after} requests",
        paused / max(after, 1),
        "0 while paused, said so, polls after",
        paused == 0 and after > 0 and "polling pauses until" in said,
    )


async def _reserve(repo: Path, env: dict[str, str], fake: FakeGitHub) -> tuple[int, int, str]:
    said: list[str] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        if message:
            said.append(message)

    params = StdioServerParameters(command=str(MAPLE_MCP), cwd=repo, env=env)
    async with Client(params) as client:
        await client.call_tool("wait_for_comments", _wait_args(1.0))  # the first look
        reset = fake.core_window.reset
        marks: list[tuple[float, int]] = []

        async def count_until(moment: float) -> None:
            while time.time() < moment:
                await anyio.sleep(0.2)
            marks.append((time.time(), _requests(fake)))

        async with anyio.create_task_group() as group:
            began = _requests(fake)
            group.start_soon(count_until, reset - 0.5)
            group.start_soon(count_until, reset + 1.0)
            group.start_soon(count_until, reset + (reset - time.time()))
            await client.call_tool(
                "wait_for_comments",
                _wait_args(2 * (reset - time.time()) + 2),
                progress_callback=progress,
            )
    paused = marks[0][1] - began
    after = marks[2][1] - marks[1][1]
    pause_note = next((m for m in said if "polling pauses" in m), said[-1] if said else "")
    return paused, after, pause_note
