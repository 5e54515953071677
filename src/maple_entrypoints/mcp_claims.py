"""``claim_comment``: the seventh tool, an agent's claim on a comment (ours, beyond Maple's six).

A claim says "this session is working on it": other sessions see the comment ``claimedBy`` and
last in their lists, their Stop hooks do not hold them for it, and ``maple watch`` does not
hand it to its agent. ``get_comment_context`` and ``resolve_comment`` claim implicitly; this tool
claims explicitly (for a longer lease, say) and releases.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from maple_core.claim_views import (
    describe_holder,
)
from maple_core.claiming import claim_comment
from maple_core.claims import (
    DEFAULT_LEASE_S,
    MAX_LEASE_S,
    MIN_LEASE_S,
    ClaimOutcome,
    ClaimRequest,
    ClaimResult,
)
from maple_core.display import shown_one
from maple_core.inert_text import REVIEW_DATA_NOTICE
from maple_entrypoints.mcp_models import ClaimModel
from maple_entrypoints.mcp_results import add_tool
from maple_entrypoints.mcp_session import ClaimSession
from maple_entrypoints.mcp_toolkit import SETTER

__all__ = ["CLAIM_TOOL", "Model", "claim_message", "register_claim_tool"]

CLAIM_TOOL = "claim_comment"

Model = Annotated[
    str | None,
    Field(
        max_length=64,
        description="The model you are (such as claude-sonnet-4-5), shown to the reviewer beside "
        "your words and on your claims.",
    ),
]


def claim_message(result: ClaimResult) -> str:
    """One sentence saying what became of a claim, and what to do next."""
    decision = result.decision
    claim, holder = decision.claim, decision.holder
    comment_id = result.comment.id
    if result.outcome is ClaimOutcome.HELD and holder is not None:
        return (
            f"{comment_id} is claimed by {describe_holder(holder)}: leave it to them and pick "
            "an unclaimed comment. It is everyone's again once that claim lapses or is released."
        )
    if result.outcome is ClaimOutcome.NOT_HELD:
        return f"This session holds no claim on {comment_id}: nothing to release."
    if result.outcome is ClaimOutcome.RELEASED:
        return f"Released {comment_id}: it is everyone's again."
    until = claim.expires if claim is not None else "its lease's end"
    return (
        f"This session holds {comment_id} until {until}; your tool calls renew the claim, and "
        "resolving the comment releases it."
    )


def register_claim_tool(
    server: MCPServer,
    session: ClaimSession,
    result_of: Callable[[object, dict[str, Any]], CallToolResult],
    after_change: Callable[[str], None],
    report: Callable[[str], None],
    touched: Callable[[Context | None], None],
) -> None:
    """Register ``claim_comment`` on ``server`` for ``session``.

    ``after_change`` is told the branch of a comment whose claim changed (to republish the
    gate, whose summary says who is on each comment); ``touched`` is told of every call (the
    session learns its client's name and renews its claims).
    """

    def claim_comment_tool(
        id: Annotated[str, Field(min_length=1, max_length=256, description="The comment's id.")],
        leaseSeconds: Annotated[  # noqa: N803 - the JSON argument's name
            float | None,
            Field(
                ge=MIN_LEASE_S,
                le=MAX_LEASE_S,
                description=f"How long the claim lasts unless renewed (default {DEFAULT_LEASE_S}).",
            ),
        ] = None,
        release: Annotated[
            bool, Field(description="True to end this session's claim instead.")
        ] = False,
        model: Model = None,
        ctx: Context | None = None,
    ) -> Annotated[CallToolResult, ClaimModel]:
        """Claim a review comment.

        Say you are working on a comment, so other agents leave it to you: they see it claimedBy
        you and last in their lists, and their Stop hooks do not hold them for it.
        get_comment_context and resolve_comment claim implicitly; claim explicitly for a longer
        lease. A claim lasts leaseSeconds (default 600, at most 3600), is renewed by your tool
        calls, and ends when you resolve the comment, pass "release": true, or your session ends.
        "held" means another session has it: pick another.
        """
        touched(ctx)
        session.declare_model(model)
        if leaseSeconds is not None:
            session.lease_s = leaseSeconds
        claimant = session.claimant()
        request = (
            ClaimRequest.release(claimant)
            if release
            else ClaimRequest.claim(claimant, session.lease_s)
        )
        result = claim_comment(session.store, id, request)
        if result.decision.granted:
            session.holds_on(result.comment.branch)
        if result.decision.write:
            after_change(result.comment.branch)
        data: dict[str, Any] = {
            **result.to_json(),
            "message": claim_message(result),
            "comment": shown_one(result.comment, report),
        }
        return result_of(data, {"notice": REVIEW_DATA_NOTICE, **data})

    add_tool(server, claim_comment_tool, SETTER, name=CLAIM_TOOL)
