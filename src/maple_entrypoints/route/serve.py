"""``maple route serve``: the route mounted under its prefix, on uvicorn; and the local route.

The route's options come from the bootstrap's setups: :func:`server_options` from the route
server's (:func:`~maple_entrypoints.bootstrap.route.route_server`), :func:`local_options` from
the local checkout's, for the solo bridge and the review proxy.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.routing import Mount
from starlette.types import ASGIApp

from maple_adapters.log import ServerLog
from maple_core.classifier_ports import FeedbackClassifier
from maple_core.ports import CommentStore
from maple_entrypoints.route.answers import bearer_token
from maple_entrypoints.route.app import (
    DEFAULT_BASE_PATH,
    RouteOptions,
    StoreResolver,
    create_route_app,
    route_lifespan,
)
from maple_entrypoints.route.failures import json_http_error
from maple_entrypoints.route.refresh import GateRefreshOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_entrypoints.bootstrap.local import LocalCheckout
    from maple_entrypoints.bootstrap.route import RouteServer

__all__ = [
    "by_bearer_token",
    "guarded",
    "local_options",
    "serve_route",
    "served_app",
    "served_route",
    "server_options",
]


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
    options = RouteOptions(
        store=store,
        media=server.media,
        gate=server.gate,
        refresh=refresh,
        rules=server.rules,
        classifier=server.classifier,
        clock=server.clock,
        log=server.log,
    )
    return options if server.sql is None else _with_mcp(options, server)


def _with_mcp(options: RouteOptions, server: RouteServer) -> RouteOptions:
    """A sql worker's options: the agent loop's tools at ``/mcp``, the database's health."""
    from maple_core.targets import GateTarget
    from maple_entrypoints.mcp_server import build_server
    from maple_entrypoints.route.mcp_http import McpEndpoint

    sql = server.sql
    assert sql is not None
    tools = build_server(
        sql.store,
        target=GateTarget(server.log, server.gate, server.rules),
        clock=server.clock,
        log=server.log,
        media=sql.media,
        task_store=sql.tasks,
    )
    endpoint = McpEndpoint(tools, sql.tokens, server.repository, server.clock)
    return dataclasses.replace(options, mcp=endpoint, health=sql.health, lifespan=sql.lifespan)


def local_options(
    local: LocalCheckout,
    log: ServerLog,
    *,
    client_authors: bool = False,
    classifier: FeedbackClassifier | None = None,
) -> RouteOptions:
    """The route over the local checkout's ``.maple/`` and its media, with no gate.

    What the solo bridge and the review proxy serve behind their guards, to the one person this
    machine paired with: their words are a trusted reviewer's (``paired``), read by
    ``classifier`` when there is one. Authors are guests, unless ``client_authors`` lets the
    browser name its reviewer (the review proxy's one reviewer at this machine).
    """
    return RouteOptions(
        store=local.store,
        media=local.media,
        client_authors=client_authors,
        paired=True,
        classifier=classifier,
        clock=local.clock,
        log=log,
    )


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

    from maple_entrypoints.bootstrap.route import route_server
    from maple_entrypoints.route_settings import route_store

    server = route_server(route_store(store), Path(cwd), review_url=review_url)
    return guarded(served_app(server_options(server), prefix), host)


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
