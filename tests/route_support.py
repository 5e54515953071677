"""Serve a route app on loopback for a test, and talk to it with a real HTTP client."""

from __future__ import annotations

import gc
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2 as httpx

from maple_entrypoints.route.app import RouteOptions
from maple_entrypoints.route.serve import served_app
from tests.loopback import free_port, serve_asgi
from tests.support import MAPLE, clean_env

ROUTE_BRANCH = "feat/route"


def draft(body: str = "The header wraps at 375px.", **fields: Any) -> dict[str, Any]:
    """A comment on ``feat/route`` as the overlay posts it, with ``fields`` added or replaced."""
    return {
        "branch": ROUTE_BRANCH,
        "body": body,
        "anchor": {"selector": "h1"},
        "createdAt": "2026-01-01T12:00:00.000Z",
        **fields,
    }


@dataclass
class LiveRoute:
    """A route served by uvicorn: its mount URL and a client rooted there."""

    url: str
    client: httpx.Client


@dataclass
class Recorder:
    """ASGI middleware keeping the method, path, headers and body of every request."""

    app: Any
    seen: list[tuple[str, str, dict[str, str], bytes]] = field(default_factory=list)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body = bytearray()

        async def reading() -> Any:
            message = await receive()
            body.extend(message.get("body", b""))
            return message

        await self.app(scope, reading, send)
        headers = {k.decode(): v.decode() for k, v in scope["headers"]}
        self.seen.append((scope["method"], scope["path"], headers, bytes(body)))


@contextmanager
def live_route(
    options: RouteOptions,
    prefix: str = "/api/maple",
    wrap: Callable[[Any], Any] | None = None,
) -> Iterator[LiveRoute]:
    app = served_app(options, prefix)
    running = serve_asgi(wrap(app) if wrap else app)
    url = running.url + prefix
    client = httpx.Client(base_url=url, timeout=30)
    try:
        yield LiveRoute(url, client)
    finally:
        client.close()
        running.stop()
        gc.collect()  # close the route's idle connections to any fake GitHub at once


def eventually(check: Callable[[], Any], timeout: float = 5.0) -> Any:
    """``check()``'s first truthy answer, asked until ``timeout`` (the gate publishes after a
    write's answer is sent)."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        answer = check()
        if answer or time.monotonic() > deadline:
            return answer
        time.sleep(0.01)


@contextmanager
def route_serve(cwd: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """A real ``maple route serve args…`` on a free port, up until the block ends: its mount URL.

    ``env`` is the process's environment (default: the test's, without maple's variables).

    Raises:
        RuntimeError: it did not answer ``GET /me`` within 20 s (its stderr is in the message).
    """
    port = free_port()
    process = subprocess.Popen(
        [str(MAPLE), "route", "serve", *args, "--port", str(port)],
        cwd=cwd,
        env=env if env is not None else clean_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/api/maple"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(url + "/me", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"maple route serve did not start: {process.communicate()}")
            time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.communicate(timeout=10)
