"""``maple route serve --workers N``: N uvicorn worker processes sharing one listening socket.

The parent binds the address once and hands the socket to each worker (uvicorn's own
supervisor, which restarts a worker that dies and stops them all on SIGINT or SIGTERM). Each
worker is a fresh interpreter (``spawn``) that builds the route itself, from a picklable
recipe, so it opens its own database connections and runs its own listener: a comment written
through any worker wakes the waits on every worker through the store's change signal
(PostgreSQL's ``LISTEN``/``NOTIFY``, or the file store's ledger).
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from maple_entrypoints.loopback import bounded_http

__all__ = ["BOUNDED_HTTP", "BoundedProtocol", "WorkerApp", "serve_workers"]

BoundedProtocol = bounded_http()
"""The bounded HTTP protocol (:func:`~maple_entrypoints.loopback.bounded_http`) at a name a
worker can import, since a class made inside a function cannot be sent to another process."""
BOUNDED_HTTP = f"{__name__}:BoundedProtocol"
"""``BoundedProtocol`` as the import string uvicorn's ``http`` setting takes."""

AppRecipe = Callable[[], ASGIApp]
"""Builds the route app inside a worker (a module-level function or a ``functools.partial``)."""


class WorkerApp:
    """The route app as a worker builds it on its first event (the lifespan's start).

    Pickled into every worker process before anything is built, so no connection, thread or
    lock crosses from the parent.
    """

    def __init__(self, recipe: AppRecipe) -> None:
        self._recipe = recipe
        self._app: ASGIApp | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"_recipe": self._recipe, "_app": None}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Build the app on first use, then serve every event with it."""
        if self._app is None:
            self._app = self._recipe()
        await self._app(scope, receive, send)


def _listening(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` that every worker inherits.

    ``IPPROTO_TCP`` is named so asyncio turns Nagle off on accepted connections; without it a
    small answer (a wait's last event) can wait 40 ms for a delayed ACK.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
        sock.set_inheritable(True)
    except BaseException:
        sock.close()
        raise
    return sock


def serve_workers(recipe: AppRecipe, host: str, port: int, workers: int, **uvicorn: Any) -> None:
    """Serve ``recipe``'s app on ``host:port`` in ``workers`` processes until interrupted.

    ``uvicorn`` holds the server's other settings (timeouts, the log level); every request is
    bounded as :data:`BOUNDED_HTTP` bounds it. One worker is served in this process.
    """
    from uvicorn import Config, Server
    from uvicorn.supervisors import Multiprocess

    sock = _listening(host, port)
    try:
        if workers <= 1:
            config = Config(recipe(), http=BOUNDED_HTTP, **uvicorn)
            Server(config).run(sockets=[sock])
            return
        config = Config(WorkerApp(recipe), workers=workers, http=BOUNDED_HTTP, **uvicorn)
        Multiprocess(config, sockets=[sock]).run()
    finally:
        sock.close()
