"""Bounded resources: every attack here is driven through a public face and must stay bounded.

``maple route serve`` and the loopback servers close a connection whose request headers are not
complete within a deadline, and cap concurrent connections; ``start_solo`` keeps a bounded number
of bridges; pending waits do not starve the other tools; ``maple-mcp`` exits promptly on SIGTERM,
and its agents (and everything they started) die with it, even when it is SIGKILLed.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from contract_tests.agent_peers import fake_agents_env, fake_peer, process_alive
from contract_tests.support import make_repo
from maple_adapters.agents.claude_provider import ClaudeProvider
from maple_core.agents import AgentState
from maple_entrypoints.loopback import (
    HEADER_DEADLINE_S,
    MAX_CONNECTIONS,
    bounded_http,
    listen_on_loopback,
    serve_in_thread,
)
from maple_entrypoints.solo import start_bridge
from maple_entrypoints.solo_bridges import MAX_BRIDGES
from tests.mcp_support import error_text, structured
from tests.route_support import route_serve
from tests.support import MAPLE_MCP, clean_env

BRANCH = "feat/bounds"
PARTIAL = b"GET /api/maple/me HTTP/1.1\r\n"


def wait_until(check: Callable[[], bool], timeout: float, step: float = 0.05) -> bool:
    """Poll ``check`` until it holds or ``timeout`` seconds pass; its last answer."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return check()
        time.sleep(step)
    return True


@contextlib.contextmanager
def route_serve_port(repo: Path) -> Iterator[int]:
    """A real ``maple route serve`` process on a free port, until the block ends: the port."""
    with route_serve(repo, "--store", "file") as url:
        yield int(url.split(":")[2].split("/")[0])


def connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def closed_by_peer(sock: socket.socket) -> bool:
    """True once the server closed ``sock`` (EOF or reset); never blocks."""
    sock.setblocking(False)
    try:
        return sock.recv(65536) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        sock.setblocking(True)


def get_me(sock: socket.socket) -> int:
    """Send a whole request for ``/me`` on ``sock`` and return the answer's status."""
    sock.sendall(PARTIAL + b"Host: 127.0.0.1\r\n\r\n")
    return status_of(sock)


def status_of(sock: socket.socket) -> int:
    """Read one whole answer (its body sized by ``content-length``); its status, 0 on EOF."""
    sock.settimeout(10)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            return 0
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    length = next(
        (
            int(line.split(b":", 1)[1])
            for line in head.lower().split(b"\r\n")
            if line.startswith(b"content-length:")
        ),
        0,
    )
    while len(body) < length:
        chunk = sock.recv(4096)
        if not chunk:
            break
        body += chunk
    return int(head.split(b" ", 2)[1])


def refused_at_once(sock: socket.socket) -> bool:
    """True when the server closes ``sock`` (or answers 503) within 5 s without a request."""
    sock.settimeout(5)
    try:
        answer = sock.recv(4096)
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return answer == b"" or answer.startswith(b"HTTP/1.1 503")


@dataclass
class Attack:
    """A connection that keeps its request's headers from ever completing."""

    name: str
    sock: socket.socket
    started: float
    dribble: bool
    closed_after: float | None = None


def slow_attacks(port: int) -> list[Attack]:
    """Slow headers three ways: a silent connection, a dribbling one, a dribbling second request."""
    silent = Attack("silent", connect(port), time.monotonic(), dribble=False)
    dribbling = Attack("dribbling", connect(port), time.monotonic(), dribble=True)
    dribbling.sock.sendall(PARTIAL)
    second = connect(port)
    assert get_me(second) == 200
    second.sendall(b"G")  # within the keep-alive window: the next request has begun
    after_answer = Attack("second request", second, time.monotonic(), dribble=True)
    return [silent, dribbling, after_answer]


def watch(attacks: list[Attack], timeout: float, healthy: Callable[[], bool]) -> None:
    """Dribble a byte on each dribbling attack every half second until each is closed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(a.closed_after is None for a in attacks):
        for attack in attacks:
            if attack.closed_after is not None:
                continue
            gone = closed_by_peer(attack.sock)
            if not gone and attack.dribble:
                try:
                    attack.sock.send(b"X")  # one byte of a header line that never ends
                except OSError:
                    gone = True
            if gone:
                attack.closed_after = time.monotonic() - attack.started
        assert healthy(), "a slow connection kept a healthy request from being answered"
        time.sleep(0.5)


def test_a_slow_header_connection_is_closed_within_the_deadline(repo: Path) -> None:
    bridge = start_bridge("https://feat-x.preview.example", cwd=repo)
    bridge_port = int(bridge.url.rsplit(":", 1)[1])
    try:
        with route_serve_port(repo) as port:
            attacks = [*slow_attacks(port)]
            bridge_attack = Attack("bridge", connect(bridge_port), time.monotonic(), True)
            bridge_attack.sock.sendall(b"GET / HTTP/1.1\r\n")
            attacks.append(bridge_attack)

            def healthy() -> bool:
                with connect(port) as fresh:
                    return get_me(fresh) == 200

            watch(attacks, HEADER_DEADLINE_S + 15, healthy)
    finally:
        bridge.stop()
    for attack in attacks:
        attack.sock.close()
    for attack in attacks:
        assert attack.closed_after is not None, f"the {attack.name} connection is still open"
        assert HEADER_DEADLINE_S - 1 <= attack.closed_after <= HEADER_DEADLINE_S + 8, attack


def test_maple_route_serve_caps_concurrent_connections(repo: Path) -> None:
    with route_serve_port(repo) as port:
        held = [connect(port) for _ in range(MAX_CONNECTIONS)]
        try:
            for sock in held:
                sock.sendall(PARTIAL)  # each is a request in progress
            with connect(port) as over:
                assert refused_at_once(over)
            assert not any(closed_by_peer(s) for s in held)
            held[0].sendall(b"Host: 127.0.0.1\r\n\r\n")
            assert status_of(held[0]) == 200  # the connections under the cap are served
            for sock in held[1:11]:
                sock.close()

            def served_again() -> bool:
                with connect(port) as fresh:
                    try:
                        return get_me(fresh) == 200
                    except OSError:
                        return False

            assert wait_until(served_again, 10, step=0.2)
        finally:
            for sock in held:
                sock.close()


def test_the_loopback_server_applies_the_same_bounds() -> None:
    async def hello(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"hi"})

    running = serve_in_thread(
        hello, listen_on_loopback(), http=bounded_http(header_deadline=1.0, max_connections=3)
    )
    slow = [connect(running.port) for _ in range(3)]
    try:
        with connect(running.port) as over:
            assert refused_at_once(over)
        started = time.monotonic()
        assert wait_until(lambda: all(closed_by_peer(s) for s in slow), 6)
        assert 0.5 <= time.monotonic() - started <= 6
        with connect(running.port) as fresh:
            fresh.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            assert status_of(fresh) == 200
    finally:
        for sock in slow:
            sock.close()
        running.stop()


# --- maple-mcp -------------------------------------------------------------------------------


def fake_agents(tmp: Path, scenario: list[list[dict[str, Any]]]) -> dict[str, str]:
    """The fake ``codex`` and ``claude`` first on ``PATH``, both enabled, playing ``scenario``."""
    env = fake_agents_env(tmp)
    (tmp / "script.json").write_text(json.dumps(scenario))
    return {**env, "MAPLE_AGENTS": "codex,claude"}


@dataclass
class Served:
    """A connected client of a real ``maple-mcp`` and the server's process id."""

    client: Client
    pid: int


@asynccontextmanager
async def maple_mcp(cwd: Path, **env: str) -> AsyncIterator[Served]:
    """``maple-mcp`` started through ``sh``, which writes its pid, then becomes it (``exec``)."""
    pid_file = cwd / "maple-mcp.pid"
    params = StdioServerParameters(
        command="/bin/sh",
        args=["-c", f'echo $$ > "{pid_file}"; exec "{MAPLE_MCP}"'],
        cwd=cwd,
        env=clean_env(**env),
    )
    async with Client(params) as client:
        yield Served(client, int(pid_file.read_text()))


async def call_quietly(client: Client, tool: str, arguments: dict[str, Any]) -> None:
    """A tool call whose server may be killed under it."""
    with contextlib.suppress(MCPError):
        await client.call_tool(tool, arguments)


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
        return int(handle.read().rsplit(") ", 1)[1].split()[1])


async def sleepers(tmp: Path, count: int) -> list[int]:
    """The pids of the long commands the agents started, once ``count`` of them run."""
    pids = tmp / "pids.txt"
    with anyio.fail_after(30):
        while not pids.exists() or len(pids.read_text().split()) < count:
            await anyio.sleep(0.05)
    found = [int(p) for p in pids.read_text().split()]
    assert all(process_alive(p) for p in found)
    return found


def gone_within(pids: list[int], timeout: float) -> list[int]:
    """The processes of ``pids`` still alive after ``timeout`` seconds of waiting for them."""
    wait_until(lambda: not any(process_alive(p) for p in pids), timeout)
    return [p for p in pids if process_alive(p)]


@pytest.mark.anyio
async def test_start_solo_keeps_a_bounded_number_of_bridges(repo: Path) -> None:
    async with maple_mcp(repo, MAPLE_STORE="file") as served:
        client = served.client
        bridges = set()
        for n in range(MAX_BRIDGES):
            started = structured(
                await client.call_tool("start_solo", {"previewUrl": f"https://p{n}.example/"})
            )
            bridges.add(started["bridge"])
        assert len(bridges) == MAX_BRIDGES
        for n in range(MAX_BRIDGES, MAX_BRIDGES + 3):
            refused = error_text(
                await client.call_tool("start_solo", {"previewUrl": f"https://p{n}.example/"})
            )
            assert f"{MAX_BRIDGES} solo bridges" in refused
            assert "restart" in refused
        again = structured(
            await client.call_tool("start_solo", {"previewUrl": "https://p0.example/x"})
        )
        assert again["bridge"] in bridges  # an origin already paired still pairs


@pytest.mark.anyio
async def test_list_comments_answers_while_120_waits_are_pending(repo: Path) -> None:
    # No clock threshold (speed is measured in bench/): the waits last 40 s, so a server whose
    # pending waits held its workers would answer a list only once they had ended.
    far = "2999-01-01T00:00:00.000Z"
    finished: list[Any] = []
    async with maple_mcp(repo, MAPLE_STORE="file") as served:
        client = served.client

        async def wait(n: int) -> None:
            arguments = {"branch": f"{BRANCH}-{n % 3}", "cursor": far, "timeoutMs": 40_000}
            finished.append(await client.call_tool("wait_for_comments", arguments))

        async with anyio.create_task_group() as waits:
            for n in range(120):
                waits.start_soon(wait, n)
            for _ in range(8):
                await anyio.sleep(0.4)
                listed = await client.call_tool("list_comments", {"branch": BRANCH})
                assert structured(listed) == []
                assert finished == [], "a list was answered only once the waits had ended"
            waits.cancel_scope.cancel()


@pytest.mark.anyio
@pytest.mark.parametrize("agents", ["none", "configured", "foreground", "background"])
async def test_maple_mcp_exits_within_10s_of_sigterm(tmp_path: Path, agents: str) -> None:
    project = make_repo(tmp_path / "project", BRANCH)
    env = fake_agents(tmp_path, [[{"sleep": 120}]])
    if agents == "none":
        env.pop("MAPLE_AGENTS")
    running: list[int] = []
    async with maple_mcp(project, **env) as served, anyio.create_task_group() as calls:
        client = served.client
        if agents in ("foreground", "background"):
            calls.start_soon(
                call_quietly,
                client,
                "agent_start",
                {"provider": "codex", "prompt": "Wait.", "background": agents == "background"},
            )
            running = await sleepers(tmp_path, 1)
            running.append(parent_of(running[0]))  # the agent itself
        else:
            assert structured(await client.call_tool("list_comments", {"branch": BRANCH})) == []
        os.kill(served.pid, signal.SIGTERM)
        started = time.monotonic()
        while process_alive(served.pid) and time.monotonic() - started < 10:
            await anyio.sleep(0.05)
        assert not process_alive(served.pid), "maple-mcp still runs 10 s after SIGTERM"
        calls.cancel_scope.cancel()
    assert gone_within(running, 10) == []


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["foreground", "background"])
async def test_agents_die_when_maple_mcp_is_sigkilled(tmp_path: Path, mode: str) -> None:
    project = make_repo(tmp_path / "project", BRANCH)
    env = fake_agents(tmp_path, [[{"sleep": 120}]])
    async with maple_mcp(project, **env) as served, anyio.create_task_group() as calls:
        for provider in ("codex", "claude"):
            calls.start_soon(
                call_quietly,
                served.client,
                "agent_start",
                {"provider": provider, "prompt": "Wait.", "background": mode == "background"},
            )
        commands = await sleepers(tmp_path, 2)
        agents = [parent_of(p) for p in commands]
        assert all(parent_of(a) == served.pid for a in agents)
        os.kill(served.pid, signal.SIGKILL)
        left = await anyio.to_thread.run_sync(gone_within, commands + agents, 15)
        calls.cancel_scope.cancel()
    assert left == [], "an agent or a command it started outlived a SIGKILLed maple-mcp"


def processes_naming(path: Path) -> list[int]:
    """The processes whose command line names ``path`` (an agent, or its watchdog)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if entry.name.isdigit() and str(path).encode() in argv and process_alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def test_an_agents_watchdog_leaves_with_it(tmp_path: Path) -> None:
    peer = fake_peer("claude", tmp_path)
    peer.install([[{"say": "Done."}]])
    session = peer.provider.start("claude-1", "Go.", str(peer.workspace))
    try:
        assert session.wait(20).state is AgentState.IDLE  # its process ends with the turn
        claude = tmp_path / "bin" / "claude"
        assert wait_until(lambda: not processes_naming(claude), 5), processes_naming(claude)
    finally:
        session.close()
    missing = tmp_path / "missing"
    failed = ClaudeProvider(str(missing), hidden=()).start("claude-2", "Go.", str(peer.workspace))
    assert "could not start (No such file or directory)" in (failed.snapshot().error or "")
    assert wait_until(lambda: not processes_naming(missing), 5), processes_naming(missing)
