"""The reading contract: every store that keeps notes on thread entries (``Capability.NOTE``)
keeps a reviewer's reply's reading on its entry, through every later write and read, once.

Runs over the stores of ``STORE_ADAPTERS`` that keep notes: a route keeps its readings where it
runs (its backing store is one of these), so the route-backed adapters are left out here and
refuse a note (``test_a_route_keeps_no_notes``).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from contract_tests.conftest import STORE_ADAPTERS, StoreFactory
from contract_tests.support import FakeClock
from contract_tests.test_comment_store import BRANCH, new
from maple_adapters.memory_classifier import ScriptedClassifier
from maple_core.classifying import classify_reply, undo_reading
from maple_core.comments import Comment
from maple_core.conversation import CLASSIFICATION, ReplyKind, Role, thread_of
from maple_core.errors import MissingCapabilityError
from maple_core.feedback import Outcome, Transition, classification_of
from maple_core.listing import list_all
from maple_core.ports import Capability, CommentStore
from maple_core.resolving import converse, resolve_comment
from maple_core.thread_events import ThreadEvent
from maple_core.threads import confirmation_of

SHA = "0123456789abcdef0123456789abcdef01234567"
DANA = {"id": "u-dana", "name": "Dana", "provenance": "server"}
NOTING = [p for p in STORE_ADAPTERS if not str(p.id).startswith("route-")]


@pytest.fixture(params=NOTING)
def store(request: pytest.FixtureRequest, clock: FakeClock, tmp_path: Path) -> CommentStore:
    factory: StoreFactory = request.param
    return factory(clock, tmp_path, request)


def answered(store: CommentStore, clock: FakeClock, words: str = "LGTM now") -> tuple[Comment, str]:
    stored = store.append(new("The total is cut."))
    resolve_comment(store, stored.id, SHA, "Widened it.", clock)
    event = ThreadEvent(
        ReplyKind.REPLY, Role.REVIEWER, words, author=DANA, marks={"trust": "identified"}
    )
    changed = converse(store, stored.id, event)
    return changed, thread_of(changed)[-1].id


def listed(store: CommentStore, comment_id: str) -> Comment:
    return next(c for c in list_all(store, BRANCH) if c.id == comment_id)


def answering(outcome: str) -> ScriptedClassifier:
    return ScriptedClassifier(lambda prompt: {"outcome": outcome, "remarks": []})


def test_every_noting_store_says_so(store: CommentStore) -> None:
    assert Capability.NOTE in store.capabilities


def test_a_reading_is_kept_on_its_entry_through_later_writes(
    store: CommentStore, clock: FakeClock
) -> None:
    comment, entry_id = answered(store, clock)
    reading = classify_reply(store, comment, entry_id, answering("approved"), clock)
    assert reading.classification is not None
    converse(store, comment.id, ThreadEvent.reply(Role.AGENT, "Thanks!"))
    store.append(new("Another comment."))
    now = listed(store, comment.id)
    entry = next(r for r in thread_of(now) if r.id == entry_id)
    kept = classification_of(entry)
    assert kept == reading.classification
    assert (kept.outcome, kept.applied, kept.harness) == (
        Outcome.APPROVED,
        Transition.CONFIRM,
        "memory",
    )
    assert entry.trust == "identified"  # the entry's own marks and fields stay as written
    assert entry.body == "LGTM now"
    confirmation = confirmation_of(now)
    assert confirmation is not None
    assert confirmation.classified == entry_id


def test_an_entry_is_read_once_whoever_reads_the_store_again(
    store: CommentStore, clock: FakeClock
) -> None:
    comment, entry_id = answered(store, clock, "what about dark mode?")
    classifier = answering("wait")
    classify_reply(store, comment, entry_id, classifier, clock)
    again = classify_reply(store, listed(store, comment.id), entry_id, classifier, clock)
    assert again.skipped == "read already"
    assert len(classifier.prompts) == 1


def test_two_readings_at_once_keep_one(store: CommentStore, clock: FakeClock) -> None:
    comment, entry_id = answered(store, clock)
    both = threading.Barrier(2)

    def script(prompt: str) -> Any:
        both.wait(timeout=30)  # both have asked before either writes
        return {"outcome": "changes-requested", "remarks": []}

    classifier = ScriptedClassifier(script)
    readings: list[Any] = []
    workers = [
        threading.Thread(
            target=lambda: readings.append(
                classify_reply(store, comment, entry_id, classifier, clock)
            )
        )
        for _ in range(2)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert sorted(r.skipped or "" for r in readings) == ["", "another reading landed first"]
    now = listed(store, comment.id)
    assert [r.kind for r in thread_of(now)].count(ReplyKind.REOPEN) == 1
    assert now.status.value == "open"


def test_a_reading_undone_is_kept_as_undone(store: CommentStore, clock: FakeClock) -> None:
    comment, entry_id = answered(store, clock)
    classify_reply(store, comment, entry_id, answering("approved"), clock)
    undo_reading(store, comment.id, entry_id, DANA, clock)
    now = listed(store, comment.id)
    record = classification_of(next(r for r in thread_of(now) if r.id == entry_id))
    assert record is not None
    assert record.undone is not None
    assert confirmation_of(now) is None


@pytest.mark.parametrize(
    "factory",
    [p for p in STORE_ADAPTERS if str(p.id).startswith("route-")],
)
def test_a_route_keeps_no_notes(
    factory: StoreFactory, clock: FakeClock, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    store = factory(clock, tmp_path, request)
    assert Capability.NOTE not in store.capabilities
    comment, entry_id = answered(store, clock)
    classifier = answering("approved")
    with pytest.raises(MissingCapabilityError, match="set MAPLE_CLASSIFIER there"):
        classify_reply(store, comment, entry_id, classifier, clock)
    assert classifier.prompts == []
    assert CLASSIFICATION not in thread_of(listed(store, comment.id))[-1].extra
