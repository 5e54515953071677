"""Comments printed for a person: a table of a branch's comments, the held words apart.

Every field comes from reviewers, so each is printed as plain text (:func:`terminal_text`), never
as rich markup; a thread's state and what maple understood of a reply are said in words.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from maple_core.comments import Comment
from maple_core.conversation import Reply
from maple_core.feedback import Transition, classification_of, stale
from maple_core.text import one_line
from maple_entrypoints.cli.output import terminal_text

__all__ = ["print_comments", "print_held", "understood_line"]


def _first_line(text: str) -> str:
    return one_line(text.splitlines()[0] if text else "")


def print_comments(comments: Sequence[Comment], title: str | None = None) -> None:
    """A table on a terminal; tab-separated ``id status created first-line`` lines when piped.

    Every field is shown as plain text: no escape sequence and no rich markup in a comment acts.
    """
    if not sys.stdout.isatty():
        for c in comments:
            fields = (c.id, c.status.value, c.created_at or "", c.body)
            print("\t".join(_first_line(f) for f in fields))
        return
    table = Table(
        "id", "status", "created", "comment", title=title or f"{len(comments)} comment(s)"
    )
    for c in comments:
        table.add_row(
            *(Text(one_line(f)) for f in (c.id, c.status.value, c.created_at or "")),
            Text(terminal_text(c.body) + _thread_lines(c)),
        )
    Console().print(table)


def print_held(comments: Sequence[Comment]) -> None:
    """Held comments apart: a table on a terminal, ``id held created first-line why`` when piped.

    Each says why it is held (its ``github.heldBecause``), as plain text.
    """
    whys = [_held_because(c) for c in comments]
    if not sys.stdout.isatty():
        for c, why in zip(comments, whys, strict=True):
            fields = (c.id, "held", c.created_at or "", c.body, why)
            print("\t".join(_first_line(f) for f in fields))
        return
    title = f"{len(comments)} held: not the agent's work until someone trusted endorses it"
    table = Table("id", "created", "comment", "held because", title=title)
    for c, why in zip(comments, whys, strict=True):
        table.add_row(
            *(Text(one_line(f)) for f in (c.id, c.created_at or "")),
            Text(terminal_text(c.body)),
            Text(one_line(why)),
        )
    Console().print(table)


def _held_because(comment: Comment) -> str:
    details = comment.extra.get("github")
    why = details.get("heldBecause") if isinstance(details, dict) else None
    return why if isinstance(why, str) else ""


def _thread_lines(comment: Comment) -> str:
    """The latest reviewer words and a waiting question, as plain text under the body."""
    from maple_core.threads import awaiting_reviewer, newest_reviewer_words

    lines = [
        f"\n↳ {one_line(r.author_name)}: {one_line(r.body)}"
        for r in newest_reviewer_words(comment, 2)
    ]
    if awaiting_reviewer(comment):
        lines.append("\n(waiting for the reviewer's answer)")
    return "".join(lines)


_DONE = {
    Transition.CONFIRM: "confirmed the resolution",
    Transition.CONFIRM_AND_OPEN_REMARKS: "confirmed the resolution and opened its remarks",
    Transition.REOPEN: "reopened the comment",
    Transition.NONE: "changed nothing",
}


def understood_line(reply: Reply) -> str:
    """What maple understood from an entry, in one line (empty when it read nothing)."""
    record = classification_of(reply)
    if record is None:
        return ""
    by = one_line(record.harness + (f", {record.model}" if record.model else ""))
    line = f"maple read it as {record.outcome.value} ({by}) and {_DONE[record.applied]}"
    if record.why:
        line += f": {one_line(record.why)}"
    if record.note:
        line += f" ({one_line(record.note)})"
    if record.undone is not None:
        line += "; undone since"
    if stale(reply):
        line += "; the words changed since, so it no longer counts (maple comments classify)"
    return line
