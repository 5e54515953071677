"""Serve an ASGI app with uvicorn on a free 127.0.0.1 port, in a thread, for real HTTP clients."""

from __future__ import annotations

import random
import socket
from typing import Any

from maple_entrypoints.loopback import ThreadedServer, listen_on_loopback, serve_in_thread

Running = ThreadedServer


def free_port() -> int:
    """A port that is free now, for a server another process starts on it in a moment.

    It is drawn below Linux's ephemeral range (32768-60999), so no socket of this or another
    test run gets it from the kernel in between; only another draw could, one in 12,000.
    """
    draw = random.SystemRandom()
    for _ in range(100):
        port = draw.randrange(20_000, 32_768)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port between 20000 and 32767")


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
