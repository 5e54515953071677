"""Use cases for reviewers' words: read a reply into an outcome, open its remarks, undo it.

Written against the ports, as ``services`` is: the store keeps the reading on the entry under
its write lock (:func:`~maple_core.readings.classification_note`), the harness is asked through
a :class:`~maple_core.classifier_ports.FeedbackClassifier`, and the time comes from a clock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from maple_core.classifier_ports import FeedbackClassifier
from maple_core.comments import Comment, NewComment
from maple_core.conversation import CLASSIFICATION, ConversationError, Reply, Role, thread_of
from maple_core.cursor import format_js_timestamp
from maple_core.errors import NotFoundError
from maple_core.feedback import (
    MAX_ATTEMPTS,
    OUTCOME_SCHEMA,
    REMARK_OF,
    Answer,
    Classification,
    HarnessAnswer,
    Outcome,
    classification_of,
    read_answer,
)
from maple_core.feedback_policy import refusal
from maple_core.feedback_prompt import feedback_prompt, review_prompt
from maple_core.json_types import JsonObject
from maple_core.listing import list_all
from maple_core.ports import Capability, Clock, CommentAmending, CommentConversation, CommentStore
from maple_core.readings import classification_note, remark_comments, review_reading, undo_note
from maple_core.resolving import conversation_with
from maple_core.statuses import CommentStatus
from maple_core.text import text_hash
from maple_core.thread_events import EntryNote, ThreadEvent

__all__ = [
    "Reading",
    "classify_reply",
    "entry_of",
    "noting",
    "read_review_body",
    "reply_to_classify",
    "undo_reading",
]


@dataclass(frozen=True, slots=True)
class Reading:
    """What :func:`classify_reply` did.

    Attributes:
        comment: the comment as it stands afterwards.
        entry_id: the entry read.
        classification: the reading kept on the entry (this one, or the one there already).
        skipped: why the harness was not asked (policy, or read already), when it was not.
        asked: how many times the harness was asked.
        remarks: the open comments made from the reading's remarks.
    """

    comment: Comment
    entry_id: str
    classification: Classification | None = None
    skipped: str | None = None
    asked: int = 0
    remarks: tuple[Comment, ...] = ()


def noting(store: CommentStore) -> CommentConversation:
    """The store as one that keeps notes on thread entries.

    Raises:
        MissingCapabilityError: it keeps none (a route keeps them where it runs).
    """
    return conversation_with(
        store,
        Capability.NOTE,
        "classify",
        "The {store} store keeps no classifications here; a route reads its reviewers' words "
        "where it runs (set MAPLE_CLASSIFIER there), or use MAPLE_STORE=file or github.",
    )


def entry_of(comment: Comment, entry_id: str) -> Reply:
    """The thread entry ``entry_id`` of ``comment``.

    Raises:
        ConversationError: the thread holds no such entry.
    """
    entry = next((r for r in thread_of(comment) if r.id == entry_id and entry_id), None)
    if entry is None:
        raise ConversationError(
            f"Comment {comment.id} has no thread entry {entry_id[:80]!r}; maple comments show "
            f"{comment.id} --json lists its entries."
        )
    return entry


def reply_to_classify(comment: Comment) -> Reply | None:
    """The reviewer's newest reply on ``comment``: what ``maple comments classify`` reads."""
    replies = [r for r in thread_of(comment) if r.role is Role.REVIEWER and r.body.strip()]
    return replies[-1] if replies else None


def classify_reply(
    store: CommentStore,
    comment: Comment,
    entry_id: str,
    classifier: FeedbackClassifier,
    clock: Clock,
    *,
    again: bool = False,
    report: Callable[[str], None] | None = None,
) -> Reading:
    """Read entry ``entry_id`` of ``comment`` into an outcome, keep it, and act on it.

    Nothing is asked of the harness for words policy does not read (see
    :func:`~maple_core.feedback.refusal`) or for an entry read already (unless ``again``, a
    re-run a person asked for). An answer outside the outcomes is asked again, at most
    :data:`~maple_core.feedback.MAX_ATTEMPTS` times in all, then is ``wait``; a harness that
    gives no answer at all (hung past its bound, signed out) is ``wait`` at once. The store
    decides under its lock whether the outcome's transition still applies; the remarks of an
    applied approved-with-comments reading become open comments. ``report`` hears a remark
    that could not be opened.

    Raises:
        MissingCapabilityError: the store keeps no notes on entries.
        ConversationError: the comment holds no such entry.
    """
    conversing = noting(store)
    entry = entry_of(comment, entry_id)
    why = refusal(comment, entry)
    if why is not None:
        return Reading(comment, entry_id, classification_of(entry), skipped=why)
    if CLASSIFICATION in entry.extra and not again:
        return Reading(comment, entry_id, classification_of(entry), skipped="read already")
    answer, record = _read(classifier, feedback_prompt(comment, entry), entry.body, clock)
    keeping = classification_note(entry_id, answer, record, again=again)
    written: list[JsonObject] = []  # what this reading's note kept, when it kept anything

    def decide(comment: Comment, entry: Reply) -> tuple[JsonObject, ThreadEvent | None] | None:
        decided = keeping.decide(comment, entry)
        if decided is not None:
            written.append(decided[0])
        return decided

    changed = conversing.converse(comment.id, EntryNote(entry_id, keeping.key, decide))
    kept_entry = entry_of(changed, entry_id)
    kept = classification_of(kept_entry)
    if kept is None or not written or kept != Classification.from_json(written[-1]):
        return Reading(
            changed, entry_id, kept, skipped="another reading landed first", asked=record.attempts
        )
    return Reading(
        changed,
        entry_id,
        kept,
        asked=record.attempts,
        remarks=_opened(store, changed, kept_entry, report),
    )


def read_review_body(
    review: Comment, classifier: FeedbackClassifier, clock: Clock
) -> Classification:
    """Ask the harness what a ``COMMENTED`` review's body decided: a reading to keep.

    Only for a trusted person's review, which the store decides (policy before the model); the
    outcome maps to its declared transition (:data:`~maple_core.readings.REVIEW_TRANSITIONS`).
    """
    answer, record = _read(classifier, review_prompt(review), review.body, clock)
    return review_reading(answer, record, review)


def _read(
    classifier: FeedbackClassifier, prompt: str, words: str, clock: Clock
) -> tuple[Answer, Classification]:
    """The harness's answer to ``prompt`` about ``words``, and the reading to keep of it."""
    answer, said, asked, note = _ask(classifier, prompt)
    record = Classification(
        outcome=answer.outcome,
        harness=classifier.name,
        model=said.model,
        at=format_js_timestamp(clock.now()),
        text_hash=text_hash(words),
        attempts=asked,
        note=note,
    )
    return answer, record


def _ask(
    classifier: FeedbackClassifier, prompt: str
) -> tuple[Answer, HarnessAnswer, int, str | None]:
    """The harness's answer, asked again while it answers outside the set."""
    said = HarnessAnswer()
    for attempt in range(1, MAX_ATTEMPTS + 1):
        said = classifier.classify(prompt, OUTCOME_SCHEMA)
        if said.failure is not None:
            return Answer(Outcome.WAIT), said, attempt, f"no answer: {said.failure}"
        answer = read_answer(said.structured)
        if answer is not None:
            return answer, said, attempt, None
    note = f"the harness answered outside the outcomes {MAX_ATTEMPTS} times"
    return Answer(Outcome.WAIT), said, MAX_ATTEMPTS, note


def _opened(
    store: CommentStore, comment: Comment, entry: Reply, report: Callable[[str], None] | None
) -> tuple[Comment, ...]:
    drafts = remark_comments(comment, entry)
    if not drafts:
        return ()
    try:
        drafts = _not_opened_yet(store, drafts)  # a re-run opens only the remarks it adds
        if not drafts:
            return ()
        if Capability.APPEND_MANY in store.capabilities:
            return tuple(store.append_many(drafts))
        return tuple(store.append(draft) for draft in drafts)
    except Exception as exc:  # the reading stands; its remarks are on the entry
        if report is not None:
            report(
                f"maple confirmed {comment.id} from a reviewer's reply but could not open its "
                f"remarks as comments ({type(exc).__name__}); they are kept on the reply."
            )
        return ()


def _not_opened_yet(store: CommentStore, drafts: list[NewComment]) -> list[NewComment]:
    """Those of ``drafts`` (one reading's remarks) no comment on the branch holds already."""
    link = drafts[0].extra.get(REMARK_OF)
    there = {c.body for c in list_all(store, drafts[0].branch) if c.extra.get(REMARK_OF) == link}
    return [d for d in drafts if d.body not in there]


def undo_reading(
    store: CommentStore, comment_id: str, entry_id: str, by: JsonObject, clock: Clock
) -> Comment:
    """Undo the reading of entry ``entry_id`` of comment ``comment_id``, as ``by`` asked.

    Its confirmation stops counting, a reopening it made is undone while nothing came after it
    (see :func:`~maple_core.readings.undo_note`), and the comments opened from its remarks that
    nobody has touched (still open, no thread) are deleted where the store can delete. Undoing
    a reading undone already changes nothing.

    Raises:
        MissingCapabilityError: the store keeps no notes on entries.
        ConversationError: the comment holds no such entry, or the entry no reading of maple's.
        NotFoundError: no comment has that id.
    """
    conversing = noting(store)
    at = format_js_timestamp(clock.now())
    changed = conversing.converse(comment_id, undo_note(entry_id, by, at))
    record = classification_of(entry_of(changed, entry_id))
    if record is None or record.undone is None:
        raise ConversationError(
            f"Entry {entry_id} of {comment_id} holds no reading of maple's to undo; only what "
            "maple understood from a reviewer's reply can be undone."
        )
    _delete_untouched_remarks(store, changed, entry_id)
    return changed


def _delete_untouched_remarks(store: CommentStore, comment: Comment, entry_id: str) -> None:
    if Capability.AMEND not in store.capabilities or not isinstance(store, CommentAmending):
        return
    link = {"comment": comment.id, "entry": entry_id}

    def untouched(candidate: Comment) -> None:
        if candidate.status is not CommentStatus.OPEN or thread_of(candidate):
            raise ConversationError("touched since")

    for remark in list_all(store, comment.branch):
        if remark.extra.get(REMARK_OF) != link:
            continue
        try:
            store.delete(remark.id, untouched)
        except (ConversationError, NotFoundError):
            continue
