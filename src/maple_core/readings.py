"""What a reading of a reviewer's words does, decided under the store's write lock.

:func:`classification_note` keeps a reading on its entry and makes its outcome's declared
transition (see :data:`~maple_core.feedback.TRANSITIONS`), only while the reply still answers the
comment's resolution and its words are those read; :func:`undo_note` undoes one;
:func:`remark_comments` are the open comments an approved-with-comments reading makes, each in
the reviewer's own words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType

from maple_core.comments import Comment, NewComment
from maple_core.conversation import (
    CLASSIFICATION,
    CLASSIFIED,
    TRUST,
    Reply,
    ReplyKind,
    Role,
    thread_of,
)
from maple_core.feedback import (
    CONFIRMING,
    MAX_REMARKS,
    REMARK_OF,
    TRANSITIONS,
    Answer,
    Classification,
    Outcome,
    Transition,
    classification_of,
)
from maple_core.feedback_policy import came_before, unheard, who
from maple_core.feedback_prompt import entries_after
from maple_core.json_types import JsonObject
from maple_core.statuses import CommentStatus
from maple_core.text import capped, flatten, text_hash
from maple_core.thread_events import EntryNote, ThreadEvent

__all__ = [
    "REVIEW_TRANSITIONS",
    "classification_note",
    "remark_comments",
    "review_reading",
    "review_remark_comments",
    "undo_note",
]

_MAX_REMARK_CHARS = 2_000  # all remarks together: they are kept on the entry too


def _remarks(answer: Answer, entry: Reply) -> tuple[str, ...]:
    """The remarks to open as comments, each the reviewer's own words.

    Those the reply holds word for word (case and spaces aside), at most :data:`MAX_REMARKS`;
    when none is, the reply itself. So every open comment made from a reading holds what the
    reviewer wrote, whatever the model wrote.
    """
    if answer.outcome is not Outcome.APPROVED_WITH_COMMENTS:
        return ()
    return _quoted(answer.remarks, entry.body)


def _quoted(remarks: Sequence[str], body: str) -> tuple[str, ...]:
    """Those of ``remarks`` ``body`` holds word for word (capped), else ``body`` itself."""
    said = flatten(body).casefold()
    kept: list[str] = []
    for remark in dict.fromkeys(flatten(r) for r in remarks):
        if remark and remark.casefold() in said and len(kept) < MAX_REMARKS:
            if sum(map(len, kept)) + len(remark) > _MAX_REMARK_CHARS:
                break
            kept.append(remark)
    return tuple(kept) or (capped(body.strip(), _MAX_REMARK_CHARS),)


REVIEW_TRANSITIONS: Mapping[Outcome, Transition] = MappingProxyType(
    {
        Outcome.APPROVED: Transition.CONFIRM,
        Outcome.APPROVED_WITH_COMMENTS: Transition.CONFIRM_AND_OPEN_REMARKS,
        Outcome.CHANGES_REQUESTED: Transition.CONFIRM_AND_OPEN_REMARKS,
        Outcome.WAIT: Transition.NONE,
    }
)
"""What reading a ``COMMENTED`` review does: approved records it (resolved in the ledger);
approved-with-comments and changes-requested record it and open each remark as a comment linked
to it, so the remarks carry the work; wait leaves it open work, as it was."""


def review_reading(answer: Answer, record: Classification, review: Comment) -> Classification:
    """The reading of a ``COMMENTED`` review's body, with its declared transition and remarks."""
    applied = REVIEW_TRANSITIONS[answer.outcome]
    remarks = (
        _quoted(answer.remarks, review.body)
        if applied is Transition.CONFIRM_AND_OPEN_REMARKS
        else ()
    )
    return replace(record, applied=applied, remarks=remarks)


def review_remark_comments(review: Comment, record: Classification) -> list[NewComment]:
    """The open comments a reading of a review opens: one per remark, linked to the review."""
    if record.applied is not Transition.CONFIRM_AND_OPEN_REMARKS or record.undone is not None:
        return []
    extra: JsonObject = {REMARK_OF: {"comment": review.id, "entry": review.id}}
    author = review.extra.get("author")
    if isinstance(author, dict):
        extra["author"] = author
    return [NewComment(branch=review.branch, body=r, extra=dict(extra)) for r in record.remarks]


# -- the decision, under the store's lock ---------------------------------------------------


def _not_applicable(comment: Comment, entry: Reply) -> str | None:
    """Why the outcome's transition no longer applies to ``comment`` (superseded), or ``None``.

    The comment must still be resolved with the resolution the reply answered, and no later
    entry may have answered it since: a reviewer's reply, reopening or confirmation, or the
    agent's new resolution (maple's own entries made from this reply aside).
    """
    if comment.status is not CommentStatus.RESOLVED or comment.resolution is None:
        return f"the comment is {comment.status.value} now"
    if came_before(entry.at, comment.resolution.at):
        return "the comment was resolved again after these words"
    for later in entries_after(entry, thread_of(comment)):
        if later.classified == entry.id:
            continue
        if later.role is Role.REVIEWER or later.kind is ReplyKind.RESOLVE:
            return f"{who(later)}'s later {later.kind.value} answered it first"
    return None


def _event(comment: Comment, entry: Reply, applied: Transition) -> ThreadEvent | None:
    """The thread event of a transition, in the reviewer's name and marked as maple's reading."""
    marks: JsonObject = {CLASSIFIED: entry.id}
    if entry.trust is not None:
        marks[TRUST] = entry.trust
    if applied is Transition.REOPEN:
        return ThreadEvent(
            ReplyKind.REOPEN, Role.REVIEWER, entry.body, author=entry.author, marks=marks
        )
    if applied in CONFIRMING:  # added unless one that cannot be withdrawn stands already
        return ThreadEvent(ReplyKind.CONFIRM, Role.REVIEWER, "", author=entry.author, marks=marks)
    return None


def classification_note(
    entry_id: str, answer: Answer, record: Classification, *, again: bool = False
) -> EntryNote:
    """The note that keeps ``record`` on its entry and makes the outcome's transition.

    Decided under the store's lock: nothing happens to words policy does not hear, or to an
    entry classified already (unless ``again``, a re-run asked for); the transition applies
    only while the reply still answers the comment's resolution and its words are those read.
    """

    def decide(comment: Comment, entry: Reply) -> tuple[JsonObject, ThreadEvent | None] | None:
        if unheard(entry) is not None:
            return None
        if CLASSIFICATION in entry.extra and not again:
            return None
        why = _not_applicable(comment, entry)
        if record.text_hash != text_hash(entry.body):
            why = "the words changed while maple read them"
        transition = TRANSITIONS[record.outcome]
        applied = Transition.NONE if why is not None else transition
        kept = replace(
            record,
            applied=applied,
            why=why if transition is not Transition.NONE else None,
            remarks=_remarks(answer, entry) if applied is not Transition.NONE else (),
        )
        return kept.to_json(), _event(comment, entry, applied)

    return EntryNote(entry_id, CLASSIFICATION, decide)


def undo_note(entry_id: str, by: JsonObject, at: str) -> EntryNote:
    """The note that undoes an entry's classification, as a person asked.

    Its confirmation stops counting (``conversation.withdrawn``); a reopening it made is undone
    too (the comment resolved again with the resolution it undid) while nothing came after it.
    An entry with no classification, or one undone already, is left as it is.
    """

    def decide(comment: Comment, entry: Reply) -> tuple[JsonObject, ThreadEvent | None] | None:
        record = classification_of(entry)
        if record is None or record.undone is not None:
            return None
        undone = replace(record, undone={"by": by, "at": at})
        event = None
        if record.applied is Transition.REOPEN and _restorable(comment, entry):
            assert comment.resolution is not None  # checked by _restorable
            event = ThreadEvent(ReplyKind.RESOLVE, Role.REVIEWER, resolution=comment.resolution)
        return undone.to_json(), event

    return EntryNote(entry_id, CLASSIFICATION, decide)


def _restorable(comment: Comment, entry: Reply) -> bool:
    """True when the comment is open from maple's reopening for ``entry``, and nothing since."""
    if comment.status is not CommentStatus.OPEN or comment.resolution is None:
        return False
    reopenings = [r for r in thread_of(comment) if r.kind is ReplyKind.REOPEN]
    last = reopenings[-1] if reopenings else None
    undid = last.resolution if last is not None else None
    return (
        last is not None
        and last.classified == entry.id
        and undid is not None
        and undid.get("sha") == comment.resolution.sha
        and undid.get("at") == comment.resolution.at
    )


def remark_comments(comment: Comment, entry: Reply) -> list[NewComment]:
    """The open comments an applied approved-with-comments reading of ``entry`` makes.

    One per remark, in the reviewer's name, where the comment was (its anchor and context),
    linked to it under :data:`REMARK_OF`; none for any other reading.
    """
    record = classification_of(entry)
    if record is None or record.applied is not Transition.CONFIRM_AND_OPEN_REMARKS:
        return []
    link: JsonObject = {"comment": comment.id, "entry": entry.id}
    extra: JsonObject = {REMARK_OF: link}
    if entry.author is not None:
        extra["author"] = entry.author
    return [
        NewComment(
            branch=comment.branch,
            body=remark,
            anchor=comment.anchor,
            context=comment.context,
            extra=dict(extra),
        )
        for remark in record.remarks
    ]
