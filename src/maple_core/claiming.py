"""The claim use cases, written against the ports: claim, work on a claimed comment, step around.

Every entrypoint (the MCP server, the CLI, ``maple watch``) calls these; the rules themselves are
:mod:`maple_core.claims`'.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from maple_core.claim_views import (
    ClaimRefusedError,
    claimed_by_others,
    unclaimed_first,
)
from maple_core.claims import (
    Claim,
    Claimant,
    ClaimOutcome,
    ClaimRequest,
    ClaimResult,
    claim_of,
)
from maple_core.comments import Comment
from maple_core.errors import MissingCapabilityError
from maple_core.ports import Capability, CommentClaims, CommentStore

__all__ = [
    "ResolvingEndsClaims",
    "claim_comment",
    "claim_for_resolve",
    "claim_for_work",
    "claims_of",
    "keeps_claims",
    "release_after_resolve",
    "release_quietly",
    "sweep_session",
    "visible_to",
]


def keeps_claims(store: CommentStore) -> bool:
    """Whether ``store`` keeps claims."""
    return Capability.CLAIM in store.capabilities and isinstance(store, CommentClaims)


def claims_of(store: CommentStore) -> CommentClaims:
    """The store as one that keeps claims.

    Raises:
        MissingCapabilityError: it keeps none (a deployed TypeScript Maple route, for one).
    """
    if Capability.CLAIM in store.capabilities and isinstance(store, CommentClaims):
        return store
    raise MissingCapabilityError(
        f"The {store.name} store keeps no claims; claim where the comment lives, or use a maple "
        "store (file, github or a maple route).",
        store=store.name,
        operation="claim",
    )


def claim_comment(store: CommentStore, comment_id: str, request: ClaimRequest) -> ClaimResult:
    """Apply ``request`` to one comment (:meth:`CommentClaims.claim`).

    Raises:
        MissingCapabilityError: the store keeps no claims.
        NotFoundError: no comment has that id.
    """
    return claims_of(store).claim(comment_id, request)


def claim_for_work(
    store: CommentStore,
    comment_id: str,
    claimant: Claimant,
    lease_s: float,
    doing: str,
) -> ClaimResult | None:
    """Claim ``comment_id`` before working on it (``get_comment_context``, ``resolve_comment``).

    A store (or a comment, such as a pull request's own review thread) that keeps no claims
    answers ``None``: there is nothing to step around.

    Raises:
        ClaimRefusedError: another live session holds it; the message names them and ``doing``.
    """
    if not keeps_claims(store):
        return None
    try:
        result = claims_of(store).claim(comment_id, ClaimRequest.claim(claimant, lease_s))
    except MissingCapabilityError:
        return None
    if result.outcome is ClaimOutcome.HELD and result.decision.holder is not None:
        raise ClaimRefusedError(comment_id, result.decision.holder, doing)
    return result


@runtime_checkable
class ResolvingEndsClaims(Protocol):
    """A store whose resolve ends the comment's claim in the resolve's own write (GitHub's).

    A resolve on it asks who holds the comment instead of claiming it first: a claim granted
    only to be ended a moment later would cost writes and tell nobody anything.
    """

    def claim_holder(self, comment_id: str, claimant: Claimant) -> Claim | None:
        """The live claim a session other than ``claimant``'s holds on the comment, if any."""
        ...


def claim_for_resolve(
    store: CommentStore, comment_id: str, claimant: Claimant, lease_s: float
) -> ClaimResult | None:
    """What ``resolve_comment`` does first: refuse when another live session holds the comment.

    On a store whose resolve ends the claim (:class:`ResolvingEndsClaims`) this only asks who
    holds it; elsewhere it claims it (:func:`claim_for_work`) for the resolve to release.

    Raises:
        ClaimRefusedError: another live session holds it.
    """
    if keeps_claims(store) and isinstance(store, ResolvingEndsClaims):
        holder = store.claim_holder(comment_id, claimant)
        if holder is not None:
            raise ClaimRefusedError(comment_id, holder, "resolve")
        return None
    return claim_for_work(store, comment_id, claimant, lease_s, "resolve")


def release_after_resolve(
    store: CommentStore,
    resolved: Comment,
    claimant: Claimant,
    now: datetime,
    report: Callable[[str], None],
) -> None:
    """End the session's claim once ``resolved`` is, unless the resolve's own write ended it.

    A resolved comment showing this session's claim already lapsed needs no release write.
    """
    claim = claim_of(resolved)
    if claim is not None and claim.session == claimant.session and not claim.live_at(now):
        return
    release_quietly(store, resolved.id, claimant, report)


def release_quietly(
    store: CommentStore, comment_id: str, claimant: Claimant, report: Callable[[str], None]
) -> None:
    """End the session's claim on ``comment_id`` if it holds one; a failure is only reported.

    A claim that could not be released lapses at its expiry anyway.
    """
    if not keeps_claims(store):
        return
    try:
        claims_of(store).claim(comment_id, ClaimRequest.release(claimant))
    except MissingCapabilityError:
        return  # the comment keeps no claims: none was taken
    except Exception as exc:  # the work is done; the lease ends the claim in any case
        report(
            f"The claim on {comment_id} could not be released ({type(exc).__name__}); it "
            "lapses at its expiry."
        )


def sweep_session(store: CommentStore, branch: str, request: ClaimRequest) -> list[Comment]:
    """Renew or end the session's claims on ``branch`` (nothing, on a store without claims)."""
    if not keeps_claims(store):
        return []
    return claims_of(store).sweep_claims(branch, request)


def visible_to(
    comments: Sequence[Comment], session: str | None, now: datetime
) -> tuple[list[Comment], dict[str, Claim]]:
    """The comments as ``session`` is shown them, and the other sessions' live claims.

    Unclaimed comments (and the session's own) come first; the claims are by comment id, to
    mark those comments ``claimedBy``.
    """
    claimed = claimed_by_others(comments, session, now)
    return unclaimed_first(comments, claimed), claimed
