"""The route's MCP endpoint: the agent loop's tools over Streamable HTTP, for agents elsewhere.

Cloud agents (Codex cloud, Claude Code on the web) cannot reach a developer's ``.maple/``; they
reach the deployed route at ``<mount>/mcp`` with a token maple issued (``maple tokens create``).
The endpoint is stateless (MCP 2026-07-28), so it can sit behind a round-robin balancer: every
request stands on its own, and the waiting ``wait_for_comments`` tasks live in the database, so
any worker answers ``tasks/get`` for any of them.

Every request must carry ``Authorization: Bearer <token>``: an unknown, revoked or expired
token, or one for another repository, is answered ``401`` with the reason (never the token). A
``read`` token lists, waits and reads contexts; resolving and replying (which publish the merge
gate) need a ``write`` token, and a read token's call is answered as a tool error saying so.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, TextContent
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from maple_core.ports import Clock
from maple_core.storage_ports import TokenStore
from maple_core.token_access import access_refusal
from maple_core.tokens import AccessToken, TokenScope, token_digest
from maple_entrypoints.route.answers import bearer_token, json_answer

__all__ = ["McpEndpoint", "ScopeCheck", "TokenGuard", "WRITE_TOOLS", "mcp_endpoint"]

WRITE_TOOLS = frozenset({"resolve_comment", "reply_to_comment", "start_solo"})
"""The tools a ``read`` token may not call: each changes a comment (and publishes the gate)."""

_caller: ContextVar[AccessToken | None] = ContextVar("maple_mcp_caller", default=None)
_NO_TOKEN = (
    "An MCP call to this route needs a token: send Authorization: Bearer <token>, with a token "
    "from maple tokens create."
)


@dataclass(eq=False)
class _Lookup:
    """A token lookup in flight, and its answer once it came."""

    done: anyio.Event = field(default_factory=anyio.Event)
    found: AccessToken | None = None
    answered: bool = False


class TokenGuard:
    """ASGI middleware: only a live token of this route's repository passes.

    The token found is kept for the call's scope check (:class:`ScopeCheck`).
    """

    def __init__(self, app: ASGIApp, tokens: TokenStore, repository: str, clock: Clock) -> None:
        self.app = app
        self.tokens = tokens
        self.repository = repository
        self.clock = clock
        self._finding: dict[str, _Lookup] = {}  # lookups in flight, by the secret's digest

    async def find(self, secret: str) -> AccessToken | None:
        """The token ``secret`` names: one query for every request arriving with it meanwhile.

        A burst of one agent's calls then costs the store one query and one thread, not one each.
        """
        key = token_digest(secret)
        pending = self._finding.get(key)
        if pending is not None:
            await pending.done.wait()
            if pending.answered:
                return pending.found
        lookup = self._finding[key] = _Lookup()
        try:
            lookup.found = await anyio.to_thread.run_sync(self.tokens.find, secret)
            lookup.answered = True
            return lookup.found
        finally:
            if self._finding.get(key) is lookup:
                del self._finding[key]
            lookup.done.set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer 401 with the reason, or pass the request on with its token known."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        secret = bearer_token(Request(scope))
        found = await self.find(secret) if secret else None
        refusal = (
            access_refusal(found, self.repository, TokenScope.READ, self.clock.now())
            if secret
            else _NO_TOKEN
        )
        if refusal is not None:
            challenge = 'Bearer realm="maple", error="invalid_token"'
            answer = json_answer({"error": refusal}, 401, {"www-authenticate": challenge})
            await answer(scope, receive, send)
            return
        mark = _caller.set(found)
        try:
            await self.app(scope, receive, send)
        finally:
            _caller.reset(mark)


class ScopeCheck:
    """MCP middleware: a tool that changes comments answers a ``read`` token with a tool error."""

    def __init__(self, repository: str, clock: Clock) -> None:
        self.repository = repository
        self.clock = clock

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Let every request through but a write tool's call without a write token."""
        params = ctx.params if isinstance(ctx.params, Mapping) else {}
        if ctx.method == "tools/call" and params.get("name") in WRITE_TOOLS:
            refusal = access_refusal(
                _caller.get(), self.repository, TokenScope.WRITE, self.clock.now()
            )
            if refusal is not None:
                return CallToolResult(
                    content=[TextContent(type="text", text=refusal)], is_error=True
                )
        return await call_next(ctx)


@dataclass(frozen=True)
class McpEndpoint:
    """The MCP server a route serves at ``/mcp``, and who may call it.

    Attributes:
        server: the agent loop's tools over the route's store (``build_server``).
        tokens: where the tokens maple issued are kept.
        repository: the repository the route's comments are on; tokens of others are refused.
        clock: tells the time tokens expire against.
    """

    server: MCPServer
    tokens: TokenStore
    repository: str
    clock: Clock


def mcp_endpoint(endpoint: McpEndpoint) -> tuple[ASGIApp, StreamableHTTPSessionManager]:
    """The guarded, stateless Streamable HTTP app, and its session manager.

    The serving app's lifespan must enter the manager's ``run()``, which runs the MCP server's
    own lifespan (the tasks' group) once for every request the worker serves.
    """
    server = endpoint.server
    server.middleware.append(ScopeCheck(endpoint.repository, endpoint.clock))
    # The route checks its Host itself on loopback (serve.py); tokens keep pages out elsewhere.
    server.streamable_http_app(
        stateless_http=True,
        # Answers as JSON, not event streams: a held wait then costs a worker about a third less
        # memory (bench: wait-memory). A long poll's progress notes are not sent over HTTP; the
        # wait's 55 s bound and MCP tasks keep clients inside their timeouts instead.
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    manager = server.session_manager
    app = TokenGuard(
        StreamableHTTPASGIApp(manager), endpoint.tokens, endpoint.repository, endpoint.clock
    )
    return app, manager
