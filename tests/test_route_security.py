"""Attacks on the route, each driven over real HTTP and named after the property that stops it.

- Submissions are validated at the door: a malformed comment is refused with 400 and nothing is
  written (issue 14, point 5).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contract_tests.support import FakeClock, make_repo
from maple_adapters.files import FileCommentStore, FileMedia
from maple_entrypoints.route import RouteOptions
from tests.route_support import LiveRoute, live_route

MAPLE = Path(sys.executable).with_name("maple")
BRANCH = "feat/route"
FOLDER = "feat-route"


def draft(body: str = "The header wraps at 375px.", **kw: Any) -> dict[str, Any]:
    return {
        "branch": BRANCH,
        "body": body,
        "anchor": {"selector": "h1"},
        "createdAt": "2026-01-01T12:00:00.000Z",
        **kw,
    }


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", BRANCH)


@pytest.fixture
def route(repo: Path) -> Iterator[LiveRoute]:
    clock = FakeClock()
    options = RouteOptions(store=FileCommentStore(clock, repo), media=FileMedia(repo), clock=clock)
    with live_route(options) as live:
        yield live


def comments_file(repo: Path) -> Path:
    return repo / ".maple" / FOLDER / "comments.json"


# -- 5. submissions are validated at the door --------------------------------------------------


def refused(route: LiveRoute, body: Any) -> str:
    answer = route.client.post("/comments", json=body)
    assert answer.status_code == 400, answer.text
    assert answer.headers["content-type"] == "application/json"
    error: str = answer.json()["error"]
    return error


def test_a_string_anchor_is_refused_and_nothing_is_written(route: LiveRoute, repo: Path) -> None:
    error = refused(route, draft(anchor="h1"))
    assert "'anchor' must be an object" in error
    assert "not a string" in error
    assert not comments_file(repo).exists()


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"anchor": ["h1"]}, "'anchor' must be an object"),
        ({"anchor": 1}, "'anchor' must be an object"),
        ({"anchor": True}, "'anchor' must be an object"),
        ({"context": "mobile"}, "'context' must be an object"),
        ({"context": [375, 812]}, "'context' must be an object"),
        ({"createdAt": 1767268800000}, "'createdAt' must be an ISO 8601 timestamp string"),
        ({"createdAt": "yesterday"}, "'createdAt' must be an ISO 8601 timestamp string"),
        ({"createdAt": "2026-13-45T99:00:00Z"}, "'createdAt' must be an ISO 8601 timestamp"),
        ({"attachments": "shot-0123456789ab"}, "'attachments' must be an array of objects"),
        ({"attachments": {"key": "shot-1"}}, "'attachments' must be an array of objects"),
        ({"attachments": [{"key": "shot-1"}, "x"]}, "'attachments' must be an array of objects"),
        ({"attachments": [{}] * 21}, "at most 20 attachments"),
        ({"body": "x" * 10_001}, "'body' is longer than 10,000 characters"),
    ],
)
def test_a_malformed_comment_is_refused_naming_the_field_and_nothing_is_written(
    route: LiveRoute, repo: Path, changes: dict[str, Any], says: str
) -> None:
    error = refused(route, draft(**changes))
    assert says in error
    assert error.startswith("A branch and a body are required: the comment has ")
    assert not comments_file(repo).exists()


def test_one_bad_comment_in_an_array_refuses_the_whole_array(route: LiveRoute, repo: Path) -> None:
    assert route.client.post("/comments", json=draft("kept")).status_code == 201
    before = comments_file(repo).read_bytes()
    error = refused(route, [draft("one"), draft("two", context="x"), draft("three")])
    assert "comment 2 has 'context' must be an object" in error
    assert comments_file(repo).read_bytes() == before


def test_fields_the_route_owns_are_never_taken_from_the_client(
    route: LiveRoute, repo: Path
) -> None:
    forged = draft(
        id="loc_000000000000",
        receivedAt="2099-01-01T00:00:00.000000Z",
        updatedAt="2099-01-01T00:00:00.000Z",
        resolution={"sha": "9ab1c2d", "at": "2099-01-01T00:00:00.000Z"},
        author={"id": "ceo", "name": "CEO", "provenance": "server"},
    )
    answer = route.client.post("/comments", json=forged)
    assert answer.status_code == 201, answer.text
    stored = answer.json()
    [kept] = json.loads(comments_file(repo).read_text())["comments"]
    for record in (stored, kept):
        assert record["id"] != "loc_000000000000"
        assert not record["receivedAt"].startswith("2099")
        assert "updatedAt" not in record
        assert "resolution" not in record
        assert record["author"]["provenance"] == "guest"


def test_a_well_formed_comment_with_every_optional_field_is_taken(
    route: LiveRoute, repo: Path
) -> None:
    ref = {"connector": "file", "key": "shot-0123456789ab", "contentType": "image/png"}
    answer = route.client.post(
        "/comments",
        json=draft(
            "x" * 10_000,
            context={"url": "https://preview.example/", "viewportWidth": 375},
            attachments=[ref] * 20,
            createdAt="2026-01-01T12:00:00+02:00",
        ),
    )
    assert answer.status_code == 201, answer.text
    assert answer.json()["attachments"] == [ref] * 20
