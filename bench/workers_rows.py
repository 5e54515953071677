"""Bench rows for the route on many workers: waking 100 waiting agents, and a wait's memory.

The deployment is ``maple route serve --store sql --workers N`` on a PostgreSQL the bench starts
(commits flushed to disk). A *waiter* is an agent's ``wait_for_comments`` long poll through the
MCP endpoint, each on a connection of its own, so the workers share them as the kernel hands
them out; a comment is written through the route's HTTP API (one worker takes it), and each
waiter's wake-up is the time from that write's answer to the waiter's answer.

A waiter speaks MCP 2026-07-28, as the official SDK's client does once ``server/discover``
finds the route modern: one self-contained request (the ``MCP-Protocol-Version`` header and the
envelope in ``_meta``). A client of the handshake era (no version header) is served by the
SDK's older stateless transport, a task, streams and a dispatcher per request; the row measures
that path too, on 4 workers, and shows it beside the anchor. The client was checked against a
trace of the route: each answer is read within a fraction of a millisecond of the worker
writing it, so the client's own loop (100 connections in one process) does not set the figure.

- Waking: 4 workers holding 100 waiters between them, against 1 worker holding 100, in the same
  run: median and p99 wake-up, and how many waiters were not woken (lost).
- Memory: one worker's resident memory while it holds 100 waits, against the same worker idle
  after it served two (so its code is loaded and its pools made), per wait.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2 as httpx

from bench.sql_rows import postgres
from contract_tests.support import make_repo
from maple_core.tokens import TokenScope
from tests.postgres import Cluster
from tests.route_processes import PREFIX, RouteProcess, issue_token

Row = tuple[str, str, str, float, str, bool]
WAITERS = 100
ROUNDS = 3
BRANCH = "feat/wake"


@contextmanager
def deployment(cluster: Cluster, workers: int) -> Iterator[tuple[RouteProcess, str]]:
    """A route of ``workers`` workers on a database of its own, and a read token for it."""
    url = cluster.create_database(f"wake_{uuid.uuid4().hex[:8]}")
    with tempfile.TemporaryDirectory(prefix="maple-bench-wake-") as tmp:
        env = {"MAPLE_DATABASE_URL": url, "MAPLE_GITHUB_OWNER": "acme", "MAPLE_GITHUB_REPO": "web"}
        route = RouteProcess(env, make_repo(Path(tmp) / "repo", "main"), workers=workers)
        try:
            route.start()
            yield route, issue_token(url, "acme/web", TokenScope.READ)
        finally:
            route.stop()


MODERN = "2026-07-28"
_ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "maple-bench", "version": "1"},
}


async def _wait(
    route: RouteProcess, token: str, cursor: str, modern: bool = True
) -> tuple[float, bool]:
    """One agent's long poll on a connection of its own: when its answer arrived, and whether
    it carried the comment.

    Spoken as plain HTTP/1.1 over a socket, and timed at the first bytes of the JSON-RPC answer,
    so the figure is the route's, not a client library's parsing of a hundred answers at once.
    ``modern``: as MCP 2026-07-28 (else as a client of the handshake era).
    """
    params: dict[str, object] = {
        "name": "wait_for_comments",
        "arguments": {"branch": BRANCH, "cursor": cursor, "timeoutMs": 30_000},
    }
    headers = ""
    if modern:
        params["_meta"] = _ENVELOPE
        headers = (
            f"MCP-Protocol-Version: {MODERN}\r\nMcp-Method: tools/call\r\n"
            "Mcp-Name: wait_for_comments\r\n"
        )
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    body = json.dumps(request).encode()
    head = (
        f"POST {PREFIX}/mcp HTTP/1.1\r\nHost: 127.0.0.1:{route.port}\r\n"
        f"Authorization: Bearer {token}\r\nAccept: application/json, text/event-stream\r\n"
        f"{headers}Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", route.port)
    try:
        writer.write(head + body)
        await writer.drain()
        received = b""
        woke = 0.0
        while b'"result"' not in received and b'"error"' not in received:
            chunk = await reader.read(65536)
            if not chunk:
                break
            if not woke and b'"jsonrpc"' in received + chunk:  # the answer itself, not headers
                woke = time.monotonic()
            received += chunk
    finally:
        writer.close()
    return woke, b'"comments":[{' in received.replace(b" ", b"")


async def _round(
    route: RouteProcess, token: str, cursor: str, modern: bool
) -> tuple[list[float], int, str]:
    """One comment waking every waiter: their wake-ups, how many saw nothing, the new cursor."""
    limits = httpx.Limits(max_connections=WAITERS + 10, max_keepalive_connections=0)
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:
        waits = [asyncio.ensure_future(_wait(route, token, cursor, modern)) for _ in range(WAITERS)]
        await asyncio.sleep(2.0)  # every wait is in and sleeping on the change signal
        posted = await client.post(
            route.url + "/comments",
            json={"branch": BRANCH, "body": "wake up", "anchor": {"kind": "page"}},
        )
        written = time.monotonic()
        posted.raise_for_status()
        results = await asyncio.gather(*waits)
    delays = [woke - written for woke, saw in results if saw]
    lost = sum(1 for _, saw in results if not saw)
    return delays, lost, str(posted.json()["receivedAt"])


def _wakeups(
    route: RouteProcess, token: str, modern: bool = True, cursor: str = "2020-01-01T00:00:00.000Z"
) -> tuple[list[float], int, str]:
    """:data:`ROUNDS` comments' wake-ups from ``cursor``, the waiters not woken, the new cursor."""
    delays: list[float] = []
    lost = 0
    for _ in range(ROUNDS):
        got, missing, cursor = asyncio.run(_round(route, token, cursor, modern))
        delays += got
        lost += missing
    return delays, lost, cursor


def _p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98] if len(values) > 1 else values[0]


def wake_row() -> Row:
    """100 waiters on 4 workers woken by one comment, against 100 on one worker.

    Beside the anchor: the same 4 workers' figures for clients of the handshake era.
    """
    with postgres() as cluster:
        with deployment(cluster, 4) as (route, token):
            spread, lost, cursor = _wakeups(route, token)
            older, older_lost, _ = _wakeups(route, token, modern=False, cursor=cursor)
        with deployment(cluster, 1) as (route, token):
            single, single_lost, _ = _wakeups(route, token)
    median, p99 = statistics.median(spread), _p99(spread)
    anchor = statistics.median(single)
    return (
        "a comment wakes 100 waiters on 4 workers (median / p99)",
        f"{median * 1000:.0f} / {p99 * 1000:.0f} ms, {lost} lost of {WAITERS * ROUNDS}",
        f"1 worker holding 100: {anchor * 1000:.0f} / {_p99(single) * 1000:.0f} ms, "
        f"{single_lost} lost; handshake-era clients on 4: {statistics.median(older) * 1000:.0f} / "
        f"{_p99(older) * 1000:.0f} ms, {older_lost} lost",
        median / anchor,
        "p99 ≤ 100 ms, 0 lost",
        p99 <= 0.100 and lost == 0 and single_lost == 0 and older_lost == 0,
    )


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


async def _held(route: RouteProcess, token: str, cursor: str, count: int) -> tuple[int, str]:
    """The worker's resident memory while it holds ``count`` waits; then they are released."""
    async with httpx.AsyncClient(timeout=60) as client:
        waits = [asyncio.ensure_future(_wait(route, token, cursor)) for _ in range(count)]
        await asyncio.sleep(3.0)
        held = _rss_kb(route.process.pid)
        posted = await client.post(
            route.url + "/comments",
            json={"branch": BRANCH, "body": "release", "anchor": {"kind": "page"}},
        )
        woken = await asyncio.gather(*waits)
    if not all(saw for _, saw in woken):
        raise SystemExit("a held wait was not woken by the release")
    return held, str(posted.json()["receivedAt"])


def memory_row() -> Row:
    """A worker's resident memory holding 100 waits, against the same worker idle, per wait."""
    with postgres() as cluster, deployment(cluster, 1) as (route, token):
        cursor = "2020-01-01T00:00:00.000Z"
        # Warm with two waits (the code, the pools, a listing), so the idle figure is a worker
        # that has served waits, but has never held many: the memory 100 cost is then counted.
        _, cursor = asyncio.run(_held(route, token, cursor, 2))
        time.sleep(2.0)
        idle = _rss_kb(route.process.pid)
        held, cursor = asyncio.run(_held(route, token, cursor, WAITERS))
    per_wait = (held - idle) / WAITERS
    return (
        "memory a held wait costs (one worker, 100 waits)",
        f"{per_wait:.0f} KB a wait ({held / 1024:.1f} MB held)",
        f"the same worker idle: {idle / 1024:.1f} MB",
        held / idle,
        "≤ 100 KB a wait",
        per_wait <= 100,
    )
