"""What the reviewer saw when writing: the page, its viewport, its colours, any Maple Mock.

A :class:`Context` (Maple ``CommentContext``) is a view over its JSON object, so every key a
newer Maple writes survives a round trip.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from maple_core.fields import Number, number_or_none, object_or_none, str_or_none
from maple_core.json_types import JsonObject
from maple_core.json_view import JsonField, JsonView

__all__ = ["Context"]


@dataclass(frozen=True, slots=True, init=False)
class Context(JsonView):
    """The reviewer's environment when writing (Maple ``CommentContext``), as a view over JSON."""

    WHAT: ClassVar[str] = "a comment's context"

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
        fields: JsonObject = {
            "url": url,
            "viewportWidth": viewport_width,
            "viewportHeight": viewport_height,
            "devicePixelRatio": device_pixel_ratio,
            "colorScheme": color_scheme,
            "mock": mock,
        }
        self._wrap(fields, extra)

    url = JsonField("url", str_or_none, "The page the reviewer was on.")
    viewport_width = JsonField(
        "viewportWidth", number_or_none, "The viewport's width in CSS pixels."
    )
    viewport_height = JsonField(
        "viewportHeight", number_or_none, "The viewport's height in CSS pixels."
    )
    device_pixel_ratio = JsonField(
        "devicePixelRatio", number_or_none, "The screen's device pixel ratio."
    )
    color_scheme = JsonField("colorScheme", str_or_none, "``light`` or ``dark``.")
    mock = JsonField(
        "mock", object_or_none, "The Maple Mock recipe the page was rendered under, if any."
    )
