"""The route's edges where maple answers as Maple does (behaviour §2.2, §9), over real HTTP.

An empty array is a write of nothing; a store without batch append takes an array one comment at
a time, in order, as Maple's store wrapper does; and a new comment moves the merge gate, as a
resolve and an approval do.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from contract_tests.support import FakeClock
from maple_adapters.memory import InMemoryCommentStore
from maple_adapters.memory_gate import InMemoryGatePublisher
from maple_core.comments import Comment, NewComment
from maple_core.paging import ListQuery
from maple_core.ports import Capability
from maple_entrypoints.route.app import RouteOptions
from tests.route_support import eventually, live_route

BRANCH = "feat/edges"
OTHER = "feat/other"
HEAD = "9ab1c2d"
OTHER_HEAD = "0cafe12"


def draft(body: str, branch: str = BRANCH) -> dict[str, Any]:
    return {"branch": branch, "body": body, "anchor": {"selector": "h1"}}


class RecordingStore(InMemoryCommentStore):
    """The memory store, noting every write it is asked for."""

    def __init__(self, clock: FakeClock, heads: dict[str, str] | None = None) -> None:
        super().__init__(clock, heads)
        self.writes: list[str] = []

    def append(self, comment: NewComment) -> Comment:
        self.writes.append(f"append {comment.body}")
        return InMemoryCommentStore.append_many(self, [comment])[0]

    def append_many(self, comments: Sequence[NewComment]) -> builtins.list[Comment]:
        self.writes.append("append_many " + ",".join(c.body for c in comments))
        return super().append_many(comments)


class WithoutBatchAppend(RecordingStore):
    """A store that declares no ``append_many``, as a Maple connector may lack ``appendMany``."""

    @property
    def capabilities(self) -> frozenset[Capability]:
        return super().capabilities - {Capability.APPEND_MANY}


def bodies(store: InMemoryCommentStore, branch: str = BRANCH) -> list[str]:
    return [c.body for c in store.list(ListQuery(branch=branch)).comments]


def test_an_empty_array_is_answered_201_with_no_comments_and_writes_nothing() -> None:
    store = RecordingStore(FakeClock())
    with live_route(RouteOptions(store=store)) as route:
        answer = route.client.post("/comments", json=[])
    assert (answer.status_code, answer.json()) == (201, {"comments": []})
    assert answer.headers["cache-control"] == "no-store"
    assert store.writes == []


def test_a_store_without_batch_append_takes_an_array_one_comment_at_a_time_in_order() -> None:
    store = WithoutBatchAppend(FakeClock())
    with live_route(RouteOptions(store=store)) as route:
        answer = route.client.post("/comments", json=[draft("one"), draft("two"), draft("three")])
    assert answer.status_code == 201
    assert [c["body"] for c in answer.json()["comments"]] == ["one", "two", "three"]
    assert store.writes == ["append one", "append two", "append three"]
    assert bodies(store) == ["one", "two", "three"]


def test_a_store_with_batch_append_takes_an_array_in_one_write() -> None:
    store = RecordingStore(FakeClock())
    with live_route(RouteOptions(store=store)) as route:
        answer = route.client.post("/comments", json=[draft("one"), draft("two")])
    assert answer.status_code == 201
    assert store.writes == ["append_many one,two"]


def test_a_new_comment_turns_a_clear_gate_blocked() -> None:
    clock = FakeClock()
    store = InMemoryCommentStore(clock, heads={BRANCH: HEAD})
    gate = InMemoryGatePublisher()
    with live_route(RouteOptions(store=store, gate=gate, clock=clock)) as route:
        first = route.client.post("/comments", json=draft("The header wraps.")).json()
        route.client.patch(f"/comments/{first['id']}", json={"status": "resolved"})
        cleared = eventually(lambda: (v := gate.read(BRANCH, HEAD)) and v.conclusion == "clear")
        assert cleared, gate.read(BRANCH, HEAD)
        answer = route.client.post("/comments", json=draft("The footer overlaps."))
        assert answer.status_code == 201
        blocked = eventually(
            lambda: (v := gate.read(BRANCH, HEAD)) and v.conclusion == "blocked" and v
        )
    assert blocked, gate.read(BRANCH, HEAD)
    assert (blocked.reason, blocked.open, blocked.total) == ("comments-open", 1, 2)


def test_an_array_publishes_the_gate_of_every_branch_it_touches() -> None:
    clock = FakeClock()
    store = InMemoryCommentStore(clock, heads={BRANCH: HEAD, OTHER: OTHER_HEAD})
    gate = InMemoryGatePublisher()
    with live_route(RouteOptions(store=store, gate=gate, clock=clock)) as route:
        answer = route.client.post(
            "/comments", json=[draft("one"), draft("two", OTHER), draft("three")]
        )
        assert answer.status_code == 201
        mine = eventually(lambda: gate.read(BRANCH, HEAD))
        theirs = eventually(lambda: gate.read(OTHER, OTHER_HEAD))
    assert mine is not None
    assert theirs is not None
    assert (mine.conclusion, mine.open) == ("blocked", 2)
    assert (theirs.conclusion, theirs.open) == ("blocked", 1)
