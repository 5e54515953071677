"""The pull-request ledger: one issue comment holding every Maple record of a pull request.

The body is markdown for people (a table of the comments) followed by a visible fenced block
opened with ```` ```maple ```` holding the records as key-sorted JSON, which is what tools read.
The fence is budgeted at 40,000 UTF-8 bytes; over budget, detail is shed from every comment in
Maple's order until it fits.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from maple_core.approvals import Approval
from maple_core.comments import Anchor, Comment, Context
from maple_core.errors import InvalidRecordError
from maple_core.json_types import JsonObject, JsonValue
from maple_core.recipe import parse_recipe
from maple_core.statuses import CommentStatus
from maple_core.text import js_number

__all__ = [
    "FENCE_BUDGET",
    "GitHubLedger",
    "UnsupportedFenceError",
    "merge_ledgers",
    "parse_ledger_body",
    "render_ledger_body",
]

FENCE_BUDGET = 40_000
"""Bytes (UTF-8) the fenced JSON may take before detail is shed."""

_FENCE = re.compile(r"```maple[^\n]*\n(.*?)\n```", re.S)
_STATUS_WORDS = {
    CommentStatus.OPEN: "Open",
    CommentStatus.RESOLVED: "Resolved",
    CommentStatus.NEEDS_REVERIFY: "Re-verify",
    CommentStatus.ORPHANED: "Unpinned",
}


class UnsupportedFenceError(InvalidRecordError):
    """Raised when a ledger's fence has a version newer than this maple reads."""


@dataclass(frozen=True, slots=True)
class GitHubLedger:
    """The records one ledger comment holds."""

    branch: str
    comments: tuple[Comment, ...] = ()
    approvals: tuple[Approval, ...] = ()


def _stable(value: JsonValue) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _fence_json(ledger: GitHubLedger, comments: Sequence[Comment]) -> str:
    doc: JsonObject = {"branch": ledger.branch, "comments": [c.to_json() for c in comments]}
    if ledger.approvals:
        doc["approvals"] = [a.to_json() for a in ledger.approvals]
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

    Detail is shed from every comment at once, in Maple's order: mock, quote context, regions,
    selector, context, quote. Approvals are never shed. Still over budget, it is written anyway.
    """
    comments = list(ledger.comments)
    text = _fence_json(ledger, comments)
    shed: list[str] = []
    for name, step in _SHEDDING:
        if len(text.encode()) <= budget:
            break
        if name == "mock" and not any(c.context and c.context.mock for c in comments):
            continue
        comments = [step(c) for c in comments]
        shed.append(name)
        text = _fence_json(ledger, comments)
    return text, tuple(shed)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\r\n", "\n").replace("\n", "<br>")


def _where(c: Comment) -> str:
    where = c.anchor.component or c.anchor.source or c.anchor.selector
    return f"`{where}`" if where else "—"


def _viewport(c: Comment) -> str:
    context = c.context
    if context is None:
        return "—"
    width, height = context.viewport_width, context.viewport_height
    size = f"{js_number(width)}×{js_number(height)}" if width and height else "—"
    return size + (" · mocked" if context.mock is not None else "")


def render_ledger_body(ledger: GitHubLedger, budget: int = FENCE_BUDGET) -> str:
    """The ledger comment's markdown: intro, table, approvals, the ```` ```maple ```` fence."""
    comments = ledger.comments
    with_status = any(c.status is not CommentStatus.OPEN for c in comments)
    header = ["#", "Where", "Comment", *(["Status"] if with_status else []), "Viewport"]
    lines = [
        f"**Maple** keeps this pull request's visual review here: {len(comments)} comment(s).",
        "",
    ]
    if comments:
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        for i, c in enumerate(comments, start=1):
            row = [str(i), _where(c), _cell(c.body)]
            if with_status:
                row.append(_STATUS_WORDS[c.status])
            row.append(_viewport(c))
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    if ledger.approvals:
        lines.append("Approved:")
        for approval in ledger.approvals:
            lines.append(f"- {approval.author_name} on `{approval.commit}`")
        lines.append("")
    fence, _ = fit_fence(ledger, budget)
    lines += [
        "The full comment details in markdown, to copy into an agent:",
        "",
        "```maple",
        fence,
        "```",
        "",
        "---",
        "<sub>Kept by maple, powered by Maple</sub>",
    ]
    return "\n".join(lines)


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
    match = _FENCE.search(body)
    if match is None:
        return None
    try:
        doc = json.loads(match.group(1))
    except ValueError as exc:
        raise InvalidRecordError(f"The maple fence is not JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise InvalidRecordError("The maple fence is not a JSON object.")
    version = doc.get("version", 1)
    if not isinstance(version, int) or version > 1:
        raise UnsupportedFenceError(
            f"The maple fence has version {version!r}; this maple reads version 1. Upgrade maple."
        )
    own = doc.get("branch")
    target = branch if branch is not None else own if isinstance(own, str) else ""
    raw_comments = doc.get("comments", [])
    raw_approvals = doc.get("approvals", [])
    if not isinstance(raw_comments, list) or not isinstance(raw_approvals, list):
        raise InvalidRecordError("The maple fence's comments and approvals must be arrays.")
    comments = tuple(
        _readable_mock(replace(Comment.from_json(c), branch=target)) for c in raw_comments
    )
    approvals = tuple(Approval.from_json(a) for a in raw_approvals)
    return GitHubLedger(branch=target, comments=comments, approvals=approvals)


def merge_ledgers(ledgers: Sequence[GitHubLedger]) -> GitHubLedger:
    """Union of ledgers given oldest write first: every comment once, its newest version kept.

    Two writers racing on one pull request each repost a ledger; reading merges them, so
    neither loses a comment. A comment is known by what never changes about it (arrival stamp,
    creation time, body), and keeps the id the newest ledger holding it gives it. Two racers can
    also give different comments one number; the one written earlier then reads under the next
    free number (the same on every read), and the next write records that.
    """
    if not ledgers:
        raise ValueError("merge_ledgers needs at least one ledger")
    latest: dict[tuple[str | None, str | None, str], tuple[int, Comment]] = {}
    for order, ledger in enumerate(ledgers):
        for comment in ledger.comments:
            latest[_identity(comment)] = (order, comment)
    next_free = max((_number(c.id) for _, c in latest.values()), default=0) + 1
    taken: set[str] = set()
    merged: list[Comment] = []
    for _, comment in sorted(latest.values(), key=lambda item: -item[0]):
        if comment.id in taken:
            comment = replace(comment, id=f"{comment.id.rsplit('_', 1)[0]}_{next_free}")
            next_free += 1
        taken.add(comment.id)
        merged.append(comment)
    merged.sort(key=lambda c: (_number(c.id), c.arrival or ""))
    approvals: dict[str, Approval] = {}
    for ledger in ledgers:
        for approval in ledger.approvals:
            approvals[approval.id] = approval
    return GitHubLedger(ledgers[-1].branch, tuple(merged), tuple(approvals.values()))


def _identity(comment: Comment) -> tuple[str | None, str | None, str]:
    """What never changes about a comment: versions differ only in status and resolution."""
    return (comment.received_at, comment.created_at, comment.body)


def _number(comment_id: str) -> int:
    tail = comment_id.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else 0
