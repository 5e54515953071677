"""The detail a comment sheds when its ledger is over budget, in Maple's order.

Each step drops one kind of detail from a comment and keeps everything else; a step that finds
nothing to drop leaves the comment as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from maple_core.anchors import Anchor
from maple_core.comments import Comment
from maple_core.page_context import Context

__all__ = ["SHEDDING", "shed_mock"]


def shed_mock(c: Comment) -> Comment:
    """``c`` without its context's Maple Mock recipe."""
    if c.context is None or c.context.mock is None:
        return c
    data = {k: v for k, v in c.context.data.items() if k != "mock"}
    return replace(c, context=Context.from_json(data))


def _shed_quote_context(c: Comment) -> Comment:
    quote = c.anchor.quote
    if quote is None or set(quote) <= {"exact"}:
        return c
    exact = quote.get("exact")
    return replace(c, anchor=Anchor.from_json({**c.anchor.data, "quote": {"exact": exact}}))


def _shed_regions(c: Comment) -> Comment:
    if c.context is None or "regions" not in c.context.data:
        return c
    data = {k: v for k, v in c.context.data.items() if k != "regions"}
    return replace(c, context=Context.from_json(data))


def _shed_anchor_key(key: str) -> Callable[[Comment], Comment]:
    def shed(c: Comment) -> Comment:
        if key not in c.anchor.data:
            return c
        return replace(
            c, anchor=Anchor.from_json({k: v for k, v in c.anchor.data.items() if k != key})
        )

    return shed


_KEPT_CONTEXT = (
    "url",
    "viewportWidth",
    "viewportHeight",
    "contentWidth",
    "devicePixelRatio",
    "colorScheme",
)


def _shed_context(c: Comment) -> Comment:
    if c.context is None:
        return c
    data = {k: v for k, v in c.context.data.items() if k in _KEPT_CONTEXT}
    return replace(c, context=Context.from_json(data))


SHEDDING: tuple[tuple[str, Callable[[Comment], Comment]], ...] = (
    ("mock", shed_mock),
    ("quote-context", _shed_quote_context),
    ("regions", _shed_regions),
    ("selector", _shed_anchor_key("selector")),
    ("context", _shed_context),
    ("quote", _shed_anchor_key("quote")),
)
