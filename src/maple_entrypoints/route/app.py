"""Maple's route as an ASGI app: what overlays and agents talk to, mountable under any prefix.

::

    from fastapi import FastAPI
    from maple import RouteOptions, create_route_app

    app = FastAPI()
    app.mount("/api/maple", create_route_app(RouteOptions(store=my_store)))

Endpoints (paths under the mount): ``GET``/``POST /comments``, ``PATCH``/``DELETE /comments/{id}``,
``POST /comments/{id}/thread``
(a reply, a reopening or a confirmation in the comment's thread),
``POST /comments/{id}/classification/undo`` (undo what maple understood from a reply),
``POST /comments/{id}/claim`` (an agent's claim or release, ours) and ``POST /claims`` (a
session's claims on a branch, renewed or ended at once), ``POST /media``,
``GET /media/{key}``, ``GET``/``POST /approvals``, ``DELETE /approvals/{id}``,
``GET /me``, ``GET /health`` and ``POST /gate/refresh``; and, with an MCP endpoint, ``/mcp``
(the agent loop's tools over Streamable HTTP, see ``route.mcp_http``). Every answer is JSON with
``cache-control: no-store`` except a media blob and the MCP endpoint's streams.

The app's lifespan starts what the options need (the database's listener, the MCP endpoint's
session manager); an application mounting the route runs it with ``route_lifespan(app)``.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from maple_adapters.log import ServerLog
from maple_adapters.system import SystemClock
from maple_core.authors import Reviewer
from maple_core.classifier_ports import FeedbackClassifier
from maple_core.errors import MapleError
from maple_core.gate_ports import GatePublisher
from maple_core.gate_rules import DEFAULT_RULES, GateRules
from maple_core.json_types import JsonObject
from maple_core.ports import Clock, CommentStore
from maple_core.storage_ports import MediaStore
from maple_entrypoints.route.answers import (
    RouteRefusalError,
    json_answer,
    read_json,
)
from maple_entrypoints.route.approval_handlers import ApprovalHandlers
from maple_entrypoints.route.claim_handlers import ClaimHandlers
from maple_entrypoints.route.comment_handlers import CommentHandlers
from maple_entrypoints.route.failures import Failures, Unexpected, json_http_error
from maple_entrypoints.route.feedback import trust_of
from maple_entrypoints.route.handling import off_loop
from maple_entrypoints.route.media_handlers import MediaHandlers
from maple_entrypoints.route.refresh import GateRefreshOptions, refresh_gate
from maple_entrypoints.route.status_handlers import StatusHandlers

TYPE_CHECKING = False
if TYPE_CHECKING:  # the MCP SDK loads only for a route that serves the endpoint
    from maple_entrypoints.route.mcp_http import McpEndpoint

__all__ = [
    "DEFAULT_BASE_PATH",
    "IdentityResolver",
    "RouteOptions",
    "StoreResolver",
    "create_route_app",
    "route_lifespan",
]

DEFAULT_BASE_PATH = "/api/maple"
"""Where Maple's overlay expects the route."""

StoreResolver = Callable[[Request], CommentStore | None]
"""Chooses the store for one request (a per-reviewer credential means a per-reviewer store)."""

IdentityResolver = Callable[[Request], Reviewer | None]
"""Names the reviewer behind a request, or ``None`` for a guest."""

HealthCheck = Callable[[], tuple[bool, JsonObject]]
"""Says whether the route's parts are usable, and what it found (``GET /health``)."""


@dataclass(frozen=True)
class RouteOptions:
    """What the route is wired to.

    Attributes:
        store: where comments live: one store, or a function choosing one per request.
        media: where screenshots go; without one, media requests answer 404.
        identity: names the reviewer; without one, comments are the guest's and nobody can
            approve.
        gate: where the verdict is published after a new comment, a status change or an
            approval, and what ``/gate/refresh`` publishes with.
        refresh: turns ``POST /gate/refresh`` on for one repository.
        rules: what the gate holds a pull request to: approval, confirmation (only a store that
            keeps threads records one), and where reviewers look at the preview, the check
            run's details link (without it the check run has no link, never one built from a
            request's ``Host``).
        client_authors: a caller without an identity may name itself as a comment's author,
            and edit or delete its own open comments (see ``route.authorship``); for a route
            serving one person, as ``maple review``'s does.
        paired: every caller is the one person this machine paired with (the solo bridge, the
            review proxy), so their words are a trusted reviewer's, as an identified
            reviewer's are (see ``route.feedback``).
        classifier: reads a trusted reviewer's reply on a resolved comment into an outcome that
            confirms, reopens or leaves it (``MAPLE_CLASSIFIER``), after the answer is sent;
            without one, replies are only words.
        clock: stamps resolutions and approvals.
        log: where failures are recorded (never a token).
        mcp: the MCP endpoint served at ``/mcp`` for agents elsewhere, and who may call it.
        health: what ``GET /health`` checks (the database); without one it answers ok.
        lifespan: started with the app and stopped with it (the database's listener).
        max_json_bytes: the largest JSON body accepted.
        max_media_bytes: the largest screenshot accepted.
    """

    store: CommentStore | StoreResolver
    media: MediaStore | None = None
    identity: IdentityResolver | None = None
    gate: GatePublisher | None = None
    refresh: GateRefreshOptions | None = None
    rules: GateRules = DEFAULT_RULES
    client_authors: bool = False
    paired: bool = False
    classifier: FeedbackClassifier | None = None
    clock: Clock = field(default_factory=SystemClock)
    log: ServerLog = field(default_factory=lambda: ServerLog("maple-route"))
    max_json_bytes: int = 2 * 1024 * 1024
    max_media_bytes: int = 10 * 1024 * 1024
    mcp: McpEndpoint | None = None
    health: HealthCheck | None = None
    lifespan: Callable[[], AbstractAsyncContextManager[None]] | None = None


class _Route(CommentHandlers, StatusHandlers, ClaimHandlers, MediaHandlers, ApprovalHandlers):
    """Every handler of the route, over its options."""

    async def patch_comment(self, request: Request) -> Response:
        """A status change (Maple's PATCH), or with ``body`` and no ``status``, an edit."""
        posted = await read_json(request, self.options.max_json_bytes)
        if isinstance(posted, dict) and "body" in posted and "status" not in posted:
            return await self.edit_comment(request, posted["body"])
        return await self.set_status(request, posted)

    async def me(self, request: Request) -> Response:
        reviewer = self.reviewer(request)
        return json_answer(
            {
                "user": reviewer.to_json() if reviewer is not None else None,
                "media": self.options.media is not None,
                "approval": {"required": self.options.rules.require_approval},
                "confirmation": {"required": self.options.rules.require_confirmation},
                "reading": {
                    "harness": self.options.classifier.name if self.options.classifier else None,
                    "trusted": trust_of(reviewer, paired=self.options.paired) is not None,
                },
            }
        )

    async def health(self, request: Request) -> Response:
        """``GET /health``: 200 when the route's parts are usable, 503 with what is not."""
        check = self.options.health
        ok, found = await off_loop(check) if check is not None else (True, {})
        body: JsonObject = {"ok": ok, "worker": os.getpid(), **found}
        return json_answer(body, 200 if ok else 503)

    async def gate_refresh(self, request: Request) -> Response:
        refresh = self.options.refresh
        if refresh is None:
            raise RouteRefusalError(404, "Not found")
        if request.method != "POST":
            raise RouteRefusalError(405, "Method not allowed")
        return await refresh_gate(
            refresh,
            request,
            gate=self.options.gate,
            fallback_store=self.store_for,
            rules=self.options.rules,
            limit=self.options.max_json_bytes,
            now=self.options.clock.now(),
        )


_ANY = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def create_route_app(options: RouteOptions) -> Starlette:
    """The route as a Starlette app; mount it at ``/api/maple`` (or any prefix) in your app.

    A mounted app's lifespan is not run by Starlette: run :func:`route_lifespan` in yours.
    """
    route = _Route(options)

    failures = Failures(options.log)

    def at(path: str, handler: Callable[[Request], Awaitable[Response]], *methods: str) -> Route:
        return Route(path, handler, methods=list(methods) or _ANY)

    parts: list[Callable[[], AbstractAsyncContextManager[object]]] = []
    if options.lifespan is not None:
        parts.append(options.lifespan)
    extra: list[Route] = []
    if options.mcp is not None:
        from maple_entrypoints.route.mcp_http import mcp_endpoint

        served, manager = mcp_endpoint(options.mcp)
        extra.append(Route("/mcp", served))
        parts.append(manager.run)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for part in parts:
                await stack.enter_async_context(part())
            yield

    return Starlette(
        lifespan=lifespan,
        routes=[
            *extra,
            at("/comments", route.comments),
            at("/comments/{id}", route.patch_comment, "PATCH"),
            at("/comments/{id}", route.delete_comment, "DELETE"),
            at("/comments/{id}/thread", route.thread, "POST"),
            at("/comments/{id}/classification/undo", route.undo, "POST"),
            at("/comments/{id}/claim", route.claim, "POST"),
            at("/claims", route.sweep_claims, "POST"),
            at("/media", route.put_media, "POST"),
            at("/media/{key:path}", route.get_media, "GET"),
            at("/approvals", route.approvals),
            at("/approvals/{id}", route.withdraw, "DELETE"),
            at("/me", route.me, "GET"),
            at("/health", route.health, "GET"),
            at("/gate/refresh", route.gate_refresh),
        ],
        middleware=[Middleware(Unexpected, log=options.log)],
        exception_handlers={
            HTTPException: json_http_error,
            RouteRefusalError: failures.refused,
            MapleError: failures.maple_error,
        },
    )


@asynccontextmanager
async def route_lifespan(app: Starlette) -> AsyncIterator[None]:
    """The lifespan of a route app from :func:`create_route_app`, run by the app mounting it.

    For example ``Starlette(routes=[Mount("/api/maple", route)], lifespan=lambda _:
    route_lifespan(route))``.
    """
    async with app.router.lifespan_context(app):
        yield
