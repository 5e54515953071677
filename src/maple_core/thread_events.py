"""Every change to a comment's thread, as a :class:`ThreadEvent` applied by :func:`apply_event`.

A store applies an event under its write lock and supplies only the new entry's id and stamps.
An :class:`EntryNote` is the one change to an entry already there: a note maple keeps on it (a
reviewer's reply's classification, see :mod:`maple_core.feedback`), decided under the same lock,
with the event it brings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from maple_core.comments import Comment, Resolution
from maple_core.conversation import (
    CLASSIFIED,
    MAX_REPLIES,
    MAX_REPLY_CHARS,
    REPLIES,
    TRUST,
    ConversationError,
    Reply,
    ReplyKind,
    Role,
    thread_of,
)
from maple_core.fields import kind_of, object_of
from maple_core.json_types import JsonObject, JsonValue
from maple_core.statuses import CommentStatus
from maple_core.threads import confirmation_of

__all__ = [
    "EntryNote",
    "NoteDecision",
    "ThreadEvent",
    "apply_event",
]

_MARKS = frozenset({TRUST, CLASSIFIED})

_ROLES = {r.value: r for r in Role}
_KINDS = {k.value: k for k in ReplyKind}


@dataclass(frozen=True, slots=True)
class ThreadEvent:
    """A change to a comment's thread, as a caller asks for it; the store stamps it.

    Attributes:
        kind: what the entry records.
        role: who speaks; a reviewer's entry can never ask a question.
        body: the words (the reason, for ``reopen``; the note, for ``resolve``).
        question: the agent asks the reviewer and waits for the answer.
        author: who wrote it, in Maple's author shape, when known.
        resolution: for ``resolve``, the resolution asked for.
        marks: maple's marks for the entry (``trust``, ``classified``); only maple's own code
            sets them, never a caller's posted fields.
        by: for the agent's entries, the agent, model and session that wrote it
            (:meth:`~maple_core.claims.Claimant.signature`).
    """

    kind: ReplyKind
    role: Role
    body: str = ""
    question: bool = False
    author: JsonObject | None = None
    resolution: Resolution | None = None
    marks: JsonObject = field(default_factory=dict)
    by: JsonObject | None = None

    def __post_init__(self) -> None:
        if len(self.body) > MAX_REPLY_CHARS:
            raise ConversationError(
                f"The reply is longer than {MAX_REPLY_CHARS:,} characters; shorten it."
            )
        needs_words = self.kind in (ReplyKind.REPLY, ReplyKind.REOPEN)
        if needs_words and not self.body.strip():
            what = "a reason for reopening" if self.kind is ReplyKind.REOPEN else "some words"
            raise ConversationError(f"The {self.kind.value} is empty; give {what}.")
        if self.question and (self.role is not Role.AGENT or self.kind is not ReplyKind.REPLY):
            raise ConversationError("Only the agent's reply can be a question.")
        if (self.kind is ReplyKind.RESOLVE) != (self.resolution is not None):
            raise ConversationError("A resolve, and only a resolve, carries a resolution.")
        if self.kind in (ReplyKind.REOPEN, ReplyKind.CONFIRM) and self.role is not Role.REVIEWER:
            raise ConversationError(
                f"Only a reviewer can {self.kind.value} a comment; the agent replies or resolves."
            )
        if set(self.marks) - _MARKS or (TRUST in self.marks and self.role is not Role.REVIEWER):
            raise ConversationError("Only maple's marks go on an entry, and trust on a reviewer's.")

    @classmethod
    def reply(
        cls,
        role: Role,
        body: str,
        *,
        question: bool = False,
        author: JsonObject | None = None,
        by: JsonObject | None = None,
    ) -> ThreadEvent:
        """Words in the conversation (a question, when the agent asks one)."""
        return cls(ReplyKind.REPLY, role, body, question, author, by=by)

    @classmethod
    def reopen(cls, reason: str, author: JsonObject | None = None) -> ThreadEvent:
        """A reviewer reopens a resolved comment, saying why."""
        return cls(ReplyKind.REOPEN, Role.REVIEWER, reason, author=author)

    @classmethod
    def confirm(cls, note: str = "", author: JsonObject | None = None) -> ThreadEvent:
        """A reviewer confirms the comment's resolution."""
        return cls(ReplyKind.CONFIRM, Role.REVIEWER, note, author=author)

    @classmethod
    def resolve(cls, resolution: Resolution, author: JsonObject | None = None) -> ThreadEvent:
        """The agent resolves the comment (recorded in the thread if it already was).

        The resolution's ``by`` (its writer, when known) is the entry's too.
        """
        by = resolution.extra.get("by")
        return cls(
            ReplyKind.RESOLVE,
            Role.AGENT,
            resolution.note or "",
            False,
            author,
            resolution,
            by=by if isinstance(by, dict) else None,
        )

    @classmethod
    def from_json(cls, value: JsonValue, *, role: Role | None = None) -> ThreadEvent:
        """Read an event posted to a route: ``{kind?, body?, question?, role?}``.

        ``role`` (when given) overrides what was posted: a reviewer's browser never speaks as
        the agent.

        Raises:
            ConversationError: a field has the wrong type, or the event does not hold together.
        """
        obj = object_of(value, "a thread event")
        posted_kind = obj.get("kind", "reply")
        kind = _KINDS.get(posted_kind) if isinstance(posted_kind, str) else None
        if kind is None or kind is ReplyKind.RESOLVE:
            raise ConversationError(
                "'kind' must be reply, reopen or confirm (resolve with PATCH /comments/{id})."
            )
        posted_role = obj.get("role", "reviewer")
        said = _ROLES.get(posted_role) if isinstance(posted_role, str) else None
        if said is None:
            raise ConversationError(
                f"'role' must be agent or reviewer, not {kind_of(posted_role)}."
            )
        body = obj.get("body", "")
        if not isinstance(body, str):
            raise ConversationError(f"'body' must be a string, not {kind_of(body)}.")
        question = obj.get("question", False)
        if not isinstance(question, bool):
            raise ConversationError(f"'question' must be true or false, not {kind_of(question)}.")
        return cls(kind, role or said, body, question)


NoteDecision = Callable[["Comment", Reply], "tuple[JsonObject, ThreadEvent | None] | None"]
"""Given the comment and the entry as stored: the note to keep and the event it brings (or
``None`` for none), or ``None`` to leave the comment as it is."""


@dataclass(frozen=True, slots=True)
class EntryNote:
    """A note maple keeps on an entry already in the thread, and the change it brings.

    ``decide`` runs under the store's write lock on the comment as stored, so what it decides
    (record a classification and confirm, say) holds against every write made meanwhile. The
    note replaces the entry's ``key``; the entry's other fields stay as written.

    Attributes:
        entry_id: the entry noted.
        key: where the note goes on the entry (:data:`~maple_core.conversation.CLASSIFICATION`).
        decide: see :data:`NoteDecision`.
    """

    entry_id: str
    key: str
    decide: NoteDecision


def apply_event(
    comment: Comment, event: ThreadEvent | EntryNote, reply_id: str, received_at: str, at: str
) -> Comment:
    """The comment after ``event``, its entry stored as ``reply_id`` with the store's stamps.

    An :class:`EntryNote` notes an entry already there (and a new entry its event brings takes
    ``reply_id``).

    ``received_at`` is the store's arrival stamp for the entry (strictly later than every stamp
    in the ledger, see :func:`~maple_core.threads.activity_stamps`); ``at`` is when it was
    written, in JavaScript's format.

    Raises:
        ConversationError: the comment cannot take the event: only a resolved comment can be
            reopened or confirmed, and a thread holds at most :data:`MAX_REPLIES` entries.
    """
    raw = comment.extra.get(REPLIES)
    if raw is not None and not isinstance(raw, list):
        raise ConversationError(
            f"Comment {comment.id} holds 'replies' that are not a list, which maple will not "
            "overwrite; fix or remove that key where the store keeps the comment."
        )
    if isinstance(event, EntryNote):
        return _noted(comment, event, reply_id, received_at, at)
    thread = thread_of(comment)
    wordy = event.kind is ReplyKind.REPLY or (
        event.kind is ReplyKind.RESOLVE and comment.status is CommentStatus.RESOLVED
    )
    if wordy and len(thread) >= MAX_REPLIES:
        raise ConversationError(
            f"Comment {comment.id} already has {MAX_REPLIES} replies; open a new comment to go on."
        )
    entry = Reply(
        id=reply_id,
        role=event.role,
        body=event.body,
        at=at,
        received_at=received_at,
        question=event.question,
        kind=event.kind,
        author=event.author,
        by=event.by,
        extra=dict(event.marks),
    )
    resolved = comment.status is CommentStatus.RESOLVED
    if event.kind is ReplyKind.REPLY:
        return _appended(comment, entry)
    if event.kind is ReplyKind.RESOLVE:
        assert event.resolution is not None  # checked by ThreadEvent
        if not resolved or comment.resolution is None:
            return comment.with_status(CommentStatus.RESOLVED, event.resolution)
        # Resolved already: the first evidence stays, the second is recorded.
        return _appended(comment, replace(entry, resolution=_recorded(event.resolution)))
    if not resolved or comment.resolution is None:
        done = "reopened" if event.kind is ReplyKind.REOPEN else "confirmed"
        raise ConversationError(
            f"Comment {comment.id} is {comment.status.value}; only a resolved comment can be "
            f"{done}."
        )
    undone = _recorded(comment.resolution)
    if event.kind is ReplyKind.CONFIRM:
        if _confirmed_already(comment, entry):
            return comment
        confirmed: JsonObject = {"sha": comment.resolution.sha, "at": comment.resolution.at}
        return _appended(comment, replace(entry, resolution=confirmed))
    # Open again with its resolution kept, as Maple's own reopening leaves it; the entry names
    # the resolution it undid, and the next resolve replaces it.
    return _appended(comment.with_status(CommentStatus.OPEN), replace(entry, resolution=undone))


def _noted(comment: Comment, note: EntryNote, reply_id: str, received_at: str, at: str) -> Comment:
    """The comment with ``note`` kept on its entry, then the event the note brings applied."""
    raw = comment.extra.get(REPLIES)
    entries: list[JsonValue] = list(raw) if isinstance(raw, list) else []
    index = next(
        (
            i
            for i, e in enumerate(entries)
            if isinstance(e, dict) and e.get("id") == note.entry_id and note.entry_id
        ),
        None,
    )
    if index is None:
        raise ConversationError(
            f"Comment {comment.id} has no thread entry {note.entry_id[:80]!r}; list the comment "
            "for its entries' ids."
        )
    decided = note.decide(comment, Reply.from_json(entries[index]))
    if decided is None:
        return comment
    kept, then = decided
    entry = entries[index]
    assert isinstance(entry, dict)
    entries[index] = {**entry, note.key: kept}
    noted = replace(comment, extra={**comment.extra, REPLIES: entries})
    return noted if then is None else apply_event(noted, then, reply_id, received_at, at)


def _confirmed_already(comment: Comment, entry: Reply) -> bool:
    """True when ``entry`` (a confirmation) would add nothing to ``comment``'s standing one.

    A person's confirmation stands for good. One maple made from a reading can be withdrawn
    (undone, its words edited), so a person's Confirm, or another reading's, is kept beside
    it: withdrawing one leaves the other standing.
    """
    standing = confirmation_of(comment)
    return standing is not None and (
        standing.classified is None or standing.classified == entry.classified
    )


_MAX_SHA_CHARS = 256


def _recorded(resolution: Resolution) -> JsonObject:
    """A resolution as a thread entry records it: its sha, note and time, each capped.

    The entry copies the resolution, so a note of any length (Maple's route takes one) must
    not make every reopening as long as it.
    """
    recorded: JsonObject = {"sha": resolution.sha[:_MAX_SHA_CHARS], "at": resolution.at}
    by = resolution.extra.get("by")
    if isinstance(by, dict):
        recorded["by"] = by
    if resolution.note is not None:
        note = resolution.note
        recorded["note"] = (
            note if len(note) <= MAX_REPLY_CHARS else note[: MAX_REPLY_CHARS - 1] + "…"
        )
    return recorded


def _appended(comment: Comment, entry: Reply) -> Comment:
    """The comment with ``entry`` after its thread; the entries already there stay as written.

    A thread already holding :data:`MAX_REPLIES` entries sheds its oldest plain replies to
    take it, then its oldest other entries (the new one always stays).
    """
    raw = comment.extra.get(REPLIES)
    kept: list[JsonValue] = [*(raw if isinstance(raw, list) else []), entry.to_json()]
    excess = sum(isinstance(e, dict) for e in kept) - MAX_REPLIES
    if excess > 0:
        kept = _shed_oldest(kept, excess)
    return replace(comment, extra={**comment.extra, REPLIES: kept})


def _shed_oldest(entries: list[JsonValue], count: int) -> list[JsonValue]:
    """``entries`` without ``count`` of them: the oldest plain replies, then the oldest others.

    The last entry (the one just added) is never shed.
    """

    def status_change(index: int) -> bool:
        return Reply.from_json(entries[index]).kind is not ReplyKind.REPLY

    objects = [i for i, e in enumerate(entries[:-1]) if isinstance(e, dict)]
    gone = set(sorted(objects, key=lambda i: (status_change(i), i))[:count])
    return [e for i, e in enumerate(entries) if i not in gone]
