"""Serve an ASGI app with uvicorn on a free 127.0.0.1 port, in a thread, for real HTTP clients."""

from __future__ import annotations

import socket
from typing import Any

from maple_entrypoints.loopback import ThreadedServer, listen_on_loopback, serve_in_thread

Running = ThreadedServer


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def serve_asgi(app: Any, scheme: str = "http", **tls: Any) -> Running:
    """Run ``app`` on loopback until ``stop()``: plain HTTP, or HTTPS given uvicorn's ``ssl_*``."""
    running: Running = serve_in_thread(
        app,
        listen_on_loopback(),
        scheme=scheme,
        name="test-server",
        timeout_keep_alive=1,
        timeout_graceful_shutdown=2,
        **tls,
    )
    return running
