"""How comments are shown to tools and people: the readable shape, never one that breaks them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import datetime

from maple_core.anchors import Anchor
from maple_core.claims import CLAIM, Claim
from maple_core.comments import Comment
from maple_core.conversation import REPLIES, thread_of
from maple_core.json_types import MAX_DEPTH, JsonObject, nests_deeper_than
from maple_core.threads import awaiting_reviewer, reviewer_replies_after

__all__ = ["SHOWN_REPLIES", "shown", "shown_one"]

SHOWN_REPLIES = 12
"""How many of a thread's newest entries are shown with its comment (``olderReplies`` counts
the rest)."""


def shown(
    comments: Iterable[Comment],
    report: Callable[[str], None] | None = None,
    *,
    since: datetime | None = None,
    claimed: Mapping[str, Claim] | None = None,
) -> list[JsonObject]:
    """The comments as tools and people are shown them (:meth:`Comment.readable_json`).

    A comment's ``claim`` is shown as ``{agent, session, since, expires}`` (a store's own
    bookkeeping left out); one whose id is in ``claimed`` (another session's live claims, for
    the session being shown them) carries the same as ``claimedBy``: leave it to them.

    A comment's thread (``replies``) keeps its newest :data:`SHOWN_REPLIES` entries
    (``olderReplies`` counts the others), in the order they happened, so an answer always reads
    below its question and the structured content keeps the stored order;
    with ``since`` (a wait's cursor), the reviewers' entries that arrived after it are marked
    ``"new": true``. A comment whose agent asked a question nobody answered yet carries
    ``"waitingForReviewer": true``.

    A record nested more deeply than :data:`~maple_core.json_types.MAX_DEPTH` (Maple's route
    stores any depth) is left out and described to ``report``: it would break the reader.
    """
    out: list[JsonObject] = []
    for comment in comments:
        data = comment.readable_json()
        if REPLIES in comment.extra:
            _show_thread(comment, data, since)
        if CLAIM in data:
            stored = Claim.read(data[CLAIM])
            if stored is None:
                del data[CLAIM]
            else:
                data[CLAIM] = stored.shown()
        other = claimed.get(comment.id) if claimed else None
        if other is not None:
            data["claimedBy"] = other.shown()
        if nests_deeper_than(data):
            if report is not None:
                report(
                    f"Comment {comment.id} nests more than {MAX_DEPTH} levels deep, so it is left "
                    "out; flatten or remove it where the store keeps it."
                )
            continue
        out.append(data)
    return out


def _show_thread(comment: Comment, data: JsonObject, since: datetime | None) -> None:
    thread = thread_of(comment)
    fresh = {r.id for r in reviewer_replies_after(comment, since)} if since is not None else set()
    entries: list[JsonObject] = []
    for reply in thread[-SHOWN_REPLIES:]:
        entry = reply.to_json()
        if reply.id in fresh:
            entry["new"] = True
        entries.append(entry)
    data[REPLIES] = list(entries)
    if len(thread) > SHOWN_REPLIES:
        data["olderReplies"] = len(thread) - SHOWN_REPLIES
    if awaiting_reviewer(comment):
        data["waitingForReviewer"] = True


def shown_one(comment: Comment, report: Callable[[str], None] | None = None) -> JsonObject:
    """One comment as :func:`shown` shows it; one nested too deeply keeps only its own fields."""
    for data in shown([comment], report):
        return data
    bare = replace(comment, anchor=Anchor(), context=None, resolution=comment.resolution, extra={})
    return bare.readable_json()
