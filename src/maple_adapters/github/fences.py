"""Finding the ledger's fence in a body: Maple's reader, and the fence that holds the others.

A body may quote other ```` ```maple ```` fences in a comment's words; the ledger is the one
fence whose comments hold every other as their words, and a body where that cannot be told is
refused.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from maple_core.errors import InvalidRecordError
from maple_core.json_types import JsonObject, JsonValue

__all__ = ["ledger_fence"]

# Maple's own reader: the first ```maple, wherever it starts, up to a line opening with ```.
_FENCE = re.compile(r"```maple[^\n]*\n(.*?)\n```", re.S)


_OPENER = "```maple"


@dataclass(frozen=True, slots=True)
class _Fence:
    """One ```` ```maple ```` block found in a body: its text, and the JSON it holds if any."""

    text: str
    doc: JsonObject | None
    error: str | None
    swallows: bool  # it ends where another block opens: an opener inside text, not a block


def _fences(body: str) -> list[_Fence]:
    """Every block that opens at a ```` ```maple ```` in ``body``.

    Each is read as Maple's reader would read it had it started there. A block that opens a
    line and is never closed counts too once another block is closed (it may be a ledger cut
    short), holding the rest of the body and no JSON.
    """
    found: list[_Fence] = []
    unclosed: list[_Fence] = []
    openers = [m.start() for m in re.finditer(re.escape(_OPENER), body)]
    for start in openers:
        match = _FENCE.match(body, start)
        if match is None:
            if start == 0 or body[start - 1] == "\n":
                unclosed.append(_Fence(body[start:], None, "The maple fence is not closed.", False))
            continue
        doc: JsonObject | None = None
        error: str | None = None
        try:
            parsed = json.loads(match.group(1))
        except ValueError as exc:
            error = f"The maple fence is not JSON: {exc}"
        else:
            if isinstance(parsed, dict):
                doc = parsed
            else:
                error = "The maple fence is not a JSON object."
        swallows = match.end() - 3 in openers
        found.append(_Fence(match.group(1), doc, error, swallows))
    return found + unclosed if found else []


def _is_ledger(doc: JsonObject) -> bool:
    """A fence Maple or maple wrote: ``comments`` a list and a numeric ``version``."""
    version = doc.get("version")
    number = isinstance(version, (int, float)) and not isinstance(version, bool)
    return isinstance(doc.get("comments"), list) and number


def _strings(value: JsonValue) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    return []


def _quotes(doc: JsonObject, fence: _Fence) -> bool:
    """True when ``fence`` is text a record in ``doc`` holds (a body, a note).

    That is the ledger quoting a reviewer, whose words its table shows again.
    """
    inner = fence.text.strip()
    unescaped = inner.replace("\\|", "|")  # Maple's table escapes pipes
    return any(inner in s or unescaped in s for s in _strings(doc))


def ledger_fence(body: str) -> JsonObject | None:
    """The JSON of the fence that is the ledger in ``body``; ``None`` when there is no fence.

    Maple's reader takes the first fence, but Maple's table puts every comment's body ahead of
    it, so a reviewer who writes a fence of their own could be read in its place. The ledger is
    the one fence that holds every other block in the body as words of its own records (its
    table shows them again); a block that ends where another opens is an opener inside text,
    not a block. When only one fence reads as a ledger, it is that one.

    Raises:
        InvalidRecordError: no fence is readable, or two fences could each be the ledger.
    """
    fences = _fences(body)
    if not fences:
        return None
    readable = [f for f in fences if f.doc is not None]
    if not readable:
        raise InvalidRecordError(fences[0].error or "The maple fence cannot be read.")
    shaped = [f for f in readable if f.doc is not None and _is_ledger(f.doc)]
    pool = shaped or readable
    if len(fences) == 1:
        chosen: _Fence | None = fences[0]
    else:
        others = [f for f in fences if not f.swallows]
        explaining = [
            f
            for f in pool
            if f.doc is not None and all(g is f or _quotes(f.doc, g) for g in others)
        ]
        chosen = explaining[0] if len(explaining) == 1 else None
    if chosen is None or chosen.doc is None:
        raise InvalidRecordError(
            f"The comment holds {len(fences)} ```maple blocks and maple cannot tell which one "
            "is the ledger (none holds the others as a comment's words)."
        )
    return chosen.doc
