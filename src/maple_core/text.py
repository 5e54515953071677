"""Small text helpers the gate and Stop hook messages share.

Reviewers' words framed as data for a model are ``inert_text.py``.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable

from maple_core.anchors import Anchor

__all__ = [
    "capped",
    "code_span",
    "flatten",
    "js_number",
    "one_line",
    "scrub",
    "text_hash",
    "where_of",
    "without_lone_surrogates",
]

# JavaScript's \s, which Maple flattens with: not Python's (which adds \x1c-\x1f and \x85 and
# leaves out U+FEFF).
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_WHITESPACE = re.compile(f"[{_JS_SPACE}]+")


def flatten(text: str) -> str:
    """Collapse every run of white space to one space and trim the ends, as Maple's ``oneLine``.

    White space is what JavaScript's regular expressions call white space, so both tools
    flatten a body alike.
    """
    return _WHITESPACE.sub(" ", text).strip(" ")


def one_line(text: str) -> str:
    """``text`` flattened, without control or format characters (bidi overrides, zero widths).

    What is left cannot start a new line, reorder what follows it, or hide a character.
    """
    flat = flatten(text)
    if flat.isprintable():
        return flat
    kept = []
    for c in flat:
        kind = unicodedata.category(c)
        if kind == "Cs":  # half an emoji from JavaScript: shown as U+FFFD, as UTF-8 must
            kept.append("\ufffd")
        elif kind not in ("Cc", "Cf", "Co"):
            kept.append(c)
    return "".join(kept)


def capped(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, ending in ``…`` when it was longer."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def code_span(text: str, limit: int = 300, *, in_table: bool = False) -> str:
    """Reviewer text as one inert Markdown code span: flattened, capped, and unable to escape.

    GitHub renders nothing inside a code span: no @mention pings, no links or images, no HTML,
    no issue references. Backticks (which would close the span) become ``'``; in a table cell
    pipes (which would end the cell, span or not) become ``¦``. Empty text is ``—``.
    """
    flat = capped(one_line(text), limit).replace("`", "'")
    if in_table:
        flat = flat.replace("|", "¦")
    return f"`{flat}`" if flat else "—"


def where_of(anchor: Anchor) -> str | None:
    """The first of the anchor's component, source and selector that is present."""
    return anchor.component or anchor.source or anchor.selector or None


def js_number(value: float) -> str:
    """Print a number as JavaScript does: ``2`` for 2.0, ``1.5`` for 1.5."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def text_hash(text: str) -> str:
    """``sha256:<hex>`` of ``text``'s UTF-8 (half an emoji encoded as JavaScript keeps it)."""
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return f"sha256:{digest}"


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every (non-empty) secret replaced by ``***``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


def without_lone_surrogates(value: object) -> object:
    """``value`` with every unpaired UTF-16 surrogate (half an emoji) replaced by U+FFFD.

    JavaScript can store half an emoji; UTF-8 output (a terminal, an MCP stream) cannot carry it.
    """
    if isinstance(value, str):
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in value)
    if isinstance(value, list):
        return [without_lone_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {without_lone_surrogates(k): without_lone_surrogates(v) for k, v in value.items()}
    return value
