"""How everyone else steps around a claim, and what the reviewer sees of it.

Other sessions are shown a claimed comment marked and last (:func:`claimed_by_others`,
:func:`unclaimed_first`); a claim-aware wait returns only what is ready for its session and is
woken when a claim it stepped around lapses (:func:`ready_comments`, :func:`next_lapse`); the
reviewer sees each comment's presence (:func:`presence_of`); a session refused a comment is told
who holds it (:class:`ClaimRefusedError`). The claim itself and its rules are
:mod:`maple_core.claims`'.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from enum import StrEnum

from maple_core.claims import Claim, inert_text, live_claim
from maple_core.comments import Comment
from maple_core.cursor import FreshComments, newest_first
from maple_core.errors import MapleError
from maple_core.statuses import BLOCKING_STATUSES, CommentStatus
from maple_core.threads import awaiting_reviewer

__all__ = [
    "ClaimRefusedError",
    "Presence",
    "claimed_by_others",
    "describe_holder",
    "next_lapse",
    "presence_of",
    "ready_comments",
    "unclaimed_first",
]


def describe_holder(claim: Claim) -> str:
    """A claim's holder as one inert line: ``claude-code (session ms-1a2b) since …, until …``."""
    agent = inert_text(claim.agent)
    session = inert_text(claim.session)
    since, until = inert_text(claim.since), inert_text(claim.expires)
    return f"{agent} (session {session}) since {since}, until {until}"


class ClaimRefusedError(MapleError):
    """Raised when another live session holds the comment a session asked to act on."""

    def __init__(self, comment_id: str, holder: Claim, doing: str = "work on") -> None:
        self.comment_id = comment_id
        self.holder = holder
        super().__init__(
            f"Comment {inert_text(comment_id)} is claimed by {describe_holder(holder)}, so this "
            f"session may not {doing} it. Leave it to them and pick an unclaimed comment; it is "
            "everyone's again once the claim lapses or is released (a person can take it over "
            "with maple comments claim --force)."
        )


def claimed_by_others(
    comments: Iterable[Comment], session: str | None, now: datetime
) -> dict[str, Claim]:
    """The live claims of sessions other than ``session``, by comment id."""
    out: dict[str, Claim] = {}
    for comment in comments:
        claim = live_claim(comment, now)
        if claim is not None and claim.session != session:
            out[comment.id] = claim
    return out


def unclaimed_first(comments: Sequence[Comment], claimed: Mapping[str, Claim]) -> list[Comment]:
    """``comments`` with those another session claimed moved last, each group in its order."""
    return [c for c in comments if c.id not in claimed] + [c for c in comments if c.id in claimed]


def next_lapse(claimed: Mapping[str, Claim], now: datetime) -> float | None:
    """Seconds until the first of ``claimed`` lapses (when a waiter must look again)."""
    left = [c.remaining(now) for c in claimed.values()]
    return min(left) if left else None


def ready_comments(
    found: FreshComments,
    comments: Sequence[Comment],
    session: str | None,
    now: datetime,
    withheld: set[str],
    cursor: str | None,
) -> FreshComments:
    """What a claim-aware wait returns for ``session``: ``found`` once something in it is ready.

    A fresh comment another session holds is not ready: it is returned (to be marked
    ``claimedBy``) only beside one that is, and the wait goes on while none is. A comment in
    ``withheld`` (shown to this session as another's before) whose claim has lapsed since, and
    which still needs work, is ready again whatever the cursor says: the waiting agent is woken
    for it. Nothing ready is a wait not done: no comments, and the cursor as given.
    """
    claimed = claimed_by_others(comments, session, now)
    lapsed = [
        c
        for c in comments
        if c.id in withheld and c.id not in claimed and c.status in BLOCKING_STATUSES
    ]
    ready = [c for c in found.comments if c.id not in claimed] + lapsed
    if not ready:
        return FreshComments((), found.cursor if cursor is None else cursor)
    seen = {c.id for c in found.comments}
    every = list(found.comments) + [c for c in lapsed if c.id not in seen]
    return FreshComments(tuple(newest_first(every)), found.cursor)


class Presence(StrEnum):
    """What the reviewer sees of a comment: nobody on it yet, an agent on it, their turn, done."""

    NOBODY = "nobody"
    ON_IT = "on-it"
    WAITING = "waiting-for-you"
    RESOLVED = "resolved"


def presence_of(comment: Comment, now: datetime) -> tuple[Presence, Claim | None]:
    """The comment's presence at ``now``, and the live claim behind ``on-it``.

    Resolved comes first, then an agent's unanswered question (waiting for you), then a live
    claim (on it), else nobody.
    """
    if comment.status is CommentStatus.RESOLVED:
        return Presence.RESOLVED, None
    if awaiting_reviewer(comment):
        return Presence.WAITING, None
    claim = live_claim(comment, now)
    return (Presence.ON_IT, claim) if claim is not None else (Presence.NOBODY, None)
