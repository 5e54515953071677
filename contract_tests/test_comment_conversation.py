"""The conversation contract: every store keeps a comment's thread (``Capability.CONVERSE``).

Replies live inside their comment, are stamped on the same strictly increasing scale as
comments' arrivals, wake a waiting agent when a reviewer wrote them, and never count as
comments. Runs over every adapter in ``STORE_ADAPTERS``.
"""

from __future__ import annotations

import pytest

from contract_tests.support import FakeClock
from contract_tests.test_comment_store import BRANCH, new
from maple_core.conversation import ConversationError, ReplyKind, Role, thread_of
from maple_core.cursor import parse_stamp, select_fresh
from maple_core.errors import NotFoundError
from maple_core.listing import list_all
from maple_core.ports import Capability, CommentStore
from maple_core.resolving import converse, resolve_comment
from maple_core.statuses import CommentStatus
from maple_core.thread_events import ThreadEvent
from maple_core.threads import awaiting_reviewer, confirmation_of

SHA = "0123456789abcdef0123456789abcdef01234567"


def only(store: CommentStore) -> object:
    [comment] = list_all(store, BRANCH)
    return comment


def test_every_store_keeps_threads(store: CommentStore) -> None:
    assert Capability.CONVERSE in store.capabilities


def test_a_reply_is_kept_in_its_comment_and_is_not_a_comment(store: CommentStore) -> None:
    stored = store.append(new("Tighten the header."))
    replied = converse(store, stored.id, ThreadEvent.reply(Role.AGENT, "Which header?"))
    [entry] = thread_of(replied)
    assert (entry.role, entry.kind, entry.body, entry.question) == (
        Role.AGENT,
        ReplyKind.REPLY,
        "Which header?",
        False,
    )
    assert entry.id
    assert entry.received_at
    assert entry.at
    [listed] = list_all(store, BRANCH)
    assert listed.id == stored.id
    assert [r.body for r in thread_of(listed)] == ["Which header?"]


def test_replies_are_stamped_after_every_earlier_arrival(
    store: CommentStore, clock: FakeClock
) -> None:
    first = store.append(new("One."))
    clock.advance(-60)  # a store clock that went backwards
    converse(store, first.id, ThreadEvent.reply(Role.REVIEWER, "Also the footer."))
    second = store.append(new("Two."))
    converse(store, first.id, ThreadEvent.reply(Role.AGENT, "On it."))
    stamps = [first.received_at]
    listed = {c.id: c for c in list_all(store, BRANCH)}
    replies = thread_of(listed[first.id])
    stamps = [first.received_at, replies[0].received_at, second.received_at, replies[1].received_at]
    instants = [parse_stamp(s or "") for s in stamps]
    assert all(i is not None for i in instants)
    assert instants == sorted(instants)
    assert len(set(instants)) == 4


def test_a_question_waits_for_the_reviewer_until_they_answer(store: CommentStore) -> None:
    stored = store.append(new("Make it pop."))
    asked = converse(
        store, stored.id, ThreadEvent.reply(Role.AGENT, "Bigger or brighter?", question=True)
    )
    assert awaiting_reviewer(asked)
    assert thread_of(asked)[-1].question
    answered = converse(store, stored.id, ThreadEvent.reply(Role.REVIEWER, "Brighter."))
    assert not awaiting_reviewer(answered)
    assert answered.status is CommentStatus.OPEN


def test_a_reviewer_reply_after_the_cursor_makes_the_comment_fresh(store: CommentStore) -> None:
    stored = store.append(new("Fix the logo."))
    drained = select_fresh(list_all(store, BRANCH), None)
    converse(store, stored.id, ThreadEvent.reply(Role.AGENT, "Done?", question=True))
    assert select_fresh(list_all(store, BRANCH), drained.cursor).timed_out  # the agent's own
    converse(store, stored.id, ThreadEvent.reply(Role.REVIEWER, "Not yet: it is blurry."))
    woke = select_fresh(list_all(store, BRANCH), drained.cursor)
    assert [c.id for c in woke.comments] == [stored.id]
    assert select_fresh(list_all(store, BRANCH), woke.cursor).timed_out


def test_reopening_a_resolved_comment_makes_it_open_with_the_reason(store: CommentStore) -> None:
    stored = store.append(new("Fix the logo."))
    resolve_comment(store, stored.id, SHA, "Swapped the SVG.", FakeClock())
    drained = select_fresh(list_all(store, BRANCH), None)
    reopened = converse(store, stored.id, ThreadEvent.reopen("Still blurry on a phone."))
    assert reopened.status is CommentStatus.OPEN
    assert reopened.resolution is not None  # kept, as Maple's reopening keeps it
    [entry] = thread_of(reopened)
    assert (entry.kind, entry.role, entry.body) == (
        ReplyKind.REOPEN,
        Role.REVIEWER,
        "Still blurry on a phone.",
    )
    assert entry.resolution is not None
    assert entry.resolution["sha"] == SHA
    assert [c.id for c in select_fresh(list_all(store, BRANCH), drained.cursor).comments] == [
        stored.id
    ]


def test_only_a_resolved_comment_can_be_reopened_or_confirmed(store: CommentStore) -> None:
    stored = store.append(new())
    with pytest.raises(ConversationError, match="only a resolved comment"):
        converse(store, stored.id, ThreadEvent.reopen("Why?"))
    with pytest.raises(ConversationError, match="only a resolved comment"):
        converse(store, stored.id, ThreadEvent.confirm())
    assert thread_of(only(store)) == ()  # type: ignore[arg-type]


def test_a_confirmation_counts_for_the_resolution_it_names(store: CommentStore) -> None:
    stored = store.append(new())
    resolve_comment(store, stored.id, SHA, None, FakeClock())
    confirmed = converse(store, stored.id, ThreadEvent.confirm("Looks right."))
    assert confirmation_of(confirmed) is not None
    converse(store, stored.id, ThreadEvent.reopen("On second look, no."))
    again = resolve_comment(store, stored.id, SHA, "Now really.", FakeClock())
    assert confirmation_of(again) is None


def test_resolving_twice_keeps_the_first_evidence_and_records_the_second(
    store: CommentStore,
) -> None:
    stored = store.append(new())
    first = resolve_comment(store, stored.id, SHA, "First fix.", FakeClock())
    second = resolve_comment(store, stored.id, "f" * 40, "Second fix.", FakeClock())
    assert second.resolution is not None
    assert first.resolution is not None
    assert (second.resolution.sha, second.resolution.note) == (SHA, "First fix.")
    [entry] = thread_of(second)
    assert entry.kind is ReplyKind.RESOLVE
    assert entry.resolution is not None
    assert entry.resolution["sha"] == "f" * 40
    assert entry.body == "Second fix."


def test_an_unknown_id_is_not_found(store: CommentStore) -> None:
    store.append(new())
    with pytest.raises(NotFoundError):
        converse(store, "nope_1", ThreadEvent.reply(Role.AGENT, "Hello?"))


def test_a_confirmation_wakes_nobody(store: CommentStore) -> None:
    stored = store.append(new())
    resolve_comment(store, stored.id, SHA, None, FakeClock())
    drained = select_fresh(list_all(store, BRANCH), None)
    converse(store, stored.id, ThreadEvent.confirm("Works."))
    assert select_fresh(list_all(store, BRANCH), drained.cursor).timed_out
