"""A pull request's reviews and conversation comments read as maple comments.

Both are resolved in maple's ledger (a :class:`~maple_core.pull_review.Mark`), and maple answers
them in the conversation, its reply marked with the item it answers. A dismissed review is no
longer open work; only a reviewer's latest deciding review, requesting changes, holds the gate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from maple_core.anchors import Anchor
from maple_core.comments import Comment
from maple_core.conversation import CLASSIFICATION
from maple_core.json_types import JsonObject
from maple_core.page_context import Context
from maple_core.pull_review import (
    AWAITING_READING,
    Mark,
    Note,
    Review,
    ReviewKind,
    ReviewRef,
    ReviewState,
)
from maple_core.review_reader import ReviewReader
from maple_core.statuses import CommentStatus
from maple_core.trust import Standing

__all__ = ["latest_decisions", "read_conversation_comment", "read_review_body"]


def latest_decisions(reviews: Sequence[Review]) -> dict[str, int]:
    """Each reviewer's latest deciding review (approve, request changes, dismissed), by login."""
    latest: dict[str, int] = {}
    for item in reviews:
        if item.state is not ReviewState.COMMENTED:
            latest[item.note.author.login.lower()] = item.note.id
    return latest


def read_review_body(
    reader: ReviewReader, item: Review, latest: Mapping[str, int]
) -> list[Comment]:
    """A submitted review with a body as a comment (none when empty, held or maple's own).

    ``latest`` is each reviewer's latest deciding review: only that one, requesting changes,
    holds the gate.
    """
    note = item.note
    admitted = _admitted(reader, note, ReviewKind.REVIEW) if note.body.strip() else None
    if admitted is None:
        return []
    ref, standing, mark = admitted
    dismissed = item.state is ReviewState.DISMISSED
    status = CommentStatus.RESOLVED if dismissed else mark.status
    deciding = latest.get(note.author.login.lower()) == note.id
    details: JsonObject = {
        "kind": ReviewKind.REVIEW.value,
        "standing": standing.value,
        "association": note.author.association,
        "state": item.state.value,
        "gate": item.state is ReviewState.CHANGES_REQUESTED and deciding,
    }
    reading = mark.readings.get(ref.id)
    if reading is not None:
        details[CLASSIFICATION] = reading
    elif (
        reader.pr.reading
        and item.state is ReviewState.COMMENTED
        and standing is Standing.TRUSTED
        and not note.author.bot
        and status is CommentStatus.OPEN
    ):  # a trusted person's comment review says what they decided only in words
        details[AWAITING_READING] = True
    if item.commit is not None:
        details["commit"] = item.commit
    context = Context(url=note.url, extra={"reviewState": item.state.value})
    entries = [*mark.replies, *_answers(reader, ref.id)]
    return [
        reader.comment(
            ref, note, standing, Anchor(), context, status, mark.resolution, entries, details
        )
    ]


def read_conversation_comment(reader: ReviewReader, note: Note) -> list[Comment]:
    """A conversation comment as a comment (none when held or maple's own)."""
    admitted = _admitted(reader, note, ReviewKind.CONVERSATION)
    if admitted is None:
        return []
    ref, standing, mark = admitted
    details: JsonObject = {
        "kind": ReviewKind.CONVERSATION.value,
        "standing": standing.value,
        "association": note.author.association,
        "gate": False,
    }
    entries = [*mark.replies, *_answers(reader, ref.id)]
    return [
        reader.comment(
            ref,
            note,
            standing,
            Anchor(),
            Context(url=note.url) if note.url else None,
            mark.status,
            mark.resolution,
            entries,
            details,
        )
    ]


def _admitted(
    reader: ReviewReader, note: Note, kind: ReviewKind
) -> tuple[ReviewRef, Standing, Mark] | None:
    """The item's ref, its author's standing and its ledger mark, when it is read as a comment.

    ``None`` for maple's own item, and for a held one (which the reader keeps as held).
    """
    if reader.own(note):
        return None
    ref = ReviewRef(kind, reader.pr.pull, note.id)
    standing = reader.standing(note, _linking(reader, note))
    if standing is Standing.HELD:
        reader.hold(ref.id, note, kind, Anchor())
        return None
    return ref, standing, reader.marks.get(ref.id, Mark())


def _answers(reader: ReviewReader, target: str) -> list[JsonObject]:
    """The replies maple posted in the conversation to the item ``target``."""
    return [
        reader.own_entry(n)
        for n in reader.pr.conversation
        if reader.own(n) and n.own is not None and n.own.target == target
    ]


def _linking(reader: ReviewReader, note: Note) -> list[Note]:
    """Conversation comments after ``note`` that link to it or quote its first line."""
    return [
        other for other in reader.pr.conversation if other.id != note.id and _refers_to(other, note)
    ]


def _refers_to(other: Note, note: Note) -> bool:
    """Whether ``other`` links to ``note`` (its page anchor) or quotes its first line."""
    anchors = (f"#issuecomment-{note.id}", f"#pullrequestreview-{note.id}")
    if any(a in other.body for a in anchors):
        return True
    first = next((line.strip() for line in note.body.splitlines() if line.strip()), "")
    quoted = next(
        (line[1:].strip() for line in other.body.splitlines() if line.startswith(">")), None
    )
    return bool(first) and quoted == first
