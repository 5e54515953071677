"""Reviewers' words at the route: who is trusted, the reply's mark, and undoing a reading.

A caller's words are a trusted reviewer's when the route identified them (``identity``) or when
the route serves only the person this machine paired (the solo bridge, the review proxy:
``paired``); the route marks their entries so (``trust``), and nobody else's. With a classifier
(``MAPLE_CLASSIFIER``), a trusted reviewer's reply on a resolved comment is read once its answer
is sent, and the gate published after it.
"""

from __future__ import annotations

import dataclasses

from maple_core.authors import Reviewer
from maple_core.comments import Comment
from maple_core.conversation import TRUST, Reply, ReplyKind, Role, thread_of
from maple_core.feedback import Trust, classification_of
from maple_core.json_types import JsonValue
from maple_core.thread_events import ThreadEvent
from maple_entrypoints.route.answers import RouteRefusalError

__all__ = ["marked", "new_entry", "read_undo", "trust_of", "undoer"]


def trust_of(reviewer: Reviewer | None, *, paired: bool) -> Trust | None:
    """Why this caller's words are a trusted reviewer's, or ``None`` (a guest's)."""
    if reviewer is not None:
        return Trust.IDENTIFIED
    return Trust.PAIRED if paired else None


def marked(event: ThreadEvent, trust: Trust | None) -> ThreadEvent:
    """``event`` with the caller's trust marked on a reviewer's entry (never on the agent's)."""
    if trust is None or event.role is not Role.REVIEWER:
        return event
    return dataclasses.replace(event, marks={**event.marks, TRUST: trust.value})


def new_entry(changed: Comment, event: ThreadEvent) -> Reply | None:
    """The entry ``event`` made in ``changed``'s thread: its newest one with those words."""
    made = [
        r
        for r in thread_of(changed)
        if (r.role, r.kind, r.body) == (event.role, event.kind, event.body)
    ]
    return max(made, key=lambda r: r.received_at or "") if made else None


def read_undo(posted: JsonValue) -> str:
    """The entry id an undo names: ``{"entry": "<id>"}``.

    Raises:
        RouteRefusalError: 400 when it names none.
    """
    entry = posted.get("entry") if isinstance(posted, dict) else None
    if not isinstance(entry, str) or not entry or len(entry) > 200:
        raise RouteRefusalError(400, "'entry' must name the thread entry whose reading to undo")
    return entry


def undoer(comment: Comment, entry_id: str, reviewer: Reviewer | None, *, paired: bool) -> None:
    """Refuse an undo this caller may not make.

    The person whose words were read may undo their reading: an identified reviewer their own,
    the paired person at this machine any; a guest none.

    Raises:
        RouteRefusalError: 401 for a guest, 403 for another reviewer's words, 404 for an entry
            with no reading.
    """
    trust = trust_of(reviewer, paired=paired)
    if trust is None:
        raise RouteRefusalError(401, "Sign in before you can undo what maple understood")
    entry = next((r for r in thread_of(comment) if r.id == entry_id), None)
    if entry is None or classification_of(entry) is None:
        raise RouteRefusalError(404, "No reading of maple's on that entry")
    author = entry.author or {}
    if trust is Trust.IDENTIFIED and (reviewer is None or author.get("id") != reviewer.id):
        raise RouteRefusalError(
            403, "Only the reviewer whose words maple read can undo its reading"
        )
    if entry.kind is not ReplyKind.REPLY:
        raise RouteRefusalError(404, "No reading of maple's on that entry")
