"""``maple route serve``: the route mounted under its prefix, on uvicorn; and the local route.

The route's options come from the bootstrap's setups: :func:`server_options` from the route
server's (:func:`~maple_entrypoints.bootstrap.route.route_server`), :func:`local_options` from
the local checkout's, for the solo bridge and the review proxy.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.routing import Mount
from starlette.types import ASGIApp

from maple_adapters.log import ServerLog
from maple_core.ports import CommentStore
from maple_entrypoints.route.answers import bearer_token
from maple_entrypoints.route.app import (
    DEFAULT_BASE_PATH,
    RouteOptions,
    StoreResolver,
    create_route_app,
)
from maple_entrypoints.route.failures import json_http_error
from maple_entrypoints.route.refresh import GateRefreshOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_entrypoints.bootstrap.local import LocalCheckout
    from maple_entrypoints.bootstrap.route import RouteServer

__all__ = ["by_bearer_token", "local_options", "serve_route", "served_app", "server_options"]


def by_bearer_token(for_token: Callable[[str], CommentStore]) -> StoreResolver:
    """The store acting with a request's bearer token; ``None`` (401) without one."""

    def resolve(request: Request) -> CommentStore | None:
        token = bearer_token(request)
        return for_token(token) if token else None

    return resolve


def server_options(server: RouteServer) -> RouteOptions:
    """The route's options on the route server's setup."""
    stores = server.stores
    store: CommentStore | StoreResolver
    if stores is not None:
        store = by_bearer_token(stores.for_token)
    elif server.store is not None:
        store = server.store
    else:
        raise ValueError("a route server keeps comments in one store or in one per token")
    refresh = None
    if server.push_access is not None:
        refresh = GateRefreshOptions(
            push_access=server.push_access,
            store_for_token=stores.for_token if stores is not None else None,
        )
    return RouteOptions(
        store=store,
        media=server.media,
        gate=server.gate,
        refresh=refresh,
        rules=server.rules,
        clock=server.clock,
        log=server.log,
    )


def local_options(
    local: LocalCheckout, log: ServerLog, *, client_authors: bool = False
) -> RouteOptions:
    """The route over the local checkout's ``.maple/`` and its media, with no gate.

    What the solo bridge and the review proxy serve behind their guards. Authors are guests,
    unless ``client_authors`` lets the browser name its reviewer (the review proxy's one
    reviewer at this machine).
    """
    return RouteOptions(
        store=local.store,
        media=local.media,
        client_authors=client_authors,
        clock=local.clock,
        log=log,
    )


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
