"""Reviewers' words made inert for an agent's context: one capped line, inside a data frame.

Whatever a reviewer wrote reaches the agent as data it cannot mistake for maple's own text:
each field flattened to one line, invisible characters dropped, capped, and its angle brackets
turned to look-alikes, so none can close the ``<maple-review-data>`` frame around it. Lengths
count UTF-16 code units, as Maple's JavaScript does. Standard library only: the Stop hook uses it.
"""

from __future__ import annotations

__all__ = ["DATA_CLOSE", "DATA_OPEN", "LINE_LIMIT", "first_line", "inert_field", "utf16_head"]

DATA_OPEN = "<maple-review-data>"
DATA_CLOSE = "</maple-review-data>"
"""The frame around reviewers' words in what the agent reads (its close: :data:`DATA_CLOSE`)."""

LINE_LIMIT = 120
"""The longest first line of a comment shown, in UTF-16 units."""
_LINE_KEEP = 117

# ASCII angle brackets and their fullwidth and small look-alikes, which a model reads the same.
_ANGLES = str.maketrans(
    {"<": "‹", ">": "›", "\uff1c": "‹", "\uff1e": "›", "\ufe64": "‹", "\ufe65": "›"}
)


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf16_head(text: str, units: int) -> str:
    """The first ``units`` UTF-16 code units, as JavaScript's ``slice`` counts them."""
    return text.encode("utf-16-le", "surrogatepass")[: units * 2].decode(
        "utf-16-le", "surrogatepass"
    )


def first_line(body: str) -> str:
    """The first line of ``body``, cut with an ellipsis past :data:`LINE_LIMIT` UTF-16 units."""
    line = body.split("\n", 1)[0]
    if _utf16_len(line) > LINE_LIMIT:
        return utf16_head(line, _LINE_KEEP) + "…"
    return line


def inert_field(text: str, limit: int) -> str:
    """Reviewer text as one line of data: flattened, invisible characters dropped, capped.

    Angle brackets become ``‹ ›``, so no field can spell the frame's closing tag; with the line
    breaks gone, no field can start a line that looks like maple's own.
    """
    flat = " ".join(text.split())
    if not flat.isprintable():
        flat = "".join(c for c in flat if c.isprintable())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return flat.translate(_ANGLES)
