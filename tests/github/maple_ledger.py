"""Ledger bodies as the TypeScript Maple writes them (its ``exportMarkdown``), for maple to read.

Maple's table puts each comment's body into its cell as Markdown, pipes escaped and line breaks
turned into ``<br>``; :func:`maple_body` can also keep the line breaks (``raw=True``), as a
table that puts each body raw would. Either way a reviewer's words come before the fence, and
may hold a ```` ```maple ```` fence of their own.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

__all__ = ["maple_body", "maple_record"]

_LEAD = "The full comment details in markdown, to copy into an agent:"


def maple_record(number: int, body: str, *, status: str = "open", **extra: Any) -> dict[str, Any]:
    """A comment as Maple stores it in a ledger (``gh_1_<number>``), with Maple's context."""
    return {
        "id": f"gh_1_{number}",
        "branch": "feat/checkout",
        "body": body,
        "status": status,
        "createdAt": f"2026-01-01T12:00:0{number % 10}.000Z",
        "author": {"id": "guest", "name": "Guest", "provenance": "guest"},
        "anchor": {"selector": "h1"},
        "context": {
            "url": "https://preview.example.com/cart",
            "viewportWidth": 1440,
            "viewportHeight": 900,
            "devicePixelRatio": 2,
            "colorScheme": "light",
        },
        **extra,
    }


def _js(value: Any) -> str:
    """A value as a JavaScript template string prints it (an absent one is ``undefined``)."""
    if value is None:
        return "undefined"
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _cell(text: str, raw: bool) -> str:
    escaped = text.replace("|", "\\|")
    return escaped.strip() if raw else escaped.replace("\r\n", "<br>").replace("\n", "<br>").strip()


def maple_body(
    comments: Sequence[dict[str, Any]], branch: str = "feat/checkout", *, raw: bool = False
) -> str:
    """The issue comment Maple's GitHub store writes for ``comments``."""
    rows = [
        f"| {i} | `{_cell(c['anchor'].get('selector', ''), raw)}` | {_cell(c['body'], raw)} | "
        f"{_js(c['context'].get('viewportWidth'))}×{_js(c['context'].get('viewportHeight'))} |"
        for i, c in enumerate(comments, start=1)
    ]
    fence = json.dumps(
        {"branch": branch, "comments": list(comments), "version": 1},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return "\n".join(
        [
            "Comments written by Guest via <sub><picture>…</picture></sub> :",
            "",
            "| # | Where | Comment | Viewport |",
            "| --- | --- | --- | --- |",
            *rows,
            "",
            _LEAD,
            "",
            "```maple",
            fence,
            "```",
            "",
            "---",
            "",
            "<sub><code>preview.example.com</code> · powered by Maple</sub>",
        ]
    )
