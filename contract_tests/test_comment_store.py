"""The comment-store contract: every adapter in ``STORE_ADAPTERS`` must pass every test here."""

from __future__ import annotations

import itertools
import re
import threading
from datetime import timedelta

import pytest

from contract_tests.support import FakeClock
from maple_adapters.system import SystemClock
from maple_core.anchors import Anchor
from maple_core.approvals import NewApproval
from maple_core.comments import NewComment, Resolution
from maple_core.cursor import parse_stamp
from maple_core.errors import (
    InvalidCursorError,
    InvalidQueryError,
    MissingCapabilityError,
    NotFoundError,
)
from maple_core.listing import list_all
from maple_core.page_context import Context
from maple_core.paging import ListQuery
from maple_core.ports import Capability, CommentStore
from maple_core.resolving import resolve_comment
from maple_core.statuses import CommentStatus
from maple_core.waiting import wait_for_comments

BRANCH = "feat/contract"


def new(body: str = "Tighten the header.", branch: str = BRANCH, **kw: object) -> NewComment:
    return NewComment(branch=branch, body=body, anchor=Anchor(extra={"kind": "page"}), **kw)  # type: ignore[arg-type]


class TestCommentStoreContract:
    def test_name_is_a_stable_lowercase_id(self, store: CommentStore) -> None:
        assert re.fullmatch(r"[a-z][a-z0-9-]*", store.name)

    def test_list_and_append_are_always_supported(self, store: CommentStore) -> None:
        assert {Capability.LIST, Capability.APPEND} <= store.capabilities

    def test_an_empty_branch_lists_an_empty_last_page(self, store: CommentStore) -> None:
        page = store.list(ListQuery(branch="nothing/here"))
        assert page.comments == ()
        assert page.cursor is None

    def test_append_assigns_an_id_and_status_open(self, store: CommentStore) -> None:
        stored = store.append(new("Hello"))
        assert stored.id
        assert stored.body == "Hello"
        assert stored.status is CommentStatus.OPEN
        assert stored.branch == BRANCH

    def test_an_appended_comment_is_listed(self, store: CommentStore) -> None:
        stored = store.append(new())
        assert [c.id for c in store.list(ListQuery(branch=BRANCH)).comments] == [stored.id]

    def test_another_branch_lists_nothing(self, store: CommentStore) -> None:
        store.append(new(branch="feat/other"))
        assert list_all(store, BRANCH) == []
        assert len(list_all(store, "feat/other")) == 1

    def test_pages_of_two_cover_three_comments(self, store: CommentStore) -> None:
        for i in range(3):
            store.append(new(f"c{i}"))
        ids: list[str] = []
        cursor = None
        for _ in range(5):
            page = store.list(ListQuery(branch=BRANCH, limit=2, cursor=cursor))
            assert len(page.comments) <= 2
            ids += [c.id for c in page.comments]
            cursor = page.cursor
            if cursor is None:
                break
        assert cursor is None
        assert len(set(ids)) == 3

    @pytest.mark.parametrize("limit", [0, -1])
    def test_a_limit_that_is_not_positive_is_refused(self, store: CommentStore, limit: int) -> None:
        with pytest.raises(InvalidQueryError, match="limit must be positive"):
            store.list(ListQuery(branch=BRANCH, limit=limit))

    def test_a_cursor_the_store_did_not_issue_is_refused(self, store: CommentStore) -> None:
        with pytest.raises(InvalidQueryError, match="Invalid cursor: nonsense"):
            store.list(ListQuery(branch=BRANCH, cursor="nonsense"))

    def test_statuses_filter_the_listing(self, store: CommentStore) -> None:
        first = store.append(new("a"))
        store.append(new("b"))
        store.set_status(first.id, CommentStatus.RESOLVED)
        open_only = store.list(ListQuery(branch=BRANCH, statuses=frozenset({CommentStatus.OPEN})))
        assert [c.body for c in open_only.comments] == ["b"]

    def test_append_many_keeps_order(self, store: CommentStore) -> None:
        stored = store.append_many([new("one"), new("two"), new("three")])
        assert [c.body for c in stored] == ["one", "two", "three"]
        assert [c.body for c in store.list(ListQuery(branch=BRANCH)).comments] == [
            "one",
            "two",
            "three",
        ]
        assert store.append_many([]) == []

    def test_a_resolved_status_and_resolution_survive_a_re_read(self, store: CommentStore) -> None:
        stored = store.append(new())
        resolution = Resolution(sha="9f1c0de", note="Matched the card's padding.", at="t")
        updated = store.set_status(stored.id, CommentStatus.RESOLVED, resolution)
        [again] = list_all(store, BRANCH)
        assert again.status is CommentStatus.RESOLVED
        assert again.resolution == updated.resolution
        assert again.resolution is not None
        assert (again.resolution.sha, again.resolution.note) == (resolution.sha, resolution.note)

    def test_reopening_keeps_the_old_resolution(self, store: CommentStore) -> None:
        stored = store.append(new())
        store.set_status(stored.id, CommentStatus.RESOLVED, Resolution(sha="abc1234", at="t"))
        reopened = store.set_status(stored.id, CommentStatus.OPEN)
        assert reopened.status is CommentStatus.OPEN
        assert reopened.resolution is not None
        assert reopened.resolution.sha == "abc1234"

    def test_an_unknown_id_is_a_clear_not_found_error(self, store: CommentStore) -> None:
        store.append(new())
        with pytest.raises(NotFoundError, match=r"\bnope\b") as caught:
            store.set_status("nope", CommentStatus.RESOLVED)
        assert caught.value.operation == "set_status"

    def test_resolve_records_sha_note_and_time(self, store: CommentStore, clock: FakeClock) -> None:
        stored = store.append(new())
        resolved = resolve_comment(store, stored.id, "9f1c0de", "Done.", clock)
        assert resolved.status is CommentStatus.RESOLVED
        assert resolved.resolution is not None
        assert resolved.resolution.sha == "9f1c0de"
        assert resolved.resolution.note == "Done."
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", resolved.resolution.at)
        no_note = resolve_comment(store, store.append(new()).id, "abc", None, clock)
        assert no_note.resolution is not None
        assert "note" not in no_note.resolution.to_json()

    def test_unknown_keys_survive_a_round_trip(self, store: CommentStore) -> None:
        comment = NewComment(
            branch=BRANCH,
            body="x",
            anchor=Anchor(source="src/App.tsx:4:3", extra={"key": "hero", "region": {"x": 0}}),
            context=Context(url="https://preview.example.com/", extra={"locale": "en-GB"}),
            created_at="2026-01-01T12:00:00.000Z",
            extra={"label": "WEB-482", "future": {"nested": [1, 2.5, None, True]}},
        )
        stored = store.append(comment)
        [again] = list_all(store, BRANCH)
        assert again == stored
        data = again.to_json()
        assert data["future"] == {"nested": [1, 2.5, None, True]}
        assert data["anchor"] == {"source": "src/App.tsx:4:3", "key": "hero", "region": {"x": 0}}
        assert data["createdAt"] == "2026-01-01T12:00:00.000Z"

    def test_every_record_carries_the_fields_maples_writers_need(self, store: CommentStore) -> None:
        bare = NewComment(branch=BRANCH, body="No author, no context")
        store.append(bare)
        store.append_many([bare, new(context=Context(url="https://app.example/"))])
        for comment in list_all(store, BRANCH):
            record = comment.to_json()
            author = record.get("author")
            assert isinstance(author, dict), record
            assert isinstance(author.get("name"), str), record
            assert isinstance(author.get("id"), str), record
            assert isinstance(record.get("context"), dict), record
        signed = store.append(new(extra={"author": {"id": "u1", "name": "Dana"}}))
        assert signed.to_json()["author"]["name"] in ("Dana", "Guest")  # a route names its own

    def test_a_comment_without_created_at_gets_one(self, store: CommentStore) -> None:
        stored = store.append(new())
        assert stored.created_at is not None
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", stored.created_at)

    def test_arrival_stamps_strictly_increase_even_when_the_clock_goes_back(
        self, store: CommentStore, clock: FakeClock
    ) -> None:
        stamps = []
        for step in (0, -3600, 0, 0):
            clock.advance(step)
            stamps.append(store.append(new()).received_at)
        stamps += [c.received_at for c in store.append_many([new(), new()])]
        instants = [parse_stamp(s) for s in stamps if s]
        assert len(instants) == 6
        assert all(a < b for a, b in itertools.pairwise(instants))  # type: ignore[operator]

    def test_approvals_round_trip_newest_first(self, store: CommentStore) -> None:
        assert store.approvals(BRANCH) == []
        author = {"id": "u1", "name": "Dana", "provenance": "server"}
        if Capability.APPROVE not in store.capabilities:  # listed, but approved elsewhere
            with pytest.raises(MissingCapabilityError, match="approve"):
                store.approve(NewApproval(BRANCH, "9f2c1ab", "2026-01-01T12:00:00.000Z", author))
            with pytest.raises(MissingCapabilityError):
                store.unapprove("app_1")
            return
        author = {"id": "u1", "name": "Dana", "provenance": "server"}
        older = store.approve(NewApproval(BRANCH, "9f2c1ab", "2026-01-01T12:00:00.000Z", author))
        newer = store.approve(NewApproval(BRANCH, "9f2c1ab", "2026-01-01T13:00:00.000Z", author))
        store.approve(NewApproval("feat/other", "deadbee", "2026-01-01T14:00:00.000Z", author))
        assert [a.id for a in store.approvals(BRANCH) or []] == [newer.id, older.id]
        store.unapprove(newer.id)
        assert [a.id for a in store.approvals(BRANCH) or []] == [older.id]
        with pytest.raises(NotFoundError, match=r"\bnope\b"):
            store.unapprove("nope")

    def test_head_is_absent_without_the_capability(self, store: CommentStore) -> None:
        if Capability.HEAD not in store.capabilities:
            assert store.head(BRANCH) is None

    def test_the_change_signal_moves_on_append(self, store: CommentStore) -> None:
        signal = store.changes(BRANCH)
        token = signal.token()
        assert signal.wait(token, 0.01) is False
        threading.Timer(0.05, lambda: store.append(new())).start()
        assert signal.wait(token, 5.0) is True
        assert signal.token() != token

    def test_the_state_is_what_list_approvals_and_head_say(self, store: CommentStore) -> None:
        first, second = store.append_many([new("One."), new("Two.")])
        store.append(new("Elsewhere.", branch="feat/other"))
        resolve_comment(store, second.id, "abc1234", None, SystemClock())
        state = store.state(BRANCH)
        assert state.branch == BRANCH
        assert [c.id for c in state.comments] == [first.id, second.id]
        assert [c.status for c in state.comments] == [CommentStatus.OPEN, CommentStatus.RESOLVED]
        assert state.comments == store.list(ListQuery(branch=BRANCH)).comments
        approvals = store.approvals(BRANCH)
        assert state.approvals == (tuple(approvals) if approvals is not None else None)
        assert state.head == store.head(BRANCH)

    def test_the_states_token_wakes_the_change_signal(self, store: CommentStore) -> None:
        signal = store.changes(BRANCH)
        state = store.state(BRANCH)
        assert signal.wait(state.token, 0.01) is False
        threading.Timer(0.05, lambda: store.append(new())).start()
        assert signal.wait(state.token, 5.0) is True
        assert store.state(BRANCH).token != state.token


class TestWaitContract:
    """``wait_for_comments`` over every store, with the real clock for deadlines."""

    def test_a_wait_without_cursor_drains_everything(self, store: CommentStore) -> None:
        store.append(new("a"))
        store.append(new("b"))
        found = wait_for_comments(store, BRANCH, None, 50, SystemClock())
        assert sorted(c.body for c in found.comments) == ["a", "b"]
        assert not found.timed_out

    def test_a_wait_with_the_returned_cursor_times_out_with_that_cursor(
        self, store: CommentStore
    ) -> None:
        store.append(new("a"))
        first = wait_for_comments(store, BRANCH, None, 50, SystemClock())
        again = wait_for_comments(store, BRANCH, first.cursor, 50, SystemClock())
        assert again.timed_out
        assert again.comments == ()
        assert again.cursor == first.cursor

    def test_a_wait_wakes_when_a_comment_arrives(
        self, store: CommentStore, clock: FakeClock
    ) -> None:
        store.append(new("before"))
        cursor = wait_for_comments(store, BRANCH, None, 50, SystemClock()).cursor
        clock.advance(-60)  # the writer's clock is behind the cursor: still not missed
        threading.Timer(0.1, lambda: store.append(new("after"))).start()
        found = wait_for_comments(store, BRANCH, cursor, 10_000, SystemClock())
        assert [c.body for c in found.comments] == ["after"]

    def test_a_wait_includes_resolved_comments_newer_than_the_cursor(
        self, store: CommentStore, clock: FakeClock
    ) -> None:
        stored = store.append(new("x"))
        store.set_status(stored.id, CommentStatus.RESOLVED)
        found = wait_for_comments(store, BRANCH, None, 50, SystemClock())
        assert [c.status for c in found.comments] == [CommentStatus.RESOLVED]

    def test_a_cursor_that_is_not_a_timestamp_is_refused(self, store: CommentStore) -> None:
        with pytest.raises(InvalidCursorError, match="omit it to drain"):
            wait_for_comments(store, BRANCH, "yesterday", 50, SystemClock())

    def test_a_maple_cursor_is_accepted(self, store: CommentStore, clock: FakeClock) -> None:
        clock.set(clock.now() + timedelta(days=1))
        store.append(new("fresh"))
        found = wait_for_comments(store, BRANCH, "2026-01-01T12:00:00.000Z", 50, SystemClock())
        assert [c.body for c in found.comments] == ["fresh"]
