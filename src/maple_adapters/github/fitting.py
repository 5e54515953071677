"""Fitting a ledger's records into the fence's budget: what is shed, in which order.

Over budget, thread replies are shed first (oldest first, a reopening's and a confirmation's
reason kept longest), then detail from every comment in Maple's order, until it fits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from maple_adapters.github.ledger import (
    FENCE_BUDGET,
    GitHubLedger,
    canonical_stamp,
    github_length,
    stable_json,
)
from maple_adapters.github.shedding import SHEDDING
from maple_core.comments import Comment
from maple_core.conversation import REPLIES, ReplyKind
from maple_core.json_types import JsonObject

__all__ = [
    "FittedLedger",
    "fit_fence",
    "fit_ledger",
]


def _fence_json(ledger: GitHubLedger, comments: Sequence[Comment]) -> str:
    doc: JsonObject = {"branch": ledger.branch, "comments": [c.to_json() for c in comments]}
    if ledger.approvals:
        doc["approvals"] = [a.to_json() for a in ledger.approvals]
    if ledger.withdrawn:
        doc["withdrawn"] = list(ledger.withdrawn)  # ours: Maple ignores unknown keys
    if ledger.marks:
        doc["reviewMarks"] = [m.to_json() for m in ledger.marks]  # ours, as above
    doc["version"] = 1
    return stable_json(doc)


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
    for name, step in SHEDDING:
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
            stamp = canonical_stamp(received) if isinstance(received, str) else ""
            entry_text = stable_json(entry)
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
