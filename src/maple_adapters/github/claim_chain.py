"""Which claim a comment holds, decided by GitHub's own order of the comments that grant it.

GitHub cannot make an edit conditional on the version read, so two claimants that read the
same comments and each edit one would both believe they won. A new claim (a *grant*) is
therefore never an edit: it is posted as a new issue comment (a claim note,
:mod:`.claim_notes`; an earlier maple posted a whole new ledger), and GitHub numbers every new
comment in the order it arrives. A grant records ``chain: {depth, rev}`` inside the claim:
``depth`` is one more than the depth of the claim it follows (a lapsed, released or taken-over
one; 1 after none), and its id (``grant``) is the number of the comment it was posted in,
written into the claim by whoever copies it elsewhere. Of the grants every version holds for a
comment, the deepest wins and, at equal depth, the first GitHub numbered: so of any number of
claimants that raced from the same read, exactly one wins, and every reader agrees which. A
grant's own holder renews or releases it as a new revision (``rev``) of the same grant; the
highest revision stands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from maple_core.claims import Claim, live_claim, with_claim
from maple_core.comments import Comment
from maple_core.cursor import format_js_timestamp
from maple_core.json_types import JsonObject, JsonValue
from maple_core.statuses import CommentStatus

__all__ = ["CHAIN", "Link", "chained", "current_claim", "ended_by_resolve", "link_of"]

CHAIN = "chain"
"""The claim's key its place in the chain is kept under."""


@dataclass(frozen=True, slots=True)
class Link:
    """A claim's place in the chain: its grant's id, its depth and its revision.

    ``note``: the grant was posted as a claim note (:mod:`.claim_notes`), so it stands only
    while that note does; one posted as a ledger (as maple wrote grants before) stands until
    it lapses or is revised.
    """

    grant: int
    depth: int
    rev: int
    note: bool = False

    def to_json(self) -> JsonObject:
        """``{grant, depth, rev}``, and ``note: true`` for a note's grant."""
        out: JsonObject = {"grant": self.grant, "depth": self.depth, "rev": self.rev}
        if self.note:
            out["note"] = True
        return out


def _positive(value: JsonValue, default: int) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return default


def link_of(claim: Claim, ledger_id: int) -> Link:
    """The claim's link, as read from the ledger comment ``ledger_id`` that holds it.

    A claim without a ``grant`` was granted in this very ledger; one without a chain at all
    (written by another tool) is a first grant.
    """
    chain = claim.extra.get(CHAIN)
    known = chain if isinstance(chain, dict) else {}
    return Link(
        _positive(known.get("grant"), ledger_id),
        _positive(known.get("depth"), 1),
        _positive(known.get("rev"), 1),
        known.get("note") is True,
    )


def chained(claim: Claim, link: Link | None) -> Claim:
    """``claim`` carrying ``link`` (a new grant, ``link.grant`` 0, leaves its id to GitHub)."""
    extra = {k: v for k, v in claim.extra.items() if k != CHAIN}
    if link is not None:
        chain = link.to_json()
        if link.grant <= 0:
            del chain["grant"]
        extra[CHAIN] = chain
    return Claim(claim.agent, claim.session, claim.since, claim.expires, extra)


def current_claim(versions: Sequence[tuple[int, JsonValue]]) -> JsonObject | None:
    """The claim a comment holds, from each ledger's ``(ledger id, stored claim)``.

    The deepest grant wins, the first numbered at equal depth; of its revisions, the highest
    (the latest ledger at equal revision). The answer carries its link in full, so it reads the
    same from any ledger it is copied into. ``None`` when no ledger holds a readable claim.
    """
    best: dict[int, tuple[int, int, Claim, Link]] = {}  # grant -> (rev, ledger, claim, link)
    for ledger_id, value in versions:
        claim = Claim.read(value)
        if claim is None:
            continue
        link = link_of(claim, ledger_id)
        seen = best.get(link.grant)
        if seen is None or (link.rev, ledger_id) > seen[:2]:
            best[link.grant] = (link.rev, ledger_id, claim, link)
    if not best:
        return None
    winner = min(best, key=lambda grant: (-best[grant][3].depth, grant))
    _, _, claim, link = best[winner]
    return chained(claim, link).to_json()


def ended_by_resolve(before: Comment, after: Comment, now: datetime) -> Comment:
    """``after`` (``before`` changed by a write) with its live claim ended if it now resolves.

    Resolving a comment ends its claim (docs/claims.md), so the resolve's own ledger write
    carries the claim's end as its grant's next revision, and no release write follows it.
    """
    if before.status is CommentStatus.RESOLVED or after.status is not CommentStatus.RESOLVED:
        return after
    claim = live_claim(after, now)
    if claim is None:
        return after
    link = link_of(claim, 0)
    ended = replace(claim, expires=format_js_timestamp(now))
    return with_claim(after, chained(ended, replace(link, rev=link.rev + 1)))
