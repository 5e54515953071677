"""maple's own posts on GitHub: the hidden mark it reads them back by, and its resolve reply.

Every reply, question and resolution maple posts on a pull request ends in an HTML comment GitHub
hides (``<!-- maple:resolve <sha> -->``). Reading a review, a post is maple's only when it carries
the mark *and* comes from maple's own login; the mark then says what the post was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["OwnMark", "marked", "own_mark", "resolve_note", "resolve_reply", "visible_text"]


@dataclass(frozen=True, slots=True)
class OwnMark:
    """What one of maple's own posts on GitHub is, from the hidden mark at its end.

    Attributes:
        kind: ``reply``, ``question`` or ``resolve``.
        sha: for ``resolve``, the commit it names.
        target: for a reply in the conversation, the item it answers (``ghic_…``/``ghrv_…``).
    """

    kind: str
    sha: str | None = None
    target: str | None = None


_MARK = re.compile(
    r"\n*<!-- maple:(reply|question|resolve)(?: ([0-9a-f]{7,64}|gh(?:ic|rv)_[0-9]+_[0-9]+))?"
    r" -->\s*\Z"
)


def marked(body: str, mark: OwnMark) -> str:
    """``body`` with the mark maple reads its own posts by (an HTML comment GitHub hides)."""
    detail = mark.sha or mark.target
    return f"{body.rstrip()}\n\n<!-- maple:{mark.kind}{' ' + detail if detail else ''} -->"


def own_mark(body: str) -> OwnMark | None:
    """The mark at the end of ``body``, if it carries one (trust it only from maple's login)."""
    match = _MARK.search(body)
    if match is None:
        return None
    kind, detail = match.group(1), match.group(2)
    if kind == "resolve":
        return OwnMark(kind, sha=detail) if detail and not detail.startswith("gh") else None
    target = detail if detail and detail.startswith("gh") else None
    return OwnMark(kind, target=target)


def visible_text(body: str) -> str:
    """``body`` without maple's mark: what people see on GitHub."""
    return _MARK.sub("", body).rstrip()


def resolve_reply(sha: str, note: str | None) -> str:
    """The reply maple posts in a thread it resolves: ``Addressed in `<sha>`: note``."""
    said = f"Addressed in `{sha}`" + (f": {note.strip()}" if note and note.strip() else ".")
    return marked(said, OwnMark("resolve", sha=sha))


def resolve_note(body: str, sha: str) -> str | None:
    """The note a resolve reply carries after ``Addressed in `<sha>```, or ``None``."""
    text = visible_text(body)
    for prefix in (f"Addressed in `{sha}`: ", f"Addressed in `{sha}`."):
        if text.startswith(prefix):
            return text[len(prefix) :].strip() or None
    return text or None
