"""The route beyond one process: ``maple route serve --store sql`` on one PostgreSQL, as two
route processes (two machines) and as several workers on one port, through the official MCP
client over Streamable HTTP and through the route's HTTP API."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2 as httpx
import pytest

from contract_tests.support import make_repo
from maple_core.tokens import TokenScope
from tests.mcp_http_support import http_client
from tests.mcp_support import EVENT_S, error_text, structured
from tests.mcp_tasks_support import TaskHandle, TasksClient, call, task_get
from tests.postgres import Cluster
from tests.route_processes import RouteProcess, call_tool, issue_token
from tests.test_sql_entrypoints import run

BRANCH = "feat/team"


class Team:
    """A repository's deployment: its database URL, settings and route processes."""

    def __init__(self, postgres: Cluster, cwd: Path) -> None:
        self.database = postgres.create_database(f"team_{uuid.uuid4().hex[:8]}")
        self.repository = "acme/web"
        self.env = {
            "MAPLE_DATABASE_URL": self.database,
            "MAPLE_GITHUB_OWNER": "acme",
            "MAPLE_GITHUB_REPO": "web",
        }
        self.cwd = cwd
        self.routes: list[RouteProcess] = []

    def route(self, workers: int = 1) -> RouteProcess:
        started = RouteProcess(self.env, self.cwd, workers=workers)
        self.routes.append(started)
        return started.start()

    def token(self, scope: TokenScope) -> str:
        return issue_token(self.database, self.repository, scope)

    def stop(self) -> None:
        for route in self.routes:
            route.stop()


@pytest.fixture
def team(postgres: Cluster, tmp_path: Path) -> Iterator[Team]:
    deployed = Team(postgres, make_repo(tmp_path / "repo", "main"))
    try:
        yield deployed
    finally:
        deployed.stop()


def post_comment(route: RouteProcess, body: str) -> str:
    answer = httpx.post(
        route.url + "/comments",
        json={"branch": BRANCH, "body": body, "anchor": {"kind": "page"}},
        timeout=EVENT_S,
    )
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


pytestmark = pytest.mark.anyio


async def test_two_route_processes_share_tasks_tokens_and_comments(team: Team) -> None:
    first, second = team.route(), team.route()
    for route in (first, second):
        health = httpx.get(route.url + "/health", timeout=EVENT_S).json()
        assert (health["ok"], health["store"], health["worker"]) == (True, "sql", route.process.pid)
        assert health["database"] == {
            "reachable": True,
            "schema": health["database"]["wanted"],
            "wanted": health["database"]["wanted"],
            "notifications": True,
            "problem": None,
        }
    writer, reader = team.token(TokenScope.WRITE), team.token(TokenScope.READ)
    async with (
        http_client(first.mcp, writer, extensions=[TasksClient()]) as on_first,
        http_client(second.mcp, writer, extensions=[TasksClient()]) as on_second,
    ):
        handle = await call(on_first, "wait_for_comments", {"branch": BRANCH})  # none yet
        assert isinstance(handle, TaskHandle), handle
        task_id = handle.task["taskId"]
        assert (await task_get(on_second, task_id))["status"] == "working"
        comment_id = post_comment(second, "The header wraps at 375px.")  # through the other
        with anyio.fail_after(EVENT_S):
            while (got := await task_get(on_second, task_id))["status"] == "working":
                await anyio.sleep(0.1)
        assert got["status"] == "completed", got
        [arrived] = got["result"]["structuredContent"]["comments"]
        assert arrived["id"] == comment_id
    async with http_client(second.mcp, reader) as read_only:
        refused = await read_only.call_tool("resolve_comment", {"id": comment_id, "sha": "abc1234"})
        assert "may only read" in error_text(refused)
        listed = structured(await read_only.call_tool("list_comments", {"branch": BRANCH}))
        assert [(c["id"], c["status"]) for c in listed] == [(comment_id, "open")]
    async with http_client(first.mcp, writer) as writing:
        resolved = structured(
            await writing.call_tool("resolve_comment", {"id": comment_id, "sha": "abc1234"})
        )
        assert resolved["status"] == "resolved"


async def test_a_revoked_token_is_refused_by_every_route_process(team: Team) -> None:
    first, second = team.route(), team.route()
    secret = team.token(TokenScope.WRITE)
    async with http_client(second.mcp, secret) as client:
        structured(await client.call_tool("list_comments", {"branch": BRANCH}))
    listed = run(team.cwd, "maple", "tokens", "list", "--json", **team.env)
    [token] = json.loads(listed.stdout)
    assert run(team.cwd, "maple", "tokens", "revoke", token["id"], **team.env).returncode == 0
    for route in (first, second):
        answer = list_tools(route, secret)
        assert answer.status_code == 401
        assert "was revoked" in answer.json()["error"]
        assert secret not in answer.text
    with pytest.raises(Exception):  # noqa: B017, PT011 - the client fails on the 401, as any would
        async with http_client(first.mcp, secret) as client:
            await client.call_tool("list_comments", {"branch": BRANCH})


def list_tools(route: RouteProcess, token: str) -> httpx.Response:
    """One ``tools/list`` request to ``route``'s MCP endpoint with ``token``, as it is answered."""
    return httpx.post(
        route.mcp,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
        headers={"authorization": f"Bearer {token}", "accept": "application/json"},
        timeout=EVENT_S,
    )


def _wait(route: RouteProcess, token: str, cursor: str | None) -> dict[str, Any]:
    with httpx.Client() as client:  # a connection of its own: any worker may take it
        arguments: dict[str, Any] = {"branch": BRANCH, "timeoutMs": 20_000}
        if cursor is not None:
            arguments["cursor"] = cursor
        return call_tool(client, route.mcp, token, "wait_for_comments", arguments)


def _connections(pid: int, port: int) -> int:
    """How many open TCP connections to ``port`` (the route's) the process ``pid`` holds."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            if local_port == port and fields[3] == "01" and fields[9] in inodes:  # ESTABLISHED
                count += 1
    return count


def _holding_a_wait(route: RouteProcess, waits: int) -> int:
    """A worker holding one of the ``waits`` agents' connections, once every one is held."""
    deadline = time.monotonic() + EVENT_S
    while True:
        held = {pid: _connections(pid, route.port) for pid in route.worker_pids()}
        if sum(held.values()) >= waits:
            return max(held, key=lambda pid: held[pid])
        assert time.monotonic() < deadline, f"the waits never all arrived: {held}"
        time.sleep(0.05)


def test_no_comment_is_missed_across_workers_and_through_a_worker_killed_mid_wait(
    team: Team,
) -> None:
    route = team.route(workers=3)
    token = team.token(TokenScope.READ)
    written: list[str] = []
    agents = 6
    cursors: list[str | None] = [None] * agents
    seen: list[set[str]] = [set() for _ in range(agents)]
    killed_mid_wait = 0

    def agent(index: int, failures: list[int]) -> None:
        """One agent's wait; on a dropped connection it waits again with the same cursor."""
        for _ in range(5):
            try:
                found = _wait(route, token, cursors[index])
            except (httpx.TransportError, httpx.HTTPStatusError):
                failures.append(index)
                continue
            seen[index].update(c["id"] for c in found["comments"])
            cursors[index] = found["cursor"]
            return
        raise AssertionError(f"agent {index} never got an answer")

    for round_ in range(6):
        failures: list[int] = []
        waits = [threading.Thread(target=agent, args=(i, failures)) for i in range(agents)]
        for wait in waits:
            wait.start()
        holder = _holding_a_wait(route, agents)  # every wait is in, on one worker or another
        if round_ % 2 == 1:
            os.kill(holder, signal.SIGKILL)
        written.append(post_comment(route, f"comment {round_}"))
        for wait in waits:
            wait.join(EVENT_S)
        killed_mid_wait += len(failures)
    for index in range(agents):
        assert set(written) <= seen[index], f"agent {index} missed {set(written) - seen[index]}"
    assert killed_mid_wait, "no kill landed on a waiting worker: the test proved nothing"
    deadline = time.monotonic() + EVENT_S
    while len(route.worker_pids()) != 3:  # the killed workers are replaced
        assert time.monotonic() < deadline, route.worker_pids()
        time.sleep(0.1)


def test_the_routes_log_never_holds_a_token_or_the_databases_password(
    team: Team, postgres: Cluster
) -> None:
    password = "pw-route-9c41"  # the test cluster trusts every password; this one is a secret
    url = team.database.replace("postgresql://maple@", f"postgresql://maple:{password}@")
    team.env["MAPLE_DATABASE_URL"] = url
    good = team.route()
    secret = team.token(TokenScope.READ)
    forged = "maple_" + "f" * 43
    broken = RouteProcess(
        {**team.env, "MAPLE_DATABASE_URL": url.replace("/team_", "/missing_")},
        team.cwd,
        migrate=False,
    )
    team.routes.append(broken)
    broken.start(healthy=False)
    for route in (good, broken):
        for token in (secret, forged):
            answer = list_tools(route, token)
            assert token not in answer.text
            assert password not in answer.text
        assert password not in httpx.get(route.url + "/health", timeout=EVENT_S).text
    logs = good.stop() + broken.stop()
    assert "could not be used" in logs  # the broken route did log its database's failure
    for said in (secret, forged, password):
        assert said not in logs
