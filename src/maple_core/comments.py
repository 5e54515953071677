"""Comment, anchor, context and resolution values in Maple's JSON shapes.

Each value knows the fields maple reads and keeps every other key in ``extra``, so a record
written by another tool (or a newer Maple) survives a round trip through any store unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from maple_core.errors import InvalidRecordError
from maple_core.json_types import JsonObject, JsonValue
from maple_core.statuses import CommentStatus, parse_status

__all__ = [
    "Anchor",
    "Comment",
    "Context",
    "NewComment",
    "RegionMember",
    "Resolution",
]

Number = int | float


def object_of(value: JsonValue, what: str) -> JsonObject:
    """Return ``value`` as a JSON object, or raise naming ``what`` it should have been."""
    if not isinstance(value, dict):
        raise InvalidRecordError(f"{what} must be a JSON object, not {_kind(value)}")
    return value


def optional_str(obj: JsonObject, key: str, what: str) -> str | None:
    """Return ``obj[key]`` when it is a string, ``None`` when absent; raise on another type."""
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    raise InvalidRecordError(f"{what}.{key} must be a string, not {_kind(value)}")


def required_str(obj: JsonObject, key: str, what: str) -> str:
    """Return ``obj[key]`` as a string, or raise naming the missing key."""
    value = obj.get(key)
    if isinstance(value, str):
        return value
    raise InvalidRecordError(f"{what} needs a string {key!r}; it has {_kind(value)}")


def _optional_number(obj: JsonObject, key: str) -> Number | None:
    value = obj.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return None


def _kind(value: object) -> str:
    if value is None:
        return "nothing"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), "a number"
    )


def _put(out: JsonObject, key: str, value: JsonValue) -> None:
    if value is not None:
        out[key] = value


_ANCHOR_KEYS = frozenset({"source", "component", "selector", "locatedBy", "quote", "members"})


@dataclass(frozen=True, slots=True)
class RegionMember:
    """One element a region comment's rectangle covers (Maple ``RegionMember``)."""

    anchor: Anchor
    overlap: Number | None = None
    extra: JsonObject = field(default_factory=dict)

    @classmethod
    def from_json(cls, value: JsonValue) -> RegionMember:
        """Read a member from its JSON object."""
        obj = object_of(value, "a region member")
        inner = obj.get("anchor")
        return cls(
            anchor=Anchor.from_json(inner) if inner is not None else Anchor(),
            overlap=_optional_number(obj, "overlap"),
            extra={k: v for k, v in obj.items() if k not in ("anchor", "overlap")},
        )

    def to_json(self) -> JsonObject:
        """Return the member's JSON object."""
        out: JsonObject = {"anchor": self.anchor.to_json()}
        _put(out, "overlap", self.overlap)
        out.update(self.extra)
        return out


@dataclass(frozen=True, slots=True)
class Anchor:
    """Where a comment points (Maple ``CommentAnchor``).

    ``key``, ``region`` and unknown keys stay in ``extra``.
    """

    source: str | None = None
    component: str | None = None
    selector: str | None = None
    located_by: str | None = None
    quote: JsonObject | None = None
    members: tuple[RegionMember, ...] = ()
    extra: JsonObject = field(default_factory=dict)

    @property
    def quote_exact(self) -> str | None:
        """The quoted text, when the anchor quotes some."""
        exact = self.quote.get("exact") if self.quote else None
        return exact if isinstance(exact, str) else None

    @classmethod
    def from_json(cls, value: JsonValue) -> Anchor:
        """Read an anchor from its JSON object."""
        obj = object_of(value, "a comment's anchor")
        quote = obj.get("quote")
        members = obj.get("members")
        return cls(
            source=optional_str(obj, "source", "anchor"),
            component=optional_str(obj, "component", "anchor"),
            selector=optional_str(obj, "selector", "anchor"),
            located_by=optional_str(obj, "locatedBy", "anchor"),
            quote=object_of(quote, "anchor.quote") if quote is not None else None,
            members=tuple(RegionMember.from_json(m) for m in members)
            if isinstance(members, list)
            else (),
            extra={k: v for k, v in obj.items() if k not in _ANCHOR_KEYS},
        )

    def to_json(self) -> JsonObject:
        """Return the anchor's JSON object."""
        out: JsonObject = {}
        _put(out, "source", self.source)
        _put(out, "component", self.component)
        _put(out, "selector", self.selector)
        _put(out, "locatedBy", self.located_by)
        _put(out, "quote", self.quote)
        if self.members:
            out["members"] = [m.to_json() for m in self.members]
        out.update(self.extra)
        return out


_CONTEXT_KEYS = frozenset(
    {"url", "viewportWidth", "viewportHeight", "devicePixelRatio", "colorScheme", "mock"}
)


@dataclass(frozen=True, slots=True)
class Context:
    """The reviewer's environment when writing (Maple ``CommentContext``)."""

    url: str | None = None
    viewport_width: Number | None = None
    viewport_height: Number | None = None
    device_pixel_ratio: Number | None = None
    color_scheme: str | None = None
    mock: JsonObject | None = None
    extra: JsonObject = field(default_factory=dict)

    @classmethod
    def from_json(cls, value: JsonValue) -> Context:
        """Read a context from its JSON object."""
        obj = object_of(value, "a comment's context")
        mock = obj.get("mock")
        return cls(
            url=optional_str(obj, "url", "context"),
            viewport_width=_optional_number(obj, "viewportWidth"),
            viewport_height=_optional_number(obj, "viewportHeight"),
            device_pixel_ratio=_optional_number(obj, "devicePixelRatio"),
            color_scheme=optional_str(obj, "colorScheme", "context"),
            mock=object_of(mock, "context.mock") if mock is not None else None,
            extra={k: v for k, v in obj.items() if k not in _CONTEXT_KEYS},
        )

    def to_json(self) -> JsonObject:
        """Return the context's JSON object."""
        out: JsonObject = {}
        _put(out, "url", self.url)
        _put(out, "viewportWidth", self.viewport_width)
        _put(out, "viewportHeight", self.viewport_height)
        _put(out, "devicePixelRatio", self.device_pixel_ratio)
        _put(out, "colorScheme", self.color_scheme)
        _put(out, "mock", self.mock)
        out.update(self.extra)
        return out


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
        _put(out, "note", self.note)
        out["at"] = self.at
        out.update(self.extra)
        return out


_COMMENT_KEYS = frozenset(
    {"id", "branch", "body", "status", "createdAt", "receivedAt", "anchor", "context", "resolution"}
)


@dataclass(frozen=True, slots=True)
class NewComment:
    """A comment as a reviewer submits it, before a store gives it an id.

    ``received_at`` is never taken from the caller: the store stamps the arrival.
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
        return _read_new_comment(object_of(value, "a comment"))

    def stored(self, comment_id: str, received_at: str, created_at: str) -> Comment:
        """Return the comment a store keeps: an id, the arrival stamp, and a ``createdAt``.

        ``created_at`` is used only when the comment was submitted without one; stores pass the
        arrival in Maple's millisecond format so Maple's own cursors compare it correctly.
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
            extra=self.extra,
        )


@dataclass(frozen=True, slots=True)
class Comment:
    """A stored review comment (Maple ``Comment``) plus maple's arrival stamp ``receivedAt``.

    ``label``, ``commit``, ``author``, ``attachments`` and ``parentId`` are kept in ``extra`` as
    Maple wrote them.
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
        """Read a stored comment from its JSON object.

        Raises:
            InvalidRecordError: the object lacks a string ``id``, ``branch`` or ``body``, or a
                field has the wrong type.
        """
        obj = object_of(value, "a comment")
        new = _read_new_comment(obj)
        return cls(
            id=required_str(obj, "id", "a stored comment"),
            branch=new.branch,
            body=new.body,
            status=new.status,
            created_at=new.created_at,
            received_at=optional_str(obj, "receivedAt", "comment"),
            anchor=new.anchor,
            context=new.context,
            resolution=new.resolution,
            extra=new.extra,
        )

    def to_json(self) -> JsonObject:
        """Return the comment's JSON object in Maple's shape."""
        out: JsonObject = {"id": self.id, "branch": self.branch, "body": self.body}
        out["status"] = self.status.value
        _put(out, "createdAt", self.created_at)
        _put(out, "receivedAt", self.received_at)
        out["anchor"] = self.anchor.to_json()
        if self.context is not None:
            out["context"] = self.context.to_json()
        if self.resolution is not None:
            out["resolution"] = self.resolution.to_json()
        out.update(self.extra)
        return out

    def with_status(self, status: CommentStatus, resolution: Resolution | None = None) -> Comment:
        """Return this comment with a new status; the resolution is replaced only when given."""
        if resolution is None:
            return replace(self, status=status)
        return replace(self, status=status, resolution=resolution)

    @property
    def arrival(self) -> str | None:
        """The stamp a wait judges freshness on: ``receivedAt``, else ``createdAt``."""
        return self.received_at if self.received_at is not None else self.created_at


def _read_new_comment(obj: JsonObject) -> NewComment:
    anchor = obj.get("anchor")
    context = obj.get("context")
    resolution = obj.get("resolution")
    try:
        status = parse_status(obj.get("status", CommentStatus.OPEN.value))
    except ValueError as exc:
        raise InvalidRecordError(f"a comment's status: {exc}") from None
    return NewComment(
        branch=required_str(obj, "branch", "a comment"),
        body=required_str(obj, "body", "a comment"),
        anchor=Anchor.from_json(anchor) if anchor is not None else Anchor(),
        context=Context.from_json(context) if context is not None else None,
        created_at=optional_str(obj, "createdAt", "comment"),
        status=status,
        resolution=Resolution.from_json(resolution) if resolution is not None else None,
        extra={k: v for k, v in obj.items() if k not in _COMMENT_KEYS},
    )
