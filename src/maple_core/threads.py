"""Reading a comment's thread: its stamps, who spoke last, what is new, what was confirmed."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime

from maple_core.comments import Comment
from maple_core.conversation import CLASSIFICATION, REPLIES, Reply, ReplyKind, Role, thread_of
from maple_core.cursor import parse_stamp, wakes_agent
from maple_core.statuses import CommentStatus
from maple_core.text import text_hash
from maple_core.worklist import waiting_for_reviewer

__all__ = [
    "activity_stamps",
    "awaiting_reviewer",
    "confirmation_of",
    "newest_reviewer_words",
    "reviewer_replies_after",
    "withdrawn",
]


def _stamps(comment: Comment) -> Iterator[str | None]:
    yield comment.arrival
    if REPLIES in comment.extra:
        for reply in thread_of(comment):
            yield reply.received_at


def activity_stamps(comments: Iterable[Comment]) -> Iterator[str | None]:
    """Every arrival stamp in ``comments``, their threads' included."""
    for comment in comments:
        yield from _stamps(comment)


def confirmation_of(comment: Comment) -> Reply | None:
    """The reviewer's confirmation of the comment's current resolution, if any.

    A confirmation counts only for the resolution it names (its ``sha`` and ``at``) and only
    when no reopening came after it, so a comment reopened and resolved again (or resolved
    again through a route) needs confirming again. One maple made from a reviewer's words
    counts only while those words stand as classified (see :func:`withdrawn`).
    """
    resolution = comment.resolution
    if comment.status is not CommentStatus.RESOLVED or resolution is None:
        return None
    thread = thread_of(comment)
    for reply in reversed(thread):
        if reply.kind is ReplyKind.REOPEN:
            return None
        if (
            reply.kind is ReplyKind.CONFIRM
            and reply.role is Role.REVIEWER
            and reply.resolution is not None
            and reply.resolution.get("sha") == resolution.sha
            and reply.resolution.get("at") == resolution.at
            and not withdrawn(reply, thread)
        ):
            return reply
    return None


def withdrawn(entry: Reply, thread: Sequence[Reply]) -> bool:
    """True when ``entry`` was made from a classification that no longer stands.

    That is: the classification was undone, or the words it read were edited since (their hash
    differs from the one it recorded). An entry whose classified words are no longer in the
    thread (shed to keep it bounded) stands.
    """
    source_id = entry.classified
    if source_id is None:
        return False
    source = next((r for r in thread if r.id == source_id), None)
    if source is None:
        return False
    record = source.extra.get(CLASSIFICATION)
    if not isinstance(record, dict):
        return True  # maple's entry names words it never classified: not a classification
    return record.get("undone") is not None or record.get("textHash") != text_hash(source.body)


def awaiting_reviewer(comment: Comment) -> bool:
    """True when the agent's latest words are a question no reviewer has answered yet."""
    return REPLIES in comment.extra and waiting_for_reviewer(comment.extra)


def reviewer_replies_after(comment: Comment, since: datetime | None) -> tuple[Reply, ...]:
    """The reviewer's replies and reopenings received after ``since`` (all, when it is None).

    Confirmations ask nothing of the agent and are left out.
    """
    fresh: list[Reply] = []
    for reply in thread_of(comment):
        if not wakes_agent(reply.extra):
            continue
        instant = parse_stamp(reply.received_at) if reply.received_at else None
        if since is None or (instant is not None and instant > since):
            fresh.append(reply)
    return tuple(fresh)


def newest_reviewer_words(comment: Comment, limit: int = 3) -> tuple[Reply, ...]:
    """Up to ``limit`` of the reviewers' entries with words in them, newest first."""
    said = [r for r in thread_of(comment) if r.role is Role.REVIEWER and r.body.strip()]
    return tuple(reversed(said[-limit:])) if limit > 0 else ()
