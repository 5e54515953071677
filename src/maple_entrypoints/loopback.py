"""Serving an ASGI app: the loopback socket, uvicorn in a thread, and every server's bounds.

Used by the solo bridge, ``maple review`` and ``maple route serve`` (and the tests' own servers).
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "HEADER_DEADLINE_S",
    "MAX_CONNECTIONS",
    "ThreadedServer",
    "bounded_http",
    "listen_on_loopback",
    "serve_in_thread",
]

_START_S = 10.0

HEADER_DEADLINE_S = 10.0
"""How long a request's headers may take to arrive, from its first byte (or the connection)."""

MAX_CONNECTIONS = 256
"""The most connections a server keeps open at once; one more is answered 503 and closed."""

_BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\ncontent-length: 29\r\n\r\nToo many connections; retry.\n"
)


def bounded_http(
    header_deadline: float = HEADER_DEADLINE_S, max_connections: int = MAX_CONNECTIONS
) -> type[asyncio.Protocol]:
    """The h11 HTTP protocol of uvicorn with two bounds, for ``uvicorn.Config(http=...)``.

    uvicorn closes an idle keep-alive connection, but a client that sends a header byte every
    few seconds (or nothing at all) keeps its connection, and its file descriptor, forever.
    Here every request's headers must be complete within ``header_deadline`` seconds of the
    connection or of the request's first byte, or the connection is closed; and a connection
    made while ``max_connections`` are open (websockets included) is answered 503 and closed.
    """
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class BoundedH11Protocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                transport.write(_BUSY)
                transport.close()  # connection_lost forgets it
                return
            self._deadline = self.loop.call_later(header_deadline, self._headers_too_slow)

        def data_received(self, data: bytes) -> None:
            if self._deadline is None and self.conn.their_state is h11.IDLE:
                self._deadline = self.loop.call_later(header_deadline, self._headers_too_slow)
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:  # the headers are in (or it failed)
                self._cancel_deadline()

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel_deadline()
            super().connection_lost(exc)

        def _cancel_deadline(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _headers_too_slow(self) -> None:
            self._deadline = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

    return BoundedH11Protocol


def listen_on_loopback(port: int = 0) -> socket.socket:
    """A listening TCP socket on 127.0.0.1 (``port`` 0: a free one).

    ``IPPROTO_TCP`` is named so asyncio turns Nagle off on accepted connections; without it a
    small response waits 40 ms for a delayed ACK.

    Raises:
        OSError: the port is taken or not allowed.
        OverflowError: the port is out of range.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind(("127.0.0.1", port))
        sock.listen(64)
    except (OSError, OverflowError):
        sock.close()
        raise
    return sock


@dataclass
class ThreadedServer:
    """A running server: its address, port, and how to stop it."""

    url: str
    port: int
    stop: Callable[[], None]


def serve_in_thread(
    app: Any,
    sock: socket.socket,
    *,
    scheme: str = "http",
    name: str = "maple-server",
    **config: Any,
) -> ThreadedServer:
    """Serve ``app`` on ``sock`` with uvicorn in a daemon thread until ``stop()``.

    Logging is never configured (stdout may be an MCP stream). The server keeps
    :func:`bounded_http`'s bounds unless ``config`` names another ``http``; ``config`` goes to
    ``uvicorn.Config`` (timeouts, ``ssl_*``).

    Raises:
        RuntimeError: the server did not start within 10 s.
    """
    import uvicorn

    settings: dict[str, Any] = {
        "log_config": None,
        "access_log": False,
        "lifespan": "auto",  # an app that holds connections (the review proxy) closes them
        "timeout_keep_alive": 5,
        "timeout_graceful_shutdown": 1,
        "http": bounded_http(),
        **config,
    }
    server = uvicorn.Server(uvicorn.Config(app, **settings))
    port = int(sock.getsockname()[1])
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name=f"{name}-{port}", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + _START_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            sock.close()
            raise RuntimeError(f"{name} on 127.0.0.1:{port} did not start.")
        time.sleep(0.005)

    def stop() -> None:
        server.should_exit = True
        thread.join(timeout=3)
        if thread.is_alive():  # idle keep-alive connections: stop waiting for them
            server.force_exit = True
            thread.join(timeout=3)
        sock.close()

    return ThreadedServer(f"{scheme}://127.0.0.1:{port}", port, stop)
