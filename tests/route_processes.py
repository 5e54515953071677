"""``maple route serve --store sql`` as real processes (one or many workers), for tests and bench.

Each process is the installed ``maple`` command, on a free loopback port, reading its settings
from the environment as a deployment does; :meth:`RouteProcess.start` returns once its health
endpoint answers. ``call_tool`` speaks MCP's JSON-RPC to the endpoint over plain HTTP (one
request, its answer read from the event stream), for tests that need many calls at once or a
connection of their own each; the official client is used wherever one call at a time will do.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx2 as httpx

from maple_adapters.sql import Database, SqlTokenStore
from maple_adapters.system import SystemClock
from maple_core.tokens import TokenScope
from tests.loopback import free_port
from tests.mcp_support import EVENT_S, clean_env

MAPLE = Path(sys.executable).with_name("maple")
PREFIX = "/api/maple"

__all__ = ["PREFIX", "RouteProcess", "call_tool", "issue_token", "sse_result"]


def issue_token(url: str, repository: str, scope: TokenScope) -> str:
    """A new token's secret, issued straight into the database at ``url``."""
    database = Database(url)
    try:
        expires = datetime.now(UTC) + timedelta(days=1)
        return SqlTokenStore(database, SystemClock()).issue(repository, scope, expires).secret
    finally:
        database.close()


class RouteProcess:
    """One ``maple route serve --store sql`` process (a supervisor, with ``workers`` > 1)."""

    def __init__(
        self, env: dict[str, str], cwd: Path, *, workers: int = 1, migrate: bool = True
    ) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.url = self.base + PREFIX
        self.mcp = self.url + "/mcp"
        args = ["route", "serve", "--store", "sql", "--port", str(self.port)]
        if migrate:
            args.append("--migrate")
        if workers > 1:
            args += ["--workers", str(workers)]
        self.process = subprocess.Popen(
            [str(MAPLE), *args],
            cwd=cwd,
            env=clean_env(**env),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.workers = workers

    def start(self, *, healthy: bool = True) -> RouteProcess:
        """Wait until every worker serves (the health endpoint answers, 200 when ``healthy``)."""
        deadline = time.monotonic() + EVENT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"maple route serve exited: {self.process.stderr.read()}")  # type: ignore[union-attr]
            if len(self.worker_pids()) >= self.workers or self.workers == 1:
                try:
                    status = httpx.get(self.url + "/health", timeout=5).status_code
                    if status == 200 or (status == 503 and not healthy):
                        return self
                except httpx.TransportError:
                    pass
            time.sleep(0.05)
        raise RuntimeError("maple route serve did not answer in time")

    def worker_pids(self) -> list[int]:
        """The worker processes serving (the process itself with one worker)."""
        if self.workers == 1:
            return [self.process.pid]
        children: list[int] = []
        for task in Path(f"/proc/{self.process.pid}/task").glob("*"):
            try:
                children += [int(p) for p in (task / "children").read_text().split()]
            except OSError:
                continue
        return [pid for pid in children if "spawn_main" in _cmdline(pid)]

    def stop(self) -> str:
        """Stop it as a deployment would (SIGTERM), killing it if it does not end in time; what
        it wrote on stderr (its log)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        said = ""
        if self.process.stderr is not None and not self.process.stderr.closed:
            said = self.process.stderr.read()
            self.process.stderr.close()
        return said


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def sse_result(answer: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC answer an MCP endpoint sent, as an event stream or as plain JSON."""
    if answer.headers.get("content-type", "").startswith("application/json"):
        return dict(answer.json())
    for line in answer.text.splitlines():
        if line.startswith("data:"):
            message = json.loads(line[5:])
            if "result" in message or "error" in message:
                return dict(message)
    raise AssertionError(f"no JSON-RPC answer in {answer.text[:200]!r}")


def call_tool(
    client: httpx.Client, url: str, token: str, name: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    """``tools/call`` over one HTTP request; the tool's structured result (or its error)."""
    body = {
        "jsonrpc": "2.0",
        "id": int.from_bytes(os.urandom(4), "big"),
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    headers = {
        "authorization": f"Bearer {token}",
        "accept": "application/json, text/event-stream",
    }
    answer = client.post(url, json=body, headers=headers, timeout=120)
    answer.raise_for_status()
    message = sse_result(answer)
    if "error" in message:
        raise RuntimeError(message["error"])
    result = message["result"]
    if result.get("isError"):
        raise RuntimeError(result["content"][0]["text"])
    return dict(result["structuredContent"])
