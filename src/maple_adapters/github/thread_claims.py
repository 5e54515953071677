"""Claims on a pull request's own review threads, and the 👀 that shows them on GitHub.

A thread's claim is kept in a claim note (:mod:`~maple_adapters.github.claim_notes`), decided
as a comment's is (:mod:`~maple_adapters.github.claim_chain`); a claim granted puts the token's 👀
on the thread's first comment and one ended takes it off. The reaction only shows the claim:
one GitHub refuses is reported, and the claim stands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from maple_adapters.github.transport import GitHubError
from maple_core.claims import (
    CLAIM,
    ClaimDecision,
    ClaimOutcome,
    ClaimRequest,
    ClaimResult,
    claim_of,
    live_claim,
    with_claim,
)
from maple_core.comments import Comment
from maple_core.errors import MissingCapabilityError
from maple_core.pull_review import ReviewKind, ReviewReading, ReviewRef, review_ref

if TYPE_CHECKING:
    from maple_adapters.github.pull_store import PullRequestStore

__all__ = ["claim_thread", "claimed", "show_claim", "unreact_swept"]


def claim_thread(store: PullRequestStore, ref: ReviewRef, request: ClaimRequest) -> ClaimResult:
    """Apply ``request`` to the review item ``ref`` (a thread; others keep no claims).

    Raises:
        MissingCapabilityError: it is a review or a conversation comment.
        NotFoundError: no thread the agent can work on has that id.
    """
    if ref.kind is not ReviewKind.THREAD:
        raise MissingCapabilityError(
            f"{ref.id} is a review or a conversation comment on GitHub, which keeps no "
            "claims; claims are kept on maple's comments and on review threads "
            "(docs/claims.md).",
            store=store.name,
            operation="claim",
        )
    current = store._current(ref, "claim")
    record = Comment(id=ref.id, branch=current.branch, body="")
    try:
        [result] = store.ledger.claim_threads(ref.pull, {ref.id: record}, request)
    except GitHubError as exc:
        raise store._fail(exc, "claim") from exc
    show_claim(store, ref, result.decision)
    shown = with_claim(current, claim_of(result.comment))
    return ClaimResult(shown, result.decision)


def show_claim(store: PullRequestStore, ref: ReviewRef, decision: ClaimDecision) -> None:
    """The thread's 👀: added with a claim granted, taken off with one ended.

    The reaction only shows the claim, which its note keeps: one that fails is reported,
    and the claim stands.
    """
    if not decision.write:
        return
    granted = decision.outcome in (ClaimOutcome.CLAIMED, ClaimOutcome.TAKEN_OVER)
    if not granted and decision.outcome is not ClaimOutcome.RELEASED:
        return
    try:
        if granted:
            store.source.react(ref)
        else:
            store.source.unreact(ref)
    except GitHubError as exc:
        if store.report is not None:
            store.report(
                f"maple could not {'add' if granted else 'remove'} the 👀 on {ref.id}: {exc}"
            )


def unreact_swept(store: PullRequestStore, changed: Sequence[Comment]) -> None:
    """Take the 👀 off each thread whose claim a session's sweep ended."""
    now = store.clock.now()
    for record in changed:
        ref = review_ref(record.id)
        if ref is not None and live_claim(record, now) is None:
            show_claim(store, ref, ClaimDecision(ClaimOutcome.RELEASED, None, write=True))


def claimed(review: ReviewReading, marks: Sequence[Comment]) -> ReviewReading:
    """The review with each thread holding the claim its record (``marks``) shows."""
    claims = {m.id: m.extra[CLAIM] for m in marks if CLAIM in m.extra}
    if not claims:
        return review
    comments = tuple(
        replace(c, extra={**c.extra, CLAIM: claims[c.id]}) if c.id in claims else c
        for c in review.comments
    )
    return replace(review, comments=comments)
