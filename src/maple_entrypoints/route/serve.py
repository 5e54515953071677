"""``maple route serve``: the route mounted under its prefix, on uvicorn.

Its options come from :func:`maple_entrypoints.bootstrap.route.route_options`.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.routing import Mount
from starlette.types import ASGIApp

from maple_entrypoints.route.app import (
    DEFAULT_BASE_PATH,
    RouteOptions,
    create_route_app,
    json_http_error,
)

__all__ = ["serve_route", "served_app"]


def served_app(options: RouteOptions, prefix: str = DEFAULT_BASE_PATH) -> Starlette:
    """An application with the route mounted at ``prefix``."""
    return Starlette(
        routes=[Mount(prefix.rstrip("/") or "/", app=create_route_app(options))],
        exception_handlers={HTTPException: json_http_error},
    )


def serve_route(options: RouteOptions, host: str, port: int, prefix: str) -> None:
    """Serve the route with uvicorn until interrupted.

    Bound to a loopback address, it answers only requests that name this machine in ``Host``
    (``localhost``, ``127.0.0.1``, ``[::1]``), so a page that rebinds its own name to this
    address cannot reach it. A request's headers must arrive within 10 s, its body within 30 s,
    and at most 256 connections are open at once
    (:func:`~maple_entrypoints.loopback.bounded_http`); an idle keep-alive connection closes
    after 5 s, and a stop waits at most 5 s for open ones.
    """
    import ipaddress

    import uvicorn
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    from maple_entrypoints.loopback import bounded_http

    app: ASGIApp = served_app(options, prefix)
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if loopback:  # a page whose name was rebound to 127.0.0.1 still says its own name
        # Starlette compares the Host's name with its brackets kept: "[::1]", not "::1".
        app = TrustedHostMiddleware(app, allowed_hosts=["localhost", "127.0.0.1", "[::1]"])
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level="warning",
        http=bounded_http(),
        timeout_keep_alive=5,
        timeout_graceful_shutdown=5,  # a connection that never finishes cannot hold up a stop
    )
