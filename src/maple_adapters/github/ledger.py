"""The pull-request ledger: one issue comment holding every Maple record of a pull request.

The body is markdown for people (a table of the comments) followed by a visible fenced block
opened with ```` ```maple ```` holding the records as key-sorted JSON, which is what tools read.
The fence is budgeted at 40,000 UTF-8 bytes (:mod:`~maple_adapters.github.fitting`). A body is
written by :mod:`~maple_adapters.github.rendering`, read by :mod:`~maple_adapters.github.parsing`,
and ledgers two writers raced to write are merged by :mod:`~maple_adapters.github.merging`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from maple_core.approvals import Approval
from maple_core.comments import Comment
from maple_core.cursor import format_stamp, parse_stamp
from maple_core.json_types import JsonValue

__all__ = [
    "BODY_LIMIT",
    "FENCE_BUDGET",
    "GitHubLedger",
    "canonical_stamp",
    "comment_identity",
    "github_length",
    "record_number",
    "stable_json",
]

FENCE_BUDGET = 40_000
"""Bytes (UTF-8) the fenced JSON may take before detail is shed."""


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


def stable_json(value: JsonValue) -> str:
    """``value`` as key-sorted, compact JSON: the same records always make the same text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


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


def comment_identity(comment: Comment) -> tuple[str | None, str | None, str]:
    """What never changes about a comment: versions differ only in status and resolution."""
    return (comment.received_at, comment.created_at, comment.body)


def canonical_stamp(stamp: str) -> str:
    """``stamp`` in maple's one stamp format, so stamps sort as text; ``""`` when unreadable."""
    instant = parse_stamp(stamp)
    return format_stamp(instant) if instant is not None else ""


def record_number(comment_id: str) -> int:
    """The ``n`` of a ``gh_<pull>_<n>`` or ``gha_<pull>_<n>`` id (0 for any other id)."""
    tail = comment_id.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else 0
