"""Reading a ledger's body as Maple does: the one ```` ```maple ```` fence that is the ledger.

A body may quote other fences (in a comment's words); the ledger is the fence that holds the
others as its comments' words, and a body where that cannot be told is refused.
"""

from __future__ import annotations

from dataclasses import replace

from maple_adapters.github.fences import ledger_fence
from maple_adapters.github.ledger import GitHubLedger
from maple_adapters.github.shedding import shed_mock
from maple_core.approvals import Approval
from maple_core.comments import Comment
from maple_core.errors import InvalidRecordError
from maple_core.page_context import Context
from maple_core.pull_review import review_ref
from maple_core.recipe import parse_recipe
from maple_core.text import js_number

__all__ = [
    "UnsupportedFenceError",
    "parse_ledger_body",
]


class UnsupportedFenceError(InvalidRecordError):
    """Raised when a ledger's fence has a version newer than this maple reads."""


def _readable_mock(c: Comment) -> Comment:
    if c.context is None or c.context.mock is None:
        return c
    try:
        recipe = parse_recipe(c.context.mock).to_json()
    except InvalidRecordError:
        return shed_mock(c)
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
    doc = ledger_fence(body)
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
