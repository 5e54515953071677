"""Where a comment points, in Maple's JSON shapes.

An :class:`Anchor` (Maple ``CommentAnchor``, with a region's :class:`RegionMember` elements) is
a view over its JSON object, so every key a newer Maple writes survives a round trip; what the
reviewer saw is :class:`~maple_core.page_context.Context`.
"""

from __future__ import annotations

from typing import ClassVar

from maple_core.fields import Number, number_or_none, object_or_none, str_or_none
from maple_core.json_types import JsonObject, JsonValue
from maple_core.json_view import JsonView, json_field

__all__ = [
    "Anchor",
    "RegionMember",
]


def _members(value: JsonValue) -> tuple[RegionMember, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(RegionMember.from_json(m) for m in value if isinstance(m, dict))


def _anchor(value: JsonValue) -> Anchor:
    return Anchor.from_json(value) if value is not None else Anchor()


class RegionMember(JsonView, kw_only=False):
    """One element a region comment's rectangle covers (Maple ``RegionMember``)."""

    WHAT: ClassVar[str] = "a region member"

    anchor: Anchor = json_field("anchor", _anchor, "The element, located as an anchor.")
    overlap: Number | None = json_field(
        "overlap", number_or_none, "How much of it the rectangle covers.", default=None
    )


class Anchor(JsonView):
    """Where a comment points (Maple ``CommentAnchor``), as a view over its JSON object.

    ``key``, ``region`` and unknown keys are in ``extra``.
    """

    WHAT: ClassVar[str] = "a comment's anchor"

    source: str | None = json_field(
        "source", str_or_none, "``path/to/file.tsx:line:col``, when known.", default=None
    )
    component: str | None = json_field(
        "component", str_or_none, "The component's display name, when known.", default=None
    )
    selector: str | None = json_field(
        "selector", str_or_none, "A CSS selector for the element, when known.", default=None
    )
    located_by: str | None = json_field(
        "locatedBy",
        str_or_none,
        "How ``source`` was found: ``tagger`` or ``owner-stack``.",
        default=None,
    )
    quote: JsonObject | None = json_field(
        "quote",
        object_or_none,
        "The quoted text and its surroundings (``exact``, ``prefix``, ``suffix``, ``offset``).",
        default=None,
    )
    members: tuple[RegionMember, ...] = json_field(
        "members",
        _members,
        "The elements a region comment covers.",
        default=(),
    )

    @property
    def quote_exact(self) -> str | None:
        """The quoted text, when the anchor quotes some."""
        quote = self.quote
        return str_or_none(quote.get("exact")) if quote else None
