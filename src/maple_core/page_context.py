"""What the reviewer saw when writing: the page, its viewport, its colours, any Maple Mock.

A :class:`Context` (Maple ``CommentContext``) is a view over its JSON object, so every key a
newer Maple writes survives a round trip.
"""

from __future__ import annotations

from typing import ClassVar

from maple_core.fields import Number, number_or_none, object_or_none, str_or_none
from maple_core.json_types import JsonObject
from maple_core.json_view import JsonView, json_field

__all__ = ["Context"]


class Context(JsonView):
    """The reviewer's environment when writing (Maple ``CommentContext``), as a view over JSON."""

    WHAT: ClassVar[str] = "a comment's context"

    url: str | None = json_field("url", str_or_none, "The page the reviewer was on.", default=None)
    viewport_width: Number | None = json_field(
        "viewportWidth", number_or_none, "The viewport's width in CSS pixels.", default=None
    )
    viewport_height: Number | None = json_field(
        "viewportHeight", number_or_none, "The viewport's height in CSS pixels.", default=None
    )
    device_pixel_ratio: Number | None = json_field(
        "devicePixelRatio", number_or_none, "The screen's device pixel ratio.", default=None
    )
    color_scheme: str | None = json_field(
        "colorScheme", str_or_none, "``light`` or ``dark``.", default=None
    )
    mock: JsonObject | None = json_field(
        "mock",
        object_or_none,
        "The Maple Mock recipe the page was rendered under, if any.",
        default=None,
    )
