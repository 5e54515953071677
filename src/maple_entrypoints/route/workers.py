"""``maple route serve --workers N``: N uvicorn worker processes sharing one listening socket.

The parent binds the address once and hands the socket to each worker (uvicorn's own
supervisor, which restarts a worker that dies and stops them all on SIGINT or SIGTERM). Each
worker is a fresh interpreter (``spawn``) that builds the route itself, from a picklable
recipe, so it opens its own database connections and runs its own listener: a comment written
through any worker wakes the waits on every worker through the store's change signal
(PostgreSQL's ``LISTEN``/``NOTIFY``, or the file store's ledger).
"""

from __future__ import annotations

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


def serve_workers(recipe: AppRecipe, host: str, port: int, workers: int, **uvicorn: Any) -> None:
    """Serve ``recipe``'s app on ``host:port`` in ``workers`` processes until interrupted.

    ``uvicorn`` holds the server's other settings (timeouts, the log level), the same as a
    single process is served with; every request is bounded as :data:`BOUNDED_HTTP` bounds it.
    """
    from uvicorn import Config
    from uvicorn.supervisors import Multiprocess

    config = Config(
        WorkerApp(recipe), host=host, port=port, workers=workers, http=BOUNDED_HTTP, **uvicorn
    )
    socket = config.bind_socket()
    try:
        Multiprocess(config, sockets=[socket]).run()
    finally:
        socket.close()
