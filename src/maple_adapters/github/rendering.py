"""Writing a ledger's body: a table of the comments for people, then the fenced records.

The whole body stays within GitHub's limit on an issue comment, or the write is refused
(:class:`LedgerTooLargeError`); the table shows as many rows as fit.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from maple_adapters.github.fitting import FittedLedger, fit_ledger
from maple_adapters.github.ledger import (
    BODY_LIMIT,
    FENCE_BUDGET,
    GitHubLedger,
    github_length,
    record_number,
    stable_json,
)
from maple_core.claims import live_claim
from maple_core.comments import Comment
from maple_core.conversation import Reply, thread_of
from maple_core.cursor import parse_stamp
from maple_core.errors import InvalidRecordError
from maple_core.statuses import CommentStatus
from maple_core.text import code_span, js_number, where_of
from maple_core.threads import awaiting_reviewer, newest_reviewer_words

__all__ = [
    "LedgerTooLargeError",
    "render_ledger_body",
]

_STATUS_WORDS = {
    CommentStatus.OPEN: "Open",
    CommentStatus.RESOLVED: "Resolved",
    CommentStatus.NEEDS_REVERIFY: "Re-verify",
    CommentStatus.ORPHANED: "Unpinned",
}


def _cell(text: str, limit: int = 80) -> str:
    """Reviewer text in a table cell: one inert code span (no pings, links, images or HTML)."""
    return code_span(text, limit, in_table=True)


def _viewport(c: Comment) -> str:
    context = c.context
    if context is None:
        return "—"
    width, height = context.viewport_width, context.viewport_height
    size = f"{js_number(width)}×{js_number(height)}" if width and height else "—"
    return size + (" · mocked" if context.mock is not None else "")


class LedgerTooLargeError(InvalidRecordError):
    """Raised when a ledger cannot be written within :data:`BODY_LIMIT`, whatever is shed."""


_ROW_TEXT_LIMIT = 300  # a table row shows the start of a comment; the fence below holds all of it


def _thread_cell(comment: Comment) -> str:
    """A comment's conversation in a table cell: its size, who it waits for, the latest words.

    The reviewer's name and words go through :func:`_cell`, inert like every reviewer text.
    """
    thread = thread_of(comment)
    if not thread:
        return "—"
    parts = [f"{len(thread)} repl{'y' if len(thread) == 1 else 'ies'}"]
    if awaiting_reviewer(comment):
        parts.append("**waiting for the reviewer**")
    latest: tuple[Reply, ...] = newest_reviewer_words(comment, 1)
    if latest:
        parts.append(f"{_cell(latest[0].author_name, 40)}: {_cell(latest[0].body, 120)}")
    return " · ".join(parts)


_SHED_NOTE_ROOM = 120  # the note saying how many replies were left out


_TABLE_FLOOR = 400  # the table's header and its "…and N more" line, at the least


def _lines_length(lines: Sequence[str]) -> int:
    return sum(github_length(line) + 1 for line in lines)


def _agent_cell(comment: Comment, now: datetime) -> str:
    """Who is on a comment, for its row: ``on it: `claude-code` until 12:15 UTC``, or ``—``."""
    claim = live_claim(comment, now)
    if claim is None or comment.status is CommentStatus.RESOLVED:
        return "—"
    ends = parse_stamp(claim.expires)
    until = f" until {ends:%H:%M} UTC" if ends is not None else ""
    return f"on it: {_cell(claim.agent, 40)}{until}"


def render_ledger_body(
    ledger: GitHubLedger,
    budget: int = FENCE_BUDGET,
    limit: int = BODY_LIMIT,
    now: datetime | None = None,
) -> str:
    """The ledger comment's markdown: intro, table, approvals, the ```` ```maple ```` fence.

    The whole body stays within ``limit`` characters as GitHub counts them
    (:func:`github_length`; GitHub's own limit by default). The fence keeps its own
    40,000-byte budget and sheds (see :func:`fit_ledger`) until it also fits what the rest of
    the body leaves; the table gets what is left after that, and rows that do not fit are
    counted instead of shown (the fence has them all). Once any comment has a thread, a
    ``Conversation`` column shows each thread as the fence holds it (how many replies, whether
    the agent waits for the reviewer, the reviewer's latest words); replies shed to fit the
    fence are counted in a note under the intro. With ``now``, an ``Agent`` column shows who is
    on each comment (their live claims then), once any agent is.

    Raises:
        LedgerTooLargeError: even with everything shed the body would pass ``limit``: the
            comments' own words are too long. The message names the longest of them.
    """
    comments = ledger.comments
    head = [
        f"**Maple** keeps this pull request's visual review here: {len(comments)} comment(s).",
        "",
    ]
    approvals: list[str] = []
    if ledger.approvals:
        approvals.append("Approved:")
        approvals += [f"- {_cell(a.author_name)} on {_cell(a.commit)}" for a in ledger.approvals]
        approvals.append("")
    around = _tail("")
    fixed = _lines_length(head + approvals + around) + _SHED_NOTE_ROOM + _TABLE_FLOOR
    fitted = fit_ledger(ledger, budget, limit - fixed)
    if github_length(fitted.text) > limit - fixed:
        raise LedgerTooLargeError(_too_large(fitted, fixed, limit))
    tail = _tail(fitted.text)
    if fitted.replies_shed:
        n = fitted.replies_shed
        head += [
            f"{n} older repl{'y was' if n == 1 else 'ies were'} left out to keep this ledger "
            "under GitHub's size limit.",
            "",
        ]
    room = limit - _lines_length(head + approvals + tail) - 200
    table: list[str] = []
    if comments:
        with_status = any(c.status is not CommentStatus.OPEN for c in comments)
        with_thread = any(thread_of(c) for c in fitted.comments)
        with_agent = now is not None and any(_agent_cell(c, now) != "—" for c in comments)
        header = [
            "#",
            "Where",
            "Comment",
            *(["Status"] if with_status else []),
            *(["Agent"] if with_agent else []),
            *(["Conversation"] if with_thread else []),
            "Viewport",
        ]
        table.append("| " + " | ".join(header) + " |")
        table.append("|" + "---|" * len(header))
        used = _lines_length(table)
        for i, (c, kept) in enumerate(zip(comments, fitted.comments, strict=True), start=1):
            row = [str(i), _cell(where_of(c.anchor) or ""), _cell(c.body, _ROW_TEXT_LIMIT)]
            if with_status:
                row.append(_STATUS_WORDS[c.status])
            if with_agent and now is not None:
                row.append(_agent_cell(c, now))
            if with_thread:
                row.append(_thread_cell(kept))
            row.append(_viewport(c))
            line = "| " + " | ".join(row) + " |"
            if used + github_length(line) + 1 > room:
                table.append("")
                table.append(f"…and {len(comments) - i + 1} more comment(s), in the block below.")
                break
            table.append(line)
            used += github_length(line) + 1
        table.append("")
    return "\n".join(head + table + approvals + tail)


def _tail(fence: str) -> list[str]:
    return [
        "The full comment details in markdown, to copy into an agent:",
        "",
        "```maple",
        fence,
        "```",
        "",
        "---",
        "<sub>Kept by maple, powered by Maple</sub>",
    ]


def _too_large(fitted: FittedLedger, fixed: int, limit: int) -> str:
    """What to say when a ledger cannot fit: its size, the limit, and the longest comments."""
    size = github_length(fitted.text) + fixed
    sizes = sorted(
        (-github_length(stable_json(c.to_json())), record_number(c.id), c.id)
        for c in fitted.comments
    )
    longest = ", ".join(f"{cid} ({-n:,})" for n, _, cid in sizes[:3])
    kept = (
        f"GitHub's limit of {BODY_LIMIT:,} for one comment"
        if limit >= BODY_LIMIT
        else f"the {limit:,} a write that adds words may fill of GitHub's limit of "
        f"{BODY_LIMIT:,} for one comment (the rest stays free, so every comment can be resolved)"
    )
    return (
        f"The pull request's ledger would be {size:,} characters as GitHub counts them, over "
        f"{kept}, even with every thread reply and every detail that can be shed left out; "
        "nothing was written. Shorten what this write adds, or remove the longest comments "
        f"({longest}) from the ledger's ```maple block by hand."
    )
