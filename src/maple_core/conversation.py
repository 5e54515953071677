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

Every change to a thread is a :class:`~maple_core.thread_events.ThreadEvent`, applied by
:func:`~maple_core.thread_events.apply_event` under the store's write lock; what a thread says
(who spoke last, what is new, what was confirmed) is read by :mod:`maple_core.threads`.

Entries may carry maple's marks beside their fields: ``trust`` (why maple takes a reviewer's
words as a trusted person's, given only by the path they arrived on) and ``classified`` (on a
confirmation or reopening maple made from a reviewer's words: the entry it read them in).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from maple_core.comments import Comment
from maple_core.errors import InvalidInputError
from maple_core.fields import object_of
from maple_core.json_types import JsonObject, JsonValue, without_none

__all__ = [
    "CLASSIFICATION",
    "CLASSIFIED",
    "ConversationError",
    "MAX_REPLIES",
    "MAX_REPLY_CHARS",
    "REPLIES",
    "Reply",
    "ReplyKind",
    "Role",
    "TRUST",
    "agent_author",
    "thread_of",
    "with_thread",
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
        out.update(
            without_none({"author": self.author, "at": self.at, "receivedAt": self.received_at})
        )
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
