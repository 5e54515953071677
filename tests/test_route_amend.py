"""Editing and deleting a comment through the route (``PATCH`` with a body, ``DELETE``): only its
author, only while it is open; and the author a ``client_authors`` route records."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.requests import Request

from contract_tests.support import FakeClock
from maple_adapters.files.store import FileCommentStore
from maple_adapters.memory import InMemoryCommentStore
from maple_core.authors import Reviewer, color_slot
from maple_core.ports import Capability
from maple_entrypoints.route.app import RouteOptions
from tests.route_support import LiveRoute, live_route

BRANCH = "feat/amend"
ME = "b1d0c0de-0000-4000-8000-000000000001"
SOMEONE = "b1d0c0de-0000-4000-8000-000000000002"


def draft(body: str, author: dict[str, str] | None = None) -> dict[str, Any]:
    posted: dict[str, Any] = {"branch": BRANCH, "body": body, "anchor": {"selector": "h1"}}
    if author is not None:
        posted["author"] = author
    return posted


@pytest.fixture
def local(repo: Path) -> Iterator[LiveRoute]:
    """A route as ``maple review`` serves it: no identity, the browser names its author."""
    options = RouteOptions(store=FileCommentStore(FakeClock(), repo), client_authors=True)
    with live_route(options) as live:
        yield live


def post_as(route: LiveRoute, body: str, reviewer_id: str, name: str = "Ana") -> dict[str, Any]:
    answer = route.client.post("/comments", json=draft(body, {"id": reviewer_id, "name": name}))
    assert answer.status_code == 201
    return dict(answer.json())


def bodies(route: LiveRoute) -> list[str]:
    page = route.client.get("/comments", params={"branch": BRANCH}).json()
    return [c["body"] for c in page["comments"]]


def test_a_browser_names_its_author_on_a_client_authors_route(local: LiveRoute) -> None:
    stored = post_as(local, "Bigger title.", ME, "  Ana   Lima ")
    assert stored["author"] == {
        "id": "browser:" + ME,
        "name": "Ana Lima",
        "provenance": "client",
        "colorSlot": color_slot("browser:" + ME),
    }
    unnamed = post_as(local, "Smaller title.", ME, "")
    assert unnamed["author"]["name"] == "Guest"
    malformed = local.client.post("/comments", json=draft("Hi.", {"id": "x", "name": "Eve"}))
    assert malformed.json()["author"]["id"] == "guest"  # an id that is not one: the guest's


def test_the_author_edits_and_deletes_an_open_comment_and_nobody_else_can(
    local: LiveRoute,
) -> None:
    mine = post_as(local, "Bigger title.", ME)
    path = "/comments/" + mine["id"]
    other = local.client.patch(
        path, json={"body": "Mine now."}, headers={"x-maple-author": SOMEONE}
    )
    assert (other.status_code, other.json()) == (
        403,
        {"error": "Only the comment's author can change it"},
    )
    nobody = local.client.delete(path)
    assert nobody.status_code == 401
    edited = local.client.patch(
        path, json={"body": "Much bigger title."}, headers={"x-maple-author": ME}
    )
    assert edited.status_code == 200
    assert edited.json()["body"] == "Much bigger title."
    assert edited.json()["author"]["id"] == "browser:" + ME
    empty = local.client.patch(path, json={"body": "  "}, headers={"x-maple-author": ME})
    assert empty.status_code == 400
    assert local.client.delete(path, headers={"x-maple-author": SOMEONE}).status_code == 403
    assert bodies(local) == ["Much bigger title."]
    deleted = local.client.delete(path, headers={"x-maple-author": ME})
    assert (deleted.status_code, deleted.json()) == (200, {"id": mine["id"]})
    assert bodies(local) == []
    gone = local.client.delete(path, headers={"x-maple-author": ME})
    assert gone.status_code == 404
    assert "comments.json" not in gone.json()["error"]  # the store's path stays on the server


def test_a_resolved_comment_can_no_longer_be_changed(local: LiveRoute) -> None:
    mine = post_as(local, "Bigger title.", ME)
    path = "/comments/" + mine["id"]
    resolved = local.client.patch(
        path, json={"status": "resolved", "resolution": {"sha": "abc1234"}}
    )
    assert resolved.status_code == 200  # Maple's status PATCH, unchanged
    for answer in (
        local.client.patch(path, json={"body": "Later."}, headers={"x-maple-author": ME}),
        local.client.delete(path, headers={"x-maple-author": ME}),
    ):
        assert (answer.status_code, answer.json()) == (
            409,
            {"error": "This comment is resolved; only an open comment can be changed"},
        )
    assert bodies(local) == ["Bigger title."]


def test_without_client_authors_a_guest_changes_nothing_and_a_reviewer_only_their_own(
    repo: Path,
) -> None:
    store = FileCommentStore(FakeClock(), repo)
    people = {"dana": Reviewer("u1", "Dana"), "eli": Reviewer("u2", "Eli")}

    def identity(request: Request) -> Reviewer | None:
        return people.get(request.headers.get("x-test-user", ""))

    with live_route(RouteOptions(store=store, identity=identity)) as route:
        posted = route.client.post(
            "/comments",
            json=draft("Dana's.", {"id": ME, "name": "Ana"}),
            headers={"x-test-user": "dana"},
        ).json()
        assert posted["author"]["id"] == "u1"  # the identity, not the name the body claims
        path = "/comments/" + posted["id"]
        claimed = route.client.patch(
            path, json={"body": "Guest's."}, headers={"x-maple-author": ME}
        )
        assert claimed.status_code == 401  # a browser's id counts only on a client_authors route
        eli = route.client.patch(path, json={"body": "Eli's."}, headers={"x-test-user": "eli"})
        assert eli.status_code == 403
        dana = route.client.patch(
            path, json={"body": "Dana's, edited."}, headers={"x-test-user": "dana"}
        )
        assert dana.json()["body"] == "Dana's, edited."


class _NoAmend(InMemoryCommentStore):
    @property
    def capabilities(self) -> frozenset[Capability]:
        return super().capabilities - {Capability.AMEND}


def test_a_store_that_cannot_amend_answers_501() -> None:
    options = RouteOptions(store=_NoAmend(FakeClock()), client_authors=True)
    with live_route(options) as route:
        mine = post_as(route, "Bigger title.", ME)
        answer = route.client.delete("/comments/" + mine["id"], headers={"x-maple-author": ME})
        assert (answer.status_code, answer.json()) == (
            501,
            {"error": "This store cannot edit or delete a comment"},
        )


def test_deleting_or_editing_a_comment_republishes_the_gate(repo: Path) -> None:
    import time

    from maple_adapters.memory_gate import InMemoryGatePublisher
    from maple_core.gate import GateConclusion

    sha = "a" * 40
    store = InMemoryCommentStore(FakeClock(), heads={BRANCH: sha})
    gate = InMemoryGatePublisher()
    dana = Reviewer("u1", "Dana")
    options = RouteOptions(store=store, gate=gate, identity=lambda request: dana)

    def verdict_becomes(conclusion: GateConclusion, summary_has: str = "") -> bool:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            verdict = gate.read(BRANCH, sha)
            if verdict and verdict.conclusion is conclusion and summary_has in verdict.summary:
                return True
            time.sleep(0.02)
        return False

    with live_route(options) as route:
        posted = route.client.post("/comments", json=draft("Typo in the title.")).json()
        assert verdict_becomes(GateConclusion.BLOCKED, "Typo in the title.")
        path = "/comments/" + posted["id"]
        assert route.client.patch(path, json={"body": "Typo in the footer."}).status_code == 200
        assert verdict_becomes(GateConclusion.BLOCKED, "Typo in the footer.")  # not the old text
        assert route.client.delete(path).status_code == 200
        assert verdict_becomes(GateConclusion.CLEAR)
