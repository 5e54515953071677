"""``maple route serve``: the route mounted under its prefix, on uvicorn.

Its options come from :func:`maple_entrypoints.bootstrap.route.route_options`.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.routing import Mount
from starlette.types import ASGIApp

from maple_entrypoints.route.app import (
    DEFAULT_BASE_PATH,
    RouteOptions,
    create_route_app,
    json_http_error,
    route_lifespan,
)

__all__ = ["guarded", "serve_route", "served_app", "served_route"]


def served_app(options: RouteOptions, prefix: str = DEFAULT_BASE_PATH) -> Starlette:
    """An application with the route mounted at ``prefix``, running the route's lifespan."""
    route = create_route_app(options)
    return Starlette(
        routes=[Mount(prefix.rstrip("/") or "/", app=route)],
        exception_handlers={HTTPException: json_http_error},
        lifespan=lambda app: route_lifespan(route),
    )


def guarded(app: ASGIApp, host: str) -> ASGIApp:
    """``app`` as served on ``host``, answering only this machine's name on a loopback address.

    Bound to loopback, the route answers only requests that name this machine in ``Host``
    (``localhost``, ``127.0.0.1``, ``[::1]``), so a page that rebinds its own name to the
    address cannot reach it.
    """
    import ipaddress

    from starlette.middleware.trustedhost import TrustedHostMiddleware

    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if loopback:  # a page whose name was rebound to 127.0.0.1 still says its own name
        # Starlette compares the Host's name with its brackets kept: "[::1]", not "::1".
        return TrustedHostMiddleware(app, allowed_hosts=["localhost", "127.0.0.1", "[::1]"])
    return app


def served_route(store: str, cwd: str, prefix: str, review_url: str | None, host: str) -> ASGIApp:
    """The route ``maple route serve`` serves, wired from the environment (in each worker)."""
    from pathlib import Path

    from maple_entrypoints.bootstrap.route import RouteStoreKind, route_options
    from maple_entrypoints.settings import load_settings

    settings = load_settings()
    options = route_options(settings, RouteStoreKind(store), Path(cwd), review_url=review_url)
    return guarded(served_app(options, prefix), host)


def serve_route(recipe: Callable[[], ASGIApp], host: str, port: int, workers: int = 1) -> None:
    """Serve the route ``recipe`` builds with uvicorn until interrupted, in ``workers`` processes.

    A request's headers must arrive within 10 s, its body within 30 s, and at most 256
    connections are open at once per worker (:func:`~maple_entrypoints.loopback.bounded_http`);
    an idle keep-alive connection closes after 5 s, and a stop waits at most 5 s for open ones.
    With more than one worker each builds the route itself (:mod:`.workers`).
    """
    from maple_entrypoints.route.workers import serve_workers

    serve_workers(
        recipe,
        host,
        port,
        workers,
        log_level="warning",
        timeout_keep_alive=5,
        timeout_graceful_shutdown=5,  # a connection that never finishes cannot hold up a stop
    )
