"""Serve an ASGI app with uvicorn on a free 127.0.0.1 port, in a thread, for real HTTP clients."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import uvicorn


@dataclass
class Running:
    url: str
    port: int
    stop: Callable[[], None]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def serve_asgi(app: Any, scheme: str = "http", **tls: Any) -> Running:
    """Run ``app`` on loopback until ``stop()``: plain HTTP, or HTTPS given uvicorn's ``ssl_*``."""
    port = free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="error",
        lifespan="off",
        timeout_keep_alive=1,
        timeout_graceful_shutdown=2,
        **tls,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the app did not start")
        time.sleep(0.01)

    def stop() -> None:
        server.should_exit = True
        thread.join(timeout=3)
        if thread.is_alive():
            server.force_exit = True
            thread.join(timeout=3)

    return Running(f"{scheme}://127.0.0.1:{port}", port, stop)
