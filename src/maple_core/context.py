"""What an agent needs to act on one comment: anchors, conditions and a replay link."""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote_plus, urlsplit, urlunsplit

from maple_core.anchors import Anchor
from maple_core.comments import Comment
from maple_core.display import shown_one
from maple_core.errors import InvalidInputError, NotFoundError
from maple_core.json_types import JsonObject, without_none
from maple_core.recipe import compact_json, describe_identity, parse_recipe
from maple_core.statuses import CommentStatus
from maple_core.text import js_number

__all__ = [
    "CommentContext",
    "comment_context",
    "describe_anchors",
    "describe_conditions",
    "replay_url",
]

_OWNER_STACK = " (found through React's owner stack; check it)"
_VUE = " (found through Vue's component data; check it)"
_MARKUP_CHARS = 4000  # the most of the overlay's redacted markup copy the context carries


@dataclass(frozen=True, slots=True)
class CommentContext:
    """``get_comment_context``'s answer: the comment, its anchors, conditions and mock."""

    comment: Comment
    anchors: tuple[str, ...]
    conditions: str
    mock: JsonObject | None = None
    markup: str | None = None

    def to_json(self) -> JsonObject:
        """Maple's shape: ``{comment, anchors, conditions, mock?}``, and maple's ``markup?``."""
        return {
            "comment": shown_one(self.comment),
            "anchors": list(self.anchors),
            "conditions": self.conditions,
            **without_none({"mock": self.mock, "markup": self.markup}),
        }


def _member_where(anchor: Anchor) -> str:
    exact = anchor.quote_exact
    quoted = json.dumps(exact, ensure_ascii=False) if exact is not None else None
    return anchor.source or anchor.component or quoted or "?"


def _js_round(value: float) -> int:
    # JavaScript's Math.round rounds halves up (0.125 → 13%); Python's round() goes to even.
    return math.floor(value + 0.5)


def describe_anchors(comment: Comment) -> tuple[str, ...]:
    """Where the comment points, one line per clue; nothing for an orphaned comment."""
    if comment.status is CommentStatus.ORPHANED:
        return ()
    anchor = comment.anchor
    lines: list[str] = []
    if anchor.source:
        found = _VUE if anchor.source.split(":", 1)[0].endswith(".vue") else _OWNER_STACK
        suffix = found if anchor.located_by == "owner-stack" else ""
        lines.append(f"source {anchor.source}{suffix}")
    if anchor.component:
        lines.append(f"component {anchor.component}")
    exact = anchor.quote_exact
    if exact:
        lines.append(f"quote {json.dumps(exact, ensure_ascii=False)}")
    if anchor.selector:
        within = anchor.extra.get("within")
        steps = [s for s in within if isinstance(s, str)] if isinstance(within, list) else []
        inside = f" (inside {', then '.join(steps)})" if steps else ""
        lines.append(f"selector {anchor.selector}{inside}")
    for member in anchor.members:
        overlap = _js_round((member.overlap or 0) * 100)
        lines.append(f"covers {_member_where(member.anchor)} ({overlap}% inside the rectangle)")
    return tuple(lines)


def _mocked(mock: JsonObject) -> str:
    recipe = parse_recipe(mock)
    layers = [", ".join(f"{key} {state}" for key, state in recipe.calls)]
    if recipe.flags:
        layers.append(
            "flags " + ", ".join(f"{k}={compact_json(v)}" for k, v in recipe.flags.items())
        )
    identity = describe_identity(recipe.identity)
    if identity:
        layers.append(f"as {identity} (the page was told so; the server acted as the reviewer)")
    text = "mocked: " + "; ".join(layer for layer in layers if layer)
    if recipe.request is not None:
        text += f" ({json.dumps(recipe.request, ensure_ascii=False)})"
    return text


def describe_conditions(comment: Comment) -> str:
    """The reviewer's conditions joined by `` · ``: viewport, density, scheme, URL, mock."""
    context = comment.context
    if context is None:
        return ""
    parts: list[str] = []
    if context.viewport_width is not None and context.viewport_height is not None:
        parts.append(f"{js_number(context.viewport_width)}×{js_number(context.viewport_height)}")
    if context.device_pixel_ratio is not None:
        parts.append(f"{js_number(context.device_pixel_ratio)}× density")
    if context.color_scheme:
        parts.append(context.color_scheme)
    if context.url:
        parts.append(context.url)
    if context.mock is not None:
        parts.append(_mocked(context.mock))
    return " · ".join(parts)


def _form_quote(text: str) -> str:
    # URLSearchParams' serializer: like quote_plus, but "~" is escaped and "*" is not.
    return quote_plus(text, safe="*").replace("~", "%7E")


def replay_url(url: str, mock: JsonObject) -> str:
    """``url`` with its ``maple-mock`` query parameter set to the encoded, normalised recipe.

    Raises:
        InvalidInputError: ``url`` is not an absolute http(s) address.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidInputError(f"The comment's page address {url!r} is not an http(s) URL.")
    payload = compact_json(parse_recipe(mock).to_json()).encode()
    encoded = base64.urlsafe_b64encode(payload).decode().rstrip("=")
    # URLSearchParams.set: the first maple-mock keeps its place, later ones go, else append.
    query: list[tuple[str, str]] = []
    placed = False
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key != "maple-mock":
            query.append((key, value))
        elif not placed:
            query.append((key, encoded))
            placed = True
    if not placed:
        query.append(("maple-mock", encoded))
    serialised = "&".join(f"{_form_quote(k)}={_form_quote(v)}" for k, v in query)
    path = parts.path or "/"  # the URL standard serialises an empty http(s) path as "/"
    return urlunsplit((parts.scheme, parts.netloc, path, serialised, parts.fragment))


def comment_context(comments: Sequence[Comment], comment_id: str, branch: str) -> CommentContext:
    """Everything needed to act on comment ``comment_id`` among a branch's ``comments``.

    Raises:
        NotFoundError: no comment has that id on the branch.
        InvalidRecordError: the comment's mock recipe is unreadable.
        InvalidInputError: the comment's URL is not an http(s) address (with a mock).
    """
    comment = next((c for c in comments if c.id == comment_id), None)
    if comment is None:
        raise NotFoundError(
            f"No comment {comment_id} on {branch}. Call list_comments for the ids there are.",
            store="",
            operation="get_comment_context",
        )
    mock: JsonObject | None = None
    context = comment.context
    if context is not None and context.mock is not None:
        mock = {"recipe": context.mock, "replay": replay_url(context.url or "", context.mock)}
    markup = comment.anchor.extra.get("markup")
    return CommentContext(
        comment,
        describe_anchors(comment),
        describe_conditions(comment),
        mock,
        markup[:_MARKUP_CHARS] if isinstance(markup, str) and markup else None,
    )
