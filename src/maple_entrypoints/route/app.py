"""Maple's route as an ASGI app: what overlays and agents talk to, mountable under any prefix.

::

    from fastapi import FastAPI
    from maple_entrypoints.route import RouteOptions, create_route_app

    app = FastAPI()
    app.mount("/api/maple", create_route_app(RouteOptions(store=my_store)))

Endpoints (paths under the mount): ``GET``/``POST /comments``, ``PATCH``/``DELETE /comments/{id}``,
``POST /comments/{id}/thread``
(a reply, a reopening or a confirmation in the comment's thread), ``POST /comments/{id}/claim``
(an agent's claim or release, ours), ``POST /claims`` (a session's claims on a branch,
renewed or ended at once), ``POST /comments/{id}/classification/undo`` (undo what maple
understood from a reply), ``POST /media``,
``GET /media/{key}``, ``GET``/``POST /approvals``, ``DELETE /approvals/{id}``,
``GET /me``, ``GET /health`` and ``POST /gate/refresh``; and, with an MCP endpoint, ``/mcp``
(the agent loop's tools over Streamable HTTP, see ``route.mcp_http``). Every answer is JSON with
``cache-control: no-store`` except a media blob and the MCP endpoint's streams.

The app's lifespan starts what the options need (the database's listener, the MCP endpoint's
session manager); an application mounting the route runs it with ``route_lifespan(app)``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import (
    AbstractAsyncContextManager,
    AsyncExitStack,
    asynccontextmanager,
    contextmanager,
)
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio.to_thread
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from maple_core.approvals import NewApproval
from maple_core.authors import Reviewer
from maple_core.claims import ClaimOutcome, ClaimRequest
from maple_core.classifying import classify_reply, undo_reading
from maple_core.comments import Comment
from maple_core.conversation import ConversationError, Role, ThreadEvent
from maple_core.cursor import format_js_timestamp
from maple_core.errors import MapleError, NotFoundError
from maple_core.feedback import refusal
from maple_core.gate import check_review_url
from maple_core.json_types import JsonObject, JsonValue
from maple_core.media import RASTER_TYPES, is_raster, raster_type, sniff_raster
from maple_core.ports import (
    Capability,
    Clock,
    CommentAmending,
    CommentClaims,
    CommentConversation,
    CommentStore,
    FeedbackClassifier,
    GatePublisher,
    MediaStore,
)
from maple_core.services import list_all, publish_gate, resolve_comment, stamped_resolution
from maple_core.statuses import CommentStatus
from maple_core.submissions import MAX_BODY_CHARS, read_drafts, read_status_change
from maple_core.text import scrub
from maple_entrypoints.bootstrap.github import PushAnswer
from maple_entrypoints.bootstrap.local import system_clock
from maple_entrypoints.route.answers import (
    RouteRefusalError,
    bearer_token,
    json_answer,
    read_bytes,
    read_json,
    refusal_for,
)
from maple_entrypoints.route.authorship import (
    AUTHOR_HEADER,
    author_of_post,
    caller_id,
    own_open_comment,
)
from maple_entrypoints.route.feedback import marked, new_entry, read_undo, trust_of, undoer
from maple_entrypoints.route.params import read_branch, read_list_query, read_note
from maple_entrypoints.route.refresh import GateRefreshOptions, refresh_gate
from maple_entrypoints.server_log import ServerLog

TYPE_CHECKING = False
if TYPE_CHECKING:  # the MCP SDK loads only for a route that serves the endpoint
    from maple_entrypoints.route.mcp_http import McpEndpoint

__all__ = [
    "DEFAULT_BASE_PATH",
    "IdentityResolver",
    "RouteOptions",
    "StoreResolver",
    "create_route_app",
    "json_http_error",
    "route_lifespan",
]

DEFAULT_BASE_PATH = "/api/maple"
"""Where Maple's overlay expects the route."""

StoreResolver = Callable[[Request], CommentStore | None]
"""Chooses the store for one request (a per-reviewer credential means a per-reviewer store)."""

IdentityResolver = Callable[[Request], Reviewer | None]
"""Names the reviewer behind a request, or ``None`` for a guest."""

HealthCheck = Callable[[], tuple[bool, JsonObject]]
"""Says whether the route's parts are usable, and what it found (``GET /health``)."""

T = TypeVar("T")

_ACCEPTED = ", ".join(RASTER_TYPES[:-1]) + " or " + RASTER_TYPES[-1]

_MEDIA_HEADERS = {
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    # Opened on its own, a blob is a sandboxed document that may load nothing and run nothing.
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
}


@dataclass(frozen=True)
class RouteOptions:
    """What the route is wired to.

    Attributes:
        store: where comments live: one store, or a function choosing one per request.
        media: where screenshots go; without one, media requests answer 404.
        identity: names the reviewer; without one, comments are the guest's and nobody can
            approve.
        gate: where the verdict is published after a new comment, a status change or an
            approval, and what ``/gate/refresh`` publishes with.
        refresh: turns ``POST /gate/refresh`` on for one repository.
        require_approval: hold the gate until somebody approves the commit.
        require_confirmation: hold the gate until a reviewer confirms every resolution
            (``MAPLE_REQUIRE_CONFIRMATION``; only a store that keeps threads records one).
        review_url: where reviewers look at the preview; the check run's details link. Without
            it the check run has no link (never one built from a request's ``Host``).
        client_authors: a caller without an identity may name itself as a comment's author,
            and edit or delete its own open comments (see ``route.authorship``); for a route
            serving one person, as ``maple review``'s does.
        paired: every caller is the one person this machine paired with (the solo bridge, the
            review proxy), so their words are a trusted reviewer's, as an identified
            reviewer's are (see ``route.feedback``).
        classifier: reads a trusted reviewer's reply on a resolved comment into an outcome that
            confirms, reopens or leaves it (``MAPLE_CLASSIFIER``), after the answer is sent;
            without one, replies are only words.
        clock: stamps resolutions and approvals.
        log: where failures are recorded (never a token).
        mcp: the MCP endpoint served at ``/mcp`` for agents elsewhere, and who may call it.
        health: what ``GET /health`` checks (the database); without one it answers ok.
        lifespan: started with the app and stopped with it (the database's listener).
        max_json_bytes: the largest JSON body accepted.
        max_media_bytes: the largest screenshot accepted.
    """

    store: CommentStore | StoreResolver
    media: MediaStore | None = None
    identity: IdentityResolver | None = None
    gate: GatePublisher | None = None
    refresh: GateRefreshOptions | None = None
    require_approval: bool = False
    require_confirmation: bool = False
    review_url: str | None = None
    client_authors: bool = False
    paired: bool = False
    classifier: FeedbackClassifier | None = None
    clock: Clock = field(default_factory=system_clock)
    log: ServerLog = field(default_factory=lambda: ServerLog("maple-route"))
    max_json_bytes: int = 2 * 1024 * 1024
    max_media_bytes: int = 10 * 1024 * 1024
    mcp: McpEndpoint | None = None
    health: HealthCheck | None = None
    lifespan: Callable[[], AbstractAsyncContextManager[None]] | None = None

    def __post_init__(self) -> None:
        if self.review_url is not None:
            check_review_url(self.review_url)


async def _off_loop(fn: Callable[..., T], *args: Any) -> T:
    """Run a blocking store or gate call on a worker thread."""
    return await anyio.to_thread.run_sync(fn, *args)


class _Route:
    """The handlers, holding the options."""

    def __init__(self, options: RouteOptions) -> None:
        self.options = options

    # -- plumbing ----------------------------------------------------------------------------

    def store_for(self, request: Request) -> CommentStore:
        chosen = self.options.store
        store = chosen(request) if callable(chosen) else chosen
        if store is None:
            raise RouteRefusalError(401, "This reviewer has no store to write to")
        return store

    def reviewer(self, request: Request) -> Reviewer | None:
        identify = self.options.identity
        return identify(request) if identify is not None else None

    def now(self) -> str:
        return format_js_timestamp(self.options.clock.now())

    def after_write(
        self, store: CommentStore, request: Request, *branches: str
    ) -> BackgroundTask | None:
        """The gate publishes to run once a write's answer is sent, or ``None`` without a gate.

        One publish per branch the write touched, in order. After the answer, so a slow or
        failing GitHub never delays or fails the write itself.
        """
        if self.options.gate is None or not branches:
            return None
        return BackgroundTask(self.report_gates, store, request, list(dict.fromkeys(branches)))

    async def report_gates(
        self, store: CommentStore, request: Request, branches: list[str]
    ) -> None:
        """Publish each branch's verdict after a write; a failure is logged, never answered."""
        for branch in branches:
            await self.report_gate(store, request, branch)

    async def may_publish(self, request: Request) -> bool:
        """Whether this caller's write may republish the gate.

        A per-caller store trusts the ledger its caller wrote, so only a caller who can push
        (as ``/gate/refresh`` asks) decides the published verdict; anyone else's write waits for
        the next push or refresh. A route with one store of its own publishes for every write.
        """
        if not callable(self.options.store):
            return True
        refresh, token = self.options.refresh, bearer_token(request)
        if refresh is None or token is None:
            return False
        try:
            answer = await _off_loop(refresh.push_access, token)
        except MapleError:
            return False
        return answer is PushAnswer.PUSH

    async def report_gate(self, store: CommentStore, request: Request, branch: str) -> None:
        """Publish one branch's verdict after a write; a failure is logged, never answered."""
        gate = self.options.gate
        if gate is None:
            return
        if not await self.may_publish(request):
            self.options.log.warn(
                "A caller without push access changed comments, so the gate was not published; "
                "the next push or gate refresh publishes it."
            )
            return
        try:
            outcome = await _off_loop(
                lambda: publish_gate(
                    store,
                    gate,
                    branch,
                    require_approval=self.options.require_approval,
                    require_confirmation=self.options.require_confirmation,
                    review_url=self.options.review_url,
                    now=self.options.clock.now(),
                )
            )
        except Exception as exc:
            self.options.log.error(
                "Maple could not publish the merge gate; the change was saved.",
                failure=_described(exc, request),
            )
            return
        if outcome.skipped:
            self.options.log.warn(outcome.skipped)

    # -- comments ----------------------------------------------------------------------------

    async def comments(self, request: Request) -> Response:
        if request.method == "GET":
            return await self.list_comments(request)
        if request.method == "POST":
            return await self.append_comments(request)
        raise RouteRefusalError(405, "Method not allowed")

    async def list_comments(self, request: Request) -> Response:
        query = read_list_query({k: request.query_params.getlist(k) for k in request.query_params})
        store = self.store_for(request)
        page = await _off_loop(store.list, query)
        body: JsonObject = {"comments": [c.to_json() for c in page.comments]}
        if page.cursor is not None:
            body["cursor"] = page.cursor
        answer = json_answer(body)
        etag = '"' + hashlib.sha256(answer.body).hexdigest()[:32] + '"'
        if etag in _etags(request.headers.get("if-none-match")):
            return Response(status_code=304, headers={"etag": etag, "cache-control": "no-store"})
        answer.headers["etag"] = etag
        return answer

    async def append_comments(self, request: Request) -> Response:
        posted = await read_json(request, self.options.max_json_bytes)
        store = self.store_for(request)
        author = author_of_post(
            posted, self.reviewer(request), client_authors=self.options.client_authors
        )
        drafts, many = read_drafts(posted, author)
        if not many:
            stored = [await _off_loop(store.append, drafts[0])]
        elif not drafts:
            stored = []
        elif Capability.APPEND_MANY in store.capabilities:
            stored = await _off_loop(store.append_many, drafts)
        else:  # as Maple's store wrapper: one append per comment, in order
            stored = [await _off_loop(store.append, draft) for draft in drafts]
        # A new open comment can turn a clear gate blocked, so it is published as a resolve is.
        published = self.after_write(store, request, *(c.branch for c in stored))
        if many:
            body: JsonObject = {"comments": [c.to_json() for c in stored]}
            return json_answer(body, 201, background=published)
        return json_answer(stored[0].to_json(), 201, background=published)

    async def patch_comment(self, request: Request) -> Response:
        """A status change (Maple's PATCH), or with ``body`` and no ``status``, an edit."""
        posted = await read_json(request, self.options.max_json_bytes)
        if isinstance(posted, dict) and "body" in posted and "status" not in posted:
            return await self.edit_comment(request, posted["body"])
        return await self.set_status(request, posted)

    def amending_store(self, request: Request) -> tuple[CommentStore, CommentAmending, str]:
        """The store, its edits and deletes, and the caller's author id."""
        caller = caller_id(
            request.headers.get(AUTHOR_HEADER),
            self.reviewer(request),
            client_authors=self.options.client_authors,
        )
        store = self.store_for(request)
        if Capability.AMEND not in store.capabilities or not isinstance(store, CommentAmending):
            raise RouteRefusalError(501, "This store cannot edit or delete a comment")
        return store, store, caller

    async def edit_comment(self, request: Request, body: JsonValue) -> Response:
        if not isinstance(body, str) or not body.strip() or len(body) > MAX_BODY_CHARS:
            raise RouteRefusalError(
                400, f"'body' must be a string of 1 to {MAX_BODY_CHARS:,} characters"
            )
        store, amending, caller = self.amending_store(request)
        comment_id = request.path_params["id"]
        with _known_comment(comment_id):
            edited = await _off_loop(amending.edit, comment_id, body, own_open_comment(caller))
        return json_answer(  # the check run's summary quotes the body: it follows the edit
            edited.to_json(), background=self.after_write(store, request, edited.branch)
        )

    async def delete_comment(self, request: Request) -> Response:
        store, amending, caller = self.amending_store(request)
        comment_id = request.path_params["id"]
        deleted: list[str] = []  # the branch, learnt from the comment the check is shown

        def check(comment: Comment) -> None:
            own_open_comment(caller)(comment)
            deleted.append(comment.branch)

        with _known_comment(comment_id):
            await _off_loop(amending.delete, comment_id, check)
        return json_answer(
            {"id": comment_id}, background=self.after_write(store, request, *deleted)
        )

    async def set_status(self, request: Request, posted: JsonValue) -> Response:
        comment_id = request.path_params["id"]
        change = read_status_change(posted)
        store = self.store_for(request)
        if Capability.SET_STATUS not in store.capabilities:
            raise RouteRefusalError(501, "This store cannot change a status")
        resolution = None
        with _known_comment(comment_id):
            if change.status is CommentStatus.RESOLVED and change.sha is not None:
                # On a store that keeps threads, resolving a resolved comment keeps its first
                # evidence and records this one in the thread (``services.resolve_comment``).
                reviewer = self.reviewer(request)
                updated = await _off_loop(
                    lambda: resolve_comment(
                        store,
                        comment_id,
                        change.sha or "",
                        change.note,
                        self.options.clock,
                        author=reviewer.author() if reviewer is not None else None,
                    )
                )
            elif (
                change.status is CommentStatus.OPEN
                and Capability.CONVERSE in store.capabilities
                and isinstance(store, CommentConversation)
            ):
                updated = await _off_loop(self.reopened, store, store, comment_id, request)
            else:
                if change.sha is not None:
                    resolution = stamped_resolution(change.sha, change.note, self.options.clock)
                updated = await _off_loop(store.set_status, comment_id, change.status, resolution)
        return json_answer(
            updated.to_json(), background=self.after_write(store, request, updated.branch)
        )

    def reopened(
        self,
        store: CommentStore,
        conversing: CommentConversation,
        comment_id: str,
        request: Request,
    ) -> Comment:
        """Maple's ``PATCH {status: "open"}`` on a store that keeps threads.

        A resolved comment is reopened as the overlay reopens one (a thread entry, which wakes a
        waiting agent); any other is set open as Maple does.
        """
        reviewer = self.reviewer(request)
        author = reviewer.author() if reviewer is not None else None
        try:
            return conversing.converse(comment_id, ThreadEvent.reopen(_REOPENED_BY_STATUS, author))
        except ConversationError:
            return store.set_status(comment_id, CommentStatus.OPEN)

    async def thread(self, request: Request) -> Response:
        """``POST /comments/{id}/thread``: a reply, a reopening or a confirmation.

        The author is the caller (as for a new comment). On a ``client_authors`` route the
        caller is a reviewer's browser, which never speaks as the agent nor asks a question.
        """
        posted = await read_json(request, self.options.max_json_bytes)
        client = self.options.client_authors
        if client and isinstance(posted, dict):
            posted = {k: v for k, v in posted.items() if k not in ("role", "question")}
        event = ThreadEvent.from_json(posted, role=Role.REVIEWER if client else None)
        reviewer = self.reviewer(request)
        author = author_of_post(posted, reviewer, client_authors=client)
        trust = trust_of(reviewer, paired=self.options.paired)
        event = marked(dataclasses.replace(event, author=author), trust)
        store = self.store_for(request)
        if Capability.CONVERSE not in store.capabilities or not isinstance(
            store, CommentConversation
        ):
            raise RouteRefusalError(501, "This store keeps no replies")
        comment_id = request.path_params["id"]
        with _known_comment(comment_id):
            changed = await _off_loop(store.converse, comment_id, event)
        # A reopening blocks the gate again, a confirmation may clear it, a question is listed;
        # a trusted reviewer's reply on a resolved comment is read first, when a classifier is.
        return json_answer(
            changed.to_json(), background=self.after_reply(store, request, changed, event)
        )

    def after_reply(
        self, store: CommentStore, request: Request, changed: Comment, event: ThreadEvent
    ) -> BackgroundTask | None:
        """What runs once a thread event's answer is sent: reading a reply, then the gate."""
        entry = new_entry(changed, event)
        classifier = self.options.classifier
        if classifier is None or entry is None or refusal(changed, entry) is not None:
            return self.after_write(store, request, changed.branch)
        return BackgroundTask(self.read_and_report, store, request, changed, entry.id, classifier)

    async def read_and_report(
        self,
        store: CommentStore,
        request: Request,
        comment: Comment,
        entry_id: str,
        classifier: FeedbackClassifier,
    ) -> None:
        """Read a reviewer's reply into an outcome (bounded by the classifier), then the gate."""
        log = self.options.log
        try:
            await _off_loop(
                lambda: classify_reply(
                    store, comment, entry_id, classifier, self.options.clock, report=log.warn
                )
            )
        except Exception as exc:
            log.error(
                "Maple could not read a reviewer's reply; it waits for Confirm or Reopen.",
                failure=_described(exc, request),
            )
        await self.report_gates(store, request, [comment.branch])

    async def undo(self, request: Request) -> Response:
        """``POST /comments/{id}/classification/undo {entry, branch}``: undo maple's reading."""
        posted = await read_json(request, self.options.max_json_bytes)
        entry_id, branch = read_undo(posted), read_branch(posted)
        store = self.store_for(request)
        comment_id = request.path_params["id"]
        listed = await _off_loop(list_all, store, branch)
        comment = next((c for c in listed if c.id == comment_id), None)
        if comment is None:
            raise RouteRefusalError(
                404,
                f"No comment with id {comment_id[:80]} on {branch[:200]}; list the branch's "
                "comments for the ids there are.",
            )
        reviewer = self.reviewer(request)
        undoer(comment, entry_id, reviewer, paired=self.options.paired)
        by = author_of_post(posted, reviewer, client_authors=self.options.client_authors)
        with _known_comment(comment_id):
            changed = await _off_loop(
                undo_reading, store, comment_id, entry_id, by, self.options.clock
            )
        return json_answer(
            changed.to_json(), background=self.after_write(store, request, changed.branch)
        )

    # -- claims ------------------------------------------------------------------------------

    def claims_store(self, request: Request) -> tuple[CommentStore, CommentClaims]:
        """The store and its claims; a reviewer's browser never claims.

        On a route serving one person's browser (``client_authors``), every caller is that
        browser: claims are an agent's (or a person's through ``maple comments claim``), so
        the browser only sees them.
        """
        if self.options.client_authors:
            raise RouteRefusalError(
                403,
                "A reviewer's browser cannot claim comments: claims are an agent's (maple-mcp) "
                "or a person's (maple comments claim).",
            )
        store = self.store_for(request)
        if Capability.CLAIM not in store.capabilities or not isinstance(store, CommentClaims):
            raise RouteRefusalError(501, "This store keeps no claims")
        return store, store

    async def claim(self, request: Request) -> Response:
        """``POST /comments/{id}/claim``: claim, renew or release; 409 names the holder."""
        store, claims = self.claims_store(request)
        asked = ClaimRequest.from_json(await read_json(request, self.options.max_json_bytes))
        comment_id = request.path_params["id"]
        with _known_comment(comment_id):
            result = await _off_loop(claims.claim, comment_id, asked)
        body: JsonObject = {
            **result.to_json(),
            "changed": result.decision.write,
            "comment": result.comment.to_json(),
        }
        held = result.outcome is ClaimOutcome.HELD
        # The check run's summary says who is on each comment, so a claim that changed is
        # published as a status change is.
        after = (
            self.after_write(store, request, result.comment.branch)
            if result.decision.write
            else None
        )
        return json_answer(body, 409 if held else 200, background=after)

    async def sweep_claims(self, request: Request) -> Response:
        """``POST /claims``: many claims at once.

        With ``ids``, the request applies to each of those comments (``{results: [...]}``, a
        result per comment found); with ``branch``, it renews (``claim``) or ends
        (``release``) the session's claims there (``{comments: [...]}``, those that changed).
        """
        store, claims = self.claims_store(request)
        posted = await read_json(request, self.options.max_json_bytes)
        asked = ClaimRequest.from_json(posted)
        ids = posted.get("ids") if isinstance(posted, dict) else None
        if ids is not None:
            if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
                raise RouteRefusalError(400, "'ids' must be a list of comment ids")
            if len(ids) > _MAX_CLAIMED:
                raise RouteRefusalError(400, f"At most {_MAX_CLAIMED} comments at once")
            results = await _off_loop(claims.claim_many, [str(i) for i in ids], asked)
            answered: JsonObject = {
                "results": [
                    {**r.to_json(), "changed": r.decision.write, "comment": r.comment.to_json()}
                    for r in results
                ]
            }
            branches = [r.comment.branch for r in results if r.decision.write]
            return json_answer(answered, background=self.after_write(store, request, *branches))
        branch = read_branch(posted)
        changed = await _off_loop(claims.sweep_claims, branch, asked)
        body: JsonObject = {"comments": [c.to_json() for c in changed]}
        after = self.after_write(store, request, branch) if changed else None
        return json_answer(body, background=after)

    # -- media -------------------------------------------------------------------------------

    def media_store(self) -> MediaStore:
        if self.options.media is None:
            raise RouteRefusalError(404, "This deployment keeps no screenshots")
        return self.options.media

    async def put_media(self, request: Request) -> Response:
        media = self.media_store()
        declared = request.headers.get("content-type", "")
        content_type = raster_type(declared)
        if content_type is None:
            shown = declared.split(";", 1)[0].strip()[:60] or "no content type"
            raise RouteRefusalError(
                415,
                f"An image is required: send {_ACCEPTED} bytes under their own content type; "
                f"{shown} is not accepted (an SVG or a page could run script).",
            )
        data = await read_bytes(request, self.options.max_media_bytes, "image")
        if not data:
            raise RouteRefusalError(400, "An image is required: the body was empty")
        if sniff_raster(data) != content_type:
            raise RouteRefusalError(
                415,
                f"An image is required: the body is not the {content_type} image its content "
                f"type says; send {_ACCEPTED} bytes under their own content type.",
            )
        ref = await _off_loop(media.put, data, content_type)
        return json_answer(ref.to_json(), 201)

    async def get_media(self, request: Request) -> Response:
        media = self.media_store()
        data, content_type = await _off_loop(media.get, request.path_params["key"])
        # A raster image shows inline (the overlay's <img>); anything else, such as an SVG an
        # older maple or Maple kept, is only ever downloaded.
        disposition = "inline" if is_raster(content_type) else "attachment"
        return Response(
            data,
            media_type=content_type,
            headers={**_MEDIA_HEADERS, "content-disposition": disposition},
        )

    # -- approvals ---------------------------------------------------------------------------

    def approvals_store(self, request: Request) -> CommentStore:
        store = self.store_for(request)
        if not {Capability.APPROVALS, Capability.APPROVE} <= store.capabilities:
            raise RouteRefusalError(501, "This store keeps no approvals")
        return store

    async def approvals(self, request: Request) -> Response:
        if request.method == "GET":
            branch = request.query_params.get("branch")
            if not branch:
                raise RouteRefusalError(400, "A branch is required")
            kept = await _off_loop(self.approvals_store(request).approvals, branch)
            return json_answer({"approvals": [a.to_json() for a in kept or []]})
        if request.method != "POST":
            raise RouteRefusalError(405, "Method not allowed")
        store = self.approvals_store(request)
        reviewer = self.reviewer(request)
        if reviewer is None:
            raise RouteRefusalError(401, "Sign in before you can approve this preview")
        body = await read_json(request, self.options.max_json_bytes)
        branch = read_branch(body)
        commit = await _off_loop(store.head, branch)
        if commit is None:
            raise RouteRefusalError(409, "Nothing here can name the commit this preview is serving")
        approval = NewApproval(branch, commit, self.now(), reviewer.author(), read_note(body))
        recorded = await _off_loop(store.approve, approval)
        return json_answer(
            recorded.to_json(), 201, background=self.after_write(store, request, branch)
        )

    async def withdraw(self, request: Request) -> Response:
        store = self.approvals_store(request)
        reviewer = self.reviewer(request)
        if reviewer is None:
            raise RouteRefusalError(401, "Sign in before you can withdraw an approval")
        if Capability.UNAPPROVE not in store.capabilities:
            raise RouteRefusalError(501, "This store cannot withdraw an approval")
        branch = request.query_params.get("branch")
        if not branch:
            raise RouteRefusalError(400, "A branch is required")
        approval_id = request.path_params["id"]
        kept = await _off_loop(store.approvals, branch) or []
        if not any(a.id == approval_id and a.author.get("id") == reviewer.id for a in kept):
            raise RouteRefusalError(404, "No approval of yours with that id")
        await _off_loop(store.unapprove, approval_id)
        return json_answer({"branch": branch}, background=self.after_write(store, request, branch))

    # -- the rest ----------------------------------------------------------------------------

    async def me(self, request: Request) -> Response:
        reviewer = self.reviewer(request)
        return json_answer(
            {
                "user": reviewer.to_json() if reviewer is not None else None,
                "media": self.options.media is not None,
                "approval": {"required": self.options.require_approval},
                "confirmation": {"required": self.options.require_confirmation},
                "reading": {
                    "harness": self.options.classifier.name if self.options.classifier else None,
                    "trusted": trust_of(reviewer, paired=self.options.paired) is not None,
                },
            }
        )

    async def health(self, request: Request) -> Response:
        """``GET /health``: 200 when the route's parts are usable, 503 with what is not."""
        check = self.options.health
        ok, found = await _off_loop(check) if check is not None else (True, {})
        body: JsonObject = {"ok": ok, "worker": os.getpid(), **found}
        return json_answer(body, 200 if ok else 503)

    async def gate_refresh(self, request: Request) -> Response:
        refresh = self.options.refresh
        if refresh is None:
            raise RouteRefusalError(404, "Not found")
        if request.method != "POST":
            raise RouteRefusalError(405, "Method not allowed")
        return await refresh_gate(
            refresh,
            request,
            gate=self.options.gate,
            fallback_store=self.store_for,
            require_approval=self.options.require_approval,
            require_confirmation=self.options.require_confirmation,
            review_url=self.options.review_url,
            limit=self.options.max_json_bytes,
            now=self.options.clock.now(),
        )


@contextmanager
def _known_comment(comment_id: str) -> Iterator[None]:
    """A store's ``NotFoundError`` as a 404 in the route's own words (the store's names a path)."""
    try:
        yield
    except NotFoundError:
        raise RouteRefusalError(
            404,
            f"No comment with id {comment_id}; list the branch's comments for the ids there are.",
        ) from None


def _etags(header: str | None) -> set[str]:
    if not header:
        return set()
    return {tag.strip().removeprefix("W/") for tag in header.split(",")}


def _described(exc: BaseException, request: Request) -> str:
    """The error for the log: its type and message, with the caller's token scrubbed."""
    token = bearer_token(request)
    return scrub(f"{type(exc).__name__}: {exc}", [token] if token else [])


class _Failures:
    """The route's error answers, as Starlette exception handlers, for one log.

    A refusal is answered as raised; one of maple's errors as :func:`refusal_for` says (a
    store's own failure logged, and answered without its message); anything else is a logged
    500 (:class:`_Unexpected`). A log line never holds the caller's token.
    """

    def __init__(self, log: ServerLog) -> None:
        self.log = log

    async def refused(self, request: Request, exc: Exception) -> Response:
        """A refusal raised anywhere in a handler."""
        assert isinstance(exc, RouteRefusalError)
        return json_answer({"error": exc.error}, exc.status)

    async def maple_error(self, request: Request, exc: Exception) -> Response:
        """One of maple's errors: a caller's mistake answered with its message, else a 5xx."""
        assert isinstance(exc, MapleError)
        known = refusal_for(exc)
        if known is None or known.status >= 500:
            self.log.error("The Maple route failed.", failure=_described(exc, request))
        if known is None:
            return json_answer({"error": "Something went wrong"}, 500)
        return json_answer({"error": known.error}, known.status)


class _Unexpected:
    """ASGI middleware: a failure no exception handler took is logged and answered 500.

    It sits inside Starlette's server-error middleware, which would answer too but then
    re-raise the error for the server to print, unscrubbed.
    """

    def __init__(self, app: ASGIApp, log: ServerLog) -> None:
        self.app = app
        self.log = log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the route; on a failure, log it and answer 500 unless an answer has begun."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:
            self.log.error("The Maple route failed.", failure=_described(exc, Request(scope)))
            if not started:
                await json_answer({"error": "Something went wrong"}, 500)(scope, receive, send)


async def json_http_error(request: Request, exc: Exception) -> Response:
    """Starlette's 404 and 405 as the route's JSON errors."""
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    error = {404: "Not found", 405: "Method not allowed"}.get(status, "Something went wrong")
    return json_answer({"error": error}, status)


_ANY = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
_MAX_CLAIMED = 10_000  # comments one POST /claims may claim: a branch's whole listing
_REOPENED_BY_STATUS = "Reopened (status set to open, without a reason)."
"""The reason a reopening through Maple's ``PATCH {status: "open"}`` records."""


def create_route_app(options: RouteOptions) -> Starlette:
    """The route as a Starlette app; mount it at ``/api/maple`` (or any prefix) in your app.

    A mounted app's lifespan is not run by Starlette: run :func:`route_lifespan` in yours.
    """
    route = _Route(options)

    failures = _Failures(options.log)

    def at(path: str, handler: Callable[[Request], Awaitable[Response]], *methods: str) -> Route:
        return Route(path, handler, methods=list(methods) or _ANY)

    parts: list[Callable[[], AbstractAsyncContextManager[object]]] = []
    if options.lifespan is not None:
        parts.append(options.lifespan)
    extra: list[Route] = []
    if options.mcp is not None:
        from maple_entrypoints.route.mcp_http import mcp_endpoint

        served, manager = mcp_endpoint(options.mcp)
        extra.append(Route("/mcp", served))
        parts.append(manager.run)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for part in parts:
                await stack.enter_async_context(part())
            yield

    return Starlette(
        lifespan=lifespan,
        routes=[
            *extra,
            at("/comments", route.comments),
            at("/comments/{id}", route.patch_comment, "PATCH"),
            at("/comments/{id}", route.delete_comment, "DELETE"),
            at("/comments/{id}/thread", route.thread, "POST"),
            at("/comments/{id}/claim", route.claim, "POST"),
            at("/claims", route.sweep_claims, "POST"),
            at("/comments/{id}/classification/undo", route.undo, "POST"),
            at("/media", route.put_media, "POST"),
            at("/media/{key:path}", route.get_media, "GET"),
            at("/approvals", route.approvals),
            at("/approvals/{id}", route.withdraw, "DELETE"),
            at("/me", route.me, "GET"),
            at("/health", route.health, "GET"),
            at("/gate/refresh", route.gate_refresh),
        ],
        middleware=[Middleware(_Unexpected, log=options.log)],
        exception_handlers={
            HTTPException: json_http_error,
            RouteRefusalError: failures.refused,
            MapleError: failures.maple_error,
        },
    )


@asynccontextmanager
async def route_lifespan(app: Starlette) -> AsyncIterator[None]:
    """The lifespan of a route app from :func:`create_route_app`, run by the app mounting it.

    For example ``Starlette(routes=[Mount("/api/maple", route)], lifespan=lambda _:
    route_lifespan(route))``.
    """
    async with app.router.lifespan_context(app):
        yield
