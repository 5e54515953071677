"""The prompt ``maple watch`` wakes an agent with: what to do, then the comments as data."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from maple_core.comments import Comment
from maple_core.cursor import parse_cursor
from maple_core.display import shown
from maple_core.inert_text import framed_json, inert_field
from maple_core.json_types import JsonObject
from maple_entrypoints.cli.output import warn

__all__ = ["MAX_PROMPT_CHARS", "watch_prompt"]

MAX_PROMPT_CHARS = 200_000
"""The longest prompt a turn is given; beyond it each text in the comments is shortened, then
the last comments are left out (the prompt says where they are)."""


_SHORT_TEXT = 2_000


def watch_prompt(comments: Sequence[Comment], branch: str, since: str | None) -> str:
    """The turn's prompt: what to do with each comment, then the comments as reviewers' data.

    The comments are the JSON ``wait_for_comments`` returns (replies newer than ``since`` marked
    ``"new": true``) inside the ``<maple-review-data>`` frame no comment can step out of; the
    ids and branch above it are inert one-line fields. The prompt never passes
    :data:`MAX_PROMPT_CHARS`: past it each text is cut to 2,000 characters, then the last
    comments are left out (the head names how many, and where to read them), and the id list
    names at most :data:`_NAMED_IDS` of them.
    """
    data = shown(comments, warn, since=parse_cursor(since) if since else None)
    prompt = _prompt(data, len(data), branch, cut=False)
    if len(prompt) <= MAX_PROMPT_CHARS:
        return prompt
    short = [_shortened(item) for item in data]
    fits, too_many = 0, len(short) + 1  # the most comments that fit, found by halving
    while too_many - fits > 1:
        middle = (fits + too_many) // 2
        if len(_prompt(short[:middle], len(data), branch, cut=True)) <= MAX_PROMPT_CHARS:
            fits = middle
        else:
            too_many = middle
    return _prompt(short[:fits], len(data), branch, cut=True)


_NAMED_IDS = 50
"""The most comment ids a prompt's head names; the rest are counted."""


def _prompt(data: Sequence[JsonObject], total: int, branch: str, *, cut: bool) -> str:
    """The head and the framed JSON of ``data``, the first of ``total`` comments."""
    ids = [inert_field(str(item.get("id", "")), 64) for item in data]
    named = ", ".join(ids[:_NAMED_IDS])
    if len(ids) > _NAMED_IDS:
        named += f" and {len(ids) - _NAMED_IDS} more below"
    head = (
        f"maple watch: {total} review comment(s) on branch {inert_field(branch, 120)} "
        "arrived or got a reviewer's reply while you were idle. Handle each one by its id: make "
        "the change it asks for and resolve it with resolve_comment (naming the commit), or "
        "answer it with reply_to_comment (question: true when only the reviewer can decide). "
        f"Ids: {named or 'none below'}."
    )
    if cut:
        head += (
            f" The comments are long, so each text below is cut to {_SHORT_TEXT:,} characters; "
            "get_comment_context and list_comments give them whole."
        )
    if len(data) < total:
        head += (
            f" Only the first {len(data)} of the {total} fit here; list_comments gives the "
            "other ones."
        )
    text = json.dumps(list(data), indent=2, ensure_ascii=False)
    return head + "\n\n" + framed_json(text)


def _shortened(value: Any) -> Any:
    """``value`` with every string cut to :data:`_SHORT_TEXT` characters."""
    if isinstance(value, str):
        return value if len(value) <= _SHORT_TEXT else value[: _SHORT_TEXT - 1] + "…"
    if isinstance(value, list):
        return [_shortened(v) for v in value]
    if isinstance(value, dict):
        return {k: _shortened(v) for k, v in value.items()}
    return value
