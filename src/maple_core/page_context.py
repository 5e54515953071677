"""What the reviewer saw when writing: the page, its viewport, its colours, any Maple Mock.

A :class:`Context` (Maple ``CommentContext``) is a view over its JSON object, so every key a
newer Maple writes survives a round trip.
"""

from __future__ import annotations

from dataclasses import dataclass

from maple_core.fields import (
    Number,
    number_or_none,
    object_of,
    object_or_none,
    put_field,
    str_or_none,
)
from maple_core.json_types import JsonObject, JsonValue

__all__ = ["Context"]

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
        put_field(data, "url", url)
        put_field(data, "viewportWidth", viewport_width)
        put_field(data, "viewportHeight", viewport_height)
        put_field(data, "devicePixelRatio", device_pixel_ratio)
        put_field(data, "colorScheme", color_scheme)
        put_field(data, "mock", mock)
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
        return str_or_none(self.data.get("url"))

    @property
    def viewport_width(self) -> Number | None:
        """The viewport's width in CSS pixels."""
        return number_or_none(self.data.get("viewportWidth"))

    @property
    def viewport_height(self) -> Number | None:
        """The viewport's height in CSS pixels."""
        return number_or_none(self.data.get("viewportHeight"))

    @property
    def device_pixel_ratio(self) -> Number | None:
        """The screen's device pixel ratio."""
        return number_or_none(self.data.get("devicePixelRatio"))

    @property
    def color_scheme(self) -> str | None:
        """``light`` or ``dark``."""
        return str_or_none(self.data.get("colorScheme"))

    @property
    def mock(self) -> JsonObject | None:
        """The Maple Mock recipe the page was rendered under, when there was one."""
        return object_or_none(self.data.get("mock"))

    @property
    def extra(self) -> JsonObject:
        """Every key but the ones above."""
        return {k: v for k, v in self.data.items() if k not in _CONTEXT_KEYS}

    def to_json(self) -> JsonObject:
        """Return the context's JSON object (a copy)."""
        return dict(self.data)
