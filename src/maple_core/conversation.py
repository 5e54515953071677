"""A comment's thread: replies, questions, reopening and confirming, as values and rules.

A thread lives inside its comment as ``replies: [...]`` (a key Maple does not know, so Maple
keeps it through every rewrite and never counts a reply as a comment). Each entry is a
:class:`Reply`: who wrote it (``role`` ``agent`` or ``reviewer``, and an ``author``), its
``body``, when it was written (``at``) and when the store received it (``receivedAt``, on the
same strictly increasing scale as comments' arrival stamps, so a waiting agent's cursor covers
both), whether it asks the reviewer a question, and its ``kind``:

- ``reply``: words in the conversation;
- ``reopen``: a reviewer reopened the resolved comment, with the reason as the body and the
  resolution it undid under ``resolution``;
- ``confirm``: a reviewer confirmed the resolution under ``resolution`` (its ``sha`` and ``at``);
- ``resolve``: an agent resolved an already resolved comment again; the first resolution stays
  the comment's evidence and this one is recorded here.

Every change to a thread is a :class:`ThreadEvent`, applied by :func:`apply_event` under the
store's write lock; the store only supplies the new entry's id and stamps. An
:class:`EntryNote` is the one change to an entry already there: a note maple keeps on it (a
reviewer's reply's classification, see :mod:`maple_core.feedback`), decided under the same lock,
with the event it brings.

Entries may carry maple's marks beside their fields: ``trust`` (why maple takes a reviewer's
words as a trusted person's, given only by the path they arrived on) and ``classified`` (on a
confirmation or reopening maple made from a reviewer's words: the entry it read them in).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum

from maple_core.comments import Comment, Resolution, kind_of, object_of
from maple_core.cursor import latest_stamp, parse_stamp, wakes_agent
from maple_core.errors import InvalidInputError
from maple_core.json_types import JsonObject, JsonValue
from maple_core.statuses import CommentStatus
from maple_core.stop import waiting_for_reviewer
from maple_core.text import text_hash

__all__ = [
    "CLASSIFICATION",
    "CLASSIFIED",
    "ConversationError",
    "EntryNote",
    "MAX_REPLIES",
    "MAX_REPLY_CHARS",
    "REPLIES",
    "Reply",
    "ReplyKind",
    "Role",
    "TRUST",
    "ThreadEvent",
    "activity_stamps",
    "agent_author",
    "apply_event",
    "awaiting_reviewer",
    "confirmation_of",
    "latest_activity",
    "newest_reviewer_words",
    "reviewer_replies_after",
    "thread_of",
    "with_thread",
    "withdrawn",
]

REPLIES = "replies"
"""The comment's key its thread is kept under."""
TRUST = "trust"
"""The entry's mark saying why its words are a trusted reviewer's (:mod:`maple_core.feedback`)."""
CLASSIFIED = "classified"
"""The mark on an entry maple made from a classification: the id of the entry it classified."""
CLASSIFICATION = "classification"
"""The key a reviewer's entry keeps its classification under."""
MAX_REPLY_CHARS = 10_000
"""The longest reply body taken, as for a comment's body."""
MAX_REPLIES = 200
"""The most entries one thread holds. A reply (or a recorded second resolve) is refused once
it is full: a longer conversation belongs in a new comment. Reopening, confirming and a first
resolve are never refused for it, so a flood of replies cannot keep a comment from being
resolved or reopened: a full thread sheds its oldest plain replies to take them, then its
oldest status changes, so the newest ones (those that decide the gate) always stay."""


class ConversationError(InvalidInputError):
    """Raised when a thread event does not fit the comment (reopening an open comment…)."""


class Role(StrEnum):
    """Who speaks in a thread: the coding agent or a reviewer."""

    AGENT = "agent"
    REVIEWER = "reviewer"


class ReplyKind(StrEnum):
    """What a thread entry records (see the module docstring)."""

    REPLY = "reply"
    REOPEN = "reopen"
    CONFIRM = "confirm"
    RESOLVE = "resolve"


_MARKS = frozenset({TRUST, CLASSIFIED})
_ROLES = {r.value: r for r in Role}
_KINDS = {k.value: k for k in ReplyKind}
_REPLY_KEYS = frozenset(
    {"id", "role", "kind", "body", "author", "at", "receivedAt", "question", "resolution", "by"}
)


def _str(obj: JsonObject, key: str) -> str | None:
    value = obj.get(key)
    return value if isinstance(value, str) else None


@dataclass(frozen=True, slots=True)
class Reply:
    """One entry in a comment's thread (see the module docstring for the JSON shape).

    A stored entry is read leniently, as comments are: a mistyped field reads as absent (an
    unknown role as ``reviewer``, so unknown words are never taken as the agent's own), and
    every key is kept as written for the next rewrite.
    """

    id: str
    role: Role
    body: str
    at: str | None = None
    received_at: str | None = None
    question: bool = False
    kind: ReplyKind = ReplyKind.REPLY
    author: JsonObject | None = None
    resolution: JsonObject | None = None
    by: JsonObject | None = None
    extra: JsonObject = field(default_factory=dict)

    @classmethod
    def from_json(cls, value: JsonValue) -> Reply:
        """Read a stored entry (it must be an object)."""
        obj = object_of(value, "a reply")
        author, resolution, by = obj.get("author"), obj.get("resolution"), obj.get("by")
        return cls(
            id=_str(obj, "id") or "",
            role=_ROLES.get(_str(obj, "role") or "", Role.REVIEWER),
            body=_str(obj, "body") or "",
            at=_str(obj, "at"),
            received_at=_str(obj, "receivedAt"),
            question=obj.get("question") is True,
            kind=_KINDS.get(_str(obj, "kind") or "", ReplyKind.REPLY),
            author=author if isinstance(author, dict) else None,
            resolution=resolution if isinstance(resolution, dict) else None,
            by=by if isinstance(by, dict) else None,
            extra=dict(obj),
        )

    def to_json(self) -> JsonObject:
        """The entry's JSON object; keys it was read with and did not change are kept."""
        out: JsonObject = {k: v for k, v in self.extra.items() if k not in _REPLY_KEYS}
        out.update({"id": self.id, "role": self.role.value, "kind": self.kind.value})
        out["body"] = self.body
        if self.author is not None:
            out["author"] = self.author
        if self.at is not None:
            out["at"] = self.at
        if self.received_at is not None:
            out["receivedAt"] = self.received_at
        out["question"] = self.question
        if self.resolution is not None:
            out["resolution"] = self.resolution
        if self.by is not None:
            out["by"] = self.by
        elif "by" in self.extra:
            out["by"] = self.extra["by"]
        return out

    @property
    def trust(self) -> str | None:
        """Why maple takes the words as a trusted reviewer's (the ``trust`` mark), if it does."""
        value = self.extra.get(TRUST)
        return value if isinstance(value, str) and self.role is Role.REVIEWER else None

    @property
    def classified(self) -> str | None:
        """For an entry maple made from a classification, the entry it classified."""
        value = self.extra.get(CLASSIFIED)
        return value if isinstance(value, str) else None

    @property
    def author_name(self) -> str:
        """The author's name, or the role when the entry names nobody."""
        name = self.author.get("name") if self.author else None
        return name if isinstance(name, str) and name.strip() else self.role.value


def agent_author() -> JsonObject:
    """The author of the coding agent's entries, in Maple's author shape."""
    return {"id": "agent", "name": "Coding agent", "provenance": "agent"}


def thread_of(comment: Comment) -> tuple[Reply, ...]:
    """The comment's thread in store order; entries that are not objects are skipped."""
    raw = comment.extra.get(REPLIES)
    if not isinstance(raw, list):
        return ()
    return tuple(Reply.from_json(r) for r in raw if isinstance(r, dict))


def with_thread(comment: Comment, replies: Sequence[Reply]) -> Comment:
    """The comment with ``replies`` as its thread (entries that are not objects are kept)."""
    raw = comment.extra.get(REPLIES)
    kept: list[JsonValue] = (
        [r for r in raw if not isinstance(r, dict)] if isinstance(raw, list) else []
    )
    return replace(comment, extra={**comment.extra, REPLIES: kept + [r.to_json() for r in replies]})


def latest_activity(comment: Comment) -> str | None:
    """The latest stamp a store gave this comment or its thread (for the next arrival stamp)."""
    return latest_stamp(_stamps(comment))


def _stamps(comment: Comment) -> Iterator[str | None]:
    yield comment.arrival
    if REPLIES in comment.extra:
        for reply in thread_of(comment):
            yield reply.received_at


def activity_stamps(comments: Iterable[Comment]) -> Iterator[str | None]:
    """Every arrival stamp in ``comments``, their threads' included."""
    for comment in comments:
        yield from _stamps(comment)


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
        by: for the agent's entries, the agent, model and session that wrote it
            (:meth:`~maple_core.claims.Claimant.signature`).
        marks: maple's marks for the entry (``trust``, ``classified``); only maple's own code
            sets them, never a caller's posted fields.
    """

    kind: ReplyKind
    role: Role
    body: str = ""
    question: bool = False
    author: JsonObject | None = None
    resolution: Resolution | None = None
    by: JsonObject | None = None
    marks: JsonObject = field(default_factory=dict)

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
            by if isinstance(by, dict) else None,
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
        key: where the note goes on the entry (:data:`CLASSIFICATION`).
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
    in the ledger, see :func:`latest_activity`); ``at`` is when it was written, in JavaScript's
    format.

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
