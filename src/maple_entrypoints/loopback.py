"""Serving an ASGI app on 127.0.0.1: the socket, and uvicorn in a background thread.

Used by the solo bridge and ``maple review`` (and the tests' own servers).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["ThreadedServer", "listen_on_loopback", "serve_in_thread"]

_START_S = 10.0


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

    Logging is never configured (stdout may be an MCP stream). ``config`` goes to
    ``uvicorn.Config`` (timeouts, ``ssl_*``).

    Raises:
        RuntimeError: the server did not start within 10 s.
    """
    import uvicorn

    settings: dict[str, Any] = {
        "log_config": None,
        "access_log": False,
        "lifespan": "off",
        "timeout_keep_alive": 5,
        "timeout_graceful_shutdown": 1,
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
