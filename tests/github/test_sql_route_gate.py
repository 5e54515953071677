"""The route on the sql store publishes the merge gate as the gate App, against the fake GitHub.

The comments are in the database; the App names each branch's pull-request head and writes the
``maple/visual-review`` check run, after a comment posted through the HTTP API and after a
resolve through the MCP endpoint.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from contract_tests.support import FakeClock
from maple_adapters.sql.database import Database
from maple_adapters.sql.migrate import upgrade
from maple_adapters.sql.tokens import SqlTokenStore
from maple_adapters.system import SystemClock
from maple_core.tokens import TokenScope
from maple_entrypoints.bootstrap.route import route_server
from maple_entrypoints.route.serve import server_options
from maple_entrypoints.settings import StoreKind, load_settings
from tests.github.fake_github import FakeGitHub, Served
from tests.github.test_route_refresh import BRANCH, HEAD, fake, fake_github
from tests.mcp_http_support import http_client
from tests.mcp_support import structured
from tests.route_support import LiveRoute, eventually, live_route
from tests.support import APP_ID, gate_app_environment

__all__ = ["fake", "fake_github"]  # the fake GitHub and its App, as the refresh tests use

pytestmark = pytest.mark.anyio


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'maple.db'}"
    database = Database(url)
    upgrade(database)
    database.close()
    return url


@pytest.fixture
def route(
    fake: FakeGitHub,
    served: Served,
    app_key: tuple[str, str],
    database_url: str,
    tmp_path: Path,
) -> Iterator[LiveRoute]:
    environ = gate_app_environment(served.base_url, app_key[0], MAPLE_DATABASE_URL=database_url)
    settings = load_settings(environ)
    options = server_options(
        route_server(StoreKind.SQL, tmp_path, settings=settings, clock=FakeClock())
    )
    with live_route(options) as live:
        yield live


def runs(fake: FakeGitHub) -> list[dict[str, Any]]:
    return fake.repo().check_runs


async def test_a_comment_blocks_the_gate_and_a_resolve_through_mcp_clears_it(
    route: LiveRoute, fake: FakeGitHub, database_url: str
) -> None:
    posted = route.client.post(
        "/comments",
        json={"branch": BRANCH, "body": "The footer overlaps.", "anchor": {"selector": "h1"}},
    )
    assert posted.status_code == 201, posted.text
    blocked = eventually(lambda: runs(fake) and runs(fake)[-1])
    assert blocked, "no check run was published"
    assert (blocked["status"], blocked["head_sha"], blocked["app"]["id"]) == (
        "in_progress",
        HEAD,
        APP_ID,
    )
    database = Database(database_url)
    try:
        expires = datetime.now(UTC) + timedelta(days=1)
        issued = SqlTokenStore(database, SystemClock()).issue("acme/web", TokenScope.WRITE, expires)
    finally:
        database.close()
    async with http_client(route.url + "/mcp", issued.secret) as agent:
        resolved = structured(
            await agent.call_tool(
                "resolve_comment", {"id": posted.json()["id"], "sha": HEAD, "note": "Moved it."}
            )
        )
    assert resolved["status"] == "resolved"
    cleared = eventually(
        lambda: runs(fake)[-1]["conclusion"] == "success" and runs(fake)[-1], timeout=10
    )
    assert cleared, runs(fake)
    assert cleared["head_sha"] == HEAD
