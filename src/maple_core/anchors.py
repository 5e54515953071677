"""Where a comment points, in Maple's JSON shapes.

An :class:`Anchor` (Maple ``CommentAnchor``, with a region's :class:`RegionMember` elements) is
a view over its JSON object, so every key a newer Maple writes survives a round trip; what the
reviewer saw is :class:`~maple_core.page_context.Context`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from maple_core.fields import (
    Number,
    number_or_none,
    object_of,
    object_or_none,
    put_field,
    str_or_none,
)
from maple_core.json_types import JsonObject, JsonValue

__all__ = [
    "Anchor",
    "RegionMember",
]

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
            overlap=number_or_none(obj.get("overlap")),
            extra={k: v for k, v in obj.items() if k not in ("anchor", "overlap")},
        )

    def to_json(self) -> JsonObject:
        """Return the member's JSON object."""
        out: JsonObject = {"anchor": self.anchor.to_json()}
        put_field(out, "overlap", self.overlap)
        out.update(self.extra)
        return out


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
        put_field(data, "source", source)
        put_field(data, "component", component)
        put_field(data, "selector", selector)
        put_field(data, "locatedBy", located_by)
        put_field(data, "quote", quote)
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
        return str_or_none(self.data.get("source"))

    @property
    def component(self) -> str | None:
        """The component's display name, when known."""
        return str_or_none(self.data.get("component"))

    @property
    def selector(self) -> str | None:
        """A CSS selector for the element, when known."""
        return str_or_none(self.data.get("selector"))

    @property
    def located_by(self) -> str | None:
        """How ``source`` was found: ``tagger`` or ``owner-stack``."""
        return str_or_none(self.data.get("locatedBy"))

    @property
    def quote(self) -> JsonObject | None:
        """The quoted text and its surroundings (``exact``, ``prefix``, ``suffix``, ``offset``)."""
        return object_or_none(self.data.get("quote"))

    @property
    def quote_exact(self) -> str | None:
        """The quoted text, when the anchor quotes some."""
        quote = self.quote
        return str_or_none(quote.get("exact")) if quote else None

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
