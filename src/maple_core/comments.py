"""Comment, anchor, context and resolution values in Maple's JSON shapes.

Each value knows the fields maple reads and keeps every other key in ``extra``, so a record
written by another tool (or a newer Maple) survives a round trip through any store unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from maple_core.anchors import Anchor
from maple_core.authors import guest_author
from maple_core.errors import InvalidRecordError
from maple_core.fields import kind_of, object_of, optional_str, put_field, required_str
from maple_core.json_types import JsonObject, JsonValue
from maple_core.page_context import Context
from maple_core.statuses import CommentStatus

_STATUSES = {s.value: s for s in CommentStatus}

__all__ = ["Comment", "NewComment", "Resolution"]


@dataclass(frozen=True, slots=True)
class Resolution:
    """What claimed to resolve a comment: the commit, an optional note, and when."""

    sha: str
    at: str
    note: str | None = None
    extra: JsonObject = field(default_factory=dict)

    @classmethod
    def from_json(cls, value: JsonValue) -> Resolution:
        """Read a resolution from its JSON object."""
        obj = object_of(value, "a comment's resolution")
        return cls(
            sha=required_str(obj, "sha", "a resolution"),
            at=optional_str(obj, "at", "resolution") or "",
            note=optional_str(obj, "note", "resolution"),
            extra={k: v for k, v in obj.items() if k not in ("sha", "at", "note")},
        )

    def to_json(self) -> JsonObject:
        """Return the resolution's JSON object; ``note`` is absent when there is none."""
        out: JsonObject = {"sha": self.sha}
        put_field(out, "note", self.note)
        out["at"] = self.at
        out.update(self.extra)
        return out


_COMMENT_KEYS = frozenset(
    {"id", "branch", "body", "status", "createdAt", "receivedAt", "anchor", "context", "resolution"}
)


_STORE_KEYS = frozenset({"updatedAt", "claim"})
"""Keys only a store writes on a comment: never taken from a submitted one."""


@dataclass(frozen=True, slots=True)
class NewComment:
    """A comment as a reviewer submits it, before a store gives it an id.

    ``received_at``, ``updatedAt`` and ``claim`` are never taken from the caller: the store
    writes them.
    """

    branch: str
    body: str
    anchor: Anchor = field(default_factory=Anchor)
    context: Context | None = None
    created_at: str | None = None
    status: CommentStatus = CommentStatus.OPEN
    resolution: Resolution | None = None
    extra: JsonObject = field(default_factory=dict)

    @classmethod
    def from_json(cls, value: JsonValue) -> NewComment:
        """Read a submitted comment; ``id`` and ``receivedAt`` in the input are ignored."""
        branch, body, status, created_at, anchor, context, resolution, extra = _fields(
            object_of(value, "a comment")
        )
        return cls(branch, body, anchor, context, created_at, status, resolution, extra)

    def stored(
        self,
        comment_id: str,
        received_at: str,
        created_at: str,
        author: JsonObject | None = None,
    ) -> Comment:
        """Return the comment a store keeps: an id, the arrival stamp, and a ``createdAt``.

        ``created_at`` is used only when the comment was submitted without one; stores pass the
        arrival in Maple's millisecond format so Maple's own cursors compare it correctly. A
        comment submitted without an author gets ``author`` (the store's writer, else Maple's
        guest), and without a context an empty one, as Maple's writers need (see
        :meth:`Comment.for_maple`).
        """
        return Comment(
            id=comment_id,
            branch=self.branch,
            body=self.body,
            status=self.status,
            created_at=self.created_at if self.created_at is not None else created_at,
            received_at=received_at,
            anchor=self.anchor,
            context=self.context,
            resolution=self.resolution,
            # A store's own status change stamps updatedAt; a submitted one would let this
            # record win every later merge of racing ledgers, so it is never taken. A claim is
            # a store's too (a submitted one would keep every agent off the comment).
            extra={k: v for k, v in self.extra.items() if k not in _STORE_KEYS}
            if _STORE_KEYS & self.extra.keys()
            else self.extra,
        ).for_maple(author if author is not None else guest_author())


@dataclass(frozen=True, slots=True)
class Comment:
    """A stored review comment (Maple ``Comment``) plus maple's arrival stamp ``receivedAt``.

    ``label``, ``commit``, ``author``, ``attachments``, ``parentId`` and any key maple does not
    know are kept in ``extra`` as written, and so is a known field whose value maple cannot read
    (it then reads as absent), so every record survives every rewrite unchanged.
    """

    id: str
    branch: str
    body: str
    status: CommentStatus = CommentStatus.OPEN
    created_at: str | None = None
    received_at: str | None = None
    anchor: Anchor = field(default_factory=Anchor)
    context: Context | None = None
    resolution: Resolution | None = None
    extra: JsonObject = field(default_factory=dict)

    @classmethod
    def from_json(cls, value: JsonValue) -> Comment:
        """Read a stored comment from its JSON object, whatever its fields hold.

        A stored record is never refused for a mistyped field, so one bad record cannot hide
        the others: the field reads as absent (``""`` for ``id``, ``branch`` and ``body``, which
        then match no branch and no id) and is kept as written in ``extra``, so it survives every
        rewrite. :attr:`problems` names such fields.

        Raises:
            InvalidRecordError: the value is not a JSON object at all.
        """
        obj = object_of(value, "a comment")
        get = obj.get
        comment_id, received_at = get("id"), get("receivedAt")
        branch, body, status, created_at, anchor, context, resolution, extra = _fields(
            obj, lenient=True
        )
        if not isinstance(comment_id, str):
            extra["id"], comment_id = comment_id, ""
        if received_at is not None and not isinstance(received_at, str):
            extra["receivedAt"], received_at = received_at, None
        return cls(
            comment_id,
            branch,
            body,
            status,
            created_at,
            received_at,
            anchor,
            context,
            resolution,
            extra,
        )

    def for_maple(self, author: JsonObject) -> Comment:
        """The comment with what Maple's writers read on every record: an author and a context.

        Maple's GitHub store names every comment's ``author.name`` and reads its
        ``context.url`` on each write, and fails on a record without them. A comment that has
        none gets ``author`` and a context with an empty ``url``; one that has them, even in a
        shape maple cannot read, is left as it is.
        """
        missing_author = "author" not in self.extra
        missing_context = self.context is None and "context" not in self.extra
        if not (missing_author or missing_context):
            return self
        return replace(
            self,
            extra={**self.extra, "author": author} if missing_author else self.extra,
            context=Context(url="") if missing_context else self.context,
        )

    @property
    def problems(self) -> tuple[str, ...]:
        """The fields maple could not read (held as written in ``extra``), in key order."""
        if not self.extra:
            return ()
        return tuple(sorted(k for k in self.extra if k in _COMMENT_KEYS))

    def readable_json(self) -> JsonObject:
        """The comment as maple reads it: Maple's shape, without the fields it could not read.

        What tools and people are shown; :meth:`to_json` is what a store writes back.
        """
        if not self.problems:
            return self.to_json()
        kept = {k: v for k, v in self.extra.items() if k not in _COMMENT_KEYS}
        return replace(self, extra=kept).to_json()

    def to_json(self) -> JsonObject:
        """Return the comment's JSON object in Maple's shape."""
        out: JsonObject = {"id": self.id, "branch": self.branch, "body": self.body}
        out["status"] = self.status.value
        put_field(out, "createdAt", self.created_at)
        put_field(out, "receivedAt", self.received_at)
        out["anchor"] = self.anchor.to_json()
        if self.context is not None:
            out["context"] = self.context.to_json()
        if self.resolution is not None:
            out["resolution"] = self.resolution.to_json()
        out.update(self.extra)
        return out

    def with_status(self, status: CommentStatus, resolution: Resolution | None = None) -> Comment:
        """Return this comment with a new status; the resolution is replaced only when given."""
        replaced = ("status", "resolution") if resolution is not None else ("status",)
        extra = {k: v for k, v in self.extra.items() if k not in replaced}
        if resolution is None:
            return replace(self, status=status, extra=extra)
        return replace(self, status=status, resolution=resolution, extra=extra)

    @property
    def arrival(self) -> str | None:
        """The stamp a wait judges freshness on: ``receivedAt``, else ``createdAt``."""
        return self.received_at if self.received_at is not None else self.created_at


_Fields = tuple[
    str, str, CommentStatus, str | None, Anchor, Context | None, Resolution | None, JsonObject
]


def _fields(obj: JsonObject, *, lenient: bool = False) -> _Fields:
    """Read a comment's fields; a missing string ``branch`` or ``body`` is refused unless lenient.

    A known field whose value maple cannot read (Maple's route stores any truthy anchor, for
    one) reads as absent and is kept as written in ``extra``, so it survives every rewrite. An
    unknown status reads as ``open``: a comment maple cannot judge holds the gate.
    """
    get = obj.get
    branch, body = get("branch"), get("body")
    unknown = obj.keys() - _COMMENT_KEYS
    extra: JsonObject = {k: v for k, v in obj.items() if k in unknown} if unknown else {}
    if not isinstance(branch, str):
        if not lenient:
            raise InvalidRecordError(f"a comment needs a string 'branch'; it has {kind_of(branch)}")
        extra["branch"], branch = branch, ""
    if not isinstance(body, str):
        if not lenient:
            raise InvalidRecordError(f"a comment needs a string 'body'; it has {kind_of(body)}")
        extra["body"], body = body, ""
    created_at = get("createdAt")
    if created_at is not None and not isinstance(created_at, str):
        extra["createdAt"], created_at = created_at, None
    status = get("status", "open")
    parsed = _STATUSES.get(status) if isinstance(status, str) else None
    if parsed is None:
        extra["status"], parsed = status, CommentStatus.OPEN
    anchor_value, context_value = get("anchor"), get("context")
    resolution_value = get("resolution")
    if anchor_value is not None and not isinstance(anchor_value, dict):
        extra["anchor"] = anchor_value
    if context_value is not None and not isinstance(context_value, dict):
        extra["context"], context_value = context_value, None
    resolution: Resolution | None = None
    if isinstance(resolution_value, dict) and isinstance(resolution_value.get("sha"), str):
        resolution = Resolution.from_json(resolution_value)
    elif resolution_value is not None:
        extra["resolution"] = resolution_value
    return (
        branch,
        body,
        parsed,
        created_at if isinstance(created_at, str) else None,
        Anchor.from_json(anchor_value) if isinstance(anchor_value, dict) else Anchor(),
        Context.from_json(context_value) if context_value is not None else None,
        resolution,
        extra,
    )
