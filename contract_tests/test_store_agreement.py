"""A Hypothesis state machine drives the reference store and another store step by step.

After each step they must agree: the same comments (ids mapped), the same pages, the same
approvals, the same wait results and cursors, and the same errors. It runs once per adapter in
``OFFLINE_STORE_ADAPTERS``.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from contract_tests.conftest import OFFLINE_STORE_ADAPTERS, StoreFactory
from contract_tests.support import FakeClock
from maple_adapters.memory import InMemoryCommentStore
from maple_core.approvals import NewApproval
from maple_core.comments import Anchor, NewComment, Resolution
from maple_core.cursor import select_fresh
from maple_core.errors import MapleError
from maple_core.paging import ListQuery
from maple_core.ports import CommentStore
from maple_core.services import list_all
from maple_core.statuses import CommentStatus

BRANCHES = st.sampled_from(["feat/x", "feat/y"])
STAMPS = st.one_of(
    st.none(),
    st.sampled_from(
        ["2026-01-01T12:00:00.000Z", "2025-06-01T00:00:00.000Z", "2026-01-01T12:00:00.000Z"]
    ),
)
STATUSES = st.sampled_from(list(CommentStatus))
NEW_COMMENTS = st.builds(
    lambda b, body, created: NewComment(
        branch=b, body=body, anchor=Anchor(extra={"kind": "page"}), created_at=created
    ),
    BRANCHES,
    st.text(max_size=20),
    STAMPS,
)


def outcome(call: Any) -> tuple[str, Any]:
    try:
        return ("ok", call())
    except MapleError as exc:
        return ("error", type(exc).__name__)


class StoreAgreement(RuleBasedStateMachine):
    def __init__(self, factory: StoreFactory, request: pytest.FixtureRequest) -> None:
        super().__init__()
        self.clock = FakeClock()
        self.tmp = Path(tempfile.mkdtemp(prefix="maple-agree-"))
        self.reference: CommentStore = InMemoryCommentStore(self.clock)
        self.others: list[CommentStore] = [factory(self.clock, self.tmp, request)]
        self.comment_ids: list[list[str]] = []  # per comment: [reference id, other ids...]
        self.approval_ids: list[list[str]] = []
        self.cursors: list[str | None] = [None]

    def teardown(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    @property
    def stores(self) -> list[CommentStore]:
        return [self.reference, *self.others]

    def to_reference(self, index: int, comment_id: str) -> str:
        for ids in self.comment_ids:
            if ids[index] == comment_id:
                return ids[0]
        return comment_id

    def normalised(self, index: int, value: Any) -> Any:
        """Replace a store's own ids by the reference's, so results compare equal."""
        if isinstance(value, list | tuple):
            return [self.normalised(index, v) for v in value]
        if hasattr(value, "id") and hasattr(value, "body"):
            return value.to_json() | {"id": self.to_reference(index, value.id)}
        if hasattr(value, "id") and hasattr(value, "commit"):
            mapped = next((ids[0] for ids in self.approval_ids if ids[index] == value.id), None)
            return value.to_json() | {"id": mapped}
        if hasattr(value, "comments") and hasattr(value, "cursor"):
            return (self.normalised(index, value.comments), value.cursor)
        return value

    def agree(self, results: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
        reference = results[0]
        for i, result in enumerate(results[1:], start=1):
            assert (result[0], self.normalised(i, result[1])) == (
                reference[0],
                self.normalised(0, reference[1]),
            )
        return results

    @rule(step=st.sampled_from([0.0, 0.000001, 1.0, -3600.0]))
    def move_clock(self, step: float) -> None:
        self.clock.advance(step)

    @rule(comment=NEW_COMMENTS)
    def append(self, comment: NewComment) -> None:
        results = [outcome(lambda s=s: s.append(comment)) for s in self.stores]
        self.comment_ids.append([r[1].id for r in results])
        self.agree(results)

    @rule(comments=st.lists(NEW_COMMENTS, max_size=3))
    def append_many(self, comments: list[NewComment]) -> None:
        results = [outcome(lambda s=s: s.append_many(comments)) for s in self.stores]
        for stored in zip(*(r[1] for r in results), strict=True):
            self.comment_ids.append([c.id for c in stored])
        self.agree(results)

    @precondition(lambda self: self.comment_ids)
    @rule(data=st.data(), status=STATUSES, with_resolution=st.booleans())
    def set_status(self, data: st.DataObject, status: CommentStatus, with_resolution: bool) -> None:
        ids = data.draw(st.sampled_from(self.comment_ids))
        resolution = (
            Resolution(sha="abc1234", at="2026-01-01T00:00:00.000Z") if with_resolution else None
        )
        self.agree(
            [
                outcome(lambda s=s, i=i: s.set_status(ids[i], status, resolution))
                for i, s in enumerate(self.stores)
            ]
        )

    @rule(status=STATUSES)
    def set_status_of_an_unknown_id(self, status: CommentStatus) -> None:
        self.agree([outcome(lambda s=s: s.set_status("nope", status)) for s in self.stores])

    @rule(branch=BRANCHES, commit=st.sampled_from(["9f2c1ab", "deadbee"]), hour=st.integers(0, 23))
    def approve(self, branch: str, commit: str, hour: int) -> None:
        approval = NewApproval(
            branch, commit, f"2026-01-01T{hour:02d}:00:00.000Z", {"name": "Dana"}
        )
        results = [outcome(lambda s=s: s.approve(approval)) for s in self.stores]
        self.approval_ids.append([r[1].id for r in results])
        self.agree(results)

    @precondition(lambda self: self.approval_ids)
    @rule(data=st.data())
    def unapprove(self, data: st.DataObject) -> None:
        ids = data.draw(st.sampled_from(self.approval_ids))
        self.agree(
            [outcome(lambda s=s, i=i: s.unapprove(ids[i])) for i, s in enumerate(self.stores)]
        )

    @rule(
        branch=BRANCHES,
        statuses=st.one_of(st.none(), st.frozensets(STATUSES, min_size=1)),
        limit=st.one_of(st.none(), st.integers(-1, 3)),
        page=st.integers(0, 3),
    )
    def list_page(
        self, branch: str, statuses: frozenset[CommentStatus] | None, limit: int | None, page: int
    ) -> None:
        cursor = None
        for _ in range(page + 1):
            query = ListQuery(branch=branch, statuses=statuses, cursor=cursor, limit=limit)
            results = self.agree([outcome(lambda s=s, q=query: s.list(q)) for s in self.stores])
            if results[0][0] != "ok" or results[0][1].cursor is None:
                return
            cursor = results[0][1].cursor

    @rule(branch=BRANCHES, data=st.data())
    def wait(self, branch: str, data: st.DataObject) -> None:
        cursor = data.draw(st.sampled_from(self.cursors))
        results = self.agree(
            [outcome(lambda s=s: select_fresh(list_all(s, branch), cursor)) for s in self.stores]
        )
        self.cursors.append(results[0][1].cursor)

    @invariant()
    def approvals_agree(self) -> None:
        for branch in ("feat/x", "feat/y"):
            self.agree([outcome(lambda s=s, b=branch: s.approvals(b)) for s in self.stores])


@pytest.mark.parametrize("factory", OFFLINE_STORE_ADAPTERS)
def test_every_store_agrees_with_the_reference(
    factory: StoreFactory, request: pytest.FixtureRequest
) -> None:
    run_state_machine_as_test(
        lambda: StoreAgreement(factory, request),
        settings=settings(
            max_examples=60,
            stateful_step_count=25,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
