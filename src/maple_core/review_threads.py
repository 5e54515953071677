"""A review thread read as a maple comment: its replies, its resolutions and its reopenings.

A thread is resolved on GitHub, where maple's reply names the commit; a reviewer's words after
maple's resolution reopen it, unless a classifier reads them first (``MAPLE_CLASSIFIER``).
Replies from people the trust policy holds are listed apart, never shown to the agent.
"""

from __future__ import annotations

from maple_core.anchors import Anchor
from maple_core.comments import Comment, Resolution
from maple_core.conversation import CLASSIFICATION, TRUST, ReplyKind, Role
from maple_core.feedback import Classification, Transition, Trust
from maple_core.json_types import JsonObject, JsonValue
from maple_core.own_posts import resolve_note
from maple_core.page_context import Context
from maple_core.pull_review import (
    AWAITING_READING,
    GITHUB,
    NOTE_PREFIX,
    Mark,
    Note,
    ReviewKind,
    ReviewRef,
    Thread,
    github_author,
)
from maple_core.review_reader import ReviewReader, arrival_key, capped
from maple_core.statuses import CommentStatus
from maple_core.trust import Standing

__all__ = ["read_thread"]


def read_thread(reader: ReviewReader, thread: Thread) -> list[Comment]:
    """A review thread as a comment (none when held or maple's own), its held replies apart."""
    notes = thread.notes
    if not notes or reader.own(notes[0]):
        return []
    pull = reader.pr.pull
    ref = ReviewRef(ReviewKind.THREAD, pull, thread.root)
    line = thread.line or thread.original_line or 1
    anchor = Anchor(source=f"{thread.path}:{line}", located_by=GITHUB)
    standings = [reader.standing(n, notes[i + 1 :]) for i, n in enumerate(notes)]
    first = notes[0]
    if standings[0] is Standing.HELD:
        reader.hold(ref.id, first, ReviewKind.THREAD, anchor)
        return []
    mark = reader.marks.get(ref.id, Mark())
    entries: list[JsonValue] = [*mark.replies]
    last_resolve: Note | None = None
    answered: list[JsonObject] = []  # reviewers' words after maple's latest resolution
    for note, standing in zip(notes[1:], standings[1:], strict=True):
        if reader.own(note):
            entries.append(reader.own_entry(note))
            if note.own is not None and note.own.kind == "resolve":
                last_resolve, answered = note, []
        elif standing is Standing.HELD:
            held_id = f"{NOTE_PREFIX}_{pull}_{note.id}"
            reader.hold(held_id, note, ReviewKind.THREAD, anchor, reply_to=ref.id)
        else:
            entry = _reviewer_entry(reader, note, standing, mark)
            entries.append(entry)
            answered.append(entry)
    reopening = [e for e in answered if _reopens(reader, e)]
    status, resolution = _thread_status(reader, thread, last_resolve, bool(reopening))
    by_maple = (thread.resolved_by or "").lower() in reader.own_logins
    if status is CommentStatus.RESOLVED and last_resolve is not None and by_maple and answered:
        newest = answered[-1]  # the newest words decide; earlier ones are answered by them
        if CLASSIFICATION not in newest and newest.get(TRUST) == Trust.GITHUB.value:
            newest[GITHUB] = {AWAITING_READING: True}
    if last_resolve is not None and not thread.resolved:
        entries.append(_reopen_entry(reader, thread, last_resolve))
    details: JsonObject = {
        "kind": ReviewKind.THREAD.value,
        "standing": standings[0].value,
        "association": first.author.association,
        "path": thread.path,
        "line": thread.line,
        "originalLine": thread.original_line,
        "outdated": thread.outdated,
        "resolvedOnGitHub": thread.resolved,
        "gate": True,
    }
    if thread.resolved_by is not None:
        details["resolvedBy"] = thread.resolved_by
    context = Context(
        url=first.url, extra={"diffHunk": thread.diff_hunk, "outdated": thread.outdated}
    )
    return [
        reader.comment(
            ref, first, standings[0], anchor, context, status, resolution, entries, details
        )
    ]


def _reopens(reader: ReviewReader, entry: JsonObject) -> bool:
    """Whether a reviewer's words after maple's resolution reopen the thread.

    They do, as they always did, unless a classifier reads them: then a trusted reply
    reopens only once read as ``changes-requested`` (or once its reading is undone: a
    person overrode maple), and waits for its reading until then.
    """
    record = Classification.from_json(entry.get(CLASSIFICATION))
    if record is not None:
        return record.undone is not None or record.applied is Transition.REOPEN
    return not (reader.pr.reading and entry.get(TRUST) == Trust.GITHUB.value)


def _thread_status(
    reader: ReviewReader, thread: Thread, last_resolve: Note | None, answered: bool
) -> tuple[CommentStatus, Resolution | None]:
    """Open, or resolved; a reviewer's words after maple's resolution reopen it.

    A thread somebody else resolved stays resolved whatever was said in it: they decided.
    """
    resolution = None
    if last_resolve is not None and last_resolve.own is not None and last_resolve.own.sha:
        resolution = Resolution(
            sha=last_resolve.own.sha,
            at=last_resolve.created_at,
            note=resolve_note(last_resolve.body, last_resolve.own.sha),
        )
    if not thread.resolved:
        return CommentStatus.OPEN, resolution
    by_maple = (thread.resolved_by or "").lower() in reader.own_logins
    if by_maple and last_resolve is not None and answered:
        return CommentStatus.OPEN, resolution
    return CommentStatus.RESOLVED, resolution


def _reviewer_entry(reader: ReviewReader, note: Note, standing: Standing, mark: Mark) -> JsonObject:
    """A reviewer's reply in a thread, with its reading when the ledger keeps one.

    A trusted person's (never a bot's) is marked ``trust: github``: the one kind of GitHub
    reply a classifier may read.
    """
    entry_id = f"{NOTE_PREFIX}_{reader.pr.pull}_{note.id}"
    entry: JsonObject = {
        "id": entry_id,
        "role": Role.REVIEWER.value,
        "kind": ReplyKind.REPLY.value,
        "body": capped(note.body, note.url),
        "author": github_author(note.author),
        "at": note.created_at,
        "receivedAt": reader.arrival(arrival_key(note, standing)),
        "question": False,
    }
    if standing is Standing.ENDORSED:
        entry[GITHUB] = {"standing": standing.value}
    elif standing is Standing.TRUSTED and not note.author.bot:
        entry[TRUST] = Trust.GITHUB.value
    reading = mark.readings.get(entry_id)
    if reading is not None:
        entry[CLASSIFICATION] = reading
    return entry


def _reopen_entry(reader: ReviewReader, thread: Thread, last_resolve: Note) -> JsonObject:
    undone: JsonObject = {"at": last_resolve.created_at}
    if last_resolve.own is not None and last_resolve.own.sha:
        undone["sha"] = last_resolve.own.sha
    return {
        "id": f"{NOTE_PREFIX}_{reader.pr.pull}_{last_resolve.id}_reopened",
        "role": Role.REVIEWER.value,
        "kind": ReplyKind.REOPEN.value,
        "body": "Unresolved on GitHub.",
        "author": {"id": "github", "name": "GitHub", "provenance": GITHUB},
        "at": None,
        "receivedAt": reader.arrival(f"reopen{last_resolve.id}"),
        "question": False,
        "resolution": undone,
    }
