"""The pull-request ledger: one issue comment holding every Maple record of a pull request.

The body is markdown for people (a table of the comments) followed by a visible fenced block
opened with ```` ```maple ```` holding the records as key-sorted JSON, which is what tools read.
The fence is budgeted at 40,000 UTF-8 bytes; over budget, thread replies are shed first (oldest
first), then detail from every comment in Maple's order, until it fits.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TypeVar

from maple_adapters.github.claim_chain import current_claim
from maple_core.approvals import Approval
from maple_core.claims import CLAIM, live_claim
from maple_core.comments import Anchor, Comment, Context
from maple_core.conversation import (
    CLASSIFICATION,
    REPLIES,
    Reply,
    ReplyKind,
    awaiting_reviewer,
    newest_reviewer_words,
    thread_of,
)
from maple_core.cursor import format_stamp, parse_stamp
from maple_core.errors import InvalidRecordError
from maple_core.json_types import JsonObject, JsonValue
from maple_core.pull_review import review_ref
from maple_core.recipe import parse_recipe
from maple_core.statuses import CommentStatus
from maple_core.text import code_span, js_number, where_of

__all__ = [
    "BODY_LIMIT",
    "FENCE_BUDGET",
    "FittedLedger",
    "GitHubLedger",
    "LedgerTooLargeError",
    "UnsupportedFenceError",
    "comment_identity",
    "fit_fence",
    "fit_ledger",
    "github_length",
    "merge_ledgers",
    "parse_ledger_body",
    "record_number",
    "render_ledger_body",
]

FENCE_BUDGET = 40_000
"""Bytes (UTF-8) the fenced JSON may take before detail is shed."""

# Maple's own reader: the first ```maple, wherever it starts, up to a line opening with ```.
_FENCE = re.compile(r"```maple[^\n]*\n(.*?)\n```", re.S)
_OPENER = "```maple"
_STATUS_WORDS = {
    CommentStatus.OPEN: "Open",
    CommentStatus.RESOLVED: "Resolved",
    CommentStatus.NEEDS_REVERIFY: "Re-verify",
    CommentStatus.ORPHANED: "Unpinned",
}


_R = TypeVar("_R", Comment, Approval)


class UnsupportedFenceError(InvalidRecordError):
    """Raised when a ledger's fence has a version newer than this maple reads."""


@dataclass(frozen=True, slots=True)
class GitHubLedger:
    """The records one ledger comment holds.

    ``marks`` are maple's records of the pull request's own review items (a review's or a
    conversation comment's status, resolution and thread, by its ``ghrv_``/``ghic_`` id), kept
    under ``reviewMarks``, a key Maple ignores.
    """

    branch: str
    comments: tuple[Comment, ...] = ()
    approvals: tuple[Approval, ...] = ()
    withdrawn: tuple[str, ...] = ()
    marks: tuple[Comment, ...] = ()


def _stable(value: JsonValue) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _fence_json(ledger: GitHubLedger, comments: Sequence[Comment]) -> str:
    doc: JsonObject = {"branch": ledger.branch, "comments": [c.to_json() for c in comments]}
    if ledger.approvals:
        doc["approvals"] = [a.to_json() for a in ledger.approvals]
    if ledger.withdrawn:
        doc["withdrawn"] = list(ledger.withdrawn)  # ours: Maple ignores unknown keys
    if ledger.marks:
        doc["reviewMarks"] = [m.to_json() for m in ledger.marks]  # ours, as above
    doc["version"] = 1
    return _stable(doc)


def _shed_mock(c: Comment) -> Comment:
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


_SHEDDING: tuple[tuple[str, Callable[[Comment], Comment]], ...] = (
    ("mock", _shed_mock),
    ("quote-context", _shed_quote_context),
    ("regions", _shed_regions),
    ("selector", _shed_anchor_key("selector")),
    ("context", _shed_context),
    ("quote", _shed_anchor_key("quote")),
)


def fit_fence(ledger: GitHubLedger, budget: int = FENCE_BUDGET) -> tuple[str, tuple[str, ...]]:
    """The fence JSON within ``budget`` bytes, and the kinds of detail shed to get there.

    See :func:`fit_ledger`; ``replies`` among the kinds means thread entries were left out.
    """
    fitted = fit_ledger(ledger, budget)
    return fitted.text, fitted.shed


@dataclass(frozen=True, slots=True)
class FittedLedger:
    """A ledger's fence as written: its JSON, the comments in it, and what was left out.

    Attributes:
        text: the fence JSON, within the budget unless even shedding everything could not.
        comments: the comments as the fence holds them (threads and detail shed).
        shed: the kinds of detail shed, in order (``replies`` first, when any was).
        replies_shed: how many thread entries were left out.
    """

    text: str
    comments: tuple[Comment, ...]
    shed: tuple[str, ...]
    replies_shed: int = 0


def fit_ledger(
    ledger: GitHubLedger, budget: int = FENCE_BUDGET, room: int | None = None
) -> FittedLedger:
    """The ledger's fence within ``budget`` bytes, shedding what it must.

    With ``room``, it must also fit ``room`` characters as GitHub counts them
    (:func:`github_length`): quotes and line breaks cost two there, control characters six.

    Thread replies go first, oldest first across the whole ledger, before any of a comment's
    own fields: plain ``reply`` and ``resolve`` entries before any ``reopen`` or ``confirm``
    (those decide the gate: a confirmation counts only while it is in the thread, so it is the
    last thing a thread loses). A shed reply is gone from the ledger: the next write starts from
    the fence, and the body says how many were left out. Then detail is shed from every comment
    at once, in Maple's order: mock, quote context, regions, selector, context, quote.
    Approvals are never shed. Still over, it is returned as it is (the caller decides).
    """

    def excess(text: str) -> int:
        over = len(text.encode()) - budget
        return max(over, github_length(text) - room) if room is not None else over

    comments = list(ledger.comments)
    text = _fence_json(ledger, comments)
    shed: list[str] = []
    dropped = 0
    if excess(text) > 0:
        comments, text, dropped = _shed_replies(ledger, comments, text, excess)
        if dropped:
            shed.append("replies")
    for name, step in _SHEDDING:
        if excess(text) <= 0:
            break
        if name == "mock" and not any(c.context and c.context.mock for c in comments):
            continue
        comments = [step(c) for c in comments]
        shed.append(name)
        text = _fence_json(ledger, comments)
    return FittedLedger(text, tuple(comments), tuple(shed), dropped)


_KEPT_LONGEST = (ReplyKind.REOPEN.value, ReplyKind.CONFIRM.value)


def _shed_replies(
    ledger: GitHubLedger, comments: list[Comment], text: str, excess_of: Callable[[str], int]
) -> tuple[list[Comment], str, int]:
    """Leave thread entries out, oldest first (``reopen`` and ``confirm`` last), until it fits.

    Each entry's own bytes are counted off the excess, so the fence is re-rendered only a few
    times however long the threads are.
    """
    entries: list[tuple[bool, str, int, int, int]] = []  # kept-longest, stamp, comment, index, size
    for at, comment in enumerate(comments):
        raw = comment.extra.get(REPLIES)
        if not isinstance(raw, list):
            continue
        for index, entry in enumerate(raw):
            if not isinstance(entry, dict):
                continue
            received = entry.get("receivedAt")
            stamp = _canonical(received) if isinstance(received, str) else ""
            entry_text = _stable(entry)
            size = max(len(entry_text.encode()), github_length(entry_text)) + 1  # and its comma
            entries.append((entry.get("kind") in _KEPT_LONGEST, stamp, at, index, size))
    entries.sort(key=lambda e: e[:4])
    gone: set[tuple[int, int]] = set()
    taken = 0
    while taken < len(entries) and excess_of(text) > 0:
        excess = excess_of(text)
        while taken < len(entries) and excess > 0:
            _, _, at, index, size = entries[taken]
            gone.add((at, index))
            excess -= size
            taken += 1
        comments = [_without_replies(c, at, gone) for at, c in enumerate(ledger.comments)]
        text = _fence_json(ledger, comments)
    return comments, text, len(gone)


def _without_replies(comment: Comment, at: int, gone: set[tuple[int, int]]) -> Comment:
    raw = comment.extra.get(REPLIES)
    if not isinstance(raw, list) or not any((at, i) in gone for i in range(len(raw))):
        return comment
    kept = [entry for i, entry in enumerate(raw) if (at, i) not in gone]
    return replace(comment, extra={**comment.extra, REPLIES: kept})


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


BODY_LIMIT = 65_536
"""GitHub's limit on an issue comment's body, in characters counted after JSON escaping."""

_ESCAPED_SURROGATE = re.compile("[\ud800-\udfff]")


def github_length(text: str) -> int:
    """``text``'s length as GitHub counts it against :data:`BODY_LIMIT`: after JSON escaping.

    A quote, a backslash or a line break costs two characters, a control character (and half an
    emoji, which travels escaped) six.
    """
    escaped = len(json.dumps(text, ensure_ascii=False)) - 2
    return escaped + 5 * len(_ESCAPED_SURROGATE.findall(text))


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
        (-github_length(_stable(c.to_json())), record_number(c.id), c.id) for c in fitted.comments
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


def _readable_mock(c: Comment) -> Comment:
    if c.context is None or c.context.mock is None:
        return c
    try:
        recipe = parse_recipe(c.context.mock).to_json()
    except InvalidRecordError:
        return _shed_mock(c)
    return replace(c, context=Context.from_json({**c.context.data, "mock": recipe}))


def parse_ledger_body(body: str, branch: str | None = None) -> GitHubLedger | None:
    """The ledger in an issue comment's body, or ``None`` when the body holds no fence.

    Comments take ``branch`` (the identifier asked for) when given, else the fence's own.
    Recipes are re-read: an unreadable one is dropped (the comment is kept) and version 1
    comes back as version 2.

    Raises:
        InvalidRecordError: the fence is not JSON or not a ledger.
        UnsupportedFenceError: the fence's version is newer than 1.
    """
    doc = _ledger_fence(body)
    if doc is None:
        return None
    version = doc.get("version")
    # As Maple reads it: a number above 1 is refused (1.0 is 1); anything else reads as version 0.
    if isinstance(version, (int, float)) and not isinstance(version, bool) and version > 1:
        raise UnsupportedFenceError(
            f"The maple fence has version {js_number(version)[:24]}; this maple reads version 1. "
            "Upgrade maple."
        )
    own = doc.get("branch")
    target = branch if branch is not None else own if isinstance(own, str) else ""
    raw_comments = doc.get("comments")
    raw_approvals = doc.get("approvals")
    # Maple reads a fence whose comments are not an array as an empty ledger.
    if not isinstance(raw_comments, list):
        raw_comments = []
    if not isinstance(raw_approvals, list):
        raw_approvals = []
    comments = tuple(
        _readable_mock(replace(Comment.from_json(c), branch=target)) for c in raw_comments
    )
    approvals = tuple(Approval.from_json(a) for a in raw_approvals)
    raw_withdrawn = doc.get("withdrawn", [])
    withdrawn = (
        tuple(w for w in raw_withdrawn if isinstance(w, str))
        if isinstance(raw_withdrawn, list)
        else ()
    )
    raw_marks = doc.get("reviewMarks", [])
    marks = tuple(
        replace(Comment.from_json(m), branch=target)
        for m in (raw_marks if isinstance(raw_marks, list) else [])
        if isinstance(m, dict) and isinstance(mark_id := m.get("id"), str) and review_ref(mark_id)
    )
    return GitHubLedger(target, comments, approvals, withdrawn, marks)


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


def _ledger_fence(body: str) -> JsonObject | None:
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


def merge_ledgers(
    ledgers: Sequence[GitHubLedger],
    ceilings: Sequence[str] | None = None,
    ids: Sequence[int] | None = None,
) -> GitHubLedger:
    """Union of ledgers given oldest write first: every comment once, its newest version kept.

    Two writers racing on one pull request each repost a ledger; reading merges them, so
    neither loses a comment. A comment is known by what never changes about it (arrival stamp,
    creation time, body); of its versions, the one with the latest ``updatedAt`` (maple stamps
    every change) wins, the newer ledger breaking ties. Its id is the one the newest ledger
    holding it gives; two racers that gave different comments one number keep both, the older
    one under the next free number (the same on every read). Approvals merge the same way, and
    an approval withdrawn in any ledger stays withdrawn.

    ``ceilings`` are the times GitHub last saw each ledger change: a version stamped later
    than its ledger's ceiling counts as stamped at the ceiling, so no stamp written into a
    ledger can outrank a change made after it.

    A comment's thread is the union of every version's (see :func:`_union_threads`): two
    racing repliers each write a version with their own reply, and both replies stay. Its claim
    is the one GitHub's numbering of the ledger comments (``ids``, the ledgers' issue comment
    ids) decides from every version's (see :mod:`~maple_adapters.github.claim_chain`).
    """
    if not ledgers:
        raise ValueError("merge_ledgers needs at least one ledger")
    caps = [_canonical(c) if c else "" for c in ceilings or [""] * len(ledgers)]
    comments = _merge_records(
        [(order, c) for order, ledger in enumerate(ledgers) for c in ledger.comments],
        identity=comment_identity,
        version=_version,
        ceiling=lambda order: caps[order],
    )
    comments = _union_threads(comments, [c for ledger in ledgers for c in ledger.comments])
    numbers = list(ids) if ids is not None else list(range(1, len(ledgers) + 1))
    comments = _union_claims(
        comments,
        [(n, c) for n, ledger in zip(numbers, ledgers, strict=True) for c in ledger.comments],
    )
    withdrawn = tuple(dict.fromkeys(w for ledger in ledgers for w in ledger.withdrawn))
    approvals = _merge_records(
        [(order, a) for order, ledger in enumerate(ledgers) for a in ledger.approvals],
        identity=lambda a: (a.branch, a.commit, a.at, a.author_name),
        version=lambda a: a.at,
    )
    kept = tuple(a for a in approvals if a.id not in withdrawn)
    every_mark = [m for ledger in ledgers for m in ledger.marks]
    marks = _merge_records(
        [(order, m) for order, ledger in enumerate(ledgers) for m in ledger.marks],
        identity=lambda m: m.id,
        version=_version,
        ceiling=lambda order: caps[order],
    )
    marks = _union_threads(marks, every_mark, identity=lambda m: m.id)
    return GitHubLedger(ledgers[-1].branch, tuple(comments), kept, withdrawn, tuple(marks))


def _merge_records(
    records: Sequence[tuple[int, _R]],
    *,
    identity: Callable[[_R], Hashable],
    version: Callable[[_R], str],
    ceiling: Callable[[int], str] = lambda order: "",
) -> list[_R]:
    best: dict[Hashable, tuple[str, int, _R]] = {}
    newest_id: dict[Hashable, tuple[int, str]] = {}
    for order, record in records:
        key = identity(record)
        stamp, cap = version(record), ceiling(order)
        candidate = (min(stamp, cap) if cap else stamp, order, record)
        if key not in best or candidate[:2] >= best[key][:2]:
            best[key] = candidate
        newest_id[key] = (order, record.id)
    next_free = max((record_number(i) for _, i in newest_id.values()), default=0) + 1
    taken: set[str] = set()
    merged: list[_R] = []
    for key in sorted(newest_id, key=lambda k: -newest_id[k][0]):
        record_id = newest_id[key][1]
        if record_id and record_id in taken:  # an unreadable id ("") is kept as written
            record_id = f"{record_id.rsplit('_', 1)[0]}_{next_free}"
            next_free += 1
        taken.add(record_id)
        merged.append(replace(best[key][2], id=record_id))
    merged.sort(key=lambda r: (record_number(r.id), version(r)))
    return merged


def _reply_key(entry: JsonObject) -> str:
    """A thread entry's identity: its id, or (no id, as a hand edit may leave it) its JSON."""
    reply_id = entry.get("id")
    return reply_id if isinstance(reply_id, str) and reply_id else _stable(entry)


def _reply_order(entry: JsonObject) -> tuple[str, str]:
    received = entry.get("receivedAt")
    reply_id = entry.get("id")
    return (
        _canonical(received) if isinstance(received, str) else "",
        reply_id if isinstance(reply_id, str) else "",
    )


def _union_threads(
    merged: Sequence[Comment],
    versions: Sequence[Comment],
    identity: Callable[[Comment], Hashable] | None = None,
) -> list[Comment]:
    """Each merged comment with every reply any of its versions holds, once each.

    The winning version's entries are kept as written; entries only other versions hold are
    added, and then the thread is ordered by ``receivedAt`` (then id). A comment whose winning
    version already holds every entry is left byte for byte as it is.
    """
    key_of = identity or comment_identity
    extra: dict[Hashable, dict[str, JsonObject]] = {}
    for version in versions:
        raw = version.extra.get(REPLIES)
        if isinstance(raw, list):
            found = extra.setdefault(key_of(version), {})
            for entry in raw:
                if isinstance(entry, dict):
                    key = _reply_key(entry)
                    found[key] = _later_reading(found.get(key), entry)
    out: list[Comment] = []
    for comment in merged:
        every = extra.get(key_of(comment)) or {}
        raw = comment.extra.get(REPLIES)
        own = raw if isinstance(raw, list) else []
        held = {_reply_key(e) for e in own if isinstance(e, dict)}
        missing = [e for key, e in every.items() if key not in held]
        read = [_later_reading(e, every.get(_reply_key(e))) for e in own if isinstance(e, dict)]
        if not missing and all(
            a is b for a, b in zip(read, (e for e in own if isinstance(e, dict)), strict=True)
        ):
            out.append(comment)
            continue
        entries = read + missing
        entries.sort(key=_reply_order)
        others: list[JsonValue] = [e for e in own if not isinstance(e, dict)]
        out.append(replace(comment, extra={**comment.extra, REPLIES: [*others, *entries]}))
    return out


def _union_claims(
    merged: Sequence[Comment], versions: Sequence[tuple[int, Comment]]
) -> list[Comment]:
    """Each merged comment with the claim its versions' ledgers decide (or none)."""
    found: dict[Hashable, list[tuple[int, JsonValue]]] = {}
    for ledger_id, version in versions:
        if CLAIM in version.extra:
            found.setdefault(comment_identity(version), []).append(
                (ledger_id, version.extra[CLAIM])
            )
    if not found:
        return list(merged)
    out: list[Comment] = []
    for comment in merged:
        claimed = found.get(comment_identity(comment))
        current = current_claim(claimed) if claimed else None
        if current is None:
            out.append(comment)
        else:
            out.append(replace(comment, extra={**comment.extra, CLAIM: current}))
    return out


def _later_reading(kept: JsonObject | None, other: JsonObject | None) -> JsonObject:
    """Of two versions of one thread entry, the one whose reading of it is the later.

    A reading (``classification``) is noted on an entry already there, without stamping the
    comment, so a racing writer's version of the entry may lack it: the version holding a reading
    wins over one without, and of two readings the undone one, else the later one. Otherwise the
    first version stays.
    """
    if kept is None:
        assert other is not None
        return other
    if other is None or other is kept:
        return kept

    def rank(entry: JsonObject) -> tuple[int, int, str]:
        reading = entry.get(CLASSIFICATION)
        if not isinstance(reading, dict):
            return (0, 0, "")
        at = reading.get("at")
        return (1, int(reading.get("undone") is not None), at if isinstance(at, str) else "")

    return other if rank(other) > rank(kept) else kept


def comment_identity(comment: Comment) -> tuple[str | None, str | None, str]:
    """What never changes about a comment: versions differ only in status and resolution."""
    return (comment.received_at, comment.created_at, comment.body)


def _canonical(stamp: str) -> str:
    instant = parse_stamp(stamp)
    return format_stamp(instant) if instant is not None else ""


def _version(comment: Comment) -> str:
    """How new a comment's version is, as a canonical stamp that sorts as text.

    ``updatedAt`` is written only by a store's own status change (stamped by its clock, never
    taken from a client: see ``NewComment.stored``), and only trusted writers' ledgers are
    merged, so the latest change wins. A stamp that does not parse counts as no change.
    """
    for stamp in (comment.extra.get("updatedAt"), comment.arrival):
        canonical = _canonical(stamp) if isinstance(stamp, str) else ""
        if canonical:
            return canonical
    return ""


def record_number(comment_id: str) -> int:
    """The ``n`` of a ``gh_<pull>_<n>`` or ``gha_<pull>_<n>`` id (0 for any other id)."""
    tail = comment_id.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else 0
