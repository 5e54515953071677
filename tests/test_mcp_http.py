"""The MCP endpoint for agents elsewhere (``route/mcp_http.py``), through the official client over
Streamable HTTP, with the tokens ``maple tokens`` issues: who gets in, and what a read token may do.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx2 as httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Route

from contract_tests.support import FakeClock
from maple_adapters.sql import Database, SqlCommentStore, SqlTokenStore
from maple_adapters.system import SystemClock
from maple_core.comments import NewComment
from maple_core.statuses import CommentStatus
from maple_core.tokens import TokenScope
from maple_entrypoints.mcp_server import build_server
from maple_entrypoints.route.mcp_http import McpEndpoint, mcp_endpoint
from tests.loopback import Running, serve_asgi
from tests.mcp_http_support import http_client
from tests.mcp_support import error_text, structured
from tests.sql_support import fresh_repository

pytestmark = pytest.mark.anyio
BRANCH = "feat/cloud"


class Deployment:
    """A route worker serving only the MCP endpoint, over a SQLite database."""

    def __init__(self, database: Database) -> None:
        self.repository = fresh_repository()
        self.store = SqlCommentStore(database, FakeClock(), self.repository)
        self.tokens = SqlTokenStore(database, SystemClock())
        endpoint = McpEndpoint(
            build_server(self.store), self.tokens, self.repository, SystemClock()
        )
        guarded, manager = mcp_endpoint(endpoint)

        @asynccontextmanager
        async def lifespan(app: Starlette) -> AsyncIterator[None]:
            async with manager.run():
                yield

        self.running: Running = serve_asgi(
            Starlette(routes=[Route("/mcp", guarded)], lifespan=lifespan)
        )
        self.url = self.running.url + "/mcp"

    def token(self, scope: TokenScope, repository: str | None = None, days: int = 90) -> str:
        expires = datetime.now(UTC) + timedelta(days=days)
        return self.tokens.issue(repository or self.repository, scope, expires).secret


@pytest.fixture
def deployment(sqlite_database: Database) -> Iterator[Deployment]:
    running = Deployment(sqlite_database)
    yield running
    running.running.stop()


def post(url: str, token: str | None) -> httpx.Response:
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    return httpx.post(url, json=body, headers=headers, timeout=30)


async def test_a_read_token_lists_and_waits_but_cannot_resolve_or_reply(
    deployment: Deployment,
) -> None:
    stored = deployment.store.append(NewComment(branch=BRANCH, body="The logo is blurry."))
    async with http_client(deployment.url, deployment.token(TokenScope.READ)) as client:
        listed = structured(await client.call_tool("list_comments", {"branch": BRANCH}))
        assert [c["id"] for c in listed] == [stored.id]
        waited = structured(
            await client.call_tool("wait_for_comments", {"branch": BRANCH, "timeoutMs": 100})
        )
        assert [c["id"] for c in waited["comments"]] == [stored.id]
        refused = await client.call_tool(
            "resolve_comment", {"id": stored.id, "sha": "0123456789abcdef"}
        )
        assert "may only read" in error_text(refused)
        replied = await client.call_tool("reply_to_comment", {"id": stored.id, "body": "Which?"})
        assert "may only read" in error_text(replied)
    [again] = deployment.store.state(BRANCH).comments
    assert again.status is CommentStatus.OPEN
    assert not again.extra.get("replies")


async def test_a_write_token_resolves(deployment: Deployment) -> None:
    stored = deployment.store.append(NewComment(branch=BRANCH, body="The logo is blurry."))
    async with http_client(deployment.url, deployment.token(TokenScope.WRITE)) as client:
        resolved = structured(
            await client.call_tool("resolve_comment", {"id": stored.id, "sha": "abc1234"})
        )
    assert resolved["status"] == "resolved"
    assert deployment.store.state(BRANCH).comments[0].status is CommentStatus.RESOLVED


@pytest.mark.parametrize(
    ("which", "says"),
    [
        ("none", "needs a token"),
        ("unknown", "not one this route issued"),
        ("revoked", "was revoked"),
        ("expired", "has expired"),
        ("foreign", "another repository"),
    ],
)
def test_who_may_not_call_is_answered_401_with_the_reason_and_never_the_token(
    deployment: Deployment, which: str, says: str
) -> None:
    tokens: dict[str, Any] = {
        "none": None,
        "unknown": "maple_" + "x" * 43,
        "expired": deployment.token(TokenScope.WRITE, days=-1),
        "foreign": deployment.token(TokenScope.WRITE, repository="acme/elsewhere"),
    }
    if which == "revoked":
        issued = deployment.tokens.issue(
            deployment.repository, TokenScope.WRITE, datetime.now(UTC) + timedelta(days=1)
        )
        deployment.tokens.revoke(issued.token.id)
        tokens["revoked"] = issued.secret
    answer = post(deployment.url, tokens[which])
    assert answer.status_code == 401
    assert says in answer.json()["error"]
    assert answer.headers["www-authenticate"].startswith("Bearer")
    if tokens[which]:
        assert tokens[which] not in answer.text


def test_a_live_token_is_let_through(deployment: Deployment) -> None:
    answer = post(deployment.url, deployment.token(TokenScope.READ))
    assert answer.status_code == 200, answer.text
