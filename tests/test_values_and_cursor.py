"""Comment values keep Maple's JSON shape; the wait cursor judges freshness on arrival."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from maple_core.comments import Comment, NewComment, Resolution
from maple_core.conversation import (
    MAX_REPLIES,
    ConversationError,
    ReplyKind,
    Role,
    ThreadEvent,
    apply_event,
    thread_of,
)
from maple_core.cursor import (
    EPOCH_CURSOR,
    format_js_timestamp,
    format_stamp,
    newest_first,
    next_arrival_stamp,
    select_fresh,
)
from maple_core.display import shown
from maple_core.errors import InvalidCursorError, InvalidRecordError
from maple_core.paging import decode_offset_cursor, encode_offset_cursor
from maple_core.statuses import CommentStatus

MAPLE_COMMENT = {
    "branch": "feat/x",
    "label": "WEB-482",
    "commit": "9f1c0de",
    "body": "Tighten the header.",
    "status": "resolved",
    "createdAt": "2026-01-01T12:00:00.000Z",
    "author": {"id": "u1", "name": "Dana", "provenance": "server", "colorSlot": 3},
    "anchor": {
        "key": "hero",
        "source": "src/App.tsx:4:3",
        "locatedBy": "owner-stack",
        "quote": {"exact": "Overview", "prefix": "x"},
        "region": {"x": 0, "y": 0, "width": 1, "height": 0.2},
        "members": [{"anchor": {"component": "Card"}, "offset": {"top": 1}, "overlap": 0.95}],
    },
    "context": {
        "url": "https://preview.example.com/dashboard",
        "viewportWidth": 1440,
        "viewportHeight": 900,
        "devicePixelRatio": 2,
        "colorScheme": "light",
        "locale": "en-GB",
        "mock": {"version": 2, "calls": []},
    },
    "attachments": [{"connector": "file", "key": "shot-1", "contentType": "image/png"}],
    "resolution": {"sha": "9f1c0de", "note": "Done.", "at": "2026-01-01T13:00:00.000Z"},
    "id": "loc_0123456789ab",
    "somethingNew": {"a": [1, None]},
}


def test_a_maple_comment_round_trips_unchanged() -> None:
    comment = Comment.from_json(MAPLE_COMMENT)
    assert comment.to_json() == MAPLE_COMMENT
    assert comment.anchor.quote_exact == "Overview"
    assert comment.anchor.members[0].overlap == 0.95
    assert comment.context is not None
    assert comment.context.device_pixel_ratio == 2


@pytest.mark.parametrize(
    "record",
    [
        {"id": "x", "body": "b"},
        {"id": "x", "branch": "b", "body": 3},
        {"branch": "b", "body": "b"},
        {"id": ["x"], "branch": {"b": 1}, "body": None},
    ],
)
def test_a_stored_record_with_mistyped_required_fields_is_read_and_kept(
    record: dict[str, object],
) -> None:
    comment = Comment.from_json(record)  # type: ignore[arg-type]
    written = comment.to_json()
    assert {k: written[k] for k in record} == record  # what was there is written back as it was
    assert comment.problems
    readable = comment.readable_json()
    assert all(isinstance(readable[k], str) for k in ("id", "branch", "body"))


def test_a_value_that_is_not_an_object_is_not_a_comment() -> None:
    with pytest.raises(InvalidRecordError, match="must be a JSON object"):
        Comment.from_json([])


def test_a_submitted_comment_still_needs_a_branch_and_a_body() -> None:
    with pytest.raises(InvalidRecordError, match="needs a string 'body'"):
        NewComment.from_json({"branch": "b", "body": 3})


ODD = {
    "id": "loc_odd",
    "branch": "feat/x",
    "body": "Maple's route keeps any truthy anchor",
    "status": "done",
    "createdAt": 1767268800000,
    "receivedAt": False,
    "anchor": "page",
    "context": [1],
    "resolution": {"note": "no sha"},
}


def test_fields_maple_cannot_read_are_kept_as_written() -> None:
    comment = Comment.from_json(ODD)
    assert comment.to_json() == ODD
    assert comment.status is CommentStatus.OPEN  # a state maple cannot judge holds the gate
    assert (comment.created_at, comment.received_at, comment.context, comment.resolution) == (
        None,
        None,
        None,
        None,
    )
    assert comment.anchor.source is None
    resolved = comment.with_status(CommentStatus.RESOLVED, Resolution(sha="abc", at="t"))
    data = resolved.to_json()
    assert (data["status"], data["resolution"]) == ("resolved", {"sha": "abc", "at": "t"})
    assert data["anchor"] == "page"


def test_new_comment_ignores_a_submitted_id_and_arrival() -> None:
    new = NewComment.from_json({**MAPLE_COMMENT, "receivedAt": "forged"})
    stored = new.stored("mem_1", "2026-02-01T00:00:00.000001Z", "2026-02-01T00:00:00.000Z")
    assert stored.id == "mem_1"
    assert stored.received_at == "2026-02-01T00:00:00.000001Z"
    assert stored.created_at == "2026-01-01T12:00:00.000Z"
    assert "receivedAt" not in new.extra


def test_stamp_formats() -> None:
    instant = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    assert format_stamp(instant) == "2026-01-02T03:04:05.678901Z"
    assert format_js_timestamp(instant) == "2026-01-02T03:04:05.678Z"


def test_arrival_stamps_step_past_a_clock_that_is_behind() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    later = "2026-06-01T00:00:00.000000Z"
    assert format_stamp(next_arrival_stamp(now, [None, later])) == "2026-06-01T00:00:00.000001Z"
    assert next_arrival_stamp(now, ["garbage", None]) == now


def c(cid: str, arrival: str | None, created: str | None = None) -> Comment:
    return Comment(id=cid, branch="b", body="", created_at=created, received_at=arrival)


def test_freshness_is_judged_on_arrival_not_on_the_clients_clock() -> None:
    cursor = "2026-01-01T12:00:00.000500Z"
    comments = [
        c("old", "2026-01-01T12:00:00.000400Z", "2030-01-01T00:00:00.000Z"),
        c("new", "2026-01-01T12:00:00.000600Z", "2000-01-01T00:00:00.000Z"),
    ]
    found = select_fresh(comments, cursor)
    assert [x.id for x in found.comments] == ["new"]
    assert found.cursor == "2026-01-01T12:00:00.000600Z"


def test_maple_comments_fall_back_to_created_at_and_maple_cursors_are_read() -> None:
    comments = [
        c("m1", None, "2026-01-01T12:01:00.000Z"),
        c("m2", None, "2026-01-01T12:03:00.000Z"),
    ]
    found = select_fresh(comments, "2026-01-01T12:02:00.000Z")
    assert [x.id for x in found.comments] == ["m2"]
    assert found.cursor == "2026-01-01T12:03:00.000Z"


def test_a_drain_returns_everything_and_nothing_fresh_keeps_the_cursor() -> None:
    comments = [c("a", None), c("b", "2026-01-01T12:00:00.000000Z")]
    drained = select_fresh(comments, None)
    assert {x.id for x in drained.comments} == {"a", "b"}
    assert drained.cursor == "2026-01-01T12:00:00.000000Z"
    assert select_fresh([], None).cursor == EPOCH_CURSOR
    again = select_fresh(comments, drained.cursor)
    assert again.timed_out
    assert again.cursor == drained.cursor


def test_a_cursor_that_is_not_a_timestamp_is_refused() -> None:
    with pytest.raises(InvalidCursorError, match="not a timestamp"):
        select_fresh([], "abc")


def test_newest_first_is_stable() -> None:
    items = [c("1", None, "2026-01-01T12:01:00.000Z"), c("2", None, "2026-01-01T12:03:00.000Z")]
    items.append(c("3", None, "2026-01-01T12:03:00.000Z"))
    assert [x.id for x in newest_first(items)] == ["2", "3", "1"]


def test_page_cursors_are_marples() -> None:
    assert encode_offset_cursor(2) == "Mg"
    assert decode_offset_cursor("Mg") == 2


def test_a_thread_event_keeps_every_earlier_entry_as_written() -> None:
    odd = {"id": "x1", "role": "moderator", "question": "yes", "note": "Maple's own key"}
    comment = Comment(id="c1", branch="b", body="Fix it", extra={"replies": [odd, "not an object"]})
    event = ThreadEvent.reply(Role.AGENT, "On it.")
    replied = apply_event(comment, event, "r2", "2026-01-01T00:00:00.000001Z", "t")
    assert replied.extra["replies"][:2] == [odd, "not an object"]
    assert replied.extra["replies"][2]["id"] == "r2"


def test_replies_that_are_not_a_list_are_refused_not_overwritten() -> None:
    comment = Comment(id="c1", branch="b", body="Fix it", extra={"replies": "hand-written"})
    with pytest.raises(ConversationError, match="not a list"):
        apply_event(comment, ThreadEvent.reply(Role.AGENT, "Hi"), "r1", "s", "t")


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: ThreadEvent.reply(Role.REVIEWER, "Why?", question=True), "Only the agent"),
        (lambda: ThreadEvent.reply(Role.AGENT, "   "), "is empty"),
        (lambda: ThreadEvent.reopen(""), "a reason for reopening"),
        (lambda: ThreadEvent.reply(Role.AGENT, "x" * 10_001), "longer than 10,000"),
        (lambda: ThreadEvent(ReplyKind.CONFIRM, Role.AGENT), "Only a reviewer"),
    ],
)
def test_a_thread_event_that_does_not_hold_together_is_refused(
    make: Callable[[], ThreadEvent], message: str
) -> None:
    with pytest.raises(ConversationError, match=message):
        make()


def test_a_posted_event_never_speaks_as_the_agent_when_the_route_says_reviewer() -> None:
    posted = {"kind": "reply", "body": "Hi", "role": "agent"}
    assert ThreadEvent.from_json(posted, role=Role.REVIEWER).role is Role.REVIEWER
    with pytest.raises(ConversationError, match="'kind' must be"):
        ThreadEvent.from_json({"kind": "resolve"})
    with pytest.raises(ConversationError, match="'question' must be"):
        ThreadEvent.from_json({"body": "x", "question": "yes"})


def test_a_full_thread_refuses_replies_but_never_a_resolve_a_reopening_or_a_confirmation() -> None:
    flood = [
        {"id": f"r{i}", "role": "reviewer", "kind": "reply", "body": "x"}
        for i in range(MAX_REPLIES)
    ]
    comment = Comment(id="c1", branch="b", body="Fix it", extra={"replies": flood})
    with pytest.raises(ConversationError, match="already has 200 replies"):
        apply_event(comment, ThreadEvent.reply(Role.AGENT, "Hi"), "a", "s", "t")
    resolution = Resolution(sha="a" * 40, at="2026-01-01T00:00:00.000Z")
    resolved = apply_event(comment, ThreadEvent.resolve(resolution), "a", "s", "t")
    assert resolved.status is CommentStatus.RESOLVED
    confirmed = apply_event(resolved, ThreadEvent.confirm(), "b", "s", "t")
    assert apply_event(confirmed, ThreadEvent.confirm(), "c", "s", "t") == confirmed  # once
    reopened = apply_event(confirmed, ThreadEvent.reopen("No."), "d", "s", "t")
    assert reopened.status is CommentStatus.OPEN
    # ...and still holds at most 200 entries: the oldest plain replies made way (issue 22)
    thread = thread_of(reopened)
    assert len(thread) == MAX_REPLIES
    assert [r.id for r in thread[:1]] + [r.id for r in thread[-2:]] == ["r2", "b", "d"]


def test_a_long_thread_is_shown_by_its_newest_entries_and_a_count() -> None:
    entries = [{"id": f"r{i}", "role": "reviewer", "body": f"n{i}"} for i in range(15)]
    [data] = shown([Comment(id="c1", branch="b", body="Fix it", extra={"replies": entries})])
    assert [r["id"] for r in data["replies"]] == [f"r{i}" for i in range(3, 15)]  # in order
    assert data["olderReplies"] == 3
