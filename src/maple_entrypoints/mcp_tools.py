"""``maple-mcp``'s six tools, each added by one function, over what they share (a Toolkit).

Tools, arguments and result shapes are Maple's; each result carries structured content and the
same JSON as text (:func:`~maple_entrypoints.mcp_results.tool_result`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

import anyio
import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult
from pydantic import Field

from maple_core.claim_views import (
    ClaimRefusedError,
)
from maple_core.claiming import claim_for_resolve, claim_for_work, release_after_resolve
from maple_core.comments import Comment
from maple_core.context import comment_context
from maple_core.conversation import MAX_REPLY_CHARS, Role, agent_author
from maple_core.cursor import FreshComments, parse_cursor
from maple_core.display import shown, shown_one
from maple_core.inert_text import REVIEW_DATA_NOTICE
from maple_core.json_types import JsonObject
from maple_core.listing import list_all
from maple_core.ports import Capability
from maple_core.reporting import converse_and_report, resolve_and_report
from maple_core.statuses import CommentStatus
from maple_core.targets import Fix
from maple_core.thread_events import ThreadEvent
from maple_core.wait import clamp_wait_ms
from maple_entrypoints.mcp_claims import Model
from maple_entrypoints.mcp_images import comment_images
from maple_entrypoints.mcp_models import CommentList, ContextModel, SoloModel, WaitModel
from maple_entrypoints.mcp_models import CommentModel as CommentOut
from maple_entrypoints.mcp_results import add_tool, tool_result
from maple_entrypoints.mcp_task_calls import task_budget_s
from maple_entrypoints.mcp_toolkit import ADDER, READER, SETTER, Toolkit
from maple_entrypoints.mcp_watches import wait_for_fresh

TYPE_CHECKING = False
if TYPE_CHECKING:
    pass

__all__ = ["add_tools"]

_MAX_TEXT = 65_536

Branch = Annotated[
    str,
    Field(
        min_length=1,
        max_length=1_024,
        description="Head branch of the pull request the comments are on, such as `feat/login`. "
        "Not a pull request number.",
    ),
]
CommentId = Annotated[str, Field(min_length=1, max_length=256, description="The comment's id.")]
StatusName = Literal["open", "resolved", "needs_reverify", "orphaned"]


def add_tools(server: MCPServer, kit: Toolkit) -> None:
    """Register the six tools on ``server``, in the order they are advertised."""
    for add in (
        _list_comments,
        _wait_for_comments,
        _resolve_comment,
        _reply_to_comment,
        _get_comment_context,
        _start_solo,
    ):
        add(server, kit)


def _list_comments(server: MCPServer, kit: Toolkit) -> None:
    async def list_comments(
        branch: Branch,
        ctx: Context,
        statuses: Annotated[
            list[StatusName] | None,
            Field(max_length=4, description="Only these states. Omit for all of them."),
        ] = None,
    ) -> Annotated[CallToolResult, CommentList]:
        """List review comments.

        Return the review comments on a branch, newest first; those another agent session is working
        on are marked claimedBy and come last: leave them to it.
        """
        await kit.active(ctx)
        wanted = [CommentStatus(s) for s in statuses] if statuses else None
        listed = await anyio.to_thread.run_sync(
            lambda: list_all(kit.store, branch, wanted, report=kit.report)
        )
        ordered, claimed = kit.claims.shown(listed, branch, kit.clock.now())
        comments = shown(ordered, kit.report, claimed=claimed)
        return tool_result(comments, {"notice": REVIEW_DATA_NOTICE, "result": comments})

    add_tool(server, list_comments, READER)


def _wait_for_comments(server: MCPServer, kit: Toolkit) -> None:
    async def wait_for_comments(
        branch: Branch,
        ctx: Context,
        cursor: Annotated[
            str | None,
            Field(
                max_length=64,
                description="Timestamp from a previous call. Only comments newer than this "
                "are returned; omit it to drain everything already there.",
            ),
        ] = None,
        timeoutMs: Annotated[  # noqa: N803 - Maple's argument name
            float | None,
            Field(
                description="How long to wait. Clamped to 55 seconds, under every client's ceiling."
            ),
        ] = None,
    ) -> Annotated[CallToolResult, WaitModel]:
        """Wait for review comments.

        Block until a new comment (or a reviewer's reply to one) arrives or the wait elapses.
        Returns status "timeout" rather than failing when nothing arrives. Pass the returned cursor
        to the next call; omit it to drain every comment already there. Replies that arrived after
        the cursor are marked "new": true. Where the client runs it as a background task, the wait
        lasts up to an hour: leave it running and end your turn; the wait continues in the
        background and you'll be woken when a reviewer comments. Comments another agent session
        claimed are marked claimedBy and never end the wait alone; one is returned when its claim
        lapses.
        """
        since = cursor or None  # Maple treats an empty cursor as none: drain
        if since is not None:
            parse_cursor(since)
        long_budget = task_budget_s()  # running as an MCP task: wait far longer, silently
        await kit.note_client(ctx, long_budget is not None)
        await kit.active(ctx)
        budget_ms = clamp_wait_ms(timeoutMs) if long_budget is None else int(long_budget * 1000)

        def pick(comments: Sequence[Comment]) -> tuple[FreshComments, float | None]:
            return kit.claims.pick(comments, branch, since, kit.clock.now())

        found = await wait_for_fresh(
            kit.watches,
            kit.store,
            branch,
            since,
            budget_ms,
            ctx if long_budget is None else None,
            kit.report,
            pick=pick,
            renew=kit.claims,
        )
        ordered, claimed = kit.claims.shown(found.comments, branch, kit.clock.now())

        def answer() -> CallToolResult:
            data: dict[str, Any] = {
                "status": "comments" if found.comments else "timeout",
                "cursor": found.cursor,
                "comments": shown(
                    ordered,
                    kit.report,
                    since=parse_cursor(since) if since else None,
                    claimed=claimed,
                ),
            }
            return tool_result(data, {"notice": REVIEW_DATA_NOTICE, **data})

        # The waits one comment woke answer alike: the answer is made and serialised once.
        made = kit.watches.answer(branch, since, found.cursor, ordered, claimed, answer)
        return made.model_copy()

    add_tool(server, wait_for_comments, READER)


def _resolve_comment(server: MCPServer, kit: Toolkit) -> None:
    def resolve_comment_tool(
        id: CommentId,
        sha: Annotated[
            str,
            Field(
                min_length=1,
                max_length=256,
                description="The commit that addresses it (git rev-parse HEAD after committing).",
            ),
        ],
        note: Annotated[
            str | None,
            Field(max_length=_MAX_TEXT, description="What you changed, for the reviewer."),
        ] = None,
        model: Model = None,
        ctx: Context | None = None,
    ) -> Annotated[CallToolResult, CommentOut]:
        """Resolve a review comment.

        Mark a comment resolved, recording the commit that addressed it. Commit first: in a git
        checkout the sha must be a commit HEAD reaches. Resolving a resolved comment again keeps the
        first resolution and records this one in its thread. Resolving claims the comment first
        (refused, naming them, when another agent session holds it) and releases it once resolved.
        """
        kit.touched(ctx)
        claims = kit.claims
        claims.declare_model(model)
        claimant = claims.claimant()
        if Capability.SET_STATUS in kit.store.capabilities:  # else the resolve says where to go
            claim_for_resolve(kit.store, id, claimant, claims.lease_s)
        fix = Fix(sha, note, agent_author(), by=claims.signature())
        resolved = resolve_and_report(kit.store, id, fix, kit.clock, kit.target, kit.commits)
        release_after_resolve(kit.store, resolved, claimant, kit.clock.now(), kit.log.warn)
        data = shown_one(resolved, kit.report)
        return tool_result(data, {"notice": REVIEW_DATA_NOTICE, **data})

    add_tool(server, resolve_comment_tool, SETTER, name="resolve_comment")


def _reply_to_comment(server: MCPServer, kit: Toolkit) -> None:
    def reply_to_comment(
        id: CommentId,
        body: Annotated[
            str,
            Field(min_length=1, max_length=MAX_REPLY_CHARS, description="What you say."),
        ],
        question: Annotated[
            bool, Field(description="True to ask the reviewer and wait for their answer.")
        ] = False,
        model: Model = None,
        ctx: Context | None = None,
    ) -> Annotated[CallToolResult, CommentOut]:
        """Reply to a review comment.

        Answer a reviewer inside the comment's thread, or ask them a question (question: true)
        instead of guessing. A question leaves the comment open and waiting for the reviewer: the
        Stop hook does not hold you for it, and wait_for_comments returns the comment when the
        reviewer answers.
        """
        kit.touched(ctx)
        kit.claims.declare_model(model)
        event = ThreadEvent.reply(
            Role.AGENT, body, question=question, author=agent_author(), by=kit.claims.signature()
        )
        changed = converse_and_report(kit.store, id, event, kit.target, kit.clock.now())
        data = shown_one(changed, kit.report)
        return tool_result(data, {"notice": REVIEW_DATA_NOTICE, **data})

    add_tool(server, reply_to_comment, ADDER)


def _get_comment_context(server: MCPServer, kit: Toolkit) -> None:
    async def get_comment_context(
        id: CommentId, branch: Branch, ctx: Context
    ) -> Annotated[CallToolResult, ContextModel]:
        """Get a comment's context.

        Return everything needed to act on one comment: anchor, viewport, surrounding markup and any
        replay link. A comment written under a Maple Mock carries `mock.recipe` and `mock.replay`, a
        link to the page in that state. Images the reviewer attached (the overlay's capture of what
        they saw, with `elementBox` and `clickPoint` in the context) follow as image content. It
        claims the comment for this session; when another session holds it, the comment comes back
        marked claimedBy: leave it to them. (It stays marked read-only: a claim is a lease the
        session renews or lets lapse, never a change to the comment.)
        """
        await kit.active(ctx)
        listed = await anyio.to_thread.run_sync(
            lambda: list_all(kit.store, branch, report=kit.report)
        )
        context = comment_context(listed, id, branch)
        data = context.to_json()
        mark = await _claimed_mark(kit, id)
        shown_comment = data["comment"]
        if mark and isinstance(shown_comment, dict):
            data["comment"] = {**shown_comment, **mark}
        result = tool_result(data, {"notice": REVIEW_DATA_NOTICE, **data})
        result.content.extend(comment_images(context.comment, kit.media))
        return result

    add_tool(server, get_comment_context, READER)


async def _claimed_mark(kit: Toolkit, comment_id: str) -> JsonObject:
    """Claim the comment for the session: its claim to show, or who holds it instead."""
    claims = kit.claims
    try:
        claimed = await anyio.to_thread.run_sync(
            lambda: claim_for_work(
                kit.store, comment_id, claims.claimant(), claims.lease_s, "work on"
            )
        )
    except ClaimRefusedError as refused:
        return {"claimedBy": refused.holder.shown()}
    if claimed is not None and claimed.decision.claim is not None:
        claims.holds_on(claimed.comment.branch)
        return {"claim": claimed.decision.claim.shown()}
    return {}


def _start_solo(server: MCPServer, kit: Toolkit) -> None:
    async def start_solo(
        previewUrl: Annotated[  # noqa: N803 - Maple's argument name
            str,
            Field(
                min_length=1,
                max_length=2_048,
                description="The deployed preview's URL, such as "
                "`https://feat-login.preview.example`. Only that origin is paired with the bridge.",
            ),
        ],
    ) -> Annotated[CallToolResult, SoloModel]:
        """Keep a preview's comments on this machine.

        Start a bridge on localhost and return the link that pairs a deployed preview with it. The
        reviewer opens the link in their browser and the comments they write there land in .maple/
        for list_comments and wait_for_comments to read. They never count toward the merge gate.
        """
        if kit.solo is None:
            raise ToolError("Solo mode is not available in this server.")
        if kit.store.name != "file":
            raise ToolError(
                f"This server reads the {kit.store.name} store, but solo comments are written "
                "under .maple/. Set MAPLE_STORE=file to read them."
            )
        link, bridge = await anyio.to_thread.run_sync(kit.solo.pair, previewUrl)
        data = {"link": link, "bridge": bridge}
        return tool_result(data, data, reviewers=False)

    add_tool(server, start_solo, SETTER)
