"""Comment, anchor, context and resolution values in Maple's JSON shapes.

Each value knows the fields maple reads and keeps every other key in ``extra``, so a record
written by another tool (or a newer Maple) survives a round trip through any store unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from maple_core.authors import guest_author
from maple_core.errors import InvalidRecordError
from maple_core.json_types import JsonObject, JsonValue
from maple_core.statuses import CommentStatus

_STATUSES = {s.value: s for s in CommentStatus}

__all__ = [
    "Anchor",
    "Comment",
    "Context",
    "NewComment",
    "Number",
    "RegionMember",
    "Resolution",
    "kind_of",
    "object_of",
    "optional_str",
    "required_str",
]

Number = int | float
"""A JSON number as Python reads it."""


def object_of(value: JsonValue, what: str) -> JsonObject:
    """Return ``value`` as a JSON object, or raise naming ``what`` it should have been."""
    if not isinstance(value, dict):
        raise InvalidRecordError(f"{what} must be a JSON object, not {kind_of(value)}")
    return value


def optional_str(obj: JsonObject, key: str, what: str) -> str | None:
    """Return ``obj[key]`` when it is a string, ``None`` when absent; raise on another type."""
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    raise InvalidRecordError(f"{what}.{key} must be a string, not {kind_of(value)}")


def required_str(obj: JsonObject, key: str, what: str) -> str:
    """Return ``obj[key]`` as a string, or raise naming the missing key."""
    value = obj.get(key)
    if isinstance(value, str):
        return value
    raise InvalidRecordError(f"{what} needs a string {key!r}; it has {kind_of(value)}")


def kind_of(value: object) -> str:
    """How an error message names a JSON value's type (``a string``, ``nothing``…)."""
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
            overlap=_number_or_none(obj.get("overlap")),
            extra={k: v for k, v in obj.items() if k not in ("anchor", "overlap")},
        )

    def to_json(self) -> JsonObject:
        """Return the member's JSON object."""
        out: JsonObject = {"anchor": self.anchor.to_json()}
        _put(out, "overlap", self.overlap)
        out.update(self.extra)
        return out


def _str_or_none(value: JsonValue) -> str | None:
    return value if isinstance(value, str) else None


def _number_or_none(value: JsonValue) -> Number | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return None


def _object_or_none(value: JsonValue) -> JsonObject | None:
    return value if isinstance(value, dict) else None


@dataclass(frozen=True, slots=True, init=False)
class Anchor:
    """Where a comment points (Maple ``CommentAnchor``), as a view over its JSON object.

    Reading a stored anchor wraps its object without copying, so listing thousands of comments
    stays cheap; each field is read (and type-checked, a mistyped one reading as absent) when
    asked for. ``key``, ``region`` and unknown keys are in ``extra``.
    """

    data: JsonObject

    def __init__(
        self,
        *,
        source: str | None = None,
        component: str | None = None,
        selector: str | None = None,
        located_by: str | None = None,
        quote: JsonObject | None = None,
        members: tuple[RegionMember, ...] = (),
        extra: JsonObject | None = None,
    ) -> None:
        data: JsonObject = {}
        _put(data, "source", source)
        _put(data, "component", component)
        _put(data, "selector", selector)
        _put(data, "locatedBy", located_by)
        _put(data, "quote", quote)
        if members:
            data["members"] = [m.to_json() for m in members]
        data.update(extra or {})
        object.__setattr__(self, "data", data)

    @classmethod
    def from_json(cls, value: JsonValue) -> Anchor:
        """Wrap an anchor's JSON object (it must be an object)."""
        anchor = cls.__new__(cls)
        object.__setattr__(anchor, "data", object_of(value, "a comment's anchor"))
        return anchor

    @property
    def source(self) -> str | None:
        """``path/to/file.tsx:line:col``, when known."""
        return _str_or_none(self.data.get("source"))

    @property
    def component(self) -> str | None:
        """The component's display name, when known."""
        return _str_or_none(self.data.get("component"))

    @property
    def selector(self) -> str | None:
        """A CSS selector for the element, when known."""
        return _str_or_none(self.data.get("selector"))

    @property
    def located_by(self) -> str | None:
        """How ``source`` was found: ``tagger`` or ``owner-stack``."""
        return _str_or_none(self.data.get("locatedBy"))

    @property
    def quote(self) -> JsonObject | None:
        """The quoted text and its surroundings (``exact``, ``prefix``, ``suffix``, ``offset``)."""
        return _object_or_none(self.data.get("quote"))

    @property
    def quote_exact(self) -> str | None:
        """The quoted text, when the anchor quotes some."""
        quote = self.quote
        return _str_or_none(quote.get("exact")) if quote else None

    @property
    def members(self) -> tuple[RegionMember, ...]:
        """The elements a region comment covers."""
        members = self.data.get("members")
        if not isinstance(members, list):
            return ()
        return tuple(RegionMember.from_json(m) for m in members if isinstance(m, dict))

    @property
    def extra(self) -> JsonObject:
        """Every key but the ones above."""
        return {k: v for k, v in self.data.items() if k not in _ANCHOR_KEYS}

    def to_json(self) -> JsonObject:
        """Return the anchor's JSON object (a copy)."""
        return dict(self.data)


_CONTEXT_KEYS = frozenset(
    {"url", "viewportWidth", "viewportHeight", "devicePixelRatio", "colorScheme", "mock"}
)


@dataclass(frozen=True, slots=True, init=False)
class Context:
    """The reviewer's environment when writing (Maple ``CommentContext``), as a view over JSON.

    Like :class:`Anchor`, a stored context is wrapped without copying and read field by field.
    """

    data: JsonObject

    def __init__(
        self,
        *,
        url: str | None = None,
        viewport_width: Number | None = None,
        viewport_height: Number | None = None,
        device_pixel_ratio: Number | None = None,
        color_scheme: str | None = None,
        mock: JsonObject | None = None,
        extra: JsonObject | None = None,
    ) -> None:
        data: JsonObject = {}
        _put(data, "url", url)
        _put(data, "viewportWidth", viewport_width)
        _put(data, "viewportHeight", viewport_height)
        _put(data, "devicePixelRatio", device_pixel_ratio)
        _put(data, "colorScheme", color_scheme)
        _put(data, "mock", mock)
        data.update(extra or {})
        object.__setattr__(self, "data", data)

    @classmethod
    def from_json(cls, value: JsonValue) -> Context:
        """Wrap a context's JSON object (it must be an object)."""
        context = cls.__new__(cls)
        object.__setattr__(context, "data", object_of(value, "a comment's context"))
        return context

    @property
    def url(self) -> str | None:
        """The page the reviewer was on."""
        return _str_or_none(self.data.get("url"))

    @property
    def viewport_width(self) -> Number | None:
        """The viewport's width in CSS pixels."""
        return _number_or_none(self.data.get("viewportWidth"))

    @property
    def viewport_height(self) -> Number | None:
        """The viewport's height in CSS pixels."""
        return _number_or_none(self.data.get("viewportHeight"))

    @property
    def device_pixel_ratio(self) -> Number | None:
        """The screen's device pixel ratio."""
        return _number_or_none(self.data.get("devicePixelRatio"))

    @property
    def color_scheme(self) -> str | None:
        """``light`` or ``dark``."""
        return _str_or_none(self.data.get("colorScheme"))

    @property
    def mock(self) -> JsonObject | None:
        """The Maple Mock recipe the page was rendered under, when there was one."""
        return _object_or_none(self.data.get("mock"))

    @property
    def extra(self) -> JsonObject:
        """Every key but the ones above."""
        return {k: v for k, v in self.data.items() if k not in _CONTEXT_KEYS}

    def to_json(self) -> JsonObject:
        """Return the context's JSON object (a copy)."""
        return dict(self.data)


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
