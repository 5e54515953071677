"""The shape of a new comment and of a status change, checked before anything is written.

Pure rules over parsed JSON: each reader returns a value a store can take, or raises
:class:`~maple_core.errors.InvalidRecordError` with a message that names the field and the fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from maple_core.comments import NewComment
from maple_core.cursor import parse_stamp
from maple_core.errors import InvalidRecordError
from maple_core.fields import kind_of
from maple_core.json_types import JsonObject, JsonValue
from maple_core.statuses import CommentStatus

__all__ = [
    "MAX_ATTACHMENTS",
    "MAX_BATCH",
    "MAX_BODY_CHARS",
    "StatusChange",
    "read_drafts",
    "read_status_change",
]

MAX_BATCH = 500
"""The most comments one ``POST /comments`` may carry."""

MAX_BODY_CHARS = 10_000
"""The longest comment body taken, in characters."""

MAX_ATTACHMENTS = 20
"""The most attachments one comment may carry."""

_COMMIT = re.compile(r"[0-9a-f]{7,40}")
_SERVER_KEYS = ("id", "receivedAt", "updatedAt", "author", "resolution")
_STATUS_NAMES = ", ".join(s.value for s in CommentStatus)


def _draft(value: JsonValue, where: str, author: JsonObject) -> NewComment:
    if not isinstance(value, dict):
        raise InvalidRecordError(f"{where} must be a JSON object, not {kind_of(value)}.")
    problems = []
    for key in ("branch", "body"):
        if not isinstance(value.get(key), str):
            problems.append(f"'{key}' must be a string, not {kind_of(value.get(key))}")
    if value.get("branch") == "":
        problems.append("'branch' must not be empty")
    body = value.get("body")
    if isinstance(body, str) and len(body) > MAX_BODY_CHARS:
        problems.append(
            f"'body' is longer than {MAX_BODY_CHARS:,} characters; shorten it or split it into "
            "several comments"
        )
    anchor, context = value.get("anchor"), value.get("context")
    if anchor is None:
        problems.append("'anchor' is required (an object saying where the comment points)")
    elif not isinstance(anchor, dict):
        problems.append(
            f"'anchor' must be an object saying where the comment points, not {kind_of(anchor)}"
        )
    if context is not None and not isinstance(context, dict):
        problems.append(
            f"'context' must be an object (the page's url, viewport…), not {kind_of(context)}"
        )
    created_at = value.get("createdAt")
    if created_at is not None and not (
        isinstance(created_at, str) and parse_stamp(created_at) is not None
    ):
        problems.append(
            "'createdAt' must be an ISO 8601 timestamp string such as "
            f'"2026-01-01T12:00:00.000Z", not {_shown(created_at)}; or leave it out'
        )
    problems.extend(_attachment_problems(value.get("attachments")))
    label, commit = value.get("label"), value.get("commit")
    if label is not None and not isinstance(label, str):
        problems.append(f"'label' must be a string, not {kind_of(label)}")
    if commit is not None and not (isinstance(commit, str) and _COMMIT.fullmatch(commit)):
        problems.append("'commit' must be 7 to 40 lower-case hex digits")
    status = value.get("status")
    if status is not None and status != CommentStatus.OPEN.value:
        problems.append("'status' of a new comment can only be \"open\"; resolve it with PATCH")
    if problems:
        listed = "; ".join(problems)
        raise InvalidRecordError(f"A branch and a body are required: {where} has {listed}.")
    kept = {k: v for k, v in value.items() if k not in _SERVER_KEYS}
    kept["author"] = author
    return NewComment.from_json(kept)


def _attachment_problems(attachments: JsonValue) -> list[str]:
    if attachments is None:
        return []
    if not isinstance(attachments, list) or not all(isinstance(a, dict) for a in attachments):
        return [
            "'attachments' must be an array of objects (the media references POST /media answered)"
        ]
    if len(attachments) > MAX_ATTACHMENTS:
        return [
            f"{len(attachments)} attachments; a comment may carry at most {MAX_ATTACHMENTS} "
            "attachments"
        ]
    return []


def _shown(value: JsonValue) -> str:
    """A submitted value for an error message: a short string quoted, anything else its kind."""
    if isinstance(value, str) and len(value) <= 40:
        return repr(value)
    return kind_of(value)


def read_drafts(value: JsonValue, author: JsonObject) -> tuple[list[NewComment], bool]:
    """The comments a ``POST /comments`` body asks for, and whether it sent an array.

    Each needs a string ``branch`` (not empty), a string ``body`` of at most
    :data:`MAX_BODY_CHARS` characters and an object ``anchor`` (Maple's route took any truthy
    one). When present, ``context`` must be an object, ``createdAt`` an ISO 8601 timestamp
    string, ``attachments`` an array of at most :data:`MAX_ATTACHMENTS` objects, ``label`` a
    string and ``commit`` 7–40 hex digits. The author is the route's to say (``author``), and a
    client cannot send an id, an arrival stamp, an update stamp or a resolution: those keys are
    dropped, as Maple's route drops a resolution. An empty array asks for nothing and is read
    as no comments, as Maple's batch append of none writes nothing.

    Raises:
        InvalidRecordError: naming the first comment that is wrong and every problem with it.
    """
    if isinstance(value, list):
        if len(value) > MAX_BATCH:
            raise InvalidRecordError(
                f"{len(value)} comments in one request is too many; send at most {MAX_BATCH}."
            )
        return [_draft(v, f"comment {i}", author) for i, v in enumerate(value, 1)], True
    return [_draft(value, "the comment", author)], False


@dataclass(frozen=True, slots=True)
class StatusChange:
    """A ``PATCH /comments/{id}`` body: the new status and, when claimed, its resolution."""

    status: CommentStatus
    sha: str | None = None
    note: str | None = None


def read_status_change(value: JsonValue) -> StatusChange:
    """Read ``{status, resolution?: {sha, note?}}``; the time of a resolution is never read.

    Raises:
        InvalidRecordError: the status is unknown, or a resolution lacks a string ``sha``.
    """
    if not isinstance(value, dict):
        raise InvalidRecordError(
            f'A status change must be a JSON object like {{"status": "resolved"}}, '
            f"not {kind_of(value)}."
        )
    status = value.get("status")
    try:
        parsed = CommentStatus(status) if isinstance(status, str) else None
    except ValueError:
        parsed = None
    if parsed is None:
        raise InvalidRecordError(f"A known status is required: one of {_STATUS_NAMES}.")
    claimed = value.get("resolution")
    if claimed is None:
        return StatusChange(parsed)
    sha = claimed.get("sha") if isinstance(claimed, dict) else None
    note = claimed.get("note") if isinstance(claimed, dict) else None
    if not isinstance(sha, str) or not sha:
        raise InvalidRecordError(
            'A resolution needs a sha: send {"sha": "<commit>", "note": "..."}.'
        )
    if note is not None and not isinstance(note, str):
        raise InvalidRecordError(f"A resolution's note must be a string, not {kind_of(note)}.")
    return StatusChange(parsed, sha, note)
