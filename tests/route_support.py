"""Serve a route app on loopback for a test, and talk to it with a real HTTP client."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx2 as httpx

from maple_entrypoints.route.app import RouteOptions
from maple_entrypoints.route.serve import served_app
from tests.loopback import serve_asgi


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
