"""Reading a pull request's trusted replies and reviews into outcomes, kept in the ledger.

With ``MAPLE_CLASSIFIER`` set, the store reads each thread's newest trusted reply after maple's
resolution and each trusted person's ``COMMENTED`` review the first time a read sees it
(:func:`read_awaiting`), and keeps a reply's reading a note asks for (:func:`note_reading`).
Readings are kept in the ledger's record of the item (:data:`READINGS`), under the ledger's
write, so two processes reading the same words keep one reading.
"""

from __future__ import annotations

import secrets
from dataclasses import replace
from typing import TYPE_CHECKING

from maple_core.classifier_ports import FeedbackClassifier
from maple_core.classifying import classify_reply, entry_of, read_review_body
from maple_core.comments import Comment
from maple_core.conversation import CLASSIFICATION, ConversationError, Reply, thread_of
from maple_core.cursor import format_js_timestamp
from maple_core.errors import MapleError
from maple_core.feedback import Transition
from maple_core.json_types import JsonObject
from maple_core.pull_review import (
    AWAITING_READING,
    GITHUB,
    ReviewKind,
    ReviewReading,
    ReviewRef,
    review_ref,
)
from maple_core.readings import review_remark_comments
from maple_core.statuses import CommentStatus
from maple_core.thread_events import EntryNote, apply_event

if TYPE_CHECKING:
    from maple_adapters.github.pull_store import PullRequestStore

__all__ = ["READINGS", "note_reading", "read_awaiting"]

READINGS = "readings"
"""Where the ledger's record of a review thread keeps the readings of its replies, by entry."""


def read_awaiting(store: PullRequestStore, review: ReviewReading) -> bool:
    """Read what awaits its reading; True if anything did.

    That is each thread's newest trusted reply after maple's resolution, and each trusted
    person's ``COMMENTED`` review (the core marks them). The reading is kept in the
    ledger's record of the item (:data:`READINGS`) under the ledger's write, so another
    process reading the same words keeps one reading, and words read already are never
    read again.
    """
    classifier = store.classifier
    if classifier is None or getattr(store._reading, "busy", False):
        return False
    awaiting = [
        (comment, entry_id)
        for comment in review.comments
        for entry_id, extra in [
            (comment.id, comment.extra),
            *((r.id, r.extra) for r in thread_of(comment)),
        ]
        if _awaits_reading(extra)
    ]
    store._reading.busy = True
    try:
        for comment, entry_id in awaiting:
            try:
                if entry_id == comment.id:  # a COMMENTED review's body
                    _read_review(store, comment, classifier)
                else:
                    classify_reply(
                        store, comment, entry_id, classifier, store.clock, report=store.report
                    )
            except MapleError as exc:
                if store.report is not None:
                    store.report(f"maple could not read {comment.id}: {exc}")
    finally:
        store._reading.busy = False
    return bool(awaiting)


def _read_review(store: PullRequestStore, review: Comment, classifier: FeedbackClassifier) -> None:
    """Read a trusted person's ``COMMENTED`` review, keep the reading, act on it.

    The reading is kept in the ledger's record of the review; approved (with comments or
    not) and changes-requested record the review as resolved, and each remark becomes an
    open comment linked to it; wait leaves it open work. A review read already, by this
    process or another, is not read again.
    """
    ref = review_ref(review.id)
    assert ref is not None
    record = read_review_body(review, classifier, store.clock)
    kept: list[bool] = []

    def recorded(mark: Comment, stamp: str) -> Comment:
        raw = mark.extra.get(READINGS)
        readings: JsonObject = dict(raw) if isinstance(raw, dict) else {}
        if review.id in readings:
            kept.clear()
            return mark  # another reading landed first
        kept.append(True)
        readings[review.id] = record.to_json()
        mark = replace(mark, extra={**mark.extra, READINGS: readings})
        if record.applied is Transition.NONE:
            return mark
        return mark.with_status(CommentStatus.RESOLVED)

    changed = store._mark(ref, recorded, "converse")
    drafts = review_remark_comments(changed, record) if kept else []
    if drafts:
        store.ledger.append_many(drafts)


def note_reading(store: PullRequestStore, ref: ReviewRef, note: EntryNote) -> Comment:
    """Keep ``note`` (a reading) on a thread's reply, in the ledger's record of the thread.

    ``decide`` sees the thread as the agent does and the reply with the reading the
    ledger holds as it is written (not as first read), so two readings at once keep one;
    the transition it brings (a confirmation, a reopening in the reviewer's words) joins
    the record's thread.
    """
    if ref.kind is not ReviewKind.THREAD or note.key != CLASSIFICATION:
        raise ConversationError(
            f"{ref.id} is on GitHub: only a reply in a review thread is read by maple."
        )
    added = f"ghr_{ref.pull}_{secrets.token_hex(6)}"
    current = store._current(ref, "converse")

    def noted(mark: Comment, stamp: str) -> Comment:
        raw = mark.extra.get(READINGS)
        readings: JsonObject = dict(raw) if isinstance(raw, dict) else {}
        said = entry_of(current, note.entry_id).to_json()
        said.pop(CLASSIFICATION, None)
        if note.entry_id in readings:
            said[CLASSIFICATION] = readings[note.entry_id]
        decided = note.decide(current, Reply.from_json(said))
        if decided is None:
            return mark
        kept, then = decided
        readings[note.entry_id] = kept
        mark = replace(mark, extra={**mark.extra, READINGS: readings})
        if then is None:
            return mark
        return apply_event(mark, then, added, stamp, format_js_timestamp(store.clock.now()))

    return store._mark(ref, noted, "converse", current)


def _awaits_reading(extra: JsonObject) -> bool:
    details = extra.get(GITHUB)
    return isinstance(details, dict) and details.get(AWAITING_READING) is True
